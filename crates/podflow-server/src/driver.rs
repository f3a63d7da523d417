//! Between the connections and the engine: the [`Switchboard`] hands each
//! HTTP request to the cluster, moves simulated time with the wall clock
//! (times `--speed`), and sends each answer and watch event back to the
//! connection that waits for it. It works on any [`Cluster`]: the bare
//! engine ([`Driver`], `--headless`) or the TUI's timeline, which the TUI's
//! loop drives itself. Only the switchboard touches the cluster, so its
//! state is never half-written.

use std::collections::HashMap;
use std::io::Write;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use podflow_engine::apiserver::handler::Response;
use podflow_engine::apiserver::request::{Request, Verb};
use podflow_engine::clock::SimTime;
use podflow_engine::component::RequestId;
use podflow_engine::engine::{Answer, Engine, Until};
use podflow_engine::kubelet::ContainerLog;
use podflow_engine::store::WatchEvent;
use podflow_engine::timeline::Timeline;
use podflow_engine::trace::TraceRecord;

use crate::session::{Entry, Header, Recorded, SessionSink};

/// How many events a watch may have waiting for its client before the
/// server gives up on it, as the API server's cacher closes a watcher too
/// slow to keep up (`cacher.go`, "Forcing watcher close due to unresponsiveness").
pub const WATCH_BUFFER: usize = 1024;

/// How often a watch that allows bookmarks is sent one, as the API
/// server's cacher does besides the one before a watch's deadline
/// (`cacher.go`, `defaultBookmarkFrequency`): a simulated minute.
pub const BOOKMARK_EVERY_MS: u64 = 60_000;

/// How often simulated time catches up with the wall clock when nothing arrives.
pub const TICK: Duration = Duration::from_millis(5);

/// How fast simulated time goes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Speed {
    /// This many simulated seconds a wall-clock second.
    Times(f64),
    /// As fast as the engine goes: each request is handled at once, and
    /// time moves only as far as the work it caused needs.
    Max,
}

/// What a watch's stream carries.
#[derive(Debug)]
pub enum Streamed {
    /// A change, with the simulated time it reached the client.
    Event(SimTime, WatchEvent),
    /// A `BOOKMARK`: nothing the client sees has changed up to this revision.
    Bookmark(u64),
}

/// What the switchboard holds, as the API server's long-running request
/// gauges count it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Census {
    /// Requests waiting for their answer.
    pub waiting: usize,
    /// Watch streams open to clients.
    pub watches: usize,
    /// Watches the engine delivers to outside clients.
    pub engine_watches: usize,
}

/// What a connection asks the switchboard.
#[derive(Debug)]
pub enum Call {
    /// Handle `request`; the answer comes back on `reply`.
    Request {
        request: Box<Request>,
        /// The request as it came over HTTP, when a session is being saved.
        recorded: Option<Box<Recorded>>,
        /// A watch's `allowWatchBookmarks`.
        bookmarks: bool,
        reply: oneshot::Sender<Reply>,
    },
    /// The client of the watch `stream` went away.
    StopWatch(RequestId),
    /// A follower of `kubectl logs -f` reads the container's output again
    /// (the kubelet streams it; no request goes through the API server).
    ReadLog {
        node: String,
        namespace: String,
        pod: String,
        container: String,
        reply: oneshot::Sender<Result<ContainerLog, String>>,
    },
    /// What is open now.
    Census(oneshot::Sender<Census>),
}

/// The engine's answer to one request.
#[derive(Debug)]
pub struct Reply {
    pub response: Box<Response>,
    /// When the answer was given, for the ages a Table shows.
    pub now: SimTime,
    /// For a watch that was allowed: its number and its events.
    pub watch: Option<(RequestId, mpsc::Receiver<Streamed>)>,
}

/// Where the trace goes as the engine writes it.
pub type TraceSink = Box<dyn FnMut(&[TraceRecord]) + Send>;

