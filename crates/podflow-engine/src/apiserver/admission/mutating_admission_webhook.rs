//! `MutatingAdmissionWebhook` (`staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/mutating`):
//! calls the matching mutating webhooks. podflow configures none, so it always allows.

use super::Plugin;
use crate::apiserver::request::Operation;
use podflow_model::Kind;

/// The `MutatingAdmissionWebhook` admission plugin (mutating).
#[derive(Debug, Clone, Copy, Default)]
pub struct MutatingAdmissionWebhook;

impl Plugin for MutatingAdmissionWebhook {
    fn name(&self) -> &'static str {
        "MutatingAdmissionWebhook"
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
        assert_eq!(MutatingAdmissionWebhook.name(), "MutatingAdmissionWebhook");
        assert!(MutatingAdmissionWebhook.handles(Operation::Create, kind_of("Pod"), None));
        assert!(MutatingAdmissionWebhook.mutating());
        assert!(!MutatingAdmissionWebhook.validating());
    }
}
