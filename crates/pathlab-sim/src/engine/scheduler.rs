//! The clock and the event queue together: time moves only by taking the next event (or by
//! `advance_to`, for work kept out of the queue), and no event can be scheduled before now.
//!
//! Cancellation is by ticket, not by searching the heap: an event that belongs to one attempt
//! of an I/O carries that attempt's ticket, and when the I/O moves to a new attempt or ends,
//! every event still holding the old ticket is dropped as it comes due (the simulation's
//! `Simulation::handle` and `Simulation::current`), at the cost of one comparison.

use super::event_queue::EventQueue;
use super::TimeNs;

pub struct Scheduler<E: Copy> {
    now: TimeNs,
    queue: EventQueue<E>,
    /// Events taken so far (the benchmark's events per second).
    taken: u64,
}

impl<E: Copy> Default for Scheduler<E> {
    fn default() -> Self {
        Scheduler { now: 0, queue: EventQueue::default(), taken: 0 }
    }
}

impl<E: Copy> Scheduler<E> {
    pub fn now(&self) -> TimeNs {
        self.now
    }

    /// Schedules `event` `delay` ns from now.
    #[inline(always)]
    pub fn after(&mut self, delay: TimeNs, event: E) {
        self.queue.schedule(self.now.saturating_add(delay), event);
    }

    /// Schedules `event` `delay` ns from now, where `delay` is a constant of the model (a wire's
    /// one-way trip, a fixed step): such events wait in a FIFO lane instead of the heap.
    #[inline(always)]
    pub fn after_fixed(&mut self, delay: TimeNs, event: E) {
        self.queue.schedule_fixed(self.now, delay, event);
    }

    /// Schedules `event` at `time`, which must not be in the past: an engine bug otherwise.
    pub fn at(&mut self, time: TimeNs, event: E) {
        assert!(time >= self.now, "event scheduled at {time} ns, before now ({} ns)", self.now);
        self.queue.schedule(time, event);
    }

    /// Time of the next event, if any.
    pub fn next_time(&self) -> Option<TimeNs> {
        self.queue.peek_time()
    }

    /// The next event if it is due by `until`, the clock moved to its time.
    #[inline(always)]
    pub fn next_until(&mut self, until: TimeNs) -> Option<E> {
        let (time, event) = self.queue.pop_until(until)?;
        self.now = time;
        self.taken += 1;
        Some(event)
    }

    /// Every pending event with its time, in no particular order.
    pub fn pending(&self) -> impl Iterator<Item = (TimeNs, &E)> {
        self.queue.pending()
    }

    /// Events taken so far.
    pub fn taken(&self) -> u64 {
        self.taken
    }

    /// Moves the clock to `time` without an event; never backwards.
    pub fn advance_to(&mut self, time: TimeNs) {
        self.now = self.now.max(time);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_come_in_time_order_and_move_the_clock() {
        let mut s = Scheduler::default();
        s.at(10, "b");
        s.after(5, "a");
        assert_eq!(s.next_until(4), None);
        assert_eq!(s.next_until(100), Some("a"));
        assert_eq!(s.now(), 5);
        s.after(1, "c");
        assert_eq!(s.next_until(100), Some("c"));
        assert_eq!(s.next_until(100), Some("b"));
        assert_eq!((s.now(), s.next_until(100)), (10, None));
    }

    #[test]
    #[should_panic(expected = "before now")]
    fn an_event_in_the_past_is_refused() {
        let mut s = Scheduler::default();
        s.at(10, ());
        s.next_until(10);
        s.at(9, ());
    }
}
