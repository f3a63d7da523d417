//! The resource quota controller and what a quota's refusal does to a
//! `ReplicaSet`: `status` follows `spec.hard` and the namespace's objects
//! (`pkg/controller/resourcequota/resource_quota_controller.go`), admission
//! enforces the status (`plugin/resourcequota/controller.go`), and a refused
//! create sets `ReplicaFailure` on the `ReplicaSet` and its Deployment and is
//! retried with the work queue's back-off (`pkg/controller/replicaset/replica_set.go`).

use crate::common::{apply, final_object, run, writes};
use podflow_engine::trace::{Actor, Record, StageName, TraceRecord};

/// The replicaset controller's `FailedCreate` events' messages.
fn failed_creates(records: &[TraceRecord]) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Event(e) if e.reason == "FailedCreate" => Some(e.message.clone()),
            _ => None,
        })
        .collect()
}

/// The delays of the replicaset controller's requeues, in order.
fn requeue_delays(records: &[TraceRecord]) -> Vec<u64> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Stage(s)
                if s.component == Actor::ControllerManager
                    && s.stage == StageName::Queue
                    && s.plugin.as_deref() == Some("replicaset-controller") =>
            {
                let detail = s.detail.text();
                let (_, after) = detail.split_once("requeued in ")?;
                after.split_once(" ms")?.0.parse().ok()
            }
            _ => None,
        })
        .collect()
}

/// The `ReplicaFailure` conditions written, for objects whose key starts with `prefix`.
fn failures_written(records: &[TraceRecord], prefix: &str) -> Vec<serde_json::Value> {
    writes(records)
        .into_iter()
        .filter(|(_, key, _)| key.starts_with(prefix))
        .filter_map(|(_, _, object)| {
            object?["status"]["conditions"]
                .as_array()?
                .iter()
                .find(|c| c["type"] == "ReplicaFailure")
                .cloned()
        })
        .collect()
}

fn conditions(object: &serde_json::Value) -> Vec<String> {
    object["status"]["conditions"]
        .as_array()
        .map(|c| {
            c.iter()
                .map(|c| c["type"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn raising_a_quota_lets_a_refused_replica_set_reach_its_replicas() {
    let records = run(
        None,
        &[
            &apply("pods-quota-2.yaml"),
            &apply("web-deployment.yaml"),
            "wait 1m",
            &apply("pods-quota-5.yaml"),
            "wait 3m",
        ],
        |_| {},
    );
    // `createPods` (controller_utils.go): `Error creating: ` and the API server's answer.
    let failed = failed_creates(&records);
    assert!(!failed.is_empty());
    let message = failed[0]
        .strip_prefix("Error creating: pods \"web-")
        .unwrap();
    assert!(
        message.ends_with(
            "\" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=2, limited: pods=2"
        ),
        "{message}"
    );
    // DefaultControllerRateLimiter: 5 ms doubling per failure of the key.
    let delays = requeue_delays(&records);
    assert_eq!(delays[..4], [5, 10, 20, 40], "{delays:?}");
    assert!(delays.windows(2).all(|w| w[1] == w[0] * 2), "{delays:?}");
    // calculateStatus: ReplicaFailure, reason FailedCreate, the error as message;
    // the Deployment copies it (getReplicaFailures).
    let rs_failures = failures_written(&records, "/registry/replicasets/default/web-");
    assert_eq!(rs_failures[0]["reason"], "FailedCreate");
    assert_eq!(rs_failures[0]["status"], "True");
    assert_eq!(
        format!(
            "Error creating: {}",
            rs_failures[0]["message"].as_str().unwrap()
        ),
        failed[0]
    );
    let deploy_failures = failures_written(&records, "/registry/deployments/default/web");
    assert_eq!(deploy_failures[0]["message"], rs_failures[0]["message"]);
    // The raised quota reaches the status; the requeued sync creates the third Pod.
    let quota = final_object(&records, "ResourceQuota", "pods");
    assert_eq!(quota["status"]["hard"]["pods"], "5");
    assert_eq!(quota["status"]["used"]["pods"], "3");
    let rs = crate::common::of_kind(&records, "ReplicaSet").remove(0);
    assert_eq!(rs["status"]["readyReplicas"], 3);
    assert!(!conditions(&rs).contains(&"ReplicaFailure".to_owned()));
    let deploy = final_object(&records, "Deployment", "web");
    assert!(!conditions(&deploy).contains(&"ReplicaFailure".to_owned()));
}

#[test]
fn a_quota_made_again_counts_the_pods_already_running() {
    let records = run(
        None,
        &[
            &apply("pods-quota-5.yaml"),
            &apply("web-deployment.yaml"),
            "wait 30s",
            "delete resourcequota pods",
            &apply("pods-quota-2.yaml"),
            "wait 5s",
            "scale deployment web --replicas=4",
            "wait 5s",
        ],
        |_| {},
    );
    let quota = final_object(&records, "ResourceQuota", "pods");
    assert_eq!(quota["status"]["used"]["pods"], "3");
    let failed = failed_creates(&records);
    assert!(
        failed[0].ends_with("used: pods=3, limited: pods=2"),
        "{failed:?}"
    );
}

#[test]
fn deleted_pods_give_their_quota_back() {
    let records = run(
        None,
        &[
            &apply("pods-quota-5.yaml"),
            &apply("web-deployment.yaml"),
            "wait 30s",
            "scale deployment web --replicas=1",
            "wait 1m",
        ],
        |_| {},
    );
    // replenishQuota: each deletion syncs the quota again.
    let quota = final_object(&records, "ResourceQuota", "pods");
    assert_eq!(quota["status"]["used"]["pods"], "1");
}
