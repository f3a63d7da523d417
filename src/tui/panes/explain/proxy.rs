//! Explain a node's kube-proxy step: at a `sync-proxy-rules` stage or a
//! connection through the rules, the rules that node's last sync wrote
//! (`pkg/proxy/iptables/proxier.go`, `syncProxyRules`: the filter table's
//! `REJECT` for each Service port without endpoints, then the nat table's
//! `KUBE-SERVICES` → `KUBE-SVC-…` → `KUBE-SEP-…` DNAT), under what the
//! step did.

use ratatui::text::{Line, Span};

use super::fit::{Row, row, styled_prose};
use crate::tui::lang::Lang;
use crate::tui::panes::PaneCx;
use podflow_engine::trace::{Actor, Outcome, Record, StageName, TraceRecord};

/// How far back the pane looks for the node's last sync.
const LOOK_BACK: usize = 20_000;

/// A kube-proxy step and the node's rules at it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProxyRules {
    pub node: String,
    /// The step: the sync's or the connection's detail.
    pub what: String,
    /// Whether the step is a refused connection.
    pub refused: bool,
    /// The rules of the node's last sync at or before the step (empty: none seen).
    pub rules: Vec<String>,
}

/// The kube-proxy step the current record is, if it is one.
pub fn at(records: &[TraceRecord]) -> Option<ProxyRules> {
    let Record::Stage(current) = &records.last()?.body else {
        return None;
    };
    let Actor::KubeProxy(node) = &current.component else {
        return None;
    };
    let rules = records
        .iter()
        .rev()
        .take(LOOK_BACK)
        .find_map(|r| match &r.body {
            Record::Stage(s)
                if s.stage == StageName::SyncProxyRules && s.component == current.component =>
            {
                s.extra().rules.clone()
            }
            _ => None,
        })
        .unwrap_or_default();
    Some(ProxyRules {
        node: node.to_string(),
        what: current.detail.to_string(),
        refused: current.outcome == Outcome::Reject,
        rules,
    })
}

/// The pane's rows: the title, the step, the rules (cut, not wrapped, as
/// `iptables-save` prints them one a line).
pub fn lines<'a>(p: &ProxyRules, cx: &PaneCx<'_>) -> Vec<Row<'a>> {
    let (lang, theme) = (cx.lang, cx.theme);
    let title = match lang {
        Lang::En => format!("kube-proxy's rules on {}", p.node),
        Lang::Zh => format!("{} 上 kube-proxy 的规则", p.node),
    };
    let style = if p.refused { theme.bad } else { theme.text };
    let mut rows = vec![
        styled_prose(title, theme.active),
        styled_prose(p.what.clone(), style),
        styled_prose(
            lang.pick(
                "Each Service port: KUBE-SERVICES matches its ClusterIP and port → KUBE-SVC-… picks an endpoint (--probability 1/n, 1/(n-1), …) → KUBE-SEP-… DNATs to the Pod. No ready endpoint: REJECT.",
                "每个 Service 端口：KUBE-SERVICES 匹配 ClusterIP 和端口 → KUBE-SVC-… 选一个端点（--probability 1/n、1/(n-1)…）→ KUBE-SEP-… DNAT 到 Pod。没有就绪端点：REJECT。",
            ),
            theme.dim,
        ),
    ];
    rows.extend(p.rules.iter().map(|rule| {
        let style = if rule.ends_with("-j REJECT") {
            theme.bad
        } else if rule.starts_with('*') {
            theme.component
        } else {
            theme.text
        };
        row(Line::from(Span::styled(rule.clone(), style)))
    }));
    rows
}
