//! A gauge of a level over time (commands active, queued, outstanding), owned by the model
//! object whose level it is.

use super::TimeNs;

/// A quantity that holds a level over time (commands active, queued, outstanding), integrated
/// so that its time average over any window is exact.
///
/// The integral is kept as a moment rather than as an area brought up to date at each change:
/// with changes `d_i` at times `t_i`, ∫₀ⁿᵒʷ level dt = Σ d_i (now - t_i) = value × now - Σ d_i t_i.
/// A change then adds `d × now` to the moment (no multiplication by an elapsed time, no time
/// stored), about a third of the instructions of the area's update, and the integral is the same
/// integer. Arithmetic wraps: the moment's terms may overflow on their way, the integral (which
/// is at most value × now < 2^128) comes out exact.
///
/// The moment is held as two 64-bit halves, not a `u128`: a `u128` is aligned to 16 bytes and
/// left 8 of the level's 32 bytes padding; at 24 bytes a device's two levels leave room in its
/// first cache line for what else every I/O reads of it (`model::Device`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Level {
    value: u64,
    /// Σ d_i t_i, modulo 2^128: low half, high half.
    moment: [u64; 2],
}

impl Level {
    #[inline]
    pub fn add(&mut self, now: TimeNs, delta: i64) {
        self.value = self.value.checked_add_signed(delta).expect("a level never goes below zero");
        let moment = self.moment().wrapping_add((i128::from(delta) * i128::from(now)) as u128);
        self.moment = [moment as u64, (moment >> 64) as u64];
    }

    /// One unit of level held from `from` to `to`, both changes made now: the value is
    /// unchanged and the moment gains `from - to`. Until `to` the area over-counts by `to - now`
    /// (the unit's time still to come), which the caller takes off what it reads before then
    /// (`sim/never_wait.rs`); from `to` on it is exact. The value never counts the unit: a
    /// caller bounding the level by its value must not need it to.
    #[inline]
    pub fn hold(&mut self, from: TimeNs, to: TimeNs) {
        let moment = self.moment().wrapping_add(u128::from(from)).wrapping_sub(u128::from(to));
        self.moment = [moment as u64, (moment >> 64) as u64];
    }

    #[inline]
    fn moment(&self) -> u128 {
        u128::from(self.moment[0]) | (u128::from(self.moment[1]) << 64)
    }

    /// ∫ level dt from time zero to `now`, in level × ns.
    pub fn area_at(&self, now: TimeNs) -> u128 {
        (u128::from(self.value) * u128::from(now)).wrapping_sub(self.moment())
    }

    pub fn value(&self) -> u64 {
        self.value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The moment gives the area a step-by-step integration gives, changes of any size included.
    #[test]
    fn area_is_the_integral_of_the_steps() {
        let mut level = Level::default();
        let (mut area, mut value, mut since) = (0u128, 0u64, 0u64);
        let mut x: u64 = 99;
        let mut now = 0;
        for _ in 0..10_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            now += (x >> 40) % 1_000_000_007;
            let delta = ((x >> 10) % 7) as i64 - (value.min(3) as i64);
            area += u128::from(value) * u128::from(now - since);
            since = now;
            value = value.checked_add_signed(delta).unwrap();
            level.add(now, delta);
            assert_eq!(level.area_at(now), area);
            assert_eq!(level.area_at(now + 5), area + u128::from(value) * 5);
            assert_eq!(level.value(), value);
        }
    }

    /// A unit held from 10 to 30 ns among ordinary changes: its area is 20 from 30 on, and
    /// before then over by the time still to come.
    #[test]
    fn a_held_unit_counts_its_whole_time_once_over() {
        let (mut held, mut stepped) = (Level::default(), Level::default());
        held.add(0, 2);
        stepped.add(0, 2);
        held.hold(10, 30);
        stepped.add(10, 1);
        assert_eq!(held.area_at(20), stepped.area_at(20) + 10);
        stepped.add(30, -1);
        held.add(40, 1);
        stepped.add(40, 1);
        assert_eq!((held.area_at(50), held.value()), (stepped.area_at(50), stepped.value()));
        assert_eq!(held.area_at(50), 2 * 50 + 20 + 10);
    }

    /// Near the end of time (2^64 ns) the moment's terms overflow; the area still comes out.
    #[test]
    fn late_times_do_not_overflow_the_area() {
        let mut level = Level::default();
        let late = u64::MAX - 10;
        level.add(late, 3);
        assert_eq!(level.area_at(late + 10), 30);
    }

    #[test]
    #[should_panic(expected = "never goes below zero")]
    fn a_level_below_zero_is_an_engine_bug() {
        Level::default().add(5, -1);
    }
}
