//! The scheduling queue (`pkg/scheduler/backend/queue/scheduling_queue.go`):
//! pods wait in the active queue to be scheduled; a pod that failed waits in
//! the backoff queue (1 s, doubling per attempt, at most 10 s) when a cluster
//! event could have helped it during its attempt, otherwise among the
//! unschedulable pods until a cluster event that may help one of the plugins
//! that rejected it moves it back (the queueing hints, see [`super::events`]),
//! or 5 minutes pass. The active queue is ordered by priority, then by when the
//! pod was added (upstream's `PrioritySort` default).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};

use crate::clock::SimTime;

/// The first back-off (`podInitialBackoffSeconds`).
pub const INITIAL_BACKOFF_MS: u64 = 1_000;
/// The longest back-off (`podMaxBackoffSeconds`).
pub const MAX_BACKOFF_MS: u64 = 10_000;
/// How long a pod stays unschedulable without an event (`podMaxInUnschedulablePodsDuration`).
pub const MAX_UNSCHEDULABLE_MS: u64 = 5 * 60 * 1000;

/// Where a pod waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Active,
    Backoff { until: SimTime },
    Unschedulable { since: SimTime },
}

/// One waiting pod.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    place: Place,
    priority: i32,
    /// When it entered the active queue, for FIFO order among equals.
    added: SimTime,
    /// Failed scheduling attempts so far.
    attempts: u32,
    /// Order of arrival, to break ties deterministically.
    order: u64,
    /// The plugins that rejected it last time (`UnschedulablePlugins`).
    rejected_by: BTreeSet<&'static str>,
}

impl Entry {
    /// Its position in the active queue.
    fn rank(&self, key: &str) -> Rank {
        (
            Reverse(self.priority),
            self.added,
            self.order,
            key.to_owned(),
        )
    }
}

/// Active-queue order: priority (highest first), arrival, order, key.
type Rank = (Reverse<i32>, SimTime, u64, String);

/// When a waiting pod's back-off or unschedulable timeout ends.
fn due_of(place: Place) -> Option<SimTime> {
    match place {
        Place::Backoff { until } => Some(until),
        Place::Unschedulable { since } => Some(since.plus(MAX_UNSCHEDULABLE_MS)),
        Place::Active => None,
    }
}

/// The queue, by pod key (`NS/NAME`).
#[derive(Debug, Clone, Default)]
pub struct SchedulingQueue {
    pods: BTreeMap<String, Entry>,
    /// The active pods in the order they are popped.
    active: BTreeSet<Rank>,
    /// The unschedulable pods, by key: what a cluster event looks through.
    unschedulable: BTreeSet<String>,
    /// The pods in back-off or unschedulable, by when that ends: what the
    /// flushes look through. With 10,000 pods pending, an event or a flush
    /// reads the few that wait, not every queued pod.
    due: BTreeSet<(SimTime, String)>,
    next_order: u64,
    /// Cluster events seen while a pod was being scheduled (upstream's `moveRequestCycle`).
    moved_during_cycle: bool,
}

/// A pod's back-off after `attempts` failures.
pub fn backoff_ms(attempts: u32) -> u64 {
    let doublings = attempts.saturating_sub(1).min(16);
    (INITIAL_BACKOFF_MS << doublings).min(MAX_BACKOFF_MS)
}

impl SchedulingQueue {
    /// Adds a new pod to the active queue (or updates its priority).
    pub fn add(&mut self, key: &str, priority: i32, now: SimTime) {
        if let Some(entry) = self.pods.get(key) {
            let mut entry = entry.clone();
            entry.priority = priority;
            self.put(key, entry);
            return;
        }
        self.next_order += 1;
        let entry = Entry {
            place: Place::Active,
            priority,
            added: now,
            attempts: 0,
            order: self.next_order,
            rejected_by: BTreeSet::new(),
        };
        self.put(key, entry);
    }

    /// Stores `entry`, keeping the indexes in step.
    fn put(&mut self, key: &str, entry: Entry) {
        self.remove(key);
        self.index(key, &entry, true);
        self.pods.insert(key.to_owned(), entry);
    }

    /// Forgets a pod (deleted, or bound).
    pub fn remove(&mut self, key: &str) {
        if let Some(entry) = self.pods.remove(key) {
            self.index(key, &entry, false);
        }
    }

    /// Adds `key` to the indexes its place belongs in (`add`), or takes it out.
    fn index(&mut self, key: &str, entry: &Entry, add: bool) {
        fn set<T: Ord>(index: &mut BTreeSet<T>, item: T, add: bool) {
            if add {
                index.insert(item);
            } else {
                index.remove(&item);
            }
        }
        match entry.place {
            Place::Active => set(&mut self.active, entry.rank(key), add),
            Place::Unschedulable { .. } => set(&mut self.unschedulable, key.to_owned(), add),
            Place::Backoff { .. } => {}
        }
        if let Some(due) = due_of(entry.place) {
            set(&mut self.due, (due, key.to_owned()), add);
        }
    }

