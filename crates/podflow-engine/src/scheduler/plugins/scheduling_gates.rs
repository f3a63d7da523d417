//! `SchedulingGates` (`pkg/scheduler/framework/plugins/schedulinggates`): its
//! `PreEnqueue` keeps a Pod with `spec.schedulingGates` out of the active
//! queue; once the last gate is removed (an update of the Pod), the Pod is
//! queued and scheduled. The `PodScheduled=False`/`SchedulingGated`
//! condition is the API server's (`applySchedulingGatedCondition`).

use k8s_openapi::api::core::v1::Pod;

use crate::scheduler::framework::{Code, Status};

/// `PreEnqueue`: success, or `UnschedulableAndUnresolvable` with
/// `waiting for scheduling gates: [a b]`.
pub fn pre_enqueue(pod: &Pod) -> Status {
    let gates: Vec<&str> = pod
        .spec
        .as_ref()
        .and_then(|s| s.scheduling_gates.as_ref())
        .into_iter()
        .flatten()
        .map(|g| g.name.as_str())
        .collect();
    if gates.is_empty() {
        return Status::success();
    }
    Status::new(
        Code::UnschedulableAndUnresolvable,
        format!("waiting for scheduling gates: [{}]", gates.join(" ")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{PodSchedulingGate, PodSpec};

    /// `scheduling_gates_test.go`, `TestPreEnqueue`: no gates pass; gates refuse.
    #[test]
    fn gates_refuse_until_none_is_left() {
        let mut pod = Pod::default();
        assert!(pre_enqueue(&pod).is_success());
        pod.spec = Some(PodSpec {
            scheduling_gates: Some(vec![
                PodSchedulingGate { name: "foo".into() },
                PodSchedulingGate { name: "bar".into() },
            ]),
            ..PodSpec::default()
        });
        let status = pre_enqueue(&pod);
        assert_eq!(status.code, Code::UnschedulableAndUnresolvable);
        assert_eq!(status.reasons, ["waiting for scheduling gates: [foo bar]"]);
    }
}
