//! Tables mirroring upstream's `noderesources` tests (`fit_test.go`,
//! `least_allocated_test.go`, `most_allocated_test.go`,
//! `requested_to_capacity_ratio_test.go`).

use std::sync::Arc;

use k8s_openapi::api::core::v1::Node;
use serde_json::json;

use super::*;
use crate::scheduler::cycle_filter::tests::assert_agrees;
use podflow_model::Shared;

/// A node with `alloc` (`cpu` in cores as upstream's tests write it) and pods.
pub(crate) fn node_info(alloc: serde_json::Value, pods: &[Pod]) -> NodeInfo {
    let node: Node = serde_json::from_value(
        json!({"metadata": {"name": "n"}, "status": {"allocatable": alloc}}),
    )
    .unwrap();
    NodeInfo::new(Arc::new(node), pods.iter().cloned().map(Shared::from))
}

/// A pod whose containers request `requests` each (upstream's `st.MakePod().Req(..)`).
pub(crate) fn pod(requests: &[serde_json::Value]) -> Pod {
    let containers: Vec<_> = requests
        .iter()
        .enumerate()
        .map(|(i, r)| json!({"name": format!("c{i}"), "resources": {"requests": r}}))
        .collect();
    serde_json::from_value(json!({"metadata": {"name": "p"}, "spec": {"containers": containers}}))
        .unwrap()
}

fn filter(args: &FitArgs, want: &Pod, node: &NodeInfo) -> Status {
    let plugin = NodeResourcesFit::new(args.clone());
    let mut state = CycleState::default();
    plugin.pre_filter(want, &Snapshot::new(std::slice::from_ref(node)), &mut state);
    plugin.filter(&state, want, node)
}

#[test]
fn enough_requests() {
    // fit_test.go, TestEnoughRequests (representative rows): node allocatable
    // cpu 10, memory 20, pods 32, example.com/aaa 5, kubernetes.io/something 5.
    let alloc = json!({"cpu": "10m", "memory": "20", "pods": "32",
        "example.com/aaa": "5", "kubernetes.io/something": "5", "hugepages-2Mi": "5"});
    let used = |cpu: &str, mem: &str| pod(&[json!({"cpu": cpu, "memory": mem})]);
    let cases: Vec<(&str, Pod, Vec<Pod>, FitArgs, Code, Vec<&str>)> = vec![
        (
            "no resources requested always fits",
            pod(&[]),
            vec![used("10m", "20")],
            FitArgs::default(),
            Code::Success,
            vec![],
        ),
        (
            "too many resources fails",
            pod(&[json!({"cpu": "1m", "memory": "1"})]),
            vec![used("10m", "20")],
            FitArgs::default(),
            Code::Unschedulable,
            vec!["Insufficient cpu", "Insufficient memory"],
        ),
        (
            "equal edge case",
            pod(&[json!({"cpu": "5m", "memory": "4"})]),
            vec![used("5m", "16")],
            FitArgs::default(),
            Code::Success,
            vec![],
        ),
        (
            "extended resource capacity enforced",
            pod(&[json!({"example.com/aaa": "10"})]),
            vec![used("0", "0")],
            FitArgs::default(),
            Code::UnschedulableAndUnresolvable,
            vec!["Insufficient example.com/aaa"],
        ),
        (
            "extended resource allocatable enforced",
            pod(&[json!({"example.com/aaa": "1"})]),
            vec![pod(&[json!({"example.com/aaa": "5"})])],
            FitArgs::default(),
            Code::Unschedulable,
            vec!["Insufficient example.com/aaa"],
        ),
        (
            "extended resource allocatable enforced for unknown resource",
            pod(&[json!({"example.com/bbb": "1"})]),
            vec![used("0", "0")],
            FitArgs::default(),
            Code::UnschedulableAndUnresolvable,
            vec!["Insufficient example.com/bbb"],
        ),
        (
            "kubernetes.io resource capacity enforced",
            pod(&[json!({"kubernetes.io/something": "10"})]),
            vec![used("0", "0")],
            FitArgs::default(),
            Code::UnschedulableAndUnresolvable,
            vec!["Insufficient kubernetes.io/something"],
        ),
        (
            "hugepages resource allocatable enforced",
            pod(&[json!({"hugepages-2Mi": "6"})]),
            vec![used("0", "0")],
            FitArgs::default(),
            Code::UnschedulableAndUnresolvable,
            vec!["Insufficient hugepages-2Mi"],
        ),
        (
            "skip checking ignored extended resource",
            pod(&[json!({"example.com/bbb": "1"})]),
            vec![used("0", "0")],
            FitArgs {
                ignored_resources: vec!["example.com/bbb".into()],
                ..FitArgs::default()
            },
            Code::Success,
            vec![],
        ),
        (
            "skip checking ignored extended resource via resource groups",
            pod(&[json!({"example.com/bbb": "1"})]),
            vec![used("0", "0")],
            FitArgs {
                ignored_resource_groups: vec!["example.com".into()],
                ..FitArgs::default()
            },
            Code::Success,
            vec![],
        ),
        (
            "skip checking ignored resource groups only for extended resources",
            pod(&[json!({"kubernetes.io/something": "10"})]),
            vec![used("0", "0")],
            FitArgs {
                ignored_resource_groups: vec!["kubernetes.io".into()],
                ..FitArgs::default()
            },
            Code::UnschedulableAndUnresolvable,
            vec!["Insufficient kubernetes.io/something"],
        ),
        (
            "cpu larger than the node is unresolvable",
            pod(&[json!({"cpu": "11m"})]),
            vec![],
            FitArgs::default(),
            Code::UnschedulableAndUnresolvable,
            vec!["Insufficient cpu"],
        ),
    ];
    for (name, want, existing, args, code, reasons) in cases {
        let node = node_info(alloc.clone(), &existing);
        let status = filter(&args, &want, &node);
        assert_eq!(status.code, code, "{name}");
        assert_eq!(status.reasons, reasons, "{name}");
    }
}

