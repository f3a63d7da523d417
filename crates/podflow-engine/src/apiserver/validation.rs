//! Object validation with Kubernetes' field errors and wording
//! (`pkg/apis/core/validation/validation.go`, `pkg/apis/apps/validation`,
//! `k8s.io/apimachinery/pkg/api/validation/objectmeta.go`,
//! `k8s.io/apimachinery/pkg/util/validation`), run where the registry's
//! strategies run it: after defaulting and mutating admission, before
//! validating admission.
//!
//! Covered: object metadata for every kind (names per kind, namespace, labels,
//! annotations, finalizers; immutable name/namespace/uid and
//! `resourceVersion` on update); Pods (containers, init containers, names,
//! images, ports, env names, volumes and mounts, pull/restart/DNS policies,
//! resources, probes, the update rules); Deployments and `ReplicaSets`
//! (replicas, selector, template); Services (ports, type, selector);
//! Nodes (taints); Leases (`ValidateLeaseSpec`); Namespaces; `PriorityClasses` (reserved names, value, policy).
//!
//! Out of scope: volume source details (only `hostPath.path`), security
//! contexts, affinity, topology spread, tolerations, DNS config, resize
//! policies, pod-level resources, ephemeral containers beyond "cannot be set
//! on create", Service IP families/cluster IPs/node ports beyond the
//! `ClusterIP` rule, RBAC rule contents, `LimitRange`/`ResourceQuota` specifics,
//! Deployment strategy. The `cmp.Diff` text upstream appends to "pod updates
//! may not change fields" is deliberately unstable in go-cmp; podflow prints a
//! diff of the same shape (changed top-level `PodSpec` fields), not the same bytes.
//!
//! Fields the defaulter fills are taken as defaulted when absent or empty.
//! Errors are returned in upstream's order; exact repeats are dropped, as the
//! `Invalid` status message (`ErrorList.ToAggregate`) drops them.

use std::fmt::Write as _;

mod coordination;
mod field;
mod meta;
mod names;
mod pod;
mod scheduling;
mod storage;
mod workloads;

use k8s_openapi::api::core::v1::{Pod, PodSpec, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use serde_json::Value;

pub use field::go_quote;
pub use names::{label_value, qualified_name};
pub use scheduling::{HIGHEST_USER_DEFINABLE_PRIORITY, SYSTEM_PRIORITY_CLASSES};
pub use workloads::{selector_is_empty, selector_matches};

use field::{forbidden, inclusive_range, invalid, invalid_raw, required};
use meta::{NameFn, validate_object_meta, validate_object_meta_update};
use names::{
    name_is_dns_label, name_is_dns_subdomain, name_is_dns1035_label, name_is_path_segment,
};
use podflow_model::object::Object;
use podflow_model::quantity::parse_k8s;
use podflow_model::status::FieldError;
use workloads::WorkloadSpec;

/// The fields a Pod update may change (`updatablePodSpecFields`).
const UPDATABLE_POD_SPEC_FIELDS: &str = "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

/// The name rule of each kind (`ValidatePodName`, `ValidateNamespaceName`, ...).
fn name_fn(object: &Object) -> NameFn {
    match object {
        Object::Namespace(_) => name_is_dns_label,
        Object::Service(_) => name_is_dns1035_label,
        Object::Role(_)
        | Object::ClusterRole(_)
        | Object::RoleBinding(_)
        | Object::ClusterRoleBinding(_) => name_is_path_segment,
        _ => name_is_dns_subdomain,
    }
}

fn dedup(errs: Vec<FieldError>) -> Vec<FieldError> {
    let mut out: Vec<FieldError> = Vec::with_capacity(errs.len());
    for e in errs {
        if !out.iter().any(|o| o.field == e.field && o.body == e.body) {
            out.push(e);
        }
    }
    out
}

/// Validates an object being created (`Validate…Create` of its registry strategy).
pub fn validate_create(object: &Object) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let namespaced = object.kind().namespaced;
    validate_object_meta(object.metadata(), namespaced, name_fn(object), &mut errs);
    validate_kind(object, &mut errs);
    if let Object::Pod(p) = object
        && let Some(spec) = &p.spec
    {
        pod::validate_pod_create_extras(spec, &mut errs);
    }
    dedup(errs)
}

