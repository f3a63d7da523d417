//! Admission control: the plugin interface and the enabled chain, in the order
//! kube-apiserver runs them (`pkg/kubeapiserver/options/plugins.go`,
//! `AllOrderedPlugins`). Each plugin lives in its own file, but for those
//! that find nothing to act on in podflow, which share one ([`inert`]).
//!
//! `Plugin::handles` answers whether the plugin acts on a request: upstream's
//! `admission.Handler` operations narrowed to the resources the plugin's code
//! looks at (a plugin whose feature gate is off by default handles nothing), so
//! the trace shows one record per plugin that really examines the request.

pub mod default_storage_class;
pub mod default_toleration_seconds;
pub mod inert;
pub mod job_validation;
pub mod limit_ranger;
pub mod namespace_lifecycle;
pub mod node_restriction;
pub mod pod_group_protection;
pub mod pod_group_workload_exists;
pub mod pod_security;
pub mod pod_topology_labels;
pub mod priority;
pub(crate) mod quota_usage;
pub mod resource_quota;
pub mod runtime_class;
pub mod service_account;
pub mod taint_nodes_by_condition;

use crate::apiserver::ClusterView;
use crate::apiserver::request::{Operation, UserInfo};
use crate::rng::Rng;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Status;
use podflow_model::quantity::{Format, ParsedQuantity, parse_k8s};
use podflow_model::status::forbidden;
use podflow_model::{Kind, Object};

/// What one plugin decided.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)] // a denial is rare and short-lived; boxing it buys nothing
pub enum Verdict {
    /// Let the request through unchanged.
    Allow,
    /// Changed the object; the text says how (`added volume kube-api-access-7x2kq`).
    Mutate(String),
    /// Refuse it with this answer.
    Deny(Status),
    /// Not yet: the plugin looks again after `retry_ms` simulated
    /// milliseconds (upstream's plugin sleeps inside the request; podflow's
    /// API server parks the request and resumes it at this plugin). Only a
    /// create's mutating phase may wait.
    Wait { detail: String, retry_ms: u64 },
}

/// Everything an admission plugin sees of a request.
pub struct AdmissionRequest<'a> {
    pub operation: Operation,
    pub kind: &'static Kind,
    pub subresource: Option<&'a str>,
    pub namespace: Option<&'a str>,
    /// The object's name (after `generateName` was applied).
    pub name: &'a str,
    pub user: &'a UserInfo,
    /// The object as stored before this request, for updates and deletes.
    pub old: Option<&'a Object>,
    /// The API server's view of the cluster (its watch cache).
    pub cluster: &'a dyn ClusterView,
    /// Which pass of a plugin that waits this is (1 on the first; the
    /// request was parked `attempt - 1` times, [`Verdict::Wait`]).
    pub attempt: u32,
    /// The interval the waiting plugin chose on its first pass (0 before).
    pub retry_ms: u64,
}

/// Writes a plugin asks the API server to make besides the object itself
/// (`ResourceQuota` charges usage to the quota's status before the object is stored).
#[derive(Debug, Default)]
pub struct SideEffects {
    pub writes: Vec<Object>,
}

/// One admission plugin, mutating, validating or both, as upstream's
/// `admission.MutationInterface` / `admission.ValidationInterface`.
pub trait Plugin: Send + Sync {
    /// The plugin's name as `--enable-admission-plugins` spells it.
    fn name(&self) -> &'static str;

    /// Whether it handles this operation on this kind (`admission.Handler`).
    fn handles(&self, operation: Operation, kind: &Kind, subresource: Option<&str>) -> bool;

    /// Whether it has a mutating phase.
    fn mutating(&self) -> bool {
        false
    }

    /// Whether it has a validating phase.
    fn validating(&self) -> bool {
        false
    }

    /// Whether its mutating phase may answer [`Verdict::Wait`]; one that
    /// waits leaves the object as it came (the request is parked with it).
    fn may_wait(&self) -> bool {
        false
    }

    /// The mutating phase: may change `object`.
    fn admit(&self, _req: &AdmissionRequest<'_>, _object: &mut Object, _rng: &mut Rng) -> Verdict {
        Verdict::Allow
    }

