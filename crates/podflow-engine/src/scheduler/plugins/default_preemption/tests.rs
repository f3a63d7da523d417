//! Tables mirroring upstream's `defaultpreemption/default_preemption_test.go`
//! (`TestSelectNodesForPreemption`, `TestPickOneNodeForPreemption`,
//! `TestPodEligibleToPreemptOthers`, `TestCalculateNumCandidates`) and
//! `preemption/executor_test.go` (the victim's condition and event), with
//! `NodeResourcesFit` as the filter. Rows that need `PodDisruptionBudgets`,
//! extenders or the affinity/topology `PreFilter` extensions are left out.

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::core::v1::{Node, Pod};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;
use serde_json::{Value, json};

use super::*;
use crate::scheduler::framework::{Code, CycleState, FilterPlugin, NodeInfo, Snapshot, Status};
use crate::scheduler::plugins::node_resources_fit::{FitArgs, NodeResourcesFit};
use podflow_model::Shared;

const NEG: i32 = -100;
const LOW: i32 = 0;
const MID: i32 = 100;
const HIGH: i32 = 1000;

/// Upstream's `smallRes`, `mediumRes`, `largeRes`, `veryLargeRes`.
const SMALL: (&str, &str) = ("100m", "100");
const MEDIUM: (&str, &str) = ("200m", "200");
const LARGE: (&str, &str) = ("300m", "300");
const VERY_LARGE: (&str, &str) = ("500m", "500");

/// A pod with a priority, one container requesting `req`, started `start`
/// seconds after the epoch (`st.MakePod().Priority(..).Req(..).StartTime(..)`).
fn pod(name: &str, priority: i32, req: (&str, &str), start: Option<i64>) -> Pod {
    let mut value = json!({
        "metadata": {"name": name, "namespace": "default", "uid": name},
        "spec": {"priority": priority, "schedulerName": "default-scheduler", "containers": [
            {"name": "c", "resources": {"requests": {"cpu": req.0, "memory": req.1}}}]},
    });
    if let Some(s) = start {
        value["status"] = json!({"startTime": Timestamp::from_second(s).unwrap().to_string()});
    }
    serde_json::from_value(value).unwrap()
}

/// A node with `veryLargeRes` allocatable (and room for 100 pods) holding `pods`.
fn node(name: &str, pods: &[Pod]) -> NodeInfo {
    let n: Node = serde_json::from_value(json!({"metadata": {"name": name},
        "status": {"allocatable": {"cpu": VERY_LARGE.0, "memory": VERY_LARGE.1, "pods": "100"}}}))
    .unwrap();
    NodeInfo::new(Arc::new(n), pods.iter().cloned().map(Shared::from))
}

/// The `NodeResourcesFit` filter as the integrator's `fits` closure would run it.
fn resources_fit(pod: &Pod, node: &NodeInfo) -> Result<(), Status> {
    let plugin = NodeResourcesFit::new(FitArgs::default());
    let mut state = CycleState::default();
    plugin.pre_filter(pod, &Snapshot::new(std::slice::from_ref(node)), &mut state);
    let status = plugin.filter(&state, pod, node);
    if status.is_success() {
        Ok(())
    } else {
        Err(status)
    }
}

fn now() -> Timestamp {
    Timestamp::from_second(1_000_000).unwrap()
}

fn names(victims: &Victims) -> Vec<&str> {
    victims
        .pods
        .iter()
        .map(|p| p.metadata.name.as_deref().unwrap_or_default())
        .collect()
}

