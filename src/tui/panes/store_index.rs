//! What the objects and pipeline panes read of every stored object — its
//! owner references, whether it is a Pod waiting for the scheduler — kept
//! from frame to frame and brought up to date by diffing the store it
//! describes with the one to show. Every snapshot of a run shares the
//! subtrees it did not change, so [`Snapshot::diff`] costs what changed between
//! the two steps, not what the store holds: a frame of a 10,000-Pod run reads
//! this compact map instead of 10,000 objects. The summaries of the last
//! [`ANCHORS`] stores shown are kept, with milestones along the run as the TUI
//! computes it ([`remember`]), and a seek starts from the nearest.
//!
//! It is a memo: what [`with_summaries`] hands over depends only on the store
//! asked about, never on the stores seen before.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

use imbl::OrdMap;
use k8s_openapi::api::core::v1::Node;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

use podflow_engine::store::{Archived, Entry, Snapshot};
use podflow_model::Object;

/// How many stores' summaries are kept to start a seek from: the latest
/// shown, and milestones along the run, at first this many revisions apart.
const ANCHORS: usize = 32;
const MILESTONES: usize = 64;
const MILESTONE_SPACING: u64 = 256;
/// A diff longer than this share of the store (and than [`SMALL_DIFF`]) is
/// not worth walking: the summaries are built afresh.
const REBUILD_SHARE: usize = 2;
const SMALL_DIFF: usize = 64;

/// One owner reference, as the objects pane resolves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerLink {
    pub kind: String,
    pub name: String,
    /// The dependent's namespace (an owner is in its dependent's namespace,
    /// or cluster-scoped).
    pub namespace: Option<String>,
    pub uid: String,
    /// `controller: true`.
    pub controller: bool,
}

impl OwnerLink {
    fn is(&self, r: &OwnerReference, namespace: Option<&str>) -> bool {
        self.uid == r.uid
            && self.name == r.name
            && self.kind == r.kind
            && self.controller == (r.controller == Some(true))
            && self.namespace.as_deref() == namespace
    }
}

/// What the panes need of one stored object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Its `metadata.uid`, against which a dependent's owner reference is
    /// checked without reading (and, for a replaced version, decoding) it.
    pub uid: Option<Arc<str>>,
    /// Its owner references, shared by every object with the same ones (a
    /// `ReplicaSet`'s Pods), so that resolving them once serves all.
    pub owners: Option<Arc<[OwnerLink]>>,
    /// A Pod the scheduler has yet to place: no node, not deleted, not finished.
    pub waiting: bool,
    /// A Node's state, as the pipeline pane draws it.
    pub node: Option<NodeState>,
}

/// What the pipeline pane shows of a Node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeState {
    /// `spec.unschedulable` (`kubectl cordon`).
    pub cordoned: bool,
    /// The `Ready` condition is `True`, or absent (docs/cluster-files.md: a
    /// Node is Ready unless its conditions say otherwise).
    pub ready: bool,
}

impl NodeState {
    fn of(node: &Node) -> NodeState {
        let cordoned = node.spec.as_ref().and_then(|s| s.unschedulable);
        let conditions = node.status.as_ref().and_then(|s| s.conditions.as_ref());
        let ready = conditions.and_then(|cs| cs.iter().find(|c| c.type_ == "Ready"));
        NodeState {
            cordoned: cordoned.unwrap_or(false),
            ready: ready.is_none_or(|c| c.status == "True"),
        }
    }
}

/// Every stored key's [`Summary`], in key order. The keys are shared: a
/// change copies the path of map nodes down to its key, and copying a node
/// of shared keys counts references instead of copying 64 strings (a seek
/// across a few hundred changes of a 10,000-Pod run took 7 ms, most of it
/// copying keys).
pub type Summaries = OrdMap<Arc<str>, Summary>;

/// The owner lists handed out, by a hash of their references.
#[derive(Default)]
struct Interner {
    lists: HashMap<u64, Vec<Arc<[OwnerLink]>>>,
    count: usize,
}

