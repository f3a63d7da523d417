//! The API server's answers as Kubernetes words them: `metav1.Status` values
//! built like `k8s.io/apimachinery/pkg/api/errors/errors.go` builds them.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Status, StatusCause, StatusDetails};

use super::kinds::Kind;

/// One field error, as `k8s.io/apimachinery/pkg/util/validation/field` has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// `spec.containers[0].image`
    pub field: String,
    /// The cause type (`FieldValueRequired`, `FieldValueInvalid`, ...).
    pub cause: &'static str,
    /// The whole error body: `Required value`, `Invalid value: "X": a lowercase RFC 1123 ...`.
    pub body: String,
}

impl FieldError {
    /// `field: body`, as `field.Error.Error()` prints it.
    pub fn message(&self) -> String {
        format!("{}: {}", self.field, self.body)
    }
}

/// Makes a failure `Status`.
fn failure(code: u16, reason: &str, message: String, details: Option<StatusDetails>) -> Status {
    Status {
        status: Some("Failure".into()),
        code: Some(i32::from(code)),
        reason: Some(reason.into()),
        message: Some(message),
        details,
        ..Status::default()
    }
}

fn details(kind: &Kind, name: &str) -> StatusDetails {
    StatusDetails {
        group: (!kind.group.is_empty()).then(|| kind.group.to_owned()),
        kind: Some(kind.resource.to_owned()),
        name: (!name.is_empty()).then(|| name.to_owned()),
        ..StatusDetails::default()
    }
}

/// `GroupResource.String()`: `pods`, `deployments.apps`.
pub fn group_resource(kind: &Kind) -> String {
    if kind.group.is_empty() {
        kind.resource.to_owned()
    } else {
        format!("{}.{}", kind.resource, kind.group)
    }
}

/// `GroupKind.String()`: `Pod`, `Deployment.apps`.
pub fn group_kind(kind: &Kind) -> String {
    if kind.group.is_empty() {
        kind.kind.to_owned()
    } else {
        format!("{}.{}", kind.kind, kind.group)
    }
}

/// A success `Status`, as a delete answers.
pub fn success(kind: &Kind, name: &str) -> Status {
    Status {
        status: Some("Success".into()),
        details: Some(details(kind, name)),
        ..Status::default()
    }
}

/// 404: `pods "nginx" not found`.
pub fn not_found(kind: &Kind, name: &str) -> Status {
    let message = format!("{} \"{name}\" not found", group_resource(kind));
    failure(404, "NotFound", message, Some(details(kind, name)))
}

/// 409: `pods "nginx" already exists`.
pub fn already_exists(kind: &Kind, name: &str) -> Status {
    let message = format!("{} \"{name}\" already exists", group_resource(kind));
    failure(409, "AlreadyExists", message, Some(details(kind, name)))
}

/// 409: the optimistic-concurrency conflict of an update with a stale `resourceVersion`.
pub fn conflict(kind: &Kind, name: &str) -> Status {
    let message = format!(
        "Operation cannot be fulfilled on {} \"{name}\": the object has been modified; \
         please apply your changes to the latest version and try again",
        group_resource(kind)
    );
    failure(409, "Conflict", message, Some(details(kind, name)))
}

/// 403: `pods is forbidden: REASON`, or `pods "x" is forbidden: REASON` when named.
pub fn forbidden(kind: &Kind, name: &str, reason: &str) -> Status {
    let resource = group_resource(kind);
    let message = if name.is_empty() {
        format!("{resource} is forbidden: {reason}")
    } else {
        format!("{resource} \"{name}\" is forbidden: {reason}")
    };
    failure(403, "Forbidden", message, Some(details(kind, name)))
}

/// 403 for an impersonation the requester may not make
/// (`endpoints/filters/impersonation.go`): `users "jane" is forbidden: REASON`.
pub fn impersonation_forbidden(resource: &str, name: &str, reason: &str) -> Status {
    failure(
        403,
        "Forbidden",
        format!("{resource} \"{name}\" is forbidden: {reason}"),
        Some(StatusDetails {
            name: Some(name.to_owned()),
            kind: Some(resource.to_owned()),
            ..StatusDetails::default()
        }),
    )
}

/// 401: `Unauthorized`.
pub fn unauthorized() -> Status {
    failure(401, "Unauthorized", "Unauthorized".into(), None)
}

/// 404 for a path the server does not serve (a kind without the subresource asked for).
pub fn no_such_resource() -> Status {
    failure(
        404,
        "NotFound",
        "the server could not find the requested resource".into(),
        None,
    )
}

/// 500: the server could not do what it was asked (`errors.NewInternalError`).
pub fn internal_error(message: String) -> Status {
    failure(500, "InternalError", message, None)
}

