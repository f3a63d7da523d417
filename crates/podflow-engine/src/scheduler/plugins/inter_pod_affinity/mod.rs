//! `InterPodAffinity` (`pkg/scheduler/framework/plugins/interpodaffinity/`):
//! required pod affinity and anti-affinity filter nodes (the incoming pod's
//! terms against existing pods, and existing pods' required anti-affinity
//! against the incoming pod); preferred terms of both sides, and existing
//! pods' required affinity at `hardPodAffinityWeight` 1, score them. In
//! upstream's default profile it follows `PodTopologySpread` in filtering and
//! scoring, with weight 2.
//!
//! Namespace selectors see each namespace's `kubernetes.io/metadata.name`
//! label only (podflow's scheduler has no namespace lister).

mod filtering;
mod scoring;
pub(crate) mod terms;
#[cfg(test)]
pub(crate) mod testing;

use k8s_openapi::api::core::v1::Pod;

use crate::scheduler::framework::{
    CycleState, FilterPlugin, NodeInfo, NodeScore, ScorePlugin, Snapshot, Status,
};

/// `ErrReasonAffinityRulesNotMatch`.
pub const ERR_REASON_AFFINITY_RULES_NOT_MATCH: &str = "node(s) didn't match pod affinity rules";
/// `ErrReasonAntiAffinityRulesNotMatch`.
pub const ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH: &str =
    "node(s) didn't match pod anti-affinity rules";
/// `ErrReasonExistingAntiAffinityRulesNotMatch`.
pub const ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH: &str =
    "node(s) didn't satisfy existing pods anti-affinity rules";

/// The plugin's name (`names.InterPodAffinity`).
pub const NAME: &str = "InterPodAffinity";

/// Its weight in upstream's default profile.
pub const WEIGHT: i64 = 2;

/// `InterPodAffinityArgs.HardPodAffinityWeight`'s default.
pub const HARD_POD_AFFINITY_WEIGHT: i32 = 1;

pub struct InterPodAffinity;

impl FilterPlugin for InterPodAffinity {
    fn name(&self) -> &'static str {
        NAME
    }

    fn pre_filter(&self, pod: &Pod, nodes: &Snapshot<'_>, state: &mut CycleState) -> Status {
        filtering::pre_filter(pod, nodes, state)
    }

    fn filter(&self, state: &CycleState, pod: &Pod, node: &NodeInfo) -> Status {
        filtering::filter(state, pod, node)
    }
}

impl ScorePlugin for InterPodAffinity {
    fn name(&self) -> &'static str {
        NAME
    }

    fn pre_score(
        &self,
        pod: &Pod,
        _feasible: &[&NodeInfo],
        all: &Snapshot<'_>,
        state: &mut CycleState,
    ) -> Status {
        scoring::pre_score(pod, all, state)
    }

    fn score(&self, state: &CycleState, _pod: &Pod, node: &NodeInfo) -> i64 {
        scoring::score(state, node)
    }

    fn normalize(&self, state: &CycleState, scores: &mut [NodeScore<'_>]) {
        scoring::normalize(state, scores);
    }
}
