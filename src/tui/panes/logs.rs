//! The logs pane: the components' log lines so far (the kubelet's klog lines,
//! kubectl's output, any other `log` record), newest at the bottom, each after
//! a short component tag; and one API-server audit line for every answer the
//! API server gave, built from the `response` and the request it answers
//! (the `message` of the same request number).
//!
//! ```text
//! ┌ Logs ─────────────────────────────────────────────────────────────────┐
//! │kube-apiserver│ AUDIT kubectl POST /api/v1/namespaces/default/pods → 201│
//! │kubectl│ pod/nginx created                                              │
//! │kubelet/node-3│ I1130 02:20:30.008000 2147 kubelet.go:2407] "SyncLoop ADD│
//! └───────────────────────────────────────────────────────────────────────┘
//! ```
//!
//! The audit line is a short cousin of the API server's legacy audit log
//! line (`staging/src/k8s.io/apiserver/pkg/audit/format.go`, `EventString`:
//! user, method, URI, response code). A log line too long for the pane is
//! cut at its end, an audit line in its request path (the code stays in
//! sight); the whole line is in the trace.

use std::borrow::Cow;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use super::watch::{List, MAX_ROWS, filter_matches, render_list};
use super::{PaneCx, PaneId};
use podflow_engine::trace::{Record, TraceRecord, request_answered};

/// The component that writes audit lines.
const API: &str = "kube-apiserver";

/// How far back from a response the request it answers is looked for.
const REQUEST_LOOKBACK: usize = 4096;

/// One line of the pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    /// Index of the record in the trace.
    pub index: usize,
    /// The component tag: `kubelet/node-3`, `kubectl`, `kube-apiserver`.
    pub tag: String,
    /// The line itself (for an audit line: `AUDIT kubectl POST … → 201`).
    pub text: String,
    /// For an audit line, the response code.
    pub code: Option<u16>,
}

/// What the pane shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Model {
    /// The matching lines, oldest first, ending with the newest (at most
    /// `scroll` + [`MAX_ROWS`] of them).
    pub lines: Vec<LogLine>,
    /// Index of the current record, when its line is shown.
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
        for index in (0..records.len()).rev() {
            if lines.len() >= want {
                break;
            }
            let Some(line) = line_of(records, index) else {
                continue;
            };
            if filter_matches(&filter, &[&line.tag, &line.text]) {
                lines.push(line);
            }
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

/// The pane's line for record `index`, if it has one.
fn line_of(records: &[TraceRecord], index: usize) -> Option<LogLine> {
    match &records[index].body {
        Record::Log {
            component, line, ..
        } => Some(LogLine {
            index,
            tag: component.to_string(),
            text: one_line(line),
            code: None,
        }),
        Record::Response { to, code, .. } => {
            let request = request_of(records, index);
            let text = match request {
                Some(label) => format!("AUDIT {to} {label} → {code}"),
                None => format!("AUDIT {to} → {code}"),
            };
            Some(LogLine {
                index,
                tag: API.to_owned(),
                text,
                code: Some(*code),
            })
        }
        _ => None,
    }
}

/// `line` with any line break or tab made a space, so it stays one row.
fn one_line(line: &str) -> String {
    if line.contains(['\n', '\r', '\t']) {
        line.replace(['\n', '\r', '\t'], " ")
    } else {
        line.to_owned()
    }
}

/// The label (`POST /api/v1/namespaces/default/pods`) of the request that the
/// response at `index` answers.
fn request_of(records: &[TraceRecord], index: usize) -> Option<&str> {
    match &request_answered(records, index, REQUEST_LOOKBACK)?.body {
        Record::Message { label, .. } => Some(label),
        _ => None,
    }
}

/// The fewest columns of a cut request path worth showing.
const MIN_PATH_TAIL: usize = 8;

/// An audit line fitted to `width` columns: a request path too long for it
/// keeps only its last segments (`PUT …/replicasets/web-69c6f74b8b/status →
/// 200`), so the client, the verb and the status code stay in sight. A line
/// that fits, or a width too small for that, is left whole (the pane cuts
/// its end).
fn fit_audit(text: &str, width: usize) -> Cow<'_, str> {
    if text.width() <= width {
        return Cow::Borrowed(text);
    }
    let Some((head, code)) = text.rsplit_once(" → ") else {
        return Cow::Borrowed(text);
    };
    let Some((prefix, path)) = head.rsplit_once(' ') else {
        return Cow::Borrowed(text);
    };
    // "PREFIX " + "…" + the path's tail + " → " + code.
    let fixed = prefix.width() + 1 + 1 + 3 + code.width();
    let Some(keep) = width.checked_sub(fixed).filter(|k| *k >= MIN_PATH_TAIL) else {
        return Cow::Borrowed(text);
    };
    let tail = crate::tui::wrap::path_tail(path, keep);
    Cow::Owned(format!("{prefix} …{tail} → {code}"))
}

