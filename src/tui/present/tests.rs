//! Presenter mode: the step counter against `--at-step`, playing that pauses
//! at each step marker, blanking, the presenter's keys and line, and whole
//! screens at 100×30 on ratatui's `TestBackend` (insta snapshots).

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Color;

use crate::record::driver;
use crate::tui::action::Action;
use crate::tui::app::{App, Overlay};
use crate::tui::lang::Lang;
use crate::tui::lesson::LessonKey;
use crate::tui::panes::PaneId;
use crate::tui::phases;
use crate::tui::testing::{buffer_text, nginx_timeline};
use crate::tui::theme::ThemeName;
use podflow_lesson::embedded;

/// Lesson 1 in presenter mode, at its first step.
fn lesson(lang: Lang) -> App {
    let lesson = embedded::open("apply-to-running").expect("lesson 1 opens");
    let mut app = driver::lesson_app(lesson, lang).expect("lesson 1 starts");
    app.start_presenting();
    app
}

/// The app at lesson step `n` (1-based) as `--at-step n` makes it.
fn at_step(n: usize) -> App {
    let mut app = lesson(Lang::En);
    driver::advance_lesson(&mut app, n - 1).expect("the lesson's goals are solved");
    app
}

fn draw(app: &App, width: u16, height: u16) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("a test terminal");
    terminal
        .draw(|frame| frame.render_widget(app, frame.area()))
        .expect("drawing never fails");
    terminal.backend().buffer().clone()
}

fn screen(app: &App) -> String {
    buffer_text(&draw(app, 100, 30))
}

/// Presses `action`, then lets whatever it started play to its pause.
fn press(app: &mut App, action: Action) {
    app.update(action);
    while app.playing {
        app.update(Action::Tick);
    }
}

#[test]
fn the_step_counter_is_what_at_step_counts() {
    let len = lesson(Lang::En).present_step().1;
    assert_eq!(len, 15);
    // Forward k steps, back j: the lesson step, the cursor and the status
    // bar are those of `--at-step` at the step reached.
    let table = [(0, 0), (1, 0), (3, 1), (5, 5), (8, 2), (14, 3), (14, 0)];
    for (k, j) in table {
        let mut app = lesson(Lang::En);
        for _ in 0..k {
            driver::solve_goal(&mut app).expect("the goal is solved");
            press(&mut app, Action::Lesson(LessonKey::NextStep));
        }
        for _ in 0..j {
            press(&mut app, Action::Lesson(LessonKey::PrevStep));
        }
        let n = k - j + 1;
        let want = at_step(n);
        assert_eq!(app.present_step(), (n, len), "forward {k}, back {j}");
        assert_eq!(app.cursor, want.cursor, "forward {k}, back {j}");
        let bar = screen(&app).lines().last().unwrap_or_default().to_owned();
        assert!(bar.contains(&format!("step {n}/{len} ")), "{bar}");
    }
    // Past either end the counter stays put.
    let mut app = lesson(Lang::En);
    press(&mut app, Action::Lesson(LessonKey::PrevStep));
    assert_eq!(app.present_step(), (1, len));
    for _ in 0..len + 3 {
        press(&mut app, Action::Lesson(LessonKey::NextStep));
    }
    assert_eq!(app.present_step(), (len, len));
}

#[test]
fn play_pauses_where_each_lesson_step_begins() {
    let mut app = lesson(Lang::En);
    for n in 2..=6 {
        press(&mut app, Action::TogglePlay);
        assert!(!app.playing);
        assert_eq!(app.present_step().0, n, "space goes one step on");
        assert_eq!(app.cursor, at_step(n).cursor);
    }
    // A step still to play (after stepping the trace back) plays to its
    // own end first, without going on.
    let end = app.cursor;
    press(&mut app, Action::First);
    press(&mut app, Action::TogglePlay);
    assert_eq!((app.present_step().0, app.cursor), (6, end));
}

#[test]
fn play_pauses_at_each_phase_in_the_sandbox() {
    let mut app = App::new(nginx_timeline(), Lang::En, ThemeName::Dark, false);
    app.start_presenting();
    let records = app.timeline.records().to_vec();
    let mut want = 0;
    for _ in 0..4 {
        want = phases::next(&records, want).expect("the story has phases");
        press(&mut app, Action::TogglePlay);
        assert_eq!(app.cursor, want);
        assert!(!app.playing);
    }
    // Outside presenter mode, play runs to the end.
    let mut app = App::new(nginx_timeline(), Lang::En, ThemeName::Dark, false);
    press(&mut app, Action::TogglePlay);
    assert_eq!(app.cursor, app.last());
}

#[test]
fn a_clickers_page_keys_step_the_phases_in_the_sandbox() {
    let mut app = App::new(nginx_timeline(), Lang::En, ThemeName::Dark, false);
    app.start_presenting();
    let records = app.timeline.records().to_vec();
    let second = phases::next(&records, phases::next(&records, 0).unwrap()).unwrap();
    press(&mut app, Action::Page(1));
    press(&mut app, Action::Page(1));
    assert_eq!(app.cursor, second);
    assert!(!app.playing);
    press(&mut app, Action::Page(-1));
    assert_eq!(app.cursor, phases::next(&records, 0).unwrap());
    // Outside presenter mode, Page Down leaves the step alone.
    let mut plain = App::new(nginx_timeline(), Lang::En, ThemeName::Dark, false);
    press(&mut plain, Action::Page(1));
    assert_eq!(plain.cursor, 0);
}

