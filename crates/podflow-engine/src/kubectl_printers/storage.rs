//! `kubectl get` rows for `PersistentVolumes`, `PersistentVolumeClaims` and
//! `StorageClasses` (`pkg/printers/internalversion/printers.go`:
//! `printPersistentVolume`, `printPersistentVolumeClaim`, `printStorageClass`).

use k8s_openapi::api::core::v1::{PersistentVolume, PersistentVolumeClaim};
use k8s_openapi::api::storage::v1::StorageClass;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use podflow_model::Object;
use podflow_model::quantity::parse_k8s;
use podflow_model::storage::is_default_class;

/// The header of each kind's table, if this module prints it.
pub fn header(kind: &str) -> Option<&'static [&'static str]> {
    match kind {
        "PersistentVolume" => Some(&[
            "NAME",
            "CAPACITY",
            "ACCESS MODES",
            "RECLAIM POLICY",
            "STATUS",
            "CLAIM",
            "STORAGECLASS",
            "VOLUMEATTRIBUTESCLASS",
            "REASON",
            "AGE",
        ]),
        "PersistentVolumeClaim" => Some(&[
            "NAME",
            "STATUS",
            "VOLUME",
            "CAPACITY",
            "ACCESS MODES",
            "STORAGECLASS",
            "VOLUMEATTRIBUTESCLASS",
            "AGE",
        ]),
        "StorageClass" => Some(&[
            "NAME",
            "PROVISIONER",
            "RECLAIMPOLICY",
            "VOLUMEBINDINGMODE",
            "ALLOWVOLUMEEXPANSION",
            "AGE",
        ]),
        _ => None,
    }
}

/// An object's cells but AGE (NAME first).
pub fn cells(o: &Object) -> Vec<String> {
    match o {
        Object::PersistentVolume(pv) => pv_cells(pv),
        Object::PersistentVolumeClaim(pvc) => pvc_cells(pvc),
        Object::StorageClass(sc) => storage_class_cells(sc),
        _ => vec![o.name().to_owned()],
    }
}

/// `helper.GetAccessModesAsString`: `RWO,ROX,RWX,RWOP`, in that order, once each.
pub fn access_modes(modes: Option<&Vec<String>>) -> String {
    let modes = modes.map(Vec::as_slice).unwrap_or_default();
    [
        ("ReadWriteOnce", "RWO"),
        ("ReadOnlyMany", "ROX"),
        ("ReadWriteMany", "RWX"),
        ("ReadWriteOncePod", "RWOP"),
    ]
    .iter()
    .filter(|(mode, _)| modes.iter().any(|m| m == mode))
    .map(|(_, short)| *short)
    .collect::<Vec<_>>()
    .join(",")
}

/// A quantity as `Quantity.String()` prints it (canonical), or as written if it does not parse.
fn quantity(q: Option<&Quantity>) -> String {
    q.map_or_else(
        || "0".to_owned(),
        |q| parse_k8s(q).map_or_else(|_| q.0.clone(), |p| p.to_string()),
    )
}

/// `printPersistentVolume` without AGE.
fn pv_cells(pv: &PersistentVolume) -> Vec<String> {
    let spec = pv.spec.clone().unwrap_or_default();
    let claim = spec.claim_ref.as_ref().map_or_else(String::new, |c| {
        format!(
            "{}/{}",
            c.namespace.as_deref().unwrap_or_default(),
            c.name.as_deref().unwrap_or_default()
        )
    });
    let phase = if pv.metadata.deletion_timestamp.is_some() {
        "Terminating".to_owned()
    } else {
        pv.status
            .as_ref()
            .and_then(|s| s.phase.clone())
            .unwrap_or_default()
    };
    vec![
        pv.metadata.name.clone().unwrap_or_default(),
        quantity(spec.capacity.as_ref().and_then(|c| c.get("storage"))),
        access_modes(spec.access_modes.as_ref()),
        spec.persistent_volume_reclaim_policy
            .clone()
            .unwrap_or_default(),
        phase,
        claim,
        spec.storage_class_name.clone().unwrap_or_default(),
        attributes_class(spec.volume_attributes_class_name.as_deref()),
        pv.status
            .as_ref()
            .and_then(|s| s.reason.clone())
            .unwrap_or_default(),
    ]
}

/// `<unset>` unless a `VolumeAttributesClass` is named.
fn attributes_class(name: Option<&str>) -> String {
    name.filter(|n| !n.is_empty())
        .unwrap_or("<unset>")
        .to_owned()
}

