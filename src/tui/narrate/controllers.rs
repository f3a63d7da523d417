//! Narrations of kube-controller-manager's stages (`informer`, `queue`,
//! `sync`), after client-go's shared informers and work queues
//! (`staging/src/k8s.io/client-go/tools/cache`, `util/workqueue`) and the
//! controllers of `pkg/controller/` (deployment, replicaset, garbagecollector).

use super::{Narration, apiserver, tr};
use crate::engine::trace::Stage;
use crate::tui::lang::Lang;

/// A stage of `kube-controller-manager`.
pub fn stage(s: &Stage, lang: Lang) -> Narration {
    match s.stage.as_str() {
        "informer" => informer(s, lang),
        "queue" => queue(s, lang),
        "sync" => sync(s, lang),
        _ => apiserver::generic(s, lang),
    }
}

fn informer(s: &Stage, lang: Lang) -> Narration {
    Narration::new(
        tr(
            lang,
            format!("The controller manager's informer: {}", s.detail),
            format!("控制器管理器的 informer：{}", s.detail),
        ),
        vec![tr(
            lang,
            "Controllers never read etcd. A shared informer lists each resource once, then keeps a local cache current from its watch, and hands the changed object's key to every controller that cares.".into(),
            "控制器从不直接读 etcd。共享 informer 对每种资源先 LIST 一次，再靠 watch 保持本地缓存最新，并把变化对象的 key 交给所有关心它的控制器。".into(),
        )],
    )
}

fn queue(s: &Stage, lang: Lang) -> Narration {
    let controller = s.plugin.clone().unwrap_or_default();
    let title = if s.outcome == "processing" {
        tr(
            lang,
            format!("{controller}'s worker takes a key: {}", s.detail),
            format!("{controller} 的 worker 取出一个 key：{}", s.detail),
        )
    } else {
        tr(
            lang,
            format!("{controller} queues a key: {}", s.detail),
            format!("{controller} 把 key 放入工作队列：{}", s.detail),
        )
    };
    Narration::new(
        title,
        vec![tr(
            lang,
            "A work queue holds keys (namespace/name), not objects: a key waits once however many events arrive, and a failed sync returns later with a growing back-off (5 ms doubling, at most 1000 s).".into(),
            "工作队列里放的是 key（namespace/name）而不是对象：无论来多少事件，同一个 key 只排一次；同步失败的 key 会以递增的退避（5 ms 起翻倍，最多 1000 s）重新入队。".into(),
        )],
    )
}

/// What each controller's sync does, in both languages.
fn purpose(controller: &str) -> Option<(&'static str, &'static str)> {
    Some(match controller {
        "deployment-controller" => (
            "The Deployment controller owns ReplicaSets: it makes one named after the pod template's hash, scales it, and during a rollout moves replicas from the old ReplicaSet to the new within maxSurge and maxUnavailable.",
            "Deployment 控制器管理 ReplicaSet：按 Pod 模板的哈希值创建 ReplicaSet 并调整副本数；滚动更新时在 maxSurge 与 maxUnavailable 的限度内把副本从旧 ReplicaSet 挪到新的。",
        ),
        "replicaset-controller" => (
            "The ReplicaSet controller keeps the number of Pods equal to spec.replicas: it creates Pods from the template (generateName, owner reference) in slow-start batches of 1, 2, 4, …, or deletes the least valuable ones.",
            "ReplicaSet 控制器让 Pod 数量等于 spec.replicas：按模板创建 Pod（generateName、ownerReference），以 1、2、4…的慢启动批次创建，或删除价值最低的 Pod。",
        ),
        "generic-garbage-collector" => (
            "The garbage collector deletes objects whose owner (metadata.ownerReferences) is gone: deleting a Deployment removes its ReplicaSets, and then their Pods.",
            "垃圾回收器删除属主（metadata.ownerReferences）已不存在的对象：删除 Deployment 会删掉它的 ReplicaSet，进而删掉它们的 Pod。",
        ),
        _ => return None,
    })
}

fn sync(s: &Stage, lang: Lang) -> Narration {
    let controller = s.plugin.clone().unwrap_or_default();
    let mut body = Vec::new();
    if let Some((en, zh)) = purpose(&controller) {
        body.push(tr(lang, en.into(), zh.into()));
    }
    if s.outcome == "waiting" {
        body.push(tr(
            lang,
            "It waits until its own last write has come back through the informer, so it never acts on a stale cache.".into(),
            "它要等自己上一次写入经由 informer 回到缓存后再行动，避免基于过期的缓存做决定。".into(),
        ));
    }
    Narration::new(
        tr(
            lang,
            format!("{controller} syncs: {}", s.detail),
            format!("{controller} 同步：{}", s.detail),
        ),
        body,
    )
}
