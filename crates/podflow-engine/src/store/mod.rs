//! etcd as the API server uses it: keys `/registry/<resource>/<namespace>/<name>`,
//! one global revision, per-key create and mod revisions, a change log that
//! watches replay from, and compaction (`410 Gone` for a watch from before it).
//!
//! Simplified: etcd keeps every revision until the API server compacts it
//! (every 5 minutes); this store keeps the latest [`HISTORY_WINDOW`] changes.
//! Nothing in podflow reads further back: watches are fanned out as each
//! write lands and the TUI shows the changes of the current step. A watch
//! from before the window is `410 Gone`, as one from before a compaction.
//!
//! The maps are persistent (`imbl`), so a snapshot is a cheap clone.

mod archive;
mod archived;
mod retiring;
pub mod selector;
mod watch;

pub use archive::Archive;
pub use archived::{Archived, Digest, Digester, set_digester};
pub use retiring::{Batch, Free, Retiring};

pub use watch::{EventType, WatchEvent, WatchFilter, field_value, is_selectable};

use std::ops::Bound;
use std::sync::Arc;

use imbl::ordmap::DiffItem;
use imbl::{OrdMap, Vector};

use podflow_model::kinds::REGISTRY;
use podflow_model::{Kind, Object};

/// How many of the latest changes the store keeps for watches to replay.
pub const HISTORY_WINDOW: usize = 4096;

/// How a store holds its objects: the engine's store the objects
/// themselves, a step's snapshot ([`Snapshot`]) a handle that may keep a
/// superseded version encoded ([`Archived`]).
pub trait Held: Clone + std::fmt::Debug + Send + Sync + 'static {
    /// Whether two handles hold the same object (by pointer first: two
    /// snapshots of one run share an unchanged entry's object).
    fn same(&self, other: &Self) -> bool;

    /// The object (shared, not copied).
    fn load(&self) -> Arc<Object>;
}

impl Held for Arc<Object> {
    fn same(&self, other: &Self) -> bool {
        Arc::ptr_eq(self, other) || self == other
    }

    fn load(&self) -> Arc<Object> {
        Arc::clone(self)
    }
}

/// The store as a step of a computed run shows it: its objects held as
/// [`Archived`] versions, decoded when they are read.
pub type Snapshot = Store<Archived>;

/// One stored key.
#[derive(Debug, Clone)]
pub struct Entry<O = Arc<Object>> {
    /// The object, with `metadata.resourceVersion` set to `mod_revision`.
    pub object: O,
    /// The revision that created the key.
    pub create_revision: u64,
    /// The revision that last changed it.
    pub mod_revision: u64,
    /// How many times it was written since created (etcd's `version`).
    pub version: u64,
}

/// Field by field, the revisions first and the object by pointer before by
/// content: two snapshots of one run share an unchanged entry's object, so
/// [`Store::diff`] settles most entries without reading them.
impl<O: Held> PartialEq for Entry<O> {
    fn eq(&self, other: &Entry<O>) -> bool {
        self.mod_revision == other.mod_revision
            && self.create_revision == other.create_revision
            && self.version == other.version
            && self.object.same(&other.object)
    }
}

/// One change, as the watch history keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct Change<O = Arc<Object>> {
    pub revision: u64,
    pub key: String,
    /// The object after the change (for a delete: its last state).
    pub object: O,
    /// The object before the change, if it existed.
    pub prev: Option<O>,
    pub deleted: bool,
}

/// Why a write or a watch failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    #[error("key already exists")]
    AlreadyExists,
    #[error("key not found")]
    NotFound,
    #[error("revision mismatch: expected {expected}, found {found}")]
    Conflict { expected: u64, found: u64 },
    #[error("required revision {requested} has been compacted (compacted revision {compacted})")]
    Compacted { requested: u64, compacted: u64 },
    #[error(
        "required revision {requested} is older than the history kept (from revision {kept_after})"
    )]
    Forgotten { requested: u64, kept_after: u64 },
}

/// The key-value store.
#[derive(Debug, Clone)]
pub struct Store<O = Arc<Object>> {
    revision: u64,
    compacted: u64,
    /// The keys are shared: a write copies the path of map nodes down to
    /// its key (a snapshot keeps the old path), and a copied node counts
    /// its keys' references instead of copying 64 strings.
    entries: OrdMap<Arc<str>, Entry<O>>,
    history: Vector<Change<O>>,
    /// How many changes `history` keeps ([`HISTORY_WINDOW`] but in tests).
    window: usize,
    /// The revision of the latest change dropped from the window (0: none).
    forgotten: u64,
    /// Where the changes that leave the history are freed.
    retiring: Retiring,
}

