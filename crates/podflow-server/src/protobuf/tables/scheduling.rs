//! scheduling/v1: `PriorityClass`.
//!
//! Mirrors upstream `k8s.io/api/scheduling/v1/generated.proto` (Kubernetes 1.36:
//! kubernetes/api and kubernetes/apimachinery v0.36.3): field numbers and
//! wire types from that file; JSON names, `omitempty` and which fields are
//! pointers from the Go types (`types.go`) beside it. See `schema.rs` for
//! what `always`, `omitempty`, `pointer`, `list`… mean.

use super::meta::OBJECT_META;
use crate::protobuf::schema::{Message, Ty, always, omitempty, pointer};

pub(crate) static PRIORITY_CLASS: Message = Message {
    name: "k8s.io.api.scheduling.v1.PriorityClass",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        always(2, "value", Ty::Int32),
        omitempty(3, "globalDefault", Ty::Bool),
        omitempty(4, "description", Ty::String),
        pointer(5, "preemptionPolicy", Ty::String),
    ],
};
