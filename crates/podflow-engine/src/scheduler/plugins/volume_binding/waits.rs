//! The asynchronous half of `VolumeBinding`'s `PreBind` (`BindPodVolumes`):
//! the pods whose claims the scheduler has written and must see bound
//! (`checkBindings`) before it binds them, and the storage caches those
//! checks read.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::component::RequestId;
use crate::storage_listers::Listers;
use podflow_model::Object;

/// One pod waiting in `PreBind`.
#[derive(Debug, Clone)]
struct Wait {
    node: String,
    claims: Vec<String>,
}

/// The scheduler's storage caches and the pods waiting for their volumes.
#[derive(Debug, Clone, Default)]
pub struct VolumeWaits {
    listers: Arc<Listers>,
    waits: BTreeMap<String, Wait>,
    /// The scheduler's volume writes in flight, by the pod they are for.
    writes: BTreeMap<RequestId, String>,
}

impl VolumeWaits {
    /// A watch event about a storage object; false if it was none.
    pub fn apply(&mut self, object: &Object, deleted: bool) -> bool {
        if !matches!(
            object,
            Object::PersistentVolumeClaim(_)
                | Object::PersistentVolume(_)
                | Object::StorageClass(_)
        ) {
            return false;
        }
        Arc::make_mut(&mut self.listers).apply(object, deleted)
    }

    /// The caches, for a scheduling cycle.
    pub fn listers(&self) -> Arc<Listers> {
        Arc::clone(&self.listers)
    }

    /// The pod `key`, assumed on `node`, waits for `claims` to be bound.
    pub fn wait(&mut self, key: &str, node: &str, claims: Vec<String>) {
        self.waits.insert(
            key.to_owned(),
            Wait {
                node: node.to_owned(),
                claims,
            },
        );
    }

    /// A write for the pod `key` is in flight.
    pub fn sent(&mut self, id: RequestId, key: &str) {
        self.writes.insert(id, key.to_owned());
    }

    /// The answer to a volume write: `Some(key)` of the pod whose wait ends
    /// because the write failed.
    pub fn answered(&mut self, id: RequestId, ok: bool) -> Option<Option<String>> {
        let key = self.writes.remove(&id)?;
        if ok {
            return Some(None);
        }
        self.waits.remove(&key);
        Some(Some(key))
    }

    /// Pods whose claims are all bound now, with their nodes; they wait no more.
    pub fn ready(&mut self) -> Vec<(String, String)> {
        let done: Vec<String> = self
            .waits
            .iter()
            .filter(|(_, w)| w.claims.iter().all(|c| self.listers.fully_bound(c)))
            .map(|(k, _)| k.clone())
            .collect();
        done.into_iter()
            .filter_map(|k| self.waits.remove(&k).map(|w| (k, w.node)))
            .collect()
    }

    /// Whether the pod `key` is waiting for its volumes.
    pub fn is_waiting(&self, key: &str) -> bool {
        self.waits.contains_key(key)
    }
}