/// The kind-specific part shared by create and update.
fn validate_kind(object: &Object, errs: &mut Vec<FieldError>) {
    match object {
        Object::Pod(p) => validate_pod_spec_for_pod(p, errs),
        Object::Deployment(d) => {
            let spec = &d.spec;
            let ws = WorkloadSpec {
                replicas: spec.replicas,
                min_ready_seconds: spec.min_ready_seconds,
                selector: given(&spec.selector),
                template: &spec.template,
            };
            workloads::validate_workload_spec(&ws, true, errs);
        }
        Object::ReplicaSet(r) => {
            let spec = &r.spec;
            let empty = PodTemplateSpec::default();
            let ws = WorkloadSpec {
                replicas: spec.replicas,
                min_ready_seconds: spec.min_ready_seconds,
                selector: given(&spec.selector),
                template: spec.template.as_ref().unwrap_or(&empty),
            };
            workloads::validate_workload_spec(&ws, false, errs);
        }
        Object::Service(s) => workloads::validate_service_spec(s, errs),
        Object::Node(n) => workloads::validate_node_spec(n, errs),
        Object::PriorityClass(pc) => scheduling::validate_priority_class(pc, errs),
        Object::Lease(lease) => coordination::validate_lease_spec(lease, errs),
        Object::PersistentVolumeClaim(pvc) => storage::validate_claim(pvc, errs),
        Object::PersistentVolume(pv) => storage::validate_volume(pv, errs),
        Object::StorageClass(sc) => storage::validate_storage_class(sc, errs),
        _ => {}
    }
}

/// The selector as written: `k8s-openapi` defaults a missing required
/// selector, so one with neither field set stands for the absent (nil) one.
fn given(sel: &LabelSelector) -> Option<&LabelSelector> {
    (sel.match_labels.is_some() || sel.match_expressions.is_some()).then_some(sel)
}

/// `validatePodMetadataAndSpec` minus the metadata: the spec and the pod-only checks.
fn validate_pod_spec_for_pod(p: &Pod, errs: &mut Vec<FieldError>) {
    let empty = PodSpec::default();
    let spec = p.spec.as_ref().unwrap_or(&empty);
    pod::validate_pod_spec(spec, "spec", errs);
    pod::validate_containers_only_for_pod(spec, errs);
}

/// Validates an update (`Validate…Update` of the registry strategy).
pub fn validate_update(new: &Object, old: &Object) -> Vec<FieldError> {
    let mut errs = Vec::new();
    validate_object_meta_update(new.metadata(), old.metadata(), &mut errs);
    if let (Object::Pod(n), Object::Pod(o)) = (new, old) {
        validate_object_meta(new.metadata(), true, name_fn(new), &mut errs);
        validate_pod_spec_for_pod(n, &mut errs);
        validate_pod_update(n, o, &mut errs);
        return dedup(errs);
    }
    if let (Object::PersistentVolumeClaim(n), Object::PersistentVolumeClaim(o)) = (new, old) {
        validate_object_meta(new.metadata(), true, name_fn(new), &mut errs);
        validate_kind(new, &mut errs);
        if let Some((old_spec, new_spec)) = storage::claim_spec_change(n, o) {
            let detail = format!(
                "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n{}",
                // cmp.Diff prints the *string fields as pointers.
                spec_diff_of("core.PersistentVolumeClaimSpec", &old_spec, &new_spec)
                    .replace("StorageClassName: \"", "StorageClassName: &\"")
                    .replace("VolumeMode: \"", "VolumeMode: &\"")
            );
            errs.push(forbidden("spec", &detail));
        }
        return dedup(errs);
    }
    // `ValidatePriorityClassUpdate` alone (the strategy runs no create checks).
    if let (Object::PriorityClass(n), Object::PriorityClass(o)) = (new, old) {
        scheduling::validate_priority_class_update(n, o, &mut errs);
        return dedup(errs);
    }
    if !matches!(new, Object::Namespace(_)) {
        validate_object_meta(
            new.metadata(),
            new.kind().namespaced,
            name_fn(new),
            &mut errs,
        );
        validate_kind(new, &mut errs);
    }
    dedup(errs)
}

/// Validates a write to the `status` subresource: metadata rules, and for
/// Pods that `spec.nodeName` is not changed there (`ValidatePodStatusUpdate`).
pub fn validate_status_update(new: &Object, old: &Object) -> Vec<FieldError> {
    let mut errs = Vec::new();
    validate_object_meta_update(new.metadata(), old.metadata(), &mut errs);
    if let (Object::Pod(n), Object::Pod(o)) = (new, old) {
        let node = |p: &Pod| {
            p.spec
                .as_ref()
                .and_then(|s| s.node_name.clone())
                .unwrap_or_default()
        };
        if node(n) != node(o) {
            errs.push(forbidden("status.nodeName", "may not be changed directly"));
        }
    }
    dedup(errs)
}

