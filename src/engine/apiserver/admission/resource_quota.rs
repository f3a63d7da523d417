//! `ResourceQuota` (`staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go`,
//! usage as `pkg/quota/v1/evaluator/core/pods.go` counts it): refuses an object
//! whose usage would take a `ResourceQuota` of its namespace past `hard`, and
//! charges the usage to the quota's `status.used` before the object is stored.
//!
//! Simplifications: a quota without `status.hard` (not yet seen by the quota
//! controller) is read from `spec.hard` with nothing used, where upstream refuses
//! with `status unknown for quota`; scope selectors other than the four
//! classic scopes never match.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Pod, ResourceQuota as Quota};

use super::quantity::Amount;
use super::{AdmissionRequest, Plugin, SideEffects, Verdict, deny, is_kind};
use crate::engine::apiserver::request::Operation;
use crate::model::kinds::kind_of;
use crate::model::status::group_resource;
use crate::model::{Kind, Object};

type Usage = BTreeMap<String, Amount>;

/// Resources every container must state when a quota limits them.
const VALIDATION_SET: [&str; 6] = [
    "cpu",
    "memory",
    "requests.cpu",
    "requests.memory",
    "limits.cpu",
    "limits.memory",
];

/// The `ResourceQuota` admission plugin (validating).
#[derive(Debug, Clone, Copy, Default)]
pub struct ResourceQuota;

impl Plugin for ResourceQuota {
    fn name(&self) -> &'static str {
        "ResourceQuota"
    }

    /// Creates of every kind (each has an object count), and `pods/resize`; never deletes.
    fn handles(&self, operation: Operation, kind: &Kind, subresource: Option<&str>) -> bool {
        match operation {
            Operation::Create => subresource.is_none(),
            Operation::Update => is_kind(kind, "", "Pod") && subresource == Some("resize"),
            Operation::Delete => false,
        }
    }

    fn validating(&self) -> bool {
        true
    }

    fn validate(
        &self,
        req: &AdmissionRequest<'_>,
        object: &Object,
        effects: &mut SideEffects,
    ) -> Verdict {
        if req.operation != Operation::Create {
            return Verdict::Allow;
        }
        let Some(namespace) = req.namespace.filter(|_| req.kind.namespaced) else {
            return Verdict::Allow;
        };
        let quotas: Vec<Quota> = req
            .cluster
            .list(kind_of("ResourceQuota"), Some(namespace))
            .iter()
            .filter_map(|o| match &**o {
                Object::ResourceQuota(q) => Some(q.clone()),
                _ => None,
            })
            .collect();
        let pod = object.as_pod();
        let usage = object_usage(req.kind, pod);
        for quota in quotas {
            if !matches_scopes(&quota, pod) {
                continue;
            }
            let name = quota.metadata.name.clone().unwrap_or_default();
            let hard = hard(&quota);
            let restricted: Vec<&String> = hard
                .keys()
                .filter(|k| counts(req.kind, k) || (pod.is_some() && pod_resource(k)))
                .collect();
            if restricted.is_empty() {
                continue;
            }
            if let Some(pod) = pod
                && let Some(missing) = missing_constraints(pod, &restricted)
            {
                return deny(
                    req,
                    &format!("failed quota: {name}: must specify {missing}"),
                );
            }
            let used = used(&quota);
            let requested: Usage = usage
                .iter()
                .filter(|(k, v)| hard.contains_key(*k) && v.milli != 0)
                .map(|(k, v)| (k.clone(), *v))
                .collect();
            if requested.is_empty() {
                continue;
            }
            let mut new_used = used.clone();
            for (key, value) in &requested {
                let sum = used.get(key).map_or(*value, |u| u.plus(*value));
                new_used.insert(key.clone(), sum);
            }
            let exceeded: Vec<&String> = requested
                .keys()
                .filter(|k| new_used[*k] > hard[*k])
                .collect();
            if !exceeded.is_empty() {
                let show = |list: &Usage| {
                    exceeded
                        .iter()
                        .map(|k| format!("{k}={}", list.get(*k).copied().unwrap_or(Amount::ZERO)))
                        .collect::<Vec<_>>()
                        .join(",")
                };
                return deny(
                    req,
                    &format!(
                        "exceeded quota: {name}, requested: {}, used: {}, limited: {}",
                        show(&requested),
                        show(&used),
                        show(&hard)
                    ),
                );
            }
            let mut updated = quota.clone();
            let status = updated.status.get_or_insert_default();
            status.hard.get_or_insert_with(|| {
                hard.iter()
                    .map(|(k, v)| (k.clone(), v.to_quantity()))
                    .collect()
            });
            status.used = Some(
                new_used
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_quantity()))
                    .collect(),
            );
            effects.writes.push(Object::ResourceQuota(updated));
        }
        // The charge travels as a side effect: validating plugins never change the object.
        Verdict::Allow
    }
}