impl Default for Store {
    fn default() -> Store {
        Store::with_window(HISTORY_WINDOW)
    }
}

impl Default for Snapshot {
    fn default() -> Snapshot {
        Store::empty(HISTORY_WINDOW)
    }
}

/// The changes from one snapshot of a store to a later one (see
/// [`Store::delta_from`]): a few entries, where a snapshot would copy a path
/// of the map's nodes for each.
#[derive(Debug, Clone)]
pub struct StoreDelta<O = Arc<Object>> {
    /// Each changed key with its new entry (`None`: removed), in key order.
    changes: Vec<(Arc<str>, Option<Entry<O>>)>,
    /// The watch history's new changes.
    appended: Vec<Change<O>>,
    revision: u64,
    compacted: u64,
}

/// The etcd key of an object: `/registry/pods/default/nginx`, `/registry/nodes/node-1`.
pub fn key_for(kind: &Kind, namespace: Option<&str>, name: &str) -> String {
    match namespace {
        Some(ns) if kind.namespaced => [REGISTRY, kind.resource, "/", ns, "/", name].concat(),
        _ => [REGISTRY, kind.resource, "/", name].concat(),
    }
}

/// The key prefix of every object of `kind` (in `namespace`, when given).
pub fn prefix_for(kind: &Kind, namespace: Option<&str>) -> String {
    match namespace {
        Some(ns) if kind.namespaced => [REGISTRY, kind.resource, "/", ns, "/"].concat(),
        _ => kind.key_prefix(),
    }
}

impl<O> StoreDelta<O> {
    /// How many keys changed.
    pub fn len(&self) -> usize {
        self.changes.len()
    }

    /// Whether no key changed.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }
}

impl Store {
    /// An empty store at revision 0... as etcd starts at revision 1 for its
    /// first write.
    pub fn new() -> Store {
        Store::default()
    }

    /// An empty store keeping the latest `window` changes (at least one).
    pub fn with_window(window: usize) -> Store {
        Store::empty(window)
    }

    /// The objects `filter` sees, in key order: the initial list of a watch.
    /// A watch pinned to one name reads that key alone, as the API server
    /// serves `fieldSelector=metadata.name=` from its watch cache's index, so
    /// 1,000 kubelets listing their own Node read 1,000 keys, not a million.
    pub fn list(&self, filter: &WatchFilter) -> Vec<Arc<Object>> {
        let seen = |entry: &Entry| {
            filter
                .matches(&entry.object)
                .then(|| Arc::clone(&entry.object))
        };
        if let Some(key) = filter.pinned_key() {
            return self.get(&key).and_then(seen).into_iter().collect();
        }
        let prefix = prefix_for(filter.kind, filter.namespace.as_deref());
        self.range(&prefix)
            .filter_map(|(_, entry)| seen(entry))
            .collect()
    }

    /// What turns `older` (an earlier snapshot of this store's run) into
    /// this store: [`Store::apply_delta`] applies it.
    ///
    /// The changed keys are the watch history's since `older` when it holds
    /// every write since (one revision each), as the engine's writes do:
    /// `imbl`'s diff of two maps was seen to miss a changed entry (a Pod's
    /// status patch in a 1,000-replica run), so it only serves stores
    /// written without history (an observed cluster's).
    pub fn delta_from(&self, older: &Store) -> StoreDelta {
        let appended: Vec<Change> = (self.first_after(older.revision)..self.history.len())
            .map(|i| self.history[i].clone())
            .collect();
        let written = self.revision.saturating_sub(older.revision);
        // An observed store's writes keep their own revisions and no history.
        let changes = if written > 0 && written == appended.len() as u64 {
            let mut keys: Vec<&str> = appended.iter().map(|c| c.key.as_str()).collect();
            keys.sort_unstable();
            keys.dedup();
            keys.into_iter()
                .filter_map(|key| {
                    let now = self.entries.get_key_value(key);
                    let before = older.entries.get_key_value(key);
                    let shared = now.or(before).map(|(k, _)| Arc::clone(k))?;
                    Some((shared, now.map(|(_, e)| e.clone())))
                })
                .collect()
        } else {
            older
                .shared_diff(self)
                .map(|(key, entry)| (Arc::clone(key), entry.cloned()))
                .collect()
        };
        StoreDelta {
            changes,
            appended,
            revision: self.revision,
            compacted: self.compacted,
        }
    }
}

