//! Word wrapping by display width for text that mixes English and Chinese:
//! spaces separate words, and a line may also break before or after any wide
//! (CJK) character, as Chinese text breaks. ratatui's own wrapper can let a
//! run of wide characters overflow the last column, so panes whose text may be
//! Chinese wrap with this first.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::lang::Lang;

/// The note of the rows below what a pane or panel shows: `↓ 7 more`
/// (the Explain pane's title, the lesson panel's footer); empty for none.
pub fn more(hidden: usize, lang: Lang) -> String {
    match (hidden, lang) {
        (0, _) => String::new(),
        (n, Lang::En) => format!("↓ {n} more"),
        (n, Lang::Zh) => format!("↓ 还有 {n} 行"),
    }
}

/// `s` cut to `max` columns, ending in `…` when cut.
pub fn truncate(s: &str, max: usize) -> String {
    if UnicodeWidthStr::width(s) <= max {
        return s.to_owned();
    }
    if max == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > max - 1 {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}

/// A styled line cut to `max` columns, ending in `…` (in the style of the
/// span it cuts) when cut.
pub fn truncate_line(line: Line<'static>, max: usize) -> Line<'static> {
    if line.width() <= max {
        return line;
    }
    let mut room = max;
    let mut spans: Vec<Span<'static>> = Vec::new();
    for span in line.spans {
        let w = span.width();
        if w < room {
            room -= w;
            spans.push(span);
            continue;
        }
        // The span at the edge: what fits before the `…`.
        let mut kept = String::new();
        let mut used = 0;
        for c in span.content.chars() {
            let cw = c.width().unwrap_or(0);
            if used + cw + 1 > room {
                break;
            }
            kept.push(c);
            used += cw;
        }
        if room > 0 {
            kept.push('…');
        }
        spans.push(Span::styled(kept, span.style));
        break;
    }
    Line {
        spans,
        style: line.style,
        alignment: line.alignment,
    }
}

/// At most this much of a cut segment is dropped to start a path's tail at
/// a `/`: a longer fragment still names its segment (`…eployments/web`).
const MAX_DROPPED_FRAGMENT: usize = 7;

/// The end of `path` that fits in `room` columns, for a line that shows
/// `…` and then it: from a segment's `/` when the cut falls a few
/// characters into a segment and at least 4 bytes follow that `/`
/// (`…/default/pods`, not `…lt/default/pods`); as cut otherwise.
pub fn path_tail(path: &str, room: usize) -> &str {
    let mut start = path.len();
    let mut used = 0;
    for (at, c) in path.char_indices().rev() {
        used += c.width().unwrap_or(0);
        if used > room {
            break;
        }
        start = at;
    }
    let tail = &path[start..];
    if path[..start].ends_with('/') {
        return tail;
    }
    match tail.find('/') {
        Some(slash) if slash <= MAX_DROPPED_FRAGMENT && tail.len() - slash >= 4 => &tail[slash..],
        _ => tail,
    }
}

/// Whether a line may break before or after `c` without a space.
fn breaks_anywhere(c: char) -> bool {
    c.width().unwrap_or(0) > 1
}

/// `text` as lines no wider than `width` columns (a word longer than a line
/// is cut). Leading spaces of a wrapped line are dropped.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut line_width = 0;
    for token in tokens(text) {
        let token_width: usize = token.chars().map(|c| c.width().unwrap_or(0)).sum();
        let is_space = token.chars().all(char::is_whitespace);
        if line_width + token_width > width && line_width > 0 {
            lines.push(line.trim_end().to_owned());
            line = String::new();
            line_width = 0;
            if is_space {
                continue;
            }
        }
        if token_width > width {
            // A word wider than the line: cut it by character.
            for c in token.chars() {
                let w = c.width().unwrap_or(0);
                if line_width + w > width && line_width > 0 {
                    lines.push(std::mem::take(&mut line));
                    line_width = 0;
                }
                line.push(c);
                line_width += w;
            }
            continue;
        }
        line.push_str(token);
        line_width += token_width;
    }
    if !line.trim_end().is_empty() || lines.is_empty() {
        lines.push(line.trim_end().to_owned());
    }
    lines
}

/// A styled line wrapped as [`wrap`] wraps its text, each piece keeping the
/// styles of the characters it holds: what a pane measures with [`wrap`] is
/// what it draws.
pub fn wrap_line(line: &Line<'_>, width: usize) -> Vec<Line<'static>> {
    let mut text = String::new();
    let mut styles: Vec<(usize, Style)> = Vec::new();
    for span in &line.spans {
        styles.push((text.len(), line.style.patch(span.style)));
        text.push_str(&span.content);
    }
    let style_at = |at: usize| {
        styles
            .iter()
            .rev()
            .find(|(start, _)| *start <= at)
            .map_or(line.style, |(_, style)| *style)
    };
    let mut cursor = 0;
    wrap(&text, width)
        .into_iter()
        .map(|piece| {
            let start = cursor + text[cursor..].find(piece.as_str()).unwrap_or(0);
            let end = start + piece.len();
            cursor = end;
            let mut spans: Vec<Span<'static>> = Vec::new();
            let mut run_start = start;
            for (offset, _) in text[start..end].char_indices().skip(1) {
                let at = start + offset;
                if style_at(at) != style_at(run_start) {
                    spans.push(Span::styled(
                        text[run_start..at].to_owned(),
                        style_at(run_start),
                    ));
                    run_start = at;
                }
            }
            if run_start < end {
                spans.push(Span::styled(
                    text[run_start..end].to_owned(),
                    style_at(run_start),
                ));
            }
            Line::from(spans)
        })
        .collect()
}

/// Chinese punctuation that may not start a line (it closes what is before it).
const NO_LINE_START: &[char] = &[
    '，', '。', '；', '：', '！', '？', '、', '）', '」', '』', '》', '】',
];
/// Chinese punctuation that may not end a line (it opens what is after it).
const NO_LINE_END: &[char] = &['（', '「', '『', '《', '【'];

/// Words, single spaces and single wide characters, in order; a closing
/// punctuation mark stays with what is before it and an opening one with
/// what is after it, as Chinese line breaking keeps them.
fn tokens(text: &str) -> Vec<&str> {
    let mut spans: Vec<(usize, usize)> = Vec::new();
    // Whether the last span ends in an opening mark (the next one joins it).
    let mut opens = false;
    let mut push = |from: usize, to: usize| {
        let token = &text[from..to];
        let closes = token.starts_with(NO_LINE_START)
            && spans.last().is_some_and(|&(f, t)| &text[f..t] != " ");
        match spans.last_mut() {
            Some(last) if opens || closes => last.1 = to,
            _ => spans.push((from, to)),
        }
        opens = token.ends_with(NO_LINE_END);
    };
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if c == ' ' || breaks_anywhere(c) {
            if start < i {
                push(start, i);
            }
            push(i, i + c.len_utf8());
            start = i + c.len_utf8();
        }
    }
    if start < text.len() {
        push(start, text.len());
    }
    spans
        .into_iter()
        .map(|(from, to)| &text[from..to])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A styled line wraps where its text wraps, and each piece keeps the
    /// styles of its characters (the lesson panel draws what it measured).
    #[test]
    fn a_styled_line_wraps_as_its_text_and_keeps_its_styles() {
        use ratatui::style::Modifier;
        let bold = Style::new().add_modifier(Modifier::BOLD);
        let line = Line::from(vec![
            Span::styled("连接从客户端所在节点发出，", bold),
            Span::raw("对端节点看不到 ClusterIP，只看到 Pod IP。"),
        ]);
        let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        let wrapped = wrap_line(&line, 12);
        let pieces: Vec<String> = wrapped
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect();
        assert_eq!(pieces, wrap(&text, 12));
        assert_eq!(wrapped[0].spans[0].style, bold);
        let last = wrapped.last().unwrap();
        assert_eq!(last.spans.last().unwrap().style, Style::new());
    }

    #[test]
    fn a_styled_line_ends_in_an_ellipsis_where_it_is_cut() {
        use ratatui::style::Style;
        let line = Line::from(vec![
            Span::styled("kubelet/node-3", Style::new().bold()),
            Span::raw(" ← MODIFIED pods/default/nginx"),
        ]);
        let text = |l: &Line| {
            l.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
        };
        assert_eq!(text(&truncate_line(line.clone(), 100)), text(&line));
        assert_eq!(
            text(&truncate_line(line.clone(), 20)),
            "kubelet/node-3 ← MO…"
        );
        assert_eq!(text(&truncate_line(line.clone(), 14)), "kubelet/node-…");
        assert_eq!(text(&truncate_line(line.clone(), 15)), "kubelet/node-3…");
        assert_eq!(truncate_line(line.clone(), 20).width(), 20);
        assert_eq!(text(&truncate_line(line, 0)), "");
    }

    #[test]
    fn truncation_counts_display_columns() {
        assert_eq!(truncate("kubectl apply", 20), "kubectl apply");
        assert_eq!(truncate("kubectl apply", 8), "kubectl…");
        // Wide characters take two columns each: 3 of them and `…` fill 7.
        assert_eq!(truncate("调度器选择节点", 8), "调度器…");
        assert_eq!(truncate("abc", 0), "");
    }
    use unicode_width::UnicodeWidthStr;

    #[test]
    fn mixed_text_never_exceeds_the_width() {
        let text =
            "NodeName：如果 Pod 在 spec.nodeName 中指定了节点，就只能调度到该节点；本 Pod 未指定。";
        for width in 5..60 {
            for line in wrap(text, width) {
                assert!(line.width() <= width, "{width}: {line:?}");
            }
        }
        // Nothing but the spaces at the breaks is lost.
        let joined: String = wrap(text, 20).concat();
        assert_eq!(joined.replace(' ', ""), text.replace(' ', ""));
    }

    #[test]
    fn chinese_punctuation_keeps_to_its_side_of_a_break() {
        let text = "简化之处（完整列表见 README）：容器运行小型 shell；Event 不存入 etcd；etcd 只保留最近 4,096 次变更。";
        // From the width of its widest glued word (`README）：`) up.
        for width in 10..40 {
            let lines = wrap(text, width);
            for line in &lines {
                assert!(line.width() <= width, "{width}: {line:?}");
                assert!(!line.starts_with(NO_LINE_START), "{width}: {lines:?}");
                assert!(!line.ends_with(NO_LINE_END), "{width}: {lines:?}");
            }
            assert_eq!(lines.concat().replace(' ', ""), text.replace(' ', ""));
        }
        // The help box's width at 80 columns: the semicolon stays on the first line.
        assert_eq!(
            wrap(text, 35),
            [
                "简化之处（完整列表见 README）：容器",
                "运行小型 shell；Event 不存入 etcd；",
                "etcd 只保留最近 4,096 次变更。"
            ]
        );
    }

    #[test]
    fn a_path_keeps_its_end_from_a_segments_start() {
        let path = "/apis/apps/v1/namespaces/default/replicasets/web-69c6f74b8b/status";
        // (room, the tail)
        let table = [
            (100, path),
            (39, "/replicasets/web-69c6f74b8b/status"),
            // The cut falls just after a `/`: the segment is kept whole.
            (33, "replicasets/web-69c6f74b8b/status"),
            (9, "/status"),
            // Too little after the `/` to jump to it.
            (5, "tatus"),
            (0, ""),
        ];
        for (room, want) in table {
            assert_eq!(path_tail(path, room), want, "room {room}");
        }
        assert_eq!(path_tail("docker.io/library/nginx:1.27", 14), "/nginx:1.27");
        // Ten characters into `deployments`: the fragment still names it.
        let deployment = "/apis/apps/v1/namespaces/default/deployments/web/status";
        assert_eq!(path_tail(deployment, 21), "eployments/web/status");
        assert_eq!(path_tail(deployment, 16), "/web/status");
    }

    #[test]
    fn english_breaks_at_spaces() {
        assert_eq!(
            wrap("the scheduler binds the pod", 14),
            ["the scheduler", "binds the pod"]
        );
        assert_eq!(wrap("", 10), [""]);
        assert_eq!(wrap("abcdefgh", 3), ["abc", "def", "gh"]);
    }
}
