//! What an object charges to a `ResourceQuota`, as upstream's quota evaluators
//! count it: `pkg/quota/v1/evaluator/core/pods.go` (`PodUsageFunc`,
//! `podComputeUsageHelper`, `QuotaV1Pod`, `podMatchesScopeFunc`,
//! `MatchingResources`), `services.go`, and the object-count evaluator of
//! `pkg/quota/v1/generic/evaluator.go`. Shared by the `ResourceQuota` admission
//! plugin and the quota controller's reconcile (`resource_quota::reconcile_status`).
//!
//! Not mirrored: `QuotaV1Pod`'s "stuck terminating" rule (a Pod past its
//! deletion grace period stops counting) needs the clock; pod-level resources
//! (`spec.resources`) are not summed; storage resources of
//! `PersistentVolumeClaims` are not evaluated.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    Pod, PodAffinityTerm, PodSpec, ResourceQuota, ResourceRequirements,
    ScopedResourceSelectorRequirement, Service,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use super::quantity;
use podflow_model::quantity::{Format, ParsedQuantity};
use podflow_model::status::group_resource;
use podflow_model::{Kind, Object};

/// Used or limited amounts by resource name.
pub(crate) type Usage = BTreeMap<String, ParsedQuantity>;

/// Resources every container must state when a quota limits them (`validationSet`).
pub(crate) const VALIDATION_SET: [&str; 6] = [
    "cpu",
    "memory",
    "requests.cpu",
    "requests.memory",
    "limits.cpu",
    "limits.memory",
];

/// `podResourceList`, without the object count.
const POD_RESOURCES: [&str; 10] = [
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
];

fn one() -> ParsedQuantity {
    ParsedQuantity::from_units(1, Format::DecimalSI)
}

/// A `ResourceList` read into parsed quantities.
pub(crate) fn read(list: Option<&BTreeMap<String, Quantity>>) -> Usage {
    list.into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), quantity(v)))
        .collect()
}

/// Back to a `ResourceList`, each value in canonical form.
pub(crate) fn write(usage: &Usage) -> BTreeMap<String, Quantity> {
    usage
        .iter()
        .map(|(k, v)| (k.clone(), Quantity(v.to_string())))
        .collect()
}

/// The object-count names upstream keeps for a few core resources
/// (`legacyObjectCountAliases`, and the service and claim evaluators).
fn legacy_count(kind: &Kind) -> Option<&'static str> {
    if !kind.group.is_empty() {
        return None;
    }
    match kind.resource {
        r @ ("services"
        | "secrets"
        | "configmaps"
        | "resourcequotas"
        | "replicationcontrollers"
        | "persistentvolumeclaims") => Some(r),
        _ => None,
    }
}

/// Whether quota key `key` counts objects of `kind` (`count/deployments.apps`, `services`).
fn counts(kind: &Kind, key: &str) -> bool {
    key == format!("count/{}", group_resource(kind)) || legacy_count(kind) == Some(key)
}

/// `IsExtendedResourceName` of what follows `requests.`: a domain-prefixed
/// name outside the `kubernetes.io` namespace.
fn is_extended(name: &str) -> bool {
    name.contains('/') && !name.contains("kubernetes.io/") && !name.starts_with("requests.")
}

/// The Pod evaluator's compute resources (`MatchingResources`): the fixed list,
/// huge pages, and `requests.` of extended resources.
fn pod_resource(key: &str) -> bool {
    POD_RESOURCES.contains(&key)
        || key.starts_with("hugepages-")
        || key.starts_with("requests.hugepages-")
        || key.strip_prefix("requests.").is_some_and(is_extended)
}

/// Whether the evaluator for `kind` tracks quota key `key` (`MatchingResources`).
pub(crate) fn tracks(kind: &Kind, key: &str) -> bool {
    counts(kind, key)
        || (is_core(kind, "Pod") && pod_resource(key))
        || (is_core(kind, "Service")
            && matches!(key, "services.loadbalancers" | "services.nodeports"))
}

fn is_core(kind: &Kind, name: &str) -> bool {
    kind.group.is_empty() && kind.kind == name
}

/// `QuotaV1Pod`: a Pod that has finished (`Succeeded`, `Failed`) no longer
/// uses compute quota.
pub(crate) fn quota_v1_pod(pod: &Pod) -> bool {
    let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
    !matches!(phase, Some("Succeeded" | "Failed"))
}

