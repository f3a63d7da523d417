//! batch/v1: `Job` and `CronJob`.
//!
//! Mirrors upstream `k8s.io/api/batch/v1/generated.proto` (Kubernetes 1.36:
//! kubernetes/api and kubernetes/apimachinery v0.36.3): field numbers and
//! wire types from that file; JSON names, `omitempty` and which fields are
//! pointers from the Go types (`types.go`) beside it. See `schema.rs` for
//! what `always`, `omitempty`, `pointer`, `list`… mean.

use super::core_pod::{OBJECT_REFERENCE, POD_TEMPLATE_SPEC};
use super::meta::{LABEL_SELECTOR, OBJECT_META};
use crate::protobuf::schema::{Message, Ty, always, list, list_or_null, omitempty, pointer};

pub(crate) static CRON_JOB: Message = Message {
    name: "k8s.io.api.batch.v1.CronJob",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        always(2, "spec", Ty::Message(&CRON_JOB_SPEC)),
        always(3, "status", Ty::Message(&CRON_JOB_STATUS)),
    ],
};

pub(crate) static CRON_JOB_SPEC: Message = Message {
    name: "k8s.io.api.batch.v1.CronJobSpec",
    fields: &[
        always(1, "schedule", Ty::String),
        pointer(8, "timeZone", Ty::String),
        pointer(2, "startingDeadlineSeconds", Ty::Int64),
        omitempty(3, "concurrencyPolicy", Ty::String),
        pointer(4, "suspend", Ty::Bool),
        always(5, "jobTemplate", Ty::Message(&JOB_TEMPLATE_SPEC)),
        pointer(6, "successfulJobsHistoryLimit", Ty::Int32),
        pointer(7, "failedJobsHistoryLimit", Ty::Int32),
    ],
};

pub(crate) static CRON_JOB_STATUS: Message = Message {
    name: "k8s.io.api.batch.v1.CronJobStatus",
    fields: &[
        list(1, "active", Ty::Message(&OBJECT_REFERENCE)),
        pointer(4, "lastScheduleTime", Ty::Time),
        pointer(5, "lastSuccessfulTime", Ty::Time),
    ],
};

pub(crate) static JOB: Message = Message {
    name: "k8s.io.api.batch.v1.Job",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        always(2, "spec", Ty::Message(&JOB_SPEC)),
        always(3, "status", Ty::Message(&JOB_STATUS)),
    ],
};

pub(crate) static JOB_CONDITION: Message = Message {
    name: "k8s.io.api.batch.v1.JobCondition",
    fields: &[
        always(1, "type", Ty::String),
        always(2, "status", Ty::String),
        always(3, "lastProbeTime", Ty::Time),
        always(4, "lastTransitionTime", Ty::Time),
        omitempty(5, "reason", Ty::String),
        omitempty(6, "message", Ty::String),
    ],
};

pub(crate) static JOB_SPEC: Message = Message {
    name: "k8s.io.api.batch.v1.JobSpec",
    fields: &[
        pointer(1, "parallelism", Ty::Int32),
        pointer(2, "completions", Ty::Int32),
        pointer(3, "activeDeadlineSeconds", Ty::Int64),
        pointer(11, "podFailurePolicy", Ty::Message(&POD_FAILURE_POLICY)),
        pointer(16, "successPolicy", Ty::Message(&SUCCESS_POLICY)),
        pointer(7, "backoffLimit", Ty::Int32),
        pointer(12, "backoffLimitPerIndex", Ty::Int32),
        pointer(13, "maxFailedIndexes", Ty::Int32),
        pointer(4, "selector", Ty::Message(&LABEL_SELECTOR)),
        pointer(5, "manualSelector", Ty::Bool),
        always(6, "template", Ty::Message(&POD_TEMPLATE_SPEC)),
        pointer(8, "ttlSecondsAfterFinished", Ty::Int32),
        pointer(9, "completionMode", Ty::String),
        pointer(10, "suspend", Ty::Bool),
        pointer(14, "podReplacementPolicy", Ty::String),
        pointer(15, "managedBy", Ty::String),
    ],
};

pub(crate) static JOB_STATUS: Message = Message {
    name: "k8s.io.api.batch.v1.JobStatus",
    fields: &[
        list(1, "conditions", Ty::Message(&JOB_CONDITION)),
        pointer(2, "startTime", Ty::Time),
        pointer(3, "completionTime", Ty::Time),
        omitempty(4, "active", Ty::Int32),
        omitempty(5, "succeeded", Ty::Int32),
        omitempty(6, "failed", Ty::Int32),
        pointer(11, "terminating", Ty::Int32),
        omitempty(7, "completedIndexes", Ty::String),
        pointer(10, "failedIndexes", Ty::String),
        pointer(
            8,
            "uncountedTerminatedPods",
            Ty::Message(&UNCOUNTED_TERMINATED_PODS),
        ),
        pointer(9, "ready", Ty::Int32),
    ],
};

pub(crate) static JOB_TEMPLATE_SPEC: Message = Message {
    name: "k8s.io.api.batch.v1.JobTemplateSpec",
    fields: &[
        always(1, "metadata", Ty::Message(&OBJECT_META)),
        always(2, "spec", Ty::Message(&JOB_SPEC)),
    ],
};

pub(crate) static POD_FAILURE_POLICY: Message = Message {
    name: "k8s.io.api.batch.v1.PodFailurePolicy",
    fields: &[list_or_null(
        1,
        "rules",
        Ty::Message(&POD_FAILURE_POLICY_RULE),
    )],
};

pub(crate) static POD_FAILURE_POLICY_ON_EXIT_CODES_REQUIREMENT: Message = Message {
    name: "k8s.io.api.batch.v1.PodFailurePolicyOnExitCodesRequirement",
    fields: &[
        pointer(1, "containerName", Ty::String),
        always(2, "operator", Ty::String),
        list_or_null(3, "values", Ty::Int32),
    ],
};

pub(crate) static POD_FAILURE_POLICY_ON_POD_CONDITIONS_PATTERN: Message = Message {
    name: "k8s.io.api.batch.v1.PodFailurePolicyOnPodConditionsPattern",
    fields: &[
        always(1, "type", Ty::String),
        always(2, "status", Ty::String),
    ],
};

pub(crate) static POD_FAILURE_POLICY_RULE: Message = Message {
    name: "k8s.io.api.batch.v1.PodFailurePolicyRule",
    fields: &[
        always(1, "action", Ty::String),
        pointer(
            2,
            "onExitCodes",
            Ty::Message(&POD_FAILURE_POLICY_ON_EXIT_CODES_REQUIREMENT),
        ),
        list(
            3,
            "onPodConditions",
            Ty::Message(&POD_FAILURE_POLICY_ON_POD_CONDITIONS_PATTERN),
        ),
    ],
};

pub(crate) static SUCCESS_POLICY: Message = Message {
    name: "k8s.io.api.batch.v1.SuccessPolicy",
    fields: &[list_or_null(1, "rules", Ty::Message(&SUCCESS_POLICY_RULE))],
};

pub(crate) static SUCCESS_POLICY_RULE: Message = Message {
    name: "k8s.io.api.batch.v1.SuccessPolicyRule",
    fields: &[
        pointer(1, "succeededIndexes", Ty::String),
        pointer(2, "succeededCount", Ty::Int32),
    ],
};

pub(crate) static UNCOUNTED_TERMINATED_PODS: Message = Message {
    name: "k8s.io.api.batch.v1.UncountedTerminatedPods",
    fields: &[
        list(1, "succeeded", Ty::String),
        list(2, "failed", Ty::String),
    ],
};
