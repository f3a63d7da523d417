//! A recorded observation (`podflow attach --record FILE`, JSON Lines)
//! read back, for `podflow play --observed FILE`: each line's record, the
//! `final` record's objects as podflow's typed objects.

use std::io::BufRead;
use std::sync::Arc;

use podflow_engine::trace::{Actor, EventObject, EventRecord, Record, TraceRecord, WatchRecord};
use podflow_model::Object;
use serde_json::Value;

/// The records of a recording, in order; an error names the line.
pub fn read(input: impl BufRead, name: &str) -> Result<Vec<TraceRecord>, String> {
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
        records.push(record);
    }
    Ok(records)
}

fn s(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn actor(value: &Value, key: &str) -> Option<Actor> {
    Actor::parse(value.get(key)?.as_str()?)
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
