//! `PodGroupWorkloadExists` (`plugin/pkg/admission/podgroup/admission.go`):
//! refuses `PodGroups` whose Workload does not exist. Its `GenericWorkload` feature gate
//! is off by default in 1.37, so it handles nothing.

use super::Plugin;
use crate::apiserver::request::Operation;
use podflow_model::Kind;

/// The `PodGroupWorkloadExists` admission plugin (validating).
#[derive(Debug, Clone, Copy, Default)]
pub struct PodGroupWorkloadExists;

impl Plugin for PodGroupWorkloadExists {
    fn name(&self) -> &'static str {
        "PodGroupWorkloadExists"
    }

    /// Handles nothing while `GenericWorkload` is off.
    fn handles(&self, _operation: Operation, _kind: &Kind, _subresource: Option<&str>) -> bool {
        false
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
        assert_eq!(PodGroupWorkloadExists.name(), "PodGroupWorkloadExists");
        assert!(!PodGroupWorkloadExists.handles(Operation::Create, kind_of("Pod"), None));
        assert!(!PodGroupWorkloadExists.mutating());
        assert!(PodGroupWorkloadExists.validating());
    }
}
