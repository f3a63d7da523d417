//! kube-controller-manager: shared informers over Deployments, `ReplicaSets`,
//! Pods and the other kinds of [`WATCHED`], and the controllers that read them, each with its own work
//! queue (`cmd/kube-controller-manager`, `pkg/controller/`). Like every
//! component, they learn through watches and act only through API requests
//! (docs/architecture.md, rule 2).
//!
//! The trace shows each step as a `stage` of `kube-controller-manager`:
//! `informer` (a watch event reached a cache; `key`, `revision` and the
//! cache's `size`), `queue` (a key was queued, handed to a worker —
//! `processNextWorkItem` — or requeued after a failure; the key in `item`, the
//! queue's depth in `size`) and `sync` (a controller reconciled a key), with
//! the controller's name in `plugin`.

pub mod client;
pub mod csi_provisioner;
pub mod deployment;
pub mod deployment_history;
pub mod deployment_util;
pub mod endpoints;
pub mod endpoints_plan;
pub mod endpointslice;
pub mod endpointslice_plan;
pub mod expectations;
pub mod garbage_collector;
pub mod hash;
pub mod informer;
pub mod job;
pub mod job_plan;
pub mod namespace;
pub mod namespace_plan;
pub mod node_lifecycle;
pub mod node_lifecycle_plan;
pub mod own_writes;
pub mod pod_gc;
pub mod pod_gc_plan;
pub mod pods;
pub mod pv_controller;
pub mod ranking;
pub mod replica_counts;
pub mod replica_failure;
pub mod replicaset;
pub mod resourcequota;
pub mod root_ca_publisher;
pub mod service_pods;
pub mod serviceaccounts;
pub mod slow_start;
pub mod taint_eviction;
pub mod taint_eviction_plan;
pub mod workqueue;

use std::sync::Arc;

use self::deployment::DeploymentController;
use self::endpoints::EndpointsController;
use self::endpointslice::EndpointSliceController;
use self::garbage_collector::GarbageCollector;
use self::informer::{Informer, InformerDelta};
use self::job::JobController;
use self::node_lifecycle::NodeLifecycleController;
use self::replicaset::ReplicaSetController;
use self::taint_eviction::TaintEvictionController;
use self::workqueue::WorkQueue;
use super::apiserver::handler::Response;
use super::clock::SimTime;
use super::component::{ControllerManagerTimer, Cx, RequestId};
use super::store::{WatchEvent, key_for};
use super::trace::Stage;
use crate::trace::{Actor, Outcome, StageName};
use podflow_model::Object;
use podflow_model::kinds::kind_of;

/// The node lifecycle controller's first monitor pass, as `(timer, delay_ms)`.
pub fn first_monitor_timer() -> (ControllerManagerTimer, u64) {
    (
        ControllerManagerTimer::NodeMonitor,
        node_lifecycle_plan::MONITOR_PERIOD_MS,
    )
}

/// The pod garbage collector's first pass.
pub fn first_pv_resync_timer() -> (ControllerManagerTimer, u64) {
    (
        ControllerManagerTimer::PvResync,
        pv_controller::CLAIM_BINDER_SYNC_PERIOD_MS,
    )
}

/// The first pass of the pod garbage collector, and when.
pub fn first_pod_gc_timer() -> (ControllerManagerTimer, u64) {
    pod_gc::first_timer()
}

/// The kinds kube-controller-manager's informers watch.
pub const WATCHED: [&str; 16] = [
    "Deployment",
    "ReplicaSet",
    "Pod",
    "Service",
    "EndpointSlice",
    "Endpoints",
    "Job",
    "Node",
    "Lease",
    "PersistentVolumeClaim",
    "PersistentVolume",
    "StorageClass",
    "ResourceQuota",
    "Namespace",
    "ServiceAccount",
    "ConfigMap",
];

/// The shared informers' caches.
#[derive(Debug, Clone, Default)]
pub struct Informers {
    pub deployments: Informer,
    pub replicasets: Informer,
    pub pods: Informer,
    pub services: Informer,
    pub endpointslices: Informer,
    pub endpoints: Informer,
    pub jobs: Informer,
    pub nodes: Informer,
    pub leases: Informer,
    pub pvcs: Informer,
    pub pvs: Informer,
    pub storageclasses: Informer,
    pub quotas: Informer,
    pub namespaces: Informer,
    pub serviceaccounts: Informer,
    pub configmaps: Informer,
}

