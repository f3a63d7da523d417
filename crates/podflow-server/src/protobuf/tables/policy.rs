//! policy/v1: `Eviction` and `PodDisruptionBudget`.
//!
//! Mirrors upstream `k8s.io/api/policy/v1/generated.proto` (Kubernetes 1.36:
//! kubernetes/api and kubernetes/apimachinery v0.36.3): field numbers and
//! wire types from that file; JSON names, `omitempty` and which fields are
//! pointers from the Go types (`types.go`) beside it. See `schema.rs` for
//! what `always`, `omitempty`, `pointer`, `list`… mean.

use super::meta::{CONDITION, DELETE_OPTIONS, LABEL_SELECTOR, OBJECT_META};
use crate::protobuf::schema::{Message, Ty, always, list, map, omitempty, pointer};

pub(crate) static EVICTION: Message = Message {
    name: "k8s.io.api.policy.v1.Eviction",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        pointer(2, "deleteOptions", Ty::Message(&DELETE_OPTIONS)),
    ],
};

pub(crate) static POD_DISRUPTION_BUDGET: Message = Message {
    name: "k8s.io.api.policy.v1.PodDisruptionBudget",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        always(2, "spec", Ty::Message(&POD_DISRUPTION_BUDGET_SPEC)),
        always(3, "status", Ty::Message(&POD_DISRUPTION_BUDGET_STATUS)),
    ],
};

pub(crate) static POD_DISRUPTION_BUDGET_SPEC: Message = Message {
    name: "k8s.io.api.policy.v1.PodDisruptionBudgetSpec",
    fields: &[
        pointer(1, "minAvailable", Ty::IntOrString),
        pointer(2, "selector", Ty::Message(&LABEL_SELECTOR)),
        pointer(3, "maxUnavailable", Ty::IntOrString),
        pointer(4, "unhealthyPodEvictionPolicy", Ty::String),
    ],
};

pub(crate) static POD_DISRUPTION_BUDGET_STATUS: Message = Message {
    name: "k8s.io.api.policy.v1.PodDisruptionBudgetStatus",
    fields: &[
        omitempty(1, "observedGeneration", Ty::Int64),
        map(2, "disruptedPods", Ty::Time),
        always(3, "disruptionsAllowed", Ty::Int32),
        always(4, "currentHealthy", Ty::Int32),
        always(5, "desiredHealthy", Ty::Int32),
        always(6, "expectedPods", Ty::Int32),
        list(7, "conditions", Ty::Message(&CONDITION)),
    ],
};