/// 400: a bad request, such as a strict decoding error.
pub fn bad_request(message: String) -> Status {
    failure(400, "BadRequest", message, None)
}

/// 422 with the server's own words, as `errors.NewGenericServerResponse`
/// writes a JSON patch that cannot be applied (`handlers/patch.go`, `applyJSPatch`).
pub fn unprocessable(message: String) -> Status {
    failure(422, "Invalid", message, None)
}

/// 415: a body in a media type the endpoint does not take.
pub fn unsupported_media_type(content_type: &str) -> Status {
    failure(
        415,
        "UnsupportedMediaType",
        format!(
            "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf (got {content_type})"
        ),
        None,
    )
}

/// 410: a watch from before the last compaction.
pub fn gone(requested: u64, compacted: u64) -> Status {
    let message = format!("too old resource version: {requested} ({compacted})");
    failure(410, "Expired", message, None)
}

/// 422: `Pod "x" is invalid: spec.containers[0].image: Required value`.
///
/// Several errors are joined as `utilerrors.Aggregate` does: `[a, b]`.
pub fn invalid(kind: &Kind, name: &str, errors: &[FieldError]) -> Status {
    let joined = match errors {
        [one] => one.message(),
        many => format!(
            "[{}]",
            many.iter()
                .map(FieldError::message)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let message = format!("{} \"{name}\" is invalid: {joined}", group_kind(kind));
    let mut details = details(kind, name);
    details.kind = Some(kind.kind.to_owned());
    details.causes = Some(
        errors
            .iter()
            .map(|e| StatusCause {
                field: Some(e.field.clone()),
                message: Some(e.body.clone()),
                reason: Some(e.cause.to_owned()),
            })
            .collect(),
    );
    failure(422, "Invalid", message, Some(details))
}

/// What kubectl prints for a failed request (`staging/src/k8s.io/kubectl/pkg/cmd/util/helpers.go`,
/// `checkErr` and `StandardErrorMessage`): `Error from server (Forbidden): …`,
/// `The Pod "x" is invalid: …` for validation errors, and the login hint for
/// `401`. `context` is what `AddSourceToErr` puts before the message
/// (`error when creating "pod.yaml": `).
pub fn kubectl_error_line(status: &Status, context: &str) -> String {
    let reason = status.reason.as_deref().unwrap_or_default();
    let message = status.message.as_deref().unwrap_or_default();
    match reason {
        "Invalid" => {
            let details = status.details.as_ref();
            let kind = details.and_then(|d| d.kind.as_deref()).unwrap_or_default();
            let name = details.and_then(|d| d.name.as_deref()).unwrap_or_default();
            let causes = message
                .split_once(" is invalid: ")
                .map_or(message, |(_, c)| c);
            format!("The {kind} \"{name}\" is invalid: {causes}")
        }
        // kubectl learns this from discovery, before it sends the request itself.
        "Unauthorized" => format!("error: You must be logged in to the server ({message})"),
        "" => format!("Error from server: {context}{message}"),
        reason => format!("Error from server ({reason}): {context}{message}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::kind_of;

    #[test]
    fn messages_are_worded_as_apimachinery_words_them() {
        let pods = kind_of("Pod");
        assert_eq!(
            not_found(pods, "nginx").message.unwrap(),
            r#"pods "nginx" not found"#
        );
        assert_eq!(
            already_exists(kind_of("Deployment"), "web")
                .message
                .unwrap(),
            r#"deployments.apps "web" already exists"#
        );
        let err = FieldError {
            field: "spec.containers[0].image".into(),
            cause: "FieldValueRequired",
            body: "Required value".into(),
        };
        let status = invalid(pods, "x", std::slice::from_ref(&err));
        assert_eq!(
            status.message.as_deref(),
            Some(r#"Pod "x" is invalid: spec.containers[0].image: Required value"#)
        );
        assert_eq!(
            kubectl_error_line(&status, r#"error when creating "x.yaml": "#),
            r#"The Pod "x" is invalid: spec.containers[0].image: Required value"#
        );
        assert_eq!(
            kubectl_error_line(&unauthorized(), ""),
            "error: You must be logged in to the server (Unauthorized)"
        );
        assert_eq!(
            kubectl_error_line(&not_found(pods, "x"), r#"error when deleting "": "#),
            r#"Error from server (NotFound): error when deleting "": pods "x" not found"#
        );
        let two = invalid(pods, "x", &[err.clone(), err]);
        assert!(two.message.unwrap().ends_with("invalid: [spec.containers[0].image: Required value, spec.containers[0].image: Required value]"));
        assert_eq!(
            gone(3, 9).message.as_deref(),
            Some("too old resource version: 3 (9)")
        );
    }
}
