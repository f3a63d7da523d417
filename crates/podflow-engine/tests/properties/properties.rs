//! Property tests of the deterministic engine over random clusters (made by
//! `podflow gen-cluster`'s generator, some workers tainted) and random
//! workloads (Deployments and bare Pods with random requests, tolerations and
//! endings): determinism, etcd revisions, node capacity, Pod phase moves,
//! watch delivery and the filters every Pod passed when it was bound.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::common::{TempFile, final_objects, jsonl, run, writes};
use podflow_engine::trace::{Record, TraceRecord};
use podflow_model::quantity;
use podflow_scenario::generate::{NodeShape, generate};
use proptest::prelude::*;
use serde_json::Value;

/// The taint some workers carry and some workloads tolerate.
const TAINT: &str = "{key: dedicated, value: batch, effect: NoSchedule}";
const TOLERATION: &str = "{key: dedicated, operator: Equal, value: batch, effect: NoSchedule}";

/// How a workload's container ends.
#[derive(Debug, Clone, Copy)]
enum Ending {
    /// `sleep 3600`: runs.
    Serve,
    /// `echo hi` under `restartPolicy: Never`: Succeeded.
    Succeed,
    /// `exit 3` under `restartPolicy: Never`: Failed.
    Fail,
}

/// One Deployment, or a List of bare Pods, of `replicas` copies.
#[derive(Debug, Clone)]
struct Workload {
    deployment: bool,
    replicas: u32,
    cpu_m: u32,
    mem_mi: u32,
    tolerates: bool,
    ending: Ending,
}

/// A whole case: the cluster, the workloads and the seed.
#[derive(Debug, Clone)]
struct Case {
    nodes: usize,
    zones: usize,
    node_cpu_m: u32,
    node_mem_mi: u32,
    tainted: Vec<bool>,
    workloads: Vec<Workload>,
    seed: u64,
}

fn workload() -> impl Strategy<Value = Workload> {
    (
        any::<bool>(),
        1..=6u32,
        50..=4000u32,
        32..=8192u32,
        any::<bool>(),
        prop_oneof![
            4 => Just(Ending::Serve),
            1 => Just(Ending::Succeed),
            1 => Just(Ending::Fail)
        ],
    )
        .prop_map(
            |(deployment, replicas, cpu_m, mem_mi, tolerates, ending)| Workload {
                deployment,
                replicas,
                cpu_m,
                mem_mi,
                tolerates,
                // A Deployment's Pods must restart Always (`apps` validation).
                ending: if deployment { Ending::Serve } else { ending },
            },
        )
}

fn case() -> impl Strategy<Value = Case> {
    (1..=6usize)
        .prop_flat_map(|nodes| {
            (
                Just(nodes),
                1..=nodes.min(3),
                500..=8000u32,
                512..=16384u32,
                proptest::collection::vec(prop::bool::weighted(0.3), nodes),
                proptest::collection::vec(workload(), 1..=3),
                any::<u64>(),
            )
        })
        .prop_map(
            |(nodes, zones, node_cpu_m, node_mem_mi, tainted, workloads, seed)| Case {
                nodes,
                zones,
                node_cpu_m,
                node_mem_mi,
                tainted,
                workloads,
                seed,
            },
        )
}

/// The cluster file: `generate`'s output with the chosen workers tainted.
fn cluster_yaml(case: &Case) -> String {
    let shape = NodeShape {
        cpu: format!("{}m", case.node_cpu_m),
        memory: format!("{}Mi", case.node_mem_mi),
        pods: 110,
    };
    let mut text = generate(case.nodes, case.zones, &shape).expect("1..=6 nodes generate");
    for (n, _) in case.tainted.iter().enumerate().filter(|(_, t)| **t) {
        // Worker n's Pod CIDR is 10.128.n.0/24 (n < 256).
        let line = format!("  podCIDRs: [10.128.{n}.0/24]\n");
        text = text.replacen(&line, &format!("{line}  taints:\n    - {TAINT}\n"), 1);
    }
    text
}

/// The Pod spec of a workload, indented for a template or a List item.
fn pod_spec(w: &Workload, indent: &str) -> String {
    let (restart, command) = match w.ending {
        Ending::Serve => ("Always", "[sleep, \"3600\"]"),
        Ending::Succeed => ("Never", "[echo, hi]"),
        Ending::Fail => ("Never", "[sh, -c, \"exit 3\"]"),
    };
    let mut out = format!(
        "{indent}restartPolicy: {restart}\n{indent}containers:\n{indent}- name: work\n\
         {indent}  image: busybox:1.36\n{indent}  command: {command}\n\
         {indent}  resources: {{requests: {{cpu: {}m, memory: {}Mi}}}}\n",
        w.cpu_m, w.mem_mi
    );
    if w.tolerates {
        let _ = writeln!(out, "{indent}tolerations: [{TOLERATION}]");
    }
    out
}

