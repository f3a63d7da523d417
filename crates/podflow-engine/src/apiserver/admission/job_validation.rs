//! `JobValidation` (`plugin/pkg/admission/job/admission.go`): checks Jobs that use
//! workload scheduling. Its `WorkloadWithJob` feature gate is off by default in 1.37,
//! so it handles nothing.

use super::Plugin;
use crate::apiserver::request::Operation;
use podflow_model::Kind;

/// The `JobValidation` admission plugin (validating).
#[derive(Debug, Clone, Copy, Default)]
pub struct JobValidation;

impl Plugin for JobValidation {
    fn name(&self) -> &'static str {
        "JobValidation"
    }

    /// Handles nothing while `WorkloadWithJob` is off.
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
        assert_eq!(JobValidation.name(), "JobValidation");
        assert!(!JobValidation.handles(Operation::Create, kind_of("Pod"), None));
        assert!(!JobValidation.mutating());
        assert!(JobValidation.validating());
    }
}
