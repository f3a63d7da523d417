//! `PodTopologySpread` (`pkg/scheduler/framework/plugins/podtopologyspread/`):
//! spreads pods that match a selector across topology domains. Hard
//! (`DoNotSchedule`) constraints filter nodes; soft (`ScheduleAnyway`) ones
//! score them. In upstream's default profile (`apis/config/v1/default_plugins.go`)
//! it comes after `NodeResourcesFit` and the volume plugins and just before
//! `InterPodAffinity`, in filtering and in scoring, with weight 2.

mod common;
mod filtering;
mod scoring;
#[cfg(test)]
pub(crate) mod testing;

use k8s_openapi::api::core::v1::Pod;

use crate::scheduler::framework::{
    CycleState, FilterPlugin, NodeInfo, NodeScore, ScorePlugin, Snapshot, Status,
};

/// Filter reason when the skew would exceed `maxSkew` (`ErrReasonConstraintsNotMatch`).
pub const ERR_REASON_CONSTRAINTS_NOT_MATCH: &str =
    "node(s) didn't match pod topology spread constraints";
/// Filter reason when the node lacks a topology key (`ErrReasonNodeLabelNotMatch`).
pub const ERR_REASON_NODE_LABEL_NOT_MATCH: &str =
    "node(s) didn't match pod topology spread constraints (missing required label)";

/// The plugin's name (`names.PodTopologySpread`).
pub const NAME: &str = "PodTopologySpread";

/// Its weight in upstream's default profile.
pub const WEIGHT: i64 = 2;

pub struct PodTopologySpread;

impl FilterPlugin for PodTopologySpread {
    fn name(&self) -> &'static str {
        NAME
    }

    fn pre_filter(&self, pod: &Pod, nodes: &Snapshot<'_>, state: &mut CycleState) -> Status {
        filtering::pre_filter(pod, nodes.infos(), state)
    }

    fn filter(&self, state: &CycleState, pod: &Pod, node: &NodeInfo) -> Status {
        filtering::filter(state, pod, node)
    }
}

impl ScorePlugin for PodTopologySpread {
    fn name(&self) -> &'static str {
        NAME
    }

    fn pre_score(
        &self,
        pod: &Pod,
        feasible: &[&NodeInfo],
        all: &Snapshot<'_>,
        state: &mut CycleState,
    ) -> Status {
        scoring::pre_score(pod, feasible, all.infos(), state)
    }

    fn score(&self, state: &CycleState, pod: &Pod, node: &NodeInfo) -> i64 {
        scoring::score(state, pod, node)
    }

    fn normalize(&self, state: &CycleState, scores: &mut [NodeScore<'_>]) {
        scoring::normalize(state, scores);
    }
}