/// Mirrors `TestSelectNodesForPreemption`: each row the preemptor, the nodes
/// and their pods, and per node either the victims or the status.
#[test]
#[expect(clippy::too_many_lines, reason = "one table")]
fn test_select_nodes_for_preemption() {
    type Want = BTreeMap<&'static str, Result<Vec<&'static str>, (Code, &'static str)>>;
    let cases: Vec<(&str, Pod, Vec<NodeInfo>, Want)> = vec![
        (
            "a pod that fits on both nodes when lower priority pods are preempted",
            pod("p", HIGH, VERY_LARGE, None),
            vec![
                node("node1", &[pod("p1", MID, VERY_LARGE, Some(0))]),
                node("node2", &[pod("p2", MID, VERY_LARGE, Some(0))]),
            ],
            BTreeMap::from([("node1", Ok(vec!["p1"])), ("node2", Ok(vec!["p2"]))]),
        ),
        (
            "a pod that would fit on the nodes, but other pods running are higher priority, no preemption would happen",
            pod("p", LOW, LARGE, None),
            vec![
                node("node1", &[pod("p1", MID, MEDIUM, Some(0))]),
                node("node2", &[pod("p2", MID, MEDIUM, Some(0))]),
            ],
            BTreeMap::from([
                (
                    "node1",
                    Err((Code::UnschedulableAndUnresolvable, NO_VICTIMS)),
                ),
                (
                    "node2",
                    Err((Code::UnschedulableAndUnresolvable, NO_VICTIMS)),
                ),
            ]),
        ),
        (
            "medium priority pod is preempted, but lower priority one stays as it is small",
            pod("p", HIGH, ("350m", "350"), None),
            vec![
                node(
                    "node1",
                    &[
                        pod("p1.1", LOW, SMALL, Some(0)),
                        pod("p1.2", MID, MEDIUM, Some(0)),
                    ],
                ),
                node("node2", &[pod("p2.1", MID, LARGE, Some(0))]),
            ],
            BTreeMap::from([("node1", Ok(vec!["p1.2"])), ("node2", Ok(vec!["p2.1"]))]),
        ),
        (
            "mixed priority pods are preempted",
            pod("p", HIGH, SMALL, None),
            vec![node(
                "node1",
                &[
                    pod("p1.1", MID, SMALL, Some(0)),
                    pod("p1.2", LOW, SMALL, Some(0)),
                    pod("p1.3", MID, MEDIUM, Some(0)),
                    pod("p1.4", HIGH, SMALL, Some(0)),
                    pod("p1.5", HIGH, MEDIUM, Some(0)),
                ],
            )],
            BTreeMap::from([("node1", Ok(vec!["p1.3", "p1.2"]))]),
        ),
        (
            "mixed priority pods are preempted, pick later StartTime one when priorities are equal",
            pod("p", HIGH, SMALL, None),
            vec![node(
                "node1",
                &[
                    pod("p1.1", MID, SMALL, Some(5)),
                    pod("p1.2", LOW, SMALL, Some(4)),
                    pod("p1.3", MID, SMALL, Some(3)),
                    pod("p1.4", HIGH, SMALL, Some(2)),
                    pod("p1.5", HIGH, MEDIUM, Some(1)),
                ],
            )],
            BTreeMap::from([("node1", Ok(vec!["p1.1", "p1.2"]))]),
        ),
        (
            "the pod does not fit even with every lower priority pod gone",
            pod("p", HIGH, LARGE, None),
            vec![node(
                "node1",
                &[
                    pod("p1.1", HIGH, LARGE, Some(0)),
                    pod("p1.2", LOW, SMALL, Some(0)),
                ],
            )],
            BTreeMap::from([("node1", Err((Code::Unschedulable, "Insufficient cpu")))]),
        ),
    ];
    for (name, preemptor, nodes, want) in cases {
        for info in &nodes {
            let got = select_victims_on_node(&preemptor, info, now(), &resources_fit);
            match (&want[info.name()], got) {
                (Ok(victims), Ok(got)) => {
                    assert_eq!(&names(&got), victims, "{name}: {}", info.name());
                    assert_eq!(got.num_pdb_violations, 0);
                }
                (Err((code, reason)), Err(status)) => {
                    assert_eq!(status.code, *code, "{name}: {}", info.name());
                    assert_eq!(status.reasons[0], *reason, "{name}: {}", info.name());
                }
                (want, got) => panic!("{name}: {}: want {want:?}, got {got:?}", info.name()),
            }
        }
    }
}

fn candidate(node: &str, victims: Vec<Pod>) -> Candidate {
    Candidate {
        node: node.into(),
        victims: Victims {
            pods: victims.into_iter().map(Shared::from).collect(),
            num_pdb_violations: 0,
        },
    }
}

/// Mirrors `TestPickOneNodeForPreemption`: the candidates (victims sorted,
/// most important first) and the node picked.
#[test]
#[expect(clippy::too_many_lines, reason = "one table")]
fn test_pick_one_node_for_preemption() {
    let p = |name: &str, priority: i32, start: i64| pod(name, priority, SMALL, Some(start));
    let cases: Vec<(&str, Vec<Candidate>, &str)> = vec![
        (
            "a pod that fits on both nodes when lower priority pods are preempted",
            vec![
                candidate("node1", vec![p("p1", MID, 0)]),
                candidate("node2", vec![p("p2", MID, 0)]),
            ],
            "node1",
        ),
        (
            "node with min highest priority pod is picked",
            vec![
                candidate("node1", vec![p("p1.1", MID, 0), p("p1.2", LOW, 0)]),
                candidate("node2", vec![p("p2.1", MID, 0), p("p2.2", LOW, 0)]),
                candidate("node3", vec![p("p3.1", LOW, 0), p("p3.2", LOW, 0)]),
            ],
            "node3",
        ),
        (
            "when highest priorities are the same, minimum sum of lower priority pods is used",
            vec![
                candidate("node1", vec![p("p1.1", MID, 0), p("p1.2", LOW, 0)]),
                candidate("node2", vec![p("p2.1", MID, 0), p("p2.2", NEG, 0)]),
                candidate(
                    "node3",
                    vec![p("p3.1", MID, 0), p("p3.2", LOW, 0), p("p3.3", LOW, 0)],
                ),
            ],
            "node2",
        ),
        (
            "when highest priority and sum are the same, minimum number of pods is picked",
            vec![
                candidate(
                    "node1",
                    vec![p("p1.1", MID, 0), p("p1.2", NEG, 0), p("p1.3", NEG, 0)],
                ),
                candidate("node2", vec![p("p2.1", MID, 0), p("p2.2", NEG, 0)]),
                candidate(
                    "node3",
                    vec![p("p3.1", MID, 0), p("p3.2", NEG, 0), p("p3.3", NEG, 0)],
                ),
            ],
            "node2",
        ),
        (
            // Adding MaxInt32+1 to each priority makes three pods of priority
            // -100 cost more than two of priority -100.
            "sum of adjusted priorities is considered",
            vec![
                candidate(
                    "node1",
                    vec![p("p1.1", MID, 0), p("p1.2", NEG, 0), p("p1.3", NEG, 0)],
                ),
                candidate("node2", vec![p("p2.1", MID, 0), p("p2.2", NEG, 0)]),
            ],
            "node2",
        ),
        (
            "non-overlapping lowest high priority, sum priorities, and number of pods",
            vec![
                candidate(
                    "node1",
                    vec![p("p1.1", MID, 0), p("p1.2", NEG, 0), p("p1.3", NEG, 0)],
                ),
                candidate("node2", vec![p("p2.1", HIGH, 0), p("p2.2", NEG, 0)]),
                candidate("node3", vec![p("p3.1", MID, 0), p("p3.2", LOW, 0)]),
                candidate(
                    "node4",
                    vec![
                        p("p4.1", MID, 0),
                        p("p4.2", NEG, 0),
                        p("p4.3", NEG, 0),
                        p("p4.4", NEG, 0),
                    ],
                ),
            ],
            // node2's highest victim is highest; of the rest, node3's two
            // victims sum lowest once shifted by MaxInt32+1 each.
            "node3",
        ),
        (
            "same priority, same number of victims, different start time for each node's pod",
            vec![
                candidate("node1", vec![p("p1.1", MID, 2), p("p1.2", MID, 2)]),
                candidate("node2", vec![p("p2.1", MID, 3), p("p2.2", MID, 3)]),
                candidate("node3", vec![p("p3.1", MID, 1), p("p3.2", MID, 1)]),
            ],
            "node2",
        ),
        (
            "same priority, same number of victims, different start time for all pods",
            vec![
                candidate("node1", vec![p("p1.1", MID, 4), p("p1.2", MID, 2)]),
                candidate("node2", vec![p("p2.1", MID, 5), p("p2.2", MID, 1)]),
                candidate("node3", vec![p("p3.1", MID, 3), p("p3.2", MID, 6)]),
            ],
            "node3",
        ),
        (
            "different priority, same number of victims, different start time for all pods",
            vec![
                candidate("node1", vec![p("p1.1", MID, 4), p("p1.2", LOW, 2)]),
                candidate("node2", vec![p("p2.1", MID, 1), p("p2.2", LOW, 5)]),
                candidate("node3", vec![p("p3.1", MID, 3), p("p3.2", LOW, 6)]),
            ],
            "node1",
        ),
    ];
    for (name, candidates, want) in cases {
        let picked = select_candidate(&candidates, now()).map(|c| c.node.as_str());
        assert_eq!(picked, Some(want), "{name}");
    }
    assert_eq!(pick_one_node_for_preemption(&[], now()), None);
}

type EligibilityRow<'a> = (
    &'a str,
    Pod,
    Vec<NodeInfo>,
    Option<&'a Status>,
    Result<(), &'a str>,
);

