//! The app's update function (action → state), seeking, every terminal size,
//! and whole screens on ratatui's `TestBackend` (insta snapshots).

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;

use super::action::{Action, Effect};
use super::app::{App, Overlay};
use super::lang::Lang;
use super::panes::PaneId;
use super::testing::{buffer_text, find, nginx_timeline, timeline};
use super::theme::ThemeName;
use podflow_engine::timeline::Timeline;

fn app(timeline: Timeline) -> App {
    App::new(timeline, Lang::En, ThemeName::Dark, false)
}

fn draw(app: &App, width: u16, height: u16) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("a test terminal");
    terminal
        .draw(|frame| frame.render_widget(app, frame.area()))
        .expect("drawing never fails");
    terminal.backend().buffer().clone()
}

#[test]
fn play_ticks_until_the_end_then_pauses() {
    let mut app = app(nginx_timeline());
    assert_eq!(app.update(Action::TogglePlay), [Effect::Ticking(Some(150))]);
    assert!(app.playing);
    // Four animation frames a step: the token moves, then the next step.
    for progress in [50, 75, 100] {
        app.update(Action::Tick);
        assert_eq!(app.cursor, 0);
        assert_eq!(app.pane(PaneId::Pipeline).progress, Some(progress));
    }
    app.update(Action::Tick);
    assert_eq!(app.cursor, 1);
    assert_eq!(app.pane(PaneId::Pipeline).progress, Some(25));
    app.cursor = app.last();
    for _ in 0..3 {
        app.update(Action::Tick);
    }
    assert_eq!(app.update(Action::Tick), [Effect::Ticking(None)]);
    assert_eq!(
        app.pane(PaneId::Pipeline).progress,
        None,
        "paused: the token rests"
    );
    assert!(!app.playing);
    // Play at the end starts again from the first step.
    app.update(Action::TogglePlay);
    assert_eq!(app.cursor, 0);
    assert_eq!(app.update(Action::TogglePlay), [Effect::Ticking(None)]);
}

#[test]
fn playing_waits_at_the_end_of_a_run_still_being_computed() {
    let mut app = app(Timeline::started(super::testing::nginx_engine()));
    app.timeline.advance(6);
    let computed = app.timeline.len();
    assert!(computed > 1 && !app.timeline.is_complete());
    let screen = buffer_text(&draw(&app, 120, 40));
    assert!(screen.contains(&format!("step 1/{computed}+")), "{screen}");
    app.cursor = app.last();
    app.update(Action::TogglePlay);
    assert_eq!(
        app.cursor,
        computed - 1,
        "play at the end so far does not rewind"
    );
    for _ in 0..8 {
        assert!(app.update(Action::Tick).is_empty(), "no pause");
    }
    assert!(app.playing, "still playing, waiting for the rest");
    assert_eq!(app.cursor, computed - 1);
    app.timeline.finish();
    for _ in 0..4 {
        app.update(Action::Tick);
    }
    assert_eq!(app.cursor, computed, "on again once computed");
    let screen = buffer_text(&draw(&app, 120, 40));
    let total = app.timeline.len();
    assert!(screen.contains(&format!("/{total} ")), "{screen}");
    assert!(!screen.contains(&format!("/{total}+")));
}

#[test]
fn stepping_is_clamped_and_pauses() {
    let mut app = app(nginx_timeline());
    app.update(Action::StepBack);
    assert_eq!(app.cursor, 0);
    app.update(Action::TogglePlay);
    assert_eq!(app.update(Action::StepForward), [Effect::Ticking(None)]);
    assert_eq!(app.cursor, 1);
    app.update(Action::Last);
    assert_eq!(app.cursor, app.last());
    app.update(Action::StepForward);
    assert_eq!(app.cursor, app.last());
    app.update(Action::First);
    assert_eq!(app.cursor, 0);
    app.update(Action::Seek(usize::MAX));
    assert_eq!(app.cursor, app.last());
}

#[test]
fn phases_jump_between_components() {
    let t = nginx_timeline();
    let post = find(&t, "kubectl → kube-apiserver: POST");
    let mut app = app(t);
    app.update(Action::Seek(post));
    app.update(Action::NextPhase);
    assert_eq!(app.cursor, post + 1);
    app.update(Action::PrevPhase);
    assert_eq!(app.cursor, post);
}

