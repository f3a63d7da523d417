//! Cluster events (`pkg/scheduler/framework/types.go`,
//! `ClusterEvent`/`ActionType`) and whether one may make a waiting pod
//! schedulable again, asked of the queueing hints of the plugins that rejected
//! it (`queueing_hints`, through the registry), so that an unrelated event
//! leaves it waiting. A waiting pod's own update (a toleration added) is asked
//! of the same hints for that pod alone
//! (`pkg/scheduler/backend/queue/scheduling_queue.go`, `Update`).

use std::collections::BTreeSet;

use k8s_openapi::api::core::v1::{Node, Pod};

use super::registry;
use super::resources::pod_requests;

/// What happened, as the scheduler's event handlers classify it.
#[derive(Debug, Clone, PartialEq)]
pub enum ClusterEvent {
    /// A node appeared (`NodeAdd`).
    NodeAdd(Box<Node>),
    /// A node changed in ways that matter to scheduling (`NodeUpdate`):
    /// the node before and after.
    NodeUpdate {
        old: Box<Node>,
        node: Box<Node>,
        changes: NodeChanges,
    },
    /// A node went away (`NodeDelete`).
    NodeDelete,
    /// A pod was bound or appeared on a node (`AssignedPodAdd`).
    AssignedPodAdd,
    /// An assigned pod's labels changed (`AssignedPodUpdate`).
    AssignedPodUpdate,
    /// An assigned pod was deleted or finished, freeing its node (`AssignedPodDelete`).
    AssignedPodDelete,
    /// An unschedulable pod was itself updated (`PodSchedulingPropertiesChange`):
    /// its UID and what changed. Only the pod itself may move for it.
    UnscheduledPodUpdate { uid: String, changes: PodChanges },
    /// A `PersistentVolumeClaim`, `PersistentVolume` or `StorageClass` was
    /// added or changed (`PersistentVolumeClaimAdd`/`Update`, ...): the kind.
    Storage(&'static str),
}

/// The `ActionType`s of an unscheduled pod's own update
/// (`pkg/scheduler/framework/events.go`, `PodSchedulingPropertiesChange`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PodChanges {
    /// `UpdatePodToleration`: tolerations were added (the only change the API allows).
    pub tolerations: bool,
    /// `UpdatePodScaleDown`: some request went down or away (an in-place resize).
    pub scale_down: bool,
    /// `UpdatePodLabel`.
    pub labels: bool,
}

impl PodChanges {
    /// What changed between two versions of an unscheduled pod.
    pub fn between(old: &Pod, new: &Pod) -> PodChanges {
        let tolerations = |p: &Pod| p.spec.as_ref().and_then(|s| s.tolerations.clone());
        let (before, after) = (pod_requests(old, false), pod_requests(new, false));
        PodChanges {
            tolerations: tolerations(old) != tolerations(new),
            scale_down: before
                .names()
                .iter()
                .any(|name| after.get(name) < before.get(name)),
            labels: old.metadata.labels != new.metadata.labels,
        }
    }

    /// Whether scheduling cares about any of it.
    pub fn any(self) -> bool {
        self.tolerations || self.scale_down || self.labels
    }
}

/// The `ActionType`s of a node update (`nodeSchedulingPropertiesChange`).
#[allow(clippy::struct_excessive_bools)] // one flag per upstream action type
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NodeChanges {
    /// `UpdateNodeAllocatable`.
    pub allocatable: bool,
    /// `UpdateNodeLabel`.
    pub labels: bool,
    /// `UpdateNodeTaint` (taints, or `spec.unschedulable`).
    pub taints: bool,
    /// `UpdateNodeCondition`.
    pub conditions: bool,
}

