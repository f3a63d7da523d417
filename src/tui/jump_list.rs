//! The `g` overlay: the jump list of the run computed so far ([`jumps`]),
//! the moment shown selected; ↑↓ choose, Enter goes there, Esc or `g`
//! closes.
//!
//! ```text
//! ┌ Jump to ─────────────────────────────────────────────────────────────┐
//! │ 00:00.004  $ kubectl: pod/missing created                            │
//! │ 00:00.013  ◆ Successfully assigned default/missing to node-1         │
//! │ 00:00.915  ✗ Failed default/missing: Error: ErrImagePull  ×14        │
//! └ ↑↓ choose · Enter go · Esc close ────────────────────────────────────┘
//! ```

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget};

use super::action::{Action, Effect};
use super::app::{App, Overlay};
use super::jumps::{Jump, JumpKind, at_or_before, jumps};
use super::panes::narration::clock;
use super::theme::Theme;
use super::wrap::truncate;

/// The open jump list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JumpList {
    pub entries: Vec<Jump>,
    pub selected: usize,
}

/// The widest the box gets.
const MAX_WIDTH: u16 = 100;
/// Entries a Page Down moves.
const PAGE: i32 = 10;

impl App {
    /// `g`: opens the jump list on the moment shown.
    pub(crate) fn open_jumps(&mut self) -> Vec<Effect> {
        let effects = self.pause();
        let entries = jumps(self.timeline.records());
        if entries.is_empty() {
            self.notice = Some(
                self.lang
                    .pick(
                        "Nothing to jump to yet: no command, scheduling or failure.",
                        "还没有可跳转的时刻：没有命令、调度或失败。",
                    )
                    .to_owned(),
            );
            return effects;
        }
        let selected = at_or_before(&entries, self.cursor);
        self.overlay = Overlay::Jumps(JumpList { entries, selected });
        effects
    }

    /// A key while the jump list is open.
    pub(crate) fn update_jumps(&mut self, action: Action) -> Vec<Effect> {
        let Overlay::Jumps(list) = &mut self.overlay else {
            return Vec::new();
        };
        let end = list.entries.len() - 1;
        match action {
            Action::Select(n) => list.selected = moved(list.selected, n, end),
            Action::Page(n) => list.selected = moved(list.selected, n.saturating_mul(PAGE), end),
            Action::First => list.selected = 0,
            Action::Last => list.selected = end,
            Action::Submit => {
                let index = list.entries[list.selected].index;
                self.overlay = Overlay::None;
                self.seek(index);
            }
            Action::Cancel | Action::OpenJumps => self.overlay = Overlay::None,
            Action::ToggleHelp => self.overlay = Overlay::Help(0),
            Action::ToggleLang => self.lang = self.lang.toggle(),
            Action::Quit => return self.quit(),
            _ => {}
        }
        Vec::new()
    }
}

/// `selected` moved by `n`, within `0..=last`.
fn moved(selected: usize, n: i32, last: usize) -> usize {
    let to = i64::try_from(selected).unwrap_or(i64::MAX) + i64::from(n);
    usize::try_from(to.max(0)).unwrap_or(usize::MAX).min(last)
}

/// Draws the list over `area`.
pub fn render(app: &App, list: &JumpList, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let width = area.width.saturating_sub(4).min(MAX_WIDTH);
    let room = usize::from(area.height.saturating_sub(6)).max(1);
    let shown = list.entries.len().min(room);
    let height = u16::try_from(shown + 2).unwrap_or(u16::MAX);
    let rect = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height.saturating_sub(height)) / 2,
        width,
        height.min(area.height),
    );
    // The window of entries that keeps the selected one in view.
    let first = (list.selected + 1).saturating_sub(shown);
    let text_width = usize::from(width.saturating_sub(2));
    let lines: Vec<Line> = list.entries[first..first + shown]
        .iter()
        .enumerate()
        .map(|(i, jump)| line(jump, first + i == list.selected, text_width, theme))
        .collect();
    super::render::clear_over(rect, buf);
    let title = format!(
        " {} {}/{} ",
        app.lang.pick("Jump to", "跳转到"),
        list.selected + 1,
        list.entries.len()
    );
    Paragraph::new(lines)
        .block(
            Block::new()
                .borders(Borders::ALL)
                .border_style(theme.border_focused)
                .title(Span::styled(title, theme.border_focused))
                .title_bottom(Span::styled(
                    app.lang.pick(
                        " ↑↓ choose · Enter go · Esc close ",
                        " ↑↓ 选择 · Enter 跳转 · Esc 关闭 ",
                    ),
                    theme.border_focused,
                )),
        )
        .style(Style::new().patch(theme.text))
        .render(rect, buf);
}

