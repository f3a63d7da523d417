//! The node lifecycle controller's decisions, as pure functions
//! (`pkg/controller/nodelifecycle/node_lifecycle_controller.go`:
//! `tryUpdateNodeHealth`, `processTaintBaseEviction`, `doNoScheduleTaintingPass`):
//! when a node's heartbeat is stale, and which taints its `Ready` condition
//! calls for. The controller that acts on them: [`super::node_lifecycle`].

use k8s_openapi::api::core::v1::{Node, NodeCondition, Taint};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

use crate::clock::SimTime;

/// `--node-monitor-period`: how often the controller looks at the nodes.
pub const MONITOR_PERIOD_MS: u64 = 5_000;
/// `--node-monitor-grace-period`: 50 s since 1.32 (kubernetes/kubernetes#127352).
pub const GRACE_PERIOD_MS: i64 = 50_000;
/// `v1.TaintNodeUnreachable`.
pub const UNREACHABLE: &str = "node.kubernetes.io/unreachable";
/// `v1.TaintNodeNotReady`.
pub const NOT_READY: &str = "node.kubernetes.io/not-ready";
/// `v1.TaintNodeMemoryPressure`, `TaintNodeDiskPressure`, `TaintNodePIDPressure`:
/// the `NoSchedule` taints of the pressure conditions (`nodeConditionToTaintKeyStatusMap`).
pub const PRESSURE_TAINTS: [(&str, &str); 3] = [
    ("MemoryPressure", "node.kubernetes.io/memory-pressure"),
    ("DiskPressure", "node.kubernetes.io/disk-pressure"),
    ("PIDPressure", "node.kubernetes.io/pid-pressure"),
];
/// The conditions the controller marks `Unknown` with `Ready`.
const WATCHED_CONDITIONS: [&str; 4] = ["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"];

fn millis(time: Option<&Time>) -> Option<i64> {
    time.map(|t| t.0.as_millisecond())
}

/// The latest heartbeat of the node's `Ready` condition, in milliseconds.
pub fn last_heartbeat(node: &Node) -> Option<i64> {
    node.status
        .as_ref()?
        .conditions
        .as_ref()?
        .iter()
        .find(|c| c.type_ == "Ready")
        .and_then(|c| millis(c.last_heartbeat_time.as_ref()))
}

/// `tryUpdateNodeHealth`: when nothing was heard from the kubelet (a status
/// heartbeat or a Lease renewal at `probe_ms`) for longer than the grace
/// period, the node's conditions become `Unknown`. `None` when the node is
/// healthy or already marked.
pub fn stale_node(node: &Node, probe_ms: i64, now: SimTime) -> Option<Node> {
    let now_ms = now.to_k8s().as_millisecond();
    if now_ms - probe_ms <= GRACE_PERIOD_MS {
        return None;
    }
    let mut updated = node.clone();
    let status = updated.status.get_or_insert_with(Default::default);
    let conditions = status.conditions.get_or_insert_with(Vec::new);
    let mut changed = false;
    for type_ in WATCHED_CONDITIONS {
        let at = Some(now.to_time());
        match conditions.iter_mut().find(|c| c.type_ == type_) {
            Some(c) if c.status == "Unknown" => {}
            Some(c) => {
                c.status = "Unknown".into();
                c.reason = Some("NodeStatusUnknown".into());
                c.message = Some("Kubelet stopped posting node status.".into());
                c.last_transition_time = at;
                changed = true;
            }
            None => {
                conditions.push(NodeCondition {
                    type_: type_.into(),
                    status: "Unknown".into(),
                    reason: Some("NodeStatusNeverUpdated".into()),
                    message: Some("Kubelet never posted node status.".into()),
                    last_heartbeat_time: node.metadata.creation_timestamp.clone(),
                    last_transition_time: at,
                });
                changed = true;
            }
        }
    }
    changed.then_some(updated)
}

/// `processTaintBaseEviction` and `doNoScheduleTaintingPass`: the taints a
/// node's `Ready` status calls for (`Unknown` → unreachable, `False` →
/// not-ready), `NoSchedule` and `NoExecute` (stamped `timeAdded`).
pub fn taints_for_ready(ready: &str, now: SimTime) -> Vec<Taint> {
    let key = match ready {
        "Unknown" => UNREACHABLE,
        "False" => NOT_READY,
        _ => return Vec::new(),
    };
    vec![
        Taint {
            key: key.into(),
            effect: "NoSchedule".into(),
            time_added: None,
            value: None,
        },
        Taint {
            key: key.into(),
            effect: "NoExecute".into(),
            time_added: Some(now.to_time()),
            value: None,
        },
    ]
}