#[test]
fn too_many_pods() {
    // fit_test.go, TestNotEnoughRequests-style row: pods 1 with one already there.
    let node = node_info(
        json!({"cpu": "10m", "memory": "20", "pods": "1"}),
        &[pod(&[])],
    );
    let status = filter(&FitArgs::default(), &pod(&[]), &node);
    assert_eq!(status.reasons, ["Too many pods"]);
    assert_eq!(status.code, Code::Unschedulable);
}

fn score(args: FitArgs, want: &Pod, node: &NodeInfo) -> i64 {
    let plugin = NodeResourcesFit::new(args);
    let mut state = CycleState::default();
    plugin.pre_score(
        want,
        &[node],
        &Snapshot::new(std::slice::from_ref(node)),
        &mut state,
    );
    plugin.score(&state, want, node)
}

fn strategy(kind: &str, resources: Vec<ResourceSpec>, shape: Option<&[(i64, i64)]>) -> FitArgs {
    FitArgs {
        scoring_strategy: ScoringStrategy {
            kind: kind.into(),
            resources,
            shape: shape.map(|s| {
                s.iter()
                    .map(|&(utilization, score)| ShapePoint { utilization, score })
                    .collect()
            }),
        },
        ..FitArgs::default()
    }
}

/// Upstream's scoring tables give cpu in whole cores ("4000"); the ratios are the same.
fn cap(cpu: &str, memory: &str) -> serde_json::Value {
    json!({"cpu": cpu, "memory": memory, "pods": "110"})
}

