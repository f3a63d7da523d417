//! `NodeResourcesBalancedAllocation` (`pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go`):
//! prefers nodes whose cpu and memory would be used in equal shares.

use k8s_openapi::api::core::v1::Pod;

use crate::engine::scheduler::framework::{CycleState, NodeInfo, ScorePlugin};

/// `framework.MaxNodeScore`, as the float the formula needs.
const MAX_SCORE: u8 = 100;
use crate::engine::scheduler::resources::pod_requests;

pub struct BalancedAllocation;

/// `(1 - std) * 100` of the cpu and memory fractions; for two resources the
/// standard deviation is half their difference.
pub fn balanced_score(cpu_fraction: f64, memory_fraction: f64) -> i64 {
    let cpu = cpu_fraction.min(1.0);
    let memory = memory_fraction.min(1.0);
    let std = (cpu - memory).abs() / 2.0;
    // Upstream truncates the float score to an integer (`int64((1 - std) * MaxNodeScore)`).
    #[allow(clippy::cast_possible_truncation)]
    let score = ((1.0 - std) * f64::from(MAX_SCORE)) as i64;
    score
}

impl ScorePlugin for BalancedAllocation {
    fn name(&self) -> &'static str {
        "NodeResourcesBalancedAllocation"
    }

    fn score(&self, _state: &CycleState, pod: &Pod, node: &NodeInfo) -> i64 {
        let want = pod_requests(pod, false);
        let fraction = |used: i64, cap: i64| {
            if cap == 0 {
                0.0
            } else {
                #[allow(clippy::cast_precision_loss)]
                let f = used as f64 / cap as f64;
                f
            }
        };
        balanced_score(
            fraction(
                node.requested.milli_cpu + want.milli_cpu,
                node.allocatable.milli_cpu,
            ),
            fraction(node.requested.memory + want.memory, node.allocatable.memory),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_shares_score_highest() {
        // balanced_allocation_test.go: cpu 3000/4000 = 0.75 and memory 5000/10000 = 0.5
        // give std 0.125 and score 87.
        assert_eq!(balanced_score(0.75, 0.5), 87);
        assert_eq!(balanced_score(0.5, 0.5), 100);
        assert_eq!(balanced_score(0.0, 0.0), 100);
    }
}
