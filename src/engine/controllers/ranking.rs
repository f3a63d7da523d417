//! Which surplus Pods a `ReplicaSet` deletes first (`pkg/controller/controller_utils.go`,
//! `ActivePodsWithRanks.Less`, and `pkg/controller/replicaset/replica_set.go`,
//! `getPodsToDelete` / `getPodsRankedByRelatedPodsOnSameNode`), with the
//! `PodDeletionCost` and `LogarithmicScaleDown` features on, as they are by default.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Pod;

use super::pods::{is_active, is_ready, max_restarts, node_of, phase, ready_since};

/// `controller.kubernetes.io/pod-deletion-cost`.
pub const DELETION_COST: &str = "controller.kubernetes.io/pod-deletion-cost";

/// `podPhaseToOrdinal`: Pending < Unknown < Running.
fn phase_ordinal(pod: &Pod) -> u8 {
    match phase(pod) {
        "Unknown" => 1,
        "Running" => 2,
        _ => 0,
    }
}

fn deletion_cost(pod: &Pod) -> i32 {
    pod.metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(DELETION_COST))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn created_ms(pod: &Pod) -> Option<i64> {
    pod.metadata
        .creation_timestamp
        .as_ref()
        .map(|t| t.0.as_millisecond())
}

/// `logarithmicRankDiff`: the difference of ⌊log2(age in ns)⌋ of two moments.
fn log_rank_diff(t1: i64, t2: i64, now_ms: i64) -> i64 {
    let rank = |t: i64| {
        let d = (now_ms - t).saturating_mul(1_000_000);
        if d > 0 {
            63 - i64::from(d.leading_zeros())
        } else {
            -1
        }
    };
    rank(t1) - rank(t2)
}

/// `afterOrZero`: a missing time first, then the later one.
fn after_or_zero(t1: Option<i64>, t2: Option<i64>) -> bool {
    match (t1, t2) {
        (None, _) | (_, None) => t1.is_none(),
        (Some(a), Some(b)) => a > b,
    }
}

/// Compares two moments as steps 6 and 8 of `Less` do: logarithmic buckets of age, then UID.
fn by_time(t1: Option<i64>, t2: Option<i64>, a: &Pod, b: &Pod, now_ms: i64) -> Option<bool> {
    if t1 == t2 {
        return None;
    }
    match (t1, t2) {
        (Some(x), Some(y)) if now_ms != 0 => {
            let diff = log_rank_diff(x, y, now_ms);
            if diff == 0 {
                Some(a.metadata.uid < b.metadata.uid)
            } else {
                Some(diff < 0)
            }
        }
        _ => Some(after_or_zero(t1, t2)),
    }
}

/// `ActivePodsWithRanks.Less`: whether `a` should be deleted before `b`.
/// `rank_*` count the active related Pods on the Pod's node.
pub fn less(a: &Pod, rank_a: usize, b: &Pod, rank_b: usize, now_ms: i64) -> bool {
    let (na, nb) = (node_of(a), node_of(b));
    // 1. Unassigned < assigned.
    if na != nb && (na.is_empty() || nb.is_empty()) {
        return na.is_empty();
    }
    // 2. Pending < Unknown < Running.
    if phase_ordinal(a) != phase_ordinal(b) {
        return phase_ordinal(a) < phase_ordinal(b);
    }
    // 3. Not ready < ready.
    if is_ready(a) != is_ready(b) {
        return !is_ready(a);
    }
    // 4. Lower pod-deletion-cost < higher.
    if deletion_cost(a) != deletion_cost(b) {
        return deletion_cost(a) < deletion_cost(b);
    }
    // 5. Doubled up < not doubled up.
    if rank_a != rank_b {
        return rank_a > rank_b;
    }
    // 6. Ready for a shorter time < longer.
    if is_ready(a)
        && is_ready(b)
        && let Some(answer) = by_time(ready_since(a), ready_since(b), a, b, now_ms)
    {
        return answer;
    }
    // 7. More restarts < fewer.
    if max_restarts(a) != max_restarts(b) {
        return max_restarts(a) > max_restarts(b);
    }
    // 8. Newer < older.
    by_time(created_ms(a), created_ms(b), a, b, now_ms).unwrap_or(false)
}

