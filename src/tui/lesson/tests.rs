//! The picker and the player: keys through `update`, and whole screens on
//! ratatui's `TestBackend` (insta snapshots) of the picker and of a quiz.

use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::LessonKey;
use super::editor::{EditKey, Editor};
use super::picker::Picker;
use crate::tui::action::{Action, Effect};
use crate::tui::app::{App, Overlay};
use crate::tui::lang::Lang;
use crate::tui::testing::{buffer_text, nginx_timeline};
use crate::tui::theme::ThemeName;
use podflow_engine::trace::{Record, StageName};
use podflow_lesson::embedded;
use podflow_lesson::format::Step;

fn picker_app() -> App {
    let mut app = App::new(nginx_timeline(), Lang::En, ThemeName::Dark, false);
    app.open_picker(Picker::new(embedded::all().unwrap()));
    app
}

fn screen(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("a test terminal");
    terminal
        .draw(|frame| frame.render_widget(app, frame.area()))
        .expect("drawing never fails");
    buffer_text(terminal.backend().buffer())
}

/// Presses `key` (and `y` when asked whether to leave a quiz or a goal
/// undone) and lets the step play to its end.
fn press(app: &mut App, key: LessonKey) -> Vec<Effect> {
    let mut effects = app.update(Action::Lesson(key));
    if matches!(app.overlay, Overlay::Question(_)) {
        effects = app.update(Action::Answer(true));
    }
    while app.playing {
        app.update(Action::Tick);
    }
    effects
}

/// The app with lesson 1 open at its first quiz.
fn at_first_quiz() -> App {
    let mut app = picker_app();
    press(&mut app, LessonKey::Confirm);
    while !matches!(
        app.lesson.as_ref().and_then(|p| p.current()),
        Some(Step::Quiz(_))
    ) {
        press(&mut app, LessonKey::NextStep);
    }
    app
}

#[test]
fn the_picker_highlights_the_first_lesson_and_opens_it() {
    let mut app = picker_app();
    assert_eq!(app.picker.as_ref().unwrap().selected, 0);
    let last = app.picker.as_ref().unwrap().lessons.len() - 1;
    app.update(Action::Select(1));
    app.update(Action::Select(99));
    assert_eq!(app.picker.as_ref().unwrap().selected, last, "clamped");
    app.update(Action::Select(-99));
    assert_eq!(app.picker.as_ref().unwrap().selected, 0, "clamped");
    let effects = app.update(Action::Lesson(LessonKey::Confirm));
    assert!(app.picker.is_none());
    assert_eq!(effects, [Effect::SaveProgress]);
    let player = app.lesson.as_ref().unwrap();
    assert_eq!(player.lesson.id(), "apply-to-running");
    assert_eq!(player.step, 0);
    assert_eq!(app.progress.lessons["apply-to-running"].step, 0);
    // Esc on the picker leaves it for the sandbox; q quits.
    let mut app = picker_app();
    assert_eq!(app.update(Action::Quit), [Effect::Quit]);
    app.update(Action::Cancel);
    assert!(app.picker.is_none() && app.lesson.is_none());
}

#[test]
fn next_and_previous_steps_move_the_cursor() {
    let mut app = picker_app();
    press(&mut app, LessonKey::Confirm);
    press(&mut app, LessonKey::NextStep);
    let command_at = app.cursor;
    assert!(
        podflow_engine::export::text::line(&app.timeline.records()[command_at]).contains("kubectl"),
        "the command step shows kubectl's first request"
    );
    let effects = app.update(Action::Lesson(LessonKey::NextStep));
    assert!(
        matches!(effects[0], Effect::Ticking(Some(_))),
        "the step plays to its moment"
    );
    while app.playing {
        app.update(Action::Tick);
    }
    let authn = app.cursor;
    assert!(
        podflow_engine::export::text::line(&app.timeline.records()[authn])
            .contains("authentication")
    );
    press(&mut app, LessonKey::PrevStep);
    assert_eq!(app.cursor, command_at);
    press(&mut app, LessonKey::NextStep);
    assert_eq!(app.cursor, authn, "a visited step is not run again");
    assert_eq!(app.lesson.as_ref().unwrap().step, 2);
    assert_eq!(app.progress.lessons["apply-to-running"].step, 2);
}

