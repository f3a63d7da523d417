//! Reads `-f FILE` input into typed Kubernetes objects, refusing what kubectl
//! refuses before it sends anything.
//!
//! Mirrors kubectl's reading path:
//! - `staging/src/k8s.io/cli-runtime/pkg/resource/visitor.go` (`StreamVisitor.Visit`:
//!   documents in order, empty and `null` ones skipped, `error parsing FILE: ...`;
//!   `FlattenListVisitor`: `List` objects expanded in order);
//! - `staging/src/k8s.io/kubectl/pkg/validation/schema.go` and
//!   `staging/src/k8s.io/kubectl/pkg/util/openapi/validation/validation.go`
//!   (`getObjectKind`: `apiVersion not set`, `kind not set`, `invalid object to validate`,
//!   aggregated as `[a, b]`, under `error validating "FILE": error validating data: ...`);
//! - `staging/src/k8s.io/cli-runtime/pkg/resource/mapper.go` (`resource mapping not found
//!   for name: ... ensure CRDs are installed first`) and
//!   `staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructured.go`
//!   (an object with `items` is a list; items without a kind take the list's kind
//!   less `List`; `Object 'Kind' is missing in '...'`).
//!
//! kubectl adds `; if you choose to ignore these errors, turn validation off with
//! --validate=false` to validation errors; podflow has no `--validate`, so it does not.

use std::fmt::Write as _;

use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::core::v1::{
    ConfigMap, Event, LimitRange, Namespace, Node as K8sNode, Pod, ResourceQuota, Secret, Service,
    ServiceAccount,
};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};
use k8s_openapi::api::scheduling::v1::PriorityClass;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::location::{InputError, Location};
use super::simulation::SIMULATION_API_VERSION;
use super::text::{decode, json_parse_error, parse_error};
use super::tree::{Node, NodeValue, Step, on_large_stack, parse_json, parse_yaml};
use super::unknown_fields::unknown_fields;
use podflow_model::{Kind, Object};

/// One object of an input file, decoded into its type, with where its
/// document starts and the fields its type does not have (which the API server
/// will refuse with `400 BadRequest`).
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedObject {
    /// The typed object.
    pub object: Object,
    /// Where the object starts in its file.
    pub location: Location,
    /// Input fields the type lacks, as the API server names them
    /// (`spec.containers[0].imagePullPolicyy`), in input order.
    pub unknown_fields: Vec<String>,
    /// The first value whose JSON type its field does not take
    /// (`containerPort: "eighty"`), when read as kubectl sends it: kubectl does
    /// not check types, the API server's decoder refuses them. `object` then
    /// holds the rest of the input, without that value.
    pub type_error: Option<TypeMismatch>,
}

/// A value of the wrong JSON type for its field.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeMismatch {
    /// Where in the object: keys and indices.
    pub path: Vec<Step>,
    /// The value as the input had it.
    pub value: Value,
    /// The decoder's own wording (`invalid type: string "eighty", expected i32`).
    pub message: String,
    /// Where the value is in its file.
    pub location: Location,
}

impl TypeMismatch {
    /// The error podflow's own readers give (a cluster file, a lesson):
    /// `FILE:LINE:COL: PATH: MESSAGE`.
    pub fn to_input_error(&self) -> InputError {
        InputError::at(&self.location, self.message.clone())
            .with_field_path(format_path(&self.path))
    }
}

/// One document of a file: its tree and where it starts.
#[derive(Debug, Clone)]
pub(crate) struct Document {
    pub node: Node,
    pub location: Location,
}

/// Reads every document of a YAML (multi-document) or JSON (detected by a leading
/// `{` or `[`) file, empty documents skipped.
pub(crate) fn parse_documents(file: &str, bytes: &[u8]) -> Result<Vec<Document>, InputError> {
    let text = decode(file, bytes)?;
    let json = matches!(text.trim_start().chars().next(), Some('{' | '['));
    let nodes = if json {
        parse_json(&text)
    } else {
        parse_yaml(&text)
    };
    let nodes = nodes.map_err(|e| {
        let at = Location::new(file, e.line, e.column);
        if e.json {
            json_parse_error(&at, &e.problem)
        } else {
            parse_error(&at, &e.problem)
        }
    })?;
    Ok(nodes
        .into_iter()
        .filter(|n| n.value != NodeValue::Null)
        .map(|node| Document {
            location: Location::new(file, node.line, node.column),
            node,
        })
        .collect())
}