#[test]
fn speed_stays_between_a_quarter_and_sixteen() {
    let mut app = app(nginx_timeline());
    for _ in 0..10 {
        app.update(Action::Faster);
    }
    assert_eq!(app.tick_ms(), 9);
    for _ in 0..10 {
        app.update(Action::Slower);
    }
    assert_eq!(app.tick_ms(), 600);
    app.update(Action::TogglePlay);
    assert_eq!(app.update(Action::Faster), [Effect::Ticking(Some(300))]);
}

#[test]
fn focus_zoom_help_language_theme() {
    let mut app = app(nginx_timeline());
    app.update(Action::FocusNext);
    assert_eq!(app.focus, PaneId::Sequence);
    app.update(Action::FocusPrev);
    app.update(Action::FocusPrev);
    assert_eq!(app.focus, PaneId::Logs);
    app.update(Action::ToggleZoom);
    assert!(app.zoomed);
    app.update(Action::ToggleHelp);
    assert_eq!(app.overlay, Overlay::Help(0));
    app.update(Action::ToggleHelp);
    assert_eq!(app.overlay, Overlay::None);
    app.update(Action::ToggleLang);
    assert_eq!(app.lang, Lang::Zh);
    app.update(Action::NextTheme);
    assert_eq!(app.theme, ThemeName::Light);
}

#[test]
fn the_help_says_what_is_simplified_in_the_language_shown() {
    let mut app = app(nginx_timeline());
    app.update(Action::ToggleHelp);
    let text = buffer_text(&draw(&app, 200, 50));
    assert!(
        text.contains("Simplified (the README lists it all)"),
        "{text}"
    );
    assert!(text.contains("Events stay out of etcd"), "{text}");
    app.update(Action::ToggleLang);
    let text = buffer_text(&draw(&app, 200, 50));
    assert!(text.contains("简化之处"), "{text}");
}

#[test]
fn a_help_line_too_long_for_the_box_continues_under_its_description() {
    let mut app = app(nginx_timeline());
    app.update(Action::ToggleHelp);
    let text = buffer_text(&draw(&app, 60, 18));
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("next / previous phase"))
        .expect(&text);
    let first = lines[at];
    let next = lines[at + 1];
    let column = |line: &str, needle: &str| line.find(needle).map(|b| line[..b].chars().count());
    assert_eq!(
        column(next, "component changes"),
        column(first, "next / previous phase"),
        "the continuation starts under the description:\n{text}"
    );
    // Too short for every line: the last one in sight says how many are not.
    assert!(text.contains("lines below: ↓ scrolls"), "{text}");
    let tall = buffer_text(&draw(&app, 200, 50));
    assert!(
        tall.contains("q Ctrl-C") && !tall.contains("below: ↓ scrolls"),
        "{tall}"
    );
}

#[test]
fn the_help_box_keeps_its_left_border_over_chinese_text() {
    // At 80×24 the box starts at column 4; the Watch pane's Chinese
    // placeholder has a wide character in columns 3 and 4.
    let mut app = app(nginx_timeline());
    app.update(Action::ToggleLang);
    let below = buffer_text(&draw(&app, 80, 24));
    assert!(below.contains("│尚无"), "{below}");
    app.update(Action::ToggleHelp);
    let buffer = draw(&app, 80, 24);
    let row = (0..24)
        .find(|&y| buffer[(1, y)].symbol() == "尚")
        .expect("the placeholder's row");
    assert_eq!(
        buffer[(3, row)].symbol(),
        " ",
        "the wide character gives way"
    );
    assert_eq!(buffer[(4, row)].symbol(), "│", "the box's border");
}

#[test]
fn the_command_bar_collects_a_line_and_runs_it() {
    let mut app = app(nginx_timeline());
    app.update(Action::OpenCommand);
    for c in "get pods".chars() {
        app.update(Action::Input(c));
    }
    app.update(Action::Backspace);
    app.update(Action::Input('s'));
    assert_eq!(app.overlay, Overlay::Command("get pods".into()));
    // Esc closes the bar and forgets the line.
    app.update(Action::Cancel);
    assert_eq!(app.overlay, Overlay::None);
    app.update(Action::OpenCommand);
    for c in "get pods".chars() {
        app.update(Action::Input(c));
    }
    assert_eq!(
        app.update(Action::Submit),
        [Effect::RunCommand("get pods".into())]
    );
    assert_eq!(app.overlay, Overlay::None);
}

