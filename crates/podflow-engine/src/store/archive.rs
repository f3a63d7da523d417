//! The store as a computed run's steps keep it: each store the engine hands
//! over becomes the changes of a [`Snapshot`], its objects held as
//! [`Archived`] versions, and every version a change replaces is retired
//! (kept encoded from then on). A version is archived once: the snapshots of
//! every later step share its handle.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use podflow_model::Object;

use super::archived::Dictionaries;
use super::{Archived, Change, Entry, Snapshot, Store, StoreDelta};

/// The run's newest store, and the same as a snapshot.
#[derive(Clone)]
pub struct Archive {
    /// The engine's store as last handed over: what the next one is diffed with.
    newest: Store,
    snapshot: Snapshot,
    dictionaries: Dictionaries,
}

impl Archive {
    /// Starts from `store`, every object in it current.
    pub fn new(store: &Store) -> Archive {
        let mut archive = Archive {
            newest: Store::with_window(store.window),
            snapshot: Store::empty(store.window),
            dictionaries: Dictionaries::default(),
        };
        archive.push(store);
        archive
    }

    /// The snapshot of the store last handed over.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// Hands over the engine's store as it is now: returns what changed
    /// since the last one, as the snapshot applies it, and retires the
    /// versions it replaced.
    pub fn push(&mut self, store: &Store) -> StoreDelta<Archived> {
        let delta = store.delta_from(&self.newest);
        // Each changed key's latest handle so far, starting from the snapshot's.
        let mut latest: HashMap<&str, Archived> = HashMap::new();
        let handle_before = |key: &str, latest: &HashMap<&str, Archived>| {
            latest
                .get(key)
                .cloned()
                .or_else(|| self.snapshot.get(key).map(|e| e.object.clone()))
        };
        let mut appended = Vec::with_capacity(delta.appended.len());
        for change in &delta.appended {
            let prev = change.prev.as_ref().map(|prev| {
                handle_before(&change.key, &latest)
                    .unwrap_or_else(|| Archived::live(Arc::clone(prev)))
            });
            let object = Archived::live(Arc::clone(&change.object));
            latest.insert(&change.key, object.clone());
            appended.push(Change {
                revision: change.revision,
                key: change.key.clone(),
                object,
                prev,
                deleted: change.deleted,
            });
        }
        // The snapshot's versions of the changed keys are replaced, and so
        // are the versions written and replaced within this delta.
        let mut replaced = Vec::new();
        let mut current = HashSet::new();
        let changes = delta
            .changes
            .iter()
            .map(|(key, entry)| {
                if let Some(before) = self.snapshot.get(key) {
                    replaced.push(before.object.clone());
                }
                let entry = entry.as_ref().map(|entry| {
                    let object = reuse(latest.get(&**key), &entry.object)
                        .unwrap_or_else(|| Archived::live(Arc::clone(&entry.object)));
                    current.insert(object.id());
                    Entry {
                        object,
                        create_revision: entry.create_revision,
                        mod_revision: entry.mod_revision,
                        version: entry.version,
                    }
                });
                (Arc::clone(key), entry)
            })
            .collect();
        let archived = StoreDelta {
            changes,
            appended,
            revision: delta.revision,
            compacted: delta.compacted,
        };
        self.snapshot.apply_delta(&archived);
        self.newest = store.clone();
        let created = archived.appended.iter().map(|c| &c.object);
        for version in replaced.iter().chain(created) {
            if !current.contains(&version.id()) {
                version.retire(&mut self.dictionaries);
            }
        }
        archived
    }

    /// Starts over from `store`, the engine's, which `snapshot` shows: after
    /// a replay has brought a fresh engine to an earlier step.
    pub fn reset(&mut self, store: Store, snapshot: Snapshot) {
        self.newest = store;
        self.snapshot = snapshot;
    }
}

/// `handle`, when it holds `object` itself.
fn reuse(handle: Option<&Archived>, object: &Arc<Object>) -> Option<Archived> {
    handle.filter(|h| h.holds(object)).cloned()
}

impl Snapshot {
    /// A snapshot of `store`, every object in it current: for a store built
    /// by hand (tests, an observed cluster).
    pub fn of(store: &Store) -> Snapshot {
        Archive::new(store).snapshot
    }
}
