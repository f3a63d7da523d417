//! `DefaultIngressClass` (`plugin/pkg/admission/network/defaultingressclass/admission.go`):
//! gives an Ingress without `ingressClassName` the default `IngressClass`.
//! podflow serves no Ingresses, so it always allows.

use super::{Plugin, is_kind};
use crate::apiserver::request::Operation;
use podflow_model::Kind;

/// The `DefaultIngressClass` admission plugin (mutating).
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultIngressClass;

impl Plugin for DefaultIngressClass {
    fn name(&self) -> &'static str {
        "DefaultIngressClass"
    }

    /// Handles Ingress creates.
    fn handles(&self, operation: Operation, kind: &Kind, subresource: Option<&str>) -> bool {
        operation == Operation::Create
            && subresource.is_none()
            && is_kind(kind, "networking.k8s.io", "Ingress")
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
        assert_eq!(DefaultIngressClass.name(), "DefaultIngressClass");
        assert!(!DefaultIngressClass.handles(Operation::Create, kind_of("Pod"), None));
        assert!(DefaultIngressClass.mutating());
        assert!(!DefaultIngressClass.validating());
    }
}
