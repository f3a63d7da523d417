//! `PreFilter` and Filter (`podtopologyspread/filtering.go`): count the pods each
//! hard (`DoNotSchedule`) constraint selects per topology domain over every
//! node, then refuse a node where placing the pod would make its domain exceed
//! the global minimum by more than `maxSkew`.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Pod;

use super::common::{
    Constraint, DO_NOT_SCHEDULE, constraints, count_matching, has_all_topology_keys, namespace_of,
    node_labels, selects_pod,
};
use super::{ERR_REASON_CONSTRAINTS_NOT_MATCH, ERR_REASON_NODE_LABEL_NOT_MATCH};
use crate::scheduler::framework::{Code, CycleState, NodeInfo, Status};

/// The cycle-state key (`"PreFilter" + Name`).
pub const PRE_FILTER_STATE_KEY: &str = "PreFilterPodTopologySpread";

/// What `PreFilter` leaves for Filter (`preFilterState`).
#[derive(Debug)]
pub struct PreFilterState {
    pub constraints: Vec<Constraint>,
    /// Per constraint: topology value to the number of matching pods, over the
    /// eligible domains (a domain with no matching pod counts as 0).
    pub tp_value_to_match_num: Vec<BTreeMap<String, i64>>,
}

impl PreFilterState {
    /// The global minimum of constraint `i` (`criticalPaths[0].MatchNum`, or
    /// `MaxInt32` when there is no domain), taken as 0 when fewer domains than
    /// `minDomains` exist (`minMatchNum`).
    pub fn min_match_num(&self, i: usize) -> i64 {
        let counts = &self.tp_value_to_match_num[i];
        let domains = i64::try_from(counts.len()).unwrap_or(i64::MAX);
        if domains < i64::from(self.constraints[i].min_domains) {
            return 0;
        }
        counts
            .values()
            .copied()
            .min()
            .unwrap_or(i64::from(i32::MAX))
    }
}

/// `PreFilter`: `Skip` when the pod has no hard constraint; an `Error` when a
/// selector does not parse.
pub fn pre_filter(pod: &Pod, nodes: &[NodeInfo], state: &mut CycleState) -> Status {
    let constraints = match constraints(pod, DO_NOT_SCHEDULE) {
        Ok(c) => c,
        Err(err) => {
            return Status::new(
                Code::Error,
                format!(
                    "get constraints from pod: obtaining pod's hard topology spread constraints: {err}"
                ),
            );
        }
    };
    if constraints.is_empty() {
        return Status::skip("the pod has no DoNotSchedule topology spread constraint");
    }
    let mut counts = vec![BTreeMap::new(); constraints.len()];
    for info in nodes {
        let node = &*info.node;
        let labels = node_labels(node);
        if !has_all_topology_keys(labels, &constraints) {
            continue;
        }
        for (i, c) in constraints.iter().enumerate() {
            if !c.includes_node(pod, node) {
                continue;
            }
            let value = labels.get(&c.topology_key).cloned().unwrap_or_default();
            *counts[i].entry(value).or_insert(0) +=
                count_matching(&info.pods, &c.selector, namespace_of(pod));
        }
    }
    state.write(
        PRE_FILTER_STATE_KEY,
        PreFilterState {
            constraints,
            tp_value_to_match_num: counts,
        },
    );
    Status::success()
}

