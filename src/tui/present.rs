//! Presenter mode (`podflow play --present`), for a projector: fewer, larger
//! panes (pipeline and sequence on top, the narration or lesson below; `d`
//! brings the dense panes back), the high-contrast theme forced to bright
//! text on black, playing that pauses at every step marker (a lesson step's
//! end, or a phase's start in the sandbox; Page Down and Up, a clicker's
//! keys, step the same markers), presenter notes in the status bar only
//! when the presenter asks (`N`: the projector shows the step's title
//! otherwise), and `b` to black the screen out until the next key.
//!
//! At 100×30:
//!
//! ```text
//! ┌ Pipeline ───────────────────────────────────┬ Sequence ─────────────────────┐
//! │                                             │                               │
//! ├ Lesson 3/15 · From kubectl apply to Running ┴───────────────────────────────┤
//! │                                                                             │
//! └ step 3/15 ⏸ │ Ask the room what kubectl sends first; …                 ? q ─┘
//! ```

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;
use unicode_width::UnicodeWidthStr;

use super::action::{Action, Effect};
use super::app::App;
use super::layout::{self, Screen};
use super::lesson::LessonKey;
use super::panes::PaneId;
use super::phases;
use super::steps;
use super::theme::{Theme, ThemeName};
use super::wrap::truncate;
use podflow_lesson::format::Step;

/// Presenter mode's state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Presenter {
    /// Presenter mode is on (`--present`).
    pub on: bool,
    /// The screen is blacked out until the next key.
    pub blank: bool,
    /// The dense panes show too (the normal layout).
    pub dense: bool,
    /// Whether the status bar shows the presenter's notes (`N`).
    pub notes: Notes,
}

/// Whether the presenter's notes are on the screen.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Notes {
    /// The step's title shows instead (the default: the class sees the screen).
    #[default]
    Hidden,
    Shown,
}

/// The panes presenter mode shows, in focus order (without the dense ones).
const BIG: [PaneId; 3] = [PaneId::Pipeline, PaneId::Sequence, PaneId::Narration];

impl App {
    /// Turns presenter mode on, with the high-contrast theme.
    pub fn start_presenting(&mut self) {
        self.presenter.on = true;
        self.theme = ThemeName::HighContrast;
        if !BIG.contains(&self.focus) {
            self.focus = PaneId::Pipeline;
        }
    }

    /// The step counter: the lesson step and the lesson's length in a
    /// lesson, else the trace step and the trace's length — the numbers
    /// `--at-step` counts.
    pub fn present_step(&self) -> (usize, usize) {
        if let Some(player) = &self.lesson {
            return (player.step + 1, player.len());
        }
        let total = self.timeline.len();
        (if total == 0 { 0 } else { self.cursor + 1 }, total)
    }

    /// The panes Tab moves between.
    pub(crate) fn focus_order(&self) -> Vec<PaneId> {
        if self.presenter.on && !self.presenter.dense {
            BIG.to_vec()
        } else {
            PaneId::ALL.to_vec()
        }
    }

    /// The presenter's part of the update: `Some` when it took the action.
    /// A blank screen takes any key back to the picture; outside presenter
    /// mode the presenter's keys do nothing.
    pub(crate) fn update_present(&mut self, action: Action) -> Option<Vec<Effect>> {
        if self.presenter.blank {
            if action != Action::Tick {
                self.presenter.blank = false;
            }
            return Some(Vec::new());
        }
        match action {
            Action::Blank | Action::ToggleDense | Action::ToggleNotes if !self.presenter.on => {
                Some(Vec::new())
            }
            Action::ToggleNotes => {
                self.presenter.notes = match self.presenter.notes {
                    Notes::Hidden => Notes::Shown,
                    Notes::Shown => Notes::Hidden,
                };
                Some(Vec::new())
            }
            // A clicker's keys step the markers, a phase at a time.
            Action::Page(pages)
                if self.presenter.on
                    && self.lesson.is_none()
                    && !self.zoomed
                    && self.picker.is_none()
                    && self.no_bar() =>
            {
                let effects = self.pause();
                let target = self.target(&if pages > 0 {
                    Action::NextPhase
                } else {
                    Action::PrevPhase
                });
                self.seek(target);
                Some(effects)
            }
            Action::Blank => {
                let effects = self.pause();
                self.presenter.blank = true;
                Some(effects)
            }
            Action::ToggleDense => {
                self.presenter.dense = !self.presenter.dense;
                if !self.focus_order().contains(&self.focus) {
                    self.focus = PaneId::Pipeline;
                }
                Some(Vec::new())
            }
            Action::TogglePlay
                if self.presenter.on && !self.playing && self.picker.is_none() && self.no_bar() =>
            {
                Some(self.play_to_marker())
            }
            _ => None,
        }
    }

