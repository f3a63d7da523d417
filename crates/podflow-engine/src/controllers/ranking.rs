//! Which surplus Pods a `ReplicaSet` deletes first (`pkg/controller/controller_utils.go`,
//! `ActivePodsWithRanks.Less`, and `pkg/controller/replicaset/replica_set.go`,
//! `getPodsToDelete` / `getPodsRankedByRelatedPodsOnSameNode`), with the
//! `PodDeletionCost` and `LogarithmicScaleDown` features on, as they are by default.

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
        merge_sort(&mut ranked, |(a, ra), (b, rb)| less(a, *ra, b, *rb, now_ms));
    }
    ranked.into_iter().take(diff).map(|(p, _)| p).collect()
}

/// Sorts `items` by `less`, stably, whatever `less` answers. Upstream's
/// `Less` is not a total order: step 6 puts two Pods ready in the same
/// logarithmic age bucket in UID order when their ready times differ, but
/// goes on to restarts and age when they are equal, so three Pods can rank
/// in a cycle. Go's `sort.Sort` orders them somehow; Rust's `sort_by` may
/// panic on such an order, so this bottom-up merge sort is used instead (for
/// a total order it gives what the stable `sort_by` gives).
fn merge_sort<T: Copy>(items: &mut [T], mut less: impl FnMut(&T, &T) -> bool) {
    let len = items.len();
    let mut from = items.to_vec();
    let mut into = items.to_vec();
    let mut width = 1;
    while width < len {
        for start in (0..len).step_by(2 * width) {
            let mid = (start + width).min(len);
            let end = (start + 2 * width).min(len);
            let (mut left, mut right) = (start, mid);
            for slot in &mut into[start..end] {
                // The left run's element first unless the right one is strictly less.
                let take_right = right < end && (left >= mid || less(&from[right], &from[left]));
                if take_right {
                    *slot = from[right];
                    right += 1;
                } else {
                    *slot = from[left];
                    left += 1;
                }
            }
        }
        std::mem::swap(&mut from, &mut into);
        width *= 2;
    }
    items.copy_from_slice(&from);
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
    fn the_merge_sort_sorts_stably_as_sort_by() {
        // Pseudo-random keys with many ties, tagged with their first place.
        let mut x: u64 = 7;
        let mut items: Vec<(u64, usize)> = (0..1000)
            .map(|i| {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                ((x >> 40) % 37, i)
            })
            .collect();
        let mut want = items.clone();
        want.sort_by_key(|(key, _)| *key);
        merge_sort(&mut items, |a, b| a.0 < b.0);
        assert_eq!(items, want);
        let mut one = [(1, 0)];
        merge_sort(&mut one, |a: &(u64, usize), b| a.0 < b.0);
        assert_eq!(one, [(1, 0)]);
    }

    #[test]
    fn ranking_pods_whose_order_is_a_cycle_does_not_panic() {
        // Three Pods ready in the same age bucket: a and b at the same moment
        // (so restarts decide: a first), c a minute later (so UIDs decide
        // against both: b < c < a) — a cycle, as upstream's Less allows.
        let restarted = json!({"status": {"containerStatuses": [{"name": "c", "image": "i",
            "imageID": "", "ready": true, "restartCount": 5}]}});
        let a = pod(
            "z-a",
            "n",
            "Running",
            Some("2026-01-01T10:00:00Z"),
            &restarted,
        );
        let b = pod(
            "a-b",
            "n",
            "Running",
            Some("2026-01-01T10:00:00Z"),
            &json!({}),
        );
        let c = pod(
            "m-c",
            "n",
            "Running",
            Some("2026-01-01T10:01:00Z"),
            &json!({}),
        );
        let (ra, rb, rc) = (0, 0, 0);
        assert!(less(&a, ra, &b, rb, now()));
        assert!(less(&b, rb, &c, rc, now()));
        assert!(less(&c, rc, &a, ra, now()));
        // Many of them, as a large scale-down ranks them: ready at a few
        // moments of one bucket, with restarts and UIDs in no common order.
        let mut x: u64 = 11;
        let pods: Vec<Pod> = (0..2000)
            .map(|i| {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let ready = format!("2026-01-01T10:0{}:00Z", (x >> 33) % 4);
                let restarts = (x >> 45) % 3;
                let extra = json!({"status": {"containerStatuses": [{"name": "c", "image": "i",
                    "imageID": "", "ready": true, "restartCount": restarts}]}});
                pod(
                    &format!("p-{:04}-{}", (x >> 20) % 10_000, i),
                    "n",
                    "Running",
                    Some(&ready),
                    &extra,
                )
            })
            .collect();
        let refs: Vec<&Pod> = pods.iter().collect();
        assert_eq!(pods_to_delete(&refs, &refs, 1995, now()).len(), 1995);
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
