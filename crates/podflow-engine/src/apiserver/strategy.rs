//! What the registry does to an object before it is stored: system fields on
//! create (`uid`, `creationTimestamp`, `generateName`), a new Pod's status
//! (`pkg/registry/core/pod/strategy.go`, `PrepareForCreate`, with its
//! `SchedulingGated` condition), what an update of
//! the main resource or of `status` may change (`PrepareForUpdate`), and the
//! finalizers a delete leaves for the garbage collector.

use k8s_openapi::api::core::v1::{Pod, PodStatus};

use super::request::Propagation;
use crate::clock::SimTime;
use crate::rng::Rng;
use podflow_model::Object;

/// How many times a create whose name comes from `generateName` is tried
/// before its clash is the answer (`maxNameGenerationCreateAttempts`,
/// `staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go`).
pub const NAME_GENERATION_ATTEMPTS: u32 = 8;

/// A create whose generated name clashed, ready to be tried again: `BeforeCreate`
/// once more gives it a new name from its `generateName` and a new `uid` and
/// creation time (`FillObjectMetaSystemFields`).
pub fn regenerate_name(object: &mut Object, rng: &mut Rng, now: SimTime) {
    let meta = object.metadata_mut();
    if let Some(prefix) = meta.generate_name.as_deref() {
        meta.name = Some(format!("{prefix}{}", rng.name_suffix(5)));
    }
    meta.uid = Some(rng.uuid());
    meta.creation_timestamp = Some(now.to_time());
}

/// Fills the system fields of a new object and resets what a create may not set.
pub fn prepare_for_create(object: &mut Object, rng: &mut Rng, now: SimTime) {
    let meta = object.metadata_mut();
    if meta.name.as_deref().unwrap_or_default().is_empty()
        && let Some(prefix) = meta.generate_name.clone()
    {
        meta.name = Some(format!("{prefix}{}", rng.name_suffix(5)));
    }
    meta.uid = Some(rng.uuid());
    meta.creation_timestamp = Some(now.to_time());
    meta.resource_version = None;
    meta.deletion_timestamp = None;
    meta.deletion_grace_period_seconds = None;
    super::storage_strategy::prepare_for_create(object, now);
    match object {
        Object::Pod(pod) => {
            pod.metadata.generation = Some(1);
            pod.status = Some(PodStatus {
                phase: Some("Pending".into()),
                qos_class: Some(qos_class(pod).into()),
                conditions: scheduling_gated(pod, now).map(|c| vec![c]),
                ..PodStatus::default()
            });
        }
        Object::Deployment(_) | Object::ReplicaSet(_) => {
            object.metadata_mut().generation = Some(1);
        }
        Object::Job(job) => {
            job.metadata.generation = Some(1);
            job.status = None;
            generate_job_selector(job);
        }
        Object::Secret(secret) => merge_string_data(secret),
        // `pkg/registry/core/resourcequota/strategy.go`: the quota controller fills the status.
        Object::ResourceQuota(quota) => quota.status = None,
        Object::Namespace(ns) => super::namespace_strategy::prepare_for_create(ns),
        _ => {}
    }
}

/// `applySchedulingGatedCondition`: a Pod created with scheduling gates
/// reads `PodScheduled=False`, reason `SchedulingGated`, from the start.
fn scheduling_gated(pod: &Pod, now: SimTime) -> Option<k8s_openapi::api::core::v1::PodCondition> {
    let gated = pod
        .spec
        .as_ref()
        .and_then(|s| s.scheduling_gates.as_ref())
        .is_some_and(|g| !g.is_empty());
    gated.then(|| k8s_openapi::api::core::v1::PodCondition {
        type_: "PodScheduled".into(),
        status: "False".into(),
        reason: Some("SchedulingGated".into()),
        message: Some("Scheduling is blocked due to non-empty scheduling gates".into()),
        last_transition_time: Some(now.to_time()),
        ..Default::default()
    })
}

/// `stringData` is write-only: its keys are merged over `data` and it is not
/// stored (`Convert_v1_Secret_To_core_Secret` in `pkg/apis/core/v1/conversion.go`,
/// on every write).
pub fn merge_string_data(secret: &mut k8s_openapi::api::core::v1::Secret) {
    let Some(strings) = secret.string_data.take() else {
        return;
    };
    let data = secret.data.get_or_insert_with(Default::default);
    for (key, value) in strings {
        data.insert(key, k8s_openapi::ByteString(value.into_bytes()));
    }
}