/// Reads a manifest file's objects, in file order, `List`s expanded; a value
/// of the wrong type is an error here (podflow's own inputs).
pub fn parse_manifests(file: &str, bytes: &[u8]) -> Result<Vec<DecodedObject>, InputError> {
    let manifests = parse_manifests_as_sent(file, bytes)?;
    match manifests.iter().find_map(|m| m.type_error.as_ref()) {
        Some(mismatch) => Err(mismatch.to_input_error()),
        None => Ok(manifests),
    }
}

/// Reads a manifest file's objects as kubectl does before sending them: what
/// kubectl refuses (YAML, `apiVersion`/`kind`, an unknown kind) is an error; a
/// value of the wrong type is kept in [`DecodedObject::type_error`] for the API
/// server to refuse.
pub fn parse_manifests_as_sent(file: &str, bytes: &[u8]) -> Result<Vec<DecodedObject>, InputError> {
    on_large_stack(|| {
        let mut manifests = Vec::new();
        for document in parse_documents(file, bytes)? {
            objects_of(file, &document.node, &mut manifests)?;
        }
        Ok(manifests)
    })
}

/// The objects of one document (several for a list), appended to `out`; a
/// value of the wrong type is an error.
pub(crate) fn manifests_of(
    file: &str,
    node: &Node,
    out: &mut Vec<DecodedObject>,
) -> Result<(), InputError> {
    let first = out.len();
    objects_of(file, node, out)?;
    match out[first..].iter().find_map(|m| m.type_error.as_ref()) {
        Some(mismatch) => Err(mismatch.to_input_error()),
        None => Ok(()),
    }
}

/// The objects of one document, each with its first type mismatch, if any.
fn objects_of(file: &str, node: &Node, out: &mut Vec<DecodedObject>) -> Result<(), InputError> {
    let at = Location::new(file, node.line, node.column);
    let (api_version, kind) = type_meta(file, node)?;
    if let Some(items) = node.get("items").filter(|i| i.value != NodeValue::Null) {
        let NodeValue::Seq(items) = &items.value else {
            return Err(validation_error(
                &Location::new(file, items.line, items.column),
                &["invalid object to validate".into()],
            ));
        };
        let item_kind = kind.strip_suffix("List").unwrap_or_default();
        for item in items {
            let mut item = item.clone();
            inherit_type_meta(&mut item, &api_version, item_kind);
            objects_of(file, &item, out)?;
        }
        return Ok(());
    }
    if kind.is_empty() {
        return Err(InputError::at(
            &at,
            format!("Object 'Kind' is missing in '{}'", node.to_json()),
        ));
    }
    let input = node.to_json();
    let Some(served) = Kind::from_type_meta(&api_version, &kind) else {
        if kind == "Simulation" {
            return Err(InputError::at(
                &at,
                format!(
                    "no matches for kind \"Simulation\" in version {api_version:?}: podflow's Simulation is apiVersion {SIMULATION_API_VERSION:?}"
                ),
            ));
        }
        let name = input
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let namespace = input
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .unwrap_or_default();
        return Err(InputError::at(
            &at,
            format!(
                "resource mapping not found for name: {name:?} namespace: {namespace:?} from {file:?}: \
                 no matches for kind {kind:?} in version {api_version:?}\nensure CRDs are installed first"
            ),
        ));
    };
    let mut sent = input;
    let mut type_error: Option<TypeMismatch> = None;
    let mut replaced: Vec<Vec<Step>> = Vec::new();
    // Like Go's decoder, go on past a mismatch and report the first: each
    // mismatched value is replaced by an empty one of the expected type (or,
    // if that does not do, left out) until the rest decodes.
    let object = loop {
        let (path, message) = match typed(served, sent.clone()) {
            Ok(object) => break object,
            Err(error) => error,
        };
        let place = node.locate(&path);
        let refused = || {
            InputError::at(
                &Location::new(file, place.line, place.column),
                message.clone(),
            )
            .with_field_path(format_path(&path))
        };
        // Only a value of the wrong JSON type is the decoder's to refuse; what
        // podflow's types cannot hold otherwise (a missing required field)
        // stays an input error.
        if !(message.starts_with("invalid type:") || message.starts_with("invalid value:")) {
            return Err(refused());
        }
        let again = replaced.contains(&path);
        let found = if again {
            remove_at(&mut sent, &path)
        } else {
            replace_at(&mut sent, &path, placeholder(&message))
        };
        let Some(found) = found else {
            return Err(refused());
        };
        if type_error.is_none() {
            type_error = Some(TypeMismatch {
                value: found,
                path: path.clone(),
                message: message.clone(),
                location: Location::new(file, place.line, place.column),
            });
        }
        replaced.push(path);
    };
    let unknown_fields = unknown_fields(&sent, &object.to_json());
    out.push(DecodedObject {
        object,
        location: at,
        unknown_fields,
        type_error,
    });
    Ok(())
}

