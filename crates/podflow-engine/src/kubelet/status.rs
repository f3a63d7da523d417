//! The Pod status the kubelet reports (`pkg/kubelet/kubelet_pods.go`,
//! `generateAPIPodStatus`, `getPhase`; `pkg/kubelet/status/generate.go` for the
//! conditions), built from what the runtime has done so far.

use std::collections::BTreeMap;

use serde_json::Value;

use super::sent_status::{
    Condition, CtrState, CtrStatus, KubeletCondition, SentStatus, Terminated, second,
};
use crate::clock::SimTime;

/// What one container is doing, as the runtime reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContainerState {
    /// Not started; the reason (`ContainerCreating`, `ErrImagePull`, `ImagePullBackOff`) and message.
    Waiting {
        reason: String,
        message: Option<String>,
    },
    /// Started at this moment.
    Running { started_at: SimTime },
    /// Exited.
    Terminated {
        exit_code: i32,
        reason: String,
        started_at: SimTime,
        finished_at: SimTime,
    },
}

/// One container's status inputs.
#[derive(Debug, Clone)]
pub struct ContainerView {
    pub name: String,
    /// The normalised image name.
    pub image: String,
    pub image_id: Option<String>,
    pub container_id: Option<String>,
    pub state: ContainerState,
    pub restart_count: i32,
}

/// Everything the status is computed from.
#[derive(Debug, Clone)]
pub struct PodView<'a> {
    pub host_ip: &'a str,
    pub pod_ip: Option<&'a str>,
    pub start_time: SimTime,
    pub sandbox_ready: bool,
    pub qos_class: Option<&'a str>,
    pub restart_policy: &'a str,
    pub containers: &'a [ContainerView],
    /// When each condition last changed, by type (kept across reports).
    pub transitions: &'a super::transitions::Transitions,
    /// Now, for conditions that have not been reported before.
    pub now: SimTime,
    /// `spec.readinessGates`' condition types.
    pub readiness_gates: &'a [String],
    /// The conditions of the stored status the kubelet does not own (a
    /// readiness gate's, `DisruptionTarget`): kept, and read for the gates.
    pub other_conditions: &'a [Value],
}

/// A container's previous run (`lastState.terminated`), kept across a restart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastTerminated {
    pub exit_code: i32,
    /// `Completed`, `Error`, `OOMKilled`.
    pub reason: String,
    pub started_at: SimTime,
    pub finished_at: SimTime,
    pub container_id: Option<String>,
}

/// What the status needs beyond [`ContainerView`]; the defaults follow the state
/// (ready and started while running).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContainerDetail {
    pub last_state: Option<LastTerminated>,
    /// From the readiness probe (`None`: ready while running and started).
    pub ready: Option<bool>,
    /// From the startup probe (`None`: started while running).
    pub started: Option<bool>,
    /// An init container (set by [`pod_status_with`] for its init containers).
    pub init: bool,
    /// An init container with `restartPolicy: Always`.
    pub sidecar: bool,
}

/// The init containers and the details, by container name, for [`pod_status_with`].
#[derive(Debug, Clone, Copy)]
pub struct StatusExtra<'a> {
    pub init_containers: &'a [ContainerView],
    pub details: &'a BTreeMap<String, ContainerDetail>,
}

/// The phase of a pod without init containers (see [`phase_with`]).
pub fn phase(containers: &[ContainerView], restart_policy: &str) -> &'static str {
    let none = BTreeMap::new();
    phase_with(&[], containers, &none, restart_policy)
}

