//! The watch pane: every watch event delivered so far, one line each, newest
//! at the bottom — what each informer (kube-scheduler, kubelet/NODE) learned
//! from the API server's watch cache, and at which `resourceVersion`.
//!
//! ```text
//! ┌ Watch events /sched ─────────────────────────────┐
//! │kube-scheduler ← ADDED pods/default/nginx rv=61    │
//! │kube-scheduler ← MODIFIED pods/default/nginx rv=62 │
//! │kubelet/node-3 ← ADDED pods/default/nginx rv=62    │  ← the current record
//! └───────────────────────────────────────────────────┘
//! ```
//!
//! A node Lease's renewal (`leases/kube-node-lease/NODE`) is a heartbeat,
//! real but routine: its line is drawn dim so the pod story stands out.
//!
//! The `/` filter keeps the lines whose watcher or `resource/namespace/name`
//! holds every word of it (`sched pods`). Building walks back from the current
//! record only as far as the tallest pane (plus the scroll) needs.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::{PaneCx, PaneId, block};
use podflow_engine::trace::Record;

/// The most rows a pane can show (areas are at most 100 rows high).
pub(super) const MAX_ROWS: usize = 100;

/// One delivered watch event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchLine {
    /// Index of the record in the trace.
    pub index: usize,
    /// `kube-scheduler`, `kubelet/node-3`.
    pub watcher: String,
    /// `ADDED`, `MODIFIED` or `DELETED`.
    pub event_type: String,
    /// `pods/default/nginx` (`nodes/node-1` for a cluster-scoped object).
    pub object: String,
    /// The object's `resourceVersion` in the event.
    pub resource_version: String,
    /// A heartbeat (a Lease renewal): drawn dim.
    pub heartbeat: bool,
}

/// What the pane shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Model {
    /// The matching events, oldest first, ending with the newest (at most
    /// `scroll` + [`MAX_ROWS`] of them).
    pub lines: Vec<WatchLine>,
    /// Index of the current record, when it is a watch event that is shown.
    pub current: Option<usize>,
    /// Lines scrolled up from the newest.
    pub scroll: usize,
    /// The filter in force (empty: none).
    pub filter: String,
}

impl Model {
    /// Builds the model from the current step, walking back from it.
    pub fn build(cx: &PaneCx<'_>) -> Model {
        let records = cx.view.records;
        let filter = cx.state.filter.trim().to_owned();
        let want = cx.state.scroll.saturating_add(MAX_ROWS);
        let mut lines = Vec::new();
        for (index, record) in records.iter().enumerate().rev() {
            if lines.len() >= want {
                break;
            }
            let Record::Watch(w) = &record.body else {
                continue;
            };
            let object = match w.namespace.as_deref() {
                Some(ns) => format!("{}/{ns}/{}", w.resource, w.name),
                None => format!("{}/{}", w.resource, w.name),
            };
            let watcher = w.watcher.to_string();
            if !filter_matches(&filter, &[&watcher, &object]) {
                continue;
            }
            lines.push(WatchLine {
                index,
                watcher,
                event_type: w.event_type.clone(),
                object,
                resource_version: w.resource_version.clone(),
                heartbeat: w.resource == "leases",
            });
        }
        lines.reverse();
        let last = records.len().checked_sub(1);
        let current = lines.last().map(|l| l.index).filter(|i| Some(*i) == last);
        Model {
            lines,
            current,
            scroll: cx.state.scroll,
            filter,
        }
    }
}

/// Whether every word of `filter` occurs (ignoring ASCII case) in at least one
/// of `fields`; an empty filter matches everything.
pub(super) fn filter_matches(filter: &str, fields: &[&str]) -> bool {
    filter.split_whitespace().all(|word| {
        let word = word.to_ascii_lowercase();
        fields
            .iter()
            .any(|f| f.to_ascii_lowercase().contains(word.as_str()))
    })
}

/// The window `[start, end)` of `len` lines that `height` rows show when
/// scrolled `scroll` lines up from the newest (never above the oldest page).
pub(super) fn window(len: usize, height: usize, scroll: usize) -> (usize, usize) {
    let end = len.saturating_sub(scroll).max(height.min(len));
    (end.saturating_sub(height), end)
}

