//! The event queue: events ordered by simulated time, then by the order they
//! were queued, so equal times replay identically.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::clock::SimTime;

/// A queued event and when it fires.
#[derive(Debug, Clone)]
struct Queued<E> {
    at: SimTime,
    order: u64,
    /// Periodic housekeeping that does not keep the cluster from being idle.
    background: bool,
    event: E,
}

impl<E> PartialEq for Queued<E> {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.order) == (other.at, other.order)
    }
}
impl<E> Eq for Queued<E> {}
impl<E> PartialOrd for Queued<E> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Queued<E> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.at, self.order).cmp(&(other.at, other.order))
    }
}

/// A deterministic priority queue of events.
#[derive(Debug, Clone)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Reverse<Queued<E>>>,
    next_order: u64,
    foreground: usize,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            next_order: 0,
            foreground: 0,
        }
    }
}

impl<E> EventQueue<E> {
    /// Queues `event` at `at`; `background` events do not count as work left to do.
    pub fn push(&mut self, at: SimTime, event: E, background: bool) {
        self.heap.push(Reverse(Queued {
            at,
            order: self.next_order,
            background,
            event,
        }));
        self.next_order += 1;
        if !background {
            self.foreground += 1;
        }
    }

    /// The earliest event, removed from the queue.
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let Reverse(q) = self.heap.pop()?;
        if !q.background {
            self.foreground -= 1;
        }
        Some((q.at, q.event))
    }

    /// When the earliest event fires.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|Reverse(q)| q.at)
    }

    /// Whether only background events are left.
    pub fn is_idle(&self) -> bool {
        self.foreground == 0
    }

    /// Number of queued events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether nothing at all is queued.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_by_time_then_by_queue_order() {
        let mut q = EventQueue::default();
        q.push(SimTime(5), "late", false);
        q.push(SimTime(1), "first", false);
        q.push(SimTime(1), "second", true);
        assert_eq!(q.pop(), Some((SimTime(1), "first")));
        assert!(!q.is_idle());
        assert_eq!(q.pop(), Some((SimTime(1), "second")));
        assert_eq!(q.pop(), Some((SimTime(5), "late")));
        assert!(q.is_idle());
        assert_eq!(q.pop(), None);
    }
}
