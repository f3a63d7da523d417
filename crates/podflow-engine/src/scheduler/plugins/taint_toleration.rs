//! `TaintToleration` (`pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go`):
//! filters out nodes with a `NoSchedule`/`NoExecute` taint the pod does not
//! tolerate, and scores nodes by how many `PreferNoSchedule` taints it does not
//! tolerate (fewer is better).

use k8s_openapi::api::core::v1::{Pod, Taint, Toleration};

use crate::scheduler::framework::{
    Code, CycleState, FilterPlugin, NodeInfo, NodeScore, ScorePlugin, Status, default_normalize,
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
        let untolerated = node.taints().iter().find(|taint| {
            matches!(taint.effect.as_str(), "NoSchedule" | "NoExecute")
                && !tolerations(pod).iter().any(|t| tolerates(t, taint))
        });
        match untolerated {
            Some(_) => Status::new(Code::UnschedulableAndUnresolvable, REASON),
            None => Status::success(),
        }
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
}
