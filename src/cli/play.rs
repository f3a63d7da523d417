//! `podflow play` (and `podflow` alone): the TUI on manifests and a cluster,
//! or on the embedded default story.

use std::io::IsTerminal;

use clap::{Args, ValueEnum};

use super::trace::{DetailArg, UntilArg, parse_until};
use crate::record;
use crate::tui::action::Action;
use crate::tui::app::App;
use crate::tui::lang::Lang;
use crate::tui::lesson::picker::Picker;
use crate::tui::theme::ThemeName;
use podflow_engine::apiserver::handler::Detail;
use podflow_engine::clock::SimTime;
use podflow_engine::engine::{Engine, Until};
use podflow_engine::setup::{NGINX_POD, SetupArgs, build_setup_on, cluster};
use podflow_engine::timeline::Timeline;
use podflow_lesson::{Lesson, embedded, progress};

/// `--lang`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum LangArg {
    #[default]
    En,
    Zh,
}

impl LangArg {
    /// The interface's language.
    pub fn lang(self) -> Lang {
        match self {
            LangArg::En => Lang::En,
            LangArg::Zh => Lang::Zh,
        }
    }
}

/// `--theme`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum ThemeArg {
    #[default]
    Dark,
    Light,
    HighContrast,
}

impl ThemeArg {
    /// The theme it names.
    pub fn theme(self) -> ThemeName {
        match self {
            ThemeArg::Dark => ThemeName::Dark,
            ThemeArg::Light => ThemeName::Light,
            ThemeArg::HighContrast => ThemeName::HighContrast,
        }
    }
}

/// `podflow play`'s arguments (README.md, "Use").
#[derive(Debug, Clone, Args)]
pub struct PlayArgs {
    /// A manifest to apply (YAML or JSON; `-` for standard input). Repeatable.
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    pub files: Vec<String>,
    /// A cluster-language command to run after the files. Repeatable.
    #[arg(long = "step", value_name = "CMD")]
    pub steps: Vec<String>,
    /// A cluster file.
    #[arg(long, value_name = "FILE")]
    pub cluster: Option<String>,
    /// The language of the interface and the narration.
    #[arg(long, value_enum, default_value_t)]
    pub lang: LangArg,
    /// The colours: dark, light, or high contrast for projectors.
    #[arg(long, value_enum, default_value_t)]
    pub theme: ThemeArg,
    /// Presenter mode, for a projector: fewer, larger panes in high
    /// contrast; playing pauses at each step; `b` blanks the screen.
    #[arg(long)]
    pub present: bool,
    /// Seed for everything random.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// `full` records every scheduler verdict per node and plugin, `summary`
    /// one record per scheduling cycle. Default: full, or summary on a
    /// cluster of more than 50 nodes.
    #[arg(long, value_enum, conflicts_with = "lesson")]
    pub detail: Option<DetailArg>,
    /// How far to compute the run: `idle` (the default: until nothing is
    /// left to do, at most 30 simulated minutes) or a simulated duration such
    /// as `10m`, to watch a run go on past its quiet moments (or stop early).
    #[arg(long, default_value = "idle", value_parser = parse_until, conflicts_with_all = ["lesson", "session"])]
    pub until: UntilArg,
    /// Open a lesson: a built-in lesson's id, or the path of a lesson file.
    #[arg(long, value_name = "ID|PATH", conflicts_with_all = ["files", "steps", "cluster"])]
    pub lesson: Option<String>,
    /// Write the screen at `--at-step` to FILE (`-` for standard output) and
    /// exit, without a terminal.
    #[arg(long, value_name = "FILE")]
    pub screenshot: Option<String>,
    /// The step of the screenshot, as the status bar counts: a trace step, or
    /// with `--lesson` a lesson step (played to its end). Default: 1.
    #[arg(long, value_name = "N", requires = "screenshot")]
    pub at_step: Option<usize>,
    /// Keep the colours in the screenshot (SGR escape sequences).
    #[arg(long, requires = "screenshot")]
    pub ansi: bool,
    /// The screenshot's width in columns (default 120).
    #[arg(long, value_name = "C", requires = "screenshot", value_parser = super::record::size_parser())]
    pub cols: Option<u16>,
    /// The screenshot's height in rows (default 40).
    #[arg(long, value_name = "R", requires = "screenshot", value_parser = super::record::size_parser())]
    pub rows: Option<u16>,
    /// Replay a class's session saved by `podflow serve --save-session FILE`:
    /// the same cluster, and the same requests at the same moments.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["files", "steps", "cluster", "lesson"])]
    pub session: Option<String>,
    /// Replay an observation of a real cluster saved by `podflow attach
    /// --record FILE`, offline: its watch events, Events and objects.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["files", "steps", "cluster", "lesson", "session"])]
    pub observed: Option<String>,
}

