//! The task that owns the engine: it moves simulated time with the wall
//! clock (times `--speed`), hands each HTTP request to the engine, and sends
//! each answer and watch event back to the connection that waits for it.
//! Nothing else touches the engine, so its state is never half-written.

use std::collections::HashMap;
use std::io::Write;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use podflow_engine::apiserver::handler::Response;
use podflow_engine::apiserver::request::Request;
use podflow_engine::clock::SimTime;
use podflow_engine::component::RequestId;
use podflow_engine::engine::{Answer, Engine, Until};
use podflow_engine::kubelet::ContainerLog;
use podflow_engine::store::WatchEvent;
use podflow_engine::trace::TraceRecord;

/// How many events a watch may have waiting for its client before the
/// server gives up on it, as the API server's cacher closes a watcher too
/// slow to keep up (`cacher.go`, "Forcing watcher close due to unresponsiveness").
pub const WATCH_BUFFER: usize = 1024;

/// How often simulated time catches up with the wall clock when nothing arrives.
const TICK: Duration = Duration::from_millis(5);

/// How fast simulated time goes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Speed {
    /// This many simulated seconds a wall-clock second.
    Times(f64),
    /// As fast as the engine goes: each request is handled at once, and
    /// time moves only as far as the work it caused needs.
    Max,
}

/// What a connection asks the driver.
#[derive(Debug)]
pub enum Call {
    /// Handle `request`; the answer comes back on `reply`.
    Request {
        request: Box<Request>,
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

/// The driver's state.
pub struct Driver {
    engine: Engine,
    speed: Speed,
    started: Instant,
    waiting: HashMap<RequestId, (bool, oneshot::Sender<Reply>)>,
    watches: HashMap<RequestId, mpsc::Sender<(SimTime, WatchEvent)>>,
    sink: Option<TraceSink>,
}

impl Driver {
    /// A driver of `engine` at `speed`, writing its records to `sink`.
    pub fn new(engine: Engine, speed: Speed, sink: Option<TraceSink>) -> Driver {
        Driver {
            engine,
            speed,
            started: Instant::now(),
            waiting: HashMap::new(),
            watches: HashMap::new(),
            sink,
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
                        self.take(call);
                        // Take whatever else has arrived before moving time.
                        while let Ok(call) = calls.try_recv() {
                            self.take(call);
                        }
                    }
                    None => break,
                },
                _ = tick.tick() => {}
            }
            self.advance();
        }
    }

    fn take(&mut self, call: Call) {
        match call {
            Call::Request { request, reply } => {
                let watch = request.verb == podflow_engine::apiserver::request::Verb::Watch;
                let id = self.engine.receive(*request);
                self.waiting.insert(id, (watch, reply));
            }
            Call::StopWatch(stream) => {
                self.watches.remove(&stream);
                self.engine.stop_watch(stream);
            }
            Call::ReadLog {
                node,
                namespace,
                pod,
                container,
                reply,
            } => {
                let _ = reply.send(
                    self.engine
                        .container_log(&node, &namespace, &pod, &container),
                );
            }
        }
    }

    /// Moves simulated time up to the wall clock's, then hands out what
    /// reached the outside clients.
    fn advance(&mut self) {
        let until = match self.speed {
            Speed::Times(speed) => {
                let wall = self.started.elapsed().as_secs_f64() * 1000.0 * speed;
                // Whole milliseconds; the float is far below u64's range in any run.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let wall = SimTime(wall as u64);
                Until::Time(wall.max(self.engine.now()))
            }
            Speed::Max => Until::IdleOr(SimTime(u64::MAX / 2)),
        };
        let sink = &mut self.sink;
        let _ = self.engine.run_until_with(until, |records| {
            if let Some(sink) = sink.as_mut() {
                sink(&records);
            }
            Ok::<(), std::convert::Infallible>(())
        });
        for answer in self.engine.take_answers() {
            self.hand_out(answer);
        }
    }

    fn hand_out(&mut self, answer: Answer) {
        match answer {
            Answer::Response { request, response } => {
                let Some((watch, send)) = self.waiting.remove(&request) else {
                    return;
                };
                let watch = (watch && response.code == 200).then(|| {
                    let (send, receive) = mpsc::channel(WATCH_BUFFER);
                    self.watches.insert(request, send);
                    (request, receive)
                });
                let reply = Reply {
                    response,
                    now: self.engine.now(),
                    watch,
                };
                if send.send(reply).is_err() {
                    // The connection gave up before its answer: end its watch.
                    if self.watches.remove(&request).is_some() {
                        self.engine.stop_watch(request);
                    }
                }
            }
            Answer::Watch { stream, event } => {
                let Some(events) = self.watches.get(&stream) else {
                    return;
                };
                if events.try_send((self.engine.now(), event)).is_err() {
                    // Gone, or too slow to keep up: the stream ends.
                    self.watches.remove(&stream);
                    self.engine.stop_watch(stream);
                }
            }
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
