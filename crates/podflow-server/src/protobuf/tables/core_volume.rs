//! core/v1: a Pod's volumes and the volume sources in common use (emptyDir,
//! configMap, secret, persistentVolumeClaim, hostPath, projected, downwardAPI,
//! ephemeral, image, csi).
//!
//! Mirrors upstream `k8s.io/api/core/v1/generated.proto` (Kubernetes 1.36:
//! kubernetes/api and kubernetes/apimachinery v0.36.3): field numbers and
//! wire types from that file; JSON names, `omitempty` and which fields are
//! pointers from the Go types (`types.go`) beside it. See `schema.rs` for
//! what `always`, `omitempty`, `pointer`, `list`… mean.

use super::core_container::{OBJECT_FIELD_SELECTOR, RESOURCE_FIELD_SELECTOR};
use super::core_pod::{
    LOCAL_OBJECT_REFERENCE, TYPED_LOCAL_OBJECT_REFERENCE, TYPED_OBJECT_REFERENCE,
};
use super::core_volume_intree::{
    AWS_ELASTIC_BLOCK_STORE_VOLUME_SOURCE, AZURE_DISK_VOLUME_SOURCE, AZURE_FILE_VOLUME_SOURCE,
    CEPH_FS_VOLUME_SOURCE, CINDER_VOLUME_SOURCE, FC_VOLUME_SOURCE, FLEX_VOLUME_SOURCE,
    FLOCKER_VOLUME_SOURCE, GCE_PERSISTENT_DISK_VOLUME_SOURCE, GIT_REPO_VOLUME_SOURCE,
    GLUSTERFS_VOLUME_SOURCE, ISCSI_VOLUME_SOURCE, NFS_VOLUME_SOURCE,
    PHOTON_PERSISTENT_DISK_VOLUME_SOURCE, PORTWORX_VOLUME_SOURCE, QUOBYTE_VOLUME_SOURCE,
    RBD_VOLUME_SOURCE, SCALE_IO_VOLUME_SOURCE, STORAGE_OS_VOLUME_SOURCE,
    VSPHERE_VIRTUAL_DISK_VOLUME_SOURCE,
};
use super::meta::{LABEL_SELECTOR, OBJECT_META};
use crate::protobuf::schema::{
    Message, Ty, always, inline, list, list_or_null, map, omitempty, pointer,
};

pub(crate) static CSI_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.CSIVolumeSource",
    fields: &[
        always(1, "driver", Ty::String),
        pointer(2, "readOnly", Ty::Bool),
        pointer(3, "fsType", Ty::String),
        map(4, "volumeAttributes", Ty::String),
        pointer(
            5,
            "nodePublishSecretRef",
            Ty::Message(&LOCAL_OBJECT_REFERENCE),
        ),
    ],
};

pub(crate) static CLUSTER_TRUST_BUNDLE_PROJECTION: Message = Message {
    name: "k8s.io.api.core.v1.ClusterTrustBundleProjection",
    fields: &[
        pointer(1, "name", Ty::String),
        pointer(2, "signerName", Ty::String),
        pointer(3, "labelSelector", Ty::Message(&LABEL_SELECTOR)),
        pointer(5, "optional", Ty::Bool),
        always(4, "path", Ty::String),
    ],
};

pub(crate) static CONFIG_MAP_PROJECTION: Message = Message {
    name: "k8s.io.api.core.v1.ConfigMapProjection",
    fields: &[
        inline(1, &LOCAL_OBJECT_REFERENCE),
        list(2, "items", Ty::Message(&KEY_TO_PATH)),
        pointer(4, "optional", Ty::Bool),
    ],
};

pub(crate) static CONFIG_MAP_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.ConfigMapVolumeSource",
    fields: &[
        inline(1, &LOCAL_OBJECT_REFERENCE),
        list(2, "items", Ty::Message(&KEY_TO_PATH)),
        pointer(3, "defaultMode", Ty::Int32),
        pointer(4, "optional", Ty::Bool),
    ],
};

pub(crate) static DOWNWARD_API_PROJECTION: Message = Message {
    name: "k8s.io.api.core.v1.DownwardAPIProjection",
    fields: &[list(1, "items", Ty::Message(&DOWNWARD_API_VOLUME_FILE))],
};

pub(crate) static DOWNWARD_API_VOLUME_FILE: Message = Message {
    name: "k8s.io.api.core.v1.DownwardAPIVolumeFile",
    fields: &[
        always(1, "path", Ty::String),
        pointer(2, "fieldRef", Ty::Message(&OBJECT_FIELD_SELECTOR)),
        pointer(3, "resourceFieldRef", Ty::Message(&RESOURCE_FIELD_SELECTOR)),
        pointer(4, "mode", Ty::Int32),
    ],
};

