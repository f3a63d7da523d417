//! authorization/v1: access reviews (`kubectl auth can-i`).
//!
//! Mirrors upstream `k8s.io/api/authorization/v1/generated.proto` (Kubernetes 1.36:
//! kubernetes/api and kubernetes/apimachinery v0.36.3): field numbers and
//! wire types from that file; JSON names, `omitempty` and which fields are
//! pointers from the Go types (`types.go`) beside it. See `schema.rs` for
//! what `always`, `omitempty`, `pointer`, `list`… mean.

use super::meta::{FIELD_SELECTOR_REQUIREMENT, LABEL_SELECTOR_REQUIREMENT, OBJECT_META};
use crate::protobuf::schema::{Message, Ty, always, list, list_or_null, map, omitempty, pointer};

pub(crate) static FIELD_SELECTOR_ATTRIBUTES: Message = Message {
    name: "k8s.io.api.authorization.v1.FieldSelectorAttributes",
    fields: &[
        omitempty(1, "rawSelector", Ty::String),
        list(2, "requirements", Ty::Message(&FIELD_SELECTOR_REQUIREMENT)),
    ],
};

pub(crate) static LABEL_SELECTOR_ATTRIBUTES: Message = Message {
    name: "k8s.io.api.authorization.v1.LabelSelectorAttributes",
    fields: &[
        omitempty(1, "rawSelector", Ty::String),
        list(2, "requirements", Ty::Message(&LABEL_SELECTOR_REQUIREMENT)),
    ],
};

pub(crate) static LOCAL_SUBJECT_ACCESS_REVIEW: Message = Message {
    name: "k8s.io.api.authorization.v1.LocalSubjectAccessReview",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        always(2, "spec", Ty::Message(&SUBJECT_ACCESS_REVIEW_SPEC)),
        always(3, "status", Ty::Message(&SUBJECT_ACCESS_REVIEW_STATUS)),
    ],
};

pub(crate) static NON_RESOURCE_ATTRIBUTES: Message = Message {
    name: "k8s.io.api.authorization.v1.NonResourceAttributes",
    fields: &[
        omitempty(1, "path", Ty::String),
        omitempty(2, "verb", Ty::String),
    ],
};

pub(crate) static NON_RESOURCE_RULE: Message = Message {
    name: "k8s.io.api.authorization.v1.NonResourceRule",
    fields: &[
        list_or_null(1, "verbs", Ty::String),
        list(2, "nonResourceURLs", Ty::String),
    ],
};

pub(crate) static RESOURCE_ATTRIBUTES: Message = Message {
    name: "k8s.io.api.authorization.v1.ResourceAttributes",
    fields: &[
        omitempty(1, "namespace", Ty::String),
        omitempty(2, "verb", Ty::String),
        omitempty(3, "group", Ty::String),
        omitempty(4, "version", Ty::String),
        omitempty(5, "resource", Ty::String),
        omitempty(6, "subresource", Ty::String),
        omitempty(7, "name", Ty::String),
        pointer(8, "fieldSelector", Ty::Message(&FIELD_SELECTOR_ATTRIBUTES)),
        pointer(9, "labelSelector", Ty::Message(&LABEL_SELECTOR_ATTRIBUTES)),
    ],
};

pub(crate) static RESOURCE_RULE: Message = Message {
    name: "k8s.io.api.authorization.v1.ResourceRule",
    fields: &[
        list_or_null(1, "verbs", Ty::String),
        list(2, "apiGroups", Ty::String),
        list(3, "resources", Ty::String),
        list(4, "resourceNames", Ty::String),
    ],
};

pub(crate) static SELF_SUBJECT_ACCESS_REVIEW: Message = Message {
    name: "k8s.io.api.authorization.v1.SelfSubjectAccessReview",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        always(2, "spec", Ty::Message(&SELF_SUBJECT_ACCESS_REVIEW_SPEC)),
        always(3, "status", Ty::Message(&SUBJECT_ACCESS_REVIEW_STATUS)),
    ],
};

pub(crate) static SELF_SUBJECT_ACCESS_REVIEW_SPEC: Message = Message {
    name: "k8s.io.api.authorization.v1.SelfSubjectAccessReviewSpec",
    fields: &[
        pointer(1, "resourceAttributes", Ty::Message(&RESOURCE_ATTRIBUTES)),
        pointer(
            2,
            "nonResourceAttributes",
            Ty::Message(&NON_RESOURCE_ATTRIBUTES),
        ),
    ],
};

pub(crate) static SELF_SUBJECT_RULES_REVIEW: Message = Message {
    name: "k8s.io.api.authorization.v1.SelfSubjectRulesReview",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        always(2, "spec", Ty::Message(&SELF_SUBJECT_RULES_REVIEW_SPEC)),
        always(3, "status", Ty::Message(&SUBJECT_RULES_REVIEW_STATUS)),
    ],
};

pub(crate) static SELF_SUBJECT_RULES_REVIEW_SPEC: Message = Message {
    name: "k8s.io.api.authorization.v1.SelfSubjectRulesReviewSpec",
    fields: &[omitempty(1, "namespace", Ty::String)],
};

pub(crate) static SUBJECT_ACCESS_REVIEW: Message = Message {
    name: "k8s.io.api.authorization.v1.SubjectAccessReview",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        always(2, "spec", Ty::Message(&SUBJECT_ACCESS_REVIEW_SPEC)),
        always(3, "status", Ty::Message(&SUBJECT_ACCESS_REVIEW_STATUS)),
    ],
};

pub(crate) static SUBJECT_ACCESS_REVIEW_SPEC: Message = Message {
    name: "k8s.io.api.authorization.v1.SubjectAccessReviewSpec",
    fields: &[
        pointer(1, "resourceAttributes", Ty::Message(&RESOURCE_ATTRIBUTES)),
        pointer(
            2,
            "nonResourceAttributes",
            Ty::Message(&NON_RESOURCE_ATTRIBUTES),
        ),
        omitempty(3, "user", Ty::String),
        list(4, "groups", Ty::String),
        map(5, "extra", Ty::StringItems),
        omitempty(6, "uid", Ty::String),
    ],
};

pub(crate) static SUBJECT_ACCESS_REVIEW_STATUS: Message = Message {
    name: "k8s.io.api.authorization.v1.SubjectAccessReviewStatus",
    fields: &[
        always(1, "allowed", Ty::Bool),
        omitempty(4, "denied", Ty::Bool),
        omitempty(2, "reason", Ty::String),
        omitempty(3, "evaluationError", Ty::String),
    ],
};

pub(crate) static SUBJECT_RULES_REVIEW_STATUS: Message = Message {
    name: "k8s.io.api.authorization.v1.SubjectRulesReviewStatus",
    fields: &[
        list_or_null(1, "resourceRules", Ty::Message(&RESOURCE_RULE)),
        list_or_null(2, "nonResourceRules", Ty::Message(&NON_RESOURCE_RULE)),
        always(3, "incomplete", Ty::Bool),
        omitempty(4, "evaluationError", Ty::String),
    ],
};
