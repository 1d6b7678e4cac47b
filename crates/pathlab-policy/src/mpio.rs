//! Windows MPIO with the Microsoft DSM (msdsm): its six load-balance policies.
//!
//! Sources: Microsoft, "MPIO Policies" (learn.microsoft.com dd851699, Windows Server 2008 R2;
//! the 2012 text of the same page); the `mpclaim` help text (defaults); Infinidat
//! `infi.storagemodel` `multipath.py` docstrings and Microsoft's `MPIO_DSM_Path.PathWeight`
//! (least queue depth, weighted paths, least blocks); Dell KB 000216791 (policy codes).
//!
//! Paths are the disk's paths in discovery order. ALUA: active-optimized paths are used, and
//! active-non-optimized ones only when no optimized path works (msdsm's Active/Unoptimized);
//! standby and unavailable paths never. Within that:
//! - `failover_only` (1): one active path carries all I/O, the others stand by. The active path
//!   is the first of `active_paths` (default the first path); when it fails, the first usable
//!   path in order takes over. With `failback` (the 2008 R2 behaviour, "the temporary path goes
//!   back to standby"; 2012: "if failback is turned on") I/O returns to it when it comes back;
//!   without, it stays on the path in use while that works.
//! - `round_robin` (2): every usable path in turn, one I/O each.
//! - `round_robin_with_subset` (3): round robin over the primary set (`active_paths`); the other
//!   paths stand by and take over, in round robin, only when every primary path has failed;
//!   I/O goes back to the primaries as soon as one returns. With no `active_paths` the primary
//!   set is the active-optimized paths, which is what msdsm does for an ALUA disk (its default
//!   policy there; on a disk without ALUA, where every path is optimized, it is plain round
//!   robin, msdsm's default for those).
//! - `least_queue_depth` (4): the path with the fewest outstanding requests, counted per path
//!   across every LUN (Microsoft's example: one request of LUN 1 and one of LUN 2 on path 1 send
//!   the next request of either LUN down path 2), here `HostView::nexus_outstanding`. Ties: the
//!   first path in order.
//! - `weighted_paths` (5): `weights`, one per path in path order (default 0); a larger number
//!   is a lower priority: the least-weighted usable path wins; paths of equal weight take turns
//!   in round robin (as Dell's MD DSM documents).
//! - `least_blocks` (6): the path with the fewest bytes outstanding. Counted per path of this
//!   disk only, from its own start/end: msdsm's text says only "least number of data blocks
//!   currently outstanding", and the host view carries request counts, not bytes. Ties: the
//!   first path in order.
//!
//! No usable path: msdsm holds I/O for `PDORemovePeriod` seconds (default 20) waiting for a path
//! to return, then fails it.
//!
//! Parameters: `policy` (default `round_robin_with_subset`), `active_paths` (positions in path
//! order), `weights`, `failback` (default true), `pdo_remove_period` (s, default 20).

use serde::{Deserialize, Serialize};

use crate::params::{check_range, ParamSpec, PolicyError, PolicySpec};
use crate::path_set::{least_from, next_from, path_set_membership};
use crate::registered::{HostStack, Registered};
use crate::status::{MpioPath, PolicyStatus};
use crate::{AluaState, HostView, IoDesc, IoDone, NoPathAction, PathDesc, PathId, PathSelector, PathSet, TimeNs};