pub(crate) static DOWNWARD_API_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.DownwardAPIVolumeSource",
    fields: &[
        list(1, "items", Ty::Message(&DOWNWARD_API_VOLUME_FILE)),
        pointer(2, "defaultMode", Ty::Int32),
    ],
};

pub(crate) static EMPTY_DIR_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.EmptyDirVolumeSource",
    fields: &[
        omitempty(1, "medium", Ty::String),
        pointer(2, "sizeLimit", Ty::Quantity),
    ],
};

pub(crate) static EPHEMERAL_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.EphemeralVolumeSource",
    fields: &[pointer(
        1,
        "volumeClaimTemplate",
        Ty::Message(&PERSISTENT_VOLUME_CLAIM_TEMPLATE),
    )],
};

pub(crate) static HOST_PATH_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.HostPathVolumeSource",
    fields: &[
        always(1, "path", Ty::String),
        pointer(2, "type", Ty::String),
    ],
};

pub(crate) static IMAGE_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.ImageVolumeSource",
    fields: &[
        omitempty(1, "reference", Ty::String),
        omitempty(2, "pullPolicy", Ty::String),
    ],
};

pub(crate) static KEY_TO_PATH: Message = Message {
    name: "k8s.io.api.core.v1.KeyToPath",
    fields: &[
        always(1, "key", Ty::String),
        always(2, "path", Ty::String),
        pointer(3, "mode", Ty::Int32),
    ],
};

pub(crate) static PERSISTENT_VOLUME_CLAIM_SPEC: Message = Message {
    name: "k8s.io.api.core.v1.PersistentVolumeClaimSpec",
    fields: &[
        list(1, "accessModes", Ty::String),
        pointer(4, "selector", Ty::Message(&LABEL_SELECTOR)),
        always(2, "resources", Ty::Message(&VOLUME_RESOURCE_REQUIREMENTS)),
        omitempty(3, "volumeName", Ty::String),
        pointer(5, "storageClassName", Ty::String),
        pointer(6, "volumeMode", Ty::String),
        pointer(7, "dataSource", Ty::Message(&TYPED_LOCAL_OBJECT_REFERENCE)),
        pointer(8, "dataSourceRef", Ty::Message(&TYPED_OBJECT_REFERENCE)),
        pointer(9, "volumeAttributesClassName", Ty::String),
    ],
};

pub(crate) static PERSISTENT_VOLUME_CLAIM_TEMPLATE: Message = Message {
    name: "k8s.io.api.core.v1.PersistentVolumeClaimTemplate",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        always(2, "spec", Ty::Message(&PERSISTENT_VOLUME_CLAIM_SPEC)),
    ],
};

pub(crate) static PERSISTENT_VOLUME_CLAIM_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.PersistentVolumeClaimVolumeSource",
    fields: &[
        always(1, "claimName", Ty::String),
        omitempty(2, "readOnly", Ty::Bool),
    ],
};

pub(crate) static POD_CERTIFICATE_PROJECTION: Message = Message {
    name: "k8s.io.api.core.v1.PodCertificateProjection",
    fields: &[
        omitempty(1, "signerName", Ty::String),
        omitempty(2, "keyType", Ty::String),
        pointer(3, "maxExpirationSeconds", Ty::Int32),
        omitempty(4, "credentialBundlePath", Ty::String),
        omitempty(5, "keyPath", Ty::String),
        omitempty(6, "certificateChainPath", Ty::String),
        map(7, "userAnnotations", Ty::String),
    ],
};

pub(crate) static PROJECTED_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.ProjectedVolumeSource",
    fields: &[
        list_or_null(1, "sources", Ty::Message(&VOLUME_PROJECTION)),
        pointer(2, "defaultMode", Ty::Int32),
    ],
};

pub(crate) static SECRET_PROJECTION: Message = Message {
    name: "k8s.io.api.core.v1.SecretProjection",
    fields: &[
        inline(1, &LOCAL_OBJECT_REFERENCE),
        list(2, "items", Ty::Message(&KEY_TO_PATH)),
        pointer(4, "optional", Ty::Bool),
    ],
};

pub(crate) static SECRET_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.SecretVolumeSource",
    fields: &[
        omitempty(1, "secretName", Ty::String),
        list(2, "items", Ty::Message(&KEY_TO_PATH)),
        pointer(3, "defaultMode", Ty::Int32),
        pointer(4, "optional", Ty::Bool),
    ],
};

pub(crate) static SERVICE_ACCOUNT_TOKEN_PROJECTION: Message = Message {
    name: "k8s.io.api.core.v1.ServiceAccountTokenProjection",
    fields: &[
        omitempty(1, "audience", Ty::String),
        pointer(2, "expirationSeconds", Ty::Int64),
        always(3, "path", Ty::String),
    ],
};

pub(crate) static VOLUME: Message = Message {
    name: "k8s.io.api.core.v1.Volume",
    fields: &[always(1, "name", Ty::String), inline(2, &VOLUME_SOURCE)],
};

