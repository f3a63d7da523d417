//! containerd's words for a pull that failed, as the kubelet passes them on
//! from the CRI (a gRPC status: `rpc error: code = … desc = …`) into the
//! `Failed` event and the `ErrImagePull` waiting message. The resolver's
//! errors are containerd's `remotes/docker` ones: a registry's `404` on the
//! manifest is `not found`, its `401`/`403` for a repository it does not
//! have is `pull access denied …`, and a host that does not resolve or
//! refuses the connection fails in Go's dialer.

use super::images::{Lookup, Reference};
use super::pull_policy::not_found_error;

/// The resolver that answers a node's name lookups (systemd-resolved's stub).
const NODE_RESOLVER: &str = "127.0.0.53:53";

/// The error of a pull of `normalized` that found `lookup`; `None` when it was found.
pub fn pull_error(lookup: &Lookup, normalized: &str) -> Option<String> {
    let unpack = |cause: String| {
        format!(
            "rpc error: code = Unknown desc = failed to pull and unpack image \"{normalized}\": failed to resolve reference \"{normalized}\": {cause}"
        )
    };
    let request = || {
        let r = Reference::parse(normalized);
        let tag = r.tag.unwrap_or("latest");
        format!(
            "failed to do request: Head \"https://{}/v2/{}/manifests/{tag}\"",
            r.host, r.path
        )
    };
    match lookup {
        Lookup::Found { .. } => None,
        Lookup::NoSuchTag => Some(not_found_error(normalized)),
        Lookup::NoSuchRepository => Some(unpack(
            "pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed".to_owned(),
        )),
        Lookup::NoSuchHost { host } => {
            let name = host.split(':').next().unwrap_or(host);
            Some(unpack(format!(
                "{}: dial tcp: lookup {name} on {NODE_RESOLVER}: no such host",
                request()
            )))
        }
        Lookup::ConnectionRefused { host } => {
            let (name, port) = host.split_once(':').unwrap_or((host, "443"));
            let ip = if name == "localhost" { "127.0.0.1" } else { name };
            Some(unpack(format!(
                "{}: dial tcp {ip}:{port}: connect: connection refused",
                request()
            )))
        }
    }
}

/// A few words for the pipeline and the sequence diagram.
pub fn short_reason(lookup: &Lookup) -> &'static str {
    match lookup {
        Lookup::Found { .. } => "pulled",
        Lookup::NoSuchTag => "not found",
        Lookup::NoSuchRepository => "pull access denied",
        Lookup::NoSuchHost { .. } => "no such host",
        Lookup::ConnectionRefused { .. } => "connection refused",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_failure_in_containerds_words() {
        let cases = [
            (
                Lookup::NoSuchRepository,
                "docker.io/library/ngnix:1.27",
                "rpc error: code = Unknown desc = failed to pull and unpack image \"docker.io/library/ngnix:1.27\": failed to resolve reference \"docker.io/library/ngnix:1.27\": pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed",
            ),
            (
                Lookup::NoSuchTag,
                "docker.io/library/nginx:doesnotexist",
                "rpc error: code = NotFound desc = failed to pull and unpack image \"docker.io/library/nginx:doesnotexist\": failed to resolve reference \"docker.io/library/nginx:doesnotexist\": docker.io/library/nginx:doesnotexist: not found",
            ),
            (
                Lookup::NoSuchHost {
                    host: "registry.invalid".into(),
                },
                "registry.invalid/foo:1",
                "rpc error: code = Unknown desc = failed to pull and unpack image \"registry.invalid/foo:1\": failed to resolve reference \"registry.invalid/foo:1\": failed to do request: Head \"https://registry.invalid/v2/foo/manifests/1\": dial tcp: lookup registry.invalid on 127.0.0.53:53: no such host",
            ),
            (
                Lookup::ConnectionRefused {
                    host: "localhost:5000".into(),
                },
                "localhost:5000/app:1",
                "rpc error: code = Unknown desc = failed to pull and unpack image \"localhost:5000/app:1\": failed to resolve reference \"localhost:5000/app:1\": failed to do request: Head \"https://localhost:5000/v2/app/manifests/1\": dial tcp 127.0.0.1:5000: connect: connection refused",
            ),
        ];
        for (lookup, image, expected) in cases {
            assert_eq!(pull_error(&lookup, image).as_deref(), Some(expected));
        }
        assert_eq!(pull_error(&Lookup::Found { size: 1 }, "x"), None);
    }
}
