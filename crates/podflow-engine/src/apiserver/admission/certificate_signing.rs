//! `CertificateSigning` (`plugin/pkg/admission/certificates/signing/admission.go`):
//! checks the `sign` permission on the signer when a certificate is issued.
//! podflow serves no `CertificateSigningRequests`, so it always allows.

use super::{Plugin, is_kind};
use crate::apiserver::request::Operation;
use podflow_model::Kind;

/// The `CertificateSigning` admission plugin (validating).
#[derive(Debug, Clone, Copy, Default)]
pub struct CertificateSigning;

impl Plugin for CertificateSigning {
    fn name(&self) -> &'static str {
        "CertificateSigning"
    }

    /// Handles `certificatesigningrequests/status` updates.
    fn handles(&self, operation: Operation, kind: &Kind, subresource: Option<&str>) -> bool {
        operation == Operation::Update
            && subresource == Some("status")
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
        assert_eq!(CertificateSigning.name(), "CertificateSigning");
        assert!(!CertificateSigning.handles(Operation::Create, kind_of("Pod"), None));
        assert!(!CertificateSigning.mutating());
        assert!(CertificateSigning.validating());
    }
}
