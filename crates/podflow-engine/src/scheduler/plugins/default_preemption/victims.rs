//! Which pods a node would have to lose for the preemptor to fit there
//! (`plugins/defaultpreemption/default_preemption.go`, `SelectVictimsOnNode`,
//! `isPreemptionAllowed`, `podTerminatingByPreemption`; `pkg/scheduler/util`,
//! `MoreImportantPod`, `GetPodStartTime`).
//!
//! podflow serves no `PodDisruptionBudgets`, so no victim ever violates one:
//! every potential victim is "non-violating" and `num_pdb_violations` is 0.

use std::cmp::Ordering;
use std::sync::Arc;

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::jiff::Timestamp;

use crate::scheduler::framework::{Code, NodeInfo, Status};
use podflow_model::Shared;

/// The reason a node with no lower-priority pods gets (`UnschedulableAndUnresolvable`).
pub const NO_VICTIMS: &str = "No preemption victims found for incoming pod";

/// How the integrator runs the profile's Filter plugins for `pod` on a node
/// (with victims removed): `Ok` when every filter passes, else the failing status.
pub type Fits<'a> = dyn Fn(&Pod, &NodeInfo) -> Result<(), Status> + 'a;

/// The pods to preempt on one node, most important first (`extenderv1.Victims`).
#[derive(Debug, Clone, PartialEq)]
pub struct Victims {
    pub pods: Vec<Shared<Pod>>,
    /// Victims whose eviction would violate a `PodDisruptionBudget` (always 0 in podflow).
    pub num_pdb_violations: i64,
}

/// `corev1helpers.PodPriority`: `spec.priority`, 0 when unset.
pub fn pod_priority(pod: &Pod) -> i32 {
    pod.spec.as_ref().and_then(|s| s.priority).unwrap_or(0)
}

/// `util.GetPodStartTime`: `status.startTime`, or `now` for a pod that has not started.
pub fn pod_start_time(pod: &Pod, now: Timestamp) -> Timestamp {
    pod.status
        .as_ref()
        .and_then(|s| s.start_time.as_ref())
        .map_or(now, |t| t.0)
}

/// `util.MoreImportantPod`: higher priority first; of equal priority, the one
/// that started earlier.
pub fn more_important_pod(a: &Pod, b: &Pod, now: Timestamp) -> bool {
    let (pa, pb) = (pod_priority(a), pod_priority(b));
    if pa != pb {
        return pa > pb;
    }
    pod_start_time(a, now) < pod_start_time(b, now)
}

/// Sorts most important first (stable, so equal pods keep their order; Go's
/// `sort.Slice` leaves that order unspecified).
pub fn sort_by_importance(pods: &mut [Shared<Pod>], now: Timestamp) {
    pods.sort_by(|a, b| {
        if more_important_pod(a, b, now) {
            Ordering::Less
        } else if more_important_pod(b, a, now) {
            Ordering::Greater
        } else {
            Ordering::Equal
        }
    });
}

/// `isPreemptionAllowed` with the default `IsEligiblePod`: the victim has a
/// lower priority than the preemptor.
pub fn is_preemption_allowed(victim: &Pod, preemptor: &Pod) -> bool {
    pod_priority(victim) < pod_priority(preemptor)
}

/// `podTerminatingByPreemption`: being deleted, with the scheduler's
/// `DisruptionTarget` condition.
pub fn pod_terminating_by_preemption(pod: &Pod) -> bool {
    if pod.metadata.deletion_timestamp.is_none() {
        return false;
    }
    pod.status
        .iter()
        .flat_map(|s| s.conditions.iter().flatten())
        .find(|c| c.type_ == "DisruptionTarget")
        .is_some_and(|c| {
            c.status == "True" && c.reason.as_deref() == Some(super::PREEMPTION_BY_SCHEDULER)
        })
}

/// `node` holding exactly `pods` (what `NodeInfo.RemovePod`/`AddPod` leave).
pub fn with_pods(node: &NodeInfo, pods: Vec<Shared<Pod>>) -> NodeInfo {
    NodeInfo::new(Arc::clone(&node.node), pods)
}

/// `SelectVictimsOnNode`: removes every lower-priority pod, checks the
/// preemptor fits, then gives back (reprieves) as many as still let it fit,
/// most important first. `Err` is the node's status when preemption cannot
/// help there: [`NO_VICTIMS`] (`UnschedulableAndUnresolvable`), or the filter
/// status with all lower-priority pods gone.
pub fn select_victims_on_node(
    pod: &Pod,
    node: &NodeInfo,
    now: Timestamp,
    fits: &Fits<'_>,
) -> Result<Victims, Status> {
    let (mut potential, mut kept): (Vec<Shared<Pod>>, Vec<Shared<Pod>>) = node
        .pods
        .iter()
        .cloned()
        .partition(|p| is_preemption_allowed(p, pod));
    if potential.is_empty() {
        return Err(Status::new(Code::UnschedulableAndUnresolvable, NO_VICTIMS));
    }
    fits(pod, &with_pods(node, kept.clone()))?;
    sort_by_importance(&mut potential, now);
    // With no PodDisruptionBudgets every potential victim is non-violating.
    let mut victims = Vec::new();
    for candidate in potential {
        kept.push(candidate.clone());
        if fits(pod, &with_pods(node, kept.clone())).is_err() {
            kept.pop();
            victims.push(candidate);
        }
    }
    Ok(Victims {
        pods: victims,
        num_pdb_violations: 0,
    })
}
