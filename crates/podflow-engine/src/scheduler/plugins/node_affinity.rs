//! `NodeAffinity` (`pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go`,
//! with the matching rules of `k8s.io/component-helpers/scheduling/corev1/nodeaffinity`):
//! a node must carry the pod's `nodeSelector` labels and match one of its
//! required node selector terms; nodes matching preferred terms score the sum
//! of those terms' weights.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{
    Node, NodeAffinity as NodeAffinitySpec, NodeSelectorRequirement, NodeSelectorTerm, Pod,
    PreferredSchedulingTerm,
};

use crate::scheduler::framework::{
    Code, CycleState, FilterPlugin, NodeInfo, NodeScore, ScorePlugin, Snapshot, Status,
    default_normalize,
};

/// Upstream's `ErrReasonPod`.
pub const REASON: &str = "node(s) didn't match Pod's node affinity/selector";
/// Upstream's `errReasonConflict`: the `metadata.name` terms name no node at all.
pub const REASON_CONFLICT: &str = "pod affinity terms conflict";
/// What the framework records for nodes `PreFilter` left out
/// (`schedule_one.go`, `findNodesThatFitPod`, `SetAbsentNodesStatus`, code
/// `UnschedulableAndUnresolvable`), `NodeAffinity` being the only default plugin
/// that narrows the nodes.
pub const ABSENT_REASON: &str = "node(s) didn't satisfy plugin(s) [NodeAffinity]";
/// Where `PreFilter` leaves its `PreFilterResult` in the cycle state.
pub const PRE_FILTER_RESULT_KEY: &str = "PreFilterResultNodeAffinity";

const OBJECT_NAME_FIELD: &str = "metadata.name";

pub struct NodeAffinity;

/// `framework.PreFilterResult`: the only nodes worth filtering, from the
/// required terms' `metadata.name In [...]` fields. The cycle should filter
/// only these and give every other node [`ABSENT_REASON`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreFilterResult {
    pub node_names: BTreeSet<String>,
}

/// `PreFilter`'s Skip: no `nodeSelector` and no required terms.
pub const SKIP_PRE_FILTER: &str = "the pod has no nodeSelector and no required node affinity";
/// `PreScore`'s Skip: no preferred terms.
pub const SKIP_PRE_SCORE: &str = "the pod has no preferred node affinity";

/// The node names `PreFilter` narrowed this cycle to, if it did.
pub fn pre_filter_result(state: &CycleState) -> Option<&BTreeSet<String>> {
    state
        .read::<PreFilterResult>(PRE_FILTER_RESULT_KEY)
        .map(|r| &r.node_names)
}

/// The pod's node affinity, if any.
fn affinity(pod: &Pod) -> Option<&NodeAffinitySpec> {
    pod.spec
        .as_ref()
        .and_then(|s| s.affinity.as_ref())
        .and_then(|a| a.node_affinity.as_ref())
}

fn required_terms(pod: &Pod) -> Option<&[NodeSelectorTerm]> {
    affinity(pod)
        .and_then(|a| {
            a.required_during_scheduling_ignored_during_execution
                .as_ref()
        })
        .map(|s| s.node_selector_terms.as_slice())
}

fn preferred_terms(pod: &Pod) -> Option<&[PreferredSchedulingTerm]> {
    affinity(pod).and_then(|a| {
        a.preferred_during_scheduling_ignored_during_execution
            .as_deref()
    })
}

fn node_selector(pod: &Pod) -> Option<&BTreeMap<String, String>> {
    pod.spec.as_ref().and_then(|s| s.node_selector.as_ref())
}

/// `RequiredNodeAffinity.Match`: the `nodeSelector` labels, then the required
/// terms `ORed` (a term that fails to parse matches nothing).
pub fn required_matches(pod: &Pod, node: &NodeInfo) -> bool {
    required_matches_node(pod, &node.node)
}

