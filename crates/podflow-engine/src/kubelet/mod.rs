//! The kubelet of one node: watches the pods bound to its node (and the
//! Services, for the containers' environment and DNS; the `ConfigMaps` and
//! `Secrets`, for their environment and volumes), and for each pod runs the
//! pod worker — volumes, sandbox (CRI `RunPodSandbox`, CNI `ADD`), init
//! containers one after another, image pulls with their back-off, container
//! create and start, probes, restarts with the crash-loop back-off, PLEG, and
//! status updates through the API server (`pkg/kubelet/kubelet.go`,
//! `kuberuntime/kuberuntime_manager.go`, `pod_workers.go`).
//!
//! The pieces: [`sandbox`] (admission, volumes, sandbox), [`sync`] (what to
//! do next, `computePodActions`), [`pull`], [`containers`] (start, exit, kill,
//! stop), [`probes`], [`report`] (PLEG, status, startup latency), with the
//! runtime's [`process`] model, [`env`] and [`dns`].

mod admission;
pub mod backoff;
mod catalog;
pub mod config;
mod config_error;
mod container_logs;
mod container_spec;
mod containers;
mod csi;
pub mod dns;
pub mod env;
pub mod etc_files;
pub mod eviction;
mod eviction_manager;
mod exec;
pub mod heartbeat;
pub mod hooks;
pub mod images;
pub mod klog;
pub mod lifecycle;
mod mount;
pub mod payload;
pub mod prober;
mod probes;
pub mod process;
mod pull;
pub mod pull_errors;
pub mod pull_policy;
mod report;
mod sandbox;
pub mod sent_status;
pub mod status;
mod status_patch;
mod stop;
mod sync;
mod transitions;
mod update;
mod worker;

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::core::v1::{Node, Pod};

use self::backoff::Backoff;
pub use self::container_logs::ContainerLog;
use self::dns::Services;
pub use self::images::ImageRegistry;
use self::worker::PodWorker;
use super::apiserver::handler::Response;
use super::apiserver::request::{Body, Credentials, Request, UserInfo, Verb};
use super::apiserver::strategy::same_pod_spec;
use super::clock::SimTime;
use super::component::{Cx, KubeletTimer, RequestId, pod_event};
use super::cow_map::CowMap;
use super::store::{EventType, WatchEvent};
use super::trace::{Actor, Detail, NodeName, Outcome, Stage, StageName};
use podflow_model::kinds::kind_of;
use podflow_model::object::pod_key;
use podflow_model::{Object, Shared};
use podflow_scenario::ImageCatalog;

/// A step of a pod worker, woken by a timer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Sandbox,
    /// The pull for this container ends.
    PullDone(usize),
    /// Create and start this container (its image is ready).
    Create(usize),
    /// The PLEG relists and the pod worker syncs.
    Pleg,
    /// The pod worker syncs (a back-off ended, a failure is retried).
    Sync,
    /// The same `SyncPod` goes on (after the sandbox, a pull, a start): no new status.
    Continue,
    /// A process wakes up by itself.
    Wake(SimTime),
    /// A probe worker ticks.
    Probe {
        ctr: usize,
        slot: usize,
        generation: u64,
    },
    /// A killed container's grace period ends: SIGKILL.
    KillDeadline(usize),
    /// The pod's containers have stopped (or the grace period ended): finish the deletion.
    Stopped,
    /// Volume mounts and config retries fall due (`mount.rs`).
    Config,
    /// A pod of the starting cluster being deleted: its grace period ended.
    SettledStopped,
}

/// The kubelet's state.
#[derive(Debug, Clone)]
pub struct Kubelet {
    node: NodeName,
    pid: u32,
    registry: Arc<ImageRegistry>,
    catalog: Arc<ImageCatalog>,
    host_ip: String,
    pod_cidr: String,
    next_ip: u32,
    images: BTreeMap<String, String>,
    workers: CowMap<String, PodWorker>,
    /// Pods that were running before the story started, and the one being
    /// deleted of them (the pod as the deletion left it).
    settled: BTreeMap<String, Option<Shared<Pod>>>,
    services: Services,
    /// The node's network: the rules its kube-proxy last wrote.
    net: dns::NodeNet,
    /// The `ConfigMap`/`Secret` cache and the pods waiting on config.
    config: config::ConfigState,
    /// Pending pod worker steps by the number of their timer
    /// ([`KubeletTimer::PodWorkerStep`]): the pod's key and the step.
    timers: BTreeMap<u64, (String, Step)>,
    next_timer: u64,
    /// Final status patches in flight, and the pods to delete when they are answered.
    deleting: BTreeMap<RequestId, Shared<Pod>>,
    /// The restart back-off (`CrashLoopBackOff`) and the image pull back-off.
    crash: Backoff,
    pulls: Backoff,
    /// Its Node and the starting cluster's pods, for admission.
    known: admission::Known,
    /// The Lease renewal and node status sync ([`heartbeat`]).
    heartbeat: heartbeat::Heartbeat,
    /// The claims and volumes its pods use, and the pods waiting for a claim.
    claims: csi::Claims,
    /// Node-pressure eviction ([`eviction_manager`]).
    eviction: eviction_manager::EvictionState,
}

