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

use crate::path_set::{next_in_rotation, rotation, USUAL_PATHS};
use crate::TimeNs;

/// A path is fast when its floor is at most this multiple of the best path's mean latency: wide
/// enough that a lucky best path does not shut out equal ones (16 samples taken under load
/// differ by a quarter or more); narrow enough that a path more than twice as slow with no queue
/// (a remote array at metro distance, an added delay) is left out.
pub const FAST_FACTOR: f64 = 2.0;

/// Where the sampler's caller keeps, for each path, whether it may carry I/O now and the samples
/// sent down it in this sampling: beside what the caller reads of the path at every I/O anyway
/// (round robin's lanes), so that sending a sample reads no line of the sampler's own but its
/// header.
pub trait SampledPaths {
    fn len(&self) -> usize;
    fn usable(&self, index: usize) -> bool;
    fn sent(&self, index: usize) -> u32;
    fn set_sent(&mut self, index: usize, sent: u32);
}

/// `SampledPaths` for a caller with no record of its own to keep the counts in: its usable flags
/// (`PathSet::usable_flags`) and a table of counts beside them.
pub struct CountsBeside<'a> {
    pub usable: &'a [bool],
    pub sent: &'a mut [u32],
}

impl SampledPaths for CountsBeside<'_> {
    fn len(&self) -> usize {
        self.sent.len()
    }

    fn usable(&self, index: usize) -> bool {
        self.usable[index]
    }

    fn sent(&self, index: usize) -> u32 {
        self.sent[index]
    }

    fn set_sent(&mut self, index: usize, sent: u32) {
        self.sent[index] = sent;
    }
}

/// One path's samples of the current (or last) sampling come back: what a completion reads and
/// writes, in one cache line (`align(64)`), where the samples and the last judgement kept
/// together (120 bytes) put two lines of each path behind every sample on a host of many devices.
#[derive(Clone, Debug, Default)]
#[repr(C, align(64))]
struct Tally {
    done: u64,
    /// The least latency among this sampling's samples so far.
    least_ns: Option<TimeNs>,
    latency_ns: u128,
    bytes: u128,
}

const _: () = assert!(std::mem::size_of::<Tally>() == 64);

/// A path as the last evaluation judged it: mean latency (ns) and size-weighted latency (ns per
/// KiB). Read by the status and by HPP's choice, not by a sample.
#[derive(Clone, Copy, Debug, Default)]
struct Judged {
    mean_ns: Option<f64>,
    ns_per_kib: Option<f64>,
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

/// The sampler of one device. What a sample reads (sending it: the phase, when the next
/// sampling is due, the rotation) and what its completion reads (the sampling's start, the
/// samples out, the tallies) come first, in one cache line (`repr(C, align(64))`):
/// on a host of thousands of devices every line a device touches is a cache miss at each of its
/// I/Os, and every I/O is a sample while a sampling lasts (all of a short run's, on a cluster's
/// devices at a few I/Os a second).
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct LatencySampler {
    phase: Phase,
    /// Next path in the sampling rotation.
    next: u32,
    /// Samples per path: the configured cycles, at most `u32::MAX` (esxcli's and HPP's ranges
    /// end far below it).
    cycles: u32,
    /// Samples sent and not back yet: the sampling is judged when it falls to zero after the
    /// last sample is sent (the counts sent less the tallies' `done`).
    out: u32,
    /// When the current (or last) sampling began (meaningful while sampling).
    started_ns: TimeNs,
    /// When the next sampling is due: `eval_interval_ns` after the last one began (0 before the
    /// first I/O: due at once).
    due_ns: TimeNs,
    /// A `Vec`, not a boxed slice: a device's paths are added one at a time, and a boxed slice
    /// was reallocated twice per path (the model's build of a cluster took 0.03-0.05 s longer).
    tallies: Vec<Tally>,
    eval_interval_ns: TimeNs,
    /// Each path's verdict at the last evaluation: what every I/O between evaluations reads
    /// (`admits`), 8 paths in 8 bytes.
    fast: Vec<bool>,
    /// Each path's floor at the last evaluation (ns; 0 for none, so that it is tried): what
    /// round robin's switch ranks the fast paths by, 8 paths in a line.
    floors: Vec<TimeNs>,
    judged: Vec<Judged>,
    evaluations: u64,
}

const _: () = assert!(std::mem::offset_of!(LatencySampler, eval_interval_ns) <= 64 - 8);

/// Whether path `i` may carry I/O and has had fewer than `cycles` samples in this sampling.
fn wants(paths: &impl SampledPaths, i: usize, cycles: u32) -> bool {
    paths.usable(i) && paths.sent(i) < cycles
}

impl LatencySampler {
    pub fn new(cycles: u64, eval_interval_ns: TimeNs) -> Self {
        LatencySampler {
            phase: Phase::Using,
            next: 0,
            cycles: u32::try_from(cycles).unwrap_or(u32::MAX),
            out: 0,
            started_ns: 0,
            due_ns: 0,
            tallies: Vec::new(),
            eval_interval_ns,
            fast: Vec::new(),
            floors: Vec::new(),
            judged: Vec::new(),
            evaluations: 0,
        }
    }

