//! core/v1: the in-tree (cloud and network) volume sources a Pod's volumes
//! may still name.
//!
//! Mirrors upstream `k8s.io/api/core/v1/generated.proto` (Kubernetes 1.36:
//! kubernetes/api and kubernetes/apimachinery v0.36.3): field numbers and
//! wire types from that file; JSON names, `omitempty` and which fields are
//! pointers from the Go types (`types.go`) beside it. See `schema.rs` for
//! what `always`, `omitempty`, `pointer`, `list`… mean.

use super::core_pod::LOCAL_OBJECT_REFERENCE;
use crate::protobuf::schema::{
    Message, Ty, always, list, list_or_null, map, omitempty, pointer, pointer_or_null,
};

pub(crate) static AWS_ELASTIC_BLOCK_STORE_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.AWSElasticBlockStoreVolumeSource",
    fields: &[
        always(1, "volumeID", Ty::String),
        omitempty(2, "fsType", Ty::String),
        omitempty(3, "partition", Ty::Int32),
        omitempty(4, "readOnly", Ty::Bool),
    ],
};

pub(crate) static AZURE_DISK_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.AzureDiskVolumeSource",
    fields: &[
        always(1, "diskName", Ty::String),
        always(2, "diskURI", Ty::String),
        pointer(3, "cachingMode", Ty::String),
        pointer(4, "fsType", Ty::String),
        pointer(5, "readOnly", Ty::Bool),
        pointer(6, "kind", Ty::String),
    ],
};

pub(crate) static AZURE_FILE_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.AzureFileVolumeSource",
    fields: &[
        always(1, "secretName", Ty::String),
        always(2, "shareName", Ty::String),
        omitempty(3, "readOnly", Ty::Bool),
    ],
};

pub(crate) static CEPH_FS_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.CephFSVolumeSource",
    fields: &[
        list_or_null(1, "monitors", Ty::String),
        omitempty(2, "path", Ty::String),
        omitempty(3, "user", Ty::String),
        omitempty(4, "secretFile", Ty::String),
        pointer(5, "secretRef", Ty::Message(&LOCAL_OBJECT_REFERENCE)),
        omitempty(6, "readOnly", Ty::Bool),
    ],
};

pub(crate) static CINDER_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.CinderVolumeSource",
    fields: &[
        always(1, "volumeID", Ty::String),
        omitempty(2, "fsType", Ty::String),
        omitempty(3, "readOnly", Ty::Bool),
        pointer(4, "secretRef", Ty::Message(&LOCAL_OBJECT_REFERENCE)),
    ],
};

pub(crate) static FC_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.FCVolumeSource",
    fields: &[
        list(1, "targetWWNs", Ty::String),
        pointer(2, "lun", Ty::Int32),
        omitempty(3, "fsType", Ty::String),
        omitempty(4, "readOnly", Ty::Bool),
        list(5, "wwids", Ty::String),
    ],
};

pub(crate) static FLEX_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.FlexVolumeSource",
    fields: &[
        always(1, "driver", Ty::String),
        omitempty(2, "fsType", Ty::String),
        pointer(3, "secretRef", Ty::Message(&LOCAL_OBJECT_REFERENCE)),
        omitempty(4, "readOnly", Ty::Bool),
        map(5, "options", Ty::String),
    ],
};

pub(crate) static FLOCKER_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.FlockerVolumeSource",
    fields: &[
        omitempty(1, "datasetName", Ty::String),
        omitempty(2, "datasetUUID", Ty::String),
    ],
};

pub(crate) static GCE_PERSISTENT_DISK_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.GCEPersistentDiskVolumeSource",
    fields: &[
        always(1, "pdName", Ty::String),
        omitempty(2, "fsType", Ty::String),
        omitempty(3, "partition", Ty::Int32),
        omitempty(4, "readOnly", Ty::Bool),
    ],
};

pub(crate) static GIT_REPO_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.GitRepoVolumeSource",
    fields: &[
        always(1, "repository", Ty::String),
        omitempty(2, "revision", Ty::String),
        omitempty(3, "directory", Ty::String),
    ],
};