impl Interner {
    /// The shared list for `refs` of an object in `namespace`; built only
    /// the first time such references are seen.
    fn list(&mut self, refs: &[OwnerReference], namespace: Option<&str>) -> Arc<[OwnerLink]> {
        let mut hasher = DefaultHasher::new();
        namespace.hash(&mut hasher);
        for r in refs {
            (&r.uid, &r.name, &r.kind, r.controller == Some(true)).hash(&mut hasher);
        }
        let bucket = self.lists.entry(hasher.finish()).or_default();
        let same = |list: &&Arc<[OwnerLink]>| {
            list.len() == refs.len() && list.iter().zip(refs).all(|(l, r)| l.is(r, namespace))
        };
        if let Some(known) = bucket.iter().find(same) {
            return Arc::clone(known);
        }
        let list: Arc<[OwnerLink]> = refs
            .iter()
            .map(|r| OwnerLink {
                kind: r.kind.clone(),
                name: r.name.clone(),
                namespace: namespace.map(str::to_owned),
                uid: r.uid.clone(),
                controller: r.controller == Some(true),
            })
            .collect();
        bucket.push(Arc::clone(&list));
        self.count += 1;
        list
    }

    /// Drops the lists no summary holds any longer.
    fn sweep(&mut self) {
        self.lists.retain(|_, bucket| {
            bucket.retain(|list| Arc::strong_count(list) > 1);
            !bucket.is_empty()
        });
        self.count = self.lists.values().map(Vec::len).sum();
    }
}

/// What a [`Summary`] needs of one object version: made from the object,
/// or kept with a version the steps keep encoded, so that a seek across
/// thousands of replaced versions decodes none of them.
struct Digest {
    uid: Option<Arc<str>>,
    owners: Option<Arc<[OwnerLink]>>,
    waiting: bool,
    node: Option<NodeState>,
    kind: &'static str,
    status: Option<String>,
}

impl Digest {
    /// `object`'s digest, its owner list from `interner`.
    fn of(interner: &mut Interner, object: &Object) -> Digest {
        let meta = object.metadata();
        Digest {
            uid: meta.uid.as_deref().map(Arc::from),
            owners: meta
                .owner_references
                .as_deref()
                .map(|refs| interner.list(refs, meta.namespace.as_deref())),
            waiting: waits_for_scheduler(object),
            node: object.as_node().map(NodeState::of),
            kind: object.kind().kind,
            status: short_status(object),
        }
    }

    fn summary(&self) -> Summary {
        Summary {
            uid: self.uid.clone(),
            owners: self.owners.clone(),
            waiting: self.waiting,
            node: self.node,
        }
    }
}

/// Has the steps keep a [`Digest`] of every version they encode (set once,
/// before a run is computed; without it, a summary decodes the version).
/// A digest's owner list is the memo's, shared with the summaries (the
/// digester runs where the run is computed, not while a pane reads).
pub fn keep_digests() {
    podflow_engine::store::set_digester(|object| {
        MEMO.with(|memo| Arc::new(Digest::of(&mut memo.borrow_mut().interner, object)))
    });
}

/// The digest kept with `entry`'s version, when it is a replaced one.
fn kept_digest(entry: &Entry<Archived>) -> Option<Arc<Digest>> {
    entry.object.digest()?.downcast::<Digest>().ok()
}

/// What the panes need of `entry`'s object.
fn summary(interner: &mut Interner, entry: &Entry<Archived>) -> Summary {
    match kept_digest(entry) {
        Some(kept) => kept.summary(),
        None => Digest::of(interner, &entry.object.load()).summary(),
    }
}

/// `entry`'s kind and short status, as the objects pane lists them: from
/// the digest of a replaced version, so that a row decodes nothing.
pub fn listed(entry: &Entry<Archived>) -> (&'static str, Option<String>) {
    if let Some(digest) = kept_digest(entry) {
        return (digest.kind, digest.status.clone());
    }
    let object = entry.object.load();
    (object.kind().kind, short_status(&object))
}

