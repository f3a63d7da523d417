//! Resource arithmetic for scheduling: a pod's requests as upstream computes
//! them (`staging/src/k8s.io/component-helpers/resource/helpers.go`,
//! `PodRequests`: the larger of the sum of the app containers (with sidecars)
//! and the largest init container, pod-level requests where set, plus overhead),
//! and the scalar resources (`nvidia.com/gpu`, `hugepages-2Mi`, …) kept by name
//! as the scheduler's `framework.Resource` keeps them.

use k8s_openapi::api::core::v1::{Container, Node, Pod};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use std::collections::BTreeMap;

use podflow_model::quantity;

/// CPU in millicores, memory and ephemeral storage in bytes, a pod count, and
/// the scalar resources by name (`framework.Resource`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resources {
    pub milli_cpu: i64,
    pub memory: i64,
    pub ephemeral_storage: i64,
    pub pods: i64,
    /// Extended, hugepages and other scalar resources, by name.
    pub scalar: BTreeMap<String, i64>,
}

/// The CPU a container without a request counts as when scoring (`DefaultMilliCPURequest`).
pub const DEFAULT_MILLI_CPU_REQUEST: i64 = 100;
/// The memory a container without a request counts as when scoring (`DefaultMemoryRequest`, 200 MB).
pub const DEFAULT_MEMORY_REQUEST: i64 = 200 * 1024 * 1024;

/// Whether `name` is native to Kubernetes: unprefixed, or in `kubernetes.io/`
/// (`pkg/apis/core/v1/helper/helpers.go`, `IsNativeResource`).
fn is_native_resource(name: &str) -> bool {
    !name.contains('/') || name.contains("kubernetes.io/")
}

/// Whether `name` is an extended resource (`IsExtendedResourceName`): outside
/// the `kubernetes.io/` domain, not a quota `requests.` name.
pub fn is_extended_resource_name(name: &str) -> bool {
    !is_native_resource(name) && !name.starts_with("requests.")
}

/// Whether the scheduler tracks `name` as a scalar resource (`IsScalarResourceName`):
/// extended, hugepages, prefixed native or attachable volumes.
pub fn is_scalar_resource_name(name: &str) -> bool {
    is_extended_resource_name(name)
        || name.starts_with("hugepages-")
        || name.contains("kubernetes.io/")
        || name.starts_with("attachable-volumes-")
}

impl Resources {
    /// Adds `other` to `self`.
    pub fn add(&mut self, other: &Resources) {
        self.milli_cpu += other.milli_cpu;
        self.memory += other.memory;
        self.ephemeral_storage += other.ephemeral_storage;
        self.pods += other.pods;
        for (name, value) in &other.scalar {
            *self.scalar.entry(name.clone()).or_default() += value;
        }
    }

    /// Takes `other` away from `self` (a pod leaving a node).
    pub fn sub(&mut self, other: &Resources) {
        self.milli_cpu -= other.milli_cpu;
        self.memory -= other.memory;
        self.ephemeral_storage -= other.ephemeral_storage;
        self.pods -= other.pods;
        for (name, value) in &other.scalar {
            *self.scalar.entry(name.clone()).or_default() -= value;
        }
        self.scalar.retain(|_, v| *v != 0);
    }

    /// The larger of each resource.
    fn max(&mut self, other: &Resources) {
        self.milli_cpu = self.milli_cpu.max(other.milli_cpu);
        self.memory = self.memory.max(other.memory);
        self.ephemeral_storage = self.ephemeral_storage.max(other.ephemeral_storage);
        for (name, value) in &other.scalar {
            let entry = self.scalar.entry(name.clone()).or_default();
            *entry = (*entry).max(*value);
        }
    }

    /// Sets one resource from a quantity (cpu in millis, the rest in units).
    fn set(&mut self, name: &str, q: &Quantity) {
        let Ok(parsed) = quantity::parse(&q.0) else {
            return;
        };
        match name {
            "cpu" => self.milli_cpu = parsed.milli_value(),
            "memory" => self.memory = parsed.value(),
            "ephemeral-storage" => self.ephemeral_storage = parsed.value(),
            "pods" => self.pods = parsed.value(),
            other if is_scalar_resource_name(other) => {
                self.scalar.insert(other.to_owned(), parsed.value());
            }
            _ => {}
        }
    }

    fn from_list(list: Option<&BTreeMap<String, Quantity>>) -> Resources {
        let mut r = Resources::default();
        for (name, q) in list.into_iter().flatten() {
            r.set(name, q);
        }
        r
    }

    /// One resource by name (`cpu` in millicores); 0 when absent.
    pub fn get(&self, name: &str) -> i64 {
        match name {
            "cpu" => self.milli_cpu,
            "memory" => self.memory,
            "ephemeral-storage" => self.ephemeral_storage,
            "pods" => self.pods,
            other => self.scalar.get(other).copied().unwrap_or(0),
        }
    }

