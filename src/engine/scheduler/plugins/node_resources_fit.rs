//! `NodeResourcesFit` (`pkg/scheduler/framework/plugins/noderesources/fit.go`,
//! `least_allocated.go`): a node fits when its allocatable resources cover what
//! its pods already request plus this pod's requests; scored by `LeastAllocated`.

use k8s_openapi::api::core::v1::Pod;

use crate::engine::scheduler::framework::{
    Code, CycleState, FilterPlugin, MAX_NODE_SCORE, NodeInfo, ScorePlugin, Status,
};
use crate::engine::scheduler::resources::pod_requests;

pub struct NodeResourcesFit;

/// The reasons a node does not fit, in upstream's order (`fitsRequest`).
pub fn insufficient(pod: &Pod, node: &NodeInfo) -> Vec<String> {
    let want = pod_requests(pod, false);
    let have = &node.allocatable;
    let used = &node.requested;
    let mut reasons = Vec::new();
    if used.pods + 1 > have.pods {
        reasons.push("Too many pods".to_owned());
    }
    if want.milli_cpu > 0 && want.milli_cpu > have.milli_cpu - used.milli_cpu {
        reasons.push("Insufficient cpu".to_owned());
    }
    if want.memory > 0 && want.memory > have.memory - used.memory {
        reasons.push("Insufficient memory".to_owned());
    }
    if want.ephemeral_storage > 0
        && want.ephemeral_storage > have.ephemeral_storage - used.ephemeral_storage
    {
        reasons.push("Insufficient ephemeral-storage".to_owned());
    }
    reasons
}

impl FilterPlugin for NodeResourcesFit {
    fn name(&self) -> &'static str {
        "NodeResourcesFit"
    }

    fn filter(&self, _state: &CycleState, pod: &Pod, node: &NodeInfo) -> Status {
        let reasons = insufficient(pod, node);
        if reasons.is_empty() {
            Status::success()
        } else {
            Status {
                code: Code::Unschedulable,
                reasons,
            }
        }
    }
}

/// `LeastAllocated`'s score of one resource: the share left free, 0..=100.
fn least_allocated(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 || requested > capacity {
        return 0;
    }
    (capacity - requested) * MAX_NODE_SCORE / capacity
}

impl ScorePlugin for NodeResourcesFit {
    fn name(&self) -> &'static str {
        "NodeResourcesFit"
    }

    /// `LeastAllocated` over cpu and memory, weight 1 each, with the non-zero request defaults.
    fn score(&self, _state: &CycleState, pod: &Pod, node: &NodeInfo) -> i64 {
        let want = pod_requests(pod, true);
        let cpu = least_allocated(
            node.non_zero_requested.milli_cpu + want.milli_cpu,
            node.allocatable.milli_cpu,
        );
        let memory = least_allocated(
            node.non_zero_requested.memory + want.memory,
            node.allocatable.memory,
        );
        i64::midpoint(cpu, memory)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_allocated_scores_the_free_share() {
        // pkg/scheduler/framework/plugins/noderesources/least_allocated_test.go:
        // "nothing scheduled, resources requested, differently sized nodes":
        // cpu (4000-3000)*100/4000 = 25, memory (10000-5000)*100/10000 = 50 → 37.
        assert_eq!(
            i64::midpoint(least_allocated(3000, 4000), least_allocated(5000, 10000)),
            37
        );
        assert_eq!(least_allocated(5000, 4000), 0);
        assert_eq!(least_allocated(0, 0), 0);
    }
}