/// `podflow play`'s options as the command line gives them with no flag
/// (`--seed 1` included), so `podflow` alone tells the story `play -f` and
/// `trace` tell.
impl Default for PlayArgs {
    fn default() -> PlayArgs {
        #[derive(clap::Parser)]
        struct Defaults {
            #[command(flatten)]
            args: PlayArgs,
        }
        <Defaults as clap::Parser>::parse_from(["play"]).args
    }
}

/// How `podflow play` starts.
pub(super) enum Start {
    /// The sandbox on the given manifests.
    Sandbox,
    /// A checked lesson.
    Lesson(Box<Lesson>),
    /// The lesson picker (`podflow` alone).
    Picker,
    /// A generated drill (`podflow drill`): a lesson with a score.
    Drill(Box<Lesson>),
}

/// Runs the TUI; `embedded` manifests (the default story) are applied first.
pub fn run(args: &PlayArgs, embedded: Vec<(&'static str, &'static str)>) -> Result<(), String> {
    // A bad lesson is refused before the terminal is touched, with the checker's message.
    let start = match &args.lesson {
        Some(lesson) => Start::Lesson(Box::new(embedded::open(lesson).map_err(|e| e.to_string())?)),
        None => Start::Sandbox,
    };
    if let Some(file) = &args.screenshot {
        return screenshot(args, embedded, start, file);
    }
    run_with(args, embedded, start)
}

/// The sandbox's engine: the embedded manifests, then the files and steps.
fn sandbox_engine(
    args: &PlayArgs,
    embedded: Vec<(&'static str, &'static str)>,
) -> Result<Engine, String> {
    let spec = cluster(args.cluster.as_deref()).map_err(|e| e.to_string())?;
    let setup_args = SetupArgs {
        embedded,
        files: args.files.clone(),
        steps: args.steps.clone(),
        cluster: args.cluster.clone(),
        seed: args.seed,
        detail: Some(
            args.detail
                .map_or_else(|| detail_for(spec.node_count()), DetailArg::detail),
        ),
        ..SetupArgs::default()
    };
    let setup = build_setup_on(&spec, &setup_args).map_err(|e| e.to_string())?;
    Ok(Engine::new(setup))
}

/// The sandbox's run, not computed yet: the manifests' and steps', or a
/// saved session's (`--session`).
fn sandbox_timeline(
    args: &PlayArgs,
    embedded: Vec<(&'static str, &'static str)>,
) -> Result<Timeline, String> {
    if let Some(path) = &args.observed {
        let file =
            std::fs::File::open(path).map_err(|e| format!("error: --observed {path}: {e}"))?;
        let recorded = podflow_attach::replay::read(std::io::BufReader::new(file), path)
            .map_err(|e| format!("error: {e}"))?;
        return Ok(podflow_attach::replay::timeline(recorded));
    }
    let Some(path) = &args.session else {
        let mut timeline = Timeline::started(sandbox_engine(args, embedded)?);
        if let UntilArg::For(ms) = args.until {
            timeline.extend_to(Until::Time(SimTime(ms)));
        }
        return Ok(timeline);
    };
    let file = std::fs::File::open(path).map_err(|e| format!("error: --session {path}: {e}"))?;
    let session = podflow_server::session::read(std::io::BufReader::new(file), path)
        .map_err(|e| format!("error: {e}"))?;
    let header = &session.header;
    let (setup, _) = podflow_server::served::served_setup(
        header.cluster.as_deref(),
        &header.files,
        header.seed,
        header.epoch,
    )?;
    let mut timeline = Timeline::started(Engine::new(setup));
    timeline.schedule(session.inputs);
    Ok(timeline)
}

