//! Keys to actions: a table of bindings for each screen ([`tables`]), read
//! for every key and listed by the help (`?`), so the help shows exactly the
//! keys the screen takes (no chain of `if`s, no second list to keep in step).

mod tables;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::action::Action;
use super::app::{App, Overlay};
use super::lesson::editor::EditKey;

/// A key as a binding names it: its code, and whether Ctrl is held (Shift
/// is in the code: `G`, `?`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub code: KeyCode,
    pub ctrl: bool,
}

impl Key {
    /// The key of a terminal event.
    pub fn of(event: KeyEvent) -> Key {
        Key {
            code: event.code,
            ctrl: event.modifiers.contains(KeyModifiers::CONTROL),
        }
    }

    /// How the help writes the key: `space`, `→`, `PgDn`, `Ctrl-U`, `q`.
    pub fn name(self) -> String {
        let name = match self.code {
            KeyCode::Char(' ') => "space".to_owned(),
            KeyCode::Char(c) if self.ctrl => c.to_uppercase().collect(),
            KeyCode::Char(c) => c.to_string(),
            KeyCode::Right => "→".to_owned(),
            KeyCode::Left => "←".to_owned(),
            KeyCode::Up => "↑".to_owned(),
            KeyCode::Down => "↓".to_owned(),
            KeyCode::PageDown => "PgDn".to_owned(),
            KeyCode::PageUp => "PgUp".to_owned(),
            KeyCode::BackTab => "S-Tab".to_owned(),
            other => other.to_string(),
        };
        if self.ctrl {
            format!("Ctrl-{name}")
        } else {
            name
        }
    }
}

/// Some keys and what each does, with one line of help.
#[derive(Debug)]
pub struct Binding {
    pub keys: &'static [(Key, Action)],
    /// What the keys do, in English and Chinese.
    pub help: (&'static str, &'static str),
}

impl Binding {
    /// The keys as the help writes them: `→ l ← h`, `1-9`.
    pub fn shown(&self) -> String {
        let names: Vec<String> = self.keys.iter().map(|(k, _)| k.name()).collect();
        let digits = names.len() > 2
            && names
                .iter()
                .all(|n| n.len() == 1 && n.as_bytes()[0].is_ascii_digit());
        if digits {
            format!("{}-{}", names[0], names[names.len() - 1])
        } else {
            names.join(" ")
        }
    }
}

/// The keys of one screen, or of one part of it (a lesson's, presenter mode's).
#[derive(Debug)]
pub struct Table {
    /// The help's heading over the table, in English and Chinese.
    pub title: (&'static str, &'static str),
    pub bindings: &'static [Binding],
}

impl Table {
    fn find(&self, key: Key) -> Option<Action> {
        self.bindings
            .iter()
            .flat_map(|b| b.keys)
            .find(|(k, _)| *k == key)
            .map(|(_, action)| *action)
    }

    fn takes(&self, key: Key) -> bool {
        self.find(key).is_some()
    }
}

/// What takes the keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The panes: the sandbox, a lesson or a served cluster.
    Panes,
    /// The lesson picker.
    Picker,
    /// The `:` command bar or a `/` filter.
    Bar,
    /// The lesson's editor.
    Editor,
    /// A y/n question.
    Question,
    /// The jump list.
    Jumps,
    /// Presenter mode's blank screen: any key brings the picture back.
    Blank,
}

/// The screen shown and what is open on it: which tables read the keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Context {
    pub mode: Mode,
    pub lesson: bool,
    pub presenter: bool,
    pub live: bool,
}

impl Context {
    /// The app's context now.
    pub fn of(app: &App) -> Context {
        let mode = if app.presenter.blank {
            Mode::Blank
        } else {
            match app.overlay {
                Overlay::Question(..) => Mode::Question,
                Overlay::Command(_) | Overlay::Filter(..) => Mode::Bar,
                Overlay::Editor(_) => Mode::Editor,
                Overlay::Jumps(_) => Mode::Jumps,
                _ if app.picker.is_some() => Mode::Picker,
                _ => Mode::Panes,
            }
        };
        Context {
            mode,
            lesson: app.lesson.is_some(),
            presenter: app.presenter.on,
            live: app.live.is_some(),
        }
    }
}

/// The tables that read the keys in `cx`, the first that has a key taking it.
pub fn tables(cx: &Context) -> Vec<&'static Table> {
    match cx.mode {
        Mode::Blank => Vec::new(),
        Mode::Question => vec![&tables::QUESTION],
        Mode::Bar => vec![&tables::BAR],
        Mode::Editor => vec![&tables::EDITOR],
        Mode::Picker => vec![&tables::PICKER],
        Mode::Jumps => vec![&tables::JUMPS],
        Mode::Panes => {
            let mut tables = Vec::new();
            if cx.presenter {
                tables.push(&tables::PRESENTER);
            }
            if cx.live {
                tables.push(&tables::LIVE);
            }
            if cx.lesson {
                tables.push(&tables::LESSON);
            }
            tables.push(&tables::PANES);
            tables
        }
    }
}

/// What the help lists in `cx`: each table (the most particular first: presenter
/// mode's, a served cluster's, a lesson's, then the panes') with the bindings
/// that a table read before it does not override.
pub fn listed(cx: &Context) -> Vec<(&'static Table, Vec<&'static Binding>)> {
    let tables = tables(cx);
    tables
        .iter()
        .enumerate()
        .map(|(i, table)| {
            let before = &tables[..i];
            let shown = table
                .bindings
                .iter()
                .filter(|b| {
                    !b.keys
                        .iter()
                        .any(|(k, _)| before.iter().any(|t| t.takes(*k)))
                })
                .collect::<Vec<_>>();
            (*table, shown)
        })
        .filter(|(_, shown)| !shown.is_empty())
        .collect()
}

/// The action of `key` in `cx`; `None` for keys the screen does not take.
pub fn action_for(key: KeyEvent, cx: &Context) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    if cx.mode == Mode::Blank {
        return Some(Action::Cancel);
    }
    let key = Key::of(key);
    if let Some(action) = tables(cx).iter().find_map(|t| t.find(key)) {
        return Some(action);
    }
    match (cx.mode, key.code) {
        // Any other key answers no.
        (Mode::Question, _) => Some(Action::Answer(false)),
        (Mode::Bar, KeyCode::Char(c)) if !key.ctrl => Some(Action::Input(c)),
        (Mode::Editor, code) if !key.ctrl => editing(code).map(Action::Edit),
        _ => None,
    }
}

/// The editor's typing and moving keys (its other keys are in its table).
fn editing(code: KeyCode) -> Option<EditKey> {
    Some(match code {
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
        _ => return None,
    })
}

#[cfg(test)]
mod tests;
