//! What the kubelet's failures have in common for the pane: finding the
//! latest one in the trace (a container that exited with an error, a
//! restart held back, a failed probe), and reading the Pod it concerns from
//! the stored objects (its status and spec), never working either out anew.

use k8s_openapi::api::core::v1::{ContainerStatus, Pod};

use podflow_engine::store::Snapshot;
use podflow_engine::trace::{Actor, Detail, Outcome, Record, Stage, StageName, TraceRecord};
use podflow_model::Shared;

/// How far back the pane looks for a kubelet's failure.
pub const LOOK_BACK: usize = 10_000;

/// A kubelet's stage, if `record` is one.
pub fn kubelet_stage(record: &TraceRecord) -> Option<&Stage> {
    match &record.body {
        Record::Stage(s) if matches!(s.component, Actor::Kubelet(_)) => Some(s),
        _ => None,
    }
}

/// Whether `stage` is a failure the pane explains: an exit with a non-zero
/// code, a crash-loop back-off, a failed probe, an eviction.
pub fn is_failure(stage: &Stage) -> bool {
    match (stage.stage, stage.outcome, &stage.detail) {
        (StageName::Container, Outcome::Exited, Detail::Exit(e)) => e.code != 0,
        (StageName::Container, Outcome::Backoff, Detail::CrashBackoff(_))
        | (StageName::Probe, Outcome::Failure, Detail::Probe(_)) => true,
        _ => is_eviction(stage),
    }
}

/// Whether `stage` is the kubelet's eviction of a Pod: the status stage
/// that kills its containers (`evictPod`).
pub fn is_eviction(stage: &Stage) -> bool {
    stage.stage == StageName::Status && stage.outcome == Outcome::Killing
}

/// The index of the latest failure, looking back at most [`LOOK_BACK`] records.
pub fn latest_failure(records: &[TraceRecord]) -> Option<usize> {
    let floor = records.len().saturating_sub(LOOK_BACK);
    (floor..records.len())
        .rev()
        .find(|&i| kubelet_stage(&records[i]).is_some_and(is_failure))
}

/// The latest exit of `container` of `pod` at or before `before`.
pub fn exit_before<'r>(
    records: &'r [TraceRecord],
    before: usize,
    pod: &str,
    container: &str,
) -> Option<(usize, &'r podflow_engine::trace::ExitDetail)> {
    let floor = before.saturating_sub(LOOK_BACK);
    (floor..=before.min(records.len().checked_sub(1)?))
        .rev()
        .find_map(|i| {
            let s = kubelet_stage(&records[i])?;
            let Detail::Exit(e) = &s.detail else {
                return None;
            };
            (s.extra().pod.as_deref() == Some(pod) && e.container == container)
                .then_some((i, e.as_ref()))
        })
}

/// The stored Pod `NS/NAME`.
pub fn stored_pod(store: &Snapshot, pod: &str) -> Option<Shared<Pod>> {
    let (ns, name) = pod.split_once('/')?;
    Shared::of(&store.object(&format!("/registry/pods/{ns}/{name}"))?)
}

/// The stored status of `container` of `pod`.
pub fn container_status<'p>(pod: &'p Pod, container: &str) -> Option<&'p ContainerStatus> {
    let status = pod.status.as_ref()?;
    status
        .container_statuses
        .iter()
        .chain(&status.init_container_statuses)
        .flatten()
        .find(|c| c.name == container)
}

/// `NAME` of `NS/NAME`.
pub fn pod_name(pod: &str) -> &str {
    pod.rsplit_once('/').map_or(pod, |(_, name)| name)
}

/// Bytes as Kubernetes quantities write them, in binary units: `100Mi`,
/// `251.5Mi`, `1.5Gi`, or bytes below a KiB.
pub fn bytes(b: u64) -> String {
    const KI: u64 = 1024;
    for (unit, size) in [("Gi", KI * KI * KI), ("Mi", KI * KI), ("Ki", KI)] {
        if b >= size {
            let whole = b / size;
            let tenths = (b % size) * 10 / size;
            return if tenths == 0 {
                format!("{whole}{unit}")
            } else {
                format!("{whole}.{tenths}{unit}")
            };
        }
    }
    b.to_string()
}

/// A wait in seconds, as a person reads it: `9s`, `2m40s`, `5m`.
pub fn seconds(ms: u64) -> String {
    let s = ms.div_ceil(1000);
    match (s / 60, s % 60) {
        (0, s) => format!("{s}s"),
        (m, 0) => format!("{m}m"),
        (m, s) => format!("{m}m{s}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_and_waits() {
        assert_eq!(bytes(100 * 1024 * 1024), "100Mi");
        assert_eq!(bytes(263_192_576), "251Mi");
        assert_eq!(bytes(3 * 1024 * 1024 * 1024 / 2), "1.5Gi");
        assert_eq!(bytes(512), "512");
        assert_eq!(seconds(9_000), "9s");
        assert_eq!(seconds(8_500), "9s");
        assert_eq!(seconds(160_000), "2m40s");
        assert_eq!(seconds(300_000), "5m");
    }
}