/// `ValidateContainerUpdates` for one list; `true` when validation must stop.
fn container_updates(
    new: &[k8s_openapi::api::core::v1::Container],
    old_len: usize,
    path: &str,
    errs: &mut Vec<FieldError>,
) -> bool {
    if new.len() != old_len {
        errs.push(forbidden(
            path,
            "pod updates may not add or remove containers",
        ));
        return true;
    }
    for (i, c) in new.iter().enumerate() {
        let image = c.image.as_deref().unwrap_or_default();
        if image.is_empty() {
            errs.push(required(&format!("{path}[{i}].image"), ""));
        }
        if image.trim() != image {
            errs.push(invalid(
                &format!("{path}[{i}].image"),
                image,
                "must not have leading or trailing whitespace",
            ));
        }
    }
    false
}

/// `validateOnlyDeletedSchedulingGates` (`pkg/apis/core/validation`): a
/// Pod's scheduling gates may be removed, never added, once it exists.
fn only_deleted_scheduling_gates(new: &PodSpec, old: &PodSpec, errs: &mut Vec<FieldError>) {
    let old_gates = old.scheduling_gates.as_deref().unwrap_or_default();
    for (i, gate) in new
        .scheduling_gates
        .as_deref()
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        if !old_gates.iter().any(|o| o.name == gate.name) {
            errs.push(forbidden(
                &format!("spec.schedulingGates[{i}].name"),
                &format!(
                    "only deletion is allowed, but found new scheduling gate '{}'",
                    gate.name
                ),
            ));
        }
    }
}

/// The update rules of `ValidatePodUpdate`.
fn validate_pod_update(new: &Pod, old: &Pod, errs: &mut Vec<FieldError>) {
    let empty = PodSpec::default();
    let (ns, os) = (
        new.spec.as_ref().unwrap_or(&empty),
        old.spec.as_ref().unwrap_or(&empty),
    );
    if container_updates(&ns.containers, os.containers.len(), "spec.containers", errs) {
        return;
    }
    let (ni, oi) = (
        ns.init_containers.clone().unwrap_or_default(),
        os.init_containers.clone().unwrap_or_default(),
    );
    if container_updates(&ni, oi.len(), "spec.initContainers", errs) {
        return;
    }
    match (ns.active_deadline_seconds, os.active_deadline_seconds) {
        (Some(n), _) if !(0..=i64::from(i32::MAX)).contains(&n) => {
            let range = inclusive_range(0, i64::from(i32::MAX));
            errs.push(invalid_raw(
                "spec.activeDeadlineSeconds",
                &n.to_string(),
                &range,
            ));
            return;
        }
        (Some(n), Some(o)) if o < n => {
            errs.push(invalid_raw(
                "spec.activeDeadlineSeconds",
                &n.to_string(),
                "must be less than or equal to previous value",
            ));
            return;
        }
        (None, Some(_)) => {
            errs.push(invalid_raw(
                "spec.activeDeadlineSeconds",
                "null",
                "must not update from a positive integer to nil value",
            ));
        }
        _ => {}
    }
    only_deleted_scheduling_gates(ns, os, errs);
    let mut munged = ns.clone();
    for (c, o) in munged.containers.iter_mut().zip(&os.containers) {
        c.image.clone_from(&o.image);
    }
    if let Some(list) = munged.init_containers.as_mut() {
        for (c, o) in list.iter_mut().zip(&oi) {
            c.image.clone_from(&o.image);
        }
    }
    munged.active_deadline_seconds = os.active_deadline_seconds;
    munged.scheduling_gates.clone_from(&os.scheduling_gates);
    munged.tolerations.clone_from(&os.tolerations);
    if os.termination_grace_period_seconds.is_some_and(|g| g < 0)
        && munged.termination_grace_period_seconds == Some(1)
    {
        munged.termination_grace_period_seconds = os.termination_grace_period_seconds;
    }
    let (old_json, new_json) = (to_json(os), to_json(&munged));
    if old_json != new_json {
        let detail = format!(
            "pod updates may not change fields other than {UPDATABLE_POD_SPEC_FIELDS}\n{}",
            spec_diff(&old_json, &new_json)
        );
        errs.push(forbidden("spec", &detail));
    }
}

