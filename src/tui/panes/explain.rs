//! The explain pane: answers "why?" for the current step. During or after a
//! scheduling cycle, a table of every node's filter verdicts and scores; at a
//! refused request, who refused and with which words (for RBAC, the missing
//! permission and a rule that grants it); at a failed image pull, what the
//! registry answered, what it means and the back-off; after a container's
//! crash, OOM kill or failed probe, that failure with its numbers (exit code,
//! output, restarts, back-off; memory against the limit; failures against
//! the threshold); after an eviction, the kubelet's message, its ranking
//! and what follows; at a node's kube-proxy step, the rules it wrote;
//! otherwise a short hint. A Pod that fits no node gets the
//! `FailedScheduling` reasons counted, what each node lacks, and preemption.
//! Whichever of a scheduling cycle and a kubelet failure came last is shown.
//! Rows too long end with `…`, prose wraps, and a last row counts the lines
//! below when the pane is too short ([`fit`]).
//!
//! ```text
//! ┌ Explain ─────────────────────────────────────────────────┐
//! │Why node-3? Scheduling cycle of default/nginx              │
//! │  node           filters  TT×3  NRF×1  NRBA×1  total       │
//! │  control-plane  ✓✓✗      TaintToleration: node(s) had …   │
//! │  node-1         ✓✓✓✓      100     97     100    497       │
//! │▶ node-3         ✓✓✓✓      100     97     100    497 chosen│
//! │filters NU NodeUnschedulable · NN NodeName · TT Taint…     │
//! └──────────────────────────────────────────────────────────┘
//! ┌ Explain ─────────────────────────────────────────────────┐
//! │Refused: 403 Forbidden                                     │
//! │by        kube-apiserver · authorization · RBAC            │
//! │message   pods is forbidden: User "jane" cannot create …   │
//! │Check:    kubectl auth can-i create pods --namespace dev … │
//! │A Role rule that allows it:                                │
//! │  apiGroups: [""], resources: ["pods"], verbs: ["create"]  │
//! └──────────────────────────────────────────────────────────┘
//! ```

mod crash;
mod eviction;
mod fit;
mod kubelet;
mod observed_fit;
mod oom;
mod probe;
mod proxy;
mod pull;
mod refusal;
mod scheduling;

use std::fmt::Write as _;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

pub use crash::CrashLoop;
pub use eviction::Eviction;
pub use oom::OomKill;
pub use probe::{Kind as ProbeKind, ProbeFailure};
pub use proxy::ProxyRules;
pub use pull::{Cause, PullFailure};
pub use refusal::{RbacHint, Refusal};
pub use scheduling::{Cycle, FilterVerdict, NodeRow, Preemption, ScoreCell, SkippedPlugin};

use super::{PaneCx, PaneId, block};
use crate::tui::lang::Lang;
use podflow_engine::trace::StageName;

/// What the pane explains at the current step.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Model {
    /// The latest scheduling cycle of a Pod.
    Scheduling(Cycle),
    /// A refused request.
    Refused(Refusal),
    /// A failed image pull.
    Pull(PullFailure),
    /// A container that keeps exiting.
    Crash(Box<CrashLoop>),
    /// A container killed over its memory limit.
    Oom(Box<OomKill>),
    /// A Pod the kubelet evicted from a node low on memory.
    Eviction(Box<Eviction>),
    /// A failed probe.
    Probe(Box<ProbeFailure>),
    /// A node's kube-proxy step, with the node's rules.
    Proxy(Box<ProxyRules>),
    /// A `FailedScheduling` Event of an observed cluster, read.
    ObservedFit(Box<observed_fit::ObservedFit>),
    /// Nothing to explain here.
    #[default]
    Nothing,
}

