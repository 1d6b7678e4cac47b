//! nvme-latency: the Linux NVMe `latency` iopolicies under review upstream, as one parameterised
//! family, so that the designs argued on linux-nvme can be compared on the same fabric.
//!
//! `design = "weighted"` (Nilay Shroff's "nvme-multipath: introduce latency I/O policy", RFC
//! Sept 2025 to PATCHv6 May 2026, not merged; research/anchors-2026.md §1.1.1):
//! - Each completion is a sample: its latency, keyed by path × the NUMA node of the CPU (or the
//!   CPU itself, `keyed_by = "cpu"`) × read or write (× I/O size bucket with `size_buckets =
//!   "log2"`: the per-CPU + buckets and per-NUMA + buckets candidates of LSF/MM 2026; the
//!   bucket edges of the proposal are not in the sources here, pathlab uses powers of two from
//!   4 KiB, ≤4 KiB, 8 KiB, … ≥1 MiB, 9 buckets, each with its own weights and credits). Samples of 0 or above 1 s are ignored, as
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
use crate::registered::{HostStack, Registered};
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
            name: "size_buckets",
            unset: None,
            range: None,
            choices: &["off", "log2"],
            help: "weighted: separate latencies, weights and credits per I/O size (powers of two, 4 KiB to 1 MiB)",
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

/// Whether the weighted design splits its classes by I/O size.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SizeBuckets {
    #[default]
    Off,
    /// ≤4 KiB, 8 KiB, 16 KiB, … ≥1 MiB (rounded up to a power of two).
    Log2,
}

