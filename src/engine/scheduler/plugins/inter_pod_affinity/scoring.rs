//! `PreScore`, Score and `NormalizeScore` (`interpodaffinity/scoring.go`): sum,
//! per topology pair, the weights of preferred terms (the incoming pod's
//! against existing pods, and existing pods' against the incoming pod, with
//! their required affinity terms at `hardPodAffinityWeight`), anti-affinity
//! negative; a node scores the sum over its labels, scaled min-max to 0..=100.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Node, Pod};

use super::HARD_POD_AFFINITY_WEIGHT;
use super::terms::{AffinityTerm, PodTerms, WeightedTerm, has_pod_affinity};
use crate::engine::scheduler::framework::{Code, CycleState, MAX_NODE_SCORE, NodeInfo, Status};
use crate::engine::scheduler::plugins::labels::labels_of;

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
pub fn pre_score(pod: &Pod, all: &[NodeInfo], state: &mut CycleState) -> Status {
    let terms = match PodTerms::parse(pod) {
        Ok(t) => t,
        Err(err) => return Status::new(Code::Error, format!("failed to parse pod: {err}")),
    };
    let has_constraints =
        !terms.preferred_affinity.is_empty() || !terms.preferred_anti_affinity.is_empty();
    let mut s = PreScoreState::default();
    for info in all {
        // Without preferred terms of its own only pods with affinity matter.
        for existing in info
            .pods
            .iter()
            .filter(|p| has_constraints || has_pod_affinity(p))
        {
            s.process_existing_pod(pod, &terms, existing, &info.node);
        }
    }
    if s.topology_score.is_empty() {
        return Status {
            code: Code::Skip,
            reasons: Vec::new(),
        };
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
pub fn normalize(state: &CycleState, scores: &mut BTreeMap<String, i64>) {
    let Some(s) = state.read::<PreScoreState>(PRE_SCORE_STATE_KEY) else {
        return;
    };
    if s.topology_score.is_empty() {
        return;
    }
    let min = scores.values().copied().min().unwrap_or(0);
    let max = scores.values().copied().max().unwrap_or(0);
    let diff = max - min;
    for score in scores.values_mut() {
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