    /// Whether the pod is queued anywhere.
    pub fn contains(&self, key: &str) -> bool {
        self.pods.contains_key(key)
    }

    /// Where a pod waits.
    pub fn place(&self, key: &str) -> Option<Place> {
        self.pods.get(key).map(|e| e.place)
    }

    /// Takes the next pod to schedule: the highest priority, then the oldest.
    pub fn pop(&mut self) -> Option<String> {
        let (_, _, _, key) = self.active.pop_first()?;
        self.pods.remove(&key);
        self.moved_during_cycle = false;
        Some(key)
    }

    /// A popped pod could not be scheduled (rejected by `rejected_by`): it
    /// waits in back-off when a cluster event came during its attempt, else
    /// among the unschedulable.
    pub fn failed(
        &mut self,
        key: &str,
        priority: i32,
        attempts: u32,
        rejected_by: BTreeSet<&'static str>,
        now: SimTime,
    ) -> Place {
        self.next_order += 1;
        let place = if self.moved_during_cycle {
            Place::Backoff {
                until: now.plus(backoff_ms(attempts)),
            }
        } else {
            Place::Unschedulable { since: now }
        };
        let entry = Entry {
            place,
            priority,
            added: now,
            attempts,
            order: self.next_order,
            rejected_by,
        };
        self.put(key, entry);
        place
    }

