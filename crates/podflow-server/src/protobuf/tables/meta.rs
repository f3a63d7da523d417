//! meta/v1: object metadata, owner references, managed fields, label
//! selectors, delete options and conditions.
//!
//! Mirrors upstream `k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto` (Kubernetes 1.36:
//! kubernetes/api and kubernetes/apimachinery v0.36.3): field numbers and
//! wire types from that file; JSON names, `omitempty` and which fields are
//! pointers from the Go types (`types.go`) beside it. See `schema.rs` for
//! what `always`, `omitempty`, `pointer`, `list`… mean.

use crate::protobuf::schema::{Message, Ty, always, list, map, omitempty, pointer};

pub(crate) static CONDITION: Message = Message {
    name: "k8s.io.apimachinery.pkg.apis.meta.v1.Condition",
    fields: &[
        always(1, "type", Ty::String),
        always(2, "status", Ty::String),
        omitempty(3, "observedGeneration", Ty::Int64),
        always(4, "lastTransitionTime", Ty::Time),
        always(5, "reason", Ty::String),
        always(6, "message", Ty::String),
    ],
};

pub(crate) static DELETE_OPTIONS: Message = Message {
    name: "k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    fields: &[
        pointer(1, "gracePeriodSeconds", Ty::Int64),
        pointer(2, "preconditions", Ty::Message(&PRECONDITIONS)),
        pointer(3, "orphanDependents", Ty::Bool),
        pointer(4, "propagationPolicy", Ty::String),
        list(5, "dryRun", Ty::String),
        pointer(
            6,
            "ignoreStoreReadErrorWithClusterBreakingPotential",
            Ty::Bool,
        ),
    ],
};

pub(crate) static FIELD_SELECTOR_REQUIREMENT: Message = Message {
    name: "k8s.io.apimachinery.pkg.apis.meta.v1.FieldSelectorRequirement",
    fields: &[
        always(1, "key", Ty::String),
        always(2, "operator", Ty::String),
        list(3, "values", Ty::String),
    ],
};

pub(crate) static LABEL_SELECTOR: Message = Message {
    name: "k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector",
    fields: &[
        map(1, "matchLabels", Ty::String),
        list(
            2,
            "matchExpressions",
            Ty::Message(&LABEL_SELECTOR_REQUIREMENT),
        ),
    ],
};

pub(crate) static LABEL_SELECTOR_REQUIREMENT: Message = Message {
    name: "k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement",
    fields: &[
        always(1, "key", Ty::String),
        always(2, "operator", Ty::String),
        list(3, "values", Ty::String),
    ],
};

pub(crate) static MANAGED_FIELDS_ENTRY: Message = Message {
    name: "k8s.io.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry",
    fields: &[
        omitempty(1, "manager", Ty::String),
        omitempty(2, "operation", Ty::String),
        omitempty(3, "apiVersion", Ty::String),
        pointer(4, "time", Ty::Time),
        omitempty(6, "fieldsType", Ty::String),
        pointer(7, "fieldsV1", Ty::FieldsV1),
        omitempty(8, "subresource", Ty::String),
    ],
};

pub(crate) static OBJECT_META: Message = Message {
    name: "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta",
    fields: &[
        omitempty(1, "name", Ty::String),
        omitempty(2, "generateName", Ty::String),
        omitempty(3, "namespace", Ty::String),
        omitempty(4, "selfLink", Ty::String),
        omitempty(5, "uid", Ty::String),
        omitempty(6, "resourceVersion", Ty::String),
        omitempty(7, "generation", Ty::Int64),
        omitempty(8, "creationTimestamp", Ty::Time),
        pointer(9, "deletionTimestamp", Ty::Time),
        pointer(10, "deletionGracePeriodSeconds", Ty::Int64),
        map(11, "labels", Ty::String),
        map(12, "annotations", Ty::String),
        list(13, "ownerReferences", Ty::Message(&OWNER_REFERENCE)),
        list(14, "finalizers", Ty::String),
        list(17, "managedFields", Ty::Message(&MANAGED_FIELDS_ENTRY)),
    ],
};

pub(crate) static OWNER_REFERENCE: Message = Message {
    name: "k8s.io.apimachinery.pkg.apis.meta.v1.OwnerReference",
    fields: &[
        always(5, "apiVersion", Ty::String),
        always(1, "kind", Ty::String),
        always(3, "name", Ty::String),
        always(4, "uid", Ty::String),
        pointer(6, "controller", Ty::Bool),
        pointer(7, "blockOwnerDeletion", Ty::Bool),
    ],
};

pub(crate) static PRECONDITIONS: Message = Message {
    name: "k8s.io.apimachinery.pkg.apis.meta.v1.Preconditions",
    fields: &[
        pointer(1, "uid", Ty::String),
        pointer(2, "resourceVersion", Ty::String),
    ],
};
