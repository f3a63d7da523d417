//! How lessons draw: the picker over the whole screen, and the lesson panel
//! in the narration pane's place (with the explain pane's room when there is
//! one) while a lesson plays.
//!
//! ```text
//! ┌ Lesson 7/16 · From kubectl apply to Running ──────┐
//! │The API server has just stored the Pod. What is its│
//! │phase?                                             │
//! │ 1) Pending            ✓                           │
//! │ 2) Running                                        │
//! │Pending: accepted by the cluster, but …            │
//! │n next  p previous  1-9 answer                     │
//! └───────────────────────────────────────────────────┘
//! ```

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph, Widget, Wrap};

use super::player::Player;
use crate::tui::app::App;
use crate::tui::lang::Lang;
use crate::tui::theme::Theme;
use podflow_lesson::format::{Goal, Quiz, Step, Text};

fn pick(text: &Text, lang: Lang) -> String {
    text.pick(lang == Lang::Zh).to_owned()
}

/// The picker, over the whole screen.
pub fn picker(app: &App, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let Some(picker) = &app.picker else {
        return;
    };
    let lang = app.lang;
    Clear.render(area, buf);
    buf.set_style(area, theme.text);
    let block = Block::new()
        .borders(Borders::ALL)
        .border_type(BorderType::Thick)
        .border_style(theme.border_focused)
        .title(Span::styled(
            lang.pick(" podflow · Lessons ", " podflow · 课程 "),
            theme.border_focused,
        ));
    let inner = block.inner(area);
    block.render(area, buf);
    let [list, about, keys] = Layout::vertical([
        Constraint::Length(u16::try_from(picker.lessons.len() + 2).unwrap_or(u16::MAX)),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(inner);
    let mut lines = vec![Line::from(Span::styled(
        lang.pick(
            "Pick a lesson: watch, answer and do.",
            "选择一课：观看、回答、动手。",
        ),
        theme.dim,
    ))];
    for (i, lesson) in picker.lessons.iter().enumerate() {
        let selected = i == picker.selected;
        let marker = if selected { "▶" } else { " " };
        let minutes = lesson
            .doc
            .minutes
            .map(|m| format!("{m} {}", lang.pick("min", "分钟")))
            .unwrap_or_default();
        let style = if selected { theme.active } else { theme.text };
        lines.push(Line::from(vec![
            Span::styled(format!("{marker} {}. ", i + 1), style),
            Span::styled(pick(&lesson.doc.title.value, lang), style),
            Span::styled(format!("  {minutes}  "), theme.dim),
            Span::styled(picker.progress_of(i, &app.progress), theme.ok),
        ]));
    }
    Paragraph::new(lines).render(list, buf);
    let mut about_lines = Vec::new();
    if let Some(lesson) = picker.lessons.get(picker.selected) {
        about_lines.push(Line::from(Span::styled(
            pick(&lesson.doc.summary.value, lang),
            theme.text,
        )));
    }
    if let Some(error) = &picker.error {
        about_lines.push(Line::default());
        about_lines.push(Line::from(Span::styled(error.clone(), theme.bad)));
    }
    Paragraph::new(about_lines)
        .wrap(Wrap { trim: true })
        .render(about, buf);
    // Esc goes back to the lesson the picker was opened from, if any.
    let footer = if app.lesson.is_some() {
        lang.pick(
            "↑↓ choose  Enter open  Esc back to the lesson  L 中文  ? keys  q quit",
            "↑↓ 选择  Enter 打开  Esc 回到课程  L English  ? 按键  q 退出",
        )
    } else {
        lang.pick(
            "↑↓ choose  Enter open  Esc sandbox  L 中文  ? keys  q quit",
            "↑↓ 选择  Enter 打开  Esc 沙盒  L English  ? 按键  q 退出",
        )
    };
    Line::from(Span::styled(footer, theme.dim)).render(keys, buf);
}

/// The lines of the current step.
fn step_lines(player: &Player, app: &App, theme: &Theme) -> Vec<Line<'static>> {
    let lang = app.lang;
    let text = |t: &Text| Line::from(Span::styled(pick(t, lang), theme.text));
    let mut lines = Vec::new();
    match player.current() {
        None => {}
        Some(Step::Narrate(n)) => lines.push(text(&n.text.value)),
        Some(Step::Command(c)) => {
            lines.push(Line::from(Span::styled(
                format!("$ kubectl {}", c.run.value),
                theme.component,
            )));
            if let Some(t) = &c.text {
                lines.push(text(&t.value));
            }
        }
        Some(Step::Pause(p)) => {
            lines.push(Line::from(Span::styled(
                lang.pick("⏸ Pause", "⏸ 暂停"),
                theme.active,
            )));
            if let Some(t) = &p.text {
                lines.push(text(&t.value));
            }
        }
        Some(Step::Quiz(q)) => quiz_lines(player, q, lang, theme, &mut lines),
        Some(Step::Goal(g)) => {
            goal_lines(player, g, app, theme, &mut lines);
            if let Some(scoring) = &player.scoring {
                lines.push(score_line(scoring, lang, theme));
            }
        }
    }
    lines
}

/// A quiz: the question, the choices (marked once answered) and the explanation.
fn quiz_lines(
    player: &Player,
    q: &Quiz,
    lang: Lang,
    theme: &Theme,
    lines: &mut Vec<Line<'static>>,
) {
    lines.push(Line::from(Span::styled(
        pick(&q.question.value, lang),
        theme.active,
    )));
    let right = player.quiz_right();
    for (i, choice) in q.choices.iter().enumerate() {
        let chosen = player.quiz.chosen.contains(&i);
        let mark = match (player.quiz.answered, choice.value.correct, chosen) {
            (true, true, _) => " ✓",
            (true, false, true) => " ✗",
            (false, _, true) => " ●",
            _ => "",
        };
        lines.push(Line::from(vec![
            Span::styled(choice_mark(i + 1), theme.component),
            Span::styled(pick(&choice.value.text(), lang), theme.text),
            Span::styled(
                mark,
                if choice.value.correct {
                    theme.ok
                } else {
                    theme.bad
                },
            ),
        ]));
    }
    if player.quiz.answered {
        let verdict = if right {
            lang.pick("Right. ", "答对了。")
        } else {
            lang.pick("Not quite. ", "不完全对。")
        };
        lines.push(Line::from(vec![
            Span::styled(verdict, if right { theme.ok } else { theme.bad }),
            Span::styled(pick(&q.explain.value, lang), theme.text),
        ]));
    }
}

/// A goal: the task, whether it holds, the hints asked for and the solution.
fn goal_lines(player: &Player, g: &Goal, app: &App, theme: &Theme, lines: &mut Vec<Line<'static>>) {
    let lang = app.lang;
    let text = |t: &Text| Line::from(Span::styled(pick(t, lang), theme.text));
    lines.push(Line::from(Span::styled(
        lang.pick("Goal: ", "目标："),
        theme.active,
    )));
    lines.push(text(&g.task.value));
    let solved = player.solved(&app.timeline, app.cursor).unwrap_or(false);
    let check = player.check_text(lang).unwrap_or_default();
    lines.push(Line::from(vec![
        Span::styled(
            if solved {
                lang.pick("✓ done: ", "✓ 完成：")
            } else {
                lang.pick("✗ not yet: ", "✗ 尚未完成：")
            },
            if solved { theme.ok } else { theme.bad },
        ),
        Span::styled(check, theme.dim),
    ]));
    for hint in g.hints.iter().take(player.goal.hints) {
        lines.push(Line::from(vec![
            Span::styled(lang.pick("Hint: ", "提示："), theme.component),
            Span::styled(pick(&hint.value, lang), theme.text),
        ]));
    }
    if player.goal.solution {
        if let Some(cause) = &g.cause {
            lines.push(Line::from(vec![
                Span::styled(lang.pick("Cause: ", "原因："), theme.component),
                Span::styled(pick(&cause.value, lang), theme.text),
            ]));
        }
        lines.push(Line::from(Span::styled(
            lang.pick("Solution:", "答案："),
            theme.component,
        )));
        for line in &g.solution {
            lines.push(Line::from(Span::styled(
                format!("  :{}", line.value),
                theme.text,
            )));
        }
    }
}

/// A drill's score line: the points it is worth now, or what it was solved with.
fn score_line(scoring: &super::player::Scoring, lang: Lang, theme: &Theme) -> Line<'static> {
    match scoring.done {
        Some((score, seconds)) => Line::from(Span::styled(
            format!(
                "{} {score}/100 · {}:{:02}",
                lang.pick("✓ Drill solved. Score", "✓ 演练完成。得分"),
                seconds / 60,
                seconds % 60
            ),
            theme.ok,
        )),
        None => Line::from(Span::styled(
            format!(
                "{} {}/100 ({} {}{})",
                lang.pick("Score now:", "当前得分："),
                scoring.score(),
                lang.pick("hints", "提示"),
                scoring.hints,
                if scoring.solution {
                    lang.pick(", solution shown", "，已看答案")
                } else {
                    ""
                }
            ),
            theme.dim,
        )),
    }
}