/// Mirrors `TestPodEligibleToPreemptOthers`.
#[test]
fn test_pod_eligible_to_preempt_others() {
    let nominated = |mut p: Pod, node: &str| {
        p.status.get_or_insert_default().nominated_node_name = Some(node.into());
        p
    };
    let terminating = |mut p: Pod, by_scheduler: bool| {
        p.metadata.deletion_timestamp = Some(Time(Timestamp::UNIX_EPOCH));
        if by_scheduler {
            let status = p.status.get_or_insert_default();
            status.conditions = Some(vec![disruption_target(
                "default-scheduler",
                None,
                Time(Timestamp::UNIX_EPOCH),
            )]);
        }
        p
    };
    let mut never = pod("p", HIGH, SMALL, None);
    never.spec.as_mut().unwrap().preemption_policy = Some("Never".into());
    let unresolvable = Status::new(
        Code::UnschedulableAndUnresolvable,
        "node(s) had untolerated taint(s)",
    );
    let unschedulable = Status::new(Code::Unschedulable, "Insufficient cpu");
    let cases: Vec<EligibilityRow<'_>> = vec![
        (
            "Pod with nominated node",
            nominated(pod("p", HIGH, SMALL, None), "node1"),
            vec![node(
                "node1",
                &[terminating(pod("p1", LOW, SMALL, Some(0)), true)],
            )],
            Some(&unschedulable),
            Err("not eligible due to a terminating pod on the nominated node."),
        ),
        (
            "Pod with nominated node, but without victims",
            nominated(pod("p", HIGH, SMALL, None), "node1"),
            vec![node("node1", &[])],
            Some(&unschedulable),
            Ok(()),
        ),
        (
            "Pod with 'PreemptNever' preemption policy",
            never,
            vec![node("node1", &[])],
            None,
            Err("not eligible due to preemptionPolicy=Never."),
        ),
        (
            "victim Pods terminating, not by the scheduler's preemption",
            nominated(pod("p", HIGH, SMALL, None), "node1"),
            vec![node(
                "node1",
                &[terminating(pod("p1", LOW, SMALL, Some(0)), false)],
            )],
            Some(&unschedulable),
            Ok(()),
        ),
        (
            "non-victim Pods terminating",
            nominated(pod("p", HIGH, SMALL, None), "node1"),
            vec![node(
                "node1",
                &[terminating(pod("p1", HIGH, SMALL, Some(0)), true)],
            )],
            Some(&unschedulable),
            Ok(()),
        ),
        (
            "preemption victims terminating, but the nominated node is UnschedulableAndUnresolvable",
            nominated(pod("p", HIGH, SMALL, None), "node1"),
            vec![node(
                "node1",
                &[terminating(pod("p1", LOW, SMALL, Some(0)), true)],
            )],
            Some(&unresolvable),
            Ok(()),
        ),
    ];
    for (name, p, nodes, status, want) in cases {
        assert_eq!(
            pod_eligible_to_preempt_others(&p, status, &nodes),
            want,
            "{name}"
        );
    }
}

