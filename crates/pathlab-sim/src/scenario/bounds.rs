//! The floor and ceiling a real system can have, for each quantity whose unit alone does not
//! bound it (units bound every time, size, speed and distance: `units.rs`). Outside them a value
//! is a typo or a probe, and near zero or infinity it would make the engine crawl (a nanosecond
//! period is a billion events per simulated second) or leave its 64-bit clock. Each bound is
//! checked where its table is, before anything runs; the message says what is allowed and why.

use std::fmt::Display;
use std::ops::RangeInclusive;

/// Open-loop I/Os per second: one every 11.6 days (so that the first falls inside the 100-day
/// limit of a run) to one per nanosecond (the engine's clock cannot space arrivals closer).
pub const RATE: RangeInclusive<f64> = 1e-6..=1e9;
pub const RATE_WORDS: &str = "from 0.000001 (one I/O in 11.6 days) to 1000000000 (one per ns) I/Os per second";

/// Shortest periods, as (ns, words). Host pauses: a scheduler's time slice (1 ms) at least
/// apart, 1 µs at least each.
pub const PAUSE_EVERY: (u64, &str) = (1_000_000, "1ms (a scheduler's time slice)");
pub const PAUSE_DURATION: (u64, &str) = (1_000, "1us");
/// Timers of the host stack (command timeout, path checker, reconnect, loss timeout) and of an
/// array's balancer: a jiffy at HZ=1000 at least, the finest tick a kernel timer has (the
/// stacks themselves take whole seconds; tests run them faster).
pub const TIMER: (u64, &str) = (1_000_000, "1ms (a kernel timer's finest tick)");
/// An HBA's interrupt delay timer (QLogic ZIO): the firmware counts it in units of 100 us in one
/// byte, so 100 us to 25.5 ms (qla2xxx `qla_attr.c` refuses other values of `zio_timer`).
pub const INTERRUPT_DELAY_NS: RangeInclusive<u64> = 100_000..=25_500_000;
pub const INTERRUPT_DELAY_WORDS: &str = "100us to 25.5ms (the firmware's timer counts in units of 100us in one byte)";
/// Bursts (of a workload or of link errors): 1 µs at least.
pub const BURST_LENGTH: (u64, &str) = (1_000, "1us");

/// Host CPUs: Linux's largest `NR_CPUS` (8192); NUMA nodes: its `MAX_NUMNODES` (1024).
pub const CPUS: RangeInclusive<u32> = 1..=8192;
pub const NUMA_NODES: RangeInclusive<u32> = 1..=1024;
/// Commands a queue can hold: no more than the I/Os that may be alive at once
/// (`limits::MAX_LIVE_IOS`); tests of queueing theory give a queue that never fills.
pub const QUEUE_DEPTH: RangeInclusive<u32> = 1..=4_000_000;
pub const QUEUE_DEPTH_WORDS: &str = "1 to 4000000 (the most I/Os alive at once)";
/// Servers of a port or controller (its cores): 1 to 1024.
pub const SERVERS: RangeInclusive<u32> = 1..=1024;
/// Sequential streams of one workload: each keeps a cursor, one per fio job at most.
pub const STREAMS: RangeInclusive<u32> = 1..=65_536;
/// Spindle speeds made: 3,600 rpm (the slowest laptop drives) to 15,000 (the fastest).
pub const RPM: RangeInclusive<u32> = 3_600..=15_000;

/// One command's size: a 512-byte sector to 1 GiB (beyond any host's largest transfer; Linux's
/// `max_sectors_kb` tops out at a few MiB).
pub const BLOCK_BYTES: RangeInclusive<u64> = 512..=1 << 30;
pub const BLOCK_WORDS: &str = "512B (one sector) to 1GiB";

/// A service time per KiB: at most 1 s (a port moving 1 KB/s), so that the service of the
/// largest command stays within the bounds of times.
pub const PER_KIB_NS: RangeInclusive<u64> = 0..=1_000_000_000;

/// `value` if it is in `range`, else one line naming what is allowed and why.
pub fn within<T: PartialOrd + Display>(value: T, range: &RangeInclusive<T>, allowed: &str) -> Result<T, String> {
    if range.contains(&value) {
        Ok(value)
    } else {
        Err(format!("{value} is out of range: allowed {allowed}"))
    }
}

/// `value_ns` if it is at least the `shortest` period, else one line saying so.
pub fn long_enough(value_ns: u64, shortest: (u64, &str)) -> Result<u64, String> {
    if value_ns >= shortest.0 {
        Ok(value_ns)
    } else {
        Err(format!("{value_ns}ns is too short: at least {}", shortest.1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_outside_a_bound_name_what_is_allowed() {
        assert_eq!(within(4, &QUEUE_DEPTH, QUEUE_DEPTH_WORDS), Ok(4));
        let refused = within(0, &QUEUE_DEPTH, QUEUE_DEPTH_WORDS).unwrap_err();
        assert_eq!(refused, "0 is out of range: allowed 1 to 4000000 (the most I/Os alive at once)");
        assert!(within(f64::NAN, &RATE, RATE_WORDS).is_err());
        assert!(within(1e-11, &RATE, RATE_WORDS).unwrap_err().starts_with("0.00000000001 is out of range"));
        assert_eq!(
            long_enough(1, PAUSE_EVERY).unwrap_err(),
            "1ns is too short: at least 1ms (a scheduler's time slice)"
        );
        assert_eq!(long_enough(1_000, BURST_LENGTH), Ok(1_000));
    }
}
