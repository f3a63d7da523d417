//! `podflow attach`: podflow's panes on a real cluster. Connects with a
//! kubeconfig as kubectl reads it, watches Pods, Nodes, Events,
//! Deployments, `ReplicaSets`, Services, `EndpointSlices` and Jobs
//! (`podflow_attach`), and shows what it observes: the TUI, or with
//! `--format` the records as `trace` prints them, until `--until` or SIGINT.
//! `--record FILE` saves the observation for `podflow play --observed FILE`.

use std::fs::File;
use std::future::Future;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use podflow_attach::narrate::narrate;
use podflow_attach::watch::{self, Scope};
use podflow_attach::{Observer, replay};
use podflow_engine::clock::{SimTime, parse_duration};
use podflow_engine::timeline::Timeline;
use podflow_engine::trace::{Record, TraceRecord};

use super::play::{LangArg, ThemeArg};
use crate::tui::app::App;
use crate::tui::lang::Lang;
use crate::tui::observed::{Batch, Observing};

/// `podflow attach`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct AttachArgs {
    /// The kubeconfig to read (default: `KUBECONFIG`, else `~/.kube/config`).
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use (default: its current context).
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,
    /// Watch one namespace (Nodes, cluster-scoped, are still watched).
    #[arg(
        short = 'n',
        long,
        value_name = "NS",
        conflicts_with = "all_namespaces"
    )]
    pub namespace: Option<String>,
    /// Watch every namespace (the default); a user who may list only the
    /// context's namespace gets that one, with a notice of what is hidden.
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// Print the observed records instead of opening the TUI.
    #[arg(long, value_enum)]
    pub format: Option<AttachFormat>,
    /// With `--format`: stop after this long (wall clock: `30s`, `5m`).
    #[arg(long, value_name = "DUR", value_parser = parse_wall, requires = "format")]
    pub until: Option<u64>,
    /// Save the observation as JSON Lines (`podflow play --observed FILE` replays it).
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// The language of the interface and the narration.
    #[arg(long, value_enum, default_value_t)]
    pub lang: LangArg,
    /// The colours: dark, light, or high contrast for projectors.
    #[arg(long, value_enum, default_value_t)]
    pub theme: ThemeArg,
}

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AttachFormat {
    Jsonl,
    Text,
}

fn parse_wall(text: &str) -> Result<u64, String> {
    parse_duration(text)
        .ok_or_else(|| format!("invalid duration \"{text}\": use a duration such as 30s or 10m"))
}

/// Runs `podflow attach`.
pub fn run(args: &AttachArgs) -> Result<(), String> {
    if args.format.is_none() && !std::io::stdout().is_terminal() {
        return Err(
            "error: podflow attach needs a terminal for its TUI; use --format jsonl or --format text"
                .into(),
        );
    }
    let record = match &args.record {
        Some(path) => {
            Some(BufWriter::new(File::create(path).map_err(|e| {
                format!("error: --record {}: {e}", path.display())
            })?))
        }
        None => None,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("error: starting the event loop: {e}"))?;
    runtime.block_on(async {
        let (client, namespace) =
            podflow_attach::connect::connect(args.kubeconfig.as_deref(), args.context.as_deref())
                .await?;
        let scope = match &args.namespace {
            Some(ns) => Scope::Namespace(ns.clone()),
            None => Scope::All {
                fallback: namespace,
            },
        };
        let watches = watch::start(&client, &scope, &watch::WatchConfig::default()).await;
        match args.format {
            Some(format) => print(args, format, watches, record).await,
            None => tui(args, watches, record).await,
        }
    })
}

/// Where records go: standard output (`--format`), the TUI, the recording.
trait Sink {
    /// Takes what one input made; `false` to stop.
    fn take(&mut self, records: Vec<TraceRecord>, observer: &Observer, now: SimTime) -> bool;
}

/// Observes until the watches end or `stop` resolves, then the `final` record.
async fn observe(
    mut watches: watch::Watches,
    stop: impl Future<Output = ()>,
    sink: &mut impl Sink,
) {
    let started = Instant::now();
    let elapsed = || SimTime(u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX));
    let mut observer = Observer::new();
    tokio::pin!(stop);
    loop {
        let input = tokio::select! {
            input = watches.inputs.recv() => match input {
                Some(input) => input,
                None => break,
            },
            () = &mut stop => break,
        };
        let now = elapsed();
        let records = observer.observe(now.0, input);
        if !records.is_empty() && !sink.take(records, &observer, now) {
            return;
        }
    }
    let now = elapsed();
    let last = observer.final_records(now.0);
    sink.take(last, &observer, now);
}

