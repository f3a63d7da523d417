//! `NodeName` (`pkg/scheduler/framework/plugins/nodename/node_name.go`): a pod
//! that names a node in `spec.nodeName` fits only there.

use k8s_openapi::api::core::v1::Pod;

use crate::scheduler::framework::{Code, CycleState, FilterPlugin, NodeInfo, Status};

/// Upstream's `ErrReason`.
pub const REASON: &str = "node(s) didn't match the requested node name";

pub struct NodeName;

impl FilterPlugin for NodeName {
    fn name(&self) -> &'static str {
        "NodeName"
    }

    fn filter(&self, _state: &CycleState, pod: &Pod, node: &NodeInfo) -> Status {
        match pod.spec.as_ref().and_then(|s| s.node_name.as_deref()) {
            Some(wanted) if !wanted.is_empty() && wanted != node.name() => {
                Status::new(Code::UnschedulableAndUnresolvable, REASON)
            }
            _ => Status::success(),
        }
    }
}