#[test]
fn least_allocated_scoring_strategy() {
    let none = pod(&[]);
    let cpu_only = pod(&[json!({"cpu": "3000", "memory": "0"})]);
    // least_allocated_test.go, TestLeastAllocatedScoringStrategy.
    let two = pod(&[
        json!({"cpu": "1000", "memory": "2000"}),
        json!({"cpu": "2000", "memory": "3000"}),
    ]);
    let existing = |cpu: &str, mem: &str| pod(&[json!({"cpu": cpu, "memory": mem})]);
    let weighted = vec![ResourceSpec::new("memory", 2), ResourceSpec::new("cpu", 1)];
    let cases: Vec<(
        &str,
        &Pod,
        serde_json::Value,
        Vec<Pod>,
        Vec<ResourceSpec>,
        i64,
    )> = vec![
        (
            "nothing scheduled, nothing requested",
            &none,
            cap("4000", "10000"),
            vec![],
            default_resources(),
            100,
        ),
        (
            "differently sized nodes: node1",
            &two,
            cap("4000", "10000"),
            vec![],
            default_resources(),
            37,
        ),
        (
            "differently sized nodes: node2",
            &two,
            cap("6000", "10000"),
            vec![],
            default_resources(),
            50,
        ),
        (
            "pods scheduled with resources: node1",
            &none,
            cap("10000", "20000"),
            vec![existing("3000", "0"), existing("3000", "0")],
            default_resources(),
            70,
        ),
        (
            "pods scheduled with resources: node2",
            &none,
            cap("10000", "20000"),
            vec![existing("3000", "0"), existing("3000", "5000")],
            default_resources(),
            57,
        ),
        (
            "resources requested, pods scheduled: node2",
            &two,
            cap("10000", "50000"),
            vec![existing("3000", "5000")],
            default_resources(),
            60,
        ),
        (
            "requested resources exceed node capacity",
            &cpu_only,
            cap("4000", "10000"),
            vec![existing("3000", "5000")],
            default_resources(),
            25,
        ),
        (
            "different weight on cpu and memory",
            &two,
            cap("4000", "10000"),
            vec![],
            weighted,
            41,
        ),
    ];
    for (name, want, alloc, existing, resources, expected) in cases {
        let node = node_info(alloc, &existing);
        assert_eq!(
            score(strategy("LeastAllocated", resources, None), want, &node),
            expected,
            "{name}"
        );
    }
}

#[test]
fn least_allocated_honors_extended_resources_only_when_requested() {
    // least_allocated_test.go: "bypass extended resource if the pod does not
    // request" (50) and "honor extended resource if the pod requests" (60).
    let resources = vec![
        ResourceSpec::new("cpu", 1),
        ResourceSpec::new("memory", 1),
        ResourceSpec::new("extended.resource.dra.io/something", 1),
    ];
    let two = pod(&[
        json!({"cpu": "1000", "memory": "2000"}),
        json!({"cpu": "2000", "memory": "3000"}),
    ]);
    let node = node_info(
        json!({"cpu": "6000", "memory": "10000", "pods": "110", "extended.resource.dra.io/something": "10"}),
        &[],
    );
    assert_eq!(
        score(
            strategy("LeastAllocated", resources.clone(), None),
            &two,
            &node
        ),
        50
    );
    let with_ext = pod(&[
        json!({"cpu": "1000", "memory": "2000", "extended.resource.dra.io/something": "2"}),
        json!({"cpu": "2000", "memory": "3000"}),
    ]);
    assert_eq!(
        score(
            strategy("LeastAllocated", resources, None),
            &with_ext,
            &node
        ),
        60
    );
}

