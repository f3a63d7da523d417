//! `PriorityClass` validation (`pkg/apis/scheduling/validation/validation.go`,
//! `ValidatePriorityClass`, `ValidatePriorityClassUpdate`), with the system
//! classes of `pkg/apis/scheduling/v1/helpers.go` (`IsKnownSystemPriorityClass`).

use k8s_openapi::api::scheduling::v1::PriorityClass;

use super::field::{forbidden, invalid, not_supported, required};
use podflow_model::status::FieldError;

/// `scheduling.SystemPriorityClassPrefix`.
pub const SYSTEM_PRIORITY_CLASS_PREFIX: &str = "system-";
/// `scheduling.HighestUserDefinablePriority`.
pub const HIGHEST_USER_DEFINABLE_PRIORITY: i32 = 1_000_000_000;
/// The built-in classes (`SystemPriorityClasses`): name and value; neither is
/// the global default.
pub const SYSTEM_PRIORITY_CLASSES: [(&str, i32); 2] = [
    ("system-node-critical", 2_000_001_000),
    ("system-cluster-critical", 2_000_000_000),
];

/// `IsKnownSystemPriorityClass`: `Err` says why `name` may not be used.
fn known_system_class(name: &str, value: i32, global_default: bool) -> Result<(), String> {
    let Some((_, want)) = SYSTEM_PRIORITY_CLASSES.iter().find(|(n, _)| *n == name) else {
        return Err(format!("{name} is not a known system priority class"));
    };
    if *want != value {
        return Err(format!("value of {name} PriorityClass must be {want}"));
    }
    if global_default {
        return Err(format!(
            "globalDefault of {name} PriorityClass must be false"
        ));
    }
    Ok(())
}

/// `ValidatePriorityClass` minus the object metadata (checked by the caller).
pub fn validate_priority_class(pc: &PriorityClass, errs: &mut Vec<FieldError>) {
    let name = pc.metadata.name.as_deref().unwrap_or_default();
    if name.starts_with(SYSTEM_PRIORITY_CLASS_PREFIX) {
        if let Err(why) = known_system_class(
            name,
            pc.value.unwrap_or(0),
            pc.global_default.unwrap_or(false),
        ) {
            errs.push(forbidden(
                "metadata.name",
                &format!(
                    "priority class names with '{SYSTEM_PRIORITY_CLASS_PREFIX}' prefix are reserved for system use only. error: {why}"
                ),
            ));
        }
    } else if pc.value.unwrap_or(0) > HIGHEST_USER_DEFINABLE_PRIORITY {
        errs.push(forbidden(
            "value",
            &format!(
                "maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE_PRIORITY}"
            ),
        ));
    }
    if let Some(policy) = pc.preemption_policy.as_deref() {
        validate_preemption_policy(policy, "preemptionPolicy", errs);
    }
}

/// `ValidatePreemptionPolicy` (`pkg/apis/core/validation`).
pub fn validate_preemption_policy(policy: &str, path: &str, errs: &mut Vec<FieldError>) {
    match policy {
        "PreemptLowerPriority" | "Never" => {}
        "" => errs.push(required(path, "")),
        other => errs.push(not_supported(
            path,
            other,
            &["PreemptLowerPriority", "Never"],
        )),
    }
}

/// `ValidatePriorityClassUpdate` minus the metadata: `value` and
/// `preemptionPolicy` are immutable.
pub fn validate_priority_class_update(
    new: &PriorityClass,
    old: &PriorityClass,
    errs: &mut Vec<FieldError>,
) {
    if new.value != old.value {
        errs.push(forbidden("value", "may not be changed in an update."));
    }
    if new.preemption_policy != old.preemption_policy {
        let shown = new.preemption_policy.as_deref().unwrap_or_default();
        errs.push(invalid("preemptionPolicy", shown, "field is immutable"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn class(name: &str, value: i32, global_default: bool, policy: &str) -> PriorityClass {
        serde_json::from_value(json!({"metadata": {"name": name}, "value": value,
            "globalDefault": global_default, "preemptionPolicy": policy}))
        .unwrap()
    }

    fn messages(errs: &[FieldError]) -> Vec<String> {
        errs.iter().map(FieldError::message).collect()
    }

    /// Mirrors `scheduling/validation/validation_test.go` `TestValidatePriorityClass`.
    #[test]
    fn validate_priority_class_table() {
        let reserved = "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: ";
        let cases: Vec<(PriorityClass, Vec<String>)> = vec![
            (class("tier1", 100, false, "PreemptLowerPriority"), vec![]),
            (class("tier1", 100, false, "Never"), vec![]),
            (class("system-node-critical", 2_000_001_000, false, "PreemptLowerPriority"), vec![]),
            (class("tier1", HIGHEST_USER_DEFINABLE_PRIORITY, false, "Never"), vec![]),
            (
                class("tier1", HIGHEST_USER_DEFINABLE_PRIORITY + 1, false, "Never"),
                vec!["value: Forbidden: maximum allowed value of a user defined priority is 1000000000".into()],
            ),
            (
                class("system-foo", 100, false, "Never"),
                vec![format!("{reserved}system-foo is not a known system priority class")],
            ),
            (
                class("system-cluster-critical", 100, false, "Never"),
                vec![format!("{reserved}value of system-cluster-critical PriorityClass must be 2000000000")],
            ),
            (
                class("system-cluster-critical", 2_000_000_000, true, "Never"),
                vec![format!("{reserved}globalDefault of system-cluster-critical PriorityClass must be false")],
            ),
            (
                class("tier1", 100, false, "Sometimes"),
                vec![r#"preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never""#.into()],
            ),
        ];
        for (pc, want) in cases {
            let mut errs = Vec::new();
            validate_priority_class(&pc, &mut errs);
            assert_eq!(messages(&errs), want, "{:?}", pc.metadata.name);
        }
    }

    /// Mirrors `TestValidatePriorityClassUpdate`.
    #[test]
    fn validate_priority_class_update_table() {
        let old = class("tier1", 100, false, "PreemptLowerPriority");
        let cases = [
            (class("tier1", 100, true, "PreemptLowerPriority"), vec![]),
            (
                class("tier1", 200, false, "PreemptLowerPriority"),
                vec!["value: Forbidden: may not be changed in an update."],
            ),
            (
                class("tier1", 100, false, "Never"),
                vec![r#"preemptionPolicy: Invalid value: "Never": field is immutable"#],
            ),
        ];
        for (new, want) in cases {
            let mut errs = Vec::new();
            validate_priority_class_update(&new, &old, &mut errs);
            assert_eq!(messages(&errs), want);
        }
    }
}
