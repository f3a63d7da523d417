//! `PodResizeValidator` (`plugin/pkg/admission/podresize/admission.go`): checks in-place
//! resizes (`pods/resize`) against the node. podflow sends no resizes, so it always allows.

use super::{Plugin, is_kind};
use crate::apiserver::request::Operation;
use podflow_model::Kind;

/// The `PodResizeValidator` admission plugin (validating).
#[derive(Debug, Clone, Copy, Default)]
pub struct PodResizeValidator;

impl Plugin for PodResizeValidator {
    fn name(&self) -> &'static str {
        "PodResizeValidator"
    }

    /// Handles `pods/resize` updates.
    fn handles(&self, operation: Operation, kind: &Kind, subresource: Option<&str>) -> bool {
        operation == Operation::Update && subresource == Some("resize") && is_kind(kind, "", "Pod")
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
        assert_eq!(PodResizeValidator.name(), "PodResizeValidator");
        assert!(!PodResizeValidator.handles(Operation::Create, kind_of("Pod"), None));
        assert!(!PodResizeValidator.mutating());
        assert!(PodResizeValidator.validating());
    }
}
