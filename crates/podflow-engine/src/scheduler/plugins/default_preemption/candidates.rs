//! Which nodes preemption tries, and how many (`preemption/preemption.go`,
//! `findCandidates`, `DryRunPreemption`; `default_preemption.go`,
//! `PodEligibleToPreemptOthers`, `calculateNumCandidates`,
//! `GetOffsetAndNumCandidates`).
//!
//! Upstream dry-runs the nodes in parallel and stops once enough candidates
//! are found; podflow walks them in order from the offset, one at a time, so a
//! run is deterministic.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::jiff::Timestamp;

use super::victims::{
    Fits, Victims, is_preemption_allowed, pod_terminating_by_preemption, select_victims_on_node,
};
use crate::apiserver::validation::go_quote;
use crate::rng::Rng;
use crate::scheduler::framework::{Code, NodeInfo, Status};

/// `DefaultPreemptionArgs.MinCandidateNodesPercentage` (default 10).
pub const MIN_CANDIDATE_NODES_PERCENTAGE: usize = 10;
/// `DefaultPreemptionArgs.MinCandidateNodesAbsolute` (default 100).
pub const MIN_CANDIDATE_NODES_ABSOLUTE: usize = 100;

/// A node preemption could free for the preemptor, with what it would cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub node: String,
    pub victims: Victims,
}

/// `PodEligibleToPreemptOthers`: `Err` carries the reason a pod may not preempt.
/// `nominated_status` is the Filter status of the pod's nominated node (when
/// it has one), `nodes` every node.
pub fn pod_eligible_to_preempt_others(
    pod: &Pod,
    nominated_status: Option<&Status>,
    nodes: &[NodeInfo],
) -> Result<(), &'static str> {
    let spec = pod.spec.as_ref();
    if spec.and_then(|s| s.preemption_policy.as_deref()) == Some("Never") {
        return Err("not eligible due to preemptionPolicy=Never.");
    }
    let nominated = pod
        .status
        .as_ref()
        .and_then(|s| s.nominated_node_name.as_deref())
        .unwrap_or_default();
    if nominated.is_empty() {
        return Ok(());
    }
    // A nominated node the filters now rule out entirely may be replaced.
    if nominated_status.is_some_and(|s| s.code == Code::UnschedulableAndUnresolvable) {
        return Ok(());
    }
    if let Some(node) = nodes.iter().find(|n| n.name() == nominated)
        && node
            .pods
            .iter()
            .any(|p| is_preemption_allowed(p, pod) && pod_terminating_by_preemption(p))
    {
        return Err("not eligible due to a terminating pod on the nominated node.");
    }
    Ok(())
}

/// `calculateNumCandidates`: 10% of the nodes, at least 100, at most all.
pub fn calculate_num_candidates(num_nodes: usize) -> usize {
    (num_nodes * MIN_CANDIDATE_NODES_PERCENTAGE / 100)
        .max(MIN_CANDIDATE_NODES_ABSOLUTE)
        .min(num_nodes)
}

/// `GetOffsetAndNumCandidates`: a random start among the potential nodes
/// (from podflow's seeded random source) and how many candidates to find.
pub fn get_offset_and_num_candidates(num_nodes: usize, rng: &mut Rng) -> (usize, usize) {
    let offset = if num_nodes == 0 {
        0
    } else {
        usize::try_from(rng.below(num_nodes as u64)).unwrap_or(0)
    };
    (offset, calculate_num_candidates(num_nodes))
}

/// The nodes whose Filter status has code `Unschedulable`
/// (`NodeToStatus.NodesForStatusCode`); a node missing from `statuses` has `absent`.
pub fn potential_nodes<'a>(
    nodes: &'a [NodeInfo],
    statuses: &BTreeMap<String, Status>,
    absent: &Status,
) -> Vec<&'a NodeInfo> {
    nodes
        .iter()
        .filter(|n| statuses.get(n.name()).unwrap_or(absent).code == Code::Unschedulable)
        .collect()
}

/// What `DryRunPreemption` found: the candidates (those violating no
/// `PodDisruptionBudget` first), each node's status where it is no candidate,
/// and the errors met.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DryRun {
    pub candidates: Vec<Candidate>,
    pub statuses: BTreeMap<String, Status>,
    pub errors: Vec<String>,
}

/// `DryRunPreemption`: selects victims node by node from `offset` (wrapping),
/// until a non-violating candidate is found and `num_candidates` are.
pub fn dry_run_preemption(
    pod: &Pod,
    potential: &[&NodeInfo],
    offset: usize,
    num_candidates: usize,
    now: Timestamp,
    fits: &Fits<'_>,
) -> DryRun {
    let mut non_violating = Vec::new();
    let mut violating = Vec::new();
    let mut out = DryRun::default();
    for i in 0..potential.len() {
        if !non_violating.is_empty() && non_violating.len() + violating.len() >= num_candidates {
            break;
        }
        let node = potential[(offset + i) % potential.len()];
        let status = match select_victims_on_node(pod, node, now, fits) {
            Ok(victims) if !victims.pods.is_empty() => {
                let candidate = Candidate {
                    node: node.name().to_owned(),
                    victims,
                };
                if candidate.victims.num_pdb_violations == 0 {
                    non_violating.push(candidate);
                } else {
                    violating.push(candidate);
                }
                continue;
            }
            Ok(_) => Status::new(
                Code::Error,
                format!(
                    "expected at least one victim pod on node {}",
                    go_quote(node.name())
                ),
            ),
            Err(status) => status,
        };
        if status.code == Code::Error {
            out.errors.push(status.reasons.join(", "));
        }
        out.statuses.insert(node.name().to_owned(), status);
    }
    non_violating.truncate(num_candidates);
    violating.truncate(num_candidates);
    out.candidates = non_violating;
    out.candidates.extend(violating);
    out
}
