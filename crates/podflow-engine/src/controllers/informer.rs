//! A shared informer for one resource (client-go `tools/cache`): it lists,
//! then keeps a local cache current from the watch's events, and says what
//! changed so the controllers' event handlers can queue keys.
//!
//! The cache keeps one index, by owner UID, as the controllers' pod informer
//! does upstream (`controller.AddPodControllerUIDIndexer` and
//! `FilterPodsByOwner` in `pkg/controller/controller_utils.go`; the garbage
//! collector's graph keeps the same relation in `uidToNode`): a controller
//! finds what it owns without reading every object of the namespace.

use std::ops::Bound;
use std::sync::Arc;

use imbl::OrdMap;

use crate::store::{EventType, WatchEvent};
use podflow_model::Object;

/// The cache of one resource, keyed `NAMESPACE/NAME` (`MetaNamespaceKeyFunc`).
#[derive(Debug, Clone, Default)]
pub struct Informer {
    cache: OrdMap<String, Arc<Object>>,
    /// Owner UID → the cached objects (by key) that name it in their
    /// `ownerReferences`.
    by_owner: OrdMap<String, OrdMap<String, Arc<Object>>>,
    /// The resourceVersion of the latest event seen.
    last_revision: u64,
}

/// What one watch event did to the cache, for the event handlers.
#[derive(Debug, Clone)]
pub enum InformerDelta {
    Added(Arc<Object>),
    Updated { old: Arc<Object>, new: Arc<Object> },
    Deleted(Arc<Object>),
}

impl InformerDelta {
    /// The object as the change left it (the last state of a deleted one).
    pub fn object(&self) -> &Arc<Object> {
        match self {
            InformerDelta::Added(o)
            | InformerDelta::Updated { new: o, .. }
            | InformerDelta::Deleted(o) => o,
        }
    }
}

/// The cache key of an object: `NAMESPACE/NAME`, or `NAME` for cluster-scoped ones.
pub fn key_of(object: &Object) -> String {
    match object.namespace() {
        Some(ns) => [ns, "/", object.name()].concat(),
        None => object.name().to_owned(),
    }
}

impl Informer {
    /// Fills the cache from a list (the informer's first `LIST`).
    pub fn replace(&mut self, objects: &[Arc<Object>]) {
        self.cache = objects.iter().map(|o| (key_of(o), Arc::clone(o))).collect();
        self.by_owner = OrdMap::new();
        for object in objects {
            self.index(&key_of(object), object);
        }
    }

    /// Adds `object` under each owner UID it names.
    fn index(&mut self, key: &str, object: &Arc<Object>) {
        for owner in object.metadata().owner_references.iter().flatten() {
            self.by_owner
                .entry(owner.uid.clone())
                .or_default()
                .insert(key.to_owned(), Arc::clone(object));
        }
    }

    /// Removes `key` from under each owner UID `object` names.
    fn unindex(&mut self, key: &str, object: &Object) {
        for owner in object.metadata().owner_references.iter().flatten() {
            if let Some(keys) = self.by_owner.get_mut(&owner.uid) {
                keys.remove(key);
                if keys.is_empty() {
                    self.by_owner.remove(&owner.uid);
                }
            }
        }
    }

    /// Applies one watch event; returns what changed.
    pub fn apply(&mut self, event: &WatchEvent) -> InformerDelta {
        self.last_revision = self.last_revision.max(event.revision);
        let key = key_of(&event.object);
        let object = Arc::clone(&event.object);
        match event.event_type {
            EventType::Deleted => {
                if let Some(old) = self.cache.remove(&key) {
                    self.unindex(&key, &old);
                }
                InformerDelta::Deleted(object)
            }
            EventType::Added | EventType::Modified => {
                let delta = match self.cache.insert(key.clone(), Arc::clone(&object)) {
                    Some(old) => {
                        self.unindex(&key, &old);
                        InformerDelta::Updated {
                            old,
                            new: Arc::clone(&object),
                        }
                    }
                    None => InformerDelta::Added(Arc::clone(&object)),
                };
                self.index(&key, &object);
                delta
            }
        }
    }

    /// The cached object at `key`.
    pub fn get(&self, key: &str) -> Option<&Arc<Object>> {
        self.cache.get(key)
    }

    /// Every cached object in `namespace`, in key order (a lister's `List`).
    pub fn list_in(&self, namespace: &str) -> impl Iterator<Item = &Arc<Object>> + '_ {
        let prefix = format!("{namespace}/");
        let from = (Bound::Included(prefix.as_str()), Bound::Unbounded);
        self.cache
            .range::<_, str>(from)
            .take_while(move |(k, _)| k.starts_with(&prefix))
            .map(|(_, o)| o)
    }

    /// Every cached object that names `uid` among its owners, in key order
    /// (an indexer's `ByIndex`).
    pub fn owned_by<'a>(&'a self, uid: &str) -> impl Iterator<Item = &'a Arc<Object>> + 'a {
        self.by_owner
            .get(uid)
            .into_iter()
            .flat_map(|owned| owned.values())
    }

    /// Every cached object, in key order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<Object>> {
        self.cache.values()
    }

    /// How many objects the cache holds.
    pub fn len(&self) -> usize {
        self.cache.len()
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.cache.is_empty()
    }

    /// The resourceVersion the cache has caught up to.
    pub fn last_revision(&self) -> u64 {
        self.last_revision
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{EventType, WatchEvent};

    fn pod(name: &str, owners: &[&str]) -> Arc<Object> {
        let refs: Vec<_> = owners
            .iter()
            .map(|uid| {
                serde_json::json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                "name": "rs", "uid": uid, "controller": true})
            })
            .collect();
        let pod = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "ownerReferences": refs}});
        Arc::new(Object::Pod(serde_json::from_value(pod).unwrap()))
    }

    fn event(event_type: EventType, object: Arc<Object>, revision: u64) -> WatchEvent {
        WatchEvent {
            event_type,
            object,
            revision,
        }
    }

    fn owned(informer: &Informer, uid: &str) -> Vec<String> {
        informer
            .owned_by(uid)
            .map(|o| o.name().to_owned())
            .collect()
    }

    #[test]
    fn the_owner_index_follows_adds_updates_and_deletes() {
        let mut informer = Informer::default();
        informer.replace(&[pod("a", &["u1"]), pod("b", &["u2"])]);
        assert_eq!(owned(&informer, "u1"), ["a"]);
        informer.apply(&event(EventType::Added, pod("c", &["u1"]), 2));
        assert_eq!(owned(&informer, "u1"), ["a", "c"]);
        // Released by its owner (an orphaning update), then adopted by another.
        informer.apply(&event(EventType::Modified, pod("a", &[]), 3));
        assert_eq!(owned(&informer, "u1"), ["c"]);
        informer.apply(&event(EventType::Modified, pod("a", &["u2"]), 4));
        assert_eq!(owned(&informer, "u2"), ["a", "b"]);
        informer.apply(&event(EventType::Deleted, pod("b", &["u2"]), 5));
        assert_eq!(owned(&informer, "u2"), ["a"]);
        assert!(owned(&informer, "u3").is_empty());
    }
}