/// `generateSelector` (`pkg/registry/batch/job/strategy.go`): unless
/// `manualSelector`, the Job selects its Pods by its UID, and the template
/// carries the labels that say so.
fn generate_job_selector(job: &mut k8s_openapi::api::batch::v1::Job) {
    let uid = job.metadata.uid.clone().unwrap_or_default();
    let name = job.metadata.name.clone().unwrap_or_default();
    let Some(spec) = job.spec.as_mut() else {
        return;
    };
    if spec.manual_selector == Some(true) {
        return;
    }
    let labels = spec
        .template
        .metadata
        .get_or_insert_with(Default::default)
        .labels
        .get_or_insert_with(Default::default);
    for (key, value) in [
        ("batch.kubernetes.io/controller-uid", &uid),
        ("batch.kubernetes.io/job-name", &name),
        ("controller-uid", &uid),
        ("job-name", &name),
    ] {
        labels
            .entry(key.to_owned())
            .or_insert_with(|| value.clone());
    }
    // `SetDefaults_Job`: a Job without labels takes its template's (applied again as it is read back).
    if job
        .metadata
        .labels
        .as_ref()
        .is_none_or(std::collections::BTreeMap::is_empty)
    {
        job.metadata.labels.clone_from(
            &spec
                .template
                .metadata
                .as_ref()
                .and_then(|m| m.labels.clone()),
        );
    }
    spec.selector = Some(
        k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector {
            match_labels: Some([("batch.kubernetes.io/controller-uid".to_owned(), uid)].into()),
            match_expressions: None,
        },
    );
}

/// The finalizer that orphans an object's dependents (`metav1.FinalizerOrphanDependents`).
pub const ORPHAN_FINALIZER: &str = "orphan";
/// The finalizer that deletes an object's dependents first (`metav1.FinalizerDeleteDependents`).
pub const FOREGROUND_FINALIZER: &str = "foregroundDeletion";

/// The finalizers a delete leaves on `object` for the garbage collector
/// (`staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go`,
/// `deletionFinalizersForGarbageCollection`, `shouldOrphanDependents`,
/// `shouldDeleteDependents`): the request's `propagationPolicy` wins; without
/// one, an `orphan` or `foregroundDeletion` finalizer already there; else the
/// kind's default policy — orphan for `batch/v1` Jobs
/// (`pkg/registry/batch/job/strategy.go`, `DefaultGarbageCollectionPolicy`),
/// background (no finalizer) for the rest.
pub fn deletion_finalizers(object: &Object, policy: Option<Propagation>) -> Vec<String> {
    let existing = object.metadata().finalizers.clone().unwrap_or_default();
    let policy = policy.or_else(|| {
        existing.iter().find_map(|f| match f.as_str() {
            FOREGROUND_FINALIZER => Some(Propagation::Foreground),
            ORPHAN_FINALIZER => Some(Propagation::Orphan),
            _ => None,
        })
    });
    let policy = policy.unwrap_or(match object {
        Object::Job(_) => Propagation::Orphan,
        _ => Propagation::Background,
    });
    let mut out: Vec<String> = existing
        .into_iter()
        .filter(|f| f != ORPHAN_FINALIZER && f != FOREGROUND_FINALIZER)
        .collect();
    match policy {
        Propagation::Orphan => out.push(ORPHAN_FINALIZER.to_owned()),
        Propagation::Foreground => out.push(FOREGROUND_FINALIZER.to_owned()),
        Propagation::Background => {}
    }
    out
}

/// Whether an update leaves nothing to wait for on an object being deleted,
/// so the update deletes it (`store.go`, `shouldDeleteDuringUpdate`): the
/// stored object has a deletionTimestamp with a grace period of 0 (or none)
/// and the new one no finalizers.
pub fn deletes_during_update(new: &Object, current: &Object) -> bool {
    let old = current.metadata();
    // A namespace also waits for its `spec.finalizers`
    // (`pkg/registry/core/namespace/storage/storage.go`, `ShouldDeleteNamespaceDuringUpdate`).
    if let Object::Namespace(ns) = new
        && ns
            .spec
            .as_ref()
            .and_then(|s| s.finalizers.as_ref())
            .is_some_and(|f| !f.is_empty())
    {
        return false;
    }
    old.deletion_timestamp.is_some()
        && old.deletion_grace_period_seconds.is_none_or(|g| g == 0)
        && new.metadata().finalizers.as_ref().is_none_or(Vec::is_empty)
}

