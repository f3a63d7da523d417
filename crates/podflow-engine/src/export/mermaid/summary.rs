//! `--format mermaid --detail summary`: the diagram at the seeds' size
//! (seed 003's `sequenceDiagram`): a request and its answer per arrow, the
//! watch deliveries as dashed arrows, the API server's checks of one
//! request as one note (`authentication → authorization → admission →
//! validation`, or the step that refused it with its reason), the
//! scheduler's decisions, and the failures and warnings of the nodes. A
//! 3-replica Deployment stays under Mermaid's default `maxTextSize` of
//! 50,000 characters.

use std::io::{self, Write};

use super::{escape, id, participants};
use crate::trace::{Actor, Outcome, Record, Stage, StageName, TraceRecord};

/// Writes the summary diagram.
pub fn write(out: &mut impl Write, records: &[TraceRecord]) -> io::Result<()> {
    let declared = participants(records);
    super::declare(out, &declared)?;
    // The API server's checks of the request it is serving, noted once.
    let mut checks: Vec<&Stage> = Vec::new();
    // The kubelet that acted last: the source of a kubelet's Event.
    let mut kubelet = String::new();
    for record in records {
        match &record.body {
            Record::Stage(stage) if matches!(stage.component, Actor::Kubelet(_)) => {
                kubelet = stage.component.to_string();
            }
            Record::Message {
                from: from @ Actor::Kubelet(_),
                ..
            } => kubelet = from.to_string(),
            _ => {}
        }
        if let Record::Stage(stage) = &record.body
            && stage.component == Actor::ApiServer
        {
            checks.push(stage);
            continue;
        }
        note_checks(out, &mut checks)?;
        match &record.body {
            Record::Message {
                from, to, label, ..
            } => writeln!(
                out,
                "    {}->>{}: {}",
                id(&from.to_string()),
                id(&to.to_string()),
                escape(label)
            )?,
            Record::Response {
                to, code, message, ..
            } => writeln!(
                out,
                "    apiserver-->>{}: {}",
                id(&to.to_string()),
                escape(&format!("{code} {message}"))
            )?,
            Record::Watch(watch) if declared.contains(&watch.watcher.to_string()) => writeln!(
                out,
                "    apiserver-->>{}: {}",
                id(&watch.watcher.to_string()),
                escape(&format!("watch {}", watch.summary()))
            )?,
            Record::Stage(stage)
                if declared.contains(&stage.component.to_string()) && worth_a_note(stage) =>
            {
                writeln!(
                    out,
                    "    Note over {}: {}",
                    id(&stage.component.to_string()),
                    escape(&stage_note(stage))
                )?;
            }
            Record::Event(event) if event.event_type == "Warning" => {
                let over = match event.source.as_str() {
                    "default-scheduler" => Actor::Scheduler.to_string(),
                    "kubelet" => kubelet.clone(),
                    other => other.to_owned(),
                };
                if declared.contains(&over) {
                    writeln!(
                        out,
                        "    Note over {}: {}",
                        id(&over),
                        escape(&format!(
                            "{} {}: {}",
                            event.event_type, event.reason, event.message
                        ))
                    )?;
                }
            }
            _ => {}
        }
    }
    note_checks(out, &mut checks)
}

/// The note of the checks gathered, if any, which it then forgets.
fn note_checks(out: &mut impl Write, checks: &mut Vec<&Stage>) -> io::Result<()> {
    if !checks.is_empty() {
        writeln!(
            out,
            "    Note over apiserver: {}",
            escape(&checks_note(checks))
        )?;
        checks.clear();
    }
    Ok(())
}

/// One note for the API server's checks of a request: the steps it passed
/// (`authentication → authorization → admission → validation`, the plugins
/// that changed the object named), or the step that refused it.
fn checks_note(checks: &[&Stage]) -> String {
    if let Some(refused) = checks.iter().find(|s| s.outcome == Outcome::Deny) {
        return stage_note(refused);
    }
    let mut steps: Vec<String> = Vec::new();
    for stage in checks {
        // `mutating admission`, `validating admission`: the two passes.
        let name = match &stage.phase {
            Some(phase) => format!("{phase} {}", stage.stage),
            None => stage.stage.to_string(),
        };
        if steps.last() != Some(&name) {
            steps.push(name);
        }
    }
    let mutated: Vec<&str> = checks
        .iter()
        .filter(|s| s.outcome == Outcome::Mutate)
        .filter_map(|s| s.plugin.as_deref())
        .collect();
    let mut note = steps.join(" → ");
    if !mutated.is_empty() {
        note.push_str(" (mutated by ");
        note.push_str(&mutated.join(", "));
        note.push(')');
    }
    note
}

/// Whether a component's stage says something the arrows do not: the
/// scheduler's decision, a node's failure, a container started.
fn worth_a_note(stage: &Stage) -> bool {
    match stage.component {
        Actor::Scheduler => {
            matches!(stage.stage, StageName::Select | StageName::PostFilter)
                || stage.outcome == Outcome::Unschedulable
        }
        Actor::Kubelet(_) | Actor::Containerd(_) | Actor::Cni(_) | Actor::Csi(_) => matches!(
            stage.outcome,
            Outcome::Failed
                | Outcome::HookFailed
                | Outcome::Failure
                | Outcome::ConfigError
                | Outcome::Killing
                | Outcome::Started
                | Outcome::Running
        ),
        _ => false,
    }
}

/// `STAGE PLUGIN: OUTCOME: DETAIL`, the parts there are.
fn stage_note(stage: &Stage) -> String {
    let mut note = stage.stage.to_string();
    if let Some(plugin) = &stage.plugin {
        note.push(' ');
        note.push_str(plugin);
    }
    note.push_str(": ");
    note.push_str(stage.outcome.as_str());
    let detail = stage.detail.text();
    if !detail.is_empty() {
        note.push_str(": ");
        note.push_str(&detail);
    }
    note
}