#[test]
fn most_allocated_scoring_strategy() {
    let none = pod(&[]);
    let big = pod(&[
        json!({"cpu": "2000", "memory": "4000"}),
        json!({"cpu": "3000", "memory": "5000"}),
    ]);
    // most_allocated_test.go, TestMostAllocatedScoringStrategy.
    let two = pod(&[
        json!({"cpu": "1000", "memory": "2000"}),
        json!({"cpu": "2000", "memory": "3000"}),
    ]);
    let existing = |cpu: &str, mem: &str| pod(&[json!({"cpu": cpu, "memory": mem})]);
    let cases: Vec<(
        &str,
        &Pod,
        serde_json::Value,
        Vec<Pod>,
        Vec<ResourceSpec>,
        i64,
    )> = vec![
        // Non-zero defaults only: 100m of 4000 cores and 200Mi of 10000 bytes → (0 + 100) / 2.
        (
            "nothing scheduled, nothing requested",
            &none,
            cap("4000", "10000"),
            vec![],
            default_resources(),
            0,
        ),
        (
            "differently sized nodes: node1",
            &two,
            cap("4000", "10000"),
            vec![],
            default_resources(),
            62,
        ),
        (
            "differently sized nodes: node2",
            &two,
            cap("6000", "10000"),
            vec![],
            default_resources(),
            50,
        ),
        (
            "pods scheduled with resources: node1",
            &none,
            cap("10000", "20000"),
            vec![existing("3000", "0"), existing("3000", "0")],
            default_resources(),
            30,
        ),
        (
            "pods scheduled with resources: node2",
            &none,
            cap("10000", "20000"),
            vec![existing("3000", "0"), existing("3000", "5000")],
            default_resources(),
            42,
        ),
        (
            "resources requested, pods scheduled: node1",
            &two,
            cap("10000", "20000"),
            vec![existing("3000", "0")],
            default_resources(),
            42,
        ),
        (
            "resources requested with more than the node",
            &big,
            cap("4000", "10000"),
            vec![],
            default_resources(),
            95,
        ),
        (
            "different weight on cpu and memory",
            &two,
            cap("4000", "10000"),
            vec![],
            vec![ResourceSpec::new("memory", 2), ResourceSpec::new("cpu", 1)],
            58,
        ),
    ];
    for (name, want, alloc, existing, resources, expected) in cases {
        let node = node_info(alloc, &existing);
        assert_eq!(
            score(strategy("MostAllocated", resources, None), want, &node),
            expected,
            "{name}"
        );
    }
}

#[test]
fn requested_to_capacity_ratio_scoring_strategy() {
    let none = pod(&[]);
    // requested_to_capacity_ratio_test.go, TestRequestedToCapacityRatioScoringStrategy,
    // shape {0, 10}, {100, 0}.
    let shape: &[(i64, i64)] = &[(0, 10), (100, 0)];
    let two = pod(&[
        json!({"cpu": "1000", "memory": "2000"}),
        json!({"cpu": "2000", "memory": "3000"}),
    ]);
    let existing =
        |cpu: &str, mem: &str, n: usize| vec![pod(&[json!({"cpu": cpu, "memory": mem})]); n];
    let cases: Vec<(&str, &Pod, serde_json::Value, Vec<Pod>, i64)> = vec![
        (
            "nothing scheduled, nothing requested",
            &none,
            cap("4000", "10000"),
            existing("0", "0", 2),
            100,
        ),
        (
            "differently sized nodes: node1",
            &two,
            cap("4000", "10000"),
            vec![],
            38,
        ),
        (
            "differently sized nodes: node2",
            &two,
            cap("6000", "10000"),
            vec![],
            50,
        ),
        (
            "pods scheduled with resources: node1",
            &none,
            cap("4000", "10000"),
            existing("3000", "5000", 1),
            38,
        ),
        (
            "pods scheduled with resources: node2",
            &none,
            cap("6000", "10000"),
            existing("3000", "5000", 1),
            50,
        ),
    ];
    for (name, want, alloc, existing, expected) in cases {
        let node = node_info(alloc, &existing);
        let args = strategy("RequestedToCapacityRatio", default_resources(), Some(shape));
        assert_eq!(score(args, want, &node), expected, "{name}");
    }
}

