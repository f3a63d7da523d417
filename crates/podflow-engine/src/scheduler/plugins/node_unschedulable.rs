//! `NodeUnschedulable` (`pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go`):
//! a cordoned node takes only pods that tolerate `node.kubernetes.io/unschedulable:NoSchedule`.

use k8s_openapi::api::core::v1::{Pod, Taint};

use super::taint_toleration::tolerates;
use crate::scheduler::framework::{Code, CycleState, FilterPlugin, NodeInfo, Status};

/// Upstream's `ErrReasonUnschedulable`.
pub const REASON: &str = "node(s) were unschedulable";

pub struct NodeUnschedulable;

impl FilterPlugin for NodeUnschedulable {
    fn name(&self) -> &'static str {
        "NodeUnschedulable"
    }

    fn filter(&self, _state: &CycleState, pod: &Pod, node: &NodeInfo) -> Status {
        if !node.unschedulable() || tolerates_unschedulable(pod) {
            Status::success()
        } else {
            Status::new(Code::UnschedulableAndUnresolvable, REASON)
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
