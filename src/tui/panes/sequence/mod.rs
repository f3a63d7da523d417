//! The sequence pane: a live sequence diagram of the trace's `message`,
//! `response` and `watch` records, one lifeline a component, the newest
//! arrows at the bottom and the current one lit.
//!
//! ```text
//! ┌ Sequence ──────────────────────────────────────────────────┐
//! │ kubectl   apiserver    etcd    sched   kubelet/n3 containerd│
//! │   │──GET /api/v1/…▶│      │       │        │          │     │
//! │   │            │──range…▶│       │        │          │     │
//! │   │◀┄404 pods "n…│      │       │        │          │     │
//! │   │            │┄┄watch ADDED pods/default/nginx┄┄┄┄▶│     │
//! │   │            │◀──POST /api/v1/…/binding──│        │     │
//! │ now: kube-scheduler → kube-apiserver: POST /api/v1/…       │
//! └─────────────────────────────────────────────────────────────┘
//! ```
//!
//! Columns: the control plane in a fixed order (kubectl, kube-apiserver,
//! etcd, kube-controller-manager, kube-scheduler), then each node's
//! components (kubelet, containerd, cni, csi) in the order the nodes first
//! appear, then the registry, as in the seed's `sequenceDiagram` and the
//! component names of docs/trace-format.md. Only components that appear in the arrows
//! kept get a column. Requests are solid (`──▶`), answers and watch
//! deliveries dashed (`┄┄▶`); a self-message, or an arrow whose end has no
//! column, is drawn as a note. Node Lease heartbeats between two arrows
//! fold into one dim note (`node-1 renewed its Lease ×3`, see [`heartbeat`]).
//!
//! A pane too narrow for every lifeline (a Deployment's three nodes are
//! twelve of them) gives each node one lifeline under its name
//! ([`Model::by_node`]): the calls inside a node (the kubelet's CRI and CNI
//! calls) become notes on it, and an arrow too short for its label is drawn
//! as a note too, so no arrow is ever drawn without its words.

mod draw;
mod fit;
mod heartbeat;
#[cfg(test)]
mod tests;

use std::borrow::Cow;

pub use draw::render;
pub use fit::header;

use super::PaneCx;
use podflow_engine::trace::{Actor, Record, TraceRecord};

/// Arrows kept beyond the scroll: enough for the tallest pane (100 rows).
const KEEP: usize = 100;

/// The control plane's lifelines, in column order.
const CONTROL_PLANE: [&str; 5] = [
    "kubectl",
    "kube-apiserver",
    "etcd",
    "kube-controller-manager",
    "kube-scheduler",
];

/// The per-node components, in column order within a node.
const NODE_COMPONENTS: [&str; 5] = ["kubelet", "containerd", "cni", "csi", "kube-proxy"];

/// What kind of record an arrow row comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    /// A `message` record: a request or a call (solid arrow).
    Request,
    /// A `response` record: the API server's answer (dashed arrow).
    Response { code: u16 },
    /// A `watch` record: an event the API server delivers (dashed arrow).
    Watch,
    /// A run of node Lease heartbeats, folded into one dim note.
    Heartbeat,
}

/// One row of the diagram.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Column of the sender (`None`: a component without a column).
    pub from: Option<usize>,
    /// Column of the receiver.
    pub to: Option<usize>,
    /// The arrow's label; for an arrow without columns, `FROM → TO: LABEL`.
    pub label: String,
    pub kind: RowKind,
    /// The arrow of the current step (or the newest arrow while the current
    /// step is a stage, log or event that followed it).
    pub is_current: bool,
}

impl Row {
    /// Whether the row is drawn as a note rather than an arrow.
    pub fn is_note(&self) -> bool {
        match (self.from, self.to) {
            (Some(from), Some(to)) => from == to,
            _ => true,
        }
    }

    pub fn is_response(&self) -> bool {
        matches!(self.kind, RowKind::Response { .. })
    }

    pub fn is_watch(&self) -> bool {
        self.kind == RowKind::Watch
    }
}