/// How many nodes a cluster may have for the TUI to record every scheduler
/// verdict by default: beyond it each pod's cycle would add a record per node
/// and plugin (thousands), which no one steps through.
const FULL_DETAIL_NODES: usize = 50;

/// The TUI's level of detail on a cluster of `nodes` nodes, without `--detail`.
fn detail_for(nodes: usize) -> Detail {
    if nodes > FULL_DETAIL_NODES {
        Detail::Summary
    } else {
        Detail::Full
    }
}

/// `--screenshot FILE`: the screen at `--at-step`, written without a terminal.
fn screenshot(
    args: &PlayArgs,
    embedded: Vec<(&'static str, &'static str)>,
    start: Start,
    file: &str,
) -> Result<(), String> {
    let lang = args.lang.lang();
    let step = args.at_step.unwrap_or(1);
    let out_of_range = |last: usize| match last {
        0 => {
            format!("error: --at-step {step}: the run has no steps (give it -f FILE or --step CMD)")
        }
        1 => format!("error: --at-step {step}: the run has one step"),
        _ => format!("error: --at-step {step}: there are steps 1 to {last}"),
    };
    let app = match start {
        Start::Lesson(lesson) | Start::Drill(lesson) => {
            let mut app = record::driver::lesson_app(*lesson, lang)?;
            if args.present {
                app.start_presenting();
            }
            let len = app.lesson.as_ref().map_or(0, |p| p.len());
            if step == 0 || step > len {
                return Err(out_of_range(len));
            }
            record::driver::advance_lesson(&mut app, step - 1)?;
            app
        }
        Start::Sandbox | Start::Picker => {
            let mut timeline = sandbox_timeline(args, embedded)?;
            timeline.finish();
            let mut app = record::driver::app(timeline, lang);
            if args.present {
                app.start_presenting();
            }
            let len = app.timeline.len();
            if step == 0 || step > len.max(1) {
                return Err(out_of_range(len));
            }
            app.update(Action::Seek(step - 1));
            app
        }
    };
    let mut app = app;
    app.theme = args.theme.theme();
    let format = if args.ansi {
        record::Format::Ansi
    } else {
        record::Format::Text
    };
    let text = record::screenshot(
        &app,
        args.cols.unwrap_or(record::Options::default().cols),
        args.rows.unwrap_or(record::Options::default().rows),
        format,
    );
    super::record::write_output(file, &text)
}

pub(super) fn run_with(
    args: &PlayArgs,
    embedded: Vec<(&'static str, &'static str)>,
    start: Start,
) -> Result<(), String> {
    // Keys come from standard input, or from the terminal itself when the
    // manifest came down a pipe (`cat pod.yaml | podflow play -f -`):
    // crossterm reads /dev/tty when standard input is not one.
    let keys = std::io::stdin().is_terminal() || std::fs::File::open("/dev/tty").is_ok();
    if !std::io::stdout().is_terminal() || !keys {
        return Err(
            "error: podflow play needs a terminal; use `podflow trace` to print the trace".into(),
        );
    }
    // Computed between frames by the event loop: a large run shows its first steps at once.
    let timeline = sandbox_timeline(args, embedded)?;
    let lang = args.lang.lang();
    let theme = args.theme.theme();
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let mut app = App::new(timeline, lang, theme, no_color);
    if args.present {
        app.start_presenting();
    }
    app.progress_path = progress::default_path();
    if let Some(path) = &app.progress_path {
        let (saved, warning) = progress::load(path);
        app.progress = saved;
        if let Some(warning) = warning {
            eprintln!("{warning}");
            app.notice = Some(warning);
        }
    }
    match start {
        Start::Sandbox => {}
        Start::Lesson(lesson) => {
            app.open_lesson(*lesson)?;
        }
        Start::Drill(lesson) => {
            app.open_drill(*lesson)?;
        }
        Start::Picker => {
            app.open_picker(Picker::new(embedded::all().map_err(|e| e.to_string())?));
        }
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("error: starting the event loop: {e}"))?;
    runtime
        .block_on(crate::tui::run::run(&mut app))
        .map_err(|e| format!("error: the terminal: {e}"))
}