impl Model {
    /// A refusal or a failed pull if the current step is one; else the
    /// latest of a scheduling cycle and a kubelet's failure (looking back a
    /// bounded distance); else nothing.
    pub fn build(cx: &PaneCx<'_>) -> Model {
        let records = cx.view.records;
        if let Some(r) = refusal::at(records) {
            return Model::Refused(r);
        }
        if let Some(p) = pull::at(records) {
            return Model::Pull(p);
        }
        if let Some(p) = proxy::at(records) {
            return Model::Proxy(Box::new(p));
        }
        let cycle = scheduling::latest(records);
        if cycle.is_none()
            && let Some(o) = observed_fit::at(records)
        {
            return Model::ObservedFit(Box::new(o));
        }
        let failure = kubelet::latest_failure(records);
        if failure > scheduling::anchor(records)
            && let Some(model) = failure.and_then(|at| kubelet_failure(cx, at))
        {
            return model;
        }
        cycle.map_or(Model::Nothing, Model::Scheduling)
    }
}

/// The kubelet's failure at record `at`: a probe's (also when the exit at
/// `at` is the kill the probe asked for), an eviction's kill, an OOM kill,
/// or a crash.
fn kubelet_failure(cx: &PaneCx<'_>, at: usize) -> Option<Model> {
    let (records, store) = (cx.view.records, &cx.view.store);
    let now = cx.view.now.as_millis();
    let probe_at = probe::kill_cause(records, at).unwrap_or(at);
    if let Some(p) = probe::at(records, probe_at, store) {
        return Some(Model::Probe(Box::new(p)));
    }
    if let Some(e) = eviction::at(records, at, store) {
        return Some(Model::Eviction(Box::new(e)));
    }
    if let Some(o) = oom::at(records, at, store, now) {
        return Some(Model::Oom(Box::new(o)));
    }
    crash::at(records, at, store, now).map(|c| Model::Crash(Box::new(c)))
}

/// The reason phrase of an HTTP status code.
fn reason_phrase(code: u16) -> &'static str {
    match code {
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        409 => "Conflict",
        410 => "Gone",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        _ => "",
    }
}

/// Draws the pane.
pub fn render(model: &Model, cx: &PaneCx<'_>, area: Rect, buf: &mut Buffer) {
    // The borders take two columns and two rows.
    let inner = Rect::new(
        0,
        0,
        area.width.saturating_sub(2),
        area.height.saturating_sub(2),
    );
    let room = usize::from(inner.width);
    let rows: Vec<fit::Row<'_>> = match model {
        Model::Scheduling(cycle) => {
            // The table's gaps narrow to fit, its rows end with `…`; the notes below it wrap.
            let (table, notes) = cycle_lines(cycle, cx, room);
            table
                .into_iter()
                .map(fit::row)
                .chain(notes.into_iter().map(fit::prose))
                .collect()
        }
        Model::Refused(r) => refusal_lines(r, cx).into_iter().map(fit::prose).collect(),
        Model::Pull(p) => pull_lines(p, cx).into_iter().map(fit::prose).collect(),
        Model::Crash(c) => crash::lines(c, cx),
        Model::Oom(o) => oom::lines(o, cx),
        Model::Eviction(e) => eviction::lines(e, cx),
        Model::Probe(p) => probe::lines(p, cx),
        Model::Proxy(p) => proxy::lines(p, cx),
        Model::ObservedFit(o) => observed_fit::lines(o, cx),
        Model::Nothing => vec![fit::styled_prose(
            cx.lang.pick(
                "Nothing to explain at this step. Step to a scheduling decision, a refused request or a failing container to see why.",
                "这一步没有需要解释的内容。单步到调度决策、被拒绝的请求或出错的容器处，即可看到原因。",
            ),
            cx.theme.dim,
        )],
    };
    let (shown, hidden) = fit::visible(
        fit::fit(rows, room),
        cx.state.scroll,
        usize::from(inner.height),
    );
    let block = block(
        PaneId::Explain,
        cx,
        &crate::tui::wrap::more(hidden, cx.lang),
    );
    let inner = block.inner(area);
    block.render(area, buf);
    if !inner.is_empty() {
        Paragraph::new(shown).render(inner, buf);
    }
}

