//! Linux's traffic-based keep-alive in the run (`model::keep_alive` has the kernel's rule): the
//! completions each host-controller connection has seen, and when the keep-alive of a path
//! lost without a link event times out.

use super::Simulation;
use crate::engine::TimeNs;
use crate::model::keep_alive;
use crate::model::stack::Probe;

/// Per connection (`Path::nexus`): the latest send time of a command it completed (`comp_seen`'s
/// input), kept only on a run where some path runs traffic-based keep-alive.
pub(super) type Completions = Option<Vec<Option<TimeNs>>>;

/// A command sent at `sent_ns` completed on connection `nexus` (a function of the table alone:
/// the completion holds its path's record while it calls it).
#[inline]
pub(super) fn traffic(seen: &mut Completions, nexus: usize, sent_ns: TimeNs) {
    if let Some(seen) = seen.as_mut() {
        let last = &mut seen[nexus];
        *last = (*last).max(Some(sent_ns));
    }
}

impl Simulation {
    /// What the run keeps for traffic-based keep-alive: nothing unless a path runs it.
    pub(super) fn keep_alive_completions(&self) -> Completions {
        let m = &self.model;
        (0..m.paths.len()).any(|p| m.traffic_based_keep_alive(p)).then(|| vec![None; m.nexus_fabric.len()])
    }

    /// When probe `step` of path `p`, lost now without a link event, finds the loss: Linux NVMe's
    /// keep-alive under traffic-based keep-alive as the kernel runs it, any other probe on its grid.
    pub(super) fn probe_finds_at(&self, p: usize, step: usize, probe: Probe) -> TimeNs {
        let now = self.events.now();
        match &self.keep_alive_seen {
            Some(seen) if step == 0 && self.model.traffic_based_keep_alive(p) => {
                keep_alive::found_at(probe.timeout_ns, true, now, seen[self.model.paths[p].nexus])
            }
            _ => probe.finds_at(now),
        }
    }
}
