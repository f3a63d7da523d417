//! Narrations of a node's kube-proxy: a sync of its rules
//! (`pkg/proxy/iptables/proxier.go`, `syncProxyRules`; the
//! `BoundedFrequencyRunner`'s `minSyncPeriod`) and a connection through them
//! (the `KUBE-SERVICES` → `KUBE-SVC-…` → `KUBE-SEP-…` DNAT, or the filter
//! table's `REJECT` for a Service without endpoints).

use super::{Narration, apiserver, tr};
use crate::tui::lang::Lang;
use podflow_engine::trace::{Outcome, Stage, StageName};

/// A stage of `kube-proxy/NODE`.
pub fn stage(s: &Stage, lang: Lang) -> Narration {
    let node = s.component.node().unwrap_or_default().to_owned();
    match (s.stage, s.outcome) {
        (StageName::SyncProxyRules, _) => sync(s, &node, lang),
        (StageName::Connect, Outcome::Reject) => rejected(s, &node, lang),
        (StageName::Connect, _) => dnat(s, &node, lang),
        _ => apiserver::generic(s, lang),
    }
}

fn sync(s: &Stage, node: &str, lang: Lang) -> Narration {
    let headline = if s.outcome == Outcome::InSync {
        tr(
            lang,
            format!("kube-proxy on {node} syncs its rules: nothing changed"),
            format!("{node} 上的 kube-proxy 同步规则：没有变化"),
        )
    } else {
        tr(
            lang,
            format!("kube-proxy on {node} rewrites its Service rules"),
            format!("{node} 上的 kube-proxy 重写 Service 规则"),
        )
    };
    Narration::new(
        headline,
        vec![
            s.detail.to_string(),
            tr(
                lang,
                "kube-proxy watches Services and EndpointSlices. For each Service port it writes a KUBE-SERVICES rule matching the ClusterIP and port that jumps to a KUBE-SVC-… chain; that chain picks one ready endpoint at random (--probability 1/n, then 1/(n-1), …) and jumps to its KUBE-SEP-… chain, which DNATs the packet to the Pod's IP and port.".into(),
                "kube-proxy 监听 Service 和 EndpointSlice。它为每个 Service 端口写一条匹配 ClusterIP 和端口的 KUBE-SERVICES 规则，跳转到 KUBE-SVC-… 链；该链随机选择一个就绪的端点（--probability 依次为 1/n、1/(n-1)…），跳到它的 KUBE-SEP-… 链，把数据包 DNAT 到 Pod 的 IP 和端口。".into(),
            ),
            tr(
                lang,
                "A Service port with no ready endpoint gets a REJECT rule instead (\"has no endpoints\"): connections are refused at once. Syncs run at most once per minSyncPeriod (1 s), so the rules trail the EndpointSlice by up to a second.".into(),
                "没有就绪端点的 Service 端口会得到一条 REJECT 规则（\"has no endpoints\"）：连接会被立即拒绝。同步最多每个 minSyncPeriod（1 秒）一次，所以规则会比 EndpointSlice 晚最多一秒。".into(),
            ),
        ],
    )
}

fn dnat(s: &Stage, node: &str, lang: Lang) -> Narration {
    Narration::new(
        tr(
            lang,
            format!("A connection to a Service is DNATed on {node}"),
            format!("发往 Service 的连接在 {node} 上被 DNAT"),
        ),
        vec![
            s.detail.to_string(),
            tr(
                lang,
                "No proxy process carries the packet: the node's own netfilter rules, written by kube-proxy, rewrite the ClusterIP destination to one endpoint's Pod IP, and conntrack keeps the rest of the connection on that endpoint. podflow takes the endpoints in turn where the kernel draws at random.".into(),
                "没有代理进程转发数据包：节点自己的 netfilter 规则（由 kube-proxy 写入）把目标 ClusterIP 改写成某个端点的 Pod IP，conntrack 让该连接后续的包都去往同一个端点。内核是随机选择端点的，podflow 则依次轮流选择。".into(),
            ),
        ],
    )
}

fn rejected(s: &Stage, node: &str, lang: Lang) -> Narration {
    Narration::new(
        tr(
            lang,
            format!("A connection to a Service is refused on {node}"),
            format!("发往 Service 的连接在 {node} 上被拒绝"),
        ),
        vec![
            s.detail.to_string(),
            tr(
                lang,
                "The Service has no ready endpoints (no Pods match its selector, or none is Ready), so kube-proxy's REJECT rule answers: the client sees \"Connection refused\". DNS still resolves the name: the Service exists, it just has nowhere to send traffic.".into(),
                "该 Service 没有就绪的端点（没有 Pod 匹配其选择器，或都未就绪），因此 kube-proxy 的 REJECT 规则直接回应：客户端看到 \"Connection refused\"。DNS 仍能解析该名字：Service 存在，只是没有可转发的目标。".into(),
            ),
        ],
    )
}
