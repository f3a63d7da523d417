//! Deprecated kinds and the warning the API server adds to every request on
//! them (`staging/src/k8s.io/apiserver/pkg/endpoints/deprecation/deprecation.go`,
//! `WarningMessage`): `v1 Endpoints is deprecated in v1.33+; use
//! discovery.k8s.io/v1 EndpointSlice`. Clients print it as `Warning: …`
//! (client-go's warning handler; kubectl prints each once).

use podflow_model::Kind;

/// A deprecated kind: since which release, and its replacement
/// (`prerelease-lifecycle-gen` tags on the type; `api/core/v1/types.go`).
struct Deprecated {
    kind: &'static str,
    group_version: &'static str,
    since: (u32, u32),
    replacement: Option<(&'static str, &'static str)>,
}

const DEPRECATED: &[Deprecated] = &[Deprecated {
    kind: "Endpoints",
    group_version: "v1",
    since: (1, 33),
    replacement: Some(("discovery.k8s.io/v1", "EndpointSlice")),
}];

/// The warning for a request on `kind`, if it is deprecated.
pub fn warning(kind: &Kind) -> Option<String> {
    let d = DEPRECATED
        .iter()
        .find(|d| d.kind == kind.kind && d.group_version == kind.api_version())?;
    let (major, minor) = d.since;
    let deprecated = format!(
        "{} {} is deprecated in v{major}.{minor}+",
        d.group_version, d.kind
    );
    Some(match d.replacement {
        Some((group_version, kind)) => format!("{deprecated}; use {group_version} {kind}"),
        None => deprecated,
    })
}

#[cfg(test)]
mod tests {
    use podflow_model::kinds::kind_of;

    use super::*;

    /// The message of `TestWarningMessage` (`deprecation_test.go`) for v1 Endpoints.
    #[test]
    fn endpoints_are_deprecated_and_pods_are_not() {
        assert_eq!(
            warning(kind_of("Endpoints")).as_deref(),
            Some("v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice")
        );
        assert_eq!(warning(kind_of("Pod")), None);
        assert_eq!(warning(kind_of("EndpointSlice")), None);
    }
}
