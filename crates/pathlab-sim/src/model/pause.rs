//! Host pauses: moments when the host stops reaping completions. A guest's vCPU descheduled by
//! the VMkernel, a VMkernel world waiting for a physical CPU, or a load generator's own stall (a
//! Java tool such as vdbench stops its threads for garbage collection) all look the same from
//! the storage: I/Os finish at the array and the VMkernel completes them (esxtop's counters, the
//! multipath policy and the queue slots see them at once), but the application sees them only
//! when the pause ends, and a closed-loop application issues nothing meanwhile. Open-loop
//! arrivals are not held back (as if the load generator's issuing thread ran elsewhere): a
//! model of a paused open-loop generator would also defer them to the pause's end.

use crate::engine::dist::Shape;
use crate::engine::rng::Stream;
use crate::engine::TimeNs;
use crate::scenario::units::MAX_DURATION_NS;

/// What a host's application waits for before it sees a completion the kernel made: the host
/// stack's own time per I/O, and the end of a pause under way. One record per host: a
/// completion reads both in one look-up.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reaping {
    /// Time per I/O outside the device queue, spent before the application reaps it.
    pub stack_ns: TimeNs,
    /// The time before which the application reaps no completion (a pause's end).
    pub paused_until: TimeNs,
}

/// Pauses at Poisson instants with a mean gap, each with a duration drawn from `shape`.
#[derive(Clone, Copy, Debug)]
pub struct HostPauses {
    pub mean_gap_ns: f64,
    pub mean_duration_ns: f64,
    pub shape: Shape,
}

impl HostPauses {
    /// Time from one pause's start to the next one's (exponential: Poisson instants).
    pub fn next_gap_ns(&self, rng: &mut Stream) -> TimeNs {
        (-rng.open01().ln() * self.mean_gap_ns).round() as TimeNs
    }

    pub fn next_duration_ns(&self, rng: &mut Stream) -> TimeNs {
        // Capped like service times: a far tail draw stays on the clock.
        (self.mean_duration_ns * self.shape.factor(rng.open01())).min(MAX_DURATION_NS as f64).round() as TimeNs
    }
}
