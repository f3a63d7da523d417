//! `PreScore`, Score and `NormalizeScore` (`podtopologyspread/scoring.go`): for the
//! soft (`ScheduleAnyway`) constraints, a node's raw score is the sum over
//! constraints of `matching pods in its domain * ln(domains + 2) + (maxSkew - 1)`,
//! rounded; normalising reverses it so the emptiest domain scores 100.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::Pod;

use super::common::{
    Constraint, HOSTNAME, SCHEDULE_ANYWAY, constraints, count_matching, has_all_topology_keys,
    has_own_constraints, namespace_of, node_labels,
};
use crate::scheduler::framework::{Code, CycleState, MAX_NODE_SCORE, NodeInfo, NodeScore, Status};

/// The cycle-state key (`"PreScore" + Name`).
pub const PRE_SCORE_STATE_KEY: &str = "PreScorePodTopologySpread";

/// What `PreScore` leaves for Score (`preScoreState`).
#[derive(Debug)]
pub struct PreScoreState {
    pub constraints: Vec<Constraint>,
    /// Feasible nodes missing one of the topology keys: scored 0.
    pub ignored_nodes: BTreeSet<String>,
    /// Per constraint (not hostname ones): topology value to matching pods.
    pub topology_value_to_pod_counts: Vec<BTreeMap<String, i64>>,
    /// Per constraint: `ln(number of domains + 2)`.
    pub topology_normalizing_weight: Vec<f64>,
}

fn skip(reason: &str) -> Status {
    Status::skip(reason)
}

/// `topologyNormalizingWeight`: `ln(size + 2)`.
pub fn topology_normalizing_weight(size: usize) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let size = size as f64;
    (size + 2.0).ln()
}

/// `scoreForCount`: `cnt * weight + (maxSkew - 1)`.
pub fn score_for_count(count: i64, max_skew: i32, weight: f64) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let count = count as f64;
    count * weight + f64::from(max_skew - 1)
}

/// `PreScore`: `Skip` without nodes or without soft constraints.
pub fn pre_score(
    pod: &Pod,
    feasible: &[&NodeInfo],
    all: &[NodeInfo],
    state: &mut CycleState,
) -> Status {
    if all.is_empty() {
        return skip("no node to score");
    }
    let constraints = match constraints(pod, SCHEDULE_ANYWAY) {
        Ok(c) => c,
        Err(err) => {
            return Status::new(
                Code::Error,
                format!(
                    "calculating preScoreState: obtaining pod's soft topology spread constraints: {err}"
                ),
            );
        }
    };
    if constraints.is_empty() {
        return skip("the pod has no ScheduleAnyway topology spread constraint");
    }
    // Upstream requires every topology key unless the constraints are the
    // system defaults; podflow never applies those (see `common::constraints`).
    let require_all = has_own_constraints(pod);
    let mut ignored = BTreeSet::new();
    let mut counts = vec![BTreeMap::new(); constraints.len()];
    for info in feasible {
        let labels = node_labels(&info.node);
        if require_all && !has_all_topology_keys(labels, &constraints) {
            ignored.insert(info.name().to_owned());
            continue;
        }
        for (i, c) in constraints.iter().enumerate() {
            if c.topology_key != HOSTNAME {
                let value = labels.get(&c.topology_key).cloned().unwrap_or_default();
                counts[i].entry(value).or_insert(0);
            }
        }
    }
    let weights = constraints
        .iter()
        .zip(&counts)
        .map(|(c, domains)| {
            let size = if c.topology_key == HOSTNAME {
                feasible.len() - ignored.len()
            } else {
                domains.len()
            };
            topology_normalizing_weight(size)
        })
        .collect();
    for info in all {
        let node = &*info.node;
        let labels = node_labels(node);
        if require_all && !has_all_topology_keys(labels, &constraints) {
            continue;
        }
        for (i, c) in constraints.iter().enumerate() {
            if !c.includes_node(pod, node) {
                continue;
            }
            let value = labels.get(&c.topology_key).cloned().unwrap_or_default();
            // Only domains of candidate nodes are counted; hostname ones in Score.
            if let Some(count) = counts[i].get_mut(&value) {
                *count += count_matching(&info.pods, &c.selector, namespace_of(pod));
            }
        }
    }
    state.write(
        PRE_SCORE_STATE_KEY,
        PreScoreState {
            constraints,
            ignored_nodes: ignored,
            topology_value_to_pod_counts: counts,
            topology_normalizing_weight: weights,
        },
    );
    Status::success()
}

