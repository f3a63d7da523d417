//! What leaves the watch history, freed on another thread.
//!
//! A change that leaves the window is often the last holder of an old
//! version of an object: for a Pod, some sixty allocations written thousands
//! of changes ago and long out of the caches, each read again to be freed.
//! In a run of 5,000 Pods that freeing is a fifth of the run's cache misses
//! (callgrind's cache simulation). A batch run hands it to a second thread,
//! whose core is otherwise idle; what it frees and when does not change
//! anything the run computes. Off by default: the screen's runs and the
//! tests free as they go.

use std::sync::mpsc::{SyncSender, sync_channel};

/// How many values go to the freeing thread at once.
const BATCH: usize = 512;

/// How many batches may wait for it: the engine waits when it is further
/// behind, so the memory waiting to be freed stays bounded.
const WAITING: usize = 8;

/// Values to be freed, and where they go.
pub struct Retiring {
    batch: Vec<Box<dyn Send>>,
    to: Option<SyncSender<Vec<Box<dyn Send>>>>,
}

impl Retiring {
    /// Values are freed where they are given up.
    pub fn here() -> Retiring {
        Retiring {
            batch: Vec::new(),
            to: None,
        }
    }

    /// Values are freed on a thread of their own (started here; it ends
    /// with the last [`Retiring`] that sends to it). Freed here when the
    /// thread cannot be started.
    pub fn elsewhere() -> Retiring {
        let (to, batches) = sync_channel::<Vec<Box<dyn Send>>>(WAITING);
        let started = std::thread::Builder::new()
            .name("podflow-free".into())
            .spawn(move || batches.into_iter().for_each(drop));
        Retiring {
            batch: Vec::with_capacity(BATCH),
            to: started.ok().map(|_| to),
        }
    }

    /// Gives up `value`: freed now, or with its batch on the other thread.
    pub fn retire<T: Send + 'static>(&mut self, value: T) {
        let Some(to) = &self.to else {
            return;
        };
        self.batch.push(Box::new(value));
        if self.batch.len() >= BATCH {
            let full = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH));
            // The thread is gone only if it panicked: then the batch is freed here.
            let _ = to.send(full);
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
            .field("elsewhere", &self.to.is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::mpsc::channel;

    use super::*;

    /// Tells when it is dropped, and on which thread.
    struct Noisy(std::sync::mpsc::Sender<std::thread::ThreadId>);

    impl Drop for Noisy {
        fn drop(&mut self) {
            let _ = self.0.send(std::thread::current().id());
        }
    }

    #[test]
    fn here_frees_at_once() {
        let (tell, told) = channel();
        let mut retiring = Retiring::here();
        retiring.retire(Noisy(tell));
        assert_eq!(told.try_recv().ok(), Some(std::thread::current().id()));
    }

    #[test]
    fn elsewhere_frees_each_batch_on_its_thread() {
        let (tell, told) = channel();
        let mut retiring = Retiring::elsewhere();
        for _ in 0..BATCH {
            retiring.retire(Noisy(tell.clone()));
        }
        drop(tell);
        // Every value of the full batch is dropped, none on this thread.
        let threads: Vec<_> = told.iter().collect();
        assert_eq!(threads.len(), BATCH);
        assert!(threads.iter().all(|t| *t != std::thread::current().id()));
        // A copy frees where it is.
        let shared = Arc::new(());
        let mut copy = retiring.clone();
        copy.retire(Arc::clone(&shared));
        assert_eq!(Arc::strong_count(&shared), 1);
    }
}