#[test]
fn a_filter_applies_to_the_focused_pane_as_it_is_typed() {
    let mut app = app(nginx_timeline());
    app.update(Action::Focus(PaneId::Watch));
    app.update(Action::OpenFilter);
    for c in "kubelet".chars() {
        app.update(Action::Input(c));
    }
    assert_eq!(app.pane(PaneId::Watch).filter, "kubelet");
    app.update(Action::Submit);
    assert_eq!(app.overlay, Overlay::None);
    assert_eq!(app.pane(PaneId::Watch).filter, "kubelet");
    assert_eq!(app.pane(PaneId::Logs).filter, "");
}

#[test]
fn the_objects_pane_selection_starts_at_the_steps_key() {
    let t = nginx_timeline();
    let bind = find(&t, "wrote /registry/pods/default/nginx");
    let mut app = app(t);
    app.update(Action::Seek(bind));
    app.update(Action::Focus(PaneId::Objects));
    app.update(Action::Select(1));
    let after_down = app.pane(PaneId::Objects).selected;
    assert!(
        after_down > 1,
        "down moves from the step's key, not from the top"
    );
    app.update(Action::Select(-1));
    assert_eq!(app.pane(PaneId::Objects).selected, after_down - 1);
    app.update(Action::StepForward);
    assert_eq!(
        app.pane(PaneId::Objects).selected,
        0,
        "a new step follows the step again"
    );
}

#[test]
fn a_command_runs_after_the_current_step() {
    let mut app = app(nginx_timeline());
    app.update(Action::Last);
    let before = app.timeline.len();
    let parsed = podflow_engine::command::parse("delete pod nginx").unwrap();
    let command = podflow_engine::command::resolve(parsed, |_| Ok::<_, ()>(Vec::new())).unwrap();
    app.submit(command);
    assert!(app.timeline.len() > before);
    assert_eq!(app.cursor, before, "the cursor moves to the first new step");
}

#[test]
fn a_command_typed_in_the_bar_is_computed_between_frames() {
    let command = || {
        let parsed = podflow_engine::command::parse("delete pod nginx").unwrap();
        podflow_engine::command::resolve(parsed, |_| Ok::<_, ()>(Vec::new())).unwrap()
    };
    let mut whole = app(nginx_timeline());
    whole.update(Action::Last);
    whole.submit(command());
    let mut typed = app(nginx_timeline());
    typed.update(Action::Last);
    typed.submit_in_background(command());
    assert!(
        !typed.timeline.is_complete(),
        "the rest is left to the event loop"
    );
    assert_eq!(typed.cursor, whole.cursor, "at the first new step already");
    assert_eq!(
        typed.timeline.records()[typed.cursor],
        whole.timeline.records()[whole.cursor]
    );
    typed.timeline.finish();
    assert_eq!(typed.timeline.records(), whole.timeline.records());
}

#[test]
fn seeking_back_and_forth_draws_the_same_screen() {
    let t = nginx_timeline();
    let target = find(&t, "kube-scheduler select");
    let mut direct = app(t.clone());
    direct.update(Action::Seek(target));
    let mut walked = app(t);
    for _ in 0..target + 25 {
        walked.update(Action::StepForward);
    }
    for _ in 0..25 {
        walked.update(Action::StepBack);
    }
    assert_eq!(walked.cursor, target);
    assert_eq!(draw(&direct, 120, 40), draw(&walked, 120, 40));
}

#[test]
fn every_size_draws_without_panic() {
    let t = nginx_timeline();
    let mid = find(&t, "kube-scheduler select");
    let mut app = app(t);
    app.update(Action::Seek(mid));
    for width in [
        1, 2, 5, 10, 19, 20, 39, 40, 41, 60, 79, 80, 100, 120, 200, 300,
    ] {
        for height in [1, 2, 5, 6, 11, 12, 16, 23, 24, 30, 40, 60, 100] {
            draw(&app, width, height);
        }
    }
    app.update(Action::ToggleHelp);
    app.update(Action::ToggleZoom);
    app.update(Action::ToggleLang);
    for (width, height) in [(1, 1), (20, 6), (40, 12), (80, 24), (300, 100)] {
        draw(&app, width, height);
    }
}