#[test]
fn a_quiz_shows_its_explanation_after_the_answer() {
    let mut app = at_first_quiz();
    assert!(!app.lesson.as_ref().unwrap().quiz.answered);
    app.update(Action::Lesson(LessonKey::Choose(2)));
    let player = app.lesson.as_ref().unwrap();
    assert!(player.quiz.answered);
    assert!(!player.quiz_right());
    // Once answered, the answer stays.
    app.update(Action::Lesson(LessonKey::Choose(1)));
    assert!(!app.lesson.as_ref().unwrap().quiz_right());
    let text = screen(&app, 120, 40);
    assert!(text.contains("Not quite."), "{text}");
}

#[test]
fn a_goal_is_unsolved_then_solved_and_resets() {
    let mut app = picker_app();
    press(&mut app, LessonKey::Confirm);
    while !matches!(
        app.lesson.as_ref().and_then(|p| p.current()),
        Some(Step::Goal(_))
    ) {
        press(&mut app, LessonKey::NextStep);
    }
    let player = app.lesson.as_ref().unwrap();
    assert_eq!(player.solved(&app.timeline, app.cursor), Some(false));
    app.update(Action::Lesson(LessonKey::Hint));
    app.update(Action::Lesson(LessonKey::Hint));
    app.update(Action::Lesson(LessonKey::Hint));
    app.update(Action::Lesson(LessonKey::Solution));
    let player = app.lesson.as_ref().unwrap();
    assert_eq!(player.goal.hints, 2, "as many hints as the goal has");
    assert!(player.goal.solution);
    let text = screen(&app, 120, 40);
    assert!(text.contains(":apply -f web-ssd.yaml"), "{text}");
    assert!(text.contains("✗ not yet"), "{text}");
    // The student runs the solution in the command bar: `-f` reads the
    // lesson's own file, not one on disk.
    let command = app.resolve_command("apply -f web-ssd.yaml").unwrap();
    app.cursor = app.last();
    app.submit(command);
    // The whole run is computed, but the screen is at the command's first
    // request: the goal is not done until the animation gets there.
    assert_eq!(
        app.lesson
            .as_ref()
            .unwrap()
            .solved(&app.timeline, app.cursor),
        Some(false)
    );
    assert!(screen(&app, 120, 40).contains("✗ not yet"));
    app.update(Action::Last);
    assert_eq!(
        app.lesson
            .as_ref()
            .unwrap()
            .solved(&app.timeline, app.cursor),
        Some(true)
    );
    assert!(screen(&app, 120, 40).contains("✓ done"));
    app.update(Action::Lesson(LessonKey::Reset));
    assert_eq!(
        app.lesson
            .as_ref()
            .unwrap()
            .solved(&app.timeline, app.cursor),
        Some(false)
    );
}

#[test]
fn the_status_bar_counts_lesson_steps() {
    let app = at_first_quiz();
    let text = screen(&app, 120, 40);
    let status = text.lines().last().unwrap();
    assert!(status.starts_with(" lesson 7/15 · step "), "{status}");
}

#[test]
fn picker_120x40() {
    insta::assert_snapshot!(screen(&picker_app(), 120, 40));
}