/// A failed pull: the image, what it means, the error, the back-off.
fn pull_lines<'a>(p: &PullFailure, cx: &PaneCx<'_>) -> Vec<Line<'a>> {
    let (lang, theme) = (cx.lang, cx.theme);
    let title = match lang {
        Lang::En => format!("Why is {}'s image not pulled?", p.pod),
        Lang::Zh => format!("为什么 {} 的镜像拉取失败？", p.pod),
    };
    let (en, zh) = p.cause.meaning();
    let label =
        |en: &'static str, zh: &'static str| Span::styled(lang.pick(en, zh), theme.component);
    let mut lines = vec![
        Line::from(Span::styled(title, theme.active)),
        Line::from(vec![
            label("image     ", "镜像      "),
            Span::styled(p.image.clone(), theme.text),
        ]),
        Line::from(Span::styled(lang.pick(en, zh).to_owned(), theme.bad)),
        Line::from(vec![
            label("error     ", "错误      "),
            Span::styled(p.error.clone(), theme.dim),
        ]),
    ];
    let retry = match (&p.backoff, lang) {
        (Some(next), Lang::En) => {
            format!("ImagePullBackOff: {next}; each failure doubles the wait, from 10s up to 5m.")
        }
        (Some(next), Lang::Zh) => {
            format!("ImagePullBackOff：{next}；每失败一次等待翻倍，从 10s 到 5m。")
        }
        (None, Lang::En) => {
            "ErrImagePull: the kubelet backs off 10s before the next pull, doubling up to 5m."
                .to_owned()
        }
        (None, Lang::Zh) => {
            "ErrImagePull：kubelet 等待 10s 后再拉取，之后每次翻倍，最多 5m。".to_owned()
        }
    };
    lines.push(Line::from(vec![
        label("back-off  ", "退避      "),
        Span::styled(retry, theme.text),
    ]));
    lines
}

/// Display columns of `text` (Chinese characters take two), as ratatui counts them.
fn width(text: &str) -> usize {
    Span::raw(text).width()
}

/// `text` padded with spaces to `width` display columns (or cut to it).
fn pad(text: &str, columns: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    let mut utf8 = [0u8; 4];
    for c in text.chars() {
        let w = width(c.encode_utf8(&mut utf8));
        if used + w > columns {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push_str(&" ".repeat(columns - used));
    out
}

/// The cycle's outcome under the table: the `FailedScheduling` message (or
/// the totals when no row is shown), and where the pod waits in the queue.
fn outcome_lines<'a>(cycle: &Cycle, cx: &PaneCx<'_>) -> Vec<Line<'a>> {
    let theme = cx.theme;
    let mut notes = Vec::new();
    if let Some(verdict) = &cycle.verdict {
        if cycle.unschedulable {
            notes.push(Line::from(vec![
                Span::styled("FailedScheduling: ", theme.bad),
                Span::styled(verdict.clone(), theme.text),
            ]));
            notes.extend(breakdown_lines(verdict, cx));
        } else if cycle.rows.is_empty() {
            notes.push(Line::from(Span::styled(verdict.clone(), theme.text)));
        }
    }
    notes.extend(preemption_line(cycle, cx));
    if let Some(queue) = &cycle.queue {
        notes.push(Line::from(vec![
            Span::styled(cx.lang.pick("Queue: ", "调度队列："), theme.component),
            Span::styled(queue.clone(), theme.text),
        ]));
    }
    notes
}

