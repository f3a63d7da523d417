//! `NodeRestriction` (`plugin/pkg/admission/noderestriction/admission.go`), which
//! kubeadm enables: a kubelet (`system:node:NAME` in `system:nodes`,
//! `pkg/auth/nodeidentifier`) may only create mirror Pods bound to itself, update
//! the status of, evict and delete Pods bound to itself, modify its own Node
//! (`nodes.rs`), and reach only its own Lease and `CSINode`.
//! Everyone else passes untouched. It is a mutating plugin upstream (`Admit`),
//! so it runs in the mutating phase, after `ServiceAccount`.
//!
//! Not mirrored: the diff upstream prints when a node changes more than a PVC's
//! status (`cmp.Diff`) — such an update is let through; `serviceaccounts/token`,
//! `ResourceSlice` and `CertificateSigningRequest` checks (podflow serves none
//! of what they inspect) let the request through.

mod nodes;

use k8s_openapi::api::core::v1::{Container, EnvFromSource, EnvVar, Pod};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Status;

use self::nodes::{admit_csi_node, admit_lease, admit_node};
use super::{AdmissionRequest, Plugin, Verdict, deny, is_kind};
use crate::apiserver::request::Operation;
use crate::rng::Rng;
use podflow_model::kinds::kind_of;
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

/// The Pod as stored: the request's old object, or the API server's cache.
fn existing_pod(req: &AdmissionRequest<'_>, name: &str) -> Option<Pod> {
    if let Some(Object::Pod(pod)) = req.old {
        return Some(pod.clone());
    }
    let found = req.cluster.get(kind_of("Pod"), req.namespace, name)?;
    found.as_pod().cloned()
}

fn node_name(pod: &Pod) -> &str {
    pod.spec
        .as_ref()
        .and_then(|s| s.node_name.as_deref())
        .unwrap_or_default()
}

/// `admitPod`: create (mirror Pods only) and delete.
fn admit_pod(req: &AdmissionRequest<'_>, node: &str, object: &Object) -> Verdict {
    match req.operation {
        Operation::Create => match object {
            Object::Pod(pod) => admit_pod_create(req, node, pod),
            _ => Verdict::Allow,
        },
        Operation::Delete => match existing_pod(req, req.name) {
            None => lister_not_found(req.kind, "pod", req.name),
            Some(pod) if node_name(&pod) != node => deny(
                req,
                &format!("node {node:?} can only delete pods with spec.nodeName set to itself"),
            ),
            Some(_) => Verdict::Allow,
        },
        Operation::Update => deny(
            req,
            &format!(
                "unexpected operation {:?}, node {node:?} can only create and delete mirror pods",
                req.operation.as_str()
            ),
        ),
    }
}

/// `admitPodCreate`.
fn admit_pod_create(req: &AdmissionRequest<'_>, node: &str, pod: &Pod) -> Verdict {
    let mirror = pod
        .metadata
        .annotations
        .as_ref()
        .is_some_and(|a| a.contains_key(MIRROR_POD_ANNOTATION));
    if !mirror {
        return deny(
            req,
            &format!(
                "pod does not have {MIRROR_POD_ANNOTATION:?} annotation, node {node:?} can only create mirror pods"
            ),
        );
    }
    if node_name(pod) != node {
        return deny(
            req,
            &format!("node {node:?} can only create pods with spec.nodeName set to itself"),
        );
    }
    if let Some(verdict) = check_owner(req, node, pod) {
        return verdict;
    }
    let spec = pod.spec.clone().unwrap_or_default();
    if spec
        .service_account_name
        .as_deref()
        .is_some_and(|s| !s.is_empty())
    {
        return deny(
            req,
            &format!("node {node:?} can not create pods that reference a service account"),
        );
    }
    let (secrets, configmaps) = references(pod);
    let volumes = spec.volumes.unwrap_or_default();
    let trust_bundles = volumes.iter().any(|v| {
        v.projected.iter().any(|p| {
            p.sources
                .iter()
                .flatten()
                .any(|s| s.cluster_trust_bundle.is_some())
        })
    });
    let claims = volumes.iter().any(|v| v.persistent_volume_claim.is_some());
    let refused = [
        (secrets, "secrets"),
        (configmaps, "configmaps"),
        (trust_bundles, "clustertrustbundles"),
        (claims, "persistentvolumeclaims"),
    ];
    match refused.iter().find(|(hit, _)| *hit) {
        Some((_, what)) => deny(
            req,
            &format!("node {node:?} can not create pods that reference {what}"),
        ),
        None => Verdict::Allow,
    }
}

/// The owner-reference checks of `admitPodCreate`: exactly one, a controller
/// reference to this Node with its current UID.
fn check_owner(req: &AdmissionRequest<'_>, node: &str, pod: &Pod) -> Option<Verdict> {
    let owners = pod.metadata.owner_references.as_deref().unwrap_or_default();
    let refuse = |reason: String| Some(deny(req, &reason));
    let owner = match owners {
        [] => {
            return refuse(format!(
                "node {node:?} can only create pods with an owner reference set to itself"
            ));
        }
        [owner] => owner,
        _ => {
            return refuse(format!(
                "node {node:?} can only create pods with a single owner reference set to itself"
            ));
        }
    };
    if owner.api_version != "v1" || owner.kind != "Node" || owner.name != node {
        return refuse(format!(
            "node {node:?} can only create pods with an owner reference set to itself"
        ));
    }
    if owner.controller != Some(true) {
        return refuse(format!(
            "node {node:?} can only create pods with a controller owner reference set to itself"
        ));
    }
    if owner.block_owner_deletion == Some(true) {
        return refuse(format!(
            "node {node:?} must not set blockOwnerDeletion on an owner reference"
        ));
    }
    let Some(stored) = req.cluster.get(kind_of("Node"), None, node) else {
        return Some(lister_not_found(kind_of("Node"), "node", node));
    };
    let uid = stored.metadata().uid.clone().unwrap_or_default();
    if owner.uid != uid {
        return refuse(format!(
            "node {node} UID mismatch: expected {} got {uid}",
            owner.uid
        ));
    }
    None
}