    /// The validating phase: may only refuse. `effects` collects extra writes.
    fn validate(
        &self,
        _req: &AdmissionRequest<'_>,
        _object: &Object,
        _effects: &mut SideEffects,
    ) -> Verdict {
        Verdict::Allow
    }
}

/// The chain a kubeadm cluster's kube-apiserver runs: the plugins enabled by
/// default (`AllOrderedPlugins` without `DefaultOffAdmissionPlugins()`,
/// `pkg/kubeapiserver/options/plugins.go`) plus `NodeRestriction`, which kubeadm
/// adds with `--enable-admission-plugins=NodeRestriction`
/// (`cmd/kubeadm/app/phases/controlplane/manifests.go`), all in
/// `AllOrderedPlugins` order.
pub fn default_chain() -> Vec<Box<dyn Plugin>> {
    vec![
        Box::new(namespace_lifecycle::NamespaceLifecycle),
        Box::new(limit_ranger::LimitRanger),
        Box::new(service_account::ServiceAccount),
        Box::new(node_restriction::NodeRestriction),
        Box::new(taint_nodes_by_condition::TaintNodesByCondition),
        Box::new(pod_security::PodSecurity),
        Box::new(priority::Priority),
        Box::new(default_toleration_seconds::DefaultTolerationSeconds),
        Box::new(default_storage_class::DefaultStorageClass),
        Box::new(inert::STORAGE_OBJECT_IN_USE_PROTECTION),
        Box::new(pod_group_protection::PodGroupProtection),
        Box::new(inert::PERSISTENT_VOLUME_CLAIM_RESIZE),
        Box::new(runtime_class::RuntimeClass),
        Box::new(inert::CERTIFICATE_APPROVAL),
        Box::new(inert::CERTIFICATE_SIGNING),
        Box::new(inert::CLUSTER_TRUST_BUNDLE_ATTEST),
        Box::new(inert::CERTIFICATE_SUBJECT_RESTRICTION),
        Box::new(inert::DEFAULT_INGRESS_CLASS),
        Box::new(pod_topology_labels::PodTopologyLabels),
        Box::new(pod_group_workload_exists::PodGroupWorkloadExists),
        Box::new(inert::NODE_DECLARED_FEATURE_VALIDATOR),
        Box::new(job_validation::JobValidation),
        Box::new(inert::POD_RESIZE_VALIDATOR),
        Box::new(inert::MUTATING_ADMISSION_POLICY),
        Box::new(inert::MUTATING_ADMISSION_WEBHOOK),
        Box::new(inert::VALIDATING_ADMISSION_POLICY),
        Box::new(inert::VALIDATING_ADMISSION_WEBHOOK),
        Box::new(resource_quota::ResourceQuota),
    ]
}

/// Whether `kind` is `group`/`name` (`""`/`Pod`, `certificates.k8s.io`/`CertificateSigningRequest`).
pub(crate) fn is_kind(kind: &Kind, group: &str, name: &str) -> bool {
    kind.group == group && kind.kind == name
}

/// Whether the request addresses a Pod itself (no subresource).
pub(crate) fn is_pod(kind: &Kind, subresource: Option<&str>) -> bool {
    is_kind(kind, "", "Pod") && subresource.is_none()
}

/// `admission.NewForbidden(a, err)`: 403 `pods "x" is forbidden: REASON`.
pub(crate) fn deny(req: &AdmissionRequest<'_>, reason: &str) -> Verdict {
    Verdict::Deny(forbidden(req.kind, req.name, reason))
}

/// A stored quantity, parsed; one that does not parse counts as zero (validation
/// refuses such objects before admission runs).
pub(crate) fn quantity(q: &Quantity) -> ParsedQuantity {
    parse_k8s(q).unwrap_or_else(|_| zero())
}

/// Zero, as `resource.Quantity{Format: DecimalSI}`.
pub(crate) fn zero() -> ParsedQuantity {
    ParsedQuantity::from_units(0, Format::DecimalSI)
}

