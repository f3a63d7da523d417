//! The admission plugins of the default chain that, in podflow, find nothing
//! to act on: each looks only at resources podflow does not serve or at
//! configuration it has none of, so it allows every request it handles.
//!
//! They are in the chain all the same, as in kube-apiserver's: the trace
//! shows one record for each that handles the request, as upstream runs it.
//! Each constant names its upstream source, what it does there and why it
//! allows here.

use super::{Plugin, is_kind};
use crate::apiserver::request::Operation;
use podflow_model::Kind;

/// Which phase an inert plugin has (each of these has one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Mutating,
    Validating,
}

/// An admission plugin that allows whatever it handles.
#[derive(Debug, Clone, Copy)]
pub struct Inert {
    /// The name `--enable-admission-plugins` spells.
    pub name: &'static str,
    pub phase: Phase,
    /// Upstream's `admission.Handler` operations, narrowed to the resources
    /// the plugin's code looks at.
    pub handles: fn(Operation, &Kind, Option<&str>) -> bool,
}

impl Plugin for Inert {
    fn name(&self) -> &'static str {
        self.name
    }

    fn handles(&self, operation: Operation, kind: &Kind, subresource: Option<&str>) -> bool {
        (self.handles)(operation, kind, subresource)
    }

    fn mutating(&self) -> bool {
        self.phase == Phase::Mutating
    }

    fn validating(&self) -> bool {
        self.phase == Phase::Validating
    }
}

/// Every request: the policy and webhook plugins match their configurations
/// against any request.
fn every_request(_: Operation, _: &Kind, _: Option<&str>) -> bool {
    true
}

/// `StorageObjectInUseProtection`
/// (`plugin/pkg/admission/storage/storageobjectinuseprotection/admission.go`):
/// adds the `kubernetes.io/pv-protection` and `kubernetes.io/pvc-protection`
/// finalizers. podflow serves no `PersistentVolumes` or claims.
pub const STORAGE_OBJECT_IN_USE_PROTECTION: Inert = Inert {
    name: "StorageObjectInUseProtection",
    phase: Phase::Mutating,
    handles: |operation, kind, subresource| {
        operation == Operation::Create
            && subresource.is_none()
            && (is_kind(kind, "", "PersistentVolume") || is_kind(kind, "", "PersistentVolumeClaim"))
    },
};

/// `PersistentVolumeClaimResize`
/// (`plugin/pkg/admission/storage/persistentvolume/resize/admission.go`):
/// lets a claim grow only if its `StorageClass` allows expansion. podflow
/// serves no `PersistentVolumeClaims`.
pub const PERSISTENT_VOLUME_CLAIM_RESIZE: Inert = Inert {
    name: "PersistentVolumeClaimResize",
    phase: Phase::Validating,
    handles: |operation, kind, subresource| {
        operation == Operation::Update
            && subresource.is_none()
            && is_kind(kind, "", "PersistentVolumeClaim")
    },
};

/// `CertificateApproval` (`plugin/pkg/admission/certificates/approval/admission.go`):
/// checks the `approve` permission on the signer of an approved
/// `CertificateSigningRequest`. podflow serves no `CertificateSigningRequests`.
pub const CERTIFICATE_APPROVAL: Inert = Inert {
    name: "CertificateApproval",
    phase: Phase::Validating,
    handles: |operation, kind, subresource| {
        operation == Operation::Update
            && subresource == Some("approval")
            && is_kind(kind, "certificates.k8s.io", "CertificateSigningRequest")
    },
};

/// `CertificateSigning` (`plugin/pkg/admission/certificates/signing/admission.go`):
/// checks the `sign` permission on the signer when a certificate is issued.
/// podflow serves no `CertificateSigningRequests`.
pub const CERTIFICATE_SIGNING: Inert = Inert {
    name: "CertificateSigning",
    phase: Phase::Validating,
    handles: |operation, kind, subresource| {
        operation == Operation::Update
            && subresource == Some("status")
            && is_kind(kind, "certificates.k8s.io", "CertificateSigningRequest")
    },
};

