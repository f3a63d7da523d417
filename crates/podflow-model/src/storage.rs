//! Storage helpers shared by the API server, controllers, scheduler and kubelet
//! (`pkg/apis/core/v1/helper`, `k8s.io/component-helpers/storage/volume`):
//! a claim's class, a class's default annotation, the well-known annotations.

use k8s_openapi::api::core::v1::{ObjectReference, PersistentVolume, PersistentVolumeClaim};
use k8s_openapi::api::storage::v1::StorageClass;

/// `storageclass.kubernetes.io/is-default-class`.
pub const DEFAULT_CLASS_ANNOTATION: &str = "storageclass.kubernetes.io/is-default-class";
/// `volume.kubernetes.io/selected-node`: the node the scheduler chose for a
/// `WaitForFirstConsumer` claim (`AnnSelectedNode`).
pub const SELECTED_NODE_ANNOTATION: &str = "volume.kubernetes.io/selected-node";
/// `volume.kubernetes.io/storage-provisioner` (`AnnStorageProvisioner`).
pub const STORAGE_PROVISIONER_ANNOTATION: &str = "volume.kubernetes.io/storage-provisioner";
/// `volume.beta.kubernetes.io/storage-provisioner` (`AnnBetaStorageProvisioner`).
pub const BETA_STORAGE_PROVISIONER_ANNOTATION: &str =
    "volume.beta.kubernetes.io/storage-provisioner";
/// `pv.kubernetes.io/bind-completed` (`AnnBindCompleted`).
pub const BIND_COMPLETED_ANNOTATION: &str = "pv.kubernetes.io/bind-completed";
/// `pv.kubernetes.io/bound-by-controller` (`AnnBoundByController`).
pub const BOUND_BY_CONTROLLER_ANNOTATION: &str = "pv.kubernetes.io/bound-by-controller";
/// `pv.kubernetes.io/provisioned-by` (`AnnDynamicallyProvisioned`).
pub const PROVISIONED_BY_ANNOTATION: &str = "pv.kubernetes.io/provisioned-by";

/// `GetBindVolumeToClaim` (`pkg/controller/volume/persistentvolume/util/util.go`),
/// as both the PV controller and the scheduler's `VolumeBinding` use it: the
/// volume's `claimRef` set to the claim, and `bound-by-controller` marked.
pub fn bind_volume_to_claim(volume: &mut PersistentVolume, claim: &PersistentVolumeClaim) {
    volume.spec.get_or_insert_with(Default::default).claim_ref = Some(claim_reference(claim));
    volume
        .metadata
        .annotations
        .get_or_insert_with(Default::default)
        .insert(BOUND_BY_CONTROLLER_ANNOTATION.into(), "yes".into());
}

/// A volume's `claimRef` to `claim` (`reference.GetReference`).
pub fn claim_reference(claim: &PersistentVolumeClaim) -> ObjectReference {
    ObjectReference {
        api_version: Some("v1".into()),
        kind: Some("PersistentVolumeClaim".into()),
        name: claim.metadata.name.clone(),
        namespace: claim.metadata.namespace.clone(),
        uid: claim.metadata.uid.clone(),
        resource_version: claim.metadata.resource_version.clone(),
        field_path: None,
    }
}

/// Whether a `StorageClass` is marked the default (`IsDefaultAnnotation`).
pub fn is_default_class(sc: &StorageClass) -> bool {
    sc.metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(DEFAULT_CLASS_ANNOTATION))
        .is_some_and(|v| v == "true")
}

/// `GetPersistentVolumeClaimClass`: `spec.storageClassName`, `""` when unset.
pub fn claim_class(pvc: &PersistentVolumeClaim) -> &str {
    pvc.spec
        .as_ref()
        .and_then(|s| s.storage_class_name.as_deref())
        .unwrap_or_default()
}

/// `GetPersistentVolumeClass`: `spec.storageClassName`, `""` when unset.
pub fn volume_class(pv: &PersistentVolume) -> &str {
    pv.spec
        .as_ref()
        .and_then(|s| s.storage_class_name.as_deref())
        .unwrap_or_default()
}

/// `spec.volumeName` of a claim, `""` when unset.
pub fn claim_volume_name(pvc: &PersistentVolumeClaim) -> &str {
    pvc.spec
        .as_ref()
        .and_then(|s| s.volume_name.as_deref())
        .unwrap_or_default()
}

/// `status.phase` of a claim.
pub fn claim_phase(pvc: &PersistentVolumeClaim) -> &str {
    pvc.status
        .as_ref()
        .and_then(|s| s.phase.as_deref())
        .unwrap_or_default()
}

/// `status.phase` of a volume.
pub fn volume_phase(pv: &PersistentVolume) -> &str {
    pv.status
        .as_ref()
        .and_then(|s| s.phase.as_deref())
        .unwrap_or_default()
}

/// An annotation of a claim.
pub fn claim_annotation<'a>(pvc: &'a PersistentVolumeClaim, key: &str) -> Option<&'a str> {
    pvc.metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(key))
        .map(String::as_str)
}

/// `NS/NAME` of a claim.
pub fn claim_key(pvc: &PersistentVolumeClaim) -> String {
    format!(
        "{}/{}",
        pvc.metadata.namespace.as_deref().unwrap_or_default(),
        pvc.metadata.name.as_deref().unwrap_or_default()
    )
}

/// Whether the class binds at the first consumer (`volumeBindingMode: WaitForFirstConsumer`).
pub fn waits_for_first_consumer(sc: &StorageClass) -> bool {
    sc.volume_binding_mode.as_deref() == Some("WaitForFirstConsumer")
}