/// The workloads as one manifest file of several documents.
fn workloads_yaml(case: &Case) -> String {
    let mut out = String::new();
    for (i, w) in case.workloads.iter().enumerate() {
        if w.deployment {
            let _ = write!(
                out,
                "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: w{i}}}\nspec:\n  \
                 replicas: {}\n  selector: {{matchLabels: {{app: w{i}}}}}\n  template:\n    \
                 metadata: {{labels: {{app: w{i}}}}}\n    spec:\n{}",
                w.replicas,
                pod_spec(w, "      ")
            );
        } else {
            let _ = write!(out, "---\napiVersion: v1\nkind: List\nitems:\n");
            for r in 0..w.replicas {
                let _ = write!(
                    out,
                    "- apiVersion: v1\n  kind: Pod\n  metadata: {{name: w{i}-{r}, labels: {{app: w{i}}}}}\n  spec:\n{}",
                    pod_spec(w, "    ")
                );
            }
        }
    }
    out
}

/// Runs a case headless until idle, as `podflow trace` does.
fn run_case(case: &Case) -> Vec<TraceRecord> {
    let cluster = TempFile::new("cluster", &cluster_yaml(case));
    let workloads = TempFile::new("workloads", &workloads_yaml(case));
    let step = format!("apply -f {}", workloads.path());
    run(None, &[step.as_str()], |args| {
        args.cluster = Some(cluster.path());
        args.seed = case.seed;
    })
}

/// A watch event as a watcher got it: (resourceVersion, type, `NS/NAME`).
type Delivered = (u64, String, String);

/// Every watcher's events by (watcher, resource), in trace order.
fn watch_streams(records: &[TraceRecord]) -> BTreeMap<(String, String), Vec<Delivered>> {
    let mut streams: BTreeMap<(String, String), Vec<Delivered>> = BTreeMap::new();
    for record in records {
        if let Record::Watch(w) = &record.body {
            let revision = w
                .resource_version
                .parse()
                .expect("a numeric resourceVersion");
            let name = format!("{}/{}", w.namespace.as_deref().unwrap_or(""), w.name);
            streams
                .entry((w.watcher.to_string(), w.resource.clone()))
                .or_default()
                .push((revision, w.event_type.clone(), name));
        }
    }
    streams
}

/// The Pod events each Pod watcher should get, worked out from etcd's writes:
/// all of them for the scheduler and the controller manager (no selector),
/// and for each kubelet those of Pods on its node before or after the write.
fn expected_pod_streams(records: &[TraceRecord]) -> BTreeMap<String, Vec<Delivered>> {
    let node_of = |pod: Option<&Value>| {
        pod.and_then(|p| p["spec"]["nodeName"].as_str())
            .map(str::to_owned)
    };
    let mut stored: BTreeMap<String, Value> = BTreeMap::new();
    let mut expected: BTreeMap<String, Vec<Delivered>> = BTreeMap::new();
    for (revision, key, object) in writes(records) {
        let Some(name) = key.strip_prefix("/registry/pods/") else {
            continue;
        };
        let before = stored.get(&key);
        let event = match (before, &object) {
            (None, _) => "ADDED",
            (_, None) => "DELETED",
            _ => "MODIFIED",
        };
        for watcher in ["kube-scheduler", "kube-controller-manager"] {
            expected.entry(watcher.to_owned()).or_default().push((
                revision,
                event.to_owned(),
                name.to_owned(),
            ));
        }
        let (was, is) = (node_of(before), node_of(object.as_ref()));
        let mut nodes: Vec<&String> = was.iter().chain(is.iter()).collect();
        nodes.dedup();
        for node in nodes {
            let event = match (was.as_ref() == Some(node), is.as_ref() == Some(node)) {
                (true, true) => "MODIFIED",
                (false, true) => "ADDED",
                _ => "DELETED",
            };
            expected
                .entry(format!("kubelet/{node}"))
                .or_default()
                .push((revision, event.to_owned(), name.to_owned()));
        }
        match object {
            Some(pod) => stored.insert(key, pod),
            None => stored.remove(&key),
        };
    }
    expected
}

/// A quantity in nano units; an absent one is zero.
fn nanos(q: &Value) -> i128 {
    q.as_str()
        .map_or(0, |s| quantity::parse(s).expect("a valid quantity").nanos())
}

