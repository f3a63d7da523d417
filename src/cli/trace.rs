//! `podflow trace`: runs the engine headless and prints the trace as text,
//! JSON lines or a Mermaid sequence diagram.

use std::io::{self, BufWriter, Write};
use std::sync::Arc;

use clap::{Args, ValueEnum};

use podflow_engine::apiserver::handler::Detail;
use podflow_engine::clock::{SimTime, parse_duration};
use podflow_engine::engine::{Engine, Until};
use podflow_engine::export;
use podflow_engine::export::jsonl::{FINAL_CHUNK, objects_json};
use podflow_engine::setup::{SetupArgs, build_setup};
use podflow_engine::trace::TraceRecord;
use podflow_model::Object;

/// How much of the trace is gathered before each write to standard output.
const OUT_BUFFER: usize = 1 << 20;

/// How `--format` prints the trace.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    #[default]
    Text,
    Jsonl,
    Mermaid,
}

/// How much the scheduler's records carry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum DetailArg {
    #[default]
    Full,
    Summary,
}

impl DetailArg {
    /// The engine's level of detail.
    pub fn detail(self) -> Detail {
        match self {
            DetailArg::Full => Detail::Full,
            DetailArg::Summary => Detail::Summary,
        }
    }
}

/// `podflow trace`'s arguments (README.md, "Use").
#[derive(Debug, Clone, Default, Args)]
pub struct TraceArgs {
    /// A manifest to apply (YAML or JSON; `-` for standard input). Repeatable.
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    pub files: Vec<String>,
    /// A cluster-language command to run after the files (`"scale deploy web --replicas=3"`). Repeatable.
    #[arg(long = "step", value_name = "CMD")]
    pub steps: Vec<String>,
    /// A cluster file: Nodes, Namespaces, RBAC, quotas, a Simulation object...
    #[arg(long, value_name = "FILE")]
    pub cluster: Option<String>,
    /// Make the requests as this user (impersonation).
    #[arg(long = "as", value_name = "USER")]
    pub as_user: Option<String>,
    /// A group for --as. Repeatable.
    #[arg(long = "as-group", value_name = "G", requires = "as_user")]
    pub as_groups: Vec<String>,
    /// Authenticate with this bearer token instead of the admin certificate.
    #[arg(long, value_name = "T", conflicts_with = "as_user")]
    pub token: Option<String>,
    /// Seed for everything random (UIDs, IPs, tie breaks).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// `idle` (the default: until nothing is left to do, at most 30 simulated
    /// minutes) or a simulated duration such as `10m`.
    #[arg(long, default_value = "idle", value_parser = parse_until)]
    pub until: UntilArg,
    /// `full` records every verdict; `summary` one record per scheduling cycle.
    #[arg(long, value_enum, default_value_t)]
    pub detail: DetailArg,
    /// How to print the trace.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Keep one object's story (`pod/nginx`, `pod/dev/web`, `deploy/web`):
    /// the requests about it, its watch events, stages and Events.
    #[arg(long, value_name = "KIND/NAME")]
    pub only: Option<String>,
}

/// `--until`'s value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum UntilArg {
    #[default]
    Idle,
    For(u64),
}

pub(crate) fn parse_until(text: &str) -> Result<UntilArg, String> {
    if text == "idle" {
        return Ok(UntilArg::Idle);
    }
    parse_duration(text).map(UntilArg::For).ok_or_else(|| {
        format!("invalid duration \"{text}\": use idle, or a duration such as 30s or 10m")
    })
}

impl TraceArgs {
    /// The default scenario: the bare `nginx` Pod on the default cluster.
    pub fn default_scenario() -> TraceArgs {
        TraceArgs {
            seed: 1,
            ..TraceArgs::default()
        }
    }
}

/// Runs the default scenario (what `podflow` alone shows until the TUI lands).
pub fn run_default() -> Result<(), String> {
    run_with(
        &TraceArgs::default_scenario(),
        vec![podflow_engine::setup::NGINX_POD],
    )
}

/// Runs `podflow trace`.
pub fn run(args: &TraceArgs) -> Result<(), String> {
    run_with(args, Vec::new())
}