/// The recording, when `--record` was given.
type Recording = Option<BufWriter<File>>;

fn write_recording(recording: &mut Recording, records: &[TraceRecord], observer: &Observer) {
    if let Some(file) = recording {
        for record in records {
            let _ = writeln!(file, "{}", replay::line(record, observer.store()));
        }
        let _ = file.flush();
    }
}

/// `--format`: the records on standard output as they come.
struct Printer {
    format: AttachFormat,
    lang: Lang,
    out: BufWriter<std::io::Stdout>,
    recording: Recording,
}

impl Sink for Printer {
    fn take(&mut self, records: Vec<TraceRecord>, observer: &Observer, _: SimTime) -> bool {
        write_recording(&mut self.recording, &records, observer);
        for record in &records {
            let written = match self.format {
                AttachFormat::Jsonl => writeln!(self.out, "{}", record.to_json_line()),
                AttachFormat::Text => self.text(record),
            };
            if written.is_err() {
                return false;
            }
        }
        self.out.flush().is_ok()
    }
}

impl Printer {
    /// `trace --format text`'s line, and an Event's narration under it.
    fn text(&mut self, record: &TraceRecord) -> std::io::Result<()> {
        let line = podflow_engine::export::text::line(record);
        match &record.body {
            // The fields the change touched, which `trace` has no word for.
            Record::Watch(watch) if !watch.fields.is_empty() => {
                writeln!(self.out, "{line} ({})", watch.fields.join(", "))?;
            }
            _ => writeln!(self.out, "{line}")?,
        }
        if let Record::Event(event) = &record.body {
            let object = format!(
                "{}/{}",
                event.object.kind.to_ascii_lowercase(),
                event.object.name
            );
            if let Some(told) = narrate(&event.reason, &event.message, &object) {
                let (stage_en, stage_zh) = told.stage.name();
                match self.lang {
                    Lang::En => writeln!(self.out, "{:14}↳ [{stage_en}] {}", "", told.en)?,
                    Lang::Zh => writeln!(self.out, "{:14}↳ [{stage_zh}] {}", "", told.zh)?,
                }
            }
        }
        Ok(())
    }
}

async fn print(
    args: &AttachArgs,
    format: AttachFormat,
    watches: watch::Watches,
    recording: Recording,
) -> Result<(), String> {
    let mut printer = Printer {
        format,
        lang: args.lang.lang(),
        out: BufWriter::new(std::io::stdout()),
        recording,
    };
    let until = args.until;
    let stop = async move {
        let deadline = async {
            match until {
                Some(ms) => tokio::time::sleep(Duration::from_millis(ms)).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            () = deadline => {}
        }
    };
    observe(watches, stop, &mut printer).await;
    Ok(())
}

/// The TUI's side: batches to the app, and the recording.
struct ToApp {
    batches: mpsc::Sender<Batch>,
    recording: Recording,
}

impl Sink for ToApp {
    fn take(&mut self, records: Vec<TraceRecord>, observer: &Observer, now: SimTime) -> bool {
        write_recording(&mut self.recording, &records, observer);
        let batch = Batch {
            records,
            store: observer.store().clone(),
            now,
        };
        // The TUI gone, the recording still gets its final record.
        let _ = self.batches.try_send(batch);
        true
    }
}

/// How many batches may wait for the TUI's next tick.
const BATCHES: usize = 65_536;

async fn tui(
    args: &AttachArgs,
    watches: watch::Watches,
    recording: Recording,
) -> Result<(), String> {
    let (sender, batches) = mpsc::channel(BATCHES);
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        let mut sink = ToApp {
            batches: sender,
            recording,
        };
        let stop = async {
            let _ = stop_rx.await;
        };
        observe(watches, stop, &mut sink).await;
    });
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let mut app = App::new(
        Timeline::observed(),
        args.lang.lang(),
        args.theme.theme(),
        no_color,
    );
    app.playing = true;
    app.notice = Some(match app.lang {
        Lang::En => {
            "attached: what the cluster's watches show, as it happens (End: the newest)".into()
        }
        Lang::Zh => "已连接：集群的 watch 所见，实时显示（End：最新）".into(),
    });
    app.observing = Some(Box::new(Observing { batches }));
    let result = crate::tui::run::run(&mut app)
        .await
        .map_err(|e| format!("error: the terminal: {e}"));
    drop(app);
    // The watches stop; the recording gets its final record.
    let _ = stop_tx.send(());
    let _ = task.await;
    result
}
