//! A shared informer for one resource (client-go `tools/cache`): it lists,
//! then keeps a local cache current from the watch's events, and says what
//! changed so the controllers' event handlers can queue keys.

use std::sync::Arc;

use imbl::OrdMap;

use crate::engine::store::{EventType, WatchEvent};
use crate::model::Object;

/// The cache of one resource, keyed `NAMESPACE/NAME` (`MetaNamespaceKeyFunc`).
#[derive(Debug, Clone, Default)]
pub struct Informer {
    cache: OrdMap<String, Arc<Object>>,
    /// The resourceVersion of the latest event seen.
    last_revision: u64,
}

/// What one watch event did to the cache, for the event handlers.
#[derive(Debug, Clone)]
pub enum Delta {
    Added(Arc<Object>),
    Updated { old: Arc<Object>, new: Arc<Object> },
    Deleted(Arc<Object>),
}

impl Delta {
    /// The object as the change left it (the last state of a deleted one).
    pub fn object(&self) -> &Arc<Object> {
        match self {
            Delta::Added(o) | Delta::Updated { new: o, .. } | Delta::Deleted(o) => o,
        }
    }
}

/// The cache key of an object: `NAMESPACE/NAME`, or `NAME` for cluster-scoped ones.
pub fn key_of(object: &Object) -> String {
    match object.namespace() {
        Some(ns) => format!("{ns}/{}", object.name()),
        None => object.name().to_owned(),
    }
}

impl Informer {
    /// Fills the cache from a list (the informer's first `LIST`).
    pub fn replace(&mut self, objects: &[Arc<Object>]) {
        self.cache = objects.iter().map(|o| (key_of(o), Arc::clone(o))).collect();
    }

    /// Applies one watch event; returns what changed.
    pub fn apply(&mut self, event: &WatchEvent) -> Delta {
        self.last_revision = self.last_revision.max(event.revision);
        let key = key_of(&event.object);
        let object = Arc::clone(&event.object);
        match event.event_type {
            EventType::Deleted => {
                self.cache.remove(&key);
                Delta::Deleted(object)
            }
            EventType::Added | EventType::Modified => {
                match self.cache.insert(key, Arc::clone(&object)) {
                    Some(old) => Delta::Updated { old, new: object },
                    None => Delta::Added(object),
                }
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
        self.cache
            .range(prefix.clone()..)
            .take_while(move |(k, _)| k.starts_with(&prefix))
            .map(|(_, o)| o)
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