/// What every store reads alike, whatever holds its objects.
impl<O: Held> Store<O> {
    fn empty(window: usize) -> Store<O> {
        Store {
            revision: 0,
            compacted: 0,
            entries: OrdMap::new(),
            history: Vector::new(),
            window: window.max(1),
            forgotten: 0,
            retiring: Retiring::here(),
        }
    }

    /// The current (global) revision.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The last compacted revision: watches must start after it.
    pub fn compacted(&self) -> u64 {
        self.compacted
    }

    /// The entry at `key`.
    pub fn get(&self, key: &str) -> Option<&Entry<O>> {
        self.entries.get(key)
    }

    /// The object at `key` (decoded, when a step's snapshot keeps it encoded).
    pub fn object(&self, key: &str) -> Option<Arc<Object>> {
        self.get(key).map(|e| e.object.load())
    }

    /// Every entry whose key starts with `prefix`, in key order.
    pub fn range<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = (&'a str, &'a Entry<O>)> {
        self.entries
            .range::<_, str>((Bound::Included(prefix), Bound::Unbounded))
            .map(|(k, e)| (&**k, e))
            .take_while(move |(k, _)| k.starts_with(prefix))
    }

    /// Every entry, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Entry<O>)> {
        self.entries.iter().map(|(k, e)| (&**k, e))
    }

    /// [`Store::iter`] with the keys as the store shares them, for an index
    /// keyed like the store.
    pub fn shared_iter(&self) -> impl Iterator<Item = (&Arc<str>, &Entry<O>)> {
        self.entries.iter()
    }

    /// The keys whose entries differ from `self` to `other`, in key order,
    /// each with its entry in `other` (`None`: removed). Subtrees the two
    /// stores share (every snapshot of one run shares what it did not
    /// change) are skipped, so this costs what changed.
    pub fn diff<'a>(
        &'a self,
        other: &'a Store<O>,
    ) -> impl Iterator<Item = (&'a str, Option<&'a Entry<O>>)> {
        self.shared_diff(other).map(|(key, entry)| (&**key, entry))
    }

    /// [`Store::diff`] with the keys as the store shares them.
    pub fn shared_diff<'a>(
        &'a self,
        other: &'a Store<O>,
    ) -> impl Iterator<Item = (&'a Arc<str>, Option<&'a Entry<O>>)> {
        self.entries.diff(&other.entries).map(|item| match item {
            DiffItem::Add(key, new)
            | DiffItem::Update {
                new: (key, new), ..
            } => (key, Some(new)),
            DiffItem::Remove(key, _) => (key, None),
        })
    }

    /// Applies `delta`: this store then has the keys, revisions and watch
    /// history of the store it was taken from.
    pub fn apply_delta(&mut self, delta: &StoreDelta<O>) {
        for (key, entry) in &delta.changes {
            match entry {
                Some(entry) => {
                    self.entries.insert(Arc::clone(key), entry.clone());
                }
                None => {
                    self.entries.remove(&**key);
                }
            }
        }
        self.revision = delta.revision;
        for change in &delta.appended {
            self.record(change.clone());
        }
        self.compact(delta.compacted);
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no key is stored.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Appends `change` to the history, dropping the oldest beyond the window.
    fn record(&mut self, change: Change<O>) {
        self.history.push_back(change);
        if self.history.len() > self.window
            && let Some(dropped) = self.history.pop_front()
        {
            self.forgotten = dropped.revision;
            self.retiring.retire(dropped);
        }
    }

    /// Hands what leaves the history to `free`, in batches ([`Retiring`]).
    pub fn free_history_with(&mut self, free: Free) {
        self.retiring = Retiring::with(free);
    }

    /// The changes after revision `from` (exclusive), in order; fails with
    /// `Compacted` when `from` is older than the last compaction and with
    /// `Forgotten` when changes after it have left the window.
    pub fn changes_since(&self, from: u64) -> Result<impl Iterator<Item = &Change<O>>, StoreError> {
        if from < self.compacted {
            return Err(StoreError::Compacted {
                requested: from,
                compacted: self.compacted,
            });
        }
        if from < self.forgotten {
            return Err(StoreError::Forgotten {
                requested: from,
                kept_after: self.forgotten,
            });
        }
        // The history is in revision order: find the start by bisection, not
        // by a walk over the window (the API server asks for the latest
        // change after every write, the TUI for the current step's).
        let start = self.first_after(from);
        Ok((start..self.history.len()).map(|i| &self.history[i]))
    }

    /// The index of the first change after `revision` (the history's length when none is).
    fn first_after(&self, revision: u64) -> usize {
        self.history
            .binary_search_by(|c| {
                if c.revision <= revision {
                    std::cmp::Ordering::Less
                } else {
                    std::cmp::Ordering::Greater
                }
            })
            .unwrap_or_else(|i| i)
    }

    /// Forgets the history up to and including `revision`, as etcd's compaction does.
    pub fn compact(&mut self, revision: u64) {
        let revision = revision.min(self.revision);
        if revision <= self.compacted {
            return;
        }
        let keep = self.first_after(revision);
        let kept = self.history.skip(keep);
        self.retiring
            .retire(std::mem::replace(&mut self.history, kept));
        self.compacted = revision;
    }
}