/// What `object` charges: its object counts and, for a live Pod, `pods` and its
/// compute resources; for a Service its load balancers and node ports.
pub(crate) fn object_usage(object: &Object) -> Usage {
    let kind = object.kind();
    let mut usage = Usage::new();
    usage.insert(format!("count/{}", group_resource(kind)), one());
    if let Some(name) = legacy_count(kind) {
        usage.insert(name.to_owned(), one());
    }
    match object {
        Object::Pod(pod) if quota_v1_pod(pod) => {
            if let Some(spec) = &pod.spec {
                let requests = pod_total(spec, |r| r.requests.as_ref());
                let limits = pod_total(spec, |r| r.limits.as_ref());
                usage.extend(compute_usage(&requests, &limits));
            } else {
                usage.insert("pods".into(), one());
            }
        }
        Object::Service(service) => usage.extend(service_usage(service)),
        _ => {}
    }
    usage
}

/// `serviceEvaluator.Usage`: node ports and load balancers by service type.
fn service_usage(service: &Service) -> Usage {
    let spec = service.spec.as_ref();
    let ports = spec.map_or(0, |s| s.ports.as_ref().map_or(0, Vec::len));
    let count = |n: usize| {
        ParsedQuantity::from_units(i64::try_from(n).unwrap_or(i64::MAX), Format::DecimalSI)
    };
    let (node_ports, load_balancers) = match spec.and_then(|s| s.type_.as_deref()) {
        Some("NodePort") => (ports, 0),
        Some("LoadBalancer") => {
            let allocate = spec.and_then(|s| s.allocate_load_balancer_node_ports);
            let node_ports = if allocate == Some(false) {
                spec.and_then(|s| s.ports.as_ref()).map_or(0, |p| {
                    p.iter()
                        .filter(|p| p.node_port.is_some_and(|n| n != 0))
                        .count()
                })
            } else {
                ports
            };
            (node_ports, 1)
        }
        _ => (0, 0),
    };
    Usage::from([
        ("services.nodeports".to_owned(), count(node_ports)),
        ("services.loadbalancers".to_owned(), count(load_balancers)),
    ])
}

/// `podComputeUsageHelper`: `pods`, `cpu`/`requests.cpu`, `limits.cpu` and the
/// same for memory and ephemeral storage, huge pages, and `requests.` of
/// extended resources.
pub(crate) fn compute_usage(requests: &Usage, limits: &Usage) -> Usage {
    let mut usage = Usage::new();
    usage.insert("pods".into(), one());
    for resource in ["cpu", "memory", "ephemeral-storage"] {
        if let Some(request) = requests.get(resource) {
            usage.insert(resource.to_owned(), *request);
            usage.insert(format!("requests.{resource}"), *request);
        }
        if let Some(limit) = limits.get(resource) {
            usage.insert(format!("limits.{resource}"), *limit);
        }
    }
    for (resource, request) in requests {
        if resource.starts_with("hugepages-") {
            usage.insert(resource.clone(), *request);
            usage.insert(format!("requests.{resource}"), *request);
        }
        if is_extended(resource) {
            usage.insert(format!("requests.{resource}"), *request);
        }
    }
    usage
}

/// `resourcehelper.PodRequests`/`PodLimits`: the sum over containers, or the
/// largest init container when larger, plus the Pod overhead.
pub(crate) fn pod_total(
    spec: &PodSpec,
    pick: fn(&ResourceRequirements) -> Option<&BTreeMap<String, Quantity>>,
) -> Usage {
    let mut total = Usage::new();
    for container in &spec.containers {
        for (name, q) in read(container.resources.as_ref().and_then(pick)) {
            let sum = total.get(&name).map_or(q, |t| t.add(&q));
            total.insert(name, sum);
        }
    }
    for container in spec.init_containers.iter().flatten() {
        for (name, q) in read(container.resources.as_ref().and_then(pick)) {
            if total.get(&name).is_none_or(|t| q > *t) {
                total.insert(name, q);
            }
        }
    }
    for (name, q) in read(spec.overhead.as_ref()) {
        if let Some(t) = total.get_mut(&name) {
            *t = t.add(&q);
        }
    }
    total
}

