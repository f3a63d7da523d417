//! `SetDefaults_LimitRangeItem` (`pkg/apis/core/v1/defaults.go`): a
//! `Container` item's `default` limit comes from `max` where unset, and its
//! `defaultRequest` from `default`, or else from `min`. Other item types are
//! left as written.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{LimitRange, LimitRangeItem};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

/// Defaults every item of `range`.
pub fn limit_range(range: &mut LimitRange) {
    let items = range.spec.as_mut().map(|s| s.limits.iter_mut());
    for item in items.into_iter().flatten() {
        limit_range_item(item);
    }
}

/// Defaults one item, as upstream does for `type: Container`.
pub fn limit_range_item(item: &mut LimitRangeItem) {
    if item.type_ != "Container" {
        return;
    }
    let mut default = item.default.take().unwrap_or_default();
    let mut request = item.default_request.take().unwrap_or_default();
    fill_from(&mut default, item.max.as_ref());
    fill_from(&mut request, Some(&default));
    fill_from(&mut request, item.min.as_ref());
    // Upstream's maps are made empty and dropped by `omitempty` when still empty.
    item.default = (!default.is_empty()).then_some(default);
    item.default_request = (!request.is_empty()).then_some(request);
}

/// Copies each of `from`'s quantities that `to` lacks.
fn fill_from(to: &mut BTreeMap<String, Quantity>, from: Option<&BTreeMap<String, Quantity>>) {
    for (name, value) in from.into_iter().flatten() {
        to.entry(name.clone()).or_insert_with(|| value.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(json: serde_json::Value) -> LimitRangeItem {
        let mut item: LimitRangeItem = serde_json::from_value(json).unwrap();
        limit_range_item(&mut item);
        item
    }

    fn json(item: &LimitRangeItem) -> serde_json::Value {
        serde_json::to_value(item).unwrap()
    }

    /// `TestSetDefaultLimitRangeItem` (`pkg/apis/core/v1/defaults_test.go`):
    /// max cpu 100m and min memory 100Mi give default cpu 100m, and
    /// defaultRequest cpu 100m (from default) and memory 100Mi (from min).
    #[test]
    fn upstreams_case() {
        let got = item(serde_json::json!({
            "type": "Container",
            "max": {"cpu": "100m"},
            "min": {"memory": "100Mi"},
            "default": {},
            "defaultRequest": {}
        }));
        assert_eq!(json(&got)["default"], serde_json::json!({"cpu": "100m"}));
        assert_eq!(
            json(&got)["defaultRequest"],
            serde_json::json!({"cpu": "100m", "memory": "100Mi"})
        );
        // A default limit already set is kept; the request follows it, not max.
        let kept = item(serde_json::json!({
            "type": "Container",
            "max": {"cpu": "2"},
            "default": {"cpu": "1"}
        }));
        assert_eq!(json(&kept)["default"], serde_json::json!({"cpu": "1"}));
        assert_eq!(
            json(&kept)["defaultRequest"],
            serde_json::json!({"cpu": "1"})
        );
    }

    /// The docs' `concepts/policy/limit-range.md` examples: a range with only
    /// `max` and `min` (`cpu-constraints`) shows `default` and `defaultRequest`
    /// equal to max once stored; one with only `default` gets the same request.
    #[test]
    fn the_docs_examples() {
        let constraints = item(serde_json::json!({
            "type": "Container",
            "max": {"cpu": "800m"},
            "min": {"cpu": "200m"}
        }));
        assert_eq!(
            json(&constraints)["default"],
            serde_json::json!({"cpu": "800m"})
        );
        assert_eq!(
            json(&constraints)["defaultRequest"],
            serde_json::json!({"cpu": "800m"})
        );
        let only_default = item(serde_json::json!({"type": "Container", "default": {"cpu": "1"}}));
        assert_eq!(
            json(&only_default)["defaultRequest"],
            serde_json::json!({"cpu": "1"})
        );
        let only_min = item(serde_json::json!({"type": "Container", "min": {"memory": "500Mi"}}));
        assert_eq!(json(&only_min)["default"], serde_json::Value::Null);
        assert_eq!(
            json(&only_min)["defaultRequest"],
            serde_json::json!({"memory": "500Mi"})
        );
        // A Pod item is not defaulted.
        let pod = item(serde_json::json!({"type": "Pod", "max": {"cpu": "2"}}));
        assert_eq!(json(&pod)["default"], serde_json::Value::Null);
    }
}
