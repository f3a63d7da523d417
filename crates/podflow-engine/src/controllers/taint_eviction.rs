//! The taint eviction controller (`pkg/controller/tainteviction/taint_eviction.go`):
//! when a node gains `NoExecute` taints, each of its pods is deleted at once
//! if it does not tolerate them, or after its shortest `tolerationSeconds`
//! (300 s for the `DefaultTolerationSeconds` tolerations every pod gets);
//! the deletion is cancelled when the taints go first. At the deadline it
//! records `TaintManagerEviction` (`Marking for deletion Pod NS/NAME`), adds
//! the `DisruptionTarget` condition to the pod's status and deletes the pod
//! (`addConditionAndDeletePod`; podflow patches from its cache, without the GET
//! before). The deadlines are foreground timers: a scheduled eviction is work
//! left to do.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Pod, Taint};

use super::Informers;
use super::client::request;
use super::informer::{InformerDelta, key_of};
use super::taint_eviction_plan::{Eviction, eviction, eviction_message};
use crate::apiserver::handler::Response;
use crate::apiserver::request::{Body, Verb};
use crate::clock::SimTime;
use crate::component::{ControllerManagerTimer, Cx, RequestId, pod_event};
use crate::trace::Stage;
use crate::trace::{Actor, Outcome, StageName};
use podflow_model::kinds::kind_of;

/// The controller's name: its service account and its events' source.
pub const NAME: &str = "taint-eviction-controller";

/// The taint eviction controller's state.
#[derive(Debug, Clone, Default)]
pub struct TaintEvictionController {
    /// Each node's `NoExecute` taints (`taintedNodes`).
    tainted: BTreeMap<String, Vec<Taint>>,
    /// Scheduled deletions: pod key → (deadline's number, when).
    scheduled: BTreeMap<String, (u64, SimTime)>,
    /// The number of the next deadline ([`ControllerManagerTimer::TaintEviction`]).
    next_deadline: u64,
    /// Status patches in flight, and the pod each deletes next.
    patching: BTreeMap<RequestId, (String, String)>,
    /// Deletions in flight.
    deleting: BTreeMap<RequestId, String>,
}

fn no_execute(node: &k8s_openapi::api::core::v1::Node) -> Vec<Taint> {
    node.spec
        .as_ref()
        .and_then(|s| s.taints.as_ref())
        .into_iter()
        .flatten()
        .filter(|t| t.effect == "NoExecute")
        .cloned()
        .collect()
}

fn node_of(pod: &Pod) -> Option<&str> {
    pod.spec.as_ref()?.node_name.as_deref()
}

impl TaintEvictionController {
    /// `NodeUpdated` / `PodUpdated`.
    pub fn on_delta(&mut self, delta: &InformerDelta, informers: &Informers, cx: &mut Cx<'_>) {
        let object = delta.object();
        if let Some(node) = object.as_node() {
            let name = node.metadata.name.clone().unwrap_or_default();
            let taints = if matches!(delta, InformerDelta::Deleted(_)) {
                Vec::new()
            } else {
                no_execute(node)
            };
            if self
                .tainted
                .get(&name)
                .map_or(taints.is_empty(), |t| *t == taints)
            {
                return;
            }
            if taints.is_empty() {
                self.tainted.remove(&name);
            } else {
                self.tainted.insert(name.clone(), taints.clone());
            }
            let pods: Vec<Pod> = informers
                .pods
                .iter()
                .filter_map(|o| o.as_pod())
                .filter(|p| node_of(p) == Some(name.as_str()))
                .cloned()
                .collect();
            for pod in &pods {
                self.process_pod(pod, &taints, cx);
            }
        } else if let Some(pod) = object.as_pod() {
            let key = key_of(object);
            if matches!(delta, InformerDelta::Deleted(_)) {
                self.cancel(&key, false, cx);
                return;
            }
            if let InformerDelta::Updated { old, .. } = delta
                && let Some(old) = old.as_pod()
                && node_of(old) == node_of(pod)
                && old.spec.as_ref().map(|s| &s.tolerations)
                    == pod.spec.as_ref().map(|s| &s.tolerations)
            {
                return;
            }
            let Some(taints) = node_of(pod).and_then(|n| self.tainted.get(n)).cloned() else {
                return;
            };
            self.process_pod(pod, &taints, cx);
        }
    }

