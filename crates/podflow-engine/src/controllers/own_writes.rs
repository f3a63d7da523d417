//! A controller's own writes that its informer has not seen yet. A write is
//! answered before its watch event reaches the cache; a sync that started
//! from the older cached copy would send a stale `resourceVersion` and be
//! refused with a conflict. So a sync waits for the cache to catch up with
//! the controller's own latest write: the watch event on its way queues the
//! key again.
//!
//! An object the controller created is waited for too when the cache does
//! not hold it yet, as the endpointslice controller's `endpointSliceTracker`
//! does (`staging/src/k8s.io/endpointslice/endpointslice_tracker.go`,
//! `StaleSlices`): without it a second sync would create a second slice.

use std::collections::BTreeMap;

use super::Informers;
use super::informer::key_of;
use podflow_model::Object;

/// The latest revision this controller wrote, per object.
#[derive(Debug, Clone, Default)]
pub struct OwnWrites {
    revisions: BTreeMap<(&'static str, String), Written>,
}

/// One remembered write.
#[derive(Debug, Clone)]
struct Written {
    revision: u64,
    /// The object as created, while the cache may not hold it yet.
    created: Option<Object>,
}

/// A sync's reason to wait: `kind`, `key`, the cached revision (`None` when
/// the cache does not hold the object yet) and the written one.
pub type Lagging = (&'static str, String, Option<u64>, u64);

fn revision_of(object: &Object) -> Option<u64> {
    object.metadata().resource_version.as_deref()?.parse().ok()
}

impl OwnWrites {
    /// Remembers a write the API server answered with `object`.
    pub fn wrote(&mut self, object: &Object) {
        self.remember(object, None);
    }

    /// Remembers a create the API server answered with `object`: until the
    /// cache holds it, syncs wait for it.
    pub fn created(&mut self, object: &Object) {
        self.remember(object, Some(object.clone()));
    }

    fn remember(&mut self, object: &Object, created: Option<Object>) {
        if let Some(revision) = revision_of(object) {
            self.revisions.insert(
                (object.kind().kind, key_of(object)),
                Written { revision, created },
            );
        }
    }

    /// The first object `relevant` to a sync whose cached copy is older than
    /// this controller's write (or that it created and the cache does not
    /// hold yet). Only objects whose watch event queues the synced key again
    /// may be waited for. Entries the cache has caught up with (or that are
    /// gone) are forgotten.
    pub fn lagging(
        &mut self,
        informers: &Informers,
        relevant: impl Fn(&Object) -> bool,
    ) -> Option<Lagging> {
        let mut behind = None;
        self.revisions.retain(|(kind, key), written| {
            let cached = informers.of_kind(kind).and_then(|i| i.get(key));
            let (object, cached): (&Object, _) =
                match cached.and_then(|o| revision_of(o).map(|rv| (&**o, rv))) {
                    Some((object, cached)) if cached < written.revision => (object, Some(cached)),
                    None => match &written.created {
                        Some(object) => (object, None),
                        None => return false,
                    },
                    Some(_) => return false,
                };
            if behind.is_none() && relevant(object) {
                behind = Some((*kind, key.clone(), cached, written.revision));
            }
            true
        });
        behind
    }
}
