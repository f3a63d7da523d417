//! The volume manager for a pod's volumes (`pkg/kubelet/volumemanager`): the
//! reconciler sets each volume up (`reconciler_common.go`,
//! `operation_generator.go` `GenerateMountVolumeFunc`), a `configMap`,
//! `secret` or `projected` volume from the kubelet's `ConfigMap`/`Secret`
//! cache. A failed `SetUp` is a Warning `FailedMount` event
//! (`MountVolume.SetUp failed for volume "config-volume" : configmap
//! "special-config" not found`) and is retried with the operation's
//! exponential back-off (`nestedpendingoperations.go`: 500 ms doubling to
//! 2m2s). Meanwhile the pod worker waits in `WaitForAttachAndMount` (polling
//! every 300 ms, giving up after 2m3s); the timeout is an interrupted wait, so
//! since 1.28 `syncPod` records no `Unable to attach or mount volumes` event —
//! the pod worker logs `Error syncing pod, skipping` and syncs again after its
//! back-off (`pod_workers.go`: 10 s with a jitter factor of 0.5).

use std::fmt::Write as _;

use k8s_openapi::api::core::v1::{Pod, Volume};

use super::config::{PendingVolume, PodMounts};
use super::sandbox::volume_plugin;
use super::{Kubelet, Step, klog, payload, until};
use crate::clock::SimTime;
use crate::component::Cx;
use crate::trace::{Outcome, StageName, VolumeDetail};

/// `initialDurationBeforeRetry` of a failed volume operation.
const INITIAL_RETRY_MS: u64 = 500;
/// `maxDurationBeforeRetry`: 2m2s.
const MAX_RETRY_MS: u64 = 122_000;
/// `podAttachAndMountTimeout`: 2m3s.
const ATTACH_AND_MOUNT_TIMEOUT_MS: u64 = 123_000;
/// `podAttachAndMountRetryInterval`.
const POLL_MS: u64 = 300;
/// The pod worker's `backOffPeriod` after a failed sync, and its jitter (`wait.Jitter(10s, 0.5)`).
pub(super) const SYNC_BACK_OFF_MS: (u64, u64) = (10_000, 15_000);

/// A klog line of severity `E` written with `klog.Errorf` (unstructured).
pub(super) fn error_line(now: SimTime, pid: u32, location: &str, text: &str) -> String {
    format!("E{} {pid:>7} {location}] {text}", now.klog())
}

/// A structured klog `E` line (`klog.ErrorS(err, msg, kv...)`).
pub(super) fn error_s(
    now: SimTime,
    pid: u32,
    location: &str,
    message: &str,
    err: &str,
    fields: &[(&str, String)],
) -> String {
    let mut line = format!(
        "E{} {pid:>7} {location}] {} err={}",
        now.klog(),
        klog::quoted(message),
        klog::quoted(err)
    );
    for (key, value) in fields {
        let _ = write!(line, " {key}={value}");
    }
    line
}

/// Go's monotonic clock reading in `time.Time.String()`: `m=+1.500000000`.
fn monotonic(t: SimTime) -> String {
    let ms = t.as_millis();
    format!("m=+{}.{:03}000000", ms / 1000, ms % 1000)
}

/// `volume "config-volume" (UniqueName: "...") pod "dapi-test-pod" (UID: "...")`.
fn detailed(volume: &Volume, pod: &Pod) -> (String, String) {
    let uid = pod.metadata.uid.clone().unwrap_or_default();
    let name = pod.metadata.name.clone().unwrap_or_default();
    let unique = format!("{}/{uid}-{}", volume_plugin(volume), volume.name);
    (
        format!(
            "volume \"{}\" (UniqueName: \"{unique}\") pod \"{name}\" (UID: \"{uid}\")",
            volume.name
        ),
        unique,
    )
}

/// The unmounted volumes' error when `WaitForAttachAndMount` times out.
pub fn wait_timeout_error(unmounted: &[String]) -> String {
    let mut names = unmounted.to_vec();
    names.sort();
    format!(
        "unmounted volumes=[{}], unattached volumes=[], failed to process volumes=[]: context deadline exceeded",
        names.join(" ")
    )
}

impl Kubelet {
    fn volumes_of(pod: &Pod) -> Vec<Volume> {
        pod.spec
            .as_ref()
            .and_then(|s| s.volumes.clone())
            .unwrap_or_default()
    }

