//! Container lifecycle decisions of the kubelet's runtime manager
//! (`pkg/kubelet/kuberuntime/kuberuntime_manager.go`, `computePodActions` and
//! `computeInitContainerActions`; `pkg/api/v1/pod/util.go`,
//! `ContainerShouldRestart` and `IsContainerRestartable` with the container
//! restart rules of `ContainerRestartRules`, beta and on by default since 1.35),
//! and the container state reasons the kubelet reports
//! (`pkg/kubelet/kubelet_pods.go`, `pkg/kubelet/container/sync_result.go`,
//! `pkg/kubelet/images/types.go`).

use k8s_openapi::api::core::v1::Container;

/// Waiting: the container is being created (no init containers).
pub const CONTAINER_CREATING: &str = "ContainerCreating";
/// Waiting: the pod has init containers that have not all completed.
pub const POD_INITIALIZING: &str = "PodInitializing";
/// Waiting: the container exited and its restart is in back-off.
pub const CRASH_LOOP_BACK_OFF: &str = "CrashLoopBackOff";
/// Waiting: the image pull failed.
pub const ERR_IMAGE_PULL: &str = "ErrImagePull";
/// Waiting: the image pull is in back-off.
pub const IMAGE_PULL_BACK_OFF: &str = "ImagePullBackOff";
/// Waiting: the image is absent and the pull policy is `Never`.
pub const ERR_IMAGE_NEVER_PULL: &str = "ErrImageNeverPull";
/// Waiting: a `ConfigMap`, `Secret` or key the container needs is missing.
pub const CREATE_CONTAINER_CONFIG_ERROR: &str = "CreateContainerConfigError";

/// The default waiting reason of a container not yet created
/// (`convertToAPIContainerStatuses`: `PodInitializing` when the pod has init containers).
pub fn default_waiting_reason(pod_has_init_containers: bool) -> &'static str {
    if pod_has_init_containers {
        POD_INITIALIZING
    } else {
        CONTAINER_CREATING
    }
}

/// The terminated reason the runtime reports (containerd): `OOMKilled` when the
/// kernel killed it for memory, `Completed` for exit 0, else `Error`.
pub fn terminated_reason(exit_code: i32, oom_killed: bool) -> &'static str {
    if oom_killed {
        "OOMKilled"
    } else if exit_code == 0 {
        "Completed"
    } else {
        "Error"
    }
}

/// Whether `container` is a sidecar: an init container with `restartPolicy: Always`
/// (`IsRestartableInitContainer`).
pub fn is_sidecar(init_container: &Container) -> bool {
    init_container.restart_policy.as_deref() == Some("Always")
}

/// `ContainerShouldRestart`: the container's restart rules in order (a matching
/// `Restart` rule restarts), then its own `restartPolicy`, then the pod's.
pub fn should_restart(container: &Container, pod_restart_policy: &str, exit_code: i32) -> bool {
    if let Some(policy) = container.restart_policy.as_deref() {
        let matched = container
            .restart_policy_rules
            .iter()
            .flatten()
            .find(|rule| {
                rule.exit_codes.as_ref().is_some_and(|codes| {
                    let listed = codes.values.iter().flatten().any(|c| *c == exit_code);
                    match codes.operator.as_str() {
                        "In" => listed,
                        "NotIn" => !listed,
                        _ => false,
                    }
                })
            });
        if matched.is_some_and(|rule| rule.action == "Restart") {
            return true;
        }
        match policy {
            "Always" => return true,
            "OnFailure" => return exit_code != 0,
            "Never" => return false,
            _ => {}
        }
    }
    match pod_restart_policy {
        "OnFailure" => exit_code != 0,
        "Never" => false,
        _ => true,
    }
}

