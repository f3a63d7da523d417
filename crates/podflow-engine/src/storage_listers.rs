//! A component's view of the storage objects: the `PersistentVolumeClaim`,
//! `PersistentVolume` and `StorageClass` informers' caches, fed by its watch.
//! The scheduler's `VolumeBinding` reads them as upstream's `volumebinding`
//! plugin reads its listers (and assume caches); the kubelet's volume manager
//! reads the same caches where upstream's populator GETs the objects.

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::core::v1::{PersistentVolume, PersistentVolumeClaim};
use k8s_openapi::api::storage::v1::StorageClass;

use podflow_model::Object;
use podflow_model::storage::{BIND_COMPLETED_ANNOTATION, claim_annotation, claim_volume_name};

/// The cached storage objects.
#[derive(Debug, Clone, Default)]
pub struct Listers {
    /// Claims by `NS/NAME`.
    pub claims: BTreeMap<String, Arc<PersistentVolumeClaim>>,
    /// Volumes by name.
    pub volumes: BTreeMap<String, Arc<PersistentVolume>>,
    /// Classes by name.
    pub classes: BTreeMap<String, Arc<StorageClass>>,
}

impl Listers {
    /// Applies an object (added or changed, or `deleted`); false when it is no storage object.
    pub fn apply(&mut self, object: &Object, deleted: bool) -> bool {
        let name = object.name().to_owned();
        match object {
            Object::PersistentVolumeClaim(c) => {
                let key = format!("{}/{name}", object.namespace().unwrap_or_default());
                if deleted {
                    self.claims.remove(&key);
                } else {
                    self.claims.insert(key, Arc::new(c.clone()));
                }
            }
            Object::PersistentVolume(v) => {
                if deleted {
                    self.volumes.remove(&name);
                } else {
                    self.volumes
                        .insert(name, Arc::new(PersistentVolume::clone(v)));
                }
            }
            Object::StorageClass(sc) => {
                if deleted {
                    self.classes.remove(&name);
                } else {
                    self.classes.insert(name, Arc::new(sc.clone()));
                }
            }
            _ => return false,
        }
        true
    }

    /// The claim `NS/NAME`.
    pub fn claim(&self, namespace: &str, name: &str) -> Option<&Arc<PersistentVolumeClaim>> {
        self.claims.get(&format!("{namespace}/{name}"))
    }

    /// `checkBindings` for one claim: it names its volume, the volume names it
    /// back, and the PV controller finished (`pv.kubernetes.io/bind-completed`).
    pub fn fully_bound(&self, key: &str) -> bool {
        let Some(claim) = self.claims.get(key) else {
            return false;
        };
        let volume = claim_volume_name(claim);
        !volume.is_empty()
            && claim_annotation(claim, BIND_COMPLETED_ANNOTATION).is_some()
            && self.volumes.get(volume).is_some_and(|v| {
                v.spec
                    .as_ref()
                    .and_then(|s| s.claim_ref.as_ref())
                    .is_some_and(|r| r.uid == claim.metadata.uid)
            })
    }
}