/// The first value of a request body whose JSON type its field does not take,
/// as the decoder meets it (a served API server's body has no file or line).
pub fn first_type_mismatch(kind: &Kind, value: &Value) -> Option<TypeMismatch> {
    let (path, message) = typed(kind, value.clone()).err()?;
    if !(message.starts_with("invalid type:") || message.starts_with("invalid value:")) {
        return None;
    }
    let mut found = value.clone();
    let value = replace_at(&mut found, &path, Value::Null)?;
    Some(TypeMismatch {
        path,
        value,
        message,
        location: Location::new("", 0, 0),
    })
}

/// An empty value of the type serde expected (`expected i32` → `0`).
fn placeholder(message: &str) -> Value {
    let expected = message.rsplit("expected ").next().unwrap_or_default();
    match expected {
        "a boolean" => Value::Bool(false),
        "a sequence" => Value::Array(Vec::new()),
        "f32" | "f64" => Value::from(0.0),
        e if e.starts_with('i') || e.starts_with('u') => Value::from(0),
        e if e.contains("string") => Value::String(String::new()),
        _ => Value::Object(serde_json::Map::new()),
    }
}

/// Puts `with` at `path` in `value`, giving back what was there.
fn replace_at(value: &mut Value, path: &[Step], with: Value) -> Option<Value> {
    let mut at = value;
    for step in path {
        at = match step {
            Step::Key(key) => at.get_mut(key.as_str())?,
            Step::Index(i) => at.get_mut(*i)?,
        };
    }
    if path.is_empty() {
        return None;
    }
    Some(std::mem::replace(at, with))
}

/// Takes the value at `path` out of `value`; `None` when there is none to take
/// (the mismatch is the whole object).
fn remove_at(value: &mut Value, path: &[Step]) -> Option<Value> {
    let (last, parents) = path.split_last()?;
    let mut at = value;
    for step in parents {
        at = match step {
            Step::Key(key) => at.get_mut(key.as_str())?,
            Step::Index(i) => at.get_mut(*i)?,
        };
    }
    match (last, at) {
        (Step::Key(key), Value::Object(map)) => map.remove(key.as_str()),
        (Step::Index(i), Value::Array(items)) if *i < items.len() => Some(items.remove(*i)),
        _ => None,
    }
}

/// `apiVersion` and `kind`, or kubectl's validation error when either is missing.
fn type_meta(file: &str, node: &Node) -> Result<(String, String), InputError> {
    let at = Location::new(file, node.line, node.column);
    if !matches!(node.value, NodeValue::Map(_)) {
        return Err(validation_error(
            &at,
            &["invalid object to validate".into()],
        ));
    }
    let mut errors = Vec::new();
    let api_version = match node.get("apiVersion").map(|n| &n.value) {
        None | Some(NodeValue::Null) => {
            errors.push("apiVersion not set".to_owned());
            String::new()
        }
        Some(NodeValue::String(v)) if v.matches('/').count() > 1 => {
            errors.push(format!("unexpected GroupVersion string: {v}"));
            String::new()
        }
        Some(NodeValue::String(v)) => v.clone(),
        Some(_) => {
            errors.push("apiVersion isn't string type".to_owned());
            String::new()
        }
    };
    let kind = match node.get("kind").map(|n| &n.value) {
        None | Some(NodeValue::Null) => {
            errors.push("kind not set".to_owned());
            String::new()
        }
        Some(NodeValue::String(v)) => v.clone(),
        Some(_) => {
            errors.push("kind isn't string type".to_owned());
            String::new()
        }
    };
    if errors.is_empty() {
        Ok((api_version, kind))
    } else {
        Err(validation_error(&at, &errors))
    }
}

