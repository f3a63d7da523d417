//! kube-controller-manager beyond Deployments: a Service's `EndpointSlice`
//! following its Pods' readiness, node lifecycle evictions, Jobs, and the
//! cluster language's commands reaching them through the API.

use crate::common;
use crate::common::{apply, of_kind, run};
use podflow_engine::trace::{Actor, Outcome, StageName};
use podflow_engine::trace::{Record, TraceRecord};
use serde_json::Value;

/// Every version of the objects persisted under `prefix`, in order.
fn persisted(records: &[TraceRecord], prefix: &str) -> Vec<Value> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Stage(s)
                if s.component == Actor::Etcd
                    && s.stage == StageName::Persist
                    && s.outcome == Outcome::Ok
                    && s.extra()
                        .key
                        .as_deref()
                        .is_some_and(|k| k.starts_with(prefix)) =>
            {
                s.extra().object.clone()
            }
            _ => None,
        })
        .collect()
}

/// (address, ready) of each endpoint of a slice.
fn endpoints(slice: &Value) -> Vec<(String, bool)> {
    slice["endpoints"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e["addresses"][0].as_str().unwrap_or_default().to_owned(),
                e["conditions"]["ready"].as_bool().unwrap_or(false),
            )
        })
        .collect()
}

#[test]
fn a_service_gets_a_cluster_ip_and_an_endpoint_slice_of_its_ready_pods() {
    let records = run(None, &[&apply("web-service.yaml")], |_| {});
    let services = of_kind(&records, "Service");
    let web = services
        .iter()
        .find(|s| s["metadata"]["name"] == "web")
        .expect("the Service");
    assert_eq!(web["spec"]["clusterIP"], "10.96.0.11");
    assert_eq!(web["spec"]["clusterIPs"][0], "10.96.0.11");
    assert_eq!(web["spec"]["type"], "ClusterIP");
    assert_eq!(web["spec"]["sessionAffinity"], "None");
    assert_eq!(web["spec"]["ipFamilies"][0], "IPv4");
    assert_eq!(web["spec"]["ipFamilyPolicy"], "SingleStack");
    assert_eq!(web["spec"]["internalTrafficPolicy"], "Cluster");
    assert!(
        services.iter().any(|s| s["metadata"]["name"] == "kubernetes"
            && s["spec"]["clusterIP"] == "10.96.0.1"),
        "the default cluster holds the kubernetes Service"
    );

    let slices: Vec<Value> = of_kind(&records, "EndpointSlice")
        .into_iter()
        .filter(|s| s["metadata"]["labels"]["kubernetes.io/service-name"] == "web")
        .collect();
    assert_eq!(slices.len(), 1, "one slice per Service");
    let slice = &slices[0];
    let name = slice["metadata"]["name"].as_str().unwrap();
    assert_eq!(name.strip_prefix("web-").map(str::len), Some(5), "{name}");
    assert_eq!(slice["metadata"]["generateName"], "web-");
    assert_eq!(
        slice["metadata"]["labels"]["endpointslice.kubernetes.io/managed-by"],
        "endpointslice-controller.k8s.io"
    );
    assert_eq!(slice["metadata"]["ownerReferences"][0]["kind"], "Service");
    assert_eq!(
        slice["metadata"]["ownerReferences"][0]["uid"],
        web["metadata"]["uid"]
    );
    assert_eq!(slice["addressType"], "IPv4");
    assert_eq!(slice["ports"][0]["name"], "http");
    assert_eq!(slice["ports"][0]["port"], 80);
    assert_eq!(slice["ports"][0]["protocol"], "TCP");

    let pods = of_kind(&records, "Pod");
    assert_eq!(pods.len(), 2);
    let mut want: Vec<(String, bool)> = pods
        .iter()
        .map(|p| (p["status"]["podIP"].as_str().unwrap().to_owned(), true))
        .collect();
    let mut got = endpoints(slice);
    want.sort();
    got.sort();
    assert_eq!(got, want, "both Pods' IPs, ready");
    for endpoint in slice["endpoints"].as_array().unwrap() {
        let pod = pods
            .iter()
            .find(|p| p["metadata"]["name"] == endpoint["targetRef"]["name"])
            .expect("targetRef names a Pod");
        assert_eq!(endpoint["targetRef"]["kind"], "Pod");
        assert_eq!(endpoint["targetRef"]["uid"], pod["metadata"]["uid"]);
        assert_eq!(endpoint["nodeName"], pod["spec"]["nodeName"]);
        assert_eq!(endpoint["conditions"]["serving"], true);
        assert_eq!(endpoint["conditions"]["terminating"], false);
    }

    // The slice followed readiness: first a placeholder, ready endpoints only later.
    let versions = persisted(
        &records,
        &format!("/registry/endpointslices/default/{name}"),
    );
    assert!(versions.len() >= 2, "{versions:?}");
    assert!(endpoints(&versions[0]).is_empty(), "a placeholder first");
    assert!(versions[0].get("ports").is_none());
    let last = versions.last().unwrap();
    assert_eq!(endpoints(last).len(), 2);
}

#[test]
fn scaling_down_and_deleting_the_service_reach_the_slice() {
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
    let slice = of_kind(&records, "EndpointSlice")
        .into_iter()
        .find(|s| s["metadata"]["labels"]["kubernetes.io/service-name"] == "web")
        .expect("the slice");
    assert_eq!(endpoints(&slice).len(), 1, "{slice}");
    // On its way out the deleted Pod was listed terminating, not ready.
    let name = slice["metadata"]["name"].as_str().unwrap();
    let versions = persisted(
        &records,
        &format!("/registry/endpointslices/default/{name}"),
    );
    assert!(
        versions.iter().any(|v| v["endpoints"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|e| e["conditions"]["terminating"] == true && e["conditions"]["ready"] == false)),
        "a terminating endpoint was recorded"
    );

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
        of_kind(&records, "EndpointSlice")
            .iter()
            .all(|s| s["metadata"]["labels"]["kubernetes.io/service-name"] != "web"),
        "the garbage collector removed the Service's slice"
    );
}

