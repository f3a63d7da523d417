//! core/v1: a container: ports, environment, resources, mounts, probes,
//! lifecycle hooks, security context.
//!
//! Mirrors upstream `k8s.io/api/core/v1/generated.proto` (Kubernetes 1.36:
//! kubernetes/api and kubernetes/apimachinery v0.36.3): field numbers and
//! wire types from that file; JSON names, `omitempty` and which fields are
//! pointers from the Go types (`types.go`) beside it. See `schema.rs` for
//! what `always`, `omitempty`, `pointer`, `list`… mean.

use super::core_pod::{
    APP_ARMOR_PROFILE, LOCAL_OBJECT_REFERENCE, SE_LINUX_OPTIONS, SECCOMP_PROFILE,
    WINDOWS_SECURITY_CONTEXT_OPTIONS,
};
use crate::protobuf::schema::{
    Message, Ty, always, inline, list, map, omitempty, pointer, pointer_or_null,
};

pub(crate) static CAPABILITIES: Message = Message {
    name: "k8s.io.api.core.v1.Capabilities",
    fields: &[list(1, "add", Ty::String), list(2, "drop", Ty::String)],
};

pub(crate) static CONFIG_MAP_ENV_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.ConfigMapEnvSource",
    fields: &[
        inline(1, &LOCAL_OBJECT_REFERENCE),
        pointer(2, "optional", Ty::Bool),
    ],
};

pub(crate) static CONFIG_MAP_KEY_SELECTOR: Message = Message {
    name: "k8s.io.api.core.v1.ConfigMapKeySelector",
    fields: &[
        inline(1, &LOCAL_OBJECT_REFERENCE),
        always(2, "key", Ty::String),
        pointer(3, "optional", Ty::Bool),
    ],
};

pub(crate) static CONTAINER: Message = Message {
    name: "k8s.io.api.core.v1.Container",
    fields: &[
        always(1, "name", Ty::String),
        omitempty(2, "image", Ty::String),
        list(3, "command", Ty::String),
        list(4, "args", Ty::String),
        omitempty(5, "workingDir", Ty::String),
        list(6, "ports", Ty::Message(&CONTAINER_PORT)),
        list(19, "envFrom", Ty::Message(&ENV_FROM_SOURCE)),
        list(7, "env", Ty::Message(&ENV_VAR)),
        always(8, "resources", Ty::Message(&RESOURCE_REQUIREMENTS)),
        list(23, "resizePolicy", Ty::Message(&CONTAINER_RESIZE_POLICY)),
        pointer(24, "restartPolicy", Ty::String),
        list(
            25,
            "restartPolicyRules",
            Ty::Message(&CONTAINER_RESTART_RULE),
        ),
        list(9, "volumeMounts", Ty::Message(&VOLUME_MOUNT)),
        list(21, "volumeDevices", Ty::Message(&VOLUME_DEVICE)),
        pointer(10, "livenessProbe", Ty::Message(&PROBE)),
        pointer(11, "readinessProbe", Ty::Message(&PROBE)),
        pointer(22, "startupProbe", Ty::Message(&PROBE)),
        pointer(12, "lifecycle", Ty::Message(&LIFECYCLE)),
        omitempty(13, "terminationMessagePath", Ty::String),
        omitempty(20, "terminationMessagePolicy", Ty::String),
        omitempty(14, "imagePullPolicy", Ty::String),
        pointer(15, "securityContext", Ty::Message(&SECURITY_CONTEXT)),
        omitempty(16, "stdin", Ty::Bool),
        omitempty(17, "stdinOnce", Ty::Bool),
        omitempty(18, "tty", Ty::Bool),
    ],
};

pub(crate) static CONTAINER_PORT: Message = Message {
    name: "k8s.io.api.core.v1.ContainerPort",
    fields: &[
        omitempty(1, "name", Ty::String),
        omitempty(2, "hostPort", Ty::Int32),
        always(3, "containerPort", Ty::Int32),
        omitempty(4, "protocol", Ty::String),
        omitempty(5, "hostIP", Ty::String),
    ],
};

