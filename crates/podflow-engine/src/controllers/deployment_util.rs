//! The Deployment controller's arithmetic (`pkg/controller/deployment/util/deployment_util.go`):
//! surge and unavailability from `maxSurge`/`maxUnavailable`, the new
//! `ReplicaSet`'s size, the annotations it carries, and the Deployment's
//! status and conditions (`pkg/controller/deployment/sync.go`, `calculateStatus`;
//! `progress.go`, `syncRolloutStatus`).

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::{Deployment, DeploymentCondition, DeploymentStatus, ReplicaSet};
use k8s_openapi::api::core::v1::PodTemplateSpec;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use crate::clock::SimTime;

/// `apps.DefaultDeploymentUniqueLabelKey`.
pub const HASH_LABEL: &str = "pod-template-hash";
/// `deployment.kubernetes.io/revision`.
pub const REVISION: &str = "deployment.kubernetes.io/revision";
/// `deployment.kubernetes.io/desired-replicas`.
pub const DESIRED_REPLICAS: &str = "deployment.kubernetes.io/desired-replicas";
/// `deployment.kubernetes.io/max-replicas`.
pub const MAX_REPLICAS: &str = "deployment.kubernetes.io/max-replicas";
/// Annotations never copied from a Deployment to its `ReplicaSets` (`annotationsToSkip`).
pub const SKIPPED: [&str; 6] = [
    "kubectl.kubernetes.io/last-applied-configuration",
    REVISION,
    "deployment.kubernetes.io/revision-history",
    DESIRED_REPLICAS,
    MAX_REPLICAS,
    "deprecated.deployment.rollback.to",
];

/// `MinimumReplicasAvailable` and the other condition reasons upstream uses.
pub const MINIMUM_REPLICAS_AVAILABLE: &str = "MinimumReplicasAvailable";
pub const MINIMUM_REPLICAS_UNAVAILABLE: &str = "MinimumReplicasUnavailable";
pub const NEW_RS_CREATED: &str = "NewReplicaSetCreated";
pub const FOUND_NEW_RS: &str = "FoundNewReplicaSet";
pub const RS_UPDATED: &str = "ReplicaSetUpdated";
pub const NEW_RS_AVAILABLE: &str = "NewReplicaSetAvailable";

/// `spec.replicas`, defaulted to 1.
pub fn replicas(d: &Deployment) -> i32 {
    d.spec.replicas.unwrap_or(1)
}

/// An RS's `spec.replicas`.
pub fn rs_replicas(rs: &ReplicaSet) -> i32 {
    super::replicaset::replicas_of(rs)
}

fn is_rolling(d: &Deployment) -> bool {
    d.spec
        .strategy
        .as_ref()
        .and_then(|s| s.type_.as_deref())
        .is_none_or(|t| t == "RollingUpdate")
}

/// `GetScaledValueFromIntOrPercent`.
pub fn scaled_value(value: &IntOrString, total: i32, round_up: bool) -> i32 {
    match value {
        IntOrString::Int(v) => *v,
        IntOrString::String(s) => {
            let percent: i64 = s.trim_end_matches('%').parse().unwrap_or(0);
            let product = percent.saturating_mul(i64::from(total));
            let scaled = if round_up {
                product.saturating_add(99).div_euclid(100)
            } else {
                product.div_euclid(100)
            };
            i32::try_from(scaled).unwrap_or(i32::MAX)
        }
    }
}

/// `ResolveFenceposts`: (surge, unavailable) for `desired` replicas; never both zero.
pub fn resolve_fenceposts(
    surge: Option<&IntOrString>,
    unavailable: Option<&IntOrString>,
    desired: i32,
) -> (i32, i32) {
    let quarter = IntOrString::String("25%".into());
    let surge = scaled_value(surge.unwrap_or(&quarter), desired, true);
    let unavailable = scaled_value(unavailable.unwrap_or(&quarter), desired, false);
    if surge == 0 && unavailable == 0 {
        (0, 1)
    } else {
        (surge, unavailable)
    }
}

fn fenceposts(d: &Deployment) -> (i32, i32) {
    let rolling = d
        .spec
        .strategy
        .as_ref()
        .and_then(|s| s.rolling_update.as_ref());
    resolve_fenceposts(
        rolling.and_then(|r| r.max_surge.as_ref()),
        rolling.and_then(|r| r.max_unavailable.as_ref()),
        replicas(d),
    )
}

