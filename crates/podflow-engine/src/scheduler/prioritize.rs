//! A cycle's `PreScore`, Score and host selection (`prioritizeNodes` and
//! `selectHost`, `pkg/scheduler/schedule_one.go`): each feasible node's
//! scores, normalised and weighted into its total, and the node with the
//! highest total, ties broken at random.
//!
//! With summary detail a plugin whose normalised score is the same for every
//! node, and known without scoring each (`ScorePlugin::uniform_score`), is
//! added to every total at once.

use super::framework::{Code, CycleState, NodeInfo, Snapshot};
use super::schedule_one::{This, record_skip};
use crate::component::Cx;
use crate::trace::{Actor, Outcome, Stage, StageName};

/// `PreScore` and Score on the feasible nodes (given in node-name order),
/// normalised and weighted: each node's total, in the same order; one record
/// per plugin and node with `--detail full`. A single feasible node is not
/// scored.
pub(super) fn run_scores(
    this: &This<'_>,
    feasible: &[&NodeInfo],
    snapshot: &Snapshot<'_>,
    cycle: &mut CycleState,
    cx: &mut Cx<'_>,
) -> Vec<i64> {
    let This {
        profile,
        key,
        pod,
        verbose,
    } = *this;
    let mut totals = vec![0; feasible.len()];
    if feasible.len() < 2 {
        return totals;
    }
    // One list of scores for every plugin in turn.
    let mut normalized = Vec::with_capacity(feasible.len());
    // `RunPreScorePlugins` first, for every plugin: one that answers Skip
    // is left out of `RunScorePlugins` (`SkipScorePlugins`).
    let mut scoring = Vec::with_capacity(profile.scorers.len());
    for (plugin, weight) in &profile.scorers {
        let status = plugin.pre_score(pod, feasible, snapshot, cycle);
        if status.code == Code::Skip {
            record_skip(cx, StageName::PreScore, plugin.name(), key, &status);
        } else {
            scoring.push((plugin, *weight));
        }
    }
    // What every node gets alike from the plugins that know it without
    // scoring each node (summary only: full detail records every score).
    let mut uniform = 0;
    for (plugin, weight) in scoring {
        if !verbose && let Some(score) = plugin.uniform_score(cycle, pod, feasible) {
            uniform += score * weight;
            continue;
        }
        normalized.clear();
        plugin.score_nodes(cycle, pod, feasible, &mut normalized);
        // The raw scores are kept only for the records of `--detail full`.
        let raw: Vec<i64> = if verbose {
            normalized.iter().map(|s| s.score).collect()
        } else {
            Vec::new()
        };
        plugin.normalize(cycle, &mut normalized);
        if !verbose {
            for (normalized, total) in normalized.iter().zip(&mut totals) {
                *total += normalized.score * weight;
            }
            continue;
        }
        for (at, (normalized, total)) in normalized.iter().zip(&mut totals).enumerate() {
            let score = normalized.score;
            let mut stage = Stage::new(
                Actor::Scheduler,
                StageName::Score,
                Outcome::Scored,
                format!("{score} × {weight}"),
            )
            .plugin(plugin.name())
            .node(normalized.name)
            .pod(key);
            stage.extra_mut().raw = raw.get(at).copied();
            stage.extra_mut().score = Some(score);
            stage.extra_mut().weight = Some(weight);
            stage.extra_mut().resources = feasible
                .get(at)
                .and_then(|info| plugin.resource_parts(cycle, pod, info));
            cx.stage(stage);
            *total += score * weight;
        }
    }
    if uniform != 0 {
        for total in &mut totals {
            *total += uniform;
        }
    }
    totals
}

/// Picks the highest total; ties are broken at random by reservoir sampling,
/// as `selectHost` does (`pkg/scheduler/schedule_one.go`).
/// Returns the index of the chosen node in `totals` (none when it is empty).
pub(super) fn select_host(totals: &[i64], cx: &mut Cx<'_>) -> Option<usize> {
    let mut best = None;
    let mut best_score = i64::MIN;
    let mut ties = 0u64;
    for (at, &score) in totals.iter().enumerate() {
        if score > best_score {
            best = Some(at);
            best_score = score;
            ties = 1;
        } else if score == best_score {
            ties += 1;
            if cx.rng.below(ties) == 0 {
                best = Some(at);
            }
        }
    }
    best
}

#[cfg(test)]
pub mod tests {
    use k8s_openapi::api::core::v1::Pod;

    use super::*;
    use crate::scheduler::framework::ScorePlugin;

    /// Whether `plugin` answers a uniform score for `nodes`; when it does,
    /// every node's score and normalisation give that score.
    pub fn uniform_agrees(
        plugin: &dyn ScorePlugin,
        state: &CycleState,
        pod: &Pod,
        nodes: &[&NodeInfo],
    ) -> bool {
        let Some(uniform) = plugin.uniform_score(state, pod, nodes) else {
            return false;
        };
        let mut scores = Vec::new();
        plugin.score_nodes(state, pod, nodes, &mut scores);
        plugin.normalize(state, &mut scores);
        let each: Vec<i64> = scores.iter().map(|s| s.score).collect();
        assert_eq!(each, vec![uniform; nodes.len()], "{}", plugin.name());
        true
    }
}
