//! Defaulting and create preparation of the storage kinds:
//! `SetDefaults_PersistentVolume`, `SetDefaults_PersistentVolumeClaim`
//! (`pkg/apis/core/v1/defaults.go`), `SetDefaults_StorageClass`
//! (`pkg/apis/storage/v1/defaults.go`) and the registries' `PrepareForCreate`
//! (`pkg/registry/core/persistentvolume/strategy.go`: a new volume is
//! `Pending` since its last phase transition; a new claim reads back `Pending`,
//! which the decoder's defaulting fills into the status the strategy cleared).

use k8s_openapi::api::core::v1::{PersistentVolumeClaimStatus, PersistentVolumeStatus};

use super::super::clock::SimTime;
use podflow_model::Object;

/// Fills in the storage kinds' defaults.
pub fn apply_defaults(object: &mut Object) {
    match object {
        Object::PersistentVolume(pv) => {
            if let Some(spec) = pv.spec.as_mut() {
                spec.persistent_volume_reclaim_policy
                    .get_or_insert_with(|| "Retain".into());
                spec.volume_mode.get_or_insert_with(|| "Filesystem".into());
            }
        }
        Object::PersistentVolumeClaim(pvc) => {
            if let Some(spec) = pvc.spec.as_mut() {
                spec.volume_mode.get_or_insert_with(|| "Filesystem".into());
            }
        }
        Object::StorageClass(sc) => {
            sc.reclaim_policy.get_or_insert_with(|| "Delete".into());
            sc.volume_binding_mode
                .get_or_insert_with(|| "Immediate".into());
        }
        _ => {}
    }
}

/// A new volume or claim starts `Pending`, whatever status it was sent with.
pub fn prepare_for_create(object: &mut Object, now: SimTime) {
    match object {
        Object::PersistentVolume(pv) => {
            pv.status = Some(PersistentVolumeStatus {
                phase: Some("Pending".into()),
                last_phase_transition_time: Some(now.to_time()),
                ..PersistentVolumeStatus::default()
            });
        }
        Object::PersistentVolumeClaim(pvc) => {
            pvc.status = Some(PersistentVolumeClaimStatus {
                phase: Some("Pending".into()),
                ..PersistentVolumeClaimStatus::default()
            });
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use podflow_model::kinds::kind_of;

    #[test]
    fn defaults_and_create() {
        let mut pv = Object::from_json(
            kind_of("PersistentVolume"),
            serde_json::json!({"metadata": {"name": "v"}, "spec": {}, "status": {"phase": "Bound"}}),
        )
        .unwrap();
        apply_defaults(&mut pv);
        prepare_for_create(&mut pv, SimTime::ZERO);
        let json = pv.to_json();
        assert_eq!(json["spec"]["persistentVolumeReclaimPolicy"], "Retain");
        assert_eq!(json["spec"]["volumeMode"], "Filesystem");
        assert_eq!(json["status"]["phase"], "Pending");
        let mut sc = Object::from_json(
            kind_of("StorageClass"),
            serde_json::json!({"metadata": {"name": "s"}, "provisioner": "p"}),
        )
        .unwrap();
        apply_defaults(&mut sc);
        let json = sc.to_json();
        assert_eq!(json["reclaimPolicy"], "Delete");
        assert_eq!(json["volumeBindingMode"], "Immediate");
    }
}
