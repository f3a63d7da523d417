//! Node-pressure eviction (`pkg/kubelet/eviction/eviction_manager.go`,
//! `helpers.go`): a node whose `memory.available` falls below the kubelet's
//! hard threshold (100Mi) reports `MemoryPressure`, is tainted
//! `memory-pressure:NoSchedule` by the node lifecycle controller
//! (`doNoScheduleTaintingPass`), and its kubelet evicts the pod that uses the
//! most beyond its request: phase `Failed`, reason `Evicted`, the message
//! `evictionMessage` writes and the `DisruptionTarget` condition
//! (`TerminationByKubelet`). `fault node NODE memory-pressure` causes the same
//! from outside the pods.

use crate::common::{apply, final_object, run};
use podflow_engine::trace::{Record, TraceRecord};

/// The events with `reason`: (object name, message).
fn events(records: &[TraceRecord], reason: &str) -> Vec<(String, String)> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Event(e) if e.reason == reason => {
                Some((e.object.name.clone(), e.message.clone()))
            }
            _ => None,
        })
        .collect()
}

fn condition(object: &serde_json::Value, type_: &str) -> serde_json::Value {
    object["status"]["conditions"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == type_).cloned())
        .unwrap_or_default()
}

#[test]
fn the_pod_furthest_over_its_request_is_evicted_first() {
    let records = run(None, &[&apply("memory-pressure.yaml"), "wait 40s"], |_| {});
    let evicted = events(&records, "Evicted");
    assert_eq!(
        evicted.len(),
        1,
        "one pod per monitoring period, and one was enough: {evicted:?}"
    );
    assert_eq!(evicted[0].0, "report");
    assert!(
        evicted[0].1.starts_with(
            "The node was low on resource: memory. Threshold quantity: 100Mi, available: "
        ),
        "{}",
        evicted[0].1
    );
    assert!(
        evicted[0].1.ends_with(
            "Container report was using 8151Mi, request is 1Gi, has larger consumption of memory. "
        ),
        "{}",
        evicted[0].1
    );
    assert_eq!(
        events(&records, "EvictionThresholdMet"),
        [(
            "node-1".to_owned(),
            "Attempting to reclaim memory".to_owned()
        )]
    );
    let report = final_object(&records, "Pod", "report");
    assert_eq!(report["status"]["phase"], "Failed");
    assert_eq!(report["status"]["reason"], "Evicted");
    assert_eq!(report["status"]["message"], evicted[0].1.as_str());
    let target = condition(&report, "DisruptionTarget");
    assert_eq!(target["status"], "True");
    assert_eq!(target["reason"], "TerminationByKubelet");
    let state = &report["status"]["containerStatuses"][0]["state"]["terminated"];
    assert_eq!(state["exitCode"], 137);
    // The others keep running: the pressure ended with the first eviction.
    for name in ["scratch", "cache"] {
        assert_eq!(
            final_object(&records, "Pod", name)["status"]["phase"],
            "Running"
        );
    }
    let node = final_object(&records, "Node", "node-1");
    let pressure = condition(&node, "MemoryPressure");
    assert_eq!(
        pressure["status"], "True",
        "for the 5-minute transition period"
    );
    assert_eq!(pressure["reason"], "KubeletHasInsufficientMemory");
    let taints = node["spec"]["taints"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        taints.iter().any(
            |t| t["key"] == "node.kubernetes.io/memory-pressure" && t["effect"] == "NoSchedule"
        ),
        "{taints:?}"
    );
}

#[test]
fn the_pressure_ends_after_the_transition_period() {
    let records = run(None, &[&apply("memory-pressure.yaml"), "wait 6m"], |_| {});
    let node = final_object(&records, "Node", "node-1");
    assert_eq!(condition(&node, "MemoryPressure")["status"], "False");
    let taints = node["spec"]["taints"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        taints
            .iter()
            .all(|t| t["key"] != "node.kubernetes.io/memory-pressure"),
        "{taints:?}"
    );
}

#[test]
fn a_memory_fault_evicts_a_pod_and_its_replica_set_replaces_it_elsewhere() {
    let records = run(
        None,
        &[
            &apply("web-deployment.yaml"),
            "wait 20s",
            "fault node node-1 memory-pressure",
            "wait 30s",
            "recover node node-1",
        ],
        |_| {},
    );
    let evicted = events(&records, "Evicted");
    assert_eq!(evicted.len(), 1, "{evicted:?}");
    let victim = final_object(&records, "Pod", &evicted[0].0);
    assert_eq!(victim["spec"]["nodeName"], "node-1");
    assert_eq!(victim["status"]["reason"], "Evicted");
    // The ReplicaSet counts a Failed pod as gone, and the scheduler keeps
    // the replacement off the tainted node.
    let created = events(&records, "SuccessfulCreate");
    let replacement = created
        .last()
        .map(|c| c.1.trim_start_matches("Created pod: ").to_owned());
    let replacement = final_object(&records, "Pod", replacement.as_deref().unwrap_or_default());
    assert_ne!(replacement["spec"]["nodeName"], "node-1");
    assert_eq!(replacement["status"]["phase"], "Running");
}