/// What the pane shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Model {
    /// Lifelines, in column order (full component names).
    pub participants: Vec<String>,
    /// Arrows, oldest first; the last is the newest at or before the step.
    pub rows: Vec<Row>,
    /// Rows scrolled back from the newest (clamped when drawn).
    pub scroll: usize,
    /// The current arrow in full (`FROM → TO: LABEL`), for the footer.
    pub current: Option<String>,
}

/// An arrow read from a record, before columns are known.
struct Raw<'a> {
    from: Cow<'static, str>,
    to: Cow<'static, str>,
    label: Cow<'a, str>,
    kind: RowKind,
}

/// The arrow a record draws, if it draws one.
fn arrow(record: &TraceRecord) -> Option<Raw<'_>> {
    match &record.body {
        Record::Message {
            from, to, label, ..
        } => Some(Raw {
            from: from.name(),
            to: to.name(),
            label: Cow::Borrowed(label),
            kind: RowKind::Request,
        }),
        Record::Response {
            to, code, message, ..
        } => Some(Raw {
            from: Actor::ApiServer.name(),
            to: to.name(),
            label: Cow::Owned(format!("{code} {message}")),
            kind: RowKind::Response { code: *code },
        }),
        Record::Watch(w) => Some(Raw {
            from: Actor::ApiServer.name(),
            to: w.watcher.name(),
            label: Cow::Owned(format!("watch {}", w.summary())),
            kind: RowKind::Watch,
        }),
        Record::Stage(_) | Record::Event(_) | Record::Log { .. } | Record::Final { .. } => None,
    }
}

/// Where a component's column goes: (group, node order, place in group), or
/// `None` for a component that gets no column.
fn slot(name: &str, nodes: &[&str]) -> Option<(usize, usize, usize)> {
    if let Some(i) = CONTROL_PLANE.iter().position(|c| *c == name) {
        return Some((0, 0, i));
    }
    if name == "registry" {
        return Some((2, 0, 0));
    }
    // A real client of `podflow serve` (`kubectl/v1.33.1`) stands where kubectl does.
    if let Some(podflow_engine::trace::Actor::Client(_)) = podflow_engine::trace::Actor::parse(name)
    {
        return Some((0, 0, 0));
    }
    let (component, node) = name.split_once('/')?;
    let place = NODE_COMPONENTS.iter().position(|c| *c == component)?;
    let order = nodes.iter().position(|n| *n == node)?;
    Some((1, order, place))
}

impl Model {
    /// Builds the model from the current step.
    pub fn build(cx: &PaneCx<'_>) -> Model {
        Model::from_records(cx.view.records, cx.state.scroll)
    }

