//! kube-scheduler: watches pods and nodes, takes unscheduled pods one at a time
//! through Filter and Score, and binds each to the best node through the API
//! server's `binding` subresource (`pkg/scheduler/schedule_one.go`).
//!
//! Simplified against upstream: the default profile without the volume
//! plugins and `DynamicResources` (podflow simulates no volumes or devices),
//! one scheduling cycle at a time with the binding sent at once.

pub mod cache;
pub mod config;
pub mod events;
pub mod framework;
pub mod plugins;
mod preemption;
pub mod profile;
pub mod queue;
pub mod resources;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use k8s_openapi::api::core::v1::{Node, Pod};

use self::cache::Cache;
use self::events::{ClusterEvent, NodeChanges, PodChanges};
use self::framework::{BindAction, Code, CycleState, NodeInfo, Status};
use self::profile::ProfilePlugins;
use self::queue::{Place, SchedulingQueue};
use super::apiserver::handler::Response;
use super::apiserver::request::{Body, Credentials, Request, UserInfo, Verb};
use super::clock::SimTime;
use super::component::{Cx, RequestId, SchedulerTimer, pod_event};
use super::store::{EventType, WatchEvent};
use super::trace::Stage;
use podflow_model::kinds::kind_of;
use podflow_model::{Object, Shared};

const ME: &str = "kube-scheduler";
/// The name events are reported under (`kubectl describe`'s "From" column).
const SOURCE: &str = "default-scheduler";

/// kube-scheduler's state: its informer caches, its queue and its bindings in flight.
#[derive(Clone)]
pub struct Scheduler {
    /// Every node with the pods that count on it.
    cache: Cache,
    /// Every pod it knows, by `NS/NAME`.
    pods: BTreeMap<String, Shared<Pod>>,
    /// Pods assumed on a node while their binding is in flight.
    assumed: BTreeMap<String, String>,
    queue: SchedulingQueue,
    /// Failed attempts per pod, for its back-off.
    attempts: BTreeMap<String, u32>,
    binding: BTreeMap<RequestId, (String, String)>,
    cycle_pending: bool,
    /// When the queue's flush timer is set for.
    flush_at: Option<SimTime>,
    /// The profiles it runs (`KubeSchedulerConfiguration`), by scheduler name.
    profiles: Vec<Arc<ProfilePlugins>>,
    /// Where the next cycle starts looking for feasible nodes (`nextStartNodeIndex`).
    next_start_node: usize,
    /// Record every filter and score verdict (`--detail full`), or one record a cycle.
    verbose: bool,
    /// The plugins that rejected the pod of the current cycle.
    rejected_by: BTreeSet<&'static str>,
    /// The storage caches and the pods waiting in `VolumeBinding`'s `PreBind`.
    volumes: plugins::volume_binding::waits::VolumeWaits,
}

/// The cycle-state key of the message of the `PreFilter` plugin that
/// rejected the pod (`Diagnosis.PreFilterMsg`).
const PRE_FILTER_MSG: &str = "framework/preFilterMsg";

fn pod_key(pod: &Pod) -> String {
    format!(
        "{}/{}",
        pod.metadata.namespace.as_deref().unwrap_or_default(),
        pod.metadata.name.as_deref().unwrap_or_default()
    )
}

fn node_name_of(pod: &Pod) -> Option<&str> {
    pod.spec
        .as_ref()
        .and_then(|s| s.node_name.as_deref())
        .filter(|n| !n.is_empty())
}

/// The pod's priority (set by the Priority admission plugin).
fn priority_of(pod: &Pod) -> i32 {
    pod.spec.as_ref().and_then(|s| s.priority).unwrap_or(0)
}

/// The scheduler name a pod asks for (`spec.schedulerName`, defaulted).
fn scheduler_name_of(pod: &Pod) -> &str {
    pod.spec
        .as_ref()
        .and_then(|s| s.scheduler_name.as_deref())
        .unwrap_or(SOURCE)
}

/// Whether `pod` waits for a scheduler (unbound, alive, not finished).
fn unscheduled(pod: &Pod) -> bool {
    node_name_of(pod).is_none()
        && pod.metadata.deletion_timestamp.is_none()
        && !matches!(
            pod.status.as_ref().and_then(|s| s.phase.as_deref()),
            Some("Succeeded" | "Failed")
        )
}

