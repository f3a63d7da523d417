//! A served cluster in the TUI (`podflow serve` without `--headless`): the
//! real clients' requests enter the timeline's engine as they arrive, and
//! while playing, simulated time follows the wall clock. Paused, time
//! stands still: a request that arrives waits where it is, `→` at the last
//! step computes the next engine event, and each answer is held until its
//! `response` step is shown, so kubectl waits while a class walks its request
//! through authentication, RBAC, admission and etcd. Stepping back shows
//! history; the server keeps serving the present.

use podflow_engine::component::RequestId;
use podflow_engine::engine::Until;
use podflow_engine::trace::Record;
use podflow_server::Running;
use podflow_server::driver::{Call, Switchboard};
use tokio::sync::mpsc;

use super::app::App;

/// The server's side of the TUI.
pub struct Live {
    pub switchboard: Switchboard,
    pub calls: mpsc::Receiver<Call>,
    /// Kept while the TUI runs: dropping it stops the server.
    pub running: Running,
}

impl App {
    /// Takes the requests that arrived, moves time when playing, and hands
    /// out the answers whose steps have been shown.
    pub fn serve_tick(&mut self) {
        let App {
            live,
            timeline,
            playing,
            cursor,
            ..
        } = self;
        let Some(live) = live.as_mut() else {
            return;
        };
        while let Ok(call) = live.calls.try_recv() {
            live.switchboard.take(call, timeline);
        }
        if *playing {
            live.switchboard.advance(timeline);
        } else {
            let shown = *cursor;
            let records = timeline.records();
            let released: Vec<RequestId> = records[..(shown + 1).min(records.len())]
                .iter()
                .rev()
                .take(RELEASE_WINDOW)
                .filter_map(|r| match r.body {
                    Record::Response { request, .. } => Some(request),
                    _ => None,
                })
                .collect();
            live.switchboard
                .hand_out(timeline, |id| released.contains(&id));
        }
    }

    /// `→` at the last step of a paused live run: the next engine event.
    pub(crate) fn step_live(&mut self) {
        let before = self.timeline.len();
        self.timeline
            .extend_to(Until::IdleOr(podflow_engine::clock::SimTime(u64::MAX / 2)));
        while self.timeline.len() == before && !self.timeline.advance(1) {}
    }

    /// Playing again after a pause: the wall clock counts from now.
    pub(crate) fn resume_live(&mut self) {
        if let Some(live) = self.live.as_mut() {
            live.switchboard.resume(&self.timeline);
        }
    }
}

/// How many records back from the shown step an answer's `response` is
/// looked for (answers come a step or two after their request's stages).
const RELEASE_WINDOW: usize = 4096;
