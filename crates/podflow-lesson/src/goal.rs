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
//! pod REF Ready                                 the Pod's Ready condition is True
//! job REF complete                              the Job's Complete condition is True
//! pvc REF Bound                                 the claim's status.phase is Bound
//! user NAME can VERB RESOURCE [in NS]           the API server's authorizers allow it
//! serviceaccount REF can VERB RESOURCE [in NS]  (in the ServiceAccount's namespace by default)
//! request VERB RESOURCE                         a client sent it since the goal began
//! ```
//!
//! REF is `NAME` (namespace `default`) or `NAMESPACE/NAME`. The `can` checks
//! ask what `kubectl auth can-i VERB RESOURCE --as USER -n NS` asks, of the
//! same authorizer chain (privileged groups, Node, RBAC).
//!
//! `request watch pods` ([`request_check`]) is met by what a client sends
//! (`kubectl get pods -w`, podflow's or the real one through `podflow serve`),
//! not by the store: it is read with [`Check::holds_in`].

use std::fmt;

use super::moment::{PHASES, pod_ref};
use super::request_check::{self, RequestCheck};
use podflow_engine::store::{Held, Store, key_for, prefix_for};
use podflow_engine::timeline::View;
use podflow_model::kinds::kind_of;

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
    /// The Pod's `Ready` condition is `True`.
    PodReady { pod: (String, String) },
    /// The Job's `Complete` condition is `True`.
    JobComplete { job: (String, String) },
    /// The claim's `status.phase` is `Bound`.
    ClaimBound { claim: (String, String) },
    /// The authorizers allow `subject` to `verb` `resource` in `namespace`.
    Can {
        subject: Subject,
        verb: String,
        resource: String,
        namespace: String,
    },
}

/// Who a `can` check asks about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// A user, in `system:authenticated`.
    User(String),
    /// A `ServiceAccount` `(namespace, name)`, as its token authenticates it.
    ServiceAccount((String, String)),
}

impl Subject {
    /// The user the authorizers see: a `ServiceAccount` is
    /// `system:serviceaccount:NS:NAME` in `system:serviceaccounts` and
    /// `system:serviceaccounts:NS` (`k8s.io/apiserver/pkg/authentication/serviceaccount`).
    fn user(&self) -> podflow_engine::apiserver::request::UserInfo {
        let authenticated = "system:authenticated".to_owned();
        match self {
            Subject::User(name) => podflow_engine::apiserver::request::UserInfo {
                name: name.clone(),
                groups: vec![authenticated],
            },
            Subject::ServiceAccount((ns, name)) => podflow_engine::apiserver::request::UserInfo {
                name: format!("system:serviceaccount:{ns}:{name}"),
                groups: vec![
                    "system:serviceaccounts".to_owned(),
                    format!("system:serviceaccounts:{ns}"),
                    authenticated,
                ],
            },
        }
    }
}

/// `VERB RESOURCE` and an optional `in NS` after a subject.
fn can(subject: Subject, rest: &[&str], default_ns: &str) -> Option<Check> {
    let (verb, resource, namespace) = match rest {
        [verb, resource] => (verb, resource, default_ns),
        [verb, resource, "in", ns] => (verb, resource, *ns),
        _ => return None,
    };
    Some(Check::Can {
        subject,
        verb: (*verb).to_owned(),
        resource: (*resource).to_owned(),
        namespace: namespace.to_owned(),
    })
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
        ["pod", pod, "Ready"] => Some(Check::PodReady { pod: pod_ref(pod) }),
        ["job", job, "complete"] => Some(Check::JobComplete { job: pod_ref(job) }),
        ["pvc", claim, "Bound"] => Some(Check::ClaimBound {
            claim: pod_ref(claim),
        }),
        ["user", name, "can", rest @ ..] => can(Subject::User((*name).to_owned()), rest, "default"),
        ["serviceaccount", sa, "can", rest @ ..] => {
            let sa = pod_ref(sa);
            let ns = sa.0.clone();
            can(Subject::ServiceAccount(sa), rest, &ns)
        }
        // ---- Checks on what clients sent ----
        words if words.first() == Some(&"request") => {
            request_check::parse(words).map(Check::Request)
        }
        _ => None,
    };
    check.ok_or_else(|| {
        format!(
            "unknown goal check {text:?}: want `pod NAME PHASE`, `pod NAME scheduled`, `pod NAME Ready`, `pod NAME Running on node NODE`, `pod NAME Running on a node labelled KEY=VALUE`, `deployment NAME has N ready replicas`, `service NAME has N ready endpoints`, `job NAME complete`, `pvc NAME Bound`, `user NAME can VERB RESOURCE [in NS]`, `serviceaccount NAME can VERB RESOURCE [in NS]` or `request VERB RESOURCE` (VERB: get list watch create update patch delete)"
        )
    })
}

