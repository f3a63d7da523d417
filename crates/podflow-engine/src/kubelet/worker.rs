//! What the kubelet keeps for one pod (the pod worker's state,
//! `pkg/kubelet/pod_workers.go`) and for each of its containers: the runtime's
//! view, the simulated process, the probe workers.

use k8s_openapi::api::core::v1::Pod;

use super::container_spec::ContainerSpec;
use super::lifecycle::{self, InitState};
use super::prober::{self, ProbeType};
use super::process::{Process, State};
use super::status::{ContainerDetail, ContainerState, ContainerView, LastTerminated};
use super::transitions::Transitions;
use crate::clock::SimTime;
use crate::scheduler::framework::Counted;
use podflow_model::Shared;

/// One probe worker of a container, with the kubelet's bookkeeping.
#[derive(Debug, Clone)]
pub struct ProbeSlot {
    pub worker: prober::Worker,
    /// The outcome of the last probe run (`None`: not run yet for this container).
    pub last: Option<bool>,
    /// Bumped on each container start; older tick timers are ignored.
    pub generation: u64,
}

/// A kill in progress: SIGTERM sent, SIGKILL due at `deadline`.
#[derive(Debug, Clone, Copy)]
pub struct Kill {
    pub deadline: SimTime,
}

/// One container (init or regular) of the pod.
// Independent facts of one container (init, pulling, announced, changed).
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Clone)]
pub struct Ctr {
    /// Read from the Pod the worker last saw (not a copy).
    pub spec: ContainerSpec,
    pub init: bool,
    pub view: ContainerView,
    pub last: Option<LastTerminated>,
    pub process: Option<Process>,
    /// The output of the process the current one replaced: what the runtime
    /// keeps of the last terminated container (`kubectl logs --previous`).
    pub previous_output: Option<Vec<(SimTime, String)>>,
    pub running_since: Option<SimTime>,
    /// An image pull under way for this container.
    pub pulling: bool,
    /// When its latest pull began.
    pub pull_started: Option<SimTime>,
    pub kill: Option<Kill>,
    pub probes: Vec<ProbeSlot>,
    /// Whether the wait shown now (back-off) already had its event.
    pub waiting_announced: bool,
    /// Killed because its spec's image changed: it starts again whatever the
    /// restart policy says (`computePodActions`).
    pub definition_changed: bool,
    /// Why its latest start failed after the container ran (`postStart`):
    /// the kubelet's `reasonCache` entry, reason and message.
    pub start_error: Option<(String, String)>,
}

impl Ctr {
    /// The image its spec names, as containerd normalises it (the image to
    /// pull and start; the status shows the one it runs).
    pub fn image(&self) -> String {
        super::images::normalize(self.spec.image.as_deref().unwrap_or_default())
    }

    /// A container not created yet, waiting with `reason`.
    pub fn new(spec: ContainerSpec, init: bool, reason: &str, now: SimTime) -> Ctr {
        let probes = [
            (ProbeType::Startup, spec.startup_probe.as_ref()),
            (ProbeType::Liveness, spec.liveness_probe.as_ref()),
            (ProbeType::Readiness, spec.readiness_probe.as_ref()),
        ]
        .into_iter()
        // Regular init containers are never probed.
        .filter(|_| !init || lifecycle::is_sidecar(&spec))
        .filter_map(|(t, p)| p.map(|p| (t, p)))
        .map(|(t, p)| ProbeSlot {
            worker: prober::Worker::new(t, prober::Probe::from_api(p), now),
            last: None,
            generation: 0,
        })
        .collect();
        Ctr {
            view: ContainerView {
                name: spec.name.clone(),
                image: super::images::normalize(spec.image.as_deref().unwrap_or_default()),
                image_id: None,
                container_id: None,
                state: ContainerState::Waiting {
                    reason: reason.into(),
                    message: None,
                },
                restart_count: 0,
            },
            spec,
            init,
            last: None,
            process: None,
            previous_output: None,
            running_since: None,
            pulling: false,
            pull_started: None,
            kill: None,
            probes,
            waiting_announced: false,
            definition_changed: false,
            start_error: None,
        }
    }

    /// The `fieldPath` of its events: `spec.containers{nginx}`, `spec.initContainers{init-db}`.
    pub fn field_path(&self) -> String {
        let list = if self.init {
            "initContainers"
        } else {
            "containers"
        };
        format!("spec.{list}{{{}}}", self.spec.name)
    }

    pub fn is_sidecar(&self) -> bool {
        self.init && lifecycle::is_sidecar(&self.spec)
    }

    pub fn is_running(&self) -> bool {
        matches!(self.view.state, ContainerState::Running { .. })
    }

    fn probe(&self, t: ProbeType) -> Option<&prober::Worker> {
        self.probes
            .iter()
            .find(|p| p.worker.probe_type == t)
            .map(|p| &p.worker)
    }

