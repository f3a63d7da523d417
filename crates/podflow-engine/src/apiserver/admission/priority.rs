//! `Priority` (`plugin/pkg/admission/priority/admission.go`): resolves a Pod's
//! `priorityClassName` against the cluster's `PriorityClasses` into
//! `spec.priority` and `spec.preemptionPolicy` (a Pod without a class gets the
//! global default class, or priority 0), and keeps a second `PriorityClass`
//! from becoming the global default.

use k8s_openapi::api::scheduling::v1::PriorityClass;

use super::{AdmissionRequest, Plugin, SideEffects, Verdict, deny, is_kind};
use crate::apiserver::request::Operation;
use crate::rng::Rng;
use podflow_model::kinds::kind_of;
use podflow_model::{Kind, Object};

/// The built-in `PriorityClasses` (`pkg/apis/scheduling/types.go`, `SystemPriorityClasses`),
/// which the API server creates at start.
pub use crate::apiserver::validation::SYSTEM_PRIORITY_CLASSES as SYSTEM_CLASSES;
const PREEMPT_LOWER_PRIORITY: &str = "PreemptLowerPriority";

/// The classes the API server's post-start hook
/// `scheduling/bootstrap-system-priority-classes` creates
/// (`pkg/registry/scheduling/rest/storage_scheduling.go`), with the
/// descriptions of `pkg/apis/scheduling/v1/helpers.go`.
pub fn system_priority_classes() -> Vec<Object> {
    let description = |name: &str| {
        if name == "system-node-critical" {
            "Used for system critical pods that must not be moved from their current node."
        } else {
            "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."
        }
    };
    SYSTEM_CLASSES
        .iter()
        .map(|(name, value)| {
            Object::PriorityClass(PriorityClass {
                metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
                    name: Some((*name).to_owned()),
                    ..Default::default()
                },
                value: Some(*value),
                description: Some(description(name).to_owned()),
                preemption_policy: Some(PREEMPT_LOWER_PRIORITY.to_owned()),
                ..PriorityClass::default()
            })
        })
        .collect()
}

/// The `Priority` admission plugin (mutating for Pods; validating for `PriorityClasses`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Priority;

/// Every `PriorityClass` the API server's lister holds.
fn classes(req: &AdmissionRequest<'_>) -> Vec<PriorityClass> {
    req.cluster
        .list(kind_of("PriorityClass"), None)
        .iter()
        .filter_map(|o| match &**o {
            Object::PriorityClass(pc) => Some(pc.clone()),
            _ => None,
        })
        .collect()
}

