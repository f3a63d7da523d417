//! The kubelet of one node: watches the pods bound to its node, and for each
//! runs the pod worker — volumes, sandbox (CRI `RunPodSandbox`, CNI `ADD`),
//! image pulls, container create and start, PLEG, and status updates through
//! the API server (`pkg/kubelet/kubelet.go`, `kuberuntime/kuberuntime_manager.go`).
//!
//! Simplified for now: containers run until stopped whatever their command,
//! there are no init containers, probes, restarts or image-pull back-off.

pub mod backoff;
pub mod images;
pub mod klog;
pub mod lifecycle;
pub mod process;
pub mod prober;
pub mod pull_policy;
pub mod status;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use k8s_openapi::api::core::v1::{Node, Pod};

pub use self::images::Registry;
use self::status::{ContainerState, ContainerView, PodView};
use super::apiserver::handler::Response;
use super::apiserver::request::{Body, Credentials, Request, UserInfo, Verb};
use super::clock::SimTime;
use super::component::{Cx, RequestId, pod_event};
use super::store::{EventType, WatchEvent};
use super::trace::Stage;
use crate::model::Object;
use crate::model::kinds::kind_of;

/// A step of a pod worker, woken by a timer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Sandbox,
    Pull(usize),
    PullDone(usize),
    Start(usize),
    Pleg,
    Stopped,
}

/// What the kubelet is doing for one pod.
#[derive(Debug, Clone)]
struct Worker {
    pod: Arc<Pod>,
    start_time: SimTime,
    sandbox_id: Option<String>,
    pod_ip: Option<String>,
    containers: Vec<ContainerView>,
    first_pull: Option<SimTime>,
    last_pull: Option<SimTime>,
    running_reported: Option<SimTime>,
    startup_logged: bool,
    terminating: bool,
    /// When each condition last changed, and to what.
    transitions: BTreeMap<String, (bool, SimTime)>,
}

/// The kubelet's state.
#[derive(Debug, Clone)]
pub struct Kubelet {
    node: String,
    pid: u32,
    registry: Arc<Registry>,
    host_ip: String,
    pod_cidr: String,
    next_ip: u32,
    images: BTreeMap<String, String>,
    workers: BTreeMap<String, Worker>,
    /// Pods that were running before the story started.
    settled: BTreeSet<String>,
    timers: BTreeMap<u64, (String, Step)>,
    next_timer: u64,
    /// Final status patches in flight, and the pods to delete when they are answered.
    deleting: BTreeMap<RequestId, Arc<Pod>>,
}

fn pod_key(pod: &Pod) -> String {
    format!(
        "{}/{}",
        pod.metadata.namespace.as_deref().unwrap_or_default(),
        pod.metadata.name.as_deref().unwrap_or_default()
    )
}

impl Kubelet {
    /// The kubelet of `node`, pulling from `registry`.
    pub fn new(node: &str, registry: Arc<Registry>) -> Kubelet {
        Kubelet {
            node: node.to_owned(),
            pid: klog::pid_for(node),
            registry,
            host_ip: String::new(),
            pod_cidr: String::new(),
            next_ip: 2,
            images: BTreeMap::new(),
            workers: BTreeMap::new(),
            settled: BTreeSet::new(),
            timers: BTreeMap::new(),
            next_timer: 1,
            deleting: BTreeMap::new(),
        }
    }

    fn me(&self) -> String {
        format!("kubelet/{}", self.node)
    }

