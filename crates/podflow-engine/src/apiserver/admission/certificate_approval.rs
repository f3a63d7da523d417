//! `CertificateApproval` (`plugin/pkg/admission/certificates/approval/admission.go`):
//! checks the `approve` permission on the signer of an approved `CertificateSigningRequest`.
//! podflow serves no `CertificateSigningRequests`, so it always allows.

use super::{Plugin, is_kind};
use crate::apiserver::request::Operation;
use podflow_model::Kind;

/// The `CertificateApproval` admission plugin (validating).
#[derive(Debug, Clone, Copy, Default)]
pub struct CertificateApproval;

impl Plugin for CertificateApproval {
    fn name(&self) -> &'static str {
        "CertificateApproval"
    }

    /// Handles `certificatesigningrequests/approval` updates.
    fn handles(&self, operation: Operation, kind: &Kind, subresource: Option<&str>) -> bool {
        operation == Operation::Update
            && subresource == Some("approval")
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
        assert_eq!(CertificateApproval.name(), "CertificateApproval");
        assert!(!CertificateApproval.handles(Operation::Create, kind_of("Pod"), None));
        assert!(!CertificateApproval.mutating());
        assert!(CertificateApproval.validating());
    }
}