impl NodeChanges {
    /// What changed between two versions of a node.
    pub fn between(old: &Node, new: &Node) -> NodeChanges {
        let spec = |n: &Node| n.spec.clone().unwrap_or_default();
        let status = |n: &Node| n.status.clone().unwrap_or_default();
        let condition_states = |n: &Node| -> Vec<(String, String)> {
            status(n)
                .conditions
                .unwrap_or_default()
                .into_iter()
                .map(|c| (c.type_, c.status))
                .collect()
        };
        NodeChanges {
            allocatable: status(old).allocatable != status(new).allocatable,
            labels: old.metadata.labels != new.metadata.labels,
            taints: spec(old).taints != spec(new).taints
                || spec(old).unschedulable != spec(new).unschedulable,
            conditions: condition_states(old) != condition_states(new),
        }
    }

    /// Whether scheduling cares about any of it.
    pub fn any(self) -> bool {
        self.allocatable || self.labels || self.taints || self.conditions
    }
}

impl ClusterEvent {
    /// The event's name as the queue's log names it: the resource and the
    /// action type (`ClusterEvent.Label`, `NodeUpdateNodeTaint`,
    /// `AssignedPodDelete`, `UnschedulablePodUpdatePodToleration`).
    pub fn label(&self) -> &'static str {
        match self {
            ClusterEvent::NodeAdd(_) => "NodeAdd",
            ClusterEvent::NodeUpdate { changes, .. } => {
                if changes.taints {
                    "NodeUpdateNodeTaint"
                } else if changes.labels {
                    "NodeUpdateNodeLabel"
                } else if changes.allocatable {
                    "NodeUpdateNodeAllocatable"
                } else {
                    "NodeUpdateNodeCondition"
                }
            }
            ClusterEvent::NodeDelete => "NodeDelete",
            ClusterEvent::AssignedPodAdd => "AssignedPodAdd",
            ClusterEvent::AssignedPodUpdate => "AssignedPodUpdatePodLabel",
            ClusterEvent::AssignedPodDelete => "AssignedPodDelete",
            ClusterEvent::UnscheduledPodUpdate { changes, .. } => {
                if changes.tolerations {
                    "UnschedulablePodUpdatePodToleration"
                } else if changes.scale_down {
                    "UnschedulablePodUpdatePodScaleDown"
                } else {
                    "UnschedulablePodUpdatePodLabel"
                }
            }
            ClusterEvent::Storage(kind) => kind,
        }
    }

    /// Whether this event may make `pod`, rejected by `plugins`, schedulable
    /// (`isPodWorthRequeuing`): yes if any rejecting plugin's queueing hint
    /// (found in the registry) says `Queue`. A pod no plugin rejected (an
    /// error, a refused binding) moves on every event.
    /// A pod's own update concerns that pod alone.
    pub fn may_help(&self, pod: &Pod, plugins: &BTreeSet<&'static str>) -> bool {
        if let ClusterEvent::UnscheduledPodUpdate { uid, .. } = self
            && pod.metadata.uid.as_ref() != Some(uid)
        {
            return false;
        }
        plugins.is_empty()
            || plugins.iter().any(|plugin| {
                registry::find(plugin)
                    .and_then(|p| p.queueing_hint)
                    .is_some_and(|hint| hint(self, pod))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn node(v: serde_json::Value) -> Node {
        serde_json::from_value(v).unwrap()
    }

    fn plain_pod() -> Pod {
        serde_json::from_value(json!({"metadata": {"name": "p"}, "spec": {"containers": []}}))
            .unwrap()
    }

    fn by(plugin: &'static str) -> BTreeSet<&'static str> {
        BTreeSet::from([plugin])
    }

    #[test]
    fn uncordon_helps_a_pod_nodeunschedulable_rejected() {
        let cordoned = node(json!({"metadata": {"name": "n"}, "spec": {"unschedulable": true}}));
        let uncordoned = node(json!({"metadata": {"name": "n"}, "spec": {}}));
        let changes = NodeChanges::between(&cordoned, &uncordoned);
        assert!(changes.taints && !changes.labels);
        let event = ClusterEvent::NodeUpdate {
            old: Box::new(cordoned.clone()),
            node: Box::new(uncordoned.clone()),
            changes,
        };
        assert_eq!(event.label(), "NodeUpdateNodeTaint");
        assert!(event.may_help(&plain_pod(), &by("NodeUnschedulable")));
        // A pod short of cpu waits on: the node's allocatable did not change.
        assert!(!event.may_help(&plain_pod(), &by("NodeResourcesFit")));
        // Cordoning does not help.
        let back = ClusterEvent::NodeUpdate {
            old: Box::new(uncordoned),
            node: Box::new(cordoned),
            changes,
        };
        assert!(!back.may_help(&plain_pod(), &by("NodeUnschedulable")));
    }

    #[test]
    fn a_new_node_helps_only_if_its_taints_are_tolerated() {
        let tainted = node(json!({"metadata": {"name": "n"}, "spec": {"taints": [
            {"key": "gpu", "value": "true", "effect": "NoSchedule"}]}}));
        let event = ClusterEvent::NodeAdd(Box::new(tainted));
        assert!(!event.may_help(&plain_pod(), &by("TaintToleration")));
        assert!(event.may_help(&plain_pod(), &by("NodeResourcesFit")));
    }

    fn pod_with(uid: &str, tolerations: &serde_json::Value, cpu: &str) -> Pod {
        serde_json::from_value(json!({"metadata": {"name": "p", "uid": uid}, "spec": {
            "tolerations": tolerations,
            "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}}))
        .unwrap()
    }

    #[test]
    fn a_pods_own_update_moves_that_pod_alone() {
        // The target-pod branches of the hints (`isSchedulableAfterPodTolerationChange`,
        // NodeUnschedulable's `isSchedulableAfterTargetPodTolerationChange`).
        let old = pod_with("u1", &json!([]), "1");
        let gpu = pod_with("u1", &json!([{"key": "gpu", "operator": "Exists"}]), "1");
        let changes = PodChanges::between(&old, &gpu);
        assert_eq!(
            changes,
            PodChanges {
                tolerations: true,
                ..PodChanges::default()
            }
        );
        let event = ClusterEvent::UnscheduledPodUpdate {
            uid: "u1".into(),
            changes,
        };
        assert_eq!(event.label(), "UnschedulablePodUpdatePodToleration");
        assert!(event.may_help(&gpu, &by("TaintToleration")));
        assert!(!event.may_help(&gpu, &by("NodeResourcesFit")));
        // Only a toleration of the cordon taint helps NodeUnschedulable.
        assert!(!event.may_help(&gpu, &by("NodeUnschedulable")));
        let cordon = pod_with(
            "u1",
            &json!([{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}]),
            "1",
        );
        assert!(event.may_help(&cordon, &by("NodeUnschedulable")));
        // Another waiting pod stays, even one no plugin rejected.
        let other = pod_with("u2", &json!([]), "1");
        assert!(!event.may_help(&other, &BTreeSet::new()));
        assert!(!event.may_help(&other, &by("TaintToleration")));
        // A smaller request is a scale-down; a status-only write changes nothing.
        let smaller = PodChanges::between(&old, &pod_with("u1", &json!([]), "500m"));
        assert!(smaller.scale_down && !smaller.tolerations);
        assert!(!PodChanges::between(&old, &old).any());
    }

    #[test]
    fn a_deleted_pod_helps_resources_but_not_affinity_to_nodes() {
        let event = ClusterEvent::AssignedPodDelete;
        assert!(event.may_help(&plain_pod(), &by("NodeResourcesFit")));
        assert!(!event.may_help(&plain_pod(), &by("NodeAffinity")));
        assert!(event.may_help(&plain_pod(), &BTreeSet::new()));
    }

    #[test]
    fn heartbeats_change_nothing_that_matters() {
        let a = node(json!({"metadata": {"name": "n"}, "status": {"conditions": [
            {"type": "Ready", "status": "True", "lastHeartbeatTime": "2026-11-30T02:20:30Z"}]}}));
        let b = node(json!({"metadata": {"name": "n"}, "status": {"conditions": [
            {"type": "Ready", "status": "True", "lastHeartbeatTime": "2026-11-30T02:21:30Z"}]}}));
        assert!(!NodeChanges::between(&a, &b).any());
    }
}