impl Informers {
    /// The cache of `kind` (one of [`WATCHED`]).
    pub fn of_kind(&self, kind: &str) -> Option<&Informer> {
        match kind {
            "Deployment" => Some(&self.deployments),
            "ReplicaSet" => Some(&self.replicasets),
            "Pod" => Some(&self.pods),
            "Service" => Some(&self.services),
            "EndpointSlice" => Some(&self.endpointslices),
            "Endpoints" => Some(&self.endpoints),
            "Job" => Some(&self.jobs),
            "Node" => Some(&self.nodes),
            "Lease" => Some(&self.leases),
            "PersistentVolumeClaim" => Some(&self.pvcs),
            "PersistentVolume" => Some(&self.pvs),
            "StorageClass" => Some(&self.storageclasses),
            "ResourceQuota" => Some(&self.quotas),
            "Namespace" => Some(&self.namespaces),
            "ServiceAccount" => Some(&self.serviceaccounts),
            "ConfigMap" => Some(&self.configmaps),
            _ => None,
        }
    }

    fn of_kind_mut(&mut self, kind: &str) -> Option<&mut Informer> {
        match kind {
            "Deployment" => Some(&mut self.deployments),
            "ReplicaSet" => Some(&mut self.replicasets),
            "Pod" => Some(&mut self.pods),
            "Service" => Some(&mut self.services),
            "EndpointSlice" => Some(&mut self.endpointslices),
            "Endpoints" => Some(&mut self.endpoints),
            "Job" => Some(&mut self.jobs),
            "Node" => Some(&mut self.nodes),
            "Lease" => Some(&mut self.leases),
            "PersistentVolumeClaim" => Some(&mut self.pvcs),
            "PersistentVolume" => Some(&mut self.pvs),
            "StorageClass" => Some(&mut self.storageclasses),
            "ResourceQuota" => Some(&mut self.quotas),
            "Namespace" => Some(&mut self.namespaces),
            "ServiceAccount" => Some(&mut self.serviceaccounts),
            "ConfigMap" => Some(&mut self.configmaps),
            _ => None,
        }
    }

    fn for_kind(&mut self, object: &Object) -> Option<(&'static str, &mut Informer)> {
        let kind = object.kind();
        let informer = self.of_kind_mut(kind.kind)?;
        Some((kind.resource, informer))
    }
}

/// How a sync stands after a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Progress {
    /// Requests are out; the sync goes on when they are answered.
    Waiting,
    /// The key is reconciled.
    Done,
    /// The sync failed; the key comes back after the rate limiter's delay.
    Failed(String),
    /// The sync did not start (its cache is behind its own write, whose
    /// event queues the key again): the key's failures are neither forgotten
    /// nor added to, so its back-off goes on as upstream's, which has no such wait.
    Deferred,
}