/// One entry: its time, its kind's mark and what happened.
fn line(jump: &Jump, selected: bool, width: usize, theme: &Theme) -> Line<'static> {
    let (mark, style) = match jump.kind {
        JumpKind::Command => ("$", theme.active),
        JumpKind::Scheduled => ("◆", theme.ok),
        JumpKind::Failure => ("✗", theme.bad),
    };
    let times = if jump.times > 1 {
        format!("  ×{}", jump.times)
    } else {
        String::new()
    };
    let head = format!(" {}  ", clock(jump.t_ms));
    let room = width.saturating_sub(head.len() + 2 + times.len());
    let mut spans = vec![
        Span::styled(head, theme.dim),
        Span::styled(format!("{mark} "), style),
        Span::styled(truncate(&jump.label, room), theme.text),
        Span::styled(times, theme.dim),
    ];
    if selected {
        for span in &mut spans {
            span.style = span.style.add_modifier(Modifier::REVERSED);
        }
    }
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use crossterm::event::KeyCode;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use super::*;
    use crate::tui::lang::Lang;
    use crate::tui::testing::{buffer_text, key, press};
    use crate::tui::theme::ThemeName;
    use podflow_engine::testing::timeline;

    /// The default story and a Pod whose image does not exist, to its end.
    fn failing() -> App {
        let mut t = timeline(&["apply -f tests/fixtures/missing-image-pod.yaml"], None);
        t.finish();
        App::new(t, Lang::En, ThemeName::Dark, false)
    }

    fn list(app: &App) -> &JumpList {
        match &app.overlay {
            Overlay::Jumps(list) => list,
            other => panic!("the jump list is not open: {other:?}"),
        }
    }

    #[test]
    fn g_lists_the_moments_and_enter_goes_to_one() {
        let mut app = failing();
        press(&mut app, key(KeyCode::End));
        press(&mut app, key(KeyCode::Char('g')));
        let entries = list(&app).entries.clone();
        assert_eq!(
            list(&app).selected,
            entries.len() - 1,
            "opens on the moment shown"
        );
        press(&mut app, key(KeyCode::Home));
        press(&mut app, key(KeyCode::Down));
        press(&mut app, key(KeyCode::Down));
        press(&mut app, key(KeyCode::Enter));
        assert_eq!(app.overlay, Overlay::None);
        assert_eq!(app.cursor, entries[2].index);
        // Esc and g close it where it was.
        press(&mut app, key(KeyCode::Char('g')));
        assert_eq!(list(&app).selected, 2);
        press(&mut app, key(KeyCode::Esc));
        assert_eq!(app.overlay, Overlay::None);
        press(&mut app, key(KeyCode::Char('g')));
        press(&mut app, key(KeyCode::Char('g')));
        assert_eq!(app.overlay, Overlay::None);
        assert_eq!(app.cursor, entries[2].index);
    }

    #[test]
    fn the_jump_list_80x24() {
        let mut app = failing();
        press(&mut app, key(KeyCode::Char('g')));
        let mut terminal = Terminal::new(TestBackend::new(80, 24)).expect("a test terminal");
        terminal
            .draw(|frame| frame.render_widget(&app, frame.area()))
            .expect("drawing never fails");
        insta::assert_snapshot!(buffer_text(terminal.backend().buffer()));
    }

    #[test]
    fn the_selection_stays_in_the_list() {
        assert_eq!(moved(0, -1, 5), 0);
        assert_eq!(moved(3, 1, 5), 4);
        assert_eq!(moved(3, 10, 5), 5);
        assert_eq!(moved(5, -10, 5), 0);
    }
}
