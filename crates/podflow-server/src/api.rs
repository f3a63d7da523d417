//! One HTTP request to the API server: who sent it (client certificate,
//! bearer token, impersonation headers), what it asks (route, verb, query,
//! body), the engine request it becomes, and the HTTP answer made of the
//! engine's (`staging/src/k8s.io/apiserver/pkg/endpoints/handlers/`).

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, StatusCode};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Status;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use crate::query::Query;

use crate::discovery;
use crate::driver::{Call, Reply};
use crate::engine_request::{Incoming, resource_request};
use crate::logs;
use crate::route::{Route, route};
use crate::session::Recorded;
use crate::table::{self, Include};
use crate::watch_stream;
use podflow_engine::apiserver::handler::Response;
use podflow_engine::apiserver::request::{Credentials, Request, UserInfo, Verb};
use podflow_engine::trace::Actor;
use podflow_model::{Kind, Object, status};

/// The API server's limit on a request body (`--max-request-body-bytes`, 3 MiB).
pub const MAX_BODY_BYTES: usize = 3 * 1024 * 1024;

/// A `Status` as the API server writes it: `kind`, `apiVersion` and empty `metadata`.
fn status_body(status: &Status) -> Value {
    let mut body = serde_json::to_value(status).unwrap_or_default();
    body["kind"] = json!("Status");
    body["apiVersion"] = json!("v1");
    body["metadata"] = json!({});
    body
}

/// The body of an answer: whole, or a watch's stream.
pub type ResponseBody = BoxBody<Bytes, Infallible>;

/// An HTTP answer.
pub type HttpResponse = hyper::Response<ResponseBody>;

/// Who the TLS connection proved to be: a verified client certificate's user.
#[derive(Debug, Clone, Default)]
pub struct Peer {
    pub certificate: Option<UserInfo>,
}

/// What every request handler shares.
#[derive(Debug, Clone)]
pub struct Shared {
    pub calls: mpsc::Sender<Call>,
    /// Whether requests are kept for a session file (`--save-session`).
    pub recording: bool,
}

/// Answers one request.
pub async fn handle(
    shared: Arc<Shared>,
    peer: Arc<Peer>,
    request: hyper::Request<hyper::body::Incoming>,
) -> HttpResponse {
    let (parts, body) = request.into_parts();
    let accept = header_text(&parts.headers, &header::ACCEPT);
    let route = route(parts.uri.path());
    match (&parts.method, &route) {
        (&Method::GET, Route::Version) => {
            let version = serde_json::to_value(discovery::version()).unwrap_or_default();
            return json_response(StatusCode::OK, &version);
        }
        (&Method::GET, Route::Health) => {
            return text_response(StatusCode::OK, "text/plain; charset=utf-8", "ok");
        }
        (
            &Method::GET,
            Route::CoreGroup | Route::Groups | Route::Group(_) | Route::GroupVersion { .. },
        ) => {
            return discovery_response(&route, &accept);
        }
        (&Method::GET, Route::OpenApiV3(path)) => return openapi_response(path.as_deref()),
        (_, Route::NotFound) => return status_response(&status::no_such_resource()),
        _ => {}
    }
    let Some(body) = read_body(body).await else {
        return status_response(&status_failure(
            413,
            "RequestEntityTooLarge",
            format!("Request entity too large: limit is {MAX_BODY_BYTES}"),
        ));
    };
    let incoming = Incoming {
        client: client_actor(header_text(&parts.headers, &header::USER_AGENT).as_str()),
        credentials: credentials(&parts.headers, &peer),
        query: Query::parse(parts.uri.query().unwrap_or_default()),
        content_type: header_text(&parts.headers, &header::CONTENT_TYPE),
        method: parts.method,
        body,
        accept,
    };
    match route {
        Route::Resource(path) => match resource_request(&incoming, &path) {
            Ok((request, mut warnings)) => {
                warnings.extend(podflow_engine::apiserver::deprecation::warning(
                    request.kind,
                ));
                let recorded = shared
                    .recording
                    .then(|| Box::new(Recorded::of(&incoming, parts.uri.path())));
                let mut response = answer(&shared, &incoming, request, recorded).await;
                add_warnings(&mut response, &warnings);
                response
            }
            Err(status) => status_response(&status),
        },
        _ => status_response(&status_failure(
            405,
            "MethodNotAllowed",
            "the server does not allow this method on the requested resource".to_owned(),
        )),
    }
}

/// How much of a body too large is still read (and dropped) before the 413
/// is answered, so that the client, still sending, reads the answer rather
/// than a broken connection.
const DRAINED_BYTES: usize = 64 * 1024 * 1024;

