//! A controller's own writes that its informer has not seen yet. A write is
//! answered before its watch event reaches the cache; a sync that started
//! from the older cached copy would send a stale `resourceVersion` and be
//! refused with a conflict. So a sync waits for the cache to catch up with
//! the controller's own latest write: the watch event on its way queues the
//! key again.

use std::collections::BTreeMap;

use super::Informers;
use super::informer::key_of;
use podflow_model::Object;

/// The latest revision this controller wrote, per object.
#[derive(Debug, Clone, Default)]
pub struct OwnWrites {
    revisions: BTreeMap<(&'static str, String), u64>,
}

fn revision_of(object: &Object) -> Option<u64> {
    object.metadata().resource_version.as_deref()?.parse().ok()
}

impl OwnWrites {
    /// Remembers a write the API server answered with `object`.
    pub fn wrote(&mut self, object: &Object) {
        if let Some(rv) = revision_of(object) {
            self.revisions
                .insert((object.kind().kind, key_of(object)), rv);
        }
    }

    /// The first object `relevant` to a sync whose cached copy is older than
    /// this controller's write: `(kind, key, cached revision, written
    /// revision)`. Only objects whose watch event queues the synced key again
    /// may be waited for. Entries the cache has caught up with (or that are
    /// gone) are forgotten.
    pub fn lagging(
        &mut self,
        informers: &Informers,
        relevant: impl Fn(&Object) -> bool,
    ) -> Option<(&'static str, String, u64, u64)> {
        let mut behind = None;
        self.revisions.retain(|(kind, key), written| {
            let cached = informers.of_kind(kind).and_then(|i| i.get(key));
            match cached.and_then(|o| revision_of(o).map(|rv| (o, rv))) {
                Some((object, cached)) if cached < *written => {
                    if behind.is_none() && relevant(object) {
                        behind = Some((*kind, key.clone(), cached, *written));
                    }
                    true
                }
                _ => false,
            }
        });
        behind
    }
}
