//! Narrations of what components are told and tell: watch events, `core/v1`
//! Events, and kubectl's output. After the docs "Efficient detection of
//! changes" (`reference/using-api/api-concepts.md`), "Scheduling Framework",
//! `pkg/kubelet/events/event.go` (the kubelet's reasons) and kubectl's printers.

use super::text::{container_of, first_quoted};
use super::{Narration, tr};
use crate::tui::lang::Lang;
use podflow_engine::trace::{EventRecord, WatchRecord};

/// A watch event delivered to one watcher.
pub fn watch(w: &WatchRecord, lang: Lang) -> Narration {
    let object = match &w.namespace {
        Some(ns) => format!("{}/{ns}/{}", w.resource, w.name),
        None => format!("{}/{}", w.resource, w.name),
    };
    let rv = &w.resource_version;
    let kind = w.watcher.role();
    let why = match (kind, w.resource.as_str(), w.event_type.as_str()) {
        ("kube-scheduler", "pods", "ADDED") => tr(
            lang,
            "The scheduler learns of Pods only through its watch on the API server. This one has no spec.nodeName, so it joins the scheduling queue.".into(),
            "调度器只能通过对 API Server 的 watch 得知 Pod 的存在。这个 Pod 没有 spec.nodeName，于是进入调度队列。".into(),
        ),
        ("kube-scheduler", "pods", "MODIFIED") => tr(
            lang,
            "The scheduler's informer updates its copy of the Pod. Bound to a node, it counts in that node's requested resources; still waiting, it stays in the scheduling queue (a change that may let it fit moves it back to activeQ).".into(),
            "调度器的 informer 更新它手中的 Pod 副本。已绑定到节点的 Pod 计入该节点已请求的资源；仍在等待的 Pod 留在调度队列中（可能让它放得下的变更会把它移回 activeQ）。".into(),
        ),
        ("kube-scheduler", _, "DELETED") => tr(
            lang,
            "The scheduler drops it from its cache; the resources it held are free for the next Pods.".into(),
            "调度器把它从缓存中移除；它占用的资源可以留给后面的 Pod。".into(),
        ),
        ("kubelet", "pods", "ADDED") => tr(
            lang,
            format!("A kubelet watches only Pods whose spec.nodeName is its node (a field selector), so {} sees this Pod only now that it is bound.", w.watcher),
            format!("kubelet 只 watch spec.nodeName 为本节点的 Pod（字段选择器），所以 {} 直到 Pod 被绑定后才看到它。", w.watcher),
        ),
        ("kubelet", "pods", "MODIFIED") => tr(
            lang,
            "The kubelet's sync loop compares the new version with the one it runs and acts on the difference.".into(),
            "kubelet 的同步循环比较新版本与正在运行的版本，针对差异采取行动。".into(),
        ),
        ("kubelet", "pods", "DELETED") => tr(
            lang,
            "The Pod is gone from the API server; the kubelet stops tracking it.".into(),
            "Pod 已从 API Server 中删除；kubelet 不再跟踪它。".into(),
        ),
        _ => tr(
            lang,
            "Components never poll: each keeps a watch open and receives every change in resourceVersion order.".into(),
            "组件从不轮询：每个组件都保持一个 watch 连接，按 resourceVersion 顺序收到每一次变更。".into(),
        ),
    };
    Narration::new(
        tr(
            lang,
            format!("{} receives {} {object}", w.watcher, w.event_type),
            format!("{} 收到 {} 事件：{object}", w.watcher, w.event_type),
        ),
        vec![
            tr(
                lang,
                format!("Watch event at resourceVersion {rv}."),
                format!("watch 事件，resourceVersion {rv}。"),
            ),
            why,
        ],
    )
}

