//! The `ReplicaFailure` condition: a `ReplicaSet` whose Pods could not be
//! created or deleted says so in its status (`calculateStatus` in
//! `pkg/controller/replicaset/replica_set_utils.go`), and its Deployment
//! copies the condition (`getReplicaFailures` in
//! `pkg/controller/deployment/progress.go`, `ReplicaSetToDeploymentCondition`
//! in `deployment/util/deployment_util.go`).

use k8s_openapi::api::apps::v1::{
    DeploymentCondition, DeploymentStatus, ReplicaSet, ReplicaSetCondition, ReplicaSetStatus,
};

use super::deployment_util::{remove_condition, set_condition};
use crate::clock::SimTime;

/// `apps.ReplicaSetReplicaFailure`.
pub const REPLICA_FAILURE: &str = "ReplicaFailure";

/// `calculateStatus`'s failure part: a failed `manageReplicas` sets the
/// condition (once: a present one is kept), reason `FailedCreate` when there
/// were too few active Pods (`active` of `want`), `FailedDelete` when too many,
/// the error as its message; a sync without error removes it.
pub fn apply(
    status: &mut ReplicaSetStatus,
    active: usize,
    want: i32,
    error: Option<&str>,
    now: SimTime,
) {
    let present = status
        .conditions
        .iter()
        .flatten()
        .any(|c| c.type_.as_deref() == Some(REPLICA_FAILURE));
    match error {
        Some(message) if !present => {
            let active = i64::try_from(active).unwrap_or(i64::MAX);
            let reason = match active.cmp(&i64::from(want)) {
                std::cmp::Ordering::Less => "FailedCreate",
                std::cmp::Ordering::Greater => "FailedDelete",
                std::cmp::Ordering::Equal => "",
            };
            status
                .conditions
                .get_or_insert_with(Vec::new)
                .push(ReplicaSetCondition {
                    type_: Some(REPLICA_FAILURE.into()),
                    status: Some("True".into()),
                    reason: Some(reason.into()),
                    message: Some(message.to_owned()),
                    last_transition_time: Some(now.to_time()),
                });
        }
        None if present => {
            if let Some(conditions) = status.conditions.as_mut() {
                conditions.retain(|c| c.type_.as_deref() != Some(REPLICA_FAILURE));
            }
            // An emptied list is left out, as Go's `omitempty` leaves it.
            if status.conditions.as_ref().is_some_and(Vec::is_empty) {
                status.conditions = None;
            }
        }
        _ => {}
    }
}

/// `getReplicaFailures`: the new `ReplicaSet`'s failure first, else the first
/// of any other's, as a Deployment condition.
fn replica_failure(
    all: &[&ReplicaSet],
    new_rs: Option<&ReplicaSet>,
) -> Option<DeploymentCondition> {
    let failure = |rs: &ReplicaSet| {
        rs.status
            .as_ref()?
            .conditions
            .as_ref()?
            .iter()
            .find(|c| c.type_.as_deref() == Some(REPLICA_FAILURE))
            .cloned()
    };
    let cond = new_rs
        .and_then(failure)
        .or_else(|| all.iter().find_map(|rs| failure(rs)))?;
    Some(DeploymentCondition {
        type_: cond.type_,
        status: cond.status,
        last_update_time: cond.last_transition_time.clone(),
        last_transition_time: cond.last_transition_time,
        reason: cond.reason,
        message: cond.message,
    })
}

/// `syncRolloutStatus`'s last step: the Deployment carries its `ReplicaSets`'
/// failure (`SetDeploymentCondition`), or none (`RemoveDeploymentCondition`).
pub fn copy_to_deployment(
    status: &mut DeploymentStatus,
    all: &[&ReplicaSet],
    new_rs: Option<&ReplicaSet>,
) {
    match replica_failure(all, new_rs) {
        Some(cond) => set_condition(status, cond),
        None => remove_condition(status, REPLICA_FAILURE),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reasons(status: &ReplicaSetStatus) -> Vec<(String, Option<String>)> {
        status
            .conditions
            .iter()
            .flatten()
            .map(|c| (c.type_.clone().unwrap_or_default(), c.reason.clone()))
            .collect()
    }

    /// Mirrors `replica_set_utils_test.go` `TestCalculateStatusConditions`:
    /// a failed create sets `ReplicaFailure`/`FailedCreate`, a failed delete
    /// `FailedDelete`, a present condition is kept, a clean sync removes it.
    #[test]
    fn calculate_status_conditions() {
        let now = SimTime::ZERO;
        let mut status = ReplicaSetStatus::default();
        apply(&mut status, 1, 2, Some("fake manageReplicasErr"), now);
        assert_eq!(
            reasons(&status),
            [(REPLICA_FAILURE.into(), Some("FailedCreate".into()))]
        );
        // Already there: kept as it is, whatever the new error.
        apply(&mut status, 3, 2, Some("another"), now.plus(1000));
        let cond = &status.conditions.as_ref().unwrap()[0];
        assert_eq!(cond.message.as_deref(), Some("fake manageReplicasErr"));
        apply(&mut status, 2, 2, None, now);
        assert_eq!(status.conditions, None);
        apply(&mut status, 3, 2, Some("x"), now);
        assert_eq!(
            reasons(&status),
            [(REPLICA_FAILURE.into(), Some("FailedDelete".into()))]
        );
    }

    /// Mirrors `syncRolloutStatus`'s last step (`progress.go`): the new
    /// `ReplicaSet`'s condition becomes the Deployment's, and goes with it.
    #[test]
    fn deployment_copies_the_failure() {
        let mut rs = ReplicaSet::default();
        let mut rs_status = ReplicaSetStatus::default();
        apply(&mut rs_status, 0, 1, Some("quota"), SimTime::ZERO);
        rs.status = Some(rs_status);
        let mut status = DeploymentStatus::default();
        copy_to_deployment(&mut status, &[&rs], Some(&rs));
        let cond = &status.conditions.as_ref().unwrap()[0];
        assert_eq!(cond.type_.as_deref(), Some(REPLICA_FAILURE));
        assert_eq!(cond.reason.as_deref(), Some("FailedCreate"));
        assert_eq!(cond.message.as_deref(), Some("quota"));
        assert_eq!(cond.last_update_time, cond.last_transition_time);
        rs.status = Some(ReplicaSetStatus::default());
        copy_to_deployment(&mut status, &[&rs], Some(&rs));
        assert_eq!(status.conditions, Some(vec![]));
    }
}