/// The body, or `None` when it is over [`MAX_BODY_BYTES`].
async fn read_body(mut body: hyper::body::Incoming) -> Option<Bytes> {
    let mut kept = Vec::new();
    let mut seen = 0usize;
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else {
            return None;
        };
        if let Some(data) = frame.data_ref() {
            seen = seen.saturating_add(data.len());
            if seen <= MAX_BODY_BYTES {
                kept.extend_from_slice(data);
            } else if seen > DRAINED_BYTES {
                return None;
            }
        }
    }
    (seen <= MAX_BODY_BYTES).then(|| Bytes::from(kept))
}

/// How the request proves who sent it: a bearer token, else the client
/// certificate; with `Impersonate-User` (and `Impersonate-Group`, as `kubectl
/// --as` sends them) the requester asks to act as that user. With neither
/// token nor certificate, the empty token fails authentication.
fn credentials(headers: &HeaderMap, peer: &Peer) -> Credentials {
    let token = header_text(headers, &header::AUTHORIZATION)
        .strip_prefix("Bearer ")
        .map(|t| t.trim().to_owned());
    let requester = match (token, peer.certificate.clone()) {
        (Some(token), _) => Credentials::BearerToken(token),
        (None, Some(user)) => Credentials::Certificate(user),
        (None, None) => return Credentials::BearerToken(String::new()),
    };
    let impersonated = header_text(
        headers,
        &header::HeaderName::from_static("impersonate-user"),
    );
    if impersonated.is_empty() {
        return requester;
    }
    let groups: Vec<String> = headers
        .get_all("impersonate-group")
        .iter()
        .filter_map(|v| v.to_str().ok().map(str::to_owned))
        .collect();
    Credentials::Impersonated {
        by: Box::new(requester),
        user: UserInfo {
            name: impersonated,
            groups,
        },
    }
}

/// Hands `request` to the engine and makes its answer an HTTP response.
async fn answer(
    shared: &Shared,
    incoming: &Incoming,
    request: Request,
    recorded: Option<Box<Recorded>>,
) -> HttpResponse {
    let verb = request.verb;
    let kind = request.kind;
    // A binding and an eviction are answered with a success `Status`.
    let binding = matches!(request.subresource.as_deref(), Some("binding" | "eviction"));
    let (send, receive) = oneshot::channel();
    let call = Call::Request {
        request: Box::new(request),
        recorded,
        bookmarks: incoming.query.flag("allowWatchBookmarks"),
        reply: send,
    };
    if shared.calls.send(call).await.is_err() {
        return status_response(&stopping());
    }
    let Ok(reply) = receive.await else {
        return status_response(&stopping());
    };
    let Reply {
        response,
        now,
        watch,
    } = reply;
    if response.code == 410 && verb == Verb::Watch {
        return watch_stream::expired(&status_body(
            &response.status.clone().unwrap_or_else(stopping),
        ));
    }
    if response.code >= 400 {
        return status_response(&response.status.clone().unwrap_or_else(stopping));
    }
    let code = StatusCode::from_u16(response.code).unwrap_or(StatusCode::OK);
    let wants_table = table::wants_table(&incoming.accept);
    let include = Include::parse(incoming.query.get("includeObject"));
    match verb {
        Verb::Watch => {
            let Some((stream, events)) = watch else {
                return status_response(&stopping());
            };
            watch_stream::respond(watch_stream::Opened {
                calls: shared.calls.clone(),
                stream,
                events,
                kind,
                initial: &response,
                query: &incoming.query,
                table: wants_table.then_some(include),
                now,
            })
        }
        Verb::List if wants_table => json_response(
            code,
            &table::table(kind, &response.items, now, Some(response.revision), include),
        ),
        Verb::List => json_response(code, &list(kind, &response.items, response.revision)),
        _ if binding => status_response(&response.status.clone().unwrap_or_else(stopping)),
        _ if response.log.is_some() => {
            let log = response.log.as_deref().cloned().unwrap_or_default();
            let follow = incoming
                .query
                .flag("follow")
                .then(|| log_source(&response, &incoming.query))
                .flatten()
                .map(|source| (shared.calls.clone(), source));
            logs::respond(&log, &incoming.query, follow)
        }
        _ => {
            if let Some(scale) = &response.scale {
                return json_response(code, &serde_json::to_value(scale).unwrap_or_default());
            }
            match &response.object {
                Some(object) if wants_table && verb == Verb::Get => json_response(
                    code,
                    &table::table(kind, std::slice::from_ref(object), now, None, include),
                ),
                Some(object) => json_response(code, &object.to_json()),
                None => status_response(&response.status.clone().unwrap_or_else(stopping)),
            }
        }
    }
}

