//! `PreFilter` and Filter (`interpodaffinity/filtering.go`): count, per topology
//! pair, the existing pods matching the incoming pod's required affinity and
//! anti-affinity terms and the existing pods whose required anti-affinity
//! terms match the incoming pod; then check each node against the counts.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Node, Pod};

use super::terms::{AffinityTerm, PodTerms, has_required_anti_affinity, matches_all};
use super::{
    ERR_REASON_AFFINITY_RULES_NOT_MATCH, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
};
use crate::scheduler::framework::{Code, CycleState, NodeInfo, Snapshot, Status};
use crate::scheduler::plugins::labels::labels_of;

/// The cycle-state key (`"PreFilter" + Name`).
pub const PRE_FILTER_STATE_KEY: &str = "PreFilterInterPodAffinity";

/// `(topologyKey, topologyValue)` to a count (`topologyToMatchedTermCount`).
pub type TopologyCounts = BTreeMap<(String, String), i64>;

/// What `PreFilter` leaves for Filter (`preFilterState`).
#[derive(Debug)]
pub struct PreFilterState {
    /// Existing pods whose required anti-affinity terms match the incoming pod.
    pub existing_anti_affinity_counts: TopologyCounts,
    /// Existing pods matching all of the incoming pod's required affinity terms.
    pub affinity_counts: TopologyCounts,
    /// Existing pods matching the incoming pod's required anti-affinity terms.
    pub anti_affinity_counts: TopologyCounts,
    pub required_affinity: Vec<AffinityTerm>,
    pub required_anti_affinity: Vec<AffinityTerm>,
    /// Whether the incoming pod matches all its own required affinity terms.
    pub matches_own_affinity: bool,
}

/// Adds `value` at `(key, node's value of key)` when the node has the label.
fn update(counts: &mut TopologyCounts, node: &Node, key: &str, value: i64) {
    if let Some(v) = labels_of(node.metadata.labels.as_ref()).get(key) {
        *counts.entry((key.to_owned(), v.clone())).or_insert(0) += value;
    }
}

/// `PreFilter`: `Skip` when neither the pod nor any existing pod's required
/// anti-affinity concerns it; `UnschedulableAndUnresolvable` when the pod's
/// terms do not parse.
pub fn pre_filter(pod: &Pod, nodes: &Snapshot<'_>, state: &mut CycleState) -> Status {
    let terms = match PodTerms::parse(pod) {
        Ok(t) => t,
        Err(err) => {
            return Status::new(
                Code::UnschedulableAndUnresolvable,
                format!("parsing pod: {err}"),
            );
        }
    };
    let mut existing_anti = TopologyCounts::new();
    let mut affinity = TopologyCounts::new();
    let mut anti = TopologyCounts::new();
    let has_required =
        !terms.required_affinity.is_empty() || !terms.required_anti_affinity.is_empty();
    // Without required terms of its own, only existing pods' required
    // anti-affinity matters: only the nodes holding such pods are visited,
    // from the snapshot's list (`HavePodsWithRequiredAntiAffinityList`, as
    // `interpodaffinity/filtering.go`'s `PreFilter` asks for it), so a
    // cluster without them costs nothing here.
    let visited: Box<dyn Iterator<Item = &NodeInfo>> = if has_required {
        Box::new(nodes.infos().iter())
    } else {
        Box::new(nodes.have_pods_with_required_anti_affinity())
    };
    for info in visited {
        let node = &*info.node;
        for existing in &info.pods {
            if !has_required && !has_required_anti_affinity(existing) {
                continue;
            }
            let existing_terms = PodTerms::of_existing(existing);
            for t in &existing_terms.required_anti_affinity {
                if t.matches(pod) {
                    update(&mut existing_anti, node, &t.topology_key, 1);
                }
            }
            if has_required {
                if matches_all(&terms.required_affinity, existing) {
                    for t in &terms.required_affinity {
                        update(&mut affinity, node, &t.topology_key, 1);
                    }
                }
                for t in &terms.required_anti_affinity {
                    if t.matches(existing) {
                        update(&mut anti, node, &t.topology_key, 1);
                    }
                }
            }
        }
    }
    if existing_anti.is_empty() && !has_required {
        return Status::skip(
            "neither the pod nor any pod on the nodes has required pod (anti-)affinity",
        );
    }
    let matches_own_affinity = matches_all(&terms.required_affinity, pod);
    state.write(
        PRE_FILTER_STATE_KEY,
        PreFilterState {
            existing_anti_affinity_counts: existing_anti,
            affinity_counts: affinity,
            anti_affinity_counts: anti,
            required_affinity: terms.required_affinity,
            required_anti_affinity: terms.required_anti_affinity,
            matches_own_affinity,
        },
    );
    Status::success()
}