/// [`required_matches`] for a bare `Node` (`PodTopologySpread`'s
/// `nodeAffinityPolicy: Honor` asks it of every node it counts).
pub fn required_matches_node(pod: &Pod, node: &Node) -> bool {
    let labels = node.metadata.labels.as_ref();
    let name = node.metadata.name.as_deref().unwrap_or_default();
    let selector_ok = node_selector(pod).is_none_or(|selector| {
        selector
            .iter()
            .all(|(k, v)| labels.is_some_and(|l| l.get(k) == Some(v)))
    });
    if !selector_ok {
        return false;
    }
    match required_terms(pod) {
        Some(terms) => terms
            .iter()
            .any(|t| term_matches(t, labels, name) == Some(true)),
        None => true,
    }
}

/// `PreferredSchedulingTerms.Score`: the sum of the weights of the matching
/// terms (weight 0 and empty terms are left out).
pub fn preferred_score(pod: &Pod, node: &NodeInfo) -> i64 {
    let labels = node_labels(node);
    preferred_terms(pod)
        .unwrap_or_default()
        .iter()
        .filter(|t| t.weight != 0)
        .filter(|t| term_matches(&t.preference, labels, node.name()) == Some(true))
        .map(|t| i64::from(t.weight))
        .sum()
}

fn node_labels(node: &NodeInfo) -> Option<&BTreeMap<String, String>> {
    node.node.metadata.labels.as_ref()
}

/// One node selector term: its expressions `ANDed` over the labels, its fields
/// `ANDed` over `metadata.name`. An empty term matches nothing; `None` when the
/// term does not parse.
fn term_matches(
    term: &NodeSelectorTerm,
    labels: Option<&BTreeMap<String, String>>,
    name: &str,
) -> Option<bool> {
    let expressions = term.match_expressions.as_deref().unwrap_or_default();
    let fields = term.match_fields.as_deref().unwrap_or_default();
    if expressions.is_empty() && fields.is_empty() {
        return Some(false);
    }
    let mut label_results = Vec::with_capacity(expressions.len());
    for requirement in expressions {
        label_results.push(label_requirement_matches(requirement, labels)?);
    }
    let mut field_results = Vec::with_capacity(fields.len());
    for requirement in fields {
        field_results.push(field_requirement_matches(requirement, name)?);
    }
    // A node without a name has no fields, and field requirements are not checked.
    Some(label_results.iter().all(|m| *m) && (name.is_empty() || field_results.iter().all(|m| *m)))
}

/// `labels.NewRequirement` then `Requirement.Matches`; `None` when the
/// requirement is invalid.
fn label_requirement_matches(
    requirement: &NodeSelectorRequirement,
    labels: Option<&BTreeMap<String, String>>,
) -> Option<bool> {
    let values = requirement.values.as_deref().unwrap_or_default();
    if !is_qualified_name(&requirement.key) || !values.iter().all(|v| is_label_value(v)) {
        return None;
    }
    let value = labels.and_then(|l| l.get(&requirement.key));
    match requirement.operator.as_str() {
        "In" | "NotIn" if values.is_empty() => None,
        "In" => Some(value.is_some_and(|v| values.contains(v))),
        "NotIn" => Some(value.is_none_or(|v| !values.contains(v))),
        "Exists" | "DoesNotExist" if !values.is_empty() => None,
        "Exists" => Some(value.is_some()),
        "DoesNotExist" => Some(value.is_none()),
        op @ ("Gt" | "Lt") => {
            let [wanted] = values else { return None };
            let wanted: i64 = wanted.parse().ok()?;
            let have = value.and_then(|v| v.parse::<i64>().ok());
            Some(have.is_some_and(|have| {
                if op == "Gt" {
                    have > wanted
                } else {
                    have < wanted
                }
            }))
        }
        _ => None,
    }
}

/// `nodeSelectorRequirementsAsFieldSelector`: `In`/`NotIn` with exactly one
/// value, over the node's fields (only `metadata.name`).
fn field_requirement_matches(requirement: &NodeSelectorRequirement, name: &str) -> Option<bool> {
    let values = requirement.values.as_deref().unwrap_or_default();
    let [wanted] = values else { return None };
    let have = if requirement.key == OBJECT_NAME_FIELD {
        name
    } else {
        ""
    };
    match requirement.operator.as_str() {
        "In" => Some(have == wanted),
        "NotIn" => Some(have != wanted),
        _ => None,
    }
}