    /// Whether no bar or editor takes the keys.
    fn no_bar(&self) -> bool {
        matches!(
            self.overlay,
            super::app::Overlay::None | super::app::Overlay::Help(_)
        )
    }

    /// Plays to the next step marker and pauses there. In a lesson: to the
    /// end of the step shown, or, when it is there already, into the next
    /// step (which plays to its own end). In the sandbox: to the start of
    /// the next phase (from the first step once at the end).
    fn play_to_marker(&mut self) -> Vec<Effect> {
        if let Some(player) = &self.lesson {
            let end = player.step_end().unwrap_or(self.cursor);
            if self.cursor < end {
                return self.play_to(end);
            }
            return self.update_lesson(LessonKey::NextStep);
        }
        if self.cursor >= self.last() {
            self.seek(0);
        }
        let marker = steps::next_phase(&self.timeline, self.cursor, self.heartbeats.folded())
            .unwrap_or(self.last());
        self.play_to(marker)
    }

    /// The presenter's line: the step's `notes:`, or, without them, what
    /// comes next (the quiz to answer, the goal to reach, the next step or
    /// phase).
    pub fn present_notes(&self) -> String {
        let lang = self.lang;
        let zh = lang == super::lang::Lang::Zh;
        if let Some(player) = &self.lesson {
            let current = player.current();
            if let Some(notes) = current.and_then(Step::notes) {
                return flat(notes.value.pick(zh));
            }
            return match current {
                Some(Step::Quiz(quiz)) if !player.quiz.answered => format!(
                    "{} 1–{}",
                    lang.pick("▸ answer:", "▸ 作答："),
                    quiz.choices.len()
                ),
                Some(Step::Goal(goal))
                    if player.solved(&self.timeline, self.cursor) != Some(true) =>
                {
                    format!(
                        "{} {}",
                        lang.pick("▸ goal:", "▸ 目标："),
                        player
                            .check_text(lang)
                            .unwrap_or_else(|| goal.check.value.clone())
                    )
                }
                _ => match player.lesson.doc.steps.get(player.step + 1) {
                    Some(next) => format!(
                        "{} {}",
                        lang.pick("▸ next:", "▸ 下一步："),
                        step_label(&next.value, zh)
                    ),
                    None => lang
                        .pick("▸ the lesson's last step", "▸ 本课最后一步")
                        .to_owned(),
                },
            };
        }
        let records = self.timeline.records();
        match phases::next(records, self.cursor) {
            Some(i) => format!(
                "{} {}",
                lang.pick("▸ next:", "▸ 下一步："),
                phases::actor(&records[i])
            ),
            None => lang.pick("▸ the end of the trace", "▸ 轨迹结束").to_owned(),
        }
    }
}

