//! The node lifecycle controller at work (`pkg/controller/nodelifecycle/node_lifecycle_controller.go`):
//! every `--node-monitor-period` (5 s, a background timer) `monitorNodeHealth`
//! looks at each node's latest heartbeat (its `Ready` condition's or its
//! Lease's renewal, whichever is newer); past the 50 s grace period it writes
//! the node's conditions `Unknown` (`UpdateStatus`), records `NodeNotReady` on
//! the node, and marks the node's pods not ready (`MarkPodsNotReady`, with
//! the `NodeNotReady` event on each). The `Ready` condition decides the
//! controller's taints (`processTaintBaseEviction`, `doNoScheduleTaintingPass`):
//! `node.kubernetes.io/unreachable` `NoSchedule` and `NoExecute` while it is
//! `Unknown`, none again once the kubelet posts `True`. The decisions
//! themselves are in [`super::node_lifecycle_plan`].
//!
//! Simplified: one zone, no eviction rate limiting (the first node of a zone
//! is tainted at once upstream too), taints written in one `PATCH`.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{Node, Pod, Taint};

use super::Informers;
use super::client::request;
use super::informer::InformerDelta;
use super::node_lifecycle_plan::{
    NOT_READY, PRESSURE_TAINTS, UNREACHABLE, last_heartbeat, pressure_taints, stale_node,
    taints_for_ready,
};
use crate::apiserver::handler::Response;
use crate::apiserver::request::{Body, Verb};
use crate::component::{Cx, RequestId, pod_event};
use crate::trace::{Actor, Outcome, StageName};
use crate::trace::{EventObject, EventRecord, Stage};
use podflow_model::Object;
use podflow_model::kinds::kind_of;

/// The controller's service account, and its events' source.
pub const NAME: &str = "node-controller";
/// How the trace names the controller in `plugin`.
const PLUGIN: &str = "node-lifecycle-controller";

/// The node lifecycle controller's state.
#[derive(Debug, Clone, Default)]
pub struct NodeLifecycleController {
    /// Writes in flight, by the node they are about.
    inflight: BTreeMap<RequestId, String>,
    /// Nodes with a write in flight: they wait for the next pass.
    busy: BTreeSet<String>,
}

fn ready_status(node: &Node) -> &str {
    ready_condition(node).map_or("Unknown", |c| c.status.as_str())
}

/// The node's `Ready` condition, if its kubelet ever posted one.
fn ready_condition(node: &Node) -> Option<&k8s_openapi::api::core::v1::NodeCondition> {
    node.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|c| c.iter().find(|c| c.type_ == "Ready"))
}

/// The node's latest sign of life, in Kubernetes milliseconds: its `Ready`
/// heartbeat or its Lease's `renewTime`, whichever is newer.
fn probe_ms(node: &Node, informers: &Informers) -> Option<i64> {
    let name = node.metadata.name.as_deref().unwrap_or_default();
    let lease = informers
        .leases
        .get(&format!(
            "{}/{name}",
            crate::kubelet::heartbeat::LEASE_NAMESPACE
        ))
        .and_then(|o| match &**o {
            Object::Lease(l) => l
                .spec
                .as_ref()?
                .renew_time
                .as_ref()
                .map(|t| t.0.as_millisecond()),
            _ => None,
        });
    last_heartbeat(node).max(lease)
}

/// The node's taints with the controller's own replaced by `wanted`; `None`
/// when they are already so (a taint kept keeps its `timeAdded`).
pub fn retainted(node: &Node, wanted: &[Taint]) -> Option<Vec<Taint>> {
    let current = node
        .spec
        .as_ref()
        .and_then(|s| s.taints.clone())
        .unwrap_or_default();
    let ours = |t: &Taint| {
        t.key == UNREACHABLE
            || t.key == NOT_READY
            || PRESSURE_TAINTS.iter().any(|(_, key)| t.key == *key)
    };
    let same = |a: &Taint, b: &Taint| a.key == b.key && a.effect == b.effect;
    let have: Vec<&Taint> = current.iter().filter(|t| ours(t)).collect();
    if have.len() == wanted.len() && wanted.iter().all(|w| have.iter().any(|h| same(h, w))) {
        return None;
    }
    let mut out: Vec<Taint> = current.iter().filter(|t| !ours(t)).cloned().collect();
    for w in wanted {
        out.push(
            current
                .iter()
                .find(|h| same(h, w))
                .cloned()
                .unwrap_or_else(|| w.clone()),
        );
    }
    Some(out)
}

