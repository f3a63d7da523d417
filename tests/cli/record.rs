//! `podflow record` and `podflow play --screenshot`: the cast is asciicast v2
//! (<https://docs.asciinema.org/manual/asciicast/v2/>), the same inputs give
//! the same bytes, and a terminal emulator (the `vt100` crate) replaying the
//! cast ends on the screen the app drew last.

use std::process::Command;
use std::sync::OnceLock;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

use podflow::record::{self, Format, Options, Recording, ansi, driver};
use podflow::tui::lang::Lang;
use podflow_engine::engine::Engine;
use podflow_engine::setup::{NGINX_POD, SetupArgs, build_setup};
use podflow_engine::timeline::Timeline;
use podflow_lesson::embedded;

const FIRST: &str = "apply-to-running";

fn options() -> Options {
    Options {
        title: Some("podflow".into()),
        ..Options::default()
    }
}

/// The first lesson, recorded once for every test of this file.
fn first_lesson() -> &'static Recording {
    static RECORDING: OnceLock<Recording> = OnceLock::new();
    RECORDING
        .get_or_init(|| record::record_lesson(embedded::open(FIRST).unwrap(), &options()).unwrap())
}

fn steps_of(id: &str) -> usize {
    embedded::open(id).unwrap().doc.steps.len()
}

/// The cast's lines as JSON values: the header, then the events.
fn parse(cast: &str) -> (serde_json::Value, Vec<serde_json::Value>) {
    let mut lines = cast.lines();
    let header = serde_json::from_str(lines.next().expect("a header line")).unwrap();
    let events = lines
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    (header, events)
}

/// Asserts the cast is asciicast v2; returns its markers' labels.
fn assert_asciicast_v2(cast: &str, width: u16, height: u16) -> Vec<String> {
    let (header, events) = parse(cast);
    assert_eq!(header["version"], 2);
    assert_eq!(header["width"], width);
    assert_eq!(header["height"], height);
    assert!(header.get("timestamp").is_none(), "no wall clock: {header}");
    let mut last = 0.0;
    let mut markers = Vec::new();
    for event in &events {
        let event = event.as_array().expect("an event is an array");
        assert_eq!(event.len(), 3, "{event:?}");
        let time = event[0].as_f64().expect("the time is a number");
        assert!(time >= last, "times never go back: {last} then {time}");
        last = time;
        let data = event[2].as_str().expect("the data is a string");
        match event[1].as_str() {
            Some("o") => assert!(!data.is_empty()),
            Some("m") => markers.push(data.to_owned()),
            other => panic!("an event code {other:?}"),
        }
    }
    markers
}

/// Feeds the cast's output to a terminal emulator.
fn replay(cast: &str, width: u16, height: u16) -> vt100::Parser {
    let (_, events) = parse(cast);
    let mut parser = vt100::Parser::new(height.try_into().unwrap(), width.try_into().unwrap(), 0);
    for event in &events {
        if event[1] == "o" {
            parser.process(event[2].as_str().unwrap().as_bytes());
        }
    }
    parser
}

/// ratatui's colour as the emulator stores it.
fn vt_color(color: Color) -> vt100::Color {
    let named = [
        Color::Black,
        Color::Red,
        Color::Green,
        Color::Yellow,
        Color::Blue,
        Color::Magenta,
        Color::Cyan,
        Color::Gray,
        Color::DarkGray,
        Color::LightRed,
        Color::LightGreen,
        Color::LightYellow,
        Color::LightBlue,
        Color::LightMagenta,
        Color::LightCyan,
        Color::White,
    ];
    match color {
        Color::Reset => vt100::Color::Default,
        Color::Indexed(i) => vt100::Color::Idx(i),
        Color::Rgb(r, g, b) => vt100::Color::Rgb(r, g, b),
        other => vt100::Color::Idx(
            u8::try_from(named.iter().position(|c| *c == other).unwrap()).unwrap(),
        ),
    }
}

