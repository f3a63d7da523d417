//! `NodeDeclaredFeatureValidator` (`plugin/pkg/admission/nodedeclaredfeatures/admission.go`):
//! refuses updates of a bound Pod's spec that need features its node does not declare.
//! podflow's Pod updates need no declared feature, so it always allows.

use super::{Plugin, is_kind};
use crate::apiserver::request::Operation;
use podflow_model::Kind;

/// The `NodeDeclaredFeatureValidator` admission plugin (validating).
#[derive(Debug, Clone, Copy, Default)]
pub struct NodeDeclaredFeatureValidator;

impl Plugin for NodeDeclaredFeatureValidator {
    fn name(&self) -> &'static str {
        "NodeDeclaredFeatureValidator"
    }

    /// Handles Pod spec updates and `pods/resize`.
    fn handles(&self, operation: Operation, kind: &Kind, subresource: Option<&str>) -> bool {
        operation == Operation::Update
            && matches!(subresource, None | Some("resize"))
            && is_kind(kind, "", "Pod")
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
            NodeDeclaredFeatureValidator.name(),
            "NodeDeclaredFeatureValidator"
        );
        assert!(!NodeDeclaredFeatureValidator.handles(Operation::Create, kind_of("Pod"), None));
        assert!(!NodeDeclaredFeatureValidator.mutating());
        assert!(NodeDeclaredFeatureValidator.validating());
    }
}
