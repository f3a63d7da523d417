//! `kubectl auth can-i` and `kubectl auth whoami`: a review sent to the
//! API server, answered and never stored, and what kubectl prints of it
//! (`pkg/cmd/auth/cani.go`, `RunAccessCheck`: `yes`, or `no` with the
//! reason; `whoami.go`: the ATTRIBUTE/VALUE table).

use serde_json::{Value, json};

use super::{AccessTarget, Body, Cx, InFlight, Kubectl, Object, Response, Verb, error_lines};
use podflow_model::kinds::kind_of;

impl Kubectl {
    /// POSTs the `SelfSubjectAccessReview` for `verb` on `target`.
    pub(super) fn start_can_i(
        &mut self,
        verb: &str,
        target: &AccessTarget,
        name: Option<&str>,
        namespace: Option<&str>,
        cx: &mut Cx<'_>,
    ) {
        let spec = match target {
            AccessTarget::Path(path) => {
                json!({"nonResourceAttributes": {"path": path, "verb": verb}})
            }
            AccessTarget::Resource { kind, subresource } => {
                let mut attributes = json!({
                    "verb": verb,
                    "group": kind.group,
                    "resource": kind.resource,
                    "namespace": if kind.namespaced { namespace.unwrap_or("default") } else { "" },
                });
                if let Some(subresource) = subresource {
                    attributes["subresource"] = json!(subresource);
                }
                if let Some(name) = name {
                    attributes["name"] = json!(name);
                }
                json!({"resourceAttributes": attributes})
            }
        };
        let review = json!({
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SelfSubjectAccessReview",
            "spec": spec,
        });
        self.post_review("SelfSubjectAccessReview", review, InFlight::CanI, cx);
    }

    /// POSTs a `SelfSubjectReview`.
    pub(super) fn start_whoami(&mut self, cx: &mut Cx<'_>) {
        let review = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"});
        self.post_review("SelfSubjectReview", review, InFlight::Whoami, cx);
    }

    fn post_review(&mut self, kind: &str, review: Value, meaning: InFlight, cx: &mut Cx<'_>) {
        let kind = kind_of(kind);
        match Object::from_json(kind, review) {
            Ok(object) => {
                let req = self
                    .request(Verb::Create, kind, None, "")
                    .body(Body::Object(Box::new(object)));
                self.send(req, meaning, cx);
            }
            Err(e) => Self::print(cx, format!("error: {e}")),
        }
    }

    /// `yes`, or `no` and the reason when there is one.
    pub(super) fn print_can_i(response: &Response, cx: &mut Cx<'_>) {
        let Some(Object::SelfSubjectAccessReview(review)) =
            response.object.as_deref().filter(|_| response.code < 300)
        else {
            return Self::print_all(cx, error_lines(response, ""));
        };
        let status = review.status.clone().unwrap_or_default();
        let line = if status.allowed {
            "yes".to_owned()
        } else {
            let mut line = "no".to_owned();
            for extra in [status.reason, status.evaluation_error]
                .into_iter()
                .flatten()
            {
                if !extra.is_empty() {
                    line.push_str(" - ");
                    line.push_str(&extra);
                }
            }
            line
        };
        Self::print(cx, line);
    }

    /// The ATTRIBUTE/VALUE table of the user the request authenticated as.
    pub(super) fn print_whoami(response: &Response, cx: &mut Cx<'_>) {
        let Some(Object::SelfSubjectReview(review)) =
            response.object.as_deref().filter(|_| response.code < 300)
        else {
            return Self::print_all(cx, error_lines(response, ""));
        };
        let user = review
            .status
            .clone()
            .and_then(|s| s.user_info)
            .unwrap_or_default();
        let mut rows = vec![("ATTRIBUTE".to_owned(), "VALUE".to_owned())];
        rows.push(("Username".into(), user.username.unwrap_or_default()));
        if let Some(groups) = user.groups.filter(|g| !g.is_empty()) {
            rows.push(("Groups".into(), format!("[{}]", groups.join(" "))));
        }
        let width = rows.iter().map(|(a, _)| a.len()).max().unwrap_or(0) + 3;
        Self::print_all(
            cx,
            rows.into_iter()
                .map(|(a, v)| format!("{a:<width$}{v}"))
                .collect(),
        );
    }
}
