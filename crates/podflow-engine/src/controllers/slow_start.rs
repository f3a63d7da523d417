//! `slowStartBatch` (`pkg/controller/replicaset/replica_set.go`): calls to
//! create Pods go out in batches of 1, 2, 4, ... so that a template the API
//! server refuses fails once, not a hundred times.

/// `controller.SlowStartInitialBatchSize`.
pub const INITIAL_BATCH_SIZE: usize = 1;

/// The batch sizes `count` calls go out in, starting at `initial`.
pub fn batches(count: usize, initial: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut remaining = count;
    let mut size = remaining.min(initial);
    while size > 0 {
        out.push(size);
        remaining -= size;
        size = (2 * size).min(remaining);
    }
    out
}

/// A slow start in progress: how many calls are left, the batch now out, and how it went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlowStart {
    remaining: usize,
    batch: usize,
    outstanding: usize,
    successes: usize,
    failed_in_batch: bool,
}

/// What to do after one call of the current batch answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Other calls of this batch are still out.
    Wait,
    /// Send a batch of this many calls.
    Send(usize),
    /// All done: how many succeeded, and how many were never sent (after a failure).
    Finished { successes: usize, skipped: usize },
}

impl SlowStart {
    /// Starts `count` calls; the size of the first batch to send.
    pub fn start(count: usize) -> (SlowStart, Next) {
        let batch = count.min(INITIAL_BATCH_SIZE);
        let state = SlowStart {
            remaining: count,
            batch,
            outstanding: batch,
            successes: 0,
            failed_in_batch: false,
        };
        let next = if batch == 0 {
            Next::Finished {
                successes: 0,
                skipped: 0,
            }
        } else {
            Next::Send(batch)
        };
        (state, next)
    }

    /// One call of the batch answered.
    pub fn answered(&mut self, ok: bool) -> Next {
        self.outstanding = self.outstanding.saturating_sub(1);
        if ok {
            self.successes += 1;
        } else {
            self.failed_in_batch = true;
        }
        if self.outstanding > 0 {
            return Next::Wait;
        }
        self.remaining -= self.batch;
        if self.failed_in_batch || self.remaining == 0 {
            return Next::Finished {
                successes: self.successes,
                skipped: self.remaining,
            };
        }
        self.batch = (2 * self.batch).min(self.remaining);
        self.outstanding = self.batch;
        Next::Send(self.batch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_double() {
        // pkg/controller/replicaset/replica_set_test.go, TestSlowStartBatch
        // (sizes: 1, 2, 4, ... capped by what remains).
        assert_eq!(batches(0, 1), Vec::<usize>::new());
        assert_eq!(batches(1, 1), [1]);
        assert_eq!(batches(3, 1), [1, 2]);
        assert_eq!(batches(5, 1), [1, 2, 2]);
        assert_eq!(batches(10, 1), [1, 2, 4, 3]);
        assert_eq!(batches(25, 1), [1, 2, 4, 8, 10]);
        assert_eq!(batches(10, 5), [5, 5]);
    }

    #[test]
    fn a_failure_stops_after_its_batch() {
        // TestSlowStartBatch: 10 calls, the 3rd onwards fail: 1 + 2 sent,
        // 2 succeed, the remaining 7 are skipped.
        let (mut s, first) = SlowStart::start(10);
        assert_eq!(first, Next::Send(1));
        assert_eq!(s.answered(true), Next::Send(2));
        assert_eq!(s.answered(true), Next::Wait);
        assert_eq!(
            s.answered(false),
            Next::Finished {
                successes: 2,
                skipped: 7
            }
        );
    }

    #[test]
    fn all_succeed() {
        let (mut s, _) = SlowStart::start(3);
        assert_eq!(s.answered(true), Next::Send(2));
        assert_eq!(s.answered(true), Next::Wait);
        assert_eq!(
            s.answered(true),
            Next::Finished {
                successes: 3,
                skipped: 0
            }
        );
    }
}
