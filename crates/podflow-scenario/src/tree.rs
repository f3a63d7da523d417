//! A parsed document as a tree of values that remember where they were
//! written, so that an error deep inside an object can name its line and column.
//!
//! YAML is read by `serde-saphyr` (with its budget: alias bombs, deep nesting and
//! event floods fail fast), each node wrapped in [`serde_saphyr::Spanned`] to keep
//! its place. JSON is read by `serde_json` and then, for places only, by the YAML
//! reader (JSON is YAML's flow style).

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use serde_saphyr::Spanned;

/// One value and where it starts (1-based line and column).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    pub line: usize,
    pub column: usize,
    pub value: NodeValue,
}

/// The value of a [`Node`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum NodeValue {
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Seq(Vec<Node>),
    Map(Vec<(String, Node)>),
    /// A float YAML reads as infinite or not-a-number (`.inf`, `.nan`, or `1e400`,
    /// which overflows); [`super::floats::resolve`] turns it into what go-yaml and
    /// `sigs.k8s.io/yaml` make of it before anything else sees the tree.
    NonFinite,
}

/// One step of a field path: a map key or a list index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Key(String),
    Index(usize),
}

impl Node {
    /// The tree as JSON, as `sigs.k8s.io/yaml` converts YAML to JSON before kubectl
    /// sends it (a later duplicate key wins; non-finite floats have no JSON form and
    /// become null).
    pub fn to_json(&self) -> Value {
        match &self.value {
            NodeValue::Null | NodeValue::NonFinite => Value::Null,
            NodeValue::Bool(b) => Value::Bool(*b),
            NodeValue::Number(n) => Value::Number(n.clone()),
            NodeValue::String(s) => Value::String(s.clone()),
            NodeValue::Seq(items) => Value::Array(items.iter().map(Node::to_json).collect()),
            NodeValue::Map(entries) => {
                let mut map = Map::new();
                for (key, node) in entries {
                    map.insert(key.clone(), node.to_json());
                }
                Value::Object(map)
            }
        }
    }

    /// The child at `key`, if this is a map that has it.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            NodeValue::Map(entries) => entries.iter().rev().find(|(k, _)| k == key).map(|(_, n)| n),
            _ => None,
        }
    }

    /// The deepest node along `path` (the node itself when the first step misses).
    pub fn locate<'a>(&'a self, path: &[Step]) -> &'a Node {
        let mut node = self;
        for step in path {
            let next = match (step, &node.value) {
                (Step::Key(key), NodeValue::Map(_)) => node.get(key),
                (Step::Index(i), NodeValue::Seq(items)) => items.get(*i),
                _ => None,
            };
            match next {
                Some(next) => node = next,
                None => break,
            }
        }
        node
    }

    /// Places every node at `line`:`column` (for JSON whose places are unknown).
    fn at(value: &Value, line: usize, column: usize) -> Node {
        let value = match value {
            Value::Null => NodeValue::Null,
            Value::Bool(b) => NodeValue::Bool(*b),
            Value::Number(n) => NodeValue::Number(n.clone()),
            Value::String(s) => NodeValue::String(s.clone()),
            Value::Array(items) => {
                NodeValue::Seq(items.iter().map(|v| Node::at(v, line, column)).collect())
            }
            Value::Object(map) => NodeValue::Map(
                map.iter()
                    .map(|(k, v)| (k.clone(), Node::at(v, line, column)))
                    .collect(),
            ),
        };
        Node {
            line,
            column,
            value,
        }
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Node, D::Error> {
        let spanned = Spanned::<NodeValue>::deserialize(deserializer)?;
        let place = spanned.referenced;
        Ok(Node {
            line: usize::try_from(place.line()).unwrap_or(usize::MAX).max(1),
            column: usize::try_from(place.column()).unwrap_or(usize::MAX).max(1),
            value: spanned.value,
        })
    }
}

