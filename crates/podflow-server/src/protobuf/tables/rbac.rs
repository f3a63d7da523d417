//! rbac/v1: roles, cluster roles and their bindings.
//!
//! Mirrors upstream `k8s.io/api/rbac/v1/generated.proto` (Kubernetes 1.36:
//! kubernetes/api and kubernetes/apimachinery v0.36.3): field numbers and
//! wire types from that file; JSON names, `omitempty` and which fields are
//! pointers from the Go types (`types.go`) beside it. See `schema.rs` for
//! what `always`, `omitempty`, `pointer`, `list`… mean.

use super::meta::{LABEL_SELECTOR, OBJECT_META};
use crate::protobuf::schema::{Message, Ty, always, list, list_or_null, omitempty, pointer};

pub(crate) static AGGREGATION_RULE: Message = Message {
    name: "k8s.io.api.rbac.v1.AggregationRule",
    fields: &[list(
        1,
        "clusterRoleSelectors",
        Ty::Message(&LABEL_SELECTOR),
    )],
};

pub(crate) static CLUSTER_ROLE: Message = Message {
    name: "k8s.io.api.rbac.v1.ClusterRole",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        list_or_null(2, "rules", Ty::Message(&POLICY_RULE)),
        pointer(3, "aggregationRule", Ty::Message(&AGGREGATION_RULE)),
    ],
};

pub(crate) static CLUSTER_ROLE_BINDING: Message = Message {
    name: "k8s.io.api.rbac.v1.ClusterRoleBinding",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        list(2, "subjects", Ty::Message(&SUBJECT)),
        always(3, "roleRef", Ty::Message(&ROLE_REF)),
    ],
};

pub(crate) static POLICY_RULE: Message = Message {
    name: "k8s.io.api.rbac.v1.PolicyRule",
    fields: &[
        list_or_null(1, "verbs", Ty::String),
        list(2, "apiGroups", Ty::String),
        list(3, "resources", Ty::String),
        list(4, "resourceNames", Ty::String),
        list(5, "nonResourceURLs", Ty::String),
    ],
};

pub(crate) static ROLE: Message = Message {
    name: "k8s.io.api.rbac.v1.Role",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        list_or_null(2, "rules", Ty::Message(&POLICY_RULE)),
    ],
};

pub(crate) static ROLE_BINDING: Message = Message {
    name: "k8s.io.api.rbac.v1.RoleBinding",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        list(2, "subjects", Ty::Message(&SUBJECT)),
        always(3, "roleRef", Ty::Message(&ROLE_REF)),
    ],
};

pub(crate) static ROLE_REF: Message = Message {
    name: "k8s.io.api.rbac.v1.RoleRef",
    fields: &[
        always(1, "apiGroup", Ty::String),
        always(2, "kind", Ty::String),
        always(3, "name", Ty::String),
    ],
};

pub(crate) static SUBJECT: Message = Message {
    name: "k8s.io.api.rbac.v1.Subject",
    fields: &[
        always(1, "kind", Ty::String),
        omitempty(2, "apiGroup", Ty::String),
        always(3, "name", Ty::String),
        omitempty(4, "namespace", Ty::String),
    ],
};
