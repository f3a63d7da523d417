//! A `FailedScheduling` Event where no scheduling cycle was seen (an
//! observed cluster, `podflow attach`): its message read back into the
//! per-reason table the scheduler's `FitError` wrote it from
//! (`podflow_attach::fit_error`), and what preemption found.

use ratatui::text::{Line, Span};

use podflow_attach::fit_error::{self, FitError};
use podflow_engine::trace::{Record, TraceRecord};

use super::fit;
use crate::tui::lang::Lang;
use crate::tui::panes::PaneCx;

/// The Event's Pod and its message, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObservedFit {
    pub pod: String,
    pub fit: FitError,
}

/// The current record's, if it is a `FailedScheduling` Event whose message reads.
pub fn at(records: &[TraceRecord]) -> Option<ObservedFit> {
    let Record::Event(event) = &records.last()?.body else {
        return None;
    };
    if event.reason != "FailedScheduling" {
        return None;
    }
    let pod = match &event.object.namespace {
        Some(ns) => format!("{ns}/{}", event.object.name),
        None => event.object.name.clone(),
    };
    Some(ObservedFit {
        pod,
        fit: fit_error::parse(&event.message)?,
    })
}

/// The table: a row per reason with its count of nodes, then preemption's.
pub fn lines(o: &ObservedFit, cx: &PaneCx<'_>) -> Vec<fit::Row<'static>> {
    let (lang, theme) = (cx.lang, cx.theme);
    let title = match lang {
        Lang::En => format!("Why is {} Pending? No node of {} fits", o.pod, o.fit.nodes),
        Lang::Zh => format!(
            "为什么 {} 处于 Pending？{} 个节点都不合适",
            o.pod, o.fit.nodes
        ),
    };
    let mut rows = vec![fit::styled_prose(title, theme.active)];
    let row = |count: u32, reason: &str| {
        fit::row(Line::from(vec![
            Span::styled(format!("  {count:>5}  "), theme.bad),
            Span::styled(reason.to_owned(), theme.text),
        ]))
    };
    rows.push(fit::row(Line::from(Span::styled(
        lang.pick("  nodes  reason", "  节点数  原因").to_owned(),
        theme.dim,
    ))));
    if let Some(prefilter) = &o.fit.prefilter {
        rows.push(fit::styled_prose(format!("  {prefilter}"), theme.bad));
    }
    rows.extend(o.fit.rows.iter().map(|r| row(r.count, &r.reason)));
    if !o.fit.preemption.is_empty() {
        rows.push(fit::styled_prose(
            lang.pick("Preemption:", "抢占：").to_owned(),
            theme.component,
        ));
        rows.extend(o.fit.preemption.iter().map(|r| row(r.count, &r.reason)));
    }
    rows.push(fit::styled_prose(
        lang.pick(
            "Read from the Event's message, as the scheduler's FitError writes it; the Pod is retried when the cluster changes.",
            "从事件消息中读出（调度器的 FitError 按此格式书写）；集群变化时会重试调度该 Pod。",
        )
        .to_owned(),
        theme.dim,
    ));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::panes::explain::Model;
    use crate::tui::panes::{PaneId, PaneState};
    use crate::tui::testing::render_pane_with;
    use podflow_engine::clock::SimTime;
    use podflow_engine::store::Store;
    use podflow_engine::timeline::Timeline;
    use podflow_engine::trace::{EventObject, EventRecord};

    /// An observed `FailedScheduling` (no scheduler stages in the run) is
    /// explained from its message.
    #[test]
    fn an_observed_failed_scheduling_is_read_into_its_table() {
        let event = Record::Event(Box::new(EventRecord {
            event_type: "Warning".into(),
            reason: "FailedScheduling".into(),
            message: "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.".into(),
            object: EventObject {
                kind: "Pod".into(),
                namespace: Some("default".into()),
                name: "huge".into(),
                field_path: None,
            },
            source: "default-scheduler".into(),
        }));
        let mut timeline = Timeline::observed();
        let record = TraceRecord {
            seq: 0,
            t_ms: 7,
            body: event,
        };
        timeline.push_observed(vec![record], &Store::default(), SimTime(7));
        let text = render_pane_with(
            &timeline,
            0,
            PaneId::Explain,
            90,
            14,
            Lang::En,
            &PaneState::default(),
        );
        insta::assert_snapshot!(text);
        crate::tui::testing::with_cx(&timeline, 0, &PaneState::default(), |cx| {
            assert!(matches!(Model::build(cx), Model::ObservedFit(_)));
        });
    }
}
