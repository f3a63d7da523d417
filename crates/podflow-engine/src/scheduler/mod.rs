//! kube-scheduler: watches pods and nodes, takes unscheduled pods one at a time
//! through Filter and Score, and binds each to the best node through the API
//! server's `binding` subresource. This file holds the `Scheduler` and its
//! construction (`pkg/scheduler/scheduler.go`); its entry points live beside
//! their work, as upstream's do: the watch events and timers in
//! `event_handlers` (`eventhandlers.go`), the scheduling cycle in
//! `schedule_one`, the binding cycle and its answers in `binding_cycle`
//! (both `schedule_one.go`).
//!
//! Simplified against upstream: the default profile without the volume
//! plugins and `DynamicResources` (podflow simulates no volumes or devices),
//! one scheduling cycle at a time with the binding sent at once.

mod binding_cycle;
pub mod cache;
pub mod config;
pub mod cycle_filter;
mod event_handlers;
pub mod events;
mod extension_point;
mod find_nodes;
pub mod framework;
pub mod plugins;
mod preemption;
mod prioritize;
pub mod profile;
pub mod queue;
mod queueing_hints;
mod registry;
pub mod resources;
mod schedule_one;
pub mod snapshot;

pub use self::schedule_one::fit_error_message;

use crate::trace::Actor;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use k8s_openapi::api::core::v1::Pod;

use self::cache::Cache;
use self::profile::ProfilePlugins;
use self::queue::SchedulingQueue;
use super::apiserver::request::{Credentials, Request, UserInfo, Verb};
use super::clock::SimTime;
use super::component::RequestId;
use podflow_model::Shared;
use podflow_model::kinds::kind_of;
use podflow_model::object::pod_key;

const ME: Actor = Actor::Scheduler;
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

    /// Whether this scheduler is the one to place `pod` now: its pod, not
    /// bound, and let into the queue by `PreEnqueue` (`SchedulingGates`).
    fn needs_scheduling(&self, pod: &Pod) -> bool {
        unscheduled(pod)
            && self.profile_for(pod).is_some()
            && plugins::scheduling_gates::pre_enqueue(pod).is_success()
    }

    /// The name events about `key` are reported under: its profile's scheduler name.
    fn source_for(&self, key: &str) -> String {
        self.pods
            .get(key)
            .map_or_else(|| SOURCE.to_owned(), |p| scheduler_name_of(p).to_owned())
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

/// kube-scheduler's client identity (`system:kube-scheduler`, from its kubeconfig's certificate).
fn identity() -> Credentials {
    Credentials::Certificate(UserInfo::new("system:kube-scheduler", &[]))
}
