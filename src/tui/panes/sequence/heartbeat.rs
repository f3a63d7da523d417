//! Heartbeats in the sequence pane: a node Lease's renewal is real traffic
//! (the kubelet's GET/PUT, the API server's etcd read or write, the answer,
//! the watch event to kube-controller-manager) but routine, so a run of it
//! between two arrows of the story is folded into one dim note,
//! `node-1 renewed its Lease ×3` (the trace keeps every record).

use std::collections::BTreeMap;

use podflow_engine::trace::{Actor, Record, TraceRecord, request_answered};

/// How far back a kubelet's answer looks for the request it answers.
const LOOK_BACK: usize = 400;

/// The node whose Lease heartbeat `records[i]` belongs to, and whether it is
/// the renewal itself (the kubelet's `PUT`).
pub fn heartbeat_of(records: &[TraceRecord], i: usize) -> Option<(String, bool)> {
    match &records[i].body {
        Record::Message { from, label, .. } => {
            if let Actor::Kubelet(node) = from
                && label.contains("/leases/")
            {
                return Some((node.to_string(), label.starts_with("PUT ")));
            }
            let (_, key) = label.split_once("/registry/leases/")?;
            let node = key.rsplit('/').next()?;
            (*from == Actor::ApiServer).then(|| (node.to_owned(), false))
        }
        Record::Watch(w) if w.resource == "leases" => Some((w.name.clone(), false)),
        Record::Response { to, .. } => {
            let Actor::Kubelet(node) = to else {
                return None;
            };
            let request = request_answered(records, i, LOOK_BACK)?;
            let lease = matches!(&request.body, Record::Message { label, .. } if label.contains("/leases/"));
            lease.then(|| (node.to_string(), false))
        }
        _ => None,
    }
}

/// The note of a run of heartbeats: renewals per node.
pub fn note(renewals: &BTreeMap<String, usize>) -> String {
    let times = |n: usize| {
        if n > 1 {
            format!(" ×{n}")
        } else {
            String::new()
        }
    };
    let renewed: Vec<(&String, usize)> = renewals
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(node, n)| (node, *n))
        .collect();
    match renewed.as_slice() {
        [] => {
            let nodes: Vec<&str> = renewals.keys().map(String::as_str).collect();
            format!("♥ {} Lease heartbeat", nodes.join(", "))
        }
        [(node, n)] => format!("♥ {node} renewed its Lease{}", times(*n)),
        many => {
            let all_same = many.iter().all(|(_, n)| *n == many[0].1);
            if all_same {
                let nodes: Vec<&str> = many.iter().map(|(n, _)| n.as_str()).collect();
                format!(
                    "♥ {} renewed their Leases{}",
                    nodes.join(", "),
                    times(many[0].1)
                )
            } else {
                let each: Vec<String> = many
                    .iter()
                    .map(|(node, n)| format!("{node}{}", times(*n)))
                    .collect();
                format!("♥ {} renewed their Leases", each.join(", "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_count_renewals_per_node() {
        let one: BTreeMap<String, usize> = [("node-1".to_owned(), 3)].into_iter().collect();
        assert_eq!(note(&one), "♥ node-1 renewed its Lease ×3");
        let same: BTreeMap<String, usize> = [("node-1".to_owned(), 1), ("node-2".to_owned(), 1)]
            .into_iter()
            .collect();
        assert_eq!(note(&same), "♥ node-1, node-2 renewed their Leases");
        let mixed: BTreeMap<String, usize> = [("node-1".to_owned(), 2), ("node-2".to_owned(), 1)]
            .into_iter()
            .collect();
        assert_eq!(note(&mixed), "♥ node-1 ×2, node-2 renewed their Leases");
        let watch_only: BTreeMap<String, usize> = [("node-1".to_owned(), 0)].into_iter().collect();
        assert_eq!(note(&watch_only), "♥ node-1 Lease heartbeat");
    }
}
