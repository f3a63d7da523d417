//! The Pod `exec` runs in when it is given a workload or a Service
//! (`exec deploy/web -- …`): the object's selector
//! (`pkg/polymorphichelpers/helpers.go`, `SelectorsForObject`), and of the
//! Pods it selects the most active one (`attachablePodForObject`: the first
//! of `sort.Reverse(podutils.ActivePods)`, `pkg/util/podutils/podutils.go`).

use std::sync::Arc;

use k8s_openapi::api::core::v1::Pod;
use serde_json::Value;

use crate::controllers::pods::{is_ready, max_restarts, node_of, phase, ready_since};
use podflow_model::Object;

/// The label selector of `owner`, as a selector string (`app=web,tier in (a,b)`),
/// or kubectl's refusal.
pub fn selector_of(owner: &Object) -> Result<String, String> {
    let json = owner.to_json();
    let selector = json
        .pointer("/spec/selector")
        .cloned()
        .unwrap_or(Value::Null);
    let kind = owner.kind().kind;
    let set_based = !matches!(kind, "Service" | "ReplicationController");
    let text = if set_based {
        label_selector(&selector)
    } else {
        match_labels(&selector)
    };
    match kind {
        "Service" if text.is_empty() => Err(format!(
            "cannot attach to *v1.Service: invalid service '{}': Service is defined without a selector",
            owner.name()
        )),
        "Deployment"
        | "ReplicaSet"
        | "StatefulSet"
        | "DaemonSet"
        | "Job"
        | "Service"
        | "ReplicationController" => Ok(text),
        other => Err(format!(
            "cannot attach to *v1.{other}: selector for *v1.{other} not implemented"
        )),
    }
}

/// `matchLabels` as `k=v` terms, in key order.
fn match_labels(labels: &Value) -> String {
    labels
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| v.as_str().map(|v| format!("{k}={v}")))
        .collect::<Vec<_>>()
        .join(",")
}

/// `metav1.LabelSelectorAsSelector`: `matchLabels` and `matchExpressions`.
fn label_selector(selector: &Value) -> String {
    let mut terms = vec![match_labels(
        selector.get("matchLabels").unwrap_or(&Value::Null),
    )];
    for expression in selector
        .get("matchExpressions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let key = expression
            .get("key")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let values: Vec<&str> = expression
            .get("values")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let term = match expression.get("operator").and_then(Value::as_str) {
            Some("In") => format!("{key} in ({})", values.join(",")),
            Some("NotIn") => format!("{key} notin ({})", values.join(",")),
            Some("Exists") => key.to_owned(),
            Some("DoesNotExist") => format!("!{key}"),
            _ => continue,
        };
        terms.push(term);
    }
    terms.retain(|t| !t.is_empty());
    terms.join(",")
}

/// The most active of `pods`: the first after `sort.Reverse(ActivePods)`.
pub fn most_active(pods: &[Arc<Object>]) -> Option<&Pod> {
    let mut best: Option<&Pod> = None;
    for pod in pods.iter().filter_map(|o| match o.as_ref() {
        Object::Pod(p) => Some(p),
        _ => None,
    }) {
        best = match best {
            Some(b) if !less(b, pod) => Some(b),
            _ => Some(pod),
        };
    }
    best
}

/// `afterOrZero`: a missing time first, then the later one.
fn after_or_zero(a: Option<i64>, b: Option<i64>) -> bool {
    match (a, b) {
        (None, _) | (_, None) => a.is_none(),
        (Some(a), Some(b)) => a > b,
    }
}

/// `ActivePods.Less`: whether `a` is less active than `b`.
fn less(a: &Pod, b: &Pod) -> bool {
    let phase_rank = |p: &Pod| match phase(p) {
        "Unknown" => 1,
        "Running" => 2,
        _ => 0,
    };
    let deleted = |p: &Pod| {
        p.metadata
            .deletion_timestamp
            .as_ref()
            .map(|t| t.0.as_millisecond())
    };
    let created = |p: &Pod| {
        p.metadata
            .creation_timestamp
            .as_ref()
            .map(|t| t.0.as_millisecond())
    };
    let (na, nb) = (node_of(a), node_of(b));
    if na != nb && (na.is_empty() || nb.is_empty()) {
        return na.is_empty();
    }
    if phase_rank(a) != phase_rank(b) {
        return phase_rank(a) < phase_rank(b);
    }
    if is_ready(a) != is_ready(b) {
        return !is_ready(a);
    }
    if deleted(a).is_some() != deleted(b).is_some() {
        return deleted(a).is_some();
    }
    if let (Some(x), Some(y)) = (deleted(a), deleted(b))
        && x != y
    {
        return x < y;
    }
    if is_ready(a) && is_ready(b) && ready_since(a) != ready_since(b) {
        return after_or_zero(ready_since(a), ready_since(b));
    }
    if max_restarts(a) != max_restarts(b) {
        return max_restarts(a) > max_restarts(b);
    }
    if created(a) != created(b) {
        return after_or_zero(created(a), created(b));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use podflow_model::kinds::kind_of;
    use serde_json::json;

    fn object(kind: &str, value: Value) -> Arc<Object> {
        Arc::new(Object::from_json(kind_of(kind), value).unwrap())
    }

    fn pod(name: &str, node: &str, phase: &str, created: &str) -> Arc<Object> {
        object(
            "Pod",
            json!({"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": name, "creationTimestamp": created},
                   "spec": {"nodeName": node, "containers": [{"name": "c", "image": "i"}]},
                   "status": {"phase": phase}}),
        )
    }

    /// `SelectorsForObject` (`pkg/polymorphichelpers/helpers_test.go`).
    #[test]
    fn selectors_as_kubectl_builds_them() {
        let deploy = object(
            "Deployment",
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                   "spec": {"selector": {"matchLabels": {"app": "web"},
                            "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}]},
                            "template": {"spec": {"containers": []}}}}),
        );
        assert_eq!(selector_of(&deploy), Ok("app=web,tier in (a,b)".into()));
        let svc = object(
            "Service",
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "db"}, "spec": {}}),
        );
        assert_eq!(
            selector_of(&svc),
            Err("cannot attach to *v1.Service: invalid service 'db': Service is defined without a selector".into())
        );
    }

    /// `TestSortingActivePods` (`pkg/util/podutils/podutils_test.go`), reversed.
    #[test]
    fn the_most_active_pod_is_chosen() {
        let pods = [
            pod("unassigned", "", "Pending", "2026-01-01T00:00:00Z"),
            pod("pending", "node-1", "Pending", "2026-01-01T00:00:00Z"),
            pod("running-new", "node-1", "Running", "2026-01-02T00:00:00Z"),
            pod("running-old", "node-1", "Running", "2026-01-01T00:00:00Z"),
        ];
        let best = most_active(&pods).and_then(|p| p.metadata.name.clone());
        assert_eq!(best.as_deref(), Some("running-old"));
        assert!(most_active(&[]).is_none());
    }
}