/// The Pod's (cpu, memory) requests as the scheduler counts them
/// (`pkg/api/v1/resource/helpers.go` `PodRequests`: the sum over the
/// containers, at least the largest init container, plus the overhead).
fn pod_requests(pod: &Value) -> (i128, i128) {
    let sum = |list: &Value, name: &str, max: bool| {
        list.as_array().map_or(0, |cs| {
            let each = cs.iter().map(|c| nanos(&c["resources"]["requests"][name]));
            if max {
                each.max().unwrap_or(0)
            } else {
                each.sum()
            }
        })
    };
    let spec = &pod["spec"];
    let of = |name: &str| {
        sum(&spec["containers"], name, false).max(sum(&spec["initContainers"], name, true))
            + nanos(&spec["overhead"][name])
    };
    (of("cpu"), of("memory"))
}

/// Whether the Pod no longer holds its node's resources: Succeeded or Failed
/// (the scheduler's cache and the kubelet's admission count only
/// non-terminated Pods; `pkg/scheduler/eventhandlers.go`,
/// `pkg/kubelet/lifecycle/predicate.go`).
fn terminated(pod: &Value) -> bool {
    matches!(
        pod["status"]["phase"].as_str(),
        Some("Succeeded" | "Failed")
    )
}

/// The final Nodes by name.
fn final_nodes(records: &[TraceRecord]) -> BTreeMap<String, Value> {
    final_objects(records)
        .into_iter()
        .filter(|o| o["kind"] == "Node")
        .filter_map(|n| Some((n["metadata"]["name"].as_str()?.to_owned(), n)))
        .collect()
}

/// A node's allocatable (cpu, memory) in nano units.
fn allocatable(node: &Value) -> (i128, i128) {
    let a = &node["status"]["allocatable"];
    (nanos(&a["cpu"]), nanos(&a["memory"]))
}