/// `IsContainerRestartable`: can the container be restarted at all (for a probe
/// failure: "will be restarted")?
pub fn is_restartable(container: &Container, pod_restart_policy: &str) -> bool {
    if let Some(policy) = container.restart_policy.as_deref() {
        if container
            .restart_policy_rules
            .iter()
            .flatten()
            .any(|rule| rule.action == "Restart")
        {
            return true;
        }
        return policy != "Never";
    }
    pod_restart_policy != "Never"
}

/// Why the kubelet kills a running container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KillReason {
    LivenessProbe,
    StartupProbe,
    /// The pod is being deleted or the kubelet stops it.
    Stop,
}

/// The `Killing` (Normal) event message (`computePodActions`, `killContainer`):
/// `Container app failed liveness probe, will be restarted`, or
/// `Stopping container app`.
pub fn kill_message(container: &str, reason: KillReason, restart: bool) -> String {
    let message = match reason {
        KillReason::LivenessProbe => format!("Container {container} failed liveness probe"),
        KillReason::StartupProbe => format!("Container {container} failed startup probe"),
        KillReason::Stop => return format!("Stopping container {container}"),
    };
    if restart {
        format!("{message}, will be restarted")
    } else {
        message
    }
}

/// The `Failed` (Warning) event of a container that could not be created or
/// started: `Error: configmap "app-config" not found`.
pub fn error_event(message: &str) -> String {
    format!("Error: {message}")
}

/// What a container's configuration refers to and the cluster lacks
/// (`makeEnvironmentVariables` in `pkg/kubelet/kubelet_pods.go`); the message
/// of the `CreateContainerConfigError` waiting state and of its `Error: ...` event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MissingConfig<'a> {
    ConfigMap {
        name: &'a str,
    },
    Secret {
        name: &'a str,
    },
    ConfigMapKey {
        namespace: &'a str,
        name: &'a str,
        key: &'a str,
    },
    SecretKey {
        namespace: &'a str,
        name: &'a str,
        key: &'a str,
    },
}

/// `configmap "app-config" not found`, `couldn't find key mode in ConfigMap default/app-config`.
pub fn config_error_message(missing: &MissingConfig<'_>) -> String {
    match missing {
        MissingConfig::ConfigMap { name } => format!("configmap \"{name}\" not found"),
        MissingConfig::Secret { name } => format!("secret \"{name}\" not found"),
        MissingConfig::ConfigMapKey {
            namespace,
            name,
            key,
        } => format!("couldn't find key {key} in ConfigMap {namespace}/{name}"),
        MissingConfig::SecretKey {
            namespace,
            name,
            key,
        } => format!("couldn't find key {key} in Secret {namespace}/{name}"),
    }
}

/// What the runtime knows of one init container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InitState {
    /// Never started (or waiting for its first start).
    NotStarted,
    /// Running; `started` is whether its startup probe passed (or it has none).
    Running { started: bool },
    /// Its last run exited with this code.
    Exited { exit_code: i32 },
}

/// The next thing to do about the init containers (`computeInitContainerActions`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InitStep {
    /// Start (or restart) this init container; one at a time.
    Start(usize),
    /// Wait: an init container is running (or a sidecar has not started yet).
    Wait,
    /// Restart these exited sidecars, then go on as `then` says.
    RestartSidecars {
        sidecars: Vec<usize>,
        then: Box<InitStep>,
    },
    /// A regular init container failed and the pod's restartPolicy is `Never`: the pod fails.
    Failed(usize),
    /// Every regular init container completed and every sidecar started: start
    /// the regular containers.
    Done,
}

