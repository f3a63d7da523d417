//! Diagnostics for podflow's developers, off unless asked for: with
//! `PODFLOW_LOG` set to a `tracing` filter (`info`, `debug`,
//! `podflow::tui=debug`), spans and events are appended to `podflow.log` in
//! podflow's state directory (`$XDG_STATE_HOME/podflow/`). Never to the
//! screen: the terminal belongs to the TUI, standard output to the trace.

use std::fs::{File, OpenOptions};
use std::path::PathBuf;
use std::sync::Mutex;

use tracing_subscriber::EnvFilter;

/// The variable that turns logging on, holding its filter.
pub const VARIABLE: &str = "PODFLOW_LOG";

/// Starts logging if `PODFLOW_LOG` asks for it. Returns the log file's path,
/// or why logging could not start (the caller says so once and goes on).
pub fn init() -> Result<Option<PathBuf>, String> {
    let Some(filter) = std::env::var_os(VARIABLE) else {
        return Ok(None);
    };
    let filter = filter.to_string_lossy();
    let filter = EnvFilter::try_new(&*filter).map_err(|e| format!("{VARIABLE}={filter}: {e}"))?;
    let dir = podflow_lesson::progress::state_dir().ok_or_else(|| {
        format!("{VARIABLE}: no state directory (neither XDG_STATE_HOME nor HOME is set)")
    })?;
    let path = dir.join("podflow.log");
    let file = open(&path).map_err(|e| format!("{VARIABLE}: {}: {e}", path.display()))?;
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(Mutex::new(file))
        .with_ansi(false)
        .try_init()
        .map_err(|e| format!("{VARIABLE}: {e}"))?;
    tracing::info!(
        version = env!("CARGO_PKG_VERSION"),
        pid = std::process::id(),
        "podflow started"
    );
    Ok(Some(path))
}

fn open(path: &std::path::Path) -> std::io::Result<File> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    OpenOptions::new().create(true).append(true).open(path)
}
