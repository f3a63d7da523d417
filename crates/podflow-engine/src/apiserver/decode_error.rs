//! The API server decoder's words for a value of the wrong JSON type, as Go's
//! `encoding/json` (through `sigs.k8s.io/json`) writes `UnmarshalTypeError`:
//! `json: cannot unmarshal string into Go struct field
//! ContainerPort.spec.containers.ports.containerPort of type int32` — the
//! innermost Go struct's name, the JSON keys from the root (no indices, no map
//! keys), and the field's Go type. The handler prefixes it with `Pod in version
//! "v1" cannot be handled as a Pod: ` (`runtime.NewStrictDecodingError`'s
//! sibling in `serializer/versioning`).
//!
//! The Go types are the declarations the pod-template-hash walks
//! (`controllers/hash/declarations.txt`: a Pod's spec and metadata), reached
//! from each kind's root below. Simplified: a field outside them is named
//! after the last struct found, with the Go type read from the decoder's own
//! expectation (`expected i32` → `int32`).

use serde_json::Value;

use crate::controllers::hash::go_types::schema;
use podflow_model::Kind;
use podflow_scenario::{Step, TypeMismatch};

/// A spec's fields: JSON key and Go type.
type SpecFields = &'static [(&'static str, &'static str)];

/// A workload's spec, by kind: its Go struct and the fields podflow reads.
const WORKLOAD_SPECS: [(&str, &str, SpecFields); 4] = [
    ("Deployment", "v1.DeploymentSpec", DEPLOYMENT_SPEC),
    ("ReplicaSet", "v1.ReplicaSetSpec", REPLICA_SET_SPEC),
    ("StatefulSet", "v1.StatefulSetSpec", REPLICA_SET_SPEC),
    ("Job", "v1.JobSpec", JOB_SPEC),
];

const DEPLOYMENT_SPEC: &[(&str, &str)] = &[
    ("replicas", "int32"),
    ("selector", "v1.LabelSelector"),
    ("template", "v1.PodTemplateSpec"),
    ("minReadySeconds", "int32"),
    ("revisionHistoryLimit", "int32"),
    ("paused", "bool"),
    ("progressDeadlineSeconds", "int32"),
];

const REPLICA_SET_SPEC: &[(&str, &str)] = &[
    ("replicas", "int32"),
    ("minReadySeconds", "int32"),
    ("selector", "v1.LabelSelector"),
    ("template", "v1.PodTemplateSpec"),
];

const JOB_SPEC: &[(&str, &str)] = &[
    ("parallelism", "int32"),
    ("completions", "int32"),
    ("activeDeadlineSeconds", "int64"),
    ("backoffLimit", "int32"),
    ("selector", "v1.LabelSelector"),
    ("manualSelector", "bool"),
    ("template", "v1.PodTemplateSpec"),
    ("ttlSecondsAfterFinished", "int32"),
    ("suspend", "bool"),
];

/// Where the walk stands: a Go type, and the name of the struct it is in.
struct Walk {
    ty: String,
    in_struct: String,
    fields: Vec<String>,
}

/// `json: cannot unmarshal WHAT into Go struct field STRUCT.PATH of type TYPE`.
pub fn unmarshal_type_error(kind: &Kind, mismatch: &TypeMismatch) -> String {
    let mut walk = Walk {
        ty: kind.kind.to_owned(),
        in_struct: kind.kind.to_owned(),
        fields: Vec::new(),
    };
    let mut resolved = true;
    for step in &mismatch.path {
        match step {
            Step::Index(_) => match walk.ty.strip_prefix("[]") {
                Some(elem) => walk.ty = elem.to_owned(),
                None => resolved = false,
            },
            Step::Key(key) => {
                if resolved && let Some(value) = map_value(&walk.ty) {
                    walk.ty = value;
                    continue;
                }
                walk.fields.push(key.clone());
                match resolved.then(|| field_type(kind, &walk.ty, key)).flatten() {
                    Some(ty) => {
                        walk.in_struct = struct_name(&walk.ty);
                        walk.ty = ty;
                    }
                    None => resolved = false,
                }
            }
        }
    }
    let go_type = if resolved {
        walk.ty.clone()
    } else {
        expected_go_type(&mismatch.message)
    };
    format!(
        "json: cannot unmarshal {} into Go struct field {}.{} of type {go_type}",
        json_kind(&mismatch.value, &go_type),
        walk.in_struct,
        walk.fields.join(".")
    )
}