/// Keeps what an update may not change: the system fields, and either the
/// status (an update of the main resource) or everything but the status (an
/// update of the `status` subresource).
pub fn prepare_for_update(object: &mut Object, current: &Object, subresource: Option<&str>) {
    let old = current.metadata();
    let meta = object.metadata_mut();
    meta.uid.clone_from(&old.uid);
    meta.creation_timestamp.clone_from(&old.creation_timestamp);
    meta.deletion_timestamp.clone_from(&old.deletion_timestamp);
    meta.deletion_grace_period_seconds = old.deletion_grace_period_seconds;
    meta.generation = old.generation;
    if let Object::Secret(secret) = &mut *object {
        merge_string_data(secret);
    }
    match (&mut *object, current) {
        (Object::Deployment(new), Object::Deployment(old)) => {
            apps_update(
                (&mut new.metadata, &mut new.spec, &mut new.status),
                (&old.metadata, &old.spec, &old.status),
                subresource,
            );
            return;
        }
        (Object::ReplicaSet(new), Object::ReplicaSet(old)) => {
            apps_update(
                (&mut new.metadata, &mut new.spec, &mut new.status),
                (&old.metadata, &old.spec, &old.status),
                subresource,
            );
            return;
        }
        _ => {}
    }
    if let (Object::Job(new), Object::Job(old)) = (&mut *object, current) {
        // `pkg/registry/batch/job/strategy.go`: the status subresource keeps the spec, the main resource keeps the status.
        if subresource == Some("status") {
            new.spec.clone_from(&old.spec);
        } else {
            new.status.clone_from(&old.status);
        }
        return;
    }
    match (&mut *object, current) {
        // `pkg/registry/core/resourcequota/strategy.go`: each of the main
        // resource and `status` keeps what the other owns.
        (Object::ResourceQuota(new), Object::ResourceQuota(old)) => {
            if subresource == Some("status") {
                new.spec.clone_from(&old.spec);
            } else {
                new.status.clone_from(&old.status);
            }
            return;
        }
        (Object::Namespace(new), Object::Namespace(old)) => {
            super::namespace_strategy::prepare_for_update(new, old, subresource);
            return;
        }
        _ => {}
    }
    if let (Object::Pod(new), Object::Pod(old_pod)) = (&mut *object, current) {
        if subresource == Some("status") {
            // Compared first: a kubelet's patch leaves both as stored, and a
            // comparison allocates nothing.
            if new.spec != old_pod.spec {
                new.spec.clone_from(&old_pod.spec);
            }
            if new.metadata != old_pod.metadata {
                new.metadata.clone_from(&old_pod.metadata);
            }
        } else {
            new.status.clone_from(&old_pod.status);
            if new.spec != old_pod.spec {
                new.metadata.generation = Some(old_pod.metadata.generation.unwrap_or(1) + 1);
            }
        }
    }
}

/// A Deployment's or `ReplicaSet`'s update (`pkg/registry/apps/deployment/strategy.go`,
/// `pkg/registry/apps/replicaset/strategy.go`): an update of the main resource
/// keeps the status and bumps `generation` when the spec changed; an update of
/// `status` keeps the spec and the labels (annotations may change, as the
/// deployment controller's revision annotation does).
fn apps_update<S: PartialEq + Clone, T: Clone>(
    new: (
        &mut k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
        &mut S,
        &mut Option<T>,
    ),
    old: (
        &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
        &S,
        &Option<T>,
    ),
    subresource: Option<&str>,
) {
    let (meta, spec, status) = new;
    let (old_meta, old_spec, old_status) = old;
    if subresource == Some("status") {
        spec.clone_from(old_spec);
        meta.labels.clone_from(&old_meta.labels);
    } else {
        status.clone_from(old_status);
        if spec != old_spec {
            meta.generation = Some(old_meta.generation.unwrap_or(1) + 1);
        }
    }
}

/// Whether two versions of one Pod, as the API server stored them, have the
/// same spec. This API server moves `metadata.generation` on with every
/// change to a Pod's spec through an update ([`prepare_for_update`], as
/// upstream's `updatePodGeneration` in `pkg/registry/core/pod/strategy.go`);
/// only the binding sets a field of the spec without it (`spec.nodeName`).
/// So versions with one uid, one generation and one node share their spec,
/// and the spec, most of a Pod, is compared field by field only otherwise:
/// the kubelet and the scheduler ask this of every status write, against a
/// version they have held since, long out of the caches.
pub fn same_pod_spec(old: &Pod, new: &Pod) -> bool {
    let (was, is) = (&old.metadata, &new.metadata);
    let same_version_of_spec = was.generation.is_some()
        && was.generation == is.generation
        && was.uid.is_some()
        && was.uid == is.uid
        && node_name(old) == node_name(new);
    let same = same_version_of_spec || old.spec == new.spec;
    debug_assert_eq!(
        same,
        old.spec == new.spec,
        "a Pod's spec changed without a new generation"
    );
    same
}

