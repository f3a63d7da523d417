//! `ResourceQuota` (`staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go`,
//! usage as `pkg/quota/v1/evaluator/core/pods.go` counts it): refuses an object
//! whose usage would take a `ResourceQuota` of its namespace past its
//! `status.hard`, and charges the usage to the quota's `status.used` before the
//! object is stored. Only the status counts, as upstream: a quota the quota
//! controller has not synced yet (no `status.hard`) limits nothing, and one
//! whose `status.used` misses a limited resource refuses with `status unknown
//! for quota`. [`sync_status`] is the quota controller's sync
//! (`pkg/controller/resourcequota/resource_quota_controller.go`, `syncResourceQuota`).

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::core::v1::{ResourceQuota as Quota, ResourceQuotaStatus};

use super::quota_usage::{
    Usage, VALIDATION_SET, compute_usage, matches_scopes, object_usage, read, tracks, write,
};
use super::{AdmissionRequest, Plugin, SideEffects, Verdict, deny, is_kind, zero};
use crate::apiserver::request::Operation;
use podflow_model::kinds::kind_of;
use podflow_model::{Kind, Object};

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
        // Measured only when a quota asks (`checkQuotas` returns early without quotas).
        let mut usage: Option<Usage> = None;
        for quota in quotas {
            if !matches_scopes(&quota, object) {
                continue;
            }
            let name = quota.metadata.name.clone().unwrap_or_default();
            let hard = hard(&quota);
            let restricted: Vec<&String> = hard.keys().filter(|k| tracks(req.kind, k)).collect();
            if restricted.is_empty() {
                continue;
            }
            if let Some(pod) = object.as_pod()
                && let Some(missing) = missing_constraints(pod, &restricted)
            {
                return deny(
                    req,
                    &format!("failed quota: {name}: must specify {missing}"),
                );
            }
            let used = used(&quota);
            if !has_usage_stats(&used, &restricted) {
                // `prettyPrintResourceNames`: sorted, comma-separated.
                let names: Vec<&str> = restricted.iter().map(|s| s.as_str()).collect();
                return deny(
                    req,
                    &format!(
                        "status unknown for quota: {name}, resources: {}",
                        names.join(",")
                    ),
                );
            }
            let requested: Usage = usage
                .get_or_insert_with(|| object_usage(object))
                .iter()
                .filter(|(k, v)| hard.contains_key(*k) && !v.is_zero())
                .map(|(k, v)| (k.clone(), *v))
                .collect();
            if requested.is_empty() {
                continue;
            }
            let mut new_used = used.clone();
            for (key, value) in &requested {
                let sum = used.get(key).map_or(*value, |u| u.add(value));
                new_used.insert(key.clone(), sum);
            }
            let exceeded: Vec<&String> = requested
                .keys()
                .filter(|k| new_used[*k] > hard[*k])
                .collect();
            if !exceeded.is_empty() {
                // `prettyPrint` of each list masked to the exceeded names.
                let show = |list: &Usage| {
                    exceeded
                        .iter()
                        .filter_map(|k| list.get(*k).map(|v| format!("{k}={v}")))
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
            status.used = Some(write(&new_used));
            effects.writes.push(Object::ResourceQuota(updated));
        }
        // The charge travels as a side effect: validating plugins never change the object.
        Verdict::Allow
    }
}

