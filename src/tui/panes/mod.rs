//! The panes, one file a pane, each with its own view model built from a
//! [`View`] of the timeline (docs/architecture.md, rule 6): `Model::build` reads, `render`
//! draws with `&` only.

pub mod explain;
pub mod logs;
pub mod narration;
pub mod objects;
pub mod pipeline;
pub mod sequence;
pub mod store_index;
pub mod watch;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders};

use super::lang::Lang;
use super::theme::Theme;
use podflow_engine::timeline::View;

/// The panes of the main screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PaneId {
    Pipeline,
    Sequence,
    Watch,
    Objects,
    Narration,
    Explain,
    Logs,
}

impl PaneId {
    /// Every pane, in focus order.
    pub const ALL: [PaneId; 7] = [
        PaneId::Pipeline,
        PaneId::Sequence,
        PaneId::Watch,
        PaneId::Objects,
        PaneId::Narration,
        PaneId::Explain,
        PaneId::Logs,
    ];

    /// The pane's title.
    pub fn title(self, lang: Lang) -> &'static str {
        match self {
            PaneId::Pipeline => lang.pick("Pipeline", "流水线"),
            PaneId::Sequence => lang.pick("Sequence", "时序图"),
            PaneId::Watch => lang.pick("Watch events", "Watch 事件"),
            PaneId::Objects => lang.pick("Objects (etcd)", "对象 (etcd)"),
            PaneId::Narration => lang.pick("Narration", "讲解"),
            PaneId::Explain => lang.pick("Explain", "原因"),
            PaneId::Logs => lang.pick("Logs", "日志"),
        }
    }
}

/// What a pane keeps between frames: how far it is scrolled, its filter and
/// its selection. Owned by the app, one per pane.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PaneState {
    /// Lines scrolled up from the pane's natural position (0 = follow the step).
    pub scroll: usize,
    /// The `/` filter text (panes that filter use it; empty = everything).
    pub filter: String,
    /// The selected row (objects pane: the selected key).
    pub selected: usize,
    /// How far the current step's animation has got, 0..=100, while playing
    /// (the pipeline's travelling token); `None` when paused.
    pub progress: Option<u8>,
}

/// Everything a pane reads to build its model.
#[derive(Debug, Clone, Copy)]
pub struct PaneCx<'a> {
    /// The cluster at the current step.
    pub view: &'a View<'a>,
    pub lang: Lang,
    pub theme: &'a Theme,
    pub focused: bool,
    pub state: &'a PaneState,
}

/// The bordered block every pane draws in, its title lit when focused.
pub fn block<'a>(id: PaneId, cx: &PaneCx<'_>, extra: &str) -> Block<'a> {
    let style = if cx.focused {
        cx.theme.border_focused
    } else {
        cx.theme.border
    };
    let mut title = format!(" {} ", id.title(cx.lang));
    if !extra.is_empty() {
        title.push_str(extra);
        title.push(' ');
    }
    Block::new()
        .borders(Borders::ALL)
        .border_type(if cx.focused {
            BorderType::Thick
        } else {
            BorderType::Plain
        })
        .border_style(style)
        .title(Line::from(Span::styled(title, style)))
}

/// Draws pane `id` into `area`.
pub fn render(id: PaneId, cx: &PaneCx<'_>, area: Rect, buf: &mut Buffer) {
    match id {
        PaneId::Pipeline => pipeline::render(&pipeline::Model::build(cx), cx, area, buf),
        PaneId::Sequence => sequence::render(&sequence::Model::build(cx), cx, area, buf),
        PaneId::Watch => watch::render(&watch::Model::build(cx), cx, area, buf),
        PaneId::Objects => objects::render(&objects::Model::build(cx), cx, area, buf),
        PaneId::Narration => narration::render(&narration::Model::build(cx), cx, area, buf),
        PaneId::Explain => explain::render(&explain::Model::build(cx), cx, area, buf),
        PaneId::Logs => logs::render(&logs::Model::build(cx), cx, area, buf),
    }
}
