//! `PreScore`, Score and `NormalizeScore` (`interpodaffinity/scoring.go`): sum,
//! per topology pair, the weights of preferred terms (the incoming pod's
//! against existing pods, and existing pods' against the incoming pod, with
//! their required affinity terms at `hardPodAffinityWeight`), anti-affinity
//! negative; a node scores the sum over its labels, scaled min-max to 0..=100.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Node, Pod};

use super::HARD_POD_AFFINITY_WEIGHT;
use super::terms::{AffinityTerm, PodTerms, WeightedTerm, has_pod_affinity};
use crate::scheduler::framework::{
    Code, CycleState, MAX_NODE_SCORE, NodeInfo, NodeScore, Snapshot, Status,
};
use crate::scheduler::plugins::labels::labels_of;

/// The cycle-state key (`"PreScore" + Name`).
pub const PRE_SCORE_STATE_KEY: &str = "PreScoreInterPodAffinity";

/// `topologyKey -> topologyValue -> summed weight` (`scoreMap`).
#[derive(Debug, Default)]
pub struct PreScoreState {
    pub topology_score: BTreeMap<String, BTreeMap<String, i64>>,
}

impl PreScoreState {
    /// `scoreMap.processTerm`: adds `weight * multiplier` at the node's value
    /// of the term's key when `pod` matches the term.
    fn process_term(
        &mut self,
        term: &AffinityTerm,
        weight: i32,
        pod: &Pod,
        node: &Node,
        multiplier: i32,
    ) {
        if !term.matches(pod) {
            return;
        }
        if let Some(value) = labels_of(node.metadata.labels.as_ref()).get(&term.topology_key) {
            *self
                .topology_score
                .entry(term.topology_key.clone())
                .or_default()
                .entry(value.clone())
                .or_insert(0) += i64::from(weight) * i64::from(multiplier);
        }
    }

    fn process_terms(&mut self, terms: &[WeightedTerm], pod: &Pod, node: &Node, multiplier: i32) {
        for t in terms {
            self.process_term(&t.term, t.weight, pod, node, multiplier);
        }
    }

    /// `processExistingPod`.
    fn process_existing_pod(
        &mut self,
        incoming: &Pod,
        terms: &PodTerms,
        existing: &Pod,
        node: &Node,
    ) {
        if labels_of(node.metadata.labels.as_ref()).is_empty() {
            return;
        }
        let theirs = PodTerms::of_existing(existing);
        self.process_terms(&terms.preferred_affinity, existing, node, 1);
        self.process_terms(&terms.preferred_anti_affinity, existing, node, -1);
        for t in &theirs.required_affinity {
            self.process_term(t, HARD_POD_AFFINITY_WEIGHT, incoming, node, 1);
        }
        self.process_terms(&theirs.preferred_affinity, incoming, node, 1);
        self.process_terms(&theirs.preferred_anti_affinity, incoming, node, -1);
    }
}

/// `PreScore`: `Error` when the pod's terms do not parse; `Skip` when no
/// term of either side touches any node.
pub fn pre_score(pod: &Pod, all: &Snapshot<'_>, state: &mut CycleState) -> Status {
    let terms = match PodTerms::parse(pod) {
        Ok(t) => t,
        Err(err) => return Status::new(Code::Error, format!("failed to parse pod: {err}")),
    };
    let has_constraints =
        !terms.preferred_affinity.is_empty() || !terms.preferred_anti_affinity.is_empty();
    let mut s = PreScoreState::default();
    // Without preferred terms of its own only pods with affinity matter, so
    // only the nodes holding such pods are visited, from the snapshot's list
    // (`HavePodsWithAffinityList`, as `interpodaffinity/scoring.go`'s
    // `PreScore` asks for it): with no such pod, no node is.
    let visited: Box<dyn Iterator<Item = &NodeInfo>> = if has_constraints {
        Box::new(all.infos().iter())
    } else {
        Box::new(all.have_pods_with_affinity())
    };
    for info in visited {
        for existing in info
            .pods
            .iter()
            .filter(|p| has_constraints || has_pod_affinity(p))
        {
            s.process_existing_pod(pod, &terms, existing, &info.node);
        }
    }
    if s.topology_score.is_empty() {
        return Status::skip(
            "no preferred pod (anti-)affinity term, the pod's or an existing pod's, applies",
        );
    }
    state.write(PRE_SCORE_STATE_KEY, s);
    Status::success()
}

