//! The kubelet's exponential back-off, as `k8s.io/client-go/util/flowcontrol/backoff.go`
//! keeps it, with the two instances the kubelet makes of it (`pkg/kubelet/kubelet.go`):
//!
//! - restarts (CrashLoopBackOff): `NewBackOff(containerBackOffPeriod = 10s,
//!   MaxContainerBackOff = 300s)` with `HasExpiredFunc` replaced so that an entry
//!   expires (the delay starts again at 10 s) when the container ran for more than
//!   600 s since the last back-off step. `ReduceDefaultCrashLoopBackOffDecay`
//!   (1 s / 60 s) and `KubeletCrashLoopBackOffMax` are alpha and off by default.
//! - image pulls (ImagePullBackOff): `NewBackOff(backOffPeriod = 10s, MaxImageBackOff = 300s)`
//!   with the default expiry, `2 * max` = 600 s.
//!
//! No jitter: the kubelet's back-offs are built with a jitter factor of 0.
//! Keys: restarts use `getStableKey` (`NAME_NAMESPACE_UID_CONTAINER_HASH`, here
//! without the hash), pulls `UID_IMAGE` (`pkg/kubelet/images/image_manager.go`).

use std::collections::BTreeMap;

use crate::clock::SimTime;
use crate::kubelet::klog;

/// The first restart delay (`containerBackOffPeriod`), in ms.
pub const CONTAINER_BACKOFF_MS: u64 = 10_000;
/// The longest restart delay (`MaxContainerBackOff`), in ms.
pub const MAX_CONTAINER_BACKOFF_MS: u64 = 300_000;
/// A restart entry expires when the container ran longer than this (kubelet's `HasExpiredFunc`).
pub const CONTAINER_BACKOFF_RESET_MS: u64 = 600_000;
/// The first image pull delay (`backOffPeriod`), in ms.
pub const IMAGE_BACKOFF_MS: u64 = 10_000;
/// The longest image pull delay (`MaxImageBackOff`), in ms.
pub const MAX_IMAGE_BACKOFF_MS: u64 = 300_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    backoff_ms: u64,
    last_update: SimTime,
}

/// Per-key exponential back-off (`flowcontrol.Backoff`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backoff {
    initial_ms: u64,
    max_ms: u64,
    /// An entry older than this (from its last update to the event) starts over.
    expire_after_ms: u64,
    entries: BTreeMap<String, Entry>,
}

/// What `doBackOff` decides for a container that exited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restart {
    /// Still in back-off: the container waits in `CrashLoopBackOff`; the delay in ms.
    Wait { backoff_ms: u64 },
    /// Start it now; the back-off moved to its next step (this delay, in ms, for the next exit).
    Now { next_backoff_ms: u64 },
}

impl Backoff {
    /// A back-off from `initial_ms` doubling to `max_ms`, expiring after `2 * max_ms`.
    pub fn new(initial_ms: u64, max_ms: u64) -> Backoff {
        Backoff {
            initial_ms,
            max_ms,
            expire_after_ms: max_ms.saturating_mul(2),
            entries: BTreeMap::new(),
        }
    }

    /// The kubelet's container restart back-off (10 s to 300 s, reset after 600 s of running).
    pub fn crash_loop() -> Backoff {
        Backoff {
            expire_after_ms: CONTAINER_BACKOFF_RESET_MS,
            ..Backoff::new(CONTAINER_BACKOFF_MS, MAX_CONTAINER_BACKOFF_MS)
        }
    }

    /// The kubelet's image pull back-off (10 s to 300 s).
    pub fn image_pull() -> Backoff {
        Backoff::new(IMAGE_BACKOFF_MS, MAX_IMAGE_BACKOFF_MS)
    }

    fn expired(&self, event: SimTime, last_update: SimTime) -> bool {
        event.as_millis().saturating_sub(last_update.as_millis()) > self.expire_after_ms
    }

    /// The current delay of `key` (`Get`), 0 when it has none.
    pub fn get(&self, key: &str) -> u64 {
        self.entries.get(key).map_or(0, |e| e.backoff_ms)
    }

    /// Moves `key` to its next step (`Next`): the initial delay for a new or expired
    /// entry, else twice the last, capped. `event` decides expiry; `now` is recorded.
    /// Returns the new delay in ms.
    pub fn next(&mut self, key: &str, event: SimTime, now: SimTime) -> u64 {
        let backoff_ms = match self.entries.get(key) {
            Some(e) if !self.expired(event, e.last_update) => {
                e.backoff_ms.saturating_mul(2).min(self.max_ms)
            }
            _ => self.initial_ms,
        };
        self.entries.insert(
            key.to_owned(),
            Entry {
                backoff_ms,
                last_update: now,
            },
        );
        backoff_ms
    }

