//! What `kubectl get` prints for each `-o`: the table (with `-o wide`,
//! `-A`'s NAMESPACE and `--show-labels`' LABELS), `-o name`'s `kind/name`
//! lines, and `-o yaml`/`-o json`/`-o jsonpath` of the object, or of a `List` of them
//! (`staging/src/k8s.io/cli-runtime/pkg/printers`: keys sorted, as Go
//! marshals the unstructured maps; JSON indented by four spaces).

use std::sync::Arc;

use serde_json::{Value, json};

use super::{sorted, type_name};
use crate::clock::SimTime;
use crate::command::{GetOptions, Output};
use crate::kubectl_printers::{self, TableOptions, yaml};
use podflow_model::Object;

/// The lines `get` prints for `objects` (`single` when a name was asked).
pub fn lines(
    objects: &[Arc<Object>],
    single: bool,
    options: &GetOptions,
    now: SimTime,
) -> Vec<String> {
    match &options.output {
        Output::Table | Output::Wide => {
            let columns = TableOptions {
                wide: options.output == Output::Wide,
                namespace: options.all_namespaces,
                labels: options.show_labels,
                kind: false,
            };
            kubectl_printers::table_with(objects, now, columns)
        }
        Output::Name => objects
            .iter()
            .map(|o| format!("{}/{}", type_name(o.kind()), o.name()))
            .collect(),
        Output::Json => {
            let value = document(objects, single);
            let mut out = Vec::new();
            let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
            let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
            serde::Serialize::serialize(&value, &mut serializer).unwrap_or_default();
            String::from_utf8_lossy(&out)
                .lines()
                .map(str::to_owned)
                .collect()
        }
        Output::Yaml => yaml::lines(&document(objects, single), &[])
            .into_iter()
            .map(|line| line.text)
            .collect(),
        Output::JsonPath(template) => {
            let text = template.execute(&document(objects, single));
            text.lines().map(str::to_owned).collect()
        }
    }
}

/// The object, or a `List` of the objects, keys sorted.
/// A list's `resourceVersion` is empty: kubectl gathers the items itself.
fn document(objects: &[Arc<Object>], single: bool) -> Value {
    let items: Vec<Value> = objects.iter().map(|o| o.to_json()).collect();
    let value = match (single, items.as_slice()) {
        (true, [one]) => one.clone(),
        _ => json!({
            "apiVersion": "v1",
            "items": items,
            "kind": "List",
            "metadata": {"resourceVersion": ""},
        }),
    };
    sorted(&value)
}