impl SizeBuckets {
    fn bucket(self, bytes: u64) -> u8 {
        match self {
            SizeBuckets::Off => 0,
            SizeBuckets::Log2 => {
                let blocks = bytes.div_ceil(4096).max(1);
                (blocks.next_power_of_two().trailing_zeros() as u8).min(8)
            }
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct NvmeLatencyConfig {
    pub design: LatencyDesign,
    pub keyed_by: KeyedBy,
    pub size_buckets: SizeBuckets,
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
            size_buckets: SizeBuckets::Off,
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

/// An I/O class: (is_write, size bucket).
type Class = (bool, u8);
/// (path, key, class).
type TrackKey = (usize, u32, Class);

#[derive(Clone)]
pub struct NvmeLatency {
    config: NvmeLatencyConfig,
    paths: PathSet,
    tracks: HashMap<TrackKey, Track>,
    /// Weights per (key, class), one per path; 0: not measured yet.
    weights: HashMap<(u32, Class), Vec<u64>>,
    /// Per (CPU, class): the current path and the credit left on it.
    turns: HashMap<(u32, Class), (usize, u64)>,
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

    /// Paths the head may use: live, and not inaccessible; with `ana_aware` (and in the 2024
    /// design), the optimized ones while any is usable. `PathSet::usable` keeps whether any
    /// optimized path works, so this is O(1) per path.
    fn usable(&self, i: usize) -> bool {
        let tiered = self.config.ana_aware || self.config.design == LatencyDesign::Nlatency;
        self.paths.usable(i, !tiered)
    }

    /// The weighted design's weights for one key and class, from the smoothed latencies.
    fn reweigh(&mut self, key: u32, class: Class) {
        let n = self.paths.len();
        let scores: Vec<f64> = (0..n)
            .map(|i| {
                self.tracks.get(&(i, key, class)).and_then(|t| t.value_ns).map_or(0.0, |ns| 1e9 / ns.max(1) as f64)
            })
            .collect();
        let total: f64 = scores.iter().sum();
        let scale = self.config.weight_scale as f64;
        let weights =
            scores.iter().map(|&s| if s == 0.0 { 0 } else { ((scale * s / total).floor() as u64).max(1) }).collect();
        self.weights.insert((key, class), weights);
    }

    fn weighted_path(&mut self, io: &IoDesc) -> Option<usize> {
        let n = self.paths.len();
        let class = self.class(io);
        let turn = (io.cpu, class);
        let key = (self.key(io.cpu), class);
        if let Some(&(current, credit)) = self.turns.get(&turn) {
            if credit > 0 && current < n && self.usable(current) {
                self.turns.insert(turn, (current, credit - 1));
                return Some(current);
            }
        }
        let start = self.turns.get(&turn).map_or(0, |&(c, _)| c + 1);
        let next = (0..n).map(|k| (start + k) % n).find(|&i| self.usable(i))?;
        let weight = self.weights.get(&key).and_then(|w| w.get(next)).copied().unwrap_or(0).max(1);
        self.turns.insert(turn, (next, weight - 1));
        Some(next)
    }

    /// The weighted design's class of an I/O: read or write, and its size bucket.
    fn class(&self, io: &IoDesc) -> Class {
        (io.is_write, self.config.size_buckets.bucket(io.bytes))
    }

    fn least_latency_path(&self, io: &IoDesc) -> Option<usize> {
        let key = self.key(io.cpu);
        let value = |i: usize| {
            let read = self.tracks.get(&(i, key, (false, 0))).and_then(|t| t.value_ns);
            let write = self.tracks.get(&(i, key, (true, 0))).and_then(|t| t.value_ns);
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
        let (key, class) = match self.config.design {
            LatencyDesign::Weighted => (self.key(io.cpu), self.class(io)),
            LatencyDesign::Nlatency => (self.node_of_cpu.get(&io.cpu).copied().unwrap_or(0), (false, 0)),
        };
        let window_ns = match self.config.design {
            LatencyDesign::Weighted => self.config.window_ms * 1_000_000,
            LatencyDesign::Nlatency => self.config.window_us * 1_000,
        };
        let (shift, decay) = (self.config.ewma_shift, self.config.decay_percent);
        let design = self.config.design;
        let track =
            self.tracks.entry((path, key, class)).or_insert(Track { window_start: done.now_ns, ..Track::default() });
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
            self.reweigh(key, class);
        }
    }
}

impl PathSelector for NvmeLatency {
    /// Reads no other device's commands in flight (`HostView::nexus_outstanding`).
    fn reads_host_queues(&self) -> bool {
        false
    }

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
        assert_eq!(p.weights[&(0, (false, 0))], [48, 16]);
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
        assert_eq!(p.tracks[&(0, 0, (false, 0))].value_ns, Some((100_000 * 7 + mean) >> 3));
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
        assert_eq!(p.tracks[&(0, 0, (false, 0))].value_ns, Some(500_000));
        assert_eq!(drive(&mut p, 1, 3, |_| 100), [1]);
        // A window of path 0 with fewer than 2 samples keeps half the old mean.
        let mut track = p.tracks[&(0, 0, (false, 0))];
        track.samples = 1;
        p.tracks.insert((0, 0, (false, 0)), track);
        let late = IoDone { now_ns: 20 * MS, latency_ns: 500_000, failed: false };
        p.sample(0, &io(4096, 0), &late);
        assert_eq!(p.tracks[&(0, 0, (false, 0))].value_ns, Some(250_000));
    }

    /// One completion of `us` µs on `path` at `ms`, CPU 0, `bytes` long.
    fn sample_at(p: &mut NvmeLatency, path: usize, ms: u64, us: u64, bytes: u64) {
        let done = IoDone { now_ns: ms * MS, latency_ns: us * 1000, failed: false };
        p.sample(path, &io(bytes, 0), &done);
    }

    #[test]
    fn weights_follow_the_kernel_arithmetic_window_by_window() {
        let mut p = NvmeLatency::new(NvmeLatencyConfig { window_ms: 10, ..Default::default() });
        add_paths(&mut p, 3, |_| AluaState::ActiveOptimized);
        let latency_us = |path: usize, ms: u64| match (path, ms) {
            (0, 0 | 5) => 100,
            (0, _) => 900,
            (1, _) => 200,
            _ => 400,
        };
        for ms in [0, 5] {
            for path in 0..3 {
                sample_at(&mut p, path, ms, latency_us(path, ms), 4096);
            }
        }
        let class = (0, (false, 0));
        // At 10 ms each path's sample closes its first window (mean of the samples at 0 and 5
        // ms: 100, 200, 400 µs, the first smoothed values) and the weights are recomputed:
        // - path 0 alone measured: score 1e9/1e5 = 10,000, weight floor(64 · 10,000/10,000) = 64;
        // - with path 1 (score 1e9/2e5 = 5,000): floor(64 · 10,000/15,000) = floor(42.67) = 42
        //   and floor(64 · 5,000/15,000) = floor(21.33) = 21; path 2 still 0 (not measured);
        // - with path 2 (score 2,500, Σ 17,500): floor(36.57) = 36, floor(18.29) = 18,
        //   floor(9.14) = 9.
        let mut seen = Vec::new();
        for path in 0..3 {
            sample_at(&mut p, path, 10, latency_us(path, 10), 4096);
            seen.push(p.weights[&class].clone());
        }
        assert_eq!(seen, [vec![64, 0, 0], vec![42, 21, 0], vec![36, 18, 9]]);
        // Second window (10..20 ms, the closing samples at 10 ms included): path 0 answers in
        // 900 µs, mean 900,000 ns; slat = (100,000 · 7 + 900,000) >> 3 = 200,000. Paths 1 and 2
        // are unchanged ((s · 7 + s) >> 3 = s). Scores 5,000, 5,000, 2,500 (Σ 12,500): weights
        // floor(25.6) = 25, 25, floor(12.8) = 12.
        sample_at(&mut p, 0, 15, 900, 4096);
        for path in 0..3 {
            sample_at(&mut p, path, 20, latency_us(path, 20), 4096);
        }
        assert_eq!(p.tracks[&(0, 0, (false, 0))].value_ns, Some(200_000));
        assert_eq!(p.weights[&class], [25, 25, 12]);
    }

    #[test]
    fn credits_keep_each_cpu_on_a_path_for_its_weight_then_move_on() {
        let mut p = NvmeLatency::new(NvmeLatencyConfig { window_ms: 10, weight_scale: 4, ..Default::default() });
        add_paths(&mut p, 2, |_| AluaState::ActiveOptimized);
        // 100 and 300 µs: scores 10,000 and 3,333.3, weights floor(4 · 0.75) = 3 and
        // floor(4 · 0.25) = 1.
        for ms in [0, 10] {
            sample_at(&mut p, 0, ms, 100, 4096);
            sample_at(&mut p, 1, ms, 300, 4096);
        }
        assert_eq!(p.weights[&(0, (false, 0))], [3, 1]);
        // CPUs 0 and 1 alternate; each has its own credit: 3 I/Os on path 0, 1 on path 1, again.
        let mut took = [Vec::new(), Vec::new()];
        for k in 0..16u32 {
            let cpu = k % 2;
            let path = p.select_path(&io(4096, cpu), 0, &IdleHost).unwrap();
            took[cpu as usize].push(path.0);
        }
        assert_eq!(took[0], [0, 0, 0, 1, 0, 0, 0, 1]);
        assert_eq!(took[1], took[0]);
    }

    #[test]
    fn size_buckets_give_each_io_size_its_own_weights_and_credits() {
        let buckets = SizeBuckets::Log2;
        let sizes = [512, 4096, 8192, 12_288, 65_536, 1 << 20, 4 << 20];
        assert_eq!(sizes.map(|b| buckets.bucket(b)), [0, 0, 1, 2, 4, 8, 8]);
        assert_eq!(SizeBuckets::Off.bucket(1 << 20), 0);
        let config = NvmeLatencyConfig { window_ms: 10, weight_scale: 4, size_buckets: buckets, ..Default::default() };
        let mut p = NvmeLatency::new(config);
        add_paths(&mut p, 2, |_| AluaState::ActiveOptimized);
        for ms in [0, 10] {
            sample_at(&mut p, 0, ms, 100, 4096);
            sample_at(&mut p, 1, ms, 300, 4096);
        }
        // 4 KiB I/Os are weighted 3:1; 64 KiB ones have no measure yet and go round robin.
        let mut run = |bytes| (0..4).map(|_| p.select_path(&io(bytes, 0), 0, &IdleHost).unwrap().0).collect::<Vec<_>>();
        assert_eq!(run(4096), [0, 0, 0, 1]);
        assert_eq!(run(65_536), [0, 1, 0, 1]);
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