/// What the switchboard needs of the simulated cluster.
pub trait Cluster {
    /// A request arrives ([`Engine::receive`]).
    fn receive(&mut self, request: Request) -> RequestId;
    /// The answers and watch events for outside clients ([`Engine::take_answers`]).
    fn take_answers(&mut self) -> Vec<Answer>;
    /// A watch's client went away.
    fn stop_watch(&mut self, stream: RequestId);
    /// A container's output ([`Engine::container_log`]).
    fn container_log(
        &self,
        node: &str,
        namespace: &str,
        pod: &str,
        container: &str,
    ) -> Result<ContainerLog, String>;
    /// Simulated time now.
    fn now(&self) -> SimTime;
    /// The store's revision now.
    fn revision(&self) -> u64;
    /// How many watches outside clients hold ([`Engine::outside_watches`]).
    fn outside_watches(&self) -> usize;
    /// Runs until `until`, handing each step's records to `sink`.
    fn run(&mut self, until: Until, sink: &mut dyn FnMut(&[TraceRecord]));
}

impl Cluster for Engine {
    fn receive(&mut self, request: Request) -> RequestId {
        Engine::receive(self, request)
    }

    fn take_answers(&mut self) -> Vec<Answer> {
        Engine::take_answers(self)
    }

    fn stop_watch(&mut self, stream: RequestId) {
        Engine::stop_watch(self, stream);
    }

    fn container_log(
        &self,
        node: &str,
        namespace: &str,
        pod: &str,
        container: &str,
    ) -> Result<ContainerLog, String> {
        Engine::container_log(self, node, namespace, pod, container)
    }

    fn now(&self) -> SimTime {
        Engine::now(self)
    }

    fn revision(&self) -> u64 {
        self.store().revision()
    }

    fn outside_watches(&self) -> usize {
        Engine::outside_watches(self)
    }

    fn run(&mut self, until: Until, sink: &mut dyn FnMut(&[TraceRecord])) {
        let _ = self.run_until_with(until, |records| {
            sink(&records);
            Ok::<(), std::convert::Infallible>(())
        });
    }
}

/// The TUI's cluster: the run is computed into the timeline, which keeps
/// every step to look back at.
impl Cluster for Timeline {
    fn receive(&mut self, request: Request) -> RequestId {
        Timeline::receive(self, request)
    }

    fn take_answers(&mut self) -> Vec<Answer> {
        Timeline::take_answers(self)
    }

    fn stop_watch(&mut self, stream: RequestId) {
        Timeline::stop_watch(self, stream);
    }

    fn container_log(
        &self,
        node: &str,
        namespace: &str,
        pod: &str,
        container: &str,
    ) -> Result<ContainerLog, String> {
        self.engine().container_log(node, namespace, pod, container)
    }

    fn now(&self) -> SimTime {
        self.engine().now()
    }

    fn revision(&self) -> u64 {
        self.engine().store().revision()
    }

    fn outside_watches(&self) -> usize {
        self.engine().outside_watches()
    }

    fn run(&mut self, until: Until, sink: &mut dyn FnMut(&[TraceRecord])) {
        let before = self.len();
        self.extend_to(until);
        self.finish();
        if let Until::Time(t) = until {
            self.idle_until(t);
        }
        sink(&self.records()[before..]);
    }
}

/// A request waiting for its answer.
struct Waiting {
    watch: bool,
    bookmarks: bool,
    reply: oneshot::Sender<Reply>,
}

/// A watch stream open to its client.
struct OpenWatch {
    events: mpsc::Sender<Streamed>,
    /// When its next bookmark is due, if it allows them.
    next_bookmark: Option<SimTime>,
}

/// Requests waiting for answers, open watches, and the pacer.
pub struct Switchboard {
    speed: Speed,
    /// The wall-clock moment and simulated time the pacer counts from.
    origin: (Instant, SimTime),
    waiting: HashMap<RequestId, Waiting>,
    watches: HashMap<RequestId, OpenWatch>,
    /// Answers computed but not handed out yet (see [`Switchboard::hand_out`]).
    held: Vec<Answer>,
    sink: Option<TraceSink>,
    /// Where the session goes (`--save-session`).
    session: Option<SessionSink>,
}

impl Switchboard {
    /// A switchboard at `speed`, writing the records it computes to `sink`.
    pub fn new(speed: Speed, sink: Option<TraceSink>) -> Switchboard {
        Switchboard {
            speed,
            origin: (Instant::now(), SimTime::ZERO),
            waiting: HashMap::new(),
            watches: HashMap::new(),
            held: Vec::new(),
            sink,
            session: None,
        }
    }

    /// Keeps the session: `header` first, then each request and closed watch.
    #[must_use]
    pub fn saving_session(mut self, header: Header, mut sink: SessionSink) -> Switchboard {
        sink(&Entry::Header(header));
        self.session = Some(sink);
        self
    }