/// The engine's store: etcd's writes.
impl Store {
    /// Creates `key`; fails if it exists.
    pub fn create(&mut self, key: &str, object: Object) -> Result<&Entry, StoreError> {
        if self.entries.contains_key(key) {
            return Err(StoreError::AlreadyExists);
        }
        self.revision += 1;
        let rev = self.revision;
        let object = Arc::new(stamp(object, rev));
        let entry = Entry {
            object: Arc::clone(&object),
            create_revision: rev,
            mod_revision: rev,
            version: 1,
        };
        self.entries.insert(Arc::from(key), entry);
        self.record(Change {
            revision: rev,
            key: key.to_owned(),
            object,
            prev: None,
            deleted: false,
        });
        Ok(&self.entries[key])
    }

    /// Replaces `key`; when `expected` is given, only if the key's mod revision
    /// still equals it (optimistic concurrency, as the API server's
    /// `GuaranteedUpdate` does with `resourceVersion`).
    pub fn update(
        &mut self,
        key: &str,
        object: Object,
        expected: Option<u64>,
    ) -> Result<&Entry, StoreError> {
        let current = self.entries.get(key).ok_or(StoreError::NotFound)?;
        if let Some(expected) = expected
            && expected != current.mod_revision
        {
            return Err(StoreError::Conflict {
                expected,
                found: current.mod_revision,
            });
        }
        let prev = Arc::clone(&current.object);
        let create_revision = current.create_revision;
        let version = current.version + 1;
        self.revision += 1;
        let rev = self.revision;
        let object = Arc::new(stamp(object, rev));
        // The key stays the one stored: only the entry is replaced.
        if let Some(entry) = self.entries.get_mut(key) {
            *entry = Entry {
                object: Arc::clone(&object),
                create_revision,
                mod_revision: rev,
                version,
            };
        }
        self.record(Change {
            revision: rev,
            key: key.to_owned(),
            object,
            prev: Some(prev),
            deleted: false,
        });
        Ok(&self.entries[key])
    }

    /// Sets `key` to an object as another cluster's API server served it
    /// (`podflow attach`): its `resourceVersion` is kept as that cluster's
    /// revision, and no watch history is written.
    pub fn put_observed(&mut self, key: &str, object: Arc<Object>) {
        let revision = object
            .metadata()
            .resource_version
            .as_deref()
            .and_then(|rv| rv.parse().ok())
            .unwrap_or(0);
        let (create_revision, version) = self
            .entries
            .get(key)
            .map_or((revision, 1), |e| (e.create_revision, e.version + 1));
        self.entries.insert(
            Arc::from(key),
            Entry {
                object,
                create_revision,
                mod_revision: revision,
                version,
            },
        );
        self.revision = self.revision.max(revision);
    }

    /// Removes an observed object's `key` ([`Store::put_observed`]).
    pub fn remove_observed(&mut self, key: &str) {
        self.entries.remove(key);
    }

    /// Deletes `key`, returning its last state; the delete gets its own revision.
    pub fn delete(&mut self, key: &str) -> Result<Arc<Object>, StoreError> {
        let entry = self.entries.remove(key).ok_or(StoreError::NotFound)?;
        self.revision += 1;
        let rev = self.revision;
        let last = Arc::new(stamp((*entry.object).clone(), rev));
        self.record(Change {
            revision: rev,
            key: key.to_owned(),
            object: Arc::clone(&last),
            prev: Some(entry.object),
            deleted: true,
        });
        Ok(last)
    }
}

/// Sets `metadata.resourceVersion` to the revision that wrote the object, as
/// the API server's etcd3 storage does when it reads an object back.
fn stamp(mut object: Object, revision: u64) -> Object {
    object.metadata_mut().resource_version = Some(revision.to_string());
    object
}

#[cfg(test)]
mod tests;