/// Score: the rounded sum of `scoreForCount` over the constraints whose key the node has.
pub fn score(state: &CycleState, pod: &Pod, info: &NodeInfo) -> i64 {
    let Some(s) = state.read::<PreScoreState>(PRE_SCORE_STATE_KEY) else {
        return 0;
    };
    if s.ignored_nodes.contains(info.name()) {
        return 0;
    }
    let labels = node_labels(&info.node);
    let mut total = 0.0;
    for (i, c) in s.constraints.iter().enumerate() {
        let Some(value) = labels.get(&c.topology_key) else {
            continue;
        };
        let count = if c.topology_key == HOSTNAME {
            count_matching(&info.pods, &c.selector, namespace_of(pod))
        } else {
            s.topology_value_to_pod_counts[i]
                .get(value)
                .copied()
                .unwrap_or(0)
        };
        total += score_for_count(count, c.max_skew, s.topology_normalizing_weight[i]);
    }
    // `int64(math.Round(score))`: half away from zero, as Rust's `round`.
    #[allow(clippy::cast_possible_truncation)]
    let rounded = total.round() as i64;
    rounded
}

/// `NormalizeScore`: ignored nodes get 0; the rest
/// `100 * (max + min - score) / max` (all 100 when the highest is 0).
pub fn normalize(state: &CycleState, scores: &mut [NodeScore<'_>]) {
    let Some(s) = state.read::<PreScoreState>(PRE_SCORE_STATE_KEY) else {
        return;
    };
    let mut min = i64::MAX;
    let mut max = 0;
    for &NodeScore { name, score } in scores.iter() {
        if s.ignored_nodes.contains(name) {
            continue;
        }
        min = min.min(score);
        max = max.max(score);
    }
    for NodeScore { name, score } in scores.iter_mut() {
        *score = if s.ignored_nodes.contains(*name) {
            0
        } else if max == 0 {
            MAX_NODE_SCORE
        } else {
            MAX_NODE_SCORE * (max + min - *score) / max
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::framework::node_scores;
    use crate::scheduler::plugins::pod_topology_spread::testing::{
        exists, host_node, infos, node, pod, pod_on, spread,
    };
    use k8s_openapi::api::core::v1::Node;

    struct Case {
        name: &'static str,
        pod: Pod,
        existing: Vec<Pod>,
        /// Candidate nodes, then nodes that failed filtering.
        nodes: Vec<Node>,
        failed: Vec<Node>,
        want: Vec<(&'static str, i64)>,
    }

    fn foo_pods(spec: &[(&str, &str)]) -> Vec<Pod> {
        spec.iter()
            .map(|(p, n)| pod_on(p, n, &[("foo", "")]))
            .collect()
    }

    fn soft(max_skew: i32, key: &str) -> Pod {
        spread(
            pod("p", &[("foo", "")]),
            max_skew,
            key,
            SCHEDULE_ANYWAY,
            Some(exists("foo")),
        )
    }

    fn run(case: &Case) {
        let mut all_nodes = case.nodes.clone();
        all_nodes.extend(case.failed.iter().cloned());
        let all = infos(&all_nodes, &case.existing);
        let feasible: Vec<&NodeInfo> = all.iter().take(case.nodes.len()).collect();
        let mut state = CycleState::default();
        let status = pre_score(&case.pod, &feasible, &all, &mut state);
        assert_eq!(status, Status::success(), "{}", case.name);
        let mut list = node_scores(feasible.iter().copied(), |i| score(&state, &case.pod, i));
        normalize(&state, &mut list);
        let scores: BTreeMap<String, i64> =
            list.iter().map(|s| (s.name.to_owned(), s.score)).collect();
        let want: BTreeMap<String, i64> = case
            .want
            .iter()
            .map(|(n, s)| ((*n).to_owned(), *s))
            .collect();
        assert_eq!(scores, want, "{}", case.name);
    }

    fn four_host_nodes() -> Vec<Node> {
        ["node-a", "node-b", "node-c", "node-d"]
            .iter()
            .map(|n| host_node(n))
            .collect()
    }

    fn zone_host(name: &str, zone: &str) -> Node {
        node(name, &[("zone", zone), ("kubernetes.io/hostname", name)])
    }

    #[test]
    #[allow(clippy::too_many_lines)] // upstream's table, case by case
    fn pod_topology_spread_score() {
        // scoring_test.go, TestPodTopologySpreadScore.
        let two_one_zero_three = foo_pods(&[
            ("p-a1", "node-a"),
            ("p-a2", "node-a"),
            ("p-b1", "node-b"),
            ("p-d1", "node-d"),
            ("p-d2", "node-d"),
            ("p-d3", "node-d"),
        ]);
        let four_three_two_one = foo_pods(&[
            ("p-a1", "node-a"),
            ("p-a2", "node-a"),
            ("p-a3", "node-a"),
            ("p-a4", "node-a"),
            ("p-b1", "node-b"),
            ("p-b2", "node-b"),
            ("p-b3", "node-b"),
            ("p-c1", "node-c"),
            ("p-c2", "node-c"),
            ("p-d1", "node-d"),
        ]);
        let four_two_one_three = foo_pods(&[
            ("p-a1", "node-a"),
            ("p-a2", "node-a"),
            ("p-a3", "node-a"),
            ("p-a4", "node-a"),
            ("p-b1", "node-b"),
            ("p-b2", "node-b"),
            ("p-x1", "node-x"),
            ("p-y1", "node-y"),
            ("p-y2", "node-y"),
            ("p-y3", "node-y"),
        ]);
        let cases = vec![
            Case {
                name: "one constraint on node, no existing pods",
                pod: soft(1, HOSTNAME),
                existing: vec![],
                nodes: vec![host_node("node-a"), host_node("node-b")],
                failed: vec![],
                want: vec![("node-a", 100), ("node-b", 100)],
            },
            Case {
                name: "one constraint on node, all nodes have the same number of matching pods",
                pod: soft(1, HOSTNAME),
                existing: foo_pods(&[("p-a1", "node-a"), ("p-b1", "node-b")]),
                nodes: vec![host_node("node-a"), host_node("node-b")],
                failed: vec![],
                want: vec![("node-a", 100), ("node-b", 100)],
            },
            Case {
                // matching pods spread as 2/1/0/3.
                name: "one constraint on node, all 4 nodes are candidates",
                pod: soft(1, HOSTNAME),
                existing: two_one_zero_three.clone(),
                nodes: four_host_nodes(),
                failed: vec![],
                want: vec![
                    ("node-a", 20),
                    ("node-b", 60),
                    ("node-c", 100),
                    ("node-d", 0),
                ],
            },
            Case {
                name: "one constraint on node, null selector",
                pod: spread(pod("p", &[("foo", "")]), 1, HOSTNAME, SCHEDULE_ANYWAY, None),
                existing: two_one_zero_three.clone(),
                nodes: four_host_nodes(),
                failed: vec![],
                want: vec![
                    ("node-a", 100),
                    ("node-b", 100),
                    ("node-c", 100),
                    ("node-d", 100),
                ],
            },
            Case {
                name: "one constraint on node, all 4 nodes are candidates, maxSkew=2",
                pod: soft(2, HOSTNAME),
                existing: two_one_zero_three,
                nodes: four_host_nodes(),
                failed: vec![],
                want: vec![
                    ("node-a", 33),
                    ("node-b", 66),
                    ("node-c", 100),
                    ("node-d", 16),
                ],
            },
            Case {
                // matching pods spread as 4/3/2/1.
                name: "one constraint on node, all 4 nodes are candidates, maxSkew=3",
                pod: soft(3, HOSTNAME),
                existing: four_three_two_one,
                nodes: four_host_nodes(),
                failed: vec![],
                want: vec![
                    ("node-a", 44),
                    ("node-b", 66),
                    ("node-c", 77),
                    ("node-d", 100),
                ],
            },
            Case {
                // matching pods spread as 4/2/1/~3~ (node-y is not a candidate).
                name: "one constraint on node, 3 out of 4 nodes are candidates",
                pod: soft(1, HOSTNAME),
                existing: four_two_one_three.clone(),
                nodes: vec![
                    host_node("node-a"),
                    host_node("node-b"),
                    host_node("node-x"),
                ],
                failed: vec![host_node("node-y")],
                want: vec![("node-a", 33), ("node-b", 83), ("node-x", 100)],
            },
            Case {
                // 4/?2?/1/~3~: node-b lacks the topology key.
                name: "one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key",
                pod: soft(1, HOSTNAME),
                existing: four_two_one_three.clone(),
                nodes: vec![
                    host_node("node-a"),
                    node("node-b", &[("n", "node-b")]),
                    host_node("node-x"),
                ],
                failed: vec![host_node("node-y")],
                want: vec![("node-a", 16), ("node-b", 0), ("node-x", 100)],
            },
            Case {
                // 4/2/1/~3~ over zones zone1 (a, b) and zone2 (x, ~y~).
                name: "one constraint on zone, 3 out of 4 nodes are candidates",
                pod: soft(1, "zone"),
                existing: four_two_one_three,
                nodes: vec![
                    zone_host("node-a", "zone1"),
                    zone_host("node-b", "zone1"),
                    zone_host("node-x", "zone2"),
                ],
                failed: vec![zone_host("node-y", "zone2")],
                want: vec![("node-a", 75), ("node-b", 75), ("node-x", 100)],
            },
            Case {
                // 2/~1~/2/~4~.
                name: "two Constraints on zone and node, 2 out of 4 nodes are candidates",
                pod: spread(
                    soft(1, "zone"),
                    1,
                    HOSTNAME,
                    SCHEDULE_ANYWAY,
                    Some(exists("foo")),
                ),
                existing: foo_pods(&[
                    ("p-a1", "node-a"),
                    ("p-a2", "node-a"),
                    ("p-b1", "node-b"),
                    ("p-x1", "node-x"),
                    ("p-x2", "node-x"),
                    ("p-y1", "node-y"),
                    ("p-y2", "node-y"),
                    ("p-y3", "node-y"),
                    ("p-y4", "node-y"),
                ]),
                nodes: vec![zone_host("node-a", "zone1"), zone_host("node-x", "zone2")],
                failed: vec![zone_host("node-b", "zone1"), zone_host("node-y", "zone2")],
                want: vec![("node-a", 100), ("node-x", 63)],
            },
            Case {
                // zone (foo) spreads 2/2/1/1, hostname (bar) 0/1/0/1.
                name: "two Constraints on zone and node, with different labelSelectors",
                pod: foo_bar_pod(),
                existing: foo_bar_pods(),
                nodes: vec![
                    zone_host("node-a", "zone1"),
                    zone_host("node-b", "zone1"),
                    zone_host("node-x", "zone2"),
                    zone_host("node-y", "zone2"),
                ],
                failed: vec![],
                want: vec![
                    ("node-a", 60),
                    ("node-b", 20),
                    ("node-x", 100),
                    ("node-y", 60),
                ],
            },
            Case {
                name: "two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are candidates",
                pod: foo_bar_pod(),
                existing: foo_bar_pods(),
                nodes: vec![
                    zone_host("node-a", "zone1"),
                    zone_host("node-b", "zone1"),
                    zone_host("node-x", "zone2"),
                ],
                failed: vec![zone_host("node-y", "zone2")],
                want: vec![("node-a", 50), ("node-b", 25), ("node-x", 100)],
            },
            Case {
                name: "existing pods in a different namespace do not count",
                pod: soft(1, HOSTNAME),
                existing: {
                    let mut pods = foo_pods(&[
                        ("p-a1", "node-a"),
                        ("p-a2", "node-a"),
                        ("p-b1", "node-b"),
                        ("p-b2", "node-b"),
                    ]);
                    pods[0].metadata.namespace = Some("ns1".into());
                    pods
                },
                nodes: vec![host_node("node-a"), host_node("node-b")],
                failed: vec![],
                want: vec![("node-a", 100), ("node-b", 33)],
            },
            Case {
                name: "NodeAffinityPolicy honoed with labelSelectors",
                pod: {
                    let mut p = soft(1, "node");
                    if let Some(spec) = p.spec.as_mut() {
                        spec.node_selector = Some([("foo".to_owned(), String::new())].into());
                    }
                    p
                },
                existing: a2_b1_c1(),
                nodes: vec![
                    node("node-a", &[("node", "node-a"), ("foo", "")]),
                    node("node-b", &[("node", "node-b"), ("foo", "")]),
                    node("node-c", &[("node", "node-c")]),
                ],
                failed: vec![],
                want: vec![("node-a", 0), ("node-b", 33), ("node-c", 100)],
            },
            Case {
                name: "NodeTaintsPolicy honored",
                pod: {
                    let mut p = soft(1, "node");
                    if let Some(c) = p
                        .spec
                        .as_mut()
                        .and_then(|s| s.topology_spread_constraints.as_mut())
                    {
                        c[0].node_taints_policy = Some("Honor".into());
                    }
                    p
                },
                existing: a2_b1_c1(),
                nodes: vec![
                    node("node-a", &[("node", "node-a")]),
                    node("node-b", &[("node", "node-b")]),
                    tainted(node("node-c", &[("node", "node-c")])),
                ],
                failed: vec![],
                want: vec![("node-a", 0), ("node-b", 33), ("node-c", 100)],
            },
            Case {
                name: "NodeTaintsPolicy ignored",
                pod: soft(1, "node"),
                existing: a2_b1_c1(),
                nodes: vec![
                    node("node-a", &[("node", "node-a")]),
                    node("node-b", &[("node", "node-b")]),
                    tainted(node("node-c", &[("node", "node-c")])),
                ],
                failed: vec![],
                want: vec![("node-a", 66), ("node-b", 100), ("node-c", 100)],
            },
        ];
        for case in &cases {
            run(case);
        }
    }

    fn a2_b1_c1() -> Vec<Pod> {
        foo_pods(&[
            ("p-a1", "node-a"),
            ("p-a2", "node-a"),
            ("p-b1", "node-b"),
            ("p-c1", "node-c"),
        ])
    }

    fn tainted(mut n: Node) -> Node {
        n.spec = Some(k8s_openapi::api::core::v1::NodeSpec {
            taints: Some(vec![k8s_openapi::api::core::v1::Taint {
                key: "node.kubernetes.io/unreachable".into(),
                effect: "NoSchedule".into(),
                ..Default::default()
            }]),
            ..Default::default()
        });
        n
    }

    fn foo_bar_pod() -> Pod {
        spread(
            spread(
                pod("p", &[("foo", ""), ("bar", "")]),
                1,
                "zone",
                SCHEDULE_ANYWAY,
                Some(exists("foo")),
            ),
            1,
            HOSTNAME,
            SCHEDULE_ANYWAY,
            Some(exists("bar")),
        )
    }

    fn foo_bar_pods() -> Vec<Pod> {
        vec![
            pod_on("p-a1", "node-a", &[("foo", "")]),
            pod_on("p-b1", "node-b", &[("foo", ""), ("bar", "")]),
            pod_on("p-y1", "node-y", &[("foo", "")]),
            pod_on("p-y2", "node-y", &[("bar", "")]),
        ]
    }

    #[test]
    fn skips() {
        let mut state = CycleState::default();
        let all = infos(&[host_node("node-a")], &[]);
        let feasible: Vec<&NodeInfo> = all.iter().collect();
        // No soft constraints (a hard one only, or none: no system defaults).
        let hard = spread(
            pod("p", &[]),
            1,
            HOSTNAME,
            "DoNotSchedule",
            Some(exists("foo")),
        );
        assert_eq!(
            pre_score(&hard, &feasible, &all, &mut state).code,
            Code::Skip
        );
        assert_eq!(
            pre_score(&pod("p", &[]), &feasible, &all, &mut state).code,
            Code::Skip
        );
        assert_eq!(
            pre_score(&soft(1, HOSTNAME), &[], &[], &mut state).code,
            Code::Skip
        );
    }
}