    /// Simulated time follows the wall clock from `cluster`'s now (after a pause).
    pub fn resume(&mut self, cluster: &impl Cluster) {
        self.origin = (Instant::now(), cluster.now());
    }

    /// Takes one call.
    pub fn take(&mut self, call: Call, cluster: &mut impl Cluster) {
        match call {
            Call::Request {
                request,
                recorded,
                bookmarks,
                reply,
            } => {
                let watch = request.verb == Verb::Watch;
                if let (Some(session), Some(request)) = (self.session.as_mut(), recorded) {
                    let t_ms = cluster.now().as_millis();
                    session(&Entry::Request { t_ms, request });
                }
                let id = cluster.receive(*request);
                let waiting = Waiting {
                    watch,
                    bookmarks,
                    reply,
                };
                self.waiting.insert(id, waiting);
            }
            Call::StopWatch(stream) => {
                // Each watch ends once, however many ways its end was seen.
                if self.watches.remove(&stream).is_none() {
                    return;
                }
                if let Some(session) = self.session.as_mut() {
                    let t_ms = cluster.now().as_millis();
                    session(&Entry::StopWatch {
                        t_ms,
                        stream: stream.get(),
                    });
                }
                cluster.stop_watch(stream);
            }
            Call::ReadLog {
                node,
                namespace,
                pod,
                container,
                reply,
            } => {
                let _ = reply.send(cluster.container_log(&node, &namespace, &pod, &container));
            }
            Call::Census(reply) => {
                let _ = reply.send(Census {
                    waiting: self.waiting.len(),
                    watches: self.watches.len(),
                    engine_watches: cluster.outside_watches(),
                });
            }
        }
    }

    /// Where the run goes now: the wall clock's simulated time.
    pub fn until(&self, cluster: &impl Cluster) -> Until {
        match self.speed {
            Speed::Times(speed) => {
                let (wall, sim) = self.origin;
                let ahead = wall.elapsed().as_secs_f64() * 1000.0 * speed;
                // Whole milliseconds; the float is far below u64's range in any run.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let target = sim.plus(ahead as u64);
                Until::Time(target.max(cluster.now()))
            }
            Speed::Max => Until::IdleOr(SimTime(u64::MAX / 2)),
        }
    }

    /// Moves simulated time up to the wall clock's, then hands out what
    /// reached the outside clients.
    pub fn advance(&mut self, cluster: &mut impl Cluster) {
        let until = self.until(cluster);
        let sink = &mut self.sink;
        cluster.run(until, &mut |records| {
            if let Some(sink) = sink.as_mut() {
                sink(records);
            }
        });
        self.hand_out(cluster, |_| true);
    }

    /// Hands out the answers and watch events that reached outside clients;
    /// an answer `release` refuses waits for a later call (the TUI holds a
    /// request's answer until its step is shown).
    pub fn hand_out(&mut self, cluster: &mut impl Cluster, release: impl Fn(RequestId) -> bool) {
        let mut answers = std::mem::take(&mut self.held);
        answers.extend(cluster.take_answers());
        for answer in answers {
            match answer {
                Answer::Response { request, .. } if !release(request) => self.held.push(answer),
                answer => self.deliver(answer, cluster),
            }
        }
        self.tend_watches(cluster);
    }

    /// Sends the bookmarks that are due, and ends the watches whose client
    /// has gone (a connection closed mid-watch) even if no event came for them.
    fn tend_watches(&mut self, cluster: &mut impl Cluster) {
        let now = cluster.now();
        let revision = cluster.revision();
        let mut ended = Vec::new();
        for (stream, open) in &mut self.watches {
            if open.events.is_closed() {
                ended.push(*stream);
                continue;
            }
            if open.next_bookmark.is_none_or(|due| due > now) {
                continue;
            }
            open.next_bookmark = Some(now.plus(BOOKMARK_EVERY_MS));
            if open.events.try_send(Streamed::Bookmark(revision)).is_err() {
                ended.push(*stream);
            }
        }
        // In request order, so that a saved session is the same each time.
        ended.sort_unstable();
        for stream in ended {
            self.take(Call::StopWatch(stream), cluster);
        }
    }

