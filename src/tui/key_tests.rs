//! The keys that must not lose or mislead a class, pressed as the terminal
//! reports them (key map, then update) on the sandbox and the picker: Esc
//! closes and never quits, `q` asks before throwing typed work away, Page
//! Down and Up scroll a zoomed pane, Ctrl-U clears, and `?` lists every key of the
//! screen shown, scrolling when it does not fit (insta snapshots).

use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::action::{Action, Effect};
use super::app::{App, Overlay};
use super::lang::Lang;
use super::lesson::picker::Picker;
use super::panes::PaneId;
use super::question::{Ask, Loss};
use super::testing::{buffer_text, ctrl, key, nginx_timeline, press, type_keys};
use super::theme::ThemeName;
use podflow_lesson::embedded;

fn sandbox() -> App {
    App::new(nginx_timeline(), Lang::En, ThemeName::Dark, false)
}

fn screen(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("a test terminal");
    terminal
        .draw(|frame| frame.render_widget(app, frame.area()))
        .expect("drawing never fails");
    buffer_text(terminal.backend().buffer())
}

fn asked(app: &App) -> Option<&Ask> {
    match &app.overlay {
        Overlay::Question(question) => Some(&question.ask),
        _ => None,
    }
}

#[test]
fn esc_closes_what_is_open_one_thing_at_a_time_and_never_quits() {
    let mut app = sandbox();
    let esc = key(KeyCode::Esc);
    app.update(Action::Focus(PaneId::Watch));
    press(&mut app, key(KeyCode::Char('/')));
    type_keys(&mut app, "kubelet");
    press(&mut app, key(KeyCode::Enter));
    press(&mut app, key(KeyCode::Char('z')));
    press(&mut app, key(KeyCode::Char('?')));
    assert_eq!(app.overlay, Overlay::Help(0));
    // The help, then the zoom, then the filter.
    assert_eq!(press(&mut app, esc), []);
    assert_eq!(app.overlay, Overlay::None);
    assert!(app.zoomed);
    assert_eq!(press(&mut app, esc), []);
    assert!(!app.zoomed);
    assert_eq!(app.pane(PaneId::Watch).filter, "kubelet");
    assert_eq!(press(&mut app, esc), []);
    assert_eq!(app.pane(PaneId::Watch).filter, "");
    // The command bar.
    press(&mut app, key(KeyCode::Char(':')));
    type_keys(&mut app, "get pods");
    assert_eq!(press(&mut app, esc), []);
    assert_eq!(app.overlay, Overlay::None);
    // Nothing open: Esc says what quits, and does not.
    assert_eq!(press(&mut app, esc), []);
    let notice = app.notice.clone().unwrap_or_default();
    assert!(notice.contains("q quits"), "{notice}");
    assert!(screen(&app, 120, 40).contains("q quits"));
}

#[test]
fn q_and_ctrl_c_quit_at_once_with_nothing_to_lose() {
    for quit in [key(KeyCode::Char('q')), ctrl('c')] {
        let mut app = sandbox();
        assert_eq!(press(&mut app, quit), [Effect::Quit]);
        // An empty command bar holds nothing either.
        let mut app = sandbox();
        press(&mut app, key(KeyCode::Char(':')));
        assert_eq!(press(&mut app, ctrl('c')), [Effect::Quit]);
    }
    let mut picker = sandbox();
    picker.open_picker(Picker::new(embedded::all().unwrap()));
    assert_eq!(press(&mut picker, key(KeyCode::Char('q'))), [Effect::Quit]);
}