/// The phase by `getPhase`'s rules (`pkg/kubelet/kubelet_pods.go`): Failed when a
/// regular init container failed under `Never`; Pending while an init container
/// is pending (or a sidecar has not started before any regular container ran) or
/// a container waits for its first start; Running while one runs; once all have
/// stopped, by restart policy and exit codes. A waiting container with a last
/// termination counts as stopped.
pub fn phase_with(
    init: &[ContainerView],
    containers: &[ContainerView],
    details: &BTreeMap<String, ContainerDetail>,
    restart_policy: &str,
) -> &'static str {
    let detail = |c: &ContainerView| details.get(&c.name).cloned().unwrap_or_default();
    let mut pending_init = 0;
    let mut pending_sidecars = 0;
    let mut failed_init = 0;
    let (mut running, mut waiting, mut stopped, mut succeeded) = (0, 0, 0, 0);
    for c in init {
        let d = detail(c);
        if d.sidecar {
            match &c.state {
                ContainerState::Running { .. } => {
                    if !started(c, &d) {
                        pending_sidecars += 1;
                    }
                    running += 1;
                }
                ContainerState::Terminated { .. } => {}
                ContainerState::Waiting { .. } => {
                    if d.last_state.is_none() {
                        pending_sidecars += 1;
                    }
                }
            }
            continue;
        }
        match &c.state {
            ContainerState::Running { .. } => pending_init += 1,
            ContainerState::Terminated { exit_code, .. } => {
                if *exit_code != 0 {
                    failed_init += 1;
                }
            }
            ContainerState::Waiting { .. } => match &d.last_state {
                Some(last) if last.exit_code != 0 => failed_init += 1,
                Some(_) => {}
                None => pending_init += 1,
            },
        }
    }
    let mut any_regular_started = false;
    for c in containers {
        match &c.state {
            ContainerState::Running { .. } => {
                running += 1;
                any_regular_started = true;
            }
            ContainerState::Terminated { exit_code, .. } => {
                stopped += 1;
                any_regular_started = true;
                if *exit_code == 0 {
                    succeeded += 1;
                }
            }
            ContainerState::Waiting { .. } => {
                if detail(c).last_state.is_some() {
                    stopped += 1;
                    any_regular_started = true;
                } else {
                    waiting += 1;
                }
            }
        }
    }
    if failed_init > 0 && restart_policy == "Never" {
        return "Failed";
    }
    if pending_init > 0 || (pending_sidecars > 0 && !any_regular_started) || waiting > 0 {
        return "Pending";
    }
    if running > 0 {
        return "Running";
    }
    if stopped > 0 {
        return match restart_policy {
            "Always" => "Running",
            _ if stopped == succeeded => "Succeeded",
            "Never" => "Failed",
            _ => "Running",
        };
    }
    "Pending"
}

fn started(c: &ContainerView, d: &ContainerDetail) -> bool {
    d.started
        .unwrap_or(matches!(c.state, ContainerState::Running { .. }))
}

fn ready(c: &ContainerView, d: &ContainerDetail) -> bool {
    match &c.state {
        ContainerState::Running { .. } => d.ready.unwrap_or(true),
        // A regular init container that completed is ready.
        ContainerState::Terminated { exit_code: 0, .. } if d.init && !d.sidecar => true,
        _ => false,
    }
}

fn condition(
    kind: &'static str,
    ok: bool,
    reason: Option<&'static str>,
    message: Option<String>,
    at: SimTime,
) -> KubeletCondition {
    KubeletCondition {
        kind,
        ok,
        reason,
        message: message.map(String::into_boxed_str),
        at: second(at),
    }
}

/// The `status` object the kubelet writes, for a pod without init containers
/// or details (see [`pod_status_with`]).
pub fn pod_status(view: &PodView<'_>) -> Value {
    let details = BTreeMap::new();
    pod_status_with(
        view,
        &StatusExtra {
            init_containers: &[],
            details: &details,
        },
    )
}

/// `[a b]`, as Go prints a `[]string`.
fn go_list(names: &[&str]) -> String {
    format!("[{}]", names.join(" "))
}

/// The reason of a `Ready=False` whose containers are ready but whose
/// readiness gates are not (`pkg/kubelet/status/generate.go`).
pub const READINESS_GATES_NOT_READY: &str = "ReadinessGatesNotReady";

/// Why each readiness gate is not satisfied, in the spec's order
/// (`GeneratePodReadyCondition`): its condition is missing, or not `True`.
fn readiness_gates_unready(view: &PodView<'_>) -> Vec<String> {
    view.readiness_gates
        .iter()
        .filter_map(|gate| {
            let found = view
                .other_conditions
                .iter()
                .find(|c| c["type"].as_str() == Some(gate));
            match found.map(|c| c["status"].as_str().unwrap_or_default()) {
                None => Some(format!(
                    "corresponding condition of pod readiness gate \"{gate}\" does not exist."
                )),
                Some("True") => None,
                Some(status) => Some(format!(
                    "the status of pod readiness gate \"{gate}\" is not \"True\", but {status}"
                )),
            }
        })
        .collect()
}