/// `utilerrors.NewAggregate(errs).Error()`: duplicates dropped, one message
/// alone, several as `[a, b]`.
pub(crate) fn aggregate(errors: &[String]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for message in errors {
        if !seen.contains(&message.as_str()) {
            seen.push(message);
        }
    }
    match seen.as_slice() {
        [one] => (*one).to_owned(),
        many => format!("[{}]", many.join(", ")),
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! Shared helpers for the plugin tests.

    use super::AdmissionRequest;
    use crate::apiserver::ClusterView;
    use crate::apiserver::request::{Operation, UserInfo};
    use k8s_openapi::api::core::v1::{Namespace, NamespaceStatus, ServiceAccount};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
    use podflow_model::Object;
    use podflow_model::kinds::kind_of;
    use std::sync::LazyLock;

    /// The identity the tests act as.
    pub static ADMIN: LazyLock<UserInfo> =
        LazyLock::new(|| UserInfo::new("kubernetes-admin", &["system:masters"]));

    /// A request for `kind` named `name` in `namespace`.
    pub fn request<'a>(
        operation: Operation,
        kind: &str,
        namespace: Option<&'a str>,
        name: &'a str,
        cluster: &'a dyn ClusterView,
    ) -> AdmissionRequest<'a> {
        AdmissionRequest {
            operation,
            kind: kind_of(kind),
            subresource: None,
            namespace,
            name,
            user: &ADMIN,
            old: None,
            cluster,
            attempt: 1,
            retry_ms: 0,
        }
    }

    /// Metadata with a name and, when given, a namespace.
    pub fn meta(namespace: Option<&str>, name: &str) -> ObjectMeta {
        ObjectMeta {
            name: Some(name.to_owned()),
            namespace: namespace.map(str::to_owned),
            ..ObjectMeta::default()
        }
    }

    /// An `Active` namespace.
    pub fn namespace(name: &str) -> Object {
        Object::Namespace(Namespace {
            metadata: meta(None, name),
            status: Some(NamespaceStatus {
                phase: Some("Active".into()),
                ..NamespaceStatus::default()
            }),
            ..Namespace::default()
        })
    }

    /// A `ServiceAccount`.
    pub fn service_account(namespace: &str, name: &str) -> Object {
        Object::ServiceAccount(ServiceAccount {
            metadata: meta(Some(namespace), name),
            ..ServiceAccount::default()
        })
    }

    /// A Pod read from JSON (`spec` and optional `metadata` extras).
    pub fn pod(value: serde_json::Value) -> Object {
        Object::from_json(kind_of("Pod"), value).expect("test pods are valid")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Mirrors `AllOrderedPlugins` filtered by `DefaultOffAdmissionPlugins`, plus
    /// kubeadm's `NodeRestriction` in its place (`plugins_test.go`
    /// `TestAdmissionPluginOrder` checks the same order upstream).
    #[test]
    fn default_chain_is_kubeadms_plugins_in_order() {
        let names: Vec<&str> = default_chain().iter().map(|p| p.name()).collect();
        assert_eq!(
            names,
            [
                "NamespaceLifecycle",
                "LimitRanger",
                "ServiceAccount",
                "NodeRestriction",
                "TaintNodesByCondition",
                "PodSecurity",
                "Priority",
                "DefaultTolerationSeconds",
                "DefaultStorageClass",
                "StorageObjectInUseProtection",
                "PodGroupProtection",
                "PersistentVolumeClaimResize",
                "RuntimeClass",
                "CertificateApproval",
                "CertificateSigning",
                "ClusterTrustBundleAttest",
                "CertificateSubjectRestriction",
                "DefaultIngressClass",
                "PodTopologyLabels",
                "PodGroupWorkloadExists",
                "NodeDeclaredFeatureValidator",
                "JobValidation",
                "PodResizeValidator",
                "MutatingAdmissionPolicy",
                "MutatingAdmissionWebhook",
                "ValidatingAdmissionPolicy",
                "ValidatingAdmissionWebhook",
                "ResourceQuota",
            ]
        );
    }

    /// Which plugins act on a Pod create, per phase: what the trace shows for `kubectl apply`.
    #[test]
    fn a_pod_create_passes_these_plugins() {
        let pod = podflow_model::kinds::kind_of("Pod");
        let chain = default_chain();
        let mutating: Vec<&str> = chain
            .iter()
            .filter(|p| p.mutating() && p.handles(Operation::Create, pod, None))
            .map(|p| p.name())
            .collect();
        let validating: Vec<&str> = chain
            .iter()
            .filter(|p| p.validating() && p.handles(Operation::Create, pod, None))
            .map(|p| p.name())
            .collect();
        assert_eq!(
            mutating,
            [
                "NamespaceLifecycle",
                "LimitRanger",
                "ServiceAccount",
                "NodeRestriction",
                "Priority",
                "DefaultTolerationSeconds",
                "RuntimeClass",
                "PodTopologyLabels",
                "MutatingAdmissionPolicy",
                "MutatingAdmissionWebhook",
            ]
        );
        assert_eq!(
            validating,
            [
                "LimitRanger",
                "ServiceAccount",
                "PodSecurity",
                "Priority",
                "RuntimeClass",
                "ValidatingAdmissionPolicy",
                "ValidatingAdmissionWebhook",
                "ResourceQuota",
            ]
        );
    }

    /// The plugins each request podflow sends passes, per phase (`M` mutating,
    /// `V` validating): checked against each upstream plugin's `Handler`
    /// operations and the resources/subresources its code looks at.
    #[test]
    #[allow(clippy::too_many_lines)] // one row per request kind
    fn requests_podflow_sends_pass_these_plugins() {
        use podflow_model::kinds::kind_of;
        /// Operation, kind, subresource, mutating plugins, validating plugins.
        type Row = (
            Operation,
            &'static str,
            Option<&'static str>,
            Vec<&'static str>,
            Vec<&'static str>,
        );
        const GENERIC_M: [&str; 3] = [
            "NamespaceLifecycle",
            "MutatingAdmissionPolicy",
            "MutatingAdmissionWebhook",
        ];
        const GENERIC_V: [&str; 2] = ["ValidatingAdmissionPolicy", "ValidatingAdmissionWebhook"];
        let with = |extra: &[(usize, &'static str)], base: &[&'static str]| {
            let mut list = base.to_vec();
            for (at, name) in extra {
                list.insert(*at, *name);
            }
            list
        };
        let node_restricted = with(&[(1, "NodeRestriction")], &GENERIC_M);
        let table: Vec<Row> = vec![
            (
                Operation::Create,
                "Pod",
                Some("binding"),
                with(
                    &[(1, "NodeRestriction"), (2, "PodTopologyLabels")],
                    &GENERIC_M,
                ),
                GENERIC_V.to_vec(),
            ),
            (
                Operation::Update,
                "Pod",
                Some("status"),
                node_restricted.clone(),
                GENERIC_V.to_vec(),
            ),
            (
                Operation::Delete,
                "Pod",
                None,
                node_restricted.clone(),
                GENERIC_V.to_vec(),
            ),
            (
                Operation::Update,
                "Node",
                None,
                node_restricted.clone(),
                GENERIC_V.to_vec(),
            ),
            (
                Operation::Update,
                "Node",
                Some("status"),
                node_restricted,
                GENERIC_V.to_vec(),
            ),
            (
                Operation::Create,
                "Deployment",
                None,
                GENERIC_M.to_vec(),
                with(&[(0, "PodSecurity"), (3, "ResourceQuota")], &GENERIC_V),
            ),
            (
                Operation::Create,
                "ReplicaSet",
                None,
                GENERIC_M.to_vec(),
                with(&[(0, "PodSecurity"), (3, "ResourceQuota")], &GENERIC_V),
            ),
            (
                Operation::Update,
                "Deployment",
                Some("scale"),
                GENERIC_M.to_vec(),
                GENERIC_V.to_vec(),
            ),
            (
                Operation::Update,
                "ReplicaSet",
                Some("scale"),
                GENERIC_M.to_vec(),
                GENERIC_V.to_vec(),
            ),
            (
                Operation::Create,
                "Event",
                None,
                GENERIC_M.to_vec(),
                with(&[(2, "ResourceQuota")], &GENERIC_V),
            ),
        ];
        let chain = default_chain();
        for (operation, kind, subresource, mutating, validating) in table {
            let kind = kind_of(kind);
            let names = |phase: fn(&dyn Plugin) -> bool| -> Vec<&str> {
                chain
                    .iter()
                    .filter(|p| phase(p.as_ref()) && p.handles(operation, kind, subresource))
                    .map(|p| p.name())
                    .collect()
            };
            let what = format!("{operation:?} {} {subresource:?}", kind.resource);
            assert_eq!(names(|p| p.mutating()), mutating, "mutating: {what}");
            assert_eq!(names(|p| p.validating()), validating, "validating: {what}");
        }
    }
}
