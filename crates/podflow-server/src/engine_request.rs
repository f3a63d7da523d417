//! The engine request an HTTP request on a resource path is: the verb from
//! the method, the query's options (selectors, resourceVersion, delete and
//! log options), and the body decoded as the API server decodes it (JSON,
//! YAML or protobuf; strict, warned or ignored unknown fields; the patch
//! types), or the `Status` it is refused with
//! (`staging/src/k8s.io/apiserver/pkg/endpoints/handlers/`).

use bytes::Bytes;
use hyper::Method;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Status;
use serde_json::{Value, json};

use crate::api::status_failure;
use crate::protobuf;
use crate::query::Query;
use crate::route::ResourcePath;
use podflow_engine::apiserver::request::{Body, Credentials, Propagation, Request, Verb};
use podflow_engine::store::is_selectable;
use podflow_engine::store::selector::{self, Selector};
use podflow_engine::trace::Actor;
use podflow_model::{Kind, Object, status};

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
                previous: query.flag("previous"),
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
                 `kubectl logs` shows what they printed, and the cluster language's \
                 `exec POD -- CMD` (the `:` bar) runs a command in one"
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
        // A value of the wrong type, worded as Go's decoder words it.
        let detail = podflow_scenario::first_type_mismatch(kind, &value).map_or_else(
            || e.to_string(),
            |mismatch| {
                podflow_engine::apiserver::decode_error::unmarshal_type_error(kind, &mismatch)
            },
        );
        boxed(status::bad_request(format!(
            "{} in version \"{}\" cannot be handled as a {}: {detail}",
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

fn boxed(status: Status) -> Box<Status> {
    Box::new(status)
}

#[cfg(test)]
mod tests {
    use super::*;
    use podflow_engine::apiserver::request::UserInfo;
    use podflow_model::kinds::kind_of;

    /// What the real kubectl gets for `containerPort: "eighty"` (Go's `UnmarshalTypeError`).
    #[test]
    fn a_wrong_type_is_worded_as_gos_decoder() {
        let incoming = Incoming {
            method: Method::POST,
            query: Query::default(),
            body: Bytes::from(
                r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},"spec":{"containers":[{"name":"web","image":"nginx","ports":[{"containerPort":"eighty"}]}]}}"#,
            ),
            accept: String::new(),
            content_type: "application/json".into(),
            client: Actor::Client("kubectl".into()),
            credentials: Credentials::Certificate(UserInfo::new("kubernetes-admin", &[])),
        };
        let refused = object_body(&incoming, kind_of("Pod")).unwrap_err();
        assert_eq!(
            refused.message.as_deref(),
            Some(
                "Pod in version \"v1\" cannot be handled as a Pod: json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32"
            )
        );
    }
}