/// Decides the next init step for `init` (each container with its state), given
/// the pod's `restartPolicy`. Failed regular init containers are restarted
/// (subject to the restart back-off) unless the policy is `Never`.
pub fn next_init_step(init: &[(&Container, InitState)], pod_restart_policy: &str) -> InitStep {
    let mut sidecars = Vec::new();
    let mut step = InitStep::Done;
    for (i, (container, state)) in init.iter().enumerate() {
        let sidecar = is_sidecar(container);
        match (state, sidecar) {
            (InitState::NotStarted, _) => {
                step = InitStep::Start(i);
                break;
            }
            (InitState::Running { started: true }, true)
            | (InitState::Exited { exit_code: 0 }, false) => {}
            (InitState::Running { .. }, _) => {
                step = InitStep::Wait;
                break;
            }
            (InitState::Exited { .. }, true) => sidecars.push(i),
            (InitState::Exited { exit_code }, false) => {
                step = if pod_restart_policy == "Never" {
                    InitStep::Failed(i)
                } else if should_restart(container, pod_restart_policy, *exit_code) {
                    InitStep::Start(i)
                } else {
                    InitStep::Failed(i)
                };
                break;
            }
        }
    }
    if sidecars.is_empty() {
        step
    } else {
        InitStep::RestartSidecars {
            sidecars,
            then: Box::new(step),
        }
    }
}

