//! `kubectl describe` (`staging/src/k8s.io/kubectl/pkg/describe/describe.go`)
//! as pure printers: from an object and what the describer fetches beside it
//! ([`Related`]) to the lines kubectl prints. Pods in [`pod`], Nodes in
//! [`node`], Deployments in [`deployment`], replica sets in [`replica_set`],
//! Services in [`service`], Endpoints in [`endpoints`]; any other kind as the generic describer's header
//! and Events. The alignment and shared blocks are in [`sections`].

pub mod containers;
pub mod deployment;
pub mod endpoints;
pub mod node;
pub mod pod;
pub mod replica_set;
pub mod sections;
pub mod service;

use std::sync::Arc;

use crate::clock::SimTime;
use podflow_model::Object;
use sections::{LEVEL_0, Writer, annotations, events, labels};

/// What kubectl's describers read besides the object. Each describer keeps
/// what concerns its object, so a caller may pass more.
#[derive(Debug, Clone, Default)]
pub struct Related {
    /// The core/v1 Events about the object, as stored (`searchEvents`).
    pub events: Vec<Arc<Object>>,
    /// A Deployment's `ReplicaSets`: those it controls are kept.
    pub replica_sets: Vec<Arc<Object>>,
    /// A Node's Pods (those bound to it and not finished are listed), or a
    /// `ReplicaSet`'s (those it controls are counted by phase).
    pub pods: Vec<Arc<Object>>,
    /// A Service's `EndpointSlices`: those labelled with its name are read.
    pub endpoint_slices: Vec<Arc<Object>>,
    /// A Node's Lease in `kube-node-lease`; without it the Lease section is left out.
    pub lease: Option<Arc<Object>>,
}

/// The lines `kubectl describe` prints for `object`, ages counted at `now`.
pub fn describe(object: &Object, related: &Related, now: SimTime) -> Vec<String> {
    match object {
        Object::Pod(pod) => pod::describe(pod, related, now),
        Object::Node(node) => node::describe(node, related, now),
        Object::Deployment(deployment) => deployment::describe(deployment, related, now),
        Object::ReplicaSet(rs) => replica_set::describe(rs, related, now),
        Object::Service(service) => service::describe(service, related, now),
        Object::Endpoints(e) => endpoints::describe(e, related, now),
        other => generic(other, related, now),
    }
}

/// `genericDescriber`'s header (Name, Namespace, Labels, Annotations) and
/// Events; the object's other fields, which kubectl prints after the header,
/// are left out.
fn generic(object: &Object, related: &Related, now: SimTime) -> Vec<String> {
    let mut w = Writer::new();
    let meta = object.metadata();
    w.field(LEVEL_0, "Name", object.name());
    w.field(LEVEL_0, "Namespace", object.namespace().unwrap_or_default());
    labels(&mut w, "Labels", meta.labels.as_ref());
    annotations(&mut w, "Annotations", meta.annotations.as_ref());
    events(&mut w, &related.events, now);
    w.finish()
}

#[cfg(test)]
pub(super) mod testing {
    //! Objects for the describers' tests.

    use std::sync::Arc;

    use serde_json::Value;

    use crate::clock::EPOCH_UNIX_SECONDS;
    use podflow_model::Object;
    use podflow_model::kinds::kind_of;

    /// RFC 3339 for `secs` seconds after the simulation's epoch (2026-11-30T02:20:30Z).
    pub fn at(secs: i64) -> String {
        k8s_openapi::jiff::Timestamp::from_second(EPOCH_UNIX_SECONDS + secs)
            .unwrap()
            .to_string()
    }

    /// An object of `kind` from JSON.
    pub fn object(kind: &str, value: Value) -> Arc<Object> {
        Arc::new(Object::from_json(kind_of(kind), value).unwrap())
    }

    /// A core/v1 Event about `name`, first and last seen at `secs`.
    pub fn event(name: &str, reason: &str, source: &str, secs: i64, message: &str) -> Arc<Object> {
        object(
            "Event",
            serde_json::json!({
                "metadata": {"name": format!("{name}.{secs}"), "namespace": "default"},
                "involvedObject": {"name": name},
                "type": "Normal", "reason": reason, "message": message,
                "source": {"component": source}, "count": 1,
                "firstTimestamp": at(secs), "lastTimestamp": at(secs),
            }),
        )
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::testing::{at, event, object};
    use super::*;

    #[test]
    fn other_kinds_get_the_generic_describers_header_and_events() {
        // genericDescriber.Describe, without printUnstructuredContent.
        let map = object(
            "ConfigMap",
            json!({"metadata": {"name": "settings", "namespace": "default",
                "labels": {"app": "web"}, "creationTimestamp": at(0)}, "data": {"a": "b"}}),
        );
        let now = SimTime(60_000);
        assert_eq!(
            describe(&map, &Related::default(), now),
            [
                "Name:         settings",
                "Namespace:    default",
                "Labels:       app=web",
                "Annotations:  <none>",
                "Events:       <none>",
            ]
        );
        let related = Related {
            events: vec![event("settings", "Updated", "someone", 30, "changed")],
            ..Related::default()
        };
        let namespace = object("Namespace", json!({"metadata": {"name": "team-a"}}));
        assert_eq!(
            describe(&namespace, &related, now),
            [
                "Name:         team-a",
                "Namespace:    ",
                "Labels:       <none>",
                "Annotations:  <none>",
                "Events:",
                "  Type    Reason   Age   From     Message",
                "  ----    ------   ----  ----     -------",
                "  Normal  Updated  30s   someone  changed",
            ]
        );
    }
}
