//! Node-level admission: before it runs a pod bound to its node, the kubelet
//! checks that the pod fits beside the pods it already runs
//! (`pkg/kubelet/lifecycle/predicate.go`, `predicateAdmitHandler.Admit` and
//! `generalFilter`, which reuse the scheduler's checks through
//! `scheduler.AdmissionCheck`: `NodeResourcesFit`, `NodeAffinity`, `NodeName`,
//! `NodePorts`; then the `NoExecute` taints the pod does not tolerate). A pod
//! that does not fit is rejected (`kubelet.go`, `rejectPod`): a `Warning`
//! event with the first reason, and the status phase `Failed` with that reason
//! and the message `Pod was rejected: …`.
//!
//! A pod bound by the scheduler passed the same checks; the rejection shows for
//! a pod that names its node itself (`spec.nodeName`), or after a race.

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::core::v1::{Node, Pod};
use serde_json::json;

use super::Kubelet;
use crate::apiserver::request::{Body, Verb};
use crate::component::Cx;
use crate::scheduler::framework::{Counted, NodeInfo};
use crate::scheduler::plugins::node_resources_fit::{FitArgs, fits_request};
use crate::scheduler::plugins::{node_affinity, node_ports, taint_toleration};
use crate::scheduler::resources::pod_requests;
use crate::trace::{Outcome, StageName};
use podflow_model::Shared;

/// `tainttoleration.ErrReasonNotMatch`, the reason `generalFilter` gives an
/// untolerated `NoExecute` taint.
pub const TAINT_NOT_MATCH: &str = "node(s) had taints that the pod didn't tolerate";

/// What the kubelet knows for admission: its Node and the pods that ran
/// before the story started.
#[derive(Debug, Clone, Default)]
pub struct Known {
    pub node: Option<Arc<Node>>,
    pub settled: BTreeMap<String, Shared<Pod>>,
    /// The node with the pods admission counts on it (the running pods'
    /// workers and the settled pods that have not finished): counted once,
    /// then kept as pods are admitted and change, rather than read again
    /// for every pod admitted (each long out of the caches in a large run).
    /// Anything rarer (the node, a settled pod, a pod finishing or leaving)
    /// drops it, to be counted afresh. Shared with the checkpoints.
    counts: Option<Arc<NodeInfo>>,
}

impl Known {
    /// The node changed, or the pods admission counts did otherwise than
    /// by [`Known::admitted`] or [`Known::changed`]: counted afresh next time.
    pub fn recount(&mut self) {
        self.counts = None;
    }

    /// `pod` was admitted (its worker starts with `counted`).
    pub fn admitted(&mut self, pod: &Shared<Pod>, counted: &Counted) {
        if let Some(counts) = &mut self.counts {
            Arc::make_mut(counts).add_counted(pod.clone(), counted.clone());
        }
    }

    /// A new version of the running pod `key`, its worker's counts
    /// followed to it already.
    pub fn changed(&mut self, key: &str, pod: &Shared<Pod>, counted: &Counted) {
        if let Some(counts) = &mut self.counts {
            Arc::make_mut(counts).update_counted(key, pod.clone(), counted.clone());
        }
    }
}

/// Why a pod was rejected (`PodAdmitResult`'s reason and message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    pub reason: String,
    pub message: String,
}

/// The first failure of a resource (`InsufficientResourceError`): the reason
/// `OutOf<resource>` and `Node didn't have enough resource: …`.
fn insufficient(resource: &str, requested: i64, used: i64, capacity: i64) -> Rejection {
    Rejection {
        reason: format!("OutOf{resource}"),
        message: format!(
            "Node didn't have enough resource: {resource}, requested: {requested}, used: {used}, capacity: {capacity}"
        ),
    }
}

/// A failed predicate (`PredicateFailureError`): the plugin's name, and
/// `Predicate <name> failed: <reason>`.
fn predicate(name: &str, reason: &str) -> Rejection {
    Rejection {
        reason: name.to_owned(),
        message: format!("Predicate {name} failed: {reason}"),
    }
}

