//! networking/v1: `Ingress`.
//!
//! Mirrors upstream `k8s.io/api/networking/v1/generated.proto` (Kubernetes 1.36:
//! kubernetes/api and kubernetes/apimachinery v0.36.3): field numbers and
//! wire types from that file; JSON names, `omitempty` and which fields are
//! pointers from the Go types (`types.go`) beside it. See `schema.rs` for
//! what `always`, `omitempty`, `pointer`, `list`… mean.

use super::core_pod::TYPED_LOCAL_OBJECT_REFERENCE;
use super::meta::OBJECT_META;
use crate::protobuf::schema::{
    Message, Ty, always, inline, list, list_or_null, omitempty, pointer, pointer_or_null,
};

pub(crate) static HTTP_INGRESS_PATH: Message = Message {
    name: "k8s.io.api.networking.v1.HTTPIngressPath",
    fields: &[
        omitempty(1, "path", Ty::String),
        pointer_or_null(3, "pathType", Ty::String),
        always(2, "backend", Ty::Message(&INGRESS_BACKEND)),
    ],
};

pub(crate) static HTTP_INGRESS_RULE_VALUE: Message = Message {
    name: "k8s.io.api.networking.v1.HTTPIngressRuleValue",
    fields: &[list_or_null(1, "paths", Ty::Message(&HTTP_INGRESS_PATH))],
};

pub(crate) static INGRESS: Message = Message {
    name: "k8s.io.api.networking.v1.Ingress",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        always(2, "spec", Ty::Message(&INGRESS_SPEC)),
        always(3, "status", Ty::Message(&INGRESS_STATUS)),
    ],
};

pub(crate) static INGRESS_BACKEND: Message = Message {
    name: "k8s.io.api.networking.v1.IngressBackend",
    fields: &[
        pointer(4, "service", Ty::Message(&INGRESS_SERVICE_BACKEND)),
        pointer(3, "resource", Ty::Message(&TYPED_LOCAL_OBJECT_REFERENCE)),
    ],
};

pub(crate) static INGRESS_LOAD_BALANCER_INGRESS: Message = Message {
    name: "k8s.io.api.networking.v1.IngressLoadBalancerIngress",
    fields: &[
        omitempty(1, "ip", Ty::String),
        omitempty(2, "hostname", Ty::String),
        list(4, "ports", Ty::Message(&INGRESS_PORT_STATUS)),
    ],
};

pub(crate) static INGRESS_LOAD_BALANCER_STATUS: Message = Message {
    name: "k8s.io.api.networking.v1.IngressLoadBalancerStatus",
    fields: &[list(
        1,
        "ingress",
        Ty::Message(&INGRESS_LOAD_BALANCER_INGRESS),
    )],
};

pub(crate) static INGRESS_PORT_STATUS: Message = Message {
    name: "k8s.io.api.networking.v1.IngressPortStatus",
    fields: &[
        always(1, "port", Ty::Int32),
        always(2, "protocol", Ty::String),
        pointer(3, "error", Ty::String),
    ],
};

pub(crate) static INGRESS_RULE: Message = Message {
    name: "k8s.io.api.networking.v1.IngressRule",
    fields: &[
        omitempty(1, "host", Ty::String),
        inline(2, &INGRESS_RULE_VALUE),
    ],
};

pub(crate) static INGRESS_RULE_VALUE: Message = Message {
    name: "k8s.io.api.networking.v1.IngressRuleValue",
    fields: &[pointer(1, "http", Ty::Message(&HTTP_INGRESS_RULE_VALUE))],
};

pub(crate) static INGRESS_SERVICE_BACKEND: Message = Message {
    name: "k8s.io.api.networking.v1.IngressServiceBackend",
    fields: &[
        always(1, "name", Ty::String),
        always(2, "port", Ty::Message(&SERVICE_BACKEND_PORT)),
    ],
};

pub(crate) static INGRESS_SPEC: Message = Message {
    name: "k8s.io.api.networking.v1.IngressSpec",
    fields: &[
        pointer(4, "ingressClassName", Ty::String),
        pointer(1, "defaultBackend", Ty::Message(&INGRESS_BACKEND)),
        list(2, "tls", Ty::Message(&INGRESS_TLS)),
        list(3, "rules", Ty::Message(&INGRESS_RULE)),
    ],
};

pub(crate) static INGRESS_STATUS: Message = Message {
    name: "k8s.io.api.networking.v1.IngressStatus",
    fields: &[always(
        1,
        "loadBalancer",
        Ty::Message(&INGRESS_LOAD_BALANCER_STATUS),
    )],
};

pub(crate) static INGRESS_TLS: Message = Message {
    name: "k8s.io.api.networking.v1.IngressTLS",
    fields: &[
        list(1, "hosts", Ty::String),
        omitempty(2, "secretName", Ty::String),
    ],
};

pub(crate) static SERVICE_BACKEND_PORT: Message = Message {
    name: "k8s.io.api.networking.v1.ServiceBackendPort",
    fields: &[
        omitempty(1, "name", Ty::String),
        omitempty(2, "number", Ty::Int32),
    ],
};