/// The cycle's table, its columns two spaces apart or, when that is wider
/// than `room`, one; and the notes under it.
fn cycle_lines<'a>(cycle: &Cycle, cx: &PaneCx<'_>, room: usize) -> (Vec<Line<'a>>, Vec<Line<'a>>) {
    let lang = cx.lang;
    let theme = cx.theme;
    let title = match (&cycle.chosen, cycle.unschedulable) {
        (_, true) => match lang {
            Lang::En => format!("Why is {} Pending? No node fits.", cycle.pod),
            Lang::Zh => format!("为什么 {} 一直 Pending？没有节点满足条件。", cycle.pod),
        },
        (Some(node), false) => match lang {
            Lang::En => format!("Why {node}? Scheduling cycle of {}", cycle.pod),
            Lang::Zh => format!("为什么是 {node}？{} 的调度周期", cycle.pod),
        },
        (None, false) => match lang {
            Lang::En => format!("Scheduling {}: the cycle so far", cycle.pod),
            Lang::Zh => format!("正在调度 {}：本周期到目前为止", cycle.pod),
        },
    };
    let mut lines = vec![Line::from(Span::styled(title, theme.active))];

    let cols: Vec<String> = cycle
        .score_plugins
        .iter()
        .map(|(p, w)| format!("{}×{w}", scheduling::short(p)))
        .collect();
    let widths = Widths::new(cycle, &cols, lang, room);
    if !cycle.rows.is_empty() {
        let gap = " ".repeat(widths.gap);
        let mut header = format!(
            "  {}{}",
            pad(lang.pick("node", "节点"), widths.node + widths.gap),
            pad(lang.pick("filters", "过滤"), widths.filters + widths.gap)
        );
        for (c, w) in cols.iter().zip(&widths.scores) {
            let _ = write!(header, "{c:>w$}{gap}");
        }
        if !cols.is_empty() {
            header.push_str(lang.pick("total", "总分"));
        }
        lines.push(Line::from(Span::styled(header, theme.dim)));
    }

    lines.extend(
        cycle
            .rows
            .iter()
            .map(|row| row_line(cycle, row, &widths, cx)),
    );

    (lines, notes_lines(cycle, cx))
}

/// The notes under the table: the outcome, why nodes were ruled out, the
/// plugins' names and how the totals are made.
fn notes_lines<'a>(cycle: &Cycle, cx: &PaneCx<'_>) -> Vec<Line<'a>> {
    let (lang, theme) = (cx.lang, cx.theme);
    let mut notes = outcome_lines(cycle, cx);
    notes.extend(tie_line(cycle, cx));
    notes.extend(parts_lines(cycle, cx));
    notes.extend(nodes_to_score_line(cycle, cx));
    notes.extend(filtered_out(cycle, cx));
    let legend = |label: &str, plugins: &mut dyn Iterator<Item = &String>| {
        let items: Vec<String> = plugins
            .map(|p| format!("{} {p}", scheduling::short(p)))
            .collect();
        (!items.is_empty()).then(|| {
            Line::from(Span::styled(
                format!("{label} {}", items.join(" · ")),
                theme.dim,
            ))
        })
    };
    notes.extend(legend(
        lang.pick("filters:", "过滤插件："),
        &mut cycle.filter_plugins.iter(),
    ));
    notes.extend(legend(
        lang.pick("scores:", "打分插件："),
        &mut cycle.score_plugins.iter().map(|(p, _)| p),
    ));
    if !cycle.score_plugins.is_empty() {
        notes.push(Line::from(Span::styled(
            lang.pick(
                "each score is 0–100 × the plugin's weight; the highest total wins, ties are broken at random",
                "每项得分 0–100，乘以插件权重后相加；总分最高者胜出，并列时随机选择",
            ),
            theme.dim,
        )));
    }
    // Last: the plugins that answered Skip at PreFilter or PreScore, and why.
    notes.extend(cycle.skipped.iter().map(|s| {
        Line::from(vec![
            Span::styled(lang.pick("skipped: ", "已跳过："), theme.dim),
            Span::styled(format!("{} {}", s.at, s.plugin), theme.text),
            Span::styled(format!(" — {}", s.reason), theme.dim),
        ])
    }));
    notes
}

