//! What Filter and Score share (`podtopologyspread/common.go`): the pod's
//! constraints parsed, the node-inclusion policies, and the count of matching
//! pods on a node.

use k8s_openapi::api::core::v1::{Node, Pod};

use crate::scheduler::plugins::labels::{Labels, Selector, labels_of};
use crate::scheduler::plugins::node_affinity::required_matches_node;
use crate::scheduler::plugins::taint_toleration::tolerates;
use podflow_model::Shared;

/// `v1.LabelHostname`: per-node topology, counted node by node in Score.
pub const HOSTNAME: &str = "kubernetes.io/hostname";
/// `v1.DoNotSchedule`.
pub const DO_NOT_SCHEDULE: &str = "DoNotSchedule";
/// `v1.ScheduleAnyway`.
pub const SCHEDULE_ANYWAY: &str = "ScheduleAnyway";

/// `v1.NodeInclusionPolicy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InclusionPolicy {
    Honor,
    Ignore,
}

/// One constraint with its selector parsed (`topologySpreadConstraint`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Constraint {
    pub max_skew: i32,
    pub topology_key: String,
    pub selector: Selector,
    pub min_domains: i32,
    pub node_affinity_policy: InclusionPolicy,
    pub node_taints_policy: InclusionPolicy,
}

impl Constraint {
    /// `matchNodeInclusionPolicies`: whether `node` counts as a domain of this
    /// constraint, given the pod's required node affinity and tolerations.
    pub fn includes_node(&self, pod: &Pod, node: &Node) -> bool {
        if self.node_affinity_policy == InclusionPolicy::Honor && !required_matches_node(pod, node)
        {
            return false;
        }
        if self.node_taints_policy == InclusionPolicy::Honor && has_untolerated_taint(pod, node) {
            return false;
        }
        true
    }
}

/// The node's labels.
pub fn node_labels(node: &Node) -> &Labels {
    labels_of(node.metadata.labels.as_ref())
}

fn pod_labels(pod: &Pod) -> &Labels {
    labels_of(pod.metadata.labels.as_ref())
}

/// The pod's constraints with `whenUnsatisfiable == action`
/// (`filterTopologySpreadConstraints`, and `getConstraints`' fallback).
///
/// Without constraints of its own a pod gets upstream's system defaults
/// (hostname maxSkew 3 and zone maxSkew 5, `ScheduleAnyway`) only when a
/// selector can be built from the Services, `ReplicaSets`, `ReplicationControllers`
/// and `StatefulSets` that select it (`buildDefaultConstraints`,
/// `helper.DefaultSelector`); podflow's scheduler has no such listers, so the
/// selector is always empty and, as upstream does then, no default applies.
pub fn constraints(pod: &Pod, action: &str) -> Result<Vec<Constraint>, String> {
    let own = pod
        .spec
        .as_ref()
        .and_then(|s| s.topology_spread_constraints.as_deref())
        .unwrap_or_default();
    let mut result = Vec::new();
    for c in own.iter().filter(|c| c.when_unsatisfiable == action) {
        let mut selector = Selector::parse(c.label_selector.as_ref())?;
        let keys = c.match_label_keys.as_deref().unwrap_or_default();
        if !keys.is_empty() {
            let labels = pod_labels(pod);
            let set: Labels = keys
                .iter()
                .filter_map(|k| labels.get(k).map(|v| (k.clone(), v.clone())))
                .collect();
            if !set.is_empty() {
                selector = selector.merged_with_set(&set);
            }
        }
        let policy = |p: Option<&str>, default| match p {
            Some("Honor") => InclusionPolicy::Honor,
            Some("Ignore") => InclusionPolicy::Ignore,
            _ => default,
        };
        result.push(Constraint {
            max_skew: c.max_skew,
            topology_key: c.topology_key.clone(),
            selector,
            min_domains: c.min_domains.unwrap_or(1),
            node_affinity_policy: policy(c.node_affinity_policy.as_deref(), InclusionPolicy::Honor),
            node_taints_policy: policy(c.node_taints_policy.as_deref(), InclusionPolicy::Ignore),
        });
    }
    Ok(result)
}

/// Whether the pod has constraints of its own (any action).
pub fn has_own_constraints(pod: &Pod) -> bool {
    pod.spec
        .as_ref()
        .and_then(|s| s.topology_spread_constraints.as_ref())
        .is_some_and(|c| !c.is_empty())
}

/// `nodeLabelsMatchSpreadConstraints`: the node has every topology key.
pub fn has_all_topology_keys(labels: &Labels, constraints: &[Constraint]) -> bool {
    constraints
        .iter()
        .all(|c| labels.contains_key(&c.topology_key))
}

/// `countPodsMatchSelector`: pods in `namespace`, not terminating, that the
/// selector selects; an empty selector counts none.
pub fn count_matching(pods: &[Shared<Pod>], selector: &Selector, namespace: &str) -> i64 {
    if selector.is_empty() {
        return 0;
    }
    let count = pods
        .iter()
        .filter(|p| {
            p.metadata.deletion_timestamp.is_none()
                && p.metadata.namespace.as_deref().unwrap_or_default() == namespace
                && selector.matches(pod_labels(p))
        })
        .count();
    i64::try_from(count).unwrap_or(i64::MAX)
}

/// The pod's namespace.
pub fn namespace_of(pod: &Pod) -> &str {
    pod.metadata.namespace.as_deref().unwrap_or_default()
}

/// Whether the pod's labels are selected by `selector`.
pub fn selects_pod(selector: &Selector, pod: &Pod) -> bool {
    selector.matches(pod_labels(pod))
}

/// `v1helper.FindMatchingUntoleratedTaint` with `DoNotScheduleTaintsFilterFunc`:
/// a `NoSchedule` or `NoExecute` taint none of the pod's tolerations tolerates.
fn has_untolerated_taint(pod: &Pod, node: &Node) -> bool {
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
        .filter(|t| matches!(t.effect.as_str(), "NoSchedule" | "NoExecute"))
        .any(|taint| !tolerations.iter().any(|t| tolerates(t, taint)))
}
