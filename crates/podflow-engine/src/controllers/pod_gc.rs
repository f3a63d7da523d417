//! The pod garbage collector (`pkg/controller/podgc/gc_controller.go`,
//! `--controllers` name `pod-garbage-collector-controller`, service account
//! `pod-garbage-collector`): every 20 s (`gcCheckPeriod`) it lists Pods and
//! Nodes from its informers and deletes the Pods bound to a node that no
//! longer exists (`gcOrphaned`). A node the cache lacks is first quarantined
//! for 40 s (`quarantineTime`), then checked with a GET; on 404 each of its
//! Pods is marked `Failed` with the `DisruptionTarget` condition (reason
//! `DeletionByPodGC`) and deleted with a grace period of 0
//! (`markFailedAndDeletePodWithCondition`). Upstream records no Event, only
//! logs (`Found orphaned Pod assigned to the Node, deleting`); podflow shows
//! them as `sync` stages. The pass timer is in the background unless a node
//! is in quarantine: a deletion to come is work left to do. For the same
//! reason a Node deleted with Pods bound to it holds the cluster busy until
//! the next pass (a no-op foreground timer just after it).
//!
//! Not modelled: `gcTerminated` (a threshold of 12500 finished Pods),
//! `gcTerminating` (the `node.kubernetes.io/out-of-service` taint) and
//! `gcUnscheduledTerminating` (the API server deletes an unscheduled Pod at once).

use std::collections::{BTreeMap, BTreeSet};

use super::Informers;
use super::client::request;
use super::informer::InformerDelta;
use super::pod_gc_plan::{self, Bound, CHECK_PERIOD_MS};
use crate::apiserver::handler::Response;
use crate::apiserver::request::{Body, Verb};
use crate::clock::SimTime;
use crate::component::{ControllerManagerTimer, Cx, RequestId};
use crate::trace::Stage;
use crate::trace::{Actor, Outcome, StageName};
use podflow_model::kinds::kind_of;

/// The controller's service account, and the name its stages carry.
pub const NAME: &str = "pod-garbage-collector";

/// The first pass, as `(timer, delay_ms)` from the start.
pub fn first_timer() -> (ControllerManagerTimer, u64) {
    (ControllerManagerTimer::PodGc, CHECK_PERIOD_MS)
}

/// The pod garbage collector's state.
#[derive(Debug, Clone, Default)]
pub struct PodGcController {
    /// The delaying queue `orphaned_pods_nodes`: node → when its quarantine ends.
    quarantine: BTreeMap<String, SimTime>,
    /// GETs of quarantined nodes in flight.
    checking: BTreeMap<RequestId, String>,
    /// Status patches in flight, and the Pod each deletes next.
    patching: BTreeMap<RequestId, (String, String)>,
    /// Deletions in flight.
    deleting: BTreeMap<RequestId, String>,
    /// When the next pass runs (`None` before the first).
    next_pass: Option<SimTime>,
}

fn stage(outcome: Outcome, detail: String) -> Stage {
    Stage::new(Actor::ControllerManager, StageName::Sync, outcome, detail).plugin(NAME)
}

fn bound_pods(informers: &Informers) -> Vec<Bound<'_>> {
    informers
        .pods
        .iter()
        .filter_map(|o| o.as_pod())
        .filter_map(Bound::of)
        .collect()
}

impl PodGcController {
    /// A Node deleted with Pods bound to it: the cluster stays busy until the next pass.
    pub fn on_delta(&mut self, delta: &InformerDelta, informers: &Informers, cx: &mut Cx<'_>) {
        let InformerDelta::Deleted(object) = delta else {
            return;
        };
        if object.as_node().is_none() {
            return;
        }
        let node = object.name();
        if !bound_pods(informers).iter().any(|p| p.node == node) {
            return;
        }
        let next = self.next_pass.unwrap_or(SimTime(CHECK_PERIOD_MS));
        let delay = next.as_millis().saturating_sub(cx.now.as_millis()) + 1;
        cx.after(delay, ControllerManagerTimer::PodGcHold);
    }

