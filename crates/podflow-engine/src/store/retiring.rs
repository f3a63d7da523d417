//! Where what the engine gives up is freed: the changes that leave the
//! watch history, and the kept Events that leave their window.
//!
//! A change that leaves the window is often the last holder of an old
//! version of an object: for a Pod, some sixty allocations written thousands
//! of changes ago and long out of the caches, each read again to be freed.
//! In a run of 5,000 Pods that freeing is a fifth of the run's cache misses
//! (callgrind's cache simulation); an Event kept for 8,192 series is as cold
//! when it goes. The engine frees what it gives up where it is given up
//! unless told to hand it on, in batches, to a function the program gives
//! (`podflow trace` frees them on a second thread: `src/memory.rs`); what is
//! freed, and when, changes nothing the run computes.

use std::sync::Arc;

/// A batch of values to be freed.
pub type Batch = Vec<Box<dyn Send>>;

/// What frees a batch, given by the program (shared by the store and the
/// engine's kept Events).
pub type Free = Arc<dyn Fn(Batch) + Send + Sync>;

/// How many values are handed on at once.
const BATCH: usize = 512;

/// Values to be freed, and what frees them.
pub struct Retiring {
    batch: Batch,
    free: Option<Free>,
}

impl Retiring {
    /// Values are freed where they are given up.
    pub fn here() -> Retiring {
        Retiring {
            batch: Vec::new(),
            free: None,
        }
    }

    /// Values are handed to `free` in batches.
    pub fn with(free: Free) -> Retiring {
        Retiring {
            batch: Vec::with_capacity(BATCH),
            free: Some(free),
        }
    }

    /// Gives up `value`: freed now, or with its batch by `free`.
    pub fn retire<T: Send + 'static>(&mut self, value: T) {
        let Some(free) = &self.free else {
            return;
        };
        self.batch.push(Box::new(value));
        if self.batch.len() >= BATCH {
            free(std::mem::replace(
                &mut self.batch,
                Vec::with_capacity(BATCH),
            ));
        }
    }
}

/// A copy (a snapshot of the store) frees where it is.
impl Clone for Retiring {
    fn clone(&self) -> Retiring {
        Retiring::here()
    }
}

impl std::fmt::Debug for Retiring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Retiring")
            .field("waiting", &self.batch.len())
            .field("handed_on", &self.free.is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    #[test]
    fn here_frees_at_once() {
        let value = Arc::new(());
        Retiring::here().retire(Arc::clone(&value));
        assert_eq!(Arc::strong_count(&value), 1);
    }

    #[test]
    fn with_a_function_hands_on_full_batches() {
        let batches = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&batches);
        let mut retiring = Retiring::with(Arc::new(move |batch: Batch| {
            seen.lock().unwrap().push(batch.len());
        }));
        let value = Arc::new(());
        for _ in 0..=BATCH {
            retiring.retire(Arc::clone(&value));
        }
        // One full batch handed on (and freed there); one value waits.
        assert_eq!(*batches.lock().unwrap(), [BATCH]);
        assert_eq!(Arc::strong_count(&value), 2);
        // A copy frees where it is.
        let mut copy = retiring.clone();
        copy.retire(Arc::clone(&value));
        assert_eq!(Arc::strong_count(&value), 2);
    }
}