/// A Job of 3 completions, 2 at a time, whose pods `exit 0`: two pods first,
/// the third when one succeeds, then `Complete`. `BackoffLimitExceeded` is
/// unit-tested in `job_plan.rs`.
#[test]
fn a_job_runs_its_completions_parallelism_at_a_time() {
    let records = run(None, &[&apply("job.yaml")], |_| {});
    let jobs = of_kind(&records, "Job");
    let job = &jobs[0];
    let uid = job["metadata"]["uid"].as_str().unwrap();
    assert_eq!(
        job["spec"]["selector"]["matchLabels"]["batch.kubernetes.io/controller-uid"],
        uid
    );
    let labels = &job["spec"]["template"]["metadata"]["labels"];
    assert_eq!(labels["batch.kubernetes.io/job-name"], "pi");
    assert_eq!(labels["job-name"], "pi");
    assert_eq!(labels["controller-uid"], uid);
    assert_eq!(job["spec"]["backoffLimit"], 6);
    assert_eq!(job["spec"]["completionMode"], "NonIndexed");
    assert_eq!(job["status"]["active"], 0);
    assert_eq!(job["status"]["succeeded"], 3);
    assert_eq!(job["status"]["failed"], 0);
    assert!(job["status"]["startTime"].is_string());
    assert!(job["status"]["completionTime"].is_string());
    let complete = job["status"]["conditions"]
        .as_array()
        .expect("conditions")
        .iter()
        .any(|c| c["type"] == "Complete" && c["reason"] == "CompletionsReached");
    assert!(complete, "{job}");

    let pods = of_kind(&records, "Pod");
    assert_eq!(pods.len(), 3, "three completions");
    assert!(pods.iter().all(|p| p["status"]["phase"] == "Succeeded"));
    // Never more than `parallelism` at once: the third pod is created after the first two.
    let created_at: Vec<u64> = records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Event(e) if e.reason == "SuccessfulCreate" && e.object.kind == "Job" => {
                Some(r.t_ms)
            }
            _ => None,
        })
        .collect();
    assert_eq!(created_at.len(), 3);
    assert!(created_at[2] > created_at[1], "{created_at:?}");
    let created: Vec<String> = records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Event(e) if e.reason == "SuccessfulCreate" && e.object.kind == "Job" => {
                assert_eq!(e.source, "job-controller");
                Some(e.message.clone())
            }
            _ => None,
        })
        .collect();
    assert_eq!(created.len(), 3);
    for pod in &pods {
        let name = pod["metadata"]["name"].as_str().unwrap();
        assert!(name.starts_with("pi-"), "{name}");
        assert!(
            created.contains(&format!("Created pod: {name}")),
            "{created:?}"
        );
        assert_eq!(pod["metadata"]["ownerReferences"][0]["kind"], "Job");
        assert_eq!(pod["metadata"]["ownerReferences"][0]["uid"], uid);
        assert_eq!(
            pod["metadata"]["labels"]["batch.kubernetes.io/job-name"],
            "pi"
        );
        assert_eq!(pod["spec"]["restartPolicy"], "Never");
    }

    // Deleting the Job takes its Pods with it.
    let records = run(
        None,
        &[
            &apply("job.yaml"),
            "wait idle",
            "delete job pi",
            "wait idle",
        ],
        |_| {},
    );
    assert!(of_kind(&records, "Job").is_empty());
    assert!(
        of_kind(&records, "Pod")
            .iter()
            .all(|p| p["metadata"]["deletionTimestamp"].is_string()),
        "the garbage collector deleted the Job's Pods"
    );
}

/// A Job whose Pod always fails (`restartPolicy: Never`, `backoffLimit: 2`):
/// three Pods fail (the first and two retries), then the Job is `Failed` with
/// `BackoffLimitExceeded` and makes no more (`pkg/controller/job/job_controller.go`,
/// `exceedsBackoffLimit`; message as upstream words it).
#[test]
fn a_failing_job_stops_at_its_backoff_limit() {
    let records = run(None, &[&apply("job-failing.yaml")], |_| {});
    let job = common::final_object(&records, "Job", "flaky");
    assert_eq!(job["status"]["failed"], 3);
    assert_eq!(job["status"]["active"], 0);
    let conditions = job["status"]["conditions"].as_array().unwrap();
    let failed = conditions
        .iter()
        .find(|c| c["type"] == "Failed")
        .expect("a Failed condition");
    assert_eq!(failed["status"], "True");
    assert_eq!(failed["reason"], "BackoffLimitExceeded");
    assert_eq!(
        failed["message"],
        "Job has reached the specified backoff limit"
    );
    let created = records
        .iter()
        .filter(|r| {
            matches!(&r.body, podflow_engine::trace::Record::Event(e)
            if e.reason == "SuccessfulCreate" && e.object.name == "flaky")
        })
        .count();
    assert_eq!(created, 3, "no Pod after the limit");
    let reasons: Vec<String> = records
        .iter()
        .filter_map(|r| match &r.body {
            podflow_engine::trace::Record::Event(e) if e.object.name == "flaky" => {
                Some(e.reason.clone())
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        reasons.last().map(String::as_str),
        Some("BackoffLimitExceeded")
    );
}
