//! A recorded observation (`podflow attach --record FILE`, JSON Lines):
//! written with each `watch` record's object as observed ([`line`]), and
//! read back into an observed timeline for `podflow play --observed FILE`
//! ([`timeline`]), its store at every step rebuilt from those objects.

use std::io::BufRead;
use std::sync::Arc;

use podflow_engine::clock::SimTime;
use podflow_engine::store::{Store, key_for};
use podflow_engine::timeline::Timeline;
use podflow_engine::trace::{Actor, EventObject, EventRecord, Record, TraceRecord, WatchRecord};
use podflow_model::Object;
use serde_json::Value;

use crate::watched::Watched;

/// The etcd key of a watch record's object.
fn key_of(watch: &WatchRecord) -> Option<String> {
    let watched = Watched::parse(&watch.resource)?;
    Some(key_for(
        watched.kind(),
        watch.namespace.as_deref(),
        &watch.name,
    ))
}

/// One line of a recording: the record, and for a `watch` record (but a
/// `DELETED` one) the object as `store` holds it after the change, as
/// `object` (left out for an object kept only as a summary).
pub fn line(record: &TraceRecord, store: &Store) -> String {
    let Record::Watch(watch) = &record.body else {
        return record.to_json_line();
    };
    let object = (watch.event_type != "DELETED")
        .then(|| key_of(watch))
        .flatten()
        .and_then(|key| store.get(&key).map(|e| e.object.to_json()));
    match (serde_json::to_value(record), object) {
        (Ok(Value::Object(mut map)), Some(object)) => {
            map.insert("object".into(), object);
            Value::Object(map).to_string()
        }
        _ => record.to_json_line(),
    }
}

/// An observed timeline of a recording's records: one step each, the
/// store after it rebuilt from the `watch` records' objects.
pub fn timeline(recorded: Vec<(TraceRecord, Option<Object>)>) -> Timeline {
    let mut timeline = Timeline::observed();
    let mut store = Store::default();
    for (record, object) in recorded {
        if let Record::Watch(watch) = &record.body
            && let Some(key) = key_of(watch)
        {
            match object {
                Some(object) if watch.event_type != "DELETED" => {
                    store.put_observed(&key, Arc::new(object));
                }
                _ => store.remove_observed(&key),
            }
        }
        let now = SimTime(record.t_ms);
        timeline.push_observed(vec![record], &store, now);
    }
    timeline
}

/// The records of a recording, in order, each `watch` record's object
/// with it; an error names the line.
pub fn read(input: impl BufRead, name: &str) -> Result<Vec<(TraceRecord, Option<Object>)>, String> {
    let mut records = Vec::new();
    for (n, line) in input.lines().enumerate() {
        let line = line.map_err(|e| format!("{name}: {e}"))?;
        if line.trim().is_empty() {
            continue;
        }
        let value: Value =
            serde_json::from_str(&line).map_err(|e| format!("{name}:{}: {e}", n + 1))?;
        let record = record(&value).ok_or_else(|| {
            format!(
                "{name}:{}: not a record of podflow attach's observation",
                n + 1
            )
        })?;
        let object = matches!(record.body, Record::Watch(_))
            .then(|| value.get("object").and_then(typed))
            .flatten();
        records.push((record, object));
    }
    Ok(records)
}

fn s(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// A trace name as its actor; any other name (`podflow-attach`, `helm`)
/// is a client's.
fn actor(value: &Value, key: &str) -> Option<Actor> {
    let name = value.get(key)?.as_str()?;
    Some(Actor::parse(name).unwrap_or_else(|| Actor::Client(Arc::from(name))))
}

/// One line's record.
fn record(v: &Value) -> Option<TraceRecord> {
    let seq = v.get("seq")?.as_u64()?;
    let t_ms = v.get("t_ms")?.as_u64()?;
    let body = match v.get("kind")?.as_str()? {
        "message" => Record::message(actor(v, "from")?, actor(v, "to")?, s(v, "label")?),
        "watch" => Record::Watch(Box::new(WatchRecord {
            watcher: actor(v, "watcher")?,
            event_type: s(v, "type")?,
            resource: s(v, "resource")?,
            namespace: s(v, "namespace"),
            name: s(v, "name")?,
            resource_version: s(v, "resourceVersion")?,
            fields: v
                .get("fields")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|f| f.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
        })),
        "event" => {
            let o = v.get("object")?;
            Record::Event(Box::new(EventRecord {
                event_type: s(v, "type")?,
                reason: s(v, "reason")?,
                message: s(v, "message")?,
                object: EventObject {
                    kind: s(o, "kind")?,
                    namespace: s(o, "namespace"),
                    name: s(o, "name")?,
                    field_path: s(o, "fieldPath"),
                },
                source: s(v, "source")?,
            }))
        }
        "log" => Record::Log {
            component: actor(v, "component")?,
            node: s(v, "node"),
            line: s(v, "line")?,
        },
        "final" => Record::Final {
            objects: v
                .get("objects")?
                .as_array()?
                .iter()
                .filter_map(typed)
                .map(Arc::new)
                .collect(),
        },
        _ => return None,
    };
    Some(TraceRecord { seq, t_ms, body })
}

/// A Kubernetes object of a kind podflow knows, typed.
fn typed(value: &Value) -> Option<Object> {
    let kind = podflow_model::Kind::from_type_meta(
        value.get("apiVersion")?.as_str()?,
        value.get("kind")?.as_str()?,
    )?;
    Object::from_json(kind, value.clone()).ok()
}
