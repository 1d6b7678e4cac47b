//! The figures of a window between two snapshots, per object: the one computation behind both
//! the interval rows and the measurement window's result.

use super::result::{EsxtopFigures, Figures};
use super::{GuestCounters, Snapshot};

pub struct Window<'a> {
    start: &'a Snapshot,
    end: &'a Snapshot,
    pub seconds: f64,
}

/// An object's esxtop figures over a window, with its mean active and queued commands.
pub struct ObjectWindow {
    pub actv: f64,
    pub qued: f64,
    pub figures: EsxtopFigures,
}

impl<'a> Window<'a> {
    pub fn new(start: &'a Snapshot, end: &'a Snapshot) -> Self {
        Window { start, end, seconds: (end.time - start.time) as f64 / 1e9 }
    }

    /// The application's counters over the window.
    pub fn guest(&self) -> GuestCounters {
        self.end.guest.since(&self.start.guest)
    }

    /// vdbench's figures of the window; `max_ns` is its longest response.
    pub fn guest_figures(&self, max_ns: u64) -> Figures {
        let outstanding = self.end.outstanding_area - self.start.outstanding_area;
        Figures::from_counters(&self.guest(), self.seconds, outstanding, max_ns)
    }

    pub fn device(&self, i: usize) -> ObjectWindow {
        ObjectWindow {
            actv: self.level(&self.start.device_active_area, &self.end.device_active_area, i),
            qued: self.level(&self.start.device_queued_area, &self.end.device_queued_area, i),
            figures: EsxtopFigures::from_counters(&self.end.devices[i].since(&self.start.devices[i]), self.seconds),
        }
    }

    pub fn adapter(&self, i: usize) -> ObjectWindow {
        ObjectWindow {
            actv: self.level(&self.start.adapter_active_area, &self.end.adapter_active_area, i),
            qued: self.level(&self.start.adapter_queued_area, &self.end.adapter_queued_area, i),
            figures: EsxtopFigures::from_counters(&self.end.adapters[i].since(&self.start.adapters[i]), self.seconds),
        }
    }

    /// A path's figures (esxtop shows no ACTV or QUED per path).
    pub fn path(&self, i: usize) -> EsxtopFigures {
        EsxtopFigures::from_counters(&self.end.paths[i].since(&self.start.paths[i]), self.seconds)
    }

    /// A station's commands per second and its busy servers on average.
    pub fn station(&self, i: usize) -> (f64, f64) {
        let commands = (self.end.station_commands[i] - self.start.station_commands[i]) as f64;
        let busy = self.level(&self.start.station_busy_area, &self.end.station_busy_area, i);
        (commands / self.seconds.max(f64::MIN_POSITIVE), busy)
    }

    /// Mean dirty bytes of array `i`'s write cache.
    pub fn cache_dirty(&self, i: usize) -> f64 {
        self.level(&self.start.cache_dirty_area, &self.end.cache_dirty_area, i)
    }

    /// Commands in error over the window, counted on the paths.
    pub fn errors(&self) -> u64 {
        self.end.paths.iter().zip(&self.start.paths).map(|(e, s)| e.errors - s.errors).sum()
    }

    /// I/Os queued again, counted on the devices.
    pub fn retries(&self) -> u64 {
        self.end.devices.iter().zip(&self.start.devices).map(|(e, s)| e.retries - s.retries).sum()
    }

    fn level(&self, start: &[u128], end: &[u128], i: usize) -> f64 {
        level_mean(end[i] - start[i], self.seconds)
    }
}

/// Mean level over a window from its integrated area (level × ns).
fn level_mean(area: u128, seconds: f64) -> f64 {
    if seconds > 0.0 {
        area as f64 / (seconds * 1e9)
    } else {
        0.0
    }
}