#[test]
fn the_projector_shows_notes_only_when_the_presenter_asks() {
    let mut app = at_step(2);
    let notes = "Ask the room what kubectl sends first";
    let status = |app: &App| screen(app).lines().last().unwrap_or_default().to_owned();
    assert!(!status(&app).contains(notes), "{}", status(&app));
    assert!(
        status(&app).contains("kubectl"),
        "the step's title: {}",
        status(&app)
    );
    press(&mut app, Action::ToggleNotes);
    assert!(status(&app).contains(notes), "{}", status(&app));
    press(&mut app, Action::ToggleNotes);
    assert!(!status(&app).contains(notes));
}

#[test]
fn blank_takes_any_key_back() {
    let mut app = at_step(3);
    let cursor = app.cursor;
    app.update(Action::Blank);
    assert!(app.presenter.blank);
    app.update(Action::Tick);
    assert!(
        app.presenter.blank,
        "the play timer does not bring the picture back"
    );
    for action in [Action::StepForward, Action::Quit, Action::Blank] {
        app.presenter.blank = true;
        assert_eq!(app.update(action), [], "{action:?} only unblanks");
        assert!(!app.presenter.blank);
        assert_eq!(app.cursor, cursor);
    }
    // Blanking pauses a step that plays.
    app.update(Action::Lesson(LessonKey::NextStep));
    assert!(app.playing);
    app.update(Action::Blank);
    assert!(!app.playing && app.presenter.blank);
    // Outside presenter mode `b` and `d` do nothing.
    let mut app = App::new(nginx_timeline(), Lang::En, ThemeName::Dark, false);
    app.update(Action::Blank);
    app.update(Action::ToggleDense);
    assert!(!app.presenter.blank && !app.presenter.dense);
}

#[test]
fn the_blank_screen_is_all_black() {
    let mut app = at_step(3);
    app.update(Action::Blank);
    let buf = draw(&app, 100, 30);
    for cell in &buf.content {
        assert_eq!(
            (cell.symbol(), cell.fg, cell.bg),
            (" ", Color::Black, Color::Black)
        );
    }
    insta::assert_snapshot!("present_blank_100x30", buffer_text(&buf));
}

#[test]
fn presenter_screens_at_100x30() {
    let table = [
        ("present_command_100x30", 2),
        ("present_scheduled_100x30", 8),
        ("present_quiz_100x30", 12),
    ];
    for (name, n) in table {
        insta::assert_snapshot!(name, screen(&at_step(n)));
    }
}

#[test]
fn the_projector_sees_bright_text_on_black() {
    let buf = draw(&at_step(8), 100, 30);
    for cell in &buf.content {
        assert_ne!(
            cell.bg,
            Color::Reset,
            "every cell has a black (or lit) background"
        );
        assert!(
            !matches!(cell.fg, Color::Gray | Color::DarkGray | Color::Reset),
            "no grey text: {cell:?}"
        );
    }
}

#[test]
fn presenter_layout_has_big_panes_and_dense_ones_on_d() {
    let mut app = at_step(2);
    let area = Rect::new(0, 0, 100, 30);
    let ids =
        |app: &App| -> Vec<PaneId> { app.screen(area).panes.iter().map(|(p, _)| *p).collect() };
    assert_eq!(
        ids(&app),
        [PaneId::Pipeline, PaneId::Sequence, PaneId::Narration]
    );
    app.update(Action::FocusNext);
    app.update(Action::FocusNext);
    assert_eq!(app.focus, PaneId::Narration, "Tab skips the hidden panes");
    app.update(Action::ToggleDense);
    assert_eq!(ids(&app).len(), 7);
    app.update(Action::Focus(PaneId::Logs));
    app.update(Action::ToggleDense);
    assert_eq!(app.focus, PaneId::Pipeline, "a hidden pane loses the focus");
}

#[test]
fn help_lists_the_presenter_keys_only_in_presenter_mode() {
    let mut app = at_step(2);
    app.overlay = Overlay::Help(0);
    let text = screen(&app);
    assert!(
        text.contains("blank the screen (any key returns)"),
        "{text}"
    );
    let mut plain = App::new(nginx_timeline(), Lang::En, ThemeName::Dark, false);
    plain.overlay = Overlay::Help(0);
    let text = buffer_text(&draw(&plain, 100, 30));
    assert!(!text.contains("blank the screen"), "{text}");
}

#[test]
fn the_status_bar_shows_notes_or_what_comes_next() {
    let table = [
        (Lang::En, 1, "▸ next: :apply -f nginx.yaml"),
        (
            Lang::En,
            2,
            "Ask the room what kubectl sends first; the answer is a GET (404), then the POST.",
        ),
        (
            Lang::Zh,
            2,
            "先问大家 kubectl 第一个发出的请求是什么：是 GET（404），然后才是 POST。",
        ),
        (Lang::En, 7, "▸ answer: 1–4"),
        (
            Lang::En,
            13,
            "Take questions, then hand the keyboard to a student for the goal.",
        ),
        // The goal's check as the lesson pane shows it, in the lesson's language.
        (
            Lang::En,
            14,
            "▸ goal: pod default/web Running on a node labelled disktype=ssd",
        ),
        (
            Lang::Zh,
            14,
            "▸ 目标： Pod default/web 在带有标签 disktype=ssd 的节点上 Running",
        ),
        (Lang::En, 15, "▸ the lesson's last step"),
    ];
    for (lang, n, want) in table {
        let mut app = lesson(lang);
        driver::advance_lesson(&mut app, n - 1).expect("the lesson's goals are solved");
        assert_eq!(app.present_notes(), want, "step {n}");
    }
    let mut sandbox = App::new(nginx_timeline(), Lang::En, ThemeName::Dark, false);
    sandbox.start_presenting();
    assert_eq!(sandbox.present_notes(), "▸ next: kube-apiserver");
    press(&mut sandbox, Action::Last);
    assert_eq!(sandbox.present_notes(), "▸ the end of the trace");
}
