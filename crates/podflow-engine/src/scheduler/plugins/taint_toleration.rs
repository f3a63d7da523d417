//! `TaintToleration` (`pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go`):
//! filters out nodes with a `NoSchedule`/`NoExecute` taint the pod does not
//! tolerate, and scores nodes by how many `PreferNoSchedule` taints it does not
//! tolerate (fewer is better).

use k8s_openapi::api::core::v1::{Pod, Taint, Toleration};

use crate::scheduler::cycle_filter::unresolvable_unless;
use crate::scheduler::framework::{
    CycleFilter, CycleState, FilterPlugin, MAX_NODE_SCORE, NodeFilter, NodeInfo, NodeScore,
    ScorePlugin, Status, default_normalize,
};

/// Upstream's reason for an untolerated taint.
pub const REASON: &str = "node(s) had untolerated taint(s)";

pub struct TaintToleration;

/// Whether `toleration` tolerates `taint` (`v1helper.TolerationsTolerateTaint`, `Toleration.ToleratesTaint`).
pub fn tolerates(toleration: &Toleration, taint: &Taint) -> bool {
    let effect_matches = toleration
        .effect
        .as_deref()
        .is_none_or(|e| e.is_empty() || e == taint.effect);
    if !effect_matches {
        return false;
    }
    let key = toleration.key.as_deref().unwrap_or_default();
    let operator = toleration.operator.as_deref().unwrap_or("Equal");
    if key.is_empty() {
        // An empty key with operator Exists matches every taint.
        return operator == "Exists";
    }
    if key != taint.key {
        return false;
    }
    match operator {
        "Exists" => true,
        "Equal" | "" => {
            toleration.value.as_deref().unwrap_or_default()
                == taint.value.as_deref().unwrap_or_default()
        }
        _ => false,
    }
}

fn tolerations(pod: &Pod) -> &[Toleration] {
    pod.spec
        .as_ref()
        .and_then(|s| s.tolerations.as_deref())
        .unwrap_or_default()
}

impl FilterPlugin for TaintToleration {
    fn name(&self) -> &'static str {
        "TaintToleration"
    }

    fn filter(&self, _state: &CycleState, pod: &Pod, node: &NodeInfo) -> Status {
        Tolerating::of(pod).verdict(node)
    }

    /// The pod's tolerations found once a cycle; an untainted node passes
    /// at once.
    fn cycle_filter<'a>(&'a self, _state: &'a CycleState, pod: &'a Pod) -> NodeFilter<'a> {
        Box::new(Tolerating::of(pod))
    }
}

/// The Filter for one pod: its tolerations.
struct Tolerating<'a> {
    tolerations: &'a [Toleration],
}

impl Tolerating<'_> {
    fn of(pod: &Pod) -> Tolerating<'_> {
        Tolerating {
            tolerations: tolerations(pod),
        }
    }
}

impl CycleFilter for Tolerating<'_> {
    fn verdict(&self, node: &NodeInfo) -> Status {
        unresolvable_unless(self.passes(node), REASON)
    }

    /// No `NoSchedule` or `NoExecute` taint the pod does not tolerate.
    fn passes(&self, node: &NodeInfo) -> bool {
        !node.taints().iter().any(|taint| {
            matches!(taint.effect.as_str(), "NoSchedule" | "NoExecute")
                && !self.tolerations.iter().any(|t| tolerates(t, taint))
        })
    }
}

