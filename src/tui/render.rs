//! Draws the whole screen from the app's state: panes, status bar with the
//! timeline slider, and the overlays (help, command bar, filter).

use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget, Wrap};

use super::app::{App, Overlay, SPEEDS};
use super::layout::{self, Screen};
use super::lesson::player::Player;
use super::panes::{self, PaneCx};
use super::theme::Theme;
use podflow_engine::clock::SimTime;

impl App {
    /// The screen's layout for an area (also used to map mouse clicks).
    pub fn screen(&self, area: Rect) -> Screen {
        let zoomed = self.zoomed.then_some(self.focus);
        if self.presenter.on {
            super::present::layout(area, zoomed, self.presenter.dense)
        } else {
            layout::layout(area, zoomed)
        }
    }

    /// The current theme's styles.
    pub fn styles(&self) -> Theme {
        Theme::new(self.theme, self.no_color)
    }

    /// How many rows of the lesson's step lie below its panel: how far it
    /// scrolls (0 when the step fits).
    pub(crate) fn lesson_overflow(&self) -> u16 {
        let Some(player) = &self.lesson else {
            return 0;
        };
        self.lesson_panel(self.area).map_or(0, |rect| {
            super::lesson::view::panel_height(self, player, rect.width).saturating_sub(rect.height)
        })
    }

    /// Where the lesson's panel is drawn in `area`, when a lesson is open.
    pub(crate) fn lesson_panel(&self, area: Rect) -> Option<Rect> {
        let player = self.lesson.as_ref()?;
        lesson_area(self, player, &self.screen(area)).map(|(rect, _)| rect)
    }
}

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if self.presenter.blank {
            super::present::blank(area, self.no_color, buf);
            return;
        }
        let theme = self.styles();
        buf.set_style(area, theme.text);
        if self.picker.is_some() {
            super::lesson::view::picker(self, &theme, area, buf);
            overlay_over_picker(self, &self.overlay, &theme, area, buf);
            return;
        }
        let screen = self.screen(area);
        if screen.too_small {
            too_small(self, &theme, area, buf);
            return;
        }
        let view = self.view();
        for (id, rect) in &screen.panes {
            let cx = PaneCx {
                view: &view,
                lang: self.lang,
                theme: &theme,
                focused: *id == self.focus,
                state: self.pane(*id),
            };
            panes::render(*id, &cx, *rect, buf);
        }
        if let Some(player) = &self.lesson
            && let Some((rect, below)) = lesson_area(self, player, &screen)
        {
            super::lesson::view::panel(self, player, &theme, rect, buf);
            if let Some(below) = below {
                let cx = PaneCx {
                    view: &view,
                    lang: self.lang,
                    theme: &theme,
                    focused: false,
                    state: self.pane(panes::PaneId::Explain),
                };
                // What explains the step best: Explain when it has something
                // to say (a scheduling cycle, a refusal, a failure), else the
                // step's narration.
                let id = if panes::explain::Model::build(&cx) == panes::explain::Model::Nothing {
                    panes::PaneId::Narration
                } else {
                    panes::PaneId::Explain
                };
                let cx = PaneCx {
                    focused: id == self.focus,
                    state: self.pane(id),
                    ..cx
                };
                // Over what the panes drew there before the lesson took their place.
                Clear.render(below, buf);
                panes::render(id, &cx, below, buf);
            }
        }
        if self.presenter.on {
            super::present::status_bar(self, &theme, screen.status, buf);
        } else {
            status_bar(self, &theme, screen.status, buf);
        }
        long_notice(self, &theme, screen.status, buf);
        overlay(self, &self.overlay, &screen, &theme, area, buf);
        if self.presenter.on
            && self.theme == super::theme::ThemeName::HighContrast
            && !self.no_color
        {
            super::present::projector(area, buf);
        }
    }
}

/// Draws what is open over the panes (a question over what it was asked over).
fn overlay(
    app: &App,
    open: &Overlay,
    screen: &Screen,
    theme: &Theme,
    area: Rect,
    buf: &mut Buffer,
) {
    match open {
        Overlay::None => {}
        Overlay::Help(scroll) => super::help::render(app, *scroll, theme, area, buf),
        Overlay::Command(text) => input_bar(theme, screen.status, ":", text, buf),
        Overlay::Filter(_, text) => input_bar(theme, screen.status, "/", text, buf),
        Overlay::Editor(editor) => {
            let rect = editor_area(screen).unwrap_or(area);
            super::lesson::editor_view::editor(app, editor, theme, rect, buf);
        }
        Overlay::Jumps(list) => super::jump_list::render(app, list, theme, area, buf),
        Overlay::Question(question) => {
            overlay(app, &question.under, screen, theme, area, buf);
            super::question::render(app, question, theme, area, buf);
        }
    }
}