fn to_json(spec: &PodSpec) -> Value {
    serde_json::to_value(spec).unwrap_or(Value::Null)
}

/// A diff in the shape of `cmp.Diff(oldPod.Spec, mungedPodSpec)`: the changed
/// top-level fields of `core.PodSpec`, old then new.
fn spec_diff(old: &Value, new: &Value) -> String {
    spec_diff_of("core.PodSpec", old, new)
}

/// [`spec_diff`] for any spec type (`core.PersistentVolumeClaimSpec`).
fn spec_diff_of(type_name: &str, old: &Value, new: &Value) -> String {
    let mut keys: Vec<&String> = old.as_object().into_iter().flat_map(|o| o.keys()).collect();
    for k in new.as_object().into_iter().flat_map(|o| o.keys()) {
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let mut out = format!("  {type_name}{{\n");
    for k in keys {
        let (o, n) = (old.get(k), new.get(k));
        if o == n {
            continue;
        }
        let go_name =
            k.get(..1).map(str::to_uppercase).unwrap_or_default() + k.get(1..).unwrap_or_default();
        let show = |v: Option<&Value>| v.map_or_else(|| "nil".to_owned(), Value::to_string);
        let _ = write!(
            out,
            "- \t{go_name}: {},\n+ \t{go_name}: {},\n",
            show(o),
            show(n)
        );
    }
    out.push_str("  }\n");
    out
}

/// The decode error the API server answers (400 `BadRequest`) when an object
/// holds a malformed quantity, or `None`.
///
/// Upstream the quantity fails inside JSON decoding (`Quantity.UnmarshalJSON`),
/// and the create/update handler wraps the error with `transformDecodeError`
/// (`staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go`):
/// `fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind,
/// gvk.Version, objGVK.Kind, baseErr)`, e.g. `Pod in version "v1" cannot be
/// handled as a Pod: quantities must match the regular expression '…'`.
pub fn decode_errors(object: &Object) -> Option<String> {
    let kind = object.kind();
    let mut quantities: Vec<&K8sQuantity> = Vec::new();
    match object {
        Object::Pod(p) => collect_spec(p.spec.as_ref(), &mut quantities),
        Object::Deployment(d) => collect_spec(d.spec.template.spec.as_ref(), &mut quantities),
        Object::ReplicaSet(r) => collect_spec(
            r.spec.template.as_ref().and_then(|t| t.spec.as_ref()),
            &mut quantities,
        ),
        Object::Node(n) => {
            if let Some(st) = &n.status {
                quantities.extend(st.capacity.iter().flatten().map(|(_, q)| q));
                quantities.extend(st.allocatable.iter().flatten().map(|(_, q)| q));
            }
        }
        Object::ResourceQuota(q) => {
            quantities.extend(
                q.spec
                    .iter()
                    .flat_map(|s| s.hard.iter().flatten())
                    .map(|(_, q)| q),
            );
            if let Some(st) = &q.status {
                quantities.extend(st.hard.iter().flatten().map(|(_, q)| q));
                quantities.extend(st.used.iter().flatten().map(|(_, q)| q));
            }
        }
        Object::LimitRange(l) => {
            for item in l.spec.iter().flat_map(|s| &s.limits) {
                for list in [
                    &item.max,
                    &item.min,
                    &item.default,
                    &item.default_request,
                    &item.max_limit_request_ratio,
                ] {
                    quantities.extend(list.iter().flatten().map(|(_, q)| q));
                }
            }
        }
        _ => {}
    }
    let err = quantities.into_iter().find_map(|q| parse_k8s(q).err())?;
    Some(format!(
        "{} in version {} cannot be handled as a {}: {err}",
        kind.kind,
        go_quote(kind.version),
        kind.kind
    ))
}

fn collect_spec<'a>(spec: Option<&'a PodSpec>, out: &mut Vec<&'a K8sQuantity>) {
    let Some(spec) = spec else { return };
    let containers = spec
        .containers
        .iter()
        .chain(spec.init_containers.iter().flatten());
    for c in containers {
        if let Some(r) = &c.resources {
            out.extend(r.limits.iter().flatten().map(|(_, q)| q));
            out.extend(r.requests.iter().flatten().map(|(_, q)| q));
        }
    }
    out.extend(spec.overhead.iter().flatten().map(|(_, q)| q));
    for v in spec.volumes.iter().flatten() {
        out.extend(v.empty_dir.as_ref().and_then(|e| e.size_limit.as_ref()));
    }
}

#[cfg(test)]
mod tests;