impl<'de> Deserialize<'de> for NodeValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<NodeValue, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = NodeValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_unit<E>(self) -> Result<NodeValue, E> {
        Ok(NodeValue::Null)
    }

    fn visit_none<E>(self) -> Result<NodeValue, E> {
        Ok(NodeValue::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<NodeValue, D::Error> {
        NodeValue::deserialize(deserializer)
    }

    fn visit_bool<E>(self, v: bool) -> Result<NodeValue, E> {
        Ok(NodeValue::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<NodeValue, E> {
        Ok(NodeValue::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<NodeValue, E> {
        Ok(NodeValue::Number(v.into()))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<NodeValue, E> {
        #[allow(clippy::cast_precision_loss)]
        Ok(i64::try_from(v).map_or_else(|_| float(v as f64), |v| NodeValue::Number(v.into())))
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<NodeValue, E> {
        #[allow(clippy::cast_precision_loss)]
        Ok(u64::try_from(v).map_or_else(|_| float(v as f64), |v| NodeValue::Number(v.into())))
    }

    fn visit_f64<E>(self, v: f64) -> Result<NodeValue, E> {
        Ok(float(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<NodeValue, E> {
        Ok(NodeValue::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<NodeValue, E> {
        Ok(NodeValue::String(v))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<NodeValue, E> {
        Ok(NodeValue::String(String::from_utf8_lossy(v).into_owned()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<NodeValue, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Node>()? {
            items.push(item);
        }
        Ok(NodeValue::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<NodeValue, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<KeyString>()? {
            let value = map.next_value::<Node>()?;
            entries.push((key.0, value));
        }
        Ok(NodeValue::Map(entries))
    }
}

fn float(v: f64) -> NodeValue {
    Number::from_f64(v).map_or(NodeValue::NonFinite, NodeValue::Number)
}

/// A map key as JSON needs it: YAML allows `1:` or `true:` as keys, and
/// `sigs.k8s.io/yaml` turns them into the strings `"1"` and `"true"`.
struct KeyString(String);

impl<'de> Deserialize<'de> for KeyString {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<KeyString, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = KeyString;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a scalar map key")
            }
            fn visit_str<E>(self, v: &str) -> Result<KeyString, E> {
                Ok(KeyString(v.to_owned()))
            }
            fn visit_bool<E>(self, v: bool) -> Result<KeyString, E> {
                Ok(KeyString(v.to_string()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<KeyString, E> {
                Ok(KeyString(v.to_string()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<KeyString, E> {
                Ok(KeyString(v.to_string()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<KeyString, E> {
                Ok(KeyString(v.to_string()))
            }
            fn visit_unit<E>(self) -> Result<KeyString, E> {
                Ok(KeyString("null".to_owned()))
            }
            fn visit_none<E>(self) -> Result<KeyString, E> {
                Ok(KeyString("null".to_owned()))
            }
        }
        deserializer.deserialize_any(KeyVisitor)
    }
}

/// The deepest nesting podflow reads. Kubernetes objects nest about 15 levels
/// (a Deployment's node affinity values); deeper input is an attack or a mistake.
pub(crate) const MAX_DEPTH: usize = 48;

// Two kinds of limit. The honest size of an input is bounded by the 16 MiB podflow
// reads (`text::MAX_INPUT_BYTES`); the counts below only keep its tree's memory in
// proportion, well above what real files hold (`podflow gen-cluster` at its 32,768
// nodes writes about 12.5 MB, 820,000 values in 32,769 documents). What aliases
// expand to is bounded apart: saphyr counts neither values nor events an alias
// replays, but each alias replays at most the events its anchor recorded, and every
// recorded event (a replay inside an anchor included) is charged to one budget, so
// aliases add at most `MAX_ALIASES × MAX_ANCHOR_EVENTS` events, however they nest.

/// The most YAML values (maps, lists and scalars) written in one input.
const MAX_NODES: usize = 2_000_000;
/// The most parser events (values, their ends, aliases, documents) written in one input.
const MAX_EVENTS: usize = 5_000_000;
/// The most documents in one input.
const MAX_DOCUMENTS: usize = 65_536;
/// The most aliases (`*name`) in one input.
const MAX_ALIASES: usize = 500;
/// The most events all anchors together record (what aliases can replay):
/// aliases add at most 500 × 4,000 = 2,000,000 events (about a million values).
const MAX_ANCHOR_EVENTS: usize = 4_000;

/// The options every YAML read uses: serde-saphyr's budget with podflow's limits.
fn yaml_options() -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_depth = MAX_DEPTH;
    budget.max_events = MAX_EVENTS;
    budget.max_nodes = MAX_NODES;
    budget.max_documents = MAX_DOCUMENTS;
    // Manifests rarely use anchors at all; these limits stop an alias bomb in
    // milliseconds and still allow a file of reused blocks (and saphyr's own
    // heuristic, more than ten aliases per anchor, stays on).
    budget.max_aliases = MAX_ALIASES;
    budget.max_recorded_anchor_events = MAX_ANCHOR_EVENTS;
    // kubectl reads YAML with `sigs.k8s.io/yaml` (non-strict): a repeated key is kept, the
    // last one wins (in `Node::to_json`).
    serde_saphyr::options! {
        budget: Some(budget),
        // Non-finite floats reach the visitor, to be resolved against the text.
        non_finite_float_policy: serde_saphyr::NonFiniteFloatPolicy::PassThrough,
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::PassThrough,
    }
}

/// A read failure: the problem in the reader's words and where it points.
#[derive(Debug)]
pub(crate) struct ParseError {
    /// What went wrong, worded as go-yaml (`line 5: mapping values are not allowed in
    /// this context`) or Go's JSON decoder would word it.
    pub problem: String,
    pub line: usize,
    pub column: usize,
    /// Whether the problem is worded whole, as Go's JSON code words it (the input was
    /// read as JSON, or YAML became JSON it cannot hold), not as go-yaml's `yaml: ...`.
    pub json: bool,
}

/// Reads every non-empty YAML document of `text`, in order.
pub(crate) fn parse_yaml(text: &str) -> Result<Vec<Node>, ParseError> {
    let mut nodes = read_yaml(text)?;
    for node in &mut nodes {
        super::floats::resolve(text, node)?;
    }
    Ok(nodes)
}

fn read_yaml(text: &str) -> Result<Vec<Node>, ParseError> {
    serde_saphyr::from_multiple_with_options::<Node>(text, yaml_options()).map_err(|e| {
        let (line, column) = e.location().map_or((1, 1), |l| {
            (
                usize::try_from(l.line()).unwrap_or(1).max(1),
                usize::try_from(l.column()).unwrap_or(1).max(1),
            )
        });
        ParseError {
            problem: yaml_problem(&e, line),
            line,
            column,
            json: false,
        }
    })
}

/// saphyr's error worded as go-yaml words it: `line L: problem`; go-yaml's own
/// words for alias bombs (`document contains excessive aliasing`, `decode.go`) and
/// for nesting (`exceeded max depth of N`).
fn yaml_problem(error: &serde_saphyr::Error, line: usize) -> String {
    use serde_saphyr::budget::BudgetBreach;
    if let Some(breach) = budget_breach(error) {
        return match breach {
            BudgetBreach::Aliases { .. }
            | BudgetBreach::Anchors { .. }
            | BudgetBreach::AliasAnchorRatio { .. }
            | BudgetBreach::MergeKeys { .. }
            | BudgetBreach::RecordedAnchorEvents { .. }
            | BudgetBreach::RecordedAnchorBytes { .. } => {
                "document contains excessive aliasing".to_owned()
            }
            BudgetBreach::Depth { .. } => format!("exceeded max depth of {MAX_DEPTH}"),
            BudgetBreach::Nodes { .. } => format!(
                "the input holds more than {} YAML values (maps, lists and scalars), the most podflow reads in one file",
                thousands(MAX_NODES)
            ),
            BudgetBreach::Events { .. } => format!(
                "the input is longer than {} YAML parser events, the most podflow reads in one file",
                thousands(MAX_EVENTS)
            ),
            BudgetBreach::Documents { .. } => format!(
                "the input holds more than {} documents, the most podflow reads in one file",
                thousands(MAX_DOCUMENTS)
            ),
            _ => "the input's scalars hold more text than podflow reads in one file".to_owned(),
        };
    }
    let text = error.to_string();
    let first = text.lines().next().unwrap_or_default().trim();
    let first = first.strip_prefix("error: ").unwrap_or(first);
    // saphyr puts the place first (`line 5 column 10: `) or last (` at line 5, column 10`).
    let first = match first.split_once(": ") {
        Some((place, rest)) if place.starts_with("line ") => rest,
        _ => first,
    };
    let first = first.rfind(" at line ").map_or(first, |i| &first[..i]);
    format!("line {line}: {first}")
}

/// The budget breach behind `error`, however saphyr wrapped it.
fn budget_breach(error: &serde_saphyr::Error) -> Option<&serde_saphyr::budget::BudgetBreach> {
    let mut current: &(dyn std::error::Error + 'static) = error.without_snippet();
    loop {
        if let Some(serde_saphyr::Error::Budget { breach, .. }) =
            current.downcast_ref::<serde_saphyr::Error>()
        {
            return Some(breach);
        }
        current = current.source()?;
    }
}

/// `100000` as `100,000`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Reads a JSON stream (one or more concatenated values), as kubectl's
/// `YAMLOrJSONDecoder` does once it has seen a leading `{`.
pub(crate) fn parse_json(text: &str) -> Result<Vec<Node>, ParseError> {
    let mut values = Vec::new();
    let mut starts = Vec::new();
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    loop {
        let start = stream.byte_offset();
        match stream.next() {
            None => break,
            Some(Ok(value)) => {
                starts.push(start + leading_space(&text[start..]));
                values.push(value);
            }
            Some(Err(e)) => {
                let message = e.to_string();
                let message = match message.rfind(" at line ") {
                    Some(i) => message[..i].to_owned(),
                    None => message,
                };
                return Err(ParseError {
                    problem: message,
                    line: e.line().max(1),
                    column: e.column().max(1),
                    json: true,
                });
            }
        }
    }
    // Places: a single JSON document is also a YAML document; read it again for them.
    if values.len() == 1
        && let Ok(mut nodes) = parse_yaml(text)
        && nodes.len() == 1
        && nodes[0].to_json() == values[0]
        && let Some(node) = nodes.pop()
    {
        return Ok(vec![node]);
    }
    Ok(values
        .iter()
        .zip(starts)
        .map(|(value, start)| {
            let (line, column) = line_column(text, start);
            Node::at(value, line, column)
        })
        .collect())
}

fn leading_space(text: &str) -> usize {
    text.len() - text.trim_start().len()
}

/// The 1-based line and column (in characters) of byte `offset` in `text`.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// Runs `read` on a thread with a large stack: reading is recursive, a chain of
/// frames per nesting level, and must not overflow a small caller stack (test
/// threads have 2 MiB). Runs it in place if no thread can be made.
pub(crate) fn on_large_stack<T: Send>(read: impl FnOnce() -> T + Send) -> T {
    let slot = std::sync::Mutex::new(Some(read));
    let outcome = std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("podflow-read".into())
            .stack_size(256 << 20)
            .spawn_scoped(scope, || {
                let read = slot.lock().ok().and_then(|mut s| s.take());
                read.map(|read| read())
            });
        spawned.ok().map(std::thread::ScopedJoinHandle::join)
    });
    match outcome {
        Some(Ok(Some(value))) => value,
        // A panic inside reading is a bug in podflow; let it surface as one.
        Some(Err(payload)) => std::panic::resume_unwind(payload),
        _ => {
            let read = slot.into_inner().ok().flatten();
            match read {
                Some(read) => read(),
                None => std::panic::resume_unwind(Box::new("podflow-read lost its job")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file with more documents than podflow reads is refused with the limit in words.
    #[test]
    fn too_many_documents_are_refused_in_words() {
        let many = "--- 1\n".repeat(MAX_DOCUMENTS + 1);
        let error = parse_yaml(&many).unwrap_err();
        assert_eq!(
            error.problem,
            "the input holds more than 65,536 documents, the most podflow reads in one file"
        );
    }

    /// "Billion laughs": nine levels of ten aliases each, 10^9 values if expanded; refused
    /// once the anchors have recorded `MAX_ANCHOR_EVENTS` events, in go-yaml's words.
    #[test]
    fn alias_bombs_are_refused_in_go_yamls_words() {
        use std::fmt::Write as _;
        let mut bomb = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for i in 1..10 {
            let refs = vec![format!("*a{}", i - 1); 10].join(", ");
            let _ = writeln!(bomb, "a{i}: &a{i} [{refs}]");
        }
        let error = parse_yaml(&bomb).unwrap_err();
        assert_eq!(error.problem, "document contains excessive aliasing");
        assert_eq!((error.line, error.column), (4, 20), "the third alias of a3");
    }

    /// Reused blocks (fifty anchors, each used five times) are read and expanded.
    #[test]
    fn reused_blocks_are_expanded() {
        use std::fmt::Write as _;
        let mut text = String::from("anchors:\n");
        for i in 0..50 {
            let _ = writeln!(
                text,
                "  - &b{i} {{cpu: {i}m, memory: {i}Mi, labels: [a, b, c]}}"
            );
        }
        text.push_str("uses:\n");
        for i in 0..250 {
            let _ = writeln!(text, "  - *b{}", i % 50);
        }
        let docs = parse_yaml(&text).unwrap();
        let uses = docs[0].to_json()["uses"].clone();
        assert_eq!(uses.as_array().map(Vec::len), Some(250));
        assert_eq!(uses[51]["memory"], "1Mi");
        assert_eq!(
            MAX_ALIASES * MAX_ANCHOR_EVENTS,
            2_000_000,
            "the expansion bound"
        );
    }

    #[test]
    fn yaml_nodes_know_their_place() {
        let docs = parse_yaml("a: 1\nb:\n  - x\n  - {c: true}\n---\n---\nd: ~\n").unwrap();
        assert_eq!(docs.len(), 2);
        let b = docs[0].get("b").unwrap();
        assert_eq!((b.line, b.column), (3, 3));
        let c = docs[0].locate(&[Step::Key("b".into()), Step::Index(1), Step::Key("c".into())]);
        assert_eq!((c.line, c.column, &c.value), (4, 9, &NodeValue::Bool(true)));
        assert_eq!(
            docs[0].to_json(),
            serde_json::json!({"a": 1, "b": ["x", {"c": true}]})
        );
        assert_eq!(docs[1].to_json(), serde_json::json!({"d": null}));
    }

    #[test]
    fn json_streams_and_places() {
        let docs = parse_json("{\"a\": {\"b\": [1, 2]}}").unwrap();
        let two = docs[0].locate(&[Step::Key("a".into()), Step::Key("b".into()), Step::Index(1)]);
        assert_eq!((two.line, two.column), (1, 17));
        let docs = parse_json("{\"a\": 1}\n{\"a\": 2}\n").unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!((docs[1].line, docs[1].column), (2, 1));
        let err = parse_json("{\"a\": 1,}").unwrap_err();
        assert_eq!(
            (err.line, err.column, err.problem.as_str()),
            (1, 9, "trailing comma")
        );
    }

    #[test]
    fn line_columns_count_characters() {
        assert_eq!(line_column("ab\ncé d", 7), (2, 4));
        assert_eq!(line_column("", 0), (1, 1));
    }
}
