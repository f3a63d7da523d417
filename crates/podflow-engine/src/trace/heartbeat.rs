//! Heartbeats: the engine events that only renew a node's Lease and tell the
//! watchers so (`pkg/kubelet/nodelease`, every 10 s per node). They are most
//! of a long run's records — a quiet half hour on three nodes is about 700
//! renewals and 11,000 records — so the views fold a run of them into one
//! step. An event is a heartbeat when something in it concerns a Lease and
//! nothing in it concerns anything else.

use super::{Record, TraceRecord};

/// Whether the records of one engine event are a heartbeat.
pub fn is_heartbeat(event: &[TraceRecord]) -> bool {
    let mut lease = false;
    for record in event {
        match concerns_lease(&record.body) {
            Some(true) => lease = true,
            Some(false) => return false,
            None => {}
        }
    }
    lease
}

/// Whether a record concerns a Lease (`Some(true)`), something else
/// (`Some(false)`), or says nothing of what it concerns (`None`): the API
/// server's stages and answers, which a request's arrow or etcd write in
/// the same event tells.
fn concerns_lease(record: &Record) -> Option<bool> {
    match record {
        Record::Message { label, .. } => Some(label.contains("/leases/")),
        Record::Watch(watch) => Some(watch.resource == "leases"),
        Record::Stage(_) | Record::Response { .. } => None,
        Record::Event(_) | Record::Log { .. } | Record::Final { .. } => Some(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Actor, Outcome, Stage, StageName, WatchRecord};

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
        at(Record::Watch(Box::new(WatchRecord {
            watcher: Actor::ControllerManager,
            event_type: "MODIFIED".into(),
            resource: resource.into(),
            namespace: Some("kube-node-lease".into()),
            name: "node-1".into(),
            resource_version: "85".into(),
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