/// `MaxSurge`: 0 unless rolling.
pub fn max_surge(d: &Deployment) -> i32 {
    if is_rolling(d) { fenceposts(d).0 } else { 0 }
}

/// `MaxUnavailable`: 0 unless rolling (or no replicas), at most the replicas.
pub fn max_unavailable(d: &Deployment) -> i32 {
    if !is_rolling(d) || replicas(d) == 0 {
        return 0;
    }
    fenceposts(d).1.min(replicas(d))
}

/// `NewRSNewReplicas`: how big the new `ReplicaSet` may be now.
pub fn new_rs_new_replicas(d: &Deployment, all: &[&ReplicaSet], new_rs_replicas: i32) -> i32 {
    if !is_rolling(d) {
        return replicas(d);
    }
    let current = all
        .iter()
        .fold(0_i32, |sum, rs| sum.saturating_add(rs_replicas(rs)));
    let max_total = replicas(d).saturating_add(max_surge(d));
    if current >= max_total {
        return new_rs_replicas;
    }
    let scale_up = (max_total - current).min(replicas(d) - new_rs_replicas);
    new_rs_replicas + scale_up
}

/// `EqualIgnoreHash`: two templates alike but for the `pod-template-hash` label.
pub fn equal_ignore_hash(a: &PodTemplateSpec, b: &PodTemplateSpec) -> bool {
    let strip = |t: &PodTemplateSpec| {
        let mut t = t.clone();
        if let Some(labels) = t.metadata.as_mut().and_then(|m| m.labels.as_mut()) {
            labels.remove(HASH_LABEL);
        }
        t
    };
    strip(a) == strip(b)
}

/// An annotation parsed as a number.
pub fn annotation_number(annotations: Option<&BTreeMap<String, String>>, key: &str) -> Option<i64> {
    annotations?.get(key)?.parse().ok()
}

/// `copyDeploymentAnnotationsToReplicaSet`; whether anything changed.
pub fn copy_annotations(d: &Deployment, rs: &mut BTreeMap<String, String>) -> bool {
    let mut changed = false;
    for (k, v) in d.metadata.annotations.iter().flatten() {
        if SKIPPED.contains(&k.as_str()) || rs.get(k) == Some(v) {
            continue;
        }
        rs.insert(k.clone(), v.clone());
        changed = true;
    }
    changed
}

/// `SetReplicasAnnotations`; whether anything changed.
pub fn set_replicas_annotations(
    annotations: &mut BTreeMap<String, String>,
    desired: i32,
    max: i32,
) -> bool {
    let mut changed = false;
    for (key, value) in [(DESIRED_REPLICAS, desired), (MAX_REPLICAS, max)] {
        let value = value.to_string();
        if annotations.get(key) != Some(&value) {
            annotations.insert(key.to_owned(), value);
            changed = true;
        }
    }
    changed
}

/// `NewDeploymentCondition` at `now`.
pub fn condition(
    type_: &str,
    status: &str,
    reason: &str,
    message: String,
    now: SimTime,
) -> DeploymentCondition {
    DeploymentCondition {
        type_: Some(type_.to_owned()),
        status: Some(status.to_owned()),
        reason: Some(reason.to_owned()),
        message: Some(message),
        last_update_time: Some(now.to_time()),
        last_transition_time: Some(now.to_time()),
    }
}

/// `GetDeploymentCondition`.
pub fn get_condition<'a>(
    status: &'a DeploymentStatus,
    type_: &str,
) -> Option<&'a DeploymentCondition> {
    status
        .conditions
        .as_ref()?
        .iter()
        .find(|c| c.type_.as_deref() == Some(type_))
}

/// `SetDeploymentCondition`: the same status and reason is no change; the
/// same status keeps its transition time; the condition goes last.
pub fn set_condition(status: &mut DeploymentStatus, mut new: DeploymentCondition) {
    if let Some(current) = get_condition(status, new.type_.as_deref().unwrap_or_default()) {
        if current.status == new.status && current.reason == new.reason {
            return;
        }
        if current.status == new.status {
            new.last_transition_time
                .clone_from(&current.last_transition_time);
        }
    }
    let conditions = status.conditions.get_or_insert_with(Vec::new);
    conditions.retain(|c| c.type_ != new.type_);
    conditions.push(new);
}

