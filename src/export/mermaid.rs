//! `--format mermaid`: a `sequenceDiagram` of the trace's messages, with the
//! API server's and the components' stages as notes, that Mermaid renders as it is.

use std::collections::BTreeSet;
use std::io::{self, Write};

use crate::engine::trace::{Record, TraceRecord};

/// Participants in the seeds' order; nodes' components follow in the order they appear.
const FIXED: [(&str, &str); 6] = [
    ("kubectl", "kubectl"),
    ("apiserver", "kube-apiserver"),
    ("etcd", "etcd"),
    ("cm", "kube-controller-manager"),
    ("scheduler", "kube-scheduler"),
    ("registry", "registry"),
];

/// A Mermaid-safe participant id for a component name.
fn id(component: &str) -> String {
    if let Some((alias, _)) = FIXED.iter().find(|(_, name)| *name == component) {
        return (*alias).to_owned();
    }
    component.replace(['/', '-', '.'], "_")
}

/// Text safe inside a Mermaid message or note (no `;`, `#` or line breaks).
fn safe(text: &str) -> String {
    text.replace(';', ",")
        .replace('#', "")
        .replace(['\n', '\r'], " ")
}

/// Writes the diagram.
pub fn write(out: &mut impl Write, records: &[TraceRecord]) -> io::Result<()> {
    let mut seen: Vec<String> = Vec::new();
    let add = |name: &str, seen: &mut Vec<String>| {
        if !seen.iter().any(|s| s == name) {
            seen.push(name.to_owned());
        }
    };
    for record in records {
        match &record.body {
            Record::Message { from, to, .. } => {
                add(from, &mut seen);
                add(to, &mut seen);
            }
            Record::Response { to, .. } => add(to, &mut seen),
            _ => {}
        }
    }
    let used: BTreeSet<&str> = seen.iter().map(String::as_str).collect();
    writeln!(out, "sequenceDiagram")?;
    let mut declared: Vec<String> = FIXED
        .iter()
        .filter(|(_, name)| used.contains(name) || *name == "kube-apiserver")
        .map(|(_, name)| (*name).to_owned())
        .collect();
    declared.extend(
        seen.iter()
            .filter(|s| !FIXED.iter().any(|(_, n)| n == s))
            .cloned(),
    );
    for name in &declared {
        writeln!(out, "    participant {} as {name}", id(name))?;
    }
    for record in records {
        match &record.body {
            Record::Message { from, to, label } => {
                writeln!(out, "    {}->>{}: {}", id(from), id(to), safe(label))?;
            }
            Record::Response { to, code, message } => {
                writeln!(out, "    apiserver-->>{}: {code} {}", id(to), safe(message))?;
            }
            Record::Stage(stage) if declared.contains(&stage.component) => {
                let what = match (&stage.plugin, &stage.node) {
                    (Some(p), Some(n)) => format!("{} {p} on {n}: {}", stage.stage, stage.outcome),
                    (Some(p), None) => format!("{} {p}: {}", stage.stage, stage.outcome),
                    _ => format!("{}: {}", stage.stage, stage.outcome),
                };
                writeln!(
                    out,
                    "    Note over {}: {}",
                    id(&stage.component),
                    safe(&what)
                )?;
            }
            _ => {}
        }
    }
    Ok(())
}