/// Whether quota key `key` counts objects of `kind` (`count/deployments.apps`, `pods`).
fn counts(kind: &Kind, key: &str) -> bool {
    key == format!("count/{}", group_resource(kind))
        || (kind.group.is_empty() && legacy_count(kind) == Some(key))
}

/// The compute resources the Pod evaluator matches (`podResources` and its prefixes).
fn pod_resource(key: &str) -> bool {
    matches!(key, "cpu" | "memory" | "ephemeral-storage")
        || key.starts_with("requests.")
        || key.starts_with("limits.")
        || key.starts_with("hugepages-")
}

/// The object-count names upstream keeps for a few core resources.
fn legacy_count(kind: &Kind) -> Option<&'static str> {
    match kind.resource {
        r @ ("pods"
        | "services"
        | "secrets"
        | "configmaps"
        | "resourcequotas"
        | "replicationcontrollers"
        | "persistentvolumeclaims") => Some(r),
        _ => None,
    }
}

fn read(
    list: Option<&BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>>,
) -> Usage {
    list.into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), Amount::of(v)))
        .collect()
}

fn hard(quota: &Quota) -> Usage {
    let status = quota.status.as_ref().and_then(|s| s.hard.as_ref());
    read(status.or(quota.spec.as_ref().and_then(|s| s.hard.as_ref())))
}

fn used(quota: &Quota) -> Usage {
    read(quota.status.as_ref().and_then(|s| s.used.as_ref()))
}

/// What creating the object uses: its object counts and, for a Pod, its compute resources.
fn object_usage(kind: &Kind, pod: Option<&Pod>) -> Usage {
    let one = Amount::parse("1").unwrap_or(Amount::ZERO);
    let mut usage = Usage::new();
    usage.insert(format!("count/{}", group_resource(kind)), one);
    if kind.group.is_empty()
        && let Some(name) = legacy_count(kind)
    {
        usage.insert(name.to_owned(), one);
    }
    if let Some(spec) = pod.and_then(|p| p.spec.as_ref()) {
        let requests = pod_total(spec, |r| r.requests.as_ref());
        let limits = pod_total(spec, |r| r.limits.as_ref());
        usage.extend(compute_usage(&requests, &limits));
    }
    usage
}

/// `podComputeUsageHelper`: `cpu`/`requests.cpu`, `limits.cpu`, and the same for memory and ephemeral storage.
fn compute_usage(requests: &Usage, limits: &Usage) -> Usage {
    let mut usage = Usage::new();
    for resource in ["cpu", "memory", "ephemeral-storage"] {
        if let Some(request) = requests.get(resource) {
            usage.insert(resource.to_owned(), *request);
            usage.insert(format!("requests.{resource}"), *request);
        }
        if let Some(limit) = limits.get(resource) {
            usage.insert(format!("limits.{resource}"), *limit);
        }
    }
    usage
}

/// `resourcehelper.PodRequests`/`PodLimits`: the sum over containers, or the
/// largest init container when larger, plus the Pod overhead.
fn pod_total(
    spec: &k8s_openapi::api::core::v1::PodSpec,
    pick: fn(
        &k8s_openapi::api::core::v1::ResourceRequirements,
    )
        -> Option<&BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>>,
) -> Usage {
    let mut total = Usage::new();
    for container in &spec.containers {
        for (name, q) in read(container.resources.as_ref().and_then(pick)) {
            let sum = total.get(&name).map_or(q, |t| t.plus(q));
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
            *t = t.plus(q);
        }
    }
    total
}