/// Filter: for every hard constraint, `matching + self - globalMin <= maxSkew`.
pub fn filter(state: &CycleState, pod: &Pod, info: &NodeInfo) -> Status {
    let Some(s) = state.read::<PreFilterState>(PRE_FILTER_STATE_KEY) else {
        return Status::new(
            Code::Error,
            format!("reading {PRE_FILTER_STATE_KEY:?} from cycleState: not found"),
        );
    };
    let labels = node_labels(&info.node);
    for (i, c) in s.constraints.iter().enumerate() {
        let Some(value) = labels.get(&c.topology_key) else {
            return Status::new(
                Code::UnschedulableAndUnresolvable,
                ERR_REASON_NODE_LABEL_NOT_MATCH,
            );
        };
        let min_match = s.min_match_num(i);
        let self_match = i64::from(selects_pod(&c.selector, pod));
        let match_num = s.tp_value_to_match_num[i].get(value).copied().unwrap_or(0);
        if match_num + self_match - min_match > i64::from(c.max_skew) {
            return Status::new(Code::Unschedulable, ERR_REASON_CONSTRAINTS_NOT_MATCH);
        }
    }
    Status::success()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::plugins::pod_topology_spread::testing::{
        exists, node, pod, pod_on, spread, with_node_affinity_in, zone_node,
    };

    use Code::{Success, Unschedulable, UnschedulableAndUnresolvable as Unresolvable};

    struct Case {
        name: &'static str,
        pod: Pod,
        nodes: Vec<k8s_openapi::api::core::v1::Node>,
        existing: Vec<Pod>,
        want: Vec<(&'static str, Code)>,
    }

    fn run(case: &Case) {
        let infos = crate::scheduler::plugins::pod_topology_spread::testing::infos(
            &case.nodes,
            &case.existing,
        );
        let mut state = CycleState::default();
        let status = pre_filter(&case.pod, &infos, &mut state);
        assert_eq!(status, Status::success(), "{}", case.name);
        for (info, (name, want)) in infos.iter().zip(&case.want) {
            assert_eq!(info.name(), *name);
            let got = filter(&state, &case.pod, info);
            assert_eq!(got.code, *want, "{}: {name}", case.name);
            let reason = match want {
                Success => None,
                Unschedulable => Some(ERR_REASON_CONSTRAINTS_NOT_MATCH),
                _ => Some(ERR_REASON_NODE_LABEL_NOT_MATCH),
            };
            assert_eq!(
                got.reasons.first().map(String::as_str),
                reason,
                "{}",
                case.name
            );
        }
    }

    fn four_nodes() -> Vec<k8s_openapi::api::core::v1::Node> {
        vec![
            zone_node("node-a", "zone1"),
            zone_node("node-b", "zone1"),
            zone_node("node-x", "zone2"),
            zone_node("node-y", "zone2"),
        ]
    }

    /// Matching pods spread 2/1/0/3 over node-a/b/x/y.
    fn two_one_zero_three() -> Vec<Pod> {
        [
            ("p-a1", "node-a"),
            ("p-a2", "node-a"),
            ("p-b1", "node-b"),
            ("p-y1", "node-y"),
            ("p-y2", "node-y"),
            ("p-y3", "node-y"),
        ]
        .iter()
        .map(|(p, n)| pod_on(p, n, &[("foo", "")]))
        .collect()
    }

    fn foo_pod(max_skew: i32, key: &str) -> Pod {
        spread(
            pod("p", &[("foo", "")]),
            max_skew,
            key,
            DO_NOT_SCHEDULE,
            Some(exists("foo")),
        )
    }

    #[test]
    #[allow(clippy::too_many_lines)] // upstream's table, case by case
    fn single_constraint() {
        // filtering_test.go, TestSingleConstraint.
        let mut other_ns = vec![
            pod_on("p-a1", "node-a", &[("foo", "")]),
            pod_on("p-b1", "node-a", &[("foo", "")]),
            pod_on("p-x1", "node-x", &[("foo", "")]),
            pod_on("p-y1", "node-y", &[("foo", "")]),
        ];
        other_ns[0].metadata.namespace = Some("ns1".into());
        other_ns[1].metadata.namespace = Some("ns2".into());
        let mut no_zone_on_b = four_nodes();
        no_zone_on_b[1] = node("node-b", &[("zon", "zone1"), ("node", "node-b")]);
        let mut terminating = vec![
            pod_on("p-a", "node-a", &[("foo", "")]),
            pod_on("p-b", "node-b", &[("foo", "")]),
        ];
        terminating[0].metadata.deletion_timestamp =
            Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
                k8s_openapi::jiff::Timestamp::default(),
            ));
        let cases = vec![
            Case {
                name: "no existing pods",
                pod: foo_pod(1, "zone"),
                nodes: four_nodes(),
                existing: vec![],
                want: vec![
                    ("node-a", Success),
                    ("node-b", Success),
                    ("node-x", Success),
                    ("node-y", Success),
                ],
            },
            Case {
                name: "no existing pods, incoming pod doesn't match itself",
                pod: spread(
                    pod("p", &[("foo", "")]),
                    1,
                    "zone",
                    DO_NOT_SCHEDULE,
                    Some(exists("bar")),
                ),
                nodes: four_nodes(),
                existing: vec![],
                want: vec![
                    ("node-a", Success),
                    ("node-b", Success),
                    ("node-x", Success),
                    ("node-y", Success),
                ],
            },
            Case {
                name: "existing pods in a different namespace do not count",
                pod: foo_pod(1, "zone"),
                nodes: four_nodes(),
                existing: other_ns,
                want: vec![
                    ("node-a", Success),
                    ("node-b", Success),
                    ("node-x", Unschedulable),
                    ("node-y", Unschedulable),
                ],
            },
            Case {
                name: "pods spread across zones as 3/3, all nodes fit",
                pod: foo_pod(1, "zone"),
                nodes: four_nodes(),
                existing: two_one_zero_three(),
                want: vec![
                    ("node-a", Success),
                    ("node-b", Success),
                    ("node-x", Success),
                    ("node-y", Success),
                ],
            },
            Case {
                name: "pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
                pod: foo_pod(1, "zone"),
                nodes: no_zone_on_b,
                existing: vec![
                    pod_on("p-a1", "node-a", &[("foo", "")]),
                    pod_on("p-b1", "node-b", &[("foo", "")]),
                    pod_on("p-x1", "node-x", &[("foo", "")]),
                    pod_on("p-y1", "node-y", &[("foo", "")]),
                ],
                want: vec![
                    ("node-a", Success),
                    ("node-b", Unresolvable),
                    ("node-x", Unschedulable),
                    ("node-y", Unschedulable),
                ],
            },
            Case {
                name: "pod cannot be scheduled as all nodes don't have label 'rack'",
                pod: foo_pod(1, "rack"),
                nodes: vec![zone_node("node-a", "zone1"), zone_node("node-x", "zone2")],
                existing: vec![],
                want: vec![("node-a", Unresolvable), ("node-x", Unresolvable)],
            },
            Case {
                name: "pods spread across nodes as 2/1/0/3, only node-x fits",
                pod: foo_pod(1, "node"),
                nodes: four_nodes(),
                existing: two_one_zero_three(),
                want: vec![
                    ("node-a", Unschedulable),
                    ("node-b", Unschedulable),
                    ("node-x", Success),
                    ("node-y", Unschedulable),
                ],
            },
            Case {
                name: "pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
                pod: foo_pod(2, "node"),
                nodes: four_nodes(),
                existing: two_one_zero_three(),
                want: vec![
                    ("node-a", Unschedulable),
                    ("node-b", Success),
                    ("node-x", Success),
                    ("node-y", Unschedulable),
                ],
            },
            Case {
                name: "pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
                pod: spread(
                    pod("p", &[("bar", "")]),
                    1,
                    "node",
                    DO_NOT_SCHEDULE,
                    Some(exists("foo")),
                ),
                nodes: four_nodes(),
                existing: two_one_zero_three(),
                want: vec![
                    ("node-a", Unschedulable),
                    ("node-b", Success),
                    ("node-x", Success),
                    ("node-y", Unschedulable),
                ],
            },
            Case {
                // Only node-a and node-y count (2/~1~/~0~/3); NodeAffinity itself
                // is not run here, so node-b and node-x pass this plugin.
                name: "incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
                pod: with_node_affinity_in(foo_pod(1, "node"), "node", &["node-a", "node-y"]),
                nodes: four_nodes(),
                existing: two_one_zero_three(),
                want: vec![
                    ("node-a", Success),
                    ("node-b", Success),
                    ("node-x", Success),
                    ("node-y", Unschedulable),
                ],
            },
            Case {
                name: "terminating Pods should be excluded",
                pod: foo_pod(1, "node"),
                nodes: vec![
                    node("node-a", &[("node", "node-a")]),
                    node("node-b", &[("node", "node-b")]),
                ],
                existing: terminating,
                want: vec![("node-a", Success), ("node-b", Unschedulable)],
            },
        ];
        for case in &cases {
            run(case);
        }
    }

    #[test]
    fn multiple_constraints() {
        // filtering_test.go, TestMultipleConstraints.
        let both = |zone_skew, node_skew| {
            spread(
                spread(
                    pod("p", &[("foo", "")]),
                    zone_skew,
                    "zone",
                    DO_NOT_SCHEDULE,
                    Some(exists("foo")),
                ),
                node_skew,
                "node",
                DO_NOT_SCHEDULE,
                Some(exists("foo")),
            )
        };
        let mut four_one_zero_three = two_one_zero_three();
        four_one_zero_three.push(pod_on("p-a3", "node-a", &[("foo", "")]));
        four_one_zero_three.push(pod_on("p-a4", "node-a", &[("foo", "")]));
        let cases = vec![
            Case {
                // zone allows any node, node allows node-x: node-x.
                name: "two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
                pod: both(1, 1),
                nodes: four_nodes(),
                existing: two_one_zero_three(),
                want: vec![
                    ("node-a", Unschedulable),
                    ("node-b", Unschedulable),
                    ("node-x", Success),
                    ("node-y", Unschedulable),
                ],
            },
            Case {
                // zone allows zone2 (node-x, node-y), node allows node-x.
                name: "two Constraints on zone and node, spreads = [5/3, 4/1/0/3]",
                pod: both(1, 1),
                nodes: four_nodes(),
                existing: four_one_zero_three,
                want: vec![
                    ("node-a", Unschedulable),
                    ("node-b", Unschedulable),
                    ("node-x", Success),
                    ("node-y", Unschedulable),
                ],
            },
            Case {
                // zone allows zone1 (node-a, node-b), node allows node-b and
                // node-x: node-b.
                name: "two Constraints on zone and node, spreads = [1/4, 1/0/0/4]",
                pod: both(1, 1),
                nodes: four_nodes(),
                existing: vec![
                    pod_on("p-a1", "node-a", &[("foo", "")]),
                    pod_on("p-y1", "node-y", &[("foo", "")]),
                    pod_on("p-y2", "node-y", &[("foo", "")]),
                    pod_on("p-y3", "node-y", &[("foo", "")]),
                    pod_on("p-y4", "node-y", &[("foo", "")]),
                ],
                want: vec![
                    ("node-a", Unschedulable),
                    ("node-b", Success),
                    ("node-x", Unschedulable),
                    ("node-y", Unschedulable),
                ],
            },
        ];
        for case in &cases {
            run(case);
        }
    }

    #[test]
    fn min_domains_and_policies() {
        // filtering_test.go, TestSingleConstraint's minDomains cases and
        // TestPodTopologySpreadFilter's nodeTaintsPolicy cases.
        let mut min_domains = foo_pod(1, "zone");
        if let Some(c) = min_domains
            .spec
            .as_mut()
            .and_then(|s| s.topology_spread_constraints.as_mut())
        {
            c[0].min_domains = Some(3);
        }
        let one_one = vec![
            pod_on("p-a1", "node-a", &[("foo", "")]),
            pod_on("p-x1", "node-x", &[("foo", "")]),
        ];
        // Two zones, fewer than minDomains 3: the global minimum counts as 0,
        // so 1 + 1 - 0 > 1 everywhere.
        run(&Case {
            name: "pods spread across zone as 1/1, but minDomains is 3 and two domains exist",
            pod: min_domains,
            nodes: four_nodes(),
            existing: one_one.clone(),
            want: vec![
                ("node-a", Unschedulable),
                ("node-b", Unschedulable),
                ("node-x", Unschedulable),
                ("node-y", Unschedulable),
            ],
        });
        run(&Case {
            name: "pods spread across zone as 1/1, minDomains unset",
            pod: foo_pod(1, "zone"),
            nodes: four_nodes(),
            existing: one_one,
            want: vec![
                ("node-a", Success),
                ("node-b", Success),
                ("node-x", Success),
                ("node-y", Success),
            ],
        });

        // nodeTaintsPolicy Honor leaves a tainted node out of the domains;
        // Ignore (the default) counts it.
        let tainted = || {
            let mut n = node("node-c", &[("node", "node-c")]);
            n.spec = Some(k8s_openapi::api::core::v1::NodeSpec {
                taints: Some(vec![k8s_openapi::api::core::v1::Taint {
                    key: "foo".into(),
                    effect: "NoSchedule".into(),
                    ..Default::default()
                }]),
                ..Default::default()
            });
            n
        };
        let nodes = vec![
            node("node-a", &[("node", "node-a")]),
            node("node-b", &[("node", "node-b")]),
            tainted(),
        ];
        let existing = vec![
            pod_on("p-a1", "node-a", &[("foo", "")]),
            pod_on("p-b1", "node-b", &[("foo", "")]),
        ];
        run(&Case {
            name: "NodeTaintsPolicy ignored: node-c's 0 is the minimum",
            pod: foo_pod(1, "node"),
            nodes: nodes.clone(),
            existing: existing.clone(),
            want: vec![
                ("node-a", Unschedulable),
                ("node-b", Unschedulable),
                ("node-c", Success),
            ],
        });
        let mut honor = foo_pod(1, "node");
        if let Some(c) = honor
            .spec
            .as_mut()
            .and_then(|s| s.topology_spread_constraints.as_mut())
        {
            c[0].node_taints_policy = Some("Honor".into());
        }
        run(&Case {
            name: "NodeTaintsPolicy honored: node-c is not a domain, the minimum is 1",
            pod: honor,
            nodes,
            existing,
            want: vec![
                ("node-a", Success),
                ("node-b", Success),
                ("node-c", Success),
            ],
        });
    }

    #[test]
    fn skip_without_hard_constraints() {
        let mut state = CycleState::default();
        let soft = spread(
            pod("p", &[("foo", "")]),
            1,
            "zone",
            "ScheduleAnyway",
            Some(exists("foo")),
        );
        assert_eq!(pre_filter(&soft, &[], &mut state).code, Code::Skip);
        assert_eq!(pre_filter(&pod("p", &[]), &[], &mut state).code, Code::Skip);
    }
}