    /// `processPodOnNode`.
    fn process_pod(&mut self, pod: &Pod, taints: &[Taint], cx: &mut Cx<'_>) {
        let key = format!(
            "{}/{}",
            pod.metadata.namespace.as_deref().unwrap_or_default(),
            pod.metadata.name.as_deref().unwrap_or_default()
        );
        if taints.is_empty() {
            self.cancel(&key, true, cx);
            return;
        }
        let tolerations = pod
            .spec
            .as_ref()
            .and_then(|s| s.tolerations.clone())
            .unwrap_or_default();
        let delay = match eviction(&tolerations, taints) {
            Eviction::Never => return self.cancel(&key, true, cx),
            Eviction::Now => {
                self.cancel(&key, true, cx);
                0
            }
            Eviction::After(ms) => {
                if self.scheduled.contains_key(&key) {
                    return;
                }
                u64::try_from(ms).unwrap_or(0)
            }
        };
        let deadline = self.next_deadline;
        self.next_deadline += 1;
        let at = cx.now.plus(delay);
        self.scheduled.insert(key.clone(), (deadline, at));
        cx.after(delay, ControllerManagerTimer::TaintEviction(deadline));
        let detail = format!(
            "{key} does not tolerate the NoExecute taints of its node beyond {} s: deletion scheduled",
            delay / 1000
        );
        cx.stage(
            Stage::new(
                Actor::ControllerManager,
                StageName::Sync,
                Outcome::Scheduled,
                detail,
            )
            .plugin(NAME)
            .pod(key),
        );
    }

    /// `cancelWorkWithEvent`.
    fn cancel(&mut self, key: &str, event: bool, cx: &mut Cx<'_>) {
        if self.scheduled.remove(key).is_some() && event {
            let (ns, name) = key.split_once('/').unwrap_or(("", key));
            cx.event(pod_event(
                false,
                "TaintManagerEviction",
                format!("Cancelling deletion of Pod {key}"),
                (ns, name),
                None,
                NAME,
            ));
        }
    }

    /// A deadline came: the `TaintManagerEviction` event, the condition, then the deletion.
    pub fn on_timer(&mut self, deadline: u64, cx: &mut Cx<'_>) {
        let Some(key) = self
            .scheduled
            .iter()
            .find(|(_, (d, _))| *d == deadline)
            .map(|(k, _)| k.clone())
        else {
            return;
        };
        self.scheduled.remove(&key);
        let (ns, name) = key.split_once('/').unwrap_or(("", &key));
        let (ns, name) = (ns.to_owned(), name.to_owned());
        cx.event(pod_event(
            false,
            "TaintManagerEviction",
            eviction_message(&ns, &name),
            (&ns, &name),
            None,
            NAME,
        ));
        let condition = serde_json::json!({
            "type": "DisruptionTarget",
            "status": "True",
            "reason": "DeletionByTaintManager",
            "message": "Taint manager: deleting due to NoExecute taint",
            "lastTransitionTime": serde_json::to_value(
                cx.now.to_time()
            ).unwrap_or_default(),
        });
        let req = request(NAME, Verb::Patch, kind_of("Pod"), Some(&ns), &name)
            .subresource("status")
            .body(Body::Patch(
                serde_json::json!({ "status": { "conditions": [condition] } }),
            ));
        let id = cx.send(req);
        self.patching.insert(id, (ns, name));
    }

    /// An answer to one of its requests; `false` when `id` is not its.
    pub fn on_response(&mut self, id: RequestId, _response: &Response, cx: &mut Cx<'_>) -> bool {
        if let Some((ns, name)) = self.patching.remove(&id) {
            let req =
                request(NAME, Verb::Delete, kind_of("Pod"), Some(&ns), &name).body(Body::Delete {
                    grace_period_seconds: None,
                });
            let id = cx.send(req);
            self.deleting.insert(id, format!("{ns}/{name}"));
            return true;
        }
        self.deleting.remove(&id).is_some()
    }

    /// Whether any deletion is scheduled (for tests and the trace).
    pub fn scheduled(&self) -> impl Iterator<Item = (&String, SimTime)> {
        self.scheduled.iter().map(|(k, (_, at))| (k, *at))
    }
}
