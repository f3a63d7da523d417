//! `kubectl get` rows for the workloads' kinds that print more than NAME and
//! AGE (`pkg/printers/internalversion/printers.go`): Deployments
//! (`printDeployment`), replica sets (`printReplicaSet`) and jobs (`printJob`).

use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::batch::v1::Job;

use super::human_duration;
use crate::clock::SimTime;
use podflow_model::Object;

/// An object's cells but AGE: NAME, then its kind's own.
pub fn cells(o: &Object, now: SimTime) -> Vec<String> {
    let mut row = vec![o.name().to_owned()];
    match o {
        Object::Job(j) => row.extend(job_cells(j, now)),
        Object::Deployment(d) => row.extend(deployment_cells(d)),
        Object::ReplicaSet(rs) => row.extend(replica_set_cells(rs)),
        _ => {}
    }
    row
}

/// The header of each kind's table, if this module prints it.
pub fn header(kind: &str) -> Option<&'static [&'static str]> {
    match kind {
        "Job" => Some(&["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]),
        "Deployment" => Some(&["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]),
        "ReplicaSet" => Some(&["NAME", "DESIRED", "CURRENT", "READY", "AGE"]),
        _ => None,
    }
}

/// `printDeployment`: READY (`ready/desired`), UP-TO-DATE, AVAILABLE.
fn deployment_cells(deployment: &Deployment) -> Vec<String> {
    let desired = deployment.spec.replicas.unwrap_or(1);
    let status = deployment.status.clone().unwrap_or_default();
    vec![
        format!("{}/{desired}", status.ready_replicas.unwrap_or(0)),
        status.updated_replicas.unwrap_or(0).to_string(),
        status.available_replicas.unwrap_or(0).to_string(),
    ]
}

/// `printReplicaSet`: DESIRED, CURRENT, READY.
fn replica_set_cells(rs: &ReplicaSet) -> Vec<String> {
    let desired = rs.spec.replicas.unwrap_or(1);
    let status = rs.status.clone().unwrap_or_default();
    vec![
        desired.to_string(),
        status.replicas.to_string(),
        status.ready_replicas.unwrap_or(0).to_string(),
    ]
}

/// `printJob`'s cells but NAME and AGE: status, completions, duration.
pub fn job_cells(job: &Job, now: SimTime) -> Vec<String> {
    let spec = job.spec.clone().unwrap_or_default();
    let status = job.status.clone().unwrap_or_default();
    let succeeded = status.succeeded.unwrap_or(0);
    let completions = match spec.completions {
        Some(c) => format!("{succeeded}/{c}"),
        None => match spec.parallelism.unwrap_or(1) {
            p if p > 1 => format!("{succeeded}/1 of {p}"),
            _ => format!("{succeeded}/1"),
        },
    };
    let has = |t: &str| {
        status
            .conditions
            .iter()
            .flatten()
            .any(|c| c.type_ == t && c.status == "True")
    };
    let state = if has("Failed") {
        "Failed"
    } else if has("Complete") {
        "Complete"
    } else if spec.suspend == Some(true) {
        "Suspended"
    } else if has("FailureTarget") {
        "FailureTarget"
    } else if has("SuccessCriteriaMet") {
        "SuccessCriteriaMet"
    } else if job.metadata.deletion_timestamp.is_some() {
        "Terminating"
    } else {
        "Running"
    };
    let duration = status
        .start_time
        .as_ref()
        .map_or_else(String::new, |start| {
            let end = status
                .completion_time
                .as_ref()
                .map_or_else(|| now.unix().0, |t| t.0.as_second());
            human_duration(end - start.0.as_second())
        });
    vec![state.into(), completions, duration]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_rows() {
        let mut job: Job = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "pi"},
            "spec": {"completions": 3, "parallelism": 2, "template": {}},
            "status": {"succeeded": 1, "startTime": "2026-11-30T02:20:30Z"}
        }))
        .unwrap();
        let now = SimTime(45_000);
        let start = job.status.as_ref().unwrap().start_time.clone().unwrap();
        let elapsed = now.unix().0 - start.0.as_second();
        assert_eq!(
            job_cells(&job, now),
            ["Running", "1/3", &human_duration(elapsed)]
        );
        job.status = Some(
            serde_json::from_value(serde_json::json!({
                "succeeded": 3, "startTime": "2026-11-30T02:20:30Z",
                "completionTime": "2026-11-30T02:20:42Z",
                "conditions": [{"type": "Complete", "status": "True"}]
            }))
            .unwrap(),
        );
        assert_eq!(job_cells(&job, now), ["Complete", "3/3", "12s"]);
    }
}
