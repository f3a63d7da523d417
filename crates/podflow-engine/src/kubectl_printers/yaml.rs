//! A small block-style YAML printer over `serde_json::Value` that keeps the
//! object's key order and the field path of every line (so the TUI's objects
//! pane can light the fields a write changed), and the diff that finds those
//! fields; `kubectl get -o yaml` prints with it after sorting the keys.
//!
//! Lists are written as `kubectl get -o yaml` writes them: the `- ` at the
//! parent key's indentation; strings in go-yaml's styles, long ones broken
//! past column 80 and multi-line ones as `|` blocks ([`super::yaml_scalar`]).

use std::collections::HashSet;

use serde_json::Value;

use super::yaml_scalar;

/// One printed line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlLine {
    /// The line, indentation included.
    pub text: String,
    /// Whether the field it shows (or a field above it) changed.
    pub changed: bool,
}

/// `value` as block YAML, each line marked when its path is in `changed`
/// (paths such as `spec.nodeName`, `status.conditions[1].status`) or below one.
pub fn lines(value: &Value, changed: &[String]) -> Vec<YamlLine> {
    let changed: HashSet<&str> = changed.iter().map(String::as_str).collect();
    let mut out = Vec::new();
    let printer = Printer { changed: &changed };
    match value {
        Value::Object(map) if !map.is_empty() => printer.map(&mut out, 0, "", value, false),
        Value::Array(items) if !items.is_empty() => printer.seq(&mut out, 0, "", value, false),
        other => push_scalar(&mut out, "", other, 0, changed.contains("")),
    }
    out
}

/// `head` (a key and colon, or a dash) and the scalar `value` after it, on
/// as many lines as the value takes; continuation lines at `indent`.
fn push_scalar(out: &mut Vec<YamlLine>, head: &str, value: &Value, indent: usize, changed: bool) {
    let texts = match value {
        Value::String(s) => yaml_scalar::value_lines(head, s, indent),
        other if head.is_empty() => vec![scalar(other)],
        other => vec![format!("{head} {}", scalar(other))],
    };
    out.extend(texts.into_iter().map(|text| YamlLine { text, changed }));
}

struct Printer<'a> {
    changed: &'a HashSet<&'a str>,
}

impl Printer<'_> {
    /// The entries of a non-empty map, each at `indent`.
    fn map(&self, out: &mut Vec<YamlLine>, indent: usize, path: &str, value: &Value, lit: bool) {
        let Value::Object(map) = value else { return };
        for (key, child) in map {
            let child_path = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            let lit = lit || self.changed.contains(child_path.as_str());
            let head = format!("{:indent$}{}:", "", yaml_scalar::key(key));
            match child {
                Value::Object(m) if !m.is_empty() => {
                    out.push(YamlLine {
                        text: head,
                        changed: lit,
                    });
                    self.map(out, indent + 2, &child_path, child, lit);
                }
                Value::Array(items) if !items.is_empty() => {
                    out.push(YamlLine {
                        text: head,
                        changed: lit,
                    });
                    self.seq(out, indent, &child_path, child, lit);
                }
                scalar_value => push_scalar(out, &head, scalar_value, indent + 2, lit),
            }
        }
    }

    /// The items of a non-empty list, each `- ` at `indent`.
    fn seq(&self, out: &mut Vec<YamlLine>, indent: usize, path: &str, value: &Value, lit: bool) {
        let Value::Array(items) = value else { return };
        for (i, item) in items.iter().enumerate() {
            let item_path = format!("{path}[{i}]");
            let lit = lit || self.changed.contains(item_path.as_str());
            let first = out.len();
            match item {
                Value::Object(m) if !m.is_empty() => {
                    self.map(out, indent + 2, &item_path, item, lit);
                }
                Value::Array(inner) if !inner.is_empty() => {
                    self.seq(out, indent + 2, &item_path, item, lit);
                }
                scalar_value => {
                    let dash = format!("{:indent$}-", "");
                    push_scalar(out, &dash, scalar_value, indent + 2, lit);
                    continue;
                }
            }
            // The item's first line carries the dash: `  name: x` → `- name: x`.
            if let Some(line) = out.get_mut(first) {
                let rest = line.text.get(indent + 2..).unwrap_or_default().to_owned();
                line.text = format!("{:indent$}- {rest}", "");
            }
        }
    }
}

/// A non-string scalar (or an empty map or list) as YAML writes it inline.
fn scalar(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => yaml_scalar::key(s),
        Value::Array(_) => "[]".to_owned(),
        Value::Object(_) => "{}".to_owned(),
    }
}