/// Draws the pane.
pub fn render(model: &Model, cx: &PaneCx<'_>, area: Rect, buf: &mut Buffer) {
    let theme = cx.theme;
    let list = List {
        pane: PaneId::Logs,
        rows: &model.lines,
        filter: &model.filter,
        scroll: model.scroll,
        current: model.current,
        empty: [
            ("no log lines yet", "尚无日志"),
            ("no log line matches the filter", "没有匹配过滤条件的日志"),
        ],
    };
    render_list(
        &list,
        cx,
        area,
        buf,
        |l| l.index,
        |l, width| {
            let mut spans = vec![
                Span::styled(l.tag.clone(), theme.component),
                Span::styled("│ ", theme.dim),
            ];
            match l.code {
                Some(code) => {
                    let room = width.saturating_sub(l.tag.width() + 2);
                    let text = fit_audit(&l.text, room);
                    let (head, tail) = text.rsplit_once(' ').unwrap_or((&text, ""));
                    let code_style = if code < 400 { theme.ok } else { theme.bad };
                    spans.push(Span::styled(format!("{head} "), theme.text));
                    spans.push(Span::styled(tail.to_owned(), code_style));
                }
                None => spans.push(Span::styled(l.text.clone(), theme.text)),
            }
            Line::from(spans)
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
    fn audit_lines_name_client_request_and_code() {
        let t = nginx_timeline();
        let end = t.len() - 1;
        let model = model_at(&t, end, &PaneState::default());
        let audits: Vec<&str> = model
            .lines
            .iter()
            .filter(|l| l.code.is_some())
            .map(|l| l.text.as_str())
            .collect();
        // The client-side apply: a GET that finds nothing, then the create;
        // the scheduler's binding; the kubelet's status patches.
        assert_eq!(
            audits[..3],
            [
                "AUDIT kubectl GET /api/v1/namespaces/default/pods/nginx → 404",
                "AUDIT kubectl POST /api/v1/namespaces/default/pods → 201",
                "AUDIT kube-scheduler POST /api/v1/namespaces/default/pods/nginx/binding → 201",
            ]
        );
        assert!(
            audits[3..]
                .iter()
                .all(|a| a.starts_with("AUDIT kubelet/node-")
                    && a.ends_with("PATCH /api/v1/namespaces/default/pods/nginx/status → 200"))
        );
        assert!(model.lines.iter().all(|l| l.code.is_none() || l.tag == API));
    }

    #[test]
    fn an_audit_line_names_its_own_request_when_another_is_in_flight() {
        // The Deployment story: the controllers send a request before the
        // answer to their previous one arrives, so "the client's latest
        // request" is often the wrong one.
        let t =
            crate::tui::testing::timeline(&["create -f tests/fixtures/web-deployment.yaml"], None);
        let records = t.records();
        let label_of = |id: podflow_engine::component::RequestId| {
            records.iter().find_map(|r| match &r.body {
                Record::Message {
                    label,
                    request: Some(n),
                    ..
                } if *n == id => Some(label.as_str()),
                _ => None,
            })
        };
        let mut overtaken = 0;
        for (i, record) in records.iter().enumerate() {
            let Record::Response {
                to, code, request, ..
            } = &record.body
            else {
                continue;
            };
            let label = label_of(*request).expect("every answer has its request");
            let line = line_of(records, i).expect("an audit line");
            assert_eq!(line.text, format!("AUDIT {to} {label} → {code}"));
            let latest = records[..i].iter().rev().find_map(|r| match &r.body {
                Record::Message { from, label, .. } if from == to => Some(label.as_str()),
                _ => None,
            });
            overtaken += usize::from(latest != Some(label));
        }
        assert!(
            overtaken > 0,
            "no answer came after a later request of its client"
        );
    }

    #[test]
    fn a_long_audit_line_loses_its_paths_start_not_its_code() {
        let line = "AUDIT kube-controller-manager PUT /apis/apps/v1/namespaces/default/replicasets/web-69c6f74b8b/status → 200";
        // (width, what the line becomes)
        let table = [
            (200, line),
            (line.chars().count(), line),
            (
                80,
                "AUDIT kube-controller-manager PUT …/replicasets/web-69c6f74b8b/status → 200",
            ),
            (50, "AUDIT kube-controller-manager PUT …/status → 200"),
            // Too narrow to keep a useful tail: left whole, for the pane to cut.
            (44, line),
        ];
        for (width, want) in table {
            let fitted = fit_audit(line, width);
            assert_eq!(fitted, want, "width {width}");
            assert!(
                fitted == line || fitted.width() <= width,
                "width {width}: {fitted}"
            );
        }
    }

    #[test]
    fn log_lines_carry_their_component() {
        let t = nginx_timeline();
        let at = find(&t, "\"SyncLoop ADD\"");
        let model = model_at(&t, at, &PaneState::default());
        let last = model.lines.last().expect("a line");
        assert!(last.tag.starts_with("kubelet/node-"), "{last:?}");
        assert!(last.text.contains("\"SyncLoop ADD\" source=\"api\""));
        assert_eq!(model.current, Some(at));
        assert!(
            model
                .lines
                .iter()
                .any(|l| l.tag == "kubectl" && l.text == "pod/nginx created")
        );

        let text = render_pane(&t, at, PaneId::Logs, 120, 20);
        assert!(text.contains("\"SyncLoop ADD\""), "{text}");
        assert!(text.contains("kubectl│ pod/nginx created"), "{text}");
        assert!(
            text.contains(
                "kube-apiserver│ AUDIT kubectl POST /api/v1/namespaces/default/pods → 201"
            ),
            "{text}"
        );
    }

    #[test]
    fn filter_keeps_matching_lines() {
        let t = nginx_timeline();
        let end = t.len() - 1;
        // (filter, every kept line holds, some line is kept)
        let cases = [
            ("audit 201", "201", true),
            ("kubectl created", "created", true),
            ("syncloop", "SyncLoop", true),
            ("nothing-like-this", "", false),
        ];
        for (filter, holds, some) in cases {
            let state = PaneState {
                filter: filter.into(),
                ..PaneState::default()
            };
            let model = model_at(&t, end, &state);
            assert_eq!(!model.lines.is_empty(), some, "{filter}");
            assert!(
                model.lines.iter().all(|l| l.text.contains(holds)),
                "{filter}: {model:?}"
            );
        }
        let state = PaneState {
            filter: "zzz".into(),
            ..PaneState::default()
        };
        let text = render_pane_with(&t, end, PaneId::Logs, 60, 5, Lang::En, &state);
        assert!(text.contains("no log line matches"), "{text}");
    }

    #[test]
    fn long_lines_are_cut_at_the_width() {
        let t = nginx_timeline();
        let end = t.len() - 1;
        let text = render_pane(&t, end, PaneId::Logs, 60, 20);
        assert!(text.lines().all(|l| l.chars().count() <= 60));
        assert!(text.contains("kubelet/node-"), "{text}");
        let text = render_pane(&t, end, PaneId::Logs, 20, 5);
        assert!(text.lines().count() == 5);
    }

    #[test]
    fn breaks_become_spaces() {
        assert_eq!(one_line("a\nb\tc"), "a b c");
        assert_eq!(one_line("plain"), "plain");
    }

    #[test]
    fn before_any_line_says_so() {
        let t = nginx_timeline();
        let text = render_pane(&t, 0, PaneId::Logs, 40, 5);
        assert!(text.contains("no log lines yet"), "{text}");
    }

    #[test]
    fn renders_at_every_size_without_panic() {
        let t = nginx_timeline();
        let end = t.len() - 1;
        for w in (0..=120).step_by(7) {
            for h in (0..=40).step_by(3) {
                render_pane(&t, end, PaneId::Logs, w, h);
            }
        }
        render_pane(&t, end, PaneId::Logs, 300, 100);
    }
}