#[test]
fn resource_bin_packing_single_extended() {
    // requested_to_capacity_ratio_test.go, TestResourceBinPackingSingleExtended:
    // intel.com/foo weight 1, shape {0, 0}, {100, 1}.
    let args = || {
        strategy(
            "RequestedToCapacityRatio",
            vec![ResourceSpec::new("intel.com/foo", 1)],
            Some(&[(0, 0), (100, 1)]),
        )
    };
    let node = |foo: &str, pods: &[Pod]| {
        node_info(
            json!({"cpu": "4", "memory": "10000Mi", "pods": "110", "intel.com/foo": foo}),
            pods,
        )
    };
    let two = pod(&[json!({"intel.com/foo": "2"})]);
    let four = pod(&[json!({"intel.com/foo": "4"})]);
    assert_eq!(score(args(), &pod(&[]), &node("8", &[])), 0);
    assert_eq!(score(args(), &two, &node("8", &[])), 2);
    assert_eq!(score(args(), &two, &node("4", &[])), 5);
    assert_eq!(
        score(args(), &two, &node("4", std::slice::from_ref(&two))),
        10
    );
    assert_eq!(score(args(), &four, &node("8", &[])), 5);
}

#[test]
fn broken_linear_function() {
    // requested_to_capacity_ratio_test.go, TestBrokenLinearFunction.
    let shape = |points: &[(i64, i64)]| -> Vec<ShapePoint> {
        points
            .iter()
            .map(|&(utilization, score)| ShapePoint { utilization, score })
            .collect()
    };
    let cases: [(Vec<ShapePoint>, &[(i64, i64)]); 2] = [
        (
            shape(&[(10, 1), (90, 9)]),
            &[
                (-10, 1),
                (0, 1),
                (9, 1),
                (10, 1),
                (15, 1),
                (19, 1),
                (20, 2),
                (89, 8),
                (90, 9),
                (99, 9),
                (100, 9),
                (110, 9),
            ],
        ),
        (
            shape(&[(0, 2), (40, 10), (100, 0)]),
            &[
                (-10, 2),
                (0, 2),
                (20, 6),
                (30, 8),
                (40, 10),
                (70, 5),
                (100, 0),
                (110, 0),
            ],
        ),
    ];
    for (points, assertions) in cases {
        for &(p, expected) in assertions {
            assert_eq!(broken_linear(&points, p), expected, "{points:?} at {p}");
        }
    }
}

#[test]
fn args_validation() {
    // validation_pluginargs_test.go, TestValidateFitArgs (messages as field.Error prints them).
    let mut bad_weight = FitArgs::default();
    bad_weight.scoring_strategy.resources = vec![
        ResourceSpec::new("memory", 1),
        ResourceSpec::new("cpu", 101),
    ];
    let mut zero = FitArgs::default();
    zero.scoring_strategy.resources =
        vec![ResourceSpec::new("memory", -1), ResourceSpec::new("cpu", 0)];
    let cases: Vec<(FitArgs, &str)> = vec![
        (
            bad_weight,
            "scoringStrategy.resources[1].weight: Invalid value: 101: resource weight of cpu not in valid range (0, 100]",
        ),
        (
            zero,
            "[scoringStrategy.resources[0].weight: Invalid value: -1: resource weight of memory not in valid range (0, 100], \
                scoringStrategy.resources[1].weight: Invalid value: 0: resource weight of cpu not in valid range (0, 100]]",
        ),
        (
            strategy("Invalid", default_resources(), None),
            "scoringStrategy.type: Unsupported value: \"Invalid\": supported values: \"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\"",
        ),
        (
            strategy("RequestedToCapacityRatio", default_resources(), None),
            "scoringStrategy.requestedToCapacityRatio: Required value: must be specified when type is RequestedToCapacityRatio",
        ),
        (
            strategy("LeastAllocated", default_resources(), Some(&[(0, 1)])),
            "scoringStrategy.requestedToCapacityRatio: Forbidden: must be nil when type is not RequestedToCapacityRatio",
        ),
        (
            strategy("RequestedToCapacityRatio", default_resources(), Some(&[])),
            "scoringStrategy.requestedToCapacityRatio.shape: Required value: at least one point must be specified",
        ),
        (
            strategy(
                "RequestedToCapacityRatio",
                default_resources(),
                Some(&[(10, 1), (5, 11)]),
            ),
            "[scoringStrategy.requestedToCapacityRatio.shape[1].utilization: Invalid value: 5: values must be sorted in increasing order, \
             scoringStrategy.requestedToCapacityRatio.shape[1].score: Invalid value: 11: not in valid range [0, 10]]",
        ),
        (
            FitArgs {
                ignored_resource_groups: vec!["example.com/aaa".into()],
                ..FitArgs::default()
            },
            "ignoredResourceGroups[0]: Invalid value: \"example.com/aaa\": resource group name can't contain '/'",
        ),
    ];
    for (args, message) in cases {
        assert_eq!(
            args.validate(),
            Err(message
                .replace("                    ", "")
                .replace("                 ", ""))
        );
    }
    assert_eq!(FitArgs::default().validate(), Ok(()));
}

