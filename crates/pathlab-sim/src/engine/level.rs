//! A gauge of a level over time (commands active, queued, outstanding), owned by the model
//! object whose level it is.

use super::TimeNs;

/// A quantity that holds a level over time (commands active, queued, outstanding), integrated
/// so that its time average over any window is exact.
#[derive(Clone, Copy, Debug, Default)]
pub struct Level {
    value: u64,
    area: u128,
    since: TimeNs,
}

impl Level {
    pub fn add(&mut self, now: TimeNs, delta: i64) {
        self.area = self.area_at(now);
        self.since = now;
        self.value = self.value.checked_add_signed(delta).expect("a level never goes below zero");
    }

    /// ∫ level dt from time zero to `now`, in level × ns.
    pub fn area_at(&self, now: TimeNs) -> u128 {
        self.area + u128::from(self.value) * u128::from(now - self.since)
    }

    pub fn value(&self) -> u64 {
        self.value
    }
}
