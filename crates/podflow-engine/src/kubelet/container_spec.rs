//! A container's spec as the kubelet reads it: from the Pod it last saw,
//! shared with the store (`Shared<Pod>` and the container's place), not a
//! copy per container. 150,000 Pods kept a `Container` each (about 3 KB in
//! k8s-openapi's types), the same as the one in the Pod beside it.
//!
//! Of a Pod's containers only the image may change (`ValidatePodUpdate`,
//! `pkg/apis/core/validation/validation.go`: "pod updates may not change
//! fields other than `spec.containers[*].image`, ..."), so a container read
//! from a later version of its Pod is the one the kubelet admitted, with the
//! image the kubelet follows ([`PodWorker::see`](super::worker::PodWorker::see)
//! moves it to the new version where name and image agree; `spec_updated`
//! where the image changed).

use std::ops::Deref;
use std::sync::LazyLock;

use k8s_openapi::api::core::v1::{Container, Pod};
use podflow_model::Shared;

/// The `index`th init or regular container of `pod`.
#[derive(Debug, Clone)]
pub struct ContainerSpec {
    pod: Shared<Pod>,
    init: bool,
    index: usize,
}

impl ContainerSpec {
    /// Every container of `pod`: its init containers first, then the regular ones.
    pub fn all(pod: &Shared<Pod>) -> Vec<ContainerSpec> {
        let (init, regular) = pod.spec.as_ref().map_or((0, 0), |spec| {
            (
                spec.init_containers.as_ref().map_or(0, Vec::len),
                spec.containers.len(),
            )
        });
        let at = |init, index| ContainerSpec {
            pod: pod.clone(),
            init,
            index,
        };
        (0..init)
            .map(|i| at(true, i))
            .chain((0..regular).map(|i| at(false, i)))
            .collect()
    }

    /// Whether it reads the same name and image as `other` (what the kubelet
    /// follows of a container; the rest cannot change).
    pub fn same_definition(&self, other: &Container) -> bool {
        self.name == other.name && self.image == other.image
    }
}

impl Deref for ContainerSpec {
    type Target = Container;

    fn deref(&self) -> &Container {
        /// What a place past the Pod's containers reads (never: a Pod's
        /// containers are neither added nor removed).
        static NONE: LazyLock<Container> = LazyLock::new(Container::default);
        let spec = self.pod.spec.as_ref();
        let list = if self.init {
            spec.and_then(|s| s.init_containers.as_deref())
        } else {
            spec.map(|s| s.containers.as_slice())
        };
        list.and_then(|l| l.get(self.index)).unwrap_or(&NONE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(image: &str) -> Shared<Pod> {
        Shared::from(
            serde_json::from_value::<Pod>(serde_json::json!({
                "metadata": {"name": "p"},
                "spec": {
                    "initContainers": [{"name": "init", "image": "busybox"}],
                    "containers": [{"name": "a", "image": image}, {"name": "b", "image": "redis"}]
                }
            }))
            .unwrap(),
        )
    }

    #[test]
    fn init_containers_come_first_then_the_regular_ones() {
        let specs = ContainerSpec::all(&pod("nginx"));
        let names: Vec<&str> = specs.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["init", "a", "b"]);
        assert_eq!(specs[1].image.as_deref(), Some("nginx"));
    }

    #[test]
    fn a_new_image_is_a_new_definition() {
        let old = &ContainerSpec::all(&pod("nginx"))[1];
        let new = &ContainerSpec::all(&pod("nginx:1.27"))[1];
        assert!(!old.same_definition(new));
        assert!(old.same_definition(&ContainerSpec::all(&pod("nginx"))[1]));
    }
}
