//! Nodes that report, and a node that stops reporting: the kubelets renew
//! their Leases every 10 s and patch their status when it changes; a faulted
//! node goes `Unknown` after the 50 s grace period, is tainted unreachable,
//! its pods are deleted after their 300 s `tolerationSeconds` and replaced on
//! other nodes; a recovered node is `Ready` again, its taints gone.

use crate::common::{apply, final_object, final_objects, run};
use podflow_engine::trace::{Outcome, Record, StageName, TraceRecord};

/// When each message from `from` whose label starts with `label` was sent, in ms.
fn sent(records: &[TraceRecord], from: &str, label: &str) -> Vec<u64> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Message {
                from: f, label: l, ..
            } if f.to_string() == from && l.starts_with(label) => Some(r.t_ms),
            _ => None,
        })
        .collect()
}

/// The events with `reason`: (time, object name, message, source).
fn events(records: &[TraceRecord], reason: &str) -> Vec<(u64, String, String, String)> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Event(e) if e.reason == reason => Some((
                r.t_ms,
                e.object.name.clone(),
                e.message.clone(),
                e.source.clone(),
            )),
            _ => None,
        })
        .collect()
}

/// When the stage `component`/`stage` with `outcome` was first recorded.
fn stage_at(
    records: &[TraceRecord],
    component: &str,
    stage: StageName,
    outcome: Outcome,
) -> Option<u64> {
    records.iter().find_map(|r| match &r.body {
        Record::Stage(s)
            if s.component.to_string() == component && s.stage == stage && s.outcome == outcome =>
        {
            Some(r.t_ms)
        }
        _ => None,
    })
}

const LEASE_PUT: &str = "PUT /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1";

#[test]
fn leases_are_renewed_every_ten_seconds_while_time_passes() {
    let records = run(None, &["wait 60s"], |_| {});
    let puts = sent(&records, "kubelet/node-1", LEASE_PUT);
    assert!(puts.len() >= 5, "{puts:?}");
    assert_eq!(
        puts[0], 10_002,
        "the first renewal GETs the Lease, then PUTs it"
    );
    for pair in puts[1..].windows(2) {
        assert_eq!(pair[1] - pair[0], 10_000, "{puts:?}");
    }
    let lease = final_object(&records, "Lease", "node-1");
    assert_eq!(lease["metadata"]["namespace"], "kube-node-lease");
    assert_eq!(lease["spec"]["holderIdentity"], "node-1");
    assert_eq!(lease["spec"]["leaseDurationSeconds"], 40);
    assert_eq!(lease["metadata"]["ownerReferences"][0]["kind"], "Node");
    // Nothing changed on the nodes: no status PATCH before the 5-minute report.
    assert!(
        sent(
            &records,
            "kubelet/node-1",
            "PATCH /api/v1/nodes/node-1/status"
        )
        .is_empty()
    );
}

#[test]
fn heartbeats_do_not_keep_the_cluster_busy() {
    let records = run(None, &[], |_| {});
    assert!(
        records.iter().all(|r| r.t_ms == 0),
        "an idle cluster ends at once"
    );
}

#[test]
fn the_node_status_lists_a_pulled_image() {
    let records = run(None, &[&apply("web-deployment.yaml"), "wait 30s"], |_| {});
    let pod = final_objects(&records)
        .into_iter()
        .find(|o| o["kind"] == "Pod")
        .expect("a pod");
    let node_name = pod["spec"]["nodeName"].as_str().unwrap().to_owned();
    let patches = sent(
        &records,
        &format!("kubelet/{node_name}"),
        &format!("PATCH /api/v1/nodes/{node_name}/status"),
    );
    assert_eq!(patches.len(), 1, "one PATCH after the pull: {patches:?}");
    let node = final_object(&records, "Node", &node_name);
    let images = node["status"]["images"].as_array().unwrap();
    let names: Vec<&str> = images[0]["names"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n.as_str())
        .collect();
    assert!(
        names[0].starts_with("docker.io/library/nginx@sha256:"),
        "{names:?}"
    );
    assert_eq!(names[1], "docker.io/library/nginx:1.27");
    assert!(
        images[0]["sizeBytes"].as_i64() > images[1]["sizeBytes"].as_i64(),
        "largest first"
    );
    assert_eq!(images[1]["names"][0], "registry.k8s.io/pause:3.10");
    assert_eq!(node["status"]["conditions"][3]["type"], "Ready");
}

