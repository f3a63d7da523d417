//! Narrations of the scheduler's stages, after `pkg/scheduler/schedule_one.go`
//! (a scheduling cycle: filter, score, select, then the binding cycle) and the
//! plugins of `pkg/scheduler/framework/plugins/` (tainttoleration, noderesources,
//! nodename, nodeunschedulable), and the docs "Scheduling Framework".

use super::{Narration, apiserver, tr};
use crate::tui::lang::Lang;
use podflow_engine::trace::Outcome;
use podflow_engine::trace::Stage;
use podflow_engine::trace::StageName;

/// A stage of `kube-scheduler`.
pub fn stage(s: &Stage, lang: Lang) -> Narration {
    match s.stage {
        StageName::Filter => filter(s, lang),
        StageName::Score => score(s, lang),
        StageName::Select => select(s, lang),
        StageName::Bind => bind(s, lang),
        StageName::PostFilter => post_filter(s, lang),
        StageName::PreFilter | StageName::PreScore if s.outcome == Outcome::Skip => {
            skipped(s, lang)
        }
        _ => apiserver::generic(s, lang),
    }
}

/// What a Filter plugin checks, in both languages.
pub fn filter_purpose(plugin: &str) -> Option<(&'static str, &'static str)> {
    Some(match plugin {
        "NodeUnschedulable" => (
            "NodeUnschedulable rejects a cordoned node (spec.unschedulable) unless the Pod tolerates node.kubernetes.io/unschedulable.",
            "NodeUnschedulable 排除被 cordon 的节点（spec.unschedulable），除非 Pod 容忍 node.kubernetes.io/unschedulable。",
        ),
        "NodeName" => (
            "NodeName: a Pod that names a node in spec.nodeName fits only that node; this Pod names none.",
            "NodeName：如果 Pod 在 spec.nodeName 中指定了节点，就只能调度到该节点；本 Pod 未指定。",
        ),
        "TaintToleration" => (
            "TaintToleration keeps a Pod off nodes whose NoSchedule or NoExecute taints it does not tolerate; the control-plane node carries node-role.kubernetes.io/control-plane:NoSchedule.",
            "TaintToleration 让 Pod 远离带有它不容忍的 NoSchedule 或 NoExecute 污点的节点；控制面节点带有 node-role.kubernetes.io/control-plane:NoSchedule 污点。",
        ),
        "NodeResourcesFit" => (
            "NodeResourcesFit checks that the Pod's requests fit in the node's allocatable minus what the Pods already there request (requests, not actual use).",
            "NodeResourcesFit 检查 Pod 的 requests 是否放得进节点的可分配资源减去已有 Pod 的 requests（看的是 requests，而不是实际用量）。",
        ),
        _ => return None,
    })
}

/// What a Score plugin prefers, in both languages.
pub fn score_purpose(plugin: &str) -> Option<(&'static str, &'static str)> {
    Some(match plugin {
        "TaintToleration" => (
            "TaintToleration prefers nodes with fewer PreferNoSchedule taints the Pod does not tolerate.",
            "TaintToleration 偏好 Pod 不容忍的 PreferNoSchedule 污点更少的节点。",
        ),
        "NodeResourcesFit" => (
            "NodeResourcesFit (LeastAllocated by default) prefers nodes with more CPU and memory left after placing the Pod.",
            "NodeResourcesFit（默认 LeastAllocated 策略）偏好放下 Pod 之后剩余 CPU 和内存更多的节点。",
        ),
        "NodeResourcesBalancedAllocation" => (
            "NodeResourcesBalancedAllocation prefers nodes whose CPU and memory use stay balanced after placing the Pod.",
            "NodeResourcesBalancedAllocation 偏好放下 Pod 之后 CPU 与内存使用率更均衡的节点。",
        ),
        _ => return None,
    })
}

fn pod_of(s: &Stage) -> String {
    s.extra().pod.clone().unwrap_or_default()
}

