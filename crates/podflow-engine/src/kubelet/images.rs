//! The image registry the nodes pull from: what a pull of a reference finds
//! (the image and its size, or why it fails), and how long it takes. By
//! default the public registries' catalog answers (`assets/registry.yaml`),
//! with a cluster file's `Simulation` adding private images and naming
//! missing ones; `registry.open` lets any reference pull, `registry.closed`
//! only the images named.

use std::collections::{BTreeMap, BTreeSet};
use std::net::Ipv4Addr;

pub use podflow_model::image::normalize;
use podflow_scenario::public_registries;

/// How the registry answers a reference no cluster file named.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RegistryMode {
    /// As the public registries would (the default).
    #[default]
    Public,
    /// Any reference pulls (`registry.open: true`).
    Open,
    /// Only the images named exist; any other is not found (`registry.closed: true`).
    Closed,
}

/// What a pull of one reference finds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// The image, this many bytes.
    Found { size: u64 },
    /// The repository exists, the tag (or the name in `registry.missing`) does not.
    NoSuchTag,
    /// The registry knows no such repository (or it needs credentials).
    NoSuchRepository,
    /// The registry's host name does not resolve.
    NoSuchHost { host: String },
    /// Nothing listens where the host points (`localhost:5000`).
    ConnectionRefused { host: String },
}

/// The image registry: which images exist, how big they are, which pulls fail.
#[derive(Debug, Clone, Default)]
pub struct ImageRegistry {
    /// Normalised names whose pull fails with "not found".
    pub missing: BTreeSet<String>,
    /// Normalised name → size in bytes: the behaviour catalog's images and
    /// the `Simulation`'s, which exist whatever the public catalog says.
    pub sizes: BTreeMap<String, u64>,
    pub mode: RegistryMode,
}

/// The size the registry gives an image it has no size for.
pub const DEFAULT_IMAGE_SIZE: u64 = 50_000_000;
/// Simulated download speed: 40 MB/s.
const BYTES_PER_MS: u64 = 40_000;
/// Resolving and fetching the manifest before the layers.
const PULL_OVERHEAD_MS: u64 = 300;
/// How long the registry takes to answer that a repository or tag does not exist.
const NOT_FOUND_MS: u64 = 800;
/// How long a failed name lookup or a refused connection takes.
const UNREACHABLE_MS: u64 = 20;

impl ImageRegistry {
    /// What a pull of `image` (normalised or not) finds.
    pub fn lookup(&self, image: &str) -> Lookup {
        let name = normalize(image);
        if self.missing.contains(&name) {
            return Lookup::NoSuchTag;
        }
        if let Some(size) = self.sizes.get(&name) {
            return Lookup::Found { size: *size };
        }
        match self.mode {
            RegistryMode::Open => Lookup::Found {
                size: DEFAULT_IMAGE_SIZE,
            },
            RegistryMode::Closed => Lookup::NoSuchTag,
            RegistryMode::Public => self.public_lookup(&name),
        }
    }

    fn public_lookup(&self, name: &str) -> Lookup {
        let reference = Reference::parse(name);
        let public = public_registries();
        let named_here = |prefix: &str| {
            self.sizes
                .range(prefix.to_owned()..)
                .next()
                .is_some_and(|(k, _)| k.starts_with(prefix))
        };
        let host = reference.host;
        if !public.hosts.contains(host) && !named_here(&format!("{host}/")) {
            return if is_local(host) {
                Lookup::ConnectionRefused { host: host.into() }
            } else {
                Lookup::NoSuchHost { host: host.into() }
            };
        }
        if let Some(repository) = public.repositories.get(reference.repository) {
            return match reference.tag {
                Some(tag) if !repository.tags.contains(tag) => Lookup::NoSuchTag,
                Some(tag) => Lookup::Found {
                    size: repository.size_of(tag),
                },
                // A digest: podflow cannot tell one from another; it pulls.
                None => Lookup::Found {
                    size: repository.size,
                },
            };
        }
        let prefix = format!("{}:", reference.repository);
        match (named_here(&prefix), reference.tag) {
            (true, None) => Lookup::Found {
                size: DEFAULT_IMAGE_SIZE,
            },
            (true, Some(_)) => Lookup::NoSuchTag,
            (false, _) => Lookup::NoSuchRepository,
        }
    }

    /// The size of `image` (normalised or not), when it exists.
    pub fn size_of(&self, image: &str) -> u64 {
        match self.lookup(image) {
            Lookup::Found { size } => size,
            _ => DEFAULT_IMAGE_SIZE,
        }
    }

    /// How long pulling `image` takes, in milliseconds, to its end or failure.
    pub fn pull_ms(&self, image: &str) -> u64 {
        match self.lookup(image) {
            Lookup::Found { size } => PULL_OVERHEAD_MS + size / BYTES_PER_MS,
            Lookup::NoSuchTag | Lookup::NoSuchRepository => NOT_FOUND_MS,
            Lookup::NoSuchHost { .. } | Lookup::ConnectionRefused { .. } => UNREACHABLE_MS,
        }
    }
}

