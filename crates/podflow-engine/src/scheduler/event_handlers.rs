//! The scheduler's informer event handlers (mirrors
//! `pkg/scheduler/eventhandlers.go`: `addPodToSchedulingQueue`,
//! `updateNodeInCache`, ...): the informers' first list and each watch event
//! update the cache and the queue, and the cluster event it makes moves the
//! unschedulable pods it may help; and the timers that run a scheduling cycle
//! or flush the queue's back-offs.

use std::sync::Arc;

use k8s_openapi::api::core::v1::{Node, Pod};

use super::events::{ClusterEvent, NodeChanges, PodChanges};
use super::queue::Place;
use super::{Scheduler, node_name_of, pod_key, priority_of, unscheduled};
use crate::clock::SimTime;
use crate::component::{Cx, SchedulerTimer};
use crate::store::{EventType, WatchEvent};
use crate::trace::Stage;
use crate::trace::{Actor, Outcome, StageName};
use podflow_model::{Object, Shared};

impl Scheduler {
    /// The objects its informers listed before the story started.
    pub fn initial_list(&mut self, objects: &[Arc<Object>]) {
        for object in objects {
            match &**object {
                Object::Node(node) => self.cache.set_node(Arc::new(node.clone())),
                Object::Pod(pod) => {
                    let key = pod_key(pod);
                    if self.needs_scheduling(pod) {
                        self.queue.add(&key, priority_of(pod), SimTime::ZERO);
                    }
                    let Some(pod) = Shared::<Pod>::of(object) else {
                        continue;
                    };
                    self.cache.set_pod(&key, pod.clone(), node_name_of(&pod));
                    self.pods.insert(key, pod);
                }
                other => {
                    self.volumes.apply(other, false);
                }
            }
        }
    }

    /// A watch event arrived.
    pub fn on_watch(&mut self, event: &WatchEvent, cx: &mut Cx<'_>) {
        let cluster_event = match &*event.object {
            Object::Pod(_) => {
                Shared::of(&event.object).and_then(|pod| self.on_pod(pod, event.event_type, cx))
            }
            Object::Node(node) => self.on_node(node, event.event_type),
            other
                if self
                    .volumes
                    .apply(other, event.event_type == EventType::Deleted) =>
            {
                for (key, node) in self.volumes.ready() {
                    if let Some(pod) = self.pods.get(&key).cloned() {
                        self.send_binding(&key, &pod, &node, cx);
                    }
                }
                Some(ClusterEvent::Storage(other.kind().kind))
            }
            _ => None,
        };
        if let Some(cluster_event) = cluster_event {
            self.move_for(&cluster_event, cx);
        }
        self.kick(cx);
    }

    /// A pod changed: the queue and the cache follow; the cluster event it
    /// makes for unschedulable pods, if any.
    fn on_pod(
        &mut self,
        pod: Shared<Pod>,
        change: EventType,
        cx: &mut Cx<'_>,
    ) -> Option<ClusterEvent> {
        let key = pod_key(&pod);
        let before = self.pods.get(&key).cloned();
        let was_assigned = before.as_deref().and_then(node_name_of).is_some();
        if change == EventType::Deleted {
            self.pods.remove(&key);
            self.cache.remove_pod(&key);
            self.assumed.remove(&key);
            self.queue.remove(&key);
            self.attempts.remove(&key);
            // An assigned pod leaving frees room on its node.
            return was_assigned.then_some(ClusterEvent::AssignedPodDelete);
        }
        if node_name_of(&pod).is_some() {
            self.assumed.remove(&key);
            self.queue.remove(&key);
        }
        self.note_gated(&key, &pod, before.as_deref(), cx);
        let in_flight = self.binding.values().any(|(p, _)| *p == key);
        if self.needs_scheduling(&pod)
            && !self.queue.contains(&key)
            && !in_flight
            && !self.assumed.contains_key(&key)
        {
            self.queue.add(&key, priority_of(&pod), cx.now);
        }
        let node = node_name_of(&pod)
            .or_else(|| self.assumed.get(&key).map(String::as_str))
            .map(str::to_owned);
        self.cache.set_pod(&key, pod.clone(), node.as_deref());
        let assigned = node_name_of(&pod).is_some();
        let finished = |p: &Pod| !unscheduled(p) && node_name_of(p).is_none();
        let event = match before.as_deref() {
            // The waiting pod itself changed (`PriorityQueue.Update`): its own
            // update may make it schedulable.
            Some(old) if !assigned && !was_assigned => {
                let changes = PodChanges::between(old, &pod);
                changes.any().then(|| ClusterEvent::UnscheduledPodUpdate {
                    uid: pod.metadata.uid.clone().unwrap_or_default(),
                    changes,
                })
            }
            _ if !assigned => None,
            // A finished pod frees its node as a deleted one does.
            Some(old) if finished(&pod) && !finished(old) => Some(ClusterEvent::AssignedPodDelete),
            _ if finished(&pod) => None,
            Some(old) if was_assigned && old.metadata.labels != pod.metadata.labels => {
                Some(ClusterEvent::AssignedPodUpdate)
            }
            Some(_) if was_assigned => None,
            _ => Some(ClusterEvent::AssignedPodAdd),
        };
        self.pods.insert(key, pod);
        event
    }