/// Whether the kubelet owns conditions of this type (`kubetypes.PodConditionByKubelet`).
pub fn owned_by_kubelet(kind: &str) -> bool {
    matches!(
        kind,
        "PodScheduled"
            | "Ready"
            | "Initialized"
            | "ContainersReady"
            | "PodReadyToStartContainers"
            | "PodResizePending"
            | "PodResizeInProgress"
    )
}

/// The four conditions the kubelet owns, for a pod in `phase`.
fn conditions(view: &PodView<'_>, extra: &StatusExtra<'_>, phase: &str) -> Vec<KubeletCondition> {
    let detail = |c: &ContainerView| extra.details.get(&c.name).cloned().unwrap_or_default();
    let any_regular_started = view.containers.iter().any(|c| {
        !matches!(c.state, ContainerState::Waiting { .. }) || detail(c).last_state.is_some()
    });
    let incomplete: Vec<&str> = extra
        .init_containers
        .iter()
        .filter(|c| {
            let d = detail(c);
            if d.sidecar {
                !started(c, &d)
            } else {
                !matches!(c.state, ContainerState::Terminated { exit_code: 0, .. })
            }
        })
        .map(|c| c.name.as_str())
        .collect();
    let completed = phase == "Succeeded";
    let initialized = completed || incomplete.is_empty() || any_regular_started;
    let unready: Vec<&str> = extra
        .init_containers
        .iter()
        .filter(|c| detail(c).sidecar)
        .chain(view.containers.iter())
        .filter(|c| !ready(c, &detail(c)))
        .map(|c| c.name.as_str())
        .collect();
    let ready_ok = unready.is_empty() && !completed;
    let (ready_reason, ready_message) = if completed {
        (Some("PodCompleted"), None)
    } else if ready_ok {
        (None, None)
    } else {
        (
            Some("ContainersNotReady"),
            Some(format!(
                "containers with unready status: {}",
                go_list(&unready)
            )),
        )
    };
    let gates = readiness_gates_unready(view);
    let (pod_ready, pod_reason, pod_message) = if ready_ok && !gates.is_empty() {
        (
            false,
            Some(READINESS_GATES_NOT_READY),
            Some(gates.join(", ")),
        )
    } else {
        (ready_ok, ready_reason, ready_message.clone())
    };
    let at = |kind: &str| view.transitions.at(kind).unwrap_or(view.now);
    let (init_reason, init_message) = if initialized {
        (completed.then_some("PodCompleted"), None)
    } else {
        (
            Some("ContainersNotInitialized"),
            Some(format!(
                "containers with incomplete status: {}",
                go_list(&incomplete)
            )),
        )
    };
    vec![
        condition(
            "PodReadyToStartContainers",
            view.sandbox_ready,
            None,
            None,
            at("PodReadyToStartContainers"),
        ),
        condition(
            "Initialized",
            initialized,
            init_reason,
            init_message,
            at("Initialized"),
        ),
        condition("Ready", pod_ready, pod_reason, pod_message, at("Ready")),
        condition(
            "ContainersReady",
            ready_ok,
            ready_reason,
            ready_message,
            at("ContainersReady"),
        ),
    ]
}

/// The `status` object the kubelet writes (`generateAPIPodStatus`; conditions by
/// `pkg/kubelet/status/generate.go`: `GeneratePodInitializedCondition`,
/// `GenerateContainersReadyCondition`, `GeneratePodReadyCondition`).
pub fn pod_status_with(view: &PodView<'_>, extra: &StatusExtra<'_>) -> Value {
    generate(view, extra).to_value()
}