/// The quota controller's sync of one quota (`syncResourceQuota`):
/// `status.hard` becomes `spec.hard`, and `status.used` the usage, for each
/// resource of `spec.hard`, of the `objects` in the quota's namespace that its
/// scopes select. Only resources `counted` says the controller can count are
/// computed; the others keep their last `status.used` (zero when none), as
/// upstream keeps a past observation no evaluator replaced. A Pod that has
/// finished counts only in `count/pods` (`QuotaV1Pod`). `objects` may hold
/// any kinds and namespaces.
pub fn sync_status(
    quota: &Quota,
    objects: &[Arc<Object>],
    counted: impl Fn(&str) -> bool,
) -> ResourceQuotaStatus {
    let spec_hard = quota.spec.as_ref().and_then(|s| s.hard.clone());
    let hard = read(spec_hard.as_ref());
    let before = read(quota.status.as_ref().and_then(|s| s.used.as_ref()));
    let mut used: Usage = hard
        .keys()
        .map(|k| {
            let kept = before.get(k).filter(|_| !counted(k)).copied();
            (k.clone(), kept.unwrap_or_else(zero))
        })
        .collect();
    let namespace = quota.metadata.namespace.as_deref();
    for object in objects {
        if object.namespace() != namespace
            || !object.kind().namespaced
            || !matches_scopes(quota, object)
        {
            continue;
        }
        for (key, value) in object_usage(object) {
            if let Some(total) = used.get_mut(&key).filter(|_| counted(&key)) {
                *total = total.add(&value);
            }
        }
    }
    ResourceQuotaStatus {
        used: spec_hard.as_ref().map(|_| write(&used)),
        hard: spec_hard,
    }
}

/// [`sync_status`] over every kind: the status a cluster file's quota starts with.
pub fn reconcile_status(quota: &Quota, objects: &[Arc<Object>]) -> Quota {
    let mut reconciled = quota.clone();
    reconciled.status = Some(sync_status(quota, objects, |_| true));
    reconciled
}

/// `status.hard`: what the quota controller last copied from the spec.
fn hard(quota: &Quota) -> Usage {
    read(quota.status.as_ref().and_then(|s| s.hard.as_ref()))
}

/// `status.used`.
fn used(quota: &Quota) -> Usage {
    read(quota.status.as_ref().and_then(|s| s.used.as_ref()))
}

/// `hasUsageStats`: every limited resource the object's evaluator tracks has a usage.
fn has_usage_stats(used: &Usage, restricted: &[&String]) -> bool {
    restricted.iter().all(|r| used.contains_key(*r))
}