pub(crate) static CONTAINER_RESIZE_POLICY: Message = Message {
    name: "k8s.io.api.core.v1.ContainerResizePolicy",
    fields: &[
        always(1, "resourceName", Ty::String),
        always(2, "restartPolicy", Ty::String),
    ],
};

pub(crate) static CONTAINER_RESTART_RULE: Message = Message {
    name: "k8s.io.api.core.v1.ContainerRestartRule",
    fields: &[
        omitempty(1, "action", Ty::String),
        pointer(
            2,
            "exitCodes",
            Ty::Message(&CONTAINER_RESTART_RULE_ON_EXIT_CODES),
        ),
    ],
};

pub(crate) static CONTAINER_RESTART_RULE_ON_EXIT_CODES: Message = Message {
    name: "k8s.io.api.core.v1.ContainerRestartRuleOnExitCodes",
    fields: &[
        omitempty(1, "operator", Ty::String),
        list(2, "values", Ty::Int32),
    ],
};

pub(crate) static ENV_FROM_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.EnvFromSource",
    fields: &[
        omitempty(1, "prefix", Ty::String),
        pointer(2, "configMapRef", Ty::Message(&CONFIG_MAP_ENV_SOURCE)),
        pointer(3, "secretRef", Ty::Message(&SECRET_ENV_SOURCE)),
    ],
};

pub(crate) static ENV_VAR: Message = Message {
    name: "k8s.io.api.core.v1.EnvVar",
    fields: &[
        always(1, "name", Ty::String),
        omitempty(2, "value", Ty::String),
        pointer(3, "valueFrom", Ty::Message(&ENV_VAR_SOURCE)),
    ],
};

pub(crate) static ENV_VAR_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.EnvVarSource",
    fields: &[
        pointer(1, "fieldRef", Ty::Message(&OBJECT_FIELD_SELECTOR)),
        pointer(2, "resourceFieldRef", Ty::Message(&RESOURCE_FIELD_SELECTOR)),
        pointer(3, "configMapKeyRef", Ty::Message(&CONFIG_MAP_KEY_SELECTOR)),
        pointer(4, "secretKeyRef", Ty::Message(&SECRET_KEY_SELECTOR)),
        pointer(5, "fileKeyRef", Ty::Message(&FILE_KEY_SELECTOR)),
    ],
};

pub(crate) static EPHEMERAL_CONTAINER: Message = Message {
    name: "k8s.io.api.core.v1.EphemeralContainer",
    fields: &[
        inline(1, &EPHEMERAL_CONTAINER_COMMON),
        omitempty(2, "targetContainerName", Ty::String),
    ],
};

pub(crate) static EPHEMERAL_CONTAINER_COMMON: Message = Message {
    name: "k8s.io.api.core.v1.EphemeralContainerCommon",
    fields: &[
        always(1, "name", Ty::String),
        omitempty(2, "image", Ty::String),
        list(3, "command", Ty::String),
        list(4, "args", Ty::String),
        omitempty(5, "workingDir", Ty::String),
        list(6, "ports", Ty::Message(&CONTAINER_PORT)),
        list(19, "envFrom", Ty::Message(&ENV_FROM_SOURCE)),
        list(7, "env", Ty::Message(&ENV_VAR)),
        always(8, "resources", Ty::Message(&RESOURCE_REQUIREMENTS)),
        list(23, "resizePolicy", Ty::Message(&CONTAINER_RESIZE_POLICY)),
        pointer(24, "restartPolicy", Ty::String),
        list(
            25,
            "restartPolicyRules",
            Ty::Message(&CONTAINER_RESTART_RULE),
        ),
        list(9, "volumeMounts", Ty::Message(&VOLUME_MOUNT)),
        list(21, "volumeDevices", Ty::Message(&VOLUME_DEVICE)),
        pointer(10, "livenessProbe", Ty::Message(&PROBE)),
        pointer(11, "readinessProbe", Ty::Message(&PROBE)),
        pointer(22, "startupProbe", Ty::Message(&PROBE)),
        pointer(12, "lifecycle", Ty::Message(&LIFECYCLE)),
        omitempty(13, "terminationMessagePath", Ty::String),
        omitempty(20, "terminationMessagePolicy", Ty::String),
        omitempty(14, "imagePullPolicy", Ty::String),
        pointer(15, "securityContext", Ty::Message(&SECURITY_CONTEXT)),
        omitempty(16, "stdin", Ty::Bool),
        omitempty(17, "stdinOnce", Ty::Bool),
        omitempty(18, "tty", Ty::Bool),
    ],
};

