//! The counts a `ReplicaSet`'s status is made of, kept current from the Pod
//! informer's deltas: active (`replicas`), fully labelled, ready, available
//! and terminating Pods (`calculateStatus` in
//! `pkg/controller/replicaset/replica_set_utils.go`, over the Pods
//! `FilterActivePods` and `FilterTerminatingPods` keep).
//!
//! Upstream's sync filters every Pod of the `ReplicaSet` again on each run,
//! and its work queue, busy with that long sync, folds the Pod events that
//! arrive meanwhile into one next run. podflow's syncs take no simulated
//! time, so it runs one per event; re-reading 10,000 Pods each time would
//! make a large Deployment quadratic. The counts here are the same function
//! of the informer's cache, kept as an index beside it: each Pod's share is
//! recorded when its delta is applied and taken back when the Pod changes
//! again. The controller checks them against a full recount in debug builds.

use std::collections::BTreeMap;
use std::sync::Arc;

use foldhash::fast::FixedState;
use imbl::shared_ptr::DefaultSharedPtr;
use imbl::{GenericHashMap, OrdMap};
use k8s_openapi::api::apps::v1::ReplicaSet;
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use super::informer::{Informer, InformerDelta, key_of};
use super::pods::{controller_of, is_active, phase, ready_since};
use crate::apiserver::validation::selector_matches;
use podflow_model::Object;

/// What one Pod adds to the counts of the `ReplicaSet` that controls it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Share {
    active: bool,
    fully_labeled: bool,
    /// When its `Ready` condition turned true, for an active ready Pod.
    ready_since: Option<i64>,
    terminating: bool,
}

/// What a Pod's share is measured against: the `ReplicaSet`'s selector and
/// its template's labels, as they were when the counts were built.
#[derive(Debug, Clone, PartialEq)]
struct Basis {
    selector: LabelSelector,
    template_labels: Option<BTreeMap<String, String>>,
}

impl Basis {
    fn of(rs: &ReplicaSet) -> Basis {
        Basis {
            selector: rs.spec.selector.clone(),
            template_labels: rs
                .spec
                .template
                .as_ref()
                .and_then(|t| t.metadata.as_ref())
                .and_then(|m| m.labels.clone()),
        }
    }

    /// The share of `pod`, controlled by this `ReplicaSet` (by UID).
    fn share(&self, pod: &Pod) -> Share {
        let labels = pod.metadata.labels.as_ref();
        if !selector_matches(Some(&self.selector), labels) {
            return Share::default();
        }
        if !is_active(pod) {
            let terminating = pod.metadata.deletion_timestamp.is_some()
                && !matches!(phase(pod), "Succeeded" | "Failed");
            return Share {
                terminating,
                ..Share::default()
            };
        }
        let fully_labeled = self
            .template_labels
            .iter()
            .flatten()
            .all(|(k, v)| labels.and_then(|l| l.get(k)) == Some(v));
        Share {
            active: true,
            fully_labeled,
            ready_since: ready_since(pod),
            terminating: false,
        }
    }
}

/// The cached Pods whose controller reference names the `ReplicaSet` `uid`
/// (`FilterPodsByOwner`, then `metav1.IsControlledBy`).
fn controlled<'a>(
    uid: &str,
    pods: &'a Informer,
) -> impl Iterator<Item = (&'a Arc<Object>, &'a Pod)> {
    pods.owned_by(uid)
        .filter_map(|object| object.as_pod().map(|pod| (object, pod)))
        .filter(move |(_, pod)| controller_of(&pod.metadata).is_some_and(|r| r.uid == uid))
}

/// The active Pods `rs` controls whose labels its selector matches (the Pods
/// a scale-down chooses from, upstream's `FilterActivePods` after `claimPods`).
pub fn active_pods<'a>(rs: &ReplicaSet, pods: &'a Informer) -> Vec<&'a Pod> {
    let uid = rs.metadata.uid.as_deref().unwrap_or_default();
    let basis = Basis::of(rs);
    controlled(uid, pods)
        .map(|(_, pod)| pod)
        .filter(|pod| basis.share(pod).active)
        .collect()
}

/// One `ReplicaSet`'s counts.
#[derive(Debug, Clone, PartialEq)]
pub struct Counts {
    basis: Basis,
    /// Active Pods (`status.replicas`).
    pub active: usize,
    /// Active Pods with every label of the template.
    pub fully_labeled: usize,
    /// Pods being deleted that have not finished.
    pub terminating: usize,
    /// Active ready Pods, by the millisecond their `Ready` condition turned true.
    ready_since: OrdMap<i64, usize>,
    ready: usize,
}