/// `podEvaluator.Constraints`: every container must state the limited compute resources.
fn missing_constraints(
    pod: &k8s_openapi::api::core::v1::Pod,
    restricted: &[&String],
) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::StaticCluster;
    use crate::apiserver::admission::testing::{meta, pod, request};
    use k8s_openapi::api::core::v1::{ResourceQuotaSpec, ResourceQuotaStatus};
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
    use serde_json::json;
    use std::sync::Arc;

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

    /// Resource names and quantities, as the tables write them.
    type Pairs = &'static [(&'static str, &'static str)];

    /// A Pod in `ns` with one container's requests/limits, a phase and optional extras.
    fn pod_in(ns: &str, name: &str, resources: &serde_json::Value, phase: &str) -> Arc<Object> {
        Arc::new(pod(json!({
            "metadata": {"name": name, "namespace": ns},
            "spec": {"containers": [{"name": "c", "image": "nginx", "resources": resources}]},
            "status": {"phase": phase}
        })))
    }

    fn spec_quota(hard: &[(&str, &str)], scopes: &[&str]) -> Quota {
        Quota {
            metadata: meta(Some("dev"), "compute"),
            spec: Some(ResourceQuotaSpec {
                hard: list(hard),
                scopes: (!scopes.is_empty())
                    .then(|| scopes.iter().map(|s| (*s).to_owned()).collect()),
                ..ResourceQuotaSpec::default()
            }),
            status: None,
        }
    }

    /// Mirrors `resource_quota_controller_test.go` `TestSyncResourceQuota`'s
    /// cases "pods" and "non-matching-best-effort-scoped-quota": two running
    /// Pods of 100m/1Gi and a failed one.
    #[test]
    fn reconcile_status_as_test_sync_resource_quota() {
        let upstream = |phase: &str, name: &str| {
            pod_in(
                "dev",
                name,
                &json!({"requests": {"cpu": "100m", "memory": "1Gi"}}),
                phase,
            )
        };
        let items = vec![
            upstream("Running", "pod-running"),
            upstream("Running", "pod-running-2"),
            upstream("Failed", "pod-failed"),
        ];
        let hard = [("cpu", "3"), ("memory", "100Gi"), ("pods", "5")];
        let cases: [(&str, &[&str], Pairs); 2] = [
            (
                "pods",
                &[],
                &[("cpu", "200m"), ("memory", "2Gi"), ("pods", "2")],
            ),
            (
                "non-matching-best-effort-scoped-quota",
                &["BestEffort"],
                &[("cpu", "0"), ("memory", "0"), ("pods", "0")],
            ),
        ];
        for (name, scopes, want) in cases {
            let status = reconcile_status(&spec_quota(&hard, scopes), &items)
                .status
                .unwrap();
            assert_eq!(status.hard, list(&hard), "{name}");
            assert_eq!(status.used, list(want), "{name}");
        }
    }

    /// `reconcile_status` on a mixed namespace: terminal Pods, other namespaces,
    /// other kinds, scopes, resources nothing uses.
    #[test]
    fn reconcile_status_table() {
        let pods = vec![
            pod_in(
                "dev",
                "a",
                &json!({"requests": {"cpu": "100m", "memory": "1Gi"}, "limits": {"cpu": "200m", "memory": "2Gi"}}),
                "Running",
            ),
            pod_in("dev", "b", &json!({"requests": {"cpu": "150m"}}), "Pending"),
            pod_in(
                "dev",
                "done",
                &json!({"requests": {"cpu": "1"}}),
                "Succeeded",
            ),
            pod_in(
                "dev",
                "failed",
                &json!({"requests": {"cpu": "1"}}),
                "Failed",
            ),
            pod_in("dev", "besteffort", &json!({}), "Running"),
            pod_in(
                "other",
                "elsewhere",
                &json!({"requests": {"cpu": "5"}}),
                "Running",
            ),
            Arc::new(Object::ConfigMap(k8s_openapi::api::core::v1::ConfigMap {
                metadata: meta(Some("dev"), "settings"),
                ..Default::default()
            })),
        ];
        let cases: [(&str, Quota, Pairs); 5] = [
            (
                "pods: live pods count, terminal ones only in count/pods",
                spec_quota(
                    &[
                        ("cpu", "3"),
                        ("requests.memory", "10Gi"),
                        ("limits.cpu", "4"),
                        ("limits.memory", "8Gi"),
                        ("pods", "5"),
                        ("count/pods", "10"),
                    ],
                    &[],
                ),
                &[
                    ("count/pods", "5"),
                    ("cpu", "250m"),
                    ("limits.cpu", "200m"),
                    ("limits.memory", "2Gi"),
                    ("pods", "3"),
                    ("requests.memory", "1Gi"),
                ],
            ),
            (
                "nothing used: zero for every hard resource",
                spec_quota(
                    &[("requests.storage", "1Ti"), ("count/deployments.apps", "2")],
                    &[],
                ),
                &[("count/deployments.apps", "0"), ("requests.storage", "0")],
            ),
            (
                "object counts of other kinds",
                spec_quota(&[("configmaps", "3"), ("count/configmaps", "3")], &[]),
                &[("configmaps", "1"), ("count/configmaps", "1")],
            ),
            (
                "BestEffort scope: only pods without cpu or memory",
                spec_quota(&[("pods", "5"), ("configmaps", "3")], &["BestEffort"]),
                &[("configmaps", "0"), ("pods", "1")],
            ),
            (
                "NotBestEffort scope",
                spec_quota(&[("pods", "5"), ("requests.cpu", "2")], &["NotBestEffort"]),
                &[("pods", "2"), ("requests.cpu", "250m")],
            ),
        ];
        for (name, quota, want) in cases {
            let reconciled = reconcile_status(&quota, &pods);
            let status = reconciled.status.unwrap();
            assert_eq!(status.hard, quota.spec.as_ref().unwrap().hard, "{name}");
            assert_eq!(status.used, list(want), "{name}");
            assert_eq!(reconciled.spec, quota.spec, "{name}");
        }
    }

    /// Admission after a reconcile: the used amount includes the file's Pods.
    #[test]
    fn admission_sees_reconciled_usage() {
        let existing = vec![pod_in(
            "dev",
            "a",
            &json!({"requests": {"cpu": "1500m"}}),
            "Running",
        )];
        let quota = reconcile_status(&spec_quota(&[("requests.cpu", "2")], &[]), &existing);
        let cluster = StaticCluster::new(vec![Object::ResourceQuota(quota)]);
        let (verdict, _) = run(&cluster, &nginx(&json!({"requests": {"cpu": "1"}})));
        let Verdict::Deny(status) = verdict else {
            panic!("over quota")
        };
        assert_eq!(
            status.message.as_deref(),
            Some(
                r#"pods "x" is forbidden: exceeded quota: compute, requested: requests.cpu=1, used: requests.cpu=1500m, limited: requests.cpu=2"#
            )
        );
    }

    /// Mirrors `checkRequest` in `controller.go`: a quota is read from its
    /// status only (`evaluator.Matches` looks at `status.hard`), so an
    /// unsynced quota limits nothing and a raised spec waits for the
    /// controller; a limited resource without usage is `status unknown`
    /// (`hasUsageStats`, `admission_test.go` `TestHasUsageStats`).
    #[test]
    fn only_the_status_counts() {
        let unsynced = spec_quota(&[("pods", "0")], &[]);
        let cluster = StaticCluster::new(vec![Object::ResourceQuota(unsynced)]);
        let (verdict, effects) = run(&cluster, &nginx(&json!({})));
        assert_eq!(verdict, Verdict::Allow);
        assert!(effects.writes.is_empty());

        // The spec was raised, the status not yet: the status's limit holds.
        let Object::ResourceQuota(mut raised) = quota(&[("pods", "1")], &[("pods", "1")]) else {
            unreachable!()
        };
        raised.spec.as_mut().unwrap().hard = list(&[("pods", "5")]);
        let cluster = StaticCluster::new(vec![Object::ResourceQuota(raised)]);
        let (verdict, _) = run(&cluster, &nginx(&json!({})));
        let Verdict::Deny(status) = verdict else {
            panic!("the status still says 1")
        };
        assert!(
            status
                .message
                .as_deref()
                .unwrap()
                .ends_with("limited: pods=1"),
            "{status:?}"
        );

        let cluster = StaticCluster::new(vec![quota(
            &[("pods", "5"), ("requests.cpu", "2")],
            &[("pods", "1")],
        )]);
        let (verdict, _) = run(&cluster, &nginx(&json!({"requests": {"cpu": "1"}})));
        let Verdict::Deny(status) = verdict else {
            panic!("usage unknown")
        };
        assert_eq!(
            status.message.as_deref(),
            Some(
                r#"pods "x" is forbidden: status unknown for quota: compute, resources: pods,requests.cpu"#
            )
        );
    }

    /// `syncResourceQuota` keeps the last usage of what it cannot count and
    /// recomputes the rest (`resource_quota_controller.go`: `used` starts from
    /// `status.used`, `CalculateUsage` overwrites what it counts; the shape of
    /// `resource_quota_controller_test.go` `TestSyncResourceQuota`).
    #[test]
    fn sync_keeps_what_it_cannot_count() {
        let Object::ResourceQuota(mut q) = quota(
            &[("pods", "5"), ("count/configmaps", "3")],
            &[("pods", "4"), ("count/configmaps", "2")],
        ) else {
            unreachable!()
        };
        q.spec.as_mut().unwrap().hard = list(&[("pods", "6"), ("count/configmaps", "3")]);
        let existing = vec![pod_in("dev", "a", &json!({}), "Running")];
        let status = sync_status(&q, &existing, |k| k == "pods");
        assert_eq!(
            status.hard,
            list(&[("pods", "6"), ("count/configmaps", "3")])
        );
        assert_eq!(
            status.used,
            list(&[("pods", "1"), ("count/configmaps", "2")])
        );
    }
}
