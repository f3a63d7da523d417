//! Text taller than its box, shown a window at a time: which lines show at a
//! scroll, and the marks that say how many are above and below (`… 6 lines
//! below: ↓ scrolls`), so no pane ends mid-sentence without saying so. The
//! help and the narration pane read through it.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::lang::Lang;

/// The lines that show: `first..end`, and whether a mark takes the first
/// row (`above`) or the last (`below`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub first: usize,
    pub end: usize,
    pub above: bool,
    pub below: bool,
}

/// The window of `total` lines in `room` rows, scrolled down `scroll`
/// (clamped: scrolled to the end, the last line shows).
pub fn window(total: usize, room: usize, scroll: usize) -> Window {
    if total <= room {
        return Window {
            first: 0,
            end: total,
            above: false,
            below: false,
        };
    }
    let first = scroll.min(total + 1 - room);
    let above = first > 0;
    let mut rows = room.saturating_sub(usize::from(above));
    let below = total - first > rows;
    if below {
        rows = rows.saturating_sub(1);
    }
    Window {
        first,
        end: first + rows,
        above,
        below,
    }
}

/// The lines that show of `lines` in `room` rows scrolled down `scroll`,
/// with the marks (in `mark` style) of what is above and below.
pub fn shown(
    lines: Vec<Line<'_>>,
    room: usize,
    scroll: usize,
    lang: Lang,
    mark: Style,
) -> Vec<Line<'_>> {
    let total = lines.len();
    let Window {
        first,
        end,
        above,
        below,
    } = window(total, room, scroll);
    let mut shown = Vec::with_capacity(end - first + 2);
    if above {
        shown.push(Line::from(Span::styled(self::above(lang, first), mark)));
    }
    shown.extend(lines.into_iter().skip(first).take(end - first));
    if below {
        shown.push(Line::from(Span::styled(
            self::below(lang, total - end),
            mark,
        )));
    }
    shown
}

/// How far down `total` lines in `room` rows scroll: 0 when they fit.
pub fn max_scroll(total: usize, room: usize) -> usize {
    if total <= room { 0 } else { total + 1 - room }
}

/// `1 line`, `2 lines`.
fn lines_en(n: usize) -> String {
    if n == 1 {
        "1 line".to_owned()
    } else {
        format!("{n} lines")
    }
}

/// The mark of `n` lines above.
pub fn above(lang: Lang, n: usize) -> String {
    match lang {
        Lang::En => format!(" … {} above: ↑ scrolls", lines_en(n)),
        Lang::Zh => format!(" …… 上面还有 {n} 行：按 ↑ 滚动"),
    }
}

/// The mark of `n` lines below.
pub fn below(lang: Lang, n: usize) -> String {
    match lang {
        Lang::En => format!(" … {} below: ↓ scrolls", lines_en(n)),
        Lang::Zh => format!(" …… 下面还有 {n} 行：按 ↓ 滚动"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(first: usize, end: usize, above: bool, below: bool) -> Window {
        Window {
            first,
            end,
            above,
            below,
        }
    }

    #[test]
    fn a_window_marks_what_is_above_and_below() {
        assert_eq!(window(5, 10, 3), w(0, 5, false, false), "it fits");
        assert_eq!(window(30, 10, 0), w(0, 9, false, true));
        assert_eq!(window(30, 10, 5), w(5, 13, true, true));
        // At the end: everything after the mark above shows.
        assert_eq!(window(30, 10, 21), w(21, 30, true, false));
        assert_eq!(window(30, 10, 99), w(21, 30, true, false), "clamped");
        assert_eq!(max_scroll(30, 10), 21);
        assert_eq!(max_scroll(5, 10), 0);
    }
}