impl Kubelet {
    /// The kubelet of `node`, pulling from `registry`.
    pub fn new(node: &str, registry: Arc<ImageRegistry>) -> Kubelet {
        Kubelet {
            node: NodeName::from(node),
            pid: klog::pid_for(node),
            catalog: Arc::new(catalog::catalog_for(&registry)),
            registry,
            host_ip: String::new(),
            pod_cidr: String::new(),
            next_ip: 2,
            images: BTreeMap::new(),
            workers: CowMap::default(),
            settled: BTreeMap::new(),
            services: [(
                "default/kubernetes".to_owned(),
                Shared::from(dns::kubernetes_service()),
            )]
            .into_iter()
            .collect(),
            net: dns::NodeNet::default(),
            config: config::ConfigState::default(),
            timers: BTreeMap::new(),
            next_timer: 1,
            deleting: BTreeMap::new(),
            crash: Backoff::crash_loop(),
            pulls: Backoff::image_pull(),
            known: admission::Known::default(),
            heartbeat: heartbeat::Heartbeat::default(),
            claims: csi::Claims::default(),
            eviction: eviction_manager::EvictionState::default(),
        }
    }

    /// Whether the node's containers reach the internet.
    pub fn set_internet(&mut self, internet: bool) {
        self.net.offline = !internet;
    }

    /// The rules the node's kube-proxy wrote before the story started.
    pub fn set_proxy_rules(&mut self, rules: Arc<crate::kube_proxy::rules::Table>) {
        self.net.rules = rules;
    }

    /// The node's kube-proxy wrote rules: the node's packets go through them
    /// now, and processes that poll a Service see the change at once.
    pub fn proxy_rules_written(
        &mut self,
        rules: Arc<crate::kube_proxy::rules::Table>,
        cx: &mut Cx<'_>,
    ) {
        if Arc::ptr_eq(&self.net.rules, &rules) {
            return;
        }
        self.net.rules = rules;
        let keys: Vec<String> = self.workers.keys().cloned().collect();
        for key in keys {
            self.wake(&key, cx);
        }
    }

    /// Who it is in the trace.
    fn me(&self) -> Actor {
        Actor::Kubelet(self.node.clone())
    }

    /// The node's container runtime, in the trace.
    fn containerd(&self) -> Actor {
        Actor::Containerd(self.node.clone())
    }

    fn identity(&self) -> Credentials {
        Credentials::Certificate(UserInfo::new(
            format!("system:node:{}", self.node),
            &["system:nodes"],
        ))
    }

    /// A request of this kubelet's about `pod`.
    fn pod_request(&self, verb: Verb, pod: &Pod) -> Request {
        Request::new(
            self.me(),
            self.identity(),
            verb,
            kind_of("Pod"),
            pod.metadata.namespace.clone(),
            pod.metadata.name.clone().unwrap_or_default(),
        )
    }

    /// The running pod `key` as the watch brought it now: its worker and
    /// the admission counts follow it.
    fn see(&mut self, key: &str, pod: &Shared<Pod>) {
        if let Some(worker) = self.workers.get_mut(key) {
            worker.see(pod);
            if !worker.finished {
                self.known.changed(key, pod, &worker.counted);
            }
        }
    }

    fn learn_node(&mut self, node: &Node) {
        self.known.node = Some(Arc::new(node.clone()));
        self.known.recount();
        self.heartbeat.saw_node(node);
        if let Some(addresses) = node.status.as_ref().and_then(|s| s.addresses.as_ref())
            && let Some(ip) = addresses.iter().find(|a| a.type_ == "InternalIP")
        {
            self.host_ip.clone_from(&ip.address);
        }
        if let Some(cidr) = node.spec.as_ref().and_then(|s| s.pod_cidr.clone()) {
            self.pod_cidr = cidr;
        }
        for image in node
            .status
            .as_ref()
            .and_then(|s| s.images.as_ref())
            .into_iter()
            .flatten()
        {
            for name in image.names.iter().flatten() {
                if !name.contains('@') {
                    self.images
                        .entry(images::normalize(name))
                        .or_insert_with(|| format!("{name}@sha256:{:0>64}", ""));
                }
            }
        }
    }