/// Mirrors `TestCalculateNumCandidates` (default args: 10%, at least 100).
#[test]
fn test_calculate_num_candidates() {
    for (nodes, want) in [(10, 10), (100, 100), (1000, 100), (10_000, 1000), (0, 0)] {
        assert_eq!(calculate_num_candidates(nodes), want, "{nodes} nodes");
    }
    let mut rng = Rng::new(7);
    let (offset, num) = get_offset_and_num_candidates(4, &mut rng);
    assert!(offset < 4);
    assert_eq!(num, 4);
}

/// `DryRunPreemption` stops once it has enough candidates, starting at the offset.
#[test]
fn dry_run_walks_from_the_offset() {
    let nodes: Vec<NodeInfo> = (1..=3)
        .map(|i| {
            node(
                &format!("node{i}"),
                &[pod(&format!("p{i}"), LOW, VERY_LARGE, Some(0))],
            )
        })
        .collect();
    let potential: Vec<&NodeInfo> = nodes.iter().collect();
    let preemptor = pod("p", HIGH, LARGE, None);
    let run = dry_run_preemption(&preemptor, &potential, 2, 2, now(), &resources_fit);
    let got: Vec<&str> = run.candidates.iter().map(|c| c.node.as_str()).collect();
    assert_eq!(got, ["node3", "node1"]);
    assert!(run.statuses.is_empty());
}

