//! Which message a body's `apiVersion` and `kind` name: the kinds a client
//! creates (or reviews, or evicts with) that podflow can read as protobuf.

use super::schema::Message;
use super::tables::{
    apps, authentication, authorization, autoscaling, batch, core_objects, core_pod, meta,
    networking, policy, rbac, scheduling,
};

/// `(apiVersion, kind, message)`.
pub(super) static KINDS: &[(&str, &str, &Message)] = &[
    ("v1", "Namespace", &core_objects::NAMESPACE),
    ("v1", "ConfigMap", &core_objects::CONFIG_MAP),
    ("v1", "Secret", &core_objects::SECRET),
    ("v1", "ServiceAccount", &core_objects::SERVICE_ACCOUNT),
    ("v1", "Service", &core_objects::SERVICE),
    ("v1", "ResourceQuota", &core_objects::RESOURCE_QUOTA),
    ("v1", "Pod", &core_pod::POD),
    ("v1", "PodTemplate", &core_pod::POD_TEMPLATE),
    ("v1", "Binding", &core_pod::BINDING),
    ("apps/v1", "Deployment", &apps::DEPLOYMENT),
    ("apps/v1", "ReplicaSet", &apps::REPLICA_SET),
    ("batch/v1", "Job", &batch::JOB),
    ("batch/v1", "CronJob", &batch::CRON_JOB),
    ("policy/v1", "Eviction", &policy::EVICTION),
    (
        "policy/v1",
        "PodDisruptionBudget",
        &policy::POD_DISRUPTION_BUDGET,
    ),
    (
        "authorization.k8s.io/v1",
        "SelfSubjectAccessReview",
        &authorization::SELF_SUBJECT_ACCESS_REVIEW,
    ),
    (
        "authorization.k8s.io/v1",
        "SelfSubjectRulesReview",
        &authorization::SELF_SUBJECT_RULES_REVIEW,
    ),
    (
        "authorization.k8s.io/v1",
        "SubjectAccessReview",
        &authorization::SUBJECT_ACCESS_REVIEW,
    ),
    (
        "authorization.k8s.io/v1",
        "LocalSubjectAccessReview",
        &authorization::LOCAL_SUBJECT_ACCESS_REVIEW,
    ),
    (
        "authentication.k8s.io/v1",
        "SelfSubjectReview",
        &authentication::SELF_SUBJECT_REVIEW,
    ),
    (
        "authentication.k8s.io/v1",
        "TokenRequest",
        &authentication::TOKEN_REQUEST,
    ),
    (
        "authentication.k8s.io/v1",
        "TokenReview",
        &authentication::TOKEN_REVIEW,
    ),
    ("rbac.authorization.k8s.io/v1", "Role", &rbac::ROLE),
    (
        "rbac.authorization.k8s.io/v1",
        "ClusterRole",
        &rbac::CLUSTER_ROLE,
    ),
    (
        "rbac.authorization.k8s.io/v1",
        "RoleBinding",
        &rbac::ROLE_BINDING,
    ),
    (
        "rbac.authorization.k8s.io/v1",
        "ClusterRoleBinding",
        &rbac::CLUSTER_ROLE_BINDING,
    ),
    ("autoscaling/v1", "Scale", &autoscaling::SCALE),
    (
        "autoscaling/v1",
        "HorizontalPodAutoscaler",
        &autoscaling::HORIZONTAL_POD_AUTOSCALER,
    ),
    ("networking.k8s.io/v1", "Ingress", &networking::INGRESS),
    (
        "scheduling.k8s.io/v1",
        "PriorityClass",
        &scheduling::PRIORITY_CLASS,
    ),
];

/// The message of a body of `kind` in `api_version`. `DeleteOptions` is
/// meta/v1's in every group version (a client names its resource's version,
/// or `v1`, or `meta.k8s.io/v1`).
pub(super) fn root(api_version: &str, kind: &str) -> Option<&'static Message> {
    if kind == "DeleteOptions" {
        return Some(&meta::DELETE_OPTIONS);
    }
    KINDS
        .iter()
        .find(|(version, name, _)| *version == api_version && *name == kind)
        .map(|(_, _, message)| *message)
}
