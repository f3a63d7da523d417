//! Narrations of kube-controller-manager's stages (`informer`, `queue`,
//! `sync`), after client-go's shared informers and work queues
//! (`staging/src/k8s.io/client-go/tools/cache`, `util/workqueue`) and the
//! controllers of `pkg/controller/` (deployment, replicaset, garbagecollector,
//! resourcequota, namespace, serviceaccount, rootcacertpublisher).

use super::{Narration, apiserver, tr};
use crate::tui::lang::Lang;
use podflow_engine::trace::Outcome;
use podflow_engine::trace::Stage;
use podflow_engine::trace::StageName;

/// A stage of `kube-controller-manager`.
pub fn stage(s: &Stage, lang: Lang) -> Narration {
    match s.stage {
        StageName::Informer => informer(s, lang),
        StageName::Queue => queue(s, lang),
        StageName::Sync => sync(s, lang),
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
    let title = if s.outcome == Outcome::Processing {
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
        "node-controller" => (
            "The node lifecycle controller watches each node's Lease and Ready condition: a node silent for 50 s (node-monitor-grace-period) becomes Unknown, and gets the node.kubernetes.io/unreachable or not-ready taints.",
            "节点生命周期控制器关注每个节点的 Lease 与 Ready 状况：节点沉默超过 50 秒（node-monitor-grace-period）就变为 Unknown，并被打上 node.kubernetes.io/unreachable 或 not-ready 污点。",
        ),
        "taint-eviction-controller" => (
            "The taint eviction controller deletes Pods from nodes with NoExecute taints they do not tolerate, once their tolerationSeconds (300 s by default, from DefaultTolerationSeconds) run out.",
            "污点驱逐控制器会删除位于带 NoExecute 污点节点上、又不容忍该污点的 Pod：在 tolerationSeconds（默认 300 秒，来自 DefaultTolerationSeconds）到期之后。",
        ),
        "pod-garbage-collector" => (
            "The pod garbage collector looks every 20 s for Pods bound to a node that no longer exists: such a node is quarantined for 40 s, then checked with a GET; on 404 each of its Pods is marked Failed with the DisruptionTarget condition (DeletionByPodGC) and deleted at once (grace period 0).",
            "Pod 垃圾回收器每 20 秒查找绑定在已不存在节点上的 Pod：这样的节点先被隔离 40 秒，再用 GET 确认；若返回 404，就把其上每个 Pod 标记为 Failed、加上 DisruptionTarget 状况（DeletionByPodGC），并立即删除（宽限期 0）。",
        ),
        "job-controller" => (
            "The Job controller runs Pods until the Job has its completions, parallelism at a time, and counts failures against backoffLimit.",
            "Job 控制器按 parallelism 并行运行 Pod，直到达到 completions，并把失败计入 backoffLimit。",
        ),
        "endpointslice-controller" => (
            "The EndpointSlice controller lists each Service's Pods by its selector and writes their IPs into EndpointSlices, ready or not, as their Ready condition says.",
            "EndpointSlice 控制器按 Service 的选择器找出 Pod，把它们的 IP 写入 EndpointSlice，并按 Ready 状况标明是否就绪。",
        ),
        "endpoint-controller" => (
            "The endpoints controller keeps the older v1 Endpoints object of each Service with a selector: one object named after the Service, its Pods' IPs under addresses (ready) or notReadyAddresses. The API is deprecated since v1.33; kube-proxy reads EndpointSlices.",
            "Endpoints 控制器为每个带选择器的 Service 维护旧式的 v1 Endpoints 对象：与 Service 同名，Pod 的 IP 按是否就绪放在 addresses 或 notReadyAddresses 下。该 API 自 v1.33 起已弃用；kube-proxy 读取的是 EndpointSlice。",
        ),
        "persistent-volume-binder" => (
            "The PersistentVolume controller binds each claim to a volume: an existing one that fits, or, for a StorageClass with a provisioner, one made for it (after the first consumer is scheduled under WaitForFirstConsumer).",
            "PersistentVolume 控制器把每个 PVC 绑定到卷：已有的合适卷，或由 StorageClass 的 provisioner 为它新建的卷（WaitForFirstConsumer 时要等第一个使用者被调度后）。",
        ),
        "csi-provisioner" => (
            "The CSI external-provisioner answers claims of its driver's StorageClass: it calls the driver's CreateVolume and writes the PersistentVolume.",
            "CSI external-provisioner 处理使用其驱动的 StorageClass 的 PVC：调用驱动的 CreateVolume，并写入 PersistentVolume。",
        ),
        "resourcequota-controller" => (
            "The resource quota controller copies a quota's spec.hard to status.hard and counts what the namespace's objects use into status.used, again whenever counted objects go away. Admission enforces only what the status says.",
            "资源配额控制器把配额的 spec.hard 复制到 status.hard，并把命名空间中对象的用量计入 status.used；被计数的对象消失时会重新计算。准入只依据 status 执行限制。",
        ),
        "namespace-controller" => (
            "The namespace controller empties a Terminating namespace: it deletes every object in it through the API server, records its progress in the namespace's conditions, and then removes the kubernetes finalizer through namespaces/finalize, which deletes the namespace.",
            "命名空间控制器清空处于 Terminating 的命名空间：通过 API server 删除其中的每个对象，把进度写入命名空间的 conditions，最后经由 namespaces/finalize 去掉 kubernetes finalizer，命名空间随之被删除。",
        ),
        "serviceaccount-controller" | "service-account-controller" => (
            "The serviceaccount controller makes sure every Active namespace holds the default ServiceAccount: a new namespace, or a deleted default account, makes it create one through the API server. Pods that name no account get default, and wait in ServiceAccount admission until it exists.",
            "ServiceAccount 控制器确保每个 Active 命名空间都有名为 default 的 ServiceAccount：出现新命名空间或 default 被删除时，它会通过 API server 创建一个。未指定账号的 Pod 会使用 default，并在 ServiceAccount 准入中等待它出现。",
        ),
        "root-ca-cert-publisher" => (
            "The root CA publisher puts the ConfigMap kube-root-ca.crt, holding the cluster's CA certificate (ca.crt), in every namespace, and writes it back if it is changed or deleted. Each Pod's projected kube-api-access volume reads it, so programs in the Pod can verify the API server.",
            "根 CA 发布器在每个命名空间中放置 ConfigMap kube-root-ca.crt，其中的 ca.crt 是集群的 CA 证书；它被修改或删除时会被写回。每个 Pod 的投射卷 kube-api-access 读取它，让 Pod 中的程序能够验证 API server。",
        ),
        _ => return None,
    })
}

