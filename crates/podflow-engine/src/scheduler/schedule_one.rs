//! The scheduling cycle (mirrors `pkg/scheduler/schedule_one.go`:
//! `ScheduleOne`, `schedulingCycle`, `findNodesThatFitPod`,
//! `prioritizeNodes`, `selectHost`, `handleSchedulingFailure`): the next pod
//! from activeQ through `PreFilter` and Filter, Score and the choice of a
//! node, or, when none fits, its `FailedScheduling` message, `PostFilter` and
//! its way back to the queue.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::Pod;

use super::find_nodes::run_filters;
use super::framework::{Code, CycleState, Status};
use super::prioritize::{run_scores, select_host};
use super::profile::ProfilePlugins;
use super::queue::Place;
use super::{Scheduler, config, plugins, pod_request, priority_of};
use crate::apiserver::request::{Body, Verb};
use crate::component::{Cx, pod_event};
use crate::trace::{Actor, Outcome, StageName};
use crate::trace::{NodesToScore, Stage};

/// `ErrNoNodesAvailable` (`pkg/scheduler/schedule_one.go`): the whole
/// `FailedScheduling` message when the cluster has no node at all.
pub const NO_NODES_AVAILABLE: &str = "no nodes available to schedule pods";

/// The cycle-state key of the message of the `PreFilter` plugin that
/// rejected the pod (`Diagnosis.PreFilterMsg`).
pub(super) const PRE_FILTER_MSG: &str = "framework/preFilterMsg";

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
            Some(at) => (feasible[at].name(), Some(totals[at])),
            None => ("", None),
        };
        let detail = if self.verbose {
            let ranking: Vec<String> = feasible
                .iter()
                .zip(&totals)
                .map(|(n, s)| format!("{}={s}", n.name()))
                .collect();
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
pub(super) struct This<'a> {
    pub profile: &'a ProfilePlugins,
    pub key: &'a str,
    pub pod: &'a Pod,
    pub verbose: bool,
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
pub(super) fn record_skip(
    cx: &mut Cx<'_>,
    at: StageName,
    plugin: &'static str,
    pod: &str,
    status: &Status,
) {
    let reason = status.reasons.join(", ");
    let mut stage = Stage::new(Actor::Scheduler, at, Outcome::Skip, reason.clone())
        .plugin(plugin)
        .pod(pod);
    stage.extra_mut().code = Some(status.code.as_str().into());
    stage.extra_mut().reason = Some(reason);
    cx.stage(stage);
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
