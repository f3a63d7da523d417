//! `ControllerExpectations` / `UIDTrackingControllerExpectations`
//! (`pkg/controller/controller_utils.go`): how many creations a controller
//! still expects to see through its informer, and which deletions, so it
//! never acts twice on a stale cache.

use std::collections::{BTreeMap, BTreeSet};

use crate::clock::SimTime;

/// `ExpectationsTimeout`: expectations older than five minutes are ignored.
const TIMEOUT_MS: u64 = 5 * 60 * 1000;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Expected {
    add: i64,
    /// Keys of the Pods whose deletion is still to be seen.
    deleting: BTreeSet<String>,
    set_at: SimTime,
}

/// The expectations of every controller key.
#[derive(Debug, Clone, Default)]
pub struct Expectations {
    by_key: BTreeMap<String, Expected>,
}

impl Expectations {
    /// `SatisfiedExpectations`: no expectations, all seen, or expired.
    pub fn satisfied(&self, key: &str, now: SimTime) -> bool {
        self.by_key.get(key).is_none_or(|e| {
            (e.add <= 0 && e.deleting.is_empty())
                || now.as_millis().saturating_sub(e.set_at.as_millis()) > TIMEOUT_MS
        })
    }

    /// `ExpectCreations`.
    pub fn expect_creations(&mut self, key: &str, count: usize, now: SimTime) {
        self.by_key.insert(
            key.to_owned(),
            Expected {
                add: i64::try_from(count).unwrap_or(i64::MAX),
                deleting: BTreeSet::new(),
                set_at: now,
            },
        );
    }

    /// `ExpectDeletions` of these Pod keys.
    pub fn expect_deletions(&mut self, key: &str, pods: &[String], now: SimTime) {
        self.by_key.insert(
            key.to_owned(),
            Expected {
                add: 0,
                deleting: pods.iter().cloned().collect(),
                set_at: now,
            },
        );
    }

    /// `CreationObserved` (also called for creations that were never made).
    pub fn creation_observed(&mut self, key: &str) {
        if let Some(e) = self.by_key.get_mut(key) {
            e.add -= 1;
        }
    }

    /// `DeletionObserved` of one Pod.
    pub fn deletion_observed(&mut self, key: &str, pod: &str) {
        if let Some(e) = self.by_key.get_mut(key) {
            e.deleting.remove(pod);
        }
    }

    /// `DeleteExpectations`, when the controller object is gone.
    pub fn forget(&mut self, key: &str) {
        self.by_key.remove(key);
    }

    /// What is still expected for `key`: (creations, deletions).
    pub fn pending(&self, key: &str) -> (i64, usize) {
        self.by_key
            .get(key)
            .map_or((0, 0), |e| (e.add.max(0), e.deleting.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expectations_are_met_by_observations_or_time() {
        // pkg/controller/controller_utils_test.go, TestControllerExpectations.
        let mut e = Expectations::default();
        assert!(e.satisfied("rs", SimTime::ZERO));
        e.expect_creations("rs", 2, SimTime::ZERO);
        assert!(!e.satisfied("rs", SimTime::ZERO));
        e.creation_observed("rs");
        assert!(!e.satisfied("rs", SimTime::ZERO));
        e.creation_observed("rs");
        assert!(e.satisfied("rs", SimTime::ZERO));
        e.expect_deletions("rs", &["ns/a".into()], SimTime::ZERO);
        e.deletion_observed("rs", "ns/b");
        assert!(!e.satisfied("rs", SimTime::ZERO));
        assert!(e.satisfied("rs", SimTime(TIMEOUT_MS + 1)));
        e.deletion_observed("rs", "ns/a");
        assert!(e.satisfied("rs", SimTime::ZERO));
    }
}
