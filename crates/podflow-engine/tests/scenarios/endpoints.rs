//! A Service's endpoints, as the endpointslice and endpoints controllers
//! keep them: one slice per Service even when a sync runs before the cache
//! shows the slice it created (`endpointslice_tracker.go`), and the v1
//! `Endpoints` object `kubectl get endpoints` prints
//! (`pkg/controller/endpoint/endpoints_controller.go`).

use crate::common::{apply, final_object, kubectl_output, of_kind, run, text};
use serde_json::Value;

/// The ready addresses of an Endpoints object, sorted.
fn ready_ips(endpoints: &Value) -> Vec<String> {
    let mut ips: Vec<String> = endpoints["subsets"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["addresses"].as_array().into_iter().flatten())
        .filter_map(|a| a["ip"].as_str().map(str::to_owned))
        .collect();
    ips.sort();
    ips
}

/// The Pods' IPs, sorted.
fn pod_ips(records: &[podflow_engine::trace::TraceRecord]) -> Vec<String> {
    let mut ips: Vec<String> = of_kind(records, "Pod")
        .iter()
        .filter_map(|p| p["status"]["podIP"].as_str().map(str::to_owned))
        .collect();
    ips.sort();
    ips
}

/// A Service applied after its Deployment: the slice controller's second
/// sync came before its informer held the slice it had just created; it
/// waits for it rather than create a second one.
#[test]
fn a_sync_that_runs_before_the_cache_holds_the_created_slice_waits_for_it() {
    let records = run(
        None,
        &[
            &apply("web-deployment.yaml"),
            &apply("web-service.yaml"),
            "wait idle",
        ],
        |_| {},
    );
    let slices: Vec<Value> = of_kind(&records, "EndpointSlice")
        .into_iter()
        .filter(|s| s["metadata"]["labels"]["kubernetes.io/service-name"] == "web")
        .collect();
    assert_eq!(slices.len(), 1, "one slice per Service: {slices:?}");
    assert!(
        text(&records).lines().any(|l| l.contains(
            "endpointslice-controller → waiting: default/web: the cache does not hold the EndpointSlice"
        )),
        "the second sync waited for the created slice"
    );
}

/// The endpoints controller writes `Endpoints/web` with the ready Pods'
/// addresses and the Service's port, follows a scale-down, and deletes it
/// with the Service; `kubectl get endpoints` prints it under the API
/// server's deprecation warning.
#[test]
fn a_service_gets_an_endpoints_object_of_its_ready_pods() {
    let records = run(
        None,
        &[&apply("web-service.yaml"), "wait idle", "get endpoints"],
        |_| {},
    );
    let endpoints = final_object(&records, "Endpoints", "web");
    assert_eq!(endpoints["metadata"]["labels"]["app"], "web");
    assert_eq!(ready_ips(&endpoints), pod_ips(&records));
    assert_eq!(ready_ips(&endpoints).len(), 2);
    let port = &endpoints["subsets"][0]["ports"][0];
    assert_eq!(
        (port["name"].as_str(), port["port"].as_i64()),
        (Some("http"), Some(80))
    );
    let address = &endpoints["subsets"][0]["addresses"][0];
    assert_eq!(address["targetRef"]["kind"], "Pod");
    assert!(
        address["nodeName"]
            .as_str()
            .is_some_and(|n| n.starts_with("node-"))
    );
    assert!(ready_ips(&final_object(&records, "Endpoints", "kubernetes")) == ["172.18.0.2"]);

    let printed = kubectl_output(&records);
    let warning =
        "Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice";
    let at = printed
        .iter()
        .position(|l| l == warning)
        .expect("the warning");
    assert_eq!(
        printed[at + 1].split_whitespace().collect::<Vec<_>>(),
        ["NAME", "ENDPOINTS", "AGE"]
    );
    let ips = pod_ips(&records);
    let row = printed[at + 3].split_whitespace().collect::<Vec<_>>();
    assert_eq!(row[0], "web");
    assert_eq!(row[1], format!("{}:80,{}:80", ips[0], ips[1]));

    let records = run(
        None,
        &[
            &apply("web-service.yaml"),
            "wait idle",
            "scale deployment web --replicas=1",
            "wait idle",
        ],
        |_| {},
    );
    let endpoints = final_object(&records, "Endpoints", "web");
    assert_eq!(ready_ips(&endpoints), pod_ips(&records));
    assert_eq!(ready_ips(&endpoints).len(), 1);

    let records = run(
        None,
        &[
            &apply("web-service.yaml"),
            "wait idle",
            "delete service web",
            "wait idle",
        ],
        |_| {},
    );
    assert!(
        of_kind(&records, "Endpoints")
            .iter()
            .all(|e| e["metadata"]["name"] != "web"),
        "deleted with its Service"
    );
}