/// The filter's quick answer agrees with `fitsRequest`'s list on every node
/// of a grid: nodes of 0 to 4 pods of (cpu, memory, storage) against pods
/// asking for nothing, for each resource, up to more than the node has.
#[test]
fn the_quick_fit_agrees_with_fits_request() {
    let alloc = json!({"cpu": "1", "memory": "1Gi", "ephemeral-storage": "1Gi", "pods": "3"});
    let used = pod(&[json!({"cpu": "300m", "memory": "300Mi", "ephemeral-storage": "300Mi"})]);
    let mut wants = vec![pod(&[]), pod(&[json!({"example.com/gpu": "1"})])];
    for amount in ["0", "100m", "400m", "1", "2"] {
        wants.push(pod(&[json!({"cpu": amount})]));
    }
    for amount in ["0", "100Mi", "400Mi", "1Gi", "2Gi"] {
        wants.push(pod(&[json!({"memory": amount})]));
        wants.push(pod(&[json!({"ephemeral-storage": amount})]));
    }
    for existing in 0..5 {
        let node = node_info(alloc.clone(), &vec![used.clone(); existing]);
        for want in &wants {
            let want = pod_requests(want, false);
            let lacking = fits_request(&want, &node, &FitArgs::default());
            if fits_plainly(&want, &node) {
                assert!(lacking.is_empty(), "{existing} pods, {want:?}: {lacking:?}");
            } else if want.scalar.is_empty() {
                assert!(!lacking.is_empty(), "{existing} pods, {want:?}");
            }
        }
    }
}

/// The cycle's Filter (the pod's requests read from the cycle state once)
/// gives every node the verdict Filter gives it, with or without `PreFilter`,
/// on nodes with room and nodes lacking pods, cpu, memory or a scalar resource.
#[test]
fn the_cycle_filter_agrees_with_filter() {
    let alloc = json!({"cpu": "1", "memory": "1Gi", "example.com/gpu": "1", "pods": "3"});
    let used = pod(&[json!({"cpu": "300m", "memory": "300Mi"})]);
    let nodes: Vec<NodeInfo> = (0..5)
        .map(|existing| node_info(alloc.clone(), &vec![used.clone(); existing]))
        .collect();
    let wants = [
        pod(&[]),
        pod(&[json!({"cpu": "200m", "memory": "100Mi"})]),
        pod(&[json!({"cpu": "500m"})]),
        pod(&[json!({"memory": "2Gi"})]),
        pod(&[json!({"example.com/gpu": "1"})]),
        pod(&[json!({"example.com/gpu": "2", "cpu": "2"})]),
    ];
    let plugin = NodeResourcesFit::default();
    for want in &wants {
        for pre_filtered in [false, true] {
            let mut state = CycleState::default();
            if pre_filtered {
                plugin.pre_filter(want, &Snapshot::new(&nodes), &mut state);
            }
            let cycle = plugin.cycle_filter(&state, want);
            assert_agrees(
                &*cycle,
                |node| plugin.filter(&state, want, node),
                &nodes,
                &format!("pre-filtered {pre_filtered}, {want:?}"),
            );
        }
    }
}
