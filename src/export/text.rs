//! `--format text`: one line a record, `[mm:ss.mmm] …`, for reading.

use std::fmt::Write as _;
use std::io::{self, Write};

use crate::engine::clock::SimTime;
use crate::engine::trace::{Record, Stage, TraceRecord};

/// The line for one record.
pub fn line(record: &TraceRecord) -> String {
    let time = SimTime(record.t_ms);
    let body = match &record.body {
        Record::Message { from, to, label } => format!("{from} → {to}: {label}"),
        Record::Stage(stage) => stage_text(stage),
        Record::Response { to, code, message } => {
            format!("kube-apiserver → {to}: {code} {message}")
        }
        Record::Watch(w) => {
            let ns = w
                .namespace
                .as_deref()
                .map(|n| format!("{n}/"))
                .unwrap_or_default();
            format!(
                "{} ← {} {}/{ns}{} rv={}",
                w.watcher, w.event_type, w.resource, w.name, w.resource_version
            )
        }
        Record::Event(e) => {
            let field = e
                .object
                .field_path
                .as_deref()
                .map(|f| format!(" {f}"))
                .unwrap_or_default();
            format!(
                "event {} {} {}/{}{field} from {}: {}",
                e.event_type,
                e.reason,
                e.object.kind.to_ascii_lowercase(),
                e.object.name,
                e.source,
                e.message
            )
        }
        Record::Log {
            component, line, ..
        } => format!("{component} | {line}"),
        Record::Final { objects } => format!("final: {} objects in the store", objects.len()),
    };
    format!("[{time}] {body}")
}

fn stage_text(stage: &Stage) -> String {
    let mut head = format!("{} {}", stage.component, stage.stage);
    if let Some(phase) = &stage.phase {
        let _ = write!(head, " ({phase})");
    }
    for extra in [&stage.plugin, &stage.node].into_iter().flatten() {
        head.push(' ');
        head.push_str(extra);
    }
    if let Some(pod) = &stage.pod
        && stage.component.starts_with("kube-scheduler")
    {
        let _ = write!(head, " [{pod}]");
    }
    let detail = if stage.detail.is_empty() {
        String::new()
    } else {
        format!(": {}", stage.detail)
    };
    format!("{head} → {}{detail}", stage.outcome)
}

/// Writes each record as one line of text.
pub fn write(out: &mut impl Write, records: &[TraceRecord]) -> io::Result<()> {
    for record in records {
        writeln!(out, "{}", line(record))?;
    }
    Ok(())
}