    /// The pass (`gc`): the next is set, quarantines start, those over are checked.
    pub fn on_timer(&mut self, informers: &Informers, cx: &mut Cx<'_>) {
        let pods = bound_pods(informers);
        let existing: BTreeSet<&str> = informers.nodes.iter().map(|o| o.name()).collect();
        let plan = pod_gc_plan::pass(&pods, &existing, &mut self.quarantine, cx.now);
        for node in &plan.quarantined {
            let count = pod_gc_plan::orphans(&pods, node).len();
            cx.stage(stage(
                Outcome::Scheduled,
                format!(
                    "{count} Pod(s) bound to node {node}, which the node cache does not hold: quarantined for {} s before a GET checks it is gone",
                    pod_gc_plan::QUARANTINE_MS / 1000
                ),
            ));
        }
        for node in plan.check {
            let id = cx.send(request(NAME, Verb::Get, kind_of("Node"), None, &node));
            self.checking.insert(id, node);
        }
        self.arm(cx);
    }

    /// The next pass: a foreground timer while a node is in quarantine.
    fn arm(&mut self, cx: &mut Cx<'_>) {
        self.next_pass = Some(cx.now.plus(CHECK_PERIOD_MS));
        if self.quarantine.is_empty() {
            cx.after_background(CHECK_PERIOD_MS, ControllerManagerTimer::PodGc);
        } else {
            cx.after(CHECK_PERIOD_MS, ControllerManagerTimer::PodGc);
        }
    }

    /// An answer to one of its requests; `false` when `id` is not its.
    pub fn on_response(
        &mut self,
        id: RequestId,
        response: &Response,
        informers: &Informers,
        cx: &mut Cx<'_>,
    ) -> bool {
        if let Some(node) = self.checking.remove(&id) {
            self.checked(&node, response, informers, cx);
            return true;
        }
        if let Some((ns, name)) = self.patching.remove(&id) {
            self.delete(&ns, &name, cx);
            return true;
        }
        if let Some(key) = self.deleting.remove(&id) {
            if response.code < 300 {
                cx.stage(
                    stage(
                        Outcome::Delete,
                        format!("Forced deletion of orphaned Pod {key} succeeded"),
                    )
                    .pod(key),
                );
            }
            return true;
        }
        false
    }

    /// `checkIfNodeExists`: a 404 makes the node's Pods orphans.
    fn checked(&mut self, node: &str, response: &Response, informers: &Informers, cx: &mut Cx<'_>) {
        if response.code != 404 {
            let detail = if response.code < 300 {
                format!("node {node} exists: its Pods are not orphaned")
            } else {
                format!("Error while getting node {node}: it stays until the next pass")
            };
            cx.stage(stage(Outcome::InSync, detail));
            return;
        }
        let pods = bound_pods(informers);
        for pod in pod_gc_plan::orphans(&pods, node) {
            let key = format!("{}/{}", pod.namespace, pod.name);
            cx.stage(
                stage(
                    Outcome::Orphan,
                    format!("Found orphaned Pod {key} assigned to the Node {node}, deleting"),
                )
                .pod(key.clone())
                .node(node),
            );
            match pod_gc_plan::status_patch(pod, cx.now) {
                Some(patch) => {
                    let req = request(
                        NAME,
                        Verb::Patch,
                        kind_of("Pod"),
                        Some(pod.namespace),
                        pod.name,
                    )
                    .subresource("status")
                    .body(Body::Patch(patch));
                    let id = cx.send(req);
                    self.patching
                        .insert(id, (pod.namespace.to_owned(), pod.name.to_owned()));
                }
                None => self.delete(pod.namespace, pod.name, cx),
            }
        }
    }

    /// The deletion, with `gracePeriodSeconds: 0` (`metav1.NewDeleteOptions(0)`).
    fn delete(&mut self, ns: &str, name: &str, cx: &mut Cx<'_>) {
        let req = request(NAME, Verb::Delete, kind_of("Pod"), Some(ns), name).body(Body::Delete {
            grace_period_seconds: Some(0),
        });
        let id = cx.send(req);
        self.deleting.insert(id, format!("{ns}/{name}"));
    }
}
