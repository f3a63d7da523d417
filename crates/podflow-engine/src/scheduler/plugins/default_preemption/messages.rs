//! What preemption says and writes: the `FitError` text of its status
//! (`pkg/scheduler/framework/types.go`, `FitError.Error`), the victim's
//! `Preempted` event and its `DisruptionTarget` condition
//! (`preemption/executor.go`, `PreemptPod`; `pkg/api/v1/pod`,
//! `UpdatePodCondition`; `pkg/scheduler/util`, `PatchPodStatus`).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Pod, PodCondition, PodStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use serde_json::{Value, json};

use super::PREEMPTION_BY_SCHEDULER;
use crate::apiserver::strategic_merge_patch;
use crate::scheduler::framework::{Code, Status};

/// The status of the nodes preemption did not try (`SetAbsentNodesStatus`).
pub const NOT_HELPFUL: &str = "Preemption is not helpful for scheduling";
/// The victim's event reason.
pub const EVENT_REASON: &str = "Preempted";
/// The victim's event action (`events.k8s.io` `action`).
pub const EVENT_ACTION: &str = "Preempting";

/// The status of the nodes missing from preemption's node statuses.
pub fn not_helpful() -> Status {
    Status::new(Code::UnschedulableAndUnresolvable, NOT_HELPFUL)
}

/// `FitError.Error` when no `PreFilter` failed: `0/N nodes are available: ` and
/// each reason with the number of nodes that gave it, sorted as strings, each
/// node missing from `statuses` counted with `absent`'s reasons; then `.`.
pub fn nodes_available(
    num_all_nodes: usize,
    statuses: &BTreeMap<String, Status>,
    absent: &Status,
) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for status in statuses.values() {
        for reason in &status.reasons {
            *counts.entry(reason).or_default() += 1;
        }
    }
    let missing = num_all_nodes.saturating_sub(statuses.len());
    if missing > 0 {
        for reason in &absent.reasons {
            *counts.entry(reason).or_default() += missing;
        }
    }
    let mut reasons: Vec<String> = counts.iter().map(|(r, n)| format!("{n} {r}")).collect();
    reasons.sort();
    let mut message = format!("0/{num_all_nodes} nodes are available:");
    if !reasons.is_empty() {
        message.push(' ');
        message.push_str(&reasons.join(", "));
        message.push('.');
    }
    message
}

/// The victim's event message: `Preempted by pod UID on node NODE` (reported
/// by the scheduler, type `Normal`, regarding the victim, related to the preemptor).
pub fn victim_event_message(preemptor_uid: &str, node: &str) -> String {
    format!("Preempted by pod {preemptor_uid} on node {node}")
}

/// The `DisruptionTarget` condition the scheduler gives a victim before it
/// deletes it.
pub fn disruption_target(scheduler_name: &str, generation: Option<i64>, now: Time) -> PodCondition {
    PodCondition {
        type_: "DisruptionTarget".into(),
        status: "True".into(),
        reason: Some(PREEMPTION_BY_SCHEDULER.into()),
        message: Some(format!(
            "{scheduler_name}: preempting to accommodate a higher priority pod"
        )),
        observed_generation: generation.filter(|g| *g != 0),
        last_transition_time: Some(now),
        ..PodCondition::default()
    }
}

/// `UpdatePodCondition`: sets `condition` in `status`, keeping the transition
/// time when the status did not change; whether anything changed.
fn update_pod_condition(status: &mut PodStatus, mut condition: PodCondition) -> bool {
    let conditions = status.conditions.get_or_insert_with(Vec::new);
    let Some(old) = conditions.iter_mut().find(|c| c.type_ == condition.type_) else {
        conditions.push(condition);
        return true;
    };
    if old.status == condition.status {
        condition
            .last_transition_time
            .clone_from(&old.last_transition_time);
    }
    let changed = *old != condition;
    *old = condition;
    changed
}

/// The body of the strategic-merge patch to the victim's `status` subresource
/// that adds the `DisruptionTarget` condition (`PatchPodStatus`), or `None`
/// when the victim has it already.
pub fn disruption_target_patch(victim: &Pod, scheduler_name: &str, now: Time) -> Option<Value> {
    let old = victim.status.clone().unwrap_or_default();
    let mut new = old.clone();
    let condition = disruption_target(scheduler_name, victim.metadata.generation, now);
    if !update_pod_condition(&mut new, condition) {
        return None;
    }
    let as_pod = |status: &PodStatus| json!({"status": status});
    Some(strategic_merge_patch::two_way(
        strategic_merge_patch::root("Pod"),
        &as_pod(&old),
        &as_pod(&new),
    ))
}