/// `podEvaluator.Constraints`: every container must state the limited compute resources.
fn missing_constraints(pod: &Pod, restricted: &[&String]) -> Option<String> {
    let spec = pod.spec.as_ref()?;
    let required: Vec<&str> = restricted
        .iter()
        .map(|s| s.as_str())
        .filter(|r| VALIDATION_SET.contains(r))
        .collect();
    let mut missing: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for container in spec
        .containers
        .iter()
        .chain(spec.init_containers.iter().flatten())
    {
        let resources = container.resources.as_ref();
        let has = compute_usage(
            &read(resources.and_then(|r| r.requests.as_ref())),
            &read(resources.and_then(|r| r.limits.as_ref())),
        );
        for resource in &required {
            if !has.contains_key(*resource) {
                missing.entry(resource).or_default().push(&container.name);
            }
        }
    }
    if missing.is_empty() {
        return None;
    }
    let parts: Vec<String> = missing
        .into_iter()
        .map(|(resource, mut names)| {
            names.sort_unstable();
            names.dedup();
            format!("{resource} for: {}", names.join(","))
        })
        .collect();
    Some(parts.join("; "))
}

/// Whether the quota's scopes select this object (`podMatchesScopeFunc`).
fn matches_scopes(quota: &Quota, pod: Option<&Pod>) -> bool {
    let spec = quota.spec.as_ref();
    let mut scopes: Vec<String> = spec.and_then(|s| s.scopes.clone()).unwrap_or_default();
    let selector = spec.and_then(|s| s.scope_selector.as_ref());
    let mut selector_terms = selector
        .map(|s| s.match_expressions.clone().unwrap_or_default())
        .unwrap_or_default();
    if scopes.is_empty() && selector_terms.is_empty() {
        return true;
    }
    let Some(pod) = pod else {
        return false;
    };
    let best_effort = pod.spec.as_ref().is_some_and(|s| {
        s.containers
            .iter()
            .chain(s.init_containers.iter().flatten())
            .all(|c| {
                c.resources.as_ref().is_none_or(|r| {
                    r.requests.as_ref().is_none_or(BTreeMap::is_empty)
                        && r.limits.as_ref().is_none_or(BTreeMap::is_empty)
                })
            })
    });
    let terminating = pod
        .spec
        .as_ref()
        .is_some_and(|s| s.active_deadline_seconds.is_some());
    for term in selector_terms.drain(..) {
        if term.operator == "Exists" {
            scopes.push(term.scope_name);
        } else {
            return false;
        }
    }
    scopes.iter().all(|scope| match scope.as_str() {
        "BestEffort" => best_effort,
        "NotBestEffort" => !best_effort,
        "Terminating" => terminating,
        "NotTerminating" => !terminating,
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::apiserver::StaticCluster;
    use crate::engine::apiserver::admission::testing::{meta, pod, request};
    use k8s_openapi::api::core::v1::{ResourceQuotaSpec, ResourceQuotaStatus};
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
    use serde_json::json;

    #[allow(clippy::unnecessary_wraps)] // fits the Option fields of the quota
    fn list(pairs: &[(&str, &str)]) -> Option<BTreeMap<String, Quantity>> {
        Some(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), Quantity((*v).to_owned())))
                .collect(),
        )
    }

    fn quota(hard: &[(&str, &str)], used: &[(&str, &str)]) -> Object {
        Object::ResourceQuota(Quota {
            metadata: meta(Some("dev"), "compute"),
            spec: Some(ResourceQuotaSpec {
                hard: list(hard),
                ..ResourceQuotaSpec::default()
            }),
            status: Some(ResourceQuotaStatus {
                hard: list(hard),
                used: list(used),
            }),
        })
    }

    fn nginx(resources: &serde_json::Value) -> Object {
        pod(json!({
            "metadata": {"name": "x", "namespace": "dev"},
            "spec": {"containers": [{"name": "nginx", "image": "nginx", "resources": resources}]}
        }))
    }

    fn run(cluster: &StaticCluster, object: &Object) -> (Verdict, SideEffects) {
        let req = request(Operation::Create, "Pod", Some("dev"), "x", cluster);
        let mut effects = SideEffects::default();
        (ResourceQuota.validate(&req, object, &mut effects), effects)
    }

    /// Mirrors `resourcequota/admission_test.go` `TestAdmissionIgnoresDelete` and `TestAdmissionIgnoresSubresources`.
    #[test]
    fn admission_ignores_delete_and_subresources() {
        let pods = kind_of("Pod");
        assert!(!ResourceQuota.handles(Operation::Delete, pods, None));
        assert!(!ResourceQuota.handles(Operation::Create, pods, Some("binding")));
        assert!(ResourceQuota.handles(Operation::Create, pods, None));
    }

    /// Mirrors `TestAdmitBelowQuotaLimit`: allowed, and the quota's `status.used` is charged.
    #[test]
    fn admit_below_quota_limit() {
        let cluster = StaticCluster::new(vec![quota(
            &[
                ("requests.cpu", "3"),
                ("requests.memory", "100Gi"),
                ("pods", "5"),
            ],
            &[
                ("requests.cpu", "1"),
                ("requests.memory", "50Gi"),
                ("pods", "3"),
            ],
        )]);
        let (verdict, effects) = run(
            &cluster,
            &nginx(&json!({"requests": {"cpu": "100m", "memory": "2Gi"}})),
        );
        assert_eq!(verdict, Verdict::Allow);
        let [Object::ResourceQuota(updated)] = effects.writes.as_slice() else {
            panic!("one quota update expected, got {:?}", effects.writes);
        };
        assert_eq!(
            updated.status.as_ref().unwrap().used,
            list(&[
                ("pods", "4"),
                ("requests.cpu", "1100m"),
                ("requests.memory", "52Gi")
            ])
        );
    }

    /// Mirrors `TestAdmitExceedQuotaLimit` and `TestAdmitEnforceQuotaConstraints`.
    #[test]
    fn admit_exceed_quota_limit_and_constraints() {
        let cluster = StaticCluster::new(vec![quota(
            &[("requests.cpu", "2"), ("pods", "5")],
            &[("requests.cpu", "1"), ("pods", "1")],
        )]);
        let (verdict, effects) = run(&cluster, &nginx(&json!({"requests": {"cpu": "2"}})));
        let Verdict::Deny(status) = verdict else {
            panic!("over quota")
        };
        assert_eq!(status.code, Some(403));
        assert_eq!(
            status.message.as_deref(),
            Some(
                r#"pods "x" is forbidden: exceeded quota: compute, requested: requests.cpu=2, used: requests.cpu=1, limited: requests.cpu=2"#
            )
        );
        assert!(effects.writes.is_empty());

        let cluster = StaticCluster::new(vec![quota(
            &[("requests.cpu", "2"), ("limits.cpu", "4")],
            &[],
        )]);
        let (verdict, _) = run(&cluster, &nginx(&json!({})));
        let Verdict::Deny(status) = verdict else {
            panic!("constraints")
        };
        assert_eq!(
            status.message.as_deref(),
            Some(
                r#"pods "x" is forbidden: failed quota: compute: must specify limits.cpu for: nginx; requests.cpu for: nginx"#
            )
        );
    }

    /// Mirrors `TestAdmitBestEffortQuotaLimitIgnoresBurstable`: a scoped quota ignores other Pods.
    #[test]
    fn scoped_quota_ignores_other_pods() {
        let Object::ResourceQuota(mut q) = quota(&[("pods", "0")], &[("pods", "0")]) else {
            unreachable!()
        };
        q.spec.as_mut().unwrap().scopes = Some(vec!["BestEffort".into()]);
        let cluster = StaticCluster::new(vec![Object::ResourceQuota(q)]);
        let (verdict, _) = run(&cluster, &nginx(&json!({"requests": {"cpu": "1"}})));
        assert_eq!(verdict, Verdict::Allow);
        let (verdict, _) = run(&cluster, &nginx(&json!({})));
        assert!(matches!(verdict, Verdict::Deny(_)));
    }
}
