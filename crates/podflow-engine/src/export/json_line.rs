//! One trace record as its JSON line (docs/trace-format.md), written field by
//! field into a byte buffer: the same bytes `serde_json` makes of the
//! record's `Serialize` (the tests compare every record of whole runs and a
//! table of every field), without serde's calls per field and its escaping a
//! byte at a time, which took a quarter of a large `--format jsonl` run.
//! The `final` record, written once, and a stage's `object` (a JSON value)
//! still go through `serde_json`.

use super::json_text::{self, key, next_key};
use crate::trace::{
    Actor, EventRecord, NodesToScore, Record, ResourcePart, Stage, StageExtra, TraceRecord,
    WatchRecord,
};

/// Appends `record`'s JSON (no newline) to `out`.
pub fn write(out: &mut Vec<u8>, record: &TraceRecord) {
    let start = out.len();
    out.push(b'{');
    key(out, "seq");
    json_text::unsigned(out, record.seq);
    next_key(out, "t_ms");
    json_text::unsigned(out, record.t_ms);
    next_key(out, "kind");
    match &record.body {
        Record::Message {
            from,
            to,
            label,
            request,
        } => {
            out.extend_from_slice(b"\"message\"");
            next_key(out, "from");
            actor(out, from);
            next_key(out, "to");
            actor(out, to);
            next_key(out, "label");
            json_text::string(out, label);
            if let Some(request) = request {
                next_key(out, "request");
                json_text::unsigned(out, request.get());
            }
        }
        Record::Stage(stage) => {
            out.extend_from_slice(b"\"stage\"");
            stage_fields(out, stage);
        }
        Record::Response {
            to,
            code,
            message,
            request,
        } => {
            out.extend_from_slice(b"\"response\"");
            next_key(out, "to");
            actor(out, to);
            next_key(out, "code");
            json_text::unsigned(out, u64::from(*code));
            next_key(out, "message");
            json_text::string(out, message);
            next_key(out, "request");
            json_text::unsigned(out, request.get());
        }
        Record::Watch(watch) => {
            out.extend_from_slice(b"\"watch\"");
            watch_fields(out, watch);
        }
        Record::Event(event) => {
            out.extend_from_slice(b"\"event\"");
            event_fields(out, event);
        }
        Record::Log {
            component,
            node,
            line,
        } => {
            out.extend_from_slice(b"\"log\"");
            next_key(out, "component");
            actor(out, component);
            optional_string(out, "node", node.as_deref());
            next_key(out, "line");
            json_text::string(out, line);
        }
        Record::Final { .. } => {
            out.truncate(start);
            // Writing into memory fails only for a value that cannot be
            // JSON, and the store's objects all can.
            let _ = serde_json::to_writer(&mut *out, record);
            return;
        }
    }
    out.push(b'}');
}

/// An actor's trace name: `kube-apiserver`, `kubelet/node-1`, a client's own.
fn actor(out: &mut Vec<u8>, actor: &Actor) {
    out.push(b'"');
    match actor {
        Actor::Client(name) => json_text::contents(out, name),
        other => {
            json_text::contents(out, other.role());
            if let Some(node) = other.node() {
                out.push(b'/');
                json_text::contents(out, node);
            }
        }
    }
    out.push(b'"');
}

/// `,"name":"text"` when there is a text.
fn optional_string(out: &mut Vec<u8>, name: &str, text: Option<&str>) {
    if let Some(text) = text {
        next_key(out, name);
        json_text::string(out, text);
    }
}

/// `,"name":n` when there is a number.
fn optional_signed(out: &mut Vec<u8>, name: &str, n: Option<i64>) {
    if let Some(n) = n {
        next_key(out, name);
        json_text::signed(out, n);
    }
}

/// `,"name":n` when there is a number.
fn optional_unsigned(out: &mut Vec<u8>, name: &str, n: Option<u64>) {
    if let Some(n) = n {
        next_key(out, name);
        json_text::unsigned(out, n);
    }
}

/// A stage's fields after `kind`, its extras last in their declared order.
fn stage_fields(out: &mut Vec<u8>, stage: &Stage) {
    next_key(out, "component");
    actor(out, &stage.component);
    next_key(out, "stage");
    json_text::string(out, stage.stage.as_str());
    next_key(out, "outcome");
    json_text::string(out, stage.outcome.as_str());
    next_key(out, "detail");
    match &stage.detail {
        crate::trace::Detail::Text(text) => json_text::string(out, text),
        typed => json_text::display(out, typed),
    }
    optional_string(out, "phase", stage.phase.as_deref());
    optional_string(out, "plugin", stage.plugin.as_deref());
    if stage.has_extra() {
        extra_fields(out, stage.extra());
    }
}

