//! A min-heap of events keyed by (time, sequence number): events at equal times run in the
//! order they were scheduled, so no float and no heap internals ever decide event order.

use super::TimeNs;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    time: TimeNs,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        (self.time, self.seq) == (other.time, other.seq)
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap and we want the earliest event first.
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(1024), next_seq: 0 }
    }
}

impl<E> EventQueue<E> {
    pub fn schedule(&mut self, time: TimeNs, event: E) {
        self.heap.push(Entry { time, seq: self.next_seq, event });
        self.next_seq += 1;
    }

    /// Time of the next event.
    pub fn peek_time(&self) -> Option<TimeNs> {
        self.heap.peek().map(|e| e.time)
    }

    pub fn pop(&mut self) -> Option<(TimeNs, E)> {
        self.heap.pop().map(|e| (e.time, e.event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_time_events_keep_the_order_they_were_scheduled() {
        let mut q = EventQueue::default();
        q.schedule(10, "b1");
        q.schedule(5, "a");
        q.schedule(10, "b2");
        q.schedule(10, "b3");
        q.schedule(7, "c");
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, [(5, "a"), (7, "c"), (10, "b1"), (10, "b2"), (10, "b3")]);
    }
}
