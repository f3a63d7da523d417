//! The goal check `request VERB RESOURCE`: a client (podflow's kubectl, or
//! the real kubectl through `podflow serve`) sent the API server such a
//! request since the goal started. The verb is the API server's
//! (`RequestInfo.Verb` in `k8s.io/apiserver/pkg/endpoints/request/requestinfo.go`):
//! a GET is `get` for one object, `list` for a collection, `watch` with
//! `?watch=true`; POST is `create`, PUT `update`, PATCH `patch`, DELETE
//! `delete`. `request watch pods` is met when `kubectl get pods -w` arrives.

use std::fmt;

use podflow_engine::trace::{Actor, Record, TraceRecord};

/// The verbs a request check names.
pub const VERBS: [&str; 7] = [
    "get", "list", "watch", "create", "update", "patch", "delete",
];

/// `request VERB RESOURCE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestCheck {
    pub verb: String,
    /// The resource's plural, as in the API path (`pods`, `deployments`).
    pub resource: String,
}

/// Reads `request VERB RESOURCE`; `None` for any other text.
pub fn parse(words: &[&str]) -> Option<RequestCheck> {
    match words {
        ["request", verb, resource]
            if VERBS.contains(verb)
                && resource.ends_with('s')
                && resource.chars().all(|c| c.is_ascii_lowercase()) =>
        {
            Some(RequestCheck {
                verb: (*verb).to_owned(),
                resource: (*resource).to_owned(),
            })
        }
        _ => None,
    }
}

/// The API verb and resource of a request line (`GET /api/v1/namespaces/default/pods?watch=true`).
pub fn verb_and_resource(label: &str) -> Option<(&'static str, String)> {
    let (method, target) = label.split_once(' ')?;
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let rest = match segments.as_slice() {
        ["api", _version, rest @ ..] => rest,
        ["apis", _group, _version, rest @ ..] => rest,
        _ => return None,
    };
    let rest = match rest {
        ["namespaces", _ns, inner @ ..] if !inner.is_empty() => inner,
        other => other,
    };
    let (resource, named) = match rest {
        [resource] => (*resource, false),
        [resource, _name, ..] => (*resource, true),
        [] => return None,
    };
    let watch = query
        .split('&')
        .any(|p| p == "watch=true" || p == "watch=1");
    let verb = match (method, named, watch) {
        ("GET", _, true) => "watch",
        ("GET", true, false) => "get",
        ("GET", false, false) => "list",
        ("POST", ..) => "create",
        ("PUT", ..) => "update",
        ("PATCH", ..) => "patch",
        ("DELETE", ..) => "delete",
        _ => return None,
    };
    Some((verb, resource.to_owned()))
}

impl RequestCheck {
    /// Whether a client sent such a request among `records`.
    pub fn arrived(&self, records: &[TraceRecord]) -> bool {
        records.iter().any(|r| match &r.body {
            Record::Message {
                from: Actor::Kubectl | Actor::Client(_),
                to: Actor::ApiServer,
                label,
                request: Some(_),
            } => verb_and_resource(label)
                .is_some_and(|(verb, resource)| verb == self.verb && resource == self.resource),
            _ => false,
        })
    }
}

impl fmt::Display for RequestCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "request {} {}", self.verb, self.resource)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// After `requestinfo_test.go`, `TestGetAPIRequestInfo`: method, path and
    /// query to the API verb and resource.
    #[test]
    fn request_lines_read_as_requestinfo_does() {
        let cases = [
            (
                "GET /api/v1/namespaces/default/pods",
                Some(("list", "pods")),
            ),
            (
                "GET /api/v1/namespaces/default/pods?watch=true&resourceVersion=5",
                Some(("watch", "pods")),
            ),
            ("GET /api/v1/pods?watch=1", Some(("watch", "pods"))),
            (
                "GET /api/v1/namespaces/default/pods/web",
                Some(("get", "pods")),
            ),
            (
                "GET /api/v1/namespaces/default/pods/web/log",
                Some(("get", "pods")),
            ),
            (
                "POST /apis/apps/v1/namespaces/default/deployments",
                Some(("create", "deployments")),
            ),
            ("PUT /api/v1/nodes/node-1", Some(("update", "nodes"))),
            (
                "PATCH /apis/apps/v1/namespaces/shop/deployments/web/scale",
                Some(("patch", "deployments")),
            ),
            (
                "DELETE /api/v1/namespaces/default/pods/web",
                Some(("delete", "pods")),
            ),
            ("GET /api/v1/namespaces/dev", Some(("get", "namespaces"))),
            ("GET /api/v1/namespaces", Some(("list", "namespaces"))),
            ("GET /version", None),
        ];
        for (label, want) in cases {
            let got = verb_and_resource(label);
            assert_eq!(got.as_ref().map(|(v, r)| (*v, r.as_str())), want, "{label}");
        }
    }

    #[test]
    fn parses_request_checks() {
        assert_eq!(
            parse(&["request", "watch", "pods"]).map(|c| c.to_string()),
            Some("request watch pods".to_owned())
        );
        assert!(parse(&["request", "stream", "pods"]).is_none());
        assert!(parse(&["request", "watch", "Pods"]).is_none());
    }
}