/// Asserts the emulator shows `buf`: its text, and each cell's colours and weight.
fn assert_screen(screen: &vt100::Screen, buf: &Buffer) {
    let width = buf.area.width;
    let shown: Vec<String> = screen
        .rows(0, width)
        .map(|r| r.trim_end().to_owned())
        .collect();
    let drawn = ansi::text(buf);
    let drawn: Vec<&str> = drawn.lines().collect();
    assert_eq!(shown, drawn);
    for y in 0..buf.area.height {
        for x in 0..width {
            let cell = &buf[(x, y)];
            let vt = screen.cell(y, x).unwrap();
            if vt.is_wide_continuation() {
                continue;
            }
            assert_eq!(vt.fgcolor(), vt_color(cell.fg), "fg at {x},{y}");
            assert_eq!(vt.bgcolor(), vt_color(cell.bg), "bg at {x},{y}");
            assert_eq!(
                vt.bold(),
                cell.modifier.contains(Modifier::BOLD),
                "bold at {x},{y}"
            );
        }
    }
}

/// What ratatui's `TestBackend` draws of the app, as text.
fn test_backend_text(app: &podflow::tui::app::App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|frame| frame.render_widget(app, frame.area()))
        .unwrap();
    ansi::text(terminal.backend().buffer())
}

fn podflow(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_podflow"))
        .args(args)
        .output()
        .expect("podflow runs")
}

#[test]
fn recording_the_first_lesson_twice_gives_the_same_bytes() {
    let again = record::record_lesson(embedded::open(FIRST).unwrap(), &options()).unwrap();
    assert_eq!(first_lesson().cast, again.cast);
}

#[test]
fn the_cast_is_asciicast_v2_with_a_marker_per_lesson_step() {
    let recording = first_lesson();
    let markers = assert_asciicast_v2(&recording.cast, 120, 40);
    let steps = steps_of(FIRST);
    assert_eq!(markers.len(), steps, "{markers:?}");
    assert_eq!(recording.markers, steps);
    for (i, marker) in markers.iter().enumerate() {
        assert!(marker.starts_with(&format!("{} ", i + 1)), "{marker}");
    }
    assert_eq!(markers[1], "2 command: apply -f nginx.yaml");
    assert!(markers.iter().any(|m| m.contains(" quiz: ")));
    assert!(markers.iter().any(|m| m.contains(" goal: ")));
    assert!(
        recording.cast.ends_with("\"\\u001b[0m\\u001b[?25h\"]\n"),
        "reset at the end"
    );
}

#[test]
fn replaying_the_lesson_in_a_terminal_emulator_ends_on_the_last_screen() {
    let recording = first_lesson();
    let parser = replay(&recording.cast, 120, 40);
    assert_screen(parser.screen(), &recording.screen);
    assert!(
        !parser.screen().hide_cursor(),
        "the cursor shows again at the end"
    );
    let text = ansi::text(&recording.screen);
    assert!(text.contains("Lesson 15/15"), "{text}");
}

#[test]
fn the_lesson_answers_its_quizzes_and_solves_its_goal() {
    // The emulator after each marker's frames: the screen before the next marker.
    let recording = first_lesson();
    let (_, events) = parse(&recording.cast);
    let mut parser = vt100::Parser::new(40.try_into().unwrap(), 120.try_into().unwrap(), 0);
    let mut before_marker = Vec::new();
    for event in &events {
        if event[1] == "m" {
            before_marker.push(parser.screen().contents());
        } else {
            parser.process(event[2].as_str().unwrap().as_bytes());
        }
    }
    let quiz_end = &before_marker[7];
    assert!(quiz_end.contains("Lesson 7/15"), "{quiz_end}");
    assert!(quiz_end.contains("Right."), "{quiz_end}");
    let goal_end = &before_marker[14];
    assert!(goal_end.contains("Lesson 14/15"), "{goal_end}");
    assert!(goal_end.contains("✓ done: "), "{goal_end}");
}

#[test]
fn a_sandbox_recording_marks_each_phase() {
    let setup = build_setup(&SetupArgs {
        embedded: vec![NGINX_POD],
        seed: 1,
        ..SetupArgs::default()
    })
    .unwrap();
    let options = Options {
        cols: 100,
        rows: 30,
        pace: 0.5,
        ..Options::default()
    };
    let recording = record::record_sandbox(Timeline::new(Engine::new(setup)), &options);
    let markers = assert_asciicast_v2(&recording.cast, 100, 30);
    // Each marker names the step as the status bar does: who does what.
    assert_eq!(markers[0], "1 kubectl → API server: GET pods/nginx");
    assert!(
        markers[1].starts_with("2 kubectl → API server: GET"),
        "{markers:?}"
    );
    assert!(
        markers
            .iter()
            .any(|m| m.ends_with(" scheduler: default/nginx")),
        "{markers:?}"
    );
    assert!(
        markers.iter().any(|m| m.contains("kubelet node-3: ")),
        "{markers:?}"
    );
    let parser = replay(&recording.cast, 100, 30);
    assert_screen(parser.screen(), &recording.screen);
}