#[test]
fn picker_80x24() {
    let mut app = picker_app();
    app.progress.reached("apply-to-running", 3, 15);
    app.lang = Lang::Zh;
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn quiz_120x40() {
    let mut app = at_first_quiz();
    app.update(Action::Lesson(LessonKey::Choose(1)));
    insta::assert_snapshot!(screen(&app, 120, 40));
}

#[test]
fn quiz_80x24() {
    let mut app = at_first_quiz();
    app.update(Action::Lesson(LessonKey::Choose(3)));
    insta::assert_snapshot!(screen(&app, 80, 24));
}

/// Lesson `id` in `lang`, at 80×24, at its first quiz answered with `choice`.
fn answered_first_quiz_of(id: &str, lang: Lang, choice: u8) -> App {
    let mut app = App::new(nginx_timeline(), lang, ThemeName::Dark, false);
    app.update(Action::Resize(80, 24));
    app.open_lesson(embedded::by_id(id).unwrap().unwrap())
        .unwrap();
    while !matches!(
        app.lesson.as_ref().and_then(|p| p.current()),
        Some(Step::Quiz(_))
    ) {
        press(&mut app, LessonKey::NextStep);
    }
    app.update(Action::Lesson(LessonKey::Choose(choice)));
    app
}

#[test]
fn a_step_longer_than_its_panel_scrolls_to_its_end() {
    // Lesson 10's first quiz, answered wrong in Chinese: its explanation
    // runs past the panel at 80×24.
    let mut app = answered_first_quiz_of("when-a-node-fails", Lang::Zh, 1);
    let overflow = app.lesson_overflow();
    assert!(overflow > 0, "the step is longer than its panel");
    let text = screen(&app, 80, 24);
    let below = format!("↓ 还有 {overflow} 行");
    assert!(
        text.contains(&below) && text.contains("这两条 300 秒"),
        "{text}"
    );
    for _ in 0..overflow + 5 {
        app.update(Action::Lesson(LessonKey::Scroll(1)));
    }
    assert_eq!(
        app.lesson.as_ref().unwrap().scroll,
        overflow,
        "as far as the end"
    );
    let text = screen(&app, 80, 24);
    let footer = text
        .lines()
        .find(|l| l.contains("n/p 步骤"))
        .expect("the panel's keys");
    assert!(
        footer.contains(&format!("↑ {overflow}")) && !footer.contains('↓'),
        "{footer}"
    );
    insta::assert_snapshot!(text);
    for _ in 0..overflow {
        app.update(Action::Lesson(LessonKey::Scroll(-1)));
    }
    let text = screen(&app, 80, 24);
    assert!(
        text.contains(&below) && text.contains("这两条 300 秒"),
        "back at the top"
    );
    // The next step starts at its top.
    press(&mut app, LessonKey::NextStep);
    assert_eq!(app.lesson.as_ref().unwrap().scroll, 0);
}

#[test]
fn the_wheel_over_the_panel_scrolls_the_step_whatever_has_the_focus() {
    use crossterm::event::{KeyModifiers, MouseEvent, MouseEventKind};
    let mut app = answered_first_quiz_of("when-a-node-fails", Lang::Zh, 1);
    app.focus = crate::tui::panes::PaneId::Objects;
    let area = app.area;
    let panel = app.lesson_panel(area).expect("the lesson's panel");
    let wheel = |column, row| MouseEvent {
        kind: MouseEventKind::ScrollDown,
        column,
        row,
        modifiers: KeyModifiers::NONE,
    };
    let over_panel = wheel(panel.x + 2, panel.y + 2);
    let action = crate::tui::run::mouse_action(&app, over_panel, area);
    assert_eq!(action, Some(Action::Lesson(LessonKey::Wheel(3))));
    app.update(action.expect("an action"));
    assert_eq!(app.lesson.as_ref().unwrap().scroll, app.lesson_overflow());
    // Elsewhere the wheel scrolls the pane under it, as without a lesson.
    let over_logs = wheel(2, area.height - 3);
    assert!(matches!(
        crate::tui::run::mouse_action(&app, over_logs, area),
        Some(Action::Scroll(crate::tui::panes::PaneId::Logs, _))
    ));
}

#[test]
fn arrows_keep_to_a_pane_the_student_focused_and_to_a_step_that_fits() {
    let mut app = answered_first_quiz_of("when-a-node-fails", Lang::En, 2);
    app.focus = crate::tui::panes::PaneId::Objects;
    let selected = app.pane(crate::tui::panes::PaneId::Objects).selected;
    app.update(Action::Lesson(LessonKey::Scroll(1)));
    assert_eq!(app.lesson.as_ref().unwrap().scroll, 0);
    assert_ne!(
        app.pane(crate::tui::panes::PaneId::Objects).selected,
        selected
    );
    // At 120×40 the same step fits: nothing to scroll, and no sign of more.
    app.update(Action::Resize(120, 40));
    app.focus = crate::tui::panes::PaneId::Pipeline;
    assert_eq!(app.lesson_overflow(), 0);
    app.update(Action::Lesson(LessonKey::Scroll(1)));
    assert_eq!(app.lesson.as_ref().unwrap().scroll, 0);
    let text = screen(&app, 120, 40);
    let footer = text
        .lines()
        .find(|l| l.contains("n/p step"))
        .expect("the panel's keys");
    assert!(!footer.contains('↓') && !footer.contains('↑'), "{footer}");
}

#[test]
fn next_while_a_step_plays_finishes_that_step_first() {
    // An impatient student presses `n` without letting any step play: each
    // press ends the step still playing, so the quiz ("the API server has just
    // stored the Pod") still shows the moment the Pod was stored.
    let calm = at_first_quiz();
    let mut quick = picker_app();
    press(&mut quick, LessonKey::Confirm);
    while !matches!(
        quick.lesson.as_ref().and_then(|p| p.current()),
        Some(Step::Quiz(_))
    ) {
        quick.update(Action::Lesson(LessonKey::NextStep));
    }
    assert!(!quick.playing, "a quiz plays nothing");
    assert_eq!(quick.cursor, calm.cursor, "the same moment, however fast");
}

/// The app with lesson `id` open at its first goal.
fn at_goal_of(id: &str) -> App {
    let mut app = App::new(nginx_timeline(), Lang::En, ThemeName::Dark, false);
    let lesson = embedded::by_id(id).unwrap().unwrap();
    app.open_lesson(lesson).unwrap();
    while !matches!(
        app.lesson.as_ref().and_then(|p| p.current()),
        Some(Step::Goal(_))
    ) {
        press(&mut app, LessonKey::NextStep);
    }
    app
}

fn edit(app: &mut App, keys: &[EditKey]) {
    for key in keys {
        app.update(Action::Edit(*key));
    }
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        app.update(Action::Edit(EditKey::Char(c)));
    }
}

