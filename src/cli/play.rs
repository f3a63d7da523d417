//! `podflow play` (and `podflow` alone): the TUI on manifests and a cluster,
//! or on the embedded default story.

use std::io::IsTerminal;

use clap::{Args, ValueEnum};

use super::setup::{NGINX_POD, SetupArgs, build_setup};
use crate::engine::engine::Engine;
use crate::lesson::{Lesson, embedded, progress};
use crate::timeline::Timeline;
use crate::tui::app::App;
use crate::tui::lang::Lang;
use crate::tui::lesson::picker::Picker;
use crate::tui::theme::ThemeName;

/// `--lang`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum LangArg {
    #[default]
    En,
    Zh,
}

/// `--theme`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum ThemeArg {
    #[default]
    Dark,
    Light,
    HighContrast,
}

/// `podflow play`'s arguments (CONTRACT.md).
#[derive(Debug, Clone, Default, Args)]
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
    /// Seed for everything random.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Open a lesson: a built-in lesson's id, or the path of a lesson file.
    #[arg(long, value_name = "ID|PATH", conflicts_with_all = ["files", "steps", "cluster"])]
    pub lesson: Option<String>,
}

/// How `podflow play` starts.
enum Start {
    /// The sandbox on the given manifests.
    Sandbox,
    /// A checked lesson.
    Lesson(Box<Lesson>),
    /// The lesson picker (`podflow` alone).
    Picker,
}

/// Runs the TUI; `embedded` manifests (the default story) are applied first.
pub fn run(args: &PlayArgs, embedded: Vec<(&'static str, &'static str)>) -> Result<(), String> {
    // A bad lesson is refused before the terminal is touched, with the checker's message.
    let start = match &args.lesson {
        Some(lesson) => Start::Lesson(Box::new(embedded::open(lesson).map_err(|e| e.to_string())?)),
        None => Start::Sandbox,
    };
    run_with(args, embedded, start)
}

fn run_with(
    args: &PlayArgs,
    embedded: Vec<(&'static str, &'static str)>,
    start: Start,
) -> Result<(), String> {
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        return Err(
            "error: podflow play needs a terminal; use `podflow trace` to print the trace".into(),
        );
    }
    let setup_args = SetupArgs {
        embedded,
        files: args.files.clone(),
        steps: args.steps.clone(),
        cluster: args.cluster.clone(),
        seed: args.seed,
        ..SetupArgs::default()
    };
    let setup = build_setup(&setup_args).map_err(|e| e.to_string())?;
    let timeline = Timeline::new(Engine::new(setup));
    let lang = match args.lang {
        LangArg::En => Lang::En,
        LangArg::Zh => Lang::Zh,
    };
    let theme = match args.theme {
        ThemeArg::Dark => ThemeName::Dark,
        ThemeArg::Light => ThemeName::Light,
        ThemeArg::HighContrast => ThemeName::HighContrast,
    };
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let mut app = App::new(timeline, lang, theme, no_color);
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