impl Counts {
    /// The counts of the `ReplicaSet` `uid` from every Pod the cache holds
    /// that it controls, handing each Pod's key and share to `record`.
    fn from_cache(
        basis: Basis,
        uid: &str,
        pods: &Informer,
        mut record: impl FnMut(String, Share),
    ) -> Counts {
        let mut counts = Counts {
            basis,
            active: 0,
            fully_labeled: 0,
            terminating: 0,
            ready_since: OrdMap::new(),
            ready: 0,
        };
        for (object, pod) in controlled(uid, pods) {
            let share = counts.basis.share(pod);
            counts.apply(share, true);
            record(key_of(object), share);
        }
        counts
    }

    /// The counts of `rs` recounted from every Pod in the cache, as
    /// upstream's `calculateStatus` walks them each sync: what the counts
    /// kept from the deltas must equal.
    pub fn recount(rs: &ReplicaSet, pods: &Informer) -> Counts {
        let uid = rs.metadata.uid.as_deref().unwrap_or_default();
        Counts::from_cache(Basis::of(rs), uid, pods, |_, _| {})
    }

    /// Active ready Pods (`status.readyReplicas`).
    pub fn ready(&self) -> usize {
        self.ready
    }

    /// Active Pods ready for at least `min_ready_seconds` at `now_ms`
    /// (`status.availableReplicas`, `podutil.IsPodAvailable`).
    pub fn available(&self, min_ready_seconds: i32, now_ms: i64) -> usize {
        if min_ready_seconds <= 0 {
            return self.ready;
        }
        // A Ready condition without a transition time (0) is never available.
        let latest = now_ms - i64::from(min_ready_seconds) * 1000;
        if latest < 1 {
            return 0;
        }
        self.ready_since.range(1..=latest).map(|(_, n)| n).sum()
    }

    fn apply(&mut self, share: Share, add: bool) {
        let step = |n: &mut usize, yes: bool| {
            if yes {
                *n = if add { *n + 1 } else { n.saturating_sub(1) };
            }
        };
        step(&mut self.active, share.active);
        step(&mut self.fully_labeled, share.fully_labeled);
        step(&mut self.terminating, share.terminating);
        if let Some(since) = share.ready_since {
            step(&mut self.ready, true);
            let n = self.ready_since.get(&since).copied().unwrap_or(0);
            let n = if add { n + 1 } else { n.saturating_sub(1) };
            if n == 0 {
                self.ready_since.remove(&since);
            } else {
                self.ready_since.insert(since, n);
            }
        }
    }
}

/// The counts of every `ReplicaSet` a sync has asked for, by UID.
#[derive(Debug, Clone, Default)]
pub struct ReplicaCounts {
    by_owner: OrdMap<String, Counts>,
    /// Pod key → the owner UID and share it is counted with: hashed (with
    /// a fixed seed; it is never walked), so a Pod's delta finds its share
    /// by one key read, where a sorted map of 150,000 keys compares a
    /// dozen names long out of the caches.
    shares: GenericHashMap<String, (String, Share), FixedState, DefaultSharedPtr>,
}

impl ReplicaCounts {
    /// The counts of `rs`, built from the Pods the cache holds the first time
    /// they are asked for (or after the selector or template labels changed).
    pub fn of(&mut self, rs: &ReplicaSet, pods: &Informer) -> &Counts {
        let uid = rs.metadata.uid.clone().unwrap_or_default();
        let basis = Basis::of(rs);
        if self.by_owner.get(&uid).is_none_or(|c| c.basis != basis) {
            let counts = Counts::from_cache(basis, &uid, pods, |key, share| {
                self.shares.insert(key, (uid.clone(), share));
            });
            self.by_owner.insert(uid.clone(), counts);
        }
        &self.by_owner[&uid]
    }

    /// A Pod's delta reached the cache: its old share is taken back and its new one added.
    pub fn pod_changed(&mut self, delta: &InformerDelta) {
        let object = delta.object();
        let Object::Pod(pod) = &**object else { return };
        let key = key_of(object);
        if let Some((owner, share)) = self.shares.remove(&key)
            && let Some(counts) = self.by_owner.get_mut(&owner)
        {
            counts.apply(share, false);
        }
        if matches!(delta, InformerDelta::Deleted(_)) {
            return;
        }
        let Some(owner) = controller_of(&pod.metadata).map(|r| r.uid.clone()) else {
            return;
        };
        if let Some(counts) = self.by_owner.get_mut(&owner) {
            let share = counts.basis.share(pod);
            counts.apply(share, true);
            self.shares.insert(key, (owner, share));
        }
    }