fn editor_of(app: &App) -> &Editor {
    match &app.overlay {
        Overlay::Editor(editor) => editor,
        other => panic!("no editor open: {other:?}"),
    }
}

#[test]
fn the_student_edits_a_manifest_saves_it_and_applies_it() {
    let mut app = at_goal_of("the-scheduler");
    app.update(Action::Lesson(LessonKey::Edit));
    assert_eq!(editor_of(&app).name(), "db.yaml", "the goal's edit: file");
    // After `spec:` (line 5), add a toleration of the SSD node's taint.
    edit(&mut app, &[EditKey::Down; 4]);
    edit(&mut app, &[EditKey::End, EditKey::Enter]);
    type_text(
        &mut app,
        "  tolerations: [{key: dedicated, operator: Equal, value: database, effect: NoSchedule}]",
    );
    assert!(editor_of(&app).dirty());
    insta::assert_snapshot!("editor_120x40", screen(&app, 120, 40));
    edit(&mut app, &[EditKey::Save]);
    let editor = editor_of(&app);
    assert!(!editor.dirty());
    assert_eq!(
        editor.message,
        Some((true, "saved db.yaml: now run :apply -f db.yaml".to_owned()))
    );
    edit(&mut app, &[EditKey::Close]);
    assert_eq!(app.overlay, Overlay::None);
    // `:apply -f db.yaml` now reads the saved text, and the goal holds.
    let command = app.resolve_command("apply -f db.yaml").unwrap();
    app.cursor = app.last();
    app.submit(command);
    app.update(Action::Last);
    assert_eq!(
        app.lesson
            .as_ref()
            .unwrap()
            .solved(&app.timeline, app.cursor),
        Some(true)
    );
    // Opened again, the editor shows the saved text.
    app.update(Action::Lesson(LessonKey::Edit));
    assert!(editor_of(&app).text().contains("tolerations:"));
}

#[test]
fn a_save_that_does_not_read_says_where() {
    let mut app = at_goal_of("the-scheduler");
    app.update(Action::Lesson(LessonKey::Edit));
    type_text(&mut app, "{");
    edit(&mut app, &[EditKey::Save]);
    let (ok, message) = editor_of(&app).message.clone().unwrap();
    assert!(!ok);
    assert!(message.starts_with("saved, but db.yaml:"), "{message}");
    // The command bar reports the same error rather than the lesson's file.
    edit(&mut app, &[EditKey::Close]);
    let error = app.resolve_command("apply -f db.yaml").unwrap_err();
    assert!(error.starts_with("db.yaml:"), "{error}");
    // q types in the editor; it does not quit.
    app.update(Action::Lesson(LessonKey::Edit));
    assert_eq!(app.update(Action::Edit(EditKey::Char('q'))), []);
    assert!(matches!(app.overlay, Overlay::Editor(_)));
}