/// The keys that apply to the current step.
fn keys(player: &Player, lang: Lang) -> &'static str {
    match player.current() {
        Some(Step::Quiz(q)) if q.choices.iter().filter(|c| c.value.correct).count() > 1 => lang
            .pick(
                "n/p step  1-9 choose  Enter answer",
                "n/p 步骤  1-9 选择  Enter 作答",
            ),
        Some(Step::Quiz(_)) => lang.pick("n/p step  1-9 answer", "n/p 步骤  1-9 作答"),
        Some(Step::Goal(g)) if g.edit.is_some() => lang.pick(
            "n/p step  e edit  : command  i hint  r reset  s solution",
            "n/p 步骤  e 编辑  : 命令  i 提示  r 重置  s 答案",
        ),
        Some(Step::Goal(_)) => lang.pick(
            "n/p step  : command  i hint  r reset  s solution",
            "n/p 步骤  : 命令  i 提示  r 重置  s 答案",
        ),
        _ => lang.pick("n next step  p previous step", "n 下一步  p 上一步"),
    }
}

/// The rows the lesson panel needs at `width` to show the current step
/// whole: its wrapped lines, the keys' line and the borders.
pub fn panel_height(app: &App, player: &Player, width: u16) -> u16 {
    let inner = usize::from(width.saturating_sub(2)).max(1);
    let lines: usize = step_lines(player, app, &app.styles())
        .iter()
        .map(|line| wrap_or_blank(line, inner).len())
        .sum();
    u16::try_from(lines + 3).unwrap_or(u16::MAX)
}

