//! autoscaling/v1: `Scale` and `HorizontalPodAutoscaler`.
//!
//! Mirrors upstream `k8s.io/api/autoscaling/v1/generated.proto` (Kubernetes 1.36:
//! kubernetes/api and kubernetes/apimachinery v0.36.3): field numbers and
//! wire types from that file; JSON names, `omitempty` and which fields are
//! pointers from the Go types (`types.go`) beside it. See `schema.rs` for
//! what `always`, `omitempty`, `pointer`, `list`… mean.

use super::meta::OBJECT_META;
use crate::protobuf::schema::{Message, Ty, always, omitempty, pointer};

pub(crate) static CROSS_VERSION_OBJECT_REFERENCE: Message = Message {
    name: "k8s.io.api.autoscaling.v1.CrossVersionObjectReference",
    fields: &[
        always(1, "kind", Ty::String),
        always(2, "name", Ty::String),
        omitempty(3, "apiVersion", Ty::String),
    ],
};

pub(crate) static HORIZONTAL_POD_AUTOSCALER: Message = Message {
    name: "k8s.io.api.autoscaling.v1.HorizontalPodAutoscaler",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        always(2, "spec", Ty::Message(&HORIZONTAL_POD_AUTOSCALER_SPEC)),
        always(3, "status", Ty::Message(&HORIZONTAL_POD_AUTOSCALER_STATUS)),
    ],
};

pub(crate) static HORIZONTAL_POD_AUTOSCALER_SPEC: Message = Message {
    name: "k8s.io.api.autoscaling.v1.HorizontalPodAutoscalerSpec",
    fields: &[
        always(
            1,
            "scaleTargetRef",
            Ty::Message(&CROSS_VERSION_OBJECT_REFERENCE),
        ),
        pointer(2, "minReplicas", Ty::Int32),
        always(3, "maxReplicas", Ty::Int32),
        pointer(4, "targetCPUUtilizationPercentage", Ty::Int32),
    ],
};

pub(crate) static HORIZONTAL_POD_AUTOSCALER_STATUS: Message = Message {
    name: "k8s.io.api.autoscaling.v1.HorizontalPodAutoscalerStatus",
    fields: &[
        pointer(1, "observedGeneration", Ty::Int64),
        pointer(2, "lastScaleTime", Ty::Time),
        always(3, "currentReplicas", Ty::Int32),
        always(4, "desiredReplicas", Ty::Int32),
        pointer(5, "currentCPUUtilizationPercentage", Ty::Int32),
    ],
};

pub(crate) static SCALE: Message = Message {
    name: "k8s.io.api.autoscaling.v1.Scale",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        always(2, "spec", Ty::Message(&SCALE_SPEC)),
        always(3, "status", Ty::Message(&SCALE_STATUS)),
    ],
};

pub(crate) static SCALE_SPEC: Message = Message {
    name: "k8s.io.api.autoscaling.v1.ScaleSpec",
    fields: &[omitempty(1, "replicas", Ty::Int32)],
};

pub(crate) static SCALE_STATUS: Message = Message {
    name: "k8s.io.api.autoscaling.v1.ScaleStatus",
    fields: &[
        always(1, "replicas", Ty::Int32),
        omitempty(2, "selector", Ty::String),
    ],
};
