//! `RuntimeClass` (`plugin/pkg/admission/runtimeclass/admission.go`): copies a
//! `RuntimeClass`'s overhead and scheduling constraints into Pods that name it.
//! podflow serves no `RuntimeClasses`: Pods without `runtimeClassName` pass, Pods
//! naming one are refused as upstream refuses a class that does not exist.

use super::{AdmissionRequest, Plugin, SideEffects, Verdict, deny, is_pod};
use crate::apiserver::request::Operation;
use crate::rng::Rng;
use podflow_model::{Kind, Object};

/// The `RuntimeClass` admission plugin (mutating and validating).
#[derive(Debug, Clone, Copy, Default)]
pub struct RuntimeClass;

fn named_class(object: &Object) -> Option<&str> {
    object
        .as_pod()
        .and_then(|p| p.spec.as_ref())
        .and_then(|s| s.runtime_class_name.as_deref())
        .filter(|n| !n.is_empty())
}

fn refuse(req: &AdmissionRequest<'_>, object: &Object) -> Verdict {
    match named_class(object) {
        Some(name) => deny(
            req,
            &format!("pod rejected: RuntimeClass \"{name}\" not found"),
        ),
        None => Verdict::Allow,
    }
}

impl Plugin for RuntimeClass {
    fn name(&self) -> &'static str {
        "RuntimeClass"
    }

    /// Pod creates.
    fn handles(&self, operation: Operation, kind: &Kind, subresource: Option<&str>) -> bool {
        operation == Operation::Create && is_pod(kind, subresource)
    }

    fn mutating(&self) -> bool {
        true
    }

    fn validating(&self) -> bool {
        true
    }

    fn admit(&self, req: &AdmissionRequest<'_>, object: &mut Object, _rng: &mut Rng) -> Verdict {
        refuse(req, object)
    }

    fn validate(
        &self,
        req: &AdmissionRequest<'_>,
        object: &Object,
        _effects: &mut SideEffects,
    ) -> Verdict {
        refuse(req, object)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::StaticCluster;
    use crate::apiserver::admission::testing::{pod, request};
    use serde_json::json;

    /// Mirrors `runtimeclass/admission_test.go` `TestAdmit` (the missing-class case).
    #[test]
    fn admit() {
        let cluster = StaticCluster::default();
        let req = request(Operation::Create, "Pod", Some("default"), "nginx", &cluster);
        let mut plain = pod(json!({"spec": {"containers": []}}));
        assert_eq!(
            RuntimeClass.admit(&req, &mut plain, &mut Rng::new(1)),
            Verdict::Allow
        );
        let mut gvisor = pod(json!({"spec": {"containers": [], "runtimeClassName": "gvisor"}}));
        let Verdict::Deny(status) = RuntimeClass.admit(&req, &mut gvisor, &mut Rng::new(1)) else {
            panic!("unknown classes are refused");
        };
        assert_eq!(
            status.message.as_deref(),
            Some(r#"pods "nginx" is forbidden: pod rejected: RuntimeClass "gvisor" not found"#)
        );
    }
}