/// `getPodsToDelete`: the first `diff` Pods of `pods` in deletion order,
/// ranked by how many active `related` Pods share their node.
pub fn pods_to_delete<'a>(
    pods: &[&'a Pod],
    related: &[&Pod],
    diff: usize,
    now_ms: i64,
) -> Vec<&'a Pod> {
    let mut ranked: Vec<(&Pod, usize)> = if diff < pods.len() {
        let mut on_node: BTreeMap<&str, usize> = BTreeMap::new();
        for pod in related.iter().filter(|p| is_active(p)) {
            *on_node.entry(node_of(pod)).or_default() += 1;
        }
        pods.iter()
            .map(|p| (*p, on_node.get(node_of(p)).copied().unwrap_or(0)))
            .collect()
    } else {
        pods.iter().map(|p| (*p, 0)).collect()
    };
    if diff < pods.len() {
        ranked.sort_by(|(a, ra), (b, rb)| {
            if less(a, *ra, b, *rb, now_ms) {
                Ordering::Less
            } else if less(b, *rb, a, *ra, now_ms) {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        });
    }
    ranked.into_iter().take(diff).map(|(p, _)| p).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A pod as `TestSortingActivePods` builds them.
    fn pod(
        name: &str,
        node: &str,
        phase: &str,
        ready_at: Option<&str>,
        extra: &serde_json::Value,
    ) -> Pod {
        let mut value = json!({
            "metadata": {"name": name, "uid": name, "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {"nodeName": node, "containers": []},
            "status": {"phase": phase, "conditions": ready_at.map(|t| vec![json!(
                {"type": "Ready", "status": "True", "lastTransitionTime": t})])},
        });
        merge(&mut value, extra);
        serde_json::from_value(value).unwrap()
    }

    fn merge(a: &mut serde_json::Value, b: &serde_json::Value) {
        if let (Some(a), Some(b)) = (a.as_object_mut(), b.as_object()) {
            for (k, v) in b {
                merge(a.entry(k.clone()).or_insert(json!({})), v);
            }
        } else {
            *a = b.clone();
        }
    }

    fn now() -> i64 {
        // 2026-01-02T00:00:00Z
        1_767_312_000_000
    }

    #[test]
    fn sorting_active_pods() {
        // pkg/controller/controller_utils_test.go, TestSortingActivePods: the
        // pods in the order they should be deleted.
        let want = vec![
            pod("unscheduled", "", "Pending", None, &json!({})),
            pod("scheduled-pending", "n", "Pending", None, &json!({})),
            pod("unknown", "n", "Unknown", None, &json!({})),
            pod("running-not-ready", "n", "Running", None, &json!({})),
            pod(
                "ready-low-cost",
                "n",
                "Running",
                Some("2026-01-01T10:00:00Z"),
                &json!({"metadata": {"annotations": {DELETION_COST: "-10"}}}),
            ),
            pod(
                "ready-recently",
                "n",
                "Running",
                Some("2026-01-01T23:59:00Z"),
                &json!({}),
            ),
            pod(
                "ready-long-ago",
                "n",
                "Running",
                Some("2026-01-01T01:00:00Z"),
                &json!({"status": {"containerStatuses": [{"name": "c", "image": "i", "imageID": "",
                    "ready": true, "restartCount": 3}]}}),
            ),
            pod(
                "ready-long-ago-newer",
                "n",
                "Running",
                Some("2026-01-01T01:00:00Z"),
                &json!({"metadata": {"creationTimestamp": "2026-01-01T20:00:00Z"}}),
            ),
            pod(
                "ready-long-ago-older",
                "n",
                "Running",
                Some("2026-01-01T01:00:00Z"),
                &json!({}),
            ),
        ];
        let mut shuffled: Vec<&Pod> = want.iter().rev().collect();
        shuffled.rotate_left(3);
        let related: Vec<&Pod> = Vec::new();
        let got = pods_to_delete(&shuffled, &related, want.len() - 1, now());
        let names: Vec<&str> = got
            .iter()
            .map(|p| p.metadata.name.as_deref().unwrap())
            .collect();
        let expected: Vec<&str> = want[..want.len() - 1]
            .iter()
            .map(|p| p.metadata.name.as_deref().unwrap())
            .collect();
        assert_eq!(names, expected);
    }

    #[test]
    fn doubled_up_pods_go_first() {
        // pkg/controller/replicaset/replica_set_test.go, TestGetPodsToDelete:
        // "various pod phases and conditions, diff = 1" with related pods on the same node.
        let ready = Some("2026-01-01T10:00:00Z");
        let a = pod("a", "node-1", "Running", ready, &json!({}));
        let b = pod("b", "node-2", "Running", ready, &json!({}));
        let c = pod("c", "node-2", "Running", ready, &json!({}));
        let pods = [&a, &b];
        let related = [&a, &b, &c];
        let got = pods_to_delete(&pods, &related, 1, now());
        assert_eq!(got[0].metadata.name.as_deref(), Some("b"));
    }

    #[test]
    fn deleting_all_needs_no_sort() {
        let a = pod("a", "n", "Running", None, &json!({}));
        let b = pod("b", "", "Pending", None, &json!({}));
        let got = pods_to_delete(&[&a, &b], &[], 2, now());
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].metadata.name.as_deref(), Some("a"));
    }
}
