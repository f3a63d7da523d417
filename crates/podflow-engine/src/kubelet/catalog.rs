//! What the kubelet knows of images: the embedded catalog (`assets/images.yaml`)
//! with the registry's images added, and the behaviour of an image the catalog
//! lacks taken from another tag of its repository name.

use std::sync::OnceLock;

use super::{ImageRegistry, Kubelet, images};
use podflow_scenario::{ImageCatalog, ImageInfo, RegistryImage};

/// The embedded catalog, read once.
fn base_catalog() -> &'static ImageCatalog {
    static CATALOG: OnceLock<ImageCatalog> = OnceLock::new();
    CATALOG.get_or_init(podflow_scenario::image_catalog)
}

/// The catalog with the registry's images (a `Simulation`'s) added.
pub(super) fn catalog_for(registry: &ImageRegistry) -> ImageCatalog {
    let mut catalog = base_catalog().clone();
    let extra: Vec<RegistryImage> = registry
        .sizes
        .iter()
        .filter(|(name, _)| catalog.lookup(name).is_none())
        .map(|(name, size)| RegistryImage {
            name: name.clone(),
            size_bytes: *size,
        })
        .collect();
    if !extra.is_empty() {
        catalog.extend(&podflow_scenario::RegistrySpec {
            images: extra,
            ..podflow_scenario::RegistrySpec::default()
        });
    }
    catalog
}

impl Kubelet {
    /// The catalog entry of an image: the image itself, or another tag of the
    /// same repository name (`registry.k8s.io/busybox:1.27.2` behaves as busybox).
    pub(super) fn image_info(&self, image: &str) -> Option<ImageInfo> {
        if let Some(info) = self.catalog.lookup(image) {
            return Some(info.clone());
        }
        let name = images::normalize(image);
        let short = |n: &str| {
            let n = n.split('@').next().unwrap_or(n);
            let last = n.rsplit('/').next().unwrap_or(n);
            last.split(':').next().unwrap_or(last).to_owned()
        };
        let wanted = short(&name);
        self.catalog
            .images
            .iter()
            .find(|i| short(&i.name) == wanted)
            .map(|i| ImageInfo {
                name: name.clone(),
                ..i.clone()
            })
    }
}