/// `VisitPodSecretNames` / `VisitPodConfigmapNames` over all containers:
/// whether the Pod names any Secret, any `ConfigMap`.
fn references(pod: &Pod) -> (bool, bool) {
    let Some(spec) = &pod.spec else {
        return (false, false);
    };
    let mut secrets = spec
        .image_pull_secrets
        .as_ref()
        .is_some_and(|s| !s.is_empty());
    let mut configmaps = false;
    let mut visit = |env: Option<&Vec<EnvVar>>, env_from: Option<&Vec<EnvFromSource>>| {
        for var in env.into_iter().flatten() {
            let source = var.value_from.as_ref();
            secrets |= source.is_some_and(|s| s.secret_key_ref.is_some());
            configmaps |= source.is_some_and(|s| s.config_map_key_ref.is_some());
        }
        for from in env_from.into_iter().flatten() {
            secrets |= from.secret_ref.is_some();
            configmaps |= from.config_map_ref.is_some();
        }
    };
    let containers = spec
        .containers
        .iter()
        .chain(spec.init_containers.iter().flatten());
    for Container { env, env_from, .. } in containers {
        visit(env.as_ref(), env_from.as_ref());
    }
    for container in spec.ephemeral_containers.iter().flatten() {
        visit(container.env.as_ref(), container.env_from.as_ref());
    }
    for volume in spec.volumes.iter().flatten() {
        secrets |= volume.secret.is_some()
            || volume
                .azure_file
                .as_ref()
                .is_some_and(|a| !a.secret_name.is_empty())
            || volume
                .cephfs
                .as_ref()
                .is_some_and(|c| c.secret_ref.is_some())
            || volume
                .cinder
                .as_ref()
                .is_some_and(|c| c.secret_ref.is_some())
            || volume
                .flex_volume
                .as_ref()
                .is_some_and(|f| f.secret_ref.is_some())
            || volume.rbd.as_ref().is_some_and(|r| r.secret_ref.is_some())
            || volume.scale_io.is_some()
            || volume
                .iscsi
                .as_ref()
                .is_some_and(|i| i.secret_ref.is_some())
            || volume
                .storageos
                .as_ref()
                .is_some_and(|s| s.secret_ref.is_some())
            || volume
                .csi
                .as_ref()
                .is_some_and(|c| c.node_publish_secret_ref.is_some());
        configmaps |= volume.config_map.is_some();
        for source in volume
            .projected
            .iter()
            .flat_map(|p| p.sources.iter().flatten())
        {
            secrets |= source.secret.is_some();
            configmaps |= source.config_map.is_some();
        }
    }
    (secrets, configmaps)
}

/// `admitPodStatus`: only updates, of Pods bound to this node, not touching labels
/// or resource claim statuses.
fn admit_pod_status(req: &AdmissionRequest<'_>, node: &str, object: &Object) -> Verdict {
    if req.operation != Operation::Update {
        return deny(
            req,
            &format!("unexpected operation {:?}", req.operation.as_str()),
        );
    }
    let Some(Object::Pod(old)) = req.old else {
        return deny(req, "unexpected type <nil>");
    };
    if node_name(old) != node {
        return deny(
            req,
            &format!(
                "node {node:?} can only update pod status for pods with spec.nodeName set to itself"
            ),
        );
    }
    let Object::Pod(new) = object else {
        return Verdict::Allow;
    };
    let labels = |p: &Pod| p.metadata.labels.clone().unwrap_or_default();
    if labels(old) != labels(new) {
        return deny(
            req,
            &format!("node {node:?} cannot update labels through pod status"),
        );
    }
    let claims = |p: &Pod| {
        p.status
            .as_ref()
            .and_then(|s| s.resource_claim_statuses.clone())
            .unwrap_or_default()
            .into_iter()
            .map(|c| (c.name, c.resource_claim_name))
            .collect::<Vec<_>>()
    };
    if claims(old) != claims(new) {
        return deny(
            req,
            &format!("node {node:?} cannot update resource claim statues"),
        );
    }
    Verdict::Allow
}

/// `admitPodEviction`: a node may evict only Pods bound to itself.
fn admit_pod_eviction(req: &AdmissionRequest<'_>, node: &str) -> Verdict {
    if req.operation != Operation::Create {
        return deny(
            req,
            &format!("unexpected operation {}", req.operation.as_str()),
        );
    }
    if req.name.is_empty() {
        return deny(req, "could not determine pod from request data");
    }
    match existing_pod(req, req.name) {
        None => lister_not_found(req.kind, "pod", req.name),
        Some(pod) if node_name(&pod) != node => deny(
            req,
            &format!("node {node} can only evict pods with spec.nodeName set to itself"),
        ),
        Some(_) => Verdict::Allow,
    }
}

#[cfg(test)]
mod tests;
