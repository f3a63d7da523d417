//! The image catalog (`assets/images.yaml`): each image's size and behaviour,
//! and image references normalised as containerd normalises them.

use serde::{Deserialize, Serialize};

use super::simulation::RegistrySpec;
use podflow_model::image::normalize;

const CATALOG_YAML: &str = include_str!("../../../assets/images.yaml");

/// What a container of an image does without a `command` of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Behaviour {
    /// Runs until stopped, listening on its ports (tcp and http probes succeed).
    Server,
    /// `registry.k8s.io/pause`: runs until stopped.
    Pause,
    /// Runs its shell's command; exits 0 at once without one.
    Shell,
    /// `agnhost`: `liveness` serves `/healthz` on 8080, 200 for 10 s, then 500.
    Agnhost,
    /// `stress`: uses the memory (`--vm-bytes`) or CPU (`-cpus`) its arguments ask for.
    Stress,
}

/// One image of the catalog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageInfo {
    /// The normalised reference (`docker.io/library/nginx:1.27`).
    pub name: String,
    /// The size `Node.status.images[].sizeBytes` reports.
    pub size_bytes: u64,
    /// What its containers do.
    pub behaviour: Behaviour,
    /// The ports a server listens on.
    #[serde(default)]
    pub ports: Vec<u16>,
    /// The image's `ENTRYPOINT`, replaced by a container's `command`.
    #[serde(default)]
    pub entrypoint: Vec<String>,
    /// The image's `CMD`, replaced by a container's `args` (or dropped with a `command`).
    #[serde(default)]
    pub command: Vec<String>,
}

/// Every image the simulated registry holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageCatalog {
    /// The images, normalised names.
    pub images: Vec<ImageInfo>,
}

impl ImageCatalog {
    /// The image a reference (`nginx`, `nginx:1.27`, `docker.io/library/nginx:1.27`) names.
    pub fn lookup(&self, reference: &str) -> Option<&ImageInfo> {
        let name = normalize(reference);
        self.images.iter().find(|i| i.name == name)
    }

    /// Adds a `Simulation`'s `registry.images`: a known image takes the new size; a
    /// new tag of a known repository behaves as that repository's images do; an
    /// image of an unknown repository is a server without ports (runs until stopped).
    pub fn extend(&mut self, registry: &RegistrySpec) {
        for image in &registry.images {
            let name = normalize(&image.name);
            if let Some(known) = self.images.iter_mut().find(|i| i.name == name) {
                known.size_bytes = image.size_bytes;
                continue;
            }
            let repository = repository_of(&name);
            let info = match self
                .images
                .iter()
                .find(|i| repository_of(&i.name) == repository)
            {
                Some(sibling) => ImageInfo {
                    name,
                    size_bytes: image.size_bytes,
                    ..sibling.clone()
                },
                None => ImageInfo {
                    name,
                    size_bytes: image.size_bytes,
                    behaviour: Behaviour::Server,
                    ports: Vec::new(),
                    entrypoint: Vec::new(),
                    command: Vec::new(),
                },
            };
            self.images.push(info);
        }
    }
}

/// The catalog embedded from `assets/images.yaml`.
pub fn image_catalog() -> ImageCatalog {
    serde_saphyr::from_str(CATALOG_YAML)
        .unwrap_or_else(|e| panic!("podflow's embedded image catalog must read: {e}"))
}

/// `docker.io/library/nginx` of `docker.io/library/nginx:1.27` (tag and digest dropped).
fn repository_of(name: &str) -> &str {
    let name = name.split('@').next().unwrap_or(name);
    let last_slash = name.rfind('/').map_or(0, |i| i + 1);
    match name[last_slash..].rfind(':') {
        Some(colon) => &name[..last_slash + colon],
        None => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulation::RegistryImage;

    /// (`TestParseNormalizedNamed`) and containerd's image-name handling.
    #[test]
    fn the_catalog_holds_the_contract_images() {
        let catalog = image_catalog();
        for (reference, behaviour) in [
            ("nginx", Behaviour::Server),
            ("nginx:1.27", Behaviour::Server),
            ("httpd", Behaviour::Server),
            ("redis", Behaviour::Server),
            ("registry.k8s.io/goproxy:0.1", Behaviour::Server),
            ("registry.k8s.io/pause:3.10", Behaviour::Pause),
            ("busybox", Behaviour::Shell),
            ("busybox:1.36", Behaviour::Shell),
            ("alpine", Behaviour::Shell),
            ("ubuntu", Behaviour::Shell),
            (
                "registry.k8s.io/e2e-test-images/agnhost:2.40",
                Behaviour::Agnhost,
            ),
            ("polinux/stress", Behaviour::Stress),
            ("vish/stress", Behaviour::Stress),
        ] {
            assert_eq!(
                catalog.lookup(reference).map(|i| i.behaviour),
                Some(behaviour),
                "{reference}"
            );
        }
        assert!(catalog.images.iter().all(|i| normalize(&i.name) == i.name));
        assert_eq!(catalog.lookup("nginx").unwrap().ports, [80]);
        assert!(catalog.lookup("nginx:doesnotexist").is_none());
    }

    #[test]
    fn the_registry_extends_the_catalog() {
        let mut catalog = image_catalog();
        let registry = RegistrySpec {
            missing: vec![],
            closed: false,
            open: false,
            images: vec![
                RegistryImage {
                    name: "nginx:1.27".into(),
                    size_bytes: 1,
                },
                RegistryImage {
                    name: "nginx:1.99".into(),
                    size_bytes: 2,
                },
                RegistryImage {
                    name: "example.com/app:v1".into(),
                    size_bytes: 3,
                },
            ],
        };
        catalog.extend(&registry);
        assert_eq!(catalog.lookup("nginx:1.27").unwrap().size_bytes, 1);
        let new_tag = catalog.lookup("docker.io/library/nginx:1.99").unwrap();
        assert_eq!(
            (new_tag.behaviour, new_tag.ports.as_slice()),
            (Behaviour::Server, &[80][..])
        );
        assert_eq!(
            catalog.lookup("example.com/app:v1").unwrap().behaviour,
            Behaviour::Server
        );
    }
}
