//! Drawing the pipeline pane: a layout for the size at hand (boxes, lines, or
//! one line), the arrows and the token on the current one.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget, Wrap};

use super::{Model, NodeBox, on_node, stage_label};
use crate::tui::panes::{PaneCx, PaneId, block};
use podflow_engine::trace::{Outcome, StageName};

/// The API server's stages, as the contract names them, in order.
const API_STAGES: [StageName; 4] = [
    StageName::Authentication,
    StageName::Authorization,
    StageName::Admission,
    StageName::Validation,
];
/// The scheduler's stages, in order.
const SCHEDULER_STAGES: [StageName; 4] = [
    StageName::Filter,
    StageName::Score,
    StageName::Select,
    StageName::Bind,
];
/// Narrowest node box: `kubelet containerd` and two borders.
const BOX_MIN: u16 = 20;
/// Widest node box.
const BOX_MAX: u16 = 30;
/// The token.
const TOKEN: &str = "●";

/// A resource's short name as kubectl abbreviates it (`deploy`, `rs`, `po`).
fn resource_short(resource: &str) -> &str {
    match resource {
        "deployments" => "deploy",
        "replicasets" => "rs",
        "pods" => "po",
        "services" => "svc",
        "endpointslices" => "eps",
        "endpoints" => "ep",
        "nodes" => "no",
        "namespaces" => "ns",
        "serviceaccounts" => "sa",
        "configmaps" => "cm",
        "resourcequotas" => "quota",
        "persistentvolumeclaims" => "pvc",
        "persistentvolumes" => "pv",
        "storageclasses" => "sc",
        other => other,
    }
}

/// Draws the pane: the block, then the layout that fits its inside.
pub(super) fn draw(model: &Model, cx: &PaneCx<'_>, area: Rect, buf: &mut Buffer) {
    let area = area.intersection(buf.area);
    let outer = block(PaneId::Pipeline, cx, "");
    let inner = outer.inner(area);
    outer.render(area, buf);
    if inner.is_empty() {
        return;
    }
    let pen = Pen {
        model,
        cx,
        area: inner,
    };
    match inner.height {
        1 => pen.caption(buf, 0),
        2 => {
            pen.top(buf);
            pen.caption(buf, 1);
        }
        h if h < 7 || pen.boxes().0.is_empty() && !model.nodes.is_empty() => pen.compact(buf),
        _ => pen.full(buf),
    }
}