/// The object of `kind` named `namespace/name`, if stored.
fn stored<O: Held>(
    store: &Store<O>,
    kind: &str,
    (namespace, name): &(String, String),
) -> Option<std::sync::Arc<podflow_model::Object>> {
    store.object(&key_for(kind_of(kind), Some(namespace), name))
}

/// The Pod's phase and node, when it exists.
fn pod<O: Held>(store: &Store<O>, pod: &(String, String)) -> Option<(String, Option<String>)> {
    let object = stored(store, "Pod", pod)?;
    let pod = object.as_pod()?;
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
    pub fn holds<O: Held>(&self, store: &Store<O>) -> bool {
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
                        .object(&key_for(kind_of("Node"), None, &node))
                        .is_some_and(|o| {
                            o.as_node()
                                .and_then(|n| n.metadata.labels.as_ref())
                                .and_then(|l| l.get(key))
                                .is_some_and(|v| v == value)
                        })
            }
            Check::DeploymentReady {
                deployment,
                replicas,
            } => stored(store, "Deployment", deployment).is_some_and(|o| {
                o.get::<k8s_openapi::api::apps::v1::Deployment>()
                    .and_then(|d| d.status.as_ref())
                    .and_then(|s| s.ready_replicas)
                    .is_some_and(|r| r >= *replicas)
            }),
            Check::ServiceEndpoints {
                service: (namespace, name),
                endpoints,
            } => ready_endpoints(store, namespace, name) >= *endpoints,
            Check::PodReady { pod } => stored(store, "Pod", pod).is_some_and(|o| {
                o.as_pod()
                    .and_then(|p| p.status.as_ref())
                    .and_then(|s| s.conditions.as_ref())
                    .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
            }),
            Check::JobComplete { job } => stored(store, "Job", job).is_some_and(|o| {
                o.get::<k8s_openapi::api::batch::v1::Job>()
                    .and_then(|j| j.status.as_ref())
                    .and_then(|s| s.conditions.as_ref())
                    .is_some_and(|c| {
                        c.iter()
                            .any(|c| c.type_ == "Complete" && c.status == "True")
                    })
            }),
            Check::ClaimBound { claim } => stored(store, "PersistentVolumeClaim", claim)
                .is_some_and(|o| {
                    o.get::<k8s_openapi::api::core::v1::PersistentVolumeClaim>()
                        .and_then(|c| c.status.as_ref())
                        .and_then(|s| s.phase.as_deref())
                        .is_some_and(|p| p == "Bound")
                }),
            Check::Can {
                subject,
                verb,
                resource,
                namespace,
            } => allowed(store, subject, verb, resource, namespace),
        }
    }
}

/// Whether the API server's authorizers allow the request, as `auth can-i` asks.
fn allowed<O: Held>(
    store: &Store<O>,
    subject: &Subject,
    verb: &str,
    resource: &str,
    ns: &str,
) -> bool {
    use podflow_engine::apiserver::authz::{Attributes, authorize};
    let (resource, subresource) = match resource.split_once('/') {
        Some((r, s)) => (r, Some(s)),
        None => (resource, None),
    };
    let Some(kind) = podflow_model::kinds::Kind::lookup(resource) else {
        return false;
    };
    let user = subject.user();
    let mut attrs = Attributes::new(&user, verb, kind, Some(ns), "");
    attrs.subresource = subresource;
    authorize(&attrs, store).allowed
}

/// The ready endpoints the `EndpointSlices` of Service `namespace/name` list.
fn ready_endpoints<O: Held>(store: &Store<O>, namespace: &str, name: &str) -> usize {
    use k8s_openapi::api::discovery::v1::EndpointSlice;
    let ready = |slice: &EndpointSlice| {
        slice
            .endpoints
            .iter()
            .flatten()
            .filter(|e| e.conditions.as_ref().and_then(|c| c.ready) == Some(true))
            .count()
    };
    store
        .range(&prefix_for(kind_of("EndpointSlice"), Some(namespace)))
        .map(|(_, entry)| entry.object.load())
        .filter_map(|object| {
            let slice = object.get::<EndpointSlice>()?;
            let labels = slice.metadata.labels.as_ref();
            let service = labels.and_then(|l| l.get("kubernetes.io/service-name"));
            (service.is_some_and(|n| n == name)).then(|| ready(slice))
        })
        .sum()
}

