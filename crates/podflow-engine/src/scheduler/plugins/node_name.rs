//! `NodeName` (`pkg/scheduler/framework/plugins/nodename/node_name.go`): a pod
//! that names a node in `spec.nodeName` fits only there.

use k8s_openapi::api::core::v1::Pod;

use crate::scheduler::cycle_filter::{retain_passing, unresolvable_unless};
use crate::scheduler::framework::{
    CycleFilter, CycleState, FilterPlugin, NodeFilter, NodeInfo, Status,
};

/// Upstream's `ErrReason`.
pub const REASON: &str = "node(s) didn't match the requested node name";

pub struct NodeName;

impl FilterPlugin for NodeName {
    fn name(&self) -> &'static str {
        "NodeName"
    }

    fn filter(&self, _state: &CycleState, pod: &Pod, node: &NodeInfo) -> Status {
        Named::of(pod).verdict(node)
    }

    /// The pod's `spec.nodeName` read once a cycle.
    fn cycle_filter<'a>(&'a self, _state: &'a CycleState, pod: &'a Pod) -> NodeFilter<'a> {
        Box::new(Named::of(pod))
    }
}

/// The Filter for one pod: the node it names, if any (an empty name names none).
struct Named<'a> {
    wanted: Option<&'a str>,
}

impl Named<'_> {
    fn of(pod: &Pod) -> Named<'_> {
        let wanted = pod.spec.as_ref().and_then(|s| s.node_name.as_deref());
        Named {
            wanted: wanted.filter(|w| !w.is_empty()),
        }
    }
}

impl CycleFilter for Named<'_> {
    fn verdict(&self, node: &NodeInfo) -> Status {
        unresolvable_unless(self.passes(node), REASON)
    }

    fn passes(&self, node: &NodeInfo) -> bool {
        self.wanted.is_none_or(|wanted| wanted == node.name())
    }

    /// A pod that names no node passes everywhere: the batch is kept as it is.
    fn retain<'n>(
        &self,
        nodes: &mut Vec<&'n NodeInfo>,
        failed: &mut dyn FnMut(&'n NodeInfo, Status),
    ) {
        if self.wanted.is_some() {
            retain_passing(self, nodes, failed);
        }
    }
}