/// The status of [`pod_status_with`], typed: the kubelet's four conditions
/// only (the caller adds the others).
pub fn generate(view: &PodView<'_>, extra: &StatusExtra<'_>) -> SentStatus {
    let detail = |c: &ContainerView| extra.details.get(&c.name).cloned().unwrap_or_default();
    let phase = phase_with(
        extra.init_containers,
        view.containers,
        extra.details,
        view.restart_policy,
    );
    let conditions = conditions(view, extra, phase)
        .into_iter()
        .map(Condition::Kubelet)
        .collect();
    let statuses = view
        .containers
        .iter()
        .map(|c| container_status(c, &detail(c)))
        .collect();
    let init_statuses = (!extra.init_containers.is_empty()).then(|| {
        extra
            .init_containers
            .iter()
            .map(|c| {
                let mut d = detail(c);
                d.init = true;
                container_status(c, &d)
            })
            .collect()
    });
    SentStatus {
        phase,
        conditions,
        host_ip: view.host_ip.into(),
        start_time: second(view.start_time),
        init_statuses,
        statuses,
        pod_ip: view.pod_ip.map(Into::into),
        qos_class: view.qos_class.map(Into::into),
        reason: None,
        message: None,
    }
}

fn terminated(
    exit_code: i32,
    reason: &str,
    started_at: SimTime,
    finished_at: SimTime,
    container_id: Option<&String>,
) -> Terminated {
    Terminated {
        exit_code,
        reason: reason.into(),
        started_at: second(started_at),
        finished_at: second(finished_at),
        container_id: container_id.map(|id| id.as_str().into()),
    }
}