fn filter(s: &Stage, lang: Lang) -> Narration {
    let plugin = s.plugin.clone().unwrap_or_default();
    let node = s.extra().node.clone().unwrap_or_default();
    let pod = pod_of(s);
    let mut body = Vec::new();
    let headline = if s.outcome == Outcome::Pass {
        tr(
            lang,
            format!("Filter {plugin}: {node} fits {pod}"),
            format!("过滤 {plugin}：{node} 满足 {pod}"),
        )
    } else {
        let reason = s
            .extra()
            .reason
            .clone()
            .unwrap_or_else(|| s.detail.to_string());
        let code = s.extra().code.clone().unwrap_or_default();
        body.push(tr(
            lang,
            format!("{node} is ruled out: {reason} ({code})."),
            format!("{node} 被排除：{reason}（{code}）。"),
        ));
        tr(
            lang,
            format!("Filter {plugin}: {node} does not fit {pod}"),
            format!("过滤 {plugin}：{node} 不满足 {pod}"),
        )
    };
    if let Some((en, zh)) = filter_purpose(&plugin) {
        body.push(tr(lang, en.into(), zh.into()));
    }
    body.push(tr(
        lang,
        "Every Filter plugin must pass for a node to stay feasible; a node is dropped at its first failing filter.".into(),
        "节点必须通过所有 Filter 插件才算可行；一旦某个过滤插件失败，该节点就被淘汰，后面的插件不再检查。".into(),
    ));
    body.truncate(3);
    Narration::new(headline, body)
}

/// A `PreFilter` or `PreScore` plugin answered Skip (`RunPreFilterPlugins`,
/// `RunPreScorePlugins` in `pkg/scheduler/framework/runtime/framework.go`).
fn skipped(s: &Stage, lang: Lang) -> Narration {
    let plugin = s.plugin.clone().unwrap_or_default();
    let pod = pod_of(s);
    let reason = s
        .extra()
        .reason
        .clone()
        .unwrap_or_else(|| s.detail.to_string());
    let pre_filter = s.stage == StageName::PreFilter;
    let headline = if pre_filter {
        tr(
            lang,
            format!("PreFilter {plugin}: skipped for {pod}"),
            format!("PreFilter {plugin}：对 {pod} 跳过"),
        )
    } else {
        tr(
            lang,
            format!("PreScore {plugin}: skipped for {pod}"),
            format!("PreScore {plugin}：对 {pod} 跳过"),
        )
    };
    let mut body = vec![tr(
        lang,
        format!("{plugin} answered Skip: {reason}."),
        format!("{plugin} 返回 Skip：{reason}。"),
    )];
    body.push(if pre_filter {
        tr(
            lang,
            format!(
                "So {plugin}'s Filter does not run on any node this cycle: it has nothing to check."
            ),
            format!("因此本周期 {plugin} 的 Filter 不在任何节点上运行：它没有要检查的内容。"),
        )
    } else {
        tr(
            lang,
            format!("So {plugin} gives no score this cycle: it has nothing to prefer."),
            format!("因此本周期 {plugin} 不打分：它没有偏好可言。"),
        )
    });
    Narration::new(headline, body)
}

fn score(s: &Stage, lang: Lang) -> Narration {
    let plugin = s.plugin.clone().unwrap_or_default();
    let node = s.extra().node.clone().unwrap_or_default();
    let score = s.extra().score.unwrap_or_default();
    let weight = s.extra().weight.unwrap_or(1);
    let raw = s.extra().raw.map_or_else(|| "?".into(), |r| r.to_string());
    let mut body = vec![tr(
        lang,
        format!(
            "Raw score {raw}, normalised to {score} (0–100), times weight {weight} = {}.",
            score * weight
        ),
        format!(
            "原始分 {raw}，归一化为 {score}（0–100），乘以权重 {weight} 得 {}。",
            score * weight
        ),
    )];
    if let Some((en, zh)) = score_purpose(&plugin) {
        body.push(tr(lang, en.into(), zh.into()));
    }
    body.push(tr(
        lang,
        "Only feasible nodes are scored; the weighted scores of all plugins are added up per node."
            .into(),
        "只有通过过滤的节点才会打分；每个节点的各插件加权分数相加得到总分。".into(),
    ));
    Narration::new(
        tr(
            lang,
            format!("Score {plugin}: {node} gets {score} × {weight}"),
            format!("打分 {plugin}：{node} 得 {score} × {weight}"),
        ),
        body,
    )
}

