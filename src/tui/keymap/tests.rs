//! The key tables: what keys do on each screen, and that the help lists
//! every key a screen takes with the action the key handling gives it.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::*;
use crate::tui::lesson::LessonKey;

fn press(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

fn panes(lesson: bool, presenter: bool, live: bool) -> Context {
    Context {
        mode: Mode::Panes,
        lesson,
        presenter,
        live,
    }
}

fn mode(mode: Mode) -> Context {
    Context {
        mode,
        ..panes(false, false, false)
    }
}

/// Every screen the keys can find.
fn every_context() -> Vec<Context> {
    let mut all = Vec::new();
    for bits in 0..8 {
        all.push(panes(bits & 1 != 0, bits & 2 != 0, bits & 4 != 0));
    }
    for m in [
        Mode::Picker,
        Mode::Bar,
        Mode::Editor,
        Mode::Question,
        Mode::Blank,
    ] {
        all.push(mode(m));
    }
    all
}

#[test]
fn keys_map_to_actions() {
    let sandbox = panes(false, false, false);
    let lesson = panes(true, false, false);
    let act = |key, cx: &Context| action_for(key, cx);
    assert_eq!(
        act(press(KeyCode::Char(' ')), &sandbox),
        Some(Action::TogglePlay)
    );
    assert_eq!(
        act(press(KeyCode::Right), &sandbox),
        Some(Action::StepForward)
    );
    assert_eq!(
        act(press(KeyCode::Char('h')), &sandbox),
        Some(Action::StepBack)
    );
    assert_eq!(
        act(
            KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT),
            &sandbox
        ),
        Some(Action::Last),
        "Shift is in the character"
    );
    assert_eq!(act(press(KeyCode::Char('x')), &sandbox), None);
    // Esc closes or goes back; only q and Ctrl-C quit.
    assert_eq!(act(press(KeyCode::Esc), &sandbox), Some(Action::Cancel));
    assert_eq!(act(press(KeyCode::Char('q')), &sandbox), Some(Action::Quit));
    assert_eq!(act(ctrl('c'), &sandbox), Some(Action::Quit));
    assert_eq!(act(ctrl('u'), &sandbox), Some(Action::Clear));
    assert_eq!(
        act(press(KeyCode::PageDown), &sandbox),
        Some(Action::Page(1))
    );
    assert_eq!(act(press(KeyCode::PageUp), &lesson), Some(Action::Page(-1)));
    // Lesson keys only in a lesson, presenter keys only in presenter mode.
    assert_eq!(act(press(KeyCode::Char('n')), &sandbox), None);
    assert_eq!(
        act(press(KeyCode::Char('n')), &lesson),
        Some(Action::Lesson(LessonKey::NextStep))
    );
    assert_eq!(
        act(press(KeyCode::Char('7')), &lesson),
        Some(Action::Lesson(LessonKey::Choose(7)))
    );
    assert_eq!(act(press(KeyCode::Char('b')), &lesson), None);
    assert_eq!(
        act(press(KeyCode::Char('b')), &panes(true, true, false)),
        Some(Action::Blank)
    );
    // In a bar every character types, even q; Ctrl-U clears; Ctrl-C quits.
    let bar = mode(Mode::Bar);
    assert_eq!(
        act(press(KeyCode::Char('q')), &bar),
        Some(Action::Input('q'))
    );
    assert_eq!(act(ctrl('u'), &bar), Some(Action::Clear));
    assert_eq!(act(ctrl('c'), &bar), Some(Action::Quit));
    assert_eq!(act(ctrl('x'), &bar), None, "a Ctrl key types nothing");
    // In the editor too; Ctrl-S saves, Esc closes.
    let editor = mode(Mode::Editor);
    assert_eq!(
        act(press(KeyCode::Char('q')), &editor),
        Some(Action::Edit(EditKey::Char('q')))
    );
    assert_eq!(act(ctrl('s'), &editor), Some(Action::Edit(EditKey::Save)));
    assert_eq!(
        act(press(KeyCode::Esc), &editor),
        Some(Action::Edit(EditKey::Close))
    );
    assert_eq!(act(ctrl('c'), &editor), Some(Action::Quit));
    // A question: y is yes, any other key no.
    let question = mode(Mode::Question);
    assert_eq!(
        act(press(KeyCode::Char('y')), &question),
        Some(Action::Answer(true))
    );
    for other in [
        KeyCode::Char('n'),
        KeyCode::Char('q'),
        KeyCode::Esc,
        KeyCode::Enter,
    ] {
        assert_eq!(act(press(other), &question), Some(Action::Answer(false)));
    }
    // A blank screen: any key brings it back.
    assert_eq!(
        act(press(KeyCode::Char('z')), &mode(Mode::Blank)),
        Some(Action::Cancel)
    );
    // Key releases do nothing.
    let mut release = press(KeyCode::Char('q'));
    release.kind = KeyEventKind::Release;
    assert_eq!(act(release, &sandbox), None);
}

#[test]
fn the_help_lists_every_key_a_screen_takes_with_what_it_does() {
    for cx in every_context() {
        let listed = listed(&cx);
        for table in tables(&cx) {
            for binding in table.bindings {
                for (key, _) in binding.keys {
                    let event = KeyEvent::new(
                        key.code,
                        if key.ctrl {
                            KeyModifiers::CONTROL
                        } else {
                            KeyModifiers::NONE
                        },
                    );
                    let rows: Vec<&Binding> = listed
                        .iter()
                        .flat_map(|(_, rows)| rows.iter().copied())
                        .filter(|b| b.keys.iter().any(|(k, _)| k == key))
                        .collect();
                    assert_eq!(rows.len(), 1, "{cx:?}: {key:?} is listed once");
                    let (_, listed_action) = rows[0]
                        .keys
                        .iter()
                        .find(|(k, _)| k == key)
                        .expect("the row has the key");
                    assert_eq!(
                        action_for(event, &cx),
                        Some(*listed_action),
                        "{cx:?}: {key:?} does what the help says"
                    );
                }
            }
        }
    }
}

#[test]
fn no_table_binds_a_key_twice() {
    for cx in every_context() {
        for table in tables(&cx) {
            let keys: Vec<Key> = table
                .bindings
                .iter()
                .flat_map(|b| b.keys.iter().map(|(k, _)| *k))
                .collect();
            for (i, key) in keys.iter().enumerate() {
                assert!(!keys[..i].contains(key), "{:?}: {key:?}", table.title);
            }
        }
    }
}

#[test]
fn the_help_writes_keys_as_a_keyboard_shows_them() {
    let lesson = listed(&panes(true, false, false));
    let shown: Vec<String> = lesson
        .iter()
        .flat_map(|(_, rows)| rows.iter().map(|b| b.shown()))
        .collect();
    for want in [
        "space",
        "→ l ← h",
        "Home End G",
        "g",
        "Tab S-Tab",
        "Ctrl-U",
        "q Ctrl-C",
        "1-9",
        "PgDn PgUp",
        "Esc",
    ] {
        assert!(shown.iter().any(|s| s == want), "{want:?} in {shown:?}");
    }
    // The lesson's table first, then the panes'; the lesson's Esc and PgDn
    // rows replace the panes' ones.
    assert_eq!(lesson[0].0.title.0, "This lesson");
    assert_eq!(lesson[1].0.title.0, "The trace and its panes");
    assert!(!lesson[1].1.iter().any(|b| b.shown() == "Esc"));
}
