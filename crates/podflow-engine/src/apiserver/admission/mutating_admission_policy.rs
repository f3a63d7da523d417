//! `MutatingAdmissionPolicy` (`staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/mutating`):
//! applies the matching `MutatingAdmissionPolicies`. podflow configures none, so it always allows.

use super::Plugin;
use crate::apiserver::request::Operation;
use podflow_model::Kind;

/// The `MutatingAdmissionPolicy` admission plugin (mutating).
#[derive(Debug, Clone, Copy, Default)]
pub struct MutatingAdmissionPolicy;

impl Plugin for MutatingAdmissionPolicy {
    fn name(&self) -> &'static str {
        "MutatingAdmissionPolicy"
    }

    /// Handles every create, update and delete, as its handler does.
    fn handles(&self, _operation: Operation, _kind: &Kind, _subresource: Option<&str>) -> bool {
        true
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
        assert_eq!(MutatingAdmissionPolicy.name(), "MutatingAdmissionPolicy");
        assert!(MutatingAdmissionPolicy.handles(Operation::Create, kind_of("Pod"), None));
        assert!(MutatingAdmissionPolicy.mutating());
        assert!(!MutatingAdmissionPolicy.validating());
    }
}
