//! `NodeRestriction` (`plugin/pkg/admission/noderestriction/admission.go`), which
//! kubeadm enables: a kubelet (`system:node:NAME` in `system:nodes`,
//! `pkg/auth/nodeidentifier`) may only create mirror Pods bound to itself, update
//! the status of, evict and delete Pods bound to itself (`pods.rs`), modify its
//! own Node, and reach only its own Lease and `CSINode` (`nodes.rs`).
//! Everyone else passes untouched. It is a mutating plugin upstream (`Admit`),
//! so it runs in the mutating phase, after `ServiceAccount`.
//!
//! Not mirrored: the diff upstream prints when a node changes more than a PVC's
//! status (`cmp.Diff`) — such an update is let through; `serviceaccounts/token`,
//! `ResourceSlice` and `CertificateSigningRequest` checks (podflow serves none
//! of what they inspect) let the request through.

mod nodes;
mod pods;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Status;

use self::nodes::{admit_csi_node, admit_lease, admit_node};
use self::pods::{admit_pod, admit_pod_eviction, admit_pod_status};
use super::{AdmissionRequest, Plugin, Verdict, deny, is_kind};
use crate::apiserver::request::Operation;
use crate::rng::Rng;
use podflow_model::status::not_found;
use podflow_model::{Kind, Object};

/// The annotation that marks a mirror Pod (`api.MirrorPodAnnotationKey`).
pub const MIRROR_POD_ANNOTATION: &str = "kubernetes.io/config.mirror";

/// The `NodeRestriction` admission plugin (mutating).
#[derive(Debug, Clone, Copy, Default)]
pub struct NodeRestriction;

impl Plugin for NodeRestriction {
    fn name(&self) -> &'static str {
        "NodeRestriction"
    }

    /// Creates, updates and deletes of the resources its `Admit` switches on
    /// (every subresource of Pods and Nodes).
    fn handles(&self, _operation: Operation, kind: &Kind, _subresource: Option<&str>) -> bool {
        [
            ("", "Pod"),
            ("", "Node"),
            ("", "PersistentVolumeClaim"),
            ("", "ServiceAccount"),
            ("coordination.k8s.io", "Lease"),
            ("storage.k8s.io", "CSINode"),
            ("resource.k8s.io", "ResourceSlice"),
            ("certificates.k8s.io", "CertificateSigningRequest"),
        ]
        .iter()
        .any(|(group, name)| is_kind(kind, group, name))
    }

    fn mutating(&self) -> bool {
        true
    }

    fn admit(&self, req: &AdmissionRequest<'_>, object: &mut Object, _rng: &mut Rng) -> Verdict {
        let Some(node) = req.user.node_name() else {
            return Verdict::Allow;
        };
        if node.is_empty() {
            return deny(
                req,
                &format!("could not determine node from user {:?}", req.user.name),
            );
        }
        let kind = req.kind;
        if is_kind(kind, "", "Pod") {
            return match req.subresource {
                None => admit_pod(req, node, object),
                Some("status") => admit_pod_status(req, node, object),
                Some("eviction") => admit_pod_eviction(req, node),
                Some(other) => deny(
                    req,
                    &format!(
                        "unexpected pod subresource {other:?}, only 'status' and 'eviction' are allowed"
                    ),
                ),
            };
        }
        if is_kind(kind, "", "Node") {
            return admit_node(req, node, object);
        }
        if is_kind(kind, "", "PersistentVolumeClaim") {
            return match (req.subresource, req.operation) {
                (Some("status"), Operation::Update) => Verdict::Allow,
                (Some("status"), op) => {
                    deny(req, &format!("unexpected operation {:?}", op.as_str()))
                }
                _ => deny(req, "may only update PVC status"),
            };
        }
        if is_kind(kind, "coordination.k8s.io", "Lease") {
            return admit_lease(req, node);
        }
        if is_kind(kind, "storage.k8s.io", "CSINode") {
            return admit_csi_node(req, node);
        }
        Verdict::Allow
    }
}

/// A lister's `NotFound` (`pod "x" not found`), which upstream returns as is.
pub(crate) fn lister_not_found(kind: &Kind, singular: &str, name: &str) -> Verdict {
    let mut status: Status = not_found(kind, name);
    status.message = Some(format!("{singular} {name:?} not found"));
    if let Some(details) = status.details.as_mut() {
        details.kind = Some(singular.to_owned());
    }
    Verdict::Deny(status)
}

#[cfg(test)]
mod tests;