    /// Started: running, and its startup probe (if any) passed.
    pub fn started(&self) -> bool {
        self.is_running() && prober::is_started(self.probe(ProbeType::Startup))
    }

    /// Ready: started and its readiness probe (if any) passes.
    pub fn ready(&self) -> bool {
        self.is_running() && prober::is_ready(self.probe(ProbeType::Readiness), self.started())
    }

    /// What `next_init_step` needs to know of it.
    pub fn init_state(&self) -> InitState {
        match &self.view.state {
            ContainerState::Running { .. } => InitState::Running {
                started: self.started(),
            },
            ContainerState::Terminated { exit_code, .. } => InitState::Exited {
                exit_code: *exit_code,
            },
            ContainerState::Waiting { .. } => match &self.last {
                Some(l) if !self.pulling => InitState::Exited {
                    exit_code: l.exit_code,
                },
                _ => InitState::NotStarted,
            },
        }
    }

    /// The status details `pod_status_with` reads.
    pub fn detail(&self) -> ContainerDetail {
        ContainerDetail {
            last_state: self.last.clone(),
            ready: Some(self.ready()),
            started: Some(self.started()),
            init: self.init,
            sidecar: self.is_sidecar(),
        }
    }

    /// Its view and details as the status shows them: a container whose
    /// start failed (`postStart`) is still being created while it is killed
    /// (`startContainer` has not returned), and once it exited it waits with
    /// the start's error as its reason and the exit as its last state, when
    /// it will restart (`convertToAPIContainerStatuses` reads the
    /// `reasonCache` for containers `ShouldContainerBeRestarted`).
    pub fn reported(&self, restart_policy: &str) -> (ContainerView, ContainerDetail) {
        let (mut view, mut detail) = (self.view.clone(), self.detail());
        let Some((reason, message)) = &self.start_error else {
            return (view, detail);
        };
        match &self.view.state {
            ContainerState::Running { .. } => {
                view.state = ContainerState::Waiting {
                    reason: lifecycle::CONTAINER_CREATING.into(),
                    message: None,
                };
                detail.ready = Some(false);
                detail.started = Some(false);
            }
            ContainerState::Terminated {
                exit_code,
                reason: exit_reason,
                started_at,
                finished_at,
            } if lifecycle::should_restart(&self.spec, restart_policy, *exit_code) => {
                detail.last_state = Some(LastTerminated {
                    exit_code: *exit_code,
                    reason: exit_reason.clone(),
                    started_at: *started_at,
                    finished_at: *finished_at,
                    container_id: self.view.container_id.clone(),
                });
                view.state = ContainerState::Waiting {
                    reason: reason.clone(),
                    message: Some(message.clone()),
                };
            }
            _ => {}
        }
        (view, detail)
    }

    /// The trace's detail of an exit with `code` and `reason`: the last lines
    /// the process wrote and, for an OOM kill, its memory against the limit.
    pub fn exit_detail(&self, code: i32, reason: String) -> crate::trace::ExitDetail {
        let tail = self.process.as_ref().map_or_else(Vec::new, |p| {
            let lines = p.output();
            lines[lines.len().saturating_sub(crate::trace::ExitDetail::TAIL)..].to_vec()
        });
        let oom = self.process.as_ref().and_then(Process::oom);
        crate::trace::ExitDetail {
            container: self.spec.name.clone(),
            code,
            reason,
            tail,
            memory_bytes: oom.map(|(used, _)| used),
            limit_bytes: oom.map(|(_, limit)| limit),
        }
    }

    /// A new instance runs `process`; the output of the one it replaces is kept.
    pub fn run(&mut self, process: Process) {
        if let Some(old) = self.process.replace(process) {
            self.previous_output = Some(old.output_lines());
        }
    }

    /// The process exited: record it as the terminated state.
    pub fn record_exit(&mut self, now: SimTime) -> Option<(i32, String)> {
        let process = self.process.as_ref()?;
        let State::Exited { code, reason } = process.state().clone() else {
            return None;
        };
        let started_at = self.running_since.unwrap_or(now);
        let finished_at = process.finished_at().unwrap_or(now);
        self.view.state = ContainerState::Terminated {
            exit_code: code,
            reason: reason.to_owned(),
            started_at,
            finished_at,
        };
        self.running_since = None;
        self.kill = None;
        for slot in &mut self.probes {
            slot.worker.container_stopped();
        }
        Some((code, reason.to_owned()))
    }

    /// When it exited, if it is terminated.
    pub fn finished_at(&self) -> Option<SimTime> {
        match &self.view.state {
            ContainerState::Terminated { finished_at, .. } => Some(*finished_at),
            _ => self.last.as_ref().map(|l| l.finished_at),
        }
    }