/// The `FailedScheduling` message's reasons, one a line with their counts.
fn breakdown_lines<'a>(verdict: &str, cx: &PaneCx<'_>) -> Vec<Line<'a>> {
    let Some((total, reasons)) = scheduling::breakdown(verdict) else {
        return Vec::new();
    };
    let theme = cx.theme;
    let mut lines = vec![Line::from(Span::styled(
        match cx.lang {
            Lang::En => format!("none of the {total} nodes fits:"),
            Lang::Zh => format!("{total} 个节点都不满足："),
        },
        theme.component,
    ))];
    lines.extend(reasons.into_iter().map(|(n, reason)| {
        Line::from(vec![
            Span::styled(format!("  {n:>3} × "), theme.bad),
            Span::styled(reason, theme.text),
        ])
    }));
    lines
}

/// What `PostFilter` (`DefaultPreemption`) did.
fn preemption_line<'a>(cycle: &Cycle, cx: &PaneCx<'_>) -> Option<Line<'a>> {
    let theme = cx.theme;
    let text = match (cycle.preemption.as_ref()?, cx.lang) {
        (Preemption::Nominated { node, victims }, Lang::En) => format!(
            "{} nominated to {node} (status.nominatedNodeName); evicting the lower-priority {}",
            cycle.pod,
            victims.join(", ")
        ),
        (Preemption::Nominated { node, victims }, Lang::Zh) => format!(
            "{} 被提名到 {node}（status.nominatedNodeName）；驱逐优先级更低的 {}",
            cycle.pod,
            victims.join("、")
        ),
        (Preemption::NotHelpful(message), _) => message.clone(),
    };
    Some(Line::from(vec![
        Span::styled(
            cx.lang.pick("PostFilter: ", "PostFilter："),
            theme.component,
        ),
        Span::styled(text, theme.text),
    ]))
}

/// A resource quantity for the shortfall line: cpu in cores (`3.75`),
/// memory and storage in binary units, counts as they are.
fn quantity(resource: &str, amount: i64) -> String {
    match resource {
        "cpu" => {
            let (whole, milli) = (amount / 1000, (amount % 1000).abs());
            if milli == 0 {
                whole.to_string()
            } else {
                format!("{whole}.{milli:03}")
                    .trim_end_matches('0')
                    .to_owned()
            }
        }
        "memory" | "ephemeral-storage" => {
            u64::try_from(amount).map_or_else(|_| amount.to_string(), kubelet::bytes)
        }
        _ => amount.to_string(),
    }
}

/// `Insufficient cpu: 64 requested, 3.75 free of 4`.
fn shortfall_text(s: &podflow_engine::trace::Shortfall, lang: Lang) -> String {
    let free = quantity(&s.resource, (s.allocatable - s.used).max(0));
    let (want, have) = (
        quantity(&s.resource, s.requested),
        quantity(&s.resource, s.allocatable),
    );
    match lang {
        Lang::En => format!(
            "Insufficient {}: {want} requested, {free} free of {have}",
            s.resource
        ),
        Lang::Zh => format!(
            "Insufficient {}：请求 {want}，可分配 {have} 中还剩 {free}",
            s.resource
        ),
    }
}

/// When other nodes scored as high as the chosen one: that they tie, and
/// that the scheduler picked among them at random (`selectHost` in
/// `pkg/scheduler/schedule_one.go`, by reservoir sampling).
fn tie_line<'a>(cycle: &Cycle, cx: &PaneCx<'_>) -> Option<Line<'a>> {
    let scheduling::Tie {
        chosen,
        total,
        others,
    } = cycle.tie()?;
    let text = match cx.lang {
        Lang::En => {
            let (last, before) = others.split_last()?;
            let names = [&[chosen], before].concat().join(", ");
            format!(
                "{names} and {last} tie at {total}: the scheduler picked {chosen} among them at random"
            )
        }
        Lang::Zh => format!(
            "{chosen}、{} 总分并列 {total}：调度器在其中随机选中了 {chosen}",
            others.join("、")
        ),
    };
    Some(Line::from(Span::styled(text, cx.theme.text)))
}

