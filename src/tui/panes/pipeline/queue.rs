//! The scheduling queue as the pipeline pane shows it beside the scheduler:
//! how many pods wait in activeQ, in backoffQ and among the unschedulable
//! pods (`pkg/scheduler/backend/queue/scheduling_queue.go`).
//!
//! A pod waits while it has no node, is alive and has not finished (the
//! store's summaries say which do: `store_index`); where it
//! waits is what the scheduler's latest `queue` record about it says (looking
//! back at most [`super::LOOKBACK`] records), activeQ when none does. A pod
//! whose binding is in flight (its latest record is `select` or `bind`) waits
//! in no queue.

use std::collections::{BTreeMap, HashSet};

use crate::engine::store::{Store, prefix_for};
use crate::engine::trace::{Record, TraceRecord};
use crate::model::kinds::kind_of;
use crate::tui::panes::store_index::with_summaries;

/// How many pods wait where.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueueCounts {
    pub active: usize,
    pub backoff: usize,
    pub unschedulable: usize,
}

impl QueueCounts {
    /// Whether no pod waits.
    pub fn is_empty(self) -> bool {
        self.active + self.backoff + self.unschedulable == 0
    }

    /// The queue in a few words: `activeQ 1 · backoffQ 0 · unschedulable 2`,
    /// or, `short`, only the places where pods wait (`unschedulable 2`).
    pub fn label(self, short: bool) -> String {
        [
            ("activeQ", self.active),
            ("backoffQ", self.backoff),
            ("unschedulable", self.unschedulable),
        ]
        .iter()
        .filter(|(_, n)| !short || *n > 0)
        .map(|(place, n)| format!("{place} {n}"))
        .collect::<Vec<_>>()
        .join(" · ")
    }
}

/// Where each waiting pod of `store` is, from the latest records.
pub fn counts(store: &Store, records: &[TraceRecord]) -> QueueCounts {
    let prefix = prefix_for(kind_of("Pod"), None);
    with_summaries(store, |summaries| {
        // Each by the tail of its key, `ns/name`: how the scheduler's records name a pod.
        let waiting: HashSet<&str> = summaries
            .range(prefix.clone()..)
            .take_while(|(key, _)| key.starts_with(&prefix))
            .filter(|(_, s)| s.waiting)
            .filter_map(|(key, _)| key.strip_prefix(prefix.as_str()))
            .collect();
        place_counts(&waiting, records)
    })
}

/// How many of `waiting` are in each place, by the latest records.
fn place_counts(waiting: &HashSet<&str>, records: &[TraceRecord]) -> QueueCounts {
    let mut latest: BTreeMap<&str, &str> = BTreeMap::new();
    for record in records.iter().rev().take(super::LOOKBACK) {
        if latest.len() == waiting.len() {
            break;
        }
        if let Record::Stage(s) = &record.body
            && s.component == "kube-scheduler"
            && let Some(pod) = s.pod.as_deref()
            && waiting.contains(pod)
            && !latest.contains_key(pod)
        {
            let place = match s.stage.as_str() {
                "queue" => s.outcome.as_str(),
                "select" if s.outcome == "selected" => "binding",
                "bind" | "reserve" | "permit" | "prebind" => "binding",
                _ => "active",
            };
            latest.insert(pod, place);
        }
    }
    let mut counts = QueueCounts::default();
    for pod in waiting {
        match latest.get(pod).copied().unwrap_or("active") {
            "backoff" => counts.backoff += 1,
            "unschedulable" => counts.unschedulable += 1,
            "binding" => {}
            _ => counts.active += 1,
        }
    }
    counts
}
