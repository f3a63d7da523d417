//! The scheduling cycle (mirrors `pkg/scheduler/schedule_one.go`:
//! `ScheduleOne`, `schedulingCycle`, `findNodesThatFitPod`,
//! `prioritizeNodes`, `selectHost`, `handleSchedulingFailure`): the next pod
//! from activeQ through `PreFilter` and Filter, Score and the choice of a
//! node, or, when none fits, its `FailedScheduling` message, `PostFilter` and
//! its way back to the queue.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::Pod;

use super::framework::{Code, CycleState, NodeFilter, NodeInfo, Snapshot, Status};
use super::profile::ProfilePlugins;
use super::queue::Place;
use super::{Scheduler, config, plugins, pod_request, priority_of};
use crate::apiserver::request::{Body, Verb};
use crate::component::{Cx, pod_event};
use crate::trace::{Actor, Outcome, StageName};
use crate::trace::{Detail, FitDetail, NodesToScore, Stage};

/// `ErrNoNodesAvailable` (`pkg/scheduler/schedule_one.go`): the whole
/// `FailedScheduling` message when the cluster has no node at all.
pub const NO_NODES_AVAILABLE: &str = "no nodes available to schedule pods";

/// The cycle-state key of the message of the `PreFilter` plugin that
/// rejected the pod (`Diagnosis.PreFilterMsg`).
const PRE_FILTER_MSG: &str = "framework/preFilterMsg";

impl Scheduler {
    /// Pops the next pod from activeQ and runs one scheduling cycle for it
    /// (`ScheduleOne`); false when no pod waits.
    pub fn schedule_next(&mut self, cx: &mut Cx<'_>) -> bool {
        while let Some(key) = self.queue.pop() {
            let Some(pod) = self.pods.get(&key).cloned() else {
                continue;
            };
            if !self.needs_scheduling(&pod) {
                continue;
            }
            self.schedule_one(&key, &pod, cx);
            return true;
        }
        false
    }

    /// The pod could not be placed: back to the queue, with its back-off.
    pub(super) fn requeue_failed(
        &mut self,
        key: &str,
        rejected_by: BTreeSet<&'static str>,
        cx: &mut Cx<'_>,
    ) {
        let attempts = self.attempts.entry(key.to_owned()).or_default();
        *attempts += 1;
        let attempts = *attempts;
        let priority = self.pods.get(key).map_or(0, |p| priority_of(p));
        let (outcome, detail) = match self.queue.failed(
            key,
            priority,
            attempts,
            rejected_by,
            cx.now,
        ) {
            Place::Backoff { until } => (
                Outcome::Backoff,
                format!("{key} waits in backoffQ until {until} (attempt {attempts})"),
            ),
            _ => (
                Outcome::Unschedulable,
                format!(
                    "{key} waits among unschedulable pods for a cluster event (attempt {attempts})"
                ),
            ),
        };
        cx.stage(Stage::new(Actor::Scheduler, StageName::Queue, outcome, detail).pod(key));
        self.arm_flush(cx);
    }

    /// One scheduling cycle: filter, score, select, then bind (asynchronously).
    fn schedule_one(&mut self, key: &str, pod: &Pod, cx: &mut Cx<'_>) {
        let Some(profile) = self.profile_for(pod) else {
            return;
        };
        let snapshot = self.cache.snapshot();
        let infos = snapshot.infos();
        // `schedulePod`: with no node in the snapshot, `ErrNoNodesAvailable`
        // before any plugin runs, and no preemption (`schedule_one.go`).
        if infos.is_empty() {
            self.unschedulable_pod(key, pod, NO_NODES_AVAILABLE, cx);
            return;
        }
        let mut cycle = CycleState::default();
        cycle.write(plugins::volume_binding::LISTERS, self.volumes.listers());
        let this = This {
            profile: &profile,
            key,
            pod,
            verbose: self.verbose,
        };
        let (feasible, failures) = run_filters(
            &this,
            &mut self.next_start_node,
            &snapshot,
            &mut cycle,
            &mut self.rejected_by,
            cx,
        );
        if feasible.is_empty() {
            let total = infos.len();
            let pre_filter_msg = cycle.read::<String>(PRE_FILTER_MSG).cloned();
            let message = match self.profile_for(pod) {
                Some(profile) => {
                    self.post_filter(key, pod, &profile, &failures, pre_filter_msg.as_deref(), cx)
                }
                None => fit_error_message(total, &failures),
            };
            self.unschedulable_pod(key, pod, &message, cx);
            return;
        }
        let stopped = stopped_early(&profile, feasible.len(), infos.len());
        let totals = run_scores(&this, &feasible, &snapshot, &mut cycle, cx);
        let (chosen, total) = match select_host(&totals, cx) {
            Some(at) => (totals[at].0, Some(totals[at].1)),
            None => ("", None),
        };
        let detail = if self.verbose {
            let ranking: Vec<String> = totals.iter().map(|(n, s)| format!("{n}={s}")).collect();
            format!(
                "{chosen} with total {} ({})",
                total.unwrap_or_default(),
                ranking.join(", ")
            )
        } else {
            format!(
                "{chosen} with total {} (of {} feasible nodes)",
                total.unwrap_or_default(),
                totals.len()
            )
        };
        let chosen = chosen.to_owned();
        let mut stage = Stage::new(
            Actor::Scheduler,
            StageName::Select,
            Outcome::Selected,
            detail,
        )
        .node(chosen.clone())
        .pod(key);
        stage.extra_mut().score = total;
        stage.extra_mut().nodes_to_score = stopped;
        cx.stage(stage);
        self.bind(key, pod, &chosen, &profile, &mut cycle, cx);
    }

