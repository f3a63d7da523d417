//! The pod garbage collector's decisions, as pure functions
//! (`pkg/controller/podgc/gc_controller.go`): which nodes go into quarantine
//! (`gcOrphaned` adds the node of every Pod bound to a node the informer does
//! not hold to its delaying queue, `AddAfter(quarantineTime)`), which come out
//! of it to be checked by a GET (`discoverDeletedNodes`), and how each orphan
//! is deleted (`markFailedAndDeletePodWithCondition`).

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::Pod;

use crate::clock::SimTime;

/// `gcCheckPeriod`: how often the collector runs.
pub const CHECK_PERIOD_MS: u64 = 20_000;
/// `quarantineTime`: how long a missing node waits before the GET that checks it is gone.
pub const QUARANTINE_MS: u64 = 40_000;
/// The condition an orphaned Pod gets before it is deleted.
pub const REASON: &str = "DeletionByPodGC";
/// Its message.
pub const MESSAGE: &str = "PodGC: node no longer exists";

/// A Pod the collector looks at: its key, the node it is bound to, and
/// whether it has finished (`Succeeded` or `Failed`: then no status patch).
/// Borrowed from the informer's Pod: a pass looks at every Pod.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bound<'a> {
    pub namespace: &'a str,
    pub name: &'a str,
    pub node: &'a str,
    pub finished: bool,
}

impl<'a> Bound<'a> {
    /// The Pod's part, when it is bound to a node.
    pub fn of(pod: &'a Pod) -> Option<Bound<'a>> {
        let node = pod.spec.as_ref()?.node_name.as_deref()?;
        if node.is_empty() {
            return None;
        }
        let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
        Some(Bound {
            namespace: pod.metadata.namespace.as_deref().unwrap_or_default(),
            name: pod.metadata.name.as_deref().unwrap_or_default(),
            node,
            finished: matches!(phase, Some("Succeeded" | "Failed")),
        })
    }
}

/// What one pass does with the nodes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pass {
    /// Nodes put in quarantine by this pass (not already waiting there).
    pub quarantined: Vec<String>,
    /// Nodes whose quarantine is over and that the cache still lacks: each is
    /// checked with a GET (a 404 says it is gone).
    pub check: Vec<String>,
}

/// One pass of `gcOrphaned` over the pods and the node names the informer
/// holds; `quarantine` (node → when its quarantine ends) is the delaying
/// queue: a node already waiting keeps its earlier time, as `AddAfter` does.
pub fn pass(
    pods: &[Bound<'_>],
    existing: &BTreeSet<&str>,
    quarantine: &mut BTreeMap<String, SimTime>,
    now: SimTime,
) -> Pass {
    let mut out = Pass::default();
    for pod in pods {
        if existing.contains(pod.node) || quarantine.contains_key(pod.node) {
            continue;
        }
        quarantine.insert(pod.node.to_owned(), now.plus(QUARANTINE_MS));
        out.quarantined.push(pod.node.to_owned());
    }
    let due: Vec<String> = quarantine
        .iter()
        .filter(|(_, at)| **at <= now)
        .map(|(node, _)| node.clone())
        .collect();
    for node in due {
        quarantine.remove(&node);
        if !existing.contains(node.as_str()) {
            out.check.push(node);
        }
    }
    out
}

/// The Pods bound to `node`, the orphans once it is known gone.
pub fn orphans<'a, 'p>(pods: &'a [Bound<'p>], node: &str) -> Vec<&'a Bound<'p>> {
    pods.iter().filter(|p| p.node == node).collect()
}

/// The status patch `markFailedAndDeletePodWithCondition` sends before the
/// deletion: phase `Failed` and the `DisruptionTarget` condition. `None` for
/// a Pod that has finished (it is deleted at once).
pub fn status_patch(pod: &Bound<'_>, now: SimTime) -> Option<serde_json::Value> {
    if pod.finished {
        return None;
    }
    let at = serde_json::to_value(now.to_time()).unwrap_or_default();
    Some(serde_json::json!({
        "status": {
            "phase": "Failed",
            "conditions": [{
                "type": "DisruptionTarget",
                "status": "True",
                "reason": REASON,
                "message": MESSAGE,
                "lastTransitionTime": at,
            }],
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bound<'a>(name: &'a str, node: &'a str, finished: bool) -> Bound<'a> {
        Bound {
            namespace: "default",
            name,
            node,
            finished,
        }
    }

    /// After `TestGCOrphaned` (`pkg/controller/podgc/gc_controller_test.go`):
    /// a Pod on a node the cache lacks puts the node in quarantine; only once
    /// `quarantineTime` has passed, and if the node is still missing, is it
    /// checked; a node back in the cache meanwhile is dropped.
    #[test]
    fn a_missing_node_waits_out_its_quarantine_before_it_is_checked() {
        let pods = [bound("a", "node-1", false), bound("b", "gone", false)];
        let existing: BTreeSet<&str> = ["node-1"].into();
        let mut quarantine = BTreeMap::new();
        let first = pass(&pods, &existing, &mut quarantine, SimTime(20_000));
        assert_eq!(first.quarantined, ["gone"]);
        assert!(first.check.is_empty());
        // 20 s later: still in quarantine, and not added again.
        let second = pass(&pods, &existing, &mut quarantine, SimTime(40_000));
        assert_eq!(second, Pass::default());
        // 40 s after: checked.
        let third = pass(&pods, &existing, &mut quarantine, SimTime(60_000));
        assert_eq!(third.check, ["gone"]);
        assert!(quarantine.is_empty());
        // A node that comes back before its quarantine ends is not checked.
        let mut quarantine = BTreeMap::new();
        pass(&pods, &existing, &mut quarantine, SimTime(0));
        let back: BTreeSet<&str> = ["node-1", "gone"].into();
        assert_eq!(
            pass(&pods, &back, &mut quarantine, SimTime(40_000)),
            Pass::default()
        );
    }

    /// `markFailedAndDeletePodWithCondition`: a running Pod is first marked
    /// `Failed` with `DisruptionTarget`/`DeletionByPodGC`; a finished one is
    /// deleted without a patch.
    #[test]
    fn an_orphan_is_marked_failed_unless_it_finished() {
        let patch = status_patch(&bound("a", "gone", false), SimTime(0)).unwrap();
        assert_eq!(patch["status"]["phase"], "Failed");
        let condition = &patch["status"]["conditions"][0];
        assert_eq!(condition["type"], "DisruptionTarget");
        assert_eq!(condition["reason"], "DeletionByPodGC");
        assert_eq!(condition["message"], "PodGC: node no longer exists");
        assert!(status_patch(&bound("b", "gone", true), SimTime(0)).is_none());
    }
}
