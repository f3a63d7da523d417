//! Explain an eviction: the node ran low on memory, the kubelet's eviction
//! manager ranked its Pods and evicted this one. Its containers are killed
//! at once (no grace period), its phase becomes `Failed` with reason
//! `Evicted`, and the kubelet never restarts it: whatever owns it makes a
//! new Pod (`synchronize` and `evictPod` in
//! `pkg/kubelet/eviction/eviction_manager.go`; the ranking and the message
//! in `helpers.go`, `rankMemoryPressure` and `evictionMessage`).
//! The message is the `Evicted` Event's, as `kubectl describe pod` shows it.

use k8s_openapi::api::core::v1::Pod;
use podflow_engine::store::Snapshot;
use podflow_engine::trace::{Detail, ExitDetail, Record, Stage, TraceRecord};

use super::crash::code_meaning;
use super::fit::{Row, prose, styled_prose};
use super::kubelet::{LOOK_BACK, is_eviction, kubelet_stage, pod_name, stored_pod};
use super::labelled;
use crate::tui::lang::Lang;
use crate::tui::panes::PaneCx;

/// An evicted Pod, as the trace and the stored Pod tell it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Eviction {
    /// `NS/NAME`.
    pub pod: String,
    /// The node whose kubelet evicted it.
    pub node: String,
    /// The `Evicted` Event's message (`The node was low on resource: memory. …`).
    pub message: String,
    /// Its containers' kills so far, in the order they exited.
    pub kills: Vec<ExitDetail>,
    /// The kind and name of what owns it (its controller), from the stored Pod.
    pub owner: Option<(String, String)>,
}

/// The eviction the failure at `anchor` is, or is part of: the eviction
/// itself, or an exit of a Pod the kubelet evicted before it (an evicted
/// Pod never runs again, so each of its exits after the eviction is the
/// eviction's kill).
pub fn at(records: &[TraceRecord], anchor: usize, store: &Snapshot) -> Option<Eviction> {
    let pod = kubelet_stage(records.get(anchor)?)?.extra().pod.clone()?;
    let floor = anchor.saturating_sub(LOOK_BACK);
    let of_pod = |s: &&Stage| s.extra().pod.as_deref() == Some(pod.as_str());
    let (evicted_at, stage) = (floor..=anchor).rev().find_map(|i| {
        let stage = kubelet_stage(&records[i]).filter(of_pod)?;
        is_eviction(stage).then_some((i, stage))
    })?;
    let message = records[floor..=evicted_at]
        .iter()
        .rev()
        .find_map(|r| evicted_event_message(r, &pod))?;
    let kills = records[evicted_at..=anchor]
        .iter()
        .filter_map(kubelet_stage)
        .filter(of_pod)
        .filter_map(|s| match &s.detail {
            Detail::Exit(e) => Some(e.as_ref().clone()),
            _ => None,
        })
        .collect();
    Some(Eviction {
        node: stage.extra().node.clone().unwrap_or_default(),
        owner: stored_pod(store, &pod).as_deref().and_then(controller),
        pod,
        message,
        kills,
    })
}

/// The message of `record` if it is the `Evicted` Event of `pod` (`NS/NAME`).
fn evicted_event_message(record: &TraceRecord, pod: &str) -> Option<String> {
    let Record::Event(event) = &record.body else {
        return None;
    };
    let object = &event.object;
    let named = pod.split_once('/')
        == Some((
            object.namespace.as_deref().unwrap_or_default(),
            object.name.as_str(),
        ));
    (event.reason == "Evicted" && object.kind == "Pod" && named).then(|| event.message.clone())
}

/// The kind and name of the Pod's controller (its owner with `controller: true`).
fn controller(pod: &Pod) -> Option<(String, String)> {
    pod.metadata
        .owner_references
        .iter()
        .flatten()
        .find(|o| o.controller == Some(true))
        .map(|o| (o.kind.clone(), o.name.clone()))
}

/// The pane's lines for an eviction.
pub fn lines<'a>(e: &Eviction, cx: &PaneCx<'_>) -> Vec<Row<'a>> {
    let (lang, theme) = (cx.lang, cx.theme);
    let title = match lang {
        Lang::En => format!("Why was {} evicted? {} ran low on memory", e.pod, e.node),
        Lang::Zh => format!("为什么 {} 被驱逐？{} 内存不足", e.pod, e.node),
    };
    let mut rows = vec![
        styled_prose(title, theme.active),
        prose(labelled(
            lang.pick("message", "消息"),
            e.message.trim_end().to_owned(),
            theme.bad,
            cx,
        )),
        prose(labelled(
            lang.pick("ranking", "排序"),
            lang.pick(
                "memory.available fell below the kubelet's hard eviction threshold, so its eviction manager ranked the node's Pods: those using more memory than they request first, then those of lower priority, then those furthest above their request; it evicts the first that is not critical",
                "memory.available 低于 kubelet 的硬驱逐阈值，于是驱逐管理器给节点上的 Pod 排序：内存用量超过请求的在前，其次优先级低的在前，再次超出请求最多的在前；驱逐第一个非关键 Pod",
            )
            .to_owned(),
            theme.text,
            cx,
        )),
    ];
    for kill in &e.kills {
        let (en, zh) = code_meaning(kill.code, &kill.reason);
        rows.push(prose(labelled(
            lang.pick("killed", "被杀死"),
            format!(
                "{}: {} ({}): {}{}",
                kill.container,
                kill.code,
                kill.reason,
                lang.pick(&en, &zh),
                lang.pick(", with no grace period", "，没有宽限期")
            ),
            theme.bad,
            cx,
        )));
    }
    let replaced = match (lang, &e.owner) {
        (Lang::En, Some((kind, name))) => {
            format!("; its {kind} {name} makes a new one, which the scheduler places again")
        }
        (Lang::Zh, Some((kind, name))) => {
            format!("；它的 {kind} {name} 会创建一个新的，由调度器重新放置")
        }
        (_, None) => lang
            .pick(
                ", and nothing owns this one to make another",
                "，也没有控制器为它另建一个",
            )
            .to_owned(),
    };
    rows.push(prose(labelled(
        lang.pick("after", "之后"),
        lang.pick(
            "phase Failed, reason Evicted: the kubelet never restarts an evicted Pod",
            "phase 为 Failed，reason 为 Evicted：kubelet 从不重启被驱逐的 Pod",
        )
        .to_owned()
            + &replaced,
        theme.text,
        cx,
    )));
    rows.push(styled_prose(
        match lang {
            Lang::En => format!(
                "Next: kubectl describe pod {} shows Status Failed, Reason Evicted and this message; kubectl describe node {} shows the MemoryPressure condition. Requests that match what a Pod uses keep it from being ranked first.",
                pod_name(&e.pod),
                e.node
            ),
            Lang::Zh => format!(
                "下一步：kubectl describe pod {} 会显示 Status Failed、Reason Evicted 和这条消息；kubectl describe node {} 会显示 MemoryPressure 状况。请求与实际用量相符的 Pod 不会被排在最前。",
                pod_name(&e.pod),
                e.node
            ),
        },
        theme.dim,
    ));
    rows
}