    /// The objects its informers listed before the story started.
    pub fn initial_list(&mut self, objects: &[Arc<Object>]) {
        for object in objects {
            match &**object {
                Object::Node(node) => self.learn_node(node),
                Object::Pod(pod) => {
                    self.settled.insert(pod_key(pod), None);
                    if let Some(shared) = Shared::of(object) {
                        self.known.settled.insert(pod_key(pod), shared);
                        self.known.recount();
                    }
                }
                Object::Service(service) => {
                    if let Some(shared) = Shared::of(object) {
                        self.services.insert(service_key(service), shared);
                    }
                }
                other => {
                    self.config.cache.observe(other, false);
                    self.claims.apply(other, false);
                }
            }
        }
    }

    fn log(&self, cx: &mut Cx<'_>, location: &str, message: &str, fields: &[(&str, String)]) {
        let line = klog::info(cx.now, self.pid, location, message, fields);
        cx.log(&self.me(), Some(&self.node), line);
    }

    fn stage(
        &self,
        cx: &mut Cx<'_>,
        key: &str,
        stage: StageName,
        outcome: Outcome,
        detail: impl Into<Detail>,
    ) {
        cx.stage(
            Stage::new(self.me(), stage, outcome, detail)
                .node(&*self.node)
                .pod(key),
        );
    }

    /// An event about the pod `key` (a container's, with its `fieldPath`).
    fn event(
        cx: &mut Cx<'_>,
        key: &str,
        warning: bool,
        reason: &str,
        message: String,
        field: Option<String>,
    ) {
        let (ns, name) = key.split_once('/').unwrap_or(("", key));
        cx.event(pod_event(
            warning,
            reason,
            message,
            (ns, name),
            field,
            "kubelet",
        ));
    }

    fn timer(&mut self, cx: &mut Cx<'_>, delay: u64, key: &str, step: Step) {
        let id = self.next_timer;
        self.next_timer += 1;
        self.timers.insert(id, (key.to_owned(), step));
        cx.after(delay, KubeletTimer::PodWorkerStep(id));
    }

    /// A timer for periodic work that does not keep the cluster busy.
    fn background_timer(&mut self, cx: &mut Cx<'_>, delay: u64, key: &str, step: Step) {
        let id = self.next_timer;
        self.next_timer += 1;
        self.timers.insert(id, (key.to_owned(), step));
        cx.after_background(delay, KubeletTimer::PodWorkerStep(id));
    }

