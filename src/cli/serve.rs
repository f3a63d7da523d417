//! `podflow serve`: the mini-cluster as a Kubernetes API server over HTTPS,
//! for the real kubectl. Writes a kubeconfig, prints how to use it, and
//! serves until SIGINT or SIGTERM.

use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};

use clap::Args;

use podflow_engine::engine::Engine;
use podflow_engine::timeline::Timeline;
use podflow_server::driver::{Speed, Switchboard, jsonl_sink};
use podflow_server::served::served_setup;
use podflow_server::session::{self, Header};
use podflow_server::{Listen, Options, listen as listen_on, start};

use super::play::{LangArg, ThemeArg};
use crate::tui::app::App;
use crate::tui::live::Live;

/// `podflow serve`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// A cluster file: Nodes, Namespaces, RBAC, quotas, a Simulation object (its users get contexts).
    #[arg(long, value_name = "FILE")]
    pub cluster: Option<String>,
    /// A manifest to apply when the server starts. Repeatable.
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    pub files: Vec<String>,
    /// The port to listen on.
    #[arg(long, default_value_t = 6443)]
    pub port: u16,
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub address: String,
    /// Where to write the kubeconfig (default: `$XDG_STATE_HOME/podflow/kubeconfig`).
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,
    /// Run without a terminal until SIGINT or SIGTERM.
    #[arg(long)]
    pub headless: bool,
    /// Simulated seconds per wall-clock second, or `max` (as fast as the engine goes).
    #[arg(long, default_value = "1", value_parser = parse_speed)]
    pub speed: SpeedArg,
    /// Seed for everything random (UIDs, IPs, tie breaks).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write every trace record to FILE as JSON lines.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Keep the requests that arrived, with their simulated times, in FILE:
    /// `podflow play --session FILE` replays the class.
    #[arg(long, value_name = "FILE")]
    pub save_session: Option<PathBuf>,
    /// The language of the interface and the narration.
    #[arg(long, value_enum, default_value_t)]
    pub lang: LangArg,
    /// The colours: dark, light, or high contrast for projectors.
    #[arg(long, value_enum, default_value_t)]
    pub theme: ThemeArg,
    /// Serve a lesson's cluster (a built-in lesson's id, or a file) with the
    /// lesson beside it: its goals are reached by what the real kubectl sends.
    #[arg(long, value_name = "ID|PATH", conflicts_with_all = ["cluster", "files", "headless"])]
    pub lesson: Option<String>,
    /// Serve a drill (`podflow drill`'s broken cluster of this seed) with its
    /// panel beside it: find and fix the cause with the real kubectl; scored.
    #[arg(long, value_name = "SEED", conflicts_with_all = ["cluster", "files", "headless", "lesson"])]
    pub drill: Option<u64>,
    /// The drill's level: 1 one fault, 2 two, 3 a symptom far from its cause.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=3), requires = "drill")]
    pub level: u8,
}

/// `--speed`'s value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpeedArg(pub Speed);

fn parse_speed(text: &str) -> Result<SpeedArg, String> {
    if text == "max" {
        return Ok(SpeedArg(Speed::Max));
    }
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(SpeedArg(Speed::Times(x))),
        _ => Err(format!(
            "invalid speed \"{text}\": use a number above 0 (2 is twice the wall clock) or max"
        )),
    }
}

/// Runs `podflow serve`.
pub fn run(args: &ServeArgs) -> Result<(), String> {
    let epoch = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(0));
    // A bad lesson is refused before anything listens, with the checker's message.
    let lesson = match (&args.lesson, args.drill) {
        (Some(id), _) => Some(podflow_lesson::embedded::open(id).map_err(|e| e.to_string())?),
        (None, Some(seed)) => {
            let level =
                podflow_drill::Level::from_number(args.level).unwrap_or(podflow_drill::Level::One);
            Some(podflow_drill::generate(seed, level).lesson)
        }
        (None, None) => None,
    };
    let (setup, users) = match &lesson {
        Some(lesson) => served_lesson_setup(lesson, epoch)?,
        None => served_setup(args.cluster.as_deref(), &args.files, args.seed, epoch)?,
    };
    let listen = Listen {
        address: args.address.clone(),
        port: args.port,
        users,
        recording: args.save_session.is_some(),
    };
    let session = match &args.save_session {
        Some(path) => {
            let file = File::create(path)
                .map_err(|e| format!("podflow serve: --save-session {}: {e}", path.display()))?;
            let header = Header {
                version: session::VERSION,
                seed: args.seed,
                cluster: args.cluster.clone(),
                files: args.files.clone(),
                epoch,
            };
            Some((header, session::jsonl_sink(BufWriter::new(file))))
        }
        None => None,
    };
    let sink = match &args.trace {
        Some(path) => {
            let file = File::create(path)
                .map_err(|e| format!("podflow serve: --trace {}: {e}", path.display()))?;
            Some(jsonl_sink(BufWriter::new(file)))
        }
        None => None,
    };
    let kubeconfig_path = match &args.kubeconfig {
        Some(path) => path.clone(),
        None => podflow_lesson::progress::state_dir()
            .ok_or("podflow serve: no state directory (set XDG_STATE_HOME or HOME), or pass --kubeconfig")?
            .join("kubeconfig"),
    };
    let engine = Engine::new(setup);
    let parts = Parts {
        listen,
        engine,
        sink,
        session,
        lesson,
        scored: args.drill.is_some(),
    };
    if args.headless {
        serve_headless(args, parts, &kubeconfig_path)
    } else {
        serve_in_tui(args, parts, &kubeconfig_path)
    }
}