    /// A `ReplicaSet` was deleted: its counts go with it.
    pub fn forget(&mut self, rs: &Object) {
        if let Some(uid) = rs.metadata().uid.as_deref() {
            self.by_owner.remove(uid);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::store::{EventType, WatchEvent};

    fn rs(template_labels: &serde_json::Value) -> ReplicaSet {
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": "web-1", "namespace": "default", "uid": "rs-uid"},
            "spec": {"selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": template_labels}}},
        }))
        .unwrap()
    }

    fn pod(name: &str, labels: &serde_json::Value, status: &serde_json::Value) -> Arc<Object> {
        let pod = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": labels,
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                    "name": "web-1", "uid": "rs-uid", "controller": true}]},
            "status": status});
        Arc::new(Object::Pod(serde_json::from_value(pod).unwrap()))
    }

    fn ready_at(second: u32) -> serde_json::Value {
        serde_json::json!({"phase": "Running", "conditions": [{"type": "Ready", "status": "True",
            "lastTransitionTime": format!("2026-01-01T00:00:{second:02}Z")}]})
    }

    fn apply(informer: &mut Informer, counts: &mut ReplicaCounts, t: EventType, o: Arc<Object>) {
        let delta = informer.apply(&WatchEvent {
            event_type: t,
            object: o,
            revision: 1,
        });
        counts.pod_changed(&delta);
    }

    fn figures(c: &Counts, now_ms: i64) -> [usize; 5] {
        [
            c.active,
            c.fully_labeled,
            c.ready(),
            c.available(10, now_ms),
            c.terminating,
        ]
    }

    #[test]
    fn counts_follow_the_pods_and_match_a_recount() {
        let rs = rs(&serde_json::json!({"app": "web", "tier": "front"}));
        let mut informer = Informer::default();
        let mut counts = ReplicaCounts::default();
        let labels = serde_json::json!({"app": "web", "tier": "front"});
        apply(
            &mut informer,
            &mut counts,
            EventType::Added,
            pod("a", &labels, &serde_json::json!({"phase": "Pending"})),
        );
        assert_eq!(figures(counts.of(&rs, &informer), 0), [1, 1, 0, 0, 0]);
        // From here on, the deltas keep the counts.
        apply(
            &mut informer,
            &mut counts,
            EventType::Modified,
            pod("a", &labels, &ready_at(0)),
        );
        apply(
            &mut informer,
            &mut counts,
            EventType::Added,
            pod("b", &serde_json::json!({"app": "web"}), &ready_at(5)),
        );
        let t = |s: i64| 1_767_225_600_000 + s * 1000;
        let kept = counts.of(&rs, &informer).clone();
        // Ready at :00 and :05; available after 10 s only for the first at :12.
        assert_eq!(figures(&kept, t(12)), [2, 1, 2, 1, 0]);
        assert_eq!(figures(&kept, t(15)), [2, 1, 2, 2, 0]);
        // A Pod being deleted stops being active and counts as terminating.
        let mut deleting = pod("b", &serde_json::json!({"app": "web"}), &ready_at(5));
        if let Object::Pod(p) = Arc::make_mut(&mut deleting) {
            p.metadata.deletion_timestamp =
                Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
                    "2026-01-01T00:01:00Z".parse().unwrap(),
                ));
        }
        apply(
            &mut informer,
            &mut counts,
            EventType::Modified,
            deleting.clone(),
        );
        assert_eq!(figures(counts.of(&rs, &informer), t(15)), [1, 1, 1, 1, 1]);
        apply(&mut informer, &mut counts, EventType::Deleted, deleting);
        let kept = counts.of(&rs, &informer).clone();
        assert_eq!(figures(&kept, t(15)), [1, 1, 1, 1, 0]);
        // The same figures from scratch.
        let rebuilt = ReplicaCounts::default().of(&rs, &informer).clone();
        assert_eq!(kept, rebuilt);
    }

    #[test]
    fn new_template_labels_rebuild_the_counts() {
        let mut informer = Informer::default();
        let mut counts = ReplicaCounts::default();
        apply(
            &mut informer,
            &mut counts,
            EventType::Added,
            pod("a", &serde_json::json!({"app": "web"}), &ready_at(0)),
        );
        let before = rs(&serde_json::json!({"app": "web"}));
        assert_eq!(counts.of(&before, &informer).fully_labeled, 1);
        let after = rs(&serde_json::json!({"app": "web", "v": "2"}));
        assert_eq!(counts.of(&after, &informer).fully_labeled, 0);
    }
}
