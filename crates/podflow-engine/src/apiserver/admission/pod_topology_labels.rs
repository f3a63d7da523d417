//! `PodTopologyLabels` (`plugin/pkg/admission/podtopologylabels/admission.go`):
//! copies the node's `topology.kubernetes.io/zone` and `topology.kubernetes.io/region`
//! labels onto a Pod bound to it (beta, on by default since 1.35).
//!
//! For `pods/binding` podflow hands the plugin the Pod with `spec.nodeName` set to
//! the binding's target, and the labels go on the Pod, where upstream's binding
//! registry copies them.

use super::{AdmissionRequest, Plugin, Verdict, is_kind};
use crate::apiserver::request::Operation;
use crate::rng::Rng;
use podflow_model::kinds::kind_of;
use podflow_model::{Kind, Object};

/// The labels copied from the Node.
pub const TOPOLOGY_LABELS: [&str; 2] = [
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
];

/// The `PodTopologyLabels` admission plugin (mutating).
#[derive(Debug, Clone, Copy, Default)]
pub struct PodTopologyLabels;

impl Plugin for PodTopologyLabels {
    fn name(&self) -> &'static str {
        "PodTopologyLabels"
    }

    /// Pod creates and `pods/binding` creates.
    fn handles(&self, operation: Operation, kind: &Kind, subresource: Option<&str>) -> bool {
        operation == Operation::Create
            && is_kind(kind, "", "Pod")
            && matches!(subresource, None | Some("binding"))
    }

    fn mutating(&self) -> bool {
        true
    }

    fn admit(&self, req: &AdmissionRequest<'_>, object: &mut Object, _rng: &mut Rng) -> Verdict {
        let Object::Pod(pod) = object else {
            return Verdict::Allow;
        };
        let Some(node_name) = pod
            .spec
            .as_ref()
            .and_then(|s| s.node_name.clone())
            .filter(|n| !n.is_empty())
        else {
            return Verdict::Allow;
        };
        let Some(node) = req.cluster.get(kind_of("Node"), None, &node_name) else {
            return Verdict::Allow;
        };
        let copied: Vec<(String, String)> = node
            .metadata()
            .labels
            .iter()
            .flatten()
            .filter(|(k, _)| TOPOLOGY_LABELS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if copied.is_empty() {
            return Verdict::Allow;
        }
        let shown: Vec<String> = copied.iter().map(|(k, v)| format!("{k}={v}")).collect();
        pod.metadata.labels.get_or_insert_default().extend(copied);
        Verdict::Mutate(format!(
            "copied labels {} from node {node_name}",
            shown.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::StaticCluster;
    use crate::apiserver::admission::testing::{pod, request};
    use serde_json::json;

    /// Mirrors `podtopologylabels/admission_test.go` `TestPodTopology`.
    #[test]
    fn pod_topology() {
        let node = Object::from_json(
            kind_of("Node"),
            json!({"metadata": {"name": "node-1", "labels": {"topology.kubernetes.io/zone": "a", "other": "x"}}}),
        )
        .unwrap();
        let cluster = StaticCluster::new(vec![node]);
        let mut req = request(Operation::Create, "Pod", Some("default"), "nginx", &cluster);
        req.subresource = Some("binding");
        let mut bound = pod(json!({"spec": {"containers": [], "nodeName": "node-1"}}));
        assert_eq!(
            PodTopologyLabels.admit(&req, &mut bound, &mut Rng::new(1)),
            Verdict::Mutate("copied labels topology.kubernetes.io/zone=a from node node-1".into())
        );
        let labels = bound.metadata().labels.clone().unwrap();
        assert_eq!(labels.len(), 1);
        let mut unbound = pod(json!({"spec": {"containers": []}}));
        assert_eq!(
            PodTopologyLabels.admit(&req, &mut unbound, &mut Rng::new(1)),
            Verdict::Allow
        );
    }
}