/// `printPersistentVolumeClaim` without AGE: capacity and access modes come
/// from the status once the claim names a volume.
fn pvc_cells(pvc: &PersistentVolumeClaim) -> Vec<String> {
    let spec = pvc.spec.clone().unwrap_or_default();
    let status = pvc.status.clone().unwrap_or_default();
    let phase = if pvc.metadata.deletion_timestamp.is_some() {
        "Terminating".to_owned()
    } else {
        status.phase.clone().unwrap_or_default()
    };
    let volume = spec.volume_name.clone().unwrap_or_default();
    let (capacity, modes) = if volume.is_empty() {
        (String::new(), String::new())
    } else {
        (
            quantity(status.capacity.as_ref().and_then(|c| c.get("storage"))),
            access_modes(status.access_modes.as_ref()),
        )
    };
    vec![
        pvc.metadata.name.clone().unwrap_or_default(),
        phase,
        volume,
        capacity,
        modes,
        spec.storage_class_name.clone().unwrap_or_default(),
        attributes_class(spec.volume_attributes_class_name.as_deref()),
    ]
}

/// `printStorageClass` without AGE.
fn storage_class_cells(sc: &StorageClass) -> Vec<String> {
    let mut name = sc.metadata.name.clone().unwrap_or_default();
    if is_default_class(sc) {
        name.push_str(" (default)");
    }
    vec![
        name,
        sc.provisioner.clone(),
        sc.reclaim_policy.clone().unwrap_or_else(|| "Delete".into()),
        sc.volume_binding_mode
            .clone()
            .unwrap_or_else(|| "Immediate".into()),
        sc.allow_volume_expansion.unwrap_or(false).to_string(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use podflow_model::kinds::kind_of;
    use podflow_model::storage::DEFAULT_CLASS_ANNOTATION;

    fn object(kind: &str, value: serde_json::Value) -> Object {
        Object::from_json(kind_of(kind), value).unwrap()
    }

    /// The header row, then each object's cells (`kubectl_printers::table` adds AGE).
    fn rows(kind: &str, objects: &[Object]) -> Vec<Vec<String>> {
        let mut table = vec![
            header(kind)
                .unwrap()
                .iter()
                .map(|c| (*c).to_owned())
                .collect(),
        ];
        table.extend(objects.iter().map(cells));
        table
    }

    /// Rows as `kubectl get pv,pvc,sc` prints them for the docs' task-pv example.
    #[test]
    fn storage_rows() {
        let at = serde_json::json!("2026-11-30T02:20:30Z");
        let pv = object(
            "PersistentVolume",
            serde_json::json!({"metadata": {"name": "task-pv-volume", "creationTimestamp": at},
                "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
                    "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "manual",
                    "claimRef": {"namespace": "default", "name": "task-pv-claim"}},
                "status": {"phase": "Bound"}}),
        );
        let table = rows("PersistentVolume", &[pv]);
        assert_eq!(
            table[1][..9],
            [
                "task-pv-volume",
                "10Gi",
                "RWO",
                "Retain",
                "Bound",
                "default/task-pv-claim",
                "manual",
                "<unset>",
                ""
            ]
        );
        let pending = object(
            "PersistentVolumeClaim",
            serde_json::json!({"metadata": {"name": "c"},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "3Gi"}},
                    "storageClassName": "standard"},
                "status": {"phase": "Pending"}}),
        );
        let bound = object(
            "PersistentVolumeClaim",
            serde_json::json!({"metadata": {"name": "task-pv-claim"},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "3Gi"}},
                    "storageClassName": "manual", "volumeName": "task-pv-volume"},
                "status": {"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "10Gi"}}}),
        );
        let table = rows("PersistentVolumeClaim", &[pending, bound]);
        assert_eq!(table[0][4], "ACCESS MODES");
        assert_eq!(
            table[1][..7],
            ["c", "Pending", "", "", "", "standard", "<unset>"]
        );
        assert_eq!(
            table[2][..7],
            [
                "task-pv-claim",
                "Bound",
                "task-pv-volume",
                "10Gi",
                "RWO",
                "manual",
                "<unset>"
            ]
        );
        let sc = object(
            "StorageClass",
            serde_json::json!({"metadata": {"name": "standard",
                    "annotations": {DEFAULT_CLASS_ANNOTATION: "true"}},
                "provisioner": "hostpath.csi.k8s.io", "volumeBindingMode": "WaitForFirstConsumer"}),
        );
        let table = rows("StorageClass", &[sc]);
        assert_eq!(
            table[1][..5],
            [
                "standard (default)",
                "hostpath.csi.k8s.io",
                "Delete",
                "WaitForFirstConsumer",
                "false"
            ]
        );
    }

    #[test]
    fn access_modes_print_in_upstream_order() {
        let modes = vec!["ReadWriteMany".to_owned(), "ReadWriteOnce".to_owned()];
        assert_eq!(access_modes(Some(&modes)), "RWO,RWX");
        assert_eq!(access_modes(None), "");
    }
}
