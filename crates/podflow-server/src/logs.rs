//! `GET pods/NAME/log`'s answer: the container's output as plain text, with
//! `PodLogOptions` applied (`tailLines`, `timestamps`, `limitBytes`), and
//! with `follow=true` a stream that goes on while the container runs, as the
//! kubelet streams it (`pkg/kubelet/kuberuntime/logs/logs.go`, `ReadLogs`).

use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::Frame;
use hyper::header::{self, HeaderValue};
use tokio::sync::{mpsc, oneshot};

use crate::api::{HttpResponse, full};
use crate::driver::Call;
use crate::query::Query;
use podflow_engine::clock::SimTime;
use podflow_engine::kubelet::ContainerLog;

/// How often a follower asks for new lines.
const FOLLOW_POLL: Duration = Duration::from_millis(200);

/// The container a follower reads.
#[derive(Debug, Clone)]
pub struct Source {
    pub node: String,
    pub namespace: String,
    pub pod: String,
    pub container: String,
}

/// The answer to a log request the engine allowed.
pub fn respond(
    log: &ContainerLog,
    query: &Query,
    follow: Option<(mpsc::Sender<Call>, Source)>,
) -> HttpResponse {
    let timestamps = query.flag("timestamps");
    let tail = query
        .number("tailLines")
        .and_then(|n| usize::try_from(n).ok());
    let skip = tail.map_or(0, |n| log.lines.len().saturating_sub(n));
    let mut text = String::new();
    for (at, line) in &log.lines[skip..] {
        push_line(&mut text, *at, line, timestamps);
    }
    if let Some(limit) = query
        .number("limitBytes")
        .and_then(|n| usize::try_from(n).ok())
    {
        let mut cut = limit.min(text.len());
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
    let mut response = match follow {
        Some((calls, source)) if log.running => {
            let first = futures_util::stream::once(async move { Bytes::from(text) });
            let rest = follow_stream(calls, source, log.lines.len(), timestamps);
            let frames = first
                .chain(rest)
                .map(|bytes| Ok::<_, Infallible>(Frame::data(bytes)));
            hyper::Response::new(BodyExt::boxed(StreamBody::new(frames)))
        }
        _ => hyper::Response::new(full(Bytes::from(text))),
    };
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    response
}

/// The lines written after the first `seen`, as they come, until the
/// container stops or the client goes.
fn follow_stream(
    calls: mpsc::Sender<Call>,
    source: Source,
    seen: usize,
    timestamps: bool,
) -> impl futures_util::Stream<Item = Bytes> + Send {
    futures_util::stream::unfold(
        (calls, source, seen, false),
        move |(calls, source, seen, over)| async move {
            if over {
                return None;
            }
            tokio::time::sleep(FOLLOW_POLL).await;
            let (reply, answer) = oneshot::channel();
            let call = Call::ReadLog {
                node: source.node.clone(),
                namespace: source.namespace.clone(),
                pod: source.pod.clone(),
                container: source.container.clone(),
                reply,
            };
            calls.send(call).await.ok()?;
            let log = answer.await.ok()?.ok()?;
            let mut text = String::new();
            for (at, line) in log.lines.iter().skip(seen) {
                push_line(&mut text, *at, line, timestamps);
            }
            let seen = log.lines.len().max(seen);
            Some((Bytes::from(text), (calls, source, seen, !log.running)))
        },
    )
    .filter(|bytes| futures_util::future::ready(!bytes.is_empty()))
}

fn push_line(text: &mut String, at: SimTime, line: &str, timestamps: bool) {
    if timestamps {
        text.push_str(&rfc3339_nano(at));
        text.push(' ');
    }
    text.push_str(line);
    text.push('\n');
}

/// `2026-11-30T02:20:41.123000000Z`, as the kubelet stamps a log line
/// (`time.RFC3339Nano` with the fraction padded, as CRI log files write it).
fn rfc3339_nano(at: SimTime) -> String {
    let (_, nanos) = at.unix();
    let seconds = at.to_k8s().strftime("%Y-%m-%dT%H:%M:%S").to_string();
    format!("{seconds}.{nanos:09}Z")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body_text(response: HttpResponse) -> String {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let bytes = runtime
            .block_on(response.into_body().collect())
            .unwrap()
            .to_bytes();
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    #[test]
    fn options_cut_and_stamp_the_lines() {
        let log = ContainerLog {
            lines: vec![
                (SimTime(1_000), "one".into()),
                (SimTime(2_500), "two".into()),
                (SimTime(3_000), "three".into()),
            ],
            running: false,
        };
        let all = body_text(respond(&log, &Query::parse(""), None));
        assert_eq!(all, "one\ntwo\nthree\n");
        let tail = body_text(respond(&log, &Query::parse("tailLines=2"), None));
        assert_eq!(tail, "two\nthree\n");
        let stamped = body_text(respond(
            &log,
            &Query::parse("tailLines=1&timestamps=true"),
            None,
        ));
        assert!(stamped.ends_with(".000000000Z three\n"), "{stamped}");
        let cut = body_text(respond(&log, &Query::parse("limitBytes=5"), None));
        assert_eq!(cut, "one\nt");
    }
}
