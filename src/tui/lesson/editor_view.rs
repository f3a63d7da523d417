//! How the lesson's editor draws: the shown file with line numbers and the
//! cursor, whether it changed since the last save, what the save said, and
//! the editor's keys.
//!
//! ```text
//! ┏ ✎ db.yaml ● (2/3) ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┓
//! ┃  1 apiVersion: v1                                            ┃
//! ┃  2 kind: Pod                                                 ┃
//! ┃saved db.yaml: now run :apply -f db.yaml                      ┃
//! ┗ Ctrl-S save · Ctrl-N next file · Esc close ━━━━━━━━━━━━━━━━━━┛
//! ```

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph, Widget, Wrap};

use super::editor::Editor;
use crate::tui::app::App;
use crate::tui::theme::Theme;

/// Columns of the line-number gutter (`123 `).
const GUTTER: usize = 4;

fn width_of(text: &str) -> usize {
    Line::from(text).width()
}

/// The text of `line` that fits `width` columns from display column `skip`.
fn visible(line: &str, skip: usize, width: usize) -> String {
    let mut out = String::new();
    let mut column = 0;
    for c in line.chars() {
        let w = width_of(&c.to_string());
        if column >= skip && column + w <= skip + width {
            out.push(c);
        }
        column += w;
    }
    out
}

/// Draws `editor` in `area`.
pub fn editor(app: &App, editor: &Editor, theme: &Theme, area: Rect, buf: &mut Buffer) {
    Clear.render(area, buf);
    let changed = if editor.dirty() { " ●" } else { "" };
    let count = if editor.files() > 1 {
        format!(" ({}/{})", editor.shown() + 1, editor.files())
    } else {
        String::new()
    };
    let keys = app.lang.pick(
        " Ctrl-S save · Ctrl-N next file · Esc close ",
        " Ctrl-S 保存 · Ctrl-N 下一个文件 · Esc 关闭 ",
    );
    let block = Block::new()
        .borders(Borders::ALL)
        .border_type(BorderType::Thick)
        .border_style(theme.border_focused)
        .title(Span::styled(
            format!(" ✎ {}{changed}{count} ", editor.name()),
            theme.border_focused,
        ))
        .title_bottom(Span::styled(keys, theme.border_focused));
    let inner = block.inner(area);
    block.render(area, buf);
    if inner.width <= u16::try_from(GUTTER).unwrap_or(u16::MAX) || inner.height == 0 {
        return;
    }
    // The save's message, wrapped, takes up to three rows under the text.
    let message_rows = editor.message.as_ref().map_or(0, |(_, m)| {
        width_of(m).div_ceil(usize::from(inner.width)).clamp(1, 3)
    });
    let rows = usize::from(inner.height)
        .saturating_sub(message_rows)
        .max(1);
    let text_width = usize::from(inner.width) - GUTTER;
    let (row, col) = editor.cursor();
    let lines: Vec<String> = editor.lines().collect();
    let top = (row + 1).saturating_sub(rows);
    let cursor_x = lines
        .get(row)
        .map_or(0, |l| width_of(&l.chars().take(col).collect::<String>()));
    // Only the cursor's line scrolls sideways (as nano does); the others
    // show their start.
    let skip = (cursor_x + 1).saturating_sub(text_width);
    let mut out: Vec<Line> = Vec::new();
    for (i, line) in lines.iter().enumerate().skip(top).take(rows) {
        let mut spans = vec![Span::styled(format!("{:>3} ", i + 1), theme.dim)];
        if i == row {
            // The cursor: the character under it, reversed (a space past the end).
            let before: String = line.chars().take(col).collect();
            let under = line.chars().nth(col).map_or(" ".to_owned(), String::from);
            let after: String = line.chars().skip(col + 1).collect();
            let shown_before = visible(&before, skip, text_width);
            spans.push(Span::styled(shown_before, theme.text));
            spans.push(Span::styled(
                under,
                theme.text.add_modifier(Modifier::REVERSED),
            ));
            spans.push(Span::styled(after, theme.text));
        } else {
            spans.push(Span::styled(visible(line, 0, text_width), theme.text));
        }
        out.push(Line::from(spans));
    }
    let text_rows = u16::try_from(rows).unwrap_or(u16::MAX).min(inner.height);
    Paragraph::new(out).render(Rect::new(inner.x, inner.y, inner.width, text_rows), buf);
    if let Some((ok, message)) = &editor.message {
        let style = if *ok { theme.ok } else { theme.bad };
        let area = Rect::new(
            inner.x,
            inner.y + text_rows,
            inner.width,
            inner.height - text_rows,
        );
        Paragraph::new(Span::styled(message.clone(), style))
            .wrap(Wrap { trim: false })
            .render(area, buf);
    }
}
