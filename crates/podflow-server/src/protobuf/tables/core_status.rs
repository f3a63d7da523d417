//! core/v1: a Pod's status, tolerated on the way in (clients rarely send it).
//!
//! Mirrors upstream `k8s.io/api/core/v1/generated.proto` (Kubernetes 1.36:
//! kubernetes/api and kubernetes/apimachinery v0.36.3): field numbers and
//! wire types from that file; JSON names, `omitempty` and which fields are
//! pointers from the Go types (`types.go`) beside it. See `schema.rs` for
//! what `always`, `omitempty`, `pointer`, `list`… mean.

use super::core_container::RESOURCE_REQUIREMENTS;
use crate::protobuf::schema::{
    Message, Ty, always, list, list_or_null, map, map_or_null, omitempty, pointer,
};

pub(crate) static CONTAINER_EXTENDED_RESOURCE_REQUEST: Message = Message {
    name: "k8s.io.api.core.v1.ContainerExtendedResourceRequest",
    fields: &[
        always(1, "containerName", Ty::String),
        always(2, "resourceName", Ty::String),
        always(3, "requestName", Ty::String),
    ],
};

pub(crate) static CONTAINER_STATE: Message = Message {
    name: "k8s.io.api.core.v1.ContainerState",
    fields: &[
        pointer(1, "waiting", Ty::Message(&CONTAINER_STATE_WAITING)),
        pointer(2, "running", Ty::Message(&CONTAINER_STATE_RUNNING)),
        pointer(3, "terminated", Ty::Message(&CONTAINER_STATE_TERMINATED)),
    ],
};

pub(crate) static CONTAINER_STATE_RUNNING: Message = Message {
    name: "k8s.io.api.core.v1.ContainerStateRunning",
    fields: &[always(1, "startedAt", Ty::Time)],
};

pub(crate) static CONTAINER_STATE_TERMINATED: Message = Message {
    name: "k8s.io.api.core.v1.ContainerStateTerminated",
    fields: &[
        always(1, "exitCode", Ty::Int32),
        omitempty(2, "signal", Ty::Int32),
        omitempty(3, "reason", Ty::String),
        omitempty(4, "message", Ty::String),
        always(5, "startedAt", Ty::Time),
        always(6, "finishedAt", Ty::Time),
        omitempty(7, "containerID", Ty::String),
    ],
};

pub(crate) static CONTAINER_STATE_WAITING: Message = Message {
    name: "k8s.io.api.core.v1.ContainerStateWaiting",
    fields: &[
        omitempty(1, "reason", Ty::String),
        omitempty(2, "message", Ty::String),
    ],
};

pub(crate) static CONTAINER_STATUS: Message = Message {
    name: "k8s.io.api.core.v1.ContainerStatus",
    fields: &[
        always(1, "name", Ty::String),
        always(2, "state", Ty::Message(&CONTAINER_STATE)),
        always(3, "lastState", Ty::Message(&CONTAINER_STATE)),
        always(4, "ready", Ty::Bool),
        always(5, "restartCount", Ty::Int32),
        always(6, "image", Ty::String),
        always(7, "imageID", Ty::String),
        omitempty(8, "containerID", Ty::String),
        pointer(9, "started", Ty::Bool),
        map(10, "allocatedResources", Ty::Quantity),
        pointer(11, "resources", Ty::Message(&RESOURCE_REQUIREMENTS)),
        list(12, "volumeMounts", Ty::Message(&VOLUME_MOUNT_STATUS)),
        pointer(13, "user", Ty::Message(&CONTAINER_USER)),
        list(
            14,
            "allocatedResourcesStatus",
            Ty::Message(&RESOURCE_STATUS),
        ),
        pointer(15, "stopSignal", Ty::String),
    ],
};

pub(crate) static CONTAINER_USER: Message = Message {
    name: "k8s.io.api.core.v1.ContainerUser",
    fields: &[pointer(1, "linux", Ty::Message(&LINUX_CONTAINER_USER))],
};

pub(crate) static HOST_IP: Message = Message {
    name: "k8s.io.api.core.v1.HostIP",
    fields: &[always(1, "ip", Ty::String)],
};

pub(crate) static IMAGE_VOLUME_STATUS: Message = Message {
    name: "k8s.io.api.core.v1.ImageVolumeStatus",
    fields: &[omitempty(1, "imageRef", Ty::String)],
};

pub(crate) static LINUX_CONTAINER_USER: Message = Message {
    name: "k8s.io.api.core.v1.LinuxContainerUser",
    fields: &[
        always(1, "uid", Ty::Int64),
        always(2, "gid", Ty::Int64),
        list(3, "supplementalGroups", Ty::Int64),
    ],
};

