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

/// What a connection asks the switchboard.
#[derive(Debug)]
pub enum Call {
    /// Handle `request`; the answer comes back on `reply`.
    Request {
        request: Box<Request>,
        /// The request as it came over HTTP, when a session is being saved.
        recorded: Option<Box<Recorded>>,
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
}

/// The engine's answer to one request.
#[derive(Debug)]
pub struct Reply {
    pub response: Box<Response>,
    /// When the answer was given, for the ages a Table shows.
    pub now: SimTime,
    /// For a watch that was allowed: its number and its events.
    pub watch: Option<(RequestId, mpsc::Receiver<(SimTime, WatchEvent)>)>,
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

/// Requests waiting for answers, open watches, and the pacer.
pub struct Switchboard {
    speed: Speed,
    /// The wall-clock moment and simulated time the pacer counts from.
    origin: (Instant, SimTime),
    waiting: HashMap<RequestId, (bool, oneshot::Sender<Reply>)>,
    watches: HashMap<RequestId, mpsc::Sender<(SimTime, WatchEvent)>>,
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
                reply,
            } => {
                let watch = request.verb == Verb::Watch;
                if let (Some(session), Some(request)) = (self.session.as_mut(), recorded) {
                    let t_ms = cluster.now().as_millis();
                    session(&Entry::Request { t_ms, request });
                }
                let id = cluster.receive(*request);
                self.waiting.insert(id, (watch, reply));
            }
            Call::StopWatch(stream) => {
                self.watches.remove(&stream);
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
    }

    fn deliver(&mut self, answer: Answer, cluster: &mut impl Cluster) {
        match answer {
            Answer::Response { request, response } => {
                let Some((watch, send)) = self.waiting.remove(&request) else {
                    return;
                };
                let watch = (watch && response.code == 200).then(|| {
                    let (events, receive) = mpsc::channel(WATCH_BUFFER);
                    self.watches.insert(request, events);
                    (request, receive)
                });
                let reply = Reply {
                    response,
                    now: cluster.now(),
                    watch,
                };
                // A connection that gave up before its answer: its watch ends.
                if send.send(reply).is_err() && self.watches.remove(&request).is_some() {
                    self.take(Call::StopWatch(request), cluster);
                }
            }
            Answer::Watch { stream, event } => {
                let Some(events) = self.watches.get(&stream) else {
                    return;
                };
                if events.try_send((cluster.now(), event)).is_err() {
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
            reply,
        }
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
        let Call::Request {
            mut request, reply, ..
        } = list_pods(reply)
        else {
            unreachable!()
        };
        request.verb = Verb::Watch;
        let call = Call::Request {
            request,
            recorded: None,
            reply,
        };
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