/// A label key (`validation.IsQualifiedName`): an optional DNS-subdomain prefix
/// and `/`, then a name of at most 63 characters.
fn is_qualified_name(key: &str) -> bool {
    let (prefix, name) = match key.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    let prefix_ok = prefix.is_none_or(|p| {
        !p.is_empty()
            && p.len() <= 253
            && p.split('.').all(|part| {
                !part.is_empty()
                    && part
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                    && !part.starts_with('-')
                    && !part.ends_with('-')
            })
    });
    prefix_ok && !name.is_empty() && is_label_value(name)
}

/// A label value (`validation.IsValidLabelValue`): empty, or at most 63
/// alphanumerics, `-`, `_` and `.`, starting and ending alphanumeric.
fn is_label_value(value: &str) -> bool {
    value.is_empty()
        || (value.len() <= 63
            && value
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
            && value.starts_with(|c: char| c.is_ascii_alphanumeric())
            && value.ends_with(|c: char| c.is_ascii_alphanumeric()))
}

/// The nodes named by `metadata.name In` fields: per term the intersection,
/// over the terms the union; `None` when some term does not name nodes.
fn named_nodes(terms: &[NodeSelectorTerm]) -> Option<BTreeSet<String>> {
    let mut union = BTreeSet::new();
    for term in terms {
        let mut names: Option<BTreeSet<String>> = None;
        for r in term.match_fields.as_deref().unwrap_or_default() {
            if r.key == OBJECT_NAME_FIELD && r.operator == "In" {
                let these: BTreeSet<String> = r.values.iter().flatten().cloned().collect();
                names = Some(match names {
                    Some(before) => before.intersection(&these).cloned().collect(),
                    None => these,
                });
            }
        }
        union.extend(names?);
    }
    Some(union)
}

impl FilterPlugin for NodeAffinity {
    fn name(&self) -> &'static str {
        "NodeAffinity"
    }

    fn pre_filter(&self, pod: &Pod, _nodes: &Snapshot<'_>, state: &mut CycleState) -> Status {
        let terms = required_terms(pod);
        if terms.is_none() && node_selector(pod).is_none() {
            return Status::skip(SKIP_PRE_FILTER);
        }
        let Some(terms) = terms.filter(|t| !t.is_empty()) else {
            return Status::success();
        };
        match named_nodes(terms) {
            Some(names) if names.is_empty() => {
                Status::new(Code::UnschedulableAndUnresolvable, REASON_CONFLICT)
            }
            Some(node_names) => {
                state.write(PRE_FILTER_RESULT_KEY, PreFilterResult { node_names });
                Status::success()
            }
            None => Status::success(),
        }
    }

    fn filter(&self, _state: &CycleState, pod: &Pod, node: &NodeInfo) -> Status {
        if required_matches(pod, node) {
            Status::success()
        } else {
            Status::new(Code::UnschedulableAndUnresolvable, REASON)
        }
    }
}

