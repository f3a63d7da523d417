//! Keys to actions: one table, read once per key (no chain of `if`s).

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::action::Action;
use super::lesson::LessonKey;
use super::lesson::editor::EditKey;

/// The action of `key` when no bar is open; `None` for keys podflow ignores.
pub fn action_for(key: KeyEvent) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
        return Some(Action::Quit);
    }
    Some(match key.code {
        KeyCode::Char('q') => Action::Quit,
        KeyCode::Esc => Action::Cancel,
        KeyCode::Char(' ') => Action::TogglePlay,
        KeyCode::Right | KeyCode::Char('l') => Action::StepForward,
        KeyCode::Left | KeyCode::Char('h') => Action::StepBack,
        KeyCode::Char(']') => Action::NextPhase,
        KeyCode::Char('[') => Action::PrevPhase,
        KeyCode::Home | KeyCode::Char('g') => Action::First,
        KeyCode::End | KeyCode::Char('G') => Action::Last,
        KeyCode::Char('+' | '=') => Action::Faster,
        KeyCode::Char('-') => Action::Slower,
        KeyCode::Tab => Action::FocusNext,
        KeyCode::BackTab => Action::FocusPrev,
        KeyCode::Char('z') => Action::ToggleZoom,
        KeyCode::Char('?') => Action::ToggleHelp,
        KeyCode::Char('L') => Action::ToggleLang,
        KeyCode::Char('t') => Action::NextTheme,
        KeyCode::Char(':') => Action::OpenCommand,
        KeyCode::Char('/') => Action::OpenFilter,
        KeyCode::Down | KeyCode::Char('j') => Action::Select(1),
        KeyCode::Up | KeyCode::Char('k') => Action::Select(-1),
        // Presentation clickers send Page Down / Page Up (and `b` to blank).
        KeyCode::Char('n') | KeyCode::PageDown => Action::Lesson(LessonKey::NextStep),
        KeyCode::Char('p') | KeyCode::PageUp => Action::Lesson(LessonKey::PrevStep),
        KeyCode::Enter => Action::Lesson(LessonKey::Confirm),
        KeyCode::Char('i') => Action::Lesson(LessonKey::Hint),
        KeyCode::Char('r') => Action::Lesson(LessonKey::Reset),
        KeyCode::Char('s') => Action::Lesson(LessonKey::Solution),
        KeyCode::Char('e') => Action::Lesson(LessonKey::Edit),
        KeyCode::Char('b') => Action::Blank,
        KeyCode::Char('d') => Action::ToggleDense,
        KeyCode::Char(c @ '1'..='9') => Action::Lesson(LessonKey::Choose(
            u8::try_from(c.to_digit(10).unwrap_or(1)).unwrap_or(1),
        )),
        _ => return None,
    })
}

/// The action of `key` while the command bar or a filter is open.
pub fn bar_action_for(key: KeyEvent) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
        return Some(Action::Cancel);
    }
    Some(match key.code {
        KeyCode::Enter => Action::Submit,
        KeyCode::Esc => Action::Cancel,
        KeyCode::Backspace => Action::Backspace,
        KeyCode::Char(c) => Action::Input(c),
        _ => return None,
    })
}

/// The action of `key` while the lesson's editor is open: every character
/// types, Ctrl-S saves, Ctrl-N shows the next file, Esc closes.
pub fn editor_action_for(key: KeyEvent) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        return match key.code {
            KeyCode::Char('s') => Some(Action::Edit(EditKey::Save)),
            KeyCode::Char('n') => Some(Action::Edit(EditKey::NextFile)),
            KeyCode::Char('c') => Some(Action::Edit(EditKey::Close)),
            _ => None,
        };
    }
    Some(Action::Edit(match key.code {
        KeyCode::Char(c) => EditKey::Char(c),
        KeyCode::Enter => EditKey::Enter,
        KeyCode::Backspace => EditKey::Backspace,
        KeyCode::Delete => EditKey::Delete,
        KeyCode::Left => EditKey::Left,
        KeyCode::Right => EditKey::Right,
        KeyCode::Up => EditKey::Up,
        KeyCode::Down => EditKey::Down,
        KeyCode::Home => EditKey::Home,
        KeyCode::End => EditKey::End,
        KeyCode::Tab => EditKey::Tab,
        KeyCode::Esc => EditKey::Close,
        _ => return None,
    }))
}

