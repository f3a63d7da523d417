//! Node-pressure eviction's decisions, as pure functions
//! (`pkg/kubelet/eviction/helpers.go` and `eviction_manager.go`): the
//! `memory.available` signal against the default hard threshold, the order
//! the kubelet evicts pods in under memory pressure (`rankMemoryPressure`:
//! pods using more than their memory request first, then lower priority,
//! then the larger use beyond the request), and the `Evicted` message.
//! The kubelet that acts on them: [`super::eviction_manager`].

use std::fmt::Write as _;

use podflow_model::quantity::{Format, ParsedQuantity};

/// `memory.available<100Mi`: the kubelet's default `evictionHard` threshold
/// for memory (`pkg/kubelet/apis/config/v1beta1/defaults_linux.go`).
pub const MEMORY_AVAILABLE_HARD: u64 = 100 * 1024 * 1024;
/// `evictionPressureTransitionPeriod`' default: a pressure condition stays
/// `True` this long after the threshold was last met.
pub const PRESSURE_TRANSITION_MS: u64 = 5 * 60_000;
/// `evictionMonitoringPeriod`: how often the eviction manager synchronizes.
pub const MONITORING_PERIOD_MS: u64 = 10_000;
/// `fault node NODE memory-pressure` leaves the node this much short of the threshold.
pub const HOG_SHORT_BY: u64 = 1024 * 1024;
/// The status reason of an evicted pod (`eviction.Reason`).
pub const REASON: &str = "Evicted";
/// `v1.PodReasonTerminationByKubelet`: the `DisruptionTarget` condition's reason.
pub const TERMINATION_BY_KUBELET: &str = "TerminationByKubelet";
/// `scheduling.SystemCriticalPriority`: pods at or above it are never evicted
/// (`kubelettypes.IsCriticalPodBasedOnPriority`).
pub const SYSTEM_CRITICAL_PRIORITY: i32 = 2_000_000_000;

/// One container's memory, as the summary API reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerUsage {
    pub name: String,
    /// Its working set, in bytes.
    pub working_set: u64,
    /// Its memory request, in bytes (0 when it has none).
    pub request: u64,
}

/// A running pod as the eviction manager sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodUsage {
    /// `NAMESPACE/NAME`.
    pub key: String,
    /// `spec.priority` (0 when unset).
    pub priority: i32,
    pub containers: Vec<ContainerUsage>,
}

impl PodUsage {
    /// The pod's working set: its containers' sum.
    pub fn working_set(&self) -> u64 {
        self.containers.iter().map(|c| c.working_set).sum()
    }

    /// Its memory request (`GetResourceRequestQuantity`).
    pub fn request(&self) -> u64 {
        self.containers.iter().map(|c| c.request).sum()
    }

    /// `exceedMemoryRequests`: it uses more than it asked for.
    pub fn exceeds_request(&self) -> bool {
        self.working_set() > self.request()
    }

    /// Critical pods are not evicted (`evictPod`: "cannot evict a critical pod").
    pub fn critical(&self) -> bool {
        self.priority >= SYSTEM_CRITICAL_PRIORITY
    }
}

/// `memory.available`: the node's capacity less what is in use (`makeSignalObservations`).
pub fn memory_available(capacity: u64, in_use: u64) -> u64 {
    capacity.saturating_sub(in_use)
}

/// `thresholdsMet`: the hard memory threshold is crossed.
pub fn memory_threshold_met(available: u64) -> bool {
    available < MEMORY_AVAILABLE_HARD
}

/// `nodeConditionsObservedSince`: the condition is still reported `True`
/// while the threshold was met within the transition period.
pub fn under_pressure(last_met_ms: Option<u64>, now_ms: u64) -> bool {
    last_met_ms.is_some_and(|at| now_ms.saturating_sub(at) < PRESSURE_TRANSITION_MS)
}

