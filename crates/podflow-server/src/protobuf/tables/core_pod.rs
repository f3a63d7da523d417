//! core/v1: the `Pod`, its template and spec, pod-level security and DNS, and
//! the object references they use.
//!
//! Mirrors upstream `k8s.io/api/core/v1/generated.proto` (Kubernetes 1.36:
//! kubernetes/api and kubernetes/apimachinery v0.36.3): field numbers and
//! wire types from that file; JSON names, `omitempty` and which fields are
//! pointers from the Go types (`types.go`) beside it. See `schema.rs` for
//! what `always`, `omitempty`, `pointer`, `list`… mean.

use super::core_container::{CONTAINER, EPHEMERAL_CONTAINER, RESOURCE_REQUIREMENTS};
use super::core_scheduling::{AFFINITY, TOLERATION, TOPOLOGY_SPREAD_CONSTRAINT};
use super::core_status::POD_STATUS;
use super::core_volume::VOLUME;
use super::meta::OBJECT_META;
use crate::protobuf::schema::{
    Message, Ty, always, list, list_or_null, map, omitempty, pointer, pointer_or_null,
};

pub(crate) static APP_ARMOR_PROFILE: Message = Message {
    name: "k8s.io.api.core.v1.AppArmorProfile",
    fields: &[
        always(1, "type", Ty::String),
        pointer(2, "localhostProfile", Ty::String),
    ],
};

pub(crate) static BINDING: Message = Message {
    name: "k8s.io.api.core.v1.Binding",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        always(2, "target", Ty::Message(&OBJECT_REFERENCE)),
    ],
};

pub(crate) static HOST_ALIAS: Message = Message {
    name: "k8s.io.api.core.v1.HostAlias",
    fields: &[
        always(1, "ip", Ty::String),
        list(2, "hostnames", Ty::String),
    ],
};

pub(crate) static LOCAL_OBJECT_REFERENCE: Message = Message {
    name: "k8s.io.api.core.v1.LocalObjectReference",
    fields: &[omitempty(1, "name", Ty::String)],
};

pub(crate) static OBJECT_REFERENCE: Message = Message {
    name: "k8s.io.api.core.v1.ObjectReference",
    fields: &[
        omitempty(1, "kind", Ty::String),
        omitempty(2, "namespace", Ty::String),
        omitempty(3, "name", Ty::String),
        omitempty(4, "uid", Ty::String),
        omitempty(5, "apiVersion", Ty::String),
        omitempty(6, "resourceVersion", Ty::String),
        omitempty(7, "fieldPath", Ty::String),
    ],
};

pub(crate) static POD: Message = Message {
    name: "k8s.io.api.core.v1.Pod",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        always(2, "spec", Ty::Message(&POD_SPEC)),
        always(3, "status", Ty::Message(&POD_STATUS)),
    ],
};

pub(crate) static POD_DNS_CONFIG: Message = Message {
    name: "k8s.io.api.core.v1.PodDNSConfig",
    fields: &[
        list(1, "nameservers", Ty::String),
        list(2, "searches", Ty::String),
        list(3, "options", Ty::Message(&POD_DNS_CONFIG_OPTION)),
    ],
};

pub(crate) static POD_DNS_CONFIG_OPTION: Message = Message {
    name: "k8s.io.api.core.v1.PodDNSConfigOption",
    fields: &[
        omitempty(1, "name", Ty::String),
        pointer(2, "value", Ty::String),
    ],
};

pub(crate) static POD_OS: Message = Message {
    name: "k8s.io.api.core.v1.PodOS",
    fields: &[always(1, "name", Ty::String)],
};

pub(crate) static POD_READINESS_GATE: Message = Message {
    name: "k8s.io.api.core.v1.PodReadinessGate",
    fields: &[always(1, "conditionType", Ty::String)],
};

pub(crate) static POD_RESOURCE_CLAIM: Message = Message {
    name: "k8s.io.api.core.v1.PodResourceClaim",
    fields: &[
        always(1, "name", Ty::String),
        pointer(3, "resourceClaimName", Ty::String),
        pointer(4, "resourceClaimTemplateName", Ty::String),
    ],
};

pub(crate) static POD_SCHEDULING_GATE: Message = Message {
    name: "k8s.io.api.core.v1.PodSchedulingGate",
    fields: &[always(1, "name", Ty::String)],
};

pub(crate) static POD_SCHEDULING_GROUP: Message = Message {
    name: "k8s.io.api.core.v1.PodSchedulingGroup",
    fields: &[pointer(1, "podGroupName", Ty::String)],
};

pub(crate) static POD_SECURITY_CONTEXT: Message = Message {
    name: "k8s.io.api.core.v1.PodSecurityContext",
    fields: &[
        pointer(1, "seLinuxOptions", Ty::Message(&SE_LINUX_OPTIONS)),
        pointer(
            8,
            "windowsOptions",
            Ty::Message(&WINDOWS_SECURITY_CONTEXT_OPTIONS),
        ),
        pointer(2, "runAsUser", Ty::Int64),
        pointer(6, "runAsGroup", Ty::Int64),
        pointer(3, "runAsNonRoot", Ty::Bool),
        list(4, "supplementalGroups", Ty::Int64),
        pointer(12, "supplementalGroupsPolicy", Ty::String),
        pointer(5, "fsGroup", Ty::Int64),
        list(7, "sysctls", Ty::Message(&SYSCTL)),
        pointer(9, "fsGroupChangePolicy", Ty::String),
        pointer(10, "seccompProfile", Ty::Message(&SECCOMP_PROFILE)),
        pointer(11, "appArmorProfile", Ty::Message(&APP_ARMOR_PROFILE)),
        pointer(13, "seLinuxChangePolicy", Ty::String),
    ],
};

