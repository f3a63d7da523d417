//! `NodeRestriction` for Pods (`plugin/pkg/admission/noderestriction/admission.go`:
//! `admitPod`, `admitPodCreate`, `admitPodStatus`, `admitPodEviction`): a node
//! may create only mirror Pods bound to itself, owned by its Node and naming no
//! service account, Secret, `ConfigMap`, `ClusterTrustBundle` or claim; it may
//! update the status of, evict and delete only Pods bound to itself.

use k8s_openapi::api::core::v1::{Container, EnvFromSource, EnvVar, Pod};

use super::{MIRROR_POD_ANNOTATION, lister_not_found};
use crate::apiserver::admission::{AdmissionRequest, Verdict, deny};
use crate::apiserver::request::Operation;
use podflow_model::Object;
use podflow_model::kinds::kind_of;

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
pub(super) fn admit_pod(req: &AdmissionRequest<'_>, node: &str, object: &Object) -> Verdict {
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
pub(super) fn admit_pod_status(req: &AdmissionRequest<'_>, node: &str, object: &Object) -> Verdict {
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
pub(super) fn admit_pod_eviction(req: &AdmissionRequest<'_>, node: &str) -> Verdict {
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