    /// The reconciler's first pass over a new pod's volumes; returns whether
    /// all are set up (else the pod waits, see [`Kubelet::config_due`]).
    pub(super) fn mount_volumes(&mut self, key: &str, pod: &Pod, cx: &mut Cx<'_>) -> bool {
        // A new pod of this name starts afresh.
        self.config.retry_at.remove(key);
        self.config.blocked.retain(|(k, _)| k != key);
        let mut pending = Vec::new();
        for volume in Self::volumes_of(pod) {
            if volume.persistent_volume_claim.is_some() {
                // Bound before admission (`claims_ready`): attach, stage, publish (csi.rs).
                let plugin = self.mount_claim(cx, key, pod, &volume);
                self.stage(
                    cx,
                    key,
                    StageName::Volume,
                    Outcome::Mounted,
                    VolumeDetail {
                        name: volume.name.clone(),
                        plugin: plugin.to_string(),
                        error: None,
                    },
                );
                continue;
            }
            let (what, _) = detailed(&volume, pod);
            self.log(
                cx,
                "reconciler_common.go:251",
                &format!("operationExecutor.VerifyControllerAttachedVolume started for {what} "),
                &[("pod", klog::quoted(key))],
            );
            if !self.set_up(key, pod, &volume, INITIAL_RETRY_MS, cx) {
                pending.push(PendingVolume {
                    name: volume.name.clone(),
                    backoff_ms: INITIAL_RETRY_MS,
                    retry_at: cx.now.plus(INITIAL_RETRY_MS),
                });
            }
        }
        if pending.is_empty() {
            self.config.mounts.remove(key);
            return true;
        }
        self.timer(cx, INITIAL_RETRY_MS, key, Step::Config);
        self.timer(cx, ATTACH_AND_MOUNT_TIMEOUT_MS, key, Step::Config);
        self.config.mounts.insert(
            key.to_owned(),
            PodMounts {
                pending,
                wait: Some((cx.now, cx.now.plus(ATTACH_AND_MOUNT_TIMEOUT_MS))),
                next_sync: None,
            },
        );
        false
    }

    /// One `MountVolume` operation; returns whether `SetUp` succeeded. A
    /// failure is logged with the retry it allows after `backoff_ms`.
    fn set_up(
        &mut self,
        key: &str,
        pod: &Pod,
        volume: &Volume,
        backoff_ms: u64,
        cx: &mut Cx<'_>,
    ) -> bool {
        let (what, unique) = detailed(volume, pod);
        let pod_field = [("pod", klog::quoted(key))];
        self.log(
            cx,
            "reconciler_common.go:224",
            &format!("operationExecutor.MountVolume started for {what} "),
            &pod_field,
        );
        let namespace = pod.metadata.namespace.as_deref().unwrap_or("default");
        let plugin = volume_plugin(volume);
        match payload::volume_payload(volume, namespace, &self.config.cache) {
            Ok(_) => {
                self.log(
                    cx,
                    "operation_generator.go:614",
                    &format!("MountVolume.SetUp succeeded for {what} "),
                    &pod_field,
                );
                self.stage(
                    cx,
                    key,
                    StageName::Volume,
                    Outcome::Mounted,
                    VolumeDetail {
                        name: volume.name.clone(),
                        plugin: plugin.to_string(),
                        error: None,
                    },
                );
                true
            }
            Err(error) => {
                let uid = pod.metadata.uid.clone().unwrap_or_default();
                let retry = cx.now.plus(backoff_ms);
                let line = error_line(
                    cx.now,
                    self.pid,
                    "nestedpendingoperations.go:348",
                    &format!(
                        "Operation for \"{{volumeName:{unique} podName:{uid} nodeName:}}\" failed. No retries permitted until {} {} (durationBeforeRetry {}). Error: MountVolume.SetUp failed for {what} : {error}",
                        klog::go_time(retry),
                        monotonic(retry),
                        klog::go_duration(backoff_ms)
                    ),
                );
                cx.log(&self.me(), Some(&self.node), line);
                Self::event(
                    cx,
                    key,
                    true,
                    "FailedMount",
                    format!(
                        "MountVolume.SetUp failed for volume \"{}\" : {error}",
                        volume.name
                    ),
                    None,
                );
                self.stage(
                    cx,
                    key,
                    StageName::Volume,
                    Outcome::Failed,
                    VolumeDetail {
                        name: volume.name.clone(),
                        plugin: plugin.to_string(),
                        error: Some(error.clone()),
                    },
                );
                false
            }
        }
    }

