//! The goal checks: a small typed language for "the student is done", read
//! from a goal's `check:` and evaluated against the store at the end of the
//! run.
//!
//! ```text
//! pod REF PHASE                                 PHASE: Pending Running Succeeded Failed
//! pod REF scheduled                             the Pod has spec.nodeName
//! pod REF Running on node NODE
//! pod REF Running on a node labelled KEY=VALUE  ("labeled" too)
//! deployment REF has N ready replicas           status.readyReplicas >= N
//! service REF has N ready endpoints             its EndpointSlices list N ready ones
//! request VERB RESOURCE                         a client sent it since the goal began
//! ```
//!
//! `request watch pods` ([`request_check`]) is met by what a client sends
//! (`kubectl get pods -w`, podflow's or the real one through `podflow serve`),
//! not by the store: it is read with [`Check::holds_in`].
//!
//! REF is `NAME` (namespace `default`) or `NAMESPACE/NAME`.

use std::fmt;

use super::moment::{PHASES, pod_ref};
use super::request_check::{self, RequestCheck};
use podflow_engine::store::Store;
use podflow_engine::timeline::View;

/// A goal check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// The Pod exists and is in this phase (an unset phase reads `Pending`).
    PodPhase {
        pod: (String, String),
        phase: String,
    },
    /// The Pod is bound to a node.
    PodScheduled { pod: (String, String) },
    /// The Pod is Running on this node.
    PodOnNode { pod: (String, String), node: String },
    /// The Pod is Running on a node that carries this label.
    PodOnLabelledNode {
        pod: (String, String),
        key: String,
        value: String,
    },
    /// The Deployment reports at least this many ready replicas.
    DeploymentReady {
        deployment: (String, String),
        replicas: i32,
    },
    /// The Service's `EndpointSlices` (`kubernetes.io/service-name`) list at
    /// least this many ready endpoints: what kube-proxy sends traffic to.
    ServiceEndpoints {
        service: (String, String),
        endpoints: usize,
    },
    // ---- Checks on what clients sent (lesson 12, `podflow serve --lesson`) ----
    /// A client sent this request since the goal began.
    Request(RequestCheck),
}

/// Reads a check; the error lists the forms there are.
pub fn parse(text: &str) -> Result<Check, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let check = match words.as_slice() {
        ["pod", pod, "scheduled"] => Some(Check::PodScheduled { pod: pod_ref(pod) }),
        ["pod", pod, phase] if PHASES.contains(phase) => Some(Check::PodPhase {
            pod: pod_ref(pod),
            phase: (*phase).to_owned(),
        }),
        ["pod", pod, "Running", "on", "node", node] => Some(Check::PodOnNode {
            pod: pod_ref(pod),
            node: (*node).to_owned(),
        }),
        [
            "pod",
            pod,
            "Running",
            "on",
            "a",
            "node",
            "labelled" | "labeled",
            label,
        ] => label
            .split_once('=')
            .map(|(key, value)| Check::PodOnLabelledNode {
                pod: pod_ref(pod),
                key: key.to_owned(),
                value: value.to_owned(),
            }),
        [
            "deployment",
            name,
            "has",
            n,
            "ready",
            "replicas" | "replica",
        ] => n.parse().ok().map(|replicas| Check::DeploymentReady {
            deployment: pod_ref(name),
            replicas,
        }),
        ["service", name, "has", n, "ready", "endpoints" | "endpoint"] => {
            n.parse().ok().map(|endpoints| Check::ServiceEndpoints {
                service: pod_ref(name),
                endpoints,
            })
        }
        // ---- Checks on what clients sent ----
        words if words.first() == Some(&"request") => {
            request_check::parse(words).map(Check::Request)
        }
        _ => None,
    };
    check.ok_or_else(|| {
        format!(
            "unknown goal check {text:?}: want `pod NAME PHASE`, `pod NAME scheduled`, `pod NAME Running on node NODE`, `pod NAME Running on a node labelled KEY=VALUE`, `deployment NAME has N ready replicas`, `service NAME has N ready endpoints` or `request VERB RESOURCE` (VERB: get list watch create update patch delete)"
        )
    })
}

/// The Pod's phase and node, when it exists.
fn pod(store: &Store, (namespace, name): &(String, String)) -> Option<(String, Option<String>)> {
    let pod = store
        .get(&format!("/registry/pods/{namespace}/{name}"))?
        .object
        .as_pod()?;
    let phase = pod
        .status
        .as_ref()
        .and_then(|s| s.phase.clone())
        .unwrap_or_else(|| "Pending".to_owned());
    let node = pod.spec.as_ref().and_then(|s| s.node_name.clone());
    Some((phase, node))
}