/// Whether `toleration` tolerates `taint`, as `k8s.io/api/core/v1`
/// `toleration.go` `Toleration.ToleratesTaint` decides: an empty effect
/// matches every effect; an empty key with `Exists` matches every key;
/// `Exists` ignores the value, `Equal` (or no operator) compares it.
fn tolerates(toleration: &Value, taint: &Value) -> bool {
    let text = |v: &Value| v.as_str().unwrap_or("").to_owned();
    let effect = text(&toleration["effect"]);
    if !effect.is_empty() && effect != text(&taint["effect"]) {
        return false;
    }
    let key = text(&toleration["key"]);
    if !key.is_empty() && key != text(&taint["key"]) {
        return false;
    }
    match text(&toleration["operator"]).as_str() {
        "Exists" => true,
        "" | "Equal" => text(&toleration["value"]) == text(&taint["value"]),
        _ => false,
    }
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 8,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// The engine is deterministic (docs/architecture.md, rule 1): the same cluster,
    /// manifests and seed give a byte-identical jsonl trace.
    #[test]
    fn the_same_seed_and_inputs_give_the_same_trace(case in case()) {
        let first = jsonl(&run_case(&case));
        let second = jsonl(&run_case(&case));
        prop_assert!(first == second, "the two traces differ");
    }

    /// etcd's revision, the resourceVersion of every write, strictly
    /// increases: each put or delete is one new revision
    /// (`staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go`, the
    /// `Txn` of `GuaranteedUpdate`/`Create`/`Delete`; etcd's `mvcc` store).
    #[test]
    fn resource_versions_strictly_increase(case in case()) {
        let records = run_case(&case);
        let mut last = 0;
        for (revision, key, _) in writes(&records) {
            prop_assert!(revision > last, "{key} at revision {revision} after {last}");
            last = revision;
        }
    }

    /// No node is over-committed at any revision: the bound, non-terminated
    /// Pods' requests fit the node's allocatable (the scheduler's
    /// `NodeResourcesFit` filter, `pkg/scheduler/framework/plugins/noderesources/fit.go`
    /// `fitsRequest`, and the kubelet's admission, `pkg/kubelet/lifecycle/predicate.go`).
    #[test]
    fn no_node_is_over_committed_at_any_revision(case in case()) {
        let records = run_case(&case);
        let nodes = final_nodes(&records);
        let mut pods: BTreeMap<String, Value> = BTreeMap::new();
        for (revision, key, object) in writes(&records) {
            if !key.starts_with("/registry/pods/") {
                continue;
            }
            match object {
                Some(pod) => pods.insert(key, pod),
                None => pods.remove(&key),
            };
            let mut used: BTreeMap<&str, (i128, i128)> = BTreeMap::new();
            for pod in pods.values().filter(|p| !terminated(p)) {
                if let Some(node) = pod["spec"]["nodeName"].as_str() {
                    let (cpu, memory) = pod_requests(pod);
                    let entry = used.entry(node).or_default();
                    entry.0 += cpu;
                    entry.1 += memory;
                }
            }
            for (node, (cpu, memory)) in used {
                let (cpu_cap, memory_cap) = nodes.get(node).map_or((0, 0), allocatable);
                prop_assert!(
                    cpu <= cpu_cap && memory <= memory_cap,
                    "{node} at revision {revision}: requests cpu {cpu}n memory {memory}n \
                     over allocatable cpu {cpu_cap}n memory {memory_cap}n"
                );
            }
        }
    }

    /// A Pod's phase only moves as upstream allows: never from Running back
    /// to Pending, and Succeeded and Failed are terminal (the kubelet's
    /// `getPhase`, `pkg/kubelet/kubelet_pods.go`, and the status strategy's
    /// check that a terminal phase is not left, `pkg/registry/core/pod/strategy.go`
    /// `podStatusStrategy.ValidateUpdate`; `pkg/kubelet/status/status_manager.go`
    /// refuses to move a terminal Pod to a non-terminal phase).
    #[test]
    fn pod_phases_never_go_back(case in case()) {
        let records = run_case(&case);
        let mut phases: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (revision, key, object) in writes(&records) {
            if !key.starts_with("/registry/pods/") {
                continue;
            }
            let Some(pod) = object else {
                phases.remove(&key);
                continue;
            };
            let phase = pod["status"]["phase"].as_str().unwrap_or("").to_owned();
            let seen = phases.entry(key.clone()).or_default();
            if let Some(before) = seen.last() {
                let allowed = match before.as_str() {
                    "Running" => phase != "Pending",
                    "Succeeded" | "Failed" => phase == *before,
                    _ => true,
                };
                prop_assert!(
                    allowed,
                    "{key} at revision {revision}: {before} -> {phase} (phases so far {seen:?})"
                );
            }
            seen.push(phase);
        }
    }

    /// Every watcher sees each change of what it watches once and in order
    /// (the watch cache's `cacheWatcher`,
    /// `staging/src/k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go`:
    /// events in resourceVersion order; an object entering a field selector
    /// arrives as ADDED and one leaving it as DELETED, `convertToWatchEvent`).
    /// Per watcher and resource the resourceVersions strictly increase; the
    /// scheduler's and the controller manager's Pod watches get every Pod
    /// write, and each kubelet's (`spec.nodeName=` its node) every write of a
    /// Pod on its node before or after, typed as its selector says.
    #[test]
    fn every_watcher_sees_each_change_once_in_order(case in case()) {
        let records = run_case(&case);
        let seen = watch_streams(&records);
        for ((watcher, resource), events) in &seen {
            for pair in events.windows(2) {
                prop_assert!(
                    pair[0].0 < pair[1].0,
                    "{watcher} {resource}: {:?} then {:?}", pair[0], pair[1]
                );
            }
        }
        let expected = expected_pod_streams(&records);
        prop_assert!(expected.len() >= 2, "the scheduler's and the controller manager's");
        for (watcher, events) in expected {
            let got = seen.get(&(watcher.clone(), "pods".to_owned())).cloned().unwrap_or_default();
            prop_assert!(got == events, "{watcher}: got {got:?}, expected {events:?}");
        }
    }

    /// Every Pod, when it is bound, passes the filters that apply to these
    /// workloads on its node, with the Pods already bound there: the node's
    /// `NoSchedule`/`NoExecute` taints are tolerated (`TaintToleration`,
    /// `pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go`,
    /// `v1helper.FindMatchingUntoleratedTaint`), its allocatable CPU, memory
    /// and Pod count hold the non-terminated Pods and this one (`NodeResourcesFit`,
    /// `pkg/scheduler/framework/plugins/noderesources/fit.go` `fitsRequest`), and
    /// it is schedulable (`NodeUnschedulable`).
    #[test]
    fn every_pod_passes_the_filters_when_it_is_bound(case in case()) {
        let records = run_case(&case);
        let nodes = final_nodes(&records);
        let mut pods: BTreeMap<String, Value> = BTreeMap::new();
        for (revision, key, object) in writes(&records) {
            if !key.starts_with("/registry/pods/") {
                continue;
            }
            let bound = |p: Option<&Value>| p.and_then(|p| p["spec"]["nodeName"].as_str()).map(str::to_owned);
            let binding = match (bound(pods.get(&key)), bound(object.as_ref())) {
                (None, Some(node)) => Some(node),
                _ => None,
            };
            if let (Some(node_name), Some(pod)) = (binding, &object) {
                let node = nodes.get(&node_name);
                prop_assert!(node.is_some(), "{key} bound to unknown node {node_name:?}");
                let node = node.expect("checked above");
                prop_assert!(node["spec"]["unschedulable"] != true, "{key} bound to cordoned {node_name}");
                let empty = Vec::new();
                let tolerations = pod["spec"]["tolerations"].as_array().unwrap_or(&empty);
                for taint in node["spec"]["taints"].as_array().unwrap_or(&empty) {
                    let hard = matches!(taint["effect"].as_str(), Some("NoSchedule" | "NoExecute"));
                    prop_assert!(
                        !hard || tolerations.iter().any(|t| tolerates(t, taint)),
                        "{key} bound to {node_name}, whose {taint} it does not tolerate"
                    );
                }
                let there: Vec<&Value> = pods
                    .values()
                    .filter(|p| !terminated(p) && p["spec"]["nodeName"] == node_name.as_str())
                    .chain([pod])
                    .collect();
                let (cpu, memory) = there.iter().fold((0, 0), |(c, m), p| {
                    let (pc, pm) = pod_requests(p);
                    (c + pc, m + pm)
                });
                let (cpu_cap, memory_cap) = allocatable(node);
                let pods_cap = node["status"]["allocatable"]["pods"]
                    .as_str()
                    .and_then(|n| n.parse::<usize>().ok())
                    .unwrap_or(0);
                prop_assert!(
                    cpu <= cpu_cap && memory <= memory_cap && there.len() <= pods_cap,
                    "{key} bound to {node_name} at revision {revision}: {} Pods asking cpu {cpu}n \
                     memory {memory}n of cpu {cpu_cap}n memory {memory_cap}n, {pods_cap} Pods",
                    there.len()
                );
            }
            match object {
                Some(pod) => pods.insert(key, pod),
                None => pods.remove(&key),
            };
        }
    }
}