pub(crate) static EXEC_ACTION: Message = Message {
    name: "k8s.io.api.core.v1.ExecAction",
    fields: &[list(1, "command", Ty::String)],
};

pub(crate) static FILE_KEY_SELECTOR: Message = Message {
    name: "k8s.io.api.core.v1.FileKeySelector",
    fields: &[
        always(1, "volumeName", Ty::String),
        always(2, "path", Ty::String),
        always(3, "key", Ty::String),
        pointer(4, "optional", Ty::Bool),
    ],
};

pub(crate) static GRPC_ACTION: Message = Message {
    name: "k8s.io.api.core.v1.GRPCAction",
    fields: &[
        always(1, "port", Ty::Int32),
        pointer_or_null(2, "service", Ty::String),
    ],
};

pub(crate) static HTTP_GET_ACTION: Message = Message {
    name: "k8s.io.api.core.v1.HTTPGetAction",
    fields: &[
        omitempty(1, "path", Ty::String),
        always(2, "port", Ty::IntOrString),
        omitempty(3, "host", Ty::String),
        omitempty(4, "scheme", Ty::String),
        list(5, "httpHeaders", Ty::Message(&HTTP_HEADER)),
    ],
};

pub(crate) static HTTP_HEADER: Message = Message {
    name: "k8s.io.api.core.v1.HTTPHeader",
    fields: &[
        always(1, "name", Ty::String),
        always(2, "value", Ty::String),
    ],
};

pub(crate) static LIFECYCLE: Message = Message {
    name: "k8s.io.api.core.v1.Lifecycle",
    fields: &[
        pointer(1, "postStart", Ty::Message(&LIFECYCLE_HANDLER)),
        pointer(2, "preStop", Ty::Message(&LIFECYCLE_HANDLER)),
        pointer(3, "stopSignal", Ty::String),
    ],
};

pub(crate) static LIFECYCLE_HANDLER: Message = Message {
    name: "k8s.io.api.core.v1.LifecycleHandler",
    fields: &[
        pointer(1, "exec", Ty::Message(&EXEC_ACTION)),
        pointer(2, "httpGet", Ty::Message(&HTTP_GET_ACTION)),
        pointer(3, "tcpSocket", Ty::Message(&TCP_SOCKET_ACTION)),
        pointer(4, "sleep", Ty::Message(&SLEEP_ACTION)),
    ],
};

pub(crate) static OBJECT_FIELD_SELECTOR: Message = Message {
    name: "k8s.io.api.core.v1.ObjectFieldSelector",
    fields: &[
        omitempty(1, "apiVersion", Ty::String),
        always(2, "fieldPath", Ty::String),
    ],
};

pub(crate) static PROBE: Message = Message {
    name: "k8s.io.api.core.v1.Probe",
    fields: &[
        inline(1, &PROBE_HANDLER),
        omitempty(2, "initialDelaySeconds", Ty::Int32),
        omitempty(3, "timeoutSeconds", Ty::Int32),
        omitempty(4, "periodSeconds", Ty::Int32),
        omitempty(5, "successThreshold", Ty::Int32),
        omitempty(6, "failureThreshold", Ty::Int32),
        pointer(7, "terminationGracePeriodSeconds", Ty::Int64),
    ],
};

pub(crate) static PROBE_HANDLER: Message = Message {
    name: "k8s.io.api.core.v1.ProbeHandler",
    fields: &[
        pointer(1, "exec", Ty::Message(&EXEC_ACTION)),
        pointer(2, "httpGet", Ty::Message(&HTTP_GET_ACTION)),
        pointer(3, "tcpSocket", Ty::Message(&TCP_SOCKET_ACTION)),
        pointer(4, "grpc", Ty::Message(&GRPC_ACTION)),
    ],
};