/// What both ways of serving start from.
struct Parts {
    listen: Listen,
    engine: Engine,
    sink: Option<podflow_server::driver::TraceSink>,
    session: Option<(Header, podflow_server::session::SessionSink)>,
    /// `--lesson` (or `--drill`'s lesson): shown beside the served cluster.
    lesson: Option<podflow_lesson::Lesson>,
    /// `--drill`: the lesson is a drill, scored.
    scored: bool,
}

/// The served setup of a lesson: its cluster and files, Events stored as
/// objects, time from the wall clock's `epoch`; the cluster's token users.
fn served_lesson_setup(
    lesson: &podflow_lesson::Lesson,
    epoch: i64,
) -> Result<
    (
        podflow_engine::engine::Setup,
        Vec<podflow_server::kubeconfig::TokenUser>,
    ),
    String,
> {
    podflow_engine::clock::start_at_unix(epoch);
    let spec = podflow_lesson::run::cluster(lesson).map_err(|e| e.to_string())?;
    let mut setup = podflow_lesson::run::setup(lesson).map_err(|e| e.to_string())?;
    setup.store_events = true;
    let users = spec
        .simulation
        .users
        .iter()
        .map(|u| podflow_server::kubeconfig::TokenUser {
            name: u.name.clone(),
            token: u.token.clone(),
        })
        .collect();
    Ok((setup, users))
}

fn serve_headless(args: &ServeArgs, parts: Parts, kubeconfig_path: &Path) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("podflow serve: {e}"))?;
    runtime.block_on(async move {
        let options = Options {
            listen: parts.listen,
            engine: parts.engine,
            speed: args.speed.0,
            sink: parts.sink,
            session: parts.session,
        };
        let running = start(options)
            .await
            .map_err(|e| format!("podflow serve: {e}"))?;
        write_private(kubeconfig_path, &running.kubeconfig)?;
        println!("podflow serve: the API server listens on {}", running.url());
        println!("In another terminal:");
        println!("  export KUBECONFIG={}", kubeconfig_path.display());
        println!("  kubectl get nodes");
        wait_for_signal().await;
        println!("podflow serve: stopping");
        running.stop().await;
        Ok(())
    })
}

/// The TUI on the served cluster: its loop drives the engine, so every
/// request shows as it travels.
fn serve_in_tui(args: &ServeArgs, parts: Parts, kubeconfig_path: &Path) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("podflow serve: {e}"))?;
    runtime.block_on(async move {
        let (running, calls) = listen_on(parts.listen)
            .await
            .map_err(|e| format!("podflow serve: {e}"))?;
        write_private(kubeconfig_path, &running.kubeconfig)?;
        let url = running.url();
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let timeline = Timeline::started(parts.engine);
        let mut app = App::new(
            timeline.clone(),
            args.lang.lang(),
            args.theme.theme(),
            no_color,
        );
        match parts.lesson {
            Some(lesson) => {
                app.progress_path = podflow_lesson::progress::default_path();
                if let Some(path) = &app.progress_path {
                    app.progress = podflow_lesson::progress::load(path).0;
                }
                if parts.scored {
                    app.open_drill_on(lesson, timeline)?;
                } else {
                    app.open_lesson_on(lesson, timeline)?;
                }
            }
            None => app.timeline = timeline,
        }
        let mut switchboard = Switchboard::new(args.speed.0, parts.sink);
        if let Some((header, sink)) = parts.session {
            switchboard = switchboard.saving_session(header, sink);
        }
        switchboard.resume(&app.timeline);
        app.live = Some(Box::new(Live {
            switchboard,
            calls,
            running,
        }));
        app.playing = true;
        app.notice = Some(format!(
            "serving {url}: export KUBECONFIG={}",
            kubeconfig_path.display()
        ));
        crate::tui::run::run(&mut app)
            .await
            .map_err(|e| format!("error: the terminal: {e}"))?;
        // Not `println!`: after a hang-up the terminal is gone, and a failed write must not panic.
        let _ = writeln!(
            std::io::stdout(),
            "podflow serve: stopped (it listened on {url})"
        );
        Ok(())
    })
}

/// Writes the kubeconfig readable by its owner only: it holds the admin's key.
fn write_private(path: &Path, text: &str) -> Result<(), String> {
    let failed = |e: std::io::Error| format!("podflow serve: writing {}: {e}", path.display());
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(failed)?;
    }
    std::fs::write(path, text).map_err(failed)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(failed)?;
    }
    Ok(())
}

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
