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
use crate::logs;
use crate::protobuf;
use crate::route::{ResourcePath, Route, route};
use crate::session::Recorded;
use crate::table::{self, Include};
use crate::watch_stream;
use podflow_engine::apiserver::handler::Response;
use podflow_engine::apiserver::request::{Body, Credentials, Propagation, Request, UserInfo, Verb};
use podflow_engine::store::is_selectable;
use podflow_engine::store::selector::{self, Selector};
use podflow_engine::trace::Actor;
use podflow_model::{Kind, Object, status};

/// The API server's limit on a request body (`--max-request-body-bytes`, 3 MiB).
pub const MAX_BODY_BYTES: usize = 3 * 1024 * 1024;

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
            Ok((request, warnings)) => {
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

/// A request, read.
pub struct Incoming {
    pub method: Method,
    pub query: Query,
    pub body: Bytes,
    pub accept: String,
    pub content_type: String,
    pub client: Actor,
    pub credentials: Credentials,
}

/// How the request proves who sent it: a bearer token, else the client
/// certificate (with `Impersonate-User`/`Impersonate-Group` when `kubectl
/// --as` sends them). With neither, the empty token fails authentication.
fn credentials(headers: &HeaderMap, peer: &Peer) -> Credentials {
    let token = header_text(headers, &header::AUTHORIZATION)
        .strip_prefix("Bearer ")
        .map(|t| t.trim().to_owned());
    if let Some(token) = token {
        return Credentials::BearerToken(token);
    }
    let Some(user) = peer.certificate.clone() else {
        return Credentials::BearerToken(String::new());
    };
    let impersonated = header_text(
        headers,
        &header::HeaderName::from_static("impersonate-user"),
    );
    if impersonated.is_empty() {
        return Credentials::Certificate(user);
    }
    let groups: Vec<String> = headers
        .get_all("impersonate-group")
        .iter()
        .filter_map(|v| v.to_str().ok().map(str::to_owned))
        .collect();
    Credentials::Impersonated {
        by: user,
        user: UserInfo {
            name: impersonated,
            groups,
        },
    }
}

/// The engine request an HTTP request on a resource path is, with the
/// warnings to send back (unknown fields under `fieldValidation=Warn`).
pub fn resource_request(
    incoming: &Incoming,
    path: &ResourcePath,
) -> Result<(Request, Vec<String>), Box<Status>> {
    let query = &incoming.query;
    let named = path.name.is_some();
    let verb = match (&incoming.method, named) {
        (&Method::GET, _) if query.flag("watch") => Verb::Watch,
        (&Method::GET, true) => Verb::Get,
        (&Method::GET, false) => Verb::List,
        (&Method::POST, _) => Verb::Create,
        (&Method::PUT, true) => Verb::Update,
        (&Method::PATCH, true) => Verb::Patch,
        (&Method::DELETE, true) => Verb::Delete,
        _ => {
            return Err(Box::new(status_failure(
                405,
                "MethodNotAllowed",
                "the server does not allow this method on the requested resource".to_owned(),
            )));
        }
    };
    check_subresource(path)?;
    let mut request = Request::new(
        incoming.client.clone(),
        incoming.credentials.clone(),
        verb,
        path.kind,
        path.namespace.clone(),
        path.name.clone().unwrap_or_default(),
    );
    request.subresource.clone_from(&path.subresource);
    let mut warnings = Vec::new();
    match verb {
        Verb::List | Verb::Watch => {
            request.selector = selector(path.kind, query)?;
            request.resource_version = query.get("resourceVersion").and_then(|rv| rv.parse().ok());
        }
        Verb::Get if path.subresource.as_deref() == Some("log") => {
            request.body = Some(Body::LogOptions {
                container: query.get("container").map(str::to_owned),
            });
        }
        Verb::Get => {}
        Verb::Create if path.subresource.as_deref() == Some("eviction") => {
            let eviction = json_body(incoming)?;
            let grace = eviction
                .pointer("/deleteOptions/gracePeriodSeconds")
                .and_then(Value::as_i64);
            request.body = Some(Body::Delete {
                grace_period_seconds: grace,
            });
        }
        Verb::Create if path.subresource.as_deref() == Some("binding") => {
            let binding = json_body(incoming)?;
            let node = binding
                .pointer("/target/name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            request.body = Some(Body::Binding {
                node: node.to_owned(),
            });
        }
        Verb::Create | Verb::Update => {
            if path.subresource.as_deref() == Some("scale") {
                let scale = json_body(incoming)?;
                let replicas = scale.pointer("/spec/replicas").cloned().unwrap_or(json!(0));
                request.body = Some(Body::MergePatch(json!({"spec": {"replicas": replicas}})));
            } else {
                let (object, unknown) = object_body(incoming, path.kind)?;
                warnings = field_validation(query, &mut request, unknown)?;
                request.body = Some(Body::Object(Box::new(object)));
            }
        }
        Verb::Patch => request.body = Some(patch_body(incoming)?),
        Verb::Delete => {
            let options = if incoming.body.is_empty() {
                Value::Null
            } else {
                json_body(incoming)?
            };
            let grace = options
                .get("gracePeriodSeconds")
                .and_then(Value::as_i64)
                .or_else(|| query.number("gracePeriodSeconds"));
            let propagation = options
                .get("propagationPolicy")
                .and_then(Value::as_str)
                .or_else(|| query.get("propagationPolicy"));
            request.propagation_policy = match propagation {
                Some("Foreground") => Some(Propagation::Foreground),
                Some("Orphan") => Some(Propagation::Orphan),
                Some("Background") => Some(Propagation::Background),
                _ => None,
            };
            request.body = Some(Body::Delete {
                grace_period_seconds: grace,
            });
        }
    }
    Ok((request, warnings))
}

