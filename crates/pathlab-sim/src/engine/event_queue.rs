//! The pending events, ordered by (time, sequence number): events at equal times run in the
//! order they were scheduled, so no float and no heap internals ever decide event order.
//!
//! Most events are a fixed delay after the moment they are scheduled (a wire's one-way trip, a
//! fixed step inside an array). Scheduled at a time that never goes back, the events of one such
//! delay come due in the order they were scheduled: each delay gets a FIFO lane, and only the
//! rest (service times, absolute times) go to the heap. `pop` takes the least key among the
//! heap's top and the lanes' fronts, so the order is exactly the heap-only order.

use super::fifo::Fifo;
use super::min_heap::{Keyed, MinHeap};
use super::TimeNs;

/// Lanes kept at most; further fixed delays go to the heap (a lane costs a comparison per pop).
const MAX_LANES: usize = 4;

/// The key of a source with nothing in it: above every real key (a real key's time is at most
/// `TimeNs::MAX` and its sequence number never reaches `u64::MAX`).
const EMPTY: u128 = u128::MAX;

/// `key` is the time in the high 64 bits and the sequence number in the low: one integer
/// comparison orders by time, then by scheduling order.
type Entry<E> = Keyed<E>;

fn time_of(key: u128) -> TimeNs {
    (key >> 64) as TimeNs
}

pub struct EventQueue<E: Copy> {
    /// The least key of each source, `EMPTY` when it has none: slot 0 the heap, slot `1 + i`
    /// lane `i`. Kept current by every push and pop, so finding the next event is a scan of
    /// at most five integers and never looks inside a source.
    fronts: [u128; 1 + MAX_LANES],
    /// The fixed delay of each lane in use.
    delays: [TimeNs; MAX_LANES],
    /// Each lane's events, in key order.
    lanes: Vec<Fifo<Entry<E>>>,
    heap: MinHeap<E>,
    next_seq: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            fronts: [EMPTY; 1 + MAX_LANES],
            delays: [0; MAX_LANES],
            lanes: Vec::new(),
            heap: MinHeap::with_capacity(1024),
            next_seq: 0,
        }
    }
}

impl<E: Copy> EventQueue<E> {
    #[inline(always)]
    fn key(&mut self, time: TimeNs) -> u128 {
        let key = (u128::from(time) << 64) | u128::from(self.next_seq);
        self.next_seq += 1;
        key
    }

    #[inline]
    pub fn schedule(&mut self, time: TimeNs, event: E) {
        let key = self.key(time);
        self.fronts[0] = self.fronts[0].min(key);
        self.heap.push(Entry { key, item: event });
    }

    /// Schedules `event` at `now + delay`, where `delay` is one of a few fixed delays and `now`
    /// never decreases from one call to the next (the scheduler's clock). Inlined: it is most
    /// of the events a model schedules, and the call was a fifth of its cost.
    #[inline(always)]
    pub fn schedule_fixed(&mut self, now: TimeNs, delay: TimeNs, event: E) {
        let time = now.saturating_add(delay);
        let used = self.lanes.len();
        let lane = match self.delays[..used].iter().position(|&d| d == delay) {
            Some(i) => i,
            None if used < MAX_LANES => self.open_lane(delay),
            None => return self.schedule(time, event),
        };
        let key = self.key(time);
        let queue = &mut self.lanes[lane];
        if queue.is_empty() {
            self.fronts[1 + lane] = key;
        }
        queue.push_back(Entry { key, item: event });
    }

    #[cold]
    fn open_lane(&mut self, delay: TimeNs) -> usize {
        let lane = self.lanes.len();
        self.delays[lane] = delay;
        self.lanes.push(Fifo::default());
        lane
    }

    /// The least key and its source (0 the heap, `1 + i` lane `i`).
    #[inline(always)]
    fn least(&self) -> (u128, usize) {
        let mut best = (self.fronts[0], 0);
        for source in 1..1 + self.lanes.len() {
            if self.fronts[source] < best.0 {
                best = (self.fronts[source], source);
            }
        }
        best
    }

    /// Time of the next event.
    pub fn peek_time(&self) -> Option<TimeNs> {
        let (key, _) = self.least();
        (key != EMPTY).then(|| time_of(key))
    }

    /// Every pending event with its time, in no particular order.
    pub fn pending(&self) -> impl Iterator<Item = (TimeNs, &E)> {
        let lanes = self.lanes.iter().flat_map(|lane| lane.iter());
        self.heap.iter().chain(lanes).map(|e| (time_of(e.key), &e.item))
    }

    pub fn pop(&mut self) -> Option<(TimeNs, E)> {
        self.pop_until(TimeNs::MAX)
    }

    /// The next event if it is due by `until`.
    #[inline(always)]
    pub fn pop_until(&mut self, until: TimeNs) -> Option<(TimeNs, E)> {
        let (key, source) = self.least();
        if key == EMPTY || time_of(key) > until {
            return None;
        }
        let entry = if source == 0 {
            let entry = self.heap.pop();
            self.fronts[0] = self.heap.least_key().unwrap_or(EMPTY);
            entry
        } else {
            let lane = &mut self.lanes[source - 1];
            let entry = lane.pop_front();
            self.fronts[source] = lane.front().map_or(EMPTY, |e| e.key);
            entry
        }
        .expect("the least front is where `fronts` says");
        Some((time_of(entry.key), entry.item))
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
            let fixed = (x >> 20).is_multiple_of(2);
            if fixed {
                mixed.schedule_fixed(now, delay, n);
            } else {
                mixed.schedule(now + delay, n);
            }
            heap_only.schedule(now + delay, n);
            if (x >> 40).is_multiple_of(3) {
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
