//! `--format text`: one line a record, `[mm:ss.mmm] …`, for reading and
//! for pasting into slides or a chat: the acting component in a column of
//! its own, padded to the widest one of the trace (at most
//! [`MAX_WHO_WIDTH`]), what it did after it, no trailing spaces.

use std::fmt::Write as _;
use std::io::{self, Write};

use unicode_width::UnicodeWidthStr;

use crate::clock::SimTime;
use crate::trace::{Actor, EventRecord, Record, Stage, TraceRecord};

/// The line for one record: its columns joined, as the TUI searches and
/// captions it; an event names its source after the object.
pub fn line(record: &TraceRecord) -> String {
    let (time, who, what) = columns(record);
    let body = match &record.body {
        Record::Event(e) => format!("{} from {}: {}", event_head(e), e.source, e.message),
        _ if who.is_empty() => what,
        _ => format!("{who} {what}"),
    };
    format!("[{time}] {body}")
}

/// `event TYPE REASON kind/NAME [fieldPath]`.
fn event_head(e: &EventRecord) -> String {
    let mut head = format!(
        "event {} {} {}/{}",
        e.event_type,
        e.reason,
        e.object.kind.to_ascii_lowercase(),
        e.object.name
    );
    if let Some(field) = &e.object.field_path {
        let _ = write!(head, " {field}");
    }
    head
}

fn stage_text(stage: &Stage) -> String {
    let mut head = format!("{} {}", stage.component, stage.stage);
    if let Some(phase) = &stage.phase {
        let _ = write!(head, " ({phase})");
    }
    let named = [stage.plugin.as_deref(), stage.extra().node.as_deref()];
    for name in named.into_iter().flatten() {
        head.push(' ');
        head.push_str(name);
    }
    if let Some(pod) = &stage.extra().pod
        && stage.component == Actor::Scheduler
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

/// The widest the component column grows; longer names push their line on.
pub const MAX_WHO_WIDTH: usize = 24;

/// A record's columns: the time, who acts, and what it did.
pub fn columns(record: &TraceRecord) -> (SimTime, String, String) {
    let time = SimTime(record.t_ms);
    let (who, what) = match &record.body {
        Record::Message {
            from, to, label, ..
        } => (from.to_string(), format!("→ {to}: {label}")),
        Record::Stage(stage) => {
            let full = stage_text(stage);
            let component = stage.component.to_string();
            let what = full
                .strip_prefix(component.as_str())
                .map_or_else(|| full.clone(), |rest| rest.trim_start().to_owned());
            (component, what)
        }
        Record::Response {
            to, code, message, ..
        } => (
            Actor::ApiServer.to_string(),
            format!("→ {to}: {code} {message}"),
        ),
        Record::Watch(w) => (
            w.watcher.to_string(),
            format!("← {} rv={}", w.summary(), w.resource_version),
        ),
        Record::Event(e) => (
            e.source.clone(),
            format!("{}: {}", event_head(e), e.message),
        ),
        Record::Log {
            component, line, ..
        } => (component.to_string(), format!("| {line}")),
        Record::Final { objects } => (
            String::new(),
            format!("final: {} objects in the store", objects.len()),
        ),
    };
    (time, who, what)
}

/// The text on one line: line breaks become spaces, the end is trimmed.
fn one_line(text: &str) -> String {
    text.replace("\r\n", " ")
        .replace(['\n', '\r'], " ")
        .trim_end()
        .to_owned()
}

/// Writes each record as one line of text, in aligned columns.
pub fn write(out: &mut impl Write, records: &[TraceRecord]) -> io::Result<()> {
    let rows: Vec<_> = records.iter().map(columns).collect();
    let width = rows
        .iter()
        .map(|(_, who, _)| who.width())
        .filter(|w| *w <= MAX_WHO_WIDTH)
        .max()
        .unwrap_or(0);
    for (time, who, what) in rows {
        let pad = " ".repeat(width.saturating_sub(who.width()));
        writeln!(out, "{}", one_line(&format!("[{time}] {who}{pad} {what}")))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::nginx_timeline;

    fn text(records: &[TraceRecord]) -> String {
        let mut out = Vec::new();
        write(&mut out, records).expect("writing to memory");
        String::from_utf8(out).expect("the text trace is UTF-8")
    }

    #[test]
    fn the_nginx_story_reads_in_aligned_columns() {
        let t = nginx_timeline();
        let text = text(t.records());
        // Every line: `[mm:ss.mmm] `, the component padded, one space, what it did.
        let who_width = t
            .records()
            .iter()
            .map(|r| columns(r).1.width())
            .max()
            .unwrap_or(0);
        assert_eq!(who_width, "kube-controller-manager".len());
        for (line, record) in text.lines().zip(t.records()) {
            assert_eq!(line, line.trim_end(), "no trailing space: {line:?}");
            let (_, who, what) = columns(record);
            if who.is_empty() {
                continue;
            }
            let at = "[00:00.000] ".len() + who_width + 1;
            assert_eq!(
                line.chars().skip(at).collect::<String>(),
                what.trim_end(),
                "{line}"
            );
        }
        insta::assert_snapshot!("nginx_text_trace", text);
    }

    #[test]
    fn columns_split_who_from_what() {
        let record = |body| TraceRecord {
            seq: 0,
            t_ms: 1250,
            body,
        };
        let table = [
            (
                Record::message(
                    Actor::Kubectl,
                    Actor::ApiServer,
                    "GET /api/v1/namespaces/default/pods/nginx",
                ),
                "[00:01.250] kubectl → kube-apiserver: GET /api/v1/namespaces/default/pods/nginx\n",
            ),
            (
                Record::Log {
                    component: Actor::Kubelet("node-1".into()),
                    node: Some("node-1".into()),
                    line: "I0101 00:00:01.250000 1 kubelet.go:1] \"SyncLoop ADD\"\n".into(),
                },
                "[00:01.250] kubelet/node-1 | I0101 00:00:01.250000 1 kubelet.go:1] \"SyncLoop ADD\"\n",
            ),
            (
                Record::Final {
                    objects: Vec::new(),
                },
                "[00:01.250]  final: 0 objects in the store\n",
            ),
        ];
        for (body, want) in table {
            assert_eq!(text(&[record(body)]), want);
        }
    }
}
