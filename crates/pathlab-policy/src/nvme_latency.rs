//! nvme-latency: the Linux NVMe `latency` iopolicies under review upstream, as one parameterised
//! family, so that the designs argued on linux-nvme can be compared on the same fabric.
//!
//! `design = "weighted"` (Nilay Shroff's "nvme-multipath: introduce latency I/O policy", RFC
//! Sept 2025 to PATCHv6 May 2026, not merged; research/anchors-2026.md §1.1.1):
//! - Each completion is a sample: its latency, keyed by path × the NUMA node of the CPU (or the
//!   CPU itself, `keyed_by = "cpu"`) × read or write. Samples of 0 or above 1 s are ignored, as
//!   is every sample when the head has one path.
//! - Samples are summed over a window (`window_ms`, 15 s). When a sample arrives a window or more
//!   after its key's window began, the window's mean becomes the first smoothed latency, or is
//!   folded in as `slat = (slat·(2^s − 1) + mean) >> s` with `ewma_shift` s = 3 (7/8 old, 1/8 new,
//!   once per window), and a new window begins.
//! - Weights per key and class: `score = 1e9 / slat_ns`, `weight = floor(weight_scale · score /
//!   Σ score)`, at least 1 (`weight_scale` 64); a path not measured yet has weight 0 and takes its
//!   turn as in round robin.
//! - Dispatch per CPU and class: the current path while its credit lasts; then the next usable
//!   path in list order, its credit refilled to its weight. ANA optimized and non-optimized are
//!   not told apart (`ana_aware = true`, the variant asked for on the list, keeps to the
//!   optimized paths while any is usable).
//!
//! `design = "nlatency"` (Hannes Reinecke's 2024 RFC on blk-nlatency, §1.1.2): per path and NUMA
//! node, the mean latency of each window of `window_us` (2 ms); a window with fewer than 2 samples
//! keeps the old value times `decay_percent` (50), so that a stale path gets tried again. Every
//! I/O takes the path of least value, optimized before non-optimized, ties to list order, a path
//! not measured yet first.
//!
//! Tie-break: list order. Real stack reproduced: Linux NVMe native multipath with these patches
//! applied (neither is in a released kernel).

use crate::params::{check_range, ParamSpec, PolicyError, PolicySpec};
use crate::path_set::path_set_membership;
use crate::registry::{HostStack, Registered};
use crate::status::{NvmePath, PolicyStatus};
use crate::{AluaState, HostView, IoDesc, IoDone, PathDesc, PathId, PathSelector, PathSet, TimeNs};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

pub(crate) const SPEC: PolicySpec = PolicySpec {
    stack: "Linux NVMe native multipath (proposed)",
    summary: "The latency iopolicies under review upstream: weighted by smoothed latency (2025-26) or least per-node latency (2024)",
    params: &[
        ParamSpec {
            name: "design",
            unset: None,
            range: None,
            choices: &["weighted", "nlatency"],
            help: "weighted: PATCHv6 2026 (windows, EWMA, credits); nlatency: the 2024 blk-nlatency RFC",
        },
        ParamSpec {
            name: "keyed_by",
            unset: None,
            range: None,
            choices: &["node", "cpu"],
            help: "weighted: latency kept per NUMA node of the completing CPU, or per CPU",
        },
        ParamSpec {
            name: "window_ms",
            unset: None,
            range: Some((1, 3_600_000)),
            choices: &[],
            help: "weighted: the window samples are summed over before they update the smoothed latency",
        },
        ParamSpec {
            name: "ewma_shift",
            unset: None,
            range: Some((0, 8)),
            choices: &[],
            help: "weighted: each window weighs 1/2^shift in the smoothed latency",
        },
        ParamSpec {
            name: "weight_scale",
            unset: None,
            range: Some((1, 1_000_000)),
            choices: &[],
            help: "weighted: the sum of the paths' weights (credits per turn)",
        },
        ParamSpec {
            name: "ana_aware",
            unset: None,
            range: None,
            choices: &["false", "true"],
            help: "weighted: keep to optimized paths while any is usable (the patches do not)",
        },
        ParamSpec {
            name: "window_us",
            unset: None,
            range: Some((1, 60_000_000)),
            choices: &[],
            help: "nlatency: the window of each per-node mean",
        },
        ParamSpec {
            name: "decay_percent",
            unset: None,
            range: Some((0, 100)),
            choices: &[],
            help: "nlatency: what a window with fewer than 2 samples keeps of the old mean",
        },
    ],
};

