//! A lesson's keys pressed as the terminal reports them (key map, then
//! update): Esc back to the picker and back, `n` asking on an unanswered
//! quiz or an unreached goal, Page Down and Up on a zoomed pane, and the
//! editor's unsaved edits.

use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use crate::tui::action::{Action, Effect};
use crate::tui::app::{App, Overlay};
use crate::tui::lang::Lang;
use crate::tui::panes::PaneId;
use crate::tui::question::{Ask, Loss, Unfinished};
use crate::tui::testing::{buffer_text, ctrl, key, nginx_timeline, press, type_keys};
use crate::tui::theme::ThemeName;
use podflow_lesson::embedded;
use podflow_lesson::format::Step;

fn screen(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("a test terminal");
    terminal
        .draw(|frame| frame.render_widget(app, frame.area()))
        .expect("drawing never fails");
    buffer_text(terminal.backend().buffer())
}

/// The app with lesson `id` open at its first step.
fn lesson(id: &str) -> App {
    let mut app = App::new(nginx_timeline(), Lang::En, ThemeName::Dark, false);
    app.open_lesson(embedded::by_id(id).unwrap().unwrap())
        .unwrap();
    app
}

fn step(app: &App) -> usize {
    app.lesson.as_ref().map_or(usize::MAX, |p| p.step)
}

fn current(app: &App) -> Option<&Step> {
    app.lesson.as_ref().and_then(|p| p.current())
}

fn asked(app: &App) -> Option<&Ask> {
    match &app.overlay {
        Overlay::Question(question) => Some(&question.ask),
        _ => None,
    }
}

/// Lets whatever plays play to its end.
fn settle(app: &mut App) {
    while app.playing {
        app.update(Action::Tick);
    }
}

/// Presses `n` (and `y` when asked) until `arrived` holds.
fn next_until(app: &mut App, arrived: impl Fn(&App) -> bool) {
    while !arrived(app) {
        press(app, key(KeyCode::Char('n')));
        if asked(app).is_some() {
            press(app, key(KeyCode::Char('y')));
        }
        settle(app);
    }
}

#[test]
fn esc_in_a_lesson_goes_back_to_the_picker_and_esc_there_comes_back() {
    let mut app = lesson("the-scheduler");
    next_until(&mut app, |app| step(app) == 3);
    let cursor = app.cursor;
    // The help first, then the picker, the lesson highlighted and kept.
    press(&mut app, key(KeyCode::Char('?')));
    assert_eq!(press(&mut app, key(KeyCode::Esc)), []);
    assert!(app.picker.is_none(), "Esc closed the help only");
    assert_eq!(press(&mut app, key(KeyCode::Esc)), []);
    let picker = app.picker.as_ref().expect("the picker");
    assert_eq!(picker.lessons[picker.selected].id(), "the-scheduler");
    let text = screen(&app, 120, 40);
    assert!(text.contains("Esc back to the lesson"), "{text}");
    // Esc on the picker: the lesson where it was.
    press(&mut app, key(KeyCode::Esc));
    assert!(app.picker.is_none());
    assert_eq!((step(&app), app.cursor), (3, cursor));
    // Enter on the same lesson also goes on where it was; on another, opens it.
    press(&mut app, key(KeyCode::Esc));
    press(&mut app, key(KeyCode::Enter));
    assert_eq!((step(&app), app.cursor), (3, cursor));
    press(&mut app, key(KeyCode::Esc));
    press(&mut app, key(KeyCode::Up));
    press(&mut app, key(KeyCode::Enter));
    let player = app.lesson.as_ref().unwrap();
    assert_eq!((player.lesson.id(), player.step), ("etcd-and-watch", 0));
    // Nowhere does Esc quit.
    for _ in 0..5 {
        assert!(!press(&mut app, key(KeyCode::Esc)).contains(&Effect::Quit));
    }
}

#[test]
fn n_on_an_unanswered_quiz_asks_before_going_on() {
    let mut app = lesson("apply-to-running");
    next_until(&mut app, |app| matches!(current(app), Some(Step::Quiz(_))));
    let (at, cursor) = (step(&app), app.cursor);
    assert_eq!(press(&mut app, key(KeyCode::Char('n'))), []);
    assert_eq!(asked(&app), Some(&Ask::NextStep(Unfinished::Quiz)));
    let text = screen(&app, 80, 24);
    assert!(
        text.contains("The quiz is not answered yet. Go on anyway? y/n"),
        "{text}"
    );
    insta::assert_snapshot!("quiz_question_80x24", text);
    // Any other key cancels; PgDn asks too.
    press(&mut app, key(KeyCode::Char('n')));
    assert_eq!((asked(&app), step(&app), app.cursor), (None, at, cursor));
    press(&mut app, key(KeyCode::PageDown));
    assert!(asked(&app).is_some());
    press(&mut app, key(KeyCode::Esc));
    assert_eq!((asked(&app), step(&app)), (None, at));
    // y goes on.
    press(&mut app, key(KeyCode::Char('n')));
    press(&mut app, key(KeyCode::Char('y')));
    settle(&mut app);
    assert_eq!(step(&app), at + 1);
    // Answered, the quiz lets n go on at once.
    next_until(&mut app, |app| {
        matches!(current(app), Some(Step::Quiz(_))) && step(app) > at
    });
    let at = step(&app);
    press(&mut app, key(KeyCode::Char('1')));
    press(&mut app, key(KeyCode::Char('n')));
    assert_eq!((asked(&app), step(&app)), (None, at + 1));
}