/// The title's extra text: the filter, when one is set.
pub(super) fn filter_title(filter: &str) -> String {
    if filter.is_empty() {
        String::new()
    } else {
        format!("/{filter}")
    }
}

/// What a filterable list pane (watch, logs) shows: its rows in order, which
/// record is current, how far it is scrolled back, and what to say when empty
/// (`(English, Chinese)` for "nothing yet" and "nothing matches").
pub(super) struct List<'a, T> {
    pub pane: PaneId,
    pub rows: &'a [T],
    pub filter: &'a str,
    pub scroll: usize,
    pub current: Option<usize>,
    pub empty: [(&'a str, &'a str); 2],
}

/// Draws a list pane: the block with its filter, a dim placeholder when
/// empty, else the rows that fit, the current record's row lit. `line_of`
/// gets the width a row has, for rows that choose what to cut.
pub(super) fn render_list<T>(
    list: &List<'_, T>,
    cx: &PaneCx<'_>,
    area: Rect,
    buf: &mut Buffer,
    index_of: impl Fn(&T) -> usize,
    line_of: impl Fn(&T, usize) -> Line<'static>,
) {
    let block = block(list.pane, cx, &filter_title(list.filter));
    let inner = block.inner(area);
    block.render(area, buf);
    if inner.is_empty() {
        return;
    }
    if list.rows.is_empty() {
        let (en, zh) = list.empty[usize::from(!list.filter.is_empty())];
        Paragraph::new(Line::styled(cx.lang.pick(en, zh), cx.theme.dim)).render(inner, buf);
        return;
    }
    let (start, end) = window(list.rows.len(), usize::from(inner.height), list.scroll);
    let lines: Vec<Line> = list.rows[start..end]
        .iter()
        .map(|row| {
            let width = usize::from(inner.width);
            let line = crate::tui::wrap::truncate_line(line_of(row, width), width);
            if list.current == Some(index_of(row)) {
                line.patch_style(cx.theme.active)
            } else {
                line
            }
        })
        .collect();
    Paragraph::new(lines).render(inner, buf);
}