    /// A cluster event: every unschedulable pod that `helps` says the event
    /// may help (given the pod's key and the plugins that rejected it) moves
    /// to the backoff queue if its back-off is still running, else to the
    /// active queue (`MoveAllToActiveOrBackoffQueue`). Returns the moved keys
    /// and where they went.
    pub fn move_matching(
        &mut self,
        now: SimTime,
        mut helps: impl FnMut(&str, &BTreeSet<&'static str>) -> bool,
    ) -> Vec<(String, Place)> {
        self.moved_during_cycle = true;
        let pods = &self.pods;
        let chosen: Vec<String> = self
            .unschedulable
            .iter()
            .filter(|key| pods.get(*key).is_some_and(|e| helps(key, &e.rejected_by)))
            .cloned()
            .collect();
        let mut moved = Vec::new();
        for key in chosen {
            let Some(mut entry) = self.pods.get(&key).cloned() else {
                continue;
            };
            let Place::Unschedulable { since } = entry.place else {
                continue;
            };
            let until = since.plus(backoff_ms(entry.attempts));
            entry.place = if until > now {
                Place::Backoff { until }
            } else {
                entry.added = now;
                Place::Active
            };
            moved.push((key.clone(), entry.place));
            self.put(&key, entry);
        }
        moved
    }

    /// [`SchedulingQueue::move_matching`] for an event that may help every pod.
    pub fn move_all(&mut self, now: SimTime) -> Vec<(String, Place)> {
        self.move_matching(now, |_, _| true)
    }

    /// Moves pods whose back-off ended to the active queue, and pods
    /// unschedulable for too long back too (the periodic flushes).
    pub fn flush(&mut self, now: SimTime) -> Vec<String> {
        let mut due: Vec<String> = self
            .due
            .iter()
            .take_while(|(at, _)| *at <= now)
            .map(|(_, key)| key.clone())
            .collect();
        // In key order, as a walk over every queued pod would find them.
        due.sort_unstable();
        for key in &due {
            if let Some(mut entry) = self.pods.get(key).cloned() {
                entry.place = Place::Active;
                entry.added = now;
                self.put(key, entry);
            }
        }
        due
    }

    /// When the next back-off or unschedulable timeout ends, if any.
    pub fn next_due(&self) -> Option<SimTime> {
        self.due.first().map(|(at, _)| *at)
    }

    /// Whether a pod is ready to be popped.
    pub fn has_active(&self) -> bool {
        !self.active.is_empty()
    }

    /// Every waiting pod and where, for the views.
    pub fn entries(&self) -> impl Iterator<Item = (&String, Place, u32)> {
        self.pods.iter().map(|(k, e)| (k, e.place, e.attempts))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_from_one_second_to_ten() {
        // pkg/scheduler/backend/queue/scheduling_queue_test.go, TestBackOffFlow:
        // 1s, 2s, 4s, 8s, then capped at 10s.
        let got: Vec<u64> = (1..=6).map(backoff_ms).collect();
        assert_eq!(got, [1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
    }

    #[test]
    fn higher_priority_first_then_first_come() {
        let mut q = SchedulingQueue::default();
        q.add("default/low", 0, SimTime(0));
        q.add("default/high", 100, SimTime(5));
        q.add("default/low2", 0, SimTime(1));
        assert_eq!(q.pop().as_deref(), Some("default/high"));
        assert_eq!(q.pop().as_deref(), Some("default/low"));
        assert_eq!(q.pop().as_deref(), Some("default/low2"));
        assert_eq!(q.pop(), None);
    }

    #[test]
    fn a_failed_pod_waits_for_an_event() {
        let mut q = SchedulingQueue::default();
        q.add("default/p", 0, SimTime(0));
        assert_eq!(q.pop().as_deref(), Some("default/p"));
        assert_eq!(
            q.failed("default/p", 0, 1, BTreeSet::new(), SimTime(10)),
            Place::Unschedulable { since: SimTime(10) }
        );
        assert!(!q.has_active());
        // An event after the back-off ended sends it straight to the active queue.
        let moved = q.move_all(SimTime(2_000));
        assert_eq!(moved, [("default/p".to_owned(), Place::Active)]);
        assert_eq!(q.pop().as_deref(), Some("default/p"));
    }

    #[test]
    fn an_event_during_the_attempt_means_backoff() {
        let mut q = SchedulingQueue::default();
        q.add("default/p", 0, SimTime(0));
        q.pop();
        q.move_all(SimTime(5));
        let place = q.failed("default/p", 0, 2, BTreeSet::new(), SimTime(10));
        assert_eq!(
            place,
            Place::Backoff {
                until: SimTime(2_010)
            }
        );
        assert_eq!(q.next_due(), Some(SimTime(2_010)));
        assert!(q.flush(SimTime(2_009)).is_empty());
        assert_eq!(q.flush(SimTime(2_010)), ["default/p"]);
        assert!(q.has_active());
    }

    #[test]
    fn an_early_event_keeps_the_pod_in_backoff() {
        let mut q = SchedulingQueue::default();
        q.add("default/p", 0, SimTime(0));
        q.pop();
        q.failed("default/p", 0, 3, BTreeSet::new(), SimTime(100));
        assert_eq!(
            q.move_all(SimTime(200)),
            [(
                "default/p".to_owned(),
                Place::Backoff {
                    until: SimTime(4_100)
                }
            )]
        );
    }

    #[test]
    fn unschedulable_pods_are_retried_after_five_minutes() {
        let mut q = SchedulingQueue::default();
        q.add("default/p", 0, SimTime(0));
        q.pop();
        q.failed("default/p", 0, 1, BTreeSet::new(), SimTime(0));
        assert!(q.flush(SimTime(MAX_UNSCHEDULABLE_MS - 1)).is_empty());
        assert_eq!(q.flush(SimTime(MAX_UNSCHEDULABLE_MS)), ["default/p"]);
    }

    #[test]
    fn only_pods_an_event_may_help_move() {
        let mut q = SchedulingQueue::default();
        for (key, plugin) in [
            ("default/a", "NodeResourcesFit"),
            ("default/b", "NodeAffinity"),
        ] {
            q.add(key, 0, SimTime(0));
            q.pop();
            q.failed(key, 0, 1, BTreeSet::from([plugin]), SimTime(0));
        }
        let moved = q.move_matching(SimTime(5_000), |_, by| by.contains("NodeAffinity"));
        assert_eq!(moved, [("default/b".to_owned(), Place::Active)]);
        assert_eq!(
            q.place("default/a"),
            Some(Place::Unschedulable { since: SimTime(0) })
        );
        assert_eq!(q.pop().as_deref(), Some("default/b"));
        assert_eq!(q.pop(), None);
    }

    #[test]
    fn flushes_come_in_key_order_and_the_next_due_is_the_earliest() {
        let mut q = SchedulingQueue::default();
        // "c" fails first and waits longest in back-off; "a" fails last.
        for (key, at, attempts) in [
            ("default/c", 0, 4),
            ("default/b", 100, 1),
            ("default/a", 200, 2),
        ] {
            q.add(key, 0, SimTime(at));
            q.pop();
            q.move_all(SimTime(at)); // an event during the attempt: back-off
            q.failed(key, 0, attempts, BTreeSet::new(), SimTime(at));
        }
        assert_eq!(q.next_due(), Some(SimTime(1_100)));
        assert!(q.flush(SimTime(1_099)).is_empty());
        assert_eq!(
            q.flush(SimTime(8_000)),
            ["default/a", "default/b", "default/c"]
        );
        assert_eq!(q.next_due(), None);
        // Back in the active queue in the order they failed.
        q.remove("default/b");
        assert_eq!(q.pop().as_deref(), Some("default/c"));
        assert_eq!(q.pop().as_deref(), Some("default/a"));
    }
}