/// `error validating "FILE": error validating data: ...`, several errors as
/// apimachinery's aggregate prints them: `[a, b]`.
fn validation_error(at: &Location, errors: &[String]) -> InputError {
    let data = match errors {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    };
    InputError::at(
        at,
        format!(
            "error validating {:?}: error validating data: {data}",
            at.file
        ),
    )
}

/// A list item without `apiVersion`/`kind` takes the list's (`PodList` → `Pod`).
fn inherit_type_meta(item: &mut Node, api_version: &str, kind: &str) {
    let (line, column) = (item.line, item.column);
    if let NodeValue::Map(entries) = &mut item.value {
        let missing = |entries: &[(String, Node)], key: &str| {
            !entries
                .iter()
                .any(|(k, v)| k == key && v.value != NodeValue::Null)
        };
        if missing(entries, "kind") && !kind.is_empty() {
            entries.push((
                "kind".into(),
                Node {
                    line,
                    column,
                    value: NodeValue::String(kind.into()),
                },
            ));
            if missing(entries, "apiVersion") {
                let value = NodeValue::String(api_version.into());
                entries.push((
                    "apiVersion".into(),
                    Node {
                        line,
                        column,
                        value,
                    },
                ));
            }
        }
    }
}

type TypeError = (Vec<Step>, String);

/// Decodes into the kind's `k8s-openapi` type, naming the field at fault on failure.
fn typed(kind: &Kind, value: Value) -> Result<Object, TypeError> {
    match kind.kind {
        "ConfigMap" => decode_as::<ConfigMap>(value),
        "Endpoints" => decode_as::<k8s_openapi::api::core::v1::Endpoints>(value),
        "Event" => decode_as::<Event>(value),
        "LimitRange" => decode_as::<LimitRange>(value),
        "Namespace" => decode_as::<Namespace>(value),
        "Node" => decode_as::<K8sNode>(value),
        "Pod" => decode_as::<Pod>(value),
        "ResourceQuota" => decode_as::<ResourceQuota>(value),
        "Secret" => decode_as::<Secret>(value),
        "ServiceAccount" => decode_as::<ServiceAccount>(value),
        "Service" => decode_as::<Service>(value),
        "Deployment" => decode_as::<Deployment>(value),
        "ReplicaSet" => decode_as::<ReplicaSet>(value),
        "Job" => decode_as::<k8s_openapi::api::batch::v1::Job>(value),
        "EndpointSlice" => decode_as::<k8s_openapi::api::discovery::v1::EndpointSlice>(value),
        "ClusterRoleBinding" => decode_as::<ClusterRoleBinding>(value),
        "ClusterRole" => decode_as::<ClusterRole>(value),
        "RoleBinding" => decode_as::<RoleBinding>(value),
        "Role" => decode_as::<Role>(value),
        "PriorityClass" => decode_as::<PriorityClass>(value),
        _ => Object::from_json(kind, value).map_err(|e| (Vec::new(), e.to_string())),
    }
}

fn decode_as<T: DeserializeOwned + Into<Object>>(value: Value) -> Result<Object, TypeError> {
    serde_path_to_error::deserialize::<_, T>(value)
        .map(Into::into)
        .map_err(|e| {
            let steps = e
                .path()
                .iter()
                .map_while(|segment| match segment {
                    serde_path_to_error::Segment::Map { key } => Some(Step::Key(key.clone())),
                    serde_path_to_error::Segment::Seq { index } => Some(Step::Index(*index)),
                    _ => None,
                })
                .collect();
            (steps, e.into_inner().to_string())
        })
}

