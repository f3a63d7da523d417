//! `CertificateSubjectRestriction` (`plugin/pkg/admission/certificates/subjectrestriction/admission.go`):
//! refuses `kubernetes.io/kube-apiserver-client` requests for the `system:masters` group.
//! podflow serves no `CertificateSigningRequests`, so it always allows.

use super::{Plugin, is_kind};
use crate::apiserver::request::Operation;
use podflow_model::Kind;

/// The `CertificateSubjectRestriction` admission plugin (validating).
#[derive(Debug, Clone, Copy, Default)]
pub struct CertificateSubjectRestriction;

impl Plugin for CertificateSubjectRestriction {
    fn name(&self) -> &'static str {
        "CertificateSubjectRestriction"
    }

    /// Handles `CertificateSigningRequest` creates.
    fn handles(&self, operation: Operation, kind: &Kind, subresource: Option<&str>) -> bool {
        operation == Operation::Create
            && subresource.is_none()
            && is_kind(kind, "certificates.k8s.io", "CertificateSigningRequest")
    }

    fn validating(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use podflow_model::kinds::kind_of;

    /// The admission handler's operations and resources (upstream `TestHandles`-style check).
    #[test]
    fn handles_only_its_resources() {
        assert_eq!(
            CertificateSubjectRestriction.name(),
            "CertificateSubjectRestriction"
        );
        assert!(!CertificateSubjectRestriction.handles(Operation::Create, kind_of("Pod"), None));
        assert!(!CertificateSubjectRestriction.mutating());
        assert!(CertificateSubjectRestriction.validating());
    }
}
