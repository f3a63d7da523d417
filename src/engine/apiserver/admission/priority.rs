//! `Priority` (`plugin/pkg/admission/priority/admission.go`): resolves a Pod's
//! `priorityClassName` into `spec.priority` and `spec.preemptionPolicy`.
//!
//! podflow serves no `PriorityClass` objects yet: the two built-in classes
//! (`system-node-critical`, `system-cluster-critical`) resolve, any other name is
//! refused as not found, and without a name the Pod gets priority 0, as when no
//! class is the global default.

use super::{AdmissionRequest, Plugin, Verdict, deny, is_kind};
use crate::engine::apiserver::request::Operation;
use crate::engine::rng::Rng;
use crate::model::{Kind, Object};

/// The built-in `PriorityClasses` (`pkg/apis/scheduling/types.go`, `SystemPriorityClasses`).
pub const SYSTEM_CLASSES: [(&str, i32); 2] = [
    ("system-node-critical", 2_000_001_000),
    ("system-cluster-critical", 2_000_000_000),
];
const PREEMPT_LOWER_PRIORITY: &str = "PreemptLowerPriority";

/// The `Priority` admission plugin (mutating for Pods; validating for `PriorityClasses`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Priority;

impl Plugin for Priority {
    fn name(&self) -> &'static str {
        "Priority"
    }

    /// Pod creates and updates, and `PriorityClass` writes.
    fn handles(&self, operation: Operation, kind: &Kind, subresource: Option<&str>) -> bool {
        subresource.is_none()
            && matches!(operation, Operation::Create | Operation::Update)
            && (is_kind(kind, "", "Pod") || is_kind(kind, "scheduling.k8s.io", "PriorityClass"))
    }

    fn mutating(&self) -> bool {
        true
    }

    fn validating(&self) -> bool {
        true
    }

    fn admit(&self, req: &AdmissionRequest<'_>, object: &mut Object, _rng: &mut Rng) -> Verdict {
        let Object::Pod(pod) = object else {
            return Verdict::Allow;
        };
        let spec = pod.spec.get_or_insert_default();
        if req.operation == Operation::Update {
            // Keep what this plugin set at create time.
            if let Some(Object::Pod(old)) = req.old {
                let old_spec = old.spec.as_ref();
                if spec.priority.is_none() {
                    spec.priority = old_spec.and_then(|s| s.priority);
                }
                if spec.preemption_policy.is_none() {
                    spec.preemption_policy = old_spec.and_then(|s| s.preemption_policy.clone());
                }
            }
            return Verdict::Allow;
        }
        let class = spec.priority_class_name.clone().unwrap_or_default();
        let priority = if class.is_empty() {
            0
        } else {
            match SYSTEM_CLASSES.iter().find(|(name, _)| *name == class) {
                Some((_, value)) => *value,
                None => {
                    return deny(
                        req,
                        &format!("no PriorityClass with name {class} was found"),
                    );
                }
            }
        };
        if let Some(given) = spec.priority.filter(|p| *p != priority) {
            return deny(
                req,
                &format!(
                    "the integer value of priority ({given}) must not be provided in pod spec; priority admission controller computed {priority} from the given PriorityClass name"
                ),
            );
        }
        if let Some(given) = spec
            .preemption_policy
            .as_deref()
            .filter(|p| *p != PREEMPT_LOWER_PRIORITY)
        {
            return deny(
                req,
                &format!(
                    "the string value of PreemptionPolicy ({given}) must not be provided in pod spec; priority admission controller computed {PREEMPT_LOWER_PRIORITY} from the given PriorityClass name"
                ),
            );
        }
        spec.priority = Some(priority);
        spec.preemption_policy = Some(PREEMPT_LOWER_PRIORITY.into());
        let from = if class.is_empty() {
            "no PriorityClass named, none is the default".to_owned()
        } else {
            format!("from PriorityClass {class}")
        };
        Verdict::Mutate(format!(
            "set priority to {priority} and preemptionPolicy to {PREEMPT_LOWER_PRIORITY} ({from})"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::apiserver::StaticCluster;
    use crate::engine::apiserver::admission::testing::{pod, request};
    use serde_json::json;

    /// Mirrors `priority/admission_test.go` `TestPodAdmission`.
    #[test]
    fn pod_admission() {
        let cluster = StaticCluster::default();
        let req = request(Operation::Create, "Pod", Some("default"), "nginx", &cluster);
        let cases = [
            (json!({}), Ok(0)),
            (
                json!({"priorityClassName": "system-cluster-critical"}),
                Ok(2_000_000_000),
            ),
            (
                json!({"priorityClassName": "system-node-critical"}),
                Ok(2_000_001_000),
            ),
            (
                json!({"priorityClassName": "foo"}),
                Err(r#"pods "nginx" is forbidden: no PriorityClass with name foo was found"#),
            ),
            (
                json!({"priority": 10}),
                Err(
                    r#"pods "nginx" is forbidden: the integer value of priority (10) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name"#,
                ),
            ),
            (json!({"priority": 0}), Ok(0)),
        ];
        for (extra, want) in cases {
            let mut spec = json!({"containers": []});
            spec.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            let mut object = pod(json!({"metadata": {"name": "nginx"}, "spec": spec}));
            let verdict = Priority.admit(&req, &mut object, &mut Rng::new(1));
            match (want, verdict) {
                (Ok(priority), Verdict::Mutate(_)) => {
                    let spec = object.as_pod().unwrap().spec.clone().unwrap();
                    assert_eq!(spec.priority, Some(priority));
                    assert_eq!(
                        spec.preemption_policy.as_deref(),
                        Some("PreemptLowerPriority")
                    );
                }
                (Err(message), Verdict::Deny(status)) => {
                    assert_eq!(status.message.as_deref(), Some(message));
                }
                (want, got) => panic!("{extra}: want {want:?}, got {got:?}"),
            }
        }
    }
}
