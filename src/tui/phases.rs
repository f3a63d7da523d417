//! Phases of the story for `]` and `[`: a new phase starts where the acting
//! component changes (kubectl, the API server with etcd, the scheduler, one
//! node's kubelet with its runtime, ...).

use std::borrow::Cow;

use podflow_engine::trace::{Actor, Record, TraceRecord};

/// Who acts in a record, as a phase sees it: etcd with the API server, a
/// node's actors as their node, an Event as its source.
pub fn actor(record: &TraceRecord) -> String {
    let component: Cow<'_, str> = match &record.body {
        Record::Message { from, .. } => from.name(),
        Record::Stage(stage) => stage.component.name(),
        Record::Response { .. } | Record::Final { .. } => Actor::ApiServer.name(),
        Record::Watch(w) => w.watcher.name(),
        Record::Event(e) => match e.source.as_str() {
            "default-scheduler" => Actor::Scheduler.name(),
            other => Cow::Borrowed(other),
        },
        Record::Log { component, .. } => component.name(),
    };
    match component.split_once('/') {
        Some(("kubelet" | "containerd" | "cni" | "csi", node)) => format!("node/{node}"),
        _ if component == "etcd" => "kube-apiserver".to_owned(),
        _ => component.into_owned(),
    }
}

/// Whether record `i` starts a phase.
fn starts_phase(records: &[TraceRecord], i: usize) -> bool {
    i == 0 || actor(&records[i]) != actor(&records[i - 1])
}

/// The start of the next phase after `from`, if any.
pub fn next(records: &[TraceRecord], from: usize) -> Option<usize> {
    (from + 1..records.len()).find(|&i| starts_phase(records, i))
}

/// The start of the current phase, or of the one before when already at a start.
pub fn previous(records: &[TraceRecord], from: usize) -> usize {
    let from = from.min(records.len().saturating_sub(1));
    let mut i = from;
    while i > 0 && !starts_phase(records, i) {
        i -= 1;
    }
    if i == from && i > 0 {
        i -= 1;
        while i > 0 && !starts_phase(records, i) {
            i -= 1;
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::testing::{find, nginx_timeline};

    #[test]
    fn phases_follow_the_acting_component() {
        let t = nginx_timeline();
        let records = t.records();
        let post = find(&t, "kubectl → kube-apiserver: POST");
        let authn = post + 1;
        assert_eq!(
            next(records, post),
            Some(authn),
            "the API server takes over"
        );
        let answer = next(records, authn).expect("kubectl reads the answer");
        assert!(
            matches!(records[answer].body, Record::Log { .. }),
            "{:?}",
            records[answer].body
        );
        assert_eq!(previous(records, authn + 3), authn);
        assert_eq!(previous(records, authn), post);
        assert_eq!(previous(records, 0), 0);
        assert_eq!(next(records, records.len() - 1), None);
    }
}