    /// Whether less than the current delay has passed since `event` (`IsInBackOffSince`).
    pub fn in_backoff_since(&self, key: &str, event: SimTime, now: SimTime) -> bool {
        let Some(e) = self.entries.get(key) else {
            return false;
        };
        if self.expired(event, e.last_update) {
            return false;
        }
        now.as_millis().saturating_sub(event.as_millis()) < e.backoff_ms
    }

    /// Whether less than the current delay has passed since the last step
    /// (`IsInBackOffSinceUpdate`, what the image manager asks).
    pub fn in_backoff(&self, key: &str, now: SimTime) -> bool {
        let Some(e) = self.entries.get(key) else {
            return false;
        };
        if self.expired(now, e.last_update) {
            return false;
        }
        now.as_millis().saturating_sub(e.last_update.as_millis()) < e.backoff_ms
    }

    /// When the pull back-off of `key` ends (last update plus delay), if it has an entry.
    pub fn pull_ready_at(&self, key: &str) -> Option<SimTime> {
        self.entries
            .get(key)
            .map(|e| e.last_update.plus(e.backoff_ms))
    }

    /// Forgets `key` (`Reset`, `DeleteEntry`).
    pub fn reset(&mut self, key: &str) {
        self.entries.remove(key);
    }

    /// Drops the entries that have expired by `now` (`GC`).
    pub fn gc(&mut self, now: SimTime) {
        let expire = self.expire_after_ms;
        self.entries
            .retain(|_, e| now.as_millis().saturating_sub(e.last_update.as_millis()) <= expire);
    }

    /// `doBackOff` for a container that exited at `finished_at`: wait while in
    /// back-off, else step the back-off and restart now.
    pub fn restart(&mut self, key: &str, finished_at: SimTime, now: SimTime) -> Restart {
        if self.in_backoff_since(key, finished_at, now) {
            Restart::Wait {
                backoff_ms: self.get(key),
            }
        } else {
            Restart::Now {
                next_backoff_ms: self.next(key, finished_at, now),
            }
        }
    }
}

/// The restart back-off key (`getStableKey` without the container hash).
pub fn crash_key(namespace: &str, name: &str, uid: &str, container: &str) -> String {
    format!("{name}_{namespace}_{uid}_{container}")
}

/// The image pull back-off key (`podUID_image`, the image as the spec wrote it).
pub fn pull_key(uid: &str, image: &str) -> String {
    format!("{uid}_{image}")
}

/// `format.Pod`: `NAME_NAMESPACE(UID)`.
pub fn pod_full_name(namespace: &str, name: &str, uid: &str) -> String {
    format!("{name}_{namespace}({uid})")
}

/// The `BackOff` (Warning) event while a container waits to restart
/// (`kuberuntime_manager.go`, `doBackOff`).
pub fn crash_loop_event(container: &str, pod_full_name: &str) -> String {
    format!("Back-off restarting failed container {container} in pod {pod_full_name}")
}