/// Which drawn path an arrow travels, and whether it goes the way the path
/// is drawn (`true`: left to right, or upwards for the vertical ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Path<'a> {
    KubectlApi,
    ApiEtcd,
    Controllers,
    Scheduler,
    /// A node's component and the API server.
    NodeApi(&'a str),
    /// A node's containerd and the registry.
    Registry(&'a str),
    /// A node's kubelet and containerd.
    Runtime(&'a str),
    /// A node's containerd and CNI plugin.
    Cni(&'a str),
    /// A node's component and its CSI driver.
    Csi(&'a str),
}

/// Whether `name` is an outside client's (`kubectl/v1.33.1`, `kube-rs/5.0.0`).
fn is_client(name: &str) -> bool {
    matches!(
        podflow_engine::trace::Actor::parse(name),
        Some(podflow_engine::trace::Actor::Client(_))
    )
}

/// The path from `a` to `b` when drawn that way round.
fn drawn<'a>(a: &'a str, b: &'a str) -> Option<Path<'a>> {
    let node = |c: &'a str, role: &str| on_node(c).filter(|(r, _)| *r == role).map(|(_, n)| n);
    let any_node = |c: &'a str| on_node(c).map(|(_, n)| n);
    match (a, b) {
        ("kubectl", "kube-apiserver") => Some(Path::KubectlApi),
        // A real client of `podflow serve` (`kubectl/v1.33.1`) takes kubectl's path.
        (client, "kube-apiserver") if is_client(client) => Some(Path::KubectlApi),
        ("kube-apiserver", "etcd") => Some(Path::ApiEtcd),
        ("kube-controller-manager", "kube-apiserver") => Some(Path::Controllers),
        ("kube-scheduler", "kube-apiserver") => Some(Path::Scheduler),
        (_, "kube-apiserver") => any_node(a).map(Path::NodeApi),
        (_, "registry") => node(a, "containerd").map(Path::Registry),
        _ => {
            let same = any_node(a).zip(any_node(b)).filter(|(x, y)| x == y)?.0;
            match (
                node(a, "kubelet"),
                node(a, "containerd"),
                node(b, "containerd"),
            ) {
                (Some(_), _, Some(_)) => Some(Path::Runtime(same)),
                (_, Some(_), _) if node(b, "cni").is_some() => Some(Path::Cni(same)),
                _ if node(b, "csi").is_some() => Some(Path::Csi(same)),
                _ => None,
            }
        }
    }
}

/// The model's arrow as a drawn path and direction.
fn path(model: &Model) -> Option<(Path<'_>, bool)> {
    let a = model.arrow.as_ref()?;
    drawn(&a.from, &a.to)
        .map(|p| (p, true))
        .or_else(|| drawn(&a.to, &a.from).map(|p| (p, false)))
}

/// A row of spans and its width so far.
#[derive(Default)]
struct Row {
    spans: Vec<Span<'static>>,
    width: usize,
}

impl Row {
    /// Appends `text`; returns the column it starts at.
    fn push(&mut self, text: impl Into<String>, style: Style) -> usize {
        let span = Span::styled(text.into(), style);
        let at = self.width;
        self.width += span.width();
        self.spans.push(span);
        at
    }

    fn extend(&mut self, spans: Vec<Span<'static>>) {
        for s in spans {
            self.width += s.width();
            self.spans.push(s);
        }
    }
}

/// Everything a drawing step needs.
struct Pen<'a> {
    model: &'a Model,
    cx: &'a PaneCx<'a>,
    area: Rect,
}

impl Pen<'_> {
    fn width(&self) -> usize {
        usize::from(self.area.width)
    }

    /// Writes `line` at column `x` of row `y` (inside the area), clipped to
    /// `max` columns and the area.
    fn put_line(&self, buf: &mut Buffer, x: usize, y: u16, line: &Line<'_>, max: usize) {
        let Ok(x) = u16::try_from(x) else { return };
        if y >= self.area.height || x >= self.area.width {
            return;
        }
        let room = (self.area.width - x).min(u16::try_from(max).unwrap_or(u16::MAX));
        buf.set_line(self.area.x + x, self.area.y + y, line, room);
    }

    fn put(&self, buf: &mut Buffer, x: usize, y: u16, text: &str, style: Style, max: usize) {
        self.put_line(
            buf,
            x,
            y,
            &Line::from(Span::styled(text.to_owned(), style)),
            max,
        );
    }

    /// A component's name, lit when active.
    fn name(&self, component: &str) -> Style {
        if self.model.is_active(component) {
            self.cx.theme.active
        } else {
            self.cx.theme.component
        }
    }

    /// The current record's stage, when it is one of `component`'s.
    fn lit_stage(&self, component: &str) -> Option<StageName> {
        self.model.stage.filter(|_| self.model.is_active(component))
    }

    /// `[authn│authz│admission│valid]`: the active stage lit, the component's
    /// latest stage (`latest`) underlined.
    fn stages(
        &self,
        component: &str,
        names: &[StageName],
        latest: Option<StageName>,
    ) -> Vec<Span<'static>> {
        let theme = self.cx.theme;
        let lit = self.lit_stage(component);
        let mut spans = vec![Span::styled("[", theme.dim)];
        for (i, &stage) in names.iter().enumerate() {
            if i > 0 {
                spans.push(Span::styled("│", theme.dim));
            }
            let style = if lit == Some(stage) {
                theme.active
            } else if latest == Some(stage) {
                theme.text.add_modifier(Modifier::UNDERLINED)
            } else {
                theme.dim
            };
            spans.push(Span::styled(
                stage_label(stage, self.cx.lang).to_owned(),
                style,
            ));
        }
        spans.push(Span::styled("]", theme.dim));
        spans
    }

    /// A horizontal arrow `width` wide on `on`: with the token when the
    /// current arrow travels it (its head turned the way it goes).
    fn arrow(&self, width: usize, on: Path<'_>) -> Vec<Span<'static>> {
        let theme = self.cx.theme;
        let going = path(self.model).filter(|(p, _)| *p == on).map(|(_, f)| f);
        match (width, going) {
            (0, _) => Vec::new(),
            (1, None) => vec![Span::styled("▶", theme.dim)],
            (1, Some(_)) => vec![Span::styled(TOKEN, theme.active)],
            (w, None) => vec![Span::styled(format!("{}▶", "─".repeat(w - 1)), theme.dim)],
            (w, Some(forward)) => {
                let along = usize::from(self.model.progress.min(100)) * (w - 2) / 100;
                let (head, at) = if forward {
                    (w - 1, along)
                } else {
                    (0, w - 1 - along)
                };
                (0..w)
                    .map(|i| {
                        if i == at {
                            Span::styled(TOKEN, theme.active)
                        } else if i == head {
                            Span::styled(if forward { "▶" } else { "◀" }, theme.text)
                        } else {
                            Span::styled("─", theme.text)
                        }
                    })
                    .collect()
            }
        }
    }

    /// The top row: kubectl, the API server and its stages, etcd and its
    /// revision, at the widest form that fits.
    fn top_row(&self) -> (Row, usize) {
        let theme = self.cx.theme;
        let lang = self.cx.lang;
        // (margin, arrow width, spaces around arrows, stages shown, "rev" word shown)
        let forms = [
            (1, 4, 1, true, true),
            (1, 3, 1, true, true),
            (0, 3, 1, true, true),
            (0, 2, 1, true, true),
            (0, 2, 1, true, false),
            (0, 2, 0, true, true),
            (0, 2, 0, true, false),
            (0, 3, 1, false, true),
            (0, 2, 0, false, false),
            (0, 1, 0, false, false),
        ];
        let build = |(margin, aw, pad, stages, rev): (usize, usize, usize, bool, bool)| {
            let mut row = Row::default();
            let pad = " ".repeat(pad);
            row.push(" ".repeat(margin), theme.text);
            row.push("kubectl", self.name("kubectl"));
            row.push(pad.clone(), theme.text);
            row.extend(self.arrow(aw, Path::KubectlApi));
            row.push(pad.clone(), theme.text);
            let api = row.push("kube-apiserver", self.name("kube-apiserver"));
            if stages {
                row.push(" ", theme.text);
                row.extend(self.stages("kube-apiserver", &API_STAGES, None));
            } else if let Some(stage) = self.lit_stage("kube-apiserver") {
                row.push(format!(":{}", stage_label(stage, lang)), theme.active);
            }
            row.push(pad.clone(), theme.text);
            row.extend(self.arrow(aw, Path::ApiEtcd));
            row.push(pad, theme.text);
            row.push("etcd", self.name("etcd"));
            let rev = if rev {
                format!(" {} {}", lang.pick("rev", "版本"), self.model.revision)
            } else {
                format!(" {}", self.model.revision)
            };
            row.push(rev, theme.dim);
            (row, api)
        };
        let mut chosen = build(forms[forms.len() - 1]);
        for form in forms {
            let (row, api) = build(form);
            if row.width <= self.width() {
                chosen = (row, api);
                break;
            }
        }
        chosen
    }

    /// The controllers row: the controller manager, the scheduler and its
    /// stages; returns where the two names start and end.
    fn controllers_row(&self) -> (Row, (usize, usize), usize) {
        let theme = self.cx.theme;
        // (margin, controller manager's name, gap, scheduler stages shown)
        let forms = [
            (1, "kube-controller-manager", 3, true),
            (0, "kube-controller-manager", 2, true),
            (0, "controller-manager", 2, true),
            (0, "kube-controller-manager", 2, false),
            (0, "controller-manager", 1, false),
        ];
        let queue = self.model.queue;
        let build = |(margin, cm, gap, stages): (usize, &str, usize, bool), short: Option<bool>| {
            let mut row = Row::default();
            row.push(" ".repeat(margin), theme.text);
            let c = row.push(cm, self.name("kube-controller-manager"));
            let c_end = row.width;
            row.push(" ".repeat(gap), theme.text);
            let s = row.push("kube-scheduler", self.name("kube-scheduler"));
            if stages {
                row.push(" ", theme.text);
                row.extend(self.stages("kube-scheduler", &SCHEDULER_STAGES, self.model.scheduler));
            } else if let Some(stage) = self.lit_stage("kube-scheduler") {
                row.push(
                    format!(":{}", stage_label(stage, self.cx.lang)),
                    theme.active,
                );
            }
            if let Some(short) = short {
                let style = if queue.unschedulable > 0 {
                    theme.bad
                } else {
                    theme.dim
                };
                row.push(format!("  {}", queue.label(short)), style);
            }
            (row, (c, c_end), s)
        };
        // The queue is shown when a pod waits and there is room: in full, then short.
        let queue_forms: &[Option<bool>] = if queue.is_empty() {
            &[None]
        } else {
            &[Some(false), Some(true), None]
        };
        // A waiting pod matters more than the stage brackets: every form is
        // tried with the queue before any without it.
        queue_forms
            .iter()
            .flat_map(|q| forms.iter().map(move |form| (*form, *q)))
            .map(|(form, q)| build(form, q))
            .find(|c| c.0.width <= self.width())
            .unwrap_or_else(|| build(forms[forms.len() - 1], None))
    }

    fn top(&self, buf: &mut Buffer) -> usize {
        let (row, api) = self.top_row();
        self.put_line(buf, 0, 0, &Line::from(row.spans), usize::MAX);
        api
    }

    /// The current record in words, from row `y` down (wrapped over the rows
    /// left, cut at the bottom).
    fn caption(&self, buf: &mut Buffer, y: u16) {
        let theme = self.cx.theme;
        if self.model.caption.is_empty() || y >= self.area.height {
            return;
        }
        let (mark, style) = if self.model.arrow.is_some() {
            (TOKEN, theme.active)
        } else {
            ("▸", theme.dim)
        };
        let line = Line::from(vec![
            Span::styled(mark, style),
            Span::styled(" ", theme.text),
            Span::styled(self.model.caption.clone(), theme.text),
        ]);
        let rect = Rect {
            y: self.area.y + y,
            height: self.area.height - y,
            ..self.area
        };
        Paragraph::new(line)
            .wrap(Wrap { trim: false })
            .render(rect, buf);
    }

    /// A vertical connector at (`x`, `y`) for `on`: `▲ watch`, or the token
    /// and what it carries when the current arrow travels it.
    fn connector(&self, buf: &mut Buffer, x: usize, y: u16, on: Path<'_>, text: &str, max: usize) {
        let theme = self.cx.theme;
        let line = match path(self.model).filter(|(p, _)| *p == on) {
            Some((_, up)) => {
                let label = match on {
                    Path::Registry(_) => text,
                    _ => self.model.arrow.as_ref().map_or("", |a| a.label.as_str()),
                };
                // The arrow, the token and a space before the label; a label
                // cut to fit ends with `…`.
                let label = crate::tui::wrap::truncate(label, max.saturating_sub(3));
                Line::from(vec![
                    Span::styled(if up { "▲" } else { "▼" }, theme.text),
                    Span::styled(TOKEN, theme.active),
                    Span::styled(format!(" {label}"), theme.text),
                ])
            }
            None if text.is_empty() => return,
            // The word only whole: where it does not fit, the arrow alone.
            None if text.len() + 2 > max => Line::from(Span::styled("▲", theme.dim)),
            None => Line::from(Span::styled(format!("▲ {text}"), theme.dim)),
        };
        self.put_line(buf, x, y, &line, max);
    }

    /// The boxes layout: rows 0–2 the control plane, row 3 the nodes'
    /// connectors, then the node boxes and, with room, the caption.
    fn full(&self, buf: &mut Buffer) {
        let api = self.top(buf);
        let (row, (c, c_end), s) = self.controllers_row();
        self.put_line(buf, 0, 2, &Line::from(row.spans), usize::MAX);
        let watch = self.cx.lang.pick("watch", "watch");
        // Row 1: the watches up to the API server, and the registry on the right.
        let c_at = if (c..c_end).contains(&(api + 1)) {
            api + 1
        } else {
            c + 1
        };
        let s_at = (s + 2).max(c_at + 2);
        let registry = "registry";
        let r_at = self.width().saturating_sub(registry.len());
        let registry_fits = r_at > s_at + 8;
        self.connector(buf, c_at, 1, Path::Controllers, watch, s_at - c_at - 1);
        let s_room = if registry_fits {
            r_at - s_at - 1
        } else {
            usize::MAX
        };
        self.connector(buf, s_at, 1, Path::Scheduler, watch, s_room);
        if registry_fits {
            self.put(buf, r_at, 1, registry, self.name(registry), usize::MAX);
        }
        // The node boxes.
        let (shown, hidden, box_w) = self.boxes();
        let left = self.area.height - 4;
        // The caption (what the current step does) before the boxes' runtime
        // line: a short pane keeps it and boxes of the node's step alone.
        let (box_h, caption) = match left {
            6.. => (5, true),
            4 | 5 => (left - 1, true),
            _ => (left, false),
        };
        // The controller manager's two lines go under the boxes when a
        // caption line still fits below them.
        let controllers = !self.model.controllers.is_empty() && left >= box_h + 3;
        let box_step = usize::from(box_w) + 1;
        let more = self.more(hidden);
        let more_at = self
            .width()
            .saturating_sub(Span::raw(more.as_str()).width());
        for (i, node) in shown.iter().enumerate() {
            let x = i * box_step;
            let mut room = usize::from(box_w) - 2;
            if hidden > 0 {
                room = room.min(more_at.saturating_sub(x + 3));
            }
            self.connector(buf, x + 2, 3, Path::NodeApi(&node.name), watch, room);
            if path(self.model).is_some_and(|(p, _)| p == Path::Registry(&node.name)) {
                let half = usize::from(box_w) / 2;
                self.connector(buf, x + half, 3, Path::Registry(&node.name), registry, half);
            }
            self.node_box(buf, node, x, box_w, box_h);
        }
        if hidden > 0 {
            self.put(buf, more_at, 3, &more, self.cx.theme.dim, usize::MAX);
        }
        let mut below = 4 + box_h;
        if controllers {
            self.controller_lines(buf, below);
            below += 2;
        }
        if caption {
            self.caption(buf, below);
        } else if shown.is_empty() && self.area.height > 4 {
            self.caption(buf, 4);
        }
    }

    /// Rows `y` and `y + 1`: the informers' caches against etcd's revision,
    /// then the controllers' work queues, at the widest form that fits.
    fn controller_lines(&self, buf: &mut Buffer, y: u16) {
        let theme = self.cx.theme;
        let lang = self.cx.lang;
        let c = &self.model.controllers;
        let synced = c.synced();
        let behind = synced < self.model.revision;
        let informers = |short: bool| {
            let mut row = Row::default();
            row.push(lang.pick("informers ", "informer "), theme.component);
            for (i, inf) in c.informers.iter().enumerate() {
                if i > 0 {
                    row.push(" · ", theme.dim);
                }
                let name = if short {
                    resource_short(&inf.resource)
                } else {
                    inf.resource.as_str()
                };
                row.push(format!("{name} {}", inf.size), theme.text);
            }
            let rv = if short {
                format!("  rv {synced}/{}", self.model.revision)
            } else {
                match lang {
                    crate::tui::lang::Lang::En => {
                        format!("  synced rv {synced} of {}", self.model.revision)
                    }
                    crate::tui::lang::Lang::Zh => {
                        format!("  已同步 rv {synced}/{}", self.model.revision)
                    }
                }
            };
            row.push(rv, if behind { theme.changed } else { theme.dim });
            row
        };
        let queues = |keys: bool| {
            let mut row = Row::default();
            row.push(lang.pick("queues ", "队列 "), theme.component);
            for (i, q) in c.queues.iter().enumerate() {
                if i > 0 {
                    row.push(" · ", theme.dim);
                }
                let style = if q.current { theme.active } else { theme.text };
                row.push(
                    format!(
                        "{} {}",
                        super::controllers::short_name(&q.controller),
                        q.depth
                    ),
                    style,
                );
                if let Some(key) = q.key.as_deref().filter(|_| keys || q.current) {
                    let style = if q.current { theme.active } else { theme.dim };
                    row.push(format!(" ▸ {key}"), style);
                }
            }
            row
        };
        let width = self.width();
        let first = [informers(false), informers(true)]
            .into_iter()
            .find(|r| r.width <= width)
            .unwrap_or_else(|| informers(true));
        // Still too wide: cut with `…`, never silently.
        let first = crate::tui::wrap::truncate_line(Line::from(first.spans), width);
        self.put_line(buf, 0, y, &first, usize::MAX);
        let second = [queues(true), queues(false)]
            .into_iter()
            .find(|r| r.width <= width)
            .unwrap_or_else(|| queues(false));
        let second = crate::tui::wrap::truncate_line(Line::from(second.spans), width);
        self.put_line(buf, 0, y + 1, &second, usize::MAX);
    }

    /// `+2 more`.
    fn more(&self, hidden: usize) -> String {
        match self.cx.lang {
            crate::tui::lang::Lang::En => format!("+{hidden} more"),
            crate::tui::lang::Lang::Zh => format!("还有 {hidden} 个"),
        }
    }

    /// The nodes that get a box (in store order), how many do not, and the
    /// box width. When not all fit, the nodes that show something come first:
    /// the one the current record is about, then those with a step, then the
    /// cordoned or `NotReady` ones.
    fn boxes(&self) -> (Vec<&NodeBox>, usize, u16) {
        let n = self.model.nodes.len();
        let w = self.area.width;
        let Ok(count) = u16::try_from(n) else {
            return (Vec::new(), n, BOX_MIN);
        };
        if count == 0 {
            return (Vec::new(), 0, BOX_MIN);
        }
        let all = count * BOX_MIN + (count - 1);
        if all <= w {
            let box_w = ((w - (count - 1)) / count).min(BOX_MAX);
            return (self.model.nodes.iter().collect(), 0, box_w);
        }
        // `+N more` goes on the connectors' row, above the boxes.
        let fit = (w + 1) / (BOX_MIN + 1);
        let box_w = (w + 1)
            .checked_div(fit)
            .map_or(BOX_MIN, |share| (share - 1).min(BOX_MAX));
        let fit = usize::from(fit);
        (self.prioritised(fit), n - fit.min(n), box_w)
    }

    /// The `fit` most telling nodes, in store order.
    fn prioritised(&self, fit: usize) -> Vec<&NodeBox> {
        let rank = |b: &NodeBox| {
            if self.model.node_active(&b.name) || b.step.as_ref().is_some_and(|s| s.current) {
                0
            } else if b.step.is_some() {
                1
            } else if b.cordoned || !b.ready {
                2
            } else {
                3
            }
        };
        let mut order: Vec<(usize, &NodeBox)> = self.model.nodes.iter().enumerate().collect();
        // The `fit` smallest (rank, index) keys, without sorting the rest.
        if fit < order.len() {
            order.select_nth_unstable_by_key(fit, |(i, b)| (rank(b), *i));
        }
        order.truncate(fit);
        order.sort_by_key(|(i, _)| *i);
        order.into_iter().map(|(_, b)| b).collect()
    }

    /// ` cordoned`, ` NotReady`: what is wrong with a node.
    fn flags(&self, node: &NodeBox) -> Vec<Span<'static>> {
        let lang = self.cx.lang;
        let mut spans = Vec::new();
        if node.cordoned {
            spans.push(Span::styled(
                format!(" {}", lang.pick("cordoned", "不可调度")),
                self.cx.theme.bad,
            ));
        }
        if !node.ready {
            spans.push(Span::styled(
                format!(" {}", lang.pick("NotReady", "未就绪")),
                self.cx.theme.bad,
            ));
        }
        spans
    }

    /// `▸ pull nginx:1.27`: the node's latest step.
    fn step_line(&self, node: &NodeBox) -> Line<'static> {
        let theme = self.cx.theme;
        let Some(step) = &node.step else {
            return Line::from(Span::styled("·", theme.dim));
        };
        let style = if step.current {
            theme.active
        } else if matches!(
            step.outcome,
            Some(Outcome::Fail | Outcome::Failed | Outcome::Deny)
        ) {
            theme.bad
        } else {
            theme.text
        };
        let label = step
            .stage
            .map_or("", |stage| stage_label(stage, self.cx.lang));
        // containerd pulls the normalised name; show it as a spec writes it.
        let detail = step
            .detail
            .strip_prefix("docker.io/library/")
            .unwrap_or(&step.detail);
        // A detail that starts with the stage's own word (`sandbox 9b3a…`)
        // is shown without the label before it.
        let text = if label.is_empty() || detail.split(' ').next() == Some(label) {
            detail.to_owned()
        } else if detail.is_empty() {
            label.to_owned()
        } else {
            format!("{label} {detail}")
        };
        Line::from(vec![
            Span::styled("▸ ", theme.dim),
            Span::styled(text, style),
        ])
    }

    /// One node's box at column `x` of row 4.
    fn node_box(&self, buf: &mut Buffer, node: &NodeBox, x: usize, box_w: u16, box_h: u16) {
        let theme = self.cx.theme;
        let Ok(x16) = u16::try_from(x) else { return };
        if x16 >= self.area.width || box_h < 2 {
            return;
        }
        let rect = Rect::new(
            self.area.x + x16,
            self.area.y + 4,
            box_w.min(self.area.width - x16),
            box_h,
        );
        let name_style = if self.model.node_active(&node.name) {
            theme.active
        } else {
            theme.component
        };
        let mut title = vec![
            Span::styled(" ", theme.border),
            Span::styled(node.name.clone(), name_style),
        ];
        title.extend(self.flags(node));
        title.push(Span::styled(" ", theme.border));
        let frame = Block::new()
            .borders(Borders::ALL)
            .border_style(theme.border)
            .title(Line::from(title));
        let inside = frame.inner(rect);
        frame.render(rect, buf);
        let lines = match inside.height {
            0 => Vec::new(),
            1 => vec![self.step_line(node)],
            2 => vec![self.runtime_line(node, inside.width), self.step_line(node)],
            _ => vec![
                self.runtime_line(node, inside.width),
                self.plugins_line(node),
                self.step_line(node),
            ],
        };
        for (dy, line) in (0u16..).zip(lines) {
            buf.set_line(inside.x, inside.y + dy, &line, inside.width);
        }
    }

    /// `kubelet ─▶ containerd`.
    fn runtime_line(&self, node: &NodeBox, width: u16) -> Line<'static> {
        let kubelet = format!("kubelet/{}", node.name);
        let containerd = format!("containerd/{}", node.name);
        let room = usize::from(width.saturating_sub(17)).max(1);
        let mut spans = vec![Span::styled("kubelet", self.name(&kubelet))];
        if room >= 3 {
            let width = if room == 3 { 1 } else { (room - 2).min(4) };
            spans.push(Span::raw(" "));
            spans.extend(self.arrow(width, Path::Runtime(&node.name)));
            spans.push(Span::raw(" "));
        } else {
            let arrow = self.arrow(room, Path::Runtime(&node.name));
            if room == 1 && arrow.first().is_some_and(|s| s.content != TOKEN) {
                spans.push(Span::raw(" "));
            } else {
                spans.extend(arrow);
            }
        }
        spans.push(Span::styled("containerd", self.name(&containerd)));
        Line::from(spans)
    }

    /// ` cni  csi  proxy`, the token before the plugin the current arrow
    /// reaches; `proxy` (the node's kube-proxy) lights when it acts.
    fn plugins_line(&self, node: &NodeBox) -> Line<'static> {
        let theme = self.cx.theme;
        let current = path(self.model).map(|(p, _)| p);
        let mark = |on: Path<'_>| {
            if current == Some(on) {
                Span::styled(TOKEN, theme.active)
            } else {
                Span::raw(" ")
            }
        };
        Line::from(vec![
            mark(Path::Cni(&node.name)),
            Span::styled("cni", self.name(&format!("cni/{}", node.name))),
            Span::raw(" "),
            mark(Path::Csi(&node.name)),
            Span::styled("csi", self.name(&format!("csi/{}", node.name))),
            Span::raw("  "),
            Span::styled("proxy", self.name(&format!("kube-proxy/{}", node.name))),
        ])
    }

    /// The lines layout: the top two rows, then one line per node and, with
    /// room, the caption.
    fn compact(&self, buf: &mut Buffer) {
        let theme = self.cx.theme;
        self.top(buf);
        let (row, _, _) = self.controllers_row();
        self.put_line(buf, 0, 1, &Line::from(row.spans), usize::MAX);
        let rows = usize::from(self.area.height - 2);
        let n = self.model.nodes.len();
        let (shown, hidden) = if n <= rows {
            (self.model.nodes.iter().collect(), 0)
        } else {
            // Keep a row for `+N more`, unless that leaves no node at all.
            let fit = if rows > 1 { rows - 1 } else { rows };
            (self.prioritised(fit), n - fit)
        };
        let mut y = 2;
        for node in &shown {
            let style = if self.model.node_active(&node.name) {
                theme.active
            } else {
                theme.component
            };
            let mut spans = vec![Span::styled(node.name.clone(), style)];
            spans.extend(self.flags(node));
            spans.push(Span::raw(" "));
            spans.extend(self.step_line(node).spans);
            self.put_line(buf, 0, y, &Line::from(spans), usize::MAX);
            y += 1;
        }
        if hidden > 0 && y < self.area.height {
            self.put(buf, 0, y, &self.more(hidden), theme.dim, usize::MAX);
            y += 1;
        }
        if y < self.area.height {
            self.caption(buf, y);
        }
    }
}

#[cfg(test)]
mod tests;