impl Check {
    /// Whether the check holds at `view`, for a goal that began at record
    /// `since` (`None`: before any): a request check looks at what clients
    /// sent after it, the others at the store.
    pub fn holds_in(&self, view: &View<'_>, since: Option<usize>) -> bool {
        match self {
            Check::Request(request) => {
                let from = since.map_or(0, |s| s + 1);
                view.records
                    .get(from..)
                    .is_some_and(|records| request.arrived(records))
            }
            other => other.holds(&view.store),
        }
    }

    /// Whether the check holds in `store` (a request check never does: it
    /// needs the records, [`Check::holds_in`]).
    pub fn holds(&self, store: &Store) -> bool {
        match self {
            Check::Request(_) => false,
            Check::PodPhase { pod: p, phase } => pod(store, p).is_some_and(|(ph, _)| &ph == phase),
            Check::PodScheduled { pod: p } => pod(store, p).is_some_and(|(_, n)| n.is_some()),
            Check::PodOnNode { pod: p, node } => {
                pod(store, p).is_some_and(|(ph, n)| ph == "Running" && n.as_ref() == Some(node))
            }
            Check::PodOnLabelledNode { pod: p, key, value } => {
                let Some((phase, Some(node))) = pod(store, p) else {
                    return false;
                };
                phase == "Running"
                    && store
                        .get(&format!("/registry/nodes/{node}"))
                        .and_then(|e| e.object.as_node())
                        .and_then(|n| n.metadata.labels.as_ref())
                        .and_then(|l| l.get(key))
                        .is_some_and(|v| v == value)
            }
            Check::DeploymentReady {
                deployment: (namespace, name),
                replicas,
            } => store
                .get(&format!("/registry/deployments/{namespace}/{name}"))
                .and_then(|e| match e.object.as_ref() {
                    podflow_model::Object::Deployment(d) => d.status.as_ref(),
                    _ => None,
                })
                .and_then(|s| s.ready_replicas)
                .is_some_and(|r| r >= *replicas),
            Check::ServiceEndpoints {
                service: (namespace, name),
                endpoints,
            } => ready_endpoints(store, namespace, name) >= *endpoints,
        }
    }
}