/// A quiz choice's number as its line starts: ` 2) `.
fn choice_mark(n: usize) -> String {
    format!(" {n}) ")
}

/// How far a step line's wrapped rows are indented: a quiz choice's hang
/// under its text, clear of its number.
fn hang(line: &Line<'_>) -> usize {
    let Some(first) = line.spans.first() else {
        return 0;
    };
    let number = first
        .content
        .strip_prefix(' ')
        .and_then(|rest| rest.strip_suffix(") "));
    if number.is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())) {
        first.content.len()
    } else {
        0
    }
}

/// A step line wrapped to `width`, a choice's later rows hanging under its
/// text; an empty line stays one blank row.
fn wrap_or_blank(line: &Line<'_>, width: usize) -> Vec<Line<'static>> {
    let mut rows = super::super::wrap::wrap_line(line, width);
    let hang = hang(line).min(width / 2);
    if hang > 0 && rows.len() > 1 {
        rows.truncate(1);
        let first: usize = rows[0].spans.iter().map(|s| s.content.len()).sum();
        let rest = super::super::wrap::wrap_line(&line_after(line, first), width - hang);
        rows.extend(rest.into_iter().map(|mut row| {
            row.spans.insert(0, Span::raw(" ".repeat(hang)));
            row
        }));
    }
    if rows.is_empty() {
        vec![Line::default()]
    } else {
        rows
    }
}

/// What of `line` comes after its first `at` bytes, leading spaces dropped
/// (as a wrapped row drops them), each span keeping its style.
fn line_after(line: &Line<'_>, mut at: usize) -> Line<'static> {
    let mut spans = Vec::new();
    for span in &line.spans {
        let content: &str = &span.content;
        let kept = content.get(at.min(content.len())..).unwrap_or_default();
        at = at.saturating_sub(content.len());
        let kept = if spans.is_empty() {
            kept.trim_start()
        } else {
            kept
        };
        if !kept.is_empty() {
            spans.push(Span::styled(kept.to_owned(), span.style));
        }
    }
    Line::from(spans).style(line.style)
}

/// The lesson panel in `area` (the narration pane's place).
pub fn panel(app: &App, player: &Player, theme: &Theme, area: Rect, buf: &mut Buffer) {
    Clear.render(area, buf);
    let title = format!(
        " {} {}/{} · {} ",
        if player.scoring.is_some() {
            app.lang.pick("Drill", "演练")
        } else {
            app.lang.pick("Lesson", "课程")
        },
        player.step + 1,
        player.len(),
        pick(&player.lesson.doc.title.value, app.lang)
    );
    let title = super::super::wrap::truncate(&title, usize::from(area.width.saturating_sub(2)));
    let block = Block::new()
        .borders(Borders::ALL)
        .border_type(BorderType::Thick)
        .border_style(theme.border_focused)
        .title(Span::styled(title, theme.border_focused));
    let inner = block.inner(area);
    block.render(area, buf);
    if inner.height < 2 {
        return;
    }
    let [body, footer] = Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(inner);
    // Wrapped as `panel_height` measured it, so the panel holds it whole.
    let width = usize::from(body.width).max(1);
    let lines: Vec<Line<'static>> = step_lines(player, app, theme)
        .iter()
        .flat_map(|line| wrap_or_blank(line, width))
        .collect();
    let below = u16::try_from(lines.len())
        .unwrap_or(u16::MAX)
        .saturating_sub(body.height);
    let scroll = player.scroll.min(below);
    Paragraph::new(lines).scroll((scroll, 0)).render(body, buf);
    Line::from(Span::styled(keys(player, app.lang), theme.dim)).render(footer, buf);
    if let Some(more) = more(scroll > 0, scroll < below, app.lang) {
        Line::from(Span::styled(format!(" {more}"), theme.active))
            .right_aligned()
            .render(footer, buf);
    }
}

/// The footer's sign that the step runs past the panel: which way the rest
/// lies, and the keys that scroll to it.
fn more(above: bool, below: bool, lang: Lang) -> Option<&'static str> {
    match (above, below) {
        (false, true) => Some(lang.pick("↓ more", "↓ 更多")),
        (true, true) => Some(lang.pick("↑↓ more", "↑↓ 更多")),
        (true, false) => Some(lang.pick("↑ more", "↑ 更多")),
        (false, false) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(line: &Line<'_>, width: usize) -> Vec<String> {
        wrap_or_blank(line, width)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn a_choice_wraps_under_its_text_and_other_lines_do_not_hang() {
        let choice = Line::from(vec![
            Span::raw(choice_mark(1)),
            Span::raw("one two three four five six"),
        ]);
        assert_eq!(
            rows(&choice, 14),
            [" 1) one two", "    three four", "    five six"]
        );
        let prose = Line::from("one two three four five six");
        assert_eq!(rows(&prose, 14), ["one two three", "four five six"]);
        // Not a choice's number: no hang.
        let solution = Line::from("  :apply -f fixed.yaml now");
        assert_eq!(hang(&solution), 0);
        assert_eq!(
            hang(&Line::from(vec![Span::raw(" x) "), Span::raw("y")])),
            0
        );
    }
}