/// `RemoveDeploymentCondition`.
pub fn remove_condition(status: &mut DeploymentStatus, type_: &str) {
    if let Some(conditions) = status.conditions.as_mut() {
        conditions.retain(|c| c.type_.as_deref() != Some(type_));
    }
}

fn sum(rss: &[&ReplicaSet], f: impl Fn(&ReplicaSet) -> i32) -> i32 {
    rss.iter().map(|rs| f(rs)).sum()
}

fn status_of(rs: &ReplicaSet) -> k8s_openapi::api::apps::v1::ReplicaSetStatus {
    rs.status.clone().unwrap_or_default()
}

/// `GetAvailableReplicaCountForReplicaSets`.
pub fn available(rss: &[&ReplicaSet]) -> i32 {
    sum(rss, |rs| status_of(rs).available_replicas.unwrap_or(0))
}

/// `calculateStatus`: the counts over every `ReplicaSet`, and the `Available` condition.
pub fn calculate_status(
    d: &Deployment,
    all: &[&ReplicaSet],
    new_rs: Option<&ReplicaSet>,
    now: SimTime,
) -> DeploymentStatus {
    let available = available(all);
    let total = sum(all, rs_replicas);
    let terminating = all
        .iter()
        .map(|rs| status_of(rs).terminating_replicas)
        .try_fold(0, |acc, t| t.map(|t| acc + t));
    let current = d.status.clone().unwrap_or_default();
    let mut status = DeploymentStatus {
        observed_generation: d.metadata.generation,
        replicas: Some(sum(all, |rs| status_of(rs).replicas)),
        updated_replicas: Some(new_rs.map_or(0, |rs| status_of(rs).replicas)),
        ready_replicas: Some(sum(all, |rs| status_of(rs).ready_replicas.unwrap_or(0))),
        available_replicas: Some(available),
        unavailable_replicas: Some((total - available).max(0)),
        terminating_replicas: terminating,
        collision_count: current.collision_count,
        conditions: current.conditions,
    };
    if available >= replicas(d) - max_unavailable(d) {
        set_condition(
            &mut status,
            condition(
                "Available",
                "True",
                MINIMUM_REPLICAS_AVAILABLE,
                "Deployment has minimum availability.".into(),
                now,
            ),
        );
    } else {
        set_condition(
            &mut status,
            condition(
                "Available",
                "False",
                MINIMUM_REPLICAS_UNAVAILABLE,
                "Deployment does not have minimum availability.".into(),
                now,
            ),
        );
    }
    status
}

/// `DeploymentComplete`.
pub fn complete(d: &Deployment, status: &DeploymentStatus) -> bool {
    let want = Some(replicas(d));
    status.updated_replicas == want
        && status.replicas == want
        && status.available_replicas == want
        && status.observed_generation >= d.metadata.generation
}

/// `DeploymentProgressing`: more updated, ready or available replicas, or fewer old ones.
pub fn progressing(d: &Deployment, new: &DeploymentStatus) -> bool {
    let old = d.status.clone().unwrap_or_default();
    let n = |v: Option<i32>| v.unwrap_or(0);
    let old_old = n(old.replicas) - n(old.updated_replicas);
    let new_old = n(new.replicas) - n(new.updated_replicas);
    n(new.updated_replicas) > n(old.updated_replicas)
        || new_old < old_old
        || n(new.ready_replicas) > n(old.ready_replicas)
        || n(new.available_replicas) > n(old.available_replicas)
}

/// `syncRolloutStatus`'s status: `calculateStatus` plus the `Progressing`
/// condition, and the `ReplicaSets`' `ReplicaFailure` copied.
pub fn rollout_status(
    d: &Deployment,
    all: &[&ReplicaSet],
    new_rs: Option<&ReplicaSet>,
    now: SimTime,
) -> DeploymentStatus {
    let mut status = progress_status(d, all, new_rs, now);
    super::replica_failure::copy_to_deployment(&mut status, all, new_rs);
    status
}

