//! `--format mermaid`: a `sequenceDiagram` of the trace's messages, with the
//! API server's and the components' stages as notes, that Mermaid renders as
//! it is. Participants are declared in the seeds' order (kubectl, the API
//! server, etcd, the controller manager, the scheduler, then each node's
//! kubelet, runtime, CNI and CSI, and the registry last); text is escaped
//! with Mermaid's entity codes (`#59;` for `;`), which Mermaid's
//! `encodeEntities` turns back into the characters, so every message reads
//! exactly as the trace has it.

use std::io::{self, Write};

use crate::trace::{Actor, Record, TraceRecord};

/// The control plane's participants, in the seeds' order, with their ids.
const CONTROL_PLANE: [(&str, &str); 5] = [
    ("kubectl", "kubectl"),
    ("apiserver", "kube-apiserver"),
    ("etcd", "etcd"),
    ("cm", "kube-controller-manager"),
    ("scheduler", "kube-scheduler"),
];

/// The components of one node, in the seeds' order.
const NODE_PARTS: [&str; 5] = ["kubelet", "containerd", "cni", "csi", "kube-proxy"];

/// A Mermaid-safe participant id for a component name.
fn id(component: &str) -> String {
    if let Some((alias, _)) = CONTROL_PLANE.iter().find(|(_, name)| *name == component) {
        return (*alias).to_owned();
    }
    component
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Text as Mermaid shows it unmodified: `;` (which ends a statement), `#`
/// (which starts an entity code), `<` and `>` (read as HTML), `&` and `%`
/// are written as entity codes; a line break becomes a space.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            ';' | '#' | '<' | '>' | '&' | '%' => {
                out.push('#');
                out.push_str(&u32::from(c).to_string());
                out.push(';');
            }
            '\n' | '\r' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}

/// Where a component goes among the participants: the control plane in
/// the seeds' order, then the nodes (each node's parts together, nodes in
/// the order they first appear), then anything else, then the registry.
fn rank(component: &str, nodes: &[&str]) -> (usize, usize, usize) {
    if let Some(i) = CONTROL_PLANE.iter().position(|(_, n)| *n == component) {
        return (0, i, 0);
    }
    if component == "registry" {
        return (3, 0, 0);
    }
    if let Some((part, node)) = component.split_once('/')
        && let Some(p) = NODE_PARTS.iter().position(|n| *n == part)
    {
        let n = nodes.iter().position(|x| *x == node).unwrap_or(usize::MAX);
        return (1, n, p);
    }
    (2, 0, 0)
}

/// The participants the diagram declares: every end of an arrow (and the
/// API server, which answers), in [`rank`] order.
fn participants(records: &[TraceRecord]) -> Vec<String> {
    let mut seen: Vec<String> = vec![Actor::ApiServer.to_string()];
    for record in records {
        let ends: &[&Actor] = match &record.body {
            Record::Message { from, to, .. } => &[from, to],
            Record::Response { to, .. } => &[to],
            _ => &[],
        };
        for end in ends {
            let name = end.to_string();
            if !seen.contains(&name) {
                seen.push(name);
            }
        }
    }
    let nodes: Vec<&str> = {
        let mut nodes = Vec::new();
        for name in &seen {
            if let Some((part, node)) = name.split_once('/')
                && NODE_PARTS.contains(&part)
                && !nodes.contains(&node)
            {
                nodes.push(node);
            }
        }
        nodes
    };
    let mut declared: Vec<(usize, &str)> = seen.iter().map(String::as_str).enumerate().collect();
    declared.sort_by_key(|(first, name)| (rank(name, &nodes), *first));
    declared.into_iter().map(|(_, n)| n.to_owned()).collect()
}

/// The diagram's first line and its participants.
fn declare(out: &mut impl Write, declared: &[String]) -> io::Result<()> {
    writeln!(out, "sequenceDiagram")?;
    for name in declared {
        let id = id(name);
        if id == *name {
            writeln!(out, "    participant {id}")?;
        } else {
            writeln!(out, "    participant {id} as {}", escape(name))?;
        }
    }
    Ok(())
}

/// Writes the diagram.
pub fn write(out: &mut impl Write, records: &[TraceRecord]) -> io::Result<()> {
    let declared = participants(records);
    declare(out, &declared)?;
    for record in records {
        match &record.body {
            Record::Message {
                from, to, label, ..
            } => {
                writeln!(
                    out,
                    "    {}->>{}: {}",
                    id(&from.to_string()),
                    id(&to.to_string()),
                    escape(label)
                )?;
            }
            Record::Response {
                to, code, message, ..
            } => {
                let text = escape(&format!("{code} {message}"));
                writeln!(out, "    apiserver-->>{}: {text}", id(&to.to_string()))?;
            }
            Record::Stage(stage) if declared.contains(&stage.component.to_string()) => {
                let what = match (&stage.plugin, &stage.extra().node) {
                    (Some(p), Some(n)) => format!("{} {p} on {n}: {}", stage.stage, stage.outcome),
                    (Some(p), None) => format!("{} {p}: {}", stage.stage, stage.outcome),
                    _ => format!("{}: {}", stage.stage, stage.outcome),
                };
                writeln!(
                    out,
                    "    Note over {}: {}",
                    id(&stage.component.to_string()),
                    escape(&what)
                )?;
            }
            _ => {}
        }
    }
    Ok(())
}

pub mod summary;
#[cfg(test)]
mod tests;
