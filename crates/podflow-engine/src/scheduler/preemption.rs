//! The scheduler's `PostFilter` step when no node fits (`schedule_one.go`,
//! `handleSchedulingFailure`; `preemption/executor.go`): the `FitError`
//! message, and, when the profile runs `DefaultPreemption`, preemption's
//! verdict and its API calls — each victim gets the `DisruptionTarget`
//! condition, is deleted (gracefully) and gets a `Preempted` event; lower-priority
//! pods nominated to the node lose their nomination; the preemptor's
//! `status.nominatedNodeName` names the node. The preemptor is scheduled when
//! a victim's deletion moves it back to the active queue.
//!
//! Simplified: the Filter runs of preemption's dry run recompute `PreFilter`
//! over every node (upstream updates its state with `AddPod`/`RemovePod`),
//! and nominated pods are not counted on their nominated node when other
//! pods are filtered (upstream's `addGENominatedPods`).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Pod;

use super::find_nodes::Failures;
use super::framework::{Code, CycleState, NodeInfo, Snapshot, Status};
use super::plugins::default_preemption::{
    self as dp, Outcome, PreemptInput, clear_nominated_node_patch, disruption_target_patch,
    lower_priority_nominated_pods, nodes_available, pod_terminating_by_preemption,
    victim_event_message,
};
use super::profile::ProfilePlugins;
use super::{Scheduler, pod_key, pod_request};
use crate::apiserver::request::{Body, Verb};
use crate::component::{Cx, pod_event};
use crate::trace::{self, Stage};
use podflow_model::Shared;

impl Scheduler {
    /// No node fits `pod`: runs the profile's `PostFilter` and returns the
    /// `FailedScheduling` message (`FitError.Error()`).
    pub(super) fn post_filter(
        &self,
        key: &str,
        pod: &Pod,
        profile: &ProfilePlugins,
        failures: &Failures,
        pre_filter_msg: Option<&str>,
        cx: &mut Cx<'_>,
    ) -> String {
        let infos = self.cache.infos();
        let statuses: BTreeMap<String, Status> = failures
            .iter()
            .map(|(node, (code, reasons))| {
                let status = Status {
                    code: *code,
                    reasons: reasons.clone(),
                };
                (node.clone(), status)
            })
            .collect();
        let absent = Status {
            code: Code::UnschedulableAndUnresolvable,
            reasons: Vec::new(),
        };
        // `FitError.Error` (`pkg/scheduler/framework/types.go`): a `PreFilter`
        // rejection is quoted as it is, instead of the per-node reasons.
        let fit_message = match pre_filter_msg {
            Some(msg) => format!("0/{} nodes are available: {msg}.", infos.len()),
            None => nodes_available(infos.len(), &statuses, &absent),
        };
        if profile.post_filters.is_empty() {
            return fit_message;
        }
        let fits = |p: &Pod, node: &NodeInfo| filters_pass(profile, p, infos, node);
        let input = PreemptInput {
            pod,
            nodes: infos,
            statuses: &statuses,
            absent: &absent,
            now: cx.now.to_k8s(),
            fits: &fits,
        };
        // Plugins run in order until one nominates a node (`RunPostFilterPlugins`).
        let mut last = None;
        for plugin in &profile.post_filters {
            let outcome = plugin.post_filter(&input, cx.rng);
            let nominated = matches!(outcome, Outcome::Nominated(_));
            last = Some((plugin.name(), outcome));
            if nominated {
                break;
            }
        }
        let Some((name, outcome)) = last else {
            return fit_message;
        };
        let mut stage = match &outcome {
            Outcome::Nominated(c) => Stage::new(
                trace::Actor::Scheduler,
                trace::StageName::PostFilter,
                trace::Outcome::Nominated,
                format!(
                    "{key} nominated to {}: preempting {}",
                    c.node,
                    c.victims
                        .pods
                        .iter()
                        .map(|v| pod_key(v))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
            .node(c.node.clone()),
            Outcome::Unschedulable { message, .. } | Outcome::Error(message) => Stage::new(
                trace::Actor::Scheduler,
                trace::StageName::PostFilter,
                trace::Outcome::Unschedulable,
                message.clone(),
            ),
        };
        stage = stage.plugin(name).pod(key);
        cx.stage(stage);
        match &outcome {
            Outcome::Nominated(candidate) => {
                self.evict_for(pod, &candidate.node, &candidate.victims.pods, cx);
            }
            Outcome::Unschedulable {
                clear_nominated_node: true,
                ..
            } if has_nomination(pod) => {
                cx.send(
                    pod_request(Verb::Patch, pod)
                        .subresource("status")
                        .body(Body::Patch(clear_nominated_node_patch())),
                );
            }
            _ => {}
        }
        match outcome.post_filter_message() {
            Some(more) => format!("{fit_message} {more}"),
            None => fit_message,
        }
    }

    /// The preemption's API calls (`prepareCandidate`), then the preemptor's nomination.
    fn evict_for(&self, preemptor: &Pod, node: &str, victims: &[Shared<Pod>], cx: &mut Cx<'_>) {
        let scheduler_name = self.source_for(&pod_key(preemptor));
        let now = cx.now.to_time();
        let uid = preemptor.metadata.uid.as_deref().unwrap_or_default();
        for victim in victims {
            if pod_terminating_by_preemption(victim) {
                continue;
            }
            if let Some(patch) = disruption_target_patch(victim, &scheduler_name, now.clone()) {
                cx.send(
                    pod_request(Verb::Patch, victim)
                        .subresource("status")
                        .body(Body::Patch(patch)),
                );
            }
            cx.send(pod_request(Verb::Delete, victim).body(Body::Delete {
                grace_period_seconds: None,
            }));
            cx.event(pod_event(
                false,
                dp::EVENT_REASON,
                victim_event_message(uid, node),
                (
                    victim.metadata.namespace.as_deref().unwrap_or_default(),
                    victim.metadata.name.as_deref().unwrap_or_default(),
                ),
                None,
                &scheduler_name,
            ));
        }
        for nominated in lower_priority_nominated_pods(preemptor, self.pods.values(), node) {
            cx.send(
                pod_request(Verb::Patch, nominated)
                    .subresource("status")
                    .body(Body::Patch(clear_nominated_node_patch())),
            );
        }
        cx.send(
            pod_request(Verb::Patch, preemptor)
                .subresource("status")
                .body(Body::Patch(
                    serde_json::json!({"status": {"nominatedNodeName": node}}),
                )),
        );
    }
}

fn has_nomination(pod: &Pod) -> bool {
    pod.status
        .as_ref()
        .and_then(|s| s.nominated_node_name.as_deref())
        .is_some_and(|n| !n.is_empty())
}

/// Whether every Filter of the profile passes `pod` on `node` (with `node`
/// standing in for its namesake among `all` for the `PreFilter` runs).
fn filters_pass(
    profile: &ProfilePlugins,
    pod: &Pod,
    all: &[NodeInfo],
    node: &NodeInfo,
) -> Result<(), Status> {
    let nodes: Vec<NodeInfo> = all
        .iter()
        .map(|info| {
            if info.name() == node.name() {
                node.clone()
            } else {
                info.clone()
            }
        })
        .collect();
    let mut state = CycleState::default();
    for plugin in &profile.filters {
        let status = plugin.pre_filter(pod, &Snapshot::new(&nodes), &mut state);
        match status.code {
            Code::Success => {}
            Code::Skip => continue,
            _ => return Err(status),
        }
        let status = plugin.filter(&state, pod, node);
        if !status.is_success() {
            return Err(status);
        }
    }
    Ok(())
}