/// Draws the help or a question over the lesson picker.
fn overlay_over_picker(app: &App, open: &Overlay, theme: &Theme, area: Rect, buf: &mut Buffer) {
    match open {
        Overlay::Help(scroll) => super::help::render(app, *scroll, theme, area, buf),
        Overlay::Question(question) => {
            overlay_over_picker(app, &question.under, theme, area, buf);
            super::question::render(app, question, theme, area, buf);
        }
        _ => {}
    }
}

/// Where a lesson's text goes, and the pane below it if any: the narration
/// and explain panes' place, the panel as tall as the step needs; a step
/// too long for it takes the sequence's place above too.
fn lesson_area(app: &App, player: &Player, screen: &Screen) -> Option<(Rect, Option<Rect>)> {
    let rect = |id| screen.panes.iter().find(|(p, _)| *p == id).map(|(_, r)| *r);
    let narration = rect(panes::PaneId::Narration)?;
    let area = rect(panes::PaneId::Explain).map_or(narration, |e| narration.union(e));
    let needed = super::lesson::view::panel_height(app, player, area.width);
    if needed + MIN_BELOW <= area.height {
        // The step fits with room to spare: the sequence diagram stays in
        // sight above, and Explain or the narration takes the rest below.
        let below = Rect::new(area.x, area.y + needed, area.width, area.height - needed);
        return Some((
            Rect {
                height: needed,
                ..area
            },
            Some(below),
        ));
    }
    if needed <= area.height {
        return Some((area, None));
    }
    // A long step (a quiz and its explanation) takes the sequence's place too.
    match rect(panes::PaneId::Sequence) {
        Some(sequence) if sequence.x.abs_diff(narration.x) <= 1 => {
            Some((area.union(sequence), None))
        }
        _ => Some((area, None)),
    }
}

/// The least height a pane below the lesson panel is given.
const MIN_BELOW: u16 = 6;

/// Where the editor goes: the left column above the logs (pipeline, watch
/// and objects panes), so the lesson's goal stays in sight.
fn editor_area(screen: &Screen) -> Option<Rect> {
    let rect = |id| screen.panes.iter().find(|(p, _)| *p == id).map(|(_, r)| *r);
    let pipeline = rect(panes::PaneId::Pipeline)?;
    let mut area = pipeline;
    for id in [panes::PaneId::Watch, panes::PaneId::Objects] {
        if let Some(r) = rect(id)
            && r.x < pipeline.x + pipeline.width
        {
            area = area.union(r);
        }
    }
    Some(area)
}

fn too_small(app: &App, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let text = app.lang.pick(
        "podflow needs a bigger terminal (at least 40×12)",
        "podflow 需要更大的终端（至少 40×12）",
    );
    Paragraph::new(text)
        .style(theme.text)
        .alignment(Alignment::Center)
        .wrap(Wrap { trim: true })
        .render(area, buf);
}

/// The status bar's left part: step, clock, speed, playing or paused.
fn status_text(app: &App) -> String {
    let total = app.timeline.len();
    let step = if total == 0 { 0 } else { app.cursor + 1 };
    let speed = SPEEDS[app.speed];
    let speed = if speed < 1.0 {
        format!("×{speed}")
    } else {
        format!("×{speed:.0}")
    };
    let state = if app.playing {
        app.lang.pick("▶ playing", "▶ 播放中")
    } else {
        app.lang.pick("⏸ paused", "⏸ 已暂停")
    };
    let lesson = app.lesson.as_ref().map_or_else(String::new, |player| {
        let what = if player.scoring.is_some() {
            app.lang.pick("drill", "演练")
        } else {
            app.lang.pick("lesson", "课程")
        };
        format!(" {what} {}/{} ·", player.step + 1, player.len())
    });
    // While the run is still being computed, its length so far is marked
    // `+`; a run cut short for want of memory, `✂`.
    let more = if app.timeline.is_cut_short() {
        "✂"
    } else if app.timeline.is_complete() {
        ""
    } else {
        "+"
    };
    format!(
        "{lesson} {} {step}/{total}{more}  {}  {speed} {state}",
        app.lang.pick("step", "步骤"),
        clock(app.timeline.now_at(app.cursor))
    )
}

