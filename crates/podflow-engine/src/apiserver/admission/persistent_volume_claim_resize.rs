//! `PersistentVolumeClaimResize` (`plugin/pkg/admission/storage/persistentvolume/resize/admission.go`):
//! allows a claim to grow only if its `StorageClass` allows expansion.
//! podflow serves no `PersistentVolumeClaims`, so it always allows.

use super::{Plugin, is_kind};
use crate::apiserver::request::Operation;
use podflow_model::Kind;

/// The `PersistentVolumeClaimResize` admission plugin (validating).
#[derive(Debug, Clone, Copy, Default)]
pub struct PersistentVolumeClaimResize;

impl Plugin for PersistentVolumeClaimResize {
    fn name(&self) -> &'static str {
        "PersistentVolumeClaimResize"
    }

    /// Handles `PersistentVolumeClaim` updates.
    fn handles(&self, operation: Operation, kind: &Kind, subresource: Option<&str>) -> bool {
        operation == Operation::Update
            && subresource.is_none()
            && is_kind(kind, "", "PersistentVolumeClaim")
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
            PersistentVolumeClaimResize.name(),
            "PersistentVolumeClaimResize"
        );
        assert!(!PersistentVolumeClaimResize.handles(Operation::Create, kind_of("Pod"), None));
        assert!(!PersistentVolumeClaimResize.mutating());
        assert!(PersistentVolumeClaimResize.validating());
    }
}