#[test]
fn the_help_lists_the_lesson_keys_in_a_lesson() {
    let mut app = at_goal_of("the-scheduler");
    app.update(Action::ToggleHelp);
    let text = screen(&app, 120, 40);
    assert!(text.contains("edit the lesson's files"), "{text}");
    assert!(text.contains("answer a quiz"), "{text}");
}

#[test]
fn a_quiz_with_several_right_answers_toggles_until_enter() {
    let mut app = App::new(nginx_timeline(), Lang::En, ThemeName::Dark, false);
    app.open_lesson(embedded::by_id("the-scheduler").unwrap().unwrap())
        .unwrap();
    let mut quizzes = 0;
    while quizzes < 2 {
        press(&mut app, LessonKey::NextStep);
        if matches!(
            app.lesson.as_ref().and_then(|p| p.current()),
            Some(Step::Quiz(_))
        ) {
            quizzes += 1;
        }
    }
    // Toggling: 1, 3 and 3 again leaves 1; Enter is needed to answer.
    for n in [1, 3, 3, 2] {
        app.update(Action::Lesson(LessonKey::Choose(n)));
    }
    let player = app.lesson.as_ref().unwrap();
    assert!(!player.quiz.answered);
    assert_eq!(player.quiz.chosen, [0, 1].into());
    app.update(Action::Lesson(LessonKey::Confirm));
    assert!(app.lesson.as_ref().unwrap().quiz_right());
    insta::assert_snapshot!("multiple_answer_quiz_100x30", screen(&app, 100, 30));
}

/// Whether the step shown is a narration waiting for stage `stage`.
fn waits_for(app: &App, stage: &str) -> bool {
    matches!(app.lesson.as_ref().and_then(|p| p.current()), Some(Step::Narrate(n))
        if n.until.as_ref().is_some_and(|u| u.value == stage))
}

/// The first `stage` record at or after `from`.
fn first_stage(app: &App, stage: StageName, from: usize) -> usize {
    (from..app.timeline.len())
        .find(|&i| {
            matches!(&app.timeline.records()[i].body,
            Record::Stage(s) if s.stage == stage)
        })
        .expect("the stage")
}

#[test]
fn next_after_stepping_past_the_moment_the_next_step_waits_for_goes_back_there() {
    let mut app = App::new(nginx_timeline(), Lang::En, ThemeName::Dark, false);
    app.open_lesson(embedded::by_id("the-scheduler").unwrap().unwrap())
        .unwrap();
    while !waits_for(&app, "filter") {
        press(&mut app, LessonKey::NextStep);
    }
    let score = first_stage(&app, StageName::Score, app.cursor);
    // → to the end of the run, past every score: the next step's moment is behind.
    app.update(Action::Last);
    press(&mut app, LessonKey::NextStep);
    assert_eq!(app.notice, None, "no `until \"score\" is never reached`");
    assert!(waits_for(&app, "score"));
    assert_eq!(app.cursor, score, "shown at the moment it names");
    // And on from there, as if the student had not stepped ahead.
    press(&mut app, LessonKey::NextStep);
    assert!(waits_for(&app, "select"));
    assert_eq!(app.cursor, first_stage(&app, StageName::Select, score));
    // A step ahead, not past the moment: n plays on to it.
    let mut calm = App::new(nginx_timeline(), Lang::En, ThemeName::Dark, false);
    calm.open_lesson(embedded::by_id("the-scheduler").unwrap().unwrap())
        .unwrap();
    while !waits_for(&calm, "filter") {
        press(&mut calm, LessonKey::NextStep);
    }
    calm.update(Action::StepForward);
    press(&mut calm, LessonKey::NextStep);
    assert_eq!(calm.cursor, score);
}

