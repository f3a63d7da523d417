//! `DefaultPreemption`, the `PostFilter` plugin
//! (`pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go`
//! and `pkg/scheduler/framework/preemption/preemption.go`, `executor.go`), as
//! pure functions: given the pod, the nodes and their Filter statuses, it says
//! which node to nominate and which pods to evict there, or why preemption
//! cannot help, in upstream's words. The caller runs the profile's filters
//! (the `fits` closure) and makes the API calls.
//!
//! Not modelled: `PodDisruptionBudgets` (podflow serves none), extenders,
//! waiting (Permit) pods, pod groups, and the `PreFilter` extensions' `AddPod` /
//! `RemovePod` (the caller's `fits` decides what state its filters see).

mod candidates;
mod messages;
mod nomination;
mod pick;
mod victims;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::jiff::Timestamp;

pub use candidates::{
    Candidate, DryRun, MIN_CANDIDATE_NODES_ABSOLUTE, MIN_CANDIDATE_NODES_PERCENTAGE,
    calculate_num_candidates, dry_run_preemption, get_offset_and_num_candidates,
    pod_eligible_to_preempt_others, potential_nodes,
};
pub use messages::{
    EVENT_ACTION, EVENT_REASON, NOT_HELPFUL, disruption_target, disruption_target_patch,
    nodes_available, not_helpful, victim_event_message,
};
pub use nomination::{clear_nominated_node_patch, lower_priority_nominated_pods};
pub use pick::{
    earliest_start_of_highest_priority, pick_one_node_for_preemption, select_candidate,
};
pub use victims::{
    Fits, NO_VICTIMS, Victims, is_preemption_allowed, more_important_pod, pod_priority,
    pod_start_time, pod_terminating_by_preemption, select_victims_on_node, sort_by_importance,
    with_pods,
};

use crate::rng::Rng;
use crate::scheduler::framework::{NodeInfo, Status};

/// The plugin's name.
pub const NAME: &str = "DefaultPreemption";
/// `v1.PodReasonPreemptionByScheduler`, the victims' `DisruptionTarget` reason.
pub const PREEMPTION_BY_SCHEDULER: &str = "PreemptionByScheduler";

/// Everything `Preempt` reads.
pub struct PreemptInput<'a> {
    /// The preemptor, as the scheduler's cache holds it now.
    pub pod: &'a Pod,
    /// Every node of the snapshot, in the scheduler's order.
    pub nodes: &'a [NodeInfo],
    /// The Filter status of each node that failed (`Diagnosis.NodeToStatus`).
    pub statuses: &'a BTreeMap<String, Status>,
    /// The status of nodes missing from `statuses` (`UnschedulableAndUnresolvable`
    /// unless a `PreFilter` rejected the pod).
    pub absent: &'a Status,
    /// When `Preempt` runs: the start time of pods that have none.
    pub now: Timestamp,
    /// Runs the profile's Filter plugins for a pod on a node.
    pub fits: &'a Fits<'a>,
}

/// What `Preempt` decided.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Success: nominate `candidate.node` for the pod and evict `candidate.victims`
    /// (each: the `DisruptionTarget` patch, the delete, the `Preempted` event; then
    /// clear the nomination of lower-priority pods nominated to that node).
    Nominated(Candidate),
    /// Preemption cannot help now. `message` is the `PostFilter` status message
    /// (`preemption: ...`); `clear_nominated_node` whether the pod's
    /// `status.nominatedNodeName` must be cleared (a result naming no node).
    Unschedulable {
        message: String,
        clear_nominated_node: bool,
    },
    /// Something went wrong (`framework.Error`), with the `PostFilter` message.
    Error(String),
}

impl Outcome {
    /// What the scheduler's `FitError` appends after its own reasons (with a
    /// space before it), or `None` after a nomination (upstream then adds nothing).
    pub fn post_filter_message(&self) -> Option<&str> {
        match self {
            Outcome::Nominated(_) => None,
            Outcome::Unschedulable { message, .. } | Outcome::Error(message) => Some(message),
        }
    }
}

/// The plugin, for a profile's `PostFilter` list.
pub struct DefaultPreemption;

impl crate::scheduler::framework::PostFilterPlugin for DefaultPreemption {
    fn name(&self) -> &'static str {
        NAME
    }

    fn post_filter(&self, input: &PreemptInput<'_>, rng: &mut Rng) -> Outcome {
        preempt(input, rng)
    }
}

/// `DefaultPreemption.PostFilter` / `Evaluator.Preempt`: eligibility, the
/// candidates (dry run from a random offset drawn from `rng`), and the best of them.
pub fn preempt(input: &PreemptInput<'_>, rng: &mut Rng) -> Outcome {
    let prefixed = |message: &str| format!("preemption: {message}");
    let nominated = input
        .pod
        .status
        .as_ref()
        .and_then(|s| s.nominated_node_name.as_deref())
        .unwrap_or_default();
    let nominated_status =
        (!nominated.is_empty()).then(|| input.statuses.get(nominated).unwrap_or(input.absent));
    if let Err(why) = pod_eligible_to_preempt_others(input.pod, nominated_status, input.nodes) {
        return Outcome::Unschedulable {
            message: prefixed(why),
            clear_nominated_node: false,
        };
    }
    if input.nodes.is_empty() {
        return Outcome::Error(prefixed("no nodes available"));
    }
    let potential = potential_nodes(input.nodes, input.statuses, input.absent);
    let dry_run = if potential.is_empty() {
        DryRun::default()
    } else {
        let (offset, num) = get_offset_and_num_candidates(potential.len(), rng);
        dry_run_preemption(input.pod, &potential, offset, num, input.now, input.fits)
    };
    if dry_run.candidates.is_empty() {
        if !dry_run.errors.is_empty() {
            let joined = match dry_run.errors.as_slice() {
                [one] => one.clone(),
                many => format!("[{}]", many.join(", ")),
            };
            return Outcome::Error(prefixed(&joined));
        }
        let message = nodes_available(input.nodes.len(), &dry_run.statuses, &not_helpful());
        return Outcome::Unschedulable {
            message: prefixed(&message),
            clear_nominated_node: true,
        };
    }
    match select_candidate(&dry_run.candidates, input.now) {
        Some(best) => Outcome::Nominated(best.clone()),
        None => Outcome::Unschedulable {
            message: prefixed("no candidate node for preemption"),
            clear_nominated_node: false,
        },
    }
}