fn statuses(rows: &[(&str, Code, &str)]) -> BTreeMap<String, Status> {
    rows.iter()
        .map(|(n, c, r)| ((*n).to_owned(), Status::new(*c, *r)))
        .collect()
}

/// The `PostFilter` outcomes and their messages, as `Preempt` words them.
#[test]
fn preempt_outcomes() {
    let taint = "node(s) had untolerated taint(s)";
    let control_plane = node("control-plane", &[]);
    let absent = Status::new(Code::UnschedulableAndUnresolvable, "");
    let mut rng = Rng::new(1);

    // Only higher-priority pods on the workers: nothing to preempt.
    let busy: Vec<NodeInfo> = std::iter::once(control_plane.clone())
        .chain((1..=3).map(|i| {
            node(
                &format!("node-{i}"),
                &[pod(&format!("w{i}"), HIGH, VERY_LARGE, Some(0))],
            )
        }))
        .collect();
    let failed = statuses(&[
        ("control-plane", Code::UnschedulableAndUnresolvable, taint),
        ("node-1", Code::Unschedulable, "Insufficient cpu"),
        ("node-2", Code::Unschedulable, "Insufficient cpu"),
        ("node-3", Code::Unschedulable, "Insufficient cpu"),
    ]);
    let preemptor = pod("p", LOW, LARGE, None);
    let input = PreemptInput {
        pod: &preemptor,
        nodes: &busy,
        statuses: &failed,
        absent: &absent,
        now: now(),
        fits: &resources_fit,
    };
    let outcome = preempt(&input, &mut rng);
    assert_eq!(
        outcome.post_filter_message(),
        Some(
            "preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, \
             3 No preemption victims found for incoming pod."
        )
    );

    // Some lower-priority pods, but too small to make room on node-1.
    let mixed: Vec<NodeInfo> = vec![
        control_plane.clone(),
        node(
            "node-1",
            &[
                pod("a", HIGH, LARGE, Some(0)),
                pod("b", LOW, SMALL, Some(0)),
            ],
        ),
        node("node-2", &[pod("c", HIGH, VERY_LARGE, Some(0))]),
        node(
            "node-3",
            &[
                pod("d", LOW, VERY_LARGE, Some(10)),
                pod("e", LOW, SMALL, Some(0)),
            ],
        ),
    ];
    let mut high = pod("p", HIGH, LARGE, None);
    high.metadata.uid = Some("8b7e2a1c".into());
    let input = PreemptInput {
        pod: &high,
        nodes: &mixed,
        ..input
    };
    // node-3 (pods d and e) is the only candidate; d goes, e stays.
    let Outcome::Nominated(chosen) = preempt(&input, &mut rng) else {
        panic!("expected a nomination");
    };
    assert_eq!(chosen.node, "node-3");
    assert_eq!(names(&chosen.victims), ["d"]);

    let no_room = &mixed[..3];
    let input = PreemptInput {
        nodes: no_room,
        statuses: &statuses(&[
            ("control-plane", Code::UnschedulableAndUnresolvable, taint),
            ("node-1", Code::Unschedulable, "Insufficient cpu"),
            ("node-2", Code::Unschedulable, "Insufficient cpu"),
        ]),
        ..input
    };
    assert_eq!(
        preempt(&input, &mut rng),
        Outcome::Unschedulable {
            message: "preemption: 0/3 nodes are available: 1 Insufficient cpu, \
                      1 Insufficient memory, 1 No preemption victims found for incoming pod, \
                      1 Preemption is not helpful for scheduling."
                .into(),
            clear_nominated_node: true,
        }
    );

    // preemptionPolicy: Never.
    let mut never = high.clone();
    never.spec.as_mut().unwrap().preemption_policy = Some("Never".into());
    let input = PreemptInput {
        pod: &never,
        ..input
    };
    assert_eq!(
        preempt(&input, &mut rng),
        Outcome::Unschedulable {
            message: "preemption: not eligible due to preemptionPolicy=Never.".into(),
            clear_nominated_node: false,
        }
    );
}