/// A checked object's `NAMESPACE/NAME`, as both languages write it.
fn reference((namespace, name): &(String, String)) -> String {
    format!("{namespace}/{name}")
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = reference;
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
            Check::PodReady { pod } => write!(f, "pod {} Ready", r(pod)),
            Check::JobComplete { job } => write!(f, "job {} complete", r(job)),
            Check::ClaimBound { claim } => write!(f, "pvc {} Bound", r(claim)),
            Check::Can {
                subject,
                verb,
                resource,
                namespace,
            } => {
                match subject {
                    Subject::User(name) => write!(f, "user {name}")?,
                    Subject::ServiceAccount(sa) => write!(f, "serviceaccount {}", r(sa))?,
                }
                write!(f, " can {verb} {resource} in {namespace}")
            }
        }
    }
}

impl Check {
    /// The check in Chinese, for a lesson shown in Chinese: the same facts
    /// as its English form ([`fmt::Display`]), the names, phases, verbs and
    /// resources kept as Kubernetes writes them.
    pub fn in_chinese(&self) -> String {
        let r = reference;
        match self {
            Check::PodPhase { pod, phase } => format!("Pod {} 处于 {phase} 阶段", r(pod)),
            Check::PodScheduled { pod } => format!("Pod {} 已被调度", r(pod)),
            Check::PodOnNode { pod, node } => {
                format!("Pod {} 在节点 {node} 上 Running", r(pod))
            }
            Check::PodOnLabelledNode { pod, key, value } => {
                format!("Pod {} 在带有标签 {key}={value} 的节点上 Running", r(pod))
            }
            Check::DeploymentReady {
                deployment,
                replicas,
            } => format!("Deployment {} 有 {replicas} 个就绪副本", r(deployment)),
            Check::ServiceEndpoints { service, endpoints } => {
                format!("Service {} 有 {endpoints} 个就绪端点", r(service))
            }
            Check::Request(request) => {
                format!("有客户端发送了 {} {} 请求", request.verb, request.resource)
            }
            Check::PodReady { pod } => format!("Pod {} 已就绪（Ready）", r(pod)),
            Check::JobComplete { job } => format!("Job {} 已完成（Complete）", r(job)),
            Check::ClaimBound { claim } => format!("PVC {} 已绑定（Bound）", r(claim)),
            Check::Can {
                subject,
                verb,
                resource,
                namespace,
            } => {
                let who = match subject {
                    Subject::User(name) => format!("用户 {name}"),
                    Subject::ServiceAccount(sa) => format!("ServiceAccount {}", r(sa)),
                };
                format!("{who} 可以在命名空间 {namespace} 中对 {resource} 执行 {verb}")
            }
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

    fn ready_pod(ready: &str) -> Object {
        object(
            "Pod",
            serde_json::json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "web", "namespace": "default"},
                "spec": {"nodeName": "node-1", "containers": [{"name": "c", "image": "nginx"}]},
                "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": ready}]}}),
        )
    }

    fn job(complete: &str) -> Object {
        object(
            "Job",
            serde_json::json!({"apiVersion": "batch/v1", "kind": "Job",
                "metadata": {"name": "report", "namespace": "dev"},
                "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}},
                "status": {"conditions": [{"type": "Complete", "status": complete}]}}),
        )
    }

    fn claim(phase: &str) -> Object {
        object(
            "PersistentVolumeClaim",
            serde_json::json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                "metadata": {"name": "data", "namespace": "default"},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
                "status": {"phase": phase}}),
        )
    }

    /// A Role in `dev` allowing `verbs` on pods, bound to jane and `ServiceAccount` dev/ci.
    fn rbac(verbs: &[&str]) -> Vec<Object> {
        vec![
            object(
                "Role",
                serde_json::json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                    "metadata": {"name": "reader", "namespace": "dev"},
                    "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": verbs}]}),
            ),
            object(
                "RoleBinding",
                serde_json::json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                    "metadata": {"name": "readers", "namespace": "dev"},
                    "subjects": [{"kind": "User", "name": "jane", "apiGroup": "rbac.authorization.k8s.io"},
                                 {"kind": "ServiceAccount", "name": "ci", "namespace": "dev"}],
                    "roleRef": {"kind": "Role", "name": "reader", "apiGroup": "rbac.authorization.k8s.io"}}),
            ),
        ]
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
    fn parses_every_form_and_shows_it_in_both_languages() {
        // What a lesson writes, then the check as the lesson pane shows it
        // in English and in Chinese.
        let cases = [
            (
                "pod web Running",
                "pod default/web Running",
                "Pod default/web 处于 Running 阶段",
            ),
            (
                "pod dev/web Pending",
                "pod dev/web Pending",
                "Pod dev/web 处于 Pending 阶段",
            ),
            (
                "pod web scheduled",
                "pod default/web scheduled",
                "Pod default/web 已被调度",
            ),
            (
                "pod web Running on node node-1",
                "pod default/web Running on node node-1",
                "Pod default/web 在节点 node-1 上 Running",
            ),
            (
                "pod web Running on a node labelled disktype=ssd",
                "pod default/web Running on a node labelled disktype=ssd",
                "Pod default/web 在带有标签 disktype=ssd 的节点上 Running",
            ),
            (
                "deployment web has 3 ready replicas",
                "deployment default/web has 3 ready replicas",
                "Deployment default/web 有 3 个就绪副本",
            ),
            (
                "deployment web has 1 ready replica",
                "deployment default/web has 1 ready replica",
                "Deployment default/web 有 1 个就绪副本",
            ),
            (
                "service shop has 2 ready endpoints",
                "service default/shop has 2 ready endpoints",
                "Service default/shop 有 2 个就绪端点",
            ),
            (
                "pod web Ready",
                "pod default/web Ready",
                "Pod default/web 已就绪（Ready）",
            ),
            (
                "job dev/report complete",
                "job dev/report complete",
                "Job dev/report 已完成（Complete）",
            ),
            (
                "pvc data Bound",
                "pvc default/data Bound",
                "PVC default/data 已绑定（Bound）",
            ),
            (
                "user jane can list pods",
                "user jane can list pods in default",
                "用户 jane 可以在命名空间 default 中对 pods 执行 list",
            ),
            (
                "user jane can get pods/log in dev",
                "user jane can get pods/log in dev",
                "用户 jane 可以在命名空间 dev 中对 pods/log 执行 get",
            ),
            (
                "serviceaccount dev/ci can list pods",
                "serviceaccount dev/ci can list pods in dev",
                "ServiceAccount dev/ci 可以在命名空间 dev 中对 pods 执行 list",
            ),
            (
                "serviceaccount dev/ci can list pods in default",
                "serviceaccount dev/ci can list pods in default",
                "ServiceAccount dev/ci 可以在命名空间 default 中对 pods 执行 list",
            ),
            (
                "request watch pods",
                "request watch pods",
                "有客户端发送了 watch pods 请求",
            ),
        ];
        for (text, english, chinese) in cases {
            let check = parse(text).unwrap();
            assert_eq!(check.to_string(), english, "{text}");
            assert_eq!(check.in_chinese(), chinese, "{text}");
        }
    }

    #[test]
    fn refuses_what_is_not_a_check() {
        for bad in [
            "pod web",
            "pod web Sleeping",
            "deployment web has three ready replicas",
            "pod web Running on a node labelled ssd",
            "user jane can list",
            "user jane can list pods at dev",
            "pvc data Pending",
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
            (
                "pod web Ready",
                vec![ready_pod("False")],
                vec![ready_pod("True")],
            ),
            (
                "job dev/report complete",
                vec![job("False")],
                vec![job("True")],
            ),
            (
                "pvc data Bound",
                vec![claim("Pending")],
                vec![claim("Bound")],
            ),
            // As `kubectl auth can-i list pods --as jane -n dev` answers.
            (
                "user jane can list pods in dev",
                rbac(&["get", "watch"]),
                rbac(&["get", "list", "watch"]),
            ),
            (
                "serviceaccount dev/ci can list pods",
                rbac(&["get"]),
                rbac(&["list"]),
            ),
        ];
        for (text, unsolved, solved) in cases {
            let check = parse(text).unwrap();
            assert!(!check.holds(&store(unsolved)), "unsolved: {text}");
            assert!(check.holds(&store(solved)), "solved: {text}");
        }
    }
}
