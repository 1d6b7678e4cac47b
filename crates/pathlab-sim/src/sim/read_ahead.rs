//! Where a completion's lines are read ahead on a host of many devices
//! (`Simulation::preload_completion`): as the response is sent, or at the completion's start.
//!
//! Read as the response is sent, the lines' misses overlap the trip back; but whatever else
//! completes during the trip touches lines of its own, and once they are more than the cache
//! holds the lines read ahead are evicted before use. So a trip is read ahead from its start
//! when the completions expected within it are few enough: at most `IN_TRIP_AT_MOST`, from the
//! rate of the last `MEASURED_OVER` completions. Measured ends (session 25, this machine's
//! 1 MiB L2 a core): on the 32-host cluster (5 µs trips, about one completion in a trip) read as
//! the response is sent, its run took 0.61-0.73 of main's time where read at the completion's
//! start 0.81-0.96; on 10,000 × 8 × 1 (50 µs trips, some 4,200 completions in one) read as the
//! response is sent, 8-10% more CPU than main's (callgrind: 5 more LL misses an I/O, evicted
//! before use). Session 25 drew the line at a fixed 10 µs trip; a completion touches about 16
//! lines of its own there (callgrind), so 1,000 completions are about the 1 MiB the lines must
//! stay in.
//!
//! `respond` and `complete` each ask `as_sent` of the same trip: an I/O in flight across a new
//! measure may be read ahead at both or neither. That moves only where the misses fall (the reads
//! go into a black box), and a bit to say which was done has no room in the I/O's 64 bytes.

use crate::engine::TimeNs;

/// Models of this many devices or more (every host's together) read ahead: there the device's,
/// path's and worker's lines are out of the cache, and their misses overlap when read together;
/// on a few devices they stay in the cache and the reads only cost (some 70 instructions an I/O
/// on 1 × 8 × 32). The bound is the device histograms' batching's, for the same reason.
const READ_AHEAD_FROM: usize = crate::observe::device_latency::BATCHED_FROM;

/// The most completions expected within a trip back for its completion's lines to be read as
/// the response is sent (above: about 16 lines each, 1 MiB).
const IN_TRIP_AT_MOST: u64 = 1_000;

/// Completions over which the rate is measured anew.
const MEASURED_OVER: u32 = 4_096;

pub(super) struct ReadAhead {
    /// Whether anything is read ahead (`READ_AHEAD_FROM`).
    pub on: bool,
    /// Trips back up to this long are read ahead as the response is sent: the time in which
    /// `IN_TRIP_AT_MOST` completions came at the last measured rate (none before the first).
    sent_up_to_ns: TimeNs,
    completions: u32,
    since_ns: TimeNs,
}

impl ReadAhead {
    pub fn new(devices: usize) -> ReadAhead {
        ReadAhead { on: devices >= READ_AHEAD_FROM, sent_up_to_ns: 0, completions: 0, since_ns: 0 }
    }

    /// Whether a completion whose trip back is `one_way_ns` is read ahead as its response is
    /// sent (else at its start).
    #[inline(always)]
    pub fn as_sent(&self, one_way_ns: TimeNs) -> bool {
        one_way_ns <= self.sent_up_to_ns
    }

    /// A completion at `now`: every `MEASURED_OVER` of them the rate is measured anew.
    #[inline(always)]
    pub fn completed(&mut self, now: TimeNs) {
        self.completions += 1;
        if self.completions == MEASURED_OVER {
            self.measure(now);
        }
    }

    #[cold]
    fn measure(&mut self, now: TimeNs) {
        let span = now - self.since_ns;
        self.sent_up_to_ns = span.saturating_mul(IN_TRIP_AT_MOST) / u64::from(MEASURED_OVER);
        (self.completions, self.since_ns) = (0, now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 4,096 completions in 4,096 µs (one a µs): trips up to 1,000 µs (1,000 completions) are
    /// read as the response is sent, longer ones not; before the first measure none is.
    #[test]
    fn the_bound_is_the_trip_of_a_thousand_completions() {
        let mut r = ReadAhead::new(READ_AHEAD_FROM);
        assert!(r.on && !r.as_sent(1));
        for i in 1..=MEASURED_OVER {
            r.completed(u64::from(i) * 1_000);
        }
        assert!(r.as_sent(1_000_000) && !r.as_sent(1_000_001));
        assert!(!ReadAhead::new(READ_AHEAD_FROM - 1).on);
    }
}