    /// Moves the terminated state to `lastState` (a new container replaces it).
    pub fn retire(&mut self) {
        if let ContainerState::Terminated {
            exit_code,
            reason,
            started_at,
            finished_at,
        } = &self.view.state
        {
            self.last = Some(LastTerminated {
                exit_code: *exit_code,
                reason: reason.clone(),
                started_at: *started_at,
                finished_at: *finished_at,
                container_id: self.view.container_id.clone(),
            });
        }
    }
}

/// What the kubelet is doing for one pod.
#[derive(Debug, Clone)]
pub struct PodWorker {
    pub pod: Shared<Pod>,
    /// What the pod asks of the node, for admitting the pods after it.
    pub counted: Counted,
    pub start_time: SimTime,
    pub sandbox_id: Option<String>,
    pub pod_ip: Option<String>,
    /// Init containers first, then the regular ones.
    pub ctrs: Vec<Ctr>,
    pub first_pull: Option<SimTime>,
    pub last_pull: Option<SimTime>,
    pub running_reported: Option<SimTime>,
    /// When the startup latency line was written.
    pub startup_logged: Option<SimTime>,
    pub terminating: bool,
    /// The pod reached Succeeded or Failed: nothing more runs.
    pub finished: bool,
    /// When each condition last changed, and to what.
    pub transitions: Transitions,
    /// PLEG events not relisted yet: container id and type.
    pub pleg: Vec<(String, &'static str)>,
    pub pleg_due: bool,
    /// The wake-up timer set for the processes.
    pub wake_at: Option<SimTime>,
    /// The status last sent, to send only changes and patch from (the
    /// status manager's cache, `pkg/kubelet/status/status_manager.go`):
    /// typed, where a JSON value would keep a map per condition (8 KB a Pod),
    /// and shared by the checkpoints that hold this worker.
    pub last_status: Option<std::sync::Arc<super::sent_status::SentStatus>>,
    pub last_phase: String,
    /// Evicted by the eviction manager: the message, and when.
    pub evicted: Option<(String, SimTime)>,
}

impl PodWorker {
    /// A worker for `pod`, admitted at `now`.
    pub fn new(pod: &Shared<Pod>, now: SimTime) -> PodWorker {
        let n_init = pod
            .spec
            .as_ref()
            .and_then(|s| s.init_containers.as_ref())
            .map_or(0, Vec::len);
        let waiting = lifecycle::default_waiting_reason(n_init > 0);
        let ctrs: Vec<Ctr> = ContainerSpec::all(pod)
            .into_iter()
            .enumerate()
            .map(|(i, spec)| {
                if i < n_init {
                    Ctr::new(spec, true, lifecycle::POD_INITIALIZING, now)
                } else {
                    Ctr::new(spec, false, waiting, now)
                }
            })
            .collect();
        PodWorker {
            pod: pod.clone(),
            counted: Counted::of(pod),
            start_time: now,
            sandbox_id: None,
            pod_ip: None,
            ctrs,
            first_pull: None,
            last_pull: None,
            running_reported: None,
            startup_logged: None,
            terminating: false,
            finished: false,
            transitions: Transitions::default(),
            pleg: Vec::new(),
            pleg_due: false,
            wake_at: None,
            last_status: None,
            last_phase: String::new(),
            evicted: None,
        }
    }

    /// The pod as the watch brought it now: each container that reads the
    /// same name and image there reads from it (the old version is let go);
    /// one whose image changed keeps its old spec until `spec_updated`
    /// restarts it with the new.
    pub fn see(&mut self, pod: &Shared<Pod>) {
        self.counted.follow(&self.pod, pod);
        self.pod = pod.clone();
        for (ctr, new) in self.ctrs.iter_mut().zip(ContainerSpec::all(pod)) {
            if ctr.spec.same_definition(&new) {
                ctr.spec = new;
            }
        }
    }

    pub fn restart_policy(&self) -> String {
        self.pod
            .spec
            .as_ref()
            .and_then(|s| s.restart_policy.clone())
            .unwrap_or_else(|| "Always".into())
    }

    pub fn n_init(&self) -> usize {
        self.ctrs.iter().filter(|c| c.init).count()
    }

    /// `NS`, `NAME`, `UID`.
    pub fn names(&self) -> (String, String, String) {
        let m = &self.pod.metadata;
        (
            m.namespace.clone().unwrap_or_default(),
            m.name.clone().unwrap_or_default(),
            m.uid.clone().unwrap_or_default(),
        )
    }

    /// The grace period of a stop: the deletion's, else the pod's, else 30 s.
    pub fn grace_ms(&self) -> u64 {
        let seconds = self
            .pod
            .metadata
            .deletion_grace_period_seconds
            .or_else(|| {
                self.pod
                    .spec
                    .as_ref()
                    .and_then(|s| s.termination_grace_period_seconds)
            })
            .unwrap_or(30);
        u64::try_from(seconds.max(0)).unwrap_or(30) * 1000
    }
}
