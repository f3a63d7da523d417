//! Test builders for scheduler plugins, after upstream's
//! `pkg/scheduler/testing/wrappers.go` (`MakePod`, `MakeNode`, `SpreadConstraint`).

use std::sync::Arc;

use k8s_openapi::api::core::v1::{
    Affinity, Node, NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, Pod,
    PodSpec, TopologySpreadConstraint,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{
    LabelSelector, LabelSelectorRequirement, ObjectMeta,
};

use crate::scheduler::framework::NodeInfo;
use crate::scheduler::plugins::labels::Labels;
use podflow_model::Shared;

fn set(pairs: &[(&str, &str)]) -> Labels {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

/// A node with these labels.
pub fn node(name: &str, labels: &[(&str, &str)]) -> Node {
    Node {
        metadata: ObjectMeta {
            name: Some(name.into()),
            labels: Some(set(labels)),
            ..ObjectMeta::default()
        },
        ..Node::default()
    }
}

/// A node labelled `zone=<zone>` and `node=<name>`.
pub fn zone_node(name: &str, zone: &str) -> Node {
    node(name, &[("zone", zone), ("node", name)])
}

/// A node labelled `kubernetes.io/hostname=<name>`.
pub fn host_node(name: &str) -> Node {
    node(name, &[("kubernetes.io/hostname", name)])
}

/// A pod in namespace `default` with these labels.
pub fn pod(name: &str, labels: &[(&str, &str)]) -> Pod {
    Pod {
        metadata: ObjectMeta {
            name: Some(name.into()),
            namespace: Some("default".into()),
            labels: Some(set(labels)),
            ..ObjectMeta::default()
        },
        spec: Some(PodSpec::default()),
        ..Pod::default()
    }
}

/// A pod bound to `node`.
pub fn pod_on(name: &str, node: &str, labels: &[(&str, &str)]) -> Pod {
    let mut p = pod(name, labels);
    if let Some(spec) = p.spec.as_mut() {
        spec.node_name = Some(node.into());
    }
    p
}

/// `MakeLabelSelector().Exists(key)`.
pub fn exists(key: &str) -> LabelSelector {
    LabelSelector {
        match_expressions: Some(vec![LabelSelectorRequirement {
            key: key.into(),
            operator: "Exists".into(),
            values: None,
        }]),
        ..LabelSelector::default()
    }
}

/// Appends a topology spread constraint.
pub fn spread(
    mut pod: Pod,
    max_skew: i32,
    key: &str,
    action: &str,
    selector: Option<LabelSelector>,
) -> Pod {
    let spec = pod.spec.get_or_insert_with(PodSpec::default);
    spec.topology_spread_constraints
        .get_or_insert_with(Vec::new)
        .push(TopologySpreadConstraint {
            max_skew,
            topology_key: key.into(),
            when_unsatisfiable: action.into(),
            label_selector: selector,
            ..TopologySpreadConstraint::default()
        });
    pod
}

/// `NodeAffinityIn(key, values, NodeAffinityWithRequiredReq)`.
pub fn with_node_affinity_in(mut pod: Pod, key: &str, values: &[&str]) -> Pod {
    let spec = pod.spec.get_or_insert_with(PodSpec::default);
    spec.affinity = Some(Affinity {
        node_affinity: Some(NodeAffinity {
            required_during_scheduling_ignored_during_execution: Some(NodeSelector {
                node_selector_terms: vec![NodeSelectorTerm {
                    match_expressions: Some(vec![NodeSelectorRequirement {
                        key: key.into(),
                        operator: "In".into(),
                        values: Some(values.iter().map(|v| (*v).to_owned()).collect()),
                    }]),
                    match_fields: None,
                }],
            }),
            ..NodeAffinity::default()
        }),
        ..Affinity::default()
    });
    pod
}

/// The nodes as the framework sees them, each with the pods bound to it
/// (as the scheduler's `node_infos()` builds them; resources left empty).
pub fn infos(nodes: &[Node], pods: &[Pod]) -> Vec<NodeInfo> {
    nodes
        .iter()
        .map(|n| {
            let name = n.metadata.name.as_deref().unwrap_or_default();
            let on_node = pods
                .iter()
                .filter(|p| p.spec.as_ref().and_then(|s| s.node_name.as_deref()) == Some(name))
                .map(|p| Shared::from(p.clone()));
            NodeInfo::new(Arc::new(n.clone()), on_node)
        })
        .collect()
}
