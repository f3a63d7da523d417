//! A `FailedScheduling` Event's message read back into its per-reason
//! table. The scheduler writes it from its `FitError`
//! (`pkg/scheduler/framework/types.go`, `FitError.Error`): `0/N nodes are
//! available:`, then either a `PreFilter` plugin's message or the histogram of
//! the `Filter` plugins' reasons (`COUNT REASON`, sorted, joined by `, `), a
//! `.`, and when `PostFilter` ran its message (`DefaultPreemption`'s `preemption:
//! 0/N nodes are available: …`, `pkg/scheduler/framework/preemption/preemption.go`).

/// One row: how many nodes gave this reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub count: u32,
    pub reason: String,
}

/// A `FailedScheduling` message, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FitError {
    /// The `N` of `0/N nodes are available`.
    pub nodes: u32,
    /// The `Filter` plugins' reasons; empty when a `PreFilter` plugin refused.
    pub rows: Vec<Row>,
    /// A `PreFilter` plugin's message, when one refused the Pod before any node.
    pub prefilter: Option<String>,
    /// What preemption found, row by row (`Preemption is not helpful for
    /// scheduling`, `No preemption victims found for incoming pod`).
    pub preemption: Vec<Row>,
}

const AVAILABLE: &str = " nodes are available:";
const PREEMPTION: &str = " preemption: ";

/// Reads a `FailedScheduling` message; `None` when it is not a `FitError`'s.
pub fn parse(message: &str) -> Option<FitError> {
    let rest = message.strip_prefix("0/")?;
    let (nodes, rest) = rest.split_once(AVAILABLE)?;
    let nodes = nodes.parse().ok()?;
    let (main, preemption) = match rest.split_once(PREEMPTION) {
        Some((main, post)) => (main, Some(post)),
        None => (rest, None),
    };
    let main = main.trim().trim_end_matches('.');
    let rows = histogram(main);
    let (rows, prefilter) = if rows.is_empty() && !main.is_empty() {
        (Vec::new(), Some(main.to_owned()))
    } else {
        (rows, None)
    };
    let preemption = preemption
        .and_then(|post| post.split_once(AVAILABLE))
        .map(|(_, rows)| histogram(rows.trim().trim_end_matches('.')))
        .unwrap_or_default();
    Some(FitError {
        nodes,
        rows,
        prefilter,
        preemption,
    })
}

/// `1 node(s) had untolerated taint {a: b}, 2 Insufficient cpu` as rows: a
/// piece that does not start with a count continues the reason before it
/// (a reason may hold `, `).
fn histogram(text: &str) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::new();
    for piece in text.split(", ") {
        let counted = piece
            .split_once(' ')
            .and_then(|(count, reason)| Some((count.parse::<u32>().ok()?, reason)));
        match (counted, rows.last_mut()) {
            (Some((count, reason)), _) => rows.push(Row {
                count,
                reason: reason.to_owned(),
            }),
            (None, Some(last)) => {
                last.reason.push_str(", ");
                last.reason.push_str(piece);
            }
            (None, None) => return Vec::new(),
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(count: u32, reason: &str) -> Row {
        Row {
            count,
            reason: reason.into(),
        }
    }

    /// Messages as upstream's `TestFitError`-style cases and a kind
    /// cluster's `kubectl events` print them.
    #[test]
    fn fit_errors_read_back_into_their_tables() {
        let taint_and_cpu = "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.";
        assert_eq!(
            parse(taint_and_cpu),
            Some(FitError {
                nodes: 3,
                rows: vec![
                    row(
                        1,
                        "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"
                    ),
                    row(2, "Insufficient cpu"),
                ],
                prefilter: None,
                preemption: vec![
                    row(1, "Preemption is not helpful for scheduling"),
                    row(2, "No preemption victims found for incoming pod"),
                ],
            })
        );
        let no_preemption =
            "0/4 nodes are available: 4 node(s) didn't match Pod's node affinity/selector.";
        assert_eq!(
            parse(no_preemption).unwrap().rows,
            [row(4, "node(s) didn't match Pod's node affinity/selector")]
        );
        // A PreFilter plugin refused (VolumeBinding's message).
        let prefilter = "0/3 nodes are available: persistentvolumeclaim \"data\" not found. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
        let read = parse(prefilter).unwrap();
        assert_eq!(
            read.prefilter.as_deref(),
            Some("persistentvolumeclaim \"data\" not found")
        );
        assert!(read.rows.is_empty());
        assert_eq!(
            read.preemption,
            [row(3, "Preemption is not helpful for scheduling")]
        );
        // A reason holding `, ` stays whole.
        let comma =
            "0/2 nodes are available: 2 node(s) had volume node affinity conflict, zone a, zone b.";
        assert_eq!(
            parse(comma).unwrap().rows,
            [row(
                2,
                "node(s) had volume node affinity conflict, zone a, zone b"
            )]
        );
        assert_eq!(
            parse("pod has unbound immediate PersistentVolumeClaims"),
            None
        );
    }
}