/// What the manager needs of each controller.
pub trait Controller {
    /// The controller's name, as `--controllers` spells it and its events' source.
    fn name(&self) -> &'static str;
    /// Its work queue.
    fn queue(&mut self) -> &mut WorkQueue;
    /// Its event handlers: a watch event changed a cache.
    fn on_delta(&mut self, delta: &InformerDelta, informers: &Informers, cx: &mut Cx<'_>);
    /// Reconciles `key` (`syncHandler`).
    fn sync(&mut self, key: &str, informers: &Informers, cx: &mut Cx<'_>) -> Progress;
    /// An answer to one of its requests: the key whose sync it advanced, and how.
    /// `None` when the request was not this controller's.
    fn on_response(
        &mut self,
        id: RequestId,
        response: &Response,
        informers: &Informers,
        cx: &mut Cx<'_>,
    ) -> Option<(String, Progress)>;
}

/// Queues `key` on `controller`'s queue, with a `queue` stage when it was not already waiting.
pub fn enqueue(controller: &'static str, queue: &mut WorkQueue, key: &str, cx: &mut Cx<'_>) {
    if queue.add(key) {
        let detail = format!("{key} queued ({} waiting)", queue.len());
        queue_stage(controller, Outcome::Added, detail, key, queue.len(), cx);
    }
}

/// A change to the object a controller owns (a `ReplicaSet`, a Job): its
/// creation expectations go with it when it is deleted, and its key is queued.
pub fn owned_object_changed(
    controller: &'static str,
    queue: &mut WorkQueue,
    expectations: &mut expectations::Expectations,
    delta: &InformerDelta,
    cx: &mut Cx<'_>,
) {
    let key = informer::key_of(delta.object());
    if matches!(delta, InformerDelta::Deleted(_)) {
        expectations.forget(&key);
    }
    enqueue(controller, queue, &key, cx);
}

/// Whether a sync must wait for its informer to see the controller's own
/// latest write; records a `sync` stage `waiting` when so.
pub fn wait_for_own_write(
    controller: &'static str,
    writes: &mut own_writes::OwnWrites,
    informers: &Informers,
    key: &str,
    relevant: impl Fn(&Object) -> bool,
    cx: &mut Cx<'_>,
) -> bool {
    let Some((kind, object, cached, written)) = writes.lagging(informers, relevant) else {
        return false;
    };
    let held = match cached {
        Some(cached) => format!("holds {kind} {object} at resourceVersion {cached}"),
        None => format!("does not hold the {kind} {object} it created yet"),
    };
    sync_stage(
        controller,
        Outcome::Waiting,
        format!("{key}: the cache {held}; waiting for its own write at {written}"),
        cx,
    );
    true
}

/// How a sync that sent one write ends: done when the API server took it
/// (or answered a way the controller counts as done, `benign`), failed with
/// the API server's message otherwise, to come back after the rate limiter.
pub fn written(response: &Response, benign: bool) -> Progress {
    if response.code < 300 || benign {
        Progress::Done
    } else {
        Progress::Failed(response.message())
    }
}

/// A `queue` stage of `controller`'s work queue about `key`, which then holds `size`.
fn queue_stage(
    controller: &'static str,
    outcome: Outcome,
    detail: String,
    key: &str,
    size: usize,
    cx: &mut Cx<'_>,
) {
    cx.stage(
        Stage::new(Actor::ControllerManager, StageName::Queue, outcome, detail)
            .plugin(controller)
            .queued(Some(key), size),
    );
}

/// A `sync` stage of `controller`.
pub fn sync_stage(controller: &'static str, outcome: Outcome, detail: String, cx: &mut Cx<'_>) {
    cx.stage(
        Stage::new(Actor::ControllerManager, StageName::Sync, outcome, detail).plugin(controller),
    );
}

/// kube-controller-manager's state.
#[derive(Clone, Default)]
pub struct ControllerManager {
    informers: Informers,
    deployment: DeploymentController,
    replicaset: ReplicaSetController,
    garbage_collector: GarbageCollector,
    endpointslice: EndpointSliceController,
    endpoints: EndpointsController,
    job: JobController,
    node_lifecycle: NodeLifecycleController,
    taint_eviction: TaintEvictionController,
    pv: pv_controller::PvController,
    provisioner: csi_provisioner::CsiProvisioner,
    resourcequota: resourcequota::ResourceQuotaController,
    namespace: namespace::NamespaceController,
    serviceaccounts: serviceaccounts::ServiceAccountsController,
    root_ca_publisher: root_ca_publisher::RootCaCertPublisher,
    pod_gc: pod_gc::PodGcController,
    /// When the retry timer is set for.
    timer_at: Option<SimTime>,
}

impl ControllerManager {
    /// The objects its informers listed before the story started; the
    /// cluster's objects are already reconciled, so nothing is queued.
    pub fn initial_list(&mut self, objects: &[Arc<Object>]) {
        for kind in WATCHED {
            let of_kind: Vec<Arc<Object>> = objects
                .iter()
                .filter(|o| o.kind() == kind_of(kind))
                .cloned()
                .collect();
            if of_kind.is_empty() {
                continue;
            }
            if let Some(informer) = self.informers.of_kind_mut(kind) {
                informer.replace(&of_kind);
            }
        }
    }

    /// The informers' caches, read-only.
    pub fn informers(&self) -> &Informers {
        &self.informers
    }

    fn controllers(&mut self) -> [&mut dyn Controller; 12] {
        [
            &mut self.deployment,
            &mut self.replicaset,
            &mut self.endpointslice,
            &mut self.endpoints,
            &mut self.job,
            &mut self.garbage_collector,
            &mut self.pv,
            &mut self.provisioner,
            &mut self.resourcequota,
            &mut self.namespace,
            &mut self.serviceaccounts,
            &mut self.root_ca_publisher,
        ]
    }

    /// A watch event arrived: the cache catches up, the handlers queue keys, the workers run.
    pub fn on_watch(&mut self, event: &WatchEvent, cx: &mut Cx<'_>) {
        let Some((resource, informer)) = self.informers.for_kind(&event.object) else {
            return;
        };
        let delta = informer.apply(event);
        let detail = format!(
            "{resource} cache: {} {} (resourceVersion {}, {} cached)",
            event.event_type.as_str(),
            informer::key_of(&event.object),
            event.revision,
            informer.len()
        );
        let object = &event.object;
        let key = key_for(object.kind(), object.namespace(), object.name());
        cx.stage(
            Stage::new(
                Actor::ControllerManager,
                StageName::Informer,
                event.event_type.outcome(),
                detail,
            )
            .at_key(key, event.revision)
            .queued(None, informer.len()),
        );
        let informers = self.informers.clone();
        for controller in self.controllers() {
            controller.on_delta(&delta, &informers, cx);
        }
        self.node_lifecycle.on_delta(&delta, cx);
        self.taint_eviction.on_delta(&delta, &informers, cx);
        self.pod_gc.on_delta(&delta, &informers, cx);
        self.run(cx);
    }

    /// An answer to a controller's request.
    pub fn on_response(&mut self, id: RequestId, response: &Response, cx: &mut Cx<'_>) {
        if self.node_lifecycle.on_response(id, response)
            || self.taint_eviction.on_response(id, response, cx)
            || self.pod_gc.on_response(id, response, &self.informers, cx)
        {
            return self.run(cx);
        }
        let informers = self.informers.clone();
        for controller in self.controllers() {
            if let Some((key, progress)) = controller.on_response(id, response, &informers, cx) {
                if progress != Progress::Waiting {
                    finish(controller, &key, progress, cx);
                }
                break;
            }
        }
        self.run(cx);
    }

    /// A timer fired: the node monitor's pass, a taint eviction deadline, or
    /// the retry timer (keys whose delay is over are queued again).
    pub fn on_timer(&mut self, timer: ControllerManagerTimer, cx: &mut Cx<'_>) {
        match timer {
            ControllerManagerTimer::NodeMonitor => {
                cx.after_background(
                    node_lifecycle_plan::MONITOR_PERIOD_MS,
                    ControllerManagerTimer::NodeMonitor,
                );
                self.node_lifecycle.monitor(&self.informers, cx);
            }
            ControllerManagerTimer::TaintEviction(deadline) => {
                self.taint_eviction.on_timer(deadline, cx);
            }
            ControllerManagerTimer::PodGc => self.pod_gc.on_timer(&self.informers, cx),
            ControllerManagerTimer::PodGcHold => {}
            ControllerManagerTimer::PvResync => {
                cx.after_background(
                    pv_controller::CLAIM_BINDER_SYNC_PERIOD_MS,
                    ControllerManagerTimer::PvResync,
                );
                self.pv.resync(&self.informers, cx);
                self.run(cx);
            }
            ControllerManagerTimer::RetryDelayOver => {
                self.timer_at = None;
                for controller in self.controllers() {
                    let name = controller.name();
                    let queue = controller.queue();
                    for key in queue.promote_due(cx.now) {
                        let detail =
                            format!("{key} back from its retry delay ({} waiting)", queue.len());
                        queue_stage(name, Outcome::Added, detail, &key, queue.len(), cx);
                    }
                }
                self.run(cx);
            }
        }
    }

    /// The workers: each controller syncs the keys its queue holds.
    fn run(&mut self, cx: &mut Cx<'_>) {
        let informers = self.informers.clone();
        for controller in self.controllers() {
            while let Some(key) = controller.queue().get() {
                let name = controller.name();
                let waiting = controller.queue().len();
                let detail = format!("{key} handed to a worker ({waiting} waiting)");
                queue_stage(name, Outcome::Processing, detail, &key, waiting, cx);
                let progress = controller.sync(&key, &informers, cx);
                if progress != Progress::Waiting {
                    finish(controller, &key, progress, cx);
                }
            }
        }
        self.arm_timer(cx);
    }

    /// Sets the retry timer for the earliest delayed key.
    fn arm_timer(&mut self, cx: &mut Cx<'_>) {
        let due = self
            .controllers()
            .into_iter()
            .filter_map(|c| c.queue().next_due())
            .min();
        let Some(due) = due else {
            return;
        };
        if self.timer_at.is_some_and(|at| at <= due && at > cx.now) {
            return;
        }
        self.timer_at = Some(due);
        cx.after(
            due.as_millis().saturating_sub(cx.now.as_millis()).max(1),
            ControllerManagerTimer::RetryDelayOver,
        );
    }
}

/// A sync is over: forget the key's failures or requeue it, then mark it done.
fn finish(controller: &mut dyn Controller, key: &str, progress: Progress, cx: &mut Cx<'_>) {
    let name = controller.name();
    let queue = controller.queue();
    match progress {
        Progress::Failed(error) => {
            let delay = queue.add_rate_limited(key, cx.now);
            let detail = format!(
                "{key}: {error}; requeued in {delay} ms (retry {})",
                queue.requeues(key)
            );
            queue_stage(name, Outcome::Requeued, detail, key, queue.len(), cx);
        }
        Progress::Done | Progress::Waiting => queue.forget(key),
        Progress::Deferred => {}
    }
    queue.done(key);
}
