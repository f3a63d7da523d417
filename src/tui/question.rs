//! The y/n questions podflow asks before a key throws work away or lets a
//! class skip what a lesson step asks of it: `q` (or Ctrl-C) with a command
//! being typed, commands typed in the sandbox or unsaved edits, and `n` on an
//! unanswered quiz or an unreached goal. `y` goes on; any other key cancels,
//! and what was open under the question comes back.
//!
//! ```text
//! ┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┓
//! ┃Quit and lose 2 commands typed this session? y/n         ┃
//! ┗━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┛
//! ```

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph, Widget};

use super::action::{Action, Effect};
use super::app::{App, Overlay};
use super::lang::Lang;
use super::lesson::LessonKey;
use super::theme::Theme;

/// What would be lost by quitting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Loss {
    /// The text in the command bar.
    TypedLine,
    /// Commands typed in the command bar and run in the sandbox this session.
    Commands(usize),
    /// Unsaved edits of these lesson files.
    Edits(Vec<String>),
}

/// What a lesson step asks that was not done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unfinished {
    Quiz,
    Goal,
}

/// What is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ask {
    /// Quit, losing these.
    Quit(Vec<Loss>),
    /// Go on to the next lesson step, leaving this undone.
    NextStep(Unfinished),
}

/// A question shown, and what was open under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    pub ask: Ask,
    pub under: Overlay,
}

impl Ask {
    /// The question, ending in `y/n`.
    pub fn text(&self, lang: Lang) -> String {
        match self {
            Ask::Quit(losses) => {
                let items: Vec<String> = losses.iter().map(|l| loss_text(l, lang)).collect();
                match lang {
                    Lang::En => format!("Quit and lose {}? y/n", english_list(&items)),
                    Lang::Zh => format!("退出并丢弃{}？y/n", items.join("、")),
                }
            }
            Ask::NextStep(Unfinished::Quiz) => lang
                .pick(
                    "The quiz is not answered yet. Go on anyway? y/n",
                    "测验尚未作答。仍要继续吗？y/n",
                )
                .to_owned(),
            Ask::NextStep(Unfinished::Goal) => lang
                .pick(
                    "The goal is not reached yet. Go on anyway? y/n",
                    "目标尚未达成。仍要继续吗？y/n",
                )
                .to_owned(),
        }
    }
}

fn loss_text(loss: &Loss, lang: Lang) -> String {
    match (loss, lang) {
        (Loss::TypedLine, Lang::En) => "the command being typed".to_owned(),
        (Loss::TypedLine, Lang::Zh) => "正在输入的命令".to_owned(),
        (Loss::Commands(1), Lang::En) => "the command typed this session".to_owned(),
        (Loss::Commands(n), Lang::En) => format!("the {n} commands typed this session"),
        (Loss::Commands(n), Lang::Zh) => format!("本次输入的 {n} 条命令"),
        (Loss::Edits(files), Lang::En) => format!("unsaved edits of {}", english_list(files)),
        (Loss::Edits(files), Lang::Zh) => format!("{} 未保存的修改", files.join("、")),
    }
}

/// `a`, `a and b`, `a, b and c`.
fn english_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

impl App {
    /// Shows `ask` over what is open.
    pub(crate) fn ask(&mut self, ask: Ask) {
        let under = std::mem::take(&mut self.overlay);
        self.overlay = Overlay::Question(Box::new(Question { ask, under }));
    }

    /// What quitting now would lose.
    pub fn losses(&self) -> Vec<Loss> {
        let mut losses = Vec::new();
        if let Overlay::Command(text) = &self.overlay
            && !text.trim().is_empty()
        {
            losses.push(Loss::TypedLine);
        }
        if self.commands_typed > 0 {
            losses.push(Loss::Commands(self.commands_typed));
        }
        let mut files = match &self.overlay {
            Overlay::Editor(editor) => editor.unsaved(),
            _ => Vec::new(),
        };
        if let Some(draft) = self.lesson.as_ref().and_then(|p| p.draft.as_ref()) {
            files.extend(draft.unsaved());
        }
        if !files.is_empty() {
            losses.push(Loss::Edits(files));
        }
        losses
    }

    /// `q` or Ctrl-C: quits at once with nothing to lose, else asks.
    pub(crate) fn quit(&mut self) -> Vec<Effect> {
        let losses = self.losses();
        if losses.is_empty() {
            return vec![Effect::Quit];
        }
        self.ask(Ask::Quit(losses));
        Vec::new()
    }

    /// A key while a question shows: `y` does what was asked, Ctrl-C quits
    /// (asking, if it was not the question already), any other key cancels.
    pub(crate) fn update_question(&mut self, action: Action) -> Vec<Effect> {
        let Overlay::Question(question) = std::mem::take(&mut self.overlay) else {
            return Vec::new();
        };
        let Question { ask, under } = *question;
        self.overlay = under;
        match (action, ask) {
            (Action::Answer(true) | Action::Quit, Ask::Quit(_)) => vec![Effect::Quit],
            (Action::Answer(true), Ask::NextStep(_)) => self.lesson_key(LessonKey::NextStep),
            (Action::Quit, Ask::NextStep(_)) => self.quit(),
            _ => Vec::new(),
        }
    }
}

/// Draws the question in a box across the middle of `area`.
pub fn render(app: &App, question: &Question, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let text = question.ask.text(app.lang);
    let width = area
        .width
        .saturating_sub(4)
        .min(u16::try_from(Line::from(text.as_str()).width() + 4).unwrap_or(u16::MAX));
    let lines = super::wrap::wrap(&text, usize::from(width.saturating_sub(3)).max(1));
    let height = u16::try_from(lines.len() + 2)
        .unwrap_or(u16::MAX)
        .min(area.height);
    let rect = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + area.height.saturating_sub(height) / 2,
        width,
        height,
    );
    Clear.render(rect, buf);
    let lines: Vec<Line> = lines
        .into_iter()
        .map(|l| Line::from(Span::styled(format!(" {l}"), theme.active)))
        .collect();
    Paragraph::new(lines)
        .block(
            Block::new()
                .borders(Borders::ALL)
                .border_type(BorderType::Thick)
                .border_style(theme.bad),
        )
        .render(rect, buf);
}