/// `Admit`: whether `pod` may run on the node `info` counts the other pods
/// on; the first failure in `generalFilter`'s order otherwise.
pub fn admit(pod: &Pod, info: &NodeInfo) -> Result<(), Rejection> {
    let node = &info.node;
    let want = pod_requests(pod, false);
    // `noderesources.Fits`: the scheduler's own check, with the amounts it compared.
    if let Some(short) = fits_request(&want, info, &FitArgs::default()).first() {
        let name = short.reason.strip_prefix("Insufficient ").unwrap_or("pods");
        let (have, used) = (&info.allocatable, &info.requested);
        return Err(match name {
            "pods" => insufficient(
                "pods",
                1,
                i64::try_from(info.pods.len()).unwrap_or(i64::MAX),
                have.pods,
            ),
            "cpu" => insufficient("cpu", want.milli_cpu, used.milli_cpu, have.milli_cpu),
            "memory" => insufficient("memory", want.memory, used.memory, have.memory),
            "ephemeral-storage" => insufficient(
                name,
                want.ephemeral_storage,
                used.ephemeral_storage,
                have.ephemeral_storage,
            ),
            scalar => insufficient(
                scalar,
                want.scalar.get(scalar).copied().unwrap_or(0),
                used.scalar.get(scalar).copied().unwrap_or(0),
                have.scalar.get(scalar).copied().unwrap_or(0),
            ),
        });
    }
    if !node_affinity::required_matches(pod, info) {
        return Err(predicate("NodeAffinity", node_affinity::REASON));
    }
    let wanted = node_ports::host_ports(pod);
    if !wanted.is_empty() && !node_ports::fits(&wanted, info) {
        return Err(predicate("NodePorts", node_ports::REASON));
    }
    let tolerations = pod
        .spec
        .as_ref()
        .and_then(|s| s.tolerations.as_deref())
        .unwrap_or_default();
    let untolerated = node
        .spec
        .as_ref()
        .and_then(|s| s.taints.as_deref())
        .unwrap_or_default()
        .iter()
        .filter(|t| t.effect == "NoExecute")
        .any(|t| {
            !tolerations
                .iter()
                .any(|tol| taint_toleration::tolerates(tol, t))
        });
    if untolerated {
        return Err(predicate("TaintToleration", TAINT_NOT_MATCH));
    }
    Ok(())
}

/// A pod that has finished (`Succeeded` or `Failed`) holds nothing.
fn is_terminal(pod: &Pod) -> bool {
    pod.status
        .as_ref()
        .and_then(|s| s.phase.as_deref())
        .is_some_and(|p| p == "Succeeded" || p == "Failed")
}

impl Kubelet {
    /// The pods admission counts on `node`, counted afresh: the running
    /// pods' workers and the settled pods that have not finished.
    fn count_on(&self, node: Arc<Node>) -> NodeInfo {
        let workers = self
            .workers
            .values()
            .filter(|w| !w.finished)
            .map(|w| (w.pod.clone(), w.counted.clone()));
        let settled = self
            .known
            .settled
            .values()
            .filter(|p| !is_terminal(p))
            .map(|p| Counted::beside(p.clone()));
        NodeInfo::with_counted(node, workers.chain(settled))
    }