/// `spec.nodeName`.
fn node_name(pod: &Pod) -> Option<&str> {
    pod.spec.as_ref().and_then(|spec| spec.node_name.as_deref())
}

/// Whether two objects are equal apart from `resourceVersion`.
pub fn same_ignoring_resource_version(a: &Object, b: &Object) -> bool {
    // Most writes of a Pod change its status: compared first, they are told
    // apart without walking the spec.
    if let (Object::Pod(a), Object::Pod(b)) = (a, b)
        && a.status != b.status
    {
        return false;
    }
    if a.metadata().resource_version == b.metadata().resource_version {
        return a == b;
    }
    let mut a = a.clone();
    a.metadata_mut()
        .resource_version
        .clone_from(&b.metadata().resource_version);
    a == *b
}

/// The Pod's `QoS` class (`pkg/apis/core/helper/qos/qos.go`, `GetPodQOS`):
/// `Guaranteed` when every container has cpu and memory limits equal to its
/// requests, `BestEffort` when none has any, else `Burstable`.
pub fn qos_class(pod: &Pod) -> &'static str {
    let Some(spec) = pod.spec.as_ref() else {
        return "BestEffort";
    };
    let containers: Vec<_> = spec
        .containers
        .iter()
        .chain(spec.init_containers.iter().flatten())
        .collect();
    let mut any = false;
    let mut guaranteed = true;
    for container in &containers {
        let requests = container
            .resources
            .as_ref()
            .and_then(|r| r.requests.as_ref());
        let limits = container.resources.as_ref().and_then(|r| r.limits.as_ref());
        any |= requests.is_some_and(|r| !r.is_empty()) || limits.is_some_and(|l| !l.is_empty());
        for resource in ["cpu", "memory"] {
            let limit = limits.and_then(|l| l.get(resource));
            let request = requests.and_then(|r| r.get(resource));
            let equal = match (limit, request) {
                (Some(l), Some(r)) => same_amount(&l.0, &r.0),
                (Some(_), None) => true,
                _ => false,
            };
            guaranteed &= equal;
        }
    }
    if !any {
        "BestEffort"
    } else if guaranteed {
        "Guaranteed"
    } else {
        "Burstable"
    }
}

/// Whether two quantities are the same amount (`1` and `1000m`).
fn same_amount(a: &str, b: &str) -> bool {
    podflow_model::quantity::parse(a)
        .ok()
        .zip(podflow_model::quantity::parse(b).ok())
        .is_some_and(|(a, b)| a.milli_value() == b.milli_value())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn qos_classes() {
        // pkg/apis/core/helper/qos/qos_test.go, TestGetPodQOS (a few of its cases).
        let pod = |resources: Value| -> Pod {
            serde_json::from_value(json!({"metadata": {"name": "p"}, "spec": {"containers": [
                {"name": "a", "image": "x", "resources": resources}]}}))
            .unwrap()
        };
        assert_eq!(qos_class(&pod(json!({}))), "BestEffort");
        assert_eq!(
            qos_class(&pod(json!({"requests": {"cpu": "100m"}}))),
            "Burstable"
        );
        assert_eq!(
            qos_class(&pod(
                json!({"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "1000m", "memory": "1Gi"}})
            )),
            "Guaranteed"
        );
        assert_eq!(
            qos_class(&pod(
                json!({"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m", "memory": "1Gi"}})
            )),
            "Burstable"
        );
    }

    #[test]
    fn string_data_merges_into_data() {
        // pkg/apis/core/v1/conversion_test.go, TestSecretStringDataConversion:
        // stringData wins over data for the same key and is not kept.
        let mut object = Object::Secret(k8s_openapi::api::core::v1::Secret {
            data: Some(
                [
                    (
                        "username".to_owned(),
                        k8s_openapi::ByteString(b"my-app".to_vec()),
                    ),
                    (
                        "password".to_owned(),
                        k8s_openapi::ByteString(b"old".to_vec()),
                    ),
                ]
                .into(),
            ),
            string_data: Some([("password".to_owned(), "39528$vdg7Jb".to_owned())].into()),
            ..Default::default()
        });
        prepare_for_create(&mut object, &mut Rng::new(1), SimTime::ZERO);
        let Object::Secret(secret) = object else {
            unreachable!()
        };
        assert_eq!(secret.string_data, None);
        let data = secret.data.unwrap();
        assert_eq!(data["password"].0, b"39528$vdg7Jb");
        assert_eq!(data["username"].0, b"my-app");
    }
}