pub(crate) static GLUSTERFS_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.GlusterfsVolumeSource",
    fields: &[
        always(1, "endpoints", Ty::String),
        always(2, "path", Ty::String),
        omitempty(3, "readOnly", Ty::Bool),
    ],
};

pub(crate) static ISCSI_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.ISCSIVolumeSource",
    fields: &[
        always(1, "targetPortal", Ty::String),
        always(2, "iqn", Ty::String),
        always(3, "lun", Ty::Int32),
        omitempty(4, "iscsiInterface", Ty::String),
        omitempty(5, "fsType", Ty::String),
        omitempty(6, "readOnly", Ty::Bool),
        list(7, "portals", Ty::String),
        omitempty(8, "chapAuthDiscovery", Ty::Bool),
        omitempty(11, "chapAuthSession", Ty::Bool),
        pointer(10, "secretRef", Ty::Message(&LOCAL_OBJECT_REFERENCE)),
        pointer(12, "initiatorName", Ty::String),
    ],
};

pub(crate) static NFS_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.NFSVolumeSource",
    fields: &[
        always(1, "server", Ty::String),
        always(2, "path", Ty::String),
        omitempty(3, "readOnly", Ty::Bool),
    ],
};

pub(crate) static PHOTON_PERSISTENT_DISK_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.PhotonPersistentDiskVolumeSource",
    fields: &[
        always(1, "pdID", Ty::String),
        omitempty(2, "fsType", Ty::String),
    ],
};

pub(crate) static PORTWORX_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.PortworxVolumeSource",
    fields: &[
        always(1, "volumeID", Ty::String),
        omitempty(2, "fsType", Ty::String),
        omitempty(3, "readOnly", Ty::Bool),
    ],
};

pub(crate) static QUOBYTE_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.QuobyteVolumeSource",
    fields: &[
        always(1, "registry", Ty::String),
        always(2, "volume", Ty::String),
        omitempty(3, "readOnly", Ty::Bool),
        omitempty(4, "user", Ty::String),
        omitempty(5, "group", Ty::String),
        omitempty(6, "tenant", Ty::String),
    ],
};

pub(crate) static RBD_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.RBDVolumeSource",
    fields: &[
        list_or_null(1, "monitors", Ty::String),
        always(2, "image", Ty::String),
        omitempty(3, "fsType", Ty::String),
        omitempty(4, "pool", Ty::String),
        omitempty(5, "user", Ty::String),
        omitempty(6, "keyring", Ty::String),
        pointer(7, "secretRef", Ty::Message(&LOCAL_OBJECT_REFERENCE)),
        omitempty(8, "readOnly", Ty::Bool),
    ],
};

pub(crate) static SCALE_IO_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.ScaleIOVolumeSource",
    fields: &[
        always(1, "gateway", Ty::String),
        always(2, "system", Ty::String),
        pointer_or_null(3, "secretRef", Ty::Message(&LOCAL_OBJECT_REFERENCE)),
        omitempty(4, "sslEnabled", Ty::Bool),
        omitempty(5, "protectionDomain", Ty::String),
        omitempty(6, "storagePool", Ty::String),
        omitempty(7, "storageMode", Ty::String),
        omitempty(8, "volumeName", Ty::String),
        omitempty(9, "fsType", Ty::String),
        omitempty(10, "readOnly", Ty::Bool),
    ],
};

pub(crate) static STORAGE_OS_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.StorageOSVolumeSource",
    fields: &[
        omitempty(1, "volumeName", Ty::String),
        omitempty(2, "volumeNamespace", Ty::String),
        omitempty(3, "fsType", Ty::String),
        omitempty(4, "readOnly", Ty::Bool),
        pointer(5, "secretRef", Ty::Message(&LOCAL_OBJECT_REFERENCE)),
    ],
};

pub(crate) static VSPHERE_VIRTUAL_DISK_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.VsphereVirtualDiskVolumeSource",
    fields: &[
        always(1, "volumePath", Ty::String),
        omitempty(2, "fsType", Ty::String),
        omitempty(3, "storagePolicyName", Ty::String),
        omitempty(4, "storagePolicyID", Ty::String),
    ],
};