    /// No node fits: the `FailedScheduling` event, the `PodScheduled=False` condition, and a wait.
    fn unschedulable_pod(&mut self, key: &str, pod: &Pod, message: &str, cx: &mut Cx<'_>) {
        let (ns, name) = key.split_once('/').unwrap_or(("", key));
        let source = self.source_for(key);
        cx.stage(
            Stage::new(
                Actor::Scheduler,
                StageName::Select,
                Outcome::Unschedulable,
                message.to_owned(),
            )
            .pod(key),
        );
        cx.event(pod_event(
            true,
            "FailedScheduling",
            message.to_owned(),
            (ns, name),
            None,
            &source,
        ));
        let rejected_by = std::mem::take(&mut self.rejected_by);
        self.requeue_failed(key, rejected_by, cx);
        let patch = serde_json::json!({"status": {"conditions": [{
            "type": "PodScheduled", "status": "False", "reason": "Unschedulable",
            "message": message, "lastTransitionTime": cx.now.rfc3339(),
        }]}});
        let already = pod
            .status
            .as_ref()
            .and_then(|s| s.conditions.as_ref())
            .is_some_and(|c| {
                c.iter()
                    .any(|c| c.type_ == "PodScheduled" && c.message.as_deref() == Some(message))
            });
        if !already {
            cx.send(
                pod_request(Verb::Patch, pod)
                    .subresource("status")
                    .body(Body::Patch(patch)),
            );
        }
    }
}

/// What one scheduling cycle is about: the profile, the pod, and whether
/// every verdict is recorded (`--detail full`) or only the outcome (`summary`).
#[derive(Clone, Copy)]
struct This<'a> {
    profile: &'a ProfilePlugins,
    key: &'a str,
    pod: &'a Pod,
    verbose: bool,
}

/// Nodes that failed, with the failing plugin's code and reasons.
pub(super) type Failures = BTreeMap<String, (Code, Vec<String>)>;