/// The object's short status, as `kubectl get` would print it.
fn short_status(object: &Object) -> Option<String> {
    let deleting = object.metadata().deletion_timestamp.is_some();
    let base = match object {
        Object::Pod(p) => {
            if deleting {
                return Some("Terminating".to_owned());
            }
            p.status.as_ref().and_then(|s| s.phase.clone())
        }
        Object::Deployment(d) => {
            let want = d.spec.replicas.unwrap_or(1);
            let ready = d.status.as_ref().and_then(|s| s.ready_replicas);
            Some(format!("{}/{want}", ready.unwrap_or(0)))
        }
        Object::ReplicaSet(r) => {
            let want = r.spec.replicas.unwrap_or(1);
            let ready = r.status.as_ref().and_then(|s| s.ready_replicas);
            Some(format!("{}/{want}", ready.unwrap_or(0)))
        }
        Object::Job(j) => {
            let want = j.spec.as_ref().and_then(|s| s.completions).unwrap_or(1);
            let done = j.status.as_ref().and_then(|s| s.succeeded).unwrap_or(0);
            Some(format!("{done}/{want}"))
        }
        _ => None,
    };
    match (base, deleting) {
        (Some(b), true) => Some(format!("{b} deleting")),
        (None, true) => Some("deleting".to_owned()),
        (b, false) => b,
    }
}

/// A Pod without a node that is neither being deleted nor finished.
fn waits_for_scheduler(object: &Object) -> bool {
    object.as_pod().is_some_and(|pod| {
        let spec = pod.spec.as_ref();
        let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
        spec.and_then(|s| s.node_name.as_deref())
            .is_none_or(str::is_empty)
            && pod.metadata.deletion_timestamp.is_none()
            && !matches!(phase, Some("Succeeded" | "Failed"))
    })
}

/// The summaries of one store.
#[derive(Clone)]
struct Index {
    store: Snapshot,
    summaries: Summaries,
}

impl Index {
    fn new(store: &Snapshot, interner: &mut Interner) -> Index {
        Index {
            store: store.clone(),
            summaries: store
                .shared_iter()
                .map(|(key, entry)| (Arc::clone(key), summary(interner, entry)))
                .collect(),
        }
    }

    /// These summaries brought to `store`, or built afresh when it differs
    /// from this one in most keys.
    fn moved_to(&self, store: &Snapshot, interner: &mut Interner) -> Index {
        let limit = (store.len().max(self.store.len()) / REBUILD_SHARE).max(SMALL_DIFF);
        let changed: Vec<_> = self.store.shared_diff(store).take(limit + 1).collect();
        if changed.len() > limit {
            return Index::new(store, interner);
        }
        let mut summaries = self.summaries.clone();
        for (key, now) in changed {
            match now {
                Some(entry) => {
                    summaries.insert(Arc::clone(key), summary(interner, entry));
                }
                None => {
                    summaries.remove(&**key);
                }
            }
        }
        Index {
            store: store.clone(),
            summaries,
        }
    }
}

/// The summaries kept: the stores shown lately (the latest last), and
/// milestones along the run so that no seek starts from afar.
struct Memo {
    anchors: Vec<Index>,
    milestones: Vec<Index>,
    /// Revisions between milestones; doubles as they are thinned.
    spacing: u64,
    interner: Interner,
}

impl Default for Memo {
    fn default() -> Memo {
        Memo {
            anchors: Vec::new(),
            milestones: Vec::new(),
            spacing: MILESTONE_SPACING,
            interner: Interner::default(),
        }
    }
}

impl Memo {
    /// The kept summaries nearest `store` in revision (within one run, the
    /// fewest changes away), brought to it.
    fn index_for(&mut self, store: &Snapshot) -> Index {
        let nearest = self
            .anchors
            .iter()
            .chain(&self.milestones)
            .min_by_key(|a| a.store.revision().abs_diff(store.revision()));
        match nearest {
            Some(near) => near.moved_to(store, &mut self.interner),
            None => Index::new(store, &mut self.interner),
        }
    }

    fn summaries(&mut self, store: &Snapshot) -> Summaries {
        let same = self.anchors.iter().position(|a| {
            a.store.revision() == store.revision() && a.store.diff(store).next().is_none()
        });
        let index = match same {
            Some(i) => self.anchors.remove(i),
            None => self.index_for(store),
        };
        let summaries = index.summaries.clone();
        self.anchors.push(index);
        if self.anchors.len() > ANCHORS {
            self.anchors.remove(0);
        }
        self.sweep(store);
        summaries
    }

