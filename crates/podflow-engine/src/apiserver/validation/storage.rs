//! Storage validation: `ValidatePersistentVolume`, `ValidatePersistentVolumeClaim`
//! (`pkg/apis/core/validation/validation.go`) and `ValidateStorageClass`
//! (`pkg/apis/storage/validation/validation.go`), the parts podflow's storage
//! path depends on: access modes, the claim's storage request, the volume's
//! capacity and source, a class's provisioner, reclaim policy and binding mode.
//! Out of scope: selectors, data sources, volume modes, node affinity contents,
//! per-source details, update rules beyond the claim's immutable spec.

use k8s_openapi::api::core::v1::{PersistentVolume, PersistentVolumeClaim};
use k8s_openapi::api::storage::v1::StorageClass;

use super::field::{invalid_raw, not_supported, required};
use podflow_model::quantity::parse_k8s;
use podflow_model::status::FieldError;

/// `supportedAccessModes`, sorted as `sets.List` sorts them.
const ACCESS_MODES: [&str; 4] = [
    "ReadOnlyMany",
    "ReadWriteMany",
    "ReadWriteOnce",
    "ReadWriteOncePod",
];

fn access_modes(modes: Option<&Vec<String>>, path: &str, errs: &mut Vec<FieldError>) {
    for mode in modes.into_iter().flatten() {
        if !ACCESS_MODES.contains(&mode.as_str()) {
            errs.push(not_supported(path, mode, &ACCESS_MODES));
        }
    }
}

/// `ValidatePersistentVolumeClaimUpdate`'s immutable spec: the old and new
/// specs as JSON when they differ beyond what an update may change — the
/// `volumeName` once (the PV controller binds), a `storageClassName` set
/// where there was none, and for a bound claim its storage request and
/// `volumeAttributesClassName`.
pub fn claim_spec_change(
    new: &PersistentVolumeClaim,
    old: &PersistentVolumeClaim,
) -> Option<(serde_json::Value, serde_json::Value)> {
    let old_spec = old.spec.clone().unwrap_or_default();
    let mut munged = new.spec.clone().unwrap_or_default();
    if old_spec
        .volume_name
        .as_deref()
        .unwrap_or_default()
        .is_empty()
    {
        munged.volume_name.clone_from(&old_spec.volume_name);
    }
    if old_spec.storage_class_name.is_none() {
        munged
            .storage_class_name
            .clone_from(&old_spec.storage_class_name);
    }
    let bound = old.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Bound");
    if bound {
        let old_storage = old_spec
            .resources
            .as_ref()
            .and_then(|r| r.requests.as_ref())
            .and_then(|r| r.get("storage"))
            .cloned();
        if let (Some(requests), Some(storage)) = (
            munged.resources.as_mut().and_then(|r| r.requests.as_mut()),
            old_storage,
        ) {
            requests.insert("storage".into(), storage);
        }
        munged
            .volume_attributes_class_name
            .clone_from(&old_spec.volume_attributes_class_name);
    }
    let old_json = serde_json::to_value(&old_spec).unwrap_or_default();
    let new_json = serde_json::to_value(&munged).unwrap_or_default();
    (old_json != new_json).then_some((old_json, new_json))
}

/// `ValidatePersistentVolumeClaimSpec`'s access modes and storage request.
pub fn validate_claim(pvc: &PersistentVolumeClaim, errs: &mut Vec<FieldError>) {
    let spec = pvc.spec.clone().unwrap_or_default();
    if spec.access_modes.as_ref().is_none_or(Vec::is_empty) {
        errs.push(required(
            "spec.accessModes",
            "at least 1 access mode is required",
        ));
    }
    access_modes(spec.access_modes.as_ref(), "spec.accessModes", errs);
    let path = "spec.resources[storage]";
    match spec
        .resources
        .as_ref()
        .and_then(|r| r.requests.as_ref())
        .and_then(|r| r.get("storage"))
    {
        None => errs.push(required(path, "")),
        Some(q) => {
            if let Ok(parsed) = parse_k8s(q)
                && (parsed.is_zero() || parsed.is_negative())
            {
                errs.push(invalid_raw(
                    path,
                    &format!("\"{parsed}\""),
                    "must be greater than zero",
                ));
            }
        }
    }
}

/// `ValidatePersistentVolumeSpec`'s access modes, capacity and volume source.
pub fn validate_volume(pv: &PersistentVolume, errs: &mut Vec<FieldError>) {
    let spec = pv.spec.clone().unwrap_or_default();
    if spec.access_modes.as_ref().is_none_or(Vec::is_empty) {
        errs.push(required(
            "spec.accessModes",
            "must specify at least 1 access mode",
        ));
    }
    access_modes(spec.access_modes.as_ref(), "spec.accessModes", errs);
    // A capacity with other resources is refused upstream with the map
    // printed by `%#v`; podflow does not imitate that rendering.
    if spec.capacity.is_none() {
        errs.push(required("spec.capacity", ""));
        errs.push(FieldError {
            body: "Unsupported value: core.ResourceList(nil): supported values: \"storage\"".into(),
            ..not_supported("spec.capacity", "", &["storage"])
        });
    }
    let sources = [
        spec.host_path.is_some(),
        spec.csi.is_some(),
        spec.local.is_some(),
        spec.nfs.is_some(),
        spec.iscsi.is_some(),
        spec.fc.is_some(),
    ];
    if !sources.contains(&true) {
        errs.push(required("spec", "must specify a volume type"));
    }
}