pub(crate) const SPEC: PolicySpec = PolicySpec {
    stack: "Windows MPIO (msdsm)",
    summary: "Failover only, round robin (with subset), least queue depth, weighted paths, least blocks",
    params: &[
        ParamSpec {
            name: "policy",
            unset: None,
            range: None,
            choices: &[
                "failover_only",
                "round_robin",
                "round_robin_with_subset",
                "least_queue_depth",
                "weighted_paths",
                "least_blocks",
            ],
            help: "load-balance policy (mpclaim -l -m 1..6)",
        },
        ParamSpec {
            name: "active_paths",
            unset: Some("failover_only: the first path; round_robin_with_subset: the optimized paths"),
            range: Some((0, 4_294_967_295)),
            choices: &[],
            help: "positions (in path order) of the active path(s); the others stand by",
        },
        ParamSpec {
            name: "weights",
            unset: Some("0 for every path"),
            range: Some((0, 4_294_967_295)),
            choices: &[],
            help: "weighted_paths: one weight per path in path order; larger = lower priority",
        },
        ParamSpec {
            name: "failback",
            unset: None,
            range: None,
            choices: &["true", "false"],
            help: "failover_only: return to the active path when it comes back",
        },
        ParamSpec {
            name: "pdo_remove_period",
            unset: None,
            range: Some((0, 4_294_967_295)),
            choices: &[],
            help: "seconds I/O is held while no path works, then failed (PDORemovePeriod)",
        },
    ],
};

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum MpioPolicy {
    FailoverOnly,
    RoundRobin,
    #[default]
    RoundRobinWithSubset,
    LeastQueueDepth,
    WeightedPaths,
    LeastBlocks,
}