    /// Builds the model from the records up to the current step, walking back
    /// only as far as the arrows kept (`KEEP` plus `scroll`).
    pub fn from_records(records: &[TraceRecord], scroll: usize) -> Model {
        let want = KEEP.saturating_add(scroll);
        let mut arrows: Vec<Raw<'_>> = Vec::new();
        // The heartbeats of the run being folded (walking back): renewals per node.
        let mut beats: Option<std::collections::BTreeMap<String, usize>> = None;
        let fold = |beats: std::collections::BTreeMap<String, usize>| Raw {
            from: Actor::ApiServer.name(),
            to: Actor::ApiServer.name(),
            label: Cow::Owned(heartbeat::note(&beats)),
            kind: RowKind::Heartbeat,
        };
        for (i, record) in records.iter().enumerate().rev() {
            if arrows.len() >= want {
                break;
            }
            let Some(raw) = arrow(record) else {
                continue;
            };
            if let Some((node, renewal)) = heartbeat::heartbeat_of(records, i) {
                *beats
                    .get_or_insert_with(Default::default)
                    .entry(node)
                    .or_default() += usize::from(renewal);
                continue;
            }
            if let Some(run) = beats.take() {
                arrows.push(fold(run));
                if arrows.len() >= want {
                    break;
                }
            }
            arrows.push(raw);
        }
        if let Some(run) = beats.take()
            && arrows.len() < want
        {
            arrows.push(fold(run));
        }
        arrows.reverse();

        // Nodes in order of first appearance, then the columns in order.
        let mut nodes: Vec<&str> = Vec::new();
        for raw in &arrows {
            for name in [&*raw.from, &*raw.to] {
                if let Some((component, node)) = name.split_once('/')
                    && NODE_COMPONENTS.contains(&component)
                    && !nodes.contains(&node)
                {
                    nodes.push(node);
                }
            }
        }
        let mut columns: Vec<((usize, usize, usize), &str)> = Vec::new();
        for raw in &arrows {
            for name in [&*raw.from, &*raw.to] {
                if let Some(key) = slot(name, &nodes)
                    && !columns.iter().any(|(_, n)| *n == name)
                {
                    columns.push((key, name));
                }
            }
        }
        columns.sort_unstable();
        let participants: Vec<String> = columns.iter().map(|(_, n)| (*n).to_owned()).collect();
        let column = |name: &str| participants.iter().position(|p| p == name);

        let last_is_current = records
            .last()
            .is_some_and(|r| !matches!(r.body, Record::Final { .. }));
        let count = arrows.len();
        let mut current = None;
        let rows = arrows
            .into_iter()
            .enumerate()
            .map(|(i, raw)| {
                let from = column(&raw.from);
                let to = column(&raw.to);
                let is_current = last_is_current && i + 1 == count;
                let full = format!("{} → {}: {}", raw.from, raw.to, raw.label);
                let label = if from.is_some() && to.is_some() {
                    raw.label.into_owned()
                } else {
                    full.clone()
                };
                if is_current {
                    current = Some(full);
                }
                Row {
                    from,
                    to,
                    label,
                    kind: raw.kind,
                    is_current,
                }
            })
            .collect();
        Model {
            participants,
            rows,
            scroll,
            current,
        }
    }

    /// The same diagram with one lifeline a node (`node/node-3`): its
    /// kubelet, containerd, CNI and CSI lanes merged, the calls between them
    /// notes on the node's lifeline that name both ends.
    #[must_use]
    pub fn by_node(&self) -> Model {
        let lane = |name: &str| match name.split_once('/') {
            Some((component, node)) if NODE_COMPONENTS.contains(&component) => {
                format!("node/{node}")
            }
            _ => name.to_owned(),
        };
        let mut participants: Vec<String> = Vec::new();
        for name in &self.participants {
            let lane = lane(name);
            if !participants.contains(&lane) {
                participants.push(lane);
            }
        }
        let index = |i: Option<usize>| {
            i.and_then(|i| {
                let lane = lane(&self.participants[i]);
                participants.iter().position(|p| *p == lane)
            })
        };
        let rows = self
            .rows
            .iter()
            .map(|row| {
                let (from, to) = (index(row.from), index(row.to));
                let within_node = from.is_some() && from == to && row.from != row.to;
                let label = if within_node {
                    let part = |i: Option<usize>, part: usize| {
                        i.and_then(|i| self.participants[i].split('/').nth(part))
                            .unwrap_or("?")
                    };
                    format!(
                        "{}: {} → {}: {}",
                        part(row.from, 1),
                        part(row.from, 0),
                        part(row.to, 0),
                        row.label
                    )
                } else {
                    row.label.clone()
                };
                Row {
                    from,
                    to,
                    label,
                    ..row.clone()
                }
            })
            .collect();
        Model {
            participants,
            rows,
            scroll: self.scroll,
            current: self.current.clone(),
        }
    }

    /// The rows shown in a body `height` rows tall: the newest at the
    /// bottom, `scroll` rows back (clamped to the oldest row kept).
    pub fn window(&self, height: usize) -> std::ops::Range<usize> {
        let len = self.rows.len();
        let scroll = self.scroll.min(len.saturating_sub(height));
        let end = len - scroll;
        end.saturating_sub(height)..end
    }
}
