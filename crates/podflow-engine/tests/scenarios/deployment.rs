//! kube-controller-manager end to end: a Deployment of three replicas on the
//! default cluster becomes a `ReplicaSet` `web-<hash>` and three Pods, scheduled
//! and Running; scaling and deleting reach the Pods through the controllers.

use podflow_engine::trace::Actor;

use crate::common;
use crate::common::{apply, of_kind, run};
use podflow_engine::trace::{Record, TraceRecord};

/// The events of the trace: (reason, object kind, object name, message, source).
fn events(records: &[TraceRecord]) -> Vec<(String, String, String, String, String)> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Event(e) => Some((
                e.reason.clone(),
                e.object.kind.clone(),
                e.object.name.clone(),
                e.message.clone(),
                e.source.clone(),
            )),
            _ => None,
        })
        .collect()
}

#[test]
#[expect(clippy::too_many_lines, reason = "one scenario, checked end to end")]
fn a_deployment_makes_a_replica_set_and_three_running_pods() {
    let records = run(None, &[&apply("web-deployment.yaml")], |_| {});
    let sets = of_kind(&records, "ReplicaSet");
    assert_eq!(sets.len(), 1);
    let rs = &sets[0];
    let rs_name = rs["metadata"]["name"].as_str().unwrap();
    let hash = rs_name.strip_prefix("web-").expect("named web-<hash>");
    assert!(
        !hash.is_empty() && hash.bytes().all(|b| b"456789bcdf".contains(&b)),
        "{hash}"
    );
    assert_eq!(rs["metadata"]["labels"]["pod-template-hash"], hash);
    assert_eq!(
        rs["spec"]["template"]["metadata"]["labels"]["pod-template-hash"],
        hash
    );
    assert_eq!(
        rs["spec"]["selector"]["matchLabels"]["pod-template-hash"],
        hash
    );
    assert_eq!(
        rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"],
        "1"
    );
    assert_eq!(rs["metadata"]["ownerReferences"][0]["kind"], "Deployment");
    assert_eq!(rs["metadata"]["ownerReferences"][0]["controller"], true);
    assert_eq!(rs["status"]["replicas"], 3);
    assert_eq!(rs["status"]["readyReplicas"], 3);
    assert_eq!(rs["status"]["availableReplicas"], 3);
    assert_eq!(rs["status"]["observedGeneration"], 1);

    let pods = of_kind(&records, "Pod");
    assert_eq!(pods.len(), 3);
    for pod in &pods {
        let name = pod["metadata"]["name"].as_str().unwrap();
        let suffix = name
            .strip_prefix(&format!("{rs_name}-"))
            .expect("generated from the RS name");
        assert_eq!(suffix.len(), 5);
        assert_eq!(pod["metadata"]["generateName"], format!("{rs_name}-"));
        let owner = &pod["metadata"]["ownerReferences"][0];
        assert_eq!(owner["kind"], "ReplicaSet");
        assert_eq!(owner["name"], rs_name);
        assert_eq!(owner["uid"], rs["metadata"]["uid"]);
        assert_eq!(owner["controller"], true);
        assert_eq!(owner["blockOwnerDeletion"], true);
        assert_eq!(pod["metadata"]["labels"]["app"], "web");
        assert_eq!(pod["metadata"]["labels"]["pod-template-hash"], hash);
        assert_eq!(pod["status"]["phase"], "Running");
        assert!(
            pod["spec"]["nodeName"]
                .as_str()
                .unwrap()
                .starts_with("node-")
        );
    }

    let deployment = common::final_object(&records, "Deployment", "web");
    let status = &deployment["status"];
    assert_eq!(status["replicas"], 3);
    assert_eq!(status["updatedReplicas"], 3);
    assert_eq!(status["readyReplicas"], 3);
    assert_eq!(status["availableReplicas"], 3);
    assert_eq!(status["observedGeneration"], 1);
    assert_eq!(
        deployment["metadata"]["annotations"]["deployment.kubernetes.io/revision"],
        "1"
    );
    let conditions: Vec<(String, String, String, String)> = status["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["type"].as_str().unwrap().to_owned(),
                c["status"].as_str().unwrap().to_owned(),
                c["reason"].as_str().unwrap().to_owned(),
                c["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let cond = |t: &str, s: &str, r: &str, m: &str| {
        (t.to_owned(), s.to_owned(), r.to_owned(), m.to_owned())
    };
    assert_eq!(
        conditions,
        [
            cond(
                "Available",
                "True",
                "MinimumReplicasAvailable",
                "Deployment has minimum availability."
            ),
            cond(
                "Progressing",
                "True",
                "NewReplicaSetAvailable",
                &format!("ReplicaSet \"{rs_name}\" has successfully progressed.")
            ),
        ]
    );

    // The controllers' events, in upstream's order and words.
    let controller_events: Vec<_> = events(&records)
        .into_iter()
        .filter(|e| e.4.ends_with("-controller"))
        .collect();
    let mut expected = vec![(
        "ScalingReplicaSet".to_owned(),
        "Deployment".to_owned(),
        "web".to_owned(),
        format!("Scaled up replica set {rs_name} from 0 to 3"),
        "deployment-controller".to_owned(),
    )];
    let created: Vec<_> = controller_events
        .iter()
        .filter(|e| e.0 == "SuccessfulCreate")
        .cloned()
        .collect();
    assert_eq!(created.len(), 3);
    for e in &created {
        assert_eq!(
            (e.1.as_str(), e.2.as_str(), e.4.as_str()),
            ("ReplicaSet", rs_name, "replicaset-controller")
        );
        let pod = e.3.strip_prefix("Created pod: ").unwrap();
        assert!(pods.iter().any(|p| p["metadata"]["name"] == pod), "{pod}");
    }
    expected.extend(created);
    assert_eq!(controller_events, expected);
}

#[test]
fn scaling_down_deletes_pods_and_scaling_up_creates_them() {
    let records = run(
        None,
        &[
            &apply("web-deployment.yaml"),
            "wait idle",
            "scale deployment web --replicas=5",
            "wait idle",
            "scale deployment web --replicas=1",
        ],
        |_| {},
    );
    let rs_name = of_kind(&records, "ReplicaSet")[0]["metadata"]["name"]
        .as_str()
        .unwrap()
        .to_owned();
    let scaling: Vec<String> = events(&records)
        .into_iter()
        .filter(|e| e.0 == "ScalingReplicaSet")
        .map(|e| e.3)
        .collect();
    assert_eq!(
        scaling,
        [
            format!("Scaled up replica set {rs_name} from 0 to 3"),
            format!("Scaled up replica set {rs_name} from 3 to 5"),
            format!("Scaled down replica set {rs_name} from 5 to 1"),
        ]
    );
    let all = events(&records);
    assert_eq!(all.iter().filter(|e| e.0 == "SuccessfulCreate").count(), 5);
    let deleted: Vec<_> = all.iter().filter(|e| e.0 == "SuccessfulDelete").collect();
    assert_eq!(deleted.len(), 4);
    assert!(
        deleted
            .iter()
            .all(|e| e.3.starts_with(&format!("Deleted pod: {rs_name}-"))
                && e.4 == "replicaset-controller")
    );
    assert_eq!(of_kind(&records, "Pod").len(), 1);
    // kubectl scale patches the scale subresource (`scale.ScaleREST`).
    let scale_patches = records
        .iter()
        .filter(|r| {
            matches!(&r.body, Record::Message { from, label, .. }
                if *from == Actor::Kubectl && label == "PATCH /apis/apps/v1/namespaces/default/deployments/web/scale")
        })
        .count();
    assert_eq!(scale_patches, 2);
    let rs = &of_kind(&records, "ReplicaSet")[0];
    assert_eq!(rs["spec"]["replicas"], 1);
    assert_eq!(rs["status"]["replicas"], 1);
    let deployment = common::final_object(&records, "Deployment", "web");
    assert_eq!(deployment["status"]["replicas"], 1);
    assert_eq!(deployment["status"]["availableReplicas"], 1);
    assert_eq!(deployment["status"]["observedGeneration"], 3);
}

#[test]
fn deleting_the_deployment_removes_its_replica_set_and_pods() {
    let records = run(
        None,
        &[
            &apply("web-deployment.yaml"),
            "wait idle",
            "delete deployment web",
        ],
        |_| {},
    );
    assert!(of_kind(&records, "Deployment").is_empty());
    assert!(of_kind(&records, "ReplicaSet").is_empty());
    assert!(of_kind(&records, "Pod").is_empty());
    let gc_deletes = records
        .iter()
        .filter(|r| {
            matches!(&r.body, Record::Message { from, label, .. }
            if *from == Actor::ControllerManager && label.starts_with("DELETE"))
        })
        .count();
    assert_eq!(gc_deletes, 4, "the ReplicaSet, then its three Pods");
}

#[test]
fn a_new_template_rolls_out_one_surge_pod_at_a_time() {
    let records = run(
        None,
        &[
            &apply("web-deployment.yaml"),
            "wait idle",
            &apply("web-deployment-v2.yaml"),
        ],
        |_| {},
    );
    let sets = of_kind(&records, "ReplicaSet");
    assert_eq!(sets.len(), 2);
    let name = |rs: &serde_json::Value| rs["metadata"]["name"].as_str().unwrap().to_owned();
    let (old, new) = if sets[0]["spec"]["replicas"] == 0 {
        (name(&sets[0]), name(&sets[1]))
    } else {
        (name(&sets[1]), name(&sets[0]))
    };
    let scaling: Vec<String> = events(&records)
        .into_iter()
        .filter(|e| e.0 == "ScalingReplicaSet")
        .map(|e| e.3)
        .collect();
    // 25 % of 3: a surge of 1 and no unavailability (rolling.go).
    assert_eq!(
        scaling,
        [
            format!("Scaled up replica set {old} from 0 to 3"),
            format!("Scaled up replica set {new} from 0 to 1"),
            format!("Scaled down replica set {old} from 3 to 2"),
            format!("Scaled up replica set {new} from 1 to 2"),
            format!("Scaled down replica set {old} from 2 to 1"),
            format!("Scaled up replica set {new} from 2 to 3"),
            format!("Scaled down replica set {old} from 1 to 0"),
        ]
    );
    let pods = of_kind(&records, "Pod");
    assert_eq!(pods.len(), 3);
    assert!(
        pods.iter()
            .all(|p| p["metadata"]["ownerReferences"][0]["name"] == new.as_str())
    );
    let deployment = common::final_object(&records, "Deployment", "web");
    assert_eq!(
        deployment["metadata"]["annotations"]["deployment.kubernetes.io/revision"],
        "2"
    );
    assert_eq!(deployment["status"]["updatedReplicas"], 3);
}

#[test]
fn old_replica_sets_beyond_the_revision_history_limit_are_deleted() {
    // cleanupDeployment (sync.go): with revisionHistoryLimit 1, after three
    // revisions the oldest scaled-down ReplicaSet is deleted.
    let records = run(
        None,
        &[
            &apply("web-history-v1.yaml"),
            "wait idle",
            &apply("web-history-v2.yaml"),
            "wait idle",
            &apply("web-history-v3.yaml"),
            "wait idle",
        ],
        |_| {},
    );
    let sets = of_kind(&records, "ReplicaSet");
    let revisions: Vec<&str> = sets
        .iter()
        .map(|rs| {
            rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(sets.len(), 2, "{revisions:?}");
    assert!(revisions.contains(&"2") && revisions.contains(&"3"));
    let deletes = records
        .iter()
        .filter(|r| {
            matches!(&r.body, Record::Message { from, label, .. }
                if *from == Actor::ControllerManager && label.starts_with("DELETE /apis/apps/v1/namespaces/default/replicasets/"))
        })
        .count();
    assert_eq!(deletes, 1);
    assert_eq!(of_kind(&records, "Pod").len(), 2);
}

#[test]
fn a_paused_deployment_scales_but_does_not_roll_out_until_resumed() {
    let records = run(
        None,
        &[
            &apply("web-deployment.yaml"),
            "wait idle",
            &apply("web-deployment-paused-v2.yaml"),
            "wait idle",
            "scale deployment web --replicas=4",
            "wait idle",
        ],
        |_| {},
    );
    assert_eq!(
        of_kind(&records, "ReplicaSet").len(),
        1,
        "no new ReplicaSet while paused"
    );
    let deployment = common::final_object(&records, "Deployment", "web");
    let progressing = deployment["status"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "Progressing")
        .unwrap()
        .clone();
    assert_eq!(progressing["status"], "Unknown");
    assert_eq!(progressing["reason"], "DeploymentPaused");
    assert_eq!(progressing["message"], "Deployment is paused");
    let rs = &of_kind(&records, "ReplicaSet")[0];
    assert_eq!(rs["spec"]["replicas"], 4, "scaling still happens");
    // Resumed (the file without paused), the rollout proceeds.
    let resumed = run(
        None,
        &[
            &apply("web-deployment.yaml"),
            "wait idle",
            &apply("web-deployment-paused-v2.yaml"),
            "wait idle",
            &apply("web-deployment-v2.yaml"),
            "wait idle",
        ],
        |_| {},
    );
    assert_eq!(of_kind(&resumed, "ReplicaSet").len(), 2);
    let d = common::final_object(&resumed, "Deployment", "web");
    assert_eq!(d["status"]["updatedReplicas"], 3);
}

/// A rolling update of 6 replicas with `maxSurge: 2, maxUnavailable: 1`,
/// checked after every write of the whole trace: the `ReplicaSets` never ask
/// for more than 6 + 2 Pods, no more than 8 Pods exist that are not being
/// deleted, and once all 6 were Ready, never fewer than 6 − 1 are
/// (`pkg/controller/deployment/rolling.go`, `reconcileNewReplicaSet`,
/// `reconcileOldReplicaSets`; `deploymentutil.MaxSurge`/`MaxUnavailable`).
#[test]
fn a_rolling_update_stays_within_max_surge_and_max_unavailable_at_every_write() {
    let records = run(
        None,
        &[
            &apply("web-rolling.yaml"),
            "wait idle",
            &apply("web-rolling-v2.yaml"),
        ],
        |_| {},
    );
    let bounds = common::rollout_bounds(&records, "default/web-", 6);
    assert_eq!(
        bounds.max_asked, 8,
        "the ReplicaSets asked for at most 6 + maxSurge"
    );
    assert_eq!(
        bounds.max_live, 8,
        "at most 6 + maxSurge Pods not being deleted"
    );
    assert_eq!(
        bounds.min_ready,
        Some(5),
        "never fewer than 6 - maxUnavailable Ready"
    );
    let pods = of_kind(&records, "Pod");
    assert_eq!(pods.len(), 6);
    assert!(
        pods.iter()
            .all(|p| p["spec"]["containers"][0]["image"] == "nginx:1.28")
    );
}
