//! The pending events, ordered by (time, sequence number): events at equal times run in the
//! order they were scheduled, so no float and no heap internals ever decide event order.
//!
//! Most events are a fixed delay after the moment they are scheduled (a wire's one-way trip, a
//! fixed step inside an array). Scheduled at a time that never goes back, the events of one such
//! delay come due in the order they were scheduled: each delay gets a FIFO lane, and only the
//! rest (service times, absolute times) go to the heap. `pop` takes the least key among the
//! heap's top and the lanes' fronts, so the order is exactly the heap-only order.

use super::TimeNs;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

/// Lanes kept at most; further fixed delays go to the heap (a lane costs a comparison per pop).
const MAX_LANES: usize = 4;

/// `key` is the time in the high 64 bits and the sequence number in the low: one integer
/// comparison orders by time, then by scheduling order.
struct Entry<E> {
    key: u128,
    event: E,
}

impl<E> Entry<E> {
    fn time(&self) -> TimeNs {
        (self.key >> 64) as TimeNs
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
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
        other.key.cmp(&self.key)
    }
}

pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    /// (delay, its events in key order).
    lanes: Vec<(TimeNs, VecDeque<Entry<E>>)>,
    /// The least key and where it is (`None`: the heap; `Some(i)`: lane `i`), kept current so
    /// that peeking costs nothing and popping scans the lanes once.
    next: Option<(u128, Option<usize>)>,
    next_seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(1024), lanes: Vec::new(), next: None, next_seq: 0 }
    }
}

impl<E> EventQueue<E> {
    fn entry(&mut self, time: TimeNs, event: E) -> Entry<E> {
        let key = (u128::from(time) << 64) | u128::from(self.next_seq);
        self.next_seq += 1;
        Entry { key, event }
    }

    /// A new entry at `place` may be the next one.
    fn offer(&mut self, key: u128, place: Option<usize>) {
        if self.next.is_none_or(|(least, _)| key < least) {
            self.next = Some((key, place));
        }
    }

    pub fn schedule(&mut self, time: TimeNs, event: E) {
        let entry = self.entry(time, event);
        self.offer(entry.key, None);
        self.heap.push(entry);
    }

    /// Schedules `event` at `now + delay`, where `delay` is one of a few fixed delays and `now`
    /// never decreases from one call to the next (the scheduler's clock).
    pub fn schedule_fixed(&mut self, now: TimeNs, delay: TimeNs, event: E) {
        let entry = self.entry(now.saturating_add(delay), event);
        let key = entry.key;
        match self.lanes.iter().position(|(d, _)| *d == delay) {
            Some(i) => {
                // Behind the lane's front, unless the lane was empty.
                let lane = &mut self.lanes[i].1;
                let was_empty = lane.is_empty();
                lane.push_back(entry);
                if was_empty {
                    self.offer(key, Some(i));
                }
            }
            None if self.lanes.len() < MAX_LANES => {
                self.lanes.push((delay, VecDeque::from([entry])));
                self.offer(key, Some(self.lanes.len() - 1));
            }
            None => {
                self.offer(key, None);
                self.heap.push(entry);
            }
        }
    }

    /// Time of the next event.
    pub fn peek_time(&self) -> Option<TimeNs> {
        self.next.map(|(key, _)| (key >> 64) as TimeNs)
    }

    pub fn pop(&mut self) -> Option<(TimeNs, E)> {
        let (_, place) = self.next?;
        let entry = match place {
            None => self.heap.pop(),
            Some(i) => self.lanes[i].1.pop_front(),
        }
        .expect("the next entry is where `next` says");
        self.next = self.heap.peek().map(|e| (e.key, None));
        for i in 0..self.lanes.len() {
            if let Some(front) = self.lanes[i].1.front() {
                let key = front.key;
                self.offer(key, Some(i));
            }
        }
        Some((entry.time(), entry.event))
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

    /// Lanes and heap together give exactly the order of one heap, ties included.
    #[test]
    fn lanes_keep_the_heap_order() {
        let mut mixed = EventQueue::default();
        let mut heap_only = EventQueue::default();
        let mut now = 0;
        let mut x: u64 = 12345;
        for n in 0..2000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let delay = [0, 50, 50, 100, 7, 3, 11, 13][(x >> 60) as usize % 8] + (n % 3) * ((x >> 33) % 2);
            let fixed = (x >> 20) % 2 == 0;
            if fixed {
                mixed.schedule_fixed(now, delay, n);
            } else {
                mixed.schedule(now + delay, n);
            }
            heap_only.schedule(now + delay, n);
            if (x >> 40) % 3 == 0 {
                let (a, b) = (mixed.pop(), heap_only.pop());
                assert_eq!(a, b);
                now = a.map_or(now, |(t, _)| t);
            }
        }
        let rest: Vec<_> = std::iter::from_fn(|| mixed.pop()).collect();
        let expected: Vec<_> = std::iter::from_fn(|| heap_only.pop()).collect();
        assert_eq!(rest, expected);
    }
}