/// The chosen node's total, plugin by plugin (score × weight), then the
/// per-resource figures behind `NodeResourcesFit`'s and
/// `NodeResourcesBalancedAllocation`'s scores (`cpu 0.35 of 4 → 91`).
fn parts_lines<'a>(cycle: &Cycle, cx: &PaneCx<'_>) -> Vec<Line<'a>> {
    let Some(row) = cycle.rows.iter().find(|r| r.chosen) else {
        return Vec::new();
    };
    let (Some(total), false) = (row.total, row.scores.is_empty()) else {
        return Vec::new();
    };
    let theme = cx.theme;
    let parts: Vec<String> = row
        .scores
        .iter()
        .map(|s| match s.weight {
            1 => format!("{} {}", scheduling::short(&s.plugin), s.score),
            w => format!("{} {}×{w}", scheduling::short(&s.plugin), s.score),
        })
        .collect();
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("{} = ", row.node), theme.ok),
        Span::styled(format!("{} = {total}", parts.join(" + ")), theme.text),
    ])];
    for cell in row.scores.iter().filter(|s| !s.resources.is_empty()) {
        let figures: Vec<String> = cell
            .resources
            .iter()
            .map(|r| match r.score {
                // NodeResourcesFit: each resource scored, then their weighted mean.
                Some(score) => format!(
                    "{} {} of {} → {score}",
                    r.resource,
                    quantity(&r.resource, r.requested),
                    quantity(&r.resource, r.allocatable)
                ),
                // BalancedAllocation: the fractions, whose spread is the score.
                None => format!("{} {}", r.resource, fraction(r.requested, r.allocatable)),
            })
            .collect();
        let how = if cell.resources.iter().all(|r| r.score.is_none()) {
            match cx.lang {
                Lang::En => format!(" → 100 × (1 − their spread) = {}", cell.score),
                Lang::Zh => format!(" → 100 × (1 − 离散度) = {}", cell.score),
            }
        } else {
            match cx.lang {
                Lang::En => format!("; weighted mean {}", cell.score),
                Lang::Zh => format!("；加权平均 {}", cell.score),
            }
        };
        lines.push(Line::from(vec![
            Span::styled(
                format!("  {}: ", scheduling::short(&cell.plugin)),
                theme.dim,
            ),
            Span::styled(figures.join(", "), theme.text),
            Span::styled(how, theme.dim),
        ]));
    }
    lines
}

/// `requested / allocatable`, at most 1, two decimals (`0.35`).
#[allow(clippy::cast_precision_loss)]
fn fraction(requested: i64, allocatable: i64) -> String {
    if allocatable == 0 {
        return "0".to_owned();
    }
    format!("{:.2}", (requested as f64 / allocatable as f64).min(1.0))
}

/// `1000` → `1,000`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The Filter phase stopped early: how many feasible nodes
/// `percentageOfNodesToScore` asked for (`numFeasibleNodesToFind` in
/// `pkg/scheduler/schedule_one.go`).
fn nodes_to_score_line<'a>(cycle: &Cycle, cx: &PaneCx<'_>) -> Option<Line<'a>> {
    let n = cycle.nodes_to_score?;
    let (found, nodes) = (thousands(n.feasible), thousands(n.nodes));
    let text = match (cx.lang, n.adaptive) {
        (Lang::En, true) => format!(
            "stopped after {found} feasible nodes: percentageOfNodesToScore, adaptive {} % at {nodes} nodes",
            n.percentage
        ),
        (Lang::En, false) => format!(
            "stopped after {found} feasible nodes: percentageOfNodesToScore {} % of {nodes} nodes",
            n.percentage
        ),
        (Lang::Zh, true) => format!(
            "找到 {found} 个可行节点后停止过滤：percentageOfNodesToScore，{nodes} 个节点时自适应为 {} %",
            n.percentage
        ),
        (Lang::Zh, false) => format!(
            "找到 {found} 个可行节点后停止过滤：percentageOfNodesToScore 为 {nodes} 个节点的 {} %",
            n.percentage
        ),
    };
    Some(Line::from(Span::styled(text, cx.theme.text)))
}

