//! The fields a change touched: the paths, two levels deep
//! (`spec.nodeName`, `status.conditions`, `metadata.labels`), whose values
//! differ between two versions of an object. An object is kept as these
//! paths' hashes ([`Summary`]), so a change can be told without keeping the
//! version before it whole.

use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::Value;

/// How deep paths go: `status.phase`, not `status.containerStatuses[0].ready`.
const DEPTH: usize = 2;

/// Paths that change with every write and say nothing about it.
const IGNORED: &[&str] = &["metadata.resourceVersion", "metadata.managedFields"];

/// An object's paths (to [`DEPTH`]) and a hash of each one's value.
pub type Summary = BTreeMap<String, u64>;

/// The summary of `object`.
pub fn summary(object: &Value) -> Summary {
    let mut out = Summary::new();
    walk(object, "", 0, &mut out);
    out
}

fn walk(value: &Value, path: &str, depth: usize, out: &mut Summary) {
    match value {
        Value::Object(map) if depth < DEPTH => {
            for (key, child) in map {
                let path = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                if IGNORED.contains(&path.as_str())
                    || (depth == 0 && (key == "apiVersion" || key == "kind"))
                {
                    continue;
                }
                walk(child, &path, depth + 1, out);
            }
        }
        _ if !path.is_empty() => {
            out.insert(path.to_owned(), hash_of(value));
        }
        _ => {}
    }
}

/// A hash of a JSON value (of its text: `serde_json` writes an object's keys
/// in one order).
pub fn hash_of(value: &Value) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.to_string().hash(&mut hasher);
    hasher.finish()
}

/// The paths whose values differ from `old` to `new`, added and removed
/// ones included, in path order.
pub fn touched(old: &Summary, new: &Summary) -> Vec<String> {
    let mut paths: Vec<String> = new
        .iter()
        .filter(|(path, hash)| old.get(*path) != Some(hash))
        .map(|(path, _)| path.clone())
        .chain(old.keys().filter(|path| !new.contains_key(*path)).cloned())
        .collect();
    paths.sort();
    paths
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_binding_and_a_status_update_touch_their_fields() {
        let pending = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "nginx", "resourceVersion": "7", "labels": {"app": "nginx"}},
            "spec": {"containers": [{"name": "nginx"}]},
            "status": {"phase": "Pending"}});
        let mut bound = pending.clone();
        bound["metadata"]["resourceVersion"] = json!("8");
        bound["spec"]["nodeName"] = json!("node-1");
        bound["status"]["conditions"] = json!([{"type": "PodScheduled", "status": "True"}]);
        assert_eq!(
            touched(&summary(&pending), &summary(&bound)),
            ["spec.nodeName", "status.conditions"]
        );
        let mut running = bound.clone();
        running["status"]["phase"] = json!("Running");
        running["metadata"]["labels"] = json!({});
        assert_eq!(
            touched(&summary(&bound), &summary(&running)),
            ["metadata.labels", "status.phase"]
        );
        assert!(touched(&summary(&running), &summary(&running)).is_empty());
        let mut unlabelled = running.clone();
        unlabelled["metadata"]
            .as_object_mut()
            .unwrap()
            .remove("labels");
        assert_eq!(
            touched(&summary(&running), &summary(&unlabelled)),
            ["metadata.labels"]
        );
    }
}