/// The quota's scopes as selector requirements (`getScopeSelectorsFromQuota`):
/// each of `spec.scopes` as `Exists`, then `spec.scopeSelector`'s expressions.
fn scope_requirements(quota: &ResourceQuota) -> Vec<ScopedResourceSelectorRequirement> {
    let spec = quota.spec.as_ref();
    let mut requirements: Vec<ScopedResourceSelectorRequirement> = spec
        .and_then(|s| s.scopes.as_ref())
        .into_iter()
        .flatten()
        .map(|scope| ScopedResourceSelectorRequirement {
            scope_name: scope.clone(),
            operator: "Exists".into(),
            values: None,
        })
        .collect();
    requirements.extend(
        spec.and_then(|s| s.scope_selector.as_ref())
            .and_then(|s| s.match_expressions.clone())
            .unwrap_or_default(),
    );
    requirements
}

/// Whether the quota's scopes select this object (`generic.Matches` with
/// `podMatchesScopeFunc` for Pods; other kinds match no scope).
pub(crate) fn matches_scopes(quota: &ResourceQuota, object: &Object) -> bool {
    let requirements = scope_requirements(quota);
    if requirements.is_empty() {
        return true;
    }
    let Object::Pod(pod) = object else {
        return false;
    };
    requirements.iter().all(|r| pod_matches_scope(r, pod))
}

/// `podMatchesScopeFunc`.
fn pod_matches_scope(requirement: &ScopedResourceSelectorRequirement, pod: &Pod) -> bool {
    let spec = pod.spec.as_ref();
    let terminating = spec
        .and_then(|s| s.active_deadline_seconds)
        .is_some_and(|d| d >= 0);
    match requirement.scope_name.as_str() {
        "Terminating" => terminating,
        "NotTerminating" => !terminating,
        "BestEffort" => is_best_effort(pod),
        "NotBestEffort" => !is_best_effort(pod),
        "PriorityClass" => {
            let class = spec
                .and_then(|s| s.priority_class_name.as_deref())
                .filter(|c| !c.is_empty());
            let values = requirement.values.as_deref().unwrap_or_default();
            match requirement.operator.as_str() {
                "Exists" => class.is_some(),
                "DoesNotExist" => class.is_none(),
                "In" => class.is_some_and(|c| values.iter().any(|v| v == c)),
                "NotIn" => class.is_none_or(|c| values.iter().all(|v| v != c)),
                _ => false,
            }
        }
        "CrossNamespacePodAffinity" => uses_cross_namespace_affinity(pod),
        _ => false,
    }
}

/// `qos.GetPodQOS(pod) == BestEffort`: no container requests or limits a
/// non-zero amount of CPU or memory.
fn is_best_effort(pod: &Pod) -> bool {
    let Some(spec) = &pod.spec else {
        return true;
    };
    spec.containers
        .iter()
        .chain(spec.init_containers.iter().flatten())
        .filter_map(|c| c.resources.as_ref())
        .flat_map(|r| r.requests.iter().chain(r.limits.iter()).flatten())
        .all(|(name, q)| !matches!(name.as_str(), "cpu" | "memory") || quantity(q).is_zero())
}

/// `usesCrossNamespacePodAffinity`: a pod (anti-)affinity term naming
/// namespaces or a namespace selector.
fn uses_cross_namespace_affinity(pod: &Pod) -> bool {
    let Some(affinity) = pod.spec.as_ref().and_then(|s| s.affinity.as_ref()) else {
        return false;
    };
    let crosses = |t: &PodAffinityTerm| {
        t.namespace_selector.is_some() || t.namespaces.as_ref().is_some_and(|n| !n.is_empty())
    };
    let affinity_terms = affinity.pod_affinity.iter().flat_map(|a| {
        a.required_during_scheduling_ignored_during_execution
            .iter()
            .flatten()
            .chain(
                a.preferred_during_scheduling_ignored_during_execution
                    .iter()
                    .flatten()
                    .map(|w| &w.pod_affinity_term),
            )
    });
    let anti_terms = affinity.pod_anti_affinity.iter().flat_map(|a| {
        a.required_during_scheduling_ignored_during_execution
            .iter()
            .flatten()
            .chain(
                a.preferred_during_scheduling_ignored_during_execution
                    .iter()
                    .flatten()
                    .map(|w| &w.pod_affinity_term),
            )
    });
    affinity_terms.chain(anti_terms).any(crosses)
}