/// A normalised reference's parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reference<'a> {
    /// `docker.io`.
    pub host: &'a str,
    /// `docker.io/library/nginx`.
    pub repository: &'a str,
    /// `docker.io/library/nginx` without its host: `library/nginx`.
    pub path: &'a str,
    /// `1.27`; `None` for a reference by digest.
    pub tag: Option<&'a str>,
}

impl<'a> Reference<'a> {
    /// Splits a normalised reference (`docker.io/library/nginx:1.27`).
    pub fn parse(name: &'a str) -> Reference<'a> {
        let (named, digest) = match name.split_once('@') {
            Some((named, _)) => (named, true),
            None => (name, false),
        };
        let last_slash = named.rfind('/').map_or(0, |i| i + 1);
        let (repository, tag) = match named[last_slash..].rfind(':') {
            Some(colon) => (
                &named[..last_slash + colon],
                Some(&named[last_slash + colon + 1..]),
            ),
            None => (named, None),
        };
        let (host, path) = repository.split_once('/').unwrap_or((repository, ""));
        Reference {
            host,
            repository,
            path,
            tag: if digest { None } else { tag },
        }
    }
}

/// Whether `host` points at an address rather than a name: `localhost`, a
/// loopback or other IPv4 literal, with or without a port.
fn is_local(host: &str) -> bool {
    let name = host.split(':').next().unwrap_or(host);
    name == "localhost" || name.parse::<Ipv4Addr>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn public() -> ImageRegistry {
        let mut registry = ImageRegistry::default();
        registry.sizes.insert(normalize("nginx:1.27"), 72_000_000);
        registry
            .sizes
            .insert(normalize("registry.example.com/team/app:v1"), 9_000_000);
        registry
    }

    #[test]
    fn pull_time_grows_with_size() {
        let registry = public();
        assert_eq!(registry.pull_ms("nginx:1.27"), 300 + 1800);
        assert_eq!(registry.pull_ms("ngnix:1.27"), NOT_FOUND_MS);
    }

    /// What containerd meets for each kind of reference a student writes.
    #[test]
    fn the_public_registries_answer_as_they_would() {
        let registry = public();
        let cases = [
            ("nginx:1.27", Lookup::Found { size: 72_000_000 }),
            (
                "nginx",
                Lookup::Found {
                    size: registry.size_of("nginx:latest"),
                },
            ),
            ("ngnix:1.27", Lookup::NoSuchRepository),
            ("nginx:doesnotexist", Lookup::NoSuchTag),
            ("nginx:1.27-alpne", Lookup::NoSuchTag),
            ("someone/nonexistent-app:1", Lookup::NoSuchRepository),
            (
                "registry.k8s.io/pause:3.10",
                Lookup::Found {
                    size: registry.size_of("registry.k8s.io/pause:3.10"),
                },
            ),
            ("registry.k8s.io/pause:9.9", Lookup::NoSuchTag),
            (
                "registry.invalid/foo:1",
                Lookup::NoSuchHost {
                    host: "registry.invalid".into(),
                },
            ),
            (
                "example.test/app:1",
                Lookup::NoSuchHost {
                    host: "example.test".into(),
                },
            ),
            (
                "localhost:5000/app:1",
                Lookup::ConnectionRefused {
                    host: "localhost:5000".into(),
                },
            ),
            (
                "registry.example.com/team/app:v1",
                Lookup::Found { size: 9_000_000 },
            ),
            ("registry.example.com/team/app:v2", Lookup::NoSuchTag),
            (
                "registry.example.com/team/other:v1",
                Lookup::NoSuchRepository,
            ),
            (
                "nginx@sha256:0000000000000000000000000000000000000000000000000000000000000000",
                Lookup::Found {
                    size: registry.size_of("nginx:latest"),
                },
            ),
        ];
        for (image, expected) in cases {
            assert_eq!(registry.lookup(image), expected, "{image}");
        }
        assert!(matches!(
            registry.lookup("nginx:latest"),
            Lookup::Found { .. }
        ));
    }

    #[test]
    fn open_and_closed_registries() {
        let mut registry = public();
        registry.mode = RegistryMode::Open;
        assert!(matches!(
            registry.lookup("ngnix:1.28"),
            Lookup::Found { .. }
        ));
        registry.mode = RegistryMode::Closed;
        assert_eq!(registry.lookup("nginx:1.28"), Lookup::NoSuchTag);
        assert!(matches!(
            registry.lookup("docker.io/library/nginx:1.27"),
            Lookup::Found { .. }
        ));
        registry.missing.insert(normalize("nginx:1.27"));
        assert_eq!(
            registry.lookup("nginx:1.27"),
            Lookup::NoSuchTag,
            "missing wins"
        );
    }

    #[test]
    fn references_split_into_their_parts() {
        let r = Reference::parse("docker.io/library/nginx:1.27");
        assert_eq!(
            (r.host, r.repository, r.path, r.tag),
            (
                "docker.io",
                "docker.io/library/nginx",
                "library/nginx",
                Some("1.27")
            )
        );
        let r = Reference::parse("localhost:5000/app@sha256:abc");
        assert_eq!(
            (r.host, r.repository, r.tag),
            ("localhost:5000", "localhost:5000/app", None)
        );
    }
}