/// `podflow` alone: the TUI on the default story in a terminal, else its text trace.
pub fn run_default() -> Result<(), String> {
    if std::io::stdout().is_terminal() && std::io::stdin().is_terminal() {
        run_with(&PlayArgs::default(), vec![NGINX_POD], Start::Picker)
    } else {
        super::trace::run_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The picker's sandbox (`podflow` alone) runs on `play`'s defaults: the
    /// same seed as `trace` and `play -f`, so the same story (nginx on node-3).
    #[test]
    fn podflow_alone_uses_plays_defaults() {
        let args = PlayArgs::default();
        assert_eq!(args.seed, 1);
        let timeline = sandbox_timeline(&args, vec![NGINX_POD]).unwrap();
        let mut timeline = timeline;
        timeline.finish();
        let bound = timeline.records().iter().any(|r| {
            serde_json::to_string(&r.body)
                .is_ok_and(|j| j.contains("Successfully assigned default/nginx to node-3"))
        });
        assert!(bound, "nginx is not bound to node-3 as in `podflow trace`");
    }

    /// The node the default story binds nginx to, from its Scheduled event.
    fn nginx_node(timeline: &Timeline) -> Option<String> {
        timeline.records().iter().find_map(|r| {
            let line = podflow_engine::export::text::line(r);
            line.split_once("Successfully assigned default/nginx to ")
                .map(|(_, node)| node.trim().to_owned())
        })
    }

    /// Same seed, same story: `podflow trace` (and `podflow` piped, its
    /// default scenario), `play -f assets/manifests/nginx-pod.yaml` and the
    /// picker's sandbox computed between frames as the TUI's loop does
    /// (slices of events) all bind nginx to the same node. The default
    /// cluster's three workers tie on score, so only the seed breaks the tie.
    #[test]
    fn the_picker_sandbox_trace_and_play_f_choose_the_same_node() {
        let trace_args = crate::cli::trace::TraceArgs::default_scenario();
        let setup = podflow_engine::setup::build_setup(&SetupArgs {
            embedded: vec![NGINX_POD],
            seed: trace_args.seed,
            detail: Some(trace_args.detail.detail()),
            ..SetupArgs::default()
        })
        .unwrap();
        let mut trace = Timeline::started(Engine::new(setup));
        trace.finish();
        let traced = nginx_node(&trace).expect("trace binds nginx");

        let manifest = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/manifests/nginx-pod.yaml"
        );
        let args = PlayArgs {
            files: vec![manifest.to_owned()],
            ..PlayArgs::default()
        };
        let mut play_f = sandbox_timeline(&args, Vec::new()).unwrap();
        play_f.finish();
        assert_eq!(
            nginx_node(&play_f).as_deref(),
            Some(traced.as_str()),
            "play -f"
        );

        let mut picker = sandbox_timeline(&PlayArgs::default(), vec![NGINX_POD]).unwrap();
        while !picker.advance(7) {}
        assert_eq!(
            nginx_node(&picker).as_deref(),
            Some(traced.as_str()),
            "picker's sandbox"
        );
    }

    #[test]
    fn a_large_cluster_is_shown_in_summary_by_default() {
        assert_eq!(detail_for(4), Detail::Full);
        assert_eq!(detail_for(FULL_DETAIL_NODES), Detail::Full);
        assert_eq!(detail_for(FULL_DETAIL_NODES + 1), Detail::Summary);
    }
}