#[test]
fn a_lesson_screenshot_is_what_test_backend_draws() {
    let mut app = driver::lesson_app(embedded::open(FIRST).unwrap(), Lang::En).unwrap();
    driver::advance_lesson(&mut app, 6).expect("the lesson's goals are solved");
    let drawn = test_backend_text(&app, 100, 32);
    assert!(drawn.contains("Lesson 7/15"), "{drawn}");
    assert_eq!(record::screenshot(&app, 100, 32, Format::Text), drawn);
    let out = podflow(&[
        "play",
        "--lesson",
        FIRST,
        "--screenshot",
        "-",
        "--at-step",
        "7",
        "--cols",
        "100",
        "--rows",
        "32",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), drawn);
}

#[test]
fn an_ansi_screenshot_shows_the_same_screen_in_colour() {
    let nginx = format!(
        "{}/assets/manifests/nginx-pod.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = podflow(&[
        "play",
        "-f",
        &nginx,
        "--screenshot",
        "-",
        "--at-step",
        "12",
        "--ansi",
        "--cols",
        "90",
        "--rows",
        "30",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ansi_text = String::from_utf8(out.stdout).unwrap();
    let setup = build_setup(&SetupArgs {
        files: vec![nginx.clone()],
        seed: 1,
        ..SetupArgs::default()
    })
    .unwrap();
    let mut app = driver::app(Timeline::new(Engine::new(setup)), Lang::En);
    app.update(podflow::tui::action::Action::Seek(11));
    let buf = driver::draw(&app, 90, 30);
    assert_eq!(ansi_text, ansi::ansi(&buf));
    assert!(test_backend_text(&app, 90, 30).contains("step 12/"));
    // A terminal shows the file as the app drew it (one spare row: the last newline scrolls).
    let mut parser = vt100::Parser::new(31.try_into().unwrap(), 90.try_into().unwrap(), 0);
    parser.process(ansi_text.replace('\n', "\r\n").as_bytes());
    let shown: Vec<String> = parser
        .screen()
        .rows(0, 90)
        .map(|r| r.trim_end().to_owned())
        .collect();
    let drawn = ansi::text(&buf);
    assert_eq!(shown[..30], drawn.lines().collect::<Vec<_>>()[..]);
}

#[test]
fn usage_errors_exit_2_with_one_message() {
    let table: [(&[&str], &str); 5] = [
        (&["record", "-o", "/dev/null"], "needs --lesson ID"),
        (
            &["record", "--lesson", FIRST, "-o", "x.cast", "--pace", "0"],
            "is not a pace",
        ),
        (
            &["record", "--lesson", "no-such-lesson", "-o", "x.cast"],
            "no-such-lesson",
        ),
        (
            &[
                "play",
                "--lesson",
                FIRST,
                "--screenshot",
                "-",
                "--at-step",
                "99",
            ],
            "--at-step 99: there are steps 1 to 15",
        ),
        (&["play", "--at-step", "3"], "--screenshot"),
    ];
    for (args, message) in table {
        let out = podflow(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

/// `--theme` reaches `--screenshot --ansi`: each theme colours the same
/// screen its own way.
#[test]
fn each_theme_colours_an_ansi_screenshot_its_own_way() {
    let nginx = format!(
        "{}/assets/manifests/nginx-pod.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    let shot = |theme: &str| {
        let out = podflow(&[
            "play",
            "-f",
            &nginx,
            "--screenshot",
            "-",
            "--at-step",
            "12",
            "--ansi",
            "--theme",
            theme,
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let (dark, light, contrast) = (shot("dark"), shot("light"), shot("high-contrast"));
    assert_ne!(dark, light);
    assert_ne!(dark, contrast);
    assert_ne!(light, contrast);
}