impl NodeLifecycleController {
    /// `monitorNodeHealth`, every monitor period.
    pub fn monitor(&mut self, informers: &Informers, cx: &mut Cx<'_>) {
        // Read where the informer holds them: a pass looks at every node every
        // 5 s, and copying each (its images, its conditions) cost more than the look.
        for node in informers.nodes.iter().filter_map(|o| o.as_node()) {
            let name = node.metadata.name.as_deref().unwrap_or_default();
            if self.busy.contains(name) {
                continue;
            }
            let Some(probe) = probe_ms(node, informers) else {
                continue;
            };
            if let Some(updated) = stale_node(node, probe, cx.now) {
                self.mark_unknown(name, node, updated, probe, informers, cx);
                continue;
            }
            self.reconcile_taints(node, cx);
        }
    }

    /// A node's heartbeats stopped: its conditions go `Unknown`, its pods not ready.
    fn mark_unknown(
        &mut self,
        name: &str,
        node: &Node,
        updated: Node,
        probe: i64,
        informers: &Informers,
        cx: &mut Cx<'_>,
    ) {
        let silent_ms = cx.now.to_k8s().as_millisecond() - probe;
        #[allow(clippy::cast_precision_loss)]
        let detail = format!(
            "{name}: nothing heard from its kubelet for {:.1} s (grace period {} s): conditions Unknown",
            silent_ms as f64 / 1000.0,
            super::node_lifecycle_plan::GRACE_PERIOD_MS / 1000
        );
        cx.stage(
            Stage::new(
                Actor::ControllerManager,
                StageName::Sync,
                Outcome::Unknown,
                detail,
            )
            .plugin(PLUGIN)
            .node(name),
        );
        let req = request(NAME, Verb::Update, kind_of("Node"), None, name)
            .subresource("status")
            .body(Body::Object(Box::new(Object::Node(updated))));
        let id = cx.send(req);
        self.inflight.insert(id, name.to_owned());
        self.busy.insert(name.to_owned());
        if ready_status(node) == "True" {
            cx.event(node_event(name, "NodeNotReady"));
            Self::mark_pods_not_ready(name, informers, cx);
        }
    }

    /// `MarkPodsNotReady`: each pod on the node whose `Ready` is `True` gets `False`.
    fn mark_pods_not_ready(node: &str, informers: &Informers, cx: &mut Cx<'_>) {
        let pods: Vec<Pod> = informers
            .pods
            .iter()
            .filter_map(|o| o.as_pod().cloned())
            .filter(|p| p.spec.as_ref().and_then(|s| s.node_name.as_deref()) == Some(node))
            .collect();
        for mut pod in pods {
            let Some(ready) = pod
                .status
                .as_mut()
                .and_then(|s| s.conditions.as_mut())
                .and_then(|c| c.iter_mut().find(|c| c.type_ == "Ready"))
            else {
                continue;
            };
            if ready.status == "False" {
                continue;
            }
            ready.status = "False".into();
            ready.last_transition_time = Some(cx.now.to_time());
            let ns = pod.metadata.namespace.clone().unwrap_or_default();
            let name = pod.metadata.name.clone().unwrap_or_default();
            let req = request(NAME, Verb::Update, kind_of("Pod"), Some(&ns), &name)
                .subresource("status")
                .body(Body::Object(Box::new(Object::Pod(pod))));
            cx.send(req);
            cx.event(pod_event(
                true,
                "NodeNotReady",
                "Node is not ready",
                (&ns, &name),
                None,
                NAME,
            ));
        }
    }

    /// The taints the node's `Ready` condition calls for.
    fn reconcile_taints(&mut self, node: &Node, cx: &mut Cx<'_>) {
        let name = node.metadata.name.as_deref().unwrap_or_default();
        // A node that never posted a Ready condition is not judged by it
        // (`monitorNodeHealth` skips a nil `currentReadyCondition`).
        if self.busy.contains(name) || ready_condition(node).is_none() {
            return;
        }
        let mut wanted = taints_for_ready(ready_status(node), cx.now);
        wanted.extend(pressure_taints(node));
        let Some(taints) = retainted(node, &wanted) else {
            return;
        };
        let had_pressure: Vec<&str> = node
            .spec
            .as_ref()
            .and_then(|s| s.taints.as_deref())
            .unwrap_or_default()
            .iter()
            .filter(|t| PRESSURE_TAINTS.iter().any(|(_, key)| t.key == *key))
            .filter(|t| !wanted.iter().any(|w| w.key == t.key))
            .map(|t| t.key.as_str())
            .collect();
        let detail = if wanted.is_empty() && !had_pressure.is_empty() {
            format!(
                "{name} is Ready: its {} taint removed",
                had_pressure.join(", ")
            )
        } else if wanted.is_empty() {
            format!("{name} is Ready: its {UNREACHABLE} and {NOT_READY} taints removed")
        } else {
            let keys: Vec<String> = wanted
                .iter()
                .map(|t| format!("{}:{}", t.key, t.effect))
                .collect();
            format!(
                "{name} is {}: tainted {}",
                ready_word(ready_status(node)),
                keys.join(", ")
            )
        };
        cx.stage(
            Stage::new(
                Actor::ControllerManager,
                StageName::Sync,
                Outcome::Taint,
                detail,
            )
            .plugin(PLUGIN)
            .node(name),
        );
        let taints = serde_json::to_value(&taints).unwrap_or_default();
        let req = request(NAME, Verb::Patch, kind_of("Node"), None, name).body(Body::Patch(
            serde_json::json!({ "spec": { "taints": taints } }),
        ));
        let id = cx.send(req);
        self.inflight.insert(id, name.to_owned());
        self.busy.insert(name.to_owned());
    }

