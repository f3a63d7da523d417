//! Faults that keep Pods from a node: requests larger than any node, a
//! dedicated node's taint the Pods do not tolerate, a `nodeSelector` or node
//! affinity no node meets, the one fitting node cordoned, or failed.

use super::pods::{on_deployment, step};
use super::{Cx, Fault, Kind};
use crate::app::{App, Shape};
use crate::say;

/// The scheduler's side of the hints: `FailedScheduling`.
fn pending_hint(app: &App) -> crate::Say {
    say(
        format!(
            ":get pods{} -l app={}: Pending. :describe one: the FailedScheduling event counts, node by node, why none fits.",
            app.ns_flag(),
            app.name
        ),
        format!(
            ":get pods{} -l app={}：Pending。对其中一个执行 :describe：FailedScheduling 事件逐个节点统计了为什么都不合适。",
            app.ns_flag(),
            app.name
        ),
    )
}

/// A strategic merge patch of the Pod template's spec.
fn template_patch(app: &App, spec: &str) -> String {
    format!(
        "patch deployment {}{} -p '{{\"spec\":{{\"template\":{{\"spec\":{spec}}}}}}}'",
        app.name,
        app.ns_flag()
    )
}

pub(super) fn requests_too_large(app: App, cx: &mut Cx<'_>) -> Fault {
    let (resource, big, fine) = *cx.choose(&[
        ("cpu", "6", "500m"),
        ("cpu", "8", "1"),
        ("memory", "12Gi", "256Mi"),
        ("memory", "16Gi", "512Mi"),
    ]);
    let shape = Shape {
        container: format!("resources:\n  requests: {{{resource}: {big}}}\n"),
        ..Shape::default()
    };
    let mut f = on_deployment(Kind::RequestsTooLarge, app.clone(), &shape);
    let capacity = if resource == "cpu" { "4" } else { "8Gi" };
    f.hints = vec![
        pending_hint(&app),
        say(
            format!(
                "Insufficient {resource}: compare the Pod's request with a node's allocatable {resource} (:describe node node-1)."
            ),
            format!(
                "Insufficient {resource}：把 Pod 的请求和节点可分配的 {resource} 比较一下（:describe node node-1）。"
            ),
        ),
    ];
    f.cause = say(
        format!(
            "Each Pod requests {big} of {resource}, and no node has that much allocatable (each worker has {capacity}): the scheduler's NodeResourcesFit filter refuses every node (Insufficient {resource}), and preemption cannot help. Request what the server needs, such as {fine}."
        ),
        format!(
            "每个 Pod 请求 {big} 的 {resource}，而没有任何节点有这么多可分配资源（每个工作节点 {capacity}）：调度器的 NodeResourcesFit 过滤器拒绝了所有节点（Insufficient {resource}），抢占也帮不上忙。按服务器的实际需要请求，例如 {fine}。"
        ),
    );
    f.fix = vec![template_patch(
        &app,
        &format!(
            "{{\"containers\":[{{\"name\":\"web\",\"resources\":{{\"requests\":{{\"{resource}\":\"{fine}\"}}}}}}]}}"
        ),
    )];
    f
}

pub(super) fn untolerated_taint(app: App, cx: &mut Cx<'_>) -> Fault {
    let node = cx.worker();
    let key = *cx.choose(&["dedicated", "team", "pool"]);
    if let Some(n) = cx.nodes.worker(&node) {
        n.labels.push((key.into(), app.name.clone()));
        n.taints
            .push((key.into(), app.name.clone(), "NoSchedule".into()));
    }
    let shape = Shape {
        pod: format!("nodeSelector:\n  {key}: {}\n", app.name),
        ..Shape::default()
    };
    let mut f = on_deployment(Kind::UntoleratedTaint, app.clone(), &shape);
    f.hints = vec![
        pending_hint(&app),
        say(
            format!(
                "The Pods may only go to nodes labelled {key}={}; :get nodes --show-labels, then :describe node {node} and read its Taints.",
                app.name
            ),
            format!(
                "这些 Pod 只能去带有标签 {key}={} 的节点；:get nodes --show-labels，然后 :describe node {node}，看它的 Taints。",
                app.name
            ),
        ),
    ];
    f.cause = say(
        format!(
            "The Pods select {node}, the node dedicated to {name} ({key}={name}), and {node} carries the taint {key}={name}:NoSchedule, which the Pods do not tolerate: every other node fails the nodeSelector, {node} fails TaintToleration. Give the Pods a toleration for it.",
            name = app.name
        ),
        format!(
            "这些 Pod 选择了专供 {name} 使用的 {node}（{key}={name}），而 {node} 带有污点 {key}={name}:NoSchedule，Pod 并不容忍它：其他节点不满足 nodeSelector，{node} 又过不了 TaintToleration。给 Pod 加上对这个污点的容忍。",
            name = app.name
        ),
    );
    f.fix = vec![template_patch(
        &app,
        &format!(
            "{{\"tolerations\":[{{\"key\":\"{key}\",\"operator\":\"Equal\",\"value\":\"{}\",\"effect\":\"NoSchedule\"}}]}}",
            app.name
        ),
    )];
    f
}