/// `satisfyPodAffinity`: every term's topology key is on the node and a
/// matching pod is in the node's domain of it; or, for the first pod of a
/// group, no pod matches anywhere and the pod matches its own terms.
fn satisfies_pod_affinity(s: &PreFilterState, node: &Node) -> bool {
    let labels = labels_of(node.metadata.labels.as_ref());
    let mut pods_exist = true;
    for t in &s.required_affinity {
        let Some(value) = labels.get(&t.topology_key) else {
            return false;
        };
        let key = (t.topology_key.clone(), value.clone());
        if s.affinity_counts.get(&key).copied().unwrap_or(0) <= 0 {
            pods_exist = false;
        }
    }
    pods_exist || (s.affinity_counts.is_empty() && s.matches_own_affinity)
}

/// `satisfyPodAntiAffinity`: no pod matching an anti-affinity term is in the
/// node's domain of that term.
fn satisfies_pod_anti_affinity(s: &PreFilterState, node: &Node) -> bool {
    if s.anti_affinity_counts.is_empty() {
        return true;
    }
    let labels = labels_of(node.metadata.labels.as_ref());
    !s.required_anti_affinity.iter().any(|t| {
        labels.get(&t.topology_key).is_some_and(|v| {
            let key = (t.topology_key.clone(), v.clone());
            s.anti_affinity_counts.get(&key).copied().unwrap_or(0) > 0
        })
    })
}

/// `satisfyExistingPodsAntiAffinity`: no existing pod's anti-affinity term
/// that matches the incoming pod covers any of the node's label pairs.
fn satisfies_existing_pods_anti_affinity(s: &PreFilterState, node: &Node) -> bool {
    if s.existing_anti_affinity_counts.is_empty() {
        return true;
    }
    !labels_of(node.metadata.labels.as_ref())
        .iter()
        .any(|(k, v)| {
            s.existing_anti_affinity_counts
                .get(&(k.clone(), v.clone()))
                .copied()
                .unwrap_or(0)
                > 0
        })
}

