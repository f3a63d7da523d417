//! authentication/v1: `SelfSubjectReview` (`kubectl auth whoami`),
//! `TokenRequest` (`kubectl create token`) and `TokenReview`.
//!
//! Mirrors upstream `k8s.io/api/authentication/v1/generated.proto` (Kubernetes 1.36:
//! kubernetes/api and kubernetes/apimachinery v0.36.3): field numbers and
//! wire types from that file; JSON names, `omitempty` and which fields are
//! pointers from the Go types (`types.go`) beside it. See `schema.rs` for
//! what `always`, `omitempty`, `pointer`, `list`… mean.

use super::meta::OBJECT_META;
use crate::protobuf::schema::{
    Message, Ty, always, list, list_or_null, map, omitempty, pointer_or_null,
};

pub(crate) static BOUND_OBJECT_REFERENCE: Message = Message {
    name: "k8s.io.api.authentication.v1.BoundObjectReference",
    fields: &[
        omitempty(1, "kind", Ty::String),
        omitempty(2, "apiVersion", Ty::String),
        omitempty(3, "name", Ty::String),
        omitempty(4, "uid", Ty::String),
    ],
};

pub(crate) static SELF_SUBJECT_REVIEW: Message = Message {
    name: "k8s.io.api.authentication.v1.SelfSubjectReview",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        always(2, "status", Ty::Message(&SELF_SUBJECT_REVIEW_STATUS)),
    ],
};

pub(crate) static SELF_SUBJECT_REVIEW_STATUS: Message = Message {
    name: "k8s.io.api.authentication.v1.SelfSubjectReviewStatus",
    fields: &[always(1, "userInfo", Ty::Message(&USER_INFO))],
};

pub(crate) static TOKEN_REQUEST: Message = Message {
    name: "k8s.io.api.authentication.v1.TokenRequest",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        always(2, "spec", Ty::Message(&TOKEN_REQUEST_SPEC)),
        always(3, "status", Ty::Message(&TOKEN_REQUEST_STATUS)),
    ],
};

pub(crate) static TOKEN_REQUEST_SPEC: Message = Message {
    name: "k8s.io.api.authentication.v1.TokenRequestSpec",
    fields: &[
        list_or_null(1, "audiences", Ty::String),
        pointer_or_null(4, "expirationSeconds", Ty::Int64),
        pointer_or_null(3, "boundObjectRef", Ty::Message(&BOUND_OBJECT_REFERENCE)),
    ],
};

pub(crate) static TOKEN_REQUEST_STATUS: Message = Message {
    name: "k8s.io.api.authentication.v1.TokenRequestStatus",
    fields: &[
        always(1, "token", Ty::String),
        always(2, "expirationTimestamp", Ty::Time),
    ],
};

pub(crate) static TOKEN_REVIEW: Message = Message {
    name: "k8s.io.api.authentication.v1.TokenReview",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        always(2, "spec", Ty::Message(&TOKEN_REVIEW_SPEC)),
        always(3, "status", Ty::Message(&TOKEN_REVIEW_STATUS)),
    ],
};

pub(crate) static TOKEN_REVIEW_SPEC: Message = Message {
    name: "k8s.io.api.authentication.v1.TokenReviewSpec",
    fields: &[
        omitempty(1, "token", Ty::String),
        list(2, "audiences", Ty::String),
    ],
};

pub(crate) static TOKEN_REVIEW_STATUS: Message = Message {
    name: "k8s.io.api.authentication.v1.TokenReviewStatus",
    fields: &[
        omitempty(1, "authenticated", Ty::Bool),
        always(2, "user", Ty::Message(&USER_INFO)),
        list(4, "audiences", Ty::String),
        omitempty(3, "error", Ty::String),
    ],
};

pub(crate) static USER_INFO: Message = Message {
    name: "k8s.io.api.authentication.v1.UserInfo",
    fields: &[
        omitempty(1, "username", Ty::String),
        omitempty(2, "uid", Ty::String),
        list(3, "groups", Ty::String),
        map(4, "extra", Ty::StringItems),
    ],
};
