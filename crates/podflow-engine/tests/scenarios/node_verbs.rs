//! kubectl's node and service verbs end to end: `taint` steering the
//! scheduler's `TaintToleration` filter, `cordon`'s GET before its patch,
//! `drain` evicting through `pods/eviction` while the `ReplicaSet` replaces
//! the Pods elsewhere, `expose` giving a Deployment a Service the
//! `EndpointSlice` controller fills, and `get` of several kinds.

use crate::common::{REPO, apply, final_object, kubectl_output, of_kind, run};
use podflow_engine::trace::{Actor, Record, TraceRecord};

fn nginx() -> String {
    format!("apply -f {REPO}/assets/manifests/nginx-pod.yaml")
}

/// kubectl's requests, as the sequence diagram labels them.
fn requests(records: &[TraceRecord]) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Message { from, label, .. } if *from == Actor::Kubectl => Some(label.clone()),
            _ => None,
        })
        .collect()
}

/// The node each `web-…`/`nginx` Pod is bound to at the end.
fn pod_nodes(records: &[TraceRecord]) -> Vec<(String, String)> {
    of_kind(records, "Pod")
        .iter()
        .filter(|p| p["metadata"]["namespace"] == "default")
        .map(|p| {
            (
                p["metadata"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                p["spec"]["nodeName"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            )
        })
        .collect()
}

/// `pkg/cmd/taint/taint.go`: each line kubectl prints, and the scheduler
/// keeping a new Pod off the tainted nodes until a taint goes.
#[test]
fn taints_keep_pods_off_until_removed() {
    let records = run(
        None,
        &[
            "taint nodes node-1 dedicated=gpu:NoSchedule",
            "taint node node-2 dedicated=gpu:NoSchedule",
            "taint node/node-3 dedicated=gpu:NoSchedule",
            "taint nodes node-3 dedicated=cpu:NoSchedule",
            "taint nodes node-3 dedicated=cpu:NoSchedule --overwrite",
            &nginx(),
            "wait 5s",
            "taint nodes node-2 dedicated:NoSchedule-",
            "taint nodes node-2 dedicated-",
            "wait idle",
        ],
        |_| {},
    );
    let out = kubectl_output(&records);
    assert_eq!(
        out,
        [
            "node/node-1 tainted",
            "node/node-2 tainted",
            "node/node-3 tainted",
            "error: node node-3 already has dedicated taint(s) with same effect(s) and --overwrite is false",
            "node/node-3 modified",
            "pod/nginx created",
            "node/node-2 untainted",
            "error: taint \"dedicated\" not found",
        ],
    );
    let sent = requests(&records);
    assert_eq!(
        sent[..2],
        ["GET /api/v1/nodes/node-1", "PATCH /api/v1/nodes/node-1"],
        "kubectl reads the node, then patches it"
    );
    let waited = records.iter().any(|r| {
        matches!(&r.body, Record::Event(e) if e.reason == "FailedScheduling"
            && e.message.contains("4 node(s) had untolerated taint(s)"))
    });
    assert!(waited, "every node tainted: the Pod waits");
    let pod = final_object(&records, "Pod", "nginx");
    assert_eq!(pod["spec"]["nodeName"], "node-2", "{pod}");
    let node = final_object(&records, "Node", "node-3");
    assert_eq!(
        node["spec"]["taints"],
        serde_json::json!([{"effect": "NoSchedule", "key": "dedicated", "value": "cpu"}])
    );
    assert!(final_object(&records, "Node", "node-2")["spec"]["taints"].is_null());
}

/// `pkg/drain/cordon.go`: a GET, then a patch only if something changes.
#[test]
fn cordon_reads_the_node_and_says_when_nothing_changes() {
    let records = run(
        None,
        &[
            "cordon node-1",
            "cordon node/node-1",
            "uncordon node-1",
            "uncordon node-1",
        ],
        |_| {},
    );
    assert_eq!(
        kubectl_output(&records),
        [
            "node/node-1 cordoned",
            "node/node-1 already cordoned",
            "node/node-1 uncordoned",
            "node/node-1 already uncordoned",
        ]
    );
    assert_eq!(
        requests(&records),
        [
            "GET /api/v1/nodes/node-1",
            "PATCH /api/v1/nodes/node-1",
            "GET /api/v1/nodes/node-1",
            "GET /api/v1/nodes/node-1",
            "PATCH /api/v1/nodes/node-1",
            "GET /api/v1/nodes/node-1",
        ]
    );
}

/// `pkg/cmd/drain/drain.go`: a Deployment's Pods are evicted and the
/// `ReplicaSet` puts their replacements on the other nodes.
#[test]
fn drain_evicts_and_the_replica_set_replaces_elsewhere() {
    let records = run(
        None,
        &[
            &apply("web-deployment.yaml"),
            "wait 30s",
            "drain node-1",
            "wait idle",
        ],
        |_| {},
    );
    let out = kubectl_output(&records);
    assert_eq!(
        out[..2],
        ["deployment.apps/web created", "node/node-1 cordoned"],
        "{out:#?}"
    );
    assert_eq!(
        out.last().map(String::as_str),
        Some("node/node-1 drained"),
        "{out:#?}"
    );
    let evicting: Vec<&String> = out
        .iter()
        .filter(|l| l.starts_with("evicting pod default/web-"))
        .collect();
    let evicted: Vec<&String> = out
        .iter()
        .filter(|l| l.starts_with("pod/web-") && l.ends_with(" evicted"))
        .collect();
    assert!(!evicting.is_empty(), "node-1 had web Pods: {out:#?}");
    assert_eq!(evicting.len(), evicted.len(), "{out:#?}");
    let sent = requests(&records);
    assert!(sent.iter().any(
        |l| l.starts_with("POST /api/v1/namespaces/default/pods/web-") && l.ends_with("/eviction")
    ));
    assert!(sent.contains(&"GET /api/v1/pods".to_owned()), "{sent:#?}");
    let after = pod_nodes(&records);
    let web: Vec<&(String, String)> = after
        .iter()
        .filter(|(n, _)| n.starts_with("web-"))
        .collect();
    assert_eq!(web.len(), 3, "{after:?}");
    assert!(
        web.iter()
            .all(|(_, node)| node != "node-1" && !node.is_empty()),
        "{after:?}"
    );
    let node = final_object(&records, "Node", "node-1");
    assert_eq!(node["spec"]["unschedulable"], true);
}

/// `pkg/drain/filters.go`'s `unreplicatedFilter`: a bare Pod stops the
/// drain without `--force`, with kubectl's lines.
#[test]
fn a_bare_pod_refuses_drain_without_force() {
    let records = run(
        None,
        &[
            "cordon node-2",
            "cordon node-3",
            &nginx(),
            "wait 10s",
            "drain node-1",
            "drain node-1 --force --grace-period=0",
            "wait idle",
        ],
        |_| {},
    );
    let out = kubectl_output(&records);
    let refusal =
        "cannot delete Pods that declare no controller (use --force to override): default/nginx";
    assert_eq!(
        out[3..],
        [
            "node/node-1 cordoned".to_owned(),
            format!(
                "error: unable to drain node \"node-1\" due to error: {refusal}, continuing command..."
            ),
            "There are pending nodes to be drained:".to_owned(),
            " node-1".to_owned(),
            format!("error: {refusal}"),
            "node/node-1 already cordoned".to_owned(),
            "Warning: deleting Pods that declare no controller: default/nginx".to_owned(),
            "evicting pod default/nginx".to_owned(),
            "pod/nginx evicted".to_owned(),
            "node/node-1 drained".to_owned(),
        ],
        "{out:#?}"
    );
    assert!(
        !of_kind(&records, "Pod")
            .iter()
            .any(|p| p["metadata"]["name"] == "nginx")
    );
}

/// `pkg/cmd/expose/expose.go`: the Service selects the Deployment's Pods
/// and the `EndpointSlice` controller lists them.
#[test]
fn expose_gives_a_deployment_a_service_with_endpoints() {
    let records = run(
        None,
        &[
            "create deployment web --image=nginx:1.27 --replicas=2 --port=80",
            "expose deployment web --port=8080 --target-port=80",
            "expose deploy web",
            "expose node node-1 --port=80",
            "wait 30s",
        ],
        |_| {},
    );
    let out = kubectl_output(&records);
    assert_eq!(
        out,
        [
            "deployment.apps/web created",
            "service/web exposed",
            "Error from server (AlreadyExists): services \"web\" already exists",
            "error: cannot expose a Node",
        ]
    );
    let svc = final_object(&records, "Service", "web");
    assert_eq!(svc["spec"]["selector"], serde_json::json!({"app": "web"}));
    assert_eq!(svc["spec"]["ports"][0]["port"], 8080, "{}", svc["spec"]);
    let slices: Vec<serde_json::Value> = of_kind(&records, "EndpointSlice")
        .into_iter()
        .filter(|s| s["metadata"]["labels"]["kubernetes.io/service-name"] == "web")
        .collect();
    let filled: Vec<usize> = slices
        .iter()
        .filter_map(|s| s["endpoints"].as_array().map(Vec::len))
        .collect();
    assert_eq!(filled, [2], "one slice lists both Pods: {slices:#?}");
}

/// `pkg/cmd/get/get.go`: several kinds, each its own table, names with
/// their kind, a blank line between.
#[test]
fn get_of_several_kinds_prints_each_table() {
    let out = kubectl_output(&run(
        None,
        &[
            &apply("web-deployment.yaml"),
            "wait 30s",
            "get deploy,rs,po",
            "get svc,deploy web",
        ],
        |_| {},
    ));
    let first = out
        .iter()
        .position(|l| l.starts_with("NAME"))
        .expect("a table");
    assert!(
        out[first + 1].starts_with("deployment.apps/web   3/3"),
        "{out:#?}"
    );
    assert_eq!(out[first + 2], "", "{out:#?}");
    assert!(
        out[first + 3].starts_with("NAME") && out[first + 3].contains("DESIRED"),
        "{out:#?}"
    );
    assert!(
        out[first + 4].starts_with("replicaset.apps/web-"),
        "{out:#?}"
    );
    assert_eq!(out[first + 5], "", "{out:#?}");
    assert!(out[first + 6].contains("STATUS"), "{out:#?}");
    assert_eq!(
        out[first + 7..first + 10]
            .iter()
            .filter(|l| l.starts_with("pod/web-"))
            .count(),
        3,
        "{out:#?}"
    );
    // A kind that has no such object: the others' tables, then the error.
    let last = &out[out.len() - 3..];
    assert!(last[0].starts_with("NAME   READY"), "{out:#?}");
    assert!(
        last[1].starts_with("web    3/3"),
        "one kind came back: no kind in the names {out:#?}"
    );
    assert_eq!(
        last[2],
        "Error from server (NotFound): services \"web\" not found"
    );
}