    /// The names of the resources it holds (`cpu`, `memory`, ... and each scalar).
    pub fn names(&self) -> Vec<&str> {
        let mut names = vec!["cpu", "memory", "ephemeral-storage"];
        names.extend(self.scalar.keys().map(String::as_str));
        names
    }

    /// Whether nothing but the pod count is requested.
    pub fn requests_nothing(&self) -> bool {
        self.milli_cpu == 0
            && self.memory == 0
            && self.ephemeral_storage == 0
            && self.scalar.is_empty()
    }
}

/// One container's requests; `non_zero` applies the scoring defaults.
pub fn container_requests(c: &Container, non_zero: bool) -> Resources {
    let requests = c.resources.as_ref().and_then(|r| r.requests.as_ref());
    let mut r = Resources::from_list(requests);
    if non_zero {
        if !requests.is_some_and(|r| r.contains_key("cpu")) {
            r.milli_cpu = DEFAULT_MILLI_CPU_REQUEST;
        }
        if !requests.is_some_and(|r| r.contains_key("memory")) {
            r.memory = DEFAULT_MEMORY_REQUEST;
        }
    }
    r
}

/// The pod's effective requests; `non_zero` applies the scoring defaults
/// (`NonMissingContainerRequests`) to containers that state no cpu or memory.
pub fn pod_requests(pod: &Pod, non_zero: bool) -> Resources {
    let Some(spec) = pod.spec.as_ref() else {
        return Resources::default();
    };
    let mut sum = Resources::default();
    for c in &spec.containers {
        sum.add(&container_requests(c, non_zero));
    }
    // Sidecars (restartable init containers) run beside the app containers.
    let mut sidecars = Resources::default();
    for c in spec.init_containers.iter().flatten() {
        let r = container_requests(c, non_zero);
        if c.restart_policy.as_deref() == Some("Always") {
            sidecars.add(&r);
            sum.add(&r);
        } else {
            let mut with_sidecars = r;
            with_sidecars.add(&sidecars);
            sum.max(&with_sidecars);
        }
    }
    // Pod-level requests (`spec.resources`, PodLevelResources) replace the
    // containers' sum for the resources they support.
    let pod_level = spec.resources.as_ref().and_then(|r| r.requests.as_ref());
    for (name, q) in pod_level.into_iter().flatten() {
        if matches!(name.as_str(), "cpu" | "memory") || name.starts_with("hugepages-") {
            sum.set(name, q);
        }
    }
    sum.add(&Resources::from_list(spec.overhead.as_ref()));
    sum.pods = 1;
    sum
}

/// The node's allocatable resources (capacity when allocatable is unset).
pub fn allocatable(node: &Node) -> Resources {
    let status = node.status.as_ref();
    Resources::from_list(
        status
            .and_then(|s| s.allocatable.as_ref())
            .or_else(|| status.and_then(|s| s.capacity.as_ref())),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_name_classes() {
        // pkg/apis/core/v1/helper/helpers_test.go, TestIsExtendedResourceName / IsScalarResourceName.
        for (name, extended, scalar) in [
            ("cpu", false, false),
            ("memory", false, false),
            ("nvidia.com/gpu", true, true),
            ("example.com/dongle", true, true),
            ("kubernetes.io/something", false, true),
            ("requests.example.com/foo", false, false),
            ("hugepages-2Mi", false, true),
            ("attachable-volumes-csi-x", false, true),
        ] {
            assert_eq!(is_extended_resource_name(name), extended, "{name}");
            assert_eq!(is_scalar_resource_name(name), scalar, "{name}");
        }
    }

    #[test]
    fn extended_resources_are_summed_and_maxed() {
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "p"},
            "spec": {
                "initContainers": [{"name": "i", "resources": {"requests": {"nvidia.com/gpu": "3"}}}],
                "containers": [
                    {"name": "a", "resources": {"requests": {"cpu": "1", "nvidia.com/gpu": "1"}}},
                    {"name": "b", "resources": {"requests": {"nvidia.com/gpu": "1", "foo": "1"}}}
                ]
            }
        }))
        .unwrap();
        let r = pod_requests(&pod, false);
        assert_eq!(r.milli_cpu, 1000);
        assert_eq!(r.get("nvidia.com/gpu"), 3);
        assert_eq!(r.get("foo"), 0, "an unprefixed unknown name is not tracked");
    }

    #[test]
    fn pod_level_requests_replace_the_containers_sum() {
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "p"},
            "spec": {
                "resources": {"requests": {"cpu": "2"}},
                "containers": [{"name": "a", "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}],
                "overhead": {"cpu": "100m"}
            }
        }))
        .unwrap();
        let r = pod_requests(&pod, false);
        assert_eq!((r.milli_cpu, r.memory), (2100, 1 << 30));
    }
}