    fn containerd(&self) -> String {
        format!("containerd/{}", self.node)
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

    fn learn_node(&mut self, node: &Node) {
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
                    self.settled.insert(pod_key(pod));
                }
                _ => {}
            }
        }
    }

    fn log(&self, cx: &mut Cx<'_>, location: &str, message: &str, fields: &[(&str, String)]) {
        let line = klog::info(cx.now, self.pid, location, message, fields);
        cx.log(&self.me(), Some(&self.node), line);
    }

    fn timer(&mut self, cx: &mut Cx<'_>, delay: u64, key: &str, step: Step) {
        let id = self.next_timer;
        self.next_timer += 1;
        self.timers.insert(id, (key.to_owned(), step));
        cx.after(delay, id);
    }

    /// A watch event about this node's pods (or the node itself) arrived.
    pub fn on_watch(&mut self, event: &WatchEvent, cx: &mut Cx<'_>) {
        let pod = match &*event.object {
            Object::Node(node) => {
                self.learn_node(node);
                return;
            }
            Object::Pod(pod) => pod,
            _ => return,
        };
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
                if self.settled.contains(&key) || self.workers.contains_key(&key) {
                    return;
                }
                self.admit(&key, pod, cx);
            }
            EventType::Modified => {
                let previous = self.workers.get(&key).map(|w| Arc::clone(&w.pod));
                let deleting = pod.metadata.deletion_timestamp.is_some();
                let (op, location) = match previous {
                    Some(prev) if deleting && prev.metadata.deletion_timestamp.is_none() => {
                        ("SyncLoop DELETE", "kubelet.go:2420")
                    }
                    Some(prev)
                        if prev.spec == pod.spec
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
                if let Some(worker) = self.workers.get_mut(&key) {
                    worker.pod = Arc::new(pod.clone());
                }
                if deleting {
                    self.terminate(&key, cx);
                } else {
                    self.observe_running(&key, cx);
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
            }
        }
    }

    /// Admits a new pod and starts its worker: volumes first, then the sandbox.
    fn admit(&mut self, key: &str, pod: &Pod, cx: &mut Cx<'_>) {
        let containers = pod
            .spec
            .as_ref()
            .map(|s| s.containers.clone())
            .unwrap_or_default()
            .into_iter()
            .map(|c| ContainerView {
                name: c.name,
                image: images::normalize(c.image.as_deref().unwrap_or_default()),
                image_id: None,
                container_id: None,
                state: ContainerState::Waiting {
                    reason: "ContainerCreating".into(),
                    message: None,
                },
                restart_count: 0,
            })
            .collect();
        self.workers.insert(
            key.to_owned(),
            Worker {
                pod: Arc::new(pod.clone()),
                start_time: cx.now,
                sandbox_id: None,
                pod_ip: None,
                containers,
                first_pull: None,
                last_pull: None,
                running_reported: None,
                startup_logged: false,
                terminating: false,
                transitions: BTreeMap::new(),
            },
        );
        let pod_field = ("pod", klog::quoted(key));
        self.log(
            cx,
            "kuberuntime_manager.go:1079",
            "No sandbox for pod can be found. Need to start a new one",
            std::slice::from_ref(&pod_field),
        );
        let uid = pod.metadata.uid.clone().unwrap_or_default();
        let name = pod.metadata.name.clone().unwrap_or_default();
        for volume in pod
            .spec
            .as_ref()
            .and_then(|s| s.volumes.clone())
            .unwrap_or_default()
        {
            let plugin = volume_plugin(&volume);
            let unique = format!("{plugin}/{uid}-{}", volume.name);
            let what = format!(
                "volume \"{}\" (UniqueName: \"{unique}\") pod \"{name}\" (UID: \"{uid}\")",
                volume.name
            );
            self.log(
                cx,
                "reconciler_common.go:251",
                &format!("operationExecutor.VerifyControllerAttachedVolume started for {what} "),
                std::slice::from_ref(&pod_field),
            );
            self.log(
                cx,
                "reconciler_common.go:224",
                &format!("operationExecutor.MountVolume started for {what} "),
                std::slice::from_ref(&pod_field),
            );
            self.log(
                cx,
                "operation_generator.go:614",
                &format!("MountVolume.SetUp succeeded for {what} "),
                std::slice::from_ref(&pod_field),
            );
            cx.stage(
                Stage::new(
                    &self.me(),
                    "volume",
                    "mounted",
                    format!("{} ({plugin})", volume.name),
                )
                .node(self.node.clone())
                .pod(key),
            );
        }
        self.report_status(key, cx);
        self.timer(cx, 100, key, Step::Sandbox);
    }

    /// A timer fired.
    pub fn on_timer(&mut self, timer: u64, cx: &mut Cx<'_>) {
        let Some((key, step)) = self.timers.remove(&timer) else {
            return;
        };
        if !self.workers.contains_key(&key) {
            return;
        }
        match step {
            Step::Sandbox => self.run_sandbox(&key, cx),
            Step::Pull(i) => self.pull(&key, i, cx),
            Step::PullDone(i) => self.pulled(&key, i, cx),
            Step::Start(i) => self.start_container(&key, i, cx),
            Step::Pleg => self.pleg(&key, cx),
            Step::Stopped => self.stopped(&key, cx),
        }
    }

    fn run_sandbox(&mut self, key: &str, cx: &mut Cx<'_>) {
        let me = self.me();
        let containerd = self.containerd();
        let cni = format!("cni/{}", self.node);
        let ip = self.allocate_ip();
        let sandbox_id = cx.rng.hex(64);
        cx.message(&me, &containerd, "RunPodSandbox");
        cx.message(&containerd, &cni, "ADD eth0");
        cx.stage(
            Stage::new(
                &cni,
                "network",
                "ok",
                format!("eth0 {ip} from {}", self.pod_cidr),
            )
            .node(self.node.clone())
            .pod(key),
        );
        cx.message(&cni, &containerd, ip.clone());
        cx.message(&containerd, &me, format!("sandbox {}", &sandbox_id[..13]));
        cx.stage(
            Stage::new(
                &me,
                "sandbox",
                "ready",
                format!("pause container {} with IP {ip}", &sandbox_id[..13]),
            )
            .node(self.node.clone())
            .pod(key),
        );
        if let Some(worker) = self.workers.get_mut(key) {
            worker.sandbox_id = Some(sandbox_id);
            worker.pod_ip = Some(ip);
        }
        self.timer(cx, 1, key, Step::Pull(0));
    }

    fn allocate_ip(&mut self) -> String {
        let base = self.pod_cidr.split('/').next().unwrap_or("10.244.0.0");
        let octets: Vec<&str> = base.split('.').collect();
        let ip = match octets.as_slice() {
            [a, b, c, _] => format!("{a}.{b}.{c}.{}", self.next_ip),
            _ => format!("10.244.0.{}", self.next_ip),
        };
        self.next_ip += 1;
        ip
    }

    /// The `fieldPath` of a container's events: `spec.containers{nginx}`.
    fn container_field(name: &str) -> String {
        format!("spec.containers{{{name}}}")
    }

    fn spec_image(&self, key: &str, i: usize) -> String {
        self.workers[key]
            .pod
            .spec
            .as_ref()
            .and_then(|s| s.containers.get(i))
            .and_then(|c| c.image.clone())
            .unwrap_or_default()
    }

    fn pull(&mut self, key: &str, i: usize, cx: &mut Cx<'_>) {
        let Some(worker) = self.workers.get(key) else {
            return;
        };
        let Some(container) = worker.containers.get(i).cloned() else {
            self.timer(cx, 1, key, Step::Pleg);
            return;
        };
        let spec_image = self.spec_image(key, i);
        let policy = worker
            .pod
            .spec
            .as_ref()
            .and_then(|s| s.containers.get(i))
            .and_then(|c| c.image_pull_policy.clone())
            .unwrap_or_else(|| "IfNotPresent".into());
        let (ns, name) = key.split_once('/').unwrap_or(("", key));
        let present = self.images.contains_key(&container.image);
        if present && policy != "Always" {
            cx.event(pod_event(
                false,
                "Pulled",
                format!("Container image \"{spec_image}\" already present on machine and can be accessed by the pod"),
                (ns, name),
                Some(Self::container_field(&container.name)),
                "kubelet",
            ));
            cx.stage(
                Stage::new(
                    &self.me(),
                    "pull",
                    "present",
                    format!("{spec_image} already present"),
                )
                .node(self.node.clone())
                .pod(key),
            );
            self.timer(cx, 1, key, Step::Start(i));
            return;
        }
        cx.event(pod_event(
            false,
            "Pulling",
            format!("Pulling image \"{spec_image}\""),
            (ns, name),
            Some(Self::container_field(&container.name)),
            "kubelet",
        ));
        cx.message(
            &self.containerd(),
            "registry",
            format!("pull {}", container.image),
        );
        if let Some(w) = self.workers.get_mut(key) {
            w.first_pull.get_or_insert(cx.now);
        }
        let ms = self.registry.pull_ms(&container.image);
        self.timer(cx, ms, key, Step::PullDone(i));
    }

    fn pulled(&mut self, key: &str, i: usize, cx: &mut Cx<'_>) {
        let Some(worker) = self.workers.get(key) else {
            return;
        };
        let container = worker.containers[i].clone();
        let started = worker.first_pull.unwrap_or(cx.now);
        let spec_image = self.spec_image(key, i);
        let (ns, name) = key.split_once('/').unwrap_or(("", key));
        let digest = cx.rng.hex(64);
        let repo = container
            .image
            .rsplit_once(':')
            .map_or(container.image.as_str(), |(r, _)| r)
            .to_owned();
        self.images
            .insert(container.image.clone(), format!("{repo}@sha256:{digest}"));
        let size = self.registry.size_of(&container.image);
        let took = klog::go_duration(cx.now.as_millis() - started.as_millis());
        cx.message(
            "registry",
            &self.containerd(),
            format!("{} ({size} bytes)", container.image),
        );
        cx.event(pod_event(
            false,
            "Pulled",
            format!("Successfully pulled image \"{spec_image}\" in {took} ({took} including waiting). Image size: {size} bytes."),
            (ns, name),
            Some(Self::container_field(&container.name)),
            "kubelet",
        ));
        cx.stage(
            Stage::new(
                &self.me(),
                "pull",
                "pulled",
                format!("{spec_image} ({size} bytes) in {took}"),
            )
            .node(self.node.clone())
            .pod(key),
        );
        if let Some(w) = self.workers.get_mut(key) {
            w.last_pull = Some(cx.now);
        }
        self.timer(cx, 1, key, Step::Start(i));
    }

    fn start_container(&mut self, key: &str, i: usize, cx: &mut Cx<'_>) {
        let me = self.me();
        let containerd = self.containerd();
        let image_id = self.workers[key].containers[i].image.clone();
        let image_id = self.images.get(&image_id).cloned();
        let id = cx.rng.hex(64);
        let (ns, name) = key.split_once('/').unwrap_or(("", key));
        let container_name = self.workers[key].containers[i].name.clone();
        cx.message(
            &me,
            &containerd,
            format!("CreateContainer {container_name}"),
        );
        cx.event(pod_event(
            false,
            "Created",
            "Container created",
            (ns, name),
            Some(Self::container_field(&container_name)),
            "kubelet",
        ));
        cx.message(&me, &containerd, format!("StartContainer {}", &id[..13]));
        cx.event(pod_event(
            false,
            "Started",
            "Container started",
            (ns, name),
            Some(Self::container_field(&container_name)),
            "kubelet",
        ));
        cx.stage(
            Stage::new(
                &me,
                "container",
                "started",
                format!("{container_name} ({})", &id[..13]),
            )
            .node(self.node.clone())
            .pod(key),
        );
        if let Some(w) = self.workers.get_mut(key) {
            let c = &mut w.containers[i];
            c.container_id = Some(format!("containerd://{id}"));
            c.image_id = image_id;
            c.state = ContainerState::Running { started_at: cx.now };
        }
        let next = i + 1;
        if next < self.workers[key].containers.len() {
            self.timer(cx, 1, key, Step::Pull(next));
        } else {
            // The PLEG relists the runtime once a second and sees the new containers.
            let wait = 1000 - cx.now.as_millis() % 1000;
            self.timer(cx, wait, key, Step::Pleg);
        }
    }

    fn pleg(&mut self, key: &str, cx: &mut Cx<'_>) {
        let Some(worker) = self.workers.get(key) else {
            return;
        };
        let uid = worker.pod.metadata.uid.clone().unwrap_or_default();
        let mut ids: Vec<String> = worker.sandbox_id.iter().cloned().collect();
        ids.extend(
            worker
                .containers
                .iter()
                .filter_map(|c| c.container_id.as_deref())
                .map(|c| c.trim_start_matches("containerd://").to_owned()),
        );
        for id in ids {
            let event =
                format!("{{\"ID\":\"{uid}\",\"Type\":\"ContainerStarted\",\"Data\":\"{id}\"}}");
            self.log(
                cx,
                "kubelet.go:2453",
                "SyncLoop (PLEG): event for pod",
                &[("pod", klog::quoted(key)), ("event", event)],
            );
        }
        cx.stage(
            Stage::new(&self.me(), "status", "running", "all containers running")
                .node(self.node.clone())
                .pod(key),
        );
        if let Some(w) = self.workers.get_mut(key) {
            w.running_reported = Some(cx.now);
        }
        self.report_status(key, cx);
    }

    /// The kubelet saw its own "Running" status come back: the startup latency line.
    fn observe_running(&mut self, key: &str, cx: &mut Cx<'_>) {
        let Some(worker) = self.workers.get(key) else {
            return;
        };
        let Some(running_at) = worker.running_reported else {
            return;
        };
        if worker.startup_logged {
            return;
        }
        let created =
            worker
                .pod
                .metadata
                .creation_timestamp
                .as_ref()
                .map_or(worker.start_time, |t| {
                    let (epoch, _) = SimTime::ZERO.unix();
                    SimTime(u64::try_from((t.0.as_second() - epoch) * 1000).unwrap_or(0))
                });
        let e2e = cx.now.as_millis().saturating_sub(created.as_millis());
        let pulling = match (worker.first_pull, worker.last_pull) {
            (Some(a), Some(b)) => b.as_millis() - a.as_millis(),
            _ => 0,
        };
        let unset = "0001-01-01 00:00:00 +0000 UTC".to_owned();
        let fields = [
            ("pod", klog::quoted(key)),
            ("podStartSLOduration", klog::seconds_float(e2e - pulling)),
            ("podStartE2EDuration", klog::quoted(&klog::go_duration(e2e))),
            (
                "podCreationTimestamp",
                klog::quoted(&klog::go_time(created)),
            ),
            (
                "firstStartedPulling",
                klog::quoted(&worker.first_pull.map_or(unset.clone(), klog::go_time)),
            ),
            (
                "lastFinishedPulling",
                klog::quoted(&worker.last_pull.map_or(unset, klog::go_time)),
            ),
            (
                "observedRunningTime",
                klog::quoted(&klog::go_time(running_at)),
            ),
            (
                "watchObservedRunningTime",
                klog::quoted(&klog::go_time(cx.now)),
            ),
        ];
        self.log(
            cx,
            "pod_startup_latency_tracker.go:104",
            "Observed pod startup duration",
            &fields,
        );
        if let Some(w) = self.workers.get_mut(key) {
            w.startup_logged = true;
        }
    }

    /// The pod is being deleted: stop its containers, then confirm the deletion.
    fn terminate(&mut self, key: &str, cx: &mut Cx<'_>) {
        let Some(worker) = self.workers.get_mut(key) else {
            return;
        };
        if worker.terminating {
            return;
        }
        worker.terminating = true;
        let grace = worker
            .pod
            .metadata
            .deletion_grace_period_seconds
            .unwrap_or(30);
        let (ns, name) = key.split_once('/').unwrap_or(("", key));
        let names: Vec<String> = worker.containers.iter().map(|c| c.name.clone()).collect();
        for container in names {
            cx.event(pod_event(
                false,
                "Killing",
                format!("Stopping container {container}"),
                (ns, name),
                Some(Self::container_field(&container)),
                "kubelet",
            ));
            cx.message(
                &self.me(),
                &self.containerd(),
                format!("StopContainer {container} (grace {grace}s)"),
            );
        }
        // Servers exit promptly on SIGTERM.
        self.timer(cx, 200, key, Step::Stopped);
    }

    fn stopped(&mut self, key: &str, cx: &mut Cx<'_>) {
        let Some(worker) = self.workers.get_mut(key) else {
            return;
        };
        for c in &mut worker.containers {
            if let ContainerState::Running { started_at } = c.state {
                c.state = ContainerState::Terminated {
                    exit_code: 0,
                    reason: "Completed".into(),
                    started_at,
                    finished_at: cx.now,
                };
            }
        }
        let pod = Arc::clone(&worker.pod);
        cx.message(&self.me(), &self.containerd(), "StopPodSandbox");
        cx.stage(
            Stage::new(
                &self.me(),
                "status",
                "terminated",
                "containers stopped; confirming deletion",
            )
            .node(self.node.clone())
            .pod(key),
        );
        // The status manager deletes the Pod once its final status is written.
        if let Some(id) = self.report_status(key, cx) {
            self.deleting.insert(id, pod);
        }
    }

    /// Sends the pod's status, as the status manager does; returns the request's id.
    fn report_status(&mut self, key: &str, cx: &mut Cx<'_>) -> Option<RequestId> {
        let worker = self.workers.get_mut(key)?;
        let now = cx.now;
        let sandbox_ready = worker.sandbox_id.is_some() && !worker.terminating;
        let ready = worker
            .containers
            .iter()
            .all(|c| matches!(c.state, ContainerState::Running { .. }));
        for (kind, ok) in [
            ("PodReadyToStartContainers", sandbox_ready),
            ("Initialized", true),
            ("Ready", ready),
            ("ContainersReady", ready),
        ] {
            let entry = worker
                .transitions
                .entry(kind.to_owned())
                .or_insert((ok, now));
            if entry.0 != ok {
                *entry = (ok, now);
            }
        }
        let restart_policy = worker
            .pod
            .spec
            .as_ref()
            .and_then(|s| s.restart_policy.clone())
            .unwrap_or_else(|| "Always".into());
        let view = PodView {
            host_ip: &self.host_ip,
            pod_ip: worker.pod_ip.as_deref(),
            start_time: worker.start_time,
            sandbox_ready,
            qos_class: worker
                .pod
                .status
                .as_ref()
                .and_then(|s| s.qos_class.as_deref()),
            restart_policy: &restart_policy,
            containers: &worker.containers,
            transitions: &worker.transitions,
            now,
        };
        let mut status = status::pod_status(&view);
        // The kubelet keeps the scheduler's condition in the status it generates.
        let scheduled = worker
            .pod
            .status
            .as_ref()
            .and_then(|s| s.conditions.as_ref())
            .and_then(|c| c.iter().find(|c| c.type_ == "PodScheduled"))
            .and_then(|c| serde_json::to_value(c).ok());
        if let (Some(list), Some(condition)) = (status["conditions"].as_array_mut(), scheduled) {
            list.push(condition);
        }
        let old = worker
            .pod
            .status
            .as_ref()
            .and_then(|s| serde_json::to_value(s).ok())
            .unwrap_or_default();
        let patch = crate::engine::apiserver::patch::two_way(&old, &status);
        let pod = Arc::clone(&worker.pod);
        let request = self
            .pod_request(Verb::Patch, &pod)
            .subresource("status")
            .body(Body::Patch(serde_json::json!({ "status": patch })));
        Some(cx.send(request))
    }

    /// An answer arrived: after a terminated pod's final status, delete it.
    pub fn on_response(&mut self, id: RequestId, _response: &Response, cx: &mut Cx<'_>) {
        if let Some(pod) = self.deleting.remove(&id) {
            let request = self.pod_request(Verb::Delete, &pod).body(Body::Delete {
                grace_period_seconds: Some(0),
            });
            cx.send(request);
        }
    }
}

/// The volume plugin's name in the `UniqueName` (`kubernetes.io/projected`, ...).
fn volume_plugin(volume: &k8s_openapi::api::core::v1::Volume) -> &'static str {
    if volume.projected.is_some() {
        "kubernetes.io/projected"
    } else if volume.config_map.is_some() {
        "kubernetes.io/configmap"
    } else if volume.secret.is_some() {
        "kubernetes.io/secret"
    } else if volume.host_path.is_some() {
        "kubernetes.io/host-path"
    } else if volume.persistent_volume_claim.is_some() {
        "kubernetes.io/csi"
    } else {
        "kubernetes.io/empty-dir"
    }
}
