//! The fields of an input that its Kubernetes type does not have.
//!
//! kubectl sends such fields; the API server decodes strictly
//! (`fieldValidation=Strict`, kubectl's default `--validate=strict`) and answers
//! `400 BadRequest`: `Pod in version "v1" cannot be handled as a Pod: strict
//! decoding error: unknown field "spec.containers[0].imagePullPolicyy"`
//! (`staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go`,
//! `transformDecodeError`; `staging/src/k8s.io/apimachinery/pkg/runtime/serializer/json/json.go`
//! and `runtime.NewStrictDecodingError`, which joins the fields with `, `;
//! the paths come from `sigs.k8s.io/json`: keys joined with `.`, list indices as `[i]`).

use std::fmt::Write as _;

use serde_json::Value;

/// The paths present in `input` but absent from `typed` (the input decoded into
/// its Kubernetes type and encoded again), in the order of the JSON kubectl
/// sends (keys sorted: `sigs.k8s.io/yaml` converts YAML by way of a Go map,
/// which `encoding/json` writes sorted), formatted as the API
/// server formats them: `spec.containers[0].imagePullPolicyy`. Explicit nulls are
/// ignored, as Go's decoder ignores them.
pub fn unknown_fields(input: &Value, typed: &Value) -> Vec<String> {
    let mut found = Vec::new();
    walk(input, typed, &mut String::new(), &mut found);
    found
}

fn walk(input: &Value, typed: &Value, path: &mut String, found: &mut Vec<String>) {
    match (input, typed) {
        (Value::Object(input), Value::Object(typed)) => {
            for (key, value) in input {
                if value.is_null() {
                    continue;
                }
                let before = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
                match typed.get(key) {
                    Some(typed) => walk(value, typed, path, found),
                    None => found.push(path.clone()),
                }
                path.truncate(before);
            }
        }
        (Value::Array(input), Value::Array(typed)) => {
            for (i, (value, typed)) in input.iter().zip(typed).enumerate() {
                let before = path.len();
                let _ = write!(path, "[{i}]");
                walk(value, typed, path, found);
                path.truncate(before);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use podflow_model::{Kind, Object};

    fn typed(input: &Value) -> Value {
        let kind = Kind::from_type_meta(
            input["apiVersion"].as_str().unwrap(),
            input["kind"].as_str().unwrap(),
        )
        .unwrap();
        Object::from_json(kind, input.clone()).unwrap().to_json()
    }

    #[test]
    fn finds_the_fields_the_type_lacks() {
        let cases = [
            (
                json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                       "spec": {"containers": [{"name": "a", "image": "nginx"},
                                               {"name": "b", "image": "nginx", "imagePullPolicyy": "Always"}]}}),
                vec!["spec.containers[1].imagePullPolicyy"],
            ),
            (
                json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "app": "web"},
                       "spec": {"ports": [{"port": 80}]}, "extra": 1}),
                vec!["extra", "metadata.app"],
            ),
            (
                json!({"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": "p", "creationTimestamp": null, "labels": {"app": "x"}},
                       "spec": {"containers": [{"name": "a", "resources": {}, "bogus": null}]}, "status": {}}),
                vec![],
            ),
            (
                json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
                       "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "d"}},
                                "template": {"metadata": {"labels": {"app": "d"}},
                                             "spec": {"containers": [{"name": "c", "image": "nginx", "port": 80}]}}}}),
                vec!["spec.template.spec.containers[0].port"],
            ),
        ];
        for (input, want) in cases {
            assert_eq!(unknown_fields(&input, &typed(&input)), want, "{input}");
        }
    }
}
