//! The kubelet's eviction manager (`pkg/kubelet/eviction/eviction_manager.go`,
//! `synchronize`): every monitoring period it observes `memory.available`
//! (the node's memory capacity less the working sets of its pods' containers,
//! and of what `fault node NODE memory-pressure` started outside them),
//! reports `MemoryPressure` while the hard threshold was met within the
//! transition period, and evicts at most one pod per period, ranked by
//! [`eviction::rank_memory_pressure`]: a `Warning` `EvictionThresholdMet` on
//! the node, a `Warning` `Evicted` on the pod, its containers killed at once
//! (a hard threshold has no grace period), and the status phase `Failed`
//! with reason `Evicted`, the message, and the `DisruptionTarget` condition.
//! The decisions are [`eviction`]'s.

use super::eviction::{self, ContainerUsage, PodUsage};
use super::lifecycle::{self, KillReason};
use super::process::Signal;
use super::worker::{Ctr, PodWorker};
use super::{Kubelet, klog};
use k8s_openapi::api::core::v1::{Pod, Taint};

use crate::clock::SimTime;
use crate::component::Cx;
use crate::controllers::node_lifecycle_plan::PRESSURE_TAINTS;
use crate::scheduler::plugins::taint_toleration;
use crate::scheduler::resources::container_requests;
use crate::trace::{EventObject, EventRecord, Outcome, StageName};

/// `v1.TaintNodeMemoryPressure`.
const MEMORY_PRESSURE_TAINT: &str = PRESSURE_TAINTS[0].1;

/// Memory held outside the pods (`fault node NODE memory-pressure`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Outside {
    #[default]
    Nothing,
    /// Asked for: the next synchronize measures the pods and takes the rest.
    Asked,
    /// This many bytes.
    Holding(u64),
}

/// The eviction manager's state.
#[derive(Debug, Clone, Default)]
pub struct EvictionState {
    /// When the memory threshold was last met, in ms of simulated time.
    last_met_ms: Option<u64>,
    /// `fault node NODE memory-pressure`: memory held outside the pods.
    outside: Outside,
    /// The node reports `MemoryPressure` (as of the last synchronize).
    pressure: bool,
}

impl Kubelet {
    /// `fault node NODE memory-pressure`: something outside the pods takes the
    /// node's memory until 1 MiB less than the threshold is left, so the
    /// first pod evicted relieves it (`recover node` frees it).
    pub fn set_memory_hog(&mut self, on: bool) {
        self.eviction.outside = if on { Outside::Asked } else { Outside::Nothing };
    }

    /// Whether something outside the pods holds the node's memory.
    pub fn memory_hogged(&self) -> bool {
        self.eviction.outside != Outside::Nothing
    }

    /// The eviction manager's `Admit`: under memory pressure a `BestEffort`
    /// pod that does not tolerate the `memory-pressure` taint is refused.
    pub(super) fn refused_under_pressure(&self, pod: &Pod) -> Option<(String, String)> {
        if !self.eviction.pressure {
            return None;
        }
        let critical = pod.spec.as_ref().and_then(|s| s.priority).unwrap_or(0)
            >= eviction::SYSTEM_CRITICAL_PRIORITY;
        let best_effort =
            pod.status.as_ref().and_then(|s| s.qos_class.as_deref()) == Some("BestEffort");
        let taint = Taint {
            key: MEMORY_PRESSURE_TAINT.into(),
            effect: "NoSchedule".into(),
            ..Taint::default()
        };
        let tolerated = pod
            .spec
            .as_ref()
            .and_then(|s| s.tolerations.as_ref())
            .is_some_and(|t| t.iter().any(|t| taint_toleration::tolerates(t, &taint)));
        (!critical && best_effort && !tolerated).then(|| {
            (
                eviction::REASON.to_owned(),
                "The node had condition: [MemoryPressure]. ".to_owned(),
            )
        })
    }

    /// The node's memory capacity, in bytes.
    fn memory_capacity(&self) -> u64 {
        self.known
            .node
            .as_ref()
            .and_then(|n| n.status.as_ref())
            .and_then(|s| s.capacity.as_ref())
            .and_then(|c| c.get("memory"))
            .map_or(0, |q| {
                u64::try_from(crate::apiserver::admission::quantity(q).value()).unwrap_or(0)
            })
    }

    /// The pods whose memory the eviction manager counts: those still running.
    fn running_pods(&self) -> impl Iterator<Item = (&String, &PodWorker)> {
        self.workers
            .iter()
            .filter(|(_, w)| !(w.terminating || w.finished || w.evicted.is_some()))
    }

    /// The pods' working set now: what every observation needs, summed
    /// without the ranking's per-pod lists.
    fn pods_working_set(&self, now: SimTime) -> u64 {
        self.running_pods()
            .flat_map(|(_, w)| counted_containers(w))
            .map(|c| working_set(c, now))
            .sum()
    }