#[test]
fn n_on_an_unreached_goal_or_quiz_asks_but_not_in_presenter_mode() {
    let mut app = lesson("the-scheduler");
    next_until(&mut app, |app| matches!(current(app), Some(Step::Goal(_))));
    let at = step(&app);
    press(&mut app, key(KeyCode::Char('n')));
    assert_eq!(asked(&app), Some(&Ask::NextStep(Unfinished::Goal)));
    assert!(screen(&app, 120, 40).contains("The goal is not reached yet. Go on anyway? y/n"));
    press(&mut app, key(KeyCode::Char('x')));
    assert_eq!((asked(&app), step(&app)), (None, at));
    // A presenter moves on with a clicker, which cannot answer y.
    let mut presenter = lesson("apply-to-running");
    presenter.start_presenting();
    next_until(&mut presenter, |app| {
        matches!(current(app), Some(Step::Quiz(_)))
    });
    let at = step(&presenter);
    press(&mut presenter, key(KeyCode::PageDown));
    assert_eq!((asked(&presenter), step(&presenter)), (None, at + 1));
}

#[test]
fn page_keys_step_the_lesson_or_scroll_a_zoomed_pane() {
    let mut app = lesson("apply-to-running");
    app.update(Action::Resize(80, 24));
    press(&mut app, key(KeyCode::PageDown));
    settle(&mut app);
    assert_eq!(step(&app), 1, "PgDn: the next lesson step");
    press(&mut app, key(KeyCode::PageUp));
    assert_eq!(step(&app), 0, "PgUp: the previous one");
    next_until(&mut app, |app| step(app) == 4);
    app.update(Action::Focus(PaneId::Logs));
    press(&mut app, key(KeyCode::Char('z')));
    let cursor = app.cursor;
    press(&mut app, key(KeyCode::PageUp));
    assert_eq!(app.pane(PaneId::Logs).scroll, 20);
    press(&mut app, key(KeyCode::PageDown));
    press(&mut app, key(KeyCode::PageDown));
    assert_eq!(app.pane(PaneId::Logs).scroll, 0);
    assert_eq!((step(&app), app.cursor), (4, cursor), "the step stays");
    // Esc unzooms; PgDn steps again.
    press(&mut app, key(KeyCode::Esc));
    assert!(!app.zoomed && app.picker.is_none());
    press(&mut app, key(KeyCode::PageDown));
    assert_eq!(step(&app), 5);
}

#[test]
fn unsaved_edits_survive_esc_and_q_asks_before_losing_them() {
    let mut app = lesson("the-scheduler");
    next_until(&mut app, |app| matches!(current(app), Some(Step::Goal(_))));
    press(&mut app, key(KeyCode::Char('e')));
    type_keys(&mut app, "# mine");
    // Ctrl-C in the editor asks; any other key brings the editor back.
    assert_eq!(press(&mut app, ctrl('c')), []);
    assert_eq!(
        asked(&app),
        Some(&Ask::Quit(vec![Loss::Edits(vec!["db.yaml".into()])]))
    );
    assert!(screen(&app, 120, 40).contains("Quit and lose unsaved edits of db.yaml? y/n"));
    press(&mut app, key(KeyCode::Char('n')));
    assert!(matches!(app.overlay, Overlay::Editor(_)));
    // Esc closes the editor; the edits wait for `e`, and `q` asks.
    press(&mut app, key(KeyCode::Esc));
    assert_eq!(app.overlay, Overlay::None);
    assert_eq!(press(&mut app, key(KeyCode::Char('q'))), []);
    assert!(asked(&app).is_some());
    press(&mut app, key(KeyCode::Esc));
    press(&mut app, key(KeyCode::Char('e')));
    let Overlay::Editor(editor) = &app.overlay else {
        panic!("the editor");
    };
    assert!(editor.text().starts_with("# mine"), "{}", editor.text());
    // Saved, nothing is lost: q quits at once.
    press(&mut app, ctrl('s'));
    press(&mut app, key(KeyCode::Esc));
    assert_eq!(press(&mut app, key(KeyCode::Char('q'))), [Effect::Quit]);
}

#[test]
fn the_help_in_a_lesson_lists_its_keys_first() {
    let mut app = lesson("apply-to-running");
    press(&mut app, key(KeyCode::Char('?')));
    let text = screen(&app, 120, 40);
    let lesson_at = text.find("This lesson").expect(&text);
    let panes_at = text.find("The trace and its panes").expect(&text);
    assert!(lesson_at < panes_at, "{text}");
    for want in [
        "unanswered quiz or an unreached goal",
        "back to the lesson picker",
        "zoomed pane: scroll it a page",
        "1-9",
    ] {
        assert!(text.contains(want), "{want:?} in {text}");
    }
}