/// The status bar's parts right of its left text: what the step is (its
/// phase, or the heartbeats it folds), the timeline slider, the keys.
struct StatusParts {
    title: Rect,
    slider: Rect,
    keys: Rect,
}

/// The slider's width when there is room for it besides a title.
const SLIDER_WIDTH: u16 = 20;
/// The room a title keeps before the slider may take the rest (most titles fit).
const TITLE_MIN: u16 = 32;

/// The keys' hint at the bar's right: the everyday keys, or only `? q`
/// when they would leave the step's title too little room (`?` lists them all).
fn keys_hint(app: &App, status: Rect) -> String {
    let left = unicode_width(&status_text(app)) + 2;
    let title = unicode_width(&step_title(app)).min(usize::from(TITLE_MIN));
    let with_slider = usize::from(TITLE_MIN + SLIDER_WIDTH + 1);
    // The longest hint that leaves its room: every key beside a slider on a
    // wide bar, the everyday keys beside the title, else only `? q`.
    [
        (
            app.lang
                .pick("space ←→ [ ] +- z / : ? q", "空格 ←→ [ ] +- z / : ? q"),
            with_slider,
        ),
        (
            app.lang.pick("space ←→ [ ] : ? q", "空格 ←→ [ ] : ? q"),
            title,
        ),
    ]
    .iter()
    .map(|(keys, room)| (format!(" {}  {keys} ", app.lang.code()), room))
    .find(|(hint, room)| left + unicode_width(hint) + *room <= usize::from(status.width))
    .map_or_else(|| " ? q ".to_owned(), |(hint, _)| hint)
}

fn status_parts(app: &App, status: Rect) -> StatusParts {
    let width = |text: &str| u16::try_from(unicode_width(text)).unwrap_or(u16::MAX);
    let left = (width(&status_text(app)) + 2).min(status.width);
    let keys = width(&keys_hint(app, status)).min(status.width - left);
    let room = status.width - left - keys;
    let slider = if room > SLIDER_WIDTH + TITLE_MIN {
        SLIDER_WIDTH
    } else {
        0
    };
    let title = room - slider - u16::from(slider > 0);
    let x = status.x + left;
    StatusParts {
        title: Rect::new(x, status.y, title, 1),
        slider: Rect::new(status.x + status.width - keys - slider, status.y, slider, 1),
        keys: Rect::new(status.x + status.width - keys, status.y, keys, 1),
    }
}

/// What the current step is, for the status bar: the heartbeats it folds,
/// or its phase.
pub fn step_title(app: &App) -> String {
    if app.heartbeats.folded()
        && let Some(fold) = super::steps::fold_at(&app.timeline, app.cursor)
    {
        // Whole seconds: `00:20–00:30`.
        let seconds = |ms: u64| format!("{:02}:{:02}", ms / 60_000, ms / 1000 % 60);
        let span = format!("{}–{}", seconds(fold.from_ms), seconds(fold.to_ms));
        let (n, reports) = (fold.renewals, fold.status_reports);
        return match app.lang {
            super::lang::Lang::En => {
                let reports = match reports {
                    0 => String::new(),
                    1 => " + 1 node status".to_owned(),
                    n => format!(" + {n} node statuses"),
                };
                format!("♥ {n} Lease renewals{reports}, {span}, folded (H shows each)")
            }
            super::lang::Lang::Zh => {
                let reports = match reports {
                    0 => String::new(),
                    n => format!(" + {n} 次节点状态"),
                };
                format!("♥ {n} 次 Lease 续约{reports}，{span}，已合并（H 逐条显示）")
            }
        };
    }
    super::phases::title(app.timeline.records(), app.cursor)
}

/// The step a click at column `x` on the slider asks for.
pub fn slider_step(app: &App, status: Rect, x: u16) -> Option<usize> {
    let slider = status_parts(app, status).slider;
    if slider.width < 2 || x < slider.x || x >= slider.x + slider.width {
        return None;
    }
    let last = app.last();
    let offset = usize::from(x - slider.x);
    Some(offset * last / usize::from(slider.width - 1))
}