    /// A node changed: its taints follow its `Ready` condition at once.
    pub fn on_delta(&mut self, delta: &InformerDelta, cx: &mut Cx<'_>) {
        if let InformerDelta::Updated { old, new } = delta
            && let (Some(old), Some(new)) = (old.as_node(), new.as_node())
        {
            if ready_status(old) != ready_status(new) {
                if ready_status(new) == "True" && ready_status(old) != "True" {
                    let name = new.metadata.name.clone().unwrap_or_default();
                    cx.event(node_event(&name, "NodeReady"));
                }
                self.reconcile_taints(new, cx);
            } else if pressure_taints(old) != pressure_taints(new) {
                // `doNoScheduleTaintingPass` runs on every node update.
                self.reconcile_taints(new, cx);
            }
        }
    }

    /// An answer to one of its writes; `false` when `id` is not its.
    pub fn on_response(&mut self, id: RequestId, _response: &Response) -> bool {
        let Some(node) = self.inflight.remove(&id) else {
            return false;
        };
        self.busy.remove(&node);
        true
    }
}

fn ready_word(status: &str) -> &'static str {
    match status {
        "False" => "NotReady",
        "True" => "Ready",
        _ => "unreachable (Ready Unknown)",
    }
}

/// `RecordNodeStatusChange`: `Node NAME status is now: STATUS`.
fn node_event(node: &str, status: &str) -> EventRecord {
    EventRecord {
        event_type: "Normal".into(),
        reason: status.into(),
        message: format!("Node {node} status is now: {status}"),
        object: EventObject {
            kind: "Node".into(),
            namespace: None,
            name: node.into(),
            field_path: None,
        },
        source: NAME.into(),
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::NodeSpec;

    use super::*;
    use crate::clock::SimTime;

    fn node(taints: Vec<Taint>) -> Node {
        Node {
            spec: Some(NodeSpec {
                taints: Some(taints),
                ..NodeSpec::default()
            }),
            ..Node::default()
        }
    }

    fn taint(key: &str, effect: &str) -> Taint {
        Taint {
            key: key.into(),
            effect: effect.into(),
            ..Taint::default()
        }
    }

    /// Mirrors `TestSwapUnreachableNotReadyTaints` (`node_lifecycle_controller_test.go`):
    /// the controller's taints follow `Ready`; others stay.
    #[test]
    fn taints_follow_ready_and_keep_the_rest() {
        let other = taint("dedicated", "NoSchedule");
        let unreachable = taints_for_ready("Unknown", SimTime(1000));
        let got = retainted(&node(vec![other.clone()]), &unreachable).unwrap();
        let keys: Vec<(&str, &str)> = got
            .iter()
            .map(|t| (t.key.as_str(), t.effect.as_str()))
            .collect();
        assert_eq!(
            keys,
            [
                ("dedicated", "NoSchedule"),
                (UNREACHABLE, "NoSchedule"),
                (UNREACHABLE, "NoExecute")
            ]
        );
        assert_eq!(
            retainted(
                &node(got.clone()),
                &taints_for_ready("Unknown", SimTime(9000))
            ),
            None
        );
        let healed = retainted(&node(got), &[]).unwrap();
        assert_eq!(healed, [other]);
        assert_eq!(retainted(&node(vec![]), &[]), None);
    }

    #[test]
    fn the_node_event_says_the_new_status() {
        let e = node_event("node-1", "NodeNotReady");
        assert_eq!(e.message, "Node node-1 status is now: NodeNotReady");
        assert_eq!(
            (e.object.kind.as_str(), e.source.as_str()),
            ("Node", "node-controller")
        );
    }
}