#[test]
fn a_short_step_leaves_the_sequence_and_explain_or_narration_in_sight() {
    let mut app = picker_app();
    press(&mut app, LessonKey::Confirm);
    let text = screen(&app, 120, 40);
    assert!(text.contains("┏ Lesson 1/"), "{text}");
    assert!(
        text.contains("┌ Sequence"),
        "the sequence diagram shows:\n{text}"
    );
    assert!(
        text.contains("┌ Narration") || text.contains("┌ Explain"),
        "a pane below the lesson:\n{text}"
    );
    // A step too long for the place (a quiz answered, its explanation shown)
    // takes the sequence's place instead of being cut.
    let mut app = at_first_quiz();
    app.update(Action::Lesson(LessonKey::Choose(1)));
    let text = screen(&app, 120, 30);
    assert!(!text.contains("┌ Sequence"), "{text}");
    assert!(text.contains("reason kubectl shows, not phases."), "{text}");
}

/// Lesson `id` played as a student would to its step `n` (1-based, as the
/// status bar counts), each goal solved first.
fn at_step(id: &str, n: usize) -> App {
    let lesson = embedded::open(id).unwrap();
    let mut app = crate::record::driver::lesson_app(lesson, Lang::En).unwrap();
    crate::record::driver::advance_lesson(&mut app, n - 1).unwrap();
    assert_eq!(app.lesson.as_ref().unwrap().step + 1, n);
    app
}

/// The English text of the step shown.
fn step_text(app: &App) -> String {
    match app.lesson.as_ref().and_then(|p| p.current()) {
        Some(Step::Narrate(n)) => n.text.value.en.clone().unwrap_or_default(),
        other => panic!("not a narration: {other:?}"),
    }
}

/// The trace's text line of record `i`.
fn line_at(app: &App, i: usize) -> String {
    podflow_engine::export::text::line(&app.timeline.records()[i])
}

/// Lesson 1, steps 3 and 4 stop at the API server's checks of apply's
/// first request, its GET (the 404 lookup): the text says the GET, not the POST.
#[test]
fn apply_to_running_narrates_the_request_its_checks_are_of() {
    for (n, stage, words) in [
        (3, "authentication", &["GET"][..]),
        (4, "authorization", &["get pods", "404"][..]),
    ] {
        let app = at_step("apply-to-running", n);
        assert!(line_at(&app, app.cursor).contains(stage));
        let request = (0..=app.cursor)
            .rev()
            .map(|i| line_at(&app, i))
            .find(|l| l.contains("kubectl → kube-apiserver:"))
            .unwrap();
        assert!(request.contains(": GET "), "{request}");
        let text = step_text(&app);
        for word in words {
            assert!(text.contains(word), "step {n} says {word:?}: {text}");
        }
        assert!(
            !text.contains("may this user create pods in"),
            "step {n}: {text}"
        );
    }
}

/// Lesson 4, step 13: the queues the text moves db through are the ones
/// the scheduler's `queue` records name (`backoffQ`, then `activeQ`), as in
/// upstream's `requeuePodWithQueueingStrategy`
/// (`pkg/scheduler/backend/queue/scheduling_queue.go`): a Pod still backing
/// off goes to `backoffQ`.
#[test]
fn the_scheduler_names_the_queues_its_trace_shows() {
    let app = at_step("the-scheduler", 13);
    let text = step_text(&app);
    let failed = (0..=app.cursor)
        .find(|&i| line_at(&app, i).contains("queue [default/db] → unschedulable"))
        .unwrap();
    let moves: Vec<String> = (failed + 1..=app.cursor)
        .map(|i| line_at(&app, i))
        .filter(|l| l.contains("queue [default/db] → "))
        .collect();
    assert!(!moves.is_empty());
    for line in &moves {
        let queue = if line.contains("→ backoff") {
            "backoffQ"
        } else if line.contains("→ active") {
            "activeQ"
        } else {
            continue;
        };
        assert!(
            text.contains(queue),
            "the trace says {line}; the text: {text}"
        );
    }
    assert!(
        !text.contains("activeQ at once"),
        "the trace waits in backoffQ: {text}"
    );
}

