//! The image registry the nodes pull from, and how long a pull takes.

use std::collections::{BTreeMap, BTreeSet};

pub use podflow_model::image::normalize;

/// The image registry: which images exist, how big they are, which pulls fail.
#[derive(Debug, Clone, Default)]
pub struct ImageRegistry {
    /// Normalised names whose pull fails with "not found".
    pub missing: BTreeSet<String>,
    /// Normalised name → size in bytes.
    pub sizes: BTreeMap<String, u64>,
    /// Only the images of `sizes` exist; any other pull fails.
    pub closed: bool,
}

/// The size the registry gives an image it has no size for.
pub const DEFAULT_IMAGE_SIZE: u64 = 50_000_000;
/// Simulated download speed: 40 MB/s.
const BYTES_PER_MS: u64 = 40_000;
/// Resolving and fetching the manifest before the layers.
const PULL_OVERHEAD_MS: u64 = 300;

impl ImageRegistry {
    /// The size of `image` (normalised or not).
    pub fn size_of(&self, image: &str) -> u64 {
        self.sizes
            .get(&normalize(image))
            .copied()
            .unwrap_or(DEFAULT_IMAGE_SIZE)
    }

    /// Whether pulling `image` fails: it is missing, or the registry is
    /// closed and does not hold it.
    pub fn is_missing(&self, image: &str) -> bool {
        let name = normalize(image);
        self.missing.contains(&name) || (self.closed && !self.sizes.contains_key(&name))
    }

    /// How long pulling `image` takes, in milliseconds.
    pub fn pull_ms(&self, image: &str) -> u64 {
        PULL_OVERHEAD_MS + self.size_of(image) / BYTES_PER_MS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pull_time_grows_with_size() {
        let mut registry = ImageRegistry::default();
        registry.sizes.insert(normalize("nginx:1.27"), 72_000_000);
        assert_eq!(registry.pull_ms("nginx:1.27"), 300 + 1800);
        assert_eq!(registry.size_of("unknown:1"), DEFAULT_IMAGE_SIZE);
    }

    #[test]
    fn a_closed_registry_holds_only_its_images() {
        let mut registry = ImageRegistry::default();
        registry.sizes.insert(normalize("nginx:1.27"), 72_000_000);
        assert!(!registry.is_missing("nginx:1.28"), "open: any tag pulls");
        registry.closed = true;
        assert!(registry.is_missing("nginx:1.28"));
        assert!(!registry.is_missing("docker.io/library/nginx:1.27"));
        registry.missing.insert(normalize("nginx:1.27"));
        assert!(registry.is_missing("nginx:1.27"), "missing wins");
    }
}