#[test]
fn q_asks_before_losing_the_commands_typed_in_the_sandbox() {
    let mut app = sandbox();
    app.update(Action::Last);
    super::run::run_command(&mut app, "delete pod nginx");
    app.timeline.finish();
    assert_eq!(app.commands_typed, 1);
    assert_eq!(press(&mut app, key(KeyCode::Char('q'))), []);
    assert_eq!(asked(&app), Some(&Ask::Quit(vec![Loss::Commands(1)])));
    let text = screen(&app, 80, 24);
    assert!(
        text.contains("Quit and lose the command typed this session? y/n"),
        "{text}"
    );
    insta::assert_snapshot!("quit_question_80x24", text);
    // Any key but y cancels, and does nothing else.
    let cursor = app.cursor;
    assert_eq!(press(&mut app, key(KeyCode::Left)), []);
    assert_eq!(app.overlay, Overlay::None);
    assert_eq!(app.cursor, cursor);
    press(&mut app, key(KeyCode::Char('q')));
    assert_eq!(press(&mut app, key(KeyCode::Char('y'))), [Effect::Quit]);
    // Chinese too.
    let mut app = sandbox();
    app.commands_typed = 3;
    app.lang = Lang::Zh;
    press(&mut app, key(KeyCode::Char('q')));
    assert!(screen(&app, 80, 24).contains("退出并丢弃本次输入的 3 条命令？y/n"));
}

#[test]
fn ctrl_c_in_the_command_bar_asks_before_losing_the_line() {
    let mut app = sandbox();
    press(&mut app, key(KeyCode::Char(':')));
    type_keys(&mut app, "scale deploy web --replicas=3");
    assert_eq!(press(&mut app, ctrl('c')), []);
    assert_eq!(asked(&app), Some(&Ask::Quit(vec![Loss::TypedLine])));
    assert!(screen(&app, 120, 40).contains("Quit and lose the command being typed? y/n"));
    // No: the bar comes back as it was.
    press(&mut app, key(KeyCode::Char('n')));
    assert_eq!(
        app.overlay,
        Overlay::Command("scale deploy web --replicas=3".into())
    );
    press(&mut app, ctrl('c'));
    assert_eq!(press(&mut app, key(KeyCode::Char('y'))), [Effect::Quit]);
}

#[test]
fn ctrl_u_clears_the_filter_and_the_bars_line() {
    let mut app = sandbox();
    app.update(Action::Focus(PaneId::Watch));
    press(&mut app, key(KeyCode::Char('/')));
    type_keys(&mut app, "kube");
    assert_eq!(app.pane(PaneId::Watch).filter, "kube");
    // In the filter bar: the line and the filter it applies.
    press(&mut app, ctrl('u'));
    assert_eq!(app.overlay, Overlay::Filter(PaneId::Watch, String::new()));
    assert_eq!(app.pane(PaneId::Watch).filter, "");
    type_keys(&mut app, "kubelet");
    press(&mut app, key(KeyCode::Enter));
    // With no bar open: the focused pane's filter.
    press(&mut app, ctrl('u'));
    assert_eq!(app.pane(PaneId::Watch).filter, "");
    // The focus elsewhere, on a pane without a filter: every filter.
    press(&mut app, key(KeyCode::Char('/')));
    type_keys(&mut app, "kubelet");
    press(&mut app, key(KeyCode::Enter));
    press(&mut app, key(KeyCode::Tab));
    assert_ne!(app.focus, PaneId::Watch);
    press(&mut app, ctrl('u'));
    assert_eq!(app.pane(PaneId::Watch).filter, "");
    // The command bar's line, as in a shell.
    press(&mut app, key(KeyCode::Char(':')));
    type_keys(&mut app, "get pods");
    press(&mut app, ctrl('u'));
    assert_eq!(app.overlay, Overlay::Command(String::new()));
    type_keys(&mut app, "get nodes");
    assert_eq!(app.overlay, Overlay::Command("get nodes".into()));
}

#[test]
fn page_keys_scroll_a_zoomed_pane_a_page() {
    let mut app = sandbox();
    app.update(Action::Resize(60, 14));
    app.update(Action::Last);
    // Not zoomed, in the sandbox: nothing moves.
    press(&mut app, key(KeyCode::PageUp));
    assert_eq!(app.pane(PaneId::Logs).scroll, 0);
    assert_eq!(app.cursor, app.last());
    app.update(Action::Focus(PaneId::Logs));
    press(&mut app, key(KeyCode::Char('z')));
    let before = screen(&app, 60, 14);
    // Zoomed at 60×14 the pane has 11 rows inside: a page is 10 lines.
    press(&mut app, key(KeyCode::PageUp));
    assert_eq!(app.pane(PaneId::Logs).scroll, 10, "back in time");
    assert_ne!(screen(&app, 60, 14), before);
    press(&mut app, key(KeyCode::PageDown));
    assert_eq!(app.pane(PaneId::Logs).scroll, 0);
    assert_eq!(screen(&app, 60, 14), before);
    // The objects pane scrolls down its YAML, as the mouse wheel does.
    app.update(Action::Focus(PaneId::Objects));
    press(&mut app, key(KeyCode::PageDown));
    assert_eq!(app.pane(PaneId::Objects).scroll, 10);
    assert_eq!(app.cursor, app.last(), "the step stays");
}

