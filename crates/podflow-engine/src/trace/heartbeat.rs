//! Heartbeats: the engine events that only renew a node's Lease
//! (`pkg/kubelet/nodelease`, every 10 s per node) or report its status
//! (the kubelet's `updateNodeStatus`), and tell the watchers so — the two
//! forms of node heartbeat the docs name (concepts/architecture/nodes.md,
//! "Heartbeats"). They are most of a long run's records — a quiet half hour
//! on three nodes is about 700 renewals and 11,000 records — so the views
//! fold a run of them into one step. An event is a heartbeat when something
//! in it is a heartbeat and nothing in it concerns anything else.

use super::{Actor, Record, TraceRecord};

/// Whether the records of one engine event are a heartbeat.
pub fn is_heartbeat(event: &[TraceRecord]) -> bool {
    let mut heartbeat = false;
    for record in event {
        match concerns_heartbeat(&record.body, event) {
            Some(true) => heartbeat = true,
            Some(false) => return false,
            None => {}
        }
    }
    heartbeat
}

/// Whether a record is part of a heartbeat (`Some(true)`), concerns
/// something else (`Some(false)`), or says nothing of what it concerns
/// (`None`): the API server's stages and answers, which the request's arrow
/// or etcd write in the same event tells.
fn concerns_heartbeat(record: &Record, event: &[TraceRecord]) -> Option<bool> {
    match record {
        Record::Message { from, label, .. } => Some(
            label.contains("/leases/")
                || is_node_status_report(from, label)
                || writes_node_for_its_kubelet(label, event),
        ),
        Record::Watch(watch) => Some(
            watch.resource == "leases"
                || (watch.resource == "nodes" && watch.event_type == "MODIFIED"),
        ),
        Record::Stage(_) | Record::Response { .. } => None,
        Record::Event(_) | Record::Log { .. } | Record::Final { .. } => Some(false),
    }
}

/// The API server's write of a Node in answer to that node's own kubelet:
/// the kubelet reporting its status (the request's arrow came an event
/// before).
fn writes_node_for_its_kubelet(label: &str, event: &[TraceRecord]) -> bool {
    let Some((_, node)) = label.split_once(" /registry/nodes/") else {
        return false;
    };
    event.iter().any(
        |r| matches!(&r.body, Record::Response { to: Actor::Kubelet(name), .. } if &**name == node),
    )
}

/// A kubelet's request that writes its own Node's status.
pub fn is_node_status_report(from: &Actor, label: &str) -> bool {
    matches!(from, Actor::Kubelet(_)) && label.contains("/nodes/") && label.ends_with("/status")
}

/// A kubelet's renewal of its Lease (the write; the read before it is not one).
pub fn is_lease_renewal(label: &str) -> bool {
    label.starts_with("PUT ") && label.contains("/leases/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Outcome, Stage, StageName, WatchRecord};

    fn at(body: Record) -> TraceRecord {
        TraceRecord {
            seq: 0,
            t_ms: 0,
            body,
        }
    }

    fn message(label: &str) -> TraceRecord {
        at(Record::message(Actor::ApiServer, Actor::Etcd, label))
    }

    fn watch(resource: &str) -> TraceRecord {
        watch_of("MODIFIED", resource)
    }

    fn watch_of(event_type: &str, resource: &str) -> TraceRecord {
        at(Record::Watch(Box::new(WatchRecord {
            watcher: Actor::ControllerManager,
            event_type: event_type.into(),
            resource: resource.into(),
            namespace: Some("kube-node-lease".into()),
            name: "node-1".into(),
            resource_version: "85".into(),
            fields: Vec::new(),
        })))
    }

    fn stage() -> TraceRecord {
        at(Stage::new(
            Actor::ApiServer,
            StageName::Authentication,
            Outcome::Allow,
            "user",
        )
        .into())
    }

    #[test]
    fn a_lease_renewal_and_its_deliveries_are_heartbeats() {
        let renewal = [
            stage(),
            message("txn put /registry/leases/kube-node-lease/node-1"),
            stage(),
        ];
        assert!(is_heartbeat(&renewal));
        assert!(is_heartbeat(&[message(
            "PUT /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1"
        )]));
        assert!(is_heartbeat(&[watch("leases"), stage()]));
    }

    #[test]
    fn a_kubelets_node_status_report_and_its_deliveries_are_heartbeats() {
        let node_3 = Actor::Kubelet("node-3".into());
        let report = [
            at(Record::message(
                node_3.clone(),
                Actor::ApiServer,
                "PATCH /api/v1/nodes/node-3/status",
            )),
            watch("leases"),
        ];
        assert!(is_heartbeat(&report));
        assert!(is_heartbeat(&[watch("nodes"), stage()]));
        // A controller's write of a Node's status (NotReady, a taint) is not.
        assert!(!is_heartbeat(&[
            at(Record::message(
                Actor::ControllerManager,
                Actor::ApiServer,
                "PATCH /api/v1/nodes/node-3/status",
            )),
            message("txn put /registry/nodes/node-3"),
        ]));
        assert!(!is_heartbeat(&[watch_of("ADDED", "nodes")]));
        assert!(!is_heartbeat(&[message("txn put /registry/nodes/node-3")]));
        // The API server's half, an event after the kubelet's arrow.
        let answer = |to: Actor| {
            at(Record::Response {
                to,
                code: 200,
                message: "OK".into(),
                request: std::num::NonZeroU64::new(16).unwrap(),
            })
        };
        let write = message("txn put /registry/nodes/node-3");
        assert!(is_heartbeat(&[
            stage(),
            write.clone(),
            answer(node_3.clone())
        ]));
        assert!(!is_heartbeat(&[
            stage(),
            write.clone(),
            answer(Actor::ControllerManager)
        ]));
        assert!(!is_heartbeat(&[
            write,
            answer(Actor::Kubelet("node-1".into()))
        ]));
    }

    #[test]
    fn anything_else_in_the_event_keeps_it_unfolded() {
        assert!(!is_heartbeat(&[stage()]), "stages alone say nothing");
        assert!(!is_heartbeat(&[watch("leases"), watch("pods"),]));
        assert!(!is_heartbeat(&[
            stage(),
            message("txn put /registry/pods/default/nginx"),
        ]));
        assert!(!is_heartbeat(&[]));
    }
}
