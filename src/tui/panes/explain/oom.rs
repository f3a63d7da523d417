//! Explain an OOM kill: the container went over its memory limit and the
//! kernel killed it (exit code 137, reason `OOMKilled`, as containerd
//! reports a cgroup OOM kill). The memory it had when it crossed the limit is
//! the kubelet's exit record (the engine's process simulation decides the
//! kill); the limit and request are the stored Pod's spec.

use podflow_engine::trace::{CrashBackoffDetail, ExitDetail, TraceRecord};

use super::crash::{self, code_meaning};
use super::fit::{Row, prose, styled_prose};
use super::kubelet::{bytes, stored_pod};
use super::labelled;
use crate::tui::lang::Lang;
use crate::tui::panes::PaneCx;
use podflow_engine::store::Snapshot;

/// An OOM-killed container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OomKill {
    /// `NS/NAME`.
    pub pod: String,
    pub container: String,
    pub exit: ExitDetail,
    /// `resources.limits.memory` as the spec writes it (`100Mi`).
    pub limit: Option<String>,
    /// `resources.requests.memory` as the spec writes it.
    pub request: Option<String>,
    pub restarts: Option<i32>,
    pub backoff: Option<CrashBackoffDetail>,
    pub now_ms: u64,
}

/// The OOM kill the failure at `anchor` is part of, if its exit was one.
pub fn at(
    records: &[TraceRecord],
    anchor: usize,
    store: &Snapshot,
    now_ms: u64,
) -> Option<OomKill> {
    let crash = crash::at(records, anchor, store, now_ms)?;
    if crash.exit.reason != "OOMKilled" {
        return None;
    }
    let stored = stored_pod(store, &crash.pod);
    let resources = stored
        .as_deref()
        .and_then(|p| p.spec.as_ref())
        .and_then(|s| s.containers.iter().find(|c| c.name == crash.container))
        .and_then(|c| c.resources.as_ref());
    let memory = |list: Option<&std::collections::BTreeMap<String, _>>| {
        list.and_then(|l| l.get("memory"))
            .map(|q: &k8s_openapi::apimachinery::pkg::api::resource::Quantity| q.0.clone())
    };
    Some(OomKill {
        limit: memory(resources.and_then(|r| r.limits.as_ref())),
        request: memory(resources.and_then(|r| r.requests.as_ref())),
        pod: crash.pod,
        container: crash.container,
        exit: crash.exit,
        restarts: crash.restarts,
        backoff: crash.backoff,
        now_ms,
    })
}

/// The pane's lines for an OOM kill.
pub fn lines<'a>(o: &OomKill, cx: &PaneCx<'_>) -> Vec<Row<'a>> {
    let (lang, theme) = (cx.lang, cx.theme);
    let title = match lang {
        Lang::En => format!(
            "Why was {}'s {} killed? OOMKilled: over its memory limit",
            o.pod, o.container
        ),
        Lang::Zh => format!(
            "为什么 {} 的 {} 被杀死？OOMKilled：超出内存上限",
            o.pod, o.container
        ),
    };
    let limit = o
        .limit
        .clone()
        .or_else(|| o.exit.limit_bytes.map(bytes))
        .unwrap_or_else(|| "?".into());
    let used = o.exit.memory_bytes.map(bytes);
    let memory = match (&used, lang) {
        (Some(used), Lang::En) => format!("it reached {used}, over its limit of {limit}"),
        (Some(used), Lang::Zh) => format!("用到了 {used}，超过了上限 {limit}"),
        (None, Lang::En) => format!("over its limit of {limit}"),
        (None, Lang::Zh) => format!("超过了上限 {limit}"),
    };
    let (en, zh) = code_meaning(o.exit.code, &o.exit.reason);
    let mut rows = vec![
        styled_prose(title, theme.active),
        prose(labelled(lang.pick("memory", "内存"), memory, theme.bad, cx)),
        prose(labelled(
            lang.pick("exit", "退出"),
            format!(
                "{} ({}): {}",
                o.exit.code,
                o.exit.reason,
                lang.pick(&en, &zh)
            ),
            theme.bad,
            cx,
        )),
    ];
    let spec = match (&o.request, &o.limit) {
        (Some(r), Some(l)) => Some(format!("requests.memory: {r} · limits.memory: {l}")),
        (None, Some(l)) => Some(format!("limits.memory: {l}")),
        _ => None,
    };
    if let Some(spec) = spec {
        rows.push(prose(labelled(
            lang.pick("resources", "资源"),
            spec,
            theme.text,
            cx,
        )));
    }
    if o.backoff.is_some() || o.restarts.is_some_and(|n| n > 0) {
        rows.push(prose(labelled(
            lang.pick("back-off", "退避"),
            crash::backoff_text(o.backoff.as_ref(), o.now_ms, lang),
            theme.text,
            cx,
        )));
    }
    if let Some(n) = o.restarts {
        rows.push(prose(labelled(
            lang.pick("restarts", "重启次数"),
            n.to_string(),
            theme.text,
            cx,
        )));
    }
    let fix = match (&used, lang) {
        (Some(used), Lang::En) => format!(
            "Fix: give it more memory than it uses (limits.memory above {used}, and requests to match), or make it use less; it is killed at the same point after every restart."
        ),
        (Some(used), Lang::Zh) => format!(
            "修正：给它比实际用量更多的内存（limits.memory 高于 {used}，requests 随之调整），或让程序少用内存；否则每次重启后都会在同一处被杀死。"
        ),
        (None, Lang::En) => {
            "Fix: raise limits.memory (and requests to match), or make it use less.".to_owned()
        }
        (None, Lang::Zh) => {
            "修正：调高 limits.memory（requests 随之调整），或让程序少用内存。".to_owned()
        }
    };
    rows.push(styled_prose(fix, theme.changed));
    rows.extend(crash::output_rows(&o.exit, cx));
    rows
}
