//! The public registries' catalog (`assets/registry.yaml`): which
//! repositories exist on Docker Hub, `registry.k8s.io`, `quay.io`, `ghcr.io`
//! and a few others, their tags, and a typical tag's size. The kubelet's
//! pulls are answered from it, so a typo'd repository, a missing tag and an
//! unknown host fail as they do on a real cluster.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use serde::Deserialize;

const CATALOG_YAML: &str = include_str!("../../../assets/registry.yaml");

/// The file's shape.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CatalogFile {
    registries: Vec<HostFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HostFile {
    host: String,
    repositories: Vec<RepositoryFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RepositoryFile {
    name: String,
    size: u64,
    #[serde(default)]
    variants: BTreeMap<String, u64>,
    tags: Vec<String>,
}

/// One repository: its tags and their sizes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repository {
    /// A typical tag's compressed size.
    pub size: u64,
    /// Sizes of slimmer (or larger) variants, by a word of the tag (`alpine`).
    pub variants: BTreeMap<String, u64>,
    pub tags: BTreeSet<String>,
}

impl Repository {
    /// The size of `tag`: the longest variant word it contains, else the
    /// repository's typical size.
    pub fn size_of(&self, tag: &str) -> u64 {
        self.variants
            .iter()
            .filter(|(word, _)| tag.contains(word.as_str()))
            .max_by_key(|(word, _)| word.len())
            .map_or(self.size, |(_, size)| *size)
    }
}

/// Every public registry host and its repositories.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PublicRegistries {
    /// `docker.io`, `registry.k8s.io`, …
    pub hosts: BTreeSet<String>,
    /// `docker.io/library/nginx` → the repository.
    pub repositories: BTreeMap<String, Repository>,
}

/// The embedded catalog, read once.
pub fn public_registries() -> &'static PublicRegistries {
    static CATALOG: OnceLock<PublicRegistries> = OnceLock::new();
    CATALOG.get_or_init(|| {
        read(CATALOG_YAML)
            .unwrap_or_else(|e| panic!("podflow's embedded registry catalog must read: {e}"))
    })
}

fn read(yaml: &str) -> Result<PublicRegistries, serde_saphyr::Error> {
    let file: CatalogFile = serde_saphyr::from_str(yaml)?;
    let mut catalog = PublicRegistries::default();
    for host in file.registries {
        for repository in host.repositories {
            catalog.repositories.insert(
                format!("{}/{}", host.host, repository.name),
                Repository {
                    size: repository.size,
                    variants: repository.variants,
                    tags: repository.tags.into_iter().collect(),
                },
            );
        }
        catalog.hosts.insert(host.host);
    }
    Ok(catalog)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_holds_the_images_every_lesson_pulls() {
        let catalog = public_registries();
        for host in ["docker.io", "registry.k8s.io", "quay.io", "ghcr.io"] {
            assert!(catalog.hosts.contains(host), "{host}");
        }
        let nginx = &catalog.repositories["docker.io/library/nginx"];
        assert!(nginx.tags.contains("1.27") && nginx.tags.contains("latest"));
        assert!(!nginx.tags.contains("doesnotexist"));
        assert!(nginx.size_of("1.27-alpine") < nginx.size_of("1.27"));
        assert!(
            catalog.repositories["registry.k8s.io/pause"]
                .tags
                .contains("3.10")
        );
        // Every image of the behaviour catalog exists on its registry.
        for image in crate::image_catalog().images {
            let (repository, tag) = image.name.rsplit_once(':').expect("a tag");
            let known = catalog.repositories.get(repository);
            assert!(
                known.is_some_and(|r| r.tags.contains(tag)),
                "{} is not in assets/registry.yaml",
                image.name
            );
        }
    }

    #[test]
    fn a_variant_word_picks_the_size() {
        let repository = Repository {
            size: 100,
            variants: [("alpine".to_owned(), 20), ("alpine-slim".to_owned(), 5)].into(),
            tags: BTreeSet::new(),
        };
        assert_eq!(repository.size_of("1.27"), 100);
        assert_eq!(repository.size_of("1.27-alpine"), 20);
        assert_eq!(repository.size_of("1.27-alpine-slim"), 5);
    }
}
