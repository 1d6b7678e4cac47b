//! What the application sees of each device through a failure: how long it waited with I/O
//! outstanding and no answer (the longest stall), and the I/Os that failed back to it.
//!
//! **Stall**: the longest time a device had I/O outstanding and answered none of it (no
//! completion and no error reached the application), measured from the later of its previous
//! answer and the issue of the oldest I/O still waiting, to its next answer. With one I/O
//! outstanding it is that I/O's response time; on a path lost without a link event it is the
//! stack's I/O timeout plus the retry's service; in an all-paths-down it lasts until a path is
//! back or the stack gives up (the I/Os then fail: an error is an answer). Measured from the start
//! of the run (warm-up included) until the measurement ends: a stall still going on then is
//! counted up to that end and flagged (`ongoing`). An application that issues nothing is not
//! stalled.

use crate::engine::TimeNs;
use serde::Serialize;

/// A device's longest stall so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stall {
    pub from_ns: TimeNs,
    pub ns: TimeNs,
    /// Still going on when the measurement ended (no answer came by then).
    pub ongoing: bool,
}

/// One device's stall clock, fed by the recorder at each issue and answer: 32 bytes
/// (`repr(C)`), so that the device record (`model::Device`) holds it in the line of a read's
/// esxtop counters, which a completion writes anyway (it had a line of its own, read at every
/// issue and answer: one last-level miss an I/O on a host of many devices, session 27). The
/// longest stall's start and whether it was still going on are kept beside its length rather than
/// as a `Stall` (24 bytes with its padding); the failed I/Os, which no completion touches, are
/// apart (`FailedIos`).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct DeviceWatch {
    /// I/Os issued and not yet answered (completed or failed) to the application.
    outstanding: u32,
    /// The longest stall was still going on when the measurement ended (no answer came by then).
    longest_ongoing: bool,
    /// Since when the device has had I/O outstanding and answered none.
    waiting_since: TimeNs,
    /// The longest stall so far: its start and its length.
    longest_from_ns: TimeNs,
    longest_ns: TimeNs,
}

const _: () = assert!(std::mem::size_of::<DeviceWatch>() == 32);

impl DeviceWatch {
    #[inline]
    pub fn issued(&mut self, now: TimeNs) {
        if self.outstanding == 0 {
            self.waiting_since = now;
        }
        self.outstanding += 1;
    }

    /// The application got an answer (a completion or an error) for one of the device's I/Os;
    /// `timing` false once the measurement has ended (stalls are no longer measured).
    #[inline]
    pub fn answered(&mut self, now: TimeNs, timing: bool) {
        if timing {
            let waited = now - self.waiting_since;
            if waited > self.longest_ns {
                self.set_longest(Stall { from_ns: self.waiting_since, ns: waited, ongoing: false });
            }
            self.waiting_since = now;
        }
        self.outstanding -= 1;
    }

    /// The measurement ends at `now`: a stall going on counts up to it.
    pub fn close(&mut self, now: TimeNs) {
        let waited = now - self.waiting_since;
        if self.outstanding > 0 && waited > self.longest_ns {
            self.set_longest(Stall { from_ns: self.waiting_since, ns: waited, ongoing: true });
        }
    }

    fn set_longest(&mut self, s: Stall) {
        (self.longest_from_ns, self.longest_ns, self.longest_ongoing) = (s.from_ns, s.ns, s.ongoing);
    }

    /// The device's longest stall so far.
    pub fn longest(&self) -> Stall {
        Stall { from_ns: self.longest_from_ns, ns: self.longest_ns, ongoing: self.longest_ongoing }
    }
}

/// The I/Os of one device that failed back to the application, over the whole run (the drain
/// included), and the first and last time one did.
#[derive(Clone, Copy, Debug, Default)]
pub struct FailedIos {
    pub count: u64,
    pub first_ns: TimeNs,
    pub last_ns: TimeNs,
}

impl FailedIos {
    pub fn failed(&mut self, now: TimeNs) {
        if self.count == 0 {
            self.first_ns = now;
        }
        self.count += 1;
        self.last_ns = now;
    }
}

