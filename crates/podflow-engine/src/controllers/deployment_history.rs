//! Two Deployment decisions outside the rollout itself
//! (`pkg/controller/deployment/sync.go`): `checkPausedConditions`, which
//! marks a paused (or resumed) Deployment's `Progressing` condition, and
//! `cleanupDeployment`, which deletes the oldest scaled-down `ReplicaSets`
//! beyond `revisionHistoryLimit`.

use k8s_openapi::api::apps::v1::{Deployment, DeploymentStatus, ReplicaSet};

use super::deployment_util::{
    REVISION, annotation_number, condition, get_condition, set_condition,
};
use crate::clock::SimTime;

/// `PausedDeployReason`.
pub const PAUSED: &str = "DeploymentPaused";
/// `ResumedDeployReason`.
pub const RESUMED: &str = "DeploymentResumed";

/// `checkPausedConditions`: the status with `Progressing` set `Unknown`
/// (`DeploymentPaused`, `Deployment is paused`) when the Deployment was just
/// paused, or (`DeploymentResumed`, `Deployment is resumed`) just resumed;
/// `None` when nothing changes. Only for a Deployment with a progress deadline.
pub fn paused_condition(d: &Deployment, now: SimTime) -> Option<DeploymentStatus> {
    d.spec.progress_deadline_seconds?;
    let paused = d.spec.paused == Some(true);
    let mut status = d.status.clone().unwrap_or_default();
    let marked_paused =
        get_condition(&status, "Progressing").is_some_and(|c| c.reason.as_deref() == Some(PAUSED));
    let (reason, message) = match (paused, marked_paused) {
        (true, false) => (PAUSED, "Deployment is paused"),
        (false, true) => (RESUMED, "Deployment is resumed"),
        _ => return None,
    };
    set_condition(
        &mut status,
        condition("Progressing", "Unknown", reason, message.to_owned(), now),
    );
    Some(status)
}

/// The revision of a `ReplicaSet` (its `deployment.kubernetes.io/revision`).
fn revision(rs: &ReplicaSet) -> i64 {
    annotation_number(rs.metadata.annotations.as_ref(), REVISION).unwrap_or(0)
}

/// `cleanupDeployment`: the next old `ReplicaSet` to delete, if the live old
/// ones outnumber `revisionHistoryLimit`. Oldest revision first (ties by
/// creation time); one still holding replicas, not yet observed at its
/// generation, or being deleted is kept.
pub fn to_clean_up<'a>(d: &Deployment, olds: &[&'a ReplicaSet]) -> Option<&'a ReplicaSet> {
    let limit = usize::try_from(d.spec.revision_history_limit?).unwrap_or(0);
    let mut alive: Vec<&ReplicaSet> = olds
        .iter()
        .copied()
        .filter(|rs| rs.metadata.deletion_timestamp.is_none())
        .collect();
    let surplus = alive.len().checked_sub(limit).filter(|n| *n > 0)?;
    alive.sort_by(|a, b| {
        let created = |rs: &ReplicaSet| rs.metadata.creation_timestamp.as_ref().map(|t| t.0);
        revision(a)
            .cmp(&revision(b))
            .then_with(|| created(a).cmp(&created(b)))
            .then_with(|| a.metadata.name.cmp(&b.metadata.name))
    });
    alive.into_iter().take(surplus).find(|rs| {
        let status = rs.status.clone().unwrap_or_default();
        status.replicas == 0
            && rs.spec.replicas.unwrap_or(1) == 0
            && rs.metadata.generation <= status.observed_generation
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment(paused: bool, limit: i32) -> Deployment {
        serde_json::from_value(json!({
            "metadata": {"name": "web", "generation": 2},
            "spec": {
                "paused": paused,
                "revisionHistoryLimit": limit,
                "progressDeadlineSeconds": 600,
                "selector": {"matchLabels": {"app": "web"}},
                "template": {"metadata": {"labels": {"app": "web"}}}
            },
            "status": {"conditions": [{"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable"}]}
        }))
        .unwrap()
    }

    fn rs(name: &str, revision: i64, replicas: i32) -> ReplicaSet {
        serde_json::from_value(json!({
            "metadata": {"name": name, "generation": 1,
                         "annotations": {"deployment.kubernetes.io/revision": revision.to_string()}},
            "spec": {"replicas": replicas, "selector": {}},
            "status": {"replicas": replicas, "observedGeneration": 1}
        }))
        .unwrap()
    }

    fn reason(status: &DeploymentStatus) -> (Option<String>, Option<String>) {
        let c = get_condition(status, "Progressing").unwrap();
        (c.status.clone(), c.reason.clone())
    }

    #[test]
    fn pausing_and_resuming_mark_progressing_unknown() {
        let paused = paused_condition(&deployment(true, 10), SimTime::ZERO).unwrap();
        assert_eq!(
            reason(&paused),
            (Some("Unknown".into()), Some(PAUSED.into()))
        );
        let mut d = deployment(true, 10);
        d.status = Some(paused.clone());
        assert_eq!(paused_condition(&d, SimTime::ZERO), None, "already marked");
        d.spec.paused = Some(false);
        let resumed = paused_condition(&d, SimTime::ZERO).unwrap();
        assert_eq!(
            reason(&resumed),
            (Some("Unknown".into()), Some(RESUMED.into()))
        );
        assert_eq!(
            paused_condition(&deployment(false, 10), SimTime::ZERO),
            None
        );
    }

    #[test]
    fn cleanup_deletes_the_oldest_scaled_down_revisions_beyond_the_limit() {
        let (r1, r2, r3) = (rs("web-1", 1, 0), rs("web-2", 2, 0), rs("web-3", 3, 0));
        let d = deployment(false, 1);
        assert_eq!(
            to_clean_up(&d, &[&r3, &r1, &r2]).map(|r| r.metadata.name.as_deref()),
            Some(Some("web-1"))
        );
        assert_eq!(to_clean_up(&d, &[&r3]), None, "within the limit");
        // An old ReplicaSet still holding Pods is kept; the next surplus one goes.
        let busy = rs("web-1", 1, 2);
        assert_eq!(
            to_clean_up(&d, &[&busy, &r2, &r3]).map(|r| r.metadata.name.as_deref()),
            Some(Some("web-2"))
        );
        // revisionHistoryLimit 0 deletes every scaled-down old ReplicaSet.
        assert!(to_clean_up(&deployment(false, 0), &[&r3]).is_some());
    }
}