/// The ready endpoints the `EndpointSlices` of Service `namespace/name` list.
fn ready_endpoints(store: &Store, namespace: &str, name: &str) -> usize {
    use k8s_openapi::api::discovery::v1::EndpointSlice;
    store
        .range(&format!("/registry/endpointslices/{namespace}/"))
        .filter_map(|(_, entry)| entry.object.get::<EndpointSlice>())
        .filter(|s| {
            s.metadata
                .labels
                .as_ref()
                .and_then(|l| l.get("kubernetes.io/service-name"))
                .is_some_and(|n| n == name)
        })
        .flat_map(|s| s.endpoints.iter().flatten())
        .filter(|e| e.conditions.as_ref().and_then(|c| c.ready) == Some(true))
        .count()
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = |(ns, name): &(String, String)| format!("{ns}/{name}");
        match self {
            Check::PodPhase { pod, phase } => write!(f, "pod {} {phase}", r(pod)),
            Check::PodScheduled { pod } => write!(f, "pod {} scheduled", r(pod)),
            Check::PodOnNode { pod, node } => write!(f, "pod {} Running on node {node}", r(pod)),
            Check::PodOnLabelledNode { pod, key, value } => {
                write!(f, "pod {} Running on a node labelled {key}={value}", r(pod))
            }
            Check::DeploymentReady {
                deployment,
                replicas,
            } => {
                let noun = if *replicas == 1 {
                    "replica"
                } else {
                    "replicas"
                };
                write!(
                    f,
                    "deployment {} has {replicas} ready {noun}",
                    r(deployment)
                )
            }
            Check::ServiceEndpoints { service, endpoints } => {
                let noun = if *endpoints == 1 {
                    "endpoint"
                } else {
                    "endpoints"
                };
                write!(f, "service {} has {endpoints} ready {noun}", r(service))
            }
            Check::Request(request) => write!(f, "{request}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use podflow_model::Object;
    use podflow_model::kinds::kind_of;

    fn object(kind: &str, value: serde_json::Value) -> Object {
        Object::from_json(kind_of(kind), value).unwrap()
    }

    fn node(name: &str, disk: &str) -> Object {
        object(
            "Node",
            serde_json::json!({"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name, "labels": {"disktype": disk}}}),
        )
    }

    fn pod(name: &str, node: Option<&str>, phase: &str) -> Object {
        object(
            "Pod",
            serde_json::json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "namespace": "default"},
                "spec": {"nodeName": node, "containers": [{"name": "c", "image": "nginx"}]},
                "status": {"phase": phase}}),
        )
    }

    fn deployment(ready: i32) -> Object {
        object(
            "Deployment",
            serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": "web", "namespace": "default"},
                "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}},
                "status": {"readyReplicas": ready}}),
        )
    }

    /// An `EndpointSlice` of Service `shop` with endpoints ready or not.
    fn slice(ready: &[bool]) -> Object {
        let endpoints: Vec<serde_json::Value> = ready
            .iter()
            .enumerate()
            .map(|(i, r)| serde_json::json!({"addresses": [format!("10.244.1.{i}")], "conditions": {"ready": r}}))
            .collect();
        object(
            "EndpointSlice",
            serde_json::json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                "metadata": {"name": "shop-abcde", "namespace": "default",
                    "labels": {"kubernetes.io/service-name": "shop"}},
                "addressType": "IPv4", "endpoints": endpoints}),
        )
    }

    fn store(objects: Vec<Object>) -> Store {
        let mut store = Store::new();
        for o in objects {
            let key = podflow_engine::store::key_for(o.kind(), o.namespace(), o.name());
            store.create(&key, o).unwrap();
        }
        store
    }

    #[test]
    fn parses_every_form_and_refuses_the_rest() {
        let cases = [
            "pod web Running",
            "pod dev/web Pending",
            "pod web scheduled",
            "pod web Running on node node-1",
            "pod web Running on a node labelled disktype=ssd",
            "deployment web has 3 ready replicas",
            "deployment web has 1 ready replica",
            "service shop has 2 ready endpoints",
        ];
        let shown = [
            "pod default/web Running",
            "pod dev/web Pending",
            "pod default/web scheduled",
            "pod default/web Running on node node-1",
            "pod default/web Running on a node labelled disktype=ssd",
            "deployment default/web has 3 ready replicas",
            "deployment default/web has 1 ready replica",
            "service default/shop has 2 ready endpoints",
        ];
        for (text, want) in cases.iter().zip(shown) {
            assert_eq!(parse(text).unwrap().to_string(), want);
        }
        for bad in [
            "pod web",
            "pod web Sleeping",
            "deployment web has three ready replicas",
            "pod web Running on a node labelled ssd",
        ] {
            assert!(
                parse(bad).unwrap_err().starts_with("unknown goal check"),
                "{bad}"
            );
        }
    }

    /// Each check unsolved, then solved.
    #[test]
    fn each_check_unsolved_and_solved() {
        let nodes = || vec![node("node-1", "hdd"), node("node-2", "ssd")];
        let cases: Vec<(&str, Vec<Object>, Vec<Object>)> = vec![
            (
                "pod web Running on a node labelled disktype=ssd",
                [nodes(), vec![pod("web", Some("node-1"), "Running")]].concat(),
                [nodes(), vec![pod("web", Some("node-2"), "Running")]].concat(),
            ),
            (
                "pod web Running",
                vec![pod("web", None, "Pending")],
                vec![pod("web", Some("node-1"), "Running")],
            ),
            ("pod web Pending", vec![], vec![pod("web", None, "Pending")]),
            (
                "pod web scheduled",
                vec![pod("web", None, "Pending")],
                vec![pod("web", Some("node-1"), "Pending")],
            ),
            (
                "pod web Running on node node-2",
                [nodes(), vec![pod("web", Some("node-1"), "Running")]].concat(),
                [nodes(), vec![pod("web", Some("node-2"), "Running")]].concat(),
            ),
            (
                "deployment web has 3 ready replicas",
                vec![deployment(2)],
                vec![deployment(3)],
            ),
            (
                "service shop has 2 ready endpoints",
                vec![slice(&[true, false])],
                vec![slice(&[true, true])],
            ),
        ];
        for (text, unsolved, solved) in cases {
            let check = parse(text).unwrap();
            assert!(!check.holds(&store(unsolved)), "unsolved: {text}");
            assert!(check.holds(&store(solved)), "solved: {text}");
        }
    }
}