/// The width of the total's column.
const TOTAL_W: usize = 5;

/// The scheduling table's column widths (without their gaps), the gap
/// between columns, and the chosen row's label after its total when there
/// is room for it (the `▶` marks that row either way).
struct Widths {
    node: usize,
    filters: usize,
    scores: Vec<usize>,
    gap: usize,
    chosen: Option<&'static str>,
}

impl Widths {
    /// The widths of `cycle`'s table with score columns `cols`: two spaces
    /// apart, or one when two make it wider than `room`.
    fn new(cycle: &Cycle, cols: &[String], lang: Lang, room: usize) -> Widths {
        let mut widths = Widths {
            node: cycle
                .rows
                .iter()
                .map(|r| width(&r.node))
                .max()
                .unwrap_or(4)
                .clamp(4, 24),
            filters: cycle
                .filter_plugins
                .len()
                .max(width(lang.pick("filters", "过滤"))),
            scores: cols.iter().map(|c| width(c).max(3)).collect(),
            gap: 2,
            chosen: None,
        };
        if widths.table() > room {
            widths.gap = 1;
        }
        let chosen = lang.pick("  chosen", "  选中");
        widths.chosen = (widths.table() + width(chosen) <= room).then_some(chosen);
        widths
    }

    /// The table's width: the `▶ ` marker, the columns with their gaps, the total.
    fn table(&self) -> usize {
        let columns = 2 + self.scores.len();
        2 + self.node
            + self.filters
            + self.scores.iter().sum::<usize>()
            + columns * self.gap
            + TOTAL_W
    }
}

/// Why each node a filter ruled out was ruled out, whole (the table's row
/// names the plugin alone): `control-plane: TaintToleration: node(s) had
/// untolerated taint(s)`, nodes with the same words on one line.
fn filtered_out<'a>(cycle: &Cycle, cx: &PaneCx<'_>) -> Vec<Line<'a>> {
    let mut reasons: Vec<(String, Vec<&str>)> = Vec::new();
    for row in &cycle.rows {
        let Some(failed) = row.failed() else { continue };
        let words = if failed.shortfalls.is_empty() {
            format!("{}: {}", failed.plugin, failed.reason)
        } else {
            let numbers: Vec<String> = failed
                .shortfalls
                .iter()
                .map(|s| shortfall_text(s, cx.lang))
                .collect();
            format!("{}: {}", failed.plugin, numbers.join("; "))
        };
        match reasons.iter_mut().find(|(w, _)| *w == words) {
            Some((_, nodes)) => nodes.push(&row.node),
            None => reasons.push((words, vec![&row.node])),
        }
    }
    reasons
        .into_iter()
        .map(|(words, nodes)| {
            Line::from(vec![
                Span::styled(format!("✗ {}: ", nodes.join(", ")), cx.theme.bad),
                Span::styled(words, cx.theme.text),
            ])
        })
        .collect()
}

