//! Explain a failed probe: which probe (liveness, readiness, startup) and its
//! handler as `kubectl describe pod` prints it (the stored spec), the failure
//! as the kubelet's `Unhealthy` event words it, the failures in a row against
//! `failureThreshold` (the kubelet's probe record), and what follows
//! (`pkg/kubelet/prober/worker.go`, `doProbe`): a liveness or startup probe
//! that reaches the threshold has the container killed and restarted
//! (`Container app failed liveness probe, will be restarted`); a failing
//! readiness probe keeps the container not Ready, so the Pod is taken out of
//! its Services' endpoints.

use k8s_openapi::api::core::v1::Probe;
use podflow_engine::kubectl_printers::describe::containers::describe_probe;
use podflow_engine::store::Snapshot;
use podflow_engine::trace::{Detail, ProbeDetail, Record, TraceRecord};

use super::fit::{Row, prose, styled_prose};
use super::kubelet::{LOOK_BACK, container_status, kubelet_stage, pod_name, stored_pod};
use super::labelled;
use crate::tui::lang::Lang;
use crate::tui::panes::PaneCx;

/// Which probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Liveness,
    Readiness,
    Startup,
}

impl Kind {
    /// From the event's first word (`Liveness probe failed: …`).
    fn of(message: &str) -> Option<Kind> {
        match message.split_whitespace().next()? {
            "Liveness" => Some(Kind::Liveness),
            "Readiness" => Some(Kind::Readiness),
            "Startup" => Some(Kind::Startup),
            _ => None,
        }
    }

    /// `liveness`, as the spec's field begins.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Liveness => "liveness",
            Kind::Readiness => "readiness",
            Kind::Startup => "startup",
        }
    }

    fn spec(self, c: &k8s_openapi::api::core::v1::Container) -> Option<&Probe> {
        match self {
            Kind::Liveness => c.liveness_probe.as_ref(),
            Kind::Readiness => c.readiness_probe.as_ref(),
            Kind::Startup => c.startup_probe.as_ref(),
        }
    }
}

/// A failed probe, as the trace and the stored Pod tell it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeFailure {
    /// `NS/NAME`.
    pub pod: String,
    pub kind: Kind,
    pub detail: ProbeDetail,
    /// `kubectl describe`'s line for the probe: `exec [cat /tmp/healthy] delay=5s …`.
    pub handler: Option<String>,
    pub period_seconds: Option<i32>,
    /// The kubelet's `Killing` event that followed, when the probe's failures
    /// had the container restarted.
    pub killing: Option<String>,
    /// Whether the stored status says the container is ready.
    pub ready: Option<bool>,
}

/// The probe failure recorded at `anchor`.
pub fn at(records: &[TraceRecord], anchor: usize, store: &Snapshot) -> Option<ProbeFailure> {
    let stage = kubelet_stage(records.get(anchor)?)?;
    let Detail::Probe(detail) = &stage.detail else {
        return None;
    };
    let pod = stage.extra().pod.clone()?;
    let kind = Kind::of(&detail.message)?;
    let stored = stored_pod(store, &pod);
    let stored = stored.as_deref();
    let probe = stored
        .and_then(|p| p.spec.as_ref())
        .and_then(|s| s.containers.iter().find(|c| c.name == detail.container))
        .and_then(|c| kind.spec(c));
    let field = format!("spec.containers{{{}}}", detail.container);
    let killing = records[anchor + 1..].iter().find_map(|r| match &r.body {
        Record::Event(e)
            if e.reason == "Killing"
                && e.object.name == pod_name(&pod)
                && e.object.field_path.as_deref() == Some(field.as_str())
                && e.message
                    .contains(&format!("failed {} probe", kind.as_str())) =>
        {
            Some(e.message.clone())
        }
        _ => None,
    });
    Some(ProbeFailure {
        kind,
        handler: probe.map(describe_probe),
        period_seconds: probe.and_then(|p| p.period_seconds),
        killing,
        ready: stored
            .and_then(|p| container_status(p, &detail.container))
            .map(|s| s.ready),
        detail: detail.as_ref().clone(),
        pod,
    })
}

