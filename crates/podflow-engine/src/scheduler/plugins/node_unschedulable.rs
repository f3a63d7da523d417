//! `NodeUnschedulable` (`pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go`):
//! a cordoned node takes only pods that tolerate `node.kubernetes.io/unschedulable:NoSchedule`.

use k8s_openapi::api::core::v1::{Pod, Taint};

use super::taint_toleration::tolerates;
use crate::scheduler::cycle_filter::{retain_passing, unresolvable_unless};
use crate::scheduler::framework::{
    CycleFilter, CycleState, FilterPlugin, NodeFilter, NodeInfo, Status,
};

/// Upstream's `ErrReasonUnschedulable`.
pub const REASON: &str = "node(s) were unschedulable";

pub struct NodeUnschedulable;

impl FilterPlugin for NodeUnschedulable {
    fn name(&self) -> &'static str {
        "NodeUnschedulable"
    }

    fn filter(&self, _state: &CycleState, pod: &Pod, node: &NodeInfo) -> Status {
        Cordon::of(pod).verdict(node)
    }

    /// Whether the pod tolerates a cordon, worked out once a cycle.
    fn cycle_filter<'a>(&'a self, _state: &'a CycleState, pod: &'a Pod) -> NodeFilter<'a> {
        Box::new(Cordon::of(pod))
    }
}

/// The Filter for one pod: whether it tolerates a cordoned node.
struct Cordon {
    tolerated: bool,
}

impl Cordon {
    fn of(pod: &Pod) -> Cordon {
        Cordon {
            tolerated: tolerates_unschedulable(pod),
        }
    }
}

impl CycleFilter for Cordon {
    fn verdict(&self, node: &NodeInfo) -> Status {
        unresolvable_unless(self.passes(node), REASON)
    }

    fn passes(&self, node: &NodeInfo) -> bool {
        !node.unschedulable() || self.tolerated
    }

    /// A pod that tolerates a cordon passes everywhere: the batch is kept as it is.
    fn retain<'n>(
        &self,
        nodes: &mut Vec<&'n NodeInfo>,
        failed: &mut dyn FnMut(&'n NodeInfo, Status),
    ) {
        if !self.tolerated {
            retain_passing(self, nodes, failed);
        }
    }
}

/// Whether the pod tolerates `node.kubernetes.io/unschedulable:NoSchedule`
/// (`v1.TaintNodeUnschedulable`), the taint a cordoned node stands for.
pub fn tolerates_unschedulable(pod: &Pod) -> bool {
    let taint = Taint {
        key: "node.kubernetes.io/unschedulable".into(),
        effect: "NoSchedule".into(),
        ..Taint::default()
    };
    pod.spec
        .as_ref()
        .and_then(|s| s.tolerations.as_deref())
        .unwrap_or_default()
        .iter()
        .any(|t| tolerates(t, &taint))
}
