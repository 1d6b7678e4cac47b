//! NVMe native multipath (Linux `nvme_core`), iopolicy `numa`, `round-robin` or `queue-depth`.
//!
//! Source: torvalds/linux `drivers/nvme/host/multipath.c` (`__nvme_find_path`, `nvme_numa_path`,
//! `nvme_round_robin_path`, `nvme_queue_depth_path`, `nvme_mpath_set_live`), queue-depth as
//! merged in commit f227345f0a70; `Documentation/admin-guide/nvme-multipath.rst`.
//!
//! Paths are the namespace's controllers in the order they were added. A path is *disabled*
//! while its controller is not live (here: failed). ANA states: optimized (our
//! active-optimized), non-optimized (active-non-optimized); standby and unavailable stand for
//! inaccessible, persistent-loss and change, which no policy ever selects. Non-optimized paths
//! are a fallback in all three policies.
//!
//! - `numa` (default): one cached path per NUMA node (the submitting CPU's node). The cached
//!   path is used while it is live and optimized; otherwise `__nvme_find_path` scans every
//!   enabled path for the optimized one nearest the node (`node_distance` to the controller's
//!   node; ties: first in list), else the nearest non-optimized one, and caches it. When only
//!   non-optimized paths are left, the cache never holds an optimized path, so every I/O
//!   rescans. All I/O of a node goes down one path.
//! - `round-robin`: per node, the last path used. Without one, the scan above with every
//!   distance equal (first optimized, else first non-optimized). With one path only, that path
//!   unless disabled. Otherwise walk the list circularly from the path after the last one,
//!   skipping disabled paths: the first optimized path is taken and cached; a non-optimized one
//!   is remembered (the last seen wins). After the walk the last path is used again if it is
//!   enabled and optimized, or non-optimized with nothing else found; else the remembered
//!   non-optimized path (cached); else none.
//! - `queue-depth`: no cache. Scan every enabled path reading its controller's active-request
//!   count, which spans every namespace on the controller (here
//!   `HostView::nexus_outstanding`) and counts a request only once it has a blk-mq tag and is
//!   started at the driver, so bios waiting for a tag are not in it (the engine's
//!   `model::tags`); keep the least among optimized and among non-optimized
//!   (strict `<`: ties go to the first in list), returning at once an optimized path with 0;
//!   the best optimized else the best non-optimized.
//!
//! Cache upkeep: an I/O error on a path (here `fail_path`) or an ANA change to a state that is
//! not live removes that path from every node's cache; a path that becomes live and optimized
//! (added, reconnected, ANA change) makes the kernel recompute every node's cache with the scan
//! above (`nvme_mpath_set_live`). For `round-robin` that puts every node back on the first
//! optimized path, which the next I/O then leaves: the first I/O goes to the second path. For
//! `numa` we clear the caches instead, which the next I/O's rescan fills alike. Nodes are
//! learned from the adapters' nodes and the CPUs seen; a node first seen holds what the last
//! recompute would have given it.
//!
//! No usable path: the I/O is requeued until a path comes back (the kernel fails it only when
//! no controller is live, resetting or connecting; controller loss is the harness's business).
//!
//! Parameters: `iopolicy`, `numa` | `round-robin` | `queue-depth`, default `numa` (the
//! `nvme_core.iopolicy` module default).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::params::{ParamSpec, PolicySpec};
use crate::registered::{HostStack, Registered};
use crate::status::{NvmePath, PolicyStatus};
use crate::{AluaState, HostView, IoDesc, PathDesc, PathId, PathSelector, PathSet, TimeNs};

/// Linux `LOCAL_DISTANCE`: every distance when the iopolicy is not numa.
const LOCAL_DISTANCE: u32 = 10;

pub(crate) const SPEC: PolicySpec = PolicySpec {
    stack: "Linux NVMe native multipath",
    summary: "ANA-aware: nearest optimized controller per NUMA node, per-node round robin, or least busy controller",
    params: &[ParamSpec {
        name: "iopolicy",
        unset: None,
        range: None,
        choices: &["numa", "round-robin", "queue-depth"],
        help: "subsystem I/O policy (nvme_core.iopolicy)",
    }],
};

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum NvmeIoPolicy {
    #[default]
    Numa,
    RoundRobin,
    QueueDepth,
}

