//! The jump list (`g`): the moments of a run a class wants to go back to —
//! each command typed, each Pod's scheduling and each failure — found in the
//! records computed so far. Pure: records in, entries out.

use podflow_engine::trace::{Actor, Record, TraceRecord};

/// What kind of moment an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JumpKind {
    /// A command's first request (`kubectl apply`, a typed `:` command).
    Command,
    /// The scheduler assigned a Pod to a node (its `Scheduled` Event).
    Scheduled,
    /// A `Warning` Event, or kubectl's error.
    Failure,
}

/// One moment of the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Jump {
    /// The record to go to.
    pub index: usize,
    pub t_ms: u64,
    pub kind: JumpKind,
    /// What happened, in upstream's words (kubectl's answer, the Event's).
    pub label: String,
    /// How many times in a row it happened (a back-off repeats).
    pub times: usize,
}

/// Every moment in `records`, in order; a failure that repeats (the same
/// words for the same object, a back-off's round after round) is one entry,
/// until a command or a scheduling comes between.
pub fn jumps(records: &[TraceRecord]) -> Vec<Jump> {
    let mut out: Vec<Jump> = Vec::new();
    // Whether kubectl has answered its last command (a new request then
    // starts the next).
    let mut answered = true;
    let mut pending_command: Option<usize> = None;
    for (index, record) in records.iter().enumerate() {
        let found = match &record.body {
            Record::Message {
                from: Actor::Kubectl,
                label,
                request: Some(_),
                ..
            } if answered => {
                answered = false;
                pending_command = Some(out.len());
                Some((JumpKind::Command, format!("kubectl: {label}")))
            }
            Record::Log {
                component: Actor::Kubectl,
                line,
                ..
            } => {
                answered = true;
                // The command's entry says what kubectl answered.
                if let Some(at) = pending_command.take() {
                    out[at].label = format!("kubectl: {line}");
                }
                is_kubectl_error(line).then(|| (JumpKind::Failure, format!("kubectl: {line}")))
            }
            Record::Event(event) if event.reason == "Scheduled" => {
                Some((JumpKind::Scheduled, event.message.clone()))
            }
            Record::Event(event) if event.event_type == "Warning" => {
                let object = match &event.object.namespace {
                    Some(ns) => format!("{ns}/{}", event.object.name),
                    None => event.object.name.clone(),
                };
                Some((
                    JumpKind::Failure,
                    format!("{} {object}: {}", event.reason, event.message),
                ))
            }
            _ => None,
        };
        let Some((kind, label)) = found else {
            continue;
        };
        if kind == JumpKind::Failure
            && let Some(earlier) = out
                .iter_mut()
                .rev()
                .take_while(|j| j.kind == JumpKind::Failure)
                .find(|j| j.label == label)
        {
            earlier.times += 1;
            continue;
        }
        out.push(Jump {
            index,
            t_ms: record.t_ms,
            kind,
            label,
            times: 1,
        });
    }
    out
}

/// kubectl's answer is an error (`Error from server (Forbidden): …`, `error: …`).
fn is_kubectl_error(line: &str) -> bool {
    line.starts_with("Error from server") || line.starts_with("error:")
}

/// The entry to select when the list opens at `cursor`: the last at or
/// before it.
pub fn at_or_before(jumps: &[Jump], cursor: usize) -> usize {
    jumps.iter().rposition(|j| j.index <= cursor).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use podflow_engine::testing::timeline;

    fn run(commands: &[&str]) -> Vec<TraceRecord> {
        let mut t = timeline(commands, None);
        t.finish();
        t.records().to_vec()
    }

    #[test]
    fn a_pod_that_cannot_pull_is_a_command_its_scheduling_and_its_failures() {
        let records = run(&["apply -f tests/fixtures/missing-image-pod.yaml"]);
        let list = jumps(&records);
        let kinds: Vec<JumpKind> = list.iter().map(|j| j.kind).collect();
        // The default story's nginx, then the Pod whose image is missing.
        assert_eq!(
            kinds[..4],
            [
                JumpKind::Command,
                JumpKind::Command,
                JumpKind::Scheduled,
                JumpKind::Scheduled
            ]
        );
        assert_eq!(list[1].label, "kubectl: pod/missing created");
        assert_eq!(
            list[3].label,
            "Successfully assigned default/missing to node-1"
        );
        // The kubelet's Failed warnings (the pull's error, ErrImagePull,
        // ImagePullBackOff), each round of the back-off counted in its entry.
        let failures: Vec<(&str, usize)> = list[4..]
            .iter()
            .map(|j| (j.label.as_str(), j.times))
            .collect();
        assert_eq!(failures.len(), 3, "{failures:?}");
        assert!(
            failures[0]
                .0
                .starts_with("Failed default/missing: Failed to pull image \"nginx:doesnotexist\"")
        );
        assert_eq!(failures[1].0, "Failed default/missing: Error: ErrImagePull");
        assert_eq!(
            failures[2].0,
            "Failed default/missing: Error: ImagePullBackOff"
        );
        assert!(failures.iter().all(|(_, times)| *times > 5), "{failures:?}");
        assert!(list.len() < 40, "{} entries in a half hour", list.len());
        // Each entry is where its record is, in order.
        assert!(list.windows(2).all(|w| w[0].index < w[1].index));
        for j in &list {
            assert_eq!(records[j.index].t_ms, j.t_ms);
        }
    }

    #[test]
    fn a_refused_command_is_a_failure() {
        let records = run(&["delete pod nosuch"]);
        let failure = jumps(&records)
            .into_iter()
            .find(|j| j.kind == JumpKind::Failure);
        assert!(failure.is_some_and(|j| j.label.starts_with("kubectl: Error from server")),);
    }

    #[test]
    fn the_list_opens_on_the_moment_shown() {
        let list = jumps(&run(&["apply -f tests/fixtures/missing-image-pod.yaml"]));
        assert_eq!(at_or_before(&list, 0), 0);
        assert_eq!(at_or_before(&list, list[2].index), 2);
        assert_eq!(at_or_before(&list, list[2].index + 1), 2);
        assert_eq!(at_or_before(&list, usize::MAX), list.len() - 1);
    }
}