/// When the exit at `anchor` is the kill that a liveness or startup probe's
/// failures asked for: the index of that probe's last failure.
pub fn kill_cause(records: &[TraceRecord], anchor: usize) -> Option<usize> {
    let stage = kubelet_stage(records.get(anchor)?)?;
    let Detail::Exit(exit) = &stage.detail else {
        return None;
    };
    let pod = stage.extra().pod.as_deref()?;
    let floor = anchor.saturating_sub(LOOK_BACK);
    let mut killed = false;
    for i in (floor..anchor).rev() {
        match &records[i].body {
            Record::Event(e) if e.object.name == pod_name(pod) => {
                let ours = e.object.field_path.as_deref()
                    == Some(format!("spec.containers{{{}}}", exit.container).as_str());
                if ours && e.reason == "Started" {
                    return None;
                }
                if ours && e.reason == "Killing" && e.message.contains(" probe, will be restarted")
                {
                    killed = true;
                }
            }
            Record::Stage(_) => {
                let Some(s) = kubelet_stage(&records[i]) else {
                    continue;
                };
                if let Detail::Probe(p) = &s.detail
                    && killed
                    && s.extra().pod.as_deref() == Some(pod)
                    && p.container == exit.container
                {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// What a failing probe leads to.
fn consequence(p: &ProbeFailure, lang: Lang) -> String {
    let c = &p.detail.container;
    let at = p.detail.failure_threshold;
    let kind = p.kind.as_str();
    match (p.kind, &p.killing, lang) {
        (Kind::Readiness, _, Lang::En) => format!(
            "{c} is not Ready{}: the Pod is taken out of its Services' endpoints until the probe succeeds again; it is not restarted",
            if p.ready == Some(false) {
                " (ready: false)"
            } else {
                ""
            }
        ),
        (Kind::Readiness, _, Lang::Zh) => format!(
            "{c} 未就绪{}：在探针再次成功之前，Pod 会从其 Service 的端点中移除；容器不会被重启",
            if p.ready == Some(false) {
                "（ready: false）"
            } else {
                ""
            }
        ),
        (_, Some(killing), Lang::En) => {
            format!(
                "{killing}: the kubelet stops it (SIGTERM, then SIGKILL after the grace period) and starts it again"
            )
        }
        (_, Some(killing), Lang::Zh) => {
            format!("{killing}：kubelet 停止它（先 SIGTERM，宽限期后 SIGKILL），然后重新启动")
        }
        (_, None, Lang::En) => format!(
            "at {at} failures in a row the kubelet restarts {c}: \"Container {c} failed {kind} probe, will be restarted\""
        ),
        (_, None, Lang::Zh) => format!(
            "连续失败 {at} 次时 kubelet 会重启 {c}：\"Container {c} failed {kind} probe, will be restarted\""
        ),
    }
}

/// The pane's lines for a failed probe.
pub fn lines<'a>(p: &ProbeFailure, cx: &PaneCx<'_>) -> Vec<Row<'a>> {
    let (lang, theme) = (cx.lang, cx.theme);
    let d = &p.detail;
    let kind = p.kind.as_str();
    let title = match lang {
        Lang::En => format!(
            "Why is {}'s {} probe failing? {} of {} failures",
            p.pod, kind, d.failures, d.failure_threshold
        ),
        Lang::Zh => format!(
            "为什么 {} 的 {} 探针失败？已失败 {}/{} 次",
            p.pod, kind, d.failures, d.failure_threshold
        ),
    };
    let mut rows = vec![
        styled_prose(title, theme.active),
        prose(labelled(
            lang.pick("failed", "失败"),
            d.message.clone(),
            theme.bad,
            cx,
        )),
    ];
    if let Some(handler) = &p.handler {
        rows.push(prose(labelled(
            lang.pick("probe", "探针"),
            format!("{kind}: {handler}"),
            theme.text,
            cx,
        )));
    }
    let period = p.period_seconds.map(|s| match lang {
        Lang::En => format!(", one every {s}s (periodSeconds)"),
        Lang::Zh => format!("，每 {s}s 一次（periodSeconds）"),
    });
    let count = match (d.failures, lang) {
        (0, Lang::En) => format!(
            "the probe could not run, which is not counted; failureThreshold {}",
            d.failure_threshold
        ),
        (0, Lang::Zh) => format!(
            "探针无法运行，不计入次数；failureThreshold 为 {}",
            d.failure_threshold
        ),
        (n, Lang::En) => format!(
            "{n} failure{} in a row of failureThreshold {}{}",
            if n == 1 { "" } else { "s" },
            d.failure_threshold,
            period.unwrap_or_default()
        ),
        (n, Lang::Zh) => format!(
            "连续失败 {n} 次，failureThreshold 为 {}{}",
            d.failure_threshold,
            period.unwrap_or_default()
        ),
    };
    rows.push(prose(labelled(
        lang.pick("count", "次数"),
        count,
        theme.text,
        cx,
    )));
    rows.push(prose(labelled(
        lang.pick("so", "结果"),
        consequence(p, lang),
        theme.changed,
        cx,
    )));
    rows
}
