//! `DefaultStorageClass` (`plugin/pkg/admission/storage/storageclass/setdefault/admission.go`):
//! gives a `PersistentVolumeClaim` without `storageClassName` the default `StorageClass`.
//! podflow serves no `PersistentVolumeClaims` or `StorageClasses`, so it always allows.

use super::{Plugin, is_kind};
use crate::engine::apiserver::request::Operation;
use crate::model::Kind;

/// The `DefaultStorageClass` admission plugin (mutating).
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultStorageClass;

impl Plugin for DefaultStorageClass {
    fn name(&self) -> &'static str {
        "DefaultStorageClass"
    }

    /// Handles `PersistentVolumeClaim` creates.
    fn handles(&self, operation: Operation, kind: &Kind, subresource: Option<&str>) -> bool {
        operation == Operation::Create
            && subresource.is_none()
            && is_kind(kind, "", "PersistentVolumeClaim")
    }

    fn mutating(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::kinds::kind_of;

    /// The admission handler's operations and resources (upstream `TestHandles`-style check).
    #[test]
    fn handles_only_its_resources() {
        assert_eq!(DefaultStorageClass.name(), "DefaultStorageClass");
        assert!(!DefaultStorageClass.handles(Operation::Create, kind_of("Pod"), None));
        assert!(DefaultStorageClass.mutating());
        assert!(!DefaultStorageClass.validating());
    }
}