pub(crate) static POD_SPEC: Message = Message {
    name: "k8s.io.api.core.v1.PodSpec",
    fields: &[
        list(1, "volumes", Ty::Message(&VOLUME)),
        list(20, "initContainers", Ty::Message(&CONTAINER)),
        list_or_null(2, "containers", Ty::Message(&CONTAINER)),
        list(34, "ephemeralContainers", Ty::Message(&EPHEMERAL_CONTAINER)),
        omitempty(3, "restartPolicy", Ty::String),
        pointer(4, "terminationGracePeriodSeconds", Ty::Int64),
        pointer(5, "activeDeadlineSeconds", Ty::Int64),
        omitempty(6, "dnsPolicy", Ty::String),
        map(7, "nodeSelector", Ty::String),
        omitempty(8, "serviceAccountName", Ty::String),
        omitempty(9, "serviceAccount", Ty::String),
        pointer(21, "automountServiceAccountToken", Ty::Bool),
        omitempty(10, "nodeName", Ty::String),
        omitempty(11, "hostNetwork", Ty::Bool),
        omitempty(12, "hostPID", Ty::Bool),
        omitempty(13, "hostIPC", Ty::Bool),
        pointer(27, "shareProcessNamespace", Ty::Bool),
        pointer(14, "securityContext", Ty::Message(&POD_SECURITY_CONTEXT)),
        list(15, "imagePullSecrets", Ty::Message(&LOCAL_OBJECT_REFERENCE)),
        omitempty(16, "hostname", Ty::String),
        omitempty(17, "subdomain", Ty::String),
        pointer(18, "affinity", Ty::Message(&AFFINITY)),
        omitempty(19, "schedulerName", Ty::String),
        list(22, "tolerations", Ty::Message(&TOLERATION)),
        list(23, "hostAliases", Ty::Message(&HOST_ALIAS)),
        omitempty(24, "priorityClassName", Ty::String),
        pointer(25, "priority", Ty::Int32),
        pointer(26, "dnsConfig", Ty::Message(&POD_DNS_CONFIG)),
        list(28, "readinessGates", Ty::Message(&POD_READINESS_GATE)),
        pointer(29, "runtimeClassName", Ty::String),
        pointer(30, "enableServiceLinks", Ty::Bool),
        pointer(31, "preemptionPolicy", Ty::String),
        map(32, "overhead", Ty::Quantity),
        list(
            33,
            "topologySpreadConstraints",
            Ty::Message(&TOPOLOGY_SPREAD_CONSTRAINT),
        ),
        pointer(35, "setHostnameAsFQDN", Ty::Bool),
        pointer(36, "os", Ty::Message(&POD_OS)),
        pointer(37, "hostUsers", Ty::Bool),
        list(38, "schedulingGates", Ty::Message(&POD_SCHEDULING_GATE)),
        list(39, "resourceClaims", Ty::Message(&POD_RESOURCE_CLAIM)),
        pointer(40, "resources", Ty::Message(&RESOURCE_REQUIREMENTS)),
        pointer(41, "hostnameOverride", Ty::String),
        pointer(43, "schedulingGroup", Ty::Message(&POD_SCHEDULING_GROUP)),
    ],
};

pub(crate) static POD_TEMPLATE: Message = Message {
    name: "k8s.io.api.core.v1.PodTemplate",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        always(2, "template", Ty::Message(&POD_TEMPLATE_SPEC)),
    ],
};

pub(crate) static POD_TEMPLATE_SPEC: Message = Message {
    name: "k8s.io.api.core.v1.PodTemplateSpec",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        always(2, "spec", Ty::Message(&POD_SPEC)),
    ],
};

pub(crate) static SE_LINUX_OPTIONS: Message = Message {
    name: "k8s.io.api.core.v1.SELinuxOptions",
    fields: &[
        omitempty(1, "user", Ty::String),
        omitempty(2, "role", Ty::String),
        omitempty(3, "type", Ty::String),
        omitempty(4, "level", Ty::String),
    ],
};

pub(crate) static SECCOMP_PROFILE: Message = Message {
    name: "k8s.io.api.core.v1.SeccompProfile",
    fields: &[
        always(1, "type", Ty::String),
        pointer(2, "localhostProfile", Ty::String),
    ],
};

pub(crate) static SYSCTL: Message = Message {
    name: "k8s.io.api.core.v1.Sysctl",
    fields: &[
        always(1, "name", Ty::String),
        always(2, "value", Ty::String),
    ],
};

pub(crate) static TYPED_LOCAL_OBJECT_REFERENCE: Message = Message {
    name: "k8s.io.api.core.v1.TypedLocalObjectReference",
    fields: &[
        pointer_or_null(1, "apiGroup", Ty::String),
        always(2, "kind", Ty::String),
        always(3, "name", Ty::String),
    ],
};

pub(crate) static TYPED_OBJECT_REFERENCE: Message = Message {
    name: "k8s.io.api.core.v1.TypedObjectReference",
    fields: &[
        pointer_or_null(1, "apiGroup", Ty::String),
        always(2, "kind", Ty::String),
        always(3, "name", Ty::String),
        pointer(4, "namespace", Ty::String),
    ],
};

pub(crate) static WINDOWS_SECURITY_CONTEXT_OPTIONS: Message = Message {
    name: "k8s.io.api.core.v1.WindowsSecurityContextOptions",
    fields: &[
        pointer(1, "gmsaCredentialSpecName", Ty::String),
        pointer(2, "gmsaCredentialSpec", Ty::String),
        pointer(3, "runAsUserName", Ty::String),
        pointer(4, "hostProcess", Ty::Bool),
    ],
};