/// `PreFilter`, then every Filter on every node (stopping at a node's first
/// failure, as upstream does); one record per verdict.
fn run_filters<'a>(
    this: &This<'_>,
    start: &mut usize,
    snapshot: &Snapshot<'a>,
    cycle: &mut CycleState,
    rejected_by: &mut BTreeSet<&'static str>,
    cx: &mut Cx<'_>,
) -> (Vec<&'a NodeInfo>, Failures) {
    rejected_by.clear();
    let infos = snapshot.infos();
    let This {
        profile,
        key,
        pod,
        verbose,
    } = *this;
    let mut failures = Failures::new();
    let mut active = Vec::new();
    for plugin in &profile.filters {
        let status = plugin.pre_filter(pod, snapshot, cycle);
        match status.code {
            Code::Success => active.push(&**plugin),
            // `RunPreFilterPlugins` leaves a skipping plugin's Filter out (`SkipFilterPlugins`).
            Code::Skip => record_skip(cx, StageName::PreFilter, plugin.name(), key, &status),
            code => {
                let mut stage = Stage::new(
                    Actor::Scheduler,
                    StageName::PreFilter,
                    Outcome::Fail,
                    status.reasons.join(", "),
                )
                .plugin(plugin.name())
                .pod(key);
                stage.extra_mut().code = Some(code.as_str().into());
                cx.stage(stage);
                for info in infos {
                    failures.insert(info.name().to_owned(), (code, status.reasons.clone()));
                }
                // `Diagnosis.PreFilterMsg`: the FitError quotes it instead of a per-node count.
                cycle.write(PRE_FILTER_MSG, status.reasons.join(", "));
                rejected_by.insert(plugin.name());
                return (Vec::new(), failures);
            }
        }
    }
    // PreFilter may narrow the nodes worth filtering (NodeAffinity's `metadata.name` terms).
    let narrowed = plugins::node_affinity::pre_filter_result(cycle).cloned();
    // Only as many feasible nodes as `percentageOfNodesToScore` asks for are
    // looked for, starting where the last cycle stopped (`findNodesThatPassFilters`).
    let wanted =
        config::num_feasible_nodes_to_find(profile.percentage_of_nodes_to_score, infos.len());
    let mut feasible = Vec::with_capacity(wanted.min(infos.len()));
    let first = if infos.is_empty() {
        0
    } else {
        *start % infos.len()
    };
    // Each plugin's Filter for this cycle, what its `PreFilter` stored read once.
    let cycle: &CycleState = cycle;
    let filters: Vec<(&'static str, NodeFilter<'_>)> = active
        .iter()
        .map(|plugin| (plugin.name(), plugin.cycle_filter(cycle, pod)))
        .collect();
    let mut processed = 0;
    // How many feasible nodes were found at or after `first` (before wrapping).
    let mut before_wrap = 0;
    let (wrapped, from_first) = infos.split_at(first);
    for info in from_first.iter().chain(wrapped) {
        if feasible.len() >= wanted {
            break;
        }
        processed += 1;
        if narrowed
            .as_ref()
            .is_some_and(|names| !names.contains(info.name()))
        {
            let reason = plugins::node_affinity::ABSENT_REASON.to_owned();
            failures.insert(
                info.name().to_owned(),
                (Code::UnschedulableAndUnresolvable, vec![reason]),
            );
            rejected_by.insert("NodeAffinity");
            continue;
        }
        let mut failed = None;
        for (name, filter) in &filters {
            let status = filter(info);
            let passed = status.is_success();
            if verbose {
                // A failed fit carries its numbers, for the views.
                let fit = (!passed && *name == plugins::node_resources_fit::NAME)
                    .then(|| plugins::node_resources_fit::fit_detail(pod, info, &status.reasons));
                record_filter(cx, name, info.name(), key, &status, fit);
            }
            if !passed {
                failed = Some((*name, status));
                break;
            }
        }
        if let Some((plugin, status)) = failed {
            rejected_by.insert(plugin);
            failures.insert(info.name().to_owned(), (status.code, status.reasons));
        } else {
            feasible.push(info);
            before_wrap += usize::from(processed <= infos.len() - first);
        }
    }
    *start = (first + processed) % infos.len().max(1);
    // Scored and selected in node-name order, whatever the visiting order:
    // the nodes found after wrapping around come first (both runs are in order).
    feasible.rotate_left(before_wrap);
    (feasible, failures)
}

/// Whether the Filter phase stopped at `numFeasibleNodesToFind` before it
/// went through all `nodes`: how many it found, and the percentage that asked
/// for them (`percentageOfNodesToScore`, or the adaptive one).
fn stopped_early(profile: &ProfilePlugins, feasible: usize, nodes: usize) -> Option<NodesToScore> {
    let wanted = config::num_feasible_nodes_to_find(profile.percentage_of_nodes_to_score, nodes);
    (wanted < nodes && feasible >= wanted).then(|| {
        let (percentage, adaptive) =
            config::percentage_used(profile.percentage_of_nodes_to_score, nodes);
        NodesToScore {
            feasible,
            nodes,
            percentage,
            adaptive,
        }
    })
}

/// A `prefilter` or `prescore` stage with outcome `skip`: the plugin answered
/// Skip (`pkg/scheduler/framework/runtime/framework.go`, `RunPreFilterPlugins`
/// and `RunPreScorePlugins` put it in `SkipFilterPlugins` / `SkipScorePlugins`),
/// so its Filter or Score does not run this cycle; the detail says why.
fn record_skip(cx: &mut Cx<'_>, at: StageName, plugin: &'static str, pod: &str, status: &Status) {
    let reason = status.reasons.join(", ");
    let mut stage = Stage::new(Actor::Scheduler, at, Outcome::Skip, reason.clone())
        .plugin(plugin)
        .pod(pod);
    stage.extra_mut().code = Some(status.code.as_str().into());
    stage.extra_mut().reason = Some(reason);
    cx.stage(stage);
}

