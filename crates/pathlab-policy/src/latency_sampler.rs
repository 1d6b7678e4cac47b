//! The latency evaluation of VMware's latency-based policies: NMP's VMW_PSP_RR `type=latency`
//! and HPP's LB-Latency, which judge paths alike and differ in how they use the judgement.
//!
//! VMware documents the knobs, not the rule: every `latency_eval_time` it re-measures each path
//! over `num_sampling_cycles` I/Os per path, weighting latency by I/O size, and leaves out the
//! paths it judges slow until the next evaluation. What pathlab does (inferred, see
//! `nmp/round_robin.rs` for why):
//! 1. Sampling: the next `cycles` I/Os to each usable path are sent round robin, one path after
//!    another (a cycle is one I/O down every usable path: ESXi's `curSamplingCycle`), from the
//!    path the caller names: NMP's round robin goes on from its current path, so that devices
//!    that evaluate together do not all start on the same port (they did: a burst of every
//!    device's samples on path 0 made it the slowest path of every evaluation).
//!
//! 2. Evaluation, once every sample has come back: a path's latency is the sum of its samples'
//!    latencies over the sum of their sizes (ns per KiB: a 64 KiB I/O is allowed to take longer
//!    than a 4 KiB one: what HPP ranks by), its mean, and its *floor*, the least latency among
//!    its samples: what the path gives an I/O that meets no queue (distance, link, a slow port,
//!    an added delay). A path is *fast* when its floor is at most `FAST_FACTOR` (2) times the
//!    best mean of the paths: slower with no queue than another path is with the queue the
//!    load gave it.
//! 3. Until the next sampling, only fast paths are admitted (NMP's round robin).
//!
//! Why not compare means, as the sampler once did (each path's size-weighted mean within 2× of
//! the best): sampled under saturation, the means of equal paths differed by up to 4× in 16
//! samples, and they measured the crowd the last evaluation had made, so every device on the
//! same ports judged the same port slow and they all left it together. On `symmetric-fabric`
//! with `latency_eval_time` 30 s a different port was left out by all four devices evaluation
//! after evaluation: 85,000-113,000 I/O/s against 129,000 for iops=1 (session 7). The floor
//! against the best mean keeps every path of a saturated fabric (their floors stay below the
//! queued means) and still leaves out a remote array (C2: a 6.2 ms floor against 2.4 ms) or a
//! path 30 ms slower. It also lets more paths in as load grows: the best mean rises with it.
//! Left: with evaluations every 30 s the fifth one still left one port out for three of the
//! four devices (117,000 I/O/s for 30 s), samples caught behind a queue of the moment.
//!
//! The next sampling starts `eval_interval_ns` after the previous one started. HPP (`hpp.rs`)
//! starts its samplings on path 0 and ranks by the size-weighted latency, as before.

use crate::{PathSet, TimeNs};

/// A path is fast when its floor is at most this multiple of the best path's mean latency: wide
/// enough that a lucky best path does not shut out equal ones (16 samples taken under load
/// differ by a quarter or more); narrow enough that a path more than twice as slow with no queue
/// (a remote array at metro distance, an added delay) is left out.
pub const FAST_FACTOR: f64 = 2.0;

#[derive(Clone, Debug, Default)]
struct PathSamples {
    issued: u64,
    done: u64,
    latency_ns: u128,
    bytes: u128,
    /// The least latency among this sampling's samples so far.
    least_ns: Option<TimeNs>,
    /// Judged at the last evaluation: mean latency (ns), size-weighted latency (ns per KiB) and
    /// floor (the least latency, ns).
    mean_ns: Option<f64>,
    ns_per_kib: Option<f64>,
    floor_ns: Option<TimeNs>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Sending samples.
    Sampling,
    /// Every sample is out; waiting for the last to come back.
    Awaiting,
    /// Judged; admitting fast paths only.
    Using,
}

#[derive(Clone, Debug)]
pub struct LatencySampler {
    cycles: u64,
    eval_interval_ns: TimeNs,
    phase: Phase,
    /// When the current (or last) sampling began; `None` before the first I/O.
    started_ns: Option<TimeNs>,
    /// Next path in the sampling rotation.
    next: usize,
    paths: Vec<PathSamples>,
    /// Each path's verdict at the last evaluation, apart from its samples: what every I/O
    /// between evaluations reads (`admits`), 8 paths in 8 bytes, where reading it from each
    /// path's samples (120 bytes apart) cost a cache miss per path on a host of many devices.
    fast: Vec<bool>,
    evaluations: u64,
}

