//! SPDK `bdev_nvme` multipath: active_passive, or active_active with the round_robin or
//! queue_depth selector.
//!
//! Source: spdk/spdk `module/bdev/nvme/bdev_nvme.c` (`bdev_nvme_find_io_path`,
//! `_bdev_nvme_find_io_path`, `_bdev_nvme_find_io_path_min_qd`), `doc/nvme_multipath.md`.
//!
//! All state is per SPDK thread (the I/O channel), here per submitting CPU (`IoDesc.cpu`). A
//! channel sees the bdev's paths in list order (the head is the preferred path) and caches a
//! current path. A path is available when its qpair is connected (not failed) and its ANA state
//! is optimized or non-optimized (standby and unavailable stand for inaccessible and change).
//! - Cached path present: active_passive returns it; active_active + round_robin counts
//!   `++rr_counter < rr_min_io` to return it again, else resets the counter to 0 and reselects.
//!   So every selected path gets exactly `rr_min_io` consecutive I/Os of that thread.
//! - Reselection (active_passive, round_robin): walk the list once, circularly, starting after
//!   the cached path (or at the head): the first available optimized path is cached and taken;
//!   failing that, the *first* available non-optimized path seen is cached and taken.
//!   active_passive therefore sticks to the first optimized path in list order.
//! - queue_depth: never cached; every I/O scans every path with a connected qpair for the fewest
//!   requests outstanding on *this thread's* qpair, least among optimized paths (strict `<`:
//!   ties go to the first in list), else among non-optimized ones. `rr_min_io` is ignored (the
//!   code, not the doc, which says the switch count applies to both). The qpair count is this
//!   policy's own count of its I/Os per (thread, path): in SPDK the qpair is shared by every
//!   namespace of the controller on that thread, which a per-device policy cannot see.
//! - Every channel's cache and counter are cleared when a path is added, its qpair disconnects
//!   (fails), its ANA state changes, or it reconnects; the last is skipped with
//!   `disable_auto_failback`, which is how the preferred path gets I/O back automatically by
//!   default ("if the preferred I/O path is restored, failback to it is done automatically").
//!
//! No usable path: the I/O waits on the channel's retry list, retried every 1 s (bounded by
//! `fast_io_fail_timeout_sec` / `ctrlr_loss_timeout_sec`, which the harness models).
//!
//! Parameters: `policy` active_passive (default) | active_active; `selector` round_robin
//! (default) | queue_depth, used by active_active only; `rr_min_io` 1..=4294967294, default 1
//! (the RPC's "unset" UINT32_MAX means 1); `disable_auto_failback`, default false.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::params::{check_range, ParamSpec, PolicyError, PolicySpec};
use crate::registered::{HostStack, Registered};
use crate::status::{PolicyStatus, SpdkPath};
use crate::{AluaState, HostView, IoDesc, IoDone, NoPathAction, PathDesc, PathId, PathSelector, PathSet, TimeNs};

/// `bdev_nvme_queue_retry_io(..., 1000)` when no path is available but one may come back.
const RETRY_DELAY_NS: TimeNs = 1_000_000_000;

