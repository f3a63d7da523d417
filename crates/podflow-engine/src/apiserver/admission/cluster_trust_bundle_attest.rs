//! `ClusterTrustBundleAttest` (`plugin/pkg/admission/certificates/ctbattest/admission.go`):
//! checks the `attest` permission on a `ClusterTrustBundle`'s signer.
//! podflow serves no `ClusterTrustBundles`, so it always allows.

use super::{Plugin, is_kind};
use crate::apiserver::request::Operation;
use podflow_model::Kind;

/// The `ClusterTrustBundleAttest` admission plugin (validating).
#[derive(Debug, Clone, Copy, Default)]
pub struct ClusterTrustBundleAttest;

impl Plugin for ClusterTrustBundleAttest {
    fn name(&self) -> &'static str {
        "ClusterTrustBundleAttest"
    }

    /// Handles `ClusterTrustBundle` creates and updates.
    fn handles(&self, operation: Operation, kind: &Kind, subresource: Option<&str>) -> bool {
        matches!(operation, Operation::Create | Operation::Update)
            && subresource.is_none()
            && is_kind(kind, "certificates.k8s.io", "ClusterTrustBundle")
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
        assert_eq!(ClusterTrustBundleAttest.name(), "ClusterTrustBundleAttest");
        assert!(!ClusterTrustBundleAttest.handles(Operation::Create, kind_of("Pod"), None));
        assert!(!ClusterTrustBundleAttest.mutating());
        assert!(ClusterTrustBundleAttest.validating());
    }
}
