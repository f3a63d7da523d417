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

/// A line of the step, and what its first row hangs from: a quiz choice's
/// number, its later rows lined up under its text (as the help lines up a
/// key's description).
struct StepLine {
    hang: Option<Span<'static>>,
    line: Line<'static>,
}

impl From<Line<'static>> for StepLine {
    fn from(line: Line<'static>) -> StepLine {
        StepLine { hang: None, line }
    }
}

/// The lines of the current step.
fn step_lines(player: &Player, app: &App, theme: &Theme) -> Vec<StepLine> {
    let lang = app.lang;
    let text = |t: &Text| Line::from(Span::styled(pick(t, lang), theme.text));
    let mut lines = Vec::new();
    match player.current() {
        None => {}
        Some(Step::Narrate(n)) => lines.push(text(&n.text.value).into()),
        Some(Step::Command(c)) => {
            lines.push(
                Line::from(Span::styled(
                    format!("$ kubectl {}", c.run.value),
                    theme.component,
                ))
                .into(),
            );
            if let Some(t) = &c.text {
                lines.push(text(&t.value).into());
            }
        }
        Some(Step::Pause(p)) => {
            lines.push(
                Line::from(Span::styled(lang.pick("⏸ Pause", "⏸ 暂停"), theme.active)).into(),
            );
            if let Some(t) = &p.text {
                lines.push(text(&t.value).into());
            }
        }
        Some(Step::Quiz(q)) => quiz_lines(player, q, lang, theme, &mut lines),
        Some(Step::Goal(g)) => {
            goal_lines(player, g, app, theme, &mut lines);
            if let Some(scoring) = &player.scoring {
                lines.push(score_line(scoring, lang, theme).into());
            }
        }
    }
    lines
}

/// A quiz: the question, the choices (marked once answered) and the explanation.
fn quiz_lines(player: &Player, q: &Quiz, lang: Lang, theme: &Theme, lines: &mut Vec<StepLine>) {
    lines.push(Line::from(Span::styled(pick(&q.question.value, lang), theme.active)).into());
    let right = player.quiz_right();
    for (i, choice) in q.choices.iter().enumerate() {
        let chosen = player.quiz.chosen.contains(&i);
        let mark = match (player.quiz.answered, choice.value.correct, chosen) {
            (true, true, _) => " ✓",
            (true, false, true) => " ✗",
            (false, _, true) => " ●",
            _ => "",
        };
        lines.push(StepLine {
            hang: Some(Span::styled(format!(" {}) ", i + 1), theme.component)),
            line: Line::from(vec![
                Span::styled(pick(&choice.value.text(), lang), theme.text),
                Span::styled(
                    mark,
                    if choice.value.correct {
                        theme.ok
                    } else {
                        theme.bad
                    },
                ),
            ]),
        });
    }
    if player.quiz.answered {
        let verdict = if right {
            lang.pick("Right. ", "答对了。")
        } else {
            lang.pick("Not quite. ", "不完全对。")
        };
        lines.push(
            Line::from(vec![
                Span::styled(verdict, if right { theme.ok } else { theme.bad }),
                Span::styled(pick(&q.explain.value, lang), theme.text),
            ])
            .into(),
        );
    }
}

/// A goal: the task, whether it holds, the hints asked for and the solution.
fn goal_lines(player: &Player, g: &Goal, app: &App, theme: &Theme, lines: &mut Vec<StepLine>) {
    let lang = app.lang;
    let text = |t: &Text| Line::from(Span::styled(pick(t, lang), theme.text));
    lines.push(Line::from(Span::styled(lang.pick("Goal: ", "目标："), theme.active)).into());
    lines.push(text(&g.task.value).into());
    let solved = player.solved(&app.timeline, app.cursor).unwrap_or(false);
    let check = player.check_text(lang).unwrap_or_default();
    lines.push(
        Line::from(vec![
            Span::styled(
                if solved {
                    lang.pick("✓ done: ", "✓ 完成：")
                } else {
                    lang.pick("✗ not yet: ", "✗ 尚未完成：")
                },
                if solved { theme.ok } else { theme.bad },
            ),
            Span::styled(check, theme.dim),
        ])
        .into(),
    );
    for hint in g.hints.iter().take(player.goal.hints) {
        lines.push(
            Line::from(vec![
                Span::styled(lang.pick("Hint: ", "提示："), theme.component),
                Span::styled(pick(&hint.value, lang), theme.text),
            ])
            .into(),
        );
    }
    if player.goal.solution {
        if let Some(cause) = &g.cause {
            lines.push(
                Line::from(vec![
                    Span::styled(lang.pick("Cause: ", "原因："), theme.component),
                    Span::styled(pick(&cause.value, lang), theme.text),
                ])
                .into(),
            );
        }
        lines.push(
            Line::from(Span::styled(
                lang.pick("Solution:", "答案："),
                theme.component,
            ))
            .into(),
        );
        for line in &g.solution {
            lines.push(Line::from(Span::styled(format!("  :{}", line.value), theme.text)).into());
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

/// A step line wrapped to `width`, beside what it hangs from; an empty
/// line stays one blank row.
fn wrap_or_blank(step: &StepLine, width: usize) -> Vec<Line<'static>> {
    let indent = step.hang.as_ref().map_or(0, Span::width).min(width / 2);
    let mut rows = super::super::wrap::wrap_line(&step.line, width - indent);
    if let Some(hang) = &step.hang {
        for (i, row) in rows.iter_mut().enumerate() {
            let before = if i == 0 {
                hang.clone()
            } else {
                Span::raw(" ".repeat(indent))
            };
            row.spans.insert(0, before);
        }
    }
    if rows.is_empty() {
        vec![Line::default()]
    } else {
        rows
    }
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
    // A step longer than the panel: the rows above and below, `↑ 3  ↓ 9 more`,
    // at the footer's right; the keys take the room left of them, and end
    // in `…` when they do not fit (`?` lists them all).
    let above = if scroll > 0 {
        format!("↑ {scroll}")
    } else {
        String::new()
    };
    let below = super::super::wrap::more(usize::from(below - scroll), app.lang);
    let signs = [above, below]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("  ");
    let taken = Line::from(signs.as_str()).width();
    let room = usize::from(footer.width).saturating_sub(taken + usize::from(taken > 0));
    let keys = super::super::wrap::truncate(keys(player, app.lang), room);
    Line::from(Span::styled(keys, theme.dim)).render(footer, buf);
    Line::from(Span::styled(signs, theme.active))
        .right_aligned()
        .render(footer, buf);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(step: &StepLine, width: usize) -> Vec<String> {
        wrap_or_blank(step, width)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn a_choice_wraps_under_its_text_and_other_lines_do_not_hang() {
        let choice = StepLine {
            hang: Some(Span::raw(" 1) ")),
            line: Line::from("one two three four five six"),
        };
        assert_eq!(
            rows(&choice, 14),
            [" 1) one two", "    three four", "    five six"]
        );
        let prose = Line::from("one two three four five six").into();
        assert_eq!(rows(&prose, 14), ["one two three", "four five six"]);
        // Lines that only look like a choice do not hang: a solution's
        // command, a choice's number written in prose.
        for text in ["  :apply -f fixed.yaml now", " 1) one two three four"] {
            let line = Line::from(text);
            let wrapped: Vec<String> = crate::tui::wrap::wrap_line(&line, 14)
                .iter()
                .map(ToString::to_string)
                .collect();
            assert_eq!(rows(&line.into(), 14), wrapped);
        }
    }
}