/// `doNoScheduleTaintingPass` for the pressure conditions: a `NoSchedule`
/// taint for each that is `True` (while the node is `Ready`: an unreachable
/// node's conditions are all `Unknown`).
pub fn pressure_taints(node: &Node) -> Vec<Taint> {
    let conditions = node
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_deref())
        .unwrap_or_default();
    PRESSURE_TAINTS
        .iter()
        .filter(|(type_, _)| {
            conditions
                .iter()
                .any(|c| c.type_ == *type_ && c.status == "True")
        })
        .map(|(_, key)| Taint {
            key: (*key).into(),
            effect: "NoSchedule".into(),
            time_added: None,
            value: None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::NodeStatus;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    use super::*;

    fn node(ready: &str, heartbeat_ms: i64) -> Node {
        let at = Some(Time(
            k8s_openapi::jiff::Timestamp::from_millisecond(heartbeat_ms).unwrap(),
        ));
        Node {
            metadata: ObjectMeta {
                name: Some("node-1".into()),
                ..ObjectMeta::default()
            },
            spec: None,
            status: Some(NodeStatus {
                conditions: Some(vec![NodeCondition {
                    type_: "Ready".into(),
                    status: ready.into(),
                    reason: Some("KubeletReady".into()),
                    message: Some("kubelet is posting ready status".into()),
                    last_heartbeat_time: at.clone(),
                    last_transition_time: at,
                }]),
                ..NodeStatus::default()
            }),
        }
    }

    /// Mirrors `TestMonitorNodeHealthUpdateStatus` (`node_lifecycle_controller_test.go`):
    /// a node silent for longer than the grace period goes `Unknown`.
    #[test]
    fn monitor_node_health_update_status() {
        let now = SimTime(120_000);
        let now_ms = now.to_k8s().as_millisecond();
        let fresh = node("True", now_ms - 10_000);
        assert_eq!(
            stale_node(&fresh, last_heartbeat(&fresh).unwrap(), now),
            None
        );
        let at_grace = node("True", now_ms - GRACE_PERIOD_MS);
        assert_eq!(stale_node(&at_grace, now_ms - GRACE_PERIOD_MS, now), None);

        let silent = node("True", now_ms - 60_000);
        let updated = stale_node(&silent, last_heartbeat(&silent).unwrap(), now).expect("stale");
        let conditions = updated.status.unwrap().conditions.unwrap();
        let ready = conditions.iter().find(|c| c.type_ == "Ready").unwrap();
        assert_eq!(
            (
                ready.status.as_str(),
                ready.reason.as_deref(),
                ready.message.as_deref()
            ),
            (
                "Unknown",
                Some("NodeStatusUnknown"),
                Some("Kubelet stopped posting node status.")
            )
        );
        assert_eq!(
            millis(ready.last_heartbeat_time.as_ref()),
            Some(now_ms - 60_000),
            "the heartbeat stays"
        );
        assert_eq!(millis(ready.last_transition_time.as_ref()), Some(now_ms));
        let memory = conditions
            .iter()
            .find(|c| c.type_ == "MemoryPressure")
            .unwrap();
        assert_eq!(
            (memory.status.as_str(), memory.reason.as_deref()),
            ("Unknown", Some("NodeStatusNeverUpdated"))
        );
        // Already Unknown: nothing more to write.
        let marked = Node {
            status: Some(NodeStatus {
                conditions: Some(conditions),
                ..NodeStatus::default()
            }),
            ..silent
        };
        assert_eq!(stale_node(&marked, now_ms - 60_000, now), None);
    }

    /// After `node_lifecycle_controller_test.go`, `TestTaintsNodeByCondition`:
    /// `MemoryPressure=True` taints `memory-pressure:NoSchedule`.
    #[test]
    fn pressure_conditions_taint_no_schedule() {
        let mut n = node("True", 0);
        assert!(pressure_taints(&n).is_empty());
        if let Some(c) = n.status.as_mut().and_then(|s| s.conditions.as_mut()) {
            c.push(NodeCondition {
                type_: "MemoryPressure".into(),
                status: "True".into(),
                ..NodeCondition::default()
            });
        }
        let taints = pressure_taints(&n);
        assert_eq!(taints.len(), 1);
        assert_eq!(taints[0].key, "node.kubernetes.io/memory-pressure");
        assert_eq!(taints[0].effect, "NoSchedule");
    }

    #[test]
    fn taints_follow_the_ready_condition() {
        let now = SimTime(1000);
        let taints = taints_for_ready("Unknown", now);
        let got: Vec<(&str, &str, bool)> = taints
            .iter()
            .map(|t| (t.key.as_str(), t.effect.as_str(), t.time_added.is_some()))
            .collect();
        assert_eq!(
            got,
            [
                (UNREACHABLE, "NoSchedule", false),
                (UNREACHABLE, "NoExecute", true)
            ]
        );
        assert_eq!(taints_for_ready("False", now)[1].key, NOT_READY);
        assert!(taints_for_ready("True", now).is_empty());
    }
}
