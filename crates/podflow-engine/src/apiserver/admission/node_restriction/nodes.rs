//! `NodeRestriction` for a node's own objects (`plugin/pkg/admission/noderestriction/admission.go`:
//! `admitNode`, `getForbiddenLabels`, `admitLease`, `admitCSINode`; the labels a
//! kubelet may set are `k8s.io/kubelet/pkg/apis/well_known_labels.go`'s): a node
//! may modify only its own Node, never its taints, and may not set
//! `node-restriction.kubernetes.io/` labels nor `kubernetes.io`/`k8s.io` labels
//! outside the kubelet's own set.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::Node;

use crate::apiserver::admission::{AdmissionRequest, Verdict, deny};
use crate::apiserver::request::Operation;
use podflow_model::Object;

/// Labels a kubelet may set on its Node (`kubeletLabels`).
const KUBELET_LABELS: [&str; 11] = [
    "kubernetes.io/hostname",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
    "beta.kubernetes.io/instance-type",
    "node.kubernetes.io/instance-type",
    "kubernetes.io/os",
    "kubernetes.io/arch",
    "beta.kubernetes.io/os",
    "beta.kubernetes.io/arch",
];

/// Label namespaces a kubelet may use (`kubeletLabelNamespaces`).
const KUBELET_LABEL_NAMESPACES: [&str; 2] = ["kubelet.kubernetes.io", "node.kubernetes.io"];

/// `v1.LabelNamespaceNodeRestriction`.
const NODE_RESTRICTION_NAMESPACE: &str = "node-restriction.kubernetes.io";

/// The namespace where node leases live (`api.NamespaceNodeLease`).
const NODE_LEASE_NAMESPACE: &str = "kube-node-lease";

/// `admitNode`: only its own Node; on create no config source and no forbidden
/// labels; on update no new config source, no taint change, no forbidden label change.
pub(super) fn admit_node(req: &AdmissionRequest<'_>, node: &str, object: &Object) -> Verdict {
    if req.name != node {
        return deny(
            req,
            &format!("node {node:?} is not allowed to modify node {:?}", req.name),
        );
    }
    match (req.operation, object, req.old) {
        (Operation::Create, Object::Node(new), _) => {
            if spec(new).config_source.is_some() {
                return deny(
                    req,
                    &format!(
                        "node {node:?} is not allowed to create pods with a non-nil configSource"
                    ),
                );
            }
            let forbidden = forbidden_labels(&modified_labels(&labels(new), &BTreeMap::new()));
            if !forbidden.is_empty() {
                return deny(
                    req,
                    &format!(
                        "node {node:?} is not allowed to set the following labels: {}",
                        join(&forbidden)
                    ),
                );
            }
            Verdict::Allow
        }
        (Operation::Update, Object::Node(new), Some(Object::Node(old))) => {
            let (new_spec, old_spec) = (spec(new), spec(old));
            if new_spec.config_source.is_some() && new_spec.config_source != old_spec.config_source
            {
                return deny(
                    req,
                    &format!(
                        "node {node:?} is not allowed to update configSource to a new non-nil configSource"
                    ),
                );
            }
            // Semantic equality: a missing list equals an empty one.
            if new_spec.taints.clone().unwrap_or_default()
                != old_spec.taints.clone().unwrap_or_default()
            {
                return deny(
                    req,
                    &format!("node {node:?} is not allowed to modify taints"),
                );
            }
            let forbidden = forbidden_labels(&modified_labels(&labels(new), &labels(old)));
            if !forbidden.is_empty() {
                return deny(
                    req,
                    &format!("is not allowed to modify labels: {}", join(&forbidden)),
                );
            }
            Verdict::Allow
        }
        _ => Verdict::Allow,
    }
}

fn spec(node: &Node) -> k8s_openapi::api::core::v1::NodeSpec {
    node.spec.clone().unwrap_or_default()
}

fn labels(node: &Node) -> BTreeMap<String, String> {
    node.metadata.labels.clone().unwrap_or_default()
}

fn join(labels: &BTreeSet<String>) -> String {
    labels.iter().cloned().collect::<Vec<_>>().join(", ")
}

/// `getModifiedLabels`: keys added, removed or changed.
fn modified_labels(a: &BTreeMap<String, String>, b: &BTreeMap<String, String>) -> BTreeSet<String> {
    let changed = |x: &BTreeMap<String, String>, y: &BTreeMap<String, String>| {
        x.iter()
            .filter(|(k, v)| y.get(*k) != Some(*v))
            .map(|(k, _)| k.clone())
            .collect::<Vec<_>>()
    };
    changed(a, b).into_iter().chain(changed(b, a)).collect()
}

/// `getLabelNamespace`: what precedes the `/`, or nothing.
fn label_namespace(key: &str) -> &str {
    key.split_once('/').map_or("", |(ns, _)| ns)
}

fn in_namespace(namespace: &str, domain: &str) -> bool {
    namespace == domain
        || namespace
            .strip_suffix(domain)
            .is_some_and(|rest| rest.ends_with('.'))
}

/// `IsKubeletLabel`.
fn is_kubelet_label(key: &str) -> bool {
    KUBELET_LABELS.contains(&key)
        || KUBELET_LABEL_NAMESPACES
            .iter()
            .any(|ns| in_namespace(label_namespace(key), ns))
}

/// `getForbiddenLabels`: `node-restriction.kubernetes.io` labels, and
/// `kubernetes.io`/`k8s.io` labels that are not the kubelet's.
fn forbidden_labels(modified: &BTreeSet<String>) -> BTreeSet<String> {
    modified
        .iter()
        .filter(|key| {
            let namespace = label_namespace(key);
            let kubernetes =
                in_namespace(namespace, "kubernetes.io") || in_namespace(namespace, "k8s.io");
            in_namespace(namespace, NODE_RESTRICTION_NAMESPACE)
                || (kubernetes && !is_kubelet_label(key))
        })
        .cloned()
        .collect()
}

/// `admitLease`: only its own Lease, in `kube-node-lease`.
pub(super) fn admit_lease(req: &AdmissionRequest<'_>, node: &str) -> Verdict {
    if req.namespace != Some(NODE_LEASE_NAMESPACE) {
        return deny(
            req,
            &format!("can only access leases in the {NODE_LEASE_NAMESPACE:?} system namespace"),
        );
    }
    if req.name != node {
        return deny(
            req,
            "can only access node lease with the same name as the requesting node",
        );
    }
    Verdict::Allow
}

/// `admitCSINode`: only the `CSINode` named after it.
pub(super) fn admit_csi_node(req: &AdmissionRequest<'_>, node: &str) -> Verdict {
    if req.name != node {
        return deny(
            req,
            "can only access CSINode with the same name as the requesting node",
        );
    }
    Verdict::Allow
}