/// `getDefaultPriorityClass`: the `globalDefault` class; of several (a race),
/// the one with the lowest value.
fn default_class(classes: &[PriorityClass]) -> Option<&PriorityClass> {
    classes
        .iter()
        .filter(|pc| pc.global_default == Some(true))
        .fold(None, |best: Option<&PriorityClass>, pc| match best {
            Some(b) if b.value.unwrap_or(0) <= pc.value.unwrap_or(0) => Some(b),
            _ => Some(pc),
        })
}

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
        let classes = classes(req);
        let named = spec.priority_class_name.clone().unwrap_or_default();
        let (class, priority, policy) = if named.is_empty() {
            match default_class(&classes) {
                Some(pc) => (
                    pc.metadata.name.clone().unwrap_or_default(),
                    pc.value.unwrap_or(0),
                    pc.preemption_policy.clone(),
                ),
                // `scheduling.DefaultPriorityWhenNoDefaultClassExists`.
                None => (String::new(), 0, Some(PREEMPT_LOWER_PRIORITY.to_owned())),
            }
        } else {
            let found = classes
                .iter()
                .find(|pc| pc.metadata.name.as_deref() == Some(named.as_str()));
            let Some(pc) = found else {
                return deny(
                    req,
                    &format!("no PriorityClass with name {named} was found"),
                );
            };
            (
                named.clone(),
                pc.value.unwrap_or(0),
                pc.preemption_policy.clone(),
            )
        };
        if let Some(given) = spec.priority.filter(|p| *p != priority) {
            return deny(
                req,
                &format!(
                    "the integer value of priority ({given}) must not be provided in pod spec; priority admission controller computed {priority} from the given PriorityClass name"
                ),
            );
        }
        if let Some(policy) = &policy
            && let Some(given) = spec.preemption_policy.as_deref().filter(|p| p != policy)
        {
            return deny(
                req,
                &format!(
                    "the string value of PreemptionPolicy ({given}) must not be provided in pod spec; priority admission controller computed {policy} from the given PriorityClass name"
                ),
            );
        }
        if named.is_empty() && !class.is_empty() {
            spec.priority_class_name = Some(class.clone());
        }
        spec.priority = Some(priority);
        if policy.is_some() {
            spec.preemption_policy.clone_from(&policy);
        }
        let from = if class.is_empty() {
            "no PriorityClass named, none is the default".to_owned()
        } else if named.is_empty() {
            format!("from the global default PriorityClass {class}")
        } else {
            format!("from PriorityClass {class}")
        };
        let policy = spec.preemption_policy.as_deref().unwrap_or_default();
        Verdict::Mutate(format!(
            "set priority to {priority} and preemptionPolicy to {policy} ({from})"
        ))
    }

    /// `validatePriorityClass`: only one class may be the global default.
    fn validate(
        &self,
        req: &AdmissionRequest<'_>,
        object: &Object,
        _effects: &mut SideEffects,
    ) -> Verdict {
        let Object::PriorityClass(pc) = object else {
            return Verdict::Allow;
        };
        if pc.global_default != Some(true) {
            return Verdict::Allow;
        }
        let classes = classes(req);
        let Some(existing) = default_class(&classes) else {
            return Verdict::Allow;
        };
        let existing = existing.metadata.name.clone().unwrap_or_default();
        if req.operation == Operation::Create
            || (req.operation == Operation::Update && existing != req.name)
        {
            return deny(
                req,
                &format!(
                    "PriorityClass {existing} is already marked as default. Only one default can exist"
                ),
            );
        }
        Verdict::Allow
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::StaticCluster;
    use crate::apiserver::admission::testing::{pod, request};
    use serde_json::{Value, json};

    fn class(name: &str, value: i32, global_default: bool, policy: &str) -> Object {
        Object::PriorityClass(
            serde_json::from_value(json!({
                "metadata": {"name": name}, "value": value,
                "globalDefault": global_default, "preemptionPolicy": policy,
            }))
            .unwrap(),
        )
    }

    /// The classes of upstream's `admission_test.go` plus the system ones.
    fn cluster(with_default: bool) -> StaticCluster {
        let mut objects = vec![
            class(
                "system-cluster-critical",
                2_000_000_000,
                false,
                PREEMPT_LOWER_PRIORITY,
            ),
            class(
                "system-node-critical",
                2_000_001_000,
                false,
                PREEMPT_LOWER_PRIORITY,
            ),
            class("nondefault1", 2000, false, PREEMPT_LOWER_PRIORITY),
            class("neverpreemptionpolicy", 1000, false, "Never"),
        ];
        if with_default {
            objects.push(class("default1", 1000, true, PREEMPT_LOWER_PRIORITY));
        }
        StaticCluster::new(objects)
    }

    fn admit(cluster: &StaticCluster, extra: &Value) -> (Verdict, Object) {
        let req = request(Operation::Create, "Pod", Some("default"), "nginx", cluster);
        let mut spec = json!({"containers": []});
        spec.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let mut object = pod(json!({"metadata": {"name": "nginx"}, "spec": spec}));
        let verdict = Priority.admit(&req, &mut object, &mut Rng::new(1));
        (verdict, object)
    }

    /// Mirrors `priority/admission_test.go` `TestPodAdmission` and `TestDefaultPriority`:
    /// (default class present, pod spec fields, class name, priority and policy set, or the denial).
    #[test]
    fn pod_admission() {
        type Want = Result<(Option<&'static str>, i32, &'static str), &'static str>;
        let cases: Vec<(bool, Value, Want)> = vec![
            (false, json!({}), Ok((None, 0, PREEMPT_LOWER_PRIORITY))),
            (
                true,
                json!({}),
                Ok((Some("default1"), 1000, PREEMPT_LOWER_PRIORITY)),
            ),
            (
                false,
                json!({"priorityClassName": "system-cluster-critical"}),
                Ok((
                    Some("system-cluster-critical"),
                    2_000_000_000,
                    PREEMPT_LOWER_PRIORITY,
                )),
            ),
            (
                true,
                json!({"priorityClassName": "system-node-critical"}),
                Ok((
                    Some("system-node-critical"),
                    2_000_001_000,
                    PREEMPT_LOWER_PRIORITY,
                )),
            ),
            (
                false,
                json!({"priorityClassName": "nondefault1"}),
                Ok((Some("nondefault1"), 2000, PREEMPT_LOWER_PRIORITY)),
            ),
            (
                false,
                json!({"priorityClassName": "neverpreemptionpolicy"}),
                Ok((Some("neverpreemptionpolicy"), 1000, "Never")),
            ),
            (
                false,
                json!({"priorityClassName": "foo"}),
                Err(r#"pods "nginx" is forbidden: no PriorityClass with name foo was found"#),
            ),
            (
                false,
                json!({"priority": 10}),
                Err(
                    r#"pods "nginx" is forbidden: the integer value of priority (10) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name"#,
                ),
            ),
            (
                true,
                json!({"priority": 10}),
                Err(
                    r#"pods "nginx" is forbidden: the integer value of priority (10) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name"#,
                ),
            ),
            (
                false,
                json!({"priority": 0}),
                Ok((None, 0, PREEMPT_LOWER_PRIORITY)),
            ),
            (
                false,
                json!({"priorityClassName": "neverpreemptionpolicy", "preemptionPolicy": "PreemptLowerPriority"}),
                Err(
                    r#"pods "nginx" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name"#,
                ),
            ),
            (
                false,
                json!({"priorityClassName": "nondefault1", "preemptionPolicy": "PreemptLowerPriority"}),
                Ok((Some("nondefault1"), 2000, PREEMPT_LOWER_PRIORITY)),
            ),
        ];
        for (with_default, extra, want) in cases {
            let (verdict, object) = admit(&cluster(with_default), &extra);
            match (want, verdict) {
                (Ok((class, priority, policy)), Verdict::Mutate(_)) => {
                    let spec = object.as_pod().unwrap().spec.clone().unwrap();
                    assert_eq!(spec.priority_class_name.as_deref(), class, "{extra}");
                    assert_eq!(spec.priority, Some(priority), "{extra}");
                    assert_eq!(spec.preemption_policy.as_deref(), Some(policy), "{extra}");
                }
                (Err(message), Verdict::Deny(status)) => {
                    assert_eq!(status.message.as_deref(), Some(message));
                }
                (want, got) => panic!("{extra}: want {want:?}, got {got:?}"),
            }
        }
    }

    /// Mirrors `TestPriorityClassAdmission`: a second global default is refused.
    #[test]
    fn priority_class_admission() {
        let cases = [
            (false, Operation::Create, "default2", None),
            (
                true,
                Operation::Create,
                "default2",
                Some(
                    r#"priorityclasses.scheduling.k8s.io "default2" is forbidden: PriorityClass default1 is already marked as default. Only one default can exist"#,
                ),
            ),
            (true, Operation::Update, "default1", None),
            (
                true,
                Operation::Update,
                "nondefault1",
                Some(
                    r#"priorityclasses.scheduling.k8s.io "nondefault1" is forbidden: PriorityClass default1 is already marked as default. Only one default can exist"#,
                ),
            ),
        ];
        for (with_default, operation, name, want) in cases {
            let cluster = cluster(with_default);
            let req = request(operation, "PriorityClass", None, name, &cluster);
            let object = class(name, 2000, true, PREEMPT_LOWER_PRIORITY);
            let verdict = Priority.validate(&req, &object, &mut SideEffects::default());
            match (want, verdict) {
                (None, Verdict::Allow) => {}
                (Some(message), Verdict::Deny(status)) => {
                    assert_eq!(status.message.as_deref(), Some(message));
                }
                (want, got) => panic!("{name}: want {want:?}, got {got:?}"),
            }
        }
    }
}
