//! A work queue of object keys with rate-limited retries, as client-go's
//! `util/workqueue` has it: a key is queued once however often it is added
//! (`dirty`), is never handed to two syncs at once (`processing`), and a key
//! that failed comes back after the default controller rate limiter's delay
//! (`DefaultTypedControllerRateLimiter`: the larger of a per-item exponential
//! back-off, 5 ms doubling to 1000 s, and an overall 10 qps token bucket with
//! a burst of 100).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::clock::SimTime;

/// The first retry's delay (`ItemExponentialFailureRateLimiter` base, 5 ms).
const BASE_DELAY_MS: u64 = 5;
/// The longest retry delay (1000 s).
const MAX_DELAY_MS: u64 = 1_000_000;
/// The bucket's rate: 10 tokens a second, so 10 thousandths of a token a millisecond.
const MILLITOKENS_PER_MS: i64 = 10;
/// The bucket's size: 100 tokens.
const BURST_MILLITOKENS: i64 = 100_000;
const TOKEN: i64 = 1000;

/// The queue of one controller.
#[derive(Debug, Clone)]
pub struct WorkQueue {
    queue: VecDeque<String>,
    dirty: BTreeSet<String>,
    processing: BTreeSet<String>,
    /// Keys waiting for a delay to pass (`AddAfter`), by when they are due.
    waiting: BTreeMap<String, SimTime>,
    /// Failures per key since it was last forgotten.
    failures: BTreeMap<String, u32>,
    /// The token bucket: thousandths of a token, negative when reserved ahead.
    tokens: i64,
    /// When the bucket was last filled.
    filled_at: SimTime,
    /// The longest per-item back-off.
    max_delay_ms: u64,
}

impl Default for WorkQueue {
    fn default() -> WorkQueue {
        WorkQueue {
            queue: VecDeque::new(),
            dirty: BTreeSet::new(),
            processing: BTreeSet::new(),
            waiting: BTreeMap::new(),
            failures: BTreeMap::new(),
            tokens: BURST_MILLITOKENS,
            filled_at: SimTime::ZERO,
            max_delay_ms: MAX_DELAY_MS,
        }
    }
}

impl WorkQueue {
    /// A queue whose per-item back-off stops at `max_delay_ms` (the namespace
    /// controller's `nsControllerRateLimiter`: 5 ms doubling to 60 s, with the same bucket).
    pub fn with_max_delay(max_delay_ms: u64) -> WorkQueue {
        WorkQueue {
            max_delay_ms,
            ..WorkQueue::default()
        }
    }

    /// Queues `key` (`Add`); false when it was already waiting to be processed.
    pub fn add(&mut self, key: &str) -> bool {
        if !self.dirty.insert(key.to_owned()) {
            return false;
        }
        if !self.processing.contains(key) {
            self.queue.push_back(key.to_owned());
        }
        true
    }

    /// Queues `key` once `delay_ms` has passed (`AddAfter`); an earlier wait wins.
    pub fn add_after(&mut self, key: &str, delay_ms: u64, now: SimTime) {
        if delay_ms == 0 {
            self.add(key);
            return;
        }
        let due = now.plus(delay_ms);
        let at = self.waiting.entry(key.to_owned()).or_insert(due);
        *at = (*at).min(due);
    }

    /// Queues `key` after the rate limiter's delay (`AddRateLimited`); returns the delay.
    pub fn add_rate_limited(&mut self, key: &str, now: SimTime) -> u64 {
        let delay = self.when(key, now);
        self.add_after(key, delay, now);
        delay
    }

    /// The rate limiter's delay for `key` now (`When`): the larger of its
    /// exponential back-off and the bucket's wait.
    pub fn when(&mut self, key: &str, now: SimTime) -> u64 {
        let failures = self.failures.entry(key.to_owned()).or_default();
        let exponent = *failures;
        *failures += 1;
        let backoff = BASE_DELAY_MS
            .checked_shl(exponent)
            .unwrap_or(self.max_delay_ms)
            .min(self.max_delay_ms);
        backoff.max(self.reserve(now))
    }