    /// A pod of this scheduler's that `PreEnqueue` keeps out of the queue
    /// (`runPreEnqueuePlugins`: `SchedulingGates`): a stage when it arrives
    /// gated or its gates change.
    fn note_gated(&self, key: &str, pod: &Pod, before: Option<&Pod>, cx: &mut Cx<'_>) {
        if !unscheduled(pod) || self.profile_for(pod).is_none() {
            return;
        }
        let status = super::plugins::scheduling_gates::pre_enqueue(pod);
        let gates = |p: &Pod| p.spec.as_ref().and_then(|s| s.scheduling_gates.clone());
        if status.is_success() || before.is_some_and(|b| gates(b) == gates(pod)) {
            return;
        }
        let detail = format!(
            "SchedulingGates (PreEnqueue): {key} {}",
            status.reasons.join(", ")
        );
        cx.stage(Stage::new(Actor::Scheduler, StageName::Queue, Outcome::Waiting, detail).pod(key));
    }

    /// A node changed: the cache follows; the cluster event it makes, if any.
    fn on_node(&mut self, node: &Node, change: EventType) -> Option<ClusterEvent> {
        let name = node.metadata.name.as_deref().unwrap_or_default();
        match change {
            EventType::Deleted => {
                self.cache.remove_node(name);
                Some(ClusterEvent::NodeDelete)
            }
            EventType::Added => {
                self.cache.set_node(Arc::new(node.clone()));
                Some(ClusterEvent::NodeAdd(Box::new(node.clone())))
            }
            EventType::Modified => {
                let old = self.cache.node(name).cloned();
                self.cache.set_node(Arc::new(node.clone()));
                let old = old?;
                let changes = NodeChanges::between(&old, node);
                changes.any().then(|| ClusterEvent::NodeUpdate {
                    old: Box::new(old),
                    node: Box::new(node.clone()),
                    changes,
                })
            }
        }
    }

    /// A cluster event: the unschedulable pods it may help move back.
    fn move_for(&mut self, event: &ClusterEvent, cx: &mut Cx<'_>) {
        let pods = &self.pods;
        let moved = self.queue.move_matching(cx.now, |key, rejected_by| {
            pods.get(key)
                .is_some_and(|p| event.may_help(p, rejected_by))
        });
        let label = event.label();
        for (key, place) in moved {
            let (outcome, detail) = match place {
                Place::Backoff { until } => (
                    Outcome::Backoff,
                    format!("{label}: {key} waits in backoffQ until {until}"),
                ),
                _ => (Outcome::Active, format!("{label}: {key} moved to activeQ")),
            };
            cx.stage(Stage::new(Actor::Scheduler, StageName::Queue, outcome, detail).pod(key));
        }
        self.arm_flush(cx);
    }

    /// Sets the timer for the queue's next back-off or timeout.
    pub(super) fn arm_flush(&mut self, cx: &mut Cx<'_>) {
        let Some(due) = self.queue.next_due() else {
            return;
        };
        if self.flush_at.is_some_and(|at| at <= due && at > cx.now) {
            return;
        }
        self.flush_at = Some(due);
        let delay = due.as_millis().saturating_sub(cx.now.as_millis()).max(1);
        // A pod in back-off is work about to happen; one waiting five minutes
        // for an event does not keep the cluster busy.
        let in_backoff = self
            .queue
            .entries()
            .any(|(_, p, _)| matches!(p, Place::Backoff { .. }));
        if in_backoff {
            cx.after(delay, SchedulerTimer::FlushQueue);
        } else {
            cx.after_background(delay, SchedulerTimer::FlushQueue);
        }
    }

    /// Makes sure a scheduling cycle will run if a pod waits.
    pub(super) fn kick(&mut self, cx: &mut Cx<'_>) {
        if self.queue.has_active() && !self.cycle_pending {
            self.cycle_pending = true;
            cx.after(1, SchedulerTimer::ScheduleOne);
        }
    }

    /// A timer fired: schedule the next pod, or flush the queue.
    pub fn on_timer(&mut self, timer: SchedulerTimer, cx: &mut Cx<'_>) {
        match timer {
            SchedulerTimer::FlushQueue => {
                self.flush_at = None;
                // Where each pod waited: a back-off ran out, or a pod waited
                // out `podMaxInUnschedulablePodsDuration` among the
                // unschedulable ones (`flushUnschedulablePodsLeftover`, the
                // `UnschedulableTimeout` event).
                let was: std::collections::HashMap<String, Place> = self
                    .queue
                    .entries()
                    .map(|(key, place, _)| (key.clone(), place))
                    .collect();
                for key in self.queue.flush(cx.now) {
                    let why = match was.get(&key) {
                        Some(Place::Unschedulable { .. }) => {
                            "UnschedulableTimeout: 5m0s among the unschedulable pods"
                        }
                        _ => "back-off over",
                    };
                    cx.stage(
                        Stage::new(
                            Actor::Scheduler,
                            StageName::Queue,
                            Outcome::Active,
                            format!("{key} moved to activeQ ({why})"),
                        )
                        .pod(key),
                    );
                }
                self.arm_flush(cx);
            }
            SchedulerTimer::ScheduleOne => {
                self.cycle_pending = false;
                self.schedule_next(cx);
            }
        }
        self.kick(cx);
    }
}
