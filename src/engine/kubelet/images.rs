//! The image registry the nodes pull from, and how long a pull takes.

use std::collections::{BTreeMap, BTreeSet};

pub use crate::model::image::normalize;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pull_time_grows_with_size() {
        let mut registry = Registry::default();
        registry.sizes.insert(normalize("nginx:1.27"), 72_000_000);
        assert_eq!(registry.pull_ms("nginx:1.27"), 300 + 1800);
        assert_eq!(registry.size_of("unknown:1"), DEFAULT_IMAGE_SIZE);
    }
}
