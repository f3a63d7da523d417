//! core/v1: `Namespace`, `ConfigMap`, `Secret`, `ServiceAccount`, `Service`
//! and `ResourceQuota`.
//!
//! Mirrors upstream `k8s.io/api/core/v1/generated.proto` (Kubernetes 1.36:
//! kubernetes/api and kubernetes/apimachinery v0.36.3): field numbers and
//! wire types from that file; JSON names, `omitempty` and which fields are
//! pointers from the Go types (`types.go`) beside it. See `schema.rs` for
//! what `always`, `omitempty`, `pointer`, `list`… mean.

use super::core_pod::{LOCAL_OBJECT_REFERENCE, OBJECT_REFERENCE};
use super::meta::{CONDITION, OBJECT_META};
use crate::protobuf::schema::{Message, Ty, always, list, map, omitempty, pointer};

pub(crate) static CLIENT_IP_CONFIG: Message = Message {
    name: "k8s.io.api.core.v1.ClientIPConfig",
    fields: &[pointer(1, "timeoutSeconds", Ty::Int32)],
};

pub(crate) static CONFIG_MAP: Message = Message {
    name: "k8s.io.api.core.v1.ConfigMap",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        pointer(4, "immutable", Ty::Bool),
        map(2, "data", Ty::String),
        map(3, "binaryData", Ty::Bytes),
    ],
};

pub(crate) static LOAD_BALANCER_INGRESS: Message = Message {
    name: "k8s.io.api.core.v1.LoadBalancerIngress",
    fields: &[
        omitempty(1, "ip", Ty::String),
        omitempty(2, "hostname", Ty::String),
        pointer(3, "ipMode", Ty::String),
        list(4, "ports", Ty::Message(&PORT_STATUS)),
    ],
};

pub(crate) static LOAD_BALANCER_STATUS: Message = Message {
    name: "k8s.io.api.core.v1.LoadBalancerStatus",
    fields: &[list(1, "ingress", Ty::Message(&LOAD_BALANCER_INGRESS))],
};

pub(crate) static NAMESPACE: Message = Message {
    name: "k8s.io.api.core.v1.Namespace",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        always(2, "spec", Ty::Message(&NAMESPACE_SPEC)),
        always(3, "status", Ty::Message(&NAMESPACE_STATUS)),
    ],
};

pub(crate) static NAMESPACE_CONDITION: Message = Message {
    name: "k8s.io.api.core.v1.NamespaceCondition",
    fields: &[
        always(1, "type", Ty::String),
        always(2, "status", Ty::String),
        always(4, "lastTransitionTime", Ty::Time),
        omitempty(5, "reason", Ty::String),
        omitempty(6, "message", Ty::String),
    ],
};

pub(crate) static NAMESPACE_SPEC: Message = Message {
    name: "k8s.io.api.core.v1.NamespaceSpec",
    fields: &[list(1, "finalizers", Ty::String)],
};

pub(crate) static NAMESPACE_STATUS: Message = Message {
    name: "k8s.io.api.core.v1.NamespaceStatus",
    fields: &[
        omitempty(1, "phase", Ty::String),
        list(2, "conditions", Ty::Message(&NAMESPACE_CONDITION)),
    ],
};

pub(crate) static PORT_STATUS: Message = Message {
    name: "k8s.io.api.core.v1.PortStatus",
    fields: &[
        always(1, "port", Ty::Int32),
        always(2, "protocol", Ty::String),
        pointer(3, "error", Ty::String),
    ],
};

pub(crate) static RESOURCE_QUOTA: Message = Message {
    name: "k8s.io.api.core.v1.ResourceQuota",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        always(2, "spec", Ty::Message(&RESOURCE_QUOTA_SPEC)),
        always(3, "status", Ty::Message(&RESOURCE_QUOTA_STATUS)),
    ],
};

pub(crate) static RESOURCE_QUOTA_SPEC: Message = Message {
    name: "k8s.io.api.core.v1.ResourceQuotaSpec",
    fields: &[
        map(1, "hard", Ty::Quantity),
        list(2, "scopes", Ty::String),
        pointer(3, "scopeSelector", Ty::Message(&SCOPE_SELECTOR)),
    ],
};