/// A step as the presenter's line names it: its kind and first words.
fn step_label(step: &Step, zh: bool) -> String {
    let (kind, text) = match step {
        Step::Narrate(n) => ("", n.text.value.pick(zh).to_owned()),
        Step::Command(c) => (":", c.run.value.clone()),
        Step::Pause(p) => (
            if zh { "暂停 " } else { "pause " },
            p.text
                .as_ref()
                .map(|t| t.value.pick(zh).to_owned())
                .unwrap_or_default(),
        ),
        Step::Quiz(q) => (
            if zh { "测验：" } else { "quiz: " },
            q.question.value.pick(zh).to_owned(),
        ),
        Step::Goal(g) => (
            if zh { "目标：" } else { "goal: " },
            g.task.value.pick(zh).to_owned(),
        ),
    };
    format!("{kind}{}", truncate(&flat(&text), 60))
        .trim_end()
        .to_owned()
}

/// The text on one line, runs of white space as one space.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Lays out presenter mode: pipeline and sequence on top, the narration
/// (where a lesson's panel goes) below; the normal layout with the dense
/// panes, and a zoomed pane alone, as usual.
pub fn layout(area: Rect, zoomed: Option<PaneId>, dense: bool) -> Screen {
    let screen = layout::layout(area, zoomed);
    if dense || zoomed.is_some() || screen.too_small {
        return screen;
    }
    let [body, status] = Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(area);
    let [top, bottom] =
        Layout::vertical([Constraint::Percentage(62), Constraint::Min(4)]).areas(body);
    let [pipeline, sequence] =
        Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(top);
    Screen {
        panes: vec![
            (PaneId::Pipeline, pipeline),
            (PaneId::Sequence, sequence),
            (PaneId::Narration, bottom),
        ],
        status,
        too_small: false,
    }
}

/// The presenter's status bar: the step counter, playing or paused, the
/// presenter's line, and the keys that matter.
pub fn status_bar(app: &App, theme: &Theme, area: Rect, buf: &mut Buffer) {
    buf.set_style(area, theme.bar);
    let (step, total) = app.present_step();
    let state = if app.playing { "▶" } else { "⏸" };
    let head = format!(
        " {} {step}/{total} {state} │ ",
        app.lang.pick("step", "步骤")
    );
    let keys = " N b ? q ";
    let line = app
        .notice
        .clone()
        .or_else(|| app.ran.clone())
        .unwrap_or_else(|| match app.presenter.notes {
            Notes::Shown => app.present_notes(),
            Notes::Hidden => super::render::step_title(app),
        });
    let room = usize::from(area.width)
        .saturating_sub(head.width() + keys.width() + 1)
        .max(1);
    let line = truncate(&line, room);
    let notes_style = if app.notice.is_some() {
        theme.bad.patch(theme.bar)
    } else {
        theme.bar.add_modifier(Modifier::BOLD)
    };
    Line::from(vec![
        Span::styled(head.clone(), theme.bar),
        Span::styled(line, notes_style),
    ])
    .render(area, buf);
    let keys_width = u16::try_from(keys.width()).unwrap_or(u16::MAX);
    if area.width > keys_width + u16::try_from(head.width()).unwrap_or(u16::MAX) {
        let rect = Rect::new(area.x + area.width - keys_width, area.y, keys_width, 1);
        Line::from(Span::styled(keys, theme.bar)).render(rect, buf);
    }
}

/// The blank screen: every cell a black space.
pub fn blank(area: Rect, no_color: bool, buf: &mut Buffer) {
    let style = if no_color {
        Style::reset()
    } else {
        Style::new().fg(Color::Black).bg(Color::Black)
    };
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            buf[(x, y)].reset();
            buf[(x, y)].set_style(style);
        }
    }
}

/// Bright on black for the projector: every cell that kept the terminal's
/// background gets black, and the greys and the terminal's own foreground
/// become white; nothing is dimmed.
pub fn projector(area: Rect, buf: &mut Buffer) {
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            let cell = &mut buf[(x, y)];
            if cell.bg == Color::Reset {
                cell.bg = Color::Black;
            }
            if matches!(
                cell.fg,
                Color::Reset | Color::Gray | Color::DarkGray | Color::Black
            ) && cell.bg == Color::Black
            {
                cell.fg = Color::White;
            }
            cell.modifier.remove(Modifier::DIM);
        }
    }
}

#[cfg(test)]
mod tests;