/// One `filter` record: a plugin's verdict on a node.
fn record_filter(
    cx: &mut Cx<'_>,
    plugin: &'static str,
    node: &str,
    pod: &str,
    status: &Status,
    fit: Option<FitDetail>,
) {
    let passed = status.is_success();
    let reasons = status.reasons.join(", ");
    let detail: Detail = fit.map_or_else(|| Detail::from(&*reasons), Detail::from);
    let mut stage = Stage::new(
        Actor::Scheduler,
        StageName::Filter,
        if passed { Outcome::Pass } else { Outcome::Fail },
        detail,
    )
    .plugin(plugin)
    .node(node)
    .pod(pod);
    stage.extra_mut().code = Some(status.code.as_str().into());
    if !passed {
        stage.extra_mut().reason = Some(reasons);
    }
    cx.stage(stage);
}

/// `PreScore` and Score on the feasible nodes (given in node-name order), normalised and weighted; one
/// record per plugin and node. A single feasible node is not scored.
fn run_scores<'a>(
    this: &This<'_>,
    feasible: &[&'a NodeInfo],
    snapshot: &Snapshot<'_>,
    cycle: &mut CycleState,
    cx: &mut Cx<'_>,
) -> Vec<(&'a str, i64)> {
    let This {
        profile,
        key,
        pod,
        verbose,
    } = *this;
    let mut totals: Vec<(&'a str, i64)> = feasible.iter().map(|i| (i.name(), 0)).collect();
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
    for (plugin, weight) in scoring {
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
                total.1 += normalized.score * weight;
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
            total.1 += score * weight;
        }
    }
    totals
}

/// Picks the highest total; ties are broken at random by reservoir sampling,
/// as `selectHost` does (`pkg/scheduler/schedule_one.go`).
/// Returns the index of the chosen node in `totals` (none when it is empty).
fn select_host(totals: &[(&str, i64)], cx: &mut Cx<'_>) -> Option<usize> {
    let mut best = None;
    let mut best_score = i64::MIN;
    let mut ties = 0u64;
    for (at, &(_, score)) in totals.iter().enumerate() {
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

/// The `FailedScheduling` message (`pkg/scheduler/framework/types.go`, `FitError.Error`,
/// and the `DefaultPreemption` post-filter's message): reasons counted per node,
/// sorted as strings, then what preemption found.
pub fn fit_error_message(total: usize, failures: &BTreeMap<String, (Code, Vec<String>)>) -> String {
    let mut histogram: BTreeMap<&str, usize> = BTreeMap::new();
    let mut not_helpful = 0;
    let mut no_victims = 0;
    for (code, reasons) in failures.values() {
        for reason in reasons {
            *histogram.entry(reason).or_default() += 1;
        }
        if *code == Code::UnschedulableAndUnresolvable {
            not_helpful += 1;
        } else {
            no_victims += 1;
        }
    }
    let mut reasons: Vec<String> = histogram.iter().map(|(r, n)| format!("{n} {r}")).collect();
    reasons.sort();
    let mut preemption = Vec::new();
    if not_helpful > 0 {
        preemption.push(format!(
            "{not_helpful} Preemption is not helpful for scheduling"
        ));
    }
    if no_victims > 0 {
        preemption.push(format!(
            "{no_victims} No preemption victims found for incoming pod"
        ));
    }
    preemption.sort();
    format!(
        "0/{total} nodes are available: {}. preemption: 0/{total} nodes are available: {}.",
        reasons.join(", "),
        preemption.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_error_counts_reasons_per_node() {
        let mut failures = BTreeMap::new();
        failures.insert(
            "control-plane".to_owned(),
            (
                Code::UnschedulableAndUnresolvable,
                vec![plugins::taint_toleration::REASON.to_owned()],
            ),
        );
        for n in ["node-1", "node-2", "node-3"] {
            failures.insert(
                n.to_owned(),
                (Code::Unschedulable, vec!["Insufficient cpu".to_owned()]),
            );
        }
        assert_eq!(
            fit_error_message(4, &failures),
            "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient cpu. \
             preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, \
             3 No preemption victims found for incoming pod."
        );
    }
}
