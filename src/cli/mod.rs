//! The command line (clap): one file per subcommand.

mod attach;
mod drill;
mod gen_cluster;
mod lessons;
mod play;
mod record;
mod serve;
mod trace;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Watch Kubernetes turn `kubectl apply -f pod.yaml` into a running Pod, step by step.
#[derive(Debug, Parser)]
#[command(name = "podflow", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Commands>,
}

/// podflow's subcommands.
#[derive(Debug, Subcommand)]
pub enum Commands {
    /// The interactive view of manifests on a cluster.
    Play(play::PlayArgs),
    /// Run the engine headless and print the trace.
    Trace(trace::TraceArgs),
    /// List the lessons, or check lesson files.
    #[command(subcommand)]
    Lessons(lessons::LessonsCommand),
    /// Write a generated cluster file: a control plane and N workers over Z zones.
    GenCluster(gen_cluster::GenClusterArgs),
    /// Render a lesson (or a sandbox run) headless to an asciicast v2 file.
    Record(record::RecordArgs),
    /// Serve the mini-cluster over HTTPS to the real kubectl (and any Kubernetes client).
    Serve(serve::ServeArgs),
    /// Watch a real cluster (any kubeconfig) in podflow's panes, or print what it observes.
    Attach(attach::AttachArgs),
    /// Practise troubleshooting: a broken cluster from a seed; find the cause and fix it.
    Drill(drill::DrillArgs),
}

impl Commands {
    /// The subcommand's name, as typed.
    fn name(&self) -> &'static str {
        match self {
            Commands::Play(_) => "play",
            Commands::Trace(_) => "trace",
            Commands::Lessons(_) => "lessons",
            Commands::GenCluster(_) => "gen-cluster",
            Commands::Record(_) => "record",
            Commands::Serve(_) => "serve",
            Commands::Attach(_) => "attach",
            Commands::Drill(_) => "drill",
        }
    }
}

/// Exit status for a usage error or unreadable input (README.md, "Hostile input and the terminal").
pub const EXIT_USAGE: u8 = 2;

/// Runs podflow with the process's arguments.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    if let Err(message) = crate::logging::init() {
        eprintln!("podflow: {message}; logging is off");
    }
    let span = tracing::info_span!(
        "command",
        name = cli.command.as_ref().map_or("default", Commands::name)
    );
    let _entered = span.enter();
    // The panes read what they list of a replaced version from its digest.
    crate::tui::panes::store_index::keep_digests();
    let result = match cli.command {
        Some(Commands::Play(args)) => play::run(&args, Vec::new()),
        Some(Commands::Trace(args)) => trace::run(&args),
        Some(Commands::Lessons(command)) => lessons::run(&command),
        Some(Commands::GenCluster(args)) => gen_cluster::run(&args),
        Some(Commands::Record(args)) => record::run(&args),
        Some(Commands::Serve(args)) => serve::run(&args),
        Some(Commands::Attach(args)) => attach::run(&args),
        Some(Commands::Drill(args)) => drill::run(&args),
        // No arguments: the TUI on the default story (its trace when not in a terminal).
        None => play::run_default(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            tracing::warn!(%message, "refused");
            eprintln!("{message}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}