impl ScorePlugin for TaintToleration {
    fn name(&self) -> &'static str {
        "TaintToleration"
    }

    /// The number of `PreferNoSchedule` taints the pod does not tolerate.
    fn score(&self, _state: &CycleState, pod: &Pod, node: &NodeInfo) -> i64 {
        // The tolerations that may tolerate a `PreferNoSchedule` taint, walked
        // per taint rather than collected: nothing is allocated per node.
        let prefer = || {
            tolerations(pod).iter().filter(|t| {
                t.effect
                    .as_deref()
                    .is_none_or(|e| e.is_empty() || e == "PreferNoSchedule")
            })
        };
        let count = node
            .taints()
            .iter()
            .filter(|taint| {
                taint.effect == "PreferNoSchedule" && !prefer().any(|t| tolerates(t, taint))
            })
            .count();
        i64::try_from(count).unwrap_or(i64::MAX)
    }

    /// Every node scored; an untainted node counts no taint without a call.
    fn score_nodes<'a>(
        &self,
        state: &CycleState,
        pod: &Pod,
        nodes: &[&'a NodeInfo],
        out: &mut Vec<NodeScore<'a>>,
    ) {
        out.extend(nodes.iter().map(|info| NodeScore {
            name: info.name(),
            score: if info.taints().is_empty() {
                0
            } else {
                self.score(state, pod, info)
            },
        }));
    }

    /// No node has a `PreferNoSchedule` taint: every raw score is 0, which
    /// the reversed normalisation makes 100 for all.
    fn uniform_score(&self, _state: &CycleState, _pod: &Pod, nodes: &[&NodeInfo]) -> Option<i64> {
        let counts_none = |info: &&NodeInfo| {
            !info
                .taints()
                .iter()
                .any(|taint| taint.effect == "PreferNoSchedule")
        };
        nodes.iter().all(counts_none).then_some(MAX_NODE_SCORE)
    }

    fn normalize(&self, _state: &CycleState, scores: &mut [NodeScore<'_>]) {
        default_normalize(scores, true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taint(key: &str, value: &str, effect: &str) -> Taint {
        Taint {
            key: key.into(),
            value: Some(value.into()),
            effect: effect.into(),
            ..Taint::default()
        }
    }

    fn toleration(key: &str, op: &str, value: &str, effect: &str) -> Toleration {
        Toleration {
            key: Some(key.into()),
            operator: Some(op.into()),
            value: Some(value.into()),
            effect: Some(effect.into()),
            ..Toleration::default()
        }
    }

    #[test]
    fn toleration_matching() {
        // staging/src/k8s.io/api/core/v1/toleration_test.go, TestTolerationToleratesTaint.
        let t = taint("foo", "bar", "NoSchedule");
        assert!(tolerates(
            &toleration("foo", "Equal", "bar", "NoSchedule"),
            &t
        ));
        assert!(tolerates(
            &toleration("foo", "Exists", "", "NoSchedule"),
            &t
        ));
        assert!(tolerates(&toleration("foo", "Equal", "bar", ""), &t));
        assert!(tolerates(&toleration("", "Exists", "", ""), &t));
        assert!(!tolerates(
            &toleration("foo", "Equal", "baz", "NoSchedule"),
            &t
        ));
        assert!(!tolerates(
            &toleration("foo", "Equal", "bar", "NoExecute"),
            &t
        ));
        assert!(!tolerates(&toleration("other", "Exists", "", ""), &t));
    }

    /// A node named `name` with `taints`.
    fn node(name: &str, taints: Vec<Taint>) -> NodeInfo {
        let node = k8s_openapi::api::core::v1::Node {
            metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
                name: Some(name.into()),
                ..Default::default()
            },
            spec: Some(k8s_openapi::api::core::v1::NodeSpec {
                taints: Some(taints),
                ..Default::default()
            }),
            ..Default::default()
        };
        NodeInfo::new(std::sync::Arc::new(node), Vec::new())
    }

    fn pod(tolerations: Vec<Toleration>) -> Pod {
        Pod {
            spec: Some(k8s_openapi::api::core::v1::PodSpec {
                tolerations: Some(tolerations),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    /// The cycle's Filter agrees with Filter on nodes tainted every way, and
    /// the score is uniform (100 everywhere, known without scoring each
    /// node) exactly when no node has a `PreferNoSchedule` taint.
    #[test]
    fn the_cycle_filter_and_the_uniform_score_agree_with_each_node() {
        let nodes = [
            node("plain", vec![]),
            node("db", vec![taint("dedicated", "db", "NoSchedule")]),
            node("evicting", vec![taint("dedicated", "db", "NoExecute")]),
            node("preferring", vec![taint("spot", "yes", "PreferNoSchedule")]),
            node(
                "both",
                vec![
                    taint("dedicated", "db", "NoSchedule"),
                    taint("spot", "yes", "PreferNoSchedule"),
                ],
            ),
        ];
        let pods = [
            pod(vec![]),
            pod(vec![toleration("dedicated", "Equal", "db", "NoSchedule")]),
            pod(vec![toleration("", "Exists", "", "")]),
            pod(vec![toleration("spot", "Exists", "", "PreferNoSchedule")]),
        ];
        let state = CycleState::default();
        for (at, pod) in pods.iter().enumerate() {
            let filter = TaintToleration.cycle_filter(&state, pod);
            let expected = |n: &NodeInfo| FilterPlugin::filter(&TaintToleration, &state, pod, n);
            let case = format!("pod {at}");
            crate::scheduler::cycle_filter::tests::assert_agrees(&*filter, expected, &nodes, &case);
            for subset in [&nodes[..3], &nodes[2..4], &nodes[..]] {
                let infos: Vec<&NodeInfo> = subset.iter().collect();
                let preferring = subset.iter().any(|n| n.name().contains("preferring"))
                    || subset.iter().any(|n| n.name() == "both");
                let uniform = crate::scheduler::prioritize::tests::uniform_agrees(
                    &TaintToleration,
                    &state,
                    pod,
                    &infos,
                );
                assert_eq!(uniform, !preferring, "{case}, {} nodes", subset.len());
            }
        }
    }
}