fn run_with(args: &TraceArgs, embedded: Vec<(&'static str, &'static str)>) -> Result<(), String> {
    let only = args
        .only
        .as_deref()
        .map(|text| export::only::Target::parse(text, None))
        .transpose()
        .map_err(|e| format!("error: {e}"))?;
    if only.is_some() && args.format == Format::Jsonl {
        return Err("error: --only keeps one object's story in --format text or mermaid".into());
    }
    // One object's story, or the whole run's.
    let story = |records: Vec<_>| match &only {
        Some(target) => export::only::only(&records, target),
        None => records,
    };
    let setup_args = SetupArgs {
        embedded,
        files: args.files.clone(),
        steps: args.steps.clone(),
        cluster: args.cluster.clone(),
        as_user: args.as_user.clone(),
        as_groups: args.as_groups.clone(),
        token: args.token.clone(),
        seed: args.seed,
        detail: Some(args.detail.detail()),
    };
    let mut setup = build_setup(&setup_args).map_err(|e| e.to_string())?;
    // JSON lines are written and dropped step by step: nothing to share.
    setup.share_stages = args.format != Format::Jsonl;
    tracing::info!(
        objects = setup.objects.len(),
        commands = setup.commands.len(),
        "setup built"
    );
    let mut engine = Engine::new(setup);
    if let Some(free) = crate::memory::freeing_thread() {
        engine.free_given_up_with(free);
    }
    let until = match args.until {
        UntilArg::Idle => Until::Idle,
        UntilArg::For(ms) => Until::Time(SimTime(ms)),
    };
    let stdout = io::stdout();
    // Standard output is line-buffered underneath: an 8 KiB buffer made a
    // write call per 8 KiB, about 800,000 for the envelope's 6.5 GB of lines.
    let mut out = BufWriter::with_capacity(OUT_BUFFER, stdout.lock());
    let written = match args.format {
        // JSON lines are written as the engine makes them: a run of 10,000
        // Pods never holds its million records; the final record shares the
        // store's objects and writes each from its typed form.
        Format::Jsonl => engine
            .run_until_with(until, |records| export::jsonl::write(&mut out, &records))
            .and_then(|()| {
                let last = engine.final_record();
                export::jsonl::write_final(&mut out, &last, FINAL_CHUNK, &side_by_side)?;
                out.write_all(b"\n")
            }),
        // Text aligns its columns over the whole trace; Mermaid declares its
        // participants first: both take the trace whole.
        Format::Text => export::text::write(&mut out, &story(whole_trace(&mut engine, until))),
        Format::Mermaid => {
            let records = story(whole_trace(&mut engine, until));
            match args.detail {
                DetailArg::Full => export::mermaid::write(&mut out, &records),
                DetailArg::Summary => export::mermaid::summary::write(&mut out, &records),
            }
        }
    };
    tracing::info!(simulated_ms = engine.now().0, "run finished");
    // The process ends here: its memory goes back with it, without a walk
    // over every object to free it one by one.
    std::mem::forget(engine);
    match written.and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        // A closed pipe (`podflow trace | head`) is not an error of podflow.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(format!("error: writing the trace: {e}")),
    }
}

/// Serializes chunks of the `final` line's objects side by side: the first
/// here, each other on a thread of its own (the second core is otherwise
/// idle while the line is written).
fn side_by_side(chunks: &[&[Arc<Object>]]) -> Vec<io::Result<Vec<u8>>> {
    let Some((first, others)) = chunks.split_first() else {
        return Vec::new();
    };
    std::thread::scope(|scope| {
        let others: Vec<_> = others
            .iter()
            .map(|chunk| scope.spawn(move || objects_json(chunk)))
            .collect();
        let mut json = vec![objects_json(first)];
        json.extend(others.into_iter().map(|other| {
            other
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("serializing the final line panicked")))
        }));
        json
    })
}

/// Every record of the run, the `final` one last.
fn whole_trace(engine: &mut Engine, until: Until) -> Vec<TraceRecord> {
    let mut records = engine.run_until(until);
    records.push(engine.final_record());
    records
}

#[cfg(test)]
mod tests {
    /// Serialized side by side, the `final` line is the one serde writes.
    #[test]
    fn the_final_line_side_by_side_is_serdes() {
        podflow_engine::testing::assert_final_line_is_serdes(&super::side_by_side);
    }
}