    /// A watch event about this node's pods, the node itself, or a Service arrived.
    pub fn on_watch(&mut self, event: &WatchEvent, cx: &mut Cx<'_>) {
        match &*event.object {
            Object::Node(node) if event.event_type == EventType::Deleted => {
                self.heartbeat.node_deleted();
                return;
            }
            Object::Node(node) => {
                self.learn_node(node);
                return;
            }
            Object::Service(service) => {
                let key = service_key(service);
                if event.event_type == EventType::Deleted {
                    self.services.remove(&key);
                } else if let Some(shared) = Shared::of(&event.object) {
                    self.services.insert(key, shared);
                }
                // Processes that poll DNS or Services see the change now.
                let keys: Vec<String> = self.workers.keys().cloned().collect();
                for key in keys {
                    self.wake(&key, cx);
                }
                return;
            }
            Object::Pod(_) => {}
            other => {
                let deleted = event.event_type == EventType::Deleted;
                self.config.cache.observe(other, deleted);
                self.claims_changed(other, deleted, cx);
                return;
            }
        }
        // A Pod, kept as the event shares it (not copied).
        let Some(shared) = Shared::<Pod>::of(&event.object) else {
            return;
        };
        let pod: &Pod = &shared;
        let key = pod_key(pod);
        let pods = klog::pods(&[&key]);
        match event.event_type {
            EventType::Added => {
                self.log(
                    cx,
                    "kubelet.go:2407",
                    "SyncLoop ADD",
                    &[("source", klog::quoted("api")), ("pods", pods)],
                );
                if self.settled.contains_key(&key) || self.workers.contains_key(&key) {
                    return;
                }
                self.admit(&key, &shared, cx);
            }
            EventType::Modified => {
                let previous = self.workers.get(&key).map(|w| w.pod.clone());
                let deleting = pod.metadata.deletion_timestamp.is_some();
                let settled_deleting = deleting && self.settled.get(&key) == Some(&None);
                let (op, location) = match previous {
                    Some(prev) if deleting && prev.metadata.deletion_timestamp.is_none() => {
                        ("SyncLoop DELETE", "kubelet.go:2420")
                    }
                    None if settled_deleting => ("SyncLoop DELETE", "kubelet.go:2420"),
                    // `checkAndUpdatePod` (`pkg/kubelet/config/config.go`)
                    // compares the spec, labels and annotations.
                    Some(prev)
                        if same_pod_spec(&prev, pod)
                            && prev.metadata.labels == pod.metadata.labels
                            && prev.metadata.annotations == pod.metadata.annotations =>
                    {
                        ("SyncLoop RECONCILE", "kubelet.go:2426")
                    }
                    _ => ("SyncLoop UPDATE", "kubelet.go:2414"),
                };
                self.log(
                    cx,
                    location,
                    op,
                    &[("source", klog::quoted("api")), ("pods", pods)],
                );
                self.see(&key, &shared);
                if deleting && self.settled.contains_key(&key) {
                    self.terminate_settled(&key, &shared, cx);
                } else if deleting {
                    self.terminate(&key, cx);
                } else {
                    if op == "SyncLoop UPDATE" {
                        self.spec_updated(&key, &shared, cx);
                    }
                    self.observe_running(&key, cx);
                    self.reconcile_readiness(&key, cx);
                }
            }
            EventType::Deleted => {
                self.log(
                    cx,
                    "kubelet.go:2434",
                    "SyncLoop REMOVE",
                    &[("source", klog::quoted("api")), ("pods", pods)],
                );
                self.workers.remove(&key);
                self.settled.remove(&key);
                self.known.settled.remove(&key);
                self.known.recount();
            }
        }
    }

    /// A timer fired.
    pub fn on_timer(&mut self, timer: KubeletTimer, cx: &mut Cx<'_>) {
        let id = match timer {
            KubeletTimer::LeaseRenewal => {
                self.lease_renewal_due(cx);
                return;
            }
            KubeletTimer::NodeStatusSync => {
                self.node_status_sync_due(cx);
                return;
            }
            KubeletTimer::PodWorkerStep(id) => id,
        };
        let Some((key, step)) = self.timers.remove(&id) else {
            return;
        };
        if let Step::SettledStopped = step {
            self.settled_stopped(&key, cx);
            return;
        }
        if !self.workers.contains_key(&key) {
            return;
        }
        match step {
            Step::Sandbox => self.run_sandbox(&key, cx),
            Step::PullDone(i) => self.pulled(&key, i, cx),
            Step::Create(i) => {
                self.create_start(&key, i, cx);
                self.continue_after(&key, i, cx);
            }
            Step::Pleg => self.pleg(&key, cx),
            Step::Sync => self.sync(&key, cx),
            Step::Continue => self.sync_actions(&key, cx),
            Step::Wake(at) => {
                if let Some(w) = self.workers.get_mut(&key)
                    && w.wake_at == Some(at)
                {
                    w.wake_at = None;
                    self.wake(&key, cx);
                }
            }
            Step::Probe {
                ctr,
                slot,
                generation,
            } => self.probe_tick(&key, ctr, slot, generation, cx),
            Step::KillDeadline(i) => self.kill_deadline(&key, i, cx),
            Step::Stopped => self.stopped(&key, cx),
            Step::Config => self.config_due(&key, cx),
            Step::SettledStopped => {}
        }
    }

    /// An answer arrived: after a terminated pod's final status, delete it.
    pub fn on_response(&mut self, id: RequestId, response: &Response, cx: &mut Cx<'_>) {
        if self.heartbeat_response(id, response, cx) {
            return;
        }
        if let Some(pod) = self.deleting.remove(&id) {
            let request = self.pod_request(Verb::Delete, &pod).body(Body::Delete {
                grace_period_seconds: Some(0),
            });
            cx.send(request);
        }
    }
}

/// `NS/NAME` of a Service.
fn service_key(service: &k8s_openapi::api::core::v1::Service) -> String {
    format!(
        "{}/{}",
        service.metadata.namespace.as_deref().unwrap_or_default(),
        service.metadata.name.as_deref().unwrap_or_default()
    )
}

/// Milliseconds from `now` to `at` (0 when `at` has passed).
fn until(now: SimTime, at: SimTime) -> u64 {
    at.as_millis().saturating_sub(now.as_millis())
}
