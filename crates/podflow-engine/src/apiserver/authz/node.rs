//! The Node authorizer (`plugin/pkg/auth/authorizer/node/node_authorizer.go`,
//! with `AuthorizeNodeWithSelectors` on, as in current releases).
//!
//! A kubelet (`system:node:NAME` in group `system:nodes`) may read the Pods
//! bound to its node (a list or watch only with the `spec.nodeName=NAME` field
//! selector), create and delete (mirror) Pods, update and patch any Pod's
//! status, create and update its own Node and any node's status, and read its
//! own Node; everything else it may do is the static `system:node` rule set.
//! Which pod or node it may write is `NodeRestriction` admission's business, not
//! the authorizer's: node-1 may update the status of a Pod bound to node-2 here,
//! and that admission plugin then refuses it with `node "node-1" can only update
//! pod status for pods with spec.nodeName set to itself`.
//!
//! Simplification: upstream keeps a graph of Pods, Secrets, `ConfigMaps`, PVCs,
//! PVs, `ServiceAccounts` and `ResourceClaims` fed by informers. Here the graph is
//! read directly from the cluster: an object is related to a node when a Pod
//! bound to that node names it (volumes, projected sources, `env`, `envFrom`,
//! `imagePullSecrets`, `serviceAccountName`, claim names). `PersistentVolumes`,
//! `ResourceClaims` and `VolumeAttachments` have no edges (podflow serves none) and
//! `ResourceSlices` fall to the static rules.

use k8s_openapi::api::core::v1::{Container, EnvFromSource, EnvVar, Pod, PodSpec};

use super::{Attributes, field_selector_value, go_quote, rbac};
use crate::apiserver::ClusterView;
use crate::apiserver::bootstrap_policy::node_rules;
use podflow_model::kinds::kind_of;

/// What the Node authorizer said.
pub(super) struct Outcome {
    pub allowed: bool,
    pub reason: String,
}

fn allow() -> Outcome {
    Outcome {
        allowed: true,
        reason: String::new(),
    }
}

fn no_opinion(reason: impl Into<String>) -> Outcome {
    Outcome {
        allowed: false,
        reason: reason.into(),
    }
}

/// `NodeAuthorizer.Authorize`.
pub(super) fn authorize(attrs: &Attributes, cluster: &dyn ClusterView) -> Outcome {
    let Some(node) = attrs.user.node_name().map(str::to_owned) else {
        return no_opinion("");
    };
    if node.is_empty() {
        return no_opinion(format!(
            "unknown node for user {}",
            go_quote(&attrs.user.name)
        ));
    }
    let graph = Graph {
        node: &node,
        cluster,
    };
    match (attrs.api_group, attrs.resource) {
        ("", "secrets") => read_namespaced_object(&graph, Vertex::Secret, attrs),
        ("", "configmaps") => read_namespaced_object(&graph, Vertex::ConfigMap, attrs),
        ("", "persistentvolumeclaims") if attrs.subresource == Some("status") => {
            status_update(&graph, Vertex::Pvc, attrs)
        }
        ("", "persistentvolumeclaims") => authorize_get(&graph, Vertex::Pvc, attrs),
        ("", "persistentvolumes")
        | ("resource.k8s.io", "resourceclaims")
        | ("storage.k8s.io", "volumeattachments") => {
            authorize_get(&graph, Vertex::Unrelated, attrs)
        }
        ("", "serviceaccounts") => create_token(&graph, attrs),
        ("coordination.k8s.io", "leases") => lease(&node, attrs),
        ("storage.k8s.io", "csinodes") => csi_node(&node, attrs),
        ("", "nodes") => authorize_node(&node, attrs),
        ("", "pods") => authorize_pod(&graph, attrs),
        _ if node_rules().iter().any(|r| rbac::rule_allows(attrs, r)) => allow(),
        _ => no_opinion(""),
    }
}

/// `authorizeStatusUpdate`.
fn status_update(graph: &Graph, vertex: Vertex, attrs: &Attributes) -> Outcome {
    if !matches!(attrs.verb, "update" | "patch") {
        return no_opinion("can only get/update/patch this type");
    }
    if attrs.subresource != Some("status") {
        return no_opinion("can only update status subresource");
    }
    related(graph, vertex, attrs)
}

/// `authorizeGet`.
fn authorize_get(graph: &Graph, vertex: Vertex, attrs: &Attributes) -> Outcome {
    if attrs.verb != "get" {
        return no_opinion("can only get individual resources of this type");
    }
    if attrs.subresource.is_some_and(|s| !s.is_empty()) {
        return no_opinion("cannot get subresource");
    }
    related(graph, vertex, attrs)
}