/// `spec.containers[0].ports[0].containerPort`.
pub(crate) fn format_path(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Step::Index(i) => {
                let _ = write!(out, "[{i}]");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(text: &str) -> String {
        parse_manifests("pod.yaml", text.as_bytes())
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn refuses_as_kubectl_does() {
        let cases = [
            (
                "metadata:\n  name: x\n",
                "pod.yaml:1:1: error validating \"pod.yaml\": error validating data: [apiVersion not set, kind not set]",
            ),
            (
                "apiVersion: v1\nmetadata: {name: x}\n",
                "pod.yaml:1:1: error validating \"pod.yaml\": error validating data: kind not set",
            ),
            (
                "- a\n- b\n",
                "pod.yaml:1:1: error validating \"pod.yaml\": error validating data: invalid object to validate",
            ),
            (
                "apiVersion: 1\nkind: [Pod]\n",
                "pod.yaml:1:1: error validating \"pod.yaml\": error validating data: [apiVersion isn't string type, kind isn't string type]",
            ),
            (
                "apiVersion: a/b/c\nkind: Pod\n",
                "pod.yaml:1:1: error validating \"pod.yaml\": error validating data: unexpected GroupVersion string: a/b/c",
            ),
            (
                "apiVersion: v1\nkind: Widget\nmetadata: {name: w, namespace: dev}\n",
                "pod.yaml:1:1: resource mapping not found for name: \"w\" namespace: \"dev\" from \"pod.yaml\": no matches for kind \"Widget\" in version \"v1\"; ensure CRDs are installed first",
            ),
            (
                "apiVersion: apps/v1beta2\nkind: Deployment\nmetadata: {name: nginx}\n",
                "pod.yaml:1:1: resource mapping not found for name: \"nginx\" namespace: \"\" from \"pod.yaml\": no matches for kind \"Deployment\" in version \"apps/v1beta2\"; ensure CRDs are installed first",
            ),
            (
                "apiVersion: v1\nkind: Simulation\n",
                "pod.yaml:1:1: no matches for kind \"Simulation\" in version \"v1\": podflow's Simulation is apiVersion \"podflow.dev/v1alpha1\"",
            ),
            (
                "apiVersion: v1\nkind: \"\"\n",
                "pod.yaml:1:1: Object 'Kind' is missing in '{\"apiVersion\":\"v1\",\"kind\":\"\"}'",
            ),
            (
                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    ports:\n    - containerPort: eighty\n",
                "pod.yaml:9:22: spec.containers[0].ports[0].containerPort: invalid type: string \"eighty\", expected i32",
            ),
            (
                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels:\n    enabled: true\n",
                "pod.yaml:6:14: metadata.labels.enabled: invalid type: boolean `true`, expected a string",
            ),
            (
                "apiVersion: v1\nkind: List\nitems:\n- metadata: {name: a}\n",
                "pod.yaml:4:3: error validating \"pod.yaml\": error validating data: [apiVersion not set, kind not set]",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(error(text), want, "{text}");
        }
    }

    #[test]
    fn expands_lists_in_order() {
        let text = "apiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: a}\n  spec: {containers: [{name: c}]}\n- apiVersion: v1\n  kind: List\n  items:\n  - {apiVersion: v1, kind: Namespace, metadata: {name: b}}\n";
        let manifests = parse_manifests("l.yaml", text.as_bytes()).unwrap();
        let names: Vec<_> = manifests
            .iter()
            .map(|m| (m.object.kind().kind, m.object.name(), m.location.line))
            .collect();
        assert_eq!(names, [("Pod", "a", 4), ("Namespace", "b", 9)]);
    }

    #[test]
    fn keeps_unknown_fields_for_the_api_server() {
        let text = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: nginx\n    imagePullPolicyy: Always\n";
        let manifests = parse_manifests("pod.yaml", text.as_bytes()).unwrap();
        assert_eq!(
            manifests[0].unknown_fields,
            ["spec.containers[0].imagePullPolicyy"]
        );
    }

    /// kubectl checks no types (`--validate=strict` asks the server): what it
    /// sends keeps the first mismatch for the API server's decoder, and the
    /// rest of the object, which still names it for kubectl's GET.
    #[test]
    fn keeps_the_first_wrong_type_for_the_api_server() {
        let text = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: nginx\n    ports:\n    - containerPort: eighty\n    - containerPort: true\n";
        let manifests = parse_manifests_as_sent("pod.yaml", text.as_bytes()).unwrap();
        let mismatch = manifests[0].type_error.as_ref().expect("the mismatch");
        assert_eq!(
            format_path(&mismatch.path),
            "spec.containers[0].ports[0].containerPort"
        );
        assert_eq!(mismatch.value, Value::from("eighty"));
        assert_eq!((mismatch.location.line, mismatch.location.column), (9, 22));
        assert_eq!(manifests[0].object.name(), "p");
        assert!(manifests[0].unknown_fields.is_empty());
        // podflow's own readers still refuse it, at its place.
        assert_eq!(
            error(text),
            "pod.yaml:9:22: spec.containers[0].ports[0].containerPort: invalid type: string \"eighty\", expected i32"
        );
    }
}
