//! The API server's answer to one request: its code, the object or items,
//! the `Status` of a refusal, and what a subresource returns (`scale`,
//! `pods/log`, `pods/exec`).

use std::sync::Arc;

use k8s_openapi::api::autoscaling::v1::Scale;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Status;

use podflow_model::Object;

/// The API server's answer.
#[derive(Debug, Clone)]
pub struct Response {
    /// The HTTP status code.
    pub code: u16,
    /// The object returned (create, get, update, delete).
    pub object: Option<Arc<Object>>,
    /// The objects of a list.
    pub items: Vec<Arc<Object>>,
    /// A `Status`, for failures (and the binding subresource's success).
    pub status: Option<Status>,
    /// The `scale` subresource's answer: the parent seen as a `Scale`.
    pub scale: Option<Box<Scale>>,
    /// For a list (or the start of a watch): the store's revision it shows,
    /// the list's `metadata.resourceVersion`.
    pub revision: u64,
    /// For `pods/log`: the container's output, read from its kubelet.
    pub log: Option<Box<crate::kubelet::ContainerLog>>,
    /// For `pods/exec`: what the command printed and its exit status, or
    /// the kubelet's refusal to upgrade the connection.
    pub exec: Option<Box<Result<crate::kubelet::process::ExecResult, String>>>,
}

impl Response {
    /// A success with `object`.
    pub(super) fn ok(code: u16, object: Arc<Object>) -> Response {
        Response {
            code,
            object: Some(object),
            items: Vec::new(),
            status: None,
            scale: None,
            revision: 0,
            log: None,
            exec: None,
        }
    }

    /// A refusal with `status`.
    pub fn failed(status: Status) -> Response {
        Response {
            code: status
                .code
                .and_then(|c| u16::try_from(c).ok())
                .unwrap_or(500),
            object: None,
            items: Vec::new(),
            status: Some(status),
            scale: None,
            revision: 0,
            log: None,
            exec: None,
        }
    }

    /// The `message` of the trace's `response` record: the `Status` message, or
    /// the HTTP reason phrase for a success (`Created`, `OK`).
    pub fn message(&self) -> String {
        if let Some(message) = self.status.as_ref().and_then(|s| s.message.clone()) {
            return message;
        }
        match self.code {
            101 => "Switching Protocols",
            200 => "OK",
            201 => "Created",
            _ => "",
        }
        .to_owned()
    }
}