/// `rankMemoryPressure`: `orderedBy(exceedMemoryRequests, priority, memory)`,
/// first to evict first. Equal pods keep their order.
pub fn rank_memory_pressure(pods: &mut [PodUsage]) {
    pods.sort_by(|a, b| {
        b.exceeds_request()
            .cmp(&a.exceeds_request())
            .then(a.priority.cmp(&b.priority))
            .then_with(|| {
                let over = |p: &PodUsage| i128::from(p.working_set()) - i128::from(p.request());
                over(b).cmp(&over(a))
            })
    });
}

/// A byte count as `resource.NewQuantity(n, resource.BinarySI).String()` writes it.
pub fn bytes(n: u64) -> String {
    ParsedQuantity::from_units(i64::try_from(n).unwrap_or(i64::MAX), Format::BinarySI).to_string()
}

/// `evictionMessage` for memory: the node was low, the threshold and what
/// was available, and each container that used more than its request.
pub fn eviction_message(pod: &PodUsage, available: u64) -> String {
    let mut message = format!(
        "The node was low on resource: memory. Threshold quantity: {}, available: {}. ",
        bytes(MEMORY_AVAILABLE_HARD),
        bytes(available)
    );
    for c in pod.containers.iter().filter(|c| c.working_set > c.request) {
        let _ = write!(
            message,
            "Container {} was using {}, request is {}, has larger consumption of memory. ",
            c.name,
            bytes(c.working_set),
            bytes(c.request)
        );
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    const MI: u64 = 1024 * 1024;

    fn pod(key: &str, priority: i32, used: u64, request: u64) -> PodUsage {
        PodUsage {
            key: key.into(),
            priority,
            containers: vec![ContainerUsage {
                name: "c".into(),
                working_set: used,
                request,
            }],
        }
    }

    fn order(mut pods: Vec<PodUsage>) -> Vec<String> {
        rank_memory_pressure(&mut pods);
        pods.into_iter().map(|p| p.key).collect()
    }

    /// After `helpers_test.go`, `TestOrderedByExceedsRequestMemory`: a pod
    /// below its request goes after the ones above theirs.
    #[test]
    fn pods_over_their_request_go_first() {
        assert_eq!(
            order(vec![
                pod("below", 0, 50 * MI, 100 * MI),
                pod("above", 0, 200 * MI, 100 * MI),
            ]),
            ["above", "below"]
        );
    }

    /// `TestOrderedbyPriority` and `TestOrderedByMemory`: then lower
    /// priority, then the larger use beyond the request.
    #[test]
    fn then_priority_then_use_beyond_the_request() {
        assert_eq!(
            order(vec![
                pod("high", 100, 900 * MI, 0),
                pod("best-effort-small", 0, 4 * MI, 0),
                pod("burstable-big", 0, 700 * MI, 100 * MI),
                pod("guaranteed", 0, 4 * MI, 64 * MI),
            ]),
            ["burstable-big", "best-effort-small", "high", "guaranteed"]
        );
    }

    /// The message `evictionMessage` writes, with Go's quantities.
    #[test]
    fn the_message_names_the_threshold_and_the_greedy_containers() {
        let p = PodUsage {
            key: "default/hog".into(),
            priority: 0,
            containers: vec![
                ContainerUsage {
                    name: "stress".into(),
                    working_set: 8000 * MI,
                    request: 0,
                },
                ContainerUsage {
                    name: "sidecar".into(),
                    working_set: 4 * MI,
                    request: 64 * MI,
                },
            ],
        };
        assert_eq!(
            eviction_message(&p, 48 * MI),
            "The node was low on resource: memory. Threshold quantity: 100Mi, available: 48Mi. Container stress was using 8000Mi, request is 0, has larger consumption of memory. "
        );
        assert_eq!(bytes(7_900_000_000), "7900000000");
        assert_eq!(bytes(1536 * 1024), "1536Ki");
    }

    #[test]
    fn pressure_lasts_the_transition_period() {
        assert!(memory_threshold_met(99 * MI));
        assert!(!memory_threshold_met(100 * MI));
        assert!(under_pressure(
            Some(1_000),
            1_000 + PRESSURE_TRANSITION_MS - 1
        ));
        assert!(!under_pressure(Some(1_000), 1_000 + PRESSURE_TRANSITION_MS));
        assert!(!under_pressure(None, 0));
    }
}