/// The container a `logs -f` follows, read from the Pod the engine answered with.
fn log_source(response: &Response, query: &Query) -> Option<logs::Source> {
    let Some(Object::Pod(pod)) = response.object.as_deref() else {
        return None;
    };
    let spec = pod.spec.as_ref()?;
    let container = match query.get("container") {
        Some(container) => container.to_owned(),
        None => spec.containers.first()?.name.clone(),
    };
    Some(logs::Source {
        node: spec.node_name.clone()?,
        namespace: pod.metadata.namespace.clone()?,
        pod: pod.metadata.name.clone()?,
        container,
    })
}

/// A `PodList`, `DeploymentList`, ...
fn list(kind: &Kind, items: &[Arc<Object>], revision: u64) -> Value {
    json!({
        "kind": format!("{}List", kind.kind),
        "apiVersion": kind.api_version(),
        "metadata": {"resourceVersion": revision.to_string()},
        "items": items.iter().map(|o| o.to_json()).collect::<Vec<_>>(),
    })
}

/// 503 while the server shuts down.
fn stopping() -> Status {
    status_failure(
        503,
        "ServiceUnavailable",
        "the server is shutting down".to_owned(),
    )
}

fn add_warnings(response: &mut HttpResponse, warnings: &[String]) {
    for warning in warnings {
        let text = format!("299 - {}", Value::String(warning.clone()));
        if let Ok(value) = HeaderValue::from_str(&text) {
            response.headers_mut().append("warning", value);
        }
    }
}

fn header_text(headers: &HeaderMap, name: &header::HeaderName) -> String {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

/// The client a user agent names: its first product (`kubectl/v1.33.1`).
pub fn client_actor(user_agent: &str) -> Actor {
    let product = user_agent
        .split_whitespace()
        .next()
        .unwrap_or("unknown-client");
    Actor::Client(Arc::from(product))
}

/// A failure `Status`.
pub fn status_failure(code: u16, reason: &str, message: String) -> Status {
    Status {
        code: Some(i32::from(code)),
        message: Some(message),
        reason: Some(reason.to_owned()),
        status: Some("Failure".to_owned()),
        ..Status::default()
    }
}

/// A `Status` as the API server writes it.
pub fn status_response(status: &Status) -> HttpResponse {
    let code = status
        .code
        .and_then(|c| u16::try_from(c).ok())
        .unwrap_or(500);
    let body = status_body(status);
    json_response(
        StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        &body,
    )
}

/// A JSON answer.
pub fn json_response(code: StatusCode, body: &Value) -> HttpResponse {
    text_response(code, "application/json", &body.to_string())
}

fn text_response(code: StatusCode, content_type: &str, body: &str) -> HttpResponse {
    let mut response = hyper::Response::new(full(Bytes::from(body.to_owned())));
    *response.status_mut() = code;
    if let Ok(value) = HeaderValue::from_str(content_type) {
        response.headers_mut().insert(header::CONTENT_TYPE, value);
    }
    response
}

/// A whole body.
pub fn full(bytes: Bytes) -> ResponseBody {
    Full::new(bytes).boxed()
}

fn discovery_response(route: &Route, accept: &str) -> HttpResponse {
    let aggregated = discovery::wants_aggregated(accept);
    let document = match route {
        Route::CoreGroup if aggregated => {
            return text_response(
                StatusCode::OK,
                discovery::AGGREGATED_CONTENT_TYPE,
                &discovery::aggregated_api().to_string(),
            );
        }
        Route::Groups if aggregated => {
            return text_response(
                StatusCode::OK,
                discovery::AGGREGATED_CONTENT_TYPE,
                &discovery::aggregated_apis().to_string(),
            );
        }
        Route::CoreGroup => serde_json::to_value(discovery::api_versions("127.0.0.1:6443")).ok(),
        Route::Groups => serde_json::to_value(discovery::api_group_list()).ok(),
        Route::Group(group) => {
            discovery::api_group(group).and_then(|g| serde_json::to_value(g).ok())
        }
        Route::GroupVersion { group, version } => discovery::api_resource_list(group, version)
            .and_then(|list| serde_json::to_value(list).ok()),
        _ => None,
    };
    match document {
        Some(doc) => json_response(StatusCode::OK, &doc),
        None => status_response(&status::no_such_resource()),
    }
}

fn openapi_response(path: Option<&str>) -> HttpResponse {
    let document = match path {
        None => Some(Arc::new(crate::openapi::index())),
        Some(path) => crate::openapi::document(path),
    };
    match document {
        Some(doc) => json_response(StatusCode::OK, &doc),
        None => status_response(&status::no_such_resource()),
    }
}
