//! Pod and owner helpers the controllers share (`pkg/controller/controller_utils.go`,
//! `pkg/api/v1/pod/util.go`): active, ready, available, the controller reference.

use k8s_openapi::api::core::v1::{Pod, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};

use super::informer::Informer;
use crate::clock::SimTime;

/// `IsPodActive`: not finished and not being deleted.
pub fn is_active(pod: &Pod) -> bool {
    !matches!(phase(pod), "Succeeded" | "Failed") && pod.metadata.deletion_timestamp.is_none()
}

/// The Pod's phase, `""` when it has none.
pub fn phase(pod: &Pod) -> &str {
    pod.status
        .as_ref()
        .and_then(|s| s.phase.as_deref())
        .unwrap_or_default()
}

/// The node the Pod is bound to, `""` when unscheduled.
pub fn node_of(pod: &Pod) -> &str {
    pod.spec
        .as_ref()
        .and_then(|s| s.node_name.as_deref())
        .unwrap_or_default()
}

/// The `Ready` condition's transition time in milliseconds, if the Pod is ready (`IsPodReady`).
pub fn ready_since(pod: &Pod) -> Option<i64> {
    pod.status
        .as_ref()?
        .conditions
        .as_ref()?
        .iter()
        .find(|c| c.type_ == "Ready" && c.status == "True")
        .map(|c| {
            c.last_transition_time
                .as_ref()
                .map_or(0, |t| t.0.as_millisecond())
        })
}

/// `IsPodReady`.
pub fn is_ready(pod: &Pod) -> bool {
    ready_since(pod).is_some()
}

/// `IsPodAvailable` (`pkg/api/v1/pod/util.go`): ready for at least
/// `min_ready_seconds`; with a minimum, a Ready condition without a
/// transition time (0 here) is not available.
pub fn is_available(pod: &Pod, min_ready_seconds: i32, now: SimTime) -> bool {
    let Some(since) = ready_since(pod) else {
        return false;
    };
    if min_ready_seconds <= 0 {
        return true;
    }
    since != 0 && since + i64::from(min_ready_seconds) * 1000 <= now.to_k8s().as_millisecond()
}

/// `metav1.GetControllerOf`.
pub fn controller_of(meta: &ObjectMeta) -> Option<&OwnerReference> {
    meta.owner_references
        .as_ref()?
        .iter()
        .find(|r| r.controller == Some(true))
}

/// `metav1.NewControllerRef`: the owner reference a controller puts on what it makes.
pub fn controller_ref(api_version: &str, kind: &str, owner: &ObjectMeta) -> OwnerReference {
    OwnerReference {
        api_version: api_version.to_owned(),
        kind: kind.to_owned(),
        name: owner.name.clone().unwrap_or_default(),
        uid: owner.uid.clone().unwrap_or_default(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    }
}

/// Whether `owner` is the controller of the object with `meta` (by UID).
pub fn controlled_by(meta: &ObjectMeta, owner: &ObjectMeta) -> bool {
    controller_of(meta).is_some_and(|r| Some(&r.uid) == owner.uid.as_ref())
}

/// The key of the `kind` object that controls `meta`, if `informer` caches
/// it with the controller reference's UID (`resolveControllerRef`).
pub fn controller_key(meta: &ObjectMeta, kind: &str, informer: &Informer) -> Option<String> {
    let owner = controller_of(meta)?;
    if owner.kind != kind {
        return None;
    }
    let key = format!(
        "{}/{}",
        meta.namespace.as_deref().unwrap_or_default(),
        owner.name
    );
    let cached = informer.get(&key)?;
    (cached.metadata().uid.as_deref() == Some(owner.uid.as_str())).then_some(key)
}

/// `GetPodFromTemplate`: a Pod from `template` for the controller `owner`
/// (`apps/v1` `ReplicaSet`, `batch/v1` `Job`), named by the API server from
/// `<owner>-`, with the template's labels, annotations and finalizers.
pub fn pod_from_template(
    template: PodTemplateSpec,
    owner: &ObjectMeta,
    api_version: &str,
    kind: &str,
) -> Pod {
    let meta = template.metadata.unwrap_or_default();
    let name = owner.name.as_deref().unwrap_or_default();
    Pod {
        metadata: ObjectMeta {
            generate_name: Some(format!("{name}-")),
            namespace: owner.namespace.clone(),
            labels: meta.labels,
            annotations: meta.annotations,
            finalizers: meta.finalizers,
            owner_references: Some(vec![controller_ref(api_version, kind, owner)]),
            ..ObjectMeta::default()
        },
        spec: template.spec,
        status: None,
    }
}

/// The highest restart count among the Pod's containers.
pub fn max_restarts(pod: &Pod) -> i32 {
    pod.status
        .as_ref()
        .and_then(|s| s.container_statuses.as_ref())
        .into_iter()
        .flatten()
        .map(|c| c.restart_count)
        .max()
        .unwrap_or(0)
}

/// `NAMESPACE/NAME` of an object's metadata.
pub fn meta_key(meta: &ObjectMeta) -> String {
    format!(
        "{}/{}",
        meta.namespace.as_deref().unwrap_or_default(),
        meta.name.as_deref().unwrap_or_default()
    )
}
