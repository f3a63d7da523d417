//! The scheduling queue as the pipeline pane shows it beside the scheduler:
//! how many pods wait in activeQ, in backoffQ and among the unschedulable
//! pods (`pkg/scheduler/backend/queue/scheduling_queue.go`).
//!
//! A pod waits while it has no node, is alive and has not finished (the
//! store's summaries say which do: `store_index`); where it
//! waits is what the scheduler's latest `queue` record about it says (looking
//! back at most [`super::LOOKBACK`] records), activeQ when none does. A pod
//! whose binding is in flight (its latest record is `select` or `bind`) waits
//! in no queue. A pod just created that the scheduler has not yet heard of
//! (its `ADDED` watch event is still to come) waits in no queue either: the
//! queue is the scheduler's, filled by its informer.

use podflow_engine::trace::StageName;
use podflow_engine::trace::{Actor, Outcome};
use std::collections::{HashMap, HashSet};
use std::ops::Bound;

use crate::tui::panes::store_index::with_summaries;
use podflow_engine::store::{Snapshot, prefix_for};
use podflow_engine::trace::{Record, TraceRecord};
use podflow_model::kinds::kind_of;

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
pub fn counts(store: &Snapshot, records: &[TraceRecord]) -> QueueCounts {
    let prefix = prefix_for(kind_of("Pod"), None);
    with_summaries(store, |summaries| {
        let waiting = summaries
            .range::<_, str>((Bound::Included(prefix.as_str()), Bound::Unbounded))
            .take_while(|(key, _)| key.starts_with(&prefix))
            .filter(|(_, s)| s.waiting)
            .count();
        // Records name a pod by the tail of its key, `ns/name`.
        let waits = |pod: &str| {
            summaries
                .get(format!("{prefix}{pod}").as_str())
                .is_some_and(|s| s.waiting)
        };
        let unheard = unheard(records);
        let waiting = waiting - unheard.iter().filter(|pod| waits(pod)).count().min(waiting);
        place_counts(waiting, waits, records)
    })
}

/// The pods created in the latest records that the scheduler has not heard
/// of yet: the API server answered `201` to their create, and no watch
/// event or scheduler record about them has come since.
fn unheard(records: &[TraceRecord]) -> HashSet<String> {
    let start = records.len().saturating_sub(super::LOOKBACK);
    let mut unheard = HashSet::new();
    // The pod the API server is writing, until its answer.
    let mut writing: Option<&str> = None;
    for record in &records[start..] {
        match &record.body {
            Record::Message {
                from: Actor::ApiServer,
                to: Actor::Etcd,
                label,
                ..
            } => writing = label.strip_prefix("txn put /registry/pods/"),
            Record::Response { code, .. } => {
                if let Some(pod) = writing.take()
                    && *code == 201
                {
                    unheard.insert(pod.to_owned());
                }
            }
            Record::Watch(watch)
                if watch.watcher == Actor::Scheduler && watch.resource == "pods" =>
            {
                let ns = watch.namespace.as_deref().unwrap_or_default();
                unheard.remove(&format!("{ns}/{}", watch.name));
            }
            Record::Stage(s) if s.component == Actor::Scheduler => {
                if let Some(pod) = s.extra().pod.as_deref() {
                    unheard.remove(pod);
                }
            }
            _ => {}
        }
    }
    unheard
}

/// How many of the `waiting` pods are in each place: where the latest
/// scheduler record about each says (`waits` tells which pods wait), activeQ
/// for the rest.
fn place_counts(
    waiting: usize,
    waits: impl Fn(&str) -> bool,
    records: &[TraceRecord],
) -> QueueCounts {
    // Each pod named, with its place if it waits.
    let mut latest: HashMap<&str, Option<&str>> = HashMap::new();
    let mut placed = 0;
    for record in records.iter().rev().take(super::LOOKBACK) {
        if placed == waiting {
            break;
        }
        if let Record::Stage(s) = &record.body
            && s.component == Actor::Scheduler
            && let Some(pod) = s.extra().pod.as_deref()
            && !latest.contains_key(pod)
        {
            let place = waits(pod).then(|| match s.stage {
                StageName::Queue => s.outcome.as_str(),
                StageName::Select if s.outcome == Outcome::Selected => "binding",
                StageName::Bind | StageName::Reserve | StageName::Permit | StageName::PreBind => {
                    "binding"
                }
                _ => "active",
            });
            placed += usize::from(place.is_some());
            latest.insert(pod, place);
        }
    }
    let mut counts = QueueCounts::default();
    let mut binding = 0;
    for place in latest.values().flatten() {
        match *place {
            "backoff" => counts.backoff += 1,
            "unschedulable" => counts.unschedulable += 1,
            "binding" => binding += 1,
            _ => {}
        }
    }
    counts.active = waiting.saturating_sub(counts.backoff + counts.unschedulable + binding);
    counts
}

#[cfg(test)]
mod tests {
    use super::*;
    use podflow_engine::trace::Stage;

    fn stage(seq: u64, stage: StageName, outcome: Outcome, pod: &str) -> TraceRecord {
        TraceRecord {
            seq,
            t_ms: seq,
            body: Record::from(Stage::new(Actor::Scheduler, stage, outcome, "").pod(pod)),
        }
    }

    #[test]
    fn each_waiting_pod_is_where_its_latest_record_puts_it() {
        let records = [
            stage(0, StageName::Queue, Outcome::Unschedulable, "default/a"),
            stage(1, StageName::Queue, Outcome::Backoff, "default/a"),
            stage(2, StageName::Queue, Outcome::Unschedulable, "default/b"),
            stage(3, StageName::Select, Outcome::Selected, "default/c"),
            stage(4, StageName::Filter, Outcome::Fail, "default/e"),
            stage(5, StageName::Queue, Outcome::Backoff, "default/f"),
        ];
        // f has a node: it waits no more, whatever its records say.
        let waits = |pod: &str| pod != "default/f";
        let counts = place_counts(5, waits, &records);
        assert_eq!(
            counts,
            QueueCounts {
                active: 2, // d (no record) and e (being filtered)
                backoff: 1,
                unschedulable: 1,
            }
        );
        assert_eq!(place_counts(0, waits, &records), QueueCounts::default());
    }

    /// The queue is the scheduler's: a Pod just stored waits in it only
    /// once the scheduler's informer has delivered it.
    #[test]
    fn a_pod_joins_the_queue_when_the_scheduler_hears_of_it() {
        let t = crate::tui::testing::nginx_timeline();
        let records = t.records();
        let stored = records
            .iter()
            .position(|r| matches!(&r.body, Record::Response { code: 201, .. }))
            .expect("the Pod is created");
        let heard = records
            .iter()
            .position(|r| {
                matches!(&r.body, Record::Watch(w) if w.watcher == Actor::Scheduler && w.name == "nginx")
            })
            .expect("the scheduler hears of it");
        assert!(stored < heard);
        let at = |i: usize| {
            let view = t.view(i);
            counts(&view.store, view.records)
        };
        assert_eq!(
            at(stored),
            QueueCounts::default(),
            "stored, not yet heard of"
        );
        assert_eq!(at(heard - 1), QueueCounts::default());
        assert_eq!(at(heard).active, 1, "in activeQ once delivered");
    }
}