/// The properties are not empty: one fixed case has Pods that run (one on a
/// tainted worker it tolerates), one that succeeds, one that fails, one left
/// Pending for want of room, and persisted Pod writes carry their objects.
#[test]
fn a_fixed_case_exercises_every_property() {
    let w = |deployment, replicas, cpu_m, tolerates, ending| Workload {
        deployment,
        replicas,
        cpu_m,
        mem_mi: 64,
        tolerates,
        ending,
    };
    let case = Case {
        nodes: 2,
        zones: 1,
        node_cpu_m: 2000,
        node_mem_mi: 4096,
        tainted: vec![true, false],
        workloads: vec![
            w(true, 3, 600, true, Ending::Serve),
            w(false, 1, 100, false, Ending::Succeed),
            w(false, 1, 100, false, Ending::Fail),
            w(false, 1, 1900, false, Ending::Serve),
        ],
        seed: 7,
    };
    let records = run_case(&case);
    let pods: Vec<Value> = final_objects(&records)
        .into_iter()
        .filter(|o| o["kind"] == "Pod")
        .collect();
    let phase_of = |name: &str| {
        pods.iter()
            .find(|p| p["metadata"]["name"] == name)
            .map(|p| p["status"]["phase"].clone())
    };
    assert_eq!(phase_of("w1-0"), Some("Succeeded".into()));
    assert_eq!(phase_of("w2-0"), Some("Failed".into()));
    assert_eq!(phase_of("w3-0"), Some("Pending".into()));
    let on_tainted = pods
        .iter()
        .filter(|p| p["status"]["phase"] == "Running" && p["spec"]["nodeName"] == "node-1")
        .count();
    assert!(
        on_tainted > 0,
        "a tolerating Pod runs on the tainted node-1"
    );
    assert!(
        writes(&records)
            .iter()
            .any(|(_, key, object)| key.starts_with("/registry/pods/") && object.is_some())
    );
    let kubelets = expected_pod_streams(&records);
    let on_node_1 = &kubelets["kubelet/node-1"];
    let types: Vec<&str> = on_node_1.iter().map(|(_, t, _)| t.as_str()).collect();
    assert_eq!(
        types.first(),
        Some(&"ADDED"),
        "a binding enters the kubelet's selector"
    );
    assert!(types[1..].contains(&"MODIFIED"));
    assert_eq!(
        &watch_streams(&records)[&("kubelet/node-1".into(), "pods".into())],
        on_node_1
    );
}
