//! The Pod status the kubelet reports (`pkg/kubelet/kubelet_pods.go`,
//! `generateAPIPodStatus`, `getPhase`; `pkg/kubelet/status/generate.go` for the
//! conditions), built from what the runtime has done so far.

use serde_json::{Value, json};

use crate::engine::clock::SimTime;

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
    pub transitions: &'a std::collections::BTreeMap<String, (bool, SimTime)>,
    /// Now, for conditions that have not been reported before.
    pub now: SimTime,
}

/// The phase by `getPhase`'s rules for pods without init containers:
/// Pending while any container waits (unless some ran), Running while one runs,
/// Succeeded/Failed once all have terminated (by restart policy and exit codes).
pub fn phase(containers: &[ContainerView], restart_policy: &str) -> &'static str {
    let mut waiting = 0;
    let mut running = 0;
    let mut succeeded = 0;
    let mut failed = 0;
    for c in containers {
        match &c.state {
            ContainerState::Waiting { .. } => waiting += 1,
            ContainerState::Running { .. } => running += 1,
            ContainerState::Terminated { exit_code: 0, .. } => succeeded += 1,
            ContainerState::Terminated { .. } => failed += 1,
        }
    }
    if waiting > 0 {
        return "Pending";
    }
    if running > 0 {
        return "Running";
    }
    if failed + succeeded == containers.len() && !containers.is_empty() {
        return match restart_policy {
            "Always" => "Running",
            "OnFailure" if failed > 0 => "Running",
            _ if failed > 0 => "Failed",
            _ => "Succeeded",
        };
    }
    "Pending"
}

fn condition(
    kind: &str,
    ok: bool,
    reason: Option<&str>,
    message: Option<String>,
    at: SimTime,
) -> Value {
    let mut c = json!({
        "type": kind,
        "status": if ok { "True" } else { "False" },
        "lastProbeTime": null,
        "lastTransitionTime": at.rfc3339(),
    });
    if let Some(r) = reason {
        c["reason"] = json!(r);
    }
    if let Some(m) = message {
        c["message"] = json!(m);
    }
    c
}

/// The `status` object the kubelet writes.
pub fn pod_status(view: &PodView<'_>) -> Value {
    let unready: Vec<&str> = view
        .containers
        .iter()
        .filter(|c| !matches!(c.state, ContainerState::Running { .. }))
        .map(|c| c.name.as_str())
        .collect();
    let ready = unready.is_empty();
    let unready_message =
        (!ready).then(|| format!("containers with unready status: [{}]", unready.join(" ")));
    let at = |kind: &str, _ok: bool| view.transitions.get(kind).map_or(view.now, |(_, t)| *t);
    let conditions = vec![
        condition(
            "PodReadyToStartContainers",
            view.sandbox_ready,
            None,
            None,
            at("PodReadyToStartContainers", view.sandbox_ready),
        ),
        condition("Initialized", true, None, None, at("Initialized", true)),
        condition(
            "Ready",
            ready,
            (!ready).then_some("ContainersNotReady"),
            unready_message.clone(),
            at("Ready", ready),
        ),
        condition(
            "ContainersReady",
            ready,
            (!ready).then_some("ContainersNotReady"),
            unready_message,
            at("ContainersReady", ready),
        ),
    ];
    let statuses: Vec<Value> = view.containers.iter().map(container_status).collect();
    let mut status = json!({
        "phase": phase(view.containers, view.restart_policy),
        "conditions": conditions,
        "hostIP": view.host_ip,
        "hostIPs": [{"ip": view.host_ip}],
        "startTime": view.start_time.rfc3339(),
        "containerStatuses": statuses,
    });
    if let Some(ip) = view.pod_ip {
        status["podIP"] = json!(ip);
        status["podIPs"] = json!([{"ip": ip}]);
    }
    if let Some(qos) = view.qos_class {
        status["qosClass"] = json!(qos);
    }
    status
}

fn container_status(c: &ContainerView) -> Value {
    let (state, ready, started) = match &c.state {
        ContainerState::Waiting { reason, message } => {
            let mut w = json!({"reason": reason});
            if let Some(m) = message {
                w["message"] = json!(m);
            }
            (json!({"waiting": w}), false, false)
        }
        ContainerState::Running { started_at } => (
            json!({"running": {"startedAt": started_at.rfc3339()}}),
            true,
            true,
        ),
        ContainerState::Terminated {
            exit_code,
            reason,
            started_at,
            finished_at,
        } => (
            json!({"terminated": {
                "exitCode": exit_code, "reason": reason,
                "startedAt": started_at.rfc3339(), "finishedAt": finished_at.rfc3339(),
                "containerID": c.container_id,
            }}),
            false,
            false,
        ),
    };
    let mut status = json!({
        "name": c.name,
        "image": c.image,
        "imageID": c.image_id.clone().unwrap_or_default(),
        "ready": ready,
        "started": started,
        "restartCount": c.restart_count,
        "state": state,
    });
    if let Some(id) = &c.container_id {
        status["containerID"] = json!(id);
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