impl Scheduler {
    /// Records one stage a scheduling cycle instead of every verdict (`--detail summary`).
    #[must_use]
    pub fn summarised(mut self) -> Scheduler {
        self.verbose = false;
        self
    }

    /// A scheduler running the default profile.
    pub fn with_default_profile() -> Scheduler {
        Scheduler::new(vec![ProfilePlugins::default()])
    }

    /// A scheduler running `profiles`.
    pub fn new(profiles: Vec<ProfilePlugins>) -> Scheduler {
        Scheduler {
            cache: Cache::default(),
            pods: BTreeMap::new(),
            assumed: BTreeMap::new(),
            queue: SchedulingQueue::default(),
            attempts: BTreeMap::new(),
            binding: BTreeMap::new(),
            cycle_pending: false,
            flush_at: None,
            profiles: profiles.into_iter().map(Arc::new).collect(),
            next_start_node: 0,
            verbose: true,
            rejected_by: BTreeSet::new(),
            volumes: plugins::volume_binding::waits::VolumeWaits::default(),
        }
    }

    /// The profile that schedules `pod`, if this scheduler has one for its `schedulerName`.
    fn profile_for(&self, pod: &Pod) -> Option<Arc<ProfilePlugins>> {
        let name = scheduler_name_of(pod);
        self.profiles
            .iter()
            .find(|p| p.scheduler_name == name)
            .cloned()
    }

    /// Whether this scheduler is the one to place `pod` now.
    fn needs_scheduling(&self, pod: &Pod) -> bool {
        unscheduled(pod) && self.profile_for(pod).is_some()
    }