impl LatencySampler {
    pub fn new(cycles: u64, eval_interval_ns: TimeNs) -> Self {
        LatencySampler {
            cycles,
            eval_interval_ns,
            phase: Phase::Using,
            started_ns: None,
            next: 0,
            paths: Vec::new(),
            fast: Vec::new(),
            evaluations: 0,
        }
    }

    pub fn add_path(&mut self) {
        self.paths.push(PathSamples::default());
        self.fast.push(false);
    }

    fn start_sampling(&mut self, now: TimeNs, first: usize) {
        self.phase = Phase::Sampling;
        self.started_ns = Some(now);
        self.next = first;
        for p in &mut self.paths {
            (p.issued, p.done, p.latency_ns, p.bytes, p.least_ns) = (0, 0, 0, 0, None);
        }
    }

    /// The path a sample should go down now, if sampling; starts a sampling when one is due, its
    /// rotation from path `first`.
    pub fn sample_path(&mut self, paths: &PathSet, use_ano: bool, now: TimeNs, first: usize) -> Option<usize> {
        let due = self.started_ns.is_none_or(|t| now >= t + self.eval_interval_ns);
        if self.phase == Phase::Using && due {
            self.start_sampling(now, first);
        }
        if self.phase != Phase::Sampling {
            return None;
        }
        let n = paths.len();
        let wanting = |me: &Self, i: usize| paths.usable(i, use_ano) && me.paths[i].issued < me.cycles;
        let pick = (0..n).map(|k| (self.next + k) % n).find(|&i| wanting(self, i));
        if let Some(i) = pick {
            self.paths[i].issued += 1;
            self.next = (i + 1) % n;
        }
        // Once the last sample is out, the last completion judges the paths.
        if !(0..n).any(|i| wanting(self, i)) {
            self.phase = Phase::Awaiting;
            self.evaluate_if_complete();
        }
        pick
    }

    /// An I/O on path `index` that started at `started_ns` ended.
    pub fn on_complete(&mut self, index: usize, started_ns: TimeNs, latency_ns: TimeNs, bytes: u64, failed: bool) {
        let in_sampling = matches!(self.phase, Phase::Sampling | Phase::Awaiting);
        let p = &mut self.paths[index];
        if !in_sampling || self.started_ns.is_none_or(|t| started_ns < t) || p.done >= p.issued {
            return;
        }
        p.done += 1;
        if !failed {
            p.latency_ns += u128::from(latency_ns);
            p.least_ns = Some(p.least_ns.map_or(latency_ns, |l| l.min(latency_ns)));
            p.bytes += u128::from(bytes);
        }
        if self.phase == Phase::Awaiting {
            self.evaluate_if_complete();
        }
    }

    fn evaluate_if_complete(&mut self) {
        if self.paths.iter().any(|p| p.done < p.issued) {
            return;
        }
        for p in &mut self.paths {
            let ok = p.bytes > 0;
            p.ns_per_kib = ok.then(|| p.latency_ns as f64 * 1024.0 / p.bytes as f64);
            p.mean_ns = ok.then(|| p.latency_ns as f64 / p.done as f64);
            p.floor_ns = p.least_ns;
        }
        let best_mean = self.paths.iter().filter_map(|p| p.mean_ns).fold(f64::INFINITY, f64::min);
        for (p, fast) in self.paths.iter().zip(&mut self.fast) {
            *fast = p.floor_ns.is_some_and(|l| l as f64 <= best_mean * FAST_FACTOR);
        }
        self.phase = Phase::Using;
        self.evaluations += 1;
    }

    /// Whether the path may carry in-period I/O. Before the first evaluation every path may.
    pub fn admits(&self, index: usize) -> bool {
        self.evaluations == 0 || self.fast[index]
    }

    /// Cycles sent in the current (or last) sampling: ESXi's `curSamplingCycle`.
    pub fn current_cycle(&self, paths: &PathSet, use_ano: bool) -> u64 {
        (0..paths.len()).filter(|&i| paths.usable(i, use_ano)).map(|i| self.paths[i].issued).min().unwrap_or(0)
    }

    /// A path's floor at the last evaluation (the least latency among its samples), in ns; 0
    /// for a path not judged yet, so that it is tried.
    pub fn floor_ns(&self, index: usize) -> TimeNs {
        self.paths[index].floor_ns.unwrap_or(0)
    }

    /// Size-weighted latency of a path at the last evaluation, in ns per KiB.
    pub fn ns_per_kib(&self, index: usize) -> Option<f64> {
        self.paths[index].ns_per_kib
    }

    /// Mean sampled latency of a path at the last evaluation, in ns.
    pub fn judged_mean_ns(&self, index: usize) -> Option<f64> {
        self.paths[index].mean_ns
    }
}