    /// A config timer fired: the pod worker's retry after a config error, the
    /// volume retries that fall due, the end of a `WaitForAttachAndMount`,
    /// the next sync of a pod still waiting for its volumes.
    pub(super) fn config_due(&mut self, key: &str, cx: &mut Cx<'_>) {
        let Some(w) = self.workers.get(key) else {
            return;
        };
        if w.terminating || w.finished {
            self.config.mounts.remove(key);
            self.config.retry_at.remove(key);
            return;
        }
        let pod = w.pod.clone();
        if self
            .config
            .retry_at
            .get(key)
            .is_some_and(|at| *at <= cx.now)
        {
            self.config.retry_at.remove(key);
            self.config.blocked.retain(|(k, _)| k != key);
            self.sync(key, cx);
        }
        let Some(mut m) = self.config.mounts.remove(key) else {
            return;
        };
        if m.next_sync.is_some_and(|t| t <= cx.now) {
            // The pod worker syncs again: a new WaitForAttachAndMount.
            m.next_sync = None;
            self.report_status(key, cx);
            m.wait = Some((cx.now, cx.now.plus(ATTACH_AND_MOUNT_TIMEOUT_MS)));
            self.timer(cx, ATTACH_AND_MOUNT_TIMEOUT_MS, key, Step::Config);
        }
        self.retry_mounts(key, &pod, &mut m, cx);
        if m.pending.is_empty() {
            if let Some((start, deadline)) = m.wait
                && cx.now < deadline
            {
                // The wait's next poll sees every volume mounted: the sync goes on.
                let into = (cx.now.as_millis() - start.as_millis()) % POLL_MS;
                let delay = if into == 0 { 0 } else { POLL_MS - into };
                self.timer(cx, delay.max(1), key, Step::Sandbox);
                return;
            }
        } else if let Some((_, deadline)) = m.wait
            && deadline <= cx.now
        {
            let names: Vec<String> = m.pending.iter().map(|v| v.name.clone()).collect();
            let uid = pod.metadata.uid.clone().unwrap_or_default();
            let line = error_s(
                cx.now,
                self.pid,
                "pod_workers.go:1301",
                "Error syncing pod, skipping",
                &wait_timeout_error(&names),
                &[("pod", klog::quoted(key)), ("podUID", klog::quoted(&uid))],
            );
            cx.log(&self.me(), Some(&self.node), line);
            m.wait = None;
            let next = cx
                .now
                .plus(cx.rng.between(SYNC_BACK_OFF_MS.0, SYNC_BACK_OFF_MS.1));
            m.next_sync = Some(next);
            self.timer(cx, until(cx.now, next), key, Step::Config);
        }
        self.config.mounts.insert(key.to_owned(), m);
    }

    /// Retries the volumes whose back-off has ended.
    fn retry_mounts(&mut self, key: &str, pod: &Pod, m: &mut PodMounts, cx: &mut Cx<'_>) {
        let volumes = Self::volumes_of(pod);
        let mut still = Vec::new();
        for mut v in std::mem::take(&mut m.pending) {
            let Some(volume) = volumes.iter().find(|vol| vol.name == v.name) else {
                continue;
            };
            if v.retry_at > cx.now {
                still.push(v);
                continue;
            }
            let backoff = (v.backoff_ms * 2).min(MAX_RETRY_MS);
            if !self.set_up(key, pod, volume, backoff, cx) {
                v.backoff_ms = backoff;
                v.retry_at = cx.now.plus(backoff);
                self.timer(cx, backoff, key, Step::Config);
                still.push(v);
            }
        }
        m.pending = still;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_and_error_wording() {
        assert_eq!(
            wait_timeout_error(&["secret-volume".into(), "config-volume".into()]),
            "unmounted volumes=[config-volume secret-volume], unattached volumes=[], failed to process volumes=[]: context deadline exceeded"
        );
        assert_eq!(monotonic(SimTime(1500)), "m=+1.500000000");
        assert_eq!(
            error_line(
                SimTime(500),
                2114,
                "nestedpendingoperations.go:348",
                "Operation failed"
            ),
            "E1130 02:20:30.500000    2114 nestedpendingoperations.go:348] Operation failed"
        );
        assert_eq!(
            error_s(
                SimTime(0),
                2114,
                "pod_workers.go:1301",
                "Error syncing pod, skipping",
                "configmap \"x\" not found",
                &[("pod", klog::quoted("default/p"))]
            ),
            r#"E1130 02:20:30.000000    2114 pod_workers.go:1301] "Error syncing pod, skipping" err="configmap \"x\" not found" pod="default/p""#
        );
    }
}
