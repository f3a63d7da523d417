//! Choosing one candidate node (`preemption/preemption.go`,
//! `pickOneNodeForPreemption` with its default score functions, and
//! `SelectCandidate`; `pkg/scheduler/util`, `GetEarliestPodStartTime`).
//!
//! Upstream walks the candidates out of a Go map, so its final tie-break ("the
//! first such node") is effectively random; podflow keeps the candidates'
//! order, which makes it deterministic.

use k8s_openapi::jiff::Timestamp;

use super::candidates::Candidate;
use super::victims::{Victims, pod_priority, pod_start_time};

/// `GetEarliestPodStartTime`: the earliest start among the highest-priority victims.
pub fn earliest_start_of_highest_priority(victims: &Victims, now: Timestamp) -> Option<Timestamp> {
    let first = victims.pods.first()?;
    let mut max_priority = pod_priority(first);
    let mut earliest = pod_start_time(first, now);
    for pod in &victims.pods {
        let priority = pod_priority(pod);
        let start = pod_start_time(pod, now);
        if priority == max_priority {
            earliest = earliest.min(start);
        } else if priority > max_priority {
            max_priority = priority;
            earliest = start;
        }
    }
    Some(earliest)
}

/// The default score functions, in order of precedence; higher is better.
fn scores(victims: &Victims, now: Timestamp) -> [i128; 5] {
    // 1. fewest PodDisruptionBudget violations.
    let pdb = -i128::from(victims.num_pdb_violations);
    // 2. the lowest highest-priority victim (victims are sorted, most important first).
    let highest = -victims
        .pods
        .first()
        .map_or(0, |p| i128::from(pod_priority(p)));
    // 3. the smallest sum of priorities, each shifted by MaxInt32+1 to be >= 0.
    let sum: i128 = victims
        .pods
        .iter()
        .map(|p| i128::from(pod_priority(p)) + i128::from(i32::MAX) + 1)
        .sum();
    // 4. the fewest victims.
    let count = -i128::try_from(victims.pods.len()).unwrap_or(i128::MAX);
    // 5. the latest start among the highest-priority victims.
    let start = earliest_start_of_highest_priority(victims, now)
        .map_or(i128::from(i64::MIN), Timestamp::as_nanosecond);
    [pdb, highest, -sum, count, start]
}

/// `pickOneNodeForPreemption`: the index of the chosen candidate, or `None`
/// when there are none. Each criterion keeps the best-scoring candidates; the
/// first criterion that leaves one decides, else the first left wins.
pub fn pick_one_node_for_preemption(candidates: &[Candidate], now: Timestamp) -> Option<usize> {
    if candidates.is_empty() {
        return None;
    }
    let all: Vec<[i128; 5]> = candidates.iter().map(|c| scores(&c.victims, now)).collect();
    let mut left: Vec<usize> = (0..candidates.len()).collect();
    for criterion in 0..5 {
        let score = |i: usize| all.get(i).map_or(i128::MIN, |s| s[criterion]);
        let best = left.iter().map(|&i| score(i)).max()?;
        left.retain(|&i| score(i) == best);
        if left.len() == 1 {
            break;
        }
    }
    left.first().copied()
}

/// `SelectCandidate`: the single candidate, or the one [`pick_one_node_for_preemption`] picks.
pub fn select_candidate(candidates: &[Candidate], now: Timestamp) -> Option<&Candidate> {
    pick_one_node_for_preemption(candidates, now).and_then(|i| candidates.get(i))
}