pub(crate) static NODE_ALLOCATABLE_RESOURCE_CLAIM_STATUS: Message = Message {
    name: "k8s.io.api.core.v1.NodeAllocatableResourceClaimStatus",
    fields: &[
        always(1, "resourceClaimName", Ty::String),
        list(2, "containers", Ty::String),
        map_or_null(3, "resources", Ty::Quantity),
    ],
};

pub(crate) static POD_CONDITION: Message = Message {
    name: "k8s.io.api.core.v1.PodCondition",
    fields: &[
        always(1, "type", Ty::String),
        omitempty(7, "observedGeneration", Ty::Int64),
        always(2, "status", Ty::String),
        always(3, "lastProbeTime", Ty::Time),
        always(4, "lastTransitionTime", Ty::Time),
        omitempty(5, "reason", Ty::String),
        omitempty(6, "message", Ty::String),
    ],
};

pub(crate) static POD_EXTENDED_RESOURCE_CLAIM_STATUS: Message = Message {
    name: "k8s.io.api.core.v1.PodExtendedResourceClaimStatus",
    fields: &[
        list_or_null(
            1,
            "requestMappings",
            Ty::Message(&CONTAINER_EXTENDED_RESOURCE_REQUEST),
        ),
        always(2, "resourceClaimName", Ty::String),
    ],
};

pub(crate) static POD_IP: Message = Message {
    name: "k8s.io.api.core.v1.PodIP",
    fields: &[always(1, "ip", Ty::String)],
};

pub(crate) static POD_RESOURCE_CLAIM_STATUS: Message = Message {
    name: "k8s.io.api.core.v1.PodResourceClaimStatus",
    fields: &[
        always(1, "name", Ty::String),
        pointer(2, "resourceClaimName", Ty::String),
    ],
};

pub(crate) static POD_STATUS: Message = Message {
    name: "k8s.io.api.core.v1.PodStatus",
    fields: &[
        omitempty(17, "observedGeneration", Ty::Int64),
        omitempty(1, "phase", Ty::String),
        list(2, "conditions", Ty::Message(&POD_CONDITION)),
        omitempty(3, "message", Ty::String),
        omitempty(4, "reason", Ty::String),
        omitempty(11, "nominatedNodeName", Ty::String),
        omitempty(5, "hostIP", Ty::String),
        list(16, "hostIPs", Ty::Message(&HOST_IP)),
        omitempty(6, "podIP", Ty::String),
        list(12, "podIPs", Ty::Message(&POD_IP)),
        pointer(7, "startTime", Ty::Time),
        list(10, "initContainerStatuses", Ty::Message(&CONTAINER_STATUS)),
        list(8, "containerStatuses", Ty::Message(&CONTAINER_STATUS)),
        omitempty(9, "qosClass", Ty::String),
        list(
            13,
            "ephemeralContainerStatuses",
            Ty::Message(&CONTAINER_STATUS),
        ),
        omitempty(14, "resize", Ty::String),
        list(
            15,
            "resourceClaimStatuses",
            Ty::Message(&POD_RESOURCE_CLAIM_STATUS),
        ),
        pointer(
            18,
            "extendedResourceClaimStatus",
            Ty::Message(&POD_EXTENDED_RESOURCE_CLAIM_STATUS),
        ),
        map(19, "allocatedResources", Ty::Quantity),
        pointer(20, "resources", Ty::Message(&RESOURCE_REQUIREMENTS)),
        list(
            21,
            "nodeAllocatableResourceClaimStatuses",
            Ty::Message(&NODE_ALLOCATABLE_RESOURCE_CLAIM_STATUS),
        ),
    ],
};

pub(crate) static RESOURCE_HEALTH: Message = Message {
    name: "k8s.io.api.core.v1.ResourceHealth",
    fields: &[
        always(1, "resourceID", Ty::String),
        omitempty(2, "health", Ty::String),
        pointer(6, "message", Ty::String),
    ],
};

pub(crate) static RESOURCE_STATUS: Message = Message {
    name: "k8s.io.api.core.v1.ResourceStatus",
    fields: &[
        always(1, "name", Ty::String),
        list(2, "resources", Ty::Message(&RESOURCE_HEALTH)),
    ],
};

pub(crate) static VOLUME_MOUNT_STATUS: Message = Message {
    name: "k8s.io.api.core.v1.VolumeMountStatus",
    fields: &[
        always(1, "name", Ty::String),
        always(2, "mountPath", Ty::String),
        omitempty(3, "readOnly", Ty::Bool),
        pointer(4, "recursiveReadOnly", Ty::String),
        pointer(5, "volumeStatus", Ty::Message(&VOLUME_STATUS)),
    ],
};

pub(crate) static VOLUME_STATUS: Message = Message {
    name: "k8s.io.api.core.v1.VolumeStatus",
    fields: &[pointer(1, "image", Ty::Message(&IMAGE_VOLUME_STATUS))],
};