#[test]
fn a_commands_error_shows_in_the_status_bar() {
    let mut app = app(nginx_timeline());
    app.notice = Some(r#"error: unknown command "frob" for "kubectl""#.into());
    let text = buffer_text(&draw(&app, 100, 30));
    assert!(
        text.lines()
            .last()
            .unwrap()
            .contains(r#"error: unknown command "frob" for "kubectl""#),
        "{text}"
    );
    app.update(Action::StepForward);
    assert_eq!(app.notice, None, "the next key clears it");
}

#[test]
fn a_small_terminal_asks_to_be_bigger() {
    let app = app(nginx_timeline());
    let text = buffer_text(&draw(&app, 30, 8));
    assert!(text.contains("podflow needs a bigger"), "{text}");
}

/// The whole screen at a step, as text.
fn screen(app: &App, width: u16, height: u16) -> String {
    buffer_text(&draw(app, width, height))
}

fn at(timeline: Timeline, needle: &str) -> App {
    let index = find(&timeline, needle);
    let mut app = app(timeline);
    app.update(Action::Seek(index));
    app
}

#[test]
fn screens() {
    let first = app(nginx_timeline());
    let scheduling = at(nginx_timeline(), "kube-scheduler score");
    let mut running = app(nginx_timeline());
    running.update(Action::Last);
    let forbidden = {
        let args = podflow_engine::setup::SetupArgs {
            cluster: Some(format!(
                "{}/tests/fixtures/rbac-cluster.yaml",
                env!("CARGO_MANIFEST_DIR")
            )),
            steps: vec![format!(
                "create -f {}/tests/fixtures/dev-pod.yaml",
                env!("CARGO_MANIFEST_DIR")
            )],
            token: Some("jane-token".into()),
            seed: 1,
            ..podflow_engine::setup::SetupArgs::default()
        };
        let engine =
            podflow_engine::engine::Engine::new(podflow_engine::setup::build_setup(&args).unwrap());
        at(Timeline::new(engine), "kube-apiserver → kubectl: 403")
    };
    // Every worker cordoned before the Pod comes: it stays Pending.
    let pending = {
        let args = podflow_engine::setup::SetupArgs {
            steps: vec![
                "cordon node-1".into(),
                "cordon node-2".into(),
                "cordon node-3".into(),
                format!(
                    "apply -f {}/assets/manifests/nginx-pod.yaml",
                    env!("CARGO_MANIFEST_DIR")
                ),
            ],
            seed: 1,
            ..podflow_engine::setup::SetupArgs::default()
        };
        let engine =
            podflow_engine::engine::Engine::new(podflow_engine::setup::build_setup(&args).unwrap());
        at(Timeline::new(engine), "FailedScheduling")
    };
    for (name, app) in [
        ("first_step", &first),
        ("mid_scheduling", &scheduling),
        ("running", &running),
        ("forbidden", &forbidden),
        ("pending_explain", &pending),
    ] {
        insta::assert_snapshot!(format!("{name}_120x40"), screen(app, 120, 40));
        insta::assert_snapshot!(format!("{name}_80x24"), screen(app, 80, 24));
    }
}

/// A Deployment: the objects pane's owner tree (Deployment ▸ `ReplicaSet` ▸
/// Pods) and the controller manager's caches and queues under the nodes.
#[test]
fn deployment_screens() {
    let steps = [format!(
        "apply -f {}/tests/fixtures/web-deployment.yaml",
        env!("CARGO_MANIFEST_DIR")
    )];
    let steps: Vec<&str> = steps.iter().map(String::as_str).collect();
    let creating = at(timeline(&steps, None), "replicaset-controller → create");
    let mut settled = app(timeline(&steps, None));
    settled.update(Action::Last);
    for (name, app) in [
        ("deployment_creating", &creating),
        ("deployment_settled", &settled),
    ] {
        insta::assert_snapshot!(format!("{name}_120x40"), screen(app, 120, 40));
        insta::assert_snapshot!(format!("{name}_80x24"), screen(app, 80, 24));
    }
}

/// Every hostile manifest typed into the command bar (`:apply -f FILE`) is
/// refused with the message `podflow trace -f FILE` gives, shown in the
/// status bar (and whole, wrapped, above it when longer), or run as the API
/// server answers it; either way the TUI draws on and keeps stepping (issue 9: the TUI shows the same message without dying).
#[test]
fn hostile_files_typed_in_the_command_bar_are_refused_or_run_and_the_tui_goes_on() {
    let dir = "tests/bad-input/hostile";
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .expect("the hostile corpus")
        .map(|e| {
            e.expect("a directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| !name.starts_with("lesson-"))
        .collect();
    files.sort();
    let (mut refused, mut ran) = (0, 0);
    for name in &files {
        let path = format!("{dir}/{name}");
        let mut app = app(nginx_timeline());
        app.update(Action::Seek(usize::MAX));
        let before = app.timeline.len();
        super::run::run_command(&mut app, &format!("apply -f {path}"));
        app.timeline.finish();
        if let Err(error) = podflow_engine::setup::load_manifests(&path) {
            let message = error.to_string();
            assert!(message.contains(&path), "{message}");
            assert_eq!(app.notice.as_deref(), Some(message.as_str()), "{name}");
            assert_eq!(app.timeline.len(), before, "{name}: nothing ran");
            let status = screen(&app, 120, 40);
            let shown: String = message.chars().take(60).collect();
            assert!(status.lines().last().unwrap().contains(&shown), "{status}");
            // Longer than the bar: the whole of it, wrapped, above the bar.
            let small = screen(&app, 80, 24);
            let last_word = message.split_whitespace().last().unwrap_or_default();
            assert!(small.contains("notice (any key closes)"), "{small}");
            assert!(small.contains(last_word), "{last_word:?} in {small}");
            refused += 1;
        } else {
            assert!(app.timeline.len() > before, "{name}: the apply ran");
            ran += 1;
        }
        draw(&app, 80, 24);
        app.update(Action::StepBack);
        app.update(Action::StepForward);
        draw(&app, 120, 40);
    }
    assert!(refused >= 6 && ran >= 3, "{refused} refused, {ran} ran");
}

/// A command typed in the sandbox plays on to kubectl's answer: its output is
/// in the logs pane without stepping by hand.
#[test]
fn a_typed_commands_output_shows_at_once() {
    let mut app = app(nginx_timeline());
    app.update(Action::Seek(usize::MAX));
    let tick = super::run::run_command(&mut app, "get pods");
    assert!(tick.is_some(), "the sandbox plays on to the answer");
    assert!(app.playing);
    while app.playing {
        app.update(Action::Tick);
    }
    let text = screen(&app, 120, 40);
    assert!(
        text.contains("NAME    READY   STATUS    RESTARTS   AGE"),
        "{text}"
    );
    assert!(text.contains("nginx   1/1     Running"), "{text}");
}

/// Mid-run, kubectl's answer may come after many steps of the run's same
/// moment: the view jumps to it rather than play them all.
#[test]
fn a_typed_commands_answer_far_on_is_jumped_to() {
    let mut app = app(nginx_timeline());
    app.update(Action::Seek(60));
    let tick = super::run::run_command(&mut app, "get pods");
    assert_eq!(tick, None);
    assert!(!app.playing);
    let text = screen(&app, 120, 40);
    assert!(text.contains("kubectl│ NAME    READY   STATUS"), "{text}");
    // The request is still in the sequence pane.
    assert!(text.contains("GET …/default/pods"), "{text}");
}

/// The echo of a command run is cut to the status bar, in the bar's own
/// colours: it is not an error, and no box covers the logs that show its
/// output.
#[test]
fn a_long_commands_echo_stays_in_the_status_bar() {
    let mut app = app(nginx_timeline());
    app.update(Action::Seek(usize::MAX));
    super::run::run_command(
        &mut app,
        "get pods --all-namespaces --output wide --selector run=nginx",
    );
    while app.playing {
        app.update(Action::Tick);
    }
    let text = screen(&app, 80, 24);
    assert!(!text.contains("notice (any key closes)"), "{text}");
    let status = text.lines().last().unwrap_or_default();
    assert!(status.contains(" ran: get pods --all"), "{status}");
    assert!(status.ends_with('…'), "{status}");
    // kubectl's answer is in the logs (the nginx Pod is not labelled so).
    assert!(text.contains("kubectl│ No resources found"), "{text}");
    app.update(Action::StepBack);
    assert_eq!(app.ran, None, "the next key clears it");
}

#[test]
fn a_run_too_large_for_the_memory_is_cut_short_and_says_so() {
    let mut computing = Timeline::started(podflow_engine::testing::nginx_engine());
    assert!(!computing.advance(3));
    let mut app = app(computing);
    assert!(screen(&app, 120, 40).contains("step 1/"), "being computed");
    app.cut_short(crate::memory::Budget {
        limit_kb: 3 * 1024 * 1024,
    });
    let steps = app.timeline.len();
    let text = screen(&app, 120, 40);
    assert!(text.contains(&format!("/{steps}✂")), "{text}");
    assert!(
        text.contains(&format!(
            "stopped computing at step {steps}: the run holds over 3.0 GiB"
        )),
        "{text}"
    );
    // What was computed can be played; its end is the run's end.
    assert!(app.run_is_over());
    app.update(Action::Last);
    assert_eq!(app.cursor, steps - 1);
}
