//! Fitting the pane's lines to its width and height, never cutting silently:
//! a prose line wraps at spaces (styles kept), a row (a table row, a line of a
//! container's output) too long for the width ends with `…`, and when more
//! lines follow than the pane shows, its title says how many (`↓ 7 more`:
//! the focused pane scrolls), so a two-row pane keeps both rows for the answer.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// How a line meets a width it does not fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    /// Wraps onto more rows.
    Wrap,
    /// Ends with `…`.
    Cut,
}

/// A line of the pane and how it fits.
pub type Row<'a> = (Line<'a>, Fit);

/// A prose line.
pub fn prose(line: Line<'_>) -> Row<'_> {
    (line, Fit::Wrap)
}

/// A prose line of one style.
pub fn styled_prose<'a>(text: impl Into<std::borrow::Cow<'a, str>>, style: Style) -> Row<'a> {
    prose(Line::from(Span::styled(text, style)))
}

/// A table row or a line of output.
pub fn row(line: Line<'_>) -> Row<'_> {
    (line, Fit::Cut)
}

/// The line's characters, each with its style.
fn styled_chars(line: &Line<'_>) -> Vec<(char, Style)> {
    line.spans
        .iter()
        .flat_map(|span| {
            let style = line.style.patch(span.style);
            span.content.chars().map(move |c| (c, style))
        })
        .collect()
}

/// Characters back into a line, one span per run of one style.
fn line_of(chars: &[(char, Style)]) -> Line<'static> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut text = String::new();
    let mut style = None;
    for &(c, s) in chars {
        if style.is_some_and(|st| st != s) {
            spans.push(Span::styled(
                std::mem::take(&mut text),
                style.unwrap_or_default(),
            ));
        }
        style = Some(s);
        text.push(c);
    }
    if let Some(s) = style {
        spans.push(Span::styled(text, s));
    }
    Line::from(spans)
}

fn char_width(c: char) -> usize {
    c.width().unwrap_or(0)
}

/// `line` cut to `room` columns, ending with `…` when cut.
pub fn cut(line: &Line<'_>, room: usize) -> Line<'static> {
    let chars = styled_chars(line);
    let total: usize = chars.iter().map(|(c, _)| char_width(*c)).sum();
    if total <= room {
        return line_of(&chars);
    }
    if room == 0 {
        return Line::default();
    }
    let mut used = 0;
    let mut kept = Vec::new();
    for &(c, s) in &chars {
        let w = char_width(c);
        if used + w > room - 1 {
            break;
        }
        kept.push((c, s));
        used += w;
    }
    let style = kept
        .last()
        .or(chars.first())
        .map_or_else(Style::default, |(_, s)| *s);
    kept.push(('…', style));
    line_of(&kept)
}

/// `line` wrapped to `room` columns: at the last space that fits, or before
/// a wide (CJK) character, or mid-word when a word is wider than the row.
pub fn wrap(line: &Line<'_>, room: usize) -> Vec<Line<'static>> {
    let chars = styled_chars(line);
    if room == 0 {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut rest: &[(char, Style)] = &chars;
    loop {
        let mut used = 0;
        let mut end = 0;
        // The last place the row may break: after a space, or before a wide character.
        let mut brk = None;
        while end < rest.len() {
            let (c, _) = rest[end];
            let w = char_width(c);
            if used + w > room {
                if c == ' ' {
                    brk = Some((end, end + 1));
                } else if w > 1 && end > 0 {
                    brk = Some((end, end));
                }
                break;
            }
            if w > 1 && end > 0 {
                brk = Some((end, end));
            }
            used += w;
            end += 1;
            if c == ' ' {
                brk = Some((end - 1, end));
            }
        }
        if end == rest.len() {
            out.push(line_of(rest));
            return out;
        }
        let (stop, next) = match brk {
            Some(b) if b.0 > 0 => b,
            _ => (end.max(1), end.max(1)),
        };
        out.push(line_of(&rest[..stop]));
        rest = &rest[next..];
        while rest.first().is_some_and(|(c, _)| *c == ' ') {
            rest = &rest[1..];
        }
        if rest.is_empty() {
            return out;
        }
    }
}

/// The rows fitted to `room` columns.
pub fn fit(rows: Vec<Row<'_>>, room: usize) -> Vec<Line<'static>> {
    rows.into_iter()
        .flat_map(|(line, how)| match how {
            Fit::Wrap => wrap(&line, room),
            Fit::Cut => vec![cut(&line, room)],
        })
        .collect()
}

/// The lines shown from `scroll` on in `height` rows, and how many more
/// follow below them.
pub fn visible(
    lines: Vec<Line<'static>>,
    scroll: usize,
    height: usize,
) -> (Vec<Line<'static>>, usize) {
    let scroll = scroll.min(lines.len().saturating_sub(1));
    let mut shown: Vec<Line<'static>> = lines.into_iter().skip(scroll).collect();
    let hidden = shown.len().saturating_sub(height);
    shown.truncate(height);
    (shown, hidden)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::lang::Lang;

    fn text(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_row_too_long_ends_with_an_ellipsis_and_keeps_its_styles() {
        let line = Line::from(vec![
            Span::styled("node-1 ", Style::new().bold()),
            Span::raw("Insufficient cpu"),
        ]);
        let cut_line = cut(&line, 12);
        assert_eq!(cut_line.to_string(), "node-1 Insu…");
        assert_eq!(cut_line.spans[0].style, Style::new().bold());
        assert_eq!(cut(&line, 40).to_string(), "node-1 Insufficient cpu");
        assert_eq!(cut(&Line::from("调度器选择节点"), 8).to_string(), "调度器…");
    }

    #[test]
    fn prose_wraps_at_spaces_and_before_wide_characters() {
        let lines = wrap(&Line::from("back-off 20s then 40s then 80s"), 12);
        assert_eq!(text(&lines), ["back-off 20s", "then 40s", "then 80s"]);
        let lines = wrap(&Line::from("容器退出码为一"), 6);
        assert_eq!(text(&lines), ["容器退", "出码为", "一"]);
        let lines = wrap(&Line::from("averyveryverylongword"), 8);
        assert_eq!(text(&lines), ["averyver", "yverylon", "gword"]);
    }

    #[test]
    fn rows_below_the_pane_are_counted_for_its_title() {
        let lines: Vec<Line<'static>> = (0..10).map(|i| Line::from(format!("line {i}"))).collect();
        let (shown, hidden) = visible(lines.clone(), 0, 4);
        assert_eq!((shown.len(), hidden), (4, 6));
        assert_eq!(crate::tui::wrap::more(hidden, Lang::En), "↓ 6 more");
        let (shown, hidden) = visible(lines, 100, 4);
        assert_eq!((text(&shown), hidden), (vec!["line 9".to_owned()], 0));
        assert_eq!(crate::tui::wrap::more(0, Lang::Zh), "");
    }
}
