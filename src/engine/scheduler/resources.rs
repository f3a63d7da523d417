//! Resource arithmetic for scheduling: a pod's requests as upstream computes
//! them (`pkg/api/v1/resource/helpers.go`, `PodRequests`: the larger of the sum
//! of the app containers and the largest init container, plus overhead).

use k8s_openapi::api::core::v1::{Container, Node, Pod};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use std::collections::BTreeMap;

use crate::model::quantity;

/// CPU in millicores, memory and ephemeral storage in bytes, and a pod count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Resources {
    pub milli_cpu: i64,
    pub memory: i64,
    pub ephemeral_storage: i64,
    pub pods: i64,
}

/// The CPU a container without a request counts as when scoring (`DefaultMilliCPURequest`).
pub const DEFAULT_MILLI_CPU_REQUEST: i64 = 100;
/// The memory a container without a request counts as when scoring (`DefaultMemoryRequest`, 200 MB).
pub const DEFAULT_MEMORY_REQUEST: i64 = 200 * 1024 * 1024;

impl Resources {
    /// Adds `other` to `self`.
    pub fn add(&mut self, other: &Resources) {
        self.milli_cpu += other.milli_cpu;
        self.memory += other.memory;
        self.ephemeral_storage += other.ephemeral_storage;
        self.pods += other.pods;
    }

    /// The larger of each resource.
    fn max(&mut self, other: &Resources) {
        self.milli_cpu = self.milli_cpu.max(other.milli_cpu);
        self.memory = self.memory.max(other.memory);
        self.ephemeral_storage = self.ephemeral_storage.max(other.ephemeral_storage);
    }

    fn from_list(list: Option<&BTreeMap<String, Quantity>>) -> Resources {
        let mut r = Resources::default();
        for (name, q) in list.into_iter().flatten() {
            let Ok(parsed) = quantity::parse(&q.0) else {
                continue;
            };
            match name.as_str() {
                "cpu" => r.milli_cpu = parsed.milli_value(),
                "memory" => r.memory = parsed.value(),
                "ephemeral-storage" => r.ephemeral_storage = parsed.value(),
                "pods" => r.pods = parsed.value(),
                _ => {}
            }
        }
        r
    }
}

fn container_requests(c: &Container, non_zero: bool) -> Resources {
    let mut r = Resources::from_list(c.resources.as_ref().and_then(|r| r.requests.as_ref()));
    if non_zero {
        let requests = c.resources.as_ref().and_then(|r| r.requests.as_ref());
        if !requests.is_some_and(|r| r.contains_key("cpu")) {
            r.milli_cpu = DEFAULT_MILLI_CPU_REQUEST;
        }
        if !requests.is_some_and(|r| r.contains_key("memory")) {
            r.memory = DEFAULT_MEMORY_REQUEST;
        }
    }
    r
}

/// The pod's effective requests; `non_zero` applies the scoring defaults.
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
