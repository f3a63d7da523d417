//! One trace record as its JSON line (docs/trace-format.md), written field by
//! field into a byte buffer: the same bytes `serde_json` makes of the
//! record's `Serialize` (the tests compare every record of whole runs and a
//! table of every field), without serde's calls per field and its escaping a
//! byte at a time, which took a fifth of a large `--format jsonl` run.
//! The `final` record, written once, and a stage's `object` (a JSON value)
//! still go through `serde_json`.

use super::json_text;
use crate::trace::{
    Actor, EventRecord, NodesToScore, Record, ResourcePart, Stage, StageExtra, TraceRecord,
    WatchRecord,
};

/// `,"NAME":` as one constant: written as a few moves, not a copy of a
/// length found at run time.
macro_rules! key {
    ($name:literal) => {
        concat!(",\"", $name, "\":").as_bytes()
    };
}

/// `{"NAME":`: an object's first field.
macro_rules! first_key {
    ($name:literal) => {
        concat!("{\"", $name, "\":").as_bytes()
    };
}

/// `,"kind":"KIND"`.
macro_rules! kind {
    ($kind:literal) => {
        concat!(",\"kind\":\"", $kind, "\"").as_bytes()
    };
}

/// Appends `record`'s JSON (no newline) to `out`.
pub fn write(out: &mut Vec<u8>, record: &TraceRecord) {
    let start = out.len();
    out.extend_from_slice(first_key!("seq"));
    json_text::unsigned(out, record.seq);
    out.extend_from_slice(key!("t_ms"));
    json_text::unsigned(out, record.t_ms);
    match &record.body {
        Record::Message {
            from,
            to,
            label,
            request,
        } => {
            out.extend_from_slice(kind!("message"));
            out.extend_from_slice(key!("from"));
            actor(out, from);
            out.extend_from_slice(key!("to"));
            actor(out, to);
            out.extend_from_slice(key!("label"));
            json_text::string(out, label);
            if let Some(request) = request {
                out.extend_from_slice(key!("request"));
                json_text::unsigned(out, request.get());
            }
        }
        Record::Stage(stage) => {
            out.extend_from_slice(kind!("stage"));
            stage_fields(out, stage);
        }
        Record::Response {
            to,
            code,
            message,
            request,
        } => {
            out.extend_from_slice(kind!("response"));
            out.extend_from_slice(key!("to"));
            actor(out, to);
            out.extend_from_slice(key!("code"));
            json_text::unsigned(out, u64::from(*code));
            out.extend_from_slice(key!("message"));
            json_text::string(out, message);
            out.extend_from_slice(key!("request"));
            json_text::unsigned(out, request.get());
        }
        Record::Watch(watch) => {
            out.extend_from_slice(kind!("watch"));
            watch_fields(out, watch);
        }
        Record::Event(event) => {
            out.extend_from_slice(kind!("event"));
            event_fields(out, event);
        }
        Record::Log {
            component,
            node,
            line,
        } => {
            out.extend_from_slice(kind!("log"));
            out.extend_from_slice(key!("component"));
            actor(out, component);
            optional_string(out, key!("node"), node.as_deref());
            out.extend_from_slice(key!("line"));
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

/// An actor's trace name: `kube-apiserver`, `kubelet/node-1`, a client's own
/// (a role is of the fixed vocabulary: [`json_text::name`]).
fn actor(out: &mut Vec<u8>, actor: &Actor) {
    if actor.node().is_none() && !matches!(actor, Actor::Client(_)) {
        json_text::name(out, actor.role());
        return;
    }
    out.push(b'"');
    match actor {
        Actor::Client(name) => json_text::contents(out, name),
        other => {
            out.extend_from_slice(other.role().as_bytes());
            if let Some(node) = other.node() {
                out.push(b'/');
                json_text::contents(out, node);
            }
        }
    }
    out.push(b'"');
}

/// `key` (`,"NAME":`) and the text, when there is a text.
fn optional_string(out: &mut Vec<u8>, key: &[u8], text: Option<&str>) {
    if let Some(text) = text {
        out.extend_from_slice(key);
        json_text::string(out, text);
    }
}

/// `key` (`,"NAME":`) and the number, when there is a number.
fn optional_signed(out: &mut Vec<u8>, key: &[u8], n: Option<i64>) {
    if let Some(n) = n {
        out.extend_from_slice(key);
        json_text::signed(out, n);
    }
}

/// `key` (`,"NAME":`) and the number, when there is a number.
fn optional_unsigned(out: &mut Vec<u8>, key: &[u8], n: Option<u64>) {
    if let Some(n) = n {
        out.extend_from_slice(key);
        json_text::unsigned(out, n);
    }
}

/// A stage's fields after `kind`, its extras last in their declared order.
fn stage_fields(out: &mut Vec<u8>, stage: &Stage) {
    out.extend_from_slice(key!("component"));
    actor(out, &stage.component);
    out.extend_from_slice(key!("stage"));
    json_text::name(out, stage.stage.as_str());
    out.extend_from_slice(key!("outcome"));
    json_text::name(out, stage.outcome.as_str());
    out.extend_from_slice(key!("detail"));
    match &stage.detail {
        crate::trace::Detail::Text(text) => json_text::string(out, text),
        typed => json_text::display(out, typed),
    }
    optional_string(out, key!("phase"), stage.phase.as_deref());
    optional_string(out, key!("plugin"), stage.plugin.as_deref());
    if stage.has_extra() {
        extra_fields(out, stage.extra());
    }
}

/// The fields of [`StageExtra`] that are set, in its field order.
fn extra_fields(out: &mut Vec<u8>, extra: &StageExtra) {
    optional_string(out, key!("pod"), extra.pod.as_deref());
    optional_string(out, key!("node"), extra.node.as_deref());
    optional_string(out, key!("code"), extra.code.as_deref());
    optional_string(out, key!("reason"), extra.reason.as_deref());
    optional_signed(out, key!("raw"), extra.raw);
    optional_signed(out, key!("score"), extra.score);
    optional_signed(out, key!("weight"), extra.weight);
    optional_string(out, key!("key"), extra.key.as_deref());
    optional_unsigned(out, key!("revision"), extra.revision);
    if let Some(object) = &extra.object {
        out.extend_from_slice(key!("object"));
        // A JSON value always writes.
        let _ = serde_json::to_writer(&mut *out, object);
    }
    optional_string(out, key!("item"), extra.item.as_deref());
    optional_unsigned(out, key!("size"), extra.size);
    if let Some(rules) = &extra.rules {
        out.extend_from_slice(key!("rules"));
        list(out, rules, |out, rule| json_text::string(out, rule));
    }
    if let Some(resources) = &extra.resources {
        out.extend_from_slice(key!("resources"));
        list(out, resources, resource_part);
    }
    if let Some(nodes) = &extra.nodes_to_score {
        out.extend_from_slice(key!("nodes_to_score"));
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
    out.extend_from_slice(first_key!("resource"));
    json_text::string(out, &part.resource);
    out.extend_from_slice(key!("requested"));
    json_text::signed(out, part.requested);
    out.extend_from_slice(key!("allocatable"));
    json_text::signed(out, part.allocatable);
    optional_signed(out, key!("score"), part.score);
    out.extend_from_slice(key!("weight"));
    json_text::signed(out, part.weight);
    out.push(b'}');
}

fn nodes_to_score(out: &mut Vec<u8>, nodes: &NodesToScore) {
    out.extend_from_slice(first_key!("feasible"));
    json_text::unsigned(out, u64::try_from(nodes.feasible).unwrap_or(u64::MAX));
    out.extend_from_slice(key!("nodes"));
    json_text::unsigned(out, u64::try_from(nodes.nodes).unwrap_or(u64::MAX));
    out.extend_from_slice(key!("percentage"));
    json_text::signed(out, nodes.percentage);
    out.extend_from_slice(key!("adaptive"));
    out.extend_from_slice(if nodes.adaptive { b"true" } else { b"false" });
    out.push(b'}');
}

fn watch_fields(out: &mut Vec<u8>, watch: &WatchRecord) {
    out.extend_from_slice(key!("watcher"));
    actor(out, &watch.watcher);
    out.extend_from_slice(key!("type"));
    json_text::string(out, &watch.event_type);
    out.extend_from_slice(key!("resource"));
    json_text::string(out, &watch.resource);
    optional_string(out, key!("namespace"), watch.namespace.as_deref());
    out.extend_from_slice(key!("name"));
    json_text::string(out, &watch.name);
    out.extend_from_slice(key!("resourceVersion"));
    json_text::string(out, &watch.resource_version);
    if !watch.fields.is_empty() {
        out.extend_from_slice(key!("fields"));
        list(out, &watch.fields, |out, field| {
            json_text::string(out, field);
        });
    }
}

fn event_fields(out: &mut Vec<u8>, event: &EventRecord) {
    out.extend_from_slice(key!("type"));
    json_text::string(out, &event.event_type);
    out.extend_from_slice(key!("reason"));
    json_text::string(out, &event.reason);
    out.extend_from_slice(key!("message"));
    json_text::string(out, &event.message);
    out.extend_from_slice(key!("object"));
    out.extend_from_slice(first_key!("kind"));
    json_text::string(out, &event.object.kind);
    optional_string(out, key!("namespace"), event.object.namespace.as_deref());
    out.extend_from_slice(key!("name"));
    json_text::string(out, &event.object.name);
    optional_string(out, key!("fieldPath"), event.object.field_path.as_deref());
    out.push(b'}');
    out.extend_from_slice(key!("source"));
    json_text::string(out, &event.source);
}

#[cfg(test)]
mod tests;
