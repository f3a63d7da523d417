//! `PriorityClass` validation (`pkg/apis/scheduling/validation/validation.go`,
//! `ValidatePriorityClass`, `ValidatePriorityClassUpdate`), with the system
//! classes of `pkg/apis/scheduling/v1/helpers.go` (`IsKnownSystemPriorityClass`).

use k8s_openapi::api::scheduling::v1::PriorityClass;

use super::field::{forbidden, invalid, not_supported, required};
use crate::model::status::FieldError;

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