    /// Keeps `store`'s summaries as a milestone unless one is within the
    /// spacing; past [`MILESTONES`], every other one goes and the spacing doubles.
    fn remember(&mut self, store: &Snapshot) {
        let spacing = self.spacing;
        let near = |m: &Index| m.store.revision().abs_diff(store.revision()) < spacing;
        if self.milestones.iter().any(near) {
            return;
        }
        let index = self.index_for(store);
        self.milestones.push(index);
        if self.milestones.len() > MILESTONES {
            self.milestones.sort_by_key(|m| m.store.revision());
            let mut keep = false;
            self.milestones.retain(|_| {
                keep = !keep;
                keep
            });
            self.spacing *= 2;
        }
        self.sweep(store);
    }

    /// Drops the owner lists no summary holds, once they outnumber the keys.
    fn sweep(&mut self, store: &Snapshot) {
        if self.interner.count > 2 * store.len() + 64 {
            self.interner.sweep();
        }
    }
}

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new(Memo::default());
}

/// Keeps the summaries of `store` as a milestone for later seeks (the TUI
/// calls this as it computes a run, so that a seek anywhere starts near).
pub fn remember(store: &Snapshot) {
    MEMO.with(|memo| memo.borrow_mut().remember(store));
}

/// Runs `f` on the summaries of `store`.
pub fn with_summaries<R>(store: &Snapshot, f: impl FnOnce(&Summaries) -> R) -> R {
    let summaries = MEMO.with(|memo| memo.borrow_mut().summaries(store));
    f(&summaries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use podflow_engine::store::{Archive, Store};
    use serde_json::json;

    /// The stores as a run's steps keep them, one after the other.
    fn snapshots(stores: &[Store]) -> Vec<Snapshot> {
        let mut archive = Archive::new(&Store::new());
        stores
            .iter()
            .map(|store| {
                archive.push(store);
                archive.snapshot().clone()
            })
            .collect()
    }

    fn pod(name: &str, node: Option<&str>, owner_uid: Option<&str>) -> Object {
        let mut meta = json!({"name": name, "namespace": "default", "uid": format!("u-{name}")});
        if let Some(uid) = owner_uid {
            meta["ownerReferences"] = json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                "name": "web-1", "uid": uid, "controller": true}]);
        }
        let mut spec = json!({"containers": [{"name": "c", "image": "nginx"}]});
        if let Some(node) = node {
            spec["nodeName"] = json!(node);
        }
        Object::from_json(
            podflow_model::kinds::kind_of("Pod"),
            json!({"metadata": meta, "spec": spec}),
        )
        .expect("a pod")
    }

    /// The stores as Pods `web-0`, `web-1`, … are created one by one,
    /// each with the owner `rs`.
    fn created_one_by_one(count: usize) -> Vec<Store> {
        let mut store = Store::new();
        (0..count)
            .map(|i| {
                let name = format!("web-{i}");
                store
                    .create(&key(&name), pod(&name, None, Some("rs")))
                    .expect("created");
                store.clone()
            })
            .collect()
    }

    fn key(name: &str) -> String {
        format!("/registry/pods/default/{name}")
    }

    /// The summaries as built afresh.
    fn fresh(store: &Snapshot) -> Summaries {
        Index::new(store, &mut Interner::default()).summaries
    }

    #[test]
    fn step_by_step_the_summaries_are_what_a_fresh_build_gives() {
        let mut interner = Interner::default();
        let mut index = Index::new(&Snapshot::default(), &mut interner);
        let mut stores = created_one_by_one(6);
        let mut store = stores[5].clone();
        let rv = store.get(&key("web-2")).expect("web-2").mod_revision;
        store
            .update(
                &key("web-2"),
                pod("web-2", Some("node-1"), Some("rs")),
                Some(rv),
            )
            .expect("bound");
        stores.push(store.clone());
        store.delete(&key("web-4")).expect("deleted");
        stores.push(store.clone());
        let stores = snapshots(&stores);
        // Forward, back, and jumps: each as a fresh build.
        for at in [0, 1, 5, 6, 7, 2, 7, 0, 3] {
            index = index.moved_to(&stores[at], &mut interner);
            assert_eq!(index.summaries, fresh(&stores[at]), "at {at}");
        }
        let summaries = fresh(&stores[7]);
        assert!(!summaries[key("web-2").as_str()].waiting);
        assert!(summaries[key("web-1").as_str()].waiting);
        assert!(!summaries.contains_key(key("web-4").as_str()));
        // One owner list serves every Pod of the ReplicaSet.
        let owners = |name: &str| {
            summaries[key(name).as_str()]
                .owners
                .clone()
                .expect("owners")
        };
        assert!(Arc::ptr_eq(&owners("web-0"), &owners("web-5")));
        assert_eq!(
            owners("web-0")[0],
            OwnerLink {
                kind: "ReplicaSet".to_owned(),
                name: "web-1".to_owned(),
                namespace: Some("default".to_owned()),
                uid: "rs".to_owned(),
                controller: true,
            }
        );
    }

    /// A version the steps keep encoded is summarized from the digest made
    /// before it was encoded, as its object would be.
    #[test]
    fn a_replaced_version_is_summarized_from_its_digest() {
        keep_digests();
        let mut store = Store::new();
        store
            .create(&key("web-0"), pod("web-0", None, Some("rs")))
            .expect("created");
        let created = store.clone();
        store
            .update(
                &key("web-0"),
                pod("web-0", Some("node-1"), Some("rs")),
                None,
            )
            .expect("bound");
        let snapshots = snapshots(&[created, store]);
        let before = snapshots[0].get(&key("web-0")).expect("web-0");
        assert!(before.object.is_retired() && before.object.digest().is_some());
        let mut interner = Interner::default();
        let kept = summary(&mut interner, before);
        let decoded = Digest::of(&mut interner, &before.object.load());
        assert!(kept.waiting && decoded.waiting, "not bound yet");
        assert_eq!(listed(before), ("Pod", decoded.status));
        assert_eq!(
            kept.owners.as_deref().map(|o| o[0].uid.clone()),
            Some("rs".to_owned())
        );
    }

    /// At every step of a run, the summaries a seek is answered with are
    /// what each object, decoded, says.
    #[test]
    fn every_steps_summaries_are_what_its_objects_say() {
        keep_digests();
        let create = format!(
            "create -f {}",
            podflow_engine::testing::fixture("web-service.yaml")
        );
        let steps = [
            &*create,
            "wait idle",
            "scale deployment web --replicas=60",
            "wait idle",
        ];
        let t = podflow_engine::testing::timeline(&steps, None);
        let mut interner = Interner::default();
        // As the TUI opens on a computed run: milestones spread over it.
        for i in 1..=64 {
            remember(&t.view((t.len() * i / 64).saturating_sub(1)).store);
        }
        for at in (0..t.len())
            .rev()
            .step_by(97)
            .chain((0..t.len()).step_by(31))
        {
            let store = t.view(at).store;
            let got = with_summaries(&store, Clone::clone);
            for (key, entry) in store.iter() {
                let object = entry.object.load();
                let rv = object.metadata().resource_version.as_deref();
                assert_eq!(rv, Some(&*entry.mod_revision.to_string()), "{key} at {at}");
                let decoded = Digest::of(&mut interner, &object);
                let summary = &got[key];
                assert_eq!(summary.waiting, decoded.waiting, "{key} at {at}");
                assert_eq!(summary.node, decoded.node, "{key} at {at}");
                assert_eq!(
                    summary.owners.as_deref(),
                    decoded.owners.as_deref(),
                    "{key} at {at}"
                );
            }
            assert_eq!(got.len(), store.len());
        }
    }

    #[test]
    fn the_memo_answers_for_the_store_asked_about() {
        let mut a = Store::new();
        a.create(&key("a"), pod("a", None, None)).expect("created");
        let mut b = Store::new();
        b.create(&key("b"), pod("b", Some("n"), None))
            .expect("created");
        let (a, b) = (Snapshot::of(&a), Snapshot::of(&b));
        for store in [&a, &b, &a] {
            let got = with_summaries(store, Clone::clone);
            assert_eq!(got, fresh(store));
        }
    }

    #[test]
    fn milestones_thin_out_and_every_answer_is_a_fresh_build() {
        let stores = snapshots(&created_one_by_one(200));
        let mut memo = Memo {
            spacing: 1,
            ..Memo::default()
        };
        for store in &stores {
            memo.remember(store);
        }
        assert!(memo.milestones.len() <= MILESTONES);
        assert!(memo.spacing > 1, "thinned: {}", memo.spacing);
        for at in [199, 0, 57, 58, 120, 3] {
            assert_eq!(memo.summaries(&stores[at]), fresh(&stores[at]), "at {at}");
        }
    }
}