#[test]
fn the_help_lists_the_keys_of_the_screen_shown() {
    let mut app = sandbox();
    press(&mut app, key(KeyCode::Char('?')));
    let text = screen(&app, 200, 60);
    for want in [
        "The trace and its panes",
        "Ctrl-U",
        "PgDn PgUp",
        "scroll the zoomed pane a page",
        "close the help, the zoom or the pane's filter",
    ] {
        assert!(text.contains(want), "{want:?} in {text}");
    }
    for not in ["This lesson", "Presenter mode", "blank the screen"] {
        assert!(!text.contains(not), "{not:?} in {text}");
    }
    // Presenter mode on the sandbox: its own keys, and its own space.
    app.start_presenting();
    let text = screen(&app, 200, 60);
    assert!(text.contains("Presenter mode"), "{text}");
    assert!(text.contains("play to the next step marker"), "{text}");
    assert!(!text.contains("play / pause"), "{text}");
    // The picker's keys over the picker.
    let mut picker = sandbox();
    picker.open_picker(Picker::new(embedded::all().unwrap()));
    press(&mut picker, key(KeyCode::Char('?')));
    let text = screen(&picker, 120, 40);
    assert!(text.contains("Lesson picker"), "{text}");
    assert!(text.contains("choose a lesson"), "{text}");
    assert!(!text.contains("next / previous step"), "{text}");
    // Esc closes the help first, then leaves the picker.
    press(&mut picker, key(KeyCode::Esc));
    assert!(picker.picker.is_some() && picker.overlay == Overlay::None);
    press(&mut picker, key(KeyCode::Esc));
    assert!(picker.picker.is_none());
}

#[test]
fn at_80x24_the_help_marks_what_does_not_fit_and_scrolls() {
    let mut app = sandbox();
    app.update(Action::Resize(80, 24));
    press(&mut app, key(KeyCode::Char('?')));
    let top = screen(&app, 80, 24);
    assert!(top.contains("lines below: ↓ scrolls"), "{top}");
    assert!(top.contains("↑↓ scroll · Esc close"), "{top}");
    assert!(!top.contains("lines above"), "{top}");
    insta::assert_snapshot!("help_top_80x24", top);
    // ↓ scrolls a line, PgDn a page; at the end, no mark below and the
    // last line in sight.
    press(&mut app, key(KeyCode::Down));
    assert_eq!(app.overlay, Overlay::Help(1));
    assert!(screen(&app, 80, 24).contains("1 line above: ↑ scrolls"));
    for _ in 0..10 {
        press(&mut app, key(KeyCode::PageDown));
    }
    let end = screen(&app, 80, 24);
    assert!(!end.contains("below: ↓ scrolls"), "{end}");
    assert!(end.contains("q Ctrl-C"), "{end}");
    assert!(end.contains("Events stay out of etcd"), "{end}");
    insta::assert_snapshot!("help_end_80x24", end);
    let Overlay::Help(max) = app.overlay else {
        panic!("the help is open");
    };
    press(&mut app, key(KeyCode::Down));
    assert_eq!(app.overlay, Overlay::Help(max), "no further than the end");
    // ↑ comes back; a taller terminal clamps the scroll to what it hides.
    press(&mut app, key(KeyCode::Up));
    assert_eq!(app.overlay, Overlay::Help(max - 1));
    app.update(Action::Resize(200, 60));
    assert_eq!(app.overlay, Overlay::Help(0));
    // While the help shows, ↑↓ scroll it, not the pane beneath.
    assert_eq!(app.pane(app.focus).scroll, 0);
}