fn select(s: &Stage, lang: Lang) -> Narration {
    let pod = pod_of(s);
    if s.outcome == Outcome::Unschedulable {
        return Narration::new(
            tr(
                lang,
                format!("No node fits {pod}"),
                format!("没有节点能容纳 {pod}"),
            ),
            vec![
                s.detail.to_string(),
                tr(
                    lang,
                    "The Pod stays Pending with condition PodScheduled=False (reason Unschedulable); the scheduler retries when the cluster changes, for example when a node is added or a Pod is deleted. The Explain pane counts the reasons and shows what each node lacks.".into(),
                    "Pod 保持 Pending，条件 PodScheduled=False（原因 Unschedulable）；集群发生变化时（例如新增节点或删除 Pod），调度器会重试。“原因”面板会统计各项原因，并列出每个节点缺少什么。".into(),
                ),
            ],
        );
    }
    let node = s.extra().node.clone().unwrap_or_default();
    Narration::new(
        tr(
            lang,
            format!("The scheduler picks {node} for {pod}"),
            format!("调度器为 {pod} 选中 {node}"),
        ),
        vec![
            tr(
                lang,
                format!("Highest weighted total: {}.", s.detail),
                format!("加权总分最高：{}。", s.detail),
            ),
            tr(
                lang,
                "When several nodes tie for the best total, the scheduler picks one of them at random, so equal nodes share the load.".into(),
                "如果多个节点总分并列最高，调度器在其中随机选一个，让相同条件的节点分摊负载。".into(),
            ),
        ],
    )
}

/// `DefaultPreemption` (`pkg/scheduler/framework/preemption/preemption.go`).
fn post_filter(s: &Stage, lang: Lang) -> Narration {
    let pod = pod_of(s);
    if s.outcome == Outcome::Nominated {
        let node = s.extra().node.clone().unwrap_or_default();
        return Narration::new(
            tr(
                lang,
                format!("Preemption: {pod} is nominated to {node}"),
                format!("抢占：{pod} 被提名到 {node}"),
            ),
            vec![
                tr(
                    lang,
                    format!("No node fit, so the PostFilter plugin DefaultPreemption looked for a node where evicting pods of lower priority makes room: {}.", s.detail),
                    format!("没有节点满足条件，于是 PostFilter 插件 DefaultPreemption 寻找一个驱逐低优先级 Pod 后就能放下它的节点：{}。", s.detail),
                ),
                tr(
                    lang,
                    "Each victim gets the DisruptionTarget condition and is deleted gracefully; the Pod's status.nominatedNodeName names the node, and it is scheduled once the victims are gone.".into(),
                    "每个被驱逐的 Pod 先获得 DisruptionTarget 状态条件，再被优雅删除；本 Pod 的 status.nominatedNodeName 记下该节点，等被驱逐的 Pod 消失后再调度。".into(),
                ),
            ],
        );
    }
    Narration::new(
        tr(
            lang,
            format!("Preemption cannot help {pod}"),
            format!("抢占也帮不了 {pod}"),
        ),
        vec![tr(
            lang,
            format!(
                "DefaultPreemption found no node where evicting lower-priority pods would make room: {}",
                s.detail
            ),
            format!(
                "DefaultPreemption 找不到驱逐低优先级 Pod 后能放下它的节点：{}",
                s.detail
            ),
        )],
    )
}

fn bind(s: &Stage, lang: Lang) -> Narration {
    let pod = pod_of(s);
    let node = s.extra().node.clone().unwrap_or_default();
    Narration::new(
        tr(
            lang,
            format!("The scheduler binds {pod} to {node}"),
            format!("调度器把 {pod} 绑定到 {node}"),
        ),
        vec![
            tr(
                lang,
                format!("It first assumes the Pod on {node} in its own cache, so the next cycle already counts it, then binds asynchronously."),
                format!("它先在自己的缓存中假定（assume）该 Pod 已在 {node} 上，下一个调度周期就会把它算进去，然后异步执行绑定。"),
            ),
            tr(
                lang,
                "Binding is a POST of a Binding object to the Pod's binding subresource; the API server sets spec.nodeName. The scheduler never writes etcd itself.".into(),
                "绑定就是向 Pod 的 binding 子资源 POST 一个 Binding 对象，由 API Server 设置 spec.nodeName；调度器自己从不直接写 etcd。".into(),
            ),
        ],
    )
}