/// A sample above this is ignored (the patches' 1 s cut-off).
const MAX_SAMPLE_NS: TimeNs = 1_000_000_000;
/// The 2024 design keeps the old mean of a window with fewer samples than this (`lowat`).
const LOW_WATER_SAMPLES: u64 = 2;

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LatencyDesign {
    #[default]
    Weighted,
    Nlatency,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum KeyedBy {
    #[default]
    Node,
    Cpu,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct NvmeLatencyConfig {
    pub design: LatencyDesign,
    pub keyed_by: KeyedBy,
    pub window_ms: u64,
    pub ewma_shift: u64,
    pub weight_scale: u64,
    pub ana_aware: bool,
    pub window_us: u64,
    pub decay_percent: u64,
}

impl Default for NvmeLatencyConfig {
    fn default() -> Self {
        NvmeLatencyConfig {
            design: LatencyDesign::Weighted,
            keyed_by: KeyedBy::Node,
            window_ms: 15_000,
            ewma_shift: 3,
            weight_scale: 64,
            ana_aware: false,
            window_us: 2_000,
            decay_percent: 50,
        }
    }
}

impl Registered for NvmeLatencyConfig {
    const SPEC: &'static PolicySpec = &SPEC;
    const HOST: HostStack = HostStack::LinuxNvme;

    fn validate(&self) -> Result<(), PolicyError> {
        check_range(SPEC.param("window_ms"), self.window_ms)?;
        check_range(SPEC.param("ewma_shift"), self.ewma_shift)?;
        check_range(SPEC.param("weight_scale"), self.weight_scale)?;
        check_range(SPEC.param("window_us"), self.window_us)?;
        check_range(SPEC.param("decay_percent"), self.decay_percent)
    }

    fn build(&self) -> Box<dyn PathSelector> {
        Box::new(NvmeLatency::new(self.clone()))
    }
}

/// One path's latency under one key (node or CPU) and class (read or write).
#[derive(Clone, Copy, Debug, Default)]
struct Track {
    window_start: TimeNs,
    sum_ns: u64,
    samples: u64,
    /// The smoothed latency (weighted design) or the last window's mean (nlatency).
    value_ns: Option<u64>,
}

/// (path, key, is_write).
type TrackKey = (usize, u32, bool);

pub struct NvmeLatency {
    config: NvmeLatencyConfig,
    paths: PathSet,
    tracks: HashMap<TrackKey, Track>,
    /// Weights per (key, is_write), one per path; 0: not measured yet.
    weights: HashMap<(u32, bool), Vec<u64>>,
    /// Per (CPU, is_write): the current path and the credit left on it.
    turns: HashMap<(u32, bool), (usize, u64)>,
    /// The NUMA node of each CPU seen (completions know the CPU, not its node).
    node_of_cpu: HashMap<u32, u32>,
}

impl NvmeLatency {
    pub fn new(config: NvmeLatencyConfig) -> Self {
        NvmeLatency {
            config,
            paths: PathSet::default(),
            tracks: HashMap::new(),
            weights: HashMap::new(),
            turns: HashMap::new(),
            node_of_cpu: HashMap::new(),
        }
    }

    fn key(&self, cpu: u32) -> u32 {
        match self.config.keyed_by {
            KeyedBy::Node => self.node_of_cpu.get(&cpu).copied().unwrap_or(0),
            KeyedBy::Cpu => cpu,
        }
    }

    /// Paths the head may use: live, and not inaccessible; with `ana_aware`, the optimized ones
    /// while any is usable.
    fn usable(&self, i: usize) -> bool {
        let reachable = !self.paths.failed(i)
            && matches!(self.paths.alua(i), AluaState::ActiveOptimized | AluaState::ActiveNonOptimized);
        if !reachable || !(self.config.ana_aware || self.config.design == LatencyDesign::Nlatency) {
            return reachable;
        }
        self.paths.alua(i) == AluaState::ActiveOptimized || !self.any_optimized()
    }

    fn any_optimized(&self) -> bool {
        (0..self.paths.len()).any(|i| !self.paths.failed(i) && self.paths.alua(i) == AluaState::ActiveOptimized)
    }

    /// The weighted design's weights for one key and class, from the smoothed latencies.
    fn reweigh(&mut self, key: u32, write: bool) {
        let n = self.paths.len();
        let scores: Vec<f64> = (0..n)
            .map(|i| {
                self.tracks.get(&(i, key, write)).and_then(|t| t.value_ns).map_or(0.0, |ns| 1e9 / ns.max(1) as f64)
            })
            .collect();
        let total: f64 = scores.iter().sum();
        let scale = self.config.weight_scale as f64;
        let weights =
            scores.iter().map(|&s| if s == 0.0 { 0 } else { ((scale * s / total).floor() as u64).max(1) }).collect();
        self.weights.insert((key, write), weights);
    }

    fn weighted_path(&mut self, io: &IoDesc) -> Option<usize> {
        let n = self.paths.len();
        let class = (io.cpu, io.is_write);
        let key = (self.key(io.cpu), io.is_write);
        if let Some(&(current, credit)) = self.turns.get(&class) {
            if credit > 0 && current < n && self.usable(current) {
                self.turns.insert(class, (current, credit - 1));
                return Some(current);
            }
        }
        let start = self.turns.get(&class).map_or(0, |&(c, _)| c + 1);
        let next = (0..n).map(|k| (start + k) % n).find(|&i| self.usable(i))?;
        let weight = self.weights.get(&key).and_then(|w| w.get(next)).copied().unwrap_or(0).max(1);
        self.turns.insert(class, (next, weight - 1));
        Some(next)
    }

    fn least_latency_path(&self, io: &IoDesc) -> Option<usize> {
        let key = self.key(io.cpu);
        let value = |i: usize| {
            let read = self.tracks.get(&(i, key, false)).and_then(|t| t.value_ns);
            let write = self.tracks.get(&(i, key, true)).and_then(|t| t.value_ns);
            read.or(write).unwrap_or(0)
        };
        (0..self.paths.len()).filter(|&i| self.usable(i)).min_by_key(|&i| (value(i), i))
    }

    /// One completion's latency into its track; a window closes first if its time is up.
    fn sample(&mut self, path: usize, io: &IoDesc, done: &IoDone) {
        if self.paths.len() < 2 || done.failed || done.latency_ns == 0 || done.latency_ns > MAX_SAMPLE_NS {
            return;
        }
        // The 2024 design keys by node and does not tell reads from writes.
        let (key, write) = match self.config.design {
            LatencyDesign::Weighted => (self.key(io.cpu), io.is_write),
            LatencyDesign::Nlatency => (self.node_of_cpu.get(&io.cpu).copied().unwrap_or(0), false),
        };
        let window_ns = match self.config.design {
            LatencyDesign::Weighted => self.config.window_ms * 1_000_000,
            LatencyDesign::Nlatency => self.config.window_us * 1_000,
        };
        let (shift, decay) = (self.config.ewma_shift, self.config.decay_percent);
        let design = self.config.design;
        let track =
            self.tracks.entry((path, key, write)).or_insert(Track { window_start: done.now_ns, ..Track::default() });
        let mut closed = false;
        if done.now_ns.saturating_sub(track.window_start) >= window_ns {
            closed = true;
            let mean = (track.samples > 0).then(|| track.sum_ns / track.samples);
            track.value_ns = match design {
                LatencyDesign::Weighted => match (track.value_ns, mean) {
                    (_, None) => track.value_ns,
                    (None, Some(m)) => Some(m),
                    (Some(old), Some(m)) => Some((old * ((1 << shift) - 1) + m) >> shift),
                },
                LatencyDesign::Nlatency => match (track.samples >= LOW_WATER_SAMPLES, mean, track.value_ns) {
                    (true, Some(m), _) => Some(m),
                    (_, _, Some(old)) => Some(old * decay / 100),
                    (_, m, None) => m,
                },
            };
            *track = Track { window_start: done.now_ns, value_ns: track.value_ns, ..Track::default() };
        }
        track.sum_ns += done.latency_ns;
        track.samples += 1;
        if closed && design == LatencyDesign::Weighted {
            self.reweigh(key, write);
        }
    }
}

impl PathSelector for NvmeLatency {
    fn add_path(&mut self, path: &PathDesc) {
        self.paths.add(path);
    }

    path_set_membership!();

    fn select_path(&mut self, io: &IoDesc, _now_ns: TimeNs, host: &dyn HostView) -> Option<PathId> {
        self.node_of_cpu.insert(io.cpu, host.cpu_node(io.cpu));
        let chosen = match self.config.design {
            LatencyDesign::Weighted => self.weighted_path(io),
            LatencyDesign::Nlatency => self.least_latency_path(io),
        }?;
        Some(self.paths.id(chosen))
    }

    fn end_io(&mut self, path: PathId, io: &IoDesc, done: &IoDone) {
        if let Some(i) = self.paths.index_of(path) {
            self.sample(i, io, done);
        }
    }

    fn status(&self) -> PolicyStatus {
        let paths = (0..self.paths.len())
            .map(|i| NvmePath {
                path: self.paths.id(i),
                live: !self.paths.failed(i),
                ana: match self.paths.alua(i) {
                    AluaState::ActiveOptimized => "optimized",
                    AluaState::ActiveNonOptimized => "non-optimized",
                    AluaState::Standby | AluaState::Unavailable => "inaccessible",
                },
            })
            .collect();
        let iopolicy = match self.config.design {
            LatencyDesign::Weighted => "latency",
            LatencyDesign::Nlatency => "latency-2024",
        };
        PolicyStatus::Nvme { iopolicy, paths }
    }

    fn working_paths(&self) -> Vec<PathId> {
        (0..self.paths.len()).filter(|&i| self.usable(i)).map(|i| self.paths.id(i)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{add_paths, complete, io, issue};
    use crate::IdleHost;

    const MS: TimeNs = 1_000_000;

    /// Reads on CPU 0 over paths 0 and 1 taking `latency_us(path)`, one every millisecond from
    /// `start_ms`; the path each took.
    fn drive(p: &mut NvmeLatency, count: u64, start_ms: u64, latency_us: impl Fn(u32) -> u64) -> Vec<u32> {
        (0..count)
            .map(|k| {
                let now = (start_ms + k) * MS;
                let read = io(4096, 0);
                let path = issue(p, &IdleHost, &read, now);
                complete(p, path, &read, now, now + latency_us(path) * 1000);
                path
            })
            .collect()
    }

    #[test]
    fn weights_after_the_first_window_are_64_times_each_paths_share_of_inverse_latency() {
        let mut p = NvmeLatency::new(NvmeLatencyConfig { window_ms: 10, ..Default::default() });
        add_paths(&mut p, 2, |_| AluaState::ActiveOptimized);
        // Unmeasured: weight 0, round robin. Path 0 answers in 100 µs, path 1 in 300 µs.
        let slow1 = |path: u32| if path == 0 { 100 } else { 300 };
        assert_eq!(drive(&mut p, 4, 0, slow1), [0, 1, 0, 1]);
        drive(&mut p, 8, 4, slow1);
        // A sample 10 ms or more after its window began closes it: slat 100,000 and 300,000 ns;
        // scores 1e9/1e5 = 10,000 and 1e9/3e5 = 3,333.3; weights floor(64·10,000/13,333.3) = 48
        // and floor(64·3,333.3/13,333.3) = 16.
        drive(&mut p, 4, 12, slow1);
        assert_eq!(p.weights[&(0, false)], [48, 16]);
        // The next turns: 48 I/Os on path 0, then 16 on path 1 (after the one in progress).
        let turns = drive(&mut p, 200, 16, slow1);
        let runs: Vec<(u32, usize)> = turns.chunk_by(|a, b| a == b).map(|c| (c[0], c.len())).collect();
        assert!(runs[1..runs.len() - 1].iter().all(|&(path, n)| n == if path == 0 { 48 } else { 16 }), "{runs:?}");
    }

    #[test]
    fn each_window_moves_the_smoothed_latency_an_eighth_of_the_way() {
        let mut p = NvmeLatency::new(NvmeLatencyConfig { window_ms: 10, ..Default::default() });
        add_paths(&mut p, 2, |_| AluaState::ActiveOptimized);
        let mut at = |ms: u64, us: u64| {
            let done = IoDone { now_ns: ms * MS, latency_ns: us * 1000, failed: false };
            p.sample(0, &io(4096, 0), &done);
        };
        // Window 0..10 ms: 100 µs twice. The sample at 10 ms closes it (mean 100,000 ns, the first
        // smoothed value) and opens the next window, which it belongs to.
        at(0, 100);
        at(5, 100);
        at(10, 100);
        // Window 10..20 ms: 100, 900, 900 µs, mean 633,333 ns; closed by the sample at 20 ms.
        at(12, 900);
        at(15, 900);
        at(20, 900);
        let mean = (100_000 + 900_000 + 900_000) / 3;
        assert_eq!(p.tracks[&(0, 0, false)].value_ns, Some((100_000 * 7 + mean) >> 3));
    }

    #[test]
    fn nlatency_takes_the_least_mean_and_decays_a_stale_one_by_half() {
        let mut p = NvmeLatency::new(NvmeLatencyConfig { design: LatencyDesign::Nlatency, ..Default::default() });
        add_paths(&mut p, 2, |_| AluaState::ActiveOptimized);
        // Unmeasured paths first, in list order: path 0 takes every I/O while its value is 0.
        let first = drive(&mut p, 3, 0, |path| if path == 0 { 500 } else { 100 });
        assert_eq!(first, [0, 0, 0]);
        // Its 2 ms window closed with 2 samples of 500 µs: 500,000 ns; path 1, never measured,
        // is 0 and takes the I/O.
        assert_eq!(p.tracks[&(0, 0, false)].value_ns, Some(500_000));
        assert_eq!(drive(&mut p, 1, 3, |_| 100), [1]);
        // A window of path 0 with fewer than 2 samples keeps half the old mean.
        let mut track = p.tracks[&(0, 0, false)];
        track.samples = 1;
        p.tracks.insert((0, 0, false), track);
        let late = IoDone { now_ns: 20 * MS, latency_ns: 500_000, failed: false };
        p.sample(0, &io(4096, 0), &late);
        assert_eq!(p.tracks[&(0, 0, false)].value_ns, Some(250_000));
    }

    #[test]
    fn ana_states_are_not_told_apart_unless_asked() {
        let mut p = NvmeLatency::new(NvmeLatencyConfig::default());
        add_paths(&mut p, 2, |i| if i == 0 { AluaState::ActiveOptimized } else { AluaState::ActiveNonOptimized });
        assert_eq!(drive(&mut p, 2, 0, |_| 100), [0, 1]);
        let mut aware = NvmeLatency::new(NvmeLatencyConfig { ana_aware: true, ..Default::default() });
        add_paths(&mut aware, 2, |i| if i == 0 { AluaState::ActiveOptimized } else { AluaState::ActiveNonOptimized });
        assert_eq!(drive(&mut aware, 2, 0, |_| 100), [0, 0]);
    }
}