    /// The running pods' memory now, for ranking (a threshold is met).
    fn pods_in_use(&self, now: SimTime) -> Vec<PodUsage> {
        self.running_pods()
            .filter_map(|(key, w)| {
                let containers: Vec<ContainerUsage> = counted_containers(w)
                    .map(|c| ContainerUsage {
                        name: c.spec.name.clone(),
                        working_set: working_set(c, now),
                        request: u64::try_from(container_requests(&c.spec, false).memory)
                            .unwrap_or(0),
                    })
                    .collect();
                (!containers.is_empty()).then(|| PodUsage {
                    key: key.clone(),
                    priority: w.pod.spec.as_ref().and_then(|s| s.priority).unwrap_or(0),
                    containers,
                })
            })
            .collect()
    }

    /// `synchronize`: observe, report pressure, evict at most one pod.
    /// Returns whether the node is under memory pressure.
    pub(super) fn eviction_synchronize(&mut self, cx: &mut Cx<'_>) -> bool {
        let capacity = self.memory_capacity();
        if capacity == 0 {
            return false;
        }
        let by_pods = self.pods_working_set(cx.now);
        let outside = match self.eviction.outside {
            Outside::Nothing => 0,
            Outside::Holding(bytes) => bytes,
            Outside::Asked => {
                let left = eviction::MEMORY_AVAILABLE_HARD - eviction::HOG_SHORT_BY;
                let bytes = capacity.saturating_sub(by_pods).saturating_sub(left);
                self.eviction.outside = Outside::Holding(bytes);
                bytes
            }
        };
        let in_use = by_pods + outside;
        let available = eviction::memory_available(capacity, in_use);
        let now_ms = cx.now.as_millis();
        let met = eviction::memory_threshold_met(available);
        if met {
            self.eviction.last_met_ms = Some(now_ms);
        }
        let pressure = eviction::under_pressure(self.eviction.last_met_ms, now_ms);
        self.eviction.pressure = pressure;
        if !met {
            return pressure;
        }
        self.log(
            cx,
            "eviction_manager.go:376",
            "Eviction manager: attempting to reclaim",
            &[("resourceName", klog::quoted("memory"))],
        );
        cx.event(EventRecord {
            event_type: "Warning".into(),
            reason: "EvictionThresholdMet".into(),
            message: "Attempting to reclaim memory".into(),
            object: EventObject {
                kind: "Node".into(),
                namespace: None,
                name: self.node.to_string(),
                field_path: None,
            },
            source: "kubelet".into(),
        });
        let mut pods = self.pods_in_use(cx.now);
        eviction::rank_memory_pressure(&mut pods);
        let Some(victim) = pods.into_iter().find(|p| !p.critical()) else {
            self.log(
                cx,
                "eviction_manager.go:462",
                "Eviction manager: unable to evict any pods from the node",
                &[],
            );
            return pressure;
        };
        let message = eviction::eviction_message(&victim, available);
        self.evict(&victim.key, message, available, cx);
        pressure
    }

    /// `evictPod`: the event, the kill without grace, the `Failed` status.
    fn evict(&mut self, key: &str, message: String, available: u64, cx: &mut Cx<'_>) {
        Self::event(cx, key, true, eviction::REASON, message.clone(), None);
        self.stage(
            cx,
            key,
            StageName::Status,
            Outcome::Killing,
            format!(
                "evicted: memory.available {} is below the hard threshold {}; its containers are killed at once (grace period 0)",
                eviction::bytes(available),
                eviction::bytes(eviction::MEMORY_AVAILABLE_HARD)
            ),
        );
        let running: Vec<(usize, String, String)> = self
            .workers
            .get(key)
            .map(|w| {
                w.ctrs
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.is_running())
                    .map(|(i, c)| (i, c.spec.name.clone(), c.field_path()))
                    .collect()
            })
            .unwrap_or_default();
        if let Some(w) = self.workers.get_mut(key) {
            w.evicted = Some((message, cx.now));
        }
        for (i, name, field) in running {
            Self::event(
                cx,
                key,
                false,
                "Killing",
                lifecycle::kill_message(&name, KillReason::Stop, false),
                Some(field),
            );
            cx.message(
                &self.me(),
                &self.containerd(),
                format!("StopContainer {name} (grace 0s)"),
            );
            self.signal(key, i, Signal::Kill, cx);
        }
        self.log(
            cx,
            "eviction_manager.go:638",
            "Eviction manager: pod is evicted successfully",
            &[("pod", klog::quoted(key))],
        );
        self.send_status(key, true, cx);
    }
}

/// The containers of a pod whose memory counts: the running regular and
/// sidecar containers.
fn counted_containers(worker: &PodWorker) -> impl Iterator<Item = &Ctr> {
    worker
        .ctrs
        .iter()
        .filter(|c| (!c.init || c.is_sidecar()) && c.is_running())
}

/// A container's working set now (`0` before its process starts).
fn working_set(container: &Ctr, now: SimTime) -> u64 {
    container
        .process
        .as_ref()
        .map_or(0, |p| p.memory_bytes_at(now))
}