    fn deliver(&mut self, answer: Answer, cluster: &mut impl Cluster) {
        match answer {
            Answer::Response { request, response } => {
                let Some(waiting) = self.waiting.remove(&request) else {
                    return;
                };
                let watch = (waiting.watch && response.code == 200).then(|| {
                    let (events, receive) = mpsc::channel(WATCH_BUFFER);
                    let next_bookmark = waiting
                        .bookmarks
                        .then(|| cluster.now().plus(BOOKMARK_EVERY_MS));
                    let open = OpenWatch {
                        events,
                        next_bookmark,
                    };
                    self.watches.insert(request, open);
                    (request, receive)
                });
                let reply = Reply {
                    response,
                    now: cluster.now(),
                    watch,
                };
                // A connection that gave up before its answer: its watch ends.
                if waiting.reply.send(reply).is_err() && self.watches.contains_key(&request) {
                    self.take(Call::StopWatch(request), cluster);
                }
            }
            Answer::Watch { stream, event } => {
                let Some(open) = self.watches.get(&stream) else {
                    return;
                };
                if open
                    .events
                    .try_send(Streamed::Event(cluster.now(), event))
                    .is_err()
                {
                    // Gone, or too slow to keep up: the stream ends.
                    self.take(Call::StopWatch(stream), cluster);
                }
            }
        }
    }
}

/// The headless server's engine task: a switchboard over the bare engine.
pub struct Driver {
    engine: Engine,
    switchboard: Switchboard,
}

impl Driver {
    /// Keeps the session ([`Switchboard::saving_session`]).
    #[must_use]
    pub fn saving_session(mut self, header: Header, sink: SessionSink) -> Driver {
        self.switchboard = self.switchboard.saving_session(header, sink);
        self
    }

    /// A driver of `engine` at `speed`, writing its records to `sink`.
    pub fn new(engine: Engine, speed: Speed, sink: Option<TraceSink>) -> Driver {
        Driver {
            engine,
            switchboard: Switchboard::new(speed, sink),
        }
    }

    /// Runs until every sender of `calls` is gone.
    pub async fn run(mut self, mut calls: mpsc::Receiver<Call>) {
        let mut tick = tokio::time::interval(TICK);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                call = calls.recv() => match call {
                    Some(call) => {
                        self.switchboard.take(call, &mut self.engine);
                        // Take whatever else has arrived before moving time.
                        while let Ok(call) = calls.try_recv() {
                            self.switchboard.take(call, &mut self.engine);
                        }
                    }
                    None => break,
                },
                _ = tick.tick() => {}
            }
            self.switchboard.advance(&mut self.engine);
        }
    }
}

