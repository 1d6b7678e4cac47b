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
        self.fixed_ns + self.per_kib_ns * bytes as f64 / 1024.0
    }

    pub fn sample_ns(&self, bytes: u64, quantile: f64) -> TimeNs {
        // Capped at the longest time a scenario may name: a far tail draw stays on the clock.
        (self.mean_ns(bytes) * self.shape.factor(quantile)).min(MAX_DURATION_NS as f64).round() as TimeNs
    }
}