fn condition<'a>(node: &'a serde_json::Value, type_: &str) -> &'a serde_json::Value {
    node["status"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == type_)
        .unwrap()
}

fn taints(node: &serde_json::Value) -> Vec<(String, String)> {
    node["spec"]["taints"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            (
                t["key"].as_str().unwrap().to_owned(),
                t["effect"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The pods (name, node, phase, terminating) of the final store.
fn pods(records: &[TraceRecord]) -> Vec<(String, String, String, bool)> {
    final_objects(records)
        .into_iter()
        .filter(|o| o["kind"] == "Pod")
        .map(|p| {
            (
                p["metadata"]["name"].as_str().unwrap().to_owned(),
                p["spec"]["nodeName"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                p["status"]["phase"].as_str().unwrap_or_default().to_owned(),
                p["metadata"]["deletionTimestamp"].is_string(),
            )
        })
        .collect()
}

#[test]
#[expect(clippy::too_many_lines, reason = "one scenario, checked end to end")]
fn a_silent_node_goes_unknown_its_pods_are_evicted_and_replaced() {
    let steps = [
        apply("web-deployment.yaml"),
        "wait idle".to_owned(),
        "fault node node-1".to_owned(),
        "wait 7m".to_owned(),
    ];
    let steps: Vec<&str> = steps.iter().map(String::as_str).collect();
    let records = run(None, &steps, |_| {});
    let before = pods(&run(None, &steps[..2], |_| {}));
    let on_node_1: Vec<&String> = before
        .iter()
        .filter(|p| p.1 == "node-1")
        .map(|p| &p.0)
        .collect();
    assert!(!on_node_1.is_empty(), "{before:?}");

    let fault = stage_at(
        &records,
        "kubelet/node-1",
        StageName::Fault,
        Outcome::Partitioned,
    )
    .expect("fault");
    // The kubelet is silent from then on.
    assert!(
        sent(&records, "kubelet/node-1", LEASE_PUT)
            .iter()
            .all(|t| *t < fault)
    );
    // The Lease was last renewed before the fault (at the start, when the fault came first).
    let last_renewal = sent(&records, "kubelet/node-1", LEASE_PUT)
        .last()
        .copied()
        .unwrap_or(0);

    // The Node goes Unknown past the 50 s grace period, not before.
    let unknown = sent(
        &records,
        "kube-controller-manager",
        "PUT /api/v1/nodes/node-1/status",
    );
    assert_eq!(unknown.len(), 1, "{unknown:?}");
    assert!(
        unknown[0] > last_renewal + 50_000,
        "{unknown:?} {last_renewal}"
    );
    assert!(
        unknown[0] <= last_renewal + 55_000,
        "the next 5 s monitor pass"
    );
    let node_events = events(&records, "NodeNotReady");
    assert_eq!(
        (node_events[0].1.as_str(), node_events[0].2.as_str()),
        ("node-1", "Node node-1 status is now: NodeNotReady")
    );
    for pod in &on_node_1 {
        assert!(
            node_events
                .iter()
                .any(|e| &&e.1 == pod && e.2 == "Node is not ready" && e.3 == "node-controller"),
            "{node_events:?}"
        );
    }
    let tainted = sent(
        &records,
        "kube-controller-manager",
        "PATCH /api/v1/nodes/node-1",
    );
    assert_eq!(tainted.len(), 1);

    // Evicted 300 s after the NoExecute taint, not before.
    let evictions = events(&records, "TaintManagerEviction");
    assert_eq!(evictions.len(), on_node_1.len(), "{evictions:?}");
    for (at, pod, message, source) in &evictions {
        assert!(on_node_1.contains(&pod));
        assert_eq!(message, &format!("Marking for deletion Pod default/{pod}"));
        assert_eq!(source, "taint-eviction-controller");
        assert!(
            *at >= tainted[0] + 300_000 && *at < tainted[0] + 301_000,
            "{at}"
        );
    }

    let node = final_object(&records, "Node", "node-1");
    let ready = condition(&node, "Ready");
    assert_eq!(ready["status"], "Unknown");
    assert_eq!(ready["reason"], "NodeStatusUnknown");
    assert_eq!(ready["message"], "Kubelet stopped posting node status.");
    assert_eq!(
        taints(&node),
        [
            (
                "node.kubernetes.io/unreachable".to_owned(),
                "NoSchedule".to_owned()
            ),
            (
                "node.kubernetes.io/unreachable".to_owned(),
                "NoExecute".to_owned()
            ),
        ]
    );

    // The evicted pods stay Terminating (their kubelet cannot hear of it);
    // their replacements run elsewhere.
    let after = pods(&records);
    for pod in &on_node_1 {
        let p = after.iter().find(|p| &&p.0 == pod).expect("still there");
        assert!(p.3, "{p:?} is terminating");
        let evicted = final_object(&records, "Pod", pod);
        let disruption = evicted["status"]["conditions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["type"] == "DisruptionTarget")
            .cloned()
            .unwrap();
        assert_eq!(disruption["reason"], "DeletionByTaintManager");
        let ready = condition(&evicted, "Ready");
        assert_eq!(ready["status"], "False", "MarkPodsNotReady");
    }
    let live: Vec<_> = after.iter().filter(|p| !p.3).collect();
    assert_eq!(live.len(), 3, "{after:?}");
    assert!(
        live.iter().all(|p| p.1 != "node-1" && p.2 == "Running"),
        "{live:?}"
    );
}

#[test]
fn a_recovered_node_is_ready_again_and_untainted() {
    let records = run(
        None,
        &[
            &apply("web-deployment.yaml"),
            "wait idle",
            "fault node node-1",
            "wait 2m",
            "recover node node-1",
            "wait 30s",
        ],
        |_| {},
    );
    assert!(
        stage_at(
            &records,
            "kubelet/node-1",
            StageName::Fault,
            Outcome::Recovered
        )
        .is_some()
    );
    let node = final_object(&records, "Node", "node-1");
    let ready = condition(&node, "Ready");
    assert_eq!(ready["status"], "True");
    assert_eq!(ready["reason"], "KubeletReady");
    assert!(taints(&node).is_empty(), "{:?}", taints(&node));
    let ready_events = events(&records, "NodeReady");
    assert_eq!(ready_events[0].2, "Node node-1 status is now: NodeReady");
    // Within the 300 s toleration: nothing was evicted, and the deletions were cancelled.
    assert!(
        events(&records, "TaintManagerEviction")
            .iter()
            .all(|e| e.2.starts_with("Cancelling deletion of Pod default/"))
    );
    assert!(pods(&records).iter().all(|p| !p.3 && p.2 == "Running"));
}

#[test]
fn fault_names_a_node_that_exists() {
    let records = run(None, &["fault node node-9"], |_| {});
    assert!(records.iter().any(|r| matches!(
        &r.body,
        Record::Log { line, .. } if line == "error: no node \"node-9\" to fault"
    )));
}

/// `kubectl delete node` leaves the node's Pods to the pod garbage collector
/// (`pkg/controller/podgc/gc_controller.go`, `gcOrphaned`): its pass every
/// 20 s (`gcCheckPeriod`) finds nginx bound to a node its cache lacks and
/// quarantines the node for 40 s (`quarantineTime`); the pass after that GETs
/// the node (404), marks the Pod `Failed` with `DisruptionTarget`
/// (`DeletionByPodGC`) through `pods/status` and deletes it with a grace
/// period of 0. Meanwhile the deleted node's kubelet keeps posting its status
/// and gets 404 each time, as upstream's `tryUpdateNodeStatus` does (it does
/// not register again until restarted: `registrationCompleted`).
#[test]
fn a_deleted_nodes_pods_are_deleted_by_the_pod_garbage_collector() {
    let records = run(
        None,
        &[
            &format!(
                "apply -f {}/assets/manifests/nginx-pod.yaml",
                crate::common::REPO
            ),
            "wait idle",
            "delete node node-3",
            "wait idle",
        ],
        |_| {},
    );
    let gc_stage = |outcome: Outcome| {
        records.iter().find_map(|r| match &r.body {
            Record::Stage(s)
                if s.stage == StageName::Sync
                    && s.plugin.as_deref() == Some("pod-garbage-collector")
                    && s.outcome == outcome =>
            {
                Some((r.t_ms, s.detail.to_string()))
            }
            _ => None,
        })
    };
    let (quarantined, detail) = gc_stage(Outcome::Scheduled).expect("a quarantine");
    assert_eq!(quarantined, 20_000, "{detail}");
    assert!(detail.contains("node node-3"), "{detail}");
    let gets = sent(
        &records,
        "kube-controller-manager",
        "GET /api/v1/nodes/node-3",
    );
    // The garbage collector's live look-up of the Lease's owner, at once;
    // the pod garbage collector's after the quarantine.
    assert_eq!(gets.len(), 2, "{gets:?}");
    assert!(gets[0] < 20_000, "{gets:?}");
    assert_eq!(gets[1], 60_000);
    let (_, orphan) = gc_stage(Outcome::Orphan).expect("an orphan");
    assert_eq!(
        orphan,
        "Found orphaned Pod default/nginx assigned to the Node node-3, deleting"
    );
    let patch = sent(
        &records,
        "kube-controller-manager",
        "PATCH /api/v1/namespaces/default/pods/nginx/status",
    );
    let delete = sent(
        &records,
        "kube-controller-manager",
        "DELETE /api/v1/namespaces/default/pods/nginx",
    );
    assert_eq!(patch.len(), 1);
    assert_eq!(delete.len(), 1);
    assert!(patch[0] < delete[0]);
    assert!(gc_stage(Outcome::Delete).is_some());
    assert!(
        !final_objects(&records)
            .iter()
            .any(|o| o["kind"] == "Pod" && o["metadata"]["name"] == "nginx"),
        "nginx is gone"
    );
    // The kubelet of node-3 keeps trying: its node status patches get 404.
    let not_found = records
        .iter()
        .filter(|r| {
            matches!(&r.body, Record::Response { to, code: 404, message, .. }
                if to.to_string() == "kubelet/node-3" && message == "nodes \"node-3\" not found")
        })
        .count();
    assert!(
        not_found >= 5,
        "{not_found} answers 404 to node-3's kubelet"
    );
}

/// A Node owns its kubelet's Lease (`setNodeOwnerFunc`), so the garbage
/// collector deletes the Lease with the Node (`garbagecollector.go`,
/// `attemptToDeleteItem`: its only owner is gone). The kubelet, still
/// running, finds its Lease missing at the next renewal and creates it again
/// (`backoffEnsureLease`), now without an owner: it cannot get its Node.
#[test]
fn a_deleted_nodes_lease_is_collected_and_made_again_without_an_owner() {
    let records = run(None, &["delete node node-2", "wait 30s"], |_| {});
    let deleted = sent(
        &records,
        "kube-controller-manager",
        "DELETE /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-2",
    );
    assert_eq!(deleted.len(), 1, "the garbage collector deletes the Lease");
    let created = sent(
        &records,
        "kubelet/node-2",
        "POST /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases",
    );
    assert_eq!(created.len(), 1, "the kubelet makes it again");
    assert!(deleted[0] < created[0]);
    let lease = final_objects(&records)
        .into_iter()
        .find(|o| o["kind"] == "Lease" && o["metadata"]["name"] == "node-2")
        .expect("node-2's Lease is back");
    assert_eq!(
        lease["metadata"]["ownerReferences"],
        serde_json::Value::Null,
        "{lease}"
    );
    // The other nodes' Leases keep their owners.
    let node1 = final_objects(&records)
        .into_iter()
        .find(|o| o["kind"] == "Lease" && o["metadata"]["name"] == "node-1")
        .expect("node-1's Lease");
    assert_eq!(node1["metadata"]["ownerReferences"][0]["kind"], "Node");
}
