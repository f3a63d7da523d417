//! A class's session (`podflow serve --save-session FILE`): the requests
//! that reached the engine, each with the simulated time it arrived at, and
//! the watches their clients closed. `podflow play --session FILE` builds the
//! same cluster and hands the engine the same requests at the same moments,
//! so the run is the served one, record for record.
//!
//! The file is JSON lines: a `header` (what the cluster was made of), then
//! `request` and `stop_watch` entries in the order they happened. A request
//! is kept as it came over HTTP (after authentication at the TLS layer), and
//! turned into the engine's request again by the server's own code.

use std::collections::VecDeque;
use std::io::{BufRead, Write};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use hyper::Method;
use serde::{Deserialize, Serialize};

use crate::engine_request::{Incoming, resource_request};
use crate::query::Query;
use crate::route::{Route, route};
use podflow_engine::apiserver::request::{Credentials, Request, UserInfo};
use podflow_engine::clock::SimTime;
use podflow_engine::component::RequestId;
use podflow_engine::engine::Input;
use podflow_engine::trace::Actor;

/// The format's version.
pub const VERSION: u32 = 1;

/// What the cluster was made of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub version: u32,
    pub seed: u64,
    pub cluster: Option<String>,
    pub files: Vec<String>,
    /// The wall-clock second simulated time started at.
    pub epoch: i64,
}

/// Who a recorded request authenticated as at the TLS and HTTP layers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Who {
    Token(String),
    Certificate {
        user: String,
        groups: Vec<String>,
    },
    /// `by`/`by_groups` a certificate's user, or `by_token` the requester's token.
    Impersonated {
        by: String,
        by_groups: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by_token: Option<String>,
        user: String,
        groups: Vec<String>,
    },
}

/// One request as it came over HTTP.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub query: Query,
    pub content_type: String,
    pub accept: String,
    /// The client's trace name (`kubectl/v1.33.1`).
    pub client: String,
    pub who: Who,
    /// The body, in base64.
    pub body: String,
}

/// One line of a session file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Entry {
    Header(Header),
    Request { t_ms: u64, request: Box<Recorded> },
    StopWatch { t_ms: u64, stream: u64 },
}

/// Where a served cluster writes its session.
pub type SessionSink = Box<dyn FnMut(&Entry) + Send>;

/// Writes each entry as a JSON line to `out`.
pub fn jsonl_sink(mut out: impl Write + Send + 'static) -> SessionSink {
    Box::new(move |entry| {
        if let Ok(line) = serde_json::to_string(entry) {
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        }
    })
}

impl Recorded {
    /// The record of a request read by the server.
    pub fn of(incoming: &Incoming, path: &str) -> Recorded {
        let user = |u: &UserInfo| (u.name.clone(), u.groups.clone());
        let who = match &incoming.credentials {
            Credentials::BearerToken(token) => Who::Token(token.clone()),
            Credentials::Certificate(u) => {
                let (user, groups) = user(u);
                Who::Certificate { user, groups }
            }
            Credentials::Impersonated { by, user: as_user } => {
                let (by, by_groups, by_token) = match by.as_ref() {
                    Credentials::Certificate(u) => (u.name.clone(), u.groups.clone(), None),
                    Credentials::BearerToken(token) => {
                        (String::new(), Vec::new(), Some(token.clone()))
                    }
                    // Impersonation does not nest: the outer request is the requester's.
                    Credentials::Impersonated { .. } => (String::new(), Vec::new(), None),
                };
                Who::Impersonated {
                    by,
                    by_groups,
                    by_token,
                    user: as_user.name.clone(),
                    groups: as_user.groups.clone(),
                }
            }
        };
        Recorded {
            method: incoming.method.to_string(),
            path: path.to_owned(),
            query: incoming.query.clone(),
            content_type: incoming.content_type.clone(),
            accept: incoming.accept.clone(),
            client: incoming.client.name().into_owned(),
            who,
            body: STANDARD.encode(&incoming.body),
        }
    }

    /// The engine's request again, as the server made it.
    pub fn engine_request(&self) -> Result<Request, String> {
        let credentials = match &self.who {
            Who::Token(token) => Credentials::BearerToken(token.clone()),
            Who::Certificate { user, groups } => Credentials::Certificate(UserInfo {
                name: user.clone(),
                groups: groups.clone(),
            }),
            Who::Impersonated {
                by,
                by_groups,
                by_token,
                user,
                groups,
            } => Credentials::Impersonated {
                by: Box::new(match by_token {
                    Some(token) => Credentials::BearerToken(token.clone()),
                    None => Credentials::Certificate(UserInfo {
                        name: by.clone(),
                        groups: by_groups.clone(),
                    }),
                }),
                user: UserInfo {
                    name: user.clone(),
                    groups: groups.clone(),
                },
            },
        };
        let incoming = Incoming {
            method: Method::from_bytes(self.method.as_bytes()).map_err(|e| e.to_string())?,
            query: self.query.clone(),
            body: Bytes::from(STANDARD.decode(&self.body).map_err(|e| e.to_string())?),
            accept: self.accept.clone(),
            content_type: self.content_type.clone(),
            client: Actor::parse(&self.client)
                .unwrap_or_else(|| Actor::Client(self.client.as_str().into())),
            credentials,
        };
        let Route::Resource(path) = route(&self.path) else {
            return Err(format!("{} is no resource path", self.path));
        };
        resource_request(&incoming, &path)
            .map(|(request, _)| request)
            .map_err(|status| status.message.unwrap_or_default())
    }
}

/// A session read back: its header and its inputs in order.
#[derive(Debug, Clone)]
pub struct Session {
    pub header: Header,
    pub inputs: VecDeque<(SimTime, Input)>,
}

/// Reads a session file; an error names the line.
pub fn read(input: impl BufRead, name: &str) -> Result<Session, String> {
    let mut header = None;
    let mut inputs = VecDeque::new();
    for (i, line) in input.lines().enumerate() {
        let at = || format!("{name}:{}", i + 1);
        let line = line.map_err(|e| format!("{}: {e}", at()))?;
        if line.trim().is_empty() {
            continue;
        }
        let entry: Entry = serde_json::from_str(&line).map_err(|e| format!("{}: {e}", at()))?;
        match entry {
            Entry::Header(h) if h.version == VERSION => header = Some(h),
            Entry::Header(h) => {
                return Err(format!(
                    "{}: a session of version {} (this podflow reads {VERSION})",
                    at(),
                    h.version
                ));
            }
            Entry::Request { t_ms, request } => {
                let request = request
                    .engine_request()
                    .map_err(|e| format!("{}: {e}", at()))?;
                inputs.push_back((SimTime(t_ms), Input::Request(Box::new(request))));
            }
            Entry::StopWatch { t_ms, stream } => {
                let stream =
                    RequestId::new(stream).ok_or_else(|| format!("{}: watch number 0", at()))?;
                inputs.push_back((SimTime(t_ms), Input::StopWatch(stream)));
            }
        }
    }
    let header = header.ok_or_else(|| format!("{name}: no header line: not a podflow session"))?;
    Ok(Session { header, inputs })
}