/// Every step of every lesson: the narration pane and the pipeline pane are
/// about the record at the cursor (the same record the status bar counts).
#[test]
fn every_lesson_step_shows_one_record_in_narration_and_pipeline() {
    use crate::tui::panes::{PaneCx, PaneId, narration, pipeline};
    for lesson in embedded::all().unwrap() {
        let id = lesson.id().to_owned();
        let mut app = crate::record::driver::lesson_app(lesson, Lang::En).unwrap();
        let steps = app.lesson.as_ref().unwrap().len();
        for n in 1..=steps {
            if n > 1 {
                crate::record::driver::advance_lesson(&mut app, 1).unwrap();
            }
            if app.timeline.is_empty() {
                continue;
            }
            let view = app.view();
            let theme = app.styles();
            let cx = PaneCx {
                view: &view,
                lang: app.lang,
                theme: &theme,
                focused: false,
                state: app.pane(PaneId::Pipeline),
            };
            let record = &app.timeline.records()[app.cursor];
            let story = narration::Model::build(&cx);
            let pipe = pipeline::Model::build(&cx);
            assert_eq!(
                story.headline,
                crate::tui::narrate::narrate(record, app.lang).headline,
                "{id} step {n}"
            );
            assert_eq!(story.time, narration::clock(record.t_ms), "{id} step {n}");
            let line = podflow_engine::export::text::line(record);
            assert!(
                line.ends_with(&pipe.caption),
                "{id} step {n}: pipeline {:?}, record {line:?}",
                pipe.caption
            );
        }
    }
}

/// A command typed in a lesson (or a drill) plays on to kubectl's answer, as
/// in the sandbox: the student reads the output without stepping to it.
#[test]
fn a_command_typed_in_a_lesson_plays_on_to_its_answer() {
    let lesson = embedded::open("apply-to-running").unwrap();
    let mut app = crate::record::driver::lesson_app(lesson, Lang::En).unwrap();
    let before = app.cursor;
    let tick = crate::tui::run::run_command(&mut app, "get pods");
    assert!(tick.is_some() && app.playing, "it plays on");
    while app.playing {
        app.update(Action::Tick);
    }
    assert!(app.cursor > before);
    let text = screen(&app, 120, 40);
    // The lesson has applied nothing yet.
    assert!(
        text.contains("kubectl│ No resources found in default namespace."),
        "{text}"
    );
    assert!(text.contains("ran: get pods"), "{text}");
}

/// Lesson 7, step 9 narrates the new `ReplicaSet`: it stops at the write that
/// creates it, also when the goal before (scale to 5) was left undone and
/// the apply's first `ScalingReplicaSet` is the old `ReplicaSet`'s scale (as
/// upstream's deployment controller does a scaling event before a rollout:
/// `pkg/controller/deployment/deployment_controller.go`, `isScalingEvent`).
#[test]
fn deployments_narrates_the_new_replicaset_where_the_pipeline_shows_it() {
    // The goal solved and played out; typed but not played (the class's
    // case: `n` right after the command); left undone.
    for how in ["typed", "skipped", "solved"] {
        let lesson = embedded::open("deployments").unwrap();
        let mut app = crate::record::driver::lesson_app(lesson, Lang::En).unwrap();
        while !matches!(
            app.lesson.as_ref().and_then(|p| p.current()),
            Some(Step::Goal(_))
        ) {
            press(&mut app, LessonKey::NextStep);
        }
        let old = app
            .timeline
            .records()
            .iter()
            .map(podflow_engine::export::text::line)
            .find_map(|l| {
                l.split_once("wrote /registry/replicasets/default/")
                    .map(|(_, rest)| rest.split(' ').next().unwrap_or("").to_owned())
            })
            .unwrap();
        match how {
            "solved" => crate::record::driver::solve_goal(&mut app).unwrap(),
            "typed" => {
                app.update(Action::OpenCommand);
                for c in "scale deployment web --replicas=5".chars() {
                    app.update(Action::Input(c));
                }
                for effect in app.update(Action::Submit) {
                    if let Effect::RunCommand(line) = effect {
                        let command = app.resolve_command(&line).unwrap();
                        app.submit(command);
                    }
                }
            }
            _ => {}
        }
        press(&mut app, LessonKey::NextStep);
        press(&mut app, LessonKey::NextStep);
        assert!(step_text(&app).contains("a new ReplicaSet"));
        let line = line_at(&app, app.cursor);
        assert!(
            line.contains("wrote /registry/replicasets/default/web-") && !line.contains(&old),
            "goal {how}: the step stops at {line}, not the new ReplicaSet (old: {old})"
        );
    }
}