pub(crate) static RESOURCE_QUOTA_STATUS: Message = Message {
    name: "k8s.io.api.core.v1.ResourceQuotaStatus",
    fields: &[map(1, "hard", Ty::Quantity), map(2, "used", Ty::Quantity)],
};

pub(crate) static SCOPE_SELECTOR: Message = Message {
    name: "k8s.io.api.core.v1.ScopeSelector",
    fields: &[list(
        1,
        "matchExpressions",
        Ty::Message(&SCOPED_RESOURCE_SELECTOR_REQUIREMENT),
    )],
};

pub(crate) static SCOPED_RESOURCE_SELECTOR_REQUIREMENT: Message = Message {
    name: "k8s.io.api.core.v1.ScopedResourceSelectorRequirement",
    fields: &[
        always(1, "scopeName", Ty::String),
        always(2, "operator", Ty::String),
        list(3, "values", Ty::String),
    ],
};

pub(crate) static SECRET: Message = Message {
    name: "k8s.io.api.core.v1.Secret",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        pointer(5, "immutable", Ty::Bool),
        map(2, "data", Ty::Bytes),
        map(4, "stringData", Ty::String),
        omitempty(3, "type", Ty::String),
    ],
};

pub(crate) static SERVICE: Message = Message {
    name: "k8s.io.api.core.v1.Service",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        always(2, "spec", Ty::Message(&SERVICE_SPEC)),
        always(3, "status", Ty::Message(&SERVICE_STATUS)),
    ],
};

pub(crate) static SERVICE_ACCOUNT: Message = Message {
    name: "k8s.io.api.core.v1.ServiceAccount",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        list(2, "secrets", Ty::Message(&OBJECT_REFERENCE)),
        list(3, "imagePullSecrets", Ty::Message(&LOCAL_OBJECT_REFERENCE)),
        pointer(4, "automountServiceAccountToken", Ty::Bool),
    ],
};

pub(crate) static SERVICE_PORT: Message = Message {
    name: "k8s.io.api.core.v1.ServicePort",
    fields: &[
        omitempty(1, "name", Ty::String),
        omitempty(2, "protocol", Ty::String),
        pointer(6, "appProtocol", Ty::String),
        always(3, "port", Ty::Int32),
        always(4, "targetPort", Ty::IntOrString),
        omitempty(5, "nodePort", Ty::Int32),
    ],
};

pub(crate) static SERVICE_SPEC: Message = Message {
    name: "k8s.io.api.core.v1.ServiceSpec",
    fields: &[
        list(1, "ports", Ty::Message(&SERVICE_PORT)),
        map(2, "selector", Ty::String),
        omitempty(3, "clusterIP", Ty::String),
        list(18, "clusterIPs", Ty::String),
        omitempty(4, "type", Ty::String),
        list(5, "externalIPs", Ty::String),
        omitempty(7, "sessionAffinity", Ty::String),
        omitempty(8, "loadBalancerIP", Ty::String),
        list(9, "loadBalancerSourceRanges", Ty::String),
        omitempty(10, "externalName", Ty::String),
        omitempty(11, "externalTrafficPolicy", Ty::String),
        omitempty(12, "healthCheckNodePort", Ty::Int32),
        omitempty(13, "publishNotReadyAddresses", Ty::Bool),
        pointer(
            14,
            "sessionAffinityConfig",
            Ty::Message(&SESSION_AFFINITY_CONFIG),
        ),
        list(19, "ipFamilies", Ty::String),
        pointer(17, "ipFamilyPolicy", Ty::String),
        pointer(20, "allocateLoadBalancerNodePorts", Ty::Bool),
        pointer(21, "loadBalancerClass", Ty::String),
        pointer(22, "internalTrafficPolicy", Ty::String),
        pointer(23, "trafficDistribution", Ty::String),
    ],
};

pub(crate) static SERVICE_STATUS: Message = Message {
    name: "k8s.io.api.core.v1.ServiceStatus",
    fields: &[
        always(1, "loadBalancer", Ty::Message(&LOAD_BALANCER_STATUS)),
        list(2, "conditions", Ty::Message(&CONDITION)),
    ],
};

pub(crate) static SESSION_AFFINITY_CONFIG: Message = Message {
    name: "k8s.io.api.core.v1.SessionAffinityConfig",
    fields: &[pointer(1, "clientIP", Ty::Message(&CLIENT_IP_CONFIG))],
};