/// One node's row: its filter marks, then the failing filter's name or its scores and total.
fn row_line<'a>(cycle: &Cycle, row: &NodeRow, widths: &Widths, cx: &PaneCx<'_>) -> Line<'a> {
    let theme = cx.theme;
    let marker = if row.chosen { "▶ " } else { "  " };
    let name_style = if row.chosen { theme.ok } else { theme.text };
    let marks: String = row
        .filters
        .iter()
        .map(|f| if f.passed { '✓' } else { '✗' })
        .collect();
    let marks_style = if row.failed().is_some() {
        theme.bad
    } else {
        theme.ok
    };
    let mut spans = vec![
        Span::styled(marker.to_owned(), name_style),
        Span::styled(pad(&row.node, widths.node + widths.gap), name_style),
        Span::styled(pad(&marks, widths.filters + widths.gap), marks_style),
    ];
    if let Some(failed) = row.failed() {
        spans.push(Span::styled(failed.plugin.clone(), theme.bad));
    } else {
        let gap = " ".repeat(widths.gap);
        for ((plugin, _), w) in cycle.score_plugins.iter().zip(&widths.scores) {
            let cell = row
                .scores
                .iter()
                .find(|s| s.plugin == *plugin)
                .map(|s| s.score.to_string())
                .unwrap_or_default();
            spans.push(Span::styled(format!("{cell:>w$}{gap}"), theme.text));
        }
        if let Some(total) = row.total {
            spans.push(Span::styled(format!("{total:>TOTAL_W$}"), name_style));
        }
        if let Some(label) = widths.chosen.filter(|_| row.chosen) {
            spans.push(Span::styled(label.to_owned(), theme.ok));
        }
    }
    Line::from(spans)
}

fn labelled<'a>(label: &str, value: String, style: Style, cx: &PaneCx<'_>) -> Line<'a> {
    Line::from(vec![
        Span::styled(pad(label, 10), cx.theme.dim),
        Span::styled(value, style),
    ])
}

fn refusal_lines<'a>(r: &Refusal, cx: &PaneCx<'_>) -> Vec<Line<'a>> {
    let lang = cx.lang;
    let theme = cx.theme;
    let code = r
        .code
        .map(|c| format!("{}{c} {}", lang.pick(": ", "："), reason_phrase(c)))
        .unwrap_or_default();
    let mut by = vec![
        r.component.to_string(),
        r.stage.map_or("handler", StageName::as_str).to_owned(),
    ];
    by.extend(r.plugin.clone());
    let mut lines = vec![
        Line::from(Span::styled(
            format!("{}{code}", lang.pick("Refused", "请求被拒绝")),
            theme.bad,
        )),
        labelled(
            lang.pick("by", "拒绝方"),
            by.join(" · "),
            theme.component,
            cx,
        ),
        labelled(
            lang.pick("message", "消息"),
            r.message.clone(),
            theme.text,
            cx,
        ),
    ];
    if r.code == Some(404) {
        lines.push(Line::from(Span::styled(
            lang.pick(
                "A 404 to kubectl apply's first GET is expected: it means \"create it\".",
                "kubectl apply 第一次 GET 得到 404 是正常的：它意味着“去创建它”。",
            ),
            theme.dim,
        )));
    }
    if let Some(hint) = &r.rbac {
        let scope = match &hint.namespace {
            Some(ns) => match lang {
                Lang::En => format!(" in namespace {ns}"),
                Lang::Zh => format!("（命名空间 {ns}）"),
            },
            None => String::new(),
        };
        lines.push(Line::from(Span::styled(
            match lang {
                Lang::En => format!(
                    "Missing permission: {} may not {} {}{scope}. Check it with:",
                    hint.user, hint.verb, hint.resource
                ),
                Lang::Zh => format!(
                    "缺少权限：{} 不能对 {} 执行 {}{scope}。可以这样检查：",
                    hint.user, hint.resource, hint.verb
                ),
            },
            theme.text,
        )));
        lines.push(Line::from(Span::styled(
            format!("  {}", hint.can_i),
            theme.active,
        )));
        lines.push(Line::from(Span::styled(
            match lang {
                Lang::En => format!(
                    "A {} rule that would allow it (bind the {} to {}):",
                    hint.role_kind, hint.role_kind, hint.user
                ),
                Lang::Zh => format!(
                    "允许该操作的 {} 规则（再把该 {} 绑定给 {}）：",
                    hint.role_kind, hint.role_kind, hint.user
                ),
            },
            theme.text,
        )));
        lines.push(Line::from(Span::styled(
            format!("  {}", hint.rule),
            theme.changed,
        )));
    }
    lines
}

#[cfg(test)]
mod tests;