pub(super) fn unmatched_node_selector(app: App, cx: &mut Cx<'_>) -> Fault {
    let node = cx.worker();
    let typo = *cx.choose(&["disk-type", "disktyp", "diskType"]);
    for worker in &mut cx.nodes.workers {
        if worker.name == node {
            worker.labels.push((typo.into(), "ssd".into()));
        } else {
            worker.labels.push(("disktype".into(), "hdd".into()));
        }
    }
    let affinity = cx.rng.below(2) == 0;
    let pod = if affinity {
        "affinity:\n  nodeAffinity:\n    requiredDuringSchedulingIgnoredDuringExecution:\n      nodeSelectorTerms:\n        - matchExpressions:\n            - {key: disktype, operator: In, values: [ssd]}\n".to_owned()
    } else {
        "nodeSelector:\n  disktype: ssd\n".to_owned()
    };
    let shape = Shape {
        pod,
        ..Shape::default()
    };
    let mut f = on_deployment(Kind::UnmatchedNodeSelector, app.clone(), &shape);
    let asks = if affinity {
        "a required node affinity"
    } else {
        "a nodeSelector"
    };
    let asks_zh = if affinity {
        "必需的节点亲和性"
    } else {
        "nodeSelector"
    };
    f.hints = vec![
        pending_hint(&app),
        say(
            format!(
                "didn't match Pod's node affinity/selector: the Pods ask for disktype=ssd through {asks}. :get nodes --show-labels — which node has the SSD?"
            ),
            format!(
                "didn't match Pod's node affinity/selector：Pod 通过{asks_zh}要求 disktype=ssd。:get nodes --show-labels —— 哪个节点有 SSD？"
            ),
        ),
    ];
    f.cause = say(
        format!(
            "The Pods ask for disktype=ssd through {asks}. The node with the SSD, {node}, was labelled {typo}=ssd (a misspelled key), so no node matches and NodeAffinity refuses them all. Label {node} disktype=ssd."
        ),
        format!(
            "Pod 通过{asks_zh}要求 disktype=ssd。有 SSD 的节点 {node} 被打上的标签是 {typo}=ssd（键拼错了），所以没有节点匹配，NodeAffinity 拒绝了所有节点。给 {node} 打上 disktype=ssd 标签。"
        ),
    );
    f.fix = vec![format!("label node {node} disktype=ssd")];
    f
}

/// The Pods may run only on `node`, the one with an SSD (`disktype=ssd`).
fn only_on(app: &App, node: &str, cx: &mut Cx<'_>) -> Shape {
    for worker in &mut cx.nodes.workers {
        let disk = if worker.name == node { "ssd" } else { "hdd" };
        worker.labels.push(("disktype".into(), disk.into()));
    }
    let _ = app;
    Shape {
        pod: "nodeSelector:\n  disktype: ssd\n".into(),
        ..Shape::default()
    }
}

pub(super) fn cordoned_node(app: App, cx: &mut Cx<'_>) -> Fault {
    let node = cx.worker();
    let shape = only_on(&app, &node, cx);
    if let Some(n) = cx.nodes.worker(&node) {
        n.unschedulable = true;
    }
    let mut f = on_deployment(Kind::CordonedNode, app.clone(), &shape);
    f.hints = vec![
        pending_hint(&app),
        say(
            format!(
                "The Pods need disktype=ssd, which only {node} has. :get nodes — what does its STATUS say?"
            ),
            format!("Pod 需要 disktype=ssd，只有 {node} 有。:get nodes —— 它的 STATUS 是什么？"),
        ),
    ];
    f.cause = say(
        format!(
            "Only {node} has disktype=ssd, and {node} is cordoned (SchedulingDisabled, spec.unschedulable) since its last maintenance: NodeUnschedulable refuses it, the others fail the nodeSelector. Uncordon it."
        ),
        format!(
            "只有 {node} 有 disktype=ssd，而 {node} 自上次维护后一直处于封锁状态（SchedulingDisabled，spec.unschedulable）：NodeUnschedulable 拒绝了它，其他节点不满足 nodeSelector。解除封锁（uncordon）。"
        ),
    );
    f.fix = vec![format!("uncordon {node}")];
    f
}

pub(super) fn failed_node(app: App, cx: &mut Cx<'_>) -> Fault {
    let node = cx.worker();
    let shape = only_on(&app, &node, cx);
    let mut f = on_deployment(Kind::FailedNode, app.clone(), &shape);
    f.setup.push(step(
        format!("fault node {node}"),
        "A little later, something goes wrong in the cluster.".into(),
        "过了一会儿，集群里出了点问题。".into(),
    ));
    f.hints = vec![
        say(
            format!(
                ":get pods{} -l app={} -o wide: on which node do they run, and are they Ready?",
                app.ns_flag(),
                app.name
            ),
            format!(
                ":get pods{} -l app={} -o wide：它们在哪个节点上，是否就绪？",
                app.ns_flag(),
                app.name
            ),
        ),
        say(
            format!(":get nodes, then :describe node {node}: its conditions and taints."),
            format!(":get nodes，然后 :describe node {node}：看它的状况和污点。"),
        ),
    ];
    f.cause = say(
        format!(
            "{node}, the only node with disktype=ssd, stopped reporting: its kubelet lost the API server, so its Lease is not renewed; after the 50 s grace period the node lifecycle controller marks it NotReady (Unknown), marks its Pods not Ready and taints it unreachable. Bring the kubelet back (podflow's recover node)."
        ),
        format!(
            "{node} 是唯一带有 disktype=ssd 的节点，它停止了汇报：它的 kubelet 与 API Server 失去连接，Lease 不再续约；50 秒宽限期后节点生命周期控制器把它标记为 NotReady（Unknown），把它上面的 Pod 标记为未就绪，并打上 unreachable 污点。让 kubelet 恢复（podflow 的 recover node）。"
        ),
    );
    f.fix = vec![format!("recover node {node}")];
    f
}