    /// Takes a token from the bucket; the wait until it is there.
    fn reserve(&mut self, now: SimTime) -> u64 {
        let elapsed = now.as_millis().saturating_sub(self.filled_at.as_millis());
        let refill = i64::try_from(elapsed)
            .unwrap_or(i64::MAX)
            .saturating_mul(MILLITOKENS_PER_MS);
        self.tokens = self.tokens.saturating_add(refill).min(BURST_MILLITOKENS);
        self.filled_at = self.filled_at.max(now);
        self.tokens -= TOKEN;
        if self.tokens >= 0 {
            0
        } else {
            let missing = -self.tokens;
            u64::try_from((missing + MILLITOKENS_PER_MS - 1) / MILLITOKENS_PER_MS).unwrap_or(0)
        }
    }

    /// How many times `key` failed since it was last forgotten (`NumRequeues`).
    pub fn requeues(&self, key: &str) -> u32 {
        self.failures.get(key).copied().unwrap_or(0)
    }

    /// Clears `key`'s failures (`Forget`), after a sync that succeeded.
    pub fn forget(&mut self, key: &str) {
        self.failures.remove(key);
    }

    /// The next key to sync (`Get`), now being processed.
    pub fn get(&mut self) -> Option<String> {
        let key = self.queue.pop_front()?;
        self.dirty.remove(&key);
        self.processing.insert(key.clone());
        Some(key)
    }

    /// `key`'s sync is over (`Done`); if it was added meanwhile, it is queued again.
    pub fn done(&mut self, key: &str) {
        self.processing.remove(key);
        if self.dirty.contains(key) {
            self.queue.push_back(key.to_owned());
        }
    }

    /// Moves the keys whose wait is over into the queue; returns them.
    pub fn promote_due(&mut self, now: SimTime) -> Vec<String> {
        let due: Vec<String> = self
            .waiting
            .iter()
            .filter(|(_, at)| **at <= now)
            .map(|(k, _)| k.clone())
            .collect();
        for key in &due {
            self.waiting.remove(key);
            self.add(key);
        }
        due
    }

    /// When the next waiting key is due.
    pub fn next_due(&self) -> Option<SimTime> {
        self.waiting.values().min().copied()
    }

    /// Keys queued and not yet processed.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether no key is queued.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Whether `key` is being processed.
    pub fn is_processing(&self, key: &str) -> bool {
        self.processing.contains(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_queued_once_and_never_processed_twice() {
        // client-go util/workqueue/queue_test.go, TestAddWhileProcessing.
        let mut q = WorkQueue::default();
        assert!(q.add("a"));
        assert!(!q.add("a"));
        assert_eq!(q.len(), 1);
        assert_eq!(q.get().as_deref(), Some("a"));
        assert!(q.add("a"));
        assert_eq!(q.get(), None, "a is being processed");
        q.done("a");
        assert_eq!(q.get().as_deref(), Some("a"));
        q.done("a");
        assert_eq!(q.get(), None);
    }

    #[test]
    fn the_item_back_off_doubles_from_5ms_to_1000s() {
        // client-go util/workqueue/default_rate_limiters_test.go, TestItemExponentialFailureRateLimiter.
        let mut q = WorkQueue::default();
        let now = SimTime::ZERO;
        let delays: Vec<u64> = (0..5).map(|_| q.when("one", now)).collect();
        assert_eq!(delays, [5, 10, 20, 40, 80]);
        assert_eq!(q.when("two", now), 5);
        assert_eq!(q.requeues("one"), 5);
        q.forget("one");
        assert_eq!(q.when("one", now), 5);
        for _ in 0..30 {
            q.when("three", SimTime(1_000_000_000));
        }
        assert_eq!(q.when("three", SimTime(1_000_000_000)), MAX_DELAY_MS);
    }

    #[test]
    fn the_bucket_allows_a_burst_of_100_then_10_a_second() {
        // client-go util/workqueue/default_rate_limiters_test.go, TestBucketRateLimiter.
        let mut q = WorkQueue::default();
        for i in 0..100 {
            assert_eq!(q.reserve(SimTime::ZERO), 0, "token {i}");
        }
        assert_eq!(q.reserve(SimTime::ZERO), 100);
        assert_eq!(q.reserve(SimTime::ZERO), 200);
    }

    #[test]
    fn delayed_keys_come_back_when_due() {
        let mut q = WorkQueue::default();
        let delay = q.add_rate_limited("a", SimTime(0));
        assert_eq!(delay, 5);
        assert_eq!(q.get(), None);
        assert_eq!(q.next_due(), Some(SimTime(5)));
        assert!(q.promote_due(SimTime(4)).is_empty());
        assert_eq!(q.promote_due(SimTime(5)), ["a"]);
        assert_eq!(q.get().as_deref(), Some("a"));
    }
}