/// `authorizeReadNamespacedObject`.
fn read_namespaced_object(graph: &Graph, vertex: Vertex, attrs: &Attributes) -> Outcome {
    if !matches!(attrs.verb, "get" | "list" | "watch") {
        return no_opinion("can only read resources of this type");
    }
    if attrs.subresource.is_some_and(|s| !s.is_empty()) {
        return no_opinion("cannot read subresource");
    }
    if attrs.namespace().is_empty() {
        return no_opinion("can only read namespaced object of this type");
    }
    related(graph, vertex, attrs)
}

/// `authorize`: a named object with a path to the node.
fn related(graph: &Graph, vertex: Vertex, attrs: &Attributes) -> Outcome {
    if attrs.name.is_empty() {
        return no_opinion("No Object name found");
    }
    if graph.has_path(vertex, attrs.namespace(), attrs.name) {
        allow()
    } else {
        no_opinion(format!(
            "no relationship found between node '{}' and this object",
            graph.node
        ))
    }
}

/// `authorizeCreateToken`.
fn create_token(graph: &Graph, attrs: &Attributes) -> Outcome {
    if attrs.verb != "create" || attrs.name.is_empty() {
        return no_opinion("can only create tokens for individual service accounts");
    }
    if attrs.subresource != Some("token") {
        return no_opinion("can only create token subresource of serviceaccount");
    }
    if graph.has_path(Vertex::ServiceAccount, attrs.namespace(), attrs.name) {
        allow()
    } else {
        no_opinion(format!(
            "no relationship found between node '{}' and this object",
            graph.node
        ))
    }
}

/// `authorizeLease`.
fn lease(node: &str, attrs: &Attributes) -> Outcome {
    if !matches!(attrs.verb, "get" | "create" | "update" | "patch" | "delete") {
        return no_opinion("can only get, create, update, patch, or delete a node lease");
    }
    if attrs.namespace() != "kube-node-lease" {
        return no_opinion(format!(
            "can only access leases in the {} system namespace",
            go_quote("kube-node-lease")
        ));
    }
    if attrs.verb != "create" && attrs.name != node {
        return no_opinion("can only access node lease with the same name as the requesting node");
    }
    allow()
}

/// `authorizeCSINode`.
fn csi_node(node: &str, attrs: &Attributes) -> Outcome {
    if !matches!(attrs.verb, "get" | "create" | "update" | "patch" | "delete") {
        return no_opinion("can only get, create, update, patch, or delete a CSINode");
    }
    if attrs.subresource.is_some_and(|s| !s.is_empty()) {
        return no_opinion("cannot authorize CSINode subresources");
    }
    if attrs.verb != "create" && attrs.name != node {
        return no_opinion("can only access CSINode with the same name as the requesting node");
    }
    allow()
}

/// `authorizeNode`.
fn authorize_node(node: &str, attrs: &Attributes) -> Outcome {
    match (attrs.subresource.unwrap_or_default(), attrs.verb) {
        ("", "create" | "update" | "patch") | ("status", "update" | "patch") => allow(),
        ("", "get" | "list" | "watch") => {
            if attrs.name == node {
                allow()
            } else if attrs.name.is_empty() {
                no_opinion(format!(
                    "node '{node}' cannot read all nodes, only its own Node object"
                ))
            } else {
                no_opinion(format!(
                    "node '{node}' cannot read '{}', only its own Node object",
                    attrs.name
                ))
            }
        }
        _ => no_opinion(""),
    }
}

/// `authorizePod`.
fn authorize_pod(graph: &Graph, attrs: &Attributes) -> Outcome {
    match (attrs.subresource.unwrap_or_default(), attrs.verb) {
        ("", "get") => authorize_get(graph, Vertex::Pod, attrs),
        ("", "list" | "watch") => {
            let scoped = attrs
                .field_selector
                .and_then(|s| field_selector_value(s, "spec.nodeName"))
                .is_some_and(|n| n == graph.node);
            if scoped {
                allow()
            } else if !attrs.name.is_empty() {
                related(graph, Vertex::Pod, attrs)
            } else {
                no_opinion("can only list/watch pods with spec.nodeName field selector")
            }
        }
        ("", "create" | "delete") | ("status", "update" | "patch") | ("eviction", "create") => {
            allow()
        }
        _ => no_opinion(""),
    }
}

