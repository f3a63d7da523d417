//! Where an HTTP request goes: a discovery or `OpenAPI` document, or a
//! resource (`/api/v1/namespaces/default/pods/nginx/log`), read as the API
//! server's request-info resolver reads a path
//! (`staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go`).

use podflow_model::Kind;
use podflow_model::kinds::KINDS;

/// A resource path, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourcePath {
    pub kind: &'static Kind,
    pub namespace: Option<String>,
    pub name: Option<String>,
    pub subresource: Option<String>,
}

/// What a path names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    Version,
    Health,
    /// `/api`.
    CoreGroup,
    /// `/apis`.
    Groups,
    /// `/apis/GROUP`: the group and its versions.
    Group(String),
    /// `/api/v1` or `/apis/GROUP/VERSION`: its resource list.
    GroupVersion {
        group: String,
        version: String,
    },
    /// `/openapi/v3` (`None`) or one of its documents (`api/v1`, `apis/apps/v1`).
    OpenApiV3(Option<String>),
    Resource(ResourcePath),
    /// A group, version or resource podflow does not serve.
    NotFound,
}

/// Resolves `path` (without its query).
pub fn route(path: &str) -> Route {
    let segments: Vec<&str> = path
        .trim_matches('/')
        .split('/')
        .filter(|s| !s.is_empty())
        .collect();
    match segments.as_slice() {
        ["version"] => Route::Version,
        ["healthz" | "livez" | "readyz", ..] => Route::Health,
        ["api"] => Route::CoreGroup,
        ["apis"] => Route::Groups,
        ["openapi", "v3"] => Route::OpenApiV3(None),
        ["openapi", "v3", rest @ ..] => Route::OpenApiV3(Some(rest.join("/"))),
        ["api", "v1"] => group_version("", "v1"),
        ["api", "v1", rest @ ..] => resource("", "v1", rest),
        ["apis", group] => match group_version(group, "v1") {
            Route::GroupVersion { group, .. } => Route::Group(group),
            other => other,
        },
        ["apis", group, version] => group_version(group, version),
        ["apis", group, version, rest @ ..] => resource(group, version, rest),
        _ => Route::NotFound,
    }
}

/// The kinds served in `group`/`version`.
pub fn kinds_in(group: &str, version: &str) -> impl Iterator<Item = &'static Kind> {
    let (group, version) = (group.to_owned(), version.to_owned());
    KINDS
        .iter()
        .filter(move |k| k.group == group && k.version == version)
}

fn group_version(group: &str, version: &str) -> Route {
    if crate::discovery::GROUP_VERSIONS.contains(&(group, version)) {
        Route::GroupVersion {
            group: group.to_owned(),
            version: version.to_owned(),
        }
    } else {
        Route::NotFound
    }
}

fn resource(group: &str, version: &str, rest: &[&str]) -> Route {
    let find = |resource: &str| kinds_in(group, version).find(|k| k.resource == resource);
    let namespaced = match rest {
        ["namespaces", namespace, resource, tail @ ..] if find(resource).is_some() => {
            Some((Some((*namespace).to_owned()), *resource, tail))
        }
        [resource, tail @ ..] => Some((None, *resource, tail)),
        [] => None,
    };
    let Some((namespace, resource, tail)) = namespaced else {
        return Route::NotFound;
    };
    let Some(kind) = find(resource) else {
        return Route::NotFound;
    };
    if namespace.is_some() && !kind.namespaced {
        return Route::NotFound;
    }
    let (name, subresource) = match tail {
        [] => (None, None),
        [name] => (Some((*name).to_owned()), None),
        [name, sub] => (Some((*name).to_owned()), Some((*sub).to_owned())),
        _ => return Route::NotFound,
    };
    Route::Resource(ResourcePath {
        kind,
        namespace,
        name,
        subresource,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(path: &str) -> (String, Option<String>, Option<String>, Option<String>) {
        match route(path) {
            Route::Resource(r) => (
                r.kind.resource.to_owned(),
                r.namespace,
                r.name,
                r.subresource,
            ),
            other => panic!("{path}: {other:?}"),
        }
    }

    #[allow(clippy::unnecessary_wraps)] // Each expected field is an Option.
    fn some(s: &str) -> Option<String> {
        Some(s.to_owned())
    }

    #[test]
    fn paths_resolve_as_the_request_info_resolver_reads_them() {
        assert_eq!(res("/api/v1/pods"), ("pods".into(), None, None, None));
        assert_eq!(
            res("/api/v1/namespaces/default/pods"),
            ("pods".into(), some("default"), None, None)
        );
        assert_eq!(
            res("/api/v1/namespaces/default/pods/nginx/log"),
            ("pods".into(), some("default"), some("nginx"), some("log"))
        );
        // A namespace itself, and its status.
        assert_eq!(
            res("/api/v1/namespaces/default"),
            ("namespaces".into(), None, some("default"), None)
        );
        assert_eq!(
            res("/api/v1/namespaces"),
            ("namespaces".into(), None, None, None)
        );
        assert_eq!(
            res("/apis/apps/v1/namespaces/default/deployments/web/scale"),
            (
                "deployments".into(),
                some("default"),
                some("web"),
                some("scale")
            )
        );
        assert_eq!(
            res("/api/v1/nodes/node-1"),
            ("nodes".into(), None, some("node-1"), None)
        );
        assert_eq!(route("/api/v1/namespaces/default/nodes"), Route::NotFound);
        assert_eq!(route("/apis/apps/v2/deployments"), Route::NotFound);
        assert_eq!(route("/api/v1/widgets"), Route::NotFound);
        assert_eq!(route("/apis/nope.io/v1"), Route::NotFound);
        assert_eq!(
            route("/apis/apps/v1"),
            Route::GroupVersion {
                group: "apps".into(),
                version: "v1".into()
            }
        );
        assert_eq!(
            route("/openapi/v3/api/v1"),
            Route::OpenApiV3(some("api/v1"))
        );
        assert_eq!(
            res("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"),
            ("selfsubjectaccessreviews".into(), None, None, None)
        );
    }
}
