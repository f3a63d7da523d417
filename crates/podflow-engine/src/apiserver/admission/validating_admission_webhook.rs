//! `ValidatingAdmissionWebhook` (`staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/validating`):
//! calls the matching validating webhooks. podflow configures none, so it always allows.

use super::Plugin;
use crate::apiserver::request::Operation;
use podflow_model::Kind;

/// The `ValidatingAdmissionWebhook` admission plugin (validating).
#[derive(Debug, Clone, Copy, Default)]
pub struct ValidatingAdmissionWebhook;

impl Plugin for ValidatingAdmissionWebhook {
    fn name(&self) -> &'static str {
        "ValidatingAdmissionWebhook"
    }

    /// Handles every create, update and delete, as its handler does.
    fn handles(&self, _operation: Operation, _kind: &Kind, _subresource: Option<&str>) -> bool {
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
        assert_eq!(
            ValidatingAdmissionWebhook.name(),
            "ValidatingAdmissionWebhook"
        );
        assert!(ValidatingAdmissionWebhook.handles(Operation::Create, kind_of("Pod"), None));
        assert!(!ValidatingAdmissionWebhook.mutating());
        assert!(ValidatingAdmissionWebhook.validating());
    }
}