fn status_bar(app: &App, theme: &Theme, area: Rect, buf: &mut Buffer) {
    buf.set_style(area, theme.bar);
    let total = app.timeline.len();
    Line::from(Span::styled(status_text(app), theme.bar)).render(area, buf);
    let parts = status_parts(app, area);
    // A notice (an error, say) or the echo of a command just run takes the
    // place of the rest, cut to it (a long notice is also boxed above).
    let message = match (&app.notice, &app.ran) {
        (Some(notice), _) => Some((notice, theme.bad.patch(theme.bar))),
        (None, Some(ran)) => Some((ran, theme.bar)),
        (None, None) => None,
    };
    if let Some((text, style)) = message {
        let rect = Rect::new(
            parts.title.x,
            area.y,
            area.x + area.width - parts.title.x,
            1,
        );
        let text = super::wrap::truncate(&format!(" {text}"), usize::from(rect.width));
        Line::from(Span::styled(text, style)).render(rect, buf);
        return;
    }
    let title = super::wrap::truncate(&step_title(app), usize::from(parts.title.width));
    Line::from(Span::styled(title, theme.bar.add_modifier(Modifier::BOLD)))
        .render(parts.title, buf);
    let slider = parts.slider;
    if slider.width >= 4 && total > 0 {
        let filled = usize::from(slider.width - 1) * app.cursor / app.last().max(1);
        let bar: String = (0..usize::from(slider.width))
            .map(|i| match i.cmp(&filled) {
                std::cmp::Ordering::Less => '━',
                std::cmp::Ordering::Equal => '●',
                std::cmp::Ordering::Greater => '─',
            })
            .collect();
        Line::from(Span::styled(bar, theme.bar)).render(slider, buf);
    }
    if parts.keys.width > 0 {
        Line::from(Span::styled(keys_hint(app, area), theme.bar)).render(parts.keys, buf);
    }
}

/// A notice too long for the status bar (a refused file's place and reason,
/// say) is shown whole as well, wrapped in a box just above the bar, until
/// the next key clears it.
fn long_notice(app: &App, theme: &Theme, status: Rect, buf: &mut Buffer) {
    let Some(notice) = &app.notice else {
        return;
    };
    let room = (status.x + status.width).saturating_sub(status_parts(app, status).title.x);
    if unicode_width(notice) < usize::from(room) || status.y < 3 {
        return;
    }
    let width = status.width.saturating_sub(2);
    let lines = super::wrap::wrap(notice, usize::from(width.max(1)));
    let height = u16::try_from(lines.len() + 2)
        .unwrap_or(u16::MAX)
        .min(status.y.max(1) / 2 + 2)
        .min(status.y);
    let rect = Rect::new(status.x, status.y - height, status.width, height);
    Clear.render(rect, buf);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.bad)
        .title(
            app.lang
                .pick(" notice (any key closes) ", " 提示（任意键关闭） "),
        );
    let text: Vec<Line> = lines
        .into_iter()
        .map(|l| Line::from(Span::styled(l, theme.text)))
        .collect();
    Paragraph::new(text).block(block).render(rect, buf);
}

/// `mm:ss.mmm` of simulated time.
fn clock(t: SimTime) -> String {
    t.to_string()
}

fn unicode_width(text: &str) -> usize {
    Line::from(text).width()
}

fn input_bar(theme: &Theme, area: Rect, prompt: &str, text: &str, buf: &mut Buffer) {
    Clear.render(area, buf);
    let line = Line::from(vec![
        Span::styled(prompt.to_owned(), theme.active),
        Span::styled(format!("{text}▏"), theme.text),
    ]);
    line.render(area, buf);
}

/// Clears `rect` for a box drawn over the panes. A double-width character
/// just left of it (Chinese text in the pane below) has its right half
/// under the box's left border, and a terminal would draw it over the
/// border: it gives way to a space.
pub(crate) fn clear_over(rect: Rect, buf: &mut Buffer) {
    Clear.render(rect, buf);
    if rect.x <= buf.area.x {
        return;
    }
    for y in rect.top()..rect.bottom().min(buf.area.bottom()) {
        let cell = &mut buf[(rect.x - 1, y)];
        if unicode_width(cell.symbol()) > 1 {
            cell.set_symbol(" ");
        }
    }
}