/// Score: the summed weights of the node's topology pairs (negative possible).
pub fn score(state: &CycleState, info: &NodeInfo) -> i64 {
    let Some(s) = state.read::<PreScoreState>(PRE_SCORE_STATE_KEY) else {
        return 0;
    };
    let labels = labels_of(info.node.metadata.labels.as_ref());
    s.topology_score
        .iter()
        .filter_map(|(key, values)| labels.get(key).and_then(|v| values.get(v)))
        .sum()
}

/// `NormalizeScore`: `int64(100 * (score - min) / (max - min))` in floating
/// point, truncated; all 0 when every node scores the same.
pub fn normalize(state: &CycleState, scores: &mut [NodeScore<'_>]) {
    let Some(s) = state.read::<PreScoreState>(PRE_SCORE_STATE_KEY) else {
        return;
    };
    if s.topology_score.is_empty() {
        return;
    }
    let min = scores.iter().map(|s| s.score).min().unwrap_or(0);
    let max = scores.iter().map(|s| s.score).max().unwrap_or(0);
    let diff = max - min;
    for NodeScore { score, .. } in scores.iter_mut() {
        let mut f = 0.0;
        if diff > 0 {
            #[allow(clippy::cast_precision_loss)]
            let ratio = (*score - min) as f64 / diff as f64;
            #[allow(clippy::cast_precision_loss)]
            let max_score = MAX_NODE_SCORE as f64;
            f = max_score * ratio;
        }
        #[allow(clippy::cast_possible_truncation)]
        let truncated = f as i64;
        *score = truncated;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::framework::node_scores;
    use crate::scheduler::plugins::inter_pod_affinity::testing::{
        expr, selector, term, weighted, with_preferred, with_terms,
    };
    use crate::scheduler::plugins::pod_topology_spread::testing::{infos, node, pod, pod_on};
    use k8s_openapi::api::core::v1::WeightedPodAffinityTerm;

    const S1: (&str, &str) = ("security", "S1");
    const S2: (&str, &str) = ("security", "S2");
    const CHINA: (&str, &str) = ("region", "China");
    const INDIA: (&str, &str) = ("region", "India");
    const AZ1: (&str, &str) = ("az", "az1");
    const AZ2: (&str, &str) = ("az", "az2");

    fn security_in(weight: i32, value: &str, key: &str) -> WeightedPodAffinityTerm {
        weighted(weight, term(vec![expr("security", "In", &[value])], key))
    }

    /// `stayWithS1InRegion`, `stayWithS2InRegion`, `awayFromS1InAz`, ... as pods.
    fn stay_with(p: Pod, weight: i32, value: &str) -> Pod {
        with_preferred(p, vec![security_in(weight, value, "region")], vec![])
    }

    fn away_from(p: Pod, value: &str) -> Pod {
        with_preferred(p, vec![], vec![security_in(5, value, "az")])
    }

    fn stay_with_s1_away_from_s2(p: Pod) -> Pod {
        with_preferred(
            p,
            vec![security_in(8, "S1", "region")],
            vec![security_in(5, "S2", "az")],
        )
    }

    /// A case: name, incoming pod, existing pods, nodes, wanted scores.
    type Case = (&'static str, Pod, Vec<Pod>, Vec<Node>, Option<Vec<i64>>);

    /// Scores over all nodes, or `None` when `PreScore` skips.
    fn scores(incoming: &Pod, nodes: &[Node], existing: &[Pod]) -> Option<Vec<i64>> {
        let infos = infos(nodes, existing);
        let mut state = CycleState::default();
        let status = pre_score(incoming, &Snapshot::new(&infos), &mut state);
        if status.code == Code::Skip {
            return None;
        }
        assert!(status.is_success(), "{status:?}");
        let mut raw = node_scores(&infos, |i| score(&state, i));
        normalize(&state, &mut raw);
        Some(raw.iter().map(|s| s.score).collect())
    }

    #[test]
    #[allow(clippy::too_many_lines)] // upstream's table, case by case
    fn preferred_affinity() {
        // scoring_test.go, TestPreferredAffinity.
        let china_india_az1 = || {
            vec![
                node("node1", &[CHINA]),
                node("node2", &[INDIA]),
                node("node3", &[AZ1]),
            ]
        };
        let affinity3 = with_preferred(
            pod("p", &[S1]),
            vec![
                weighted(
                    8,
                    term(
                        vec![
                            expr("security", "NotIn", &["S1"]),
                            expr("security", "In", &["S2"]),
                        ],
                        "region",
                    ),
                ),
                weighted(
                    2,
                    term(
                        vec![
                            expr("security", "Exists", &[]),
                            expr("wrongkey", "DoesNotExist", &[]),
                        ],
                        "region",
                    ),
                ),
            ],
            vec![],
        );
        let hard_affinity = |p| {
            with_terms(
                p,
                vec![
                    term(vec![expr("security", "In", &["S1", "value2"])], "region"),
                    term(
                        vec![
                            expr("security", "Exists", &[]),
                            expr("wrongkey", "DoesNotExist", &[]),
                        ],
                        "region",
                    ),
                ],
                vec![],
            )
        };
        let cases: Vec<Case> = vec![
            (
                "all nodes are same priority as Affinity is nil",
                pod("p", &[S1]),
                vec![],
                china_india_az1(),
                None,
            ),
            (
                "Affinity: pod that matches topology key & pods in nodes will get high score comparing to others which doesn't match either pods in nodes or in topology key",
                stay_with(pod("p", &[S1]), 5, "S1"),
                vec![
                    pod_on("e1", "node1", &[S1]),
                    pod_on("e2", "node2", &[S2]),
                    pod_on("e3", "node3", &[S1]),
                ],
                china_india_az1(),
                Some(vec![100, 0, 0]),
            ),
            (
                "All the nodes that have the same topology key & label value with one of them has an existing pod that match the affinity rules, have the same score",
                stay_with(pod("p", &[]), 5, "S1"),
                vec![pod_on("e1", "node1", &[S1])],
                vec![
                    node("node1", &[CHINA]),
                    node("node2", &[CHINA, AZ1]),
                    node("node3", &[INDIA]),
                ],
                Some(vec![100, 100, 0]),
            ),
            (
                "Affinity: nodes in one region has more matching pods comparing to other region, so the region which has more matches will get high score",
                stay_with(pod("p", &[S1]), 6, "S2"),
                vec![
                    pod_on("e1", "node1", &[S2]),
                    pod_on("e2", "node1", &[S2]),
                    pod_on("e3", "node2", &[S2]),
                    pod_on("e4", "node3", &[S2]),
                    pod_on("e5", "node4", &[S2]),
                    pod_on("e6", "node5", &[S2]),
                ],
                vec![
                    node("node1", &[CHINA]),
                    node("node2", &[INDIA]),
                    node("node3", &[CHINA]),
                    node("node4", &[CHINA]),
                    node("node5", &[INDIA]),
                ],
                Some(vec![100, 0, 100, 100, 0]),
            ),
            (
                "Affinity: different Label operators and values for pod affinity scheduling preference, including some match failures",
                affinity3,
                vec![
                    pod_on("e1", "node1", &[S1]),
                    pod_on("e2", "node2", &[S2]),
                    pod_on("e3", "node3", &[S1]),
                ],
                china_india_az1(),
                Some(vec![20, 100, 0]),
            ),
            (
                "Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry",
                pod("p", &[S2]),
                vec![
                    stay_with(pod_on("e1", "node1", &[S1]), 5, "S1"),
                    stay_with(pod_on("e2", "node2", &[S2]), 6, "S2"),
                ],
                china_india_az1(),
                Some(vec![0, 100, 0]),
            ),
            (
                "Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry",
                pod("p", &[S1]),
                vec![
                    hard_affinity(pod_on("e1", "node1", &[S1])),
                    hard_affinity(pod_on("e2", "node2", &[S2])),
                ],
                china_india_az1(),
                Some(vec![100, 100, 0]),
            ),
            (
                "Anti Affinity: pod that does not match existing pods in node will get high score",
                away_from(pod("p", &[S1]), "S1"),
                vec![pod_on("e1", "node1", &[S1]), pod_on("e2", "node2", &[S2])],
                vec![node("node1", &[AZ1]), node("node2", &[CHINA])],
                Some(vec![0, 100]),
            ),
            (
                "Anti Affinity: one node has more matching pods comparing to other node, so the node which has more unmatches will get high score",
                away_from(pod("p", &[S1]), "S1"),
                vec![
                    pod_on("e1", "node1", &[S1]),
                    pod_on("e2", "node1", &[S1]),
                    pod_on("e3", "node2", &[S2]),
                ],
                vec![node("node1", &[AZ1]), node("node2", &[INDIA])],
                Some(vec![0, 100]),
            ),
            (
                "Anti Affinity symmetry: the existing pods in node which has anti affinity match will get high score",
                pod("p", &[S2]),
                vec![
                    away_from(pod_on("e1", "node1", &[S1]), "S2"),
                    away_from(pod_on("e2", "node2", &[S2]), "S1"),
                ],
                vec![node("node1", &[AZ1]), node("node2", &[AZ2])],
                Some(vec![0, 100]),
            ),
            (
                "Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to schedule and existing pods have the same labels",
                stay_with_s1_away_from_s2(pod("p", &[S1])),
                vec![
                    pod_on("e1", "node1", &[S1]),
                    pod_on("e2", "node1", &[S1]),
                    pod_on("e3", "node2", &[S1]),
                    pod_on("e4", "node3", &[S1]),
                    pod_on("e5", "node3", &[S1]),
                    pod_on("e6", "node4", &[S1]),
                    pod_on("e7", "node5", &[S1]),
                ],
                vec![
                    node("node1", &[CHINA, AZ1]),
                    node("node2", &[INDIA]),
                    node("node3", &[CHINA]),
                    node("node4", &[CHINA]),
                    node("node5", &[INDIA]),
                ],
                Some(vec![100, 0, 100, 100, 0]),
            ),
            (
                // Weights: affinity 8,0,0,0; anti -5 on node2; symmetry +8 on
                // node3; anti symmetry -5 on node4.
                "Affinity and Anti Affinity and symmetry: considered only preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity & symmetry",
                stay_with_s1_away_from_s2(pod("p", &[S1])),
                vec![
                    pod_on("e1", "node1", &[S1]),
                    pod_on("e2", "node2", &[S2]),
                    stay_with_s1_away_from_s2(pod_on("e3", "node3", &[])),
                    away_from(pod_on("e4", "node4", &[]), "S1"),
                ],
                vec![
                    node("node1", &[CHINA]),
                    node("node2", &[AZ1]),
                    node("node3", &[INDIA]),
                    node("node4", &[AZ2]),
                ],
                Some(vec![100, 0, 100, 0]),
            ),
            (
                "Avoid panic when partial nodes in a topology don't have pods with affinity",
                pod("p", &[S1]),
                vec![
                    pod_on("e1", "node1", &[S1]),
                    stay_with_s1_away_from_s2(pod_on("e2", "node2", &[])),
                ],
                vec![node("node1", &[CHINA]), node("node2", &[CHINA])],
                Some(vec![0, 0]),
            ),
        ];
        for (name, incoming, existing, nodes, want) in cases {
            assert_eq!(scores(&incoming, &nodes, &existing), want, "{name}");
        }
    }

    #[test]
    fn namespace_selector_symmetry() {
        // TestPreferredAffinity's "Affinity symmetry with namespace selector",
        // with the selector on the namespace's name label (the only label
        // podflow's scheduler knows).
        let mut incoming = pod("p", &[S1]);
        incoming.metadata.namespace = Some("subteam1.team1".into());
        let mut ns_term = term(vec![expr("security", "In", &["S1"])], "region");
        ns_term.namespaces = Some(vec!["subteam2.team2".into()]);
        ns_term.namespace_selector = Some(selector(vec![expr(
            "kubernetes.io/metadata.name",
            "In",
            &["subteam1.team1"],
        )]));
        let existing = vec![
            with_preferred(
                pod_on("e1", "node1", &[S1]),
                vec![weighted(5, ns_term)],
                vec![],
            ),
            stay_with(pod_on("e2", "node2", &[S2]), 6, "S2"),
        ];
        let nodes = vec![
            node("node1", &[CHINA]),
            node("node2", &[INDIA]),
            node("node3", &[AZ1]),
        ];
        assert_eq!(scores(&incoming, &nodes, &existing), Some(vec![100, 0, 0]));
    }

    #[test]
    fn invalid_terms_fail_pre_score() {
        let bad = with_preferred(
            pod("p", &[]),
            vec![weighted(
                8,
                term(vec![expr("security", "Bogus", &["x"])], "region"),
            )],
            vec![],
        );
        let mut state = CycleState::default();
        let status = pre_score(&bad, &Snapshot::new(&[]), &mut state);
        assert_eq!(status.code, Code::Error);
        assert_eq!(
            status.reasons,
            vec!["failed to parse pod: \"Bogus\" is not a valid label selector operator"]
        );
    }
}