/// The pane below the lesson is drawn on a cleared area: it reads exactly as
/// the pane drawn alone, with nothing of the panes it covers showing through.
#[test]
fn the_pane_below_the_lesson_shows_nothing_of_what_it_covers() {
    let mut app = picker_app();
    press(&mut app, LessonKey::Confirm);
    for _ in 0..5 {
        press(&mut app, LessonKey::NextStep);
    }
    let text = screen(&app, 120, 40);
    let rows: Vec<&str> = text.lines().collect();
    let (top, left) = rows
        .iter()
        .enumerate()
        .find_map(|(y, row)| {
            row.find("┌ Narration")
                .map(|x| (y, row[..x].chars().count()))
        })
        .unwrap_or_else(|| panic!("the narration below the lesson:\n{text}"));
    let bottom = (top + 1..rows.len())
        .find(|&y| rows[y].chars().nth(left) == Some('└'))
        .expect("the box's bottom");
    let width = rows[top]
        .chars()
        .skip(left)
        .take_while(|c| *c != '┐')
        .count()
        + 1;
    let alone = crate::tui::testing::render_pane_with(
        &app.timeline,
        app.cursor,
        crate::tui::panes::PaneId::Narration,
        u16::try_from(width).unwrap(),
        u16::try_from(bottom - top + 1).unwrap(),
        Lang::En,
        &crate::tui::panes::PaneState::default(),
    );
    let drawn: Vec<String> = rows[top..=bottom]
        .iter()
        .map(|row| row.chars().skip(left).take(width).collect())
        .collect();
    assert_eq!(drawn.join("\n"), alone.trim_end_matches('\n'), "{text}");
}

/// A drill (`podflow drill`): hints and the solution cost points, the cause
/// shows with the solution, and solving the last goal keeps the score in the
/// progress, once, asking for it to be saved.
#[test]
fn a_drill_is_scored_when_its_last_goal_holds() {
    let drill = podflow_drill::generate(14, podflow_drill::Level::One);
    assert_eq!(drill.kinds(), [podflow_drill::Kind::ImageTypo]);
    let mut app = App::new(nginx_timeline(), Lang::En, ThemeName::Dark, false);
    app.open_drill(drill.lesson.clone()).unwrap();
    while !matches!(
        app.lesson.as_ref().and_then(|p| p.current()),
        Some(Step::Goal(_))
    ) {
        press(&mut app, LessonKey::NextStep);
    }
    let text = screen(&app, 120, 40);
    assert!(text.contains("Drill"), "{text}");
    // The status bar names it a drill too.
    let status = text.lines().last().unwrap_or_default();
    assert!(status.starts_with(" drill 4/4 · step "), "{status}");
    assert!(text.contains("Score now: 100/100 (hints 0)"), "{text}");
    app.update(Action::Lesson(LessonKey::Hint));
    app.update(Action::Lesson(LessonKey::Solution));
    let text = screen(&app, 120, 40);
    assert!(
        text.contains("Score now: 25/100 (hints 1, solution shown)"),
        "{text}"
    );
    assert!(text.contains("Cause: The image"), "{text}");
    assert!(app.progress.drills.is_empty());
    let podflow_lesson::format::Step::Goal(goal) = app.lesson.as_ref().unwrap().current().unwrap()
    else {
        unreachable!()
    };
    let solution: Vec<String> = goal.solution.iter().map(|l| l.value.clone()).collect();
    app.cursor = app.last();
    for line in &solution {
        let command = app.resolve_command(line).unwrap();
        app.submit(command);
    }
    let effects = app.update(Action::Last);
    assert!(effects.contains(&Effect::SaveProgress), "{effects:?}");
    let saved = &app.progress.drills[&drill.id()];
    assert_eq!(
        (saved.score, saved.hints, saved.solution, saved.solved),
        (25, 1, true, 1)
    );
    assert!(screen(&app, 120, 40).contains("✓ Drill solved. Score 25/100"));
    // More keys change nothing: the drill was scored once.
    app.update(Action::Lesson(LessonKey::Hint));
    assert_eq!(app.progress.drills[&drill.id()].solved, 1);
}
