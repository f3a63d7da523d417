//! A real cluster in the TUI (`podflow attach` without `--format`): what
//! its watchers observe arrives as batches of trace records with the
//! objects after them, and is appended to an observed timeline
//! ([`Timeline::observed`](podflow_engine::timeline::Timeline::observed)),
//! so the panes draw it as they draw a run and time travel works over
//! everything observed. Nothing can be asked of the cluster from here: the
//! `:` bar says to use kubectl.

use podflow_engine::clock::SimTime;
use podflow_engine::store::Store;
use podflow_engine::trace::TraceRecord;
use tokio::sync::mpsc;

use super::app::App;
use super::lang::Lang;

/// What one watcher input made: its records, and the objects after them.
#[derive(Debug)]
pub struct Batch {
    pub records: Vec<TraceRecord>,
    pub store: Store,
    pub now: SimTime,
}

/// The observation's side of the TUI: the watches run in a task of their
/// own, which sends what they make here.
pub struct Observing {
    pub batches: mpsc::Receiver<Batch>,
}

impl App {
    /// Appends what was observed since the last tick.
    pub fn observe_tick(&mut self) {
        let App {
            observing,
            timeline,
            ..
        } = self;
        let Some(observing) = observing.as_mut() else {
            return;
        };
        while let Ok(batch) = observing.batches.try_recv() {
            timeline.push_observed(batch.records, &batch.store, batch.now);
        }
    }
}

/// What the `:` bar says on an observed cluster.
pub fn no_commands(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "attached to a real cluster: commands go through kubectl, not the : bar",
        Lang::Zh => "已连接到真实集群：请用 kubectl 发出命令，而不是 : 命令栏",
    }
}
