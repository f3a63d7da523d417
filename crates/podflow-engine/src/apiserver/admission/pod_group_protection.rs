//! `PodGroupProtection` (`plugin/pkg/admission/scheduling/podgroupprotection/admission.go`):
//! guards `PodGroups` that Pods still reference. Its `GenericWorkload` feature gate is
//! off by default (beta, off, in 1.37), so it returns at once and handles nothing.

use super::Plugin;
use crate::apiserver::request::Operation;
use podflow_model::Kind;

/// The `PodGroupProtection` admission plugin (mutating and validating).
#[derive(Debug, Clone, Copy, Default)]
pub struct PodGroupProtection;

impl Plugin for PodGroupProtection {
    fn name(&self) -> &'static str {
        "PodGroupProtection"
    }

    /// Handles nothing while `GenericWorkload` is off.
    fn handles(&self, _operation: Operation, _kind: &Kind, _subresource: Option<&str>) -> bool {
        false
    }

    fn mutating(&self) -> bool {
        true
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
        assert_eq!(PodGroupProtection.name(), "PodGroupProtection");
        assert!(!PodGroupProtection.handles(Operation::Create, kind_of("Pod"), None));
        assert!(PodGroupProtection.mutating());
        assert!(PodGroupProtection.validating());
    }
}