    /// The name events about `key` are reported under: its profile's scheduler name.
    fn source_for(&self, key: &str) -> String {
        self.pods
            .get(key)
            .map_or_else(|| SOURCE.to_owned(), |p| scheduler_name_of(p).to_owned())
    }

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
                    "backoff",
                    format!("{label}: {key} waits in backoffQ until {until}"),
                ),
                _ => ("active", format!("{label}: {key} moved to activeQ")),
            };
            cx.stage(Stage::new(ME, "queue", outcome, detail).pod(key));
        }
        self.arm_flush(cx);
    }

    /// Sets the timer for the queue's next back-off or timeout.
    fn arm_flush(&mut self, cx: &mut Cx<'_>) {
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
    fn kick(&mut self, cx: &mut Cx<'_>) {
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
                for key in self.queue.flush(cx.now) {
                    cx.stage(
                        Stage::new(
                            ME,
                            "queue",
                            "active",
                            format!("{key} moved to activeQ (back-off over)"),
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

    /// Pops the next pod from activeQ and runs one scheduling cycle for it
    /// (`ScheduleOne`); false when no pod waits.
    pub fn schedule_next(&mut self, cx: &mut Cx<'_>) -> bool {
        while let Some(key) = self.queue.pop() {
            let Some(pod) = self.pods.get(&key).cloned() else {
                continue;
            };
            if !self.needs_scheduling(&pod) {
                continue;
            }
            self.schedule_one(&key, &pod, cx);
            return true;
        }
        false
    }

    /// The pod could not be placed: back to the queue, with its back-off.
    fn requeue_failed(&mut self, key: &str, rejected_by: BTreeSet<&'static str>, cx: &mut Cx<'_>) {
        let attempts = self.attempts.entry(key.to_owned()).or_default();
        *attempts += 1;
        let attempts = *attempts;
        let priority = self.pods.get(key).map_or(0, |p| priority_of(p));
        let (outcome, detail) = match self.queue.failed(
            key,
            priority,
            attempts,
            rejected_by,
            cx.now,
        ) {
            Place::Backoff { until } => (
                "backoff",
                format!("{key} waits in backoffQ until {until} (attempt {attempts})"),
            ),
            _ => (
                "unschedulable",
                format!(
                    "{key} waits among unschedulable pods for a cluster event (attempt {attempts})"
                ),
            ),
        };
        cx.stage(Stage::new(ME, "queue", outcome, detail).pod(key));
        self.arm_flush(cx);
    }

    /// One scheduling cycle: filter, score, select, then bind (asynchronously).
    fn schedule_one(&mut self, key: &str, pod: &Pod, cx: &mut Cx<'_>) {
        let Some(profile) = self.profile_for(pod) else {
            return;
        };
        let infos = self.cache.infos();
        let mut cycle = CycleState::default();
        cycle.write(plugins::volume_binding::LISTERS, self.volumes.listers());
        let this = This {
            profile: &profile,
            key,
            pod,
            verbose: self.verbose,
        };
        let (feasible, failures) = run_filters(
            &this,
            &mut self.next_start_node,
            infos,
            &mut cycle,
            &mut self.rejected_by,
            cx,
        );
        if feasible.is_empty() {
            let total = infos.len();
            let pre_filter_msg = cycle.read::<String>(PRE_FILTER_MSG).cloned();
            self.unschedulable_pod(key, pod, total, &failures, pre_filter_msg.as_deref(), cx);
            return;
        }
        let totals = run_scores(&this, &feasible, infos, &mut cycle, cx);
        let (chosen, total) = match select_host(&totals, cx) {
            Some(at) => (totals[at].0, Some(totals[at].1)),
            None => ("", None),
        };
        let detail = if self.verbose {
            let ranking: Vec<String> = totals.iter().map(|(n, s)| format!("{n}={s}")).collect();
            format!(
                "{chosen} with total {} ({})",
                total.unwrap_or_default(),
                ranking.join(", ")
            )
        } else {
            format!(
                "{chosen} with total {} (of {} feasible nodes)",
                total.unwrap_or_default(),
                totals.len()
            )
        };
        let chosen = chosen.to_owned();
        let mut stage = Stage::new(ME, "select", "selected", detail)
            .node(chosen.clone())
            .pod(key);
        stage.extra_mut().score = total;
        cx.stage(stage);
        self.bind(key, pod, &chosen, &profile, &mut cycle, cx);
    }

    /// Assumes the pod on `node`, then Reserve, Permit and `PreBind`, and
    /// sends the Bind plugin's binding (`schedulingCycle` after selection, then
    /// `bindingCycle`); a plugin's refusal forgets the pod and requeues it.
    fn bind(
        &mut self,
        key: &str,
        pod: &Pod,
        node: &str,
        profile: &ProfilePlugins,
        cycle: &mut CycleState,
        cx: &mut Cx<'_>,
    ) {
        self.assumed.insert(key.to_owned(), node.to_owned());
        if let Some(known) = self.pods.get(key) {
            self.cache.set_pod(key, known.clone(), Some(node));
        }
        match binding_cycle(profile, key, pod, node, cycle, cx) {
            Ok(()) if plugins::volume_binding::writes_of(cycle).is_some() => {
                let writes = plugins::volume_binding::writes_of(cycle)
                    .cloned()
                    .unwrap_or_default();
                cx.stage(
                    Stage::new(
                        ME,
                        "prebind",
                        "waiting",
                        format!(
                            "{key}: waiting for {} to be bound",
                            writes.claims.join(", ")
                        ),
                    )
                    .plugin(plugins::volume_binding::NAME)
                    .node(node)
                    .pod(key),
                );
                for object in writes.objects {
                    let request = Request::new(
                        ME,
                        identity(),
                        Verb::Update,
                        object.kind(),
                        object.namespace().map(str::to_owned),
                        object.name().to_owned(),
                    )
                    .body(Body::Object(Box::new(object)));
                    let id = cx.send(request);
                    self.volumes.sent(id, key);
                }
                self.volumes.wait(key, node, writes.claims);
                for (key, node) in self.volumes.ready() {
                    if let Some(pod) = self.pods.get(&key).cloned() {
                        self.send_binding(&key, &pod, &node, cx);
                    }
                }
            }
            Ok(()) => self.send_binding(key, pod, node, cx),
            // Inside the cycle: the timer that ran it schedules the next.
            Err(message) => self.forget_assumed(key, message, cx),
        }
    }

    /// Sends the Bind plugin's binding of `key` to `node`.
    fn send_binding(&mut self, key: &str, pod: &Pod, node: &str, cx: &mut Cx<'_>) {
        let request = pod_request(Verb::Create, pod)
            .subresource("binding")
            .body(Body::Binding {
                node: node.to_owned(),
            });
        cx.stage(
            Stage::new(ME, "bind", "request", format!("binding {key} to {node}"))
                .node(node)
                .pod(key),
        );
        let id = cx.send(request);
        self.binding.insert(id, (key.to_owned(), node.to_owned()));
    }

    /// An answer arrived (a binding's, or a status patch's).
    pub fn on_response(&mut self, id: RequestId, response: &Response, cx: &mut Cx<'_>) {
        if let Some(failed) = self.volumes.answered(id, response.code < 300) {
            if let Some(key) = failed {
                let message = format!(
                    "running PreBind plugin {:?}: {}",
                    plugins::volume_binding::NAME,
                    response.message()
                );
                self.binding_failed(&key, message, cx);
            }
            return;
        }
        let Some((key, node)) = self.binding.remove(&id) else {
            return;
        };
        let (ns, name) = key.split_once('/').unwrap_or(("", &key));
        let source = self.source_for(&key);
        if response.code < 300 {
            cx.event(pod_event(
                false,
                "Scheduled",
                format!("Successfully assigned {key} to {node}"),
                (ns, name),
                None,
                &source,
            ));
        } else {
            let message = format!("binding rejected: {}", response.message());
            self.binding_failed(&key, message, cx);
        }
    }

    /// The binding cycle of `key` failed on an answer: as
    /// [`Scheduler::forget_assumed`], then the next cycle is armed.
    fn binding_failed(&mut self, key: &str, message: String, cx: &mut Cx<'_>) {
        self.forget_assumed(key, message, cx);
        self.kick(cx);
    }

    /// The binding cycle of `key` failed (`handleBindingCycleError`): the
    /// assumed Pod is forgotten, `FailedScheduling` says why, and the Pod
    /// goes back to the queue; no plugin refused it, so any cluster event
    /// may help.
    fn forget_assumed(&mut self, key: &str, message: String, cx: &mut Cx<'_>) {
        self.assumed.remove(key);
        self.cache.remove_pod(key);
        let (ns, name) = key.split_once('/').unwrap_or(("", key));
        let source = self.source_for(key);
        cx.event(pod_event(
            true,
            "FailedScheduling",
            message,
            (ns, name),
            None,
            &source,
        ));
        self.requeue_failed(key, BTreeSet::new(), cx);
    }

    /// No node fits: the `FailedScheduling` event, the `PodScheduled=False` condition, and a wait.
    fn unschedulable_pod(
        &mut self,
        key: &str,
        pod: &Pod,
        total: usize,
        failures: &BTreeMap<String, (Code, Vec<String>)>,
        pre_filter_msg: Option<&str>,
        cx: &mut Cx<'_>,
    ) {
        let message = match self.profile_for(pod) {
            Some(profile) => self.post_filter(key, pod, &profile, failures, pre_filter_msg, cx),
            None => fit_error_message(total, failures),
        };
        let (ns, name) = key.split_once('/').unwrap_or(("", key));
        let source = self.source_for(key);
        cx.stage(Stage::new(ME, "select", "unschedulable", message.clone()).pod(key));
        cx.event(pod_event(
            true,
            "FailedScheduling",
            message.clone(),
            (ns, name),
            None,
            &source,
        ));
        let rejected_by = std::mem::take(&mut self.rejected_by);
        self.requeue_failed(key, rejected_by, cx);
        let patch = serde_json::json!({"status": {"conditions": [{
            "type": "PodScheduled", "status": "False", "reason": "Unschedulable",
            "message": message, "lastTransitionTime": cx.now.rfc3339(),
        }]}});
        let already = pod
            .status
            .as_ref()
            .and_then(|s| s.conditions.as_ref())
            .is_some_and(|c| {
                c.iter()
                    .any(|c| c.type_ == "PodScheduled" && c.message.as_deref() == Some(&message))
            });
        if !already {
            cx.send(
                pod_request(Verb::Patch, pod)
                    .subresource("status")
                    .body(Body::Patch(patch)),
            );
        }
    }
}

/// Reserve, Permit and `PreBind` on the chosen node, then the first Bind
/// plugin that takes the pod; one record per plugin. The error is the
/// `FailedScheduling` message upstream's framework words
/// (`pkg/scheduler/framework/runtime/framework.go`).
fn binding_cycle(
    profile: &ProfilePlugins,
    key: &str,
    pod: &Pod,
    node: &str,
    cycle: &mut CycleState,
    cx: &mut Cx<'_>,
) -> Result<(), String> {
    let record = |cx: &mut Cx<'_>, stage: &'static str, plugin: &'static str, status: &Status| {
        let outcome = if status.is_success() { "pass" } else { "fail" };
        let mut record = Stage::new(ME, stage, outcome, status.reasons.join(", "))
            .plugin(plugin)
            .node(node)
            .pod(key);
        record.extra_mut().code = Some(status.code.as_str().into());
        cx.stage(record);
    };
    for (done, plugin) in profile.reservers.iter().enumerate() {
        let status = plugin.reserve(cycle, pod, node);
        if status.code == Code::Skip {
            continue;
        }
        record(cx, "reserve", plugin.name(), &status);
        if !status.is_success() {
            for earlier in profile.reservers[..=done].iter().rev() {
                earlier.unreserve(cycle, pod, node);
            }
            return Err(format!(
                "running Reserve plugin {:?}: {}",
                plugin.name(),
                status.reasons.join(", ")
            ));
        }
    }
    let unreserve_all = |cycle: &mut CycleState| {
        for plugin in profile.reservers.iter().rev() {
            plugin.unreserve(cycle, pod, node);
        }
    };
    for plugin in &profile.permits {
        let status = plugin.permit(cycle, pod, node);
        record(cx, "permit", plugin.name(), &status);
        if !status.is_success() {
            unreserve_all(cycle);
            return Err(format!(
                "rejected pod {:?} by permit plugin {:?}: {}",
                pod.metadata.name.as_deref().unwrap_or_default(),
                plugin.name(),
                status.reasons.join(", ")
            ));
        }
    }
    for plugin in &profile.pre_binders {
        let status = match plugin.pre_bind_pre_flight(cycle, pod, node) {
            pre_flight if pre_flight.code == Code::Skip => continue,
            pre_flight if !pre_flight.is_success() => pre_flight,
            _ => plugin.pre_bind(cycle, pod, node),
        };
        record(cx, "prebind", plugin.name(), &status);
        if !status.is_success() {
            unreserve_all(cycle);
            return Err(format!(
                "running PreBind plugin {:?}: {}",
                plugin.name(),
                status.reasons.join(", ")
            ));
        }
    }
    let bound = profile
        .binders
        .iter()
        .any(|plugin| plugin.bind(pod, node) != BindAction::Skip);
    if bound {
        Ok(())
    } else {
        unreserve_all(cycle);
        Err("no bind plugin handled the pod".to_owned())
    }
}

/// A request of the scheduler's about `pod`.
fn pod_request(verb: Verb, pod: &Pod) -> Request {
    Request::new(
        ME,
        identity(),
        verb,
        kind_of("Pod"),
        pod.metadata.namespace.clone(),
        pod.metadata.name.clone().unwrap_or_default(),
    )
}

/// What one scheduling cycle is about: the profile, the pod, and whether
/// every verdict is recorded (`--detail full`) or only the outcome (`summary`).
#[derive(Clone, Copy)]
struct This<'a> {
    profile: &'a ProfilePlugins,
    key: &'a str,
    pod: &'a Pod,
    verbose: bool,
}

/// Nodes that failed, with the failing plugin's code and reasons.
type Failures = BTreeMap<String, (Code, Vec<String>)>;

/// `PreFilter`, then every Filter on every node (stopping at a node's first
/// failure, as upstream does); one record per verdict.
fn run_filters<'a>(
    this: &This<'_>,
    start: &mut usize,
    infos: &'a [NodeInfo],
    cycle: &mut CycleState,
    rejected_by: &mut BTreeSet<&'static str>,
    cx: &mut Cx<'_>,
) -> (Vec<&'a NodeInfo>, Failures) {
    rejected_by.clear();
    let This {
        profile,
        key,
        pod,
        verbose,
    } = *this;
    let mut failures = Failures::new();
    let mut active = Vec::new();
    for plugin in &profile.filters {
        let status = plugin.pre_filter(pod, infos, cycle);
        match status.code {
            Code::Success => active.push(plugin),
            Code::Skip => {}
            code => {
                let mut stage = Stage::new(ME, "prefilter", "fail", status.reasons.join(", "))
                    .plugin(plugin.name())
                    .pod(key);
                stage.extra_mut().code = Some(code.as_str().into());
                cx.stage(stage);
                for info in infos {
                    failures.insert(info.name().to_owned(), (code, status.reasons.clone()));
                }
                // `Diagnosis.PreFilterMsg`: the FitError quotes it instead of a per-node count.
                cycle.write(PRE_FILTER_MSG, status.reasons.join(", "));
                rejected_by.insert(plugin.name());
                return (Vec::new(), failures);
            }
        }
    }
    // PreFilter may narrow the nodes worth filtering (NodeAffinity's `metadata.name` terms).
    let narrowed = plugins::node_affinity::pre_filter_result(cycle).cloned();
    // Only as many feasible nodes as `percentageOfNodesToScore` asks for are
    // looked for, starting where the last cycle stopped (`findNodesThatPassFilters`).
    let wanted =
        config::num_feasible_nodes_to_find(profile.percentage_of_nodes_to_score, infos.len());
    let mut feasible = Vec::with_capacity(wanted.min(infos.len()));
    let first = if infos.is_empty() {
        0
    } else {
        *start % infos.len()
    };
    let mut processed = 0;
    // How many feasible nodes were found at or after `first` (before wrapping).
    let mut before_wrap = 0;
    let rotated = infos.iter().enumerate().skip(first);
    for (at, info) in rotated.chain(infos.iter().enumerate().take(first)) {
        if feasible.len() >= wanted {
            break;
        }
        processed += 1;
        if narrowed
            .as_ref()
            .is_some_and(|names| !names.contains(info.name()))
        {
            let reason = plugins::node_affinity::ABSENT_REASON.to_owned();
            failures.insert(
                info.name().to_owned(),
                (Code::UnschedulableAndUnresolvable, vec![reason]),
            );
            rejected_by.insert("NodeAffinity");
            continue;
        }
        let failed = active.iter().find_map(|plugin| {
            let status = plugin.filter(cycle, pod, info);
            let passed = status.is_success();
            if verbose {
                record_filter(cx, plugin.name(), info.name(), key, &status);
            }
            (!passed).then(|| (plugin.name(), status))
        });
        if let Some((plugin, status)) = failed {
            rejected_by.insert(plugin);
            failures.insert(info.name().to_owned(), (status.code, status.reasons));
        } else {
            feasible.push(info);
            before_wrap += usize::from(at >= first);
        }
    }
    *start = (first + processed) % infos.len().max(1);
    // Scored and selected in node-name order, whatever the visiting order:
    // the nodes found after wrapping around come first (both runs are in order).
    feasible.rotate_left(before_wrap);
    (feasible, failures)
}

/// One `filter` record: a plugin's verdict on a node.
fn record_filter(cx: &mut Cx<'_>, plugin: &'static str, node: &str, pod: &str, status: &Status) {
    let passed = status.is_success();
    let reasons = status.reasons.join(", ");
    let mut stage = Stage::new(
        ME,
        "filter",
        if passed { "pass" } else { "fail" },
        &*reasons,
    )
    .plugin(plugin)
    .node(node)
    .pod(pod);
    stage.extra_mut().code = Some(status.code.as_str().into());
    if !passed {
        stage.extra_mut().reason = Some(reasons);
    }
    cx.stage(stage);
}

/// `PreScore` and Score on the feasible nodes (given in node-name order), normalised and weighted; one
/// record per plugin and node. A single feasible node is not scored.
fn run_scores<'a>(
    this: &This<'_>,
    feasible: &[&'a NodeInfo],
    infos: &[NodeInfo],
    cycle: &mut CycleState,
    cx: &mut Cx<'_>,
) -> Vec<(&'a str, i64)> {
    let This {
        profile,
        key,
        pod,
        verbose,
    } = *this;
    let mut totals: Vec<(&'a str, i64)> = feasible.iter().map(|i| (i.name(), 0)).collect();
    if feasible.len() < 2 {
        return totals;
    }
    // One list of scores for every plugin in turn.
    let mut normalized = Vec::with_capacity(feasible.len());
    for (plugin, weight) in &profile.scorers {
        let weight = *weight;
        if plugin.pre_score(pod, feasible, infos, cycle).code == Code::Skip {
            continue;
        }
        normalized.clear();
        plugin.score_nodes(cycle, pod, feasible, &mut normalized);
        // The raw scores are kept only for the records of `--detail full`.
        let raw: Vec<i64> = if verbose {
            normalized.iter().map(|s| s.score).collect()
        } else {
            Vec::new()
        };
        plugin.normalize(cycle, &mut normalized);
        for (at, (normalized, total)) in normalized.iter().zip(&mut totals).enumerate() {
            let score = normalized.score;
            if verbose {
                let mut stage = Stage::new(ME, "score", "scored", format!("{score} × {weight}"))
                    .plugin(plugin.name())
                    .node(normalized.name)
                    .pod(key);
                stage.extra_mut().raw = raw.get(at).copied();
                stage.extra_mut().score = Some(score);
                stage.extra_mut().weight = Some(weight);
                cx.stage(stage);
            }
            total.1 += score * weight;
        }
    }
    totals
}

/// kube-scheduler's client identity (`system:kube-scheduler`, from its kubeconfig's certificate).
fn identity() -> Credentials {
    Credentials::Certificate(UserInfo::new("system:kube-scheduler", &[]))
}

/// Picks the highest total; ties are broken at random by reservoir sampling,
/// as `selectHost` does (`pkg/scheduler/schedule_one.go`).
/// Returns the index of the chosen node in `totals` (none when it is empty).
fn select_host(totals: &[(&str, i64)], cx: &mut Cx<'_>) -> Option<usize> {
    let mut best = None;
    let mut best_score = i64::MIN;
    let mut ties = 0u64;
    for (at, &(_, score)) in totals.iter().enumerate() {
        if score > best_score {
            best = Some(at);
            best_score = score;
            ties = 1;
        } else if score == best_score {
            ties += 1;
            if cx.rng.below(ties) == 0 {
                best = Some(at);
            }
        }
    }
    best
}

/// The `FailedScheduling` message (`pkg/scheduler/framework/types.go`, `FitError.Error`,
/// and the `DefaultPreemption` post-filter's message): reasons counted per node,
/// sorted as strings, then what preemption found.
pub fn fit_error_message(total: usize, failures: &BTreeMap<String, (Code, Vec<String>)>) -> String {
    let mut histogram: BTreeMap<&str, usize> = BTreeMap::new();
    let mut not_helpful = 0;
    let mut no_victims = 0;
    for (code, reasons) in failures.values() {
        for reason in reasons {
            *histogram.entry(reason).or_default() += 1;
        }
        if *code == Code::UnschedulableAndUnresolvable {
            not_helpful += 1;
        } else {
            no_victims += 1;
        }
    }
    let mut reasons: Vec<String> = histogram.iter().map(|(r, n)| format!("{n} {r}")).collect();
    reasons.sort();
    let mut preemption = Vec::new();
    if not_helpful > 0 {
        preemption.push(format!(
            "{not_helpful} Preemption is not helpful for scheduling"
        ));
    }
    if no_victims > 0 {
        preemption.push(format!(
            "{no_victims} No preemption victims found for incoming pod"
        ));
    }
    preemption.sort();
    format!(
        "0/{total} nodes are available: {}. preemption: 0/{total} nodes are available: {}.",
        reasons.join(", "),
        preemption.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_error_counts_reasons_per_node() {
        let mut failures = BTreeMap::new();
        failures.insert(
            "control-plane".to_owned(),
            (
                Code::UnschedulableAndUnresolvable,
                vec![plugins::taint_toleration::REASON.to_owned()],
            ),
        );
        for n in ["node-1", "node-2", "node-3"] {
            failures.insert(
                n.to_owned(),
                (Code::Unschedulable, vec!["Insufficient cpu".to_owned()]),
            );
        }
        assert_eq!(
            fit_error_message(4, &failures),
            "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient cpu. \
             preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, \
             3 No preemption victims found for incoming pod."
        );
    }
}
