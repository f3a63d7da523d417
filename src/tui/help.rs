//! The `?` overlay: every key the screen shown takes (the panes of the
//! sandbox, a lesson, presenter mode, a served cluster; or the lesson
//! picker), listed from the key tables that handle the keys
//! ([`keymap::listed`]), then what podflow simplifies. Too tall for the
//! terminal, it says how many lines are above and below (`…`), and ↑↓ (or
//! Page Up and Down) scroll it.
//!
//! ```text
//! ┌ Keys ────────────────────────────────────────────────────────────────┐
//! │ … 4 lines above: ↑ scrolls                                           │
//! │  Home g End G  first / last step                                     │
//! │  + = -         faster / slower (0.25× to 16×)                        │
//! │ … 12 lines below: ↓ scrolls                                          │
//! └ ↑↓ scroll · Esc close ───────────────────────────────────────────────┘
//! ```

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget};

use super::app::{App, Overlay};
use super::keymap::{self, Context};
use super::scrolled;
use super::theme::Theme;

/// The widest the key column gets (longer keys wrap under the description).
const KEYS_WIDTH: usize = 14;
/// The widest the box gets.
const MAX_WIDTH: u16 = 72;

/// The help laid out in an area: its box and every line of its text.
struct Laid {
    rect: Rect,
    lines: Vec<Line<'static>>,
}

impl Laid {
    /// The rows inside the box.
    fn room(&self) -> usize {
        usize::from(self.rect.height.saturating_sub(2))
    }

    /// How far down it scrolls: 0 when it fits. Scrolled, the first row is
    /// the mark of what is above.
    fn max_scroll(&self) -> usize {
        scrolled::max_scroll(self.lines.len(), self.room())
    }
}

fn lay_out(app: &App, theme: &Theme, area: Rect) -> Laid {
    let width = area.width.saturating_sub(4).min(MAX_WIDTH);
    let inside = usize::from(width.saturating_sub(2));
    let listed = keymap::listed(&Context::of(app));
    let shown: Vec<Vec<(String, &(&str, &str))>> = listed
        .iter()
        .map(|(_, bindings)| bindings.iter().map(|b| (b.shown(), &b.help)).collect())
        .collect();
    let keys_width = shown
        .iter()
        .flatten()
        .map(|(keys, _)| Line::from(keys.as_str()).width())
        .max()
        .unwrap_or(0)
        .min(KEYS_WIDTH);
    // Two spaces, the keys, two spaces; the description beside them, a
    // space from the border.
    let described = inside.saturating_sub(keys_width + 5).max(8);
    let mut lines: Vec<Line> = Vec::new();
    for ((table, _), rows) in listed.iter().zip(&shown) {
        lines.push(Line::from(Span::styled(
            format!(" {}", app.lang.pick(table.title.0, table.title.1)),
            theme.active.add_modifier(Modifier::BOLD),
        )));
        for (keys, (en, zh)) in rows {
            let description = super::wrap::wrap(app.lang.pick(en, zh), described);
            // Keys too long for their column get a line of their own.
            if Line::from(keys.as_str()).width() > keys_width {
                lines.push(Line::from(Span::styled(
                    format!("  {keys}"),
                    theme.component,
                )));
                for part in description {
                    lines.push(Line::from(vec![
                        Span::raw(" ".repeat(keys_width + 4)),
                        Span::styled(part, theme.text),
                    ]));
                }
                continue;
            }
            for (i, part) in description.into_iter().enumerate() {
                let keys = if i == 0 { keys.as_str() } else { "" };
                lines.push(Line::from(vec![
                    Span::styled(format!("  {keys:<keys_width$}  "), theme.component),
                    Span::styled(part, theme.text),
                ]));
            }
        }
    }
    lines.push(Line::from(""));
    let simplified = super::wrap::wrap(
        app.lang.pick(super::SIMPLIFIED.0, super::SIMPLIFIED.1),
        inside.saturating_sub(1),
    );
    lines.extend(
        simplified
            .into_iter()
            .map(|line| Line::from(Span::styled(format!(" {line}"), theme.dim))),
    );
    let height = u16::try_from(lines.len() + 2)
        .unwrap_or(u16::MAX)
        .min(area.height.saturating_sub(2));
    let rect = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + area.height.saturating_sub(height) / 2,
        width,
        height,
    );
    Laid { rect, lines }
}

impl App {
    /// `?`: shows the help from its top, or closes it.
    pub(crate) fn toggle_help(&mut self) {
        self.overlay = if let Overlay::Help(_) = self.overlay {
            Overlay::None
        } else {
            Overlay::Help(0)
        };
    }

    /// While the help shows, ↑↓ (a line) and Page Up and Down (a page) scroll it:
    /// whether `action` was one of them.
    pub(crate) fn help_takes(&mut self, action: super::action::Action) -> bool {
        use super::action::Action;
        if !matches!(self.overlay, Overlay::Help(_)) {
            return false;
        }
        let by = match action {
            Action::Select(lines) => lines,
            Action::Page(pages) => {
                let laid = lay_out(self, &self.styles(), self.area);
                let page = i32::try_from(laid.room().saturating_sub(2).max(1)).unwrap_or(1);
                pages.saturating_mul(page)
            }
            _ => return false,
        };
        self.scroll_help(by);
        true
    }

    /// Scrolls the help by `lines`, staying within what there is to see.
    pub(crate) fn scroll_help(&mut self, lines: i32) {
        let Overlay::Help(scroll) = self.overlay else {
            return;
        };
        let max = lay_out(self, &self.styles(), self.area).max_scroll();
        let scroll = scroll.saturating_add_signed(lines as isize).min(max);
        self.overlay = Overlay::Help(scroll);
    }
}

/// Draws the help over `area`, scrolled down `scroll` lines.
pub fn render(app: &App, scroll: usize, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let Laid { rect, lines } = lay_out(app, theme, area);
    let room = usize::from(rect.height.saturating_sub(2));
    let total = lines.len();
    let shown = scrolled::shown(lines, room, scroll, app.lang, theme.dim);
    super::render::clear_over(rect, buf);
    let keys = if total > room {
        app.lang
            .pick(" ↑↓ scroll · Esc close ", " ↑↓ 滚动 · Esc 关闭 ")
    } else {
        app.lang.pick(" Esc close ", " Esc 关闭 ")
    };
    Paragraph::new(shown)
        .block(
            Block::new()
                .borders(Borders::ALL)
                .border_style(theme.border_focused)
                .title(Span::styled(
                    app.lang.pick(" Keys ", " 按键 "),
                    theme.border_focused,
                ))
                .title_bottom(Span::styled(keys, theme.border_focused)),
        )
        .style(Style::new().patch(theme.text))
        .render(rect, buf);
}