/// `calculateStatus` plus the `Progressing` condition.
fn progress_status(
    d: &Deployment,
    all: &[&ReplicaSet],
    new_rs: Option<&ReplicaSet>,
    now: SimTime,
) -> DeploymentStatus {
    let mut status = calculate_status(d, all, new_rs, now);
    let has_deadline = d.spec.progress_deadline_seconds.is_some();
    if !has_deadline {
        remove_condition(&mut status, "Progressing");
        return status;
    }
    let current = d
        .status
        .as_ref()
        .and_then(|s| get_condition(s, "Progressing"))
        .cloned();
    let is_complete = status.replicas == status.updated_replicas
        && current.as_ref().and_then(|c| c.reason.as_deref()) == Some(NEW_RS_AVAILABLE);
    if is_complete {
        return status;
    }
    let name = new_rs
        .and_then(|rs| rs.metadata.name.clone())
        .unwrap_or_default();
    if complete(d, &status) {
        set_condition(
            &mut status,
            condition(
                "Progressing",
                "True",
                NEW_RS_AVAILABLE,
                format!("ReplicaSet \"{name}\" has successfully progressed."),
                now,
            ),
        );
    } else if progressing(d, &status) {
        let mut new = condition(
            "Progressing",
            "True",
            RS_UPDATED,
            format!("ReplicaSet \"{name}\" is progressing."),
            now,
        );
        if let Some(current) = current {
            if current.status.as_deref() == Some("True") {
                new.last_transition_time = current.last_transition_time;
            }
            remove_condition(&mut status, "Progressing");
        }
        set_condition(&mut status, new);
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fenceposts_round_surge_up_and_unavailable_down() {
        // pkg/controller/deployment/util/deployment_util_test.go, TestResolveFenceposts.
        let s = |v: &str| IntOrString::String(v.into());
        let i = IntOrString::Int;
        assert_eq!(
            resolve_fenceposts(Some(&s("0%")), Some(&s("0%")), 0),
            (0, 1)
        );
        assert_eq!(
            resolve_fenceposts(Some(&s("39%")), Some(&s("39%")), 10),
            (4, 3)
        );
        assert_eq!(resolve_fenceposts(Some(&i(0)), Some(&i(1)), 10), (0, 1));
        assert_eq!(resolve_fenceposts(None, None, 3), (1, 0));
        assert_eq!(resolve_fenceposts(None, None, 4), (1, 1));
        assert_eq!(resolve_fenceposts(None, None, 10), (3, 2));
        // The largest replica count validation allows: no overflow.
        assert_eq!(
            resolve_fenceposts(Some(&s("999999999999%")), None, i32::MAX),
            (i32::MAX, 536_870_911)
        );
    }

    #[test]
    fn the_largest_deployment_never_overflows() {
        let d: Deployment = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "x"},
            "spec": {"replicas": i32::MAX, "selector": {},
                "strategy": {"type": "RollingUpdate"}, "template": {}}
        }))
        .unwrap();
        let rs: ReplicaSet = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "x-1"},
            "spec": {"replicas": i32::MAX, "selector": {}}
        }))
        .unwrap();
        assert_eq!(new_rs_new_replicas(&d, &[&rs, &rs], 5), 5);
        assert_eq!(max_surge(&d), 536_870_912);
    }

    #[test]
    fn conditions_keep_their_transition_time() {
        let mut status = DeploymentStatus::default();
        set_condition(
            &mut status,
            condition(
                "Available",
                "False",
                MINIMUM_REPLICAS_UNAVAILABLE,
                "x".into(),
                SimTime(0),
            ),
        );
        set_condition(
            &mut status,
            condition(
                "Progressing",
                "True",
                NEW_RS_CREATED,
                "y".into(),
                SimTime(0),
            ),
        );
        set_condition(
            &mut status,
            condition(
                "Available",
                "False",
                MINIMUM_REPLICAS_UNAVAILABLE,
                "x".into(),
                SimTime(5000),
            ),
        );
        let types: Vec<_> = status
            .conditions
            .iter()
            .flatten()
            .map(|c| c.type_.clone().unwrap())
            .collect();
        assert_eq!(types, ["Available", "Progressing"]);
        set_condition(
            &mut status,
            condition(
                "Available",
                "True",
                MINIMUM_REPLICAS_AVAILABLE,
                "z".into(),
                SimTime(9000),
            ),
        );
        let types: Vec<_> = status
            .conditions
            .iter()
            .flatten()
            .map(|c| c.type_.clone().unwrap())
            .collect();
        assert_eq!(types, ["Progressing", "Available"]);
    }
}
