//! Zero times Go writes as `null`: `metav1.Time` is a struct, and Go's
//! `encoding/json` does not omit a struct for `omitempty`, so a zero time
//! marshals as `null` (`apimachinery/pkg/apis/meta/v1/time.go`, `MarshalJSON`).
//! The one a student meets in every Pod is `PodCondition.LastProbeTime`
//! (`core/v1/types.go`): neither the kubelet nor the scheduler sets it, so
//! `kubectl get pod -o yaml` shows `lastProbeTime: null` on each condition.
//! (`ObjectMeta.CreationTimestamp` is `omitzero` since Kubernetes 1.34, so
//! no `creationTimestamp: null` is written.)

use k8s_openapi::api::core::v1::Pod;
use serde_json::Value;

/// The Pod as JSON with Go's `null`s, when it has a condition without a
/// probe time (else its own serialization is already Go's).
pub fn pod(pod: &Pod) -> Option<Value> {
    let conditions = pod.status.as_ref()?.conditions.as_ref()?;
    if conditions.iter().all(|c| c.last_probe_time.is_some()) {
        return None;
    }
    let mut value = serde_json::to_value(pod).ok()?;
    fill(&mut value);
    Some(value)
}

/// Writes `lastProbeTime: null` into each condition of a Pod's JSON that has none.
pub fn fill(pod: &mut Value) {
    for condition in pod
        .pointer_mut("/status/conditions")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        if let Some(fields) = condition.as_object_mut() {
            fields.entry("lastProbeTime").or_insert(Value::Null);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_without_a_probe_time_say_null() {
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "p"},
            "status": {"conditions": [
                {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-11-30T02:20:30Z"},
                {"type": "Ready", "status": "True", "lastProbeTime": "2026-11-30T02:20:31Z"}
            ]}
        }))
        .unwrap();
        let value = super::pod(&pod).unwrap();
        let conditions = &value["status"]["conditions"];
        assert_eq!(conditions[0]["lastProbeTime"], Value::Null);
        assert!(
            conditions[0]
                .as_object()
                .unwrap()
                .contains_key("lastProbeTime")
        );
        assert_eq!(conditions[1]["lastProbeTime"], "2026-11-30T02:20:31Z");
        let without: Pod =
            serde_json::from_value(serde_json::json!({"metadata": {"name": "p"}})).unwrap();
        assert_eq!(super::pod(&without), None);
    }
}