pub(crate) static RESOURCE_CLAIM: Message = Message {
    name: "k8s.io.api.core.v1.ResourceClaim",
    fields: &[
        always(1, "name", Ty::String),
        omitempty(2, "request", Ty::String),
    ],
};

pub(crate) static RESOURCE_FIELD_SELECTOR: Message = Message {
    name: "k8s.io.api.core.v1.ResourceFieldSelector",
    fields: &[
        omitempty(1, "containerName", Ty::String),
        always(2, "resource", Ty::String),
        always(3, "divisor", Ty::Quantity),
    ],
};

pub(crate) static RESOURCE_REQUIREMENTS: Message = Message {
    name: "k8s.io.api.core.v1.ResourceRequirements",
    fields: &[
        map(1, "limits", Ty::Quantity),
        map(2, "requests", Ty::Quantity),
        list(3, "claims", Ty::Message(&RESOURCE_CLAIM)),
    ],
};

pub(crate) static SECRET_ENV_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.SecretEnvSource",
    fields: &[
        inline(1, &LOCAL_OBJECT_REFERENCE),
        pointer(2, "optional", Ty::Bool),
    ],
};

pub(crate) static SECRET_KEY_SELECTOR: Message = Message {
    name: "k8s.io.api.core.v1.SecretKeySelector",
    fields: &[
        inline(1, &LOCAL_OBJECT_REFERENCE),
        always(2, "key", Ty::String),
        pointer(3, "optional", Ty::Bool),
    ],
};

pub(crate) static SECURITY_CONTEXT: Message = Message {
    name: "k8s.io.api.core.v1.SecurityContext",
    fields: &[
        pointer(1, "capabilities", Ty::Message(&CAPABILITIES)),
        pointer(2, "privileged", Ty::Bool),
        pointer(3, "seLinuxOptions", Ty::Message(&SE_LINUX_OPTIONS)),
        pointer(
            10,
            "windowsOptions",
            Ty::Message(&WINDOWS_SECURITY_CONTEXT_OPTIONS),
        ),
        pointer(4, "runAsUser", Ty::Int64),
        pointer(8, "runAsGroup", Ty::Int64),
        pointer(5, "runAsNonRoot", Ty::Bool),
        pointer(6, "readOnlyRootFilesystem", Ty::Bool),
        pointer(7, "allowPrivilegeEscalation", Ty::Bool),
        pointer(9, "procMount", Ty::String),
        pointer(11, "seccompProfile", Ty::Message(&SECCOMP_PROFILE)),
        pointer(12, "appArmorProfile", Ty::Message(&APP_ARMOR_PROFILE)),
    ],
};

pub(crate) static SLEEP_ACTION: Message = Message {
    name: "k8s.io.api.core.v1.SleepAction",
    fields: &[always(1, "seconds", Ty::Int64)],
};

pub(crate) static TCP_SOCKET_ACTION: Message = Message {
    name: "k8s.io.api.core.v1.TCPSocketAction",
    fields: &[
        always(1, "port", Ty::IntOrString),
        omitempty(2, "host", Ty::String),
    ],
};

pub(crate) static VOLUME_DEVICE: Message = Message {
    name: "k8s.io.api.core.v1.VolumeDevice",
    fields: &[
        always(1, "name", Ty::String),
        always(2, "devicePath", Ty::String),
    ],
};

pub(crate) static VOLUME_MOUNT: Message = Message {
    name: "k8s.io.api.core.v1.VolumeMount",
    fields: &[
        always(1, "name", Ty::String),
        omitempty(2, "readOnly", Ty::Bool),
        pointer(7, "recursiveReadOnly", Ty::String),
        always(3, "mountPath", Ty::String),
        omitempty(4, "subPath", Ty::String),
        pointer(5, "mountPropagation", Ty::String),
        omitempty(6, "subPathExpr", Ty::String),
    ],
};