    /// `canAdmitPod` against the pods this kubelet runs; a rejected pod gets
    /// `rejectPod`'s event and status. Returns whether it was admitted.
    /// The pod is neither running nor settled (its callers admit only such
    /// a pod), so every pod counted is another.
    pub(super) fn can_admit(&mut self, key: &str, pod: &Pod, cx: &mut Cx<'_>) -> bool {
        debug_assert!(
            !self.workers.contains_key(key) && !self.known.settled.contains_key(key),
            "{key} is admitted twice"
        );
        let Some(node) = self.known.node.clone() else {
            return true;
        };
        let counts = match &self.known.counts {
            Some(counts) => Arc::clone(counts),
            None => Arc::clone(
                self.known
                    .counts
                    .insert(Arc::new(self.count_on(node.clone()))),
            ),
        };
        debug_assert!(
            counts.counts_as(&self.count_on(node)),
            "the admission counts kept differ from a recount"
        );
        let refused = self
            .refused_under_pressure(pod)
            .map(|(reason, message)| Rejection { reason, message });
        let Err(rejection) = refused.map_or_else(|| admit(pod, &counts), Err) else {
            return true;
        };
        Self::event(
            cx,
            key,
            true,
            &rejection.reason,
            rejection.message.clone(),
            None,
        );
        self.stage(
            cx,
            key,
            StageName::Status,
            Outcome::Failed,
            format!("rejected: {}", rejection.message),
        );
        let mut status = json!({
            "phase": "Failed",
            "reason": rejection.reason,
            "message": format!("Pod was rejected: {}", rejection.message),
            "startTime": cx.now.rfc3339(),
        });
        if let Some(qos) = pod.status.as_ref().and_then(|s| s.qos_class.as_deref()) {
            status["qosClass"] = json!(qos);
        }
        let request = self
            .pod_request(Verb::Patch, pod)
            .subresource("status")
            .body(Body::Patch(json!({ "status": status })));
        cx.send(request);
        false
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::{
        Container, ContainerPort, NodeSpec, NodeStatus, PodSpec, ResourceRequirements, Taint,
        Toleration,
    };
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    use super::*;

    fn node(cpu: &str, pods: &str, taints: Vec<Taint>) -> Arc<Node> {
        Arc::new(Node {
            metadata: ObjectMeta {
                name: Some("node-1".into()),
                labels: Some([("disk".to_owned(), "hdd".to_owned())].into()),
                ..ObjectMeta::default()
            },
            spec: Some(NodeSpec {
                taints: Some(taints),
                ..NodeSpec::default()
            }),
            status: Some(NodeStatus {
                allocatable: Some(
                    [
                        ("cpu".to_owned(), Quantity(cpu.into())),
                        ("memory".to_owned(), Quantity("8Gi".into())),
                        ("pods".to_owned(), Quantity(pods.into())),
                    ]
                    .into(),
                ),
                ..NodeStatus::default()
            }),
        })
    }

    fn pod(cpu: &str, edit: impl FnOnce(&mut PodSpec)) -> Pod {
        let mut spec = PodSpec {
            node_name: Some("node-1".into()),
            containers: vec![Container {
                name: "app".into(),
                resources: Some(ResourceRequirements {
                    requests: Some([("cpu".to_owned(), Quantity(cpu.into()))].into()),
                    ..ResourceRequirements::default()
                }),
                ..Container::default()
            }],
            ..PodSpec::default()
        };
        edit(&mut spec);
        Pod {
            metadata: ObjectMeta {
                name: Some("p".into()),
                namespace: Some("default".into()),
                ..ObjectMeta::default()
            },
            spec: Some(spec),
            ..Pod::default()
        }
    }

    fn reject(reason: &str, message: &str) -> Result<(), Rejection> {
        Err(Rejection {
            reason: reason.into(),
            message: message.into(),
        })
    }

    fn taint(key: &str, effect: &str) -> Taint {
        Taint {
            key: key.into(),
            value: Some("db".into()),
            effect: effect.into(),
            ..Taint::default()
        }
    }

    /// One case: the pod, the node, the pods already there, the verdict.
    struct Row {
        name: &'static str,
        pod: Pod,
        node: Arc<Node>,
        others: Vec<Shared<Pod>>,
        want: Result<(), Rejection>,
    }

    fn check(rows: Vec<Row>) {
        for row in rows {
            assert_eq!(
                admit(&row.pod, &NodeInfo::new(row.node, row.others)),
                row.want,
                "{}",
                row.name
            );
        }
    }

    /// `predicate_test.go` `TestGeneralPredicates` and `kubelet_test.go`
    /// `TestHandleMemExceeded`: the first resource short, with its amounts.
    #[test]
    fn resources() {
        let small = node("4", "110", Vec::new());
        check(vec![
            Row {
                name: "fits",
                pod: pod("1", |_| {}),
                node: small.clone(),
                others: Vec::new(),
                want: Ok(()),
            },
            Row {
                name: "too much cpu",
                pod: pod("5", |_| {}),
                node: small.clone(),
                others: Vec::new(),
                want: reject(
                    "OutOfcpu",
                    "Node didn't have enough resource: cpu, requested: 5000, used: 0, capacity: 4000",
                ),
            },
            Row {
                name: "cpu used by others",
                pod: pod("2", |_| {}),
                node: small,
                others: vec![Shared::from(pod("3", |_| {}))],
                want: reject(
                    "OutOfcpu",
                    "Node didn't have enough resource: cpu, requested: 2000, used: 3000, capacity: 4000",
                ),
            },
            Row {
                name: "too many pods",
                pod: pod("1", |_| {}),
                node: node("4", "1", Vec::new()),
                others: vec![Shared::from(pod("0", |_| {}))],
                want: reject(
                    "OutOfpods",
                    "Node didn't have enough resource: pods, requested: 1, used: 1, capacity: 1",
                ),
            },
        ]);
    }

    /// `kubelet_test.go` `TestHandlePortConflicts`, `TestHandleNodeSelector`,
    /// and `generalFilter`'s `NoExecute` check.
    #[test]
    fn predicates() {
        let plain = node("4", "110", Vec::new());
        let with_port = pod("100m", |s| {
            s.containers[0].ports = Some(vec![ContainerPort {
                container_port: 80,
                host_port: Some(8080),
                ..ContainerPort::default()
            }]);
        });
        let tolerating = pod("1", |s| {
            s.tolerations = Some(vec![Toleration {
                key: Some("dedicated".into()),
                operator: Some("Exists".into()),
                ..Toleration::default()
            }]);
        });
        check(vec![
            Row {
                name: "node selector",
                pod: pod("1", |s| {
                    s.node_selector = Some([("disk".to_owned(), "ssd".to_owned())].into());
                }),
                node: plain.clone(),
                others: Vec::new(),
                want: reject(
                    "NodeAffinity",
                    "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector",
                ),
            },
            Row {
                name: "host port taken",
                pod: with_port.clone(),
                node: plain,
                others: vec![Shared::from(with_port)],
                want: reject(
                    "NodePorts",
                    "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports",
                ),
            },
            Row {
                name: "NoExecute taint",
                pod: pod("1", |_| {}),
                node: node("4", "110", vec![taint("dedicated", "NoExecute")]),
                others: Vec::new(),
                want: reject(
                    "TaintToleration",
                    "Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate",
                ),
            },
            Row {
                name: "NoSchedule taints are the scheduler's",
                pod: pod("1", |_| {}),
                node: node("4", "110", vec![taint("dedicated", "NoSchedule")]),
                others: Vec::new(),
                want: Ok(()),
            },
            Row {
                name: "tolerated NoExecute taint",
                pod: tolerating,
                node: node("4", "110", vec![taint("dedicated", "NoExecute")]),
                others: Vec::new(),
                want: Ok(()),
            },
        ]);
    }
}
