//! Image references, normalised as containerd's reference parser
//! (`github.com/distribution/reference`, `ParseNormalizedNamed`) does:
//! `nginx:1.27` → `docker.io/library/nginx:1.27`.

/// A reference as containerd (and `docker/distribution`'s `ParseNormalizedNamed`
/// with `TagNameOnly`) normalises it: Docker Hub's domain `docker.io`, its
/// official images under `library/`, `:latest` when neither tag nor digest is
/// given. `nginx:1.27` → `docker.io/library/nginx:1.27`; `registry.k8s.io/pause:3.10`
/// stays as it is.
pub fn normalize(reference: &str) -> String {
    let reference = reference.trim();
    let (name, digest) = match reference.split_once('@') {
        Some((name, digest)) => (name, Some(digest)),
        None => (reference, None),
    };
    let last_slash = name.rfind('/').map_or(0, |i| i + 1);
    let (repository, tag) = match name[last_slash..].rfind(':') {
        Some(colon) => (
            &name[..last_slash + colon],
            Some(&name[last_slash + colon + 1..]),
        ),
        None => (name, None),
    };
    let (domain, path) = match repository.split_once('/') {
        Some((first, rest)) if first.contains(['.', ':']) || first == "localhost" => (first, rest),
        _ => ("docker.io", repository),
    };
    let domain = if domain == "index.docker.io" {
        "docker.io"
    } else {
        domain
    };
    let library = if domain == "docker.io" && !path.contains('/') {
        "library/"
    } else {
        ""
    };
    let mut out = [domain, "/", library, path].concat();
    match (tag, digest) {
        (Some(tag), _) => {
            out.push(':');
            out.push_str(tag);
        }
        (None, None) => out.push_str(":latest"),
        (None, Some(_)) => {}
    }
    if let Some(digest) = digest {
        out.push('@');
        out.push_str(digest);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cases after `docker/distribution`'s `reference/normalize_test.go`
    /// (`TestParseNormalizedNamed`) and containerd's image-name handling.
    #[test]
    fn normalises_as_containerd_does() {
        let cases = [
            ("nginx", "docker.io/library/nginx:latest"),
            ("nginx:1.27", "docker.io/library/nginx:1.27"),
            ("library/nginx:1.27", "docker.io/library/nginx:1.27"),
            ("docker.io/nginx", "docker.io/library/nginx:latest"),
            (
                "index.docker.io/library/nginx:1.27",
                "docker.io/library/nginx:1.27",
            ),
            ("user/app", "docker.io/user/app:latest"),
            ("polinux/stress", "docker.io/polinux/stress:latest"),
            ("registry.k8s.io/pause:3.10", "registry.k8s.io/pause:3.10"),
            (
                "registry.k8s.io/e2e-test-images/agnhost:2.40",
                "registry.k8s.io/e2e-test-images/agnhost:2.40",
            ),
            ("localhost/app", "localhost/app:latest"),
            ("localhost:5000/app:v1", "localhost:5000/app:v1"),
            (
                "myregistry.io:5000/team/app",
                "myregistry.io:5000/team/app:latest",
            ),
            (
                "nginx@sha256:0000000000000000000000000000000000000000000000000000000000000000",
                "docker.io/library/nginx@sha256:0000000000000000000000000000000000000000000000000000000000000000",
            ),
            (
                "nginx:1.27@sha256:0000000000000000000000000000000000000000000000000000000000000000",
                "docker.io/library/nginx:1.27@sha256:0000000000000000000000000000000000000000000000000000000000000000",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(normalize(input), want, "{input}");
        }
    }
}
