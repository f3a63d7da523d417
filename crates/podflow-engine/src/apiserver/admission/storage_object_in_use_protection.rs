//! `StorageObjectInUseProtection` (`plugin/pkg/admission/storage/storageobjectinuseprotection/admission.go`):
//! adds the `kubernetes.io/pv-protection` / `kubernetes.io/pvc-protection` finalizers.
//! podflow serves no `PersistentVolumes` or claims, so it always allows.

use super::{Plugin, is_kind};
use crate::apiserver::request::Operation;
use podflow_model::Kind;

/// The `StorageObjectInUseProtection` admission plugin (mutating).
#[derive(Debug, Clone, Copy, Default)]
pub struct StorageObjectInUseProtection;

impl Plugin for StorageObjectInUseProtection {
    fn name(&self) -> &'static str {
        "StorageObjectInUseProtection"
    }

    /// Handles `PersistentVolume` and `PersistentVolumeClaim` creates.
    fn handles(&self, operation: Operation, kind: &Kind, subresource: Option<&str>) -> bool {
        operation == Operation::Create
            && subresource.is_none()
            && (is_kind(kind, "", "PersistentVolume") || is_kind(kind, "", "PersistentVolumeClaim"))
    }

    fn mutating(&self) -> bool {
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
            StorageObjectInUseProtection.name(),
            "StorageObjectInUseProtection"
        );
        assert!(!StorageObjectInUseProtection.handles(Operation::Create, kind_of("Pod"), None));
        assert!(StorageObjectInUseProtection.mutating());
        assert!(!StorageObjectInUseProtection.validating());
    }
}