/// The subresources served: the ones discovery lists and the engine
/// handles; `exec`, `attach` and `portforward` are refused plainly (the
/// containers run a simulated shell that no stream reaches), any other is
/// not found.
fn check_subresource(path: &ResourcePath) -> Result<(), Box<Status>> {
    let Some(sub) = path.subresource.as_deref() else {
        return Ok(());
    };
    let served = match path.kind.kind {
        "Pod" => ["status", "binding", "eviction", "log"].contains(&sub),
        "Deployment" | "ReplicaSet" => ["status", "scale"].contains(&sub),
        _ => sub == "status",
    };
    if served {
        return Ok(());
    }
    if path.kind.kind == "Pod" && ["exec", "attach", "portforward"].contains(&sub) {
        return Err(boxed(status_failure(
            400,
            "BadRequest",
            format!(
                "podflow serve does not stream {sub}: its containers run a simulated shell; \
                 `kubectl logs` shows what they printed"
            ),
        )));
    }
    Err(boxed(status::no_such_resource()))
}

/// The label and field selectors of a list or watch; a field a kind does
/// not offer is refused as the API server refuses it.
fn selector(kind: &Kind, query: &Query) -> Result<Selector, Box<Status>> {
    let labels = selector::parse_labels(query.get("labelSelector").unwrap_or_default())
        .map_err(|e| Box::new(status::bad_request(e)))?;
    let fields = selector::parse_fields(query.get("fieldSelector").unwrap_or_default())
        .map_err(|e| Box::new(status::bad_request(e)))?;
    if let Some(bad) = fields.iter().find(|f| !is_selectable(kind, &f.field)) {
        return Err(boxed(status::bad_request(format!(
            "field label not supported: {}",
            bad.field
        ))));
    }
    Ok(Selector { labels, fields })
}