/// The kinds of vertex the authorizer asks about.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Vertex {
    Pod,
    Secret,
    ConfigMap,
    Pvc,
    ServiceAccount,
    /// A kind podflow does not serve: nothing relates to it.
    Unrelated,
}

/// The node authorizer's graph, read from the cluster as it stands.
struct Graph<'a> {
    node: &'a str,
    cluster: &'a dyn ClusterView,
}

impl Graph<'_> {
    /// `hasPathFrom`: whether a Pod bound to the node is, or names, the object.
    fn has_path(&self, vertex: Vertex, namespace: &str, name: &str) -> bool {
        if vertex == Vertex::Unrelated {
            return false;
        }
        self.cluster
            .list(kind_of("Pod"), Some(namespace))
            .iter()
            .filter_map(|o| o.as_pod())
            .filter(|pod| pod.spec.as_ref().and_then(|s| s.node_name.as_deref()) == Some(self.node))
            .any(|pod| match vertex {
                Vertex::Pod => pod.metadata.name.as_deref() == Some(name),
                other => references(pod, other).iter().any(|r| r == name),
            })
    }
}

/// The names of objects of one kind that a Pod refers to (`graph_populator.go`, `AddPod`).
fn references(pod: &Pod, vertex: Vertex) -> Vec<String> {
    let Some(spec) = pod.spec.as_ref() else {
        return Vec::new();
    };
    match vertex {
        Vertex::ServiceAccount => spec.service_account_name.iter().cloned().collect(),
        Vertex::Pvc => pvc_names(pod, spec),
        Vertex::Secret | Vertex::ConfigMap => config_names(spec, vertex == Vertex::Secret),
        Vertex::Pod | Vertex::Unrelated => Vec::new(),
    }
}

fn pvc_names(pod: &Pod, spec: &PodSpec) -> Vec<String> {
    let pod_name = pod.metadata.name.as_deref().unwrap_or_default();
    spec.volumes
        .iter()
        .flatten()
        .filter_map(|v| {
            if let Some(pvc) = &v.persistent_volume_claim {
                Some(pvc.claim_name.clone())
            } else {
                v.ephemeral
                    .as_ref()
                    .map(|_| format!("{pod_name}-{}", v.name))
            }
        })
        .collect()
}

/// Secret (`secrets` true) or `ConfigMap` names in volumes, projections,
/// environment and image pull secrets.
fn config_names(spec: &PodSpec, secrets: bool) -> Vec<String> {
    let mut names = Vec::new();
    for volume in spec.volumes.iter().flatten() {
        if secrets {
            names.extend(volume.secret.as_ref().and_then(|s| s.secret_name.clone()));
        } else {
            names.extend(volume.config_map.as_ref().map(|c| c.name.clone()));
        }
        for source in volume
            .projected
            .iter()
            .flat_map(|p| p.sources.iter().flatten())
        {
            if secrets {
                names.extend(source.secret.as_ref().map(|s| s.name.clone()));
            } else {
                names.extend(source.config_map.as_ref().map(|c| c.name.clone()));
            }
        }
    }
    let containers = spec
        .containers
        .iter()
        .chain(spec.init_containers.iter().flatten());
    for Container { env, env_from, .. } in containers {
        env_names(env.as_deref(), env_from.as_deref(), secrets, &mut names);
    }
    for ephemeral in spec.ephemeral_containers.iter().flatten() {
        env_names(
            ephemeral.env.as_deref(),
            ephemeral.env_from.as_deref(),
            secrets,
            &mut names,
        );
    }
    if secrets {
        names.extend(
            spec.image_pull_secrets
                .iter()
                .flatten()
                .map(|s| s.name.clone()),
        );
    }
    names
}

fn env_names(
    env: Option<&[EnvVar]>,
    env_from: Option<&[EnvFromSource]>,
    secrets: bool,
    names: &mut Vec<String>,
) {
    for var in env.unwrap_or_default() {
        let Some(from) = &var.value_from else {
            continue;
        };
        if secrets {
            names.extend(from.secret_key_ref.as_ref().map(|s| s.name.clone()));
        } else {
            names.extend(from.config_map_key_ref.as_ref().map(|c| c.name.clone()));
        }
    }
    for source in env_from.unwrap_or_default() {
        if secrets {
            names.extend(source.secret_ref.as_ref().map(|s| s.name.clone()));
        } else {
            names.extend(source.config_map_ref.as_ref().map(|c| c.name.clone()));
        }
    }
}