impl ScorePlugin for NodeAffinity {
    fn name(&self) -> &'static str {
        "NodeAffinity"
    }

    fn pre_score(
        &self,
        pod: &Pod,
        _feasible: &[&NodeInfo],
        _all: &Snapshot<'_>,
        _state: &mut CycleState,
    ) -> Status {
        if preferred_terms(pod).is_none() {
            return Status::skip(SKIP_PRE_SCORE);
        }
        Status::success()
    }

    fn score(&self, _state: &CycleState, pod: &Pod, node: &NodeInfo) -> i64 {
        preferred_score(pod, node)
    }

    fn normalize(&self, _state: &CycleState, scores: &mut [NodeScore<'_>]) {
        default_normalize(scores, false);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use k8s_openapi::api::core::v1::{Affinity, Node, NodeSelector, PodSpec};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    use super::*;
    use crate::scheduler::framework::node_scores;

    fn node(name: &str, labels: &[(&str, &str)]) -> NodeInfo {
        let node = Node {
            metadata: ObjectMeta {
                name: (!name.is_empty()).then(|| name.to_owned()),
                labels: Some(
                    labels
                        .iter()
                        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                        .collect(),
                ),
                ..ObjectMeta::default()
            },
            ..Node::default()
        };
        NodeInfo::new(Arc::new(node), Vec::new())
    }

    fn req(key: &str, op: &str, values: &[&str]) -> NodeSelectorRequirement {
        NodeSelectorRequirement {
            key: key.to_owned(),
            operator: op.to_owned(),
            values: (!values.is_empty()).then(|| values.iter().map(|v| (*v).to_owned()).collect()),
        }
    }

    fn exprs(reqs: Vec<NodeSelectorRequirement>) -> NodeSelectorTerm {
        NodeSelectorTerm {
            match_expressions: Some(reqs),
            match_fields: None,
        }
    }

    fn fields(reqs: Vec<NodeSelectorRequirement>) -> NodeSelectorTerm {
        NodeSelectorTerm {
            match_expressions: None,
            match_fields: Some(reqs),
        }
    }

    fn pod_with(
        selector: Option<&[(&str, &str)]>,
        required: Option<Vec<NodeSelectorTerm>>,
        preferred: Option<Vec<PreferredSchedulingTerm>>,
    ) -> Pod {
        let node_affinity = (required.is_some() || preferred.is_some()).then(|| NodeAffinitySpec {
            required_during_scheduling_ignored_during_execution: required.map(|terms| {
                NodeSelector {
                    node_selector_terms: terms,
                }
            }),
            preferred_during_scheduling_ignored_during_execution: preferred,
        });
        Pod {
            spec: Some(PodSpec {
                node_selector: selector.map(|s| {
                    s.iter()
                        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                        .collect()
                }),
                affinity: node_affinity.map(|na| Affinity {
                    node_affinity: Some(na),
                    ..Affinity::default()
                }),
                ..PodSpec::default()
            }),
            ..Pod::default()
        }
    }

    fn required(terms: Vec<NodeSelectorTerm>) -> Pod {
        pod_with(None, Some(terms), None)
    }

    fn selector(labels: &[(&str, &str)]) -> Pod {
        pod_with(Some(labels), None, None)
    }

    /// (name, pod, node name, node labels, `PreFilter` code and reason,
    /// `PreFilterResult`, Filter failure).
    type AffinityCase = (
        &'static str,
        Pod,
        &'static str,
        Vec<(&'static str, &'static str)>,
        Code,
        Option<&'static str>,
        Option<Vec<&'static str>>,
        Option<&'static str>,
    );

    /// `node_affinity_test.go`, `TestNodeAffinity` (the cases without the
    /// plugin's `addedAffinity` arguments, which podflow's profile does not set).
    #[test]
    #[allow(clippy::too_many_lines)]
    fn test_node_affinity() {
        let unsched = Some(REASON);
        let cases: Vec<AffinityCase> = vec![
            (
                "missing labels",
                selector(&[("foo", "bar")]),
                "",
                vec![],
                Code::Success,
                None,
                None,
                unsched,
            ),
            (
                "same labels",
                selector(&[("foo", "bar")]),
                "",
                vec![("foo", "bar")],
                Code::Success,
                None,
                None,
                None,
            ),
            (
                "node labels are superset",
                selector(&[("foo", "bar")]),
                "",
                vec![("foo", "bar"), ("baz", "blah")],
                Code::Success,
                None,
                None,
                None,
            ),
            (
                "node labels are subset",
                selector(&[("foo", "bar"), ("baz", "blah")]),
                "",
                vec![("foo", "bar")],
                Code::Success,
                None,
                None,
                unsched,
            ),
            (
                "Pod with matchExpressions using In operator that matches the existing node",
                required(vec![exprs(vec![req("foo", "In", &["bar", "value2"])])]),
                "",
                vec![("foo", "bar")],
                Code::Success,
                None,
                None,
                None,
            ),
            (
                "Pod with matchExpressions using Gt operator that matches the existing node",
                required(vec![exprs(vec![req("kernel-version", "Gt", &["0204"])])]),
                "",
                vec![("kernel-version", "0206")],
                Code::Success,
                None,
                None,
                None,
            ),
            (
                "Pod with matchExpressions using NotIn operator that matches the existing node",
                required(vec![exprs(vec![req(
                    "mem-type",
                    "NotIn",
                    &["DDR", "DDR2"],
                )])]),
                "",
                vec![("mem-type", "DDR3")],
                Code::Success,
                None,
                None,
                None,
            ),
            (
                "Pod with matchExpressions using Exists operator that matches the existing node",
                required(vec![exprs(vec![req("GPU", "Exists", &[])])]),
                "",
                vec![("GPU", "NVIDIA-GRID-K1")],
                Code::Success,
                None,
                None,
                None,
            ),
            (
                "Pod with affinity that don't match node's labels won't schedule onto the node",
                required(vec![exprs(vec![req("foo", "In", &["value1", "value2"])])]),
                "",
                vec![("foo", "bar")],
                Code::Success,
                None,
                None,
                unsched,
            ),
            (
                "Pod with empty MatchExpressions is not a valid value will match no objects and won't schedule onto the node",
                required(vec![exprs(vec![])]),
                "",
                vec![("foo", "bar")],
                Code::Success,
                None,
                None,
                unsched,
            ),
            (
                "Pod with no Affinity will schedule onto a node",
                Pod::default(),
                "",
                vec![("foo", "bar")],
                Code::Skip,
                Some(SKIP_PRE_FILTER),
                None,
                None,
            ),
            (
                "Pod with Affinity but nil NodeSelector will schedule onto a node",
                pod_with(None, None, Some(vec![])),
                "",
                vec![("foo", "bar")],
                Code::Skip,
                Some(SKIP_PRE_FILTER),
                None,
                None,
            ),
            (
                "Pod with multiple matchExpressions ANDed that matches the existing node",
                required(vec![exprs(vec![
                    req("GPU", "Exists", &[]),
                    req("GPU", "NotIn", &["AMD", "INTER"]),
                ])]),
                "",
                vec![("GPU", "NVIDIA-GRID-K1")],
                Code::Success,
                None,
                None,
                None,
            ),
            (
                "Pod with multiple matchExpressions ANDed that doesn't match the existing node",
                required(vec![exprs(vec![
                    req("GPU", "Exists", &[]),
                    req("GPU", "In", &["AMD", "INTER"]),
                ])]),
                "",
                vec![("GPU", "NVIDIA-GRID-K1")],
                Code::Success,
                None,
                None,
                unsched,
            ),
            (
                "Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will schedule onto the node",
                required(vec![
                    exprs(vec![req("foo", "In", &["bar", "value2"])]),
                    exprs(vec![req("diffkey", "In", &["wrong", "value2"])]),
                ]),
                "",
                vec![("foo", "bar")],
                Code::Success,
                None,
                None,
                None,
            ),
            (
                "Pod with an Affinity and a PodSpec.NodeSelector both are satisfied, will schedule onto the node",
                pod_with(
                    Some(&[("foo", "bar")]),
                    Some(vec![exprs(vec![req("foo", "Exists", &[])])]),
                    None,
                ),
                "",
                vec![("foo", "bar")],
                Code::Success,
                None,
                None,
                None,
            ),
            (
                "Pod with an Affinity matches node's labels but the PodSpec.NodeSelector is not satisfied, won't schedule onto the node",
                pod_with(
                    Some(&[("foo", "bar")]),
                    Some(vec![exprs(vec![req("foo", "Exists", &[])])]),
                    None,
                ),
                "",
                vec![("foo", "barrrrrr")],
                Code::Success,
                None,
                None,
                unsched,
            ),
            (
                "Pod with an invalid value in Affinity term won't be scheduled onto the node",
                required(vec![exprs(vec![req(
                    "foo",
                    "NotIn",
                    &["invalid value: ___@#$%^"],
                )])]),
                "",
                vec![("foo", "bar")],
                Code::Success,
                None,
                None,
                unsched,
            ),
            (
                "Pod with matchFields using In operator that matches the existing node",
                required(vec![fields(vec![req(OBJECT_NAME_FIELD, "In", &["node1"])])]),
                "node1",
                vec![],
                Code::Success,
                None,
                Some(vec!["node1"]),
                None,
            ),
            (
                "Pod with matchFields using In operator that does not match the existing node",
                required(vec![fields(vec![req(OBJECT_NAME_FIELD, "In", &["node1"])])]),
                "node2",
                vec![],
                Code::Success,
                None,
                Some(vec!["node1"]),
                unsched,
            ),
            (
                "Pod with two terms: matchFields does not match, but matchExpressions matches",
                required(vec![
                    fields(vec![
                        req(OBJECT_NAME_FIELD, "In", &["node1"]),
                        req(OBJECT_NAME_FIELD, "In", &["node2"]),
                    ]),
                    exprs(vec![req("foo", "In", &["bar"])]),
                ]),
                "node2",
                vec![("foo", "bar")],
                Code::Success,
                None,
                None,
                None,
            ),
            (
                "Pod with one term: matchFields does not match, but matchExpressions matches",
                required(vec![NodeSelectorTerm {
                    match_fields: Some(vec![req(OBJECT_NAME_FIELD, "In", &["node1"])]),
                    match_expressions: Some(vec![req("foo", "In", &["bar"])]),
                }]),
                "node2",
                vec![("foo", "bar")],
                Code::Success,
                None,
                Some(vec!["node1"]),
                unsched,
            ),
            (
                "Pod with one term: both matchFields and matchExpressions match",
                required(vec![NodeSelectorTerm {
                    match_fields: Some(vec![req(OBJECT_NAME_FIELD, "In", &["node1"])]),
                    match_expressions: Some(vec![req("foo", "In", &["bar"])]),
                }]),
                "node1",
                vec![("foo", "bar")],
                Code::Success,
                None,
                Some(vec!["node1"]),
                None,
            ),
            (
                "Pod with two terms: both matchFields and matchExpressions do not match",
                required(vec![
                    fields(vec![req(OBJECT_NAME_FIELD, "In", &["node1"])]),
                    exprs(vec![req("foo", "In", &["not-match-to-bar"])]),
                ]),
                "node2",
                vec![("foo", "bar")],
                Code::Success,
                None,
                None,
                unsched,
            ),
            (
                "Pod with two terms of node.Name affinity",
                required(vec![
                    fields(vec![req(OBJECT_NAME_FIELD, "In", &["node1"])]),
                    fields(vec![req(OBJECT_NAME_FIELD, "In", &["node2"])]),
                ]),
                "node2",
                vec![],
                Code::Success,
                None,
                Some(vec!["node1", "node2"]),
                None,
            ),
            (
                "Pod with two conflicting mach field requirements",
                required(vec![fields(vec![
                    req(OBJECT_NAME_FIELD, "In", &["node1"]),
                    req(OBJECT_NAME_FIELD, "In", &["node2"]),
                ])]),
                "node2",
                vec![("foo", "bar")],
                Code::UnschedulableAndUnresolvable,
                Some(REASON_CONFLICT),
                None,
                unsched,
            ),
            // Beyond upstream's table: Lt, DoesNotExist, a non-integer Gt, a bad operator.
            (
                "Lt with a smaller label value",
                required(vec![exprs(vec![req("cores", "Lt", &["8"])])]),
                "",
                vec![("cores", "4")],
                Code::Success,
                None,
                None,
                None,
            ),
            (
                "Gt with a label that is not an integer",
                required(vec![exprs(vec![req("cores", "Gt", &["2"])])]),
                "",
                vec![("cores", "many")],
                Code::Success,
                None,
                None,
                unsched,
            ),
            (
                "DoesNotExist on a missing label",
                required(vec![exprs(vec![req("gpu", "DoesNotExist", &[])])]),
                "",
                vec![("foo", "bar")],
                Code::Success,
                None,
                None,
                None,
            ),
            (
                "an unknown operator matches nothing",
                required(vec![exprs(vec![req("foo", "Equals", &["bar"])])]),
                "",
                vec![("foo", "bar")],
                Code::Success,
                None,
                None,
                unsched,
            ),
        ];
        for (name, pod, node_name, labels, pre_code, pre_reason, pre_result, want) in cases {
            let info = node(node_name, &labels);
            let mut state = CycleState::default();
            let status = NodeAffinity.pre_filter(
                &pod,
                &Snapshot::new(std::slice::from_ref(&info)),
                &mut state,
            );
            assert_eq!(status.code, pre_code, "{name}: PreFilter code");
            assert_eq!(
                status.reasons,
                pre_reason
                    .map(str::to_owned)
                    .into_iter()
                    .collect::<Vec<_>>(),
                "{name}: PreFilter reasons"
            );
            let want_result: Option<BTreeSet<String>> =
                pre_result.map(|v| v.into_iter().map(str::to_owned).collect());
            assert_eq!(
                pre_filter_result(&state),
                want_result.as_ref(),
                "{name}: PreFilterResult"
            );
            let got = NodeAffinity.filter(&state, &pod, &info);
            match want {
                None => assert!(got.is_success(), "{name}: {got:?}"),
                Some(reason) => assert_eq!(
                    got,
                    Status::new(Code::UnschedulableAndUnresolvable, reason),
                    "{name}"
                ),
            }
        }
    }

    fn preferred(weight: i32, reqs: Vec<NodeSelectorRequirement>) -> PreferredSchedulingTerm {
        PreferredSchedulingTerm {
            weight,
            preference: exprs(reqs),
        }
    }

    /// `node_affinity_test.go`, `TestNodeAffinityPriority` (without `addedAffinity`).
    #[test]
    fn test_node_affinity_priority() {
        let label1 = vec![("foo", "bar")];
        let label2 = vec![("key", "value")];
        let label3 = vec![("az", "az1")];
        let label4 = vec![("abc", "az11"), ("def", "az22")];
        let label5 = vec![("foo", "bar"), ("key", "value"), ("az", "az1")];
        let affinity1 = || vec![preferred(2, vec![req("foo", "In", &["bar"])])];
        let affinity2 = vec![
            preferred(2, vec![req("foo", "In", &["bar"])]),
            preferred(4, vec![req("key", "In", &["value"])]),
            preferred(
                5,
                vec![
                    req("foo", "In", &["bar"]),
                    req("key", "In", &["value"]),
                    req("az", "In", &["az1"]),
                ],
            ),
        ];
        let cases = [
            (
                "all nodes are same priority as NodeAffinity is nil",
                Pod::default(),
                vec![("node1", &label1), ("node2", &label2), ("node3", &label3)],
                Code::Skip,
                vec![0, 0, 0],
            ),
            (
                "no node matches preferred scheduling requirements in NodeAffinity of pod so all nodes' priority is zero",
                pod_with(None, None, Some(affinity1())),
                vec![("node1", &label4), ("node2", &label2), ("node3", &label3)],
                Code::Success,
                vec![0, 0, 0],
            ),
            (
                "only node1 matches the preferred scheduling requirements of pod",
                pod_with(None, None, Some(affinity1())),
                vec![("node1", &label1), ("node2", &label2), ("node3", &label3)],
                Code::Success,
                vec![100, 0, 0],
            ),
            (
                "all nodes matches the preferred scheduling requirements of pod but with different priorities",
                pod_with(None, None, Some(affinity2)),
                vec![("node1", &label1), ("node5", &label5), ("node2", &label2)],
                Code::Success,
                vec![18, 100, 36],
            ),
        ];
        for (name, pod, nodes, pre_code, want) in cases {
            let infos: Vec<NodeInfo> = nodes.iter().map(|(n, l)| node(n, l)).collect();
            let feasible: Vec<&NodeInfo> = infos.iter().collect();
            let mut state = CycleState::default();
            let status =
                NodeAffinity.pre_score(&pod, &feasible, &Snapshot::new(&infos), &mut state);
            assert_eq!(status.code, pre_code, "{name}: PreScore");
            let mut scores = node_scores(&infos, |i| NodeAffinity.score(&state, &pod, i));
            ScorePlugin::normalize(&NodeAffinity, &state, &mut scores);
            let got: Vec<i64> = scores.iter().map(|s| s.score).collect();
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn names_are_upstreams() {
        assert_eq!(FilterPlugin::name(&NodeAffinity), "NodeAffinity");
        assert_eq!(ScorePlugin::name(&NodeAffinity), "NodeAffinity");
    }
}
