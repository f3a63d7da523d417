//! apps/v1: `Deployment` and `ReplicaSet`.
//!
//! Mirrors upstream `k8s.io/api/apps/v1/generated.proto` (Kubernetes 1.36:
//! kubernetes/api and kubernetes/apimachinery v0.36.3): field numbers and
//! wire types from that file; JSON names, `omitempty` and which fields are
//! pointers from the Go types (`types.go`) beside it. See `schema.rs` for
//! what `always`, `omitempty`, `pointer`, `list`… mean.

use super::core_pod::POD_TEMPLATE_SPEC;
use super::meta::{LABEL_SELECTOR, OBJECT_META};
use crate::protobuf::schema::{Message, Ty, always, list, omitempty, pointer, pointer_or_null};

pub(crate) static DEPLOYMENT: Message = Message {
    name: "k8s.io.api.apps.v1.Deployment",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        always(2, "spec", Ty::Message(&DEPLOYMENT_SPEC)),
        always(3, "status", Ty::Message(&DEPLOYMENT_STATUS)),
    ],
};

pub(crate) static DEPLOYMENT_CONDITION: Message = Message {
    name: "k8s.io.api.apps.v1.DeploymentCondition",
    fields: &[
        always(1, "type", Ty::String),
        always(2, "status", Ty::String),
        always(6, "lastUpdateTime", Ty::Time),
        always(7, "lastTransitionTime", Ty::Time),
        omitempty(4, "reason", Ty::String),
        omitempty(5, "message", Ty::String),
    ],
};

pub(crate) static DEPLOYMENT_SPEC: Message = Message {
    name: "k8s.io.api.apps.v1.DeploymentSpec",
    fields: &[
        pointer(1, "replicas", Ty::Int32),
        pointer_or_null(2, "selector", Ty::Message(&LABEL_SELECTOR)),
        always(3, "template", Ty::Message(&POD_TEMPLATE_SPEC)),
        always(4, "strategy", Ty::Message(&DEPLOYMENT_STRATEGY)),
        omitempty(5, "minReadySeconds", Ty::Int32),
        pointer(6, "revisionHistoryLimit", Ty::Int32),
        omitempty(7, "paused", Ty::Bool),
        pointer(9, "progressDeadlineSeconds", Ty::Int32),
    ],
};

pub(crate) static DEPLOYMENT_STATUS: Message = Message {
    name: "k8s.io.api.apps.v1.DeploymentStatus",
    fields: &[
        omitempty(1, "observedGeneration", Ty::Int64),
        omitempty(2, "replicas", Ty::Int32),
        omitempty(3, "updatedReplicas", Ty::Int32),
        omitempty(7, "readyReplicas", Ty::Int32),
        omitempty(4, "availableReplicas", Ty::Int32),
        omitempty(5, "unavailableReplicas", Ty::Int32),
        pointer(9, "terminatingReplicas", Ty::Int32),
        list(6, "conditions", Ty::Message(&DEPLOYMENT_CONDITION)),
        pointer(8, "collisionCount", Ty::Int32),
    ],
};

pub(crate) static DEPLOYMENT_STRATEGY: Message = Message {
    name: "k8s.io.api.apps.v1.DeploymentStrategy",
    fields: &[
        omitempty(1, "type", Ty::String),
        pointer(2, "rollingUpdate", Ty::Message(&ROLLING_UPDATE_DEPLOYMENT)),
    ],
};

pub(crate) static REPLICA_SET: Message = Message {
    name: "k8s.io.api.apps.v1.ReplicaSet",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        always(2, "spec", Ty::Message(&REPLICA_SET_SPEC)),
        always(3, "status", Ty::Message(&REPLICA_SET_STATUS)),
    ],
};

pub(crate) static REPLICA_SET_CONDITION: Message = Message {
    name: "k8s.io.api.apps.v1.ReplicaSetCondition",
    fields: &[
        always(1, "type", Ty::String),
        always(2, "status", Ty::String),
        always(3, "lastTransitionTime", Ty::Time),
        omitempty(4, "reason", Ty::String),
        omitempty(5, "message", Ty::String),
    ],
};

pub(crate) static REPLICA_SET_SPEC: Message = Message {
    name: "k8s.io.api.apps.v1.ReplicaSetSpec",
    fields: &[
        pointer(1, "replicas", Ty::Int32),
        omitempty(4, "minReadySeconds", Ty::Int32),
        pointer_or_null(2, "selector", Ty::Message(&LABEL_SELECTOR)),
        always(3, "template", Ty::Message(&POD_TEMPLATE_SPEC)),
    ],
};

pub(crate) static REPLICA_SET_STATUS: Message = Message {
    name: "k8s.io.api.apps.v1.ReplicaSetStatus",
    fields: &[
        always(1, "replicas", Ty::Int32),
        omitempty(2, "fullyLabeledReplicas", Ty::Int32),
        omitempty(4, "readyReplicas", Ty::Int32),
        omitempty(5, "availableReplicas", Ty::Int32),
        pointer(7, "terminatingReplicas", Ty::Int32),
        omitempty(3, "observedGeneration", Ty::Int64),
        list(6, "conditions", Ty::Message(&REPLICA_SET_CONDITION)),
    ],
};

pub(crate) static ROLLING_UPDATE_DEPLOYMENT: Message = Message {
    name: "k8s.io.api.apps.v1.RollingUpdateDeployment",
    fields: &[
        pointer(1, "maxUnavailable", Ty::IntOrString),
        pointer(2, "maxSurge", Ty::IntOrString),
    ],
};