impl MpioPolicy {
    /// The name `mpclaim` and the disk properties show.
    fn display(self) -> &'static str {
        match self {
            MpioPolicy::FailoverOnly => "Fail Over Only",
            MpioPolicy::RoundRobin => "Round Robin",
            MpioPolicy::RoundRobinWithSubset => "Round Robin with Subset",
            MpioPolicy::LeastQueueDepth => "Least Queue Depth",
            MpioPolicy::WeightedPaths => "Weighted Paths",
            MpioPolicy::LeastBlocks => "Least Blocks",
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct MpioConfig {
    pub policy: MpioPolicy,
    pub active_paths: Vec<u64>,
    pub weights: Vec<u64>,
    pub failback: bool,
    pub pdo_remove_period: u64,
}

impl Default for MpioConfig {
    fn default() -> Self {
        MpioConfig {
            policy: MpioPolicy::default(),
            active_paths: Vec::new(),
            weights: Vec::new(),
            failback: true,
            pdo_remove_period: 20,
        }
    }
}

impl Registered for MpioConfig {
    const SPEC: &'static PolicySpec = &SPEC;
    const HOST: HostStack = HostStack::Windows;

    fn validate(&self) -> Result<(), PolicyError> {
        for &w in &self.weights {
            check_range(SPEC.param("weights"), w)?;
        }
        for &p in &self.active_paths {
            check_range(SPEC.param("active_paths"), p)?;
        }
        check_range(SPEC.param("pdo_remove_period"), self.pdo_remove_period)?;
        let only_for = |field: &str, policies: &str| {
            Err(PolicyError { field: field.to_string(), message: format!("only {policies} takes it") })
        };
        if !self.weights.is_empty() && self.policy != MpioPolicy::WeightedPaths {
            return only_for("weights", "weighted_paths");
        }
        let with_subset = matches!(self.policy, MpioPolicy::FailoverOnly | MpioPolicy::RoundRobinWithSubset);
        if !self.active_paths.is_empty() && !with_subset {
            return only_for("active_paths", "failover_only or round_robin_with_subset");
        }
        Ok(())
    }

    fn build(&self) -> Box<dyn PathSelector> {
        Box::new(MsdsmMpio::new(self.clone()))
    }
}

/// One MPIO disk.
#[derive(Clone)]
pub struct MsdsmMpio {
    config: MpioConfig,
    paths: PathSet,
    /// Each path's I_T nexus, whose load spans every LUN.
    nexus: Vec<u32>,
    outstanding_bytes: Vec<u64>,
    /// The path the last I/O took.
    last: Option<usize>,
}

impl MsdsmMpio {
    pub fn new(config: MpioConfig) -> Self {
        MsdsmMpio { config, paths: PathSet::default(), nexus: Vec::new(), outstanding_bytes: Vec::new(), last: None }
    }

    fn usable(&self, i: usize) -> bool {
        self.paths.usable(i, false)
    }

    /// Just after the last path used: where round robin and ties resume.
    fn after_last(&self) -> usize {
        self.last.map_or(0, |l| (l + 1) % self.paths.len())
    }

    fn weight(&self, i: usize) -> u64 {
        self.config.weights.get(i).copied().unwrap_or(0)
    }

    /// Round robin with subset's primary set.
    fn primary(&self, i: usize) -> bool {
        if self.config.active_paths.is_empty() {
            self.paths.alua(i) == AluaState::ActiveOptimized
        } else {
            self.config.active_paths.contains(&(i as u64))
        }
    }

    /// Whether round robin with subset rotates over the primaries now (one of them works).
    fn primaries_in_use(&self) -> bool {
        (0..self.paths.len()).any(|k| self.usable(k) && self.primary(k))
    }

    /// A path round robin with subset rotates over now: usable primaries, else usable others.
    fn subset_member(&self, i: usize, primaries_in_use: bool) -> bool {
        self.usable(i) && self.primary(i) == primaries_in_use
    }

    fn failover_only(&self) -> Option<usize> {
        let n = self.paths.len();
        let active = self.config.active_paths.first().map_or(0, |&p| p as usize);
        if !self.config.failback {
            if let Some(l) = self.last.filter(|&l| self.usable(l)) {
                return Some(l);
            }
        }
        std::iter::once(active).chain(0..n).filter(|&i| i < n).find(|&i| self.usable(i))
    }

    fn least_weight(&self) -> Option<u64> {
        (0..self.paths.len()).filter(|&i| self.usable(i)).map(|i| self.weight(i)).min()
    }

    fn choose(&self, host: &dyn HostView) -> Option<usize> {
        let n = self.paths.len();
        match self.config.policy {
            MpioPolicy::FailoverOnly => self.failover_only(),
            MpioPolicy::RoundRobin => self.paths.next_usable_from(self.after_last(), false),
            MpioPolicy::RoundRobinWithSubset => {
                let primaries = self.primaries_in_use();
                next_from(n, self.after_last(), |i| self.subset_member(i, primaries))
            }
            MpioPolicy::LeastQueueDepth => {
                least_from(n, 0, |i| self.usable(i), |i| host.nexus_outstanding(self.nexus[i]))
            }
            MpioPolicy::WeightedPaths => least_from(n, self.after_last(), |i| self.usable(i), |i| self.weight(i)),
            MpioPolicy::LeastBlocks => least_from(n, 0, |i| self.usable(i), |i| self.outstanding_bytes[i]),
        }
    }
}

impl PathSelector for MsdsmMpio {
    fn add_path(&mut self, path: &PathDesc) {
        self.paths.add(path);
        self.nexus.push(path.nexus);
        self.outstanding_bytes.push(0);
    }

    path_set_membership!();

    fn select_path(&mut self, _io: &IoDesc, _now_ns: TimeNs, host: &dyn HostView) -> Option<PathId> {
        let chosen = self.choose(host)?;
        self.last = Some(chosen);
        Some(self.paths.id(chosen))
    }

    fn start_io(&mut self, path: PathId, io: &IoDesc, _now_ns: TimeNs) {
        if let Some(i) = self.paths.index_of(path) {
            self.outstanding_bytes[i] += io.bytes;
        }
    }

    fn end_io(&mut self, path: PathId, io: &IoDesc, _done: &IoDone) {
        if let Some(i) = self.paths.index_of(path) {
            self.outstanding_bytes[i] = self.outstanding_bytes[i].saturating_sub(io.bytes);
        }
    }

    fn no_path_action(&self) -> NoPathAction {
        NoPathAction::Queue { retry_ns: None, give_up_after_ns: Some(self.config.pdo_remove_period * 1_000_000_000) }
    }

    /// The policy, then each path's state as the disk's MPIO properties show it.
    fn status(&self) -> PolicyStatus {
        let working = self.working_paths();
        let paths = (0..self.paths.len())
            .map(|i| {
                let id = self.paths.id(i);
                let state = match (self.paths.failed(i), self.paths.alua(i)) {
                    (true, _) => "Failed",
                    (false, AluaState::Unavailable) => "Unavailable",
                    _ if !working.contains(&id) => "Standby",
                    (false, AluaState::ActiveOptimized) => "Active/Optimized",
                    (false, _) => "Active/Unoptimized",
                };
                MpioPath { path: id, state, weight: self.weight(i) }
            })
            .collect();
        PolicyStatus::Mpio { policy: self.config.policy.display(), paths }
    }

    fn working_paths(&self) -> Vec<PathId> {
        let n = self.paths.len();
        let least_weight = self.least_weight();
        let working: Vec<usize> = match self.config.policy {
            MpioPolicy::FailoverOnly => self.failover_only().into_iter().collect(),
            MpioPolicy::RoundRobinWithSubset => {
                let primaries = self.primaries_in_use();
                (0..n).filter(|&i| self.subset_member(i, primaries)).collect()
            }
            MpioPolicy::WeightedPaths => {
                (0..n).filter(|&i| self.usable(i) && Some(self.weight(i)) == least_weight).collect()
            }
            MpioPolicy::RoundRobin | MpioPolicy::LeastQueueDepth | MpioPolicy::LeastBlocks => {
                self.paths.usable_indices(false)
            }
        };
        working.into_iter().map(|i| self.paths.id(i)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{add_paths, add_paths_with, complete, io, issue, run_sequence, TestHost};

    const AO: AluaState = AluaState::ActiveOptimized;
    const ANO: AluaState = AluaState::ActiveNonOptimized;

    fn mpio(config: MpioConfig, n: u32) -> MsdsmMpio {
        let mut p = MsdsmMpio::new(config);
        add_paths(&mut p, n, |_| AO);
        p
    }

    fn with(policy: MpioPolicy) -> MpioConfig {
        MpioConfig { policy, ..MpioConfig::default() }
    }

    #[test]
    fn least_queue_depth_counts_requests_of_every_lun_on_a_path() {
        // LUN 2 has nothing of its own in flight, but LUN 1 has 2 on path 0 and 1 on path 1.
        let mut lun2 = mpio(with(MpioPolicy::LeastQueueDepth), 3);
        let mut host = TestHost { nexus_load: vec![2, 1, 1], ..TestHost::default() };
        assert_eq!(issue(&mut lun2, &host, &io(4096, 0), 0), 1, "1 and 1: the first");
        host.nexus_load = vec![0, 0, 0];
        assert_eq!(issue(&mut lun2, &host, &io(4096, 0), 0), 0);
    }

    #[test]
    fn weighted_paths_take_the_least_weight_and_rotate_its_ties() {
        let config = MpioConfig { weights: vec![5, 1, 1, 3], ..with(MpioPolicy::WeightedPaths) };
        let mut p = mpio(config, 4);
        assert_eq!(run_sequence(&mut p, &[4096; 4]), [1, 2, 1, 2]);
        assert_eq!(p.working_paths(), [PathId(1), PathId(2)]);
        p.fail_path(PathId(1));
        assert_eq!(run_sequence(&mut p, &[4096; 2]), [2, 2]);
        p.fail_path(PathId(2));
        assert_eq!(run_sequence(&mut p, &[4096; 2]), [3, 3]);
        p.fail_path(PathId(3));
        assert_eq!(run_sequence(&mut p, &[4096]), [0]);
    }

    #[test]
    fn round_robin_with_subset_uses_standby_paths_only_when_every_primary_failed() {
        let config = MpioConfig { active_paths: vec![0, 1], ..with(MpioPolicy::RoundRobinWithSubset) };
        let mut p = mpio(config, 4);
        assert_eq!(run_sequence(&mut p, &[4096; 3]), [0, 1, 0]);
        p.fail_path(PathId(0));
        assert_eq!(run_sequence(&mut p, &[4096; 2]), [1, 1]);
        p.fail_path(PathId(1));
        assert_eq!(run_sequence(&mut p, &[4096; 3]), [2, 3, 2]);
        p.reinstate_path(PathId(1));
        assert_eq!(run_sequence(&mut p, &[4096; 2]), [1, 1]);
        // Without active_paths the primaries are the optimized paths (msdsm's ALUA default).
        let mut p = MsdsmMpio::new(MpioConfig::default());
        add_paths(&mut p, 4, |i| if i % 2 == 0 { AO } else { ANO });
        assert_eq!(run_sequence(&mut p, &[4096; 3]), [0, 2, 0]);
        p.fail_path(PathId(0));
        p.fail_path(PathId(2));
        assert_eq!(run_sequence(&mut p, &[4096; 3]), [1, 3, 1]);
    }

    #[test]
    fn round_robin_uses_every_usable_path_in_turn() {
        let mut p = mpio(with(MpioPolicy::RoundRobin), 3);
        assert_eq!(run_sequence(&mut p, &[4096; 4]), [0, 1, 2, 0]);
        p.fail_path(PathId(1));
        assert_eq!(run_sequence(&mut p, &[4096; 3]), [2, 0, 2]);
    }

    #[test]
    fn failover_only_fails_back_when_told_to() {
        let config = MpioConfig { active_paths: vec![2], ..with(MpioPolicy::FailoverOnly) };
        let mut p = mpio(config.clone(), 3);
        assert_eq!(run_sequence(&mut p, &[4096; 2]), [2, 2]);
        p.fail_path(PathId(2));
        assert_eq!(run_sequence(&mut p, &[4096; 2]), [0, 0]);
        p.reinstate_path(PathId(2));
        assert_eq!(run_sequence(&mut p, &[4096]), [2]);
        let mut p = mpio(MpioConfig { failback: false, ..config }, 3);
        p.fail_path(PathId(2));
        assert_eq!(run_sequence(&mut p, &[4096]), [0]);
        p.reinstate_path(PathId(2));
        assert_eq!(run_sequence(&mut p, &[4096; 2]), [0, 0]);
        assert_eq!(p.working_paths(), [PathId(0)]);
    }

    #[test]
    fn least_blocks_counts_bytes_not_requests() {
        let host = TestHost::default();
        let mut p = mpio(with(MpioPolicy::LeastBlocks), 2);
        let big = io(65536, 0);
        let small = io(4096, 0);
        assert_eq!(issue(&mut p, &host, &big, 0), 0);
        // Four 4 KiB requests on path 1 (16 KiB) still weigh less than one of 64 KiB on path 0.
        assert_eq!([0; 4].map(|_| issue(&mut p, &host, &small, 0)), [1, 1, 1, 1]);
        for _ in 0..4 {
            complete(&mut p, 1, &small, 0, 10);
        }
        complete(&mut p, 0, &big, 0, 10);
        assert_eq!(issue(&mut p, &host, &small, 10), 0);
    }

    #[test]
    fn io_waits_pdo_remove_period_then_fails_and_options_are_checked() {
        let p = mpio(MpioConfig { pdo_remove_period: 60, ..MpioConfig::default() }, 1);
        assert_eq!(p.no_path_action(), NoPathAction::Queue { retry_ns: None, give_up_after_ns: Some(60_000_000_000) });
        let err = MpioConfig { weights: vec![1], ..MpioConfig::default() }.validate().unwrap_err();
        assert_eq!(err.field, "weights");
        let mut p = MsdsmMpio::new(with(MpioPolicy::RoundRobin));
        add_paths_with(&mut p, 2, |i, d| d.alua = if i == 0 { AluaState::Standby } else { AO });
        assert_eq!(run_sequence(&mut p, &[4096; 2]), [1, 1]);
        assert_eq!(
            p.status().render(&|id| format!("Path{}", id.0)),
            "Load Balance Policy: Round Robin\nPath0: Standby weight=0\nPath1: Active/Optimized weight=0"
        );
    }
}