    pub fn add_path(&mut self) {
        if self.tallies.is_empty() {
            // Room for a usual device's paths at once (growing 4, then 8, was two allocations
            // of each table per device: a cluster's build is thousands of devices).
            self.tallies.reserve(USUAL_PATHS);
            self.fast.reserve(USUAL_PATHS);
            self.floors.reserve(USUAL_PATHS);
            self.judged.reserve(USUAL_PATHS);
        }
        self.tallies.push(Tally::default());
        self.fast.push(false);
        self.floors.push(0);
        self.judged.push(Judged::default());
    }

    fn start_sampling(&mut self, paths: &mut impl SampledPaths, now: TimeNs, first: usize) {
        self.phase = Phase::Sampling;
        self.started_ns = now;
        self.due_ns = now + self.eval_interval_ns;
        self.next = first as u32;
        self.out = 0;
        (0..paths.len()).for_each(|i| paths.set_sent(i, 0));
        self.tallies.fill(Tally::default());
    }

    /// The path a sample should go down now, if sampling; starts a sampling when one is due, its
    /// rotation from path `first`; `paths` says which may carry I/O and keeps the counts sent.
    pub fn sample_path(&mut self, paths: &mut impl SampledPaths, now: TimeNs, first: usize) -> Option<usize> {
        if self.phase == Phase::Using && now >= self.due_ns {
            self.start_sampling(paths, now, first);
        }
        if self.phase != Phase::Sampling {
            return None;
        }
        let n = paths.len();
        let cycles = self.cycles;
        let pick = rotation(n, self.next as usize).find(|&i| wants(paths, i, cycles));
        if let Some(i) = pick {
            paths.set_sent(i, paths.sent(i) + 1);
            self.out += 1;
            self.next = next_in_rotation(i, n) as u32;
        }
        // Once the last sample is out, the last completion judges the paths. (Looked for from
        // the next in rotation: usually the first path looked at wants one.)
        if !rotation(n, self.next as usize).any(|i| wants(paths, i, cycles)) {
            self.phase = Phase::Awaiting;
            self.evaluate_if_complete();
        }
        pick
    }

    /// An I/O on path `index`, down which `sent` samples went in this sampling, that started at
    /// `started_ns` ended.
    pub fn on_complete(
        &mut self,
        index: usize,
        sent: u32,
        started_ns: TimeNs,
        latency_ns: TimeNs,
        bytes: u64,
        failed: bool,
    ) {
        let in_sampling = matches!(self.phase, Phase::Sampling | Phase::Awaiting);
        if !in_sampling || started_ns < self.started_ns {
            return;
        }
        let p = &mut self.tallies[index];
        if p.done >= u64::from(sent) {
            return;
        }
        p.done += 1;
        self.out -= 1;
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
        if self.out > 0 {
            return;
        }
        for (p, j) in self.tallies.iter().zip(&mut self.judged) {
            let ok = p.bytes > 0;
            j.ns_per_kib = ok.then(|| p.latency_ns as f64 * 1024.0 / p.bytes as f64);
            j.mean_ns = ok.then(|| p.latency_ns as f64 / p.done as f64);
        }
        let best_mean = self.judged.iter().filter_map(|j| j.mean_ns).fold(f64::INFINITY, f64::min);
        for ((p, fast), floor) in self.tallies.iter().zip(&mut self.fast).zip(&mut self.floors) {
            *fast = p.least_ns.is_some_and(|l| l as f64 <= best_mean * FAST_FACTOR);
            *floor = p.least_ns.unwrap_or(0);
        }
        self.phase = Phase::Using;
        self.evaluations += 1;
    }

    /// Reads one word of each line the next I/O's sample or admission and its completion read
    /// (`PathSelector::preload`): the header; while sampling, the tally of `path` (round robin's
    /// current one, where the completion counts); between samplings, the verdicts.
    #[inline(always)]
    pub fn preload(&self, path: Option<usize>) -> u64 {
        if self.phase == Phase::Using {
            self.evaluations.wrapping_add(u64::from(self.fast.first().copied().unwrap_or(false)))
        } else {
            path.and_then(|i| self.tallies.get(i)).map_or(0, |t| t.done)
        }
    }

    /// Whether the path may carry in-period I/O. Before the first evaluation every path may.
    pub fn admits(&self, index: usize) -> bool {
        self.evaluations == 0 || self.fast[index]
    }

    /// Cycles sent in the current (or last) sampling: ESXi's `curSamplingCycle`.
    pub fn current_cycle(&self, paths: &impl SampledPaths) -> u64 {
        (0..paths.len()).filter(|&i| paths.usable(i)).map(|i| u64::from(paths.sent(i))).min().unwrap_or(0)
    }

    /// A path's floor at the last evaluation (the least latency among its samples), in ns; 0
    /// for a path not judged yet, so that it is tried.
    pub fn floor_ns(&self, index: usize) -> TimeNs {
        self.floors[index]
    }

    /// Size-weighted latency of a path at the last evaluation, in ns per KiB.
    pub fn ns_per_kib(&self, index: usize) -> Option<f64> {
        self.judged[index].ns_per_kib
    }

    /// Mean sampled latency of a path at the last evaluation, in ns.
    pub fn judged_mean_ns(&self, index: usize) -> Option<f64> {
        self.judged[index].mean_ns
    }
}
