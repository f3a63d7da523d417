//! A ratatui [`Buffer`] as text: plain lines (screenshots, tests), whole
//! lines with SGR colours (`--screenshot --ansi`), and the escape sequences
//! that turn one screen into the next (a recording's frames: `CUP` to each
//! changed cell, `SGR` when the style changes, then the cell's symbol).
//!
//! The sequences are ECMA-48's, as every terminal (and asciinema's player)
//! reads them: `CSI row ; col H`, `CSI ... m`, `CSI 2 J`.

use std::fmt::Write as _;

use ratatui::buffer::{Buffer, Cell};
use ratatui::style::{Color, Modifier};
use unicode_width::UnicodeWidthStr;

/// Hides the cursor, clears the screen and homes the cursor: a recording's start.
pub const START: &str = "\x1b[?25l\x1b[0m\x1b[2J\x1b[H";
/// Resets the style and shows the cursor again: a recording's end.
pub const END: &str = "\x1b[0m\x1b[?25h";

/// The buffer's symbols as lines of text, trailing spaces trimmed, each line
/// ending in a newline.
pub fn text(buf: &Buffer) -> String {
    let mut out = String::new();
    for y in buf.area.top()..buf.area.bottom() {
        let mut line = String::new();
        for cell in row(buf, y) {
            line.push_str(symbol(cell));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The buffer as lines with their colours: each line starts from the
/// default style, changes it where the cells do, and resets it at its end.
pub fn ansi(buf: &Buffer) -> String {
    let mut out = String::new();
    for y in buf.area.top()..buf.area.bottom() {
        let mut pen: Option<Pen> = None;
        for cell in row(buf, y) {
            let cell_pen = Pen::of(cell);
            if pen != Some(cell_pen) {
                cell_pen.write(&mut out);
                pen = Some(cell_pen);
            }
            out.push_str(symbol(cell));
        }
        out.push_str("\x1b[0m\n");
    }
    out
}

/// The escape sequences that change a terminal showing `prev` into one
/// showing `next` (both the same size): only changed cells are written.
/// Empty when nothing changed.
pub fn diff(prev: &Buffer, next: &Buffer) -> String {
    let mut out = String::new();
    let mut cursor: Option<(u16, u16)> = None;
    let mut pen: Option<Pen> = None;
    for (x, y, cell) in prev.diff(next) {
        if cursor != Some((x, y)) {
            // CUP is 1-based.
            let _ = write!(out, "\x1b[{};{}H", y + 1, x + 1);
        }
        let cell_pen = Pen::of(cell);
        if pen != Some(cell_pen) {
            cell_pen.write(&mut out);
            pen = Some(cell_pen);
        }
        let symbol = symbol(cell);
        out.push_str(symbol);
        let width = u16::try_from(symbol.width().max(1)).unwrap_or(1);
        cursor = Some((x.saturating_add(width), y));
    }
    out
}

/// The cells of row `y` that start a character (the cell after a
/// double-width character belongs to it).
fn row(buf: &Buffer, y: u16) -> impl Iterator<Item = &Cell> {
    let mut skip = 0;
    (buf.area.left()..buf.area.right()).filter_map(move |x| {
        if skip > 0 {
            skip -= 1;
            return None;
        }
        let cell = &buf[(x, y)];
        skip = symbol(cell).width().saturating_sub(1);
        Some(cell)
    })
}

/// A cell's symbol; a space for an empty one, so that the cursor moves as counted.
fn symbol(cell: &Cell) -> &str {
    match cell.symbol() {
        "" => " ",
        s => s,
    }
}

/// The style a terminal draws with: colours and modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pen {
    fg: Color,
    bg: Color,
    modifier: Modifier,
}

/// SGR parameters of the modifiers, in SGR's order.
const MODIFIERS: [(Modifier, u8); 9] = [
    (Modifier::BOLD, 1),
    (Modifier::DIM, 2),
    (Modifier::ITALIC, 3),
    (Modifier::UNDERLINED, 4),
    (Modifier::SLOW_BLINK, 5),
    (Modifier::RAPID_BLINK, 6),
    (Modifier::REVERSED, 7),
    (Modifier::HIDDEN, 8),
    (Modifier::CROSSED_OUT, 9),
];

impl Pen {
    fn of(cell: &Cell) -> Pen {
        Pen {
            fg: cell.fg,
            bg: cell.bg,
            modifier: cell.modifier,
        }
    }

    /// One SGR sequence that sets this pen from any other: a reset first.
    fn write(self, out: &mut String) {
        out.push_str("\x1b[0");
        for (modifier, code) in MODIFIERS {
            if self.modifier.contains(modifier) {
                let _ = write!(out, ";{code}");
            }
        }
        color(out, self.fg, false);
        color(out, self.bg, true);
        out.push('m');
    }
}

/// The SGR parameters of a colour (nothing for the terminal's default).
fn color(out: &mut String, color: Color, background: bool) {
    let base: u8 = if background { 10 } else { 0 };
    let named = |n: u8| n + base;
    let _ = match color {
        Color::Reset => Ok(()),
        Color::Black => write!(out, ";{}", named(30)),
        Color::Red => write!(out, ";{}", named(31)),
        Color::Green => write!(out, ";{}", named(32)),
        Color::Yellow => write!(out, ";{}", named(33)),
        Color::Blue => write!(out, ";{}", named(34)),
        Color::Magenta => write!(out, ";{}", named(35)),
        Color::Cyan => write!(out, ";{}", named(36)),
        Color::Gray => write!(out, ";{}", named(37)),
        Color::DarkGray => write!(out, ";{}", named(90)),
        Color::LightRed => write!(out, ";{}", named(91)),
        Color::LightGreen => write!(out, ";{}", named(92)),
        Color::LightYellow => write!(out, ";{}", named(93)),
        Color::LightBlue => write!(out, ";{}", named(94)),
        Color::LightMagenta => write!(out, ";{}", named(95)),
        Color::LightCyan => write!(out, ";{}", named(96)),
        Color::White => write!(out, ";{}", named(97)),
        Color::Rgb(r, g, b) => write!(out, ";{};2;{r};{g};{b}", named(38)),
        Color::Indexed(i) => write!(out, ";{};5;{i}", named(38)),
    };
}

#[cfg(test)]
mod tests {
    use ratatui::layout::Rect;
    use ratatui::style::Style;

    use super::*;

    fn buffer(lines: &[&str]) -> Buffer {
        Buffer::with_lines(lines.iter().copied())
    }

    #[test]
    fn text_trims_and_keeps_wide_characters_whole() {
        let buf = buffer(&["ab  ", "課程 x"]);
        assert_eq!(text(&buf), "ab\n課程 x\n");
    }

    #[test]
    fn sgr_of_colours_and_modifiers() {
        let table = [
            (Style::new(), "\x1b[0m"),
            (Style::new().fg(Color::Red), "\x1b[0;31m"),
            (Style::new().bg(Color::Red), "\x1b[0;41m"),
            (Style::new().fg(Color::DarkGray), "\x1b[0;90m"),
            (Style::new().bg(Color::LightCyan), "\x1b[0;106m"),
            (
                Style::new().fg(Color::Rgb(1, 2, 3)).bg(Color::Indexed(17)),
                "\x1b[0;38;2;1;2;3;48;5;17m",
            ),
            (
                Style::new()
                    .add_modifier(Modifier::BOLD | Modifier::REVERSED)
                    .fg(Color::White),
                "\x1b[0;1;7;97m",
            ),
        ];
        for (style, want) in table {
            let mut cell = Cell::default();
            cell.set_style(style);
            let mut out = String::new();
            Pen::of(&cell).write(&mut out);
            assert_eq!(out, want, "{style:?}");
        }
    }

    #[test]
    fn diff_moves_only_to_changed_cells() {
        let prev = buffer(&["abcd", "efgh"]);
        let next = buffer(&["abXY", "efgZ"]);
        assert_eq!(
            diff(&prev, &next),
            "\x1b[1;3H\x1b[0mXY\x1b[2;4HZ",
            "adjacent cells share one move and one style"
        );
        assert_eq!(diff(&next, &next), "");
    }

    #[test]
    fn diff_after_a_wide_character_counts_two_columns() {
        let prev = buffer(&["abcde"]);
        let next = buffer(&["課Xde"]);
        assert_eq!(diff(&prev, &next), "\x1b[1;1H\x1b[0m課X");
    }

    #[test]
    fn ansi_lines_reset_at_their_end() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 3, 1));
        buf.set_string(0, 0, "ok", Style::new().fg(Color::Green));
        assert_eq!(ansi(&buf), "\x1b[0;32mok\x1b[0m \x1b[0m\n");
    }
}