/// The lesson keys the help overlay lists while a lesson plays.
pub const LESSON_HELP: &[(&str, &str, &str)] = &[
    (
        "n p",
        "next / previous lesson step",
        "下一个 / 上一个课程步骤",
    ),
    (
        "1-9 Enter",
        "answer a quiz (Enter when several are right)",
        "回答测验（多选时按 Enter 提交）",
    ),
    ("i", "a hint of the goal", "目标的提示"),
    ("s", "the goal's solution", "目标的答案"),
    (
        "r",
        "reset the cluster to the goal's start",
        "把集群重置到目标开始时",
    ),
    (
        "e",
        "edit the lesson's files (Ctrl-S save, Ctrl-N next file, Esc close)",
        "编辑课程文件（Ctrl-S 保存，Ctrl-N 下一个文件，Esc 关闭）",
    ),
];

/// The presenter's keys, listed by the help overlay in presenter mode only.
pub const PRESENT_HELP: &[(&str, &str, &str)] = &[
    (
        "space",
        "play to the next step marker, then pause",
        "播放到下一个步骤标记后暂停",
    ),
    (
        "PgDn PgUp",
        "next / previous lesson step (a clicker's keys)",
        "下一个 / 上一个课程步骤（翻页笔的按键）",
    ),
    (
        "b",
        "blank the screen (any key returns)",
        "黑屏（按任意键返回）",
    ),
    (
        "d",
        "show / hide the dense panes (watch, objects, logs)",
        "显示 / 隐藏细节面板（watch、对象、日志）",
    ),
];

/// The keys the help overlay and the status bar list: (keys, English, Chinese).
pub const HELP: &[(&str, &str, &str)] = &[
    ("space", "play / pause", "播放 / 暂停"),
    ("→ l  ← h", "next / previous step", "下一步 / 上一步"),
    ("] [", "next / previous phase", "下一阶段 / 上一阶段"),
    ("Home End", "first / last step", "第一步 / 最后一步"),
    (
        "+ -",
        "faster / slower (0.25× to 16×)",
        "加速 / 减速（0.25× 到 16×）",
    ),
    ("Tab", "focus the next pane", "切换焦点面板"),
    ("z", "zoom the focused pane", "放大当前面板"),
    (
        "↑ ↓ j k",
        "select / scroll in the pane",
        "在面板中选择 / 滚动",
    ),
    ("/", "filter the focused pane", "过滤当前面板"),
    (
        ":",
        "run a command (apply -f, delete, scale, cordon, wait)",
        "执行命令（apply -f、delete、scale、cordon、wait）",
    ),
    ("L", "English / 中文", "English / 中文"),
    (
        "t",
        "theme: dark, light, high contrast",
        "主题：深色、浅色、高对比度",
    ),
    ("?", "this help", "本帮助"),
    ("q Esc", "quit", "退出"),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn keys_map_to_actions() {
        assert_eq!(
            action_for(key(KeyCode::Char(' '))),
            Some(Action::TogglePlay)
        );
        assert_eq!(action_for(key(KeyCode::Right)), Some(Action::StepForward));
        assert_eq!(action_for(key(KeyCode::Char('h'))), Some(Action::StepBack));
        assert_eq!(action_for(key(KeyCode::Char(']'))), Some(Action::NextPhase));
        assert_eq!(action_for(key(KeyCode::End)), Some(Action::Last));
        assert_eq!(action_for(key(KeyCode::Char('x'))), None);
        assert_eq!(action_for(key(KeyCode::Char('b'))), Some(Action::Blank));
        assert_eq!(
            action_for(key(KeyCode::Char('d'))),
            Some(Action::ToggleDense)
        );
        assert_eq!(
            action_for(key(KeyCode::PageDown)),
            Some(Action::Lesson(LessonKey::NextStep))
        );
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(action_for(ctrl_c), Some(Action::Quit));
        assert_eq!(bar_action_for(ctrl_c), Some(Action::Cancel));
        assert_eq!(
            bar_action_for(key(KeyCode::Char('q'))),
            Some(Action::Input('q'))
        );
        // In the editor every character types, even q; Ctrl-S saves.
        assert_eq!(
            editor_action_for(key(KeyCode::Char('q'))),
            Some(Action::Edit(EditKey::Char('q')))
        );
        let ctrl_s = KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL);
        assert_eq!(editor_action_for(ctrl_s), Some(Action::Edit(EditKey::Save)));
        assert_eq!(
            editor_action_for(key(KeyCode::Esc)),
            Some(Action::Edit(EditKey::Close))
        );
    }
}