/// `kubectl get`'s `Init:N/M` count: how many init containers are done (regular
/// ones completed, sidecars started) before the first that is not.
pub fn init_done_count(init: &[(&Container, InitState)]) -> usize {
    init.iter()
        .take_while(|(c, state)| match state {
            InitState::Exited { exit_code: 0 } => !is_sidecar(c),
            InitState::Running { started } => is_sidecar(c) && *started,
            _ => false,
        })
        .count()
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::{ContainerRestartRule, ContainerRestartRuleOnExitCodes};

    use super::*;

    type Row<'a> = (Vec<(&'a Container, InitState)>, &'a str, InitStep);

    fn plain(name: &str) -> Container {
        Container {
            name: name.into(),
            ..Container::default()
        }
    }

    fn with_policy(name: &str, policy: &str) -> Container {
        Container {
            restart_policy: Some(policy.into()),
            ..plain(name)
        }
    }

    fn with_rule(policy: &str, operator: &str, codes: &[i32]) -> Container {
        Container {
            restart_policy_rules: Some(vec![ContainerRestartRule {
                action: "Restart".into(),
                exit_codes: Some(ContainerRestartRuleOnExitCodes {
                    operator: operator.into(),
                    values: Some(codes.to_vec()),
                }),
            }]),
            ..with_policy("app", policy)
        }
    }

    #[test]
    fn restart_decisions() {
        // pkg/api/v1/pod/util_test.go, TestContainerShouldRestart; and
        // kuberuntime_manager_test.go, TestComputePodActions (restart policy rows).
        let rows: Vec<(Container, &str, i32, bool)> = vec![
            (plain("app"), "Always", 0, true),
            (plain("app"), "Always", 1, true),
            (plain("app"), "OnFailure", 0, false),
            (plain("app"), "OnFailure", 137, true),
            (plain("app"), "Never", 1, false),
            (with_policy("app", "Never"), "Always", 1, false),
            (with_policy("app", "OnFailure"), "Never", 1, true),
            (with_policy("app", "Always"), "Never", 0, true),
            (with_rule("Never", "In", &[42]), "Never", 42, true),
            (with_rule("Never", "In", &[42]), "Never", 1, false),
            (with_rule("Never", "NotIn", &[0]), "Always", 0, false),
            (with_rule("Never", "NotIn", &[0]), "Always", 3, true),
        ];
        for (i, (container, pod_policy, code, want)) in rows.into_iter().enumerate() {
            assert_eq!(
                should_restart(&container, pod_policy, code),
                want,
                "row {i}"
            );
        }
        assert!(is_restartable(&plain("a"), "OnFailure"));
        assert!(!is_restartable(&plain("a"), "Never"));
        assert!(is_restartable(&with_rule("Never", "In", &[1]), "Never"));
        assert!(!is_restartable(&with_policy("a", "Never"), "Always"));
    }

    #[test]
    fn reasons_and_messages() {
        assert_eq!(terminated_reason(0, false), "Completed");
        assert_eq!(terminated_reason(1, false), "Error");
        assert_eq!(terminated_reason(137, true), "OOMKilled");
        assert_eq!(default_waiting_reason(false), "ContainerCreating");
        assert_eq!(default_waiting_reason(true), "PodInitializing");
        assert_eq!(
            kill_message("liveness", KillReason::LivenessProbe, true),
            "Container liveness failed liveness probe, will be restarted"
        );
        assert_eq!(
            kill_message("app", KillReason::StartupProbe, false),
            "Container app failed startup probe"
        );
        assert_eq!(
            kill_message("app", KillReason::Stop, false),
            "Stopping container app"
        );
        assert_eq!(
            error_event(&config_error_message(&MissingConfig::ConfigMap {
                name: "app-config"
            })),
            "Error: configmap \"app-config\" not found"
        );
        let rows = [
            (
                MissingConfig::Secret { name: "db" },
                "secret \"db\" not found",
            ),
            (
                MissingConfig::ConfigMapKey {
                    namespace: "default",
                    name: "app-config",
                    key: "mode",
                },
                "couldn't find key mode in ConfigMap default/app-config",
            ),
            (
                MissingConfig::SecretKey {
                    namespace: "default",
                    name: "db",
                    key: "password",
                },
                "couldn't find key password in Secret default/db",
            ),
        ];
        for (missing, want) in rows {
            assert_eq!(config_error_message(&missing), want);
        }
    }

    #[test]
    #[allow(clippy::too_many_lines)] // upstream's table, case by case
    fn init_sequencing() {
        use InitState::{Exited, NotStarted, Running};
        // kuberuntime_manager_test.go, TestComputePodActionsWithInitContainers and
        // TestComputePodActionsWithRestartableInitContainers (simplified rows).
        let a = plain("init-a");
        let b = plain("init-b");
        let side = with_policy("sidecar", "Always");
        let rows: Vec<Row<'_>> = vec![
            (vec![], "Always", InitStep::Done),
            (
                vec![(&a, NotStarted), (&b, NotStarted)],
                "Always",
                InitStep::Start(0),
            ),
            (
                vec![(&a, Running { started: true }), (&b, NotStarted)],
                "Always",
                InitStep::Wait,
            ),
            (
                vec![(&a, Exited { exit_code: 0 }), (&b, NotStarted)],
                "Always",
                InitStep::Start(1),
            ),
            (
                vec![(&a, Exited { exit_code: 0 }), (&b, Exited { exit_code: 0 })],
                "Never",
                InitStep::Done,
            ),
            (
                vec![(&a, Exited { exit_code: 1 }), (&b, NotStarted)],
                "OnFailure",
                InitStep::Start(0),
            ),
            (
                vec![(&a, Exited { exit_code: 1 }), (&b, NotStarted)],
                "Never",
                InitStep::Failed(0),
            ),
            (
                vec![(&side, Running { started: false }), (&a, NotStarted)],
                "Always",
                InitStep::Wait,
            ),
            (
                vec![(&side, Running { started: true }), (&a, NotStarted)],
                "Always",
                InitStep::Start(1),
            ),
            (
                vec![
                    (&side, Running { started: true }),
                    (&a, Exited { exit_code: 0 }),
                ],
                "Never",
                InitStep::Done,
            ),
            (
                vec![
                    (&side, Exited { exit_code: 1 }),
                    (&a, Exited { exit_code: 0 }),
                ],
                "Never",
                InitStep::RestartSidecars {
                    sidecars: vec![0],
                    then: Box::new(InitStep::Done),
                },
            ),
        ];
        for (i, (init, policy, want)) in rows.into_iter().enumerate() {
            assert_eq!(next_init_step(&init, policy), want, "row {i}");
        }
        assert_eq!(
            init_done_count(&[
                (&a, Exited { exit_code: 0 }),
                (&b, Running { started: true })
            ]),
            1
        );
        assert_eq!(
            init_done_count(&[(&side, Running { started: true }), (&a, NotStarted)]),
            1
        );
    }
}