/// `ClusterTrustBundleAttest` (`plugin/pkg/admission/certificates/ctbattest/admission.go`):
/// checks the `attest` permission on a `ClusterTrustBundle`'s signer. podflow
/// serves no `ClusterTrustBundles`.
pub const CLUSTER_TRUST_BUNDLE_ATTEST: Inert = Inert {
    name: "ClusterTrustBundleAttest",
    phase: Phase::Validating,
    handles: |operation, kind, subresource| {
        matches!(operation, Operation::Create | Operation::Update)
            && subresource.is_none()
            && is_kind(kind, "certificates.k8s.io", "ClusterTrustBundle")
    },
};

/// `CertificateSubjectRestriction`
/// (`plugin/pkg/admission/certificates/subjectrestriction/admission.go`):
/// refuses `kubernetes.io/kube-apiserver-client` requests for the
/// `system:masters` group. podflow serves no `CertificateSigningRequests`.
pub const CERTIFICATE_SUBJECT_RESTRICTION: Inert = Inert {
    name: "CertificateSubjectRestriction",
    phase: Phase::Validating,
    handles: |operation, kind, subresource| {
        operation == Operation::Create
            && subresource.is_none()
            && is_kind(kind, "certificates.k8s.io", "CertificateSigningRequest")
    },
};

/// `DefaultIngressClass` (`plugin/pkg/admission/network/defaultingressclass/admission.go`):
/// gives an Ingress without `ingressClassName` the default `IngressClass`.
/// podflow serves no Ingresses.
pub const DEFAULT_INGRESS_CLASS: Inert = Inert {
    name: "DefaultIngressClass",
    phase: Phase::Mutating,
    handles: |operation, kind, subresource| {
        operation == Operation::Create
            && subresource.is_none()
            && is_kind(kind, "networking.k8s.io", "Ingress")
    },
};

/// `NodeDeclaredFeatureValidator` (`plugin/pkg/admission/nodedeclaredfeatures/admission.go`):
/// refuses updates of a bound Pod's spec that need features its node does
/// not declare. podflow's Pod updates need no declared feature.
pub const NODE_DECLARED_FEATURE_VALIDATOR: Inert = Inert {
    name: "NodeDeclaredFeatureValidator",
    phase: Phase::Validating,
    handles: |operation, kind, subresource| {
        operation == Operation::Update
            && matches!(subresource, None | Some("resize"))
            && is_kind(kind, "", "Pod")
    },
};

/// `PodResizeValidator` (`plugin/pkg/admission/podresize/admission.go`):
/// checks in-place resizes (`pods/resize`) against the node. podflow sends
/// no resizes.
pub const POD_RESIZE_VALIDATOR: Inert = Inert {
    name: "PodResizeValidator",
    phase: Phase::Validating,
    handles: |operation, kind, subresource| {
        operation == Operation::Update && subresource == Some("resize") && is_kind(kind, "", "Pod")
    },
};

/// `MutatingAdmissionPolicy`
/// (`staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/mutating`):
/// applies the matching `MutatingAdmissionPolicies`. podflow configures none.
pub const MUTATING_ADMISSION_POLICY: Inert = Inert {
    name: "MutatingAdmissionPolicy",
    phase: Phase::Mutating,
    handles: every_request,
};

/// `MutatingAdmissionWebhook`
/// (`staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/mutating`):
/// calls the matching mutating webhooks. podflow configures none.
pub const MUTATING_ADMISSION_WEBHOOK: Inert = Inert {
    name: "MutatingAdmissionWebhook",
    phase: Phase::Mutating,
    handles: every_request,
};

/// `ValidatingAdmissionPolicy`
/// (`staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating`):
/// evaluates the matching `ValidatingAdmissionPolicies`. podflow configures none.
pub const VALIDATING_ADMISSION_POLICY: Inert = Inert {
    name: "ValidatingAdmissionPolicy",
    phase: Phase::Validating,
    handles: every_request,
};

/// `ValidatingAdmissionWebhook`
/// (`staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/validating`):
/// calls the matching validating webhooks. podflow configures none.
pub const VALIDATING_ADMISSION_WEBHOOK: Inert = Inert {
    name: "ValidatingAdmissionWebhook",
    phase: Phase::Validating,
    handles: every_request,
};

#[cfg(test)]
mod tests {
    use super::*;
    use podflow_model::kinds::KINDS;