pub(crate) static VOLUME_PROJECTION: Message = Message {
    name: "k8s.io.api.core.v1.VolumeProjection",
    fields: &[
        pointer(1, "secret", Ty::Message(&SECRET_PROJECTION)),
        pointer(2, "downwardAPI", Ty::Message(&DOWNWARD_API_PROJECTION)),
        pointer(3, "configMap", Ty::Message(&CONFIG_MAP_PROJECTION)),
        pointer(
            4,
            "serviceAccountToken",
            Ty::Message(&SERVICE_ACCOUNT_TOKEN_PROJECTION),
        ),
        pointer(
            5,
            "clusterTrustBundle",
            Ty::Message(&CLUSTER_TRUST_BUNDLE_PROJECTION),
        ),
        pointer(
            6,
            "podCertificate",
            Ty::Message(&POD_CERTIFICATE_PROJECTION),
        ),
    ],
};

pub(crate) static VOLUME_RESOURCE_REQUIREMENTS: Message = Message {
    name: "k8s.io.api.core.v1.VolumeResourceRequirements",
    fields: &[
        map(1, "limits", Ty::Quantity),
        map(2, "requests", Ty::Quantity),
    ],
};

pub(crate) static VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.VolumeSource",
    fields: &[
        pointer(1, "hostPath", Ty::Message(&HOST_PATH_VOLUME_SOURCE)),
        pointer(2, "emptyDir", Ty::Message(&EMPTY_DIR_VOLUME_SOURCE)),
        pointer(
            3,
            "gcePersistentDisk",
            Ty::Message(&GCE_PERSISTENT_DISK_VOLUME_SOURCE),
        ),
        pointer(
            4,
            "awsElasticBlockStore",
            Ty::Message(&AWS_ELASTIC_BLOCK_STORE_VOLUME_SOURCE),
        ),
        pointer(5, "gitRepo", Ty::Message(&GIT_REPO_VOLUME_SOURCE)),
        pointer(6, "secret", Ty::Message(&SECRET_VOLUME_SOURCE)),
        pointer(7, "nfs", Ty::Message(&NFS_VOLUME_SOURCE)),
        pointer(8, "iscsi", Ty::Message(&ISCSI_VOLUME_SOURCE)),
        pointer(9, "glusterfs", Ty::Message(&GLUSTERFS_VOLUME_SOURCE)),
        pointer(
            10,
            "persistentVolumeClaim",
            Ty::Message(&PERSISTENT_VOLUME_CLAIM_VOLUME_SOURCE),
        ),
        pointer(11, "rbd", Ty::Message(&RBD_VOLUME_SOURCE)),
        pointer(12, "flexVolume", Ty::Message(&FLEX_VOLUME_SOURCE)),
        pointer(13, "cinder", Ty::Message(&CINDER_VOLUME_SOURCE)),
        pointer(14, "cephfs", Ty::Message(&CEPH_FS_VOLUME_SOURCE)),
        pointer(15, "flocker", Ty::Message(&FLOCKER_VOLUME_SOURCE)),
        pointer(16, "downwardAPI", Ty::Message(&DOWNWARD_API_VOLUME_SOURCE)),
        pointer(17, "fc", Ty::Message(&FC_VOLUME_SOURCE)),
        pointer(18, "azureFile", Ty::Message(&AZURE_FILE_VOLUME_SOURCE)),
        pointer(19, "configMap", Ty::Message(&CONFIG_MAP_VOLUME_SOURCE)),
        pointer(
            20,
            "vsphereVolume",
            Ty::Message(&VSPHERE_VIRTUAL_DISK_VOLUME_SOURCE),
        ),
        pointer(21, "quobyte", Ty::Message(&QUOBYTE_VOLUME_SOURCE)),
        pointer(22, "azureDisk", Ty::Message(&AZURE_DISK_VOLUME_SOURCE)),
        pointer(
            23,
            "photonPersistentDisk",
            Ty::Message(&PHOTON_PERSISTENT_DISK_VOLUME_SOURCE),
        ),
        pointer(26, "projected", Ty::Message(&PROJECTED_VOLUME_SOURCE)),
        pointer(24, "portworxVolume", Ty::Message(&PORTWORX_VOLUME_SOURCE)),
        pointer(25, "scaleIO", Ty::Message(&SCALE_IO_VOLUME_SOURCE)),
        pointer(27, "storageos", Ty::Message(&STORAGE_OS_VOLUME_SOURCE)),
        pointer(28, "csi", Ty::Message(&CSI_VOLUME_SOURCE)),
        pointer(29, "ephemeral", Ty::Message(&EPHEMERAL_VOLUME_SOURCE)),
        pointer(30, "image", Ty::Message(&IMAGE_VOLUME_SOURCE)),
    ],
};