/// A `core/v1` Event.
#[expect(
    clippy::too_many_lines,
    reason = "a table of bilingual sentences, one arm a case"
)]
pub fn event(e: &EventRecord, lang: Lang) -> Narration {
    let object = format!("{}/{}", e.object.kind.to_ascii_lowercase(), e.object.name);
    let container = container_of(e.object.field_path.as_deref()).unwrap_or_default();
    let image = first_quoted(&e.message).unwrap_or_default();
    let (headline, why) = match e.reason.as_str() {
        "Scheduled" => (
            tr(
                lang,
                format!("Event Scheduled: {object} has a node"),
                format!("事件 Scheduled：{object} 已分配节点"),
            ),
            tr(
                lang,
                "Once the binding is stored the scheduler records this Event; kubectl describe pod lists it under Events.".into(),
                "绑定保存后，调度器记录这个事件；kubectl describe pod 会在 Events 中列出它。".into(),
            ),
        ),
        "FailedScheduling" => (
            tr(
                lang,
                format!("Event FailedScheduling: {object} cannot be placed"),
                format!("事件 FailedScheduling：{object} 无法调度"),
            ),
            tr(
                lang,
                "The message counts the nodes per reason; the Pod stays Pending and is retried when the cluster changes.".into(),
                "消息按原因统计了各类节点的数量；Pod 保持 Pending，集群变化时会被重试。".into(),
            ),
        ),
        "Pulling" => (
            tr(
                lang,
                format!("Event Pulling: the kubelet pulls {image}"),
                format!("事件 Pulling：kubelet 开始拉取 {image}"),
            ),
            tr(
                lang,
                "The node does not have the image, and imagePullPolicy IfNotPresent (the default for a tag other than :latest) pulls only then.".into(),
                "节点上没有这个镜像；imagePullPolicy 为 IfNotPresent（非 :latest 标签的默认值）时，只有这种情况才拉取。".into(),
            ),
        ),
        "Pulled" if e.message.contains("already present") => (
            tr(
                lang,
                format!("Event Pulled: {image} is already on the node"),
                format!("事件 Pulled：节点上已有 {image}"),
            ),
            tr(
                lang,
                "No download is needed; the container can be created right away.".into(),
                "无需下载，可以立即创建容器。".into(),
            ),
        ),
        "Pulled" => (
            tr(
                lang,
                format!("Event Pulled: {image} is on the node"),
                format!("事件 Pulled：{image} 拉取完成"),
            ),
            tr(
                lang,
                "The time includes waiting for other pulls: the kubelet pulls images one at a time by default (serializeImagePulls).".into(),
                "耗时包含等待其他拉取的时间：kubelet 默认一次只拉取一个镜像（serializeImagePulls）。".into(),
            ),
        ),
        "Created" => (
            tr(
                lang,
                format!("Event Created: container {container}"),
                format!("事件 Created：容器 {container} 已创建"),
            ),
            tr(
                lang,
                "containerd has created the container in the Pod's sandbox; it starts next.".into(),
                "containerd 已在 Pod 的沙箱中创建容器；接下来启动它。".into(),
            ),
        ),
        "Started" => (
            tr(
                lang,
                format!("Event Started: container {container}"),
                format!("事件 Started：容器 {container} 已启动"),
            ),
            tr(
                lang,
                "The container's process runs. The Pod shows Running once the kubelet reports it, and Ready once its readiness probes (if any) pass.".into(),
                "容器进程已运行。kubelet 上报后 Pod 显示为 Running；若配置了就绪探针，探针通过后才会 Ready。".into(),
            ),
        ),
        "Killing" => (
            tr(
                lang,
                format!("Event Killing: the kubelet stops container {container}"),
                format!("事件 Killing：kubelet 停止容器 {container}"),
            ),
            tr(
                lang,
                "The container gets SIGTERM and the Pod's termination grace period to exit before SIGKILL.".into(),
                "容器先收到 SIGTERM，在 Pod 的终止宽限期内退出，超时则被 SIGKILL。".into(),
            ),
        ),
        reason => (
            tr(
                lang,
                format!("Event {reason} on {object}"),
                format!("{object} 上的事件 {reason}"),
            ),
            tr(
                lang,
                format!("{} records it as a {} event; kubectl describe shows it.", e.source, e.event_type),
                format!("{} 记录了这个 {} 类型的事件；kubectl describe 可以看到它。", e.source, e.event_type),
            ),
        ),
    };
    Narration::new(
        headline,
        vec![
            tr(
                lang,
                format!("{} says: {}", e.source, e.message),
                format!("{}：{}", e.source, e.message),
            ),
            why,
        ],
    )
}

/// One line kubectl prints.
pub fn kubectl_output(line: &str, lang: Lang) -> Narration {
    let headline = tr(
        lang,
        format!("kubectl prints: {line}"),
        format!("kubectl 输出：{line}"),
    );
    let why = if line.starts_with("Error from server (") {
        let reason = line
            .trim_start_matches("Error from server (")
            .split(')')
            .next()
            .unwrap_or_default();
        tr(
            lang,
            format!(
                "The API server refused ({reason}); kubectl prints the Status message it returned, after the file it was applying."
            ),
            format!(
                "API Server 拒绝了请求（{reason}）；kubectl 在正在处理的文件名之后打印服务器返回的 Status 消息。"
            ),
        )
    } else if line.contains(" is invalid") {
        tr(
            lang,
            "Validation failed (422): each error names the field to fix.".into(),
            "校验失败（422）：每条错误都指出了需要修改的字段。".into(),
        )
    } else if line.starts_with("error:") {
        tr(
            lang,
            "kubectl itself stopped: the problem was found before or around the request.".into(),
            "kubectl 自身报错退出：问题出在请求之前或请求本身。".into(),
        )
    } else if line.ends_with(" created") {
        tr(
            lang,
            "The API server answered 201 Created. kubectl's work is done: the scheduler and the kubelet take it from here, without kubectl.".into(),
            "API Server 返回了 201 Created。kubectl 的工作到此结束：接下来由调度器和 kubelet 接手，与 kubectl 无关。".into(),
        )
    } else if line.ends_with(" configured") {
        tr(
            lang,
            "apply found differences and sent a patch; the object changed.".into(),
            "apply 发现了差异并发送了补丁；对象已被修改。".into(),
        )
    } else if line.ends_with(" unchanged") {
        tr(
            lang,
            "apply computed an empty patch: the live object already matches the file, so nothing was sent.".into(),
            "apply 计算出的补丁为空：线上对象已与文件一致，所以什么也没发送。".into(),
        )
    } else if line.contains(" deleted") {
        tr(
            lang,
            "The API server accepted the deletion; a running Pod still terminates gracefully on its node.".into(),
            "API Server 接受了删除请求；正在运行的 Pod 仍会在节点上优雅终止。".into(),
        )
    } else if line.ends_with(" scaled") {
        tr(
            lang,
            "The replica count changed; the controllers will create or delete Pods to match it."
                .into(),
            "副本数已修改；控制器会创建或删除 Pod 以达到这个数量。".into(),
        )
    } else if line.ends_with(" cordoned") || line.ends_with(" uncordoned") {
        tr(
            lang,
            "cordon sets spec.unschedulable: the scheduler's NodeUnschedulable filter stops placing new Pods there; running Pods stay.".into(),
            "cordon 设置 spec.unschedulable：调度器的 NodeUnschedulable 过滤插件不再向该节点放置新 Pod；已运行的 Pod 不受影响。".into(),
        )
    } else {
        tr(
            lang,
            "kubectl formats the API server's answer for reading.".into(),
            "kubectl 把 API Server 的响应整理成便于阅读的格式。".into(),
        )
    };
    Narration::new(headline, vec![why])
}