/// Filter: affinity (`UnschedulableAndUnresolvable`), then the pod's
/// anti-affinity, then existing pods' anti-affinity (both `Unschedulable`).
pub fn filter(state: &CycleState, _pod: &Pod, info: &NodeInfo) -> Status {
    let Some(s) = state.read::<PreFilterState>(PRE_FILTER_STATE_KEY) else {
        return Status::new(
            Code::Error,
            format!("error reading {PRE_FILTER_STATE_KEY:?} from cycleState: not found"),
        );
    };
    let node = &*info.node;
    if !satisfies_pod_affinity(s, node) {
        return Status::new(
            Code::UnschedulableAndUnresolvable,
            ERR_REASON_AFFINITY_RULES_NOT_MATCH,
        );
    }
    if !satisfies_pod_anti_affinity(s, node) {
        return Status::new(
            Code::Unschedulable,
            ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
        );
    }
    if !satisfies_existing_pods_anti_affinity(s, node) {
        return Status::new(
            Code::Unschedulable,
            ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
        );
    }
    Status::success()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::plugins::inter_pod_affinity::testing::{expr, term, with_terms};
    use crate::scheduler::plugins::pod_topology_spread::testing::{infos, node, pod, pod_on};
    use k8s_openapi::api::core::v1::PodAffinityTerm;

    const SERVICE: (&str, &str) = ("service", "securityscan");
    const SECURITY: (&str, &str) = ("security", "S1");

    fn service_in(values: &[&str], key: &str) -> PodAffinityTerm {
        term(vec![expr("service", "In", values)], key)
    }

    /// `None` for success, else the code and reason.
    type Verdict = Option<(Code, String)>;

    /// The incoming pod's verdict on each node: `None` for success, else the
    /// code and reason.
    fn verdicts(incoming: &Pod, nodes: &[Node], existing: &[Pod]) -> Vec<Verdict> {
        let infos = infos(nodes, existing);
        let mut state = CycleState::default();
        let pre = pre_filter(incoming, &Snapshot::new(&infos), &mut state);
        if pre.code == Code::Skip {
            return infos.iter().map(|_| None).collect();
        }
        assert!(pre.is_success(), "{pre:?}");
        infos
            .iter()
            .map(|i| {
                let s = filter(&state, incoming, i);
                (!s.is_success()).then(|| (s.code, s.reasons.join(", ")))
            })
            .collect()
    }

    /// A failed verdict, as `verdicts` gives it.
    #[allow(clippy::unnecessary_wraps)] // compared with `verdicts` as is
    fn fail(code: Code, reason: &str) -> Verdict {
        Some((code, reason.to_owned()))
    }

    #[test]
    #[allow(clippy::too_many_lines)] // upstream's table, case by case
    fn required_affinity_single_node() {
        // filtering_test.go, TestRequiredAffinitySingleNode: one node
        // machine1 {region: r1, zone: z11}.
        let machine1 = vec![node("machine1", &[("region", "r1"), ("zone", "z11")])];
        let existing_service = || vec![pod_on("e", "machine1", &[SERVICE])];
        let affinity_fail = fail(
            Code::UnschedulableAndUnresolvable,
            ERR_REASON_AFFINITY_RULES_NOT_MATCH,
        );
        let anti_fail = fail(
            Code::Unschedulable,
            ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
        );
        let existing_fail = fail(
            Code::Unschedulable,
            ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
        );
        let mut diff_ns = existing_service();
        diff_ns[0].metadata.namespace = Some("ns".into());
        let mut diff_ns_term = service_in(&["securityscan", "value2"], "");
        diff_ns_term.namespaces = Some(vec!["DiffNameSpace".into()]);
        let cases: Vec<(&str, Pod, Vec<Pod>, Verdict)> = vec![
            (
                "A pod that has no required pod affinity scheduling rules can schedule onto a node with no existing pods",
                pod("p", &[]),
                vec![],
                None,
            ),
            (
                "satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In operator that matches the existing pod",
                with_terms(
                    pod("p", &[SECURITY]),
                    vec![service_in(&["securityscan", "value2"], "region")],
                    vec![],
                ),
                existing_service(),
                None,
            ),
            (
                "satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using not in operator in labelSelector that matches the existing pod",
                with_terms(
                    pod("p", &[SECURITY]),
                    vec![term(
                        vec![expr("service", "NotIn", &["securityscan3", "value3"])],
                        "region",
                    )],
                    vec![],
                ),
                existing_service(),
                None,
            ),
            (
                "Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
                with_terms(pod("p", &[SECURITY]), vec![diff_ns_term], vec![]),
                diff_ns,
                affinity_fail.clone(),
            ),
            (
                "Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
                with_terms(
                    pod("p", &[SERVICE]),
                    vec![service_in(&["antivirusscan", "value2"], "")],
                    vec![],
                ),
                existing_service(),
                affinity_fail.clone(),
            ),
            (
                "The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot schedule onto the node because one of the matchExpression item don't match.",
                with_terms(
                    pod("p", &[SECURITY]),
                    vec![
                        term(
                            vec![
                                expr("service", "Exists", &[]),
                                expr("wrongkey", "DoesNotExist", &[]),
                            ],
                            "region",
                        ),
                        term(
                            vec![
                                expr("service", "In", &["securityscan2"]),
                                expr("service", "NotIn", &["WrongValue"]),
                            ],
                            "region",
                        ),
                    ],
                    vec![],
                ),
                existing_service(),
                affinity_fail.clone(),
            ),
            (
                "satisfies the PodAffinity and PodAntiAffinity with the existing pod",
                with_terms(
                    pod("p", &[SECURITY]),
                    vec![service_in(&["securityscan", "value2"], "region")],
                    vec![service_in(&["antivirusscan", "value2"], "node")],
                ),
                existing_service(),
                None,
            ),
            (
                "satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
                with_terms(
                    pod("p", &[SECURITY]),
                    vec![service_in(&["securityscan", "value2"], "region")],
                    vec![service_in(&["securityscan", "value2"], "zone")],
                ),
                existing_service(),
                anti_fail,
            ),
            (
                "satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry with the existing pod",
                with_terms(
                    pod("p", &[SERVICE]),
                    vec![service_in(&["securityscan", "value2"], "region")],
                    vec![service_in(&["antivirusscan", "value2"], "node")],
                ),
                vec![with_terms(
                    pod_on("e", "machine1", &[SERVICE]),
                    vec![],
                    vec![service_in(&["securityscan", "value2"], "zone")],
                )],
                existing_fail.clone(),
            ),
            (
                "pod matches its own Label in PodAffinity and that matches the existing pod Labels",
                with_terms(
                    pod("p", &[SERVICE]),
                    vec![term(
                        vec![expr("service", "NotIn", &["securityscan", "value2"])],
                        "region",
                    )],
                    vec![],
                ),
                existing_service(),
                affinity_fail,
            ),
            (
                "verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod",
                pod("p", &[SERVICE]),
                vec![with_terms(
                    pod_on("e", "machine1", &[SERVICE]),
                    vec![],
                    vec![service_in(&["securityscan", "value2"], "zone")],
                )],
                existing_fail,
            ),
            (
                "verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. satisfy PodAntiAffinity symmetry with the existing pod",
                pod("p", &[SERVICE]),
                vec![with_terms(
                    pod_on("e", "machine1", &[SERVICE]),
                    vec![],
                    vec![term(
                        vec![expr("service", "NotIn", &["securityscan", "value2"])],
                        "zone",
                    )],
                )],
                None,
            ),
            (
                "satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity symmetry with incoming pod",
                with_terms(
                    pod("p", &[SERVICE]),
                    vec![],
                    vec![
                        term(vec![expr("service", "Exists", &[])], "region"),
                        term(vec![expr("security", "Exists", &[])], "region"),
                    ],
                ),
                vec![with_terms(
                    pod_on("e", "machine1", &[SECURITY]),
                    vec![],
                    vec![term(vec![expr("security", "Exists", &[])], "zone")],
                )],
                fail(
                    Code::Unschedulable,
                    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
                ),
            ),
        ];
        for (name, incoming, existing, want) in cases {
            assert_eq!(
                verdicts(&incoming, &machine1, &existing),
                vec![want],
                "{name}"
            );
        }
    }

    #[test]
    fn first_pod_of_a_group() {
        // filtering_test.go, TestRequiredAffinityMultipleNodes: "A pod can be
        // scheduled onto all the nodes that have the same topology key &
        // label value with one of them has an existing pod that matches the
        // affinity rules", and the self-affinity special case.
        let nodes = vec![
            node("machine1", &[("region", "r1"), ("zone", "z11")]),
            node("machine2", &[("region", "r1"), ("zone", "z12")]),
            node("machine3", &[("zone", "z21")]),
        ];
        let self_affine = || {
            with_terms(
                pod("p", &[("foo", "bar")]),
                vec![term(vec![expr("foo", "In", &["bar"])], "region")],
                vec![],
            )
        };
        let unresolvable = fail(
            Code::UnschedulableAndUnresolvable,
            ERR_REASON_AFFINITY_RULES_NOT_MATCH,
        );
        // No pod matches anywhere and the pod matches its own term: any node
        // with the topology key will do.
        assert_eq!(
            verdicts(&self_affine(), &nodes, &[]),
            vec![None, None, unresolvable.clone()]
        );
        // Once a matching pod exists, only its region qualifies.
        let existing = vec![pod_on("e", "machine1", &[("foo", "bar")])];
        assert_eq!(
            verdicts(&self_affine(), &nodes, &existing),
            vec![None, None, unresolvable.clone()]
        );
        // A pod not matching its own term gets no such grace.
        let other = with_terms(
            pod("p", &[("foo", "baz")]),
            vec![term(vec![expr("foo", "In", &["bar"])], "region")],
            vec![],
        );
        assert_eq!(
            verdicts(&other, &nodes, &[]),
            vec![unresolvable.clone(), unresolvable.clone(), unresolvable]
        );
    }

    #[test]
    fn namespaces_and_namespace_selector() {
        let nodes = vec![node("n1", &[("zone", "a")]), node("n2", &[("zone", "b")])];
        let mut elsewhere = pod_on("e", "n1", &[("app", "db")]);
        elsewhere.metadata.namespace = Some("data".into());
        let existing = vec![elsewhere];
        // Without namespaces or a selector only the pod's own namespace counts.
        let own_ns = with_terms(
            pod("p", &[]),
            vec![],
            vec![term(vec![expr("app", "In", &["db"])], "zone")],
        );
        assert_eq!(verdicts(&own_ns, &nodes, &existing), vec![None, None]);
        // An empty namespaceSelector selects every namespace.
        let mut all_ns_term = term(vec![expr("app", "In", &["db"])], "zone");
        all_ns_term.namespace_selector =
            Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector::default());
        let all_ns = with_terms(pod("p", &[]), vec![], vec![all_ns_term]);
        let anti = fail(
            Code::Unschedulable,
            ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
        );
        assert_eq!(
            verdicts(&all_ns, &nodes, &existing),
            vec![anti.clone(), None]
        );
        // A selector on the namespace's name label.
        let mut named = term(vec![expr("app", "In", &["db"])], "zone");
        named.namespace_selector = Some(
            crate::scheduler::plugins::inter_pod_affinity::testing::selector(vec![expr(
                "kubernetes.io/metadata.name",
                "In",
                &["data"],
            )]),
        );
        let by_name = with_terms(pod("p", &[]), vec![], vec![named]);
        assert_eq!(verdicts(&by_name, &nodes, &existing), vec![anti, None]);
    }

    #[test]
    fn skip_and_parse_errors() {
        let nodes = vec![node("n1", &[("zone", "a")])];
        let infos = infos(&nodes, &[pod_on("e", "n1", &[("app", "db")])]);
        let mut state = CycleState::default();
        assert_eq!(
            pre_filter(&pod("p", &[]), &Snapshot::new(&infos), &mut state).code,
            Code::Skip
        );
        let bad = with_terms(
            pod("p", &[]),
            vec![term(vec![expr("app", "In", &[])], "zone")],
            vec![],
        );
        let status = pre_filter(&bad, &Snapshot::new(&infos), &mut state);
        assert_eq!(status.code, Code::UnschedulableAndUnresolvable);
        assert!(status.reasons[0].starts_with("parsing pod: "));
    }
}
