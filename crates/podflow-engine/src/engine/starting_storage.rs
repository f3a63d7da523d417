//! The starting cluster's storage objects and the RBAC that comes with them
//! (the default `StorageClass`, the CSI driver, the `persistent-volume-binder`
//! and `system:volume-scheduler` roles, the external-provisioner's identity)
//! take their UIDs from a random stream of their own and are written after the
//! rest of the starting cluster, so adding them changes no other object's UID
//! and no later draw of the engine's main stream (the scheduler's tie-breaks).

use podflow_model::Object;

/// Mixed into the seed of the storage objects' UID stream.
pub(super) const STORAGE_STREAM: u64 = 0x0073_746f_7261_6765;

/// The bootstrap RBAC objects that exist for storage, by kind and name.
const STORAGE_RBAC: [(&str, &str); 6] = [
    ("ClusterRole", "system:controller:persistent-volume-binder"),
    ("ClusterRole", "system:volume-scheduler"),
    (
        "ClusterRoleBinding",
        "system:controller:persistent-volume-binder",
    ),
    ("ClusterRoleBinding", "system:volume-scheduler"),
    ("ClusterRole", "external-provisioner-runner"),
    ("ClusterRoleBinding", "csi-provisioner-role"),
];

/// Whether a starting object belongs to storage: a storage kind, or one of
/// the roles, bindings and the service account made for it.
pub(super) fn is_storage_object(object: &Object) -> bool {
    let kind = object.kind().kind;
    match kind {
        "StorageClass" | "CSIDriver" | "PersistentVolume" | "PersistentVolumeClaim" => true,
        "ServiceAccount" => {
            object.namespace() == Some("kube-system") && object.name() == "csi-provisioner"
        }
        _ => STORAGE_RBAC.contains(&(kind, object.name())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::bootstrap_policy;

    #[test]
    fn every_storage_role_and_binding_exists_in_the_bootstrap_policy() {
        let mut objects = bootstrap_policy::cluster_roles();
        objects.extend(bootstrap_policy::cluster_role_bindings());
        let storage: Vec<&Object> = objects.iter().filter(|o| is_storage_object(o)).collect();
        let names: Vec<(&str, &str)> = storage.iter().map(|o| (o.kind().kind, o.name())).collect();
        assert_eq!(names, STORAGE_RBAC[..4].to_vec());
    }

    #[test]
    fn the_default_clusters_storage_objects() {
        let spec = podflow_scenario::default_cluster();
        let names: Vec<(&str, &str)> = spec
            .objects
            .iter()
            .filter(|m| is_storage_object(&m.object))
            .map(|m| (m.object.kind().kind, m.object.name()))
            .collect();
        assert_eq!(
            names,
            [
                ("CSIDriver", "hostpath.csi.k8s.io"),
                ("StorageClass", "standard"),
                ("ServiceAccount", "csi-provisioner"),
                ("ClusterRole", "external-provisioner-runner"),
                ("ClusterRoleBinding", "csi-provisioner-role"),
            ]
        );
    }
}