/// The paths of the fields that differ between `before` and `after`: leaves
/// whose value changed, fields added or removed, and lists whose length changed.
pub fn changed_paths(before: &Value, after: &Value) -> Vec<String> {
    let mut out = Vec::new();
    diff(before, after, "", &mut out);
    out
}

fn diff(before: &Value, after: &Value, path: &str, out: &mut Vec<String>) {
    let join = |key: &str| {
        if path.is_empty() {
            key.to_owned()
        } else {
            format!("{path}.{key}")
        }
    };
    match (before, after) {
        (Value::Object(b), Value::Object(a)) => {
            for (key, a_child) in a {
                match b.get(key) {
                    Some(b_child) => diff(b_child, a_child, &join(key), out),
                    None => out.push(join(key)),
                }
            }
            for key in b.keys().filter(|k| !a.contains_key(*k)) {
                out.push(join(key));
            }
        }
        (Value::Array(b), Value::Array(a)) if a.len() == b.len() => {
            for (i, (b_item, a_item)) in b.iter().zip(a).enumerate() {
                diff(b_item, a_item, &format!("{path}[{i}]"), out);
            }
        }
        _ if before != after => out.push(path.to_owned()),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn text(value: &Value) -> String {
        lines(value, &[])
            .into_iter()
            .map(|l| l.text + "\n")
            .collect()
    }

    #[test]
    fn prints_block_yaml_with_fields_sorted_as_kubectl_does() {
        let pod = json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "nginx", "labels": {"app": "nginx"}, "creationTimestamp": "2026-11-30T02:20:30Z"},
            "spec": {
                "containers": [{"name": "nginx", "image": "nginx:1.27", "ports": [{"containerPort": 80}], "args": ["-g", "daemon off;"]}],
                "tolerations": [],
                "nodeSelector": {},
                "matrix": [[1, 2]]
            },
            "status": {"phase": "Pending", "podIP": "10.244.3.2", "ready": true, "note": "80", "msg": "a: b", "multi": "x\ny"}
        });
        let want = "\
apiVersion: v1
kind: Pod
metadata:
  creationTimestamp: \"2026-11-30T02:20:30Z\"
  labels:
    app: nginx
  name: nginx
spec:
  containers:
  - args:
    - -g
    - daemon off;
    image: nginx:1.27
    name: nginx
    ports:
    - containerPort: 80
  matrix:
  - - 1
    - 2
  nodeSelector: {}
  tolerations: []
status:
  msg: 'a: b'
  multi: |-
    x
    y
  note: \"80\"
  phase: Pending
  podIP: 10.244.3.2
  ready: true
";
        assert_eq!(text(&pod), want);
    }

    #[test]
    fn diff_finds_changed_added_and_removed_fields() {
        let before = json!({
            "metadata": {"resourceVersion": "59", "name": "nginx"},
            "spec": {"containers": [{"name": "nginx"}]},
            "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled"}], "gone": 1}
        });
        let after = json!({
            "metadata": {"resourceVersion": "60", "name": "nginx"},
            "spec": {"containers": [{"name": "nginx"}], "nodeName": "node-3"},
            "status": {"phase": "Running", "conditions": [{"type": "PodScheduled"}, {"type": "Ready"}]}
        });
        assert_eq!(
            changed_paths(&before, &after),
            [
                "metadata.resourceVersion",
                "spec.nodeName",
                "status.conditions",
                "status.phase",
                "status.gone"
            ]
        );
        assert!(changed_paths(&after, &after).is_empty());
    }

    #[test]
    fn changed_lines_are_marked_with_what_is_below_them() {
        let after = json!({
            "spec": {"nodeName": "node-3", "containers": [{"name": "nginx"}]},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]}
        });
        let marked: Vec<(String, bool)> = lines(
            &after,
            &["spec.nodeName".to_owned(), "status.conditions".to_owned()],
        )
        .into_iter()
        .map(|l| (l.text, l.changed))
        .collect();
        let want = [
            ("spec:", false),
            ("  containers:", false),
            ("  - name: nginx", false),
            ("  nodeName: node-3", true),
            ("status:", false),
            ("  conditions:", true),
            ("  - status: \"True\"", true),
            ("    type: Ready", true),
        ];
        let want: Vec<(String, bool)> = want.iter().map(|(t, c)| ((*t).to_owned(), *c)).collect();
        assert_eq!(marked, want);
    }
}
