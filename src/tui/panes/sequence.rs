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
//! component names of CONTRACT.md. Only components that appear in the arrows
//! kept get a column. Requests are solid (`──▶`), answers and watch
//! deliveries dashed (`┄┄▶`); a self-message, or an arrow whose end has no
//! column, is drawn as a note.

use std::borrow::Cow;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Span;
use ratatui::widgets::Widget;

use super::{PaneCx, PaneId, block};
use crate::engine::trace::{Record, TraceRecord};

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
const NODE_COMPONENTS: [&str; 4] = ["kubelet", "containerd", "cni", "csi"];

/// What kind of record an arrow row comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    /// A `message` record: a request or a call (solid arrow).
    Request,
    /// A `response` record: the API server's answer (dashed arrow).
    Response { code: u16 },
    /// A `watch` record: an event the API server delivers (dashed arrow).
    Watch,
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
    from: &'a str,
    to: &'a str,
    label: Cow<'a, str>,
    kind: RowKind,
}

/// The arrow a record draws, if it draws one.
fn arrow(record: &TraceRecord) -> Option<Raw<'_>> {
    match &record.body {
        Record::Message { from, to, label } => Some(Raw {
            from,
            to,
            label: Cow::Borrowed(label),
            kind: RowKind::Request,
        }),
        Record::Response { to, code, message } => Some(Raw {
            from: "kube-apiserver",
            to,
            label: Cow::Owned(format!("{code} {message}")),
            kind: RowKind::Response { code: *code },
        }),
        Record::Watch(w) => {
            let ns = w
                .namespace
                .as_deref()
                .map(|n| format!("{n}/"))
                .unwrap_or_default();
            Some(Raw {
                from: "kube-apiserver",
                to: &w.watcher,
                label: Cow::Owned(format!(
                    "watch {} {}/{ns}{}",
                    w.event_type, w.resource, w.name
                )),
                kind: RowKind::Watch,
            })
        }
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
        let mut arrows: Vec<Raw<'_>> = records.iter().rev().filter_map(arrow).take(want).collect();
        arrows.reverse();

        // Nodes in order of first appearance, then the columns in order.
        let mut nodes: Vec<&str> = Vec::new();
        for raw in &arrows {
            for name in [raw.from, raw.to] {
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
            for name in [raw.from, raw.to] {
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
                let from = column(raw.from);
                let to = column(raw.to);
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

    /// The rows shown in a body `height` rows tall: the newest at the
    /// bottom, `scroll` rows back (clamped to the oldest row kept).
    pub fn window(&self, height: usize) -> std::ops::Range<usize> {
        let len = self.rows.len();
        let scroll = self.scroll.min(len.saturating_sub(height));
        let end = len - scroll;
        end.saturating_sub(height)..end
    }
}

/// Display width of a string (double-width aware).
fn width(s: &str) -> usize {
    Span::raw(s).width()
}

/// `s` cut to `max` columns, ending in `…` when cut.
fn truncate(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_owned();
    }
    if max == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = width(c.encode_utf8(&mut [0u8; 4]));
        if used + w > max - 1 {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}

/// A label cut to `max` columns. A label that ends in a path or an image
/// (`POST /api/…/pods`, `txn put /registry/…`, `pull docker.io/…`) keeps its
/// verb and the path's end (`PATCH …/nginx/status`); any other keeps its
/// start (`404 pods "ng…`).
fn fit_label(label: &str, max: usize) -> String {
    if width(label) <= max {
        return label.to_owned();
    }
    if let Some((verb, path)) = label.rsplit_once(' ')
        && path.contains('/')
        && !verb.is_empty()
        && !verb.contains('/')
    {
        let keep = max.saturating_sub(width(verb) + 2);
        if keep >= 4 {
            let mut used = 0;
            let mut start = path.len();
            for (i, c) in path.char_indices().rev() {
                used += width(c.encode_utf8(&mut [0u8; 4]));
                if used > keep {
                    break;
                }
                start = i;
            }
            let mut tail = &path[start..];
            if let Some(slash) = tail.find('/')
                && tail.len() - slash >= 4
            {
                tail = &tail[slash..];
            }
            return format!("{verb} …{tail}");
        }
    }
    truncate(label, max)
}

/// `node-3` → `n3`, `worker-12` → `w12`; other names as they are.
fn short_node(node: &str) -> Cow<'_, str> {
    match node.rsplit_once('-') {
        Some((prefix, digits))
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) =>
        {
            let first = prefix.chars().next().map(String::from).unwrap_or_default();
            Cow::Owned(format!("{first}{digits}"))
        }
        _ => Cow::Borrowed(node),
    }
}

/// The header of a column `max` cells wide: the full name when it fits,
/// else the first shorter form that does, else the shortest cut to fit.
pub fn header(name: &str, max: usize) -> String {
    let candidates: Vec<String> = match name {
        "kubectl" => vec!["kubectl".into(), "kctl".into()],
        "kube-apiserver" => vec![name.into(), "apiserver".into(), "api".into()],
        "kube-controller-manager" => vec![
            name.into(),
            "controller-manager".into(),
            "ctrl-mgr".into(),
            "kcm".into(),
        ],
        "kube-scheduler" => vec![name.into(), "scheduler".into(), "sched".into()],
        "registry" => vec!["registry".into(), "reg".into()],
        _ => match name.split_once('/') {
            Some((component, node)) => {
                let short = match component {
                    "kubelet" => "klet",
                    "containerd" => "ctrd",
                    other => other,
                };
                let node = short_node(node);
                vec![
                    name.into(),
                    format!("{component}/{node}"),
                    format!("{short}/{node}"),
                    component.into(),
                    short.into(),
                ]
            }
            None => vec![name.into()],
        },
    };
    candidates
        .iter()
        .find(|c| width(c) <= max)
        .cloned()
        .unwrap_or_else(|| {
            let last = candidates.last().map_or(name, String::as_str);
            last.chars().take(max).collect()
        })
}

/// Draws `text` at (`x`, `y`), at most `max` cells and never past `area`.
fn put(buf: &mut Buffer, area: Rect, x: u16, y: u16, text: &str, max: usize, style: Style) {
    if x >= area.right() || y >= area.bottom() || x < area.left() || y < area.top() {
        return;
    }
    let room = usize::from(area.right() - x).min(max);
    buf.set_stringn(x, y, text, room, style);
}

/// The text of an arrow `cells` wide pointing right (or left), the label
/// inside it, cut to fit.
fn arrow_text(label: &str, cells: usize, right: bool, dashed: bool) -> String {
    let dash = if dashed { "┄" } else { "─" };
    if cells == 0 {
        return String::new();
    }
    let head = if right { "▶" } else { "◀" };
    // One dash either side of the label, and the head.
    let room = cells.saturating_sub(3);
    let label = if room == 0 {
        String::new()
    } else {
        fit_label(label, room)
    };
    let body_width = cells - 1;
    let mut body = String::new();
    if !label.is_empty() {
        body.push_str(dash);
        body.push_str(&label);
    }
    let used = width(&body);
    body.push_str(&dash.repeat(body_width.saturating_sub(used)));
    if right {
        body + head
    } else {
        format!("{head}{body}")
    }
}

/// Draws the pane.
pub fn render(model: &Model, cx: &PaneCx<'_>, area: Rect, buf: &mut Buffer) {
    let theme = cx.theme;
    let inner_height = usize::from(area.height.saturating_sub(2));
    let footer = model.current.is_some() && inner_height >= 5;
    let body_height = inner_height.saturating_sub(1 + usize::from(footer));
    let window = model.window(body_height);
    let back = model.rows.len() - window.end;
    let extra = if back > 0 {
        format!("↑{back}")
    } else {
        String::new()
    };
    let pane = block(PaneId::Sequence, cx, &extra);
    let inner = pane.inner(area);
    pane.render(area, buf);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let full = usize::from(inner.width);
    if model.participants.is_empty() {
        let text = cx.lang.pick(
            "No requests yet: step on to see kubectl call the API server.",
            "还没有请求：向前一步，看 kubectl 调用 API server。",
        );
        put(buf, inner, inner.x, inner.y, text, full, theme.dim);
        return;
    }

    // Columns: as many as have two cells each, spread over the width.
    let shown = model.participants.len().min(full / 2).max(1);
    let xs: Vec<u16> = (0..shown)
        .map(|i| {
            let offset = (2 * i + 1) * full / (2 * shown);
            inner.x + u16::try_from(offset).unwrap_or(0)
        })
        .collect();
    let slot_width = (full / shown).saturating_sub(1).max(1);
    for (name, &x) in model.participants.iter().zip(&xs) {
        let text = header(name, slot_width);
        let w = u16::try_from(width(&text)).unwrap_or(0);
        let start = x
            .saturating_sub(w / 2)
            .max(inner.x)
            .min(inner.right().saturating_sub(w));
        put(
            buf,
            inner,
            start,
            inner.y,
            &text,
            slot_width,
            theme.component,
        );
    }

    // Lifelines, then the rows over them.
    let top = inner.y + 1;
    for k in 0..body_height {
        let y = top + u16::try_from(k).unwrap_or(u16::MAX);
        for &x in &xs {
            put(buf, inner, x, y, "│", 1, theme.dim);
        }
    }
    for (k, row) in model.rows[window].iter().enumerate() {
        let y = top + u16::try_from(k).unwrap_or(u16::MAX);
        draw_row(model, row, &xs, cx, inner, y, buf);
    }

    if footer && let Some(current) = &model.current {
        let y = inner.bottom() - 1;
        let prefix = cx.lang.pick("now: ", "当前：");
        put(buf, inner, inner.x, y, prefix, full, theme.dim);
        let x = inner.x + u16::try_from(width(prefix)).unwrap_or(0);
        let room = full.saturating_sub(width(prefix));
        put(buf, inner, x, y, &truncate(current, room), room, theme.text);
    }
}

/// Draws one arrow (or note) on row `y`.
fn draw_row(
    model: &Model,
    row: &Row,
    xs: &[u16],
    cx: &PaneCx<'_>,
    inner: Rect,
    y: u16,
    buf: &mut Buffer,
) {
    let theme = cx.theme;
    let style = if row.is_current {
        theme.active
    } else {
        match row.kind {
            RowKind::Request => theme.text,
            RowKind::Response { code } if code >= 400 => theme.bad,
            RowKind::Response { .. } => theme.ok,
            RowKind::Watch => theme.dim,
        }
    };
    let x_of = |i: Option<usize>| i.and_then(|i| xs.get(i).copied());
    match (x_of(row.from), x_of(row.to)) {
        (Some(a), Some(b)) if a != b => {
            let (left, right) = (a.min(b), a.max(b));
            let cells = usize::from(right - left - 1);
            let text = arrow_text(&row.label, cells, b > a, row.kind != RowKind::Request);
            put(buf, inner, left + 1, y, &text, cells, style);
        }
        (from, to) => {
            // A note: beside the lifeline it is about, or at the left edge
            // for components without a column (their names are in the label).
            let label =
                if row.from.is_some() && row.to.is_some() && (from.is_none() || to.is_none()) {
                    let name = |i: Option<usize>| {
                        i.and_then(|i| model.participants.get(i))
                            .map_or("?", String::as_str)
                    };
                    format!("[{} → {}: {}]", name(row.from), name(row.to), row.label)
                } else {
                    format!("[{}]", row.label)
                };
            let full = usize::from(inner.width);
            let text = truncate(&label, full);
            let w = u16::try_from(width(&text)).unwrap_or(0);
            let anchor = from.or(to).map_or(inner.x, |x| x + 1);
            let x = anchor.min(inner.right().saturating_sub(w)).max(inner.x);
            put(buf, inner, x, y, &text, full, style);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::Timeline;
    use crate::tui::lang::Lang;
    use crate::tui::panes::PaneState;
    use crate::tui::testing::{find, nginx_timeline, render_pane, render_pane_with};
    use crate::tui::theme::{Theme, ThemeName};

    fn model_at(t: &Timeline, index: usize) -> Model {
        Model::from_records(t.view(index).records, 0)
    }

    fn column(model: &Model, name: &str) -> Option<usize> {
        model.participants.iter().position(|p| p == name)
    }

    fn message(seq: u64, from: &str, to: &str, label: &str) -> TraceRecord {
        TraceRecord {
            seq,
            t_ms: seq,
            body: Record::Message {
                from: from.into(),
                to: to.into(),
                label: label.into(),
            },
        }
    }

    #[test]
    fn first_post_is_the_current_last_row() {
        let t = nginx_timeline();
        let index = find(
            &t,
            "kubectl → kube-apiserver: POST /api/v1/namespaces/default/pods",
        );
        let model = model_at(&t, index);
        assert_eq!(model.participants, ["kubectl", "kube-apiserver", "etcd"]);
        let last = model.rows.last().expect("a row");
        assert_eq!(last.from, column(&model, "kubectl"));
        assert_eq!(last.to, column(&model, "kube-apiserver"));
        assert_eq!(last.label, "POST /api/v1/namespaces/default/pods");
        assert_eq!(last.kind, RowKind::Request);
        assert!(last.is_current);
        assert_eq!(model.rows.iter().filter(|r| r.is_current).count(), 1);
        // Before it: GET, the etcd range, and the 404 answer.
        let labels: Vec<&str> = model.rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "GET /api/v1/namespaces/default/pods/nginx",
                "range /registry/pods/default/nginx",
                "404 pods \"nginx\" not found",
                "POST /api/v1/namespaces/default/pods",
            ]
        );
        assert!(model.rows[2].is_response());
        assert_eq!(model.rows[2].from, Some(1));
        assert_eq!(model.rows[2].to, Some(0));
    }

    #[test]
    fn a_stage_after_an_arrow_keeps_the_arrow_current() {
        let t = nginx_timeline();
        let post = find(
            &t,
            "kubectl → kube-apiserver: POST /api/v1/namespaces/default/pods",
        );
        let model = model_at(&t, post + 1);
        let last = model.rows.last().expect("a row");
        assert_eq!(last.label, "POST /api/v1/namespaces/default/pods");
        assert!(last.is_current);
        assert_eq!(
            model.current.as_deref(),
            Some("kubectl → kube-apiserver: POST /api/v1/namespaces/default/pods")
        );
    }

    #[test]
    fn columns_appear_as_the_story_reaches_them() {
        let t = nginx_timeline();
        let cases: [(&str, &[&str]); 4] = [
            (
                "kube-scheduler → kube-apiserver: POST /api/v1/namespaces/default/pods/nginx/binding",
                &["kubectl", "kube-apiserver", "etcd", "kube-scheduler"],
            ),
            (
                "kubelet/node-3 → containerd/node-3: RunPodSandbox",
                &[
                    "kubectl",
                    "kube-apiserver",
                    "etcd",
                    "kube-scheduler",
                    "kubelet/node-3",
                    "containerd/node-3",
                ],
            ),
            (
                "containerd/node-3 → registry: pull",
                &[
                    "kubectl",
                    "kube-apiserver",
                    "etcd",
                    "kube-scheduler",
                    "kubelet/node-3",
                    "containerd/node-3",
                    "cni/node-3",
                    "registry",
                ],
            ),
            (
                "Observed pod startup duration",
                &[
                    "kubectl",
                    "kube-apiserver",
                    "etcd",
                    "kube-scheduler",
                    "kubelet/node-3",
                    "containerd/node-3",
                    "cni/node-3",
                    "registry",
                ],
            ),
        ];
        for (needle, participants) in cases {
            let model = model_at(&t, find(&t, needle));
            assert_eq!(model.participants, participants, "at {needle}");
        }
    }

    #[test]
    fn binding_is_drawn_from_the_scheduler() {
        let t = nginx_timeline();
        let model = model_at(&t, find(&t, "/pods/nginx/binding"));
        let last = model.rows.last().expect("a row");
        assert_eq!(last.from, column(&model, "kube-scheduler"));
        assert_eq!(last.to, column(&model, "kube-apiserver"));
        assert!(last.is_current);
    }

    #[test]
    fn watch_deliveries_are_dashed_rows_to_the_watcher() {
        let t = nginx_timeline();
        let model = model_at(&t, find(&t, "kube-scheduler ← ADDED pods/default/nginx"));
        let last = model.rows.last().expect("a row");
        assert!(last.is_watch());
        assert_eq!(last.label, "watch ADDED pods/default/nginx");
        assert_eq!(last.from, column(&model, "kube-apiserver"));
        assert_eq!(last.to, column(&model, "kube-scheduler"));
    }

    #[test]
    fn the_final_record_has_no_current_arrow() {
        let records = [
            message(0, "kubectl", "kube-apiserver", "GET /api"),
            TraceRecord {
                seq: 1,
                t_ms: 1,
                body: Record::Final {
                    objects: Vec::new(),
                },
            },
        ];
        let model = Model::from_records(&records, 0);
        assert_eq!(model.rows.len(), 1);
        assert!(model.rows.iter().all(|r| !r.is_current));
        assert_eq!(model.current, None);
    }

    #[test]
    fn self_messages_and_unknown_components_are_notes() {
        let records = [
            message(0, "kubectl", "kube-apiserver", "GET /api"),
            message(1, "kubelet/n1", "kubelet/n1", "run postStart hook"),
            message(2, "kube-proxy", "kube-apiserver", "GET /api/v1/services"),
        ];
        let model = Model::from_records(&records, 0);
        assert_eq!(
            model.participants,
            ["kubectl", "kube-apiserver", "kubelet/n1"]
        );
        assert!(!model.rows[0].is_note());
        assert!(model.rows[1].is_note());
        assert_eq!(model.rows[1].from, Some(2));
        assert!(model.rows[2].is_note());
        assert_eq!(model.rows[2].from, None);
        assert_eq!(
            model.rows[2].label,
            "kube-proxy → kube-apiserver: GET /api/v1/services"
        );
        let theme = Theme::new(ThemeName::Dark, false);
        let state = PaneState::default();
        let store = crate::engine::store::Store::new();
        let cx = PaneCx {
            view: crate::timeline::View {
                records: &records,
                store: &store,
                now: crate::engine::clock::SimTime(2),
            },
            lang: Lang::En,
            theme: &theme,
            focused: false,
            state: &state,
        };
        let area = Rect::new(0, 0, 80, 8);
        let mut buf = Buffer::empty(area);
        render(&Model::build(&cx), &cx, area, &mut buf);
        let text = crate::tui::testing::buffer_text(&buf);
        assert!(text.contains("[run postStart hook]"), "{text}");
        assert!(text.contains("[kube-proxy → kube-apiserver: GET"), "{text}");
        assert!(text.contains("│─GET /api──"), "{text}");
    }

    #[test]
    fn nodes_come_in_order_of_first_appearance() {
        let records = [
            message(0, "kubelet/w2", "containerd/w2", "RunPodSandbox"),
            message(1, "registry", "containerd/w2", "image"),
            message(2, "kubelet/w1", "kube-apiserver", "GET"),
            message(3, "cni/w1", "csi/w1", "x"),
            message(4, "kubectl", "kube-apiserver", "POST"),
        ];
        let model = Model::from_records(&records, 0);
        assert_eq!(
            model.participants,
            [
                "kubectl",
                "kube-apiserver",
                "kubelet/w2",
                "containerd/w2",
                "kubelet/w1",
                "cni/w1",
                "csi/w1",
                "registry",
            ]
        );
    }

    #[test]
    fn only_the_arrows_needed_are_kept() {
        let records: Vec<TraceRecord> = (0..1000)
            .map(|i| message(i, "kubectl", "kube-apiserver", &format!("GET {i}")))
            .collect();
        let model = Model::from_records(&records, 0);
        assert_eq!(model.rows.len(), KEEP);
        assert_eq!(model.rows.last().map(|r| r.label.as_str()), Some("GET 999"));
        let model = Model::from_records(&records, 50);
        assert_eq!(model.rows.len(), KEEP + 50);
    }

    #[test]
    fn the_window_follows_the_step_and_scrolls_back() {
        let rows = vec![
            Row {
                from: Some(0),
                to: Some(1),
                label: String::new(),
                kind: RowKind::Request,
                is_current: false,
            };
            30
        ];
        let cases = [
            // (scroll, height, window)
            (0, 10, 20..30),
            (5, 10, 15..25),
            (25, 10, 0..10),
            (99, 10, 0..10),
            (0, 40, 0..30),
            (3, 40, 0..30),
            (0, 0, 30..30),
        ];
        for (scroll, height, window) in cases {
            let model = Model {
                participants: vec!["a".into(), "b".into()],
                rows: rows.clone(),
                scroll,
                current: None,
            };
            assert_eq!(
                model.window(height),
                window,
                "scroll {scroll} height {height}"
            );
        }
    }

    #[test]
    fn headers_shorten_to_fit() {
        let cases = [
            ("kube-apiserver", 20, "kube-apiserver"),
            ("kube-apiserver", 9, "apiserver"),
            ("kube-apiserver", 5, "api"),
            ("kube-scheduler", 9, "scheduler"),
            ("kube-scheduler", 6, "sched"),
            ("kube-controller-manager", 10, "ctrl-mgr"),
            ("kubelet/node-1", 14, "kubelet/node-1"),
            ("kubelet/node-1", 10, "kubelet/n1"),
            ("kubelet/node-1", 7, "klet/n1"),
            ("containerd/node-12", 13, "ctrd/n12"),
            ("cni/node-3", 6, "cni/n3"),
            ("registry", 4, "reg"),
            ("kubectl", 2, "kc"),
            ("etcd", 1, "e"),
        ];
        for (name, max, want) in cases {
            assert_eq!(header(name, max), want, "{name} in {max}");
        }
    }

    #[test]
    fn arrows_point_both_ways_and_cut_their_labels() {
        let cases = [
            ("POST /api", 12, true, false, "─POST /api─▶"),
            ("POST /api/v1/namespaces", 12, true, false, "─POST /ap…─▶"),
            (
                "POST /api/v1/namespaces/default/pods",
                22,
                true,
                false,
                "─POST …/default/pods─▶",
            ),
            ("201 Created", 14, false, true, "◀┄201 Created┄"),
            ("x", 2, true, false, "─▶"),
            ("x", 1, false, false, "◀"),
            ("x", 0, true, false, ""),
        ];
        for (label, cells, right, dashed, want) in cases {
            let text = arrow_text(label, cells, right, dashed);
            assert_eq!(text, want, "{label} in {cells}");
            assert_eq!(width(&text), cells);
        }
    }

    #[test]
    fn labels_keep_the_verb_and_the_end_of_the_path() {
        let cases = [
            (
                "POST /api/v1/namespaces/default/pods",
                40,
                "POST /api/v1/namespaces/default/pods",
            ),
            (
                "POST /api/v1/namespaces/default/pods",
                20,
                "POST …/default/pods",
            ),
            (
                "PATCH /api/v1/namespaces/default/pods/nginx/status",
                20,
                "PATCH …/nginx/status",
            ),
            ("GET /api/v1/namespaces/default/pods/nginx", 9, "GET …ginx"),
            ("404 pods \"nginx\" not found", 10, "404 pods …"),
            ("RunPodSandbox", 5, "RunP…"),
            (
                "txn put /registry/pods/default/nginx",
                24,
                "txn put …/default/nginx",
            ),
            ("pull docker.io/library/nginx:1.27", 20, "pull …/nginx:1.27"),
            ("watch ADDED pods/default/nginx", 24, "watch ADDED …/nginx"),
            ("watch ADDED pods/default/nginx", 1, "…"),
        ];
        for (label, max, want) in cases {
            assert_eq!(fit_label(label, max), want, "{label} in {max}");
        }
    }

    #[test]
    fn renders_headers_and_the_post_arrow_at_80_by_20() {
        let t = nginx_timeline();
        let index = find(
            &t,
            "kubectl → kube-apiserver: POST /api/v1/namespaces/default/pods",
        );
        let text = render_pane(&t, index, PaneId::Sequence, 80, 20);
        for needle in [
            "Sequence",
            "kubectl",
            "kube-apiserver",
            "etcd",
            "│─POST …/default/pods",
            "▶│",
            "◀┄404",
            "now: kubectl → kube-apiserver: POST /api/v1/namespaces/default/pods",
        ] {
            assert!(text.contains(needle), "{needle:?} missing in\n{text}");
        }
    }

    #[test]
    fn narrow_panes_use_short_headers() {
        let t = nginx_timeline();
        let text = render_pane(&t, t.len() - 1, PaneId::Sequence, 60, 20);
        for needle in [
            "kctl", "api", "etcd", "sched", "klet", "ctrd", "cni/n3", "reg",
        ] {
            assert!(text.contains(needle), "{needle:?} missing in\n{text}");
        }
        assert!(text.contains('▶') || text.contains('◀'), "{text}");
        let text = render_pane(&t, t.len() - 1, PaneId::Sequence, 20, 5);
        assert!(text.contains('│'), "{text}");
    }

    #[test]
    fn scrolling_back_moves_the_window() {
        let t = nginx_timeline();
        let end = t.len() - 1;
        let follow = render_pane(&t, end, PaneId::Sequence, 100, 12);
        let state = PaneState {
            scroll: 12,
            ..PaneState::default()
        };
        let back = render_pane_with(&t, end, PaneId::Sequence, 100, 12, Lang::En, &state);
        assert_ne!(follow, back);
        assert!(back.contains("↑12"), "{back}");
        assert!(!follow.contains('↑'), "{follow}");
        // The last arrow of the run (the kubelet's status answer) is out of view.
        let model = model_at(&t, end);
        let newest = &model.rows.last().expect("a row").label;
        assert!(follow.contains(newest.as_str()), "{follow}");
    }

    #[test]
    fn chinese_and_empty_views() {
        let t = nginx_timeline();
        let theme = Theme::new(ThemeName::Dark, false);
        let state = PaneState::default();
        let cx = PaneCx {
            view: t.start(),
            lang: Lang::Zh,
            theme: &theme,
            focused: true,
            state: &state,
        };
        let area = Rect::new(0, 0, 70, 6);
        let mut buf = Buffer::empty(area);
        render(&Model::build(&cx), &cx, area, &mut buf);
        let text = crate::tui::testing::buffer_text(&buf);
        // Wide characters take two cells; the test buffer spells the second as a space.
        let text = text.replace(' ', "");
        assert!(text.contains("时序图"), "{text}");
        assert!(text.contains("还没有请求"), "{text}");
        let index = find(&t, "POST /api/v1/namespaces/default/pods");
        let text = render_pane_with(
            &t,
            index,
            PaneId::Sequence,
            80,
            20,
            Lang::Zh,
            &PaneState::default(),
        );
        assert!(text.replace(' ', "").contains("当前："), "{text}");
    }

    #[test]
    fn renders_at_every_size_without_panic() {
        let t = nginx_timeline();
        let steps = [0, find(&t, "RunPodSandbox"), t.len() - 1];
        for index in steps {
            for width in (0..=120).step_by(7) {
                for height in (0..=40).step_by(3) {
                    render_pane(&t, index, PaneId::Sequence, width, height);
                }
            }
            render_pane(&t, index, PaneId::Sequence, 300, 100);
            render_pane(&t, index, PaneId::Sequence, 1, 1);
            render_pane(&t, index, PaneId::Sequence, 3, 3);
        }
    }
}
