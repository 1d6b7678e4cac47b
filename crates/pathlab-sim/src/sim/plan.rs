//! The host's step plan, fixed per model when the run is made: whether an I/O's steps on the
//! host may leave out the tests for mechanisms the model lacks.
//!
//! The hot steps (`handle`, `issue_in`, `place`, `send_on`, `advance`, `station_done`,
//! `respond`, `complete`, `reap`) are generic over `const PLAIN: bool`, one body each;
//! `run_until` picks the instance once. In the plain instance a test for a mechanism the model
//! lacks is `!PLAIN && …`, folded away by the compiler: a per-path queue depth, NVMe tags,
//! interrupt coalescing, timed links, a slow drain, congestion or errors on a path, a blocked,
//! disconnected, transitioning or inaccessible path, extents and offsets, per-nexus counts,
//! keep-alive's traffic, a host stack's time and pauses before the application reaps, RAID
//! groups' disks (a station's end that is a disk's operation, `station_done`), and the tickets
//! of attempts that cannot change (no timeout, retry or refusal is ever scheduled).
//! Each was a test or a look-up an I/O (session 26: the host's steps 394 instructions an I/O on
//! 1 × 8 × 32, the hand-written loop's 107).
//!
//! A fault applied mid-run (`model::fault`) may turn a mechanism on: a model with any fault
//! scheduled takes the general plan from the start, as does one whose arrays balance their
//! LUNs (a pass moves ownership) or refuse commands with BUSY (a resend).

use super::Simulation;
use crate::model::Step;
use pathlab_policy::AluaState;

impl Simulation {
    /// Whether the plain plan holds for this run: none of the mechanisms it leaves out is in
    /// the model now, and nothing in the run can turn one on.
    pub(super) fn plain_plan(&self) -> bool {
        let m = &self.model;
        let no_faults = self.faults.is_empty() && self.plan.fault_windows.is_empty();
        let arrays_steady = m.arrays.iter().all(|a| a.balance.is_none() && a.busy.is_none());
        let paths_healthy = m.paths.iter().all(|p| {
            p.connected
                && !p.blocked
                && !p.transitioning
                && p.alua != AluaState::Unavailable
                && !p.delayed()
                && !p.erring()
        });
        let no_rejects = m.routes.iter().all(|r| r.last() != Some(&Step::Reject));
        let plain_adapters = m.adapters.iter().all(|a| a.coalescing.is_none() && a.bytes_per_ns.is_none());
        let plain_devices = m.devices.iter().all(|d| !d.per_path_depth) && m.tags.pools.is_empty();
        // Said apart though a RAID group also keeps offsets (`Model::reads_offsets`):
        // `station_done` leaves out the test for a disk.
        let no_disks = m.backends.groups.is_empty();
        let reaped_at_once = m.host_reaping.iter().all(|r| r.stack_ns == 0 && r.paused_until == 0)
            && m.host_pauses.iter().all(Option::is_none);
        no_faults
            && arrays_steady
            && paths_healthy
            && no_rejects
            && plain_adapters
            && plain_devices
            && no_disks
            && reaped_at_once
            && !self.keeps_offsets
            && !m.host.keeps_nexus_counts()
            && self.keep_alive_seen.is_none()
    }
}
