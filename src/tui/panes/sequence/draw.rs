//! Drawing the sequence diagram: headers, lifelines, arrows and notes, the
//! footer with the current arrow in full.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::widgets::Widget;

use super::fit::{arrow_text, fit_label, header, truncate, width};
use super::{Model, Row, RowKind};
use crate::tui::panes::{PaneCx, PaneId, block};
use crate::tui::wrap::wrap;

/// Draws `text` at (`x`, `y`), at most `max` cells and never past `area`.
fn put(buf: &mut Buffer, area: Rect, x: u16, y: u16, text: &str, max: usize, style: Style) {
    if x >= area.right() || y >= area.bottom() || x < area.left() || y < area.top() {
        return;
    }
    let room = usize::from(area.right() - x).min(max);
    buf.set_stringn(x, y, text, room, style);
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
        let rows = (inner.y..inner.bottom()).zip(wrap(text, full));
        for (y, line) in rows {
            put(buf, inner, inner.x, y, &line, full, theme.dim);
        }
        return;
    }

    // Too narrow for every lifeline: one a node.
    let grouped;
    let model = if full / model.participants.len().max(1) < GROUP_BELOW
        && model.participants.iter().any(|p| is_node_lane(p))
    {
        grouped = model.by_node();
        &grouped
    } else {
        model
    };
    // Columns spread over the width; each participant's x, if it has one.
    let shown = columns(model, window.clone(), full);
    let xs: Vec<u16> = (0..shown.len())
        .map(|i| {
            let offset = (2 * i + 1) * full / (2 * shown.len());
            inner.x + u16::try_from(offset).unwrap_or(0)
        })
        .collect();
    let mut x_of = vec![None; model.participants.len()];
    for (&participant, &x) in shown.iter().zip(&xs) {
        x_of[participant] = Some(x);
    }
    let slot_width = (full / shown.len()).saturating_sub(1).max(1);
    for (&participant, &x) in shown.iter().zip(&xs) {
        let text = header(&model.participants[participant], slot_width);
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
        draw_row(model, row, &x_of, cx, inner, y, buf);
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

/// A column narrower than this (its header at most 4 cells: `kctl`, `api`,
/// `etcd`, `kcm`) would shorten names to letters.
const MIN_COLUMN: usize = 5;
/// Columns narrower than this merge each node's lanes into one.
const GROUP_BELOW: usize = 9;
/// The fewest cells of its label an arrow shows; shorter, it is a note.
const MIN_LABEL: usize = 10;

/// A lane of a node's component (`kubelet/node-3`).
fn is_node_lane(name: &str) -> bool {
    name.split_once('/')
        .is_some_and(|(component, _)| super::NODE_COMPONENTS.contains(&component))
}

/// The participants given a column, in order: all of them when each gets
/// [`MIN_COLUMN`] cells, else those the rows in `window` use (a Deployment's
/// last steps name 13 participants, which in an 80×24 layout's 32 cells
/// would each be a letter); at most one per two cells either way.
fn columns(model: &Model, window: std::ops::Range<usize>, full: usize) -> Vec<usize> {
    let all = model.participants.len();
    let mut shown: Vec<usize> = if full / all.max(1) >= MIN_COLUMN {
        (0..all).collect()
    } else {
        let mut used = vec![false; all];
        for row in &model.rows[window] {
            for i in [row.from, row.to].into_iter().flatten() {
                used[i] = true;
            }
        }
        (0..all).filter(|&i| used[i]).collect()
    };
    if shown.is_empty() {
        shown = (0..all).collect();
    }
    shown.truncate((full / 2).max(1));
    shown
}

/// Draws one arrow (or note) on row `y`; `x_of` has each participant's
/// column, when it has one.
fn draw_row(
    model: &Model,
    row: &Row,
    x_of: &[Option<u16>],
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
            RowKind::Watch | RowKind::Heartbeat => theme.dim,
        }
    };
    let x_of = |i: Option<usize>| i.and_then(|i| x_of.get(i).copied().flatten());
    let fits = |a: u16, b: u16| {
        let room = usize::from(a.abs_diff(b)).saturating_sub(4);
        room >= MIN_LABEL.min(width(&row.label))
    };
    match (x_of(row.from), x_of(row.to)) {
        (Some(a), Some(b)) if a != b && fits(a, b) => {
            let (left, right) = (a.min(b), a.max(b));
            let cells = usize::from(right - left - 1);
            let text = arrow_text(&row.label, cells, b > a, row.kind != RowKind::Request);
            put(buf, inner, left + 1, y, &text, cells, style);
        }
        (from, to) => {
            // A note: beside the lifeline it is about, or at the left edge
            // for components without a column (their names are in the label).
            let between = |from: Option<u16>, to: Option<u16>| match (from, to) {
                (Some(a), Some(b)) => a != b,
                _ => from.is_none() || to.is_none(),
            };
            let head = if row.from.is_some() && row.to.is_some() && between(from, to) {
                // The names as a header of nine cells writes them (`klet/n1`).
                let name = |i: Option<usize>| {
                    i.and_then(|i| model.participants.get(i))
                        .map_or_else(|| "?".to_owned(), |p| header(p, 9))
                };
                format!("{} → {}: ", name(row.from), name(row.to))
            } else {
                String::new()
            };
            let full = usize::from(inner.width);
            // The label cut as an arrow's is: a path keeps its verb and end.
            let room = full.saturating_sub(width(&head) + 2);
            let text = truncate(&format!("[{head}{}]", fit_label(&row.label, room)), full);
            let w = u16::try_from(width(&text)).unwrap_or(0);
            let anchor = from.or(to).map_or(inner.x, |x| x + 1);
            let x = anchor.min(inner.right().saturating_sub(w)).max(inner.x);
            put(buf, inner, x, y, &text, full, style);
        }
    }
}