/// The fields of [`StageExtra`] that are set, in its field order.
fn extra_fields(out: &mut Vec<u8>, extra: &StageExtra) {
    optional_string(out, "pod", extra.pod.as_deref());
    optional_string(out, "node", extra.node.as_deref());
    optional_string(out, "code", extra.code.as_deref());
    optional_string(out, "reason", extra.reason.as_deref());
    optional_signed(out, "raw", extra.raw);
    optional_signed(out, "score", extra.score);
    optional_signed(out, "weight", extra.weight);
    optional_string(out, "key", extra.key.as_deref());
    optional_unsigned(out, "revision", extra.revision);
    if let Some(object) = &extra.object {
        next_key(out, "object");
        // A JSON value always writes.
        let _ = serde_json::to_writer(&mut *out, object);
    }
    optional_string(out, "item", extra.item.as_deref());
    optional_unsigned(out, "size", extra.size);
    if let Some(rules) = &extra.rules {
        next_key(out, "rules");
        list(out, rules, |out, rule| json_text::string(out, rule));
    }
    if let Some(resources) = &extra.resources {
        next_key(out, "resources");
        list(out, resources, resource_part);
    }
    if let Some(nodes) = &extra.nodes_to_score {
        next_key(out, "nodes_to_score");
        nodes_to_score(out, nodes);
    }
}

/// `[a,b,...]`.
fn list<T>(out: &mut Vec<u8>, items: &[T], mut item: impl FnMut(&mut Vec<u8>, &T)) {
    out.push(b'[');
    for (n, each) in items.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        item(out, each);
    }
    out.push(b']');
}

fn resource_part(out: &mut Vec<u8>, part: &ResourcePart) {
    out.push(b'{');
    key(out, "resource");
    json_text::string(out, &part.resource);
    next_key(out, "requested");
    json_text::signed(out, part.requested);
    next_key(out, "allocatable");
    json_text::signed(out, part.allocatable);
    optional_signed(out, "score", part.score);
    next_key(out, "weight");
    json_text::signed(out, part.weight);
    out.push(b'}');
}

fn nodes_to_score(out: &mut Vec<u8>, nodes: &NodesToScore) {
    out.push(b'{');
    key(out, "feasible");
    json_text::unsigned(out, u64::try_from(nodes.feasible).unwrap_or(u64::MAX));
    next_key(out, "nodes");
    json_text::unsigned(out, u64::try_from(nodes.nodes).unwrap_or(u64::MAX));
    next_key(out, "percentage");
    json_text::signed(out, nodes.percentage);
    next_key(out, "adaptive");
    out.extend_from_slice(if nodes.adaptive { b"true" } else { b"false" });
    out.push(b'}');
}

fn watch_fields(out: &mut Vec<u8>, watch: &WatchRecord) {
    next_key(out, "watcher");
    actor(out, &watch.watcher);
    next_key(out, "type");
    json_text::string(out, &watch.event_type);
    next_key(out, "resource");
    json_text::string(out, &watch.resource);
    optional_string(out, "namespace", watch.namespace.as_deref());
    next_key(out, "name");
    json_text::string(out, &watch.name);
    next_key(out, "resourceVersion");
    json_text::string(out, &watch.resource_version);
    if !watch.fields.is_empty() {
        next_key(out, "fields");
        list(out, &watch.fields, |out, field| json_text::string(out, field));
    }
}

fn event_fields(out: &mut Vec<u8>, event: &EventRecord) {
    next_key(out, "type");
    json_text::string(out, &event.event_type);
    next_key(out, "reason");
    json_text::string(out, &event.reason);
    next_key(out, "message");
    json_text::string(out, &event.message);
    next_key(out, "object");
    out.push(b'{');
    key(out, "kind");
    json_text::string(out, &event.object.kind);
    optional_string(out, "namespace", event.object.namespace.as_deref());
    next_key(out, "name");
    json_text::string(out, &event.object.name);
    optional_string(out, "fieldPath", event.object.field_path.as_deref());
    out.push(b'}');
    next_key(out, "source");
    json_text::string(out, &event.source);
}

#[cfg(test)]
mod tests;
