//! Service time of an array port: a fixed part per I/O plus a part per KiB, scaled by the
//! I/O's own quantile through the configured distribution.

use crate::engine::dist::Shape;
use crate::engine::TimeNs;
use crate::scenario::units::MAX_DURATION_NS;

#[derive(Clone, Copy, Debug)]
pub struct ServiceModel {
    pub fixed_ns: f64,
    pub per_kib_ns: f64,
    pub shape: Shape,
}

impl ServiceModel {
    pub fn mean_ns(&self, bytes: u64) -> f64 {
        // Through i64: converting a signed integer to f64 is one instruction, an unsigned one
        // several; an I/O is at most 1 GiB (`bounds::BLOCK_BYTES`), so the value is the same.
        self.fixed_ns + self.per_kib_ns * bytes as i64 as f64 / 1024.0
    }

    pub fn sample_ns(&self, bytes: u64, quantile: f64) -> TimeNs {
        // Capped at the longest time a scenario may name: a far tail draw stays on the clock.
        nearest_ns((self.mean_ns(bytes) * self.shape.factor(quantile)).min(MAX_DURATION_NS as f64))
    }
}

/// `ns.round() as TimeNs` without the call to libm's `round` (about 20 instructions per I/O):
/// for a duration below 2^63 the fraction `ns - whole` is exact, so the result is the same to
/// the bit, halves rounded up and below zero 0. The conversions go through i64 (one instruction
/// each way, where u64's take several): service times are capped at `MAX_DURATION_NS`, far below
/// 2^63.
#[inline]
fn nearest_ns(ns: f64) -> TimeNs {
    let whole = ns as i64;
    if whole < 0 {
        return 0;
    }
    // The half up added as a number, not taken as a branch: a random time's fraction is a
    // coin toss, and the branch was mispredicted half the time (callgrind --branch-sim).
    whole as TimeNs + TimeNs::from(ns - whole as f64 >= 0.5)
}

#[cfg(test)]
mod tests {
    use super::{nearest_ns, MAX_DURATION_NS};

    #[test]
    fn nearest_ns_rounds_as_round_does() {
        let below_half = 0.5 - f64::EPSILON / 4.0; // 0.49999999999999994
        let cap = MAX_DURATION_NS as f64;
        for ns in
            [0.0, -0.7, -0.2, -5.5, 0.5, 1.5, 2.5, below_half, 2.0 + below_half, 1e15 + 0.5, cap, cap - 0.5, 123.456]
        {
            assert_eq!(nearest_ns(ns), ns.round() as u64, "{ns}");
        }
    }
}