/// `ValidateStorageClass` minus the metadata.
pub fn validate_storage_class(sc: &StorageClass, errs: &mut Vec<FieldError>) {
    if sc.provisioner.is_empty() {
        errs.push(required("provisioner", ""));
    }
    if let Some(policy) = sc.reclaim_policy.as_deref()
        && !["Delete", "Retain"].contains(&policy)
    {
        errs.push(not_supported(
            "reclaimPolicy",
            policy,
            &["Delete", "Retain"],
        ));
    }
    if let Some(mode) = sc.volume_binding_mode.as_deref()
        && !["Immediate", "WaitForFirstConsumer"].contains(&mode)
    {
        errs.push(not_supported(
            "volumeBindingMode",
            mode,
            &["Immediate", "WaitForFirstConsumer"],
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(errs: &[FieldError]) -> Vec<String> {
        errs.iter()
            .map(|e| format!("{}: {}", e.field, e.body))
            .collect()
    }

    /// Rows of `TestValidatePersistentVolumeClaimUpdate`
    /// (`pkg/apis/core/validation/validation_test.go`): the binder may set
    /// `volumeName` once, a class may be set where there was none, but a class
    /// may not be changed or removed.
    #[test]
    fn a_claims_spec_is_immutable() {
        let claim = |class: Option<&str>, volume: Option<&str>| PersistentVolumeClaim {
            spec: Some(k8s_openapi::api::core::v1::PersistentVolumeClaimSpec {
                storage_class_name: class.map(str::to_owned),
                volume_name: volume.map(str::to_owned),
                access_modes: Some(vec!["ReadWriteOnce".into()]),
                ..Default::default()
            }),
            ..Default::default()
        };
        assert!(
            claim_spec_change(
                &claim(Some("fast"), Some("pv-1")),
                &claim(Some("fast"), None)
            )
            .is_none()
        );
        assert!(claim_spec_change(&claim(Some("fast"), None), &claim(None, None)).is_none());
        let (old, new) = claim_spec_change(&claim(None, None), &claim(Some("fast"), None))
            .expect("removing the class is refused");
        assert_eq!(old["storageClassName"], "fast");
        assert!(new.get("storageClassName").is_none());
        assert!(
            claim_spec_change(&claim(Some("standard"), None), &claim(Some("fast"), None)).is_some()
        );
    }

    /// Rows of `TestValidatePersistentVolumeClaim` / `TestValidatePersistentVolumes`
    /// (`pkg/apis/core/validation/validation_test.go`): the errors podflow checks.
    #[test]
    fn claims_and_volumes() {
        let cases: [(serde_json::Value, &[&str]); 4] = [
            (
                serde_json::json!({"spec": {}}),
                &[
                    "spec.accessModes: Required value: at least 1 access mode is required",
                    "spec.resources[storage]: Required value",
                ],
            ),
            (
                serde_json::json!({"spec": {"accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": "3Gi"}}}}),
                &[],
            ),
            (
                serde_json::json!({"spec": {"accessModes": ["fakemode"],
                    "resources": {"requests": {"storage": "0"}}}}),
                &[
                    "spec.accessModes: Unsupported value: \"fakemode\": supported values: \"ReadOnlyMany\", \"ReadWriteMany\", \"ReadWriteOnce\", \"ReadWriteOncePod\"",
                    "spec.resources[storage]: Invalid value: \"0\": must be greater than zero",
                ],
            ),
            (
                serde_json::json!({"spec": {"accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": "-1Gi"}}}}),
                &["spec.resources[storage]: Invalid value: \"-1Gi\": must be greater than zero"],
            ),
        ];
        for (spec, want) in cases {
            let pvc: PersistentVolumeClaim = serde_json::from_value(spec).unwrap();
            let mut errs = Vec::new();
            validate_claim(&pvc, &mut errs);
            assert_eq!(messages(&errs), want);
        }
        let pv: PersistentVolume = serde_json::from_value(serde_json::json!({"spec": {}})).unwrap();
        let mut errs = Vec::new();
        validate_volume(&pv, &mut errs);
        assert_eq!(
            messages(&errs),
            [
                "spec.accessModes: Required value: must specify at least 1 access mode",
                "spec.capacity: Required value",
                "spec.capacity: Unsupported value: core.ResourceList(nil): supported values: \"storage\"",
                "spec: Required value: must specify a volume type",
            ]
        );
    }

    #[test]
    fn storage_classes() {
        let sc: StorageClass = serde_json::from_value(serde_json::json!({
            "provisioner": "", "reclaimPolicy": "Recycle"
        }))
        .unwrap();
        let mut errs = Vec::new();
        validate_storage_class(&sc, &mut errs);
        assert_eq!(
            messages(&errs),
            [
                "provisioner: Required value",
                "reclaimPolicy: Unsupported value: \"Recycle\": supported values: \"Delete\", \"Retain\"",
            ]
        );
    }
}