/// Draws the pane.
pub fn render(model: &Model, cx: &PaneCx<'_>, area: Rect, buf: &mut Buffer) {
    let theme = cx.theme;
    let list = List {
        pane: PaneId::Watch,
        rows: &model.lines,
        filter: &model.filter,
        scroll: model.scroll,
        current: model.current,
        empty: [
            ("no watch events yet", "尚无 watch 事件"),
            (
                "no watch event matches the filter",
                "没有匹配过滤条件的 watch 事件",
            ),
        ],
    };
    render_list(
        &list,
        cx,
        area,
        buf,
        |l| l.index,
        |l, _| {
            let type_style = match l.event_type.as_str() {
                "ADDED" => theme.ok,
                "DELETED" => theme.bad,
                _ => theme.changed,
            };
            if l.heartbeat {
                return Line::styled(
                    format!(
                        "{} ← {} {} rv={}",
                        l.watcher, l.event_type, l.object, l.resource_version
                    ),
                    theme.dim,
                );
            }
            Line::from(vec![
                Span::styled(l.watcher.clone(), theme.component),
                Span::styled(" ← ", theme.dim),
                Span::styled(l.event_type.clone(), type_style),
                Span::styled(format!(" {}", l.object), theme.text),
                Span::styled(format!(" rv={}", l.resource_version), theme.dim),
            ])
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::lang::Lang;
    use crate::tui::panes::PaneState;
    use crate::tui::testing::{find, nginx_timeline, render_pane, render_pane_with};

    fn model_at(t: &podflow_engine::timeline::Timeline, index: usize, state: &PaneState) -> Model {
        crate::tui::testing::with_cx(t, index, state, Model::build)
    }

    #[test]
    fn after_the_bind_the_kubelet_hears_of_the_pod() {
        let t = nginx_timeline();
        let at = find(&t, "← ADDED pods/default/nginx rv=80");
        let model = model_at(&t, at, &PaneState::default());
        let last = model.lines.last().expect("a watch line");
        assert!(last.watcher.starts_with("kubelet/node-"), "{last:?}");
        assert_eq!(last.event_type, "ADDED");
        assert_eq!(last.object, "pods/default/nginx");
        assert_eq!(last.resource_version, "80");
        assert_eq!(model.current, Some(at), "the current record is lit");
        assert_eq!(model.lines[0].watcher, "kube-scheduler");
        assert_eq!(model.lines[0].resource_version, "79");

        let text = render_pane(&t, at, PaneId::Watch, 60, 20);
        assert!(text.contains("kube-scheduler ← ADDED pods/default/nginx rv=79"));
        assert!(text.contains("← ADDED pods/default/nginx rv=80"));
        assert!(text.lines().any(|l| l.contains("│kubelet/node-")));
        insta::assert_snapshot!("watch_binding_60x20", text);
    }

    #[test]
    fn filters_keep_lines_matching_every_word() {
        let t = nginx_timeline();
        let end = t.len() - 1;
        // (filter, watcher every kept line starts with, lines expected)
        let cases: [(&str, &str, Option<usize>); 4] = [
            ("kubelet", "kubelet/node-", None),
            ("sched pods", "kube-scheduler", None),
            ("SCHED NGINX", "kube-scheduler", None),
            ("kubelet nodes", "", Some(0)),
        ];
        for (filter, watcher, count) in cases {
            let state = PaneState {
                filter: filter.into(),
                ..PaneState::default()
            };
            let model = model_at(&t, end, &state);
            if let Some(n) = count {
                assert_eq!(model.lines.len(), n, "{filter}");
            } else {
                assert!(!model.lines.is_empty(), "{filter}");
            }
            assert!(
                model.lines.iter().all(|l| l.watcher.starts_with(watcher)),
                "{filter}: {model:?}"
            );
        }
        let state = PaneState {
            filter: "kubelet".into(),
            ..PaneState::default()
        };
        let text = render_pane_with(&t, end, PaneId::Watch, 70, 20, Lang::En, &state);
        assert!(!text.contains("kube-scheduler ←"), "{text}");
        assert!(text.contains("/kubelet"), "the title shows the filter");
    }

    #[test]
    fn scrolling_shows_older_lines() {
        let t = nginx_timeline();
        let end = t.len() - 1;
        let state = PaneState {
            scroll: 100,
            ..PaneState::default()
        };
        // 2 inner rows: scrolled all the way, the oldest page shows.
        let text = render_pane_with(&t, end, PaneId::Watch, 60, 4, Lang::En, &state);
        assert!(text.contains("rv=79"), "{text}");
        let text = render_pane(&t, end, PaneId::Watch, 60, 4);
        assert!(text.contains("rv=82"), "{text}");
        assert!(!text.contains("rv=79"), "{text}");
    }

    #[test]
    fn window_table() {
        // (len, height, scroll) → (start, end)
        let cases = [
            ((10, 4, 0), (6, 10)),
            ((10, 4, 3), (3, 7)),
            ((10, 4, 9), (0, 4)),
            ((3, 4, 0), (0, 3)),
            ((0, 4, 2), (0, 0)),
            ((10, 0, 0), (10, 10)),
        ];
        for ((len, height, scroll), want) in cases {
            assert_eq!(window(len, height, scroll), want, "{len} {height} {scroll}");
        }
    }

    #[test]
    fn before_any_watch_event_says_so() {
        let t = nginx_timeline();
        let text = render_pane(&t, 0, PaneId::Watch, 40, 5);
        assert!(text.contains("no watch events yet"), "{text}");
        let text = render_pane_with(&t, 0, PaneId::Watch, 40, 5, Lang::Zh, &PaneState::default());
        assert!(text.contains("尚无"), "{text}");
    }

    #[test]
    fn renders_at_every_size_without_panic() {
        let t = nginx_timeline();
        let end = t.len() - 1;
        for w in (0..=120).step_by(7) {
            for h in (0..=40).step_by(3) {
                render_pane(&t, end, PaneId::Watch, w, h);
            }
        }
        render_pane(&t, end, PaneId::Watch, 20, 5);
        render_pane(&t, end, PaneId::Watch, 300, 100);
    }
}