    /// `kind` in `group`, served or not (podflow serves no Ingresses, for one).
    fn kind_of(kind: &'static str) -> &'static Kind {
        let group = match kind {
            "CertificateSigningRequest" | "ClusterTrustBundle" => "certificates.k8s.io",
            "Ingress" => "networking.k8s.io",
            _ => "",
        };
        if let Some(served) = KINDS.iter().find(|k| k.kind == kind && k.group == group) {
            return served;
        }
        Box::leak(Box::new(Kind {
            kind,
            group,
            version: "v1",
            resource: "",
            namespaced: true,
        }))
    }

    /// A request: its operation, kind and subresource.
    type Handled = (Operation, &'static str, Option<&'static str>);

    /// What each plugin handles: (plugin, its phase, one request it handles
    /// or `None` for the policy and webhook plugins, which handle any), and
    /// no plugin but those four handles a Pod create.
    #[test]
    fn each_handles_only_its_requests() {
        use Operation::{Create, Update};
        let table: [(Inert, Phase, Option<Handled>); 13] = [
            (
                STORAGE_OBJECT_IN_USE_PROTECTION,
                Phase::Mutating,
                Some((Create, "PersistentVolumeClaim", None)),
            ),
            (
                PERSISTENT_VOLUME_CLAIM_RESIZE,
                Phase::Validating,
                Some((Update, "PersistentVolumeClaim", None)),
            ),
            (
                CERTIFICATE_APPROVAL,
                Phase::Validating,
                Some((Update, "CertificateSigningRequest", Some("approval"))),
            ),
            (
                CERTIFICATE_SIGNING,
                Phase::Validating,
                Some((Update, "CertificateSigningRequest", Some("status"))),
            ),
            (
                CLUSTER_TRUST_BUNDLE_ATTEST,
                Phase::Validating,
                Some((Create, "ClusterTrustBundle", None)),
            ),
            (
                CERTIFICATE_SUBJECT_RESTRICTION,
                Phase::Validating,
                Some((Create, "CertificateSigningRequest", None)),
            ),
            (
                DEFAULT_INGRESS_CLASS,
                Phase::Mutating,
                Some((Create, "Ingress", None)),
            ),
            (
                NODE_DECLARED_FEATURE_VALIDATOR,
                Phase::Validating,
                Some((Update, "Pod", None)),
            ),
            (
                POD_RESIZE_VALIDATOR,
                Phase::Validating,
                Some((Update, "Pod", Some("resize"))),
            ),
            (MUTATING_ADMISSION_POLICY, Phase::Mutating, None),
            (MUTATING_ADMISSION_WEBHOOK, Phase::Mutating, None),
            (VALIDATING_ADMISSION_POLICY, Phase::Validating, None),
            (VALIDATING_ADMISSION_WEBHOOK, Phase::Validating, None),
        ];
        for (plugin, phase, handled) in table {
            let name = plugin.name();
            assert_eq!(plugin.mutating(), phase == Phase::Mutating, "{name}");
            assert_eq!(plugin.validating(), phase == Phase::Validating, "{name}");
            let pod_create = plugin.handles(Create, kind_of("Pod"), None);
            match handled {
                Some((operation, kind, subresource)) => {
                    assert!(
                        plugin.handles(operation, kind_of(kind), subresource),
                        "{name}"
                    );
                    assert!(
                        !plugin.handles(operation, kind_of("Secret"), subresource),
                        "{name}"
                    );
                    assert!(!pod_create, "{name} handles a Pod create");
                }
                None => assert!(pod_create, "{name} handles every request"),
            }
        }
    }

    /// A plugin narrowed to a subresource does not handle the object itself.
    #[test]
    fn subresource_plugins_skip_the_object_itself() {
        let csr = kind_of("CertificateSigningRequest");
        assert!(!CERTIFICATE_APPROVAL.handles(Operation::Update, csr, None));
        assert!(!CERTIFICATE_SIGNING.handles(Operation::Update, csr, None));
        assert!(!POD_RESIZE_VALIDATOR.handles(Operation::Update, kind_of("Pod"), None));
        assert!(!NODE_DECLARED_FEATURE_VALIDATOR.handles(
            Operation::Update,
            kind_of("Pod"),
            Some("status")
        ));
    }
}
