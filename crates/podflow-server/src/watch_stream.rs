//! A watch's answer: a stream of JSON lines `{"type":"ADDED","object":…}`,
//! as the API server's watch handler writes them
//! (`staging/src/k8s.io/apiserver/pkg/endpoints/handlers/watch.go`). Without
//! a resourceVersion to start from, the stream starts with the current
//! objects as `ADDED` (and, with `sendInitialEvents=true`, a `BOOKMARK`
//! annotated `k8s.io/initial-events-end`). With `allowWatchBookmarks` the
//! switchboard adds a `BOOKMARK` each simulated minute. It ends after `timeoutSeconds`
//! or when the engine gives up on a client too slow to read. When the
//! client goes, the engine forgets the watch.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::Frame;
use hyper::header::{self, HeaderValue};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::api::HttpResponse;
use crate::driver::{Call, Streamed};
use crate::query::Query;
use crate::table::{self, Include};
use podflow_engine::apiserver::handler::Response;
use podflow_engine::clock::SimTime;
use podflow_engine::component::RequestId;
use podflow_model::{Kind, Object};

/// The longest a watch lasts without `timeoutSeconds`: the API server's
/// `--min-request-timeout` (1800 s) is the floor of its random choice.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1800);

/// A watch the engine opened.
pub struct Opened<'a> {
    pub calls: mpsc::Sender<Call>,
    pub stream: RequestId,
    pub events: mpsc::Receiver<Streamed>,
    pub kind: &'static Kind,
    /// The engine's answer: the objects now, and the revision they show.
    pub initial: &'a Response,
    pub query: &'a Query,
    /// Rows as Tables, when the client asked for them.
    pub table: Option<Include>,
    pub now: SimTime,
}

/// Tells the engine the watch is over when the stream is dropped.
struct StopOnDrop {
    calls: mpsc::Sender<Call>,
    stream: RequestId,
}

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        let _ = self.calls.try_send(Call::StopWatch(self.stream));
    }
}

/// The streaming answer.
pub fn respond(opened: Opened<'_>) -> HttpResponse {
    let kind = opened.kind;
    let mut encoder = Encoder {
        kind,
        table: opened.table,
        now: opened.now,
        columns_sent: false,
    };
    let mut first: Vec<Bytes> = Vec::new();
    let from = opened.query.get("resourceVersion").unwrap_or_default();
    if from.is_empty() || from == "0" {
        for object in &opened.initial.items {
            first.push(encoder.line("ADDED", object));
        }
        if opened.query.flag("sendInitialEvents") {
            first.push(encoder.bookmark(opened.initial.revision, true));
        }
    }
    let timeout = opened
        .query
        .number("timeoutSeconds")
        .and_then(|s| u64::try_from(s).ok())
        .map_or(DEFAULT_TIMEOUT, Duration::from_secs);
    let guard = StopOnDrop {
        calls: opened.calls,
        stream: opened.stream,
    };
    let events = tokio_stream_of(opened.events).map(move |item| {
        let _keep = &guard;
        match item {
            Streamed::Event(now, event) => {
                encoder.now = now;
                encoder.line(event.event_type.as_str(), &event.object)
            }
            Streamed::Bookmark(revision) => encoder.bookmark(revision, false),
        }
    });
    let lines = futures_util::stream::iter(first)
        .chain(events)
        .take_until(tokio::time::sleep(timeout))
        .map(|line| Ok::<_, Infallible>(Frame::data(line)));
    let mut response = hyper::Response::new(BodyExt::boxed(StreamBody::new(lines)));
    let media = if opened.table.is_some() {
        table::TABLE_MEDIA_TYPE
    } else {
        "application/json"
    };
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(media));
    response
}

/// A watch from a resourceVersion etcd has compacted away: as the watch
/// cache does (`newErrWatcher` in `cacher.go`), the API server answers
/// `200 OK` and the stream's one event is an `ERROR` carrying the `410`
/// `Status` (`too old resource version: 1 (100)`, reason `Expired`); clients
/// relist on it (client-go's reflector, kube-runtime's watcher).
pub fn expired(status: &Value) -> HttpResponse {
    let line = encode("ERROR", status);
    let body = futures_util::stream::iter([Ok::<_, Infallible>(Frame::data(line))]);
    let mut response = hyper::Response::new(BodyExt::boxed(StreamBody::new(body)));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// A receiver as a stream.
fn tokio_stream_of<T: Send + 'static>(
    mut receiver: mpsc::Receiver<T>,
) -> impl futures_util::Stream<Item = T> + Send {
    futures_util::stream::poll_fn(move |cx| receiver.poll_recv(cx))
}

/// Writes events as lines, objects whole or as one-row Tables.
struct Encoder {
    kind: &'static Kind,
    table: Option<Include>,
    now: SimTime,
    /// A Table watch sends the column definitions with its first row only,
    /// as the API server's watch encoder does.
    columns_sent: bool,
}

impl Encoder {
    fn line(&mut self, event_type: &str, object: &Arc<Object>) -> Bytes {
        let object = match self.table {
            None => object.to_json(),
            Some(include) => {
                let revision = object
                    .metadata()
                    .resource_version
                    .as_deref()
                    .and_then(|rv| rv.parse().ok());
                let mut t = table::table(
                    self.kind,
                    std::slice::from_ref(object),
                    self.now,
                    revision,
                    include,
                );
                if self.columns_sent {
                    t["columnDefinitions"] = json!([]);
                }
                self.columns_sent = true;
                t
            }
        };
        encode(event_type, &object)
    }

    /// A `BOOKMARK`: an object of the kind with only its resourceVersion,
    /// annotated `k8s.io/initial-events-end` when it ends the initial events.
    fn bookmark(&self, revision: u64, initial_events_end: bool) -> Bytes {
        let mut metadata = json!({"resourceVersion": revision.to_string()});
        if initial_events_end {
            metadata["annotations"] = json!({"k8s.io/initial-events-end": "true"});
        }
        let object = json!({
            "kind": self.kind.kind,
            "apiVersion": self.kind.api_version(),
            "metadata": metadata,
        });
        encode("BOOKMARK", &object)
    }
}

fn encode(event_type: &str, object: &Value) -> Bytes {
    let mut line = json!({"type": event_type, "object": object}).to_string();
    line.push('\n');
    Bytes::from(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What kubectl's `get -w --resource-version=1` meets after a compaction:
    /// `200 OK`, then one `ERROR` event whose object is the `Expired` Status
    /// (the reflector's `watchHandler` turns it into `apierrors.FromObject`).
    #[tokio::test]
    async fn a_compacted_watch_is_a_stream_with_one_error() {
        let status = json!({
            "kind": "Status", "apiVersion": "v1", "metadata": {},
            "status": "Failure", "message": "too old resource version: 1 (100)",
            "reason": "Expired", "code": 410
        });
        let response = expired(&status);
        assert_eq!(response.status(), hyper::StatusCode::OK);
        let body = response.into_body().collect().await.unwrap().to_bytes();
        let lines: Vec<serde_json::Value> = body
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        assert_eq!(lines, [json!({"type": "ERROR", "object": status})]);
    }
}
