//! Each in-tree plugin's `EventsToRegister` with its `QueueingHintFn`s, one
//! function a plugin (upstream keeps them in the plugin's own file, e.g.
//! `plugins/nodeunschedulable/node_unschedulable.go`): whether a cluster
//! event, or the rejected Pod's own update, may make a Pod the plugin
//! rejected schedulable. The registry names the function of each plugin.
//!
//! Simplified: the hints of `NodeUnschedulable`, `TaintToleration` and
//! `NodeAffinity` look at the changed node as upstream's do; the other plugins
//! answer from the event's type alone (upstream's hints look closer, e.g.
//! `NodeResourcesFit` asks whether the deleted pod freed enough).

use k8s_openapi::api::core::v1::{Node, Pod};

use super::events::ClusterEvent as E;
use super::plugins::node_unschedulable::tolerates_unschedulable;
use super::plugins::{node_affinity, taint_toleration};

/// A change turning a cordoned node into a schedulable one
/// (`isSchedulableAfterNodeChange`), or the Pod now tolerating the cordon
/// (`isSchedulableAfterTargetPodTolerationChange`).
pub fn node_unschedulable(event: &E, pod: &Pod) -> bool {
    match event {
        E::NodeAdd(node) => !is_unschedulable(node),
        E::NodeUpdate { old, node, changes } => {
            changes.taints && is_unschedulable(old) && !is_unschedulable(node)
        }
        E::UnscheduledPodUpdate { changes, .. } => {
            changes.tolerations && tolerates_unschedulable(pod)
        }
        _ => false,
    }
}

/// A node whose taints the Pod now tolerates, or a toleration added to the
/// Pod (`isSchedulableAfterPodTolerationChange`).
pub fn taint_toleration(event: &E, pod: &Pod) -> bool {
    match event {
        E::NodeAdd(node) => tolerates_node(pod, node),
        E::NodeUpdate { old, node, changes } => {
            changes.taints && !tolerates_node(pod, old) && tolerates_node(pod, node)
        }
        E::UnscheduledPodUpdate { changes, .. } => changes.tolerations,
        _ => false,
    }
}

/// A node whose labels now match the Pod's required node affinity.
pub fn node_affinity(event: &E, pod: &Pod) -> bool {
    match event {
        E::NodeAdd(node) => node_affinity::required_matches_node(pod, node),
        E::NodeUpdate { old, node, changes } => {
            changes.labels
                && !node_affinity::required_matches_node(pod, old)
                && node_affinity::required_matches_node(pod, node)
        }
        _ => false,
    }
}

/// A new node (the one the Pod names may have appeared).
pub fn node_name(event: &E, _pod: &Pod) -> bool {
    matches!(event, E::NodeAdd(_))
}

/// A new or changed node, or a deleted Pod freeing its ports.
pub fn node_ports(event: &E, _pod: &Pod) -> bool {
    matches!(
        event,
        E::NodeAdd(_) | E::NodeUpdate { .. } | E::AssignedPodDelete
    )
}

/// A new node, a deleted Pod, a bigger node, or the Pod asking for less. With
/// queueing hints on (the default), only a bigger node helps of the node
/// updates: `nodeActionType = Add | UpdateNodeAllocatable` (noderesources/fit.go).
pub fn node_resources_fit(event: &E, _pod: &Pod) -> bool {
    match event {
        E::NodeAdd(_) | E::AssignedPodDelete => true,
        E::NodeUpdate { changes, .. } => changes.allocatable,
        E::UnscheduledPodUpdate { changes, .. } => changes.scale_down,
        _ => false,
    }
}

/// Nodes and assigned Pods coming, going or relabelled, a node's taints, or
/// the Pod's own labels.
pub fn pod_topology_spread(event: &E, _pod: &Pod) -> bool {
    match event {
        E::NodeAdd(_)
        | E::NodeDelete
        | E::AssignedPodAdd
        | E::AssignedPodUpdate
        | E::AssignedPodDelete => true,
        E::NodeUpdate { changes, .. } => changes.labels || changes.taints,
        E::UnscheduledPodUpdate { changes, .. } => changes.labels,
        E::Storage(_) => false,
    }
}

/// A new or relabelled node, or assigned Pods coming, going or relabelled.
pub fn inter_pod_affinity(event: &E, _pod: &Pod) -> bool {
    match event {
        E::NodeAdd(_) | E::AssignedPodAdd | E::AssignedPodUpdate | E::AssignedPodDelete => true,
        E::NodeUpdate { changes, .. } => changes.labels,
        _ => false,
    }
}

/// `volumebinding.EventsToRegister`: claims, volumes, classes, new or relabelled nodes.
pub fn volume_binding(event: &E, _pod: &Pod) -> bool {
    match event {
        E::Storage(_) | E::NodeAdd(_) => true,
        E::NodeUpdate { changes, .. } => changes.labels,
        _ => false,
    }
}

fn is_unschedulable(node: &Node) -> bool {
    node.spec
        .as_ref()
        .and_then(|s| s.unschedulable)
        .unwrap_or(false)
}

/// Whether the pod tolerates every `NoSchedule`/`NoExecute` taint of the node.
fn tolerates_node(pod: &Pod, node: &Node) -> bool {
    let tolerations = pod
        .spec
        .as_ref()
        .and_then(|s| s.tolerations.as_deref())
        .unwrap_or_default();
    node.spec
        .as_ref()
        .and_then(|s| s.taints.as_deref())
        .unwrap_or_default()
        .iter()
        .filter(|t| t.effect == "NoSchedule" || t.effect == "NoExecute")
        .all(|taint| {
            tolerations
                .iter()
                .any(|t| taint_toleration::tolerates(t, taint))
        })
}
