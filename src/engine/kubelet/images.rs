//! Images as containerd sees them: names normalised as containerd's reference
//! parser does (`nginx:1.27` → `docker.io/library/nginx:1.27`), the registry
//! the nodes pull from, and how long a pull takes.

use std::collections::{BTreeMap, BTreeSet};

/// The image registry: which images exist, how big they are, which pulls fail.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    /// Normalised names whose pull fails with "not found".
    pub missing: BTreeSet<String>,
    /// Normalised name → size in bytes.
    pub sizes: BTreeMap<String, u64>,
}

/// The size the registry gives an image it has no size for.
pub const DEFAULT_IMAGE_SIZE: u64 = 50_000_000;
/// Simulated download speed: 40 MB/s.
const BYTES_PER_MS: u64 = 40_000;
/// Resolving and fetching the manifest before the layers.
const PULL_OVERHEAD_MS: u64 = 300;

impl Registry {
    /// The size of `image` (normalised or not).
    pub fn size_of(&self, image: &str) -> u64 {
        self.sizes
            .get(&normalize(image))
            .copied()
            .unwrap_or(DEFAULT_IMAGE_SIZE)
    }

    /// Whether pulling `image` fails.
    pub fn is_missing(&self, image: &str) -> bool {
        self.missing.contains(&normalize(image))
    }

    /// How long pulling `image` takes, in milliseconds.
    pub fn pull_ms(&self, image: &str) -> u64 {
        PULL_OVERHEAD_MS + self.size_of(image) / BYTES_PER_MS
    }
}

/// Normalises an image reference as containerd (and the docker reference
/// library) does: a default registry `docker.io`, `library/` for official
/// images, and the tag `latest` when neither tag nor digest is given.
pub fn normalize(reference: &str) -> String {
    let (name, digest) = match reference.split_once('@') {
        Some((n, d)) => (n, Some(d)),
        None => (reference, None),
    };
    let first = name.split('/').next().unwrap_or_default();
    let has_registry =
        name.contains('/') && (first.contains('.') || first.contains(':') || first == "localhost");
    let mut full = if has_registry {
        name.to_owned()
    } else if name.contains('/') {
        format!("docker.io/{name}")
    } else {
        format!("docker.io/library/{name}")
    };
    let last = full.rsplit('/').next().unwrap_or_default();
    if digest.is_none() && !last.contains(':') {
        full.push_str(":latest");
    }
    if let Some(d) = digest {
        full.push('@');
        full.push_str(d);
    }
    full
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_as_containerd() {
        // github.com/distribution/reference normalize_test.go, TestParseNormalizedNamed (a few cases).
        assert_eq!(normalize("nginx:1.27"), "docker.io/library/nginx:1.27");
        assert_eq!(normalize("nginx"), "docker.io/library/nginx:latest");
        assert_eq!(normalize("user/app"), "docker.io/user/app:latest");
        assert_eq!(
            normalize("registry.k8s.io/pause:3.10"),
            "registry.k8s.io/pause:3.10"
        );
        assert_eq!(normalize("localhost:5000/app"), "localhost:5000/app:latest");
        assert_eq!(
            normalize("nginx@sha256:ab"),
            "docker.io/library/nginx@sha256:ab"
        );
    }

    #[test]
    fn pull_time_grows_with_size() {
        let mut registry = Registry::default();
        registry.sizes.insert(normalize("nginx:1.27"), 72_000_000);
        assert_eq!(registry.pull_ms("nginx:1.27"), 300 + 1800);
        assert_eq!(registry.size_of("unknown:1"), DEFAULT_IMAGE_SIZE);
    }
}