/// The body as JSON (or YAML, which kubectl never sends but curl users may).
fn json_body(incoming: &Incoming) -> Result<Value, Box<Status>> {
    let media = incoming
        .content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim();
    if media == protobuf::MEDIA_TYPE {
        // kubectl >= 1.32's typed clients: the same object, in protobuf.
        return protobuf::decode(&incoming.body).map_err(|e| boxed(status::bad_request(e)));
    }
    let text = std::str::from_utf8(&incoming.body)
        .map_err(|e| boxed(status::bad_request(format!("the body is not UTF-8: {e}"))))?;
    if media.ends_with("yaml") {
        return serde_saphyr::from_str::<Value>(text).map_err(|e| {
            boxed(status::bad_request(format!(
                "error converting YAML to JSON: {e}"
            )))
        });
    }
    serde_json::from_str(text).map_err(|e| {
        boxed(status::bad_request(format!(
            "couldn't get version/kind; json parse error: {e}"
        )))
    })
}

/// The object in a create or update body, and the fields its kind does not have.
fn object_body(
    incoming: &Incoming,
    kind: &'static Kind,
) -> Result<(Object, Vec<String>), Box<Status>> {
    let media = incoming
        .content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim();
    if !matches!(
        media,
        "" | "application/json" | "application/yaml" | "*/*" | protobuf::MEDIA_TYPE
    ) {
        return Err(boxed(status::unsupported_media_type(media)));
    }
    let value = json_body(incoming)?;
    let api_version = value
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !api_version.is_empty() && api_version != kind.api_version() {
        return Err(boxed(status::bad_request(format!(
            "the API version in the data ({api_version}) does not match the expected API version ({})",
            kind.api_version()
        ))));
    }
    let sent_kind = value
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !sent_kind.is_empty() && sent_kind != kind.kind {
        return Err(boxed(status::bad_request(format!(
            "the kind in the data ({sent_kind}) does not match the expected kind ({})",
            kind.kind
        ))));
    }
    let object = Object::from_json(kind, value.clone()).map_err(|e| {
        boxed(status::bad_request(format!(
            "{} in version \"{}\" cannot be handled as a {}: {e}",
            kind.kind, kind.version, kind.kind
        )))
    })?;
    let unknown = podflow_scenario::unknown_fields(&value, &object.to_json());
    Ok((object, unknown))
}

/// What `fieldValidation` says to do with unknown fields: `Strict` hands
/// them to the API server's decoder (which refuses them), `Warn` (the
/// default) sends each back as a warning, `Ignore` drops them.
fn field_validation(
    query: &Query,
    request: &mut Request,
    unknown: Vec<String>,
) -> Result<Vec<String>, Box<Status>> {
    match query.get("fieldValidation").unwrap_or("Warn") {
        "Strict" => {
            request.unknown_fields = unknown;
            Ok(Vec::new())
        }
        "Warn" => Ok(unknown
            .into_iter()
            .map(|f| format!("unknown field \"{f}\""))
            .collect()),
        "Ignore" => Ok(Vec::new()),
        other => Err(boxed(status::bad_request(format!(
            "fieldValidation must be one of Ignore, Warn or Strict, not {other:?}"
        )))),
    }
}

/// A PATCH body, by its media type.
fn patch_body(incoming: &Incoming) -> Result<Body, Box<Status>> {
    let media = incoming
        .content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim();
    let patch = || json_body(incoming);
    match media {
        "application/strategic-merge-patch+json" => Ok(Body::Patch(patch()?)),
        "application/merge-patch+json" => Ok(Body::MergePatch(patch()?)),
        "application/json-patch+json" => Ok(Body::JsonPatch(patch()?)),
        // Server-side apply is not built: answered as by a server without it.
        _ => Err(boxed(status::unsupported_media_type(media))),
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

fn boxed(status: Status) -> Box<Status> {
    Box::new(status)
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
    let mut body = serde_json::to_value(status).unwrap_or_default();
    body["kind"] = json!("Status");
    body["apiVersion"] = json!("v1");
    body["metadata"] = json!({});
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