fn container_status(c: &ContainerView, d: &ContainerDetail) -> CtrStatus {
    let state = match &c.state {
        ContainerState::Waiting { reason, message } => CtrState::Waiting {
            reason: reason.as_str().into(),
            message: message.as_deref().map(Into::into),
        },
        ContainerState::Running { started_at } => CtrState::Running {
            started_at: second(*started_at),
        },
        ContainerState::Terminated {
            exit_code,
            reason,
            started_at,
            finished_at,
        } => CtrState::Terminated(terminated(
            *exit_code,
            reason,
            *started_at,
            *finished_at,
            c.container_id.as_ref(),
        )),
    };
    let last_state = d.last_state.as_ref().map(|l| {
        terminated(
            l.exit_code,
            &l.reason,
            l.started_at,
            l.finished_at,
            l.container_id.as_ref(),
        )
    });
    CtrStatus {
        name: c.name.as_str().into(),
        image: c.image.as_str().into(),
        image_id: c.image_id.as_deref().unwrap_or_default().into(),
        container_id: c.container_id.as_deref().map(Into::into),
        ready: ready(c, d),
        started: started(c, d),
        restart_count: c.restart_count,
        state,
        last_state,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kubelet::transitions::Transitions;
    use serde_json::json;

    fn c(state: ContainerState) -> ContainerView {
        ContainerView {
            name: "a".into(),
            image: "x".into(),
            image_id: None,
            container_id: None,
            state,
            restart_count: 0,
        }
    }

    #[test]
    fn phases_follow_get_phase() {
        // pkg/kubelet/kubelet_pods_test.go, TestPodPhaseWithRestartAlways / Never / OnFailure (simplest rows).
        let waiting = c(ContainerState::Waiting {
            reason: "ContainerCreating".into(),
            message: None,
        });
        let running = c(ContainerState::Running {
            started_at: SimTime(1),
        });
        let done = |code| {
            c(ContainerState::Terminated {
                exit_code: code,
                reason: String::new(),
                started_at: SimTime(1),
                finished_at: SimTime(2),
            })
        };
        assert_eq!(phase(std::slice::from_ref(&waiting), "Always"), "Pending");
        assert_eq!(phase(std::slice::from_ref(&running), "Always"), "Running");
        assert_eq!(phase(&[running, waiting], "Always"), "Pending");
        assert_eq!(phase(&[done(0)], "Never"), "Succeeded");
        assert_eq!(phase(&[done(1)], "Never"), "Failed");
        assert_eq!(phase(&[done(1)], "OnFailure"), "Running");
        assert_eq!(phase(&[done(0)], "OnFailure"), "Succeeded");
        assert_eq!(phase(&[done(0)], "Always"), "Running");
    }

    type Details = BTreeMap<String, ContainerDetail>;
    type Row<'a> = (
        Vec<ContainerView>,
        Vec<ContainerView>,
        &'a Details,
        &'a str,
        &'a str,
    );

    fn named(name: &str, state: ContainerState) -> ContainerView {
        ContainerView {
            name: name.into(),
            ..c(state)
        }
    }

    fn waiting(reason: &str) -> ContainerState {
        ContainerState::Waiting {
            reason: reason.into(),
            message: None,
        }
    }

    fn exited(code: i32) -> ContainerState {
        ContainerState::Terminated {
            exit_code: code,
            reason: if code == 0 { "Completed" } else { "Error" }.into(),
            started_at: SimTime(1000),
            finished_at: SimTime(2000),
        }
    }

    fn last(code: i32) -> ContainerDetail {
        ContainerDetail {
            last_state: Some(LastTerminated {
                exit_code: code,
                reason: "Error".into(),
                started_at: SimTime(1000),
                finished_at: SimTime(2000),
                container_id: Some("containerd://abc".into()),
            }),
            ..ContainerDetail::default()
        }
    }

    #[test]
    fn phases_with_init_containers_and_restarts() {
        // kubelet_pods_test.go, TestPodPhaseWithRestartAlwaysInitContainers,
        // TestPodPhaseWithRestartNeverInitContainers, TestPodPhaseWithRestartAlwaysRestartableInitContainers.
        let running = ContainerState::Running {
            started_at: SimTime(1),
        };
        let app = |state| named("app", state);
        let init = |state| named("init", state);
        let mut crash = BTreeMap::new();
        crash.insert("app".to_owned(), last(1));
        let mut init_failed = BTreeMap::new();
        init_failed.insert("init".to_owned(), last(1));
        let mut sidecar = BTreeMap::new();
        sidecar.insert(
            "init".to_owned(),
            ContainerDetail {
                sidecar: true,
                started: Some(false),
                ..ContainerDetail::default()
            },
        );
        let none = BTreeMap::new();
        let rows: Vec<Row<'_>> = vec![
            (
                vec![],
                vec![app(waiting("CrashLoopBackOff"))],
                &crash,
                "Always",
                "Running",
            ),
            (
                vec![],
                vec![app(waiting("CrashLoopBackOff"))],
                &crash,
                "OnFailure",
                "Running",
            ),
            (
                vec![init(running.clone())],
                vec![app(waiting("PodInitializing"))],
                &none,
                "Always",
                "Pending",
            ),
            (
                vec![init(exited(0))],
                vec![app(running.clone())],
                &none,
                "Always",
                "Running",
            ),
            (
                vec![init(exited(1))],
                vec![app(waiting("PodInitializing"))],
                &none,
                "Never",
                "Failed",
            ),
            (
                vec![init(exited(1))],
                vec![app(waiting("PodInitializing"))],
                &none,
                "Always",
                "Pending",
            ),
            (
                vec![init(waiting("CrashLoopBackOff"))],
                vec![app(waiting("PodInitializing"))],
                &init_failed,
                "Always",
                "Pending",
            ),
            (
                vec![init(running.clone())],
                vec![app(waiting("PodInitializing"))],
                &sidecar,
                "Always",
                "Pending",
            ),
        ];
        for (i, (init, containers, details, policy, want)) in rows.into_iter().enumerate() {
            assert_eq!(
                phase_with(&init, &containers, details, policy),
                want,
                "row {i}"
            );
        }
    }

    #[test]
    fn conditions_and_statuses_with_init_containers() {
        // pkg/kubelet/status/generate_test.go, TestGeneratePodInitializedCondition and
        // TestGenerateContainersReadyCondition.
        let transitions = Transitions::default();
        let containers = [named("app", waiting("PodInitializing"))];
        let init = [
            named("init-a", exited(0)),
            named("init-b", waiting("PodInitializing")),
        ];
        let view = PodView {
            host_ip: "172.18.0.3",
            pod_ip: Some("10.244.1.5"),
            start_time: SimTime(0),
            sandbox_ready: true,
            qos_class: None,
            restart_policy: "Always",
            containers: &containers,
            transitions: &transitions,
            now: SimTime(5000),
            readiness_gates: &[],
            other_conditions: &[],
        };
        let details = BTreeMap::new();
        let status = pod_status_with(
            &view,
            &StatusExtra {
                init_containers: &init,
                details: &details,
            },
        );
        assert_eq!(status["phase"], "Pending");
        let cond = |kind: &str| {
            status["conditions"]
                .as_array()
                .and_then(|l| l.iter().find(|c| c["type"] == kind))
                .cloned()
                .unwrap_or_default()
        };
        assert_eq!(cond("Initialized")["status"], "False");
        assert_eq!(cond("Initialized")["reason"], "ContainersNotInitialized");
        assert_eq!(
            cond("Initialized")["message"],
            "containers with incomplete status: [init-b]"
        );
        assert_eq!(
            cond("Ready")["message"],
            "containers with unready status: [app]"
        );
        assert_eq!(status["initContainerStatuses"][0]["ready"], true);
        assert_eq!(status["initContainerStatuses"][0]["started"], false);
        assert_eq!(
            status["initContainerStatuses"][1]["state"]["waiting"]["reason"],
            "PodInitializing"
        );

        // A restarted container in back-off: lastState, restartCount, waiting message.
        let crashing = [ContainerView {
            restart_count: 2,
            ..named(
                "app",
                ContainerState::Waiting {
                    reason: "CrashLoopBackOff".into(),
                    message: Some(
                        "back-off 20s restarting failed container=app pod=p_default(u)".into(),
                    ),
                },
            )
        }];
        let mut details = BTreeMap::new();
        details.insert("app".to_owned(), last(1));
        let view = PodView {
            containers: &crashing,
            ..view
        };
        let status = pod_status_with(
            &view,
            &StatusExtra {
                init_containers: &[],
                details: &details,
            },
        );
        let app = &status["containerStatuses"][0];
        assert_eq!(status["phase"], "Running");
        assert_eq!(app["restartCount"], 2);
        assert_eq!(app["lastState"]["terminated"]["exitCode"], 1);
        assert_eq!(
            app["lastState"]["terminated"]["containerID"],
            "containerd://abc"
        );
        assert_eq!(
            app["state"]["waiting"]["message"],
            "back-off 20s restarting failed container=app pod=p_default(u)"
        );
        assert!(status.get("initContainerStatuses").is_none());
    }

    /// `pkg/kubelet/status/generate_test.go`, `TestGeneratePodReadyCondition`:
    /// ready containers, but a readiness gate's condition missing or not True.
    #[test]
    fn readiness_gates_hold_ready_back() {
        let transitions = Transitions::default();
        let running = [c(ContainerState::Running {
            started_at: SimTime(1),
        })];
        let gates = ["www.example.com/feature-1".to_owned()];
        let view = PodView {
            host_ip: "172.18.0.3",
            pod_ip: Some("10.244.1.5"),
            start_time: SimTime(0),
            sandbox_ready: true,
            qos_class: None,
            restart_policy: "Always",
            containers: &running,
            transitions: &transitions,
            now: SimTime(5000),
            readiness_gates: &gates,
            other_conditions: &[],
        };
        let ready = |view: &PodView<'_>| {
            let status = pod_status(view);
            status["conditions"]
                .as_array()
                .and_then(|l| l.iter().find(|c| c["type"] == "Ready"))
                .cloned()
                .unwrap_or_default()
        };
        let missing = ready(&view);
        assert_eq!(missing["status"], "False");
        assert_eq!(missing["reason"], "ReadinessGatesNotReady");
        assert_eq!(
            missing["message"],
            "corresponding condition of pod readiness gate \"www.example.com/feature-1\" does not exist."
        );
        let false_ = [json!({"type": "www.example.com/feature-1", "status": "False"})];
        let not_true = ready(&PodView {
            other_conditions: &false_,
            ..view.clone()
        });
        assert_eq!(
            not_true["message"],
            "the status of pod readiness gate \"www.example.com/feature-1\" is not \"True\", but False"
        );
        let true_ = [json!({"type": "www.example.com/feature-1", "status": "True"})];
        let ok = ready(&PodView {
            other_conditions: &true_,
            ..view
        });
        assert_eq!(ok["status"], "True");
        assert!(ok.get("reason").is_none());
    }
}