/// Writes each batch of records as JSON lines to `out`.
pub fn jsonl_sink(mut out: impl Write + Send + 'static) -> TraceSink {
    Box::new(move |records| {
        let _ = podflow_engine::export::jsonl::write(&mut out, records);
        let _ = out.flush();
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use podflow_engine::apiserver::request::Credentials;
    use podflow_engine::trace::Actor;
    use podflow_model::kinds::kind_of;

    fn list_pods(reply: oneshot::Sender<Reply>) -> Call {
        let admin = podflow_engine::setup::admin();
        let request = Request::new(
            Actor::Client("kubectl/v1.33.1".into()),
            Credentials::Certificate(admin),
            Verb::List,
            kind_of("Pod"),
            Some("default".into()),
            "",
        );
        Call::Request {
            request: Box::new(request),
            recorded: None,
            bookmarks: false,
            reply,
        }
    }

    fn watch_pods(reply: oneshot::Sender<Reply>, bookmarks: bool) -> Call {
        let Call::Request {
            mut request, reply, ..
        } = list_pods(reply)
        else {
            unreachable!()
        };
        request.verb = Verb::Watch;
        Call::Request {
            request,
            recorded: None,
            bookmarks,
            reply,
        }
    }

    fn census(board: &mut Switchboard, engine: &mut Engine) -> Census {
        let (reply, mut answer) = oneshot::channel();
        board.take(Call::Census(reply), engine);
        answer.try_recv().expect("counted")
    }

    /// A watch that allows bookmarks gets one each simulated minute, at the
    /// store's revision then (`cacher.go`, `defaultBookmarkFrequency`); one
    /// that does not allow them gets none.
    #[test]
    fn bookmarks_come_each_minute_to_the_watches_that_allow_them() {
        let mut engine = podflow_engine::testing::nginx_engine();
        let mut board = Switchboard::new(Speed::Max, None);
        let mut answers = Vec::new();
        for bookmarks in [true, false] {
            let (reply, answer) = oneshot::channel();
            board.take(watch_pods(reply, bookmarks), &mut engine);
            answers.push(answer);
        }
        board.advance(&mut engine);
        let start = engine.now();
        let mut streams: Vec<_> = answers
            .into_iter()
            .map(|mut answer| answer.try_recv().unwrap().watch.expect("a watch").1)
            .collect();
        let bookmarks = |events: &mut mpsc::Receiver<Streamed>| {
            let mut revisions = Vec::new();
            while let Ok(item) = events.try_recv() {
                if let Streamed::Bookmark(revision) = item {
                    revisions.push(revision);
                }
            }
            revisions
        };
        for minute in 1..=3 {
            engine.run_until(Until::Time(start.plus(minute * BOOKMARK_EVERY_MS - 1)));
            board.hand_out(&mut engine, |_| true);
            assert_eq!(
                bookmarks(&mut streams[0]).len(),
                0,
                "early, minute {minute}"
            );
            engine.run_until(Until::Time(start.plus(minute * BOOKMARK_EVERY_MS)));
            engine.idle_until(start.plus(minute * BOOKMARK_EVERY_MS));
            board.hand_out(&mut engine, |_| true);
            assert_eq!(bookmarks(&mut streams[0]), vec![engine.store().revision()]);
        }
        assert!(bookmarks(&mut streams[1]).is_empty());
    }

    /// A client that goes without a word (its connection closed mid-watch)
    /// leaves nothing behind: the switchboard and the engine forget its watch.
    #[test]
    fn a_watch_whose_client_vanished_is_forgotten() {
        let mut engine = podflow_engine::testing::nginx_engine();
        let mut board = Switchboard::new(Speed::Max, None);
        let (reply, mut answer) = oneshot::channel();
        board.take(watch_pods(reply, false), &mut engine);
        board.advance(&mut engine);
        let (_, events) = answer.try_recv().unwrap().watch.expect("a watch");
        let open = Census {
            waiting: 0,
            watches: 1,
            engine_watches: 1,
        };
        assert_eq!(census(&mut board, &mut engine), open);
        drop(events);
        board.hand_out(&mut engine, |_| true);
        let none = Census {
            waiting: 0,
            watches: 0,
            engine_watches: 0,
        };
        assert_eq!(census(&mut board, &mut engine), none);
    }

    /// The TUI holds an answer until its step is shown: nothing reaches the
    /// client while `release` refuses it, and the held answer goes when it allows.
    #[test]
    fn a_held_answer_goes_only_when_released() {
        let mut engine = podflow_engine::testing::nginx_engine();
        let mut board = Switchboard::new(Speed::Max, None);
        let (reply, mut answer) = oneshot::channel();
        board.take(list_pods(reply), &mut engine);
        engine.run_until(Until::Idle);
        board.hand_out(&mut engine, |_| false);
        assert!(answer.try_recv().is_err(), "answered while held");
        board.hand_out(&mut engine, |_| true);
        let reply = answer.try_recv().expect("answered once released");
        assert_eq!(reply.response.code, 200);
    }

    /// A watch whose client reads nothing is dropped once its buffer is full,
    /// and the engine forgets it, as the cacher closes an unresponsive watcher.
    #[test]
    fn a_watch_too_slow_to_read_is_dropped() {
        let mut engine = podflow_engine::testing::nginx_engine();
        let mut board = Switchboard::new(Speed::Max, None);
        let (reply, mut answer) = oneshot::channel();
        let call = watch_pods(reply, false);
        board.take(call, &mut engine);
        board.advance(&mut engine);
        let (stream, _events) = answer.try_recv().unwrap().watch.expect("a watch");
        for _ in 0..=WATCH_BUFFER {
            board.deliver(
                Answer::Watch {
                    stream,
                    event: WatchEvent {
                        event_type: podflow_engine::store::EventType::Added,
                        object: std::sync::Arc::new(
                            podflow_model::Object::from_json(
                                kind_of("Pod"),
                                serde_json::json!({"metadata": {"name": "p"}}),
                            )
                            .unwrap(),
                        ),
                        revision: 1,
                    },
                },
                &mut engine,
            );
        }
        assert!(
            !board.watches.contains_key(&stream),
            "the slow watch is still open"
        );
    }
}