/// What the application saw of one device, or of one host (its devices together: the longest
/// stall of any of them, named in `device`, and every failed I/O).
#[derive(Debug, Clone, Serialize)]
pub struct ApplicationSaw {
    pub host: String,
    /// The device (`HOST/NAME` when another host has one of that name, as the interval rows
    /// name it); on a host's row, the device of its longest stall (empty when none stalled).
    pub device: String,
    /// The longest stall, seconds (see the module's definition).
    pub longest_stall_s: f64,
    pub stall_from_s: f64,
    /// `None`: still stalled when the measurement ended.
    pub stall_to_s: Option<f64>,
    /// I/Os that failed back to the application (an error), and the first and last time one did.
    pub failed_ios: u64,
    pub first_failed_s: Option<f64>,
    pub last_failed_s: Option<f64>,
}

fn seconds(ns: TimeNs) -> f64 {
    ns as f64 / 1e9
}

impl ApplicationSaw {
    pub fn of_device(host: &str, device: &str, w: &DeviceWatch, f: &FailedIos) -> Self {
        let s = w.longest();
        let failed = |t: TimeNs| (f.count > 0).then(|| seconds(t));
        ApplicationSaw {
            host: host.to_string(),
            device: device.to_string(),
            longest_stall_s: seconds(s.ns),
            stall_from_s: seconds(s.from_ns),
            stall_to_s: (!s.ongoing).then(|| seconds(s.from_ns + s.ns)),
            failed_ios: f.count,
            first_failed_s: failed(f.first_ns),
            last_failed_s: failed(f.last_ns),
        }
    }

    /// A host's row from its devices' rows.
    pub fn of_host(host: &str, devices: &[&ApplicationSaw]) -> Self {
        let worst = devices.iter().copied().max_by(|a, b| a.longest_stall_s.total_cmp(&b.longest_stall_s));
        let times = |pick: fn(&ApplicationSaw) -> Option<f64>| devices.iter().filter_map(move |d| pick(d));
        ApplicationSaw {
            host: host.to_string(),
            device: worst.filter(|w| w.longest_stall_s > 0.0).map_or_else(String::new, |w| w.device.clone()),
            longest_stall_s: worst.map_or(0.0, |w| w.longest_stall_s),
            stall_from_s: worst.map_or(0.0, |w| w.stall_from_s),
            stall_to_s: worst.map_or(Some(0.0), |w| w.stall_to_s),
            failed_ios: devices.iter().map(|d| d.failed_ios).sum(),
            first_failed_s: times(|d| d.first_failed_s).min_by(f64::total_cmp),
            last_failed_s: times(|d| d.last_failed_s).max_by(f64::total_cmp),
        }
    }
}

/// A fault on the run's timeline as the result gives it, in seconds from the start.
#[derive(Debug, Clone, Serialize)]
pub struct FaultSeen {
    pub kind: &'static str,
    pub target: String,
    pub start_s: f64,
    /// `None` for a moment.
    pub end_s: Option<f64>,
}

/// What the application saw through the run's faults: per device and per host, then how each
/// came back from each fault (`observe::recovery`).
#[derive(Debug, Clone, Serialize)]
pub struct ApplicationView {
    pub devices: Vec<ApplicationSaw>,
    pub hosts: Vec<ApplicationSaw>,
    /// The scenario's faults in file order (`Recovery::fault` indexes them).
    pub faults: Vec<FaultSeen>,
    pub recovery: Vec<super::recovery::Recovery>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stall_runs_from_the_later_of_the_last_answer_and_the_first_issue_to_the_next_answer() {
        let (mut w, mut f) = (DeviceWatch::default(), FailedIos::default());
        w.issued(0);
        w.issued(1);
        w.answered(3, true); // 3 from the issue at 0
        w.answered(10, true); // 7 from the answer at 3, though its I/O was issued at 1
        assert_eq!(w.longest(), Stall { from_ns: 3, ns: 7, ongoing: false });
        // Idle from 10 to 20: an application that issues nothing is not stalled.
        w.issued(20);
        w.answered(22, true);
        assert_eq!(w.longest().ns, 7);
        // Still waiting when the measurement ends at 50: counted to the end, and said to be.
        w.issued(30);
        w.close(50);
        assert_eq!(w.longest(), Stall { from_ns: 30, ns: 20, ongoing: true });
        // After the end, answers no longer time stalls; a failure still counts.
        w.answered(200, false);
        f.failed(200);
        assert_eq!((w.longest().ns, f.count, f.first_ns, f.last_ns), (20, 1, 200, 200));
    }
}