/// What a `waiting` sync waits for, read from its detail.
fn waiting_for(detail: &str) -> (&'static str, &'static str) {
    if detail.contains("its own write") {
        (
            "It waits until its own last write has come back through the informer, so it never acts on a stale cache.",
            "它要等自己上一次写入经由 informer 回到缓存后再行动，避免基于过期的缓存做决定。",
        )
    } else if detail.contains("content remaining") {
        (
            "Objects in the namespace are still going (Pods within their grace period, or held by finalizers): it looks again after half the estimate and a second.",
            "命名空间中仍有对象在删除中（处于宽限期的 Pod，或被 finalizer 挡住的对象）：它会在估计时间的一半再加一秒后重新检查。",
        )
    } else if detail.contains("expecting") {
        (
            "Its expectations are not met yet: the creations and deletions it sent must be seen in the cache before it counts Pods again, so it never makes too many.",
            "它的 expectations 还未满足：发出的创建与删除要先在缓存里看到，才会重新清点 Pod，因此不会多建。",
        )
    } else {
        (
            "Deleting in the foreground: the owner keeps its foregroundDeletion finalizer until every dependent that blocks it (blockOwnerDeletion) is gone.",
            "前台删除：属主保留 foregroundDeletion finalizer，直到每个阻塞它（blockOwnerDeletion）的依赖对象都被删除。",
        )
    }
}

fn sync(s: &Stage, lang: Lang) -> Narration {
    let controller = s.plugin.clone().unwrap_or_default();
    let mut body = Vec::new();
    if let Some((en, zh)) = purpose(&controller) {
        body.push(tr(lang, en.into(), zh.into()));
    }
    if s.outcome == Outcome::Waiting {
        let (en, zh) = waiting_for(&s.detail.text());
        body.push(tr(lang, en.into(), zh.into()));
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