pub(crate) const SPEC: PolicySpec = PolicySpec {
    stack: "SPDK bdev_nvme",
    summary: "Per-thread path cache: first optimized path, rr_min_io I/Os per path, or least busy qpair",
    params: &[
        ParamSpec {
            name: "policy",
            unset: None,
            range: None,
            choices: &["active_passive", "active_active"],
            help: "multipath policy (bdev_nvme_set_multipath_policy -p)",
        },
        ParamSpec {
            name: "selector",
            unset: None,
            range: None,
            choices: &["round_robin", "queue_depth"],
            help: "active_active path selector (-s)",
        },
        ParamSpec {
            name: "rr_min_io",
            unset: None,
            range: Some((1, 4_294_967_294)),
            choices: &[],
            help: "round_robin: I/Os sent down a path before moving on (-r)",
        },
        ParamSpec {
            name: "disable_auto_failback",
            unset: None,
            range: None,
            choices: &["false", "true"],
            help: "do not return to the preferred (first) path when it reconnects",
        },
    ],
};

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SpdkPolicy {
    #[default]
    ActivePassive,
    ActiveActive,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SpdkSelector {
    #[default]
    RoundRobin,
    QueueDepth,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct SpdkConfig {
    pub policy: SpdkPolicy,
    pub selector: SpdkSelector,
    pub rr_min_io: u64,
    pub disable_auto_failback: bool,
}

impl Default for SpdkConfig {
    fn default() -> Self {
        SpdkConfig {
            policy: SpdkPolicy::ActivePassive,
            selector: SpdkSelector::RoundRobin,
            rr_min_io: 1,
            disable_auto_failback: false,
        }
    }
}

impl Registered for SpdkConfig {
    const SPEC: &'static PolicySpec = &SPEC;
    const HOST: HostStack = HostStack::Spdk;

    fn validate(&self) -> Result<(), PolicyError> {
        check_range(SPEC.param("rr_min_io"), self.rr_min_io)
    }

    fn build(&self) -> Box<dyn PathSelector> {
        Box::new(SpdkBdevNvme::new(*self))
    }
}

impl SpdkConfig {
    fn caches_paths(&self) -> bool {
        self.policy == SpdkPolicy::ActivePassive || self.selector == SpdkSelector::RoundRobin
    }
}

/// One SPDK thread's I/O channel of the bdev.
#[derive(Clone, Default)]
struct Channel {
    current: Option<usize>,
    rr_counter: u64,
    /// Requests outstanding on this thread's qpair of each path.
    outstanding: Vec<u32>,
}

/// One NVMe bdev.
#[derive(Clone)]
pub struct SpdkBdevNvme {
    config: SpdkConfig,
    paths: PathSet,
    /// By thread (CPU).
    channels: BTreeMap<u32, Channel>,
}

impl SpdkBdevNvme {
    pub fn new(config: SpdkConfig) -> Self {
        SpdkBdevNvme { config, paths: PathSet::default(), channels: BTreeMap::new() }
    }

    fn optimized(&self, i: usize) -> bool {
        self.paths.alua(i) == AluaState::ActiveOptimized
    }

    fn accessible(&self, i: usize) -> bool {
        matches!(self.paths.alua(i), AluaState::ActiveOptimized | AluaState::ActiveNonOptimized)
    }

    fn available(&self, i: usize) -> bool {
        !self.paths.failed(i) && self.accessible(i)
    }

    /// `bdev_nvme_clear_current_io_path` on every channel.
    fn clear_caches(&mut self) {
        for ch in self.channels.values_mut() {
            ch.current = None;
            ch.rr_counter = 0;
        }
    }

    fn channel(&mut self, cpu: u32) -> &mut Channel {
        let n = self.paths.len();
        let ch = self.channels.entry(cpu).or_default();
        ch.outstanding.resize(n, 0);
        ch
    }

    /// `_bdev_nvme_find_io_path`.
    fn find_io_path(&self, current: Option<usize>) -> Option<usize> {
        let n = self.paths.len();
        let start = current.map_or(0, |c| (c + 1) % n);
        let mut non_optimized = None;
        for i in (0..n).map(|k| (start + k) % n).filter(|&i| self.available(i)) {
            if self.optimized(i) {
                return Some(i);
            }
            non_optimized = non_optimized.or(Some(i));
        }
        non_optimized
    }

    /// `_bdev_nvme_find_io_path_min_qd`.
    fn find_io_path_min_qd(&self, outstanding: &[u32]) -> Option<usize> {
        let mut optimized: Option<(usize, u32)> = None;
        let mut non_optimized: Option<(usize, u32)> = None;
        for i in (0..self.paths.len()).filter(|&i| self.available(i)) {
            let slot = if self.optimized(i) { &mut optimized } else { &mut non_optimized };
            if slot.is_none_or(|(_, best)| outstanding[i] < best) {
                *slot = Some((i, outstanding[i]));
            }
        }
        optimized.or(non_optimized).map(|(i, _)| i)
    }
}

impl PathSelector for SpdkBdevNvme {
    /// Reads no other device's commands in flight (`HostView::nexus_outstanding`).
    fn reads_host_queues(&self) -> bool {
        false
    }

    fn add_path(&mut self, path: &PathDesc) {
        self.paths.add(path);
        self.clear_caches();
    }

    fn fail_path(&mut self, path: PathId) {
        self.paths.set_failed(path, true);
        self.clear_caches();
    }

    fn reinstate_path(&mut self, path: PathId) {
        self.paths.set_failed(path, false);
        if !self.config.disable_auto_failback {
            self.clear_caches();
        }
    }

    fn set_alua_state(&mut self, path: PathId, state: AluaState) {
        self.paths.set_alua(path, state);
        self.clear_caches();
    }

    fn select_path(&mut self, io: &IoDesc, _now_ns: TimeNs, _host: &dyn HostView) -> Option<PathId> {
        if self.paths.is_empty() {
            return None;
        }
        let config = self.config;
        let ch = self.channel(io.cpu);
        if let Some(current) = ch.current {
            if config.policy == SpdkPolicy::ActivePassive {
                return Some(self.paths.id(current));
            }
            if config.selector == SpdkSelector::RoundRobin {
                ch.rr_counter += 1;
                if ch.rr_counter < config.rr_min_io {
                    return Some(self.paths.id(current));
                }
                ch.rr_counter = 0;
            }
        }
        let current = ch.current;
        let outstanding = std::mem::take(&mut ch.outstanding);
        let chosen =
            if config.caches_paths() { self.find_io_path(current) } else { self.find_io_path_min_qd(&outstanding) };
        let ch = self.channels.get_mut(&io.cpu).expect("created above");
        ch.outstanding = outstanding;
        if config.caches_paths() {
            ch.current = chosen;
        }
        chosen.map(|i| self.paths.id(i))
    }

    fn start_io(&mut self, path: PathId, io: &IoDesc, _now_ns: TimeNs) {
        let Some(i) = self.paths.index_of(path) else { return };
        self.channel(io.cpu).outstanding[i] += 1;
    }

    fn end_io(&mut self, path: PathId, io: &IoDesc, _done: &IoDone) {
        let Some(i) = self.paths.index_of(path) else { return };
        let count = &mut self.channel(io.cpu).outstanding[i];
        *count = count.saturating_sub(1);
    }

    fn no_path_action(&self) -> NoPathAction {
        NoPathAction::Queue { retry_ns: Some(RETRY_DELAY_NS), give_up_after_ns: None }
    }

    fn path_groups(&self) -> Vec<crate::PathGroup> {
        crate::path_set::flat_group(&self.paths)
    }

    /// Like `bdev_nvme_get_io_paths`: each path's ANA state and whether thread 0 uses it.
    fn status(&self) -> PolicyStatus {
        let (policy, selector) = match (self.config.policy, self.config.selector) {
            (SpdkPolicy::ActivePassive, _) => ("active_passive", None),
            (SpdkPolicy::ActiveActive, SpdkSelector::RoundRobin) => {
                ("active_active", Some(("round_robin", Some(self.config.rr_min_io))))
            }
            (SpdkPolicy::ActiveActive, SpdkSelector::QueueDepth) => ("active_active", Some(("queue_depth", None))),
        };
        let current = self.channels.get(&0).and_then(|ch| ch.current);
        let paths = (0..self.paths.len())
            .map(|i| SpdkPath {
                path: self.paths.id(i),
                ana: match self.paths.alua(i) {
                    AluaState::ActiveOptimized => "optimized",
                    AluaState::ActiveNonOptimized => "non_optimized",
                    AluaState::Standby | AluaState::Unavailable => "inaccessible",
                },
                connected: !self.paths.failed(i),
                current: current == Some(i),
            })
            .collect();
        PolicyStatus::Spdk { policy, selector, paths }
    }

    /// Available optimized paths, or the non-optimized ones when none is left; active_passive
    /// uses only the first of them.
    fn working_paths(&self) -> Vec<PathId> {
        let ids = self.paths.usable_indices(false).into_iter().map(|i| self.paths.id(i));
        match self.config.policy {
            SpdkPolicy::ActivePassive => ids.take(1).collect(),
            SpdkPolicy::ActiveActive => ids.collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{add_paths_with, complete, io, issue, run_on_cpus, TestHost};

    fn spdk(config: SpdkConfig, states: &[AluaState]) -> SpdkBdevNvme {
        let mut p = SpdkBdevNvme::new(config);
        add_paths_with(&mut p, states.len() as u32, |i, d| d.alua = states[i as usize]);
        p
    }

    fn round_robin(rr_min_io: u64) -> SpdkConfig {
        SpdkConfig { policy: SpdkPolicy::ActiveActive, rr_min_io, ..SpdkConfig::default() }
    }

    const AO: AluaState = AluaState::ActiveOptimized;
    const ANO: AluaState = AluaState::ActiveNonOptimized;

    #[test]
    fn round_robin_sends_rr_min_io_consecutive_ios_down_each_path() {
        let host = TestHost::default();
        let mut p = spdk(round_robin(3), &[AO; 3]);
        assert_eq!(run_on_cpus(&mut p, &host, &[0; 10]), [0, 0, 0, 1, 1, 1, 2, 2, 2, 0]);
        let mut p = spdk(round_robin(1), &[AO; 3]);
        assert_eq!(run_on_cpus(&mut p, &host, &[0; 4]), [0, 1, 2, 0]);
    }

    #[test]
    fn round_robin_state_is_per_thread() {
        let host = TestHost::default();
        let mut p = spdk(round_robin(2), &[AO; 3]);
        // Threads 0 and 1 interleaved, each with its own cache and counter.
        assert_eq!(run_on_cpus(&mut p, &host, &[0, 1, 0, 1, 0, 1, 0]), [0, 0, 0, 0, 1, 1, 1]);
    }

    #[test]
    fn round_robin_uses_non_optimized_paths_only_without_optimized_ones() {
        let host = TestHost::default();
        let mut p = spdk(round_robin(1), &[ANO, AO, ANO, AO]);
        assert_eq!(run_on_cpus(&mut p, &host, &[0; 4]), [1, 3, 1, 3]);
        p.fail_path(PathId(1));
        p.fail_path(PathId(3));
        // The cache is cleared: the walk from the head keeps the *first* non-optimized path seen,
        // and then the walk from it finds path 2 first.
        assert_eq!(run_on_cpus(&mut p, &host, &[0; 3]), [0, 2, 0]);
    }

    #[test]
    fn active_passive_fails_back_to_the_head_unless_disabled() {
        let host = TestHost::default();
        let mut p = spdk(SpdkConfig::default(), &[AO; 3]);
        assert_eq!(run_on_cpus(&mut p, &host, &[0, 0]), [0, 0]);
        p.fail_path(PathId(0));
        assert_eq!(run_on_cpus(&mut p, &host, &[0, 0]), [1, 1]);
        p.reinstate_path(PathId(0));
        assert_eq!(run_on_cpus(&mut p, &host, &[0, 0]), [0, 0]);

        let config = SpdkConfig { disable_auto_failback: true, ..SpdkConfig::default() };
        let mut p = spdk(config, &[AO; 3]);
        p.fail_path(PathId(0));
        assert_eq!(run_on_cpus(&mut p, &host, &[0]), [1]);
        p.reinstate_path(PathId(0));
        assert_eq!(run_on_cpus(&mut p, &host, &[0, 0]), [1, 1]);
        // An ANA change still clears the cache.
        p.set_alua_state(PathId(2), AO);
        assert_eq!(run_on_cpus(&mut p, &host, &[0]), [0]);
    }

    #[test]
    fn queue_depth_counts_each_threads_own_qpair() {
        let host = TestHost::default();
        let config = SpdkConfig { selector: SpdkSelector::QueueDepth, rr_min_io: 5, ..round_robin(1) };
        let mut p = spdk(config, &[AO, AO, ANO]);
        let (a, b) = (io(4096, 0), io(4096, 1));
        // Thread 0: path 0, then path 1 (0 is busy), then path 0 again (1 each: the first).
        assert_eq!([issue(&mut p, &host, &a, 0), issue(&mut p, &host, &a, 0)], [0, 1]);
        assert_eq!(issue(&mut p, &host, &a, 0), 0);
        // Thread 1's qpairs are empty: it takes path 0 regardless of thread 0's load.
        assert_eq!(issue(&mut p, &host, &b, 0), 0);
        // Thread 0: path 0 has 2, path 1 has 1; the non-optimized path 2 (0) is only a fallback.
        assert_eq!(issue(&mut p, &host, &a, 0), 1);
        complete(&mut p, 0, &a, 0, 10);
        complete(&mut p, 0, &a, 0, 10);
        assert_eq!(issue(&mut p, &host, &a, 10), 0);
    }

    #[test]
    fn rr_min_io_zero_is_rejected() {
        let err = SpdkConfig { rr_min_io: 0, ..SpdkConfig::default() }.validate().unwrap_err();
        assert_eq!(err.field, "rr_min_io");
    }
}