impl NvmeIoPolicy {
    fn name(self) -> &'static str {
        match self {
            NvmeIoPolicy::Numa => "numa",
            NvmeIoPolicy::RoundRobin => "round-robin",
            NvmeIoPolicy::QueueDepth => "queue-depth",
        }
    }
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct NvmeConfig {
    pub iopolicy: NvmeIoPolicy,
}

impl Registered for NvmeConfig {
    const SPEC: &'static PolicySpec = &SPEC;
    const HOST: HostStack = HostStack::LinuxNvme;

    fn build(&self) -> Box<dyn PathSelector> {
        Box::new(NvmeMultipath::new(self.clone()))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ana {
    Optimized,
    NonOptimized,
    Inaccessible,
}

/// One NVMe namespace head.
#[derive(Clone)]
pub struct NvmeMultipath {
    iopolicy: NvmeIoPolicy,
    paths: PathSet,
    /// NUMA node of each path's controller.
    controller_node: Vec<u32>,
    /// Each path's controller (nexus).
    controller: Vec<u32>,
    /// `current_path[node]` of every node known so far.
    current_path: BTreeMap<u32, Option<usize>>,
    /// What a node not seen yet holds.
    unseen_node: Option<usize>,
    /// Paths the fabric marked marginal (FPIN): demoted to the non-optimized tier.
    marginal: Vec<bool>,
}

impl NvmeMultipath {
    pub fn new(config: NvmeConfig) -> Self {
        NvmeMultipath {
            iopolicy: config.iopolicy,
            paths: PathSet::default(),
            controller_node: Vec::new(),
            controller: Vec::new(),
            current_path: BTreeMap::new(),
            unseen_node: None,
            marginal: Vec::new(),
        }
    }

    /// The path's ANA state as the selection sees it: a marginal path counts as non-optimized
    /// (the kernel's `nvme_path_is_optimized` is false for a marginal controller).
    fn ana(&self, i: usize) -> Ana {
        match self.paths.alua(i) {
            AluaState::ActiveOptimized if self.marginal[i] => Ana::NonOptimized,
            AluaState::ActiveOptimized => Ana::Optimized,
            AluaState::ActiveNonOptimized => Ana::NonOptimized,
            AluaState::Standby | AluaState::Unavailable => Ana::Inaccessible,
        }
    }

    fn disabled(&self, i: usize) -> bool {
        self.paths.failed(i)
    }

    fn live_optimized(&self, i: usize) -> bool {
        !self.disabled(i) && self.ana(i) == Ana::Optimized
    }

    fn cached(&self, node: u32) -> Option<usize> {
        self.current_path.get(&node).copied().unwrap_or(self.unseen_node)
    }

    /// `__nvme_find_path`: nearest optimized, else nearest non-optimized; cached when found.
    fn find_path(&mut self, node: u32, distance: impl Fn(u32) -> u32) -> Option<usize> {
        let mut optimized: Option<(usize, u32)> = None;
        let mut fallback: Option<(usize, u32)> = None;
        for i in (0..self.paths.len()).filter(|&i| !self.disabled(i)) {
            let d = distance(self.controller_node[i]);
            let slot = match self.ana(i) {
                Ana::Optimized => &mut optimized,
                Ana::NonOptimized => &mut fallback,
                Ana::Inaccessible => continue,
            };
            if slot.is_none_or(|(_, best)| d < best) {
                *slot = Some((i, d));
            }
        }
        let found = optimized.or(fallback).map(|(i, _)| i);
        if found.is_some() {
            self.current_path.insert(node, found);
        }
        found
    }

    fn numa_path(&mut self, node: u32, host: &dyn HostView) -> Option<usize> {
        match self.cached(node) {
            Some(i) if self.live_optimized(i) => Some(i),
            _ => self.find_path(node, |to| host.node_distance(node, to)),
        }
    }

    fn round_robin_path(&mut self, node: u32) -> Option<usize> {
        let Some(old) = self.cached(node) else {
            return self.find_path(node, |_| LOCAL_DISTANCE);
        };
        let n = self.paths.len();
        if n == 1 {
            return (!self.disabled(old)).then_some(old);
        }
        let mut found = None;
        for i in (1..n).map(|k| (old + k) % n).filter(|&i| !self.disabled(i)) {
            match self.ana(i) {
                Ana::Optimized => {
                    self.current_path.insert(node, Some(i));
                    return Some(i);
                }
                Ana::NonOptimized => found = Some(i),
                Ana::Inaccessible => {}
            }
        }
        let old_ana = self.ana(old);
        if !self.disabled(old) && (old_ana == Ana::Optimized || (found.is_none() && old_ana == Ana::NonOptimized)) {
            return Some(old);
        }
        let found = found?;
        self.current_path.insert(node, Some(found));
        Some(found)
    }

    fn queue_depth_path(&self, host: &dyn HostView) -> Option<usize> {
        let mut optimized: Option<(usize, u32)> = None;
        let mut fallback: Option<(usize, u32)> = None;
        for i in (0..self.paths.len()).filter(|&i| !self.disabled(i)) {
            let depth = host.nexus_outstanding(self.controller[i]);
            let slot = match self.ana(i) {
                Ana::Optimized => &mut optimized,
                Ana::NonOptimized => &mut fallback,
                Ana::Inaccessible => continue,
            };
            if slot.is_none_or(|(_, best)| depth < best) {
                *slot = Some((i, depth));
            }
            if optimized.is_some_and(|(_, d)| d == 0) {
                break;
            }
        }
        optimized.or(fallback).map(|(i, _)| i)
    }

    /// `nvme_mpath_set_live` for path `i`: a live optimized path makes every node recompute.
    fn set_live(&mut self, i: usize) {
        if !self.live_optimized(i) {
            return;
        }
        let recomputed = match self.iopolicy {
            // Every distance is equal: the first optimized path, for every node.
            NvmeIoPolicy::RoundRobin => (0..self.paths.len()).find(|&k| self.live_optimized(k)),
            // Cleared: each node's next I/O rescans, with its own distances.
            NvmeIoPolicy::Numa | NvmeIoPolicy::QueueDepth => None,
        };
        for cached in self.current_path.values_mut() {
            *cached = recomputed;
        }
        self.unseen_node = recomputed;
    }

    /// `nvme_mpath_clear_current_path`.
    fn clear_current_path(&mut self, i: usize) {
        for cached in self.current_path.values_mut().chain(std::iter::once(&mut self.unseen_node)) {
            if *cached == Some(i) {
                *cached = None;
            }
        }
    }
}

impl PathSelector for NvmeMultipath {
    fn add_path(&mut self, path: &PathDesc) {
        self.paths.add(path);
        self.controller_node.push(path.numa_node);
        self.controller.push(path.nexus);
        self.marginal.push(false);
        self.current_path.entry(path.numa_node).or_insert(self.unseen_node);
        self.set_live(self.paths.len() - 1);
    }

    fn fail_path(&mut self, path: PathId) {
        let Some(i) = self.paths.index_of(path) else { return };
        self.paths.set_failed(path, true);
        self.clear_current_path(i);
    }

    fn reinstate_path(&mut self, path: PathId) {
        let Some(i) = self.paths.index_of(path) else { return };
        self.paths.set_failed(path, false);
        self.set_live(i);
    }

    fn set_alua_state(&mut self, path: PathId, state: AluaState) {
        let Some(i) = self.paths.index_of(path) else { return };
        self.paths.set_alua(path, state);
        if self.ana(i) == Ana::Inaccessible {
            self.clear_current_path(i);
        } else {
            self.set_live(i);
        }
    }

    fn set_marginal(&mut self, path: PathId, marginal: bool) {
        let Some(i) = self.paths.index_of(path) else { return };
        self.marginal[i] = marginal;
        // The cached path of every node is chosen again, as on an ANA change.
        self.clear_current_path(i);
        self.set_live(i);
    }

    fn select_path(&mut self, io: &IoDesc, _now_ns: TimeNs, host: &dyn HostView) -> Option<PathId> {
        let node = host.cpu_node(io.cpu);
        if !self.current_path.contains_key(&node) {
            self.current_path.insert(node, self.unseen_node);
        }
        let chosen = match self.iopolicy {
            NvmeIoPolicy::Numa => self.numa_path(node, host),
            NvmeIoPolicy::RoundRobin => self.round_robin_path(node),
            NvmeIoPolicy::QueueDepth => self.queue_depth_path(host),
        };
        chosen.map(|i| self.paths.id(i))
    }

    fn path_groups(&self) -> Vec<crate::PathGroup> {
        crate::path_set::flat_group(&self.paths)
    }

    /// Like `nvme list-subsys`: the iopolicy, then each controller's state and ANA state.
    fn status(&self) -> PolicyStatus {
        let paths = (0..self.paths.len())
            .map(|i| NvmePath {
                path: self.paths.id(i),
                live: !self.disabled(i),
                ana: match self.paths.alua(i) {
                    AluaState::ActiveOptimized => "optimized",
                    AluaState::ActiveNonOptimized => "non-optimized",
                    AluaState::Standby | AluaState::Unavailable => "inaccessible",
                },
            })
            .collect();
        PolicyStatus::Nvme { iopolicy: self.iopolicy.name(), paths }
    }

    /// Enabled optimized paths, or the non-optimized ones when no optimized path is left.
    fn working_paths(&self) -> Vec<PathId> {
        self.paths.usable_indices(false).into_iter().map(|i| self.paths.id(i)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{add_paths_with, io, issue, run_on_cpus, TestHost};

    const AO: AluaState = AluaState::ActiveOptimized;
    const ANO: AluaState = AluaState::ActiveNonOptimized;

    /// Paths on (ANA state, controller node); path i is controller i.
    fn nvme(iopolicy: NvmeIoPolicy, paths: &[(AluaState, u32)]) -> NvmeMultipath {
        let mut p = NvmeMultipath::new(NvmeConfig { iopolicy });
        add_paths_with(&mut p, paths.len() as u32, |i, d| (d.alua, d.numa_node) = paths[i as usize]);
        p
    }

    /// Three nodes in a line: 0 - 1 - 2.
    fn three_nodes() -> TestHost {
        TestHost {
            cpu_nodes: vec![0, 1, 2],
            distances: vec![vec![10, 20, 30], vec![20, 10, 20], vec![30, 20, 10]],
            ..TestHost::default()
        }
    }

    #[test]
    fn queue_depth_counts_every_namespace_on_a_controller() {
        let mut ns_a = nvme(NvmeIoPolicy::QueueDepth, &[(AO, 0); 3]);
        let mut ns_b = nvme(NvmeIoPolicy::QueueDepth, &[(AO, 0); 3]);
        let mut host = TestHost { nexus_load: vec![3, 1, 1], ..TestHost::default() };
        // Controllers 1 and 2 tie at 1: the first in list order.
        assert_eq!(issue(&mut ns_a, &host, &io(4096, 0), 0), 1);
        host.nexus_load[1] += 1;
        // Namespace B sees A's command on controller 1: controller 2 is now the least busy.
        assert_eq!(issue(&mut ns_b, &host, &io(4096, 0), 0), 2);
        host.nexus_load[2] += 1;
        assert_eq!(issue(&mut ns_a, &host, &io(4096, 0), 0), 1, "3, 2, 2: the first of the ties");
        host.nexus_load = vec![0, 0, 0];
        assert_eq!(issue(&mut ns_b, &host, &io(4096, 0), 0), 0);
    }

    #[test]
    fn queue_depth_uses_non_optimized_controllers_only_as_a_fallback() {
        let mut p = nvme(NvmeIoPolicy::QueueDepth, &[(ANO, 0), (AO, 0), (AluaState::Standby, 0), (AO, 0)]);
        let host = TestHost { nexus_load: vec![0, 5, 0, 4], ..TestHost::default() };
        assert_eq!(issue(&mut p, &host, &io(4096, 0), 0), 3);
        p.fail_path(PathId(1));
        p.fail_path(PathId(3));
        assert_eq!(issue(&mut p, &host, &io(4096, 0), 0), 0, "inaccessible path 2 is never used");
    }

    #[test]
    fn numa_takes_the_nearest_optimized_controller_of_each_node() {
        let host = three_nodes();
        // Path 0: optimized on node 2; path 1: non-optimized on node 0; path 2: optimized on 1.
        let mut p = nvme(NvmeIoPolicy::Numa, &[(AO, 2), (ANO, 0), (AO, 1)]);
        // CPU 0 (node 0): distance 30 to path 0, 20 to path 2 -> 2. CPU 2 (node 2) -> 0.
        assert_eq!(run_on_cpus(&mut p, &host, &[0, 0, 2, 1]), [2, 2, 0, 2]);
        // Without path 2, node 0 goes 30 away to an optimized path rather than to its local
        // non-optimized one; without any optimized path it takes the nearest non-optimized.
        p.fail_path(PathId(2));
        assert_eq!(run_on_cpus(&mut p, &host, &[0]), [0]);
        p.fail_path(PathId(0));
        assert_eq!(run_on_cpus(&mut p, &host, &[0, 2]), [1, 1]);
    }

    #[test]
    fn numa_recomputes_when_an_optimized_path_returns_and_rescans_without_one() {
        let host = three_nodes();
        let mut p = nvme(NvmeIoPolicy::Numa, &[(AO, 0), (AO, 1)]);
        assert_eq!(run_on_cpus(&mut p, &host, &[0]), [0]);
        p.fail_path(PathId(0));
        assert_eq!(run_on_cpus(&mut p, &host, &[0]), [1]);
        // Path 1 is still live and optimized, yet path 0 coming back resets every node's cache.
        p.reinstate_path(PathId(0));
        assert_eq!(run_on_cpus(&mut p, &host, &[0]), [0]);
        // Only non-optimized paths: a returning one triggers no recompute, but the cached path
        // is not optimized, so each I/O rescans and finds the nearer one.
        let mut p = nvme(NvmeIoPolicy::Numa, &[(ANO, 0), (ANO, 1)]);
        p.fail_path(PathId(0));
        assert_eq!(run_on_cpus(&mut p, &host, &[0]), [1]);
        p.reinstate_path(PathId(0));
        assert_eq!(run_on_cpus(&mut p, &host, &[0]), [0]);
    }

    #[test]
    fn round_robin_rotates_per_node_starting_after_the_recomputed_path() {
        let host = TestHost { cpu_nodes: vec![0, 1], ..TestHost::default() };
        let mut p = nvme(NvmeIoPolicy::RoundRobin, &[(AO, 0); 3]);
        // Every node's cache holds path 0 after the last path went live: the walk starts at 1.
        assert_eq!(run_on_cpus(&mut p, &host, &[0, 0, 0, 0]), [1, 2, 0, 1]);
        assert_eq!(run_on_cpus(&mut p, &host, &[1, 0, 1]), [1, 2, 2]);
    }

    #[test]
    fn a_marginal_path_is_demoted_to_the_non_optimized_tier_until_cleared() {
        let mut p = nvme(NvmeIoPolicy::RoundRobin, &[(AO, 0), (AO, 0), (ANO, 0)]);
        let host = TestHost::default();
        // FPIN marks path 0: the optimized tier is path 1 alone; the non-optimized path 2 and
        // the demoted path 0 wait until no optimized path is left.
        p.set_marginal(PathId(0), true);
        assert_eq!(run_on_cpus(&mut p, &host, &[0, 0, 0]), [1, 1, 1]);
        p.fail_path(PathId(1));
        let fallback = run_on_cpus(&mut p, &host, &[0, 0]);
        assert!(fallback.iter().all(|&k| k == 0 || k == 2), "{fallback:?}");
        p.reinstate_path(PathId(1));
        p.set_marginal(PathId(0), false);
        // Both optimized again: the rotation takes them in turn.
        let back = run_on_cpus(&mut p, &host, &[0, 0, 0, 0]);
        assert!(back.windows(2).all(|w| w[0] != w[1]) && back.iter().all(|&k| k < 2), "{back:?}");
    }

    #[test]
    fn round_robin_skips_non_optimized_paths_until_no_optimized_one_is_left() {
        let host = TestHost::default();
        let mut p = nvme(NvmeIoPolicy::RoundRobin, &[(AO, 0), (ANO, 0), (AO, 0)]);
        assert_eq!(run_on_cpus(&mut p, &host, &[0; 4]), [2, 0, 2, 0]);
        // The cached path 0 fails: the cache empties and the scan finds path 1, then the walk
        // finds nothing better and reuses it.
        p.fail_path(PathId(0));
        p.fail_path(PathId(2));
        assert_eq!(run_on_cpus(&mut p, &host, &[0; 2]), [1, 1]);
        // One optimized path: the walk only finds the non-optimized candidate, so the old
        // optimized path is used again.
        let mut p = nvme(NvmeIoPolicy::RoundRobin, &[(AO, 0), (ANO, 0)]);
        assert_eq!(run_on_cpus(&mut p, &host, &[0; 3]), [0, 0, 0]);
    }
}
