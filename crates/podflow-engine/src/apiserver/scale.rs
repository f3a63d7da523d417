//! The `scale` subresource of `Deployments` and `ReplicaSets` (`autoscaling/v1`
//! `Scale`, `pkg/registry/apps/deployment/storage/storage.go` `ScaleREST`):
//! what `kubectl scale` patches. A patch of the Scale changes only the
//! parent's `spec.replicas`; the answer is the parent seen as a Scale, its
//! selector written as `metav1.FormatLabelSelector` writes it.

use k8s_openapi::api::autoscaling::v1::{Scale, ScaleSpec, ScaleStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use serde_json::Value;

use podflow_model::Object;

/// The parent's replicas, status replicas and selector, if it has a scale subresource.
fn parts(object: &Object) -> Option<(i32, i32, &LabelSelector)> {
    match object {
        Object::Deployment(d) => {
            let status = d.status.as_ref().and_then(|s| s.replicas).unwrap_or(0);
            Some((d.spec.replicas.unwrap_or(1), status, &d.spec.selector))
        }
        Object::ReplicaSet(rs) => {
            let status = rs.status.as_ref().map_or(0, |s| s.replicas);
            Some((rs.spec.replicas.unwrap_or(1), status, &rs.spec.selector))
        }
        _ => None,
    }
}

/// `metav1.FormatLabelSelector`: `app=web,tier in (a,b)`; `<none>` for nil,
/// an empty selector selects everything and is written as the empty string.
pub fn format_selector(selector: &LabelSelector) -> String {
    let mut parts: Vec<String> = selector
        .match_labels
        .iter()
        .flatten()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    for expr in selector.match_expressions.iter().flatten() {
        let values = expr.values.clone().unwrap_or_default().join(",");
        parts.push(match expr.operator.as_str() {
            "In" => format!("{} in ({values})", expr.key),
            "NotIn" => format!("{} notin ({values})", expr.key),
            "Exists" => expr.key.clone(),
            "DoesNotExist" => format!("!{}", expr.key),
            other => format!("{} {other} ({values})", expr.key),
        });
    }
    parts.join(",")
}

/// The object seen as a `Scale`, or `None` for a kind without the subresource.
pub fn scale_of(object: &Object) -> Option<Scale> {
    let (replicas, status_replicas, selector) = parts(object)?;
    let meta = object.metadata();
    Some(Scale {
        metadata: ObjectMeta {
            name: meta.name.clone(),
            namespace: meta.namespace.clone(),
            uid: meta.uid.clone(),
            resource_version: meta.resource_version.clone(),
            creation_timestamp: meta.creation_timestamp.clone(),
            ..ObjectMeta::default()
        },
        spec: Some(ScaleSpec {
            replicas: Some(replicas),
        }),
        status: Some(ScaleStatus {
            replicas: status_replicas,
            selector: Some(format_selector(selector)),
        }),
    })
}

/// The replicas a merge patch of the Scale asks for (`{"spec":{"replicas":3}}`);
/// `None` when it asks for none (the Scale is left as it is).
pub fn patched_replicas(scale: &Scale, patch: &Value) -> Option<i64> {
    let mut json = serde_json::to_value(scale).ok()?;
    super::strategic_merge_patch::apply(
        super::strategic_merge_patch::root("Scale"),
        &mut json,
        patch,
    );
    json.pointer("/spec/replicas").and_then(Value::as_i64)
}

/// The replicas a JSON patch of the `Scale` asks for.
pub fn json_patched_replicas(scale: &Scale, patch: &Value) -> Option<i64> {
    let operations: json_patch::Patch = serde_json::from_value(patch.clone()).ok()?;
    let mut json = serde_json::to_value(scale).ok()?;
    json_patch::patch(&mut json, &operations).ok()?;
    json.pointer("/spec/replicas").and_then(Value::as_i64)
}

/// The parent with `spec.replicas` set.
pub fn with_replicas(object: &Object, replicas: i32) -> Option<Object> {
    let mut object = object.clone();
    match &mut object {
        Object::Deployment(d) => d.spec.replicas = Some(replicas),
        Object::ReplicaSet(rs) => rs.spec.replicas = Some(replicas),
        _ => return None,
    }
    Some(object)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment() -> Object {
        Object::Deployment(
            serde_json::from_value(json!({
                "metadata": {"name": "web", "namespace": "default", "uid": "u", "resourceVersion": "7"},
                "spec": {
                    "replicas": 3,
                    "selector": {
                        "matchLabels": {"app": "web", "tier": "front"},
                        "matchExpressions": [
                            {"key": "env", "operator": "In", "values": ["a", "b"]},
                            {"key": "old", "operator": "DoesNotExist"}
                        ]
                    },
                    "template": {"metadata": {"labels": {"app": "web"}}}
                },
                "status": {"replicas": 3}
            }))
            .unwrap(),
        )
    }

    #[test]
    fn a_deployment_as_a_scale() {
        let scale = scale_of(&deployment()).unwrap();
        assert_eq!(scale.metadata.name.as_deref(), Some("web"));
        assert_eq!(scale.metadata.resource_version.as_deref(), Some("7"));
        assert_eq!(scale.spec.unwrap().replicas, Some(3));
        let status = scale.status.unwrap();
        assert_eq!(status.replicas, 3);
        // FormatLabelSelector: labels sorted by key, then the expressions.
        assert_eq!(
            status.selector.as_deref(),
            Some("app=web,tier=front,env in (a,b),!old")
        );
    }

    #[test]
    fn a_patch_sets_only_the_replicas() {
        let scale = scale_of(&deployment()).unwrap();
        let patch = json!({"spec": {"replicas": 5}});
        assert_eq!(patched_replicas(&scale, &patch), Some(5));
        assert_eq!(patched_replicas(&scale, &json!({})), Some(3));
        let Object::Deployment(scaled) = with_replicas(&deployment(), 5).unwrap() else {
            panic!("a deployment")
        };
        assert_eq!(scaled.spec.replicas, Some(5));
        // A Pod has no scale subresource.
        let pod = Object::Pod(serde_json::from_value(json!({"metadata": {"name": "p"}})).unwrap());
        assert!(scale_of(&pod).is_none());
        assert!(with_replicas(&pod, 1).is_none());
    }
}