/// The `CrashLoopBackOff` waiting message: `back-off 20s restarting failed container=C pod=P`.
pub fn crash_loop_message(backoff_ms: u64, container: &str, pod_full_name: &str) -> String {
    format!(
        "back-off {} restarting failed container={container} pod={pod_full_name}",
        klog::go_duration(backoff_ms)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: u64) -> SimTime {
        SimTime(s * 1000)
    }

    #[test]
    fn doubles_to_the_cap() {
        // client-go util/flowcontrol/backoff_test.go, TestSlowBackoff / TestBackoffHighWaterMark:
        // 10s, 20s, 40s, ... capped at the max.
        let mut b = Backoff::crash_loop();
        let steps: Vec<u64> = (0..8).map(|i| b.next("k", t(i), t(i)) / 1000).collect();
        assert_eq!(steps, [10, 20, 40, 80, 160, 300, 300, 300]);
        assert_eq!(b.get("k"), 300_000);
        assert_eq!(b.get("other"), 0);
    }

    #[test]
    fn in_backoff_since_event() {
        // backoff_test.go, TestIsInBackOffSinceUpdate-style rows for IsInBackOffSince.
        let mut b = Backoff::crash_loop();
        assert!(
            !b.in_backoff_since("k", t(0), t(0)),
            "no entry, no back-off"
        );
        b.next("k", t(0), t(0));
        let rows = [(5, 9, true), (5, 14, true), (5, 15, false), (20, 29, true)];
        for (event, now, want) in rows {
            assert_eq!(
                b.in_backoff_since("k", t(event), t(now)),
                want,
                "event {event} now {now}"
            );
        }
    }

    #[test]
    fn in_backoff_since_update() {
        // backoff_test.go, TestIsInBackOffSinceUpdate.
        let mut b = Backoff::image_pull();
        assert!(!b.in_backoff("k", t(0)));
        b.next("k", t(0), t(0));
        assert!(b.in_backoff("k", t(9)));
        assert!(!b.in_backoff("k", t(10)));
        b.next("k", t(10), t(10));
        assert!(b.in_backoff("k", t(29)));
        assert!(!b.in_backoff("k", t(30)));
        assert_eq!(b.pull_ready_at("k"), Some(t(30)));
    }

    #[test]
    fn crash_loop_resets_after_ten_minutes() {
        // pkg/kubelet/kubelet.go: HasExpiredFunc = eventTime - lastUpdate > 600s.
        let mut b = Backoff::crash_loop();
        for i in 0..5 {
            b.next("k", t(i), t(i));
        }
        assert_eq!(b.get("k"), 160_000);
        // Exited 600 s after the last step: not yet expired, keeps doubling.
        assert_eq!(b.next("k", t(4 + 600), t(4 + 600)), 300_000);
        // Ran 601 s: starts over, and is not in back-off for that exit.
        assert!(!b.in_backoff_since("k", t(604 + 601), t(604 + 601)));
        assert_eq!(b.next("k", t(604 + 601), t(604 + 601)), 10_000);
    }

    #[test]
    fn image_pull_expires_after_twice_the_max() {
        let mut b = Backoff::image_pull();
        b.next("k", t(0), t(0));
        b.next("k", t(10), t(10));
        assert_eq!(b.next("k", t(610), t(610)), 40_000);
        assert_eq!(b.next("k", t(1211), t(1211)), 10_000);
    }

    #[test]
    fn gc_drops_expired_entries() {
        // backoff_test.go, TestBackoffGC.
        let mut b = Backoff::image_pull();
        b.next("old", t(0), t(0));
        b.next("new", t(500), t(500));
        b.gc(t(601));
        assert_eq!(b.get("old"), 0);
        assert_eq!(b.get("new"), 10_000);
        b.reset("new");
        assert_eq!(b.get("new"), 0);
    }

    #[test]
    fn restart_sequence_of_a_crashing_container() {
        // The first exit restarts at once; then 10s, 20s, 40s waits.
        let mut b = Backoff::crash_loop();
        assert_eq!(
            b.restart("k", t(1), t(1)),
            Restart::Now {
                next_backoff_ms: 10_000
            }
        );
        assert_eq!(
            b.restart("k", t(2), t(2)),
            Restart::Wait { backoff_ms: 10_000 }
        );
        assert_eq!(
            b.restart("k", t(2), t(12)),
            Restart::Now {
                next_backoff_ms: 20_000
            }
        );
        assert_eq!(
            b.restart("k", t(13), t(32)),
            Restart::Wait { backoff_ms: 20_000 }
        );
        assert_eq!(
            b.restart("k", t(13), t(33)),
            Restart::Now {
                next_backoff_ms: 40_000
            }
        );
    }

    #[test]
    fn messages() {
        let pod = pod_full_name("default", "crash", "1234");
        assert_eq!(pod, "crash_default(1234)");
        assert_eq!(
            crash_key("default", "crash", "1234", "app"),
            "crash_default_1234_app"
        );
        assert_eq!(pull_key("1234", "nginx:nope"), "1234_nginx:nope");
        assert_eq!(
            crash_loop_event("app", &pod),
            "Back-off restarting failed container app in pod crash_default(1234)"
        );
        let rows = [
            (10_000, "10s"),
            (80_000, "1m20s"),
            (160_000, "2m40s"),
            (300_000, "5m0s"),
        ];
        for (ms, text) in rows {
            assert_eq!(
                crash_loop_message(ms, "app", &pod),
                format!("back-off {text} restarting failed container=app pod=crash_default(1234)")
            );
        }
    }
}