/// The Go type of struct `ty`'s field `key`, pointers dereferenced.
fn field_type(kind: &Kind, ty: &str, key: &str) -> Option<String> {
    if ty == kind.kind {
        return match key {
            "metadata" => Some("v1.ObjectMeta".to_owned()),
            "spec" if kind.kind == "Pod" => Some("v1.PodSpec".to_owned()),
            "spec" => WORKLOAD_SPECS
                .iter()
                .find(|(k, _, _)| *k == kind.kind)
                .map(|(_, spec, _)| (*spec).to_owned()),
            _ => None,
        };
    }
    if let Some((_, _, fields)) = WORKLOAD_SPECS.iter().find(|(_, spec, _)| *spec == ty) {
        return fields
            .iter()
            .find(|(json, _)| *json == key)
            .map(|(_, go)| (*go).to_owned());
    }
    let field = schema().field_by_json(ty, key)?;
    Some(field.ty.trim_start_matches('*').to_owned())
}

/// `v1.ContainerPort` → `ContainerPort` (`reflect.Type.Name`).
fn struct_name(ty: &str) -> String {
    ty.rsplit('.').next().unwrap_or(ty).to_owned()
}

/// A `map[string]T`'s value type.
fn map_value(ty: &str) -> Option<String> {
    let rest = ty.strip_prefix("map[")?;
    rest.split_once(']').map(|(_, value)| value.to_owned())
}

/// What Go says it found: `string`, `bool`, `array`, `object`, `number`, or
/// `number 1.5` when an integer field cannot hold the number.
fn json_kind(value: &Value, go_type: &str) -> String {
    match value {
        Value::String(_) => "string".to_owned(),
        Value::Bool(_) => "bool".to_owned(),
        Value::Array(_) => "array".to_owned(),
        Value::Object(_) => "object".to_owned(),
        Value::Null => "null".to_owned(),
        Value::Number(n) => {
            let fits = match go_type {
                "int32" => n.as_i64().is_some_and(|i| i32::try_from(i).is_ok()),
                "int64" | "int" => n.as_i64().is_some(),
                _ => true,
            };
            if fits {
                "number".to_owned()
            } else {
                format!("number {n}")
            }
        }
    }
}

/// The Go type of serde's expectation (`expected i32` → `int32`).
fn expected_go_type(message: &str) -> String {
    let expected = message.rsplit("expected ").next().unwrap_or_default();
    match expected {
        "i32" => "int32",
        "i64" => "int64",
        "u32" => "uint32",
        "u64" => "uint64",
        "a boolean" => "bool",
        "a string" => "string",
        "f64" => "float64",
        other if other.starts_with("a sequence") => "[]interface {}",
        _ => "map[string]interface {}",
    }
    .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use podflow_model::kinds::kind_of;
    use podflow_scenario::Location;

    fn mismatch(path: &[&str], value: Value, message: &str) -> TypeMismatch {
        TypeMismatch {
            path: path
                .iter()
                .map(|s| match s.parse::<usize>() {
                    Ok(i) => Step::Index(i),
                    Err(_) => Step::Key((*s).to_owned()),
                })
                .collect(),
            value,
            message: message.to_owned(),
            location: Location::new("pod.yaml", 1, 1),
        }
    }

    /// What kube-apiserver answers for each (Go's `UnmarshalTypeError`).
    #[test]
    fn worded_as_gos_decoder() {
        let pod = kind_of("Pod");
        let cases = [
            (
                pod,
                mismatch(
                    &["spec", "containers", "0", "ports", "0", "containerPort"],
                    Value::from("eighty"),
                    "invalid type: string \"eighty\", expected i32",
                ),
                "json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32",
            ),
            (
                pod,
                mismatch(
                    &["metadata", "labels", "enabled"],
                    Value::from(true),
                    "invalid type: boolean `true`, expected a string",
                ),
                "json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string",
            ),
            (
                pod,
                mismatch(
                    &["spec", "terminationGracePeriodSeconds"],
                    Value::from("30"),
                    "invalid type: string \"30\", expected i64",
                ),
                "json: cannot unmarshal string into Go struct field PodSpec.spec.terminationGracePeriodSeconds of type int64",
            ),
            (
                pod,
                mismatch(
                    &["spec", "containers", "0", "args", "0"],
                    Value::from(1),
                    "invalid type: integer `1`, expected a string",
                ),
                "json: cannot unmarshal number into Go struct field Container.spec.containers.args of type string",
            ),
            (
                kind_of("Deployment"),
                mismatch(
                    &["spec", "replicas"],
                    Value::from(3_000_000_000_u64),
                    "invalid value: integer `3000000000`, expected i32",
                ),
                "json: cannot unmarshal number 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32",
            ),
            (
                kind_of("Deployment"),
                mismatch(
                    &[
                        "spec",
                        "template",
                        "spec",
                        "containers",
                        "0",
                        "ports",
                        "0",
                        "containerPort",
                    ],
                    Value::from("eighty"),
                    "invalid type: string \"eighty\", expected i32",
                ),
                "json: cannot unmarshal string into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32",
            ),
        ];
        for (kind, mismatch, want) in cases {
            assert_eq!(unmarshal_type_error(kind, &mismatch), want);
        }
    }
}