/// `FitError.Error`: reasons sorted as strings (so `10 ...` before `2 ...`).
#[test]
fn nodes_available_sorts_reasons_as_strings() {
    let mut rows = BTreeMap::new();
    for i in 0..10 {
        rows.insert(
            format!("a{i}"),
            Status::new(Code::Unschedulable, "Insufficient cpu"),
        );
    }
    rows.insert(
        "b0".into(),
        Status::new(Code::Unschedulable, "Insufficient memory"),
    );
    rows.insert(
        "b1".into(),
        Status::new(Code::Unschedulable, "Insufficient memory"),
    );
    assert_eq!(
        nodes_available(14, &rows, &not_helpful()),
        "0/14 nodes are available: 10 Insufficient cpu, 2 Insufficient memory, \
         2 Preemption is not helpful for scheduling."
    );
    assert_eq!(
        nodes_available(2, &BTreeMap::new(), &not_helpful()),
        "0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    );
}

/// The victim's event and `DisruptionTarget` patch (`executor.go`, `PreemptPod`).
#[test]
fn victim_condition_and_event() {
    assert_eq!(
        victim_event_message("8b7e2a1c-0000-4000-8000-000000000001", "node-3"),
        "Preempted by pod 8b7e2a1c-0000-4000-8000-000000000001 on node node-3"
    );
    assert_eq!((EVENT_REASON, EVENT_ACTION), ("Preempted", "Preempting"));

    let mut victim = pod("d", LOW, SMALL, Some(0));
    victim.metadata.generation = Some(1);
    victim.status.as_mut().unwrap().conditions = Some(vec![
        serde_json::from_value(json!({"type": "Ready", "status": "True"})).unwrap(),
    ]);
    let at = Time(Timestamp::from_second(1_000_000).unwrap());
    let body = disruption_target_patch(&victim, "default-scheduler", at.clone()).unwrap();
    // PatchPodStatus's two-way patch carries the conditions' order.
    let want: Value = json!({"status": {
        "$setElementOrder/conditions": [{"type": "Ready"}, {"type": "DisruptionTarget"}],
        "conditions": [{
        "type": "DisruptionTarget",
        "status": "True",
        "observedGeneration": 1,
        "reason": "PreemptionByScheduler",
        "message": "default-scheduler: preempting to accommodate a higher priority pod",
        "lastTransitionTime": "1970-01-12T13:46:40Z",
    }]}});
    assert_eq!(body, want);

    // A victim that has the condition already is not patched again.
    let mut marked = victim.clone();
    marked.status.as_mut().unwrap().conditions = Some(vec![disruption_target(
        "default-scheduler",
        Some(1),
        at.clone(),
    )]);
    assert_eq!(
        disruption_target_patch(&marked, "default-scheduler", at),
        None
    );
}
