//! gated-least-load: pathlab's own policy. Use the fastest array, the fast paths to it, and the
//! least loaded of those; notice a change within a fraction of a second.
//!
//! Algorithm:
//! 1. Every completion updates its path's latency estimate, an exponentially weighted mean that
//!    forgets with a time constant `tau_ms` (default 100 ms): a sample after a gap of Δt weighs
//!    1 − e^(−Δt/τ). So a path that slows down is seen within a few τ (well under a second),
//!    where ESXi's latency sub-type waits for its next evaluation (3 minutes by default).
//!    Errors feed a second estimate of the same kind, the path's error rate; a path whose error
//!    rate is above `error_gate_percent` is left out like a slow one. A path failing 2% of its
//!    commands still serves 98% of them at full speed and is worth using (the retry costs
//!    little); one failing in bursts is left out for the burst. An outcome weighs at most one
//!    half, and a path left out for errors comes back only below half the gate (hysteresis), so
//!    that it returns after a few clean probes, not one lucky one.
//! 2. ALUA as everyone does it: active-optimized paths, non-optimized only when no optimized
//!    path works.
//! 3. Group affinity: paths are grouped by target port group (one array, or one controller of
//!    an array with LUN ownership). I/O stays in the current group while no other group is
//!    faster by more than the `gate` factor, comparing each group's best *floor*: the least
//!    latency a path showed lately (it rises back towards the estimate with a time constant of
//!    ten τ), which is its latency without queueing. Comparing estimates instead would set a busy
//!    group's queueing against an idle group's probe, and flip I/O between arrays. Why: the paths to
//!    one array share its cache and its write coherence; spreading a volume's writes over two
//!    active-active arrays makes them pass extent ownership back and forth (the SRDF/Metro
//!    iops=1 result), while keeping them on one array costs nothing when both are equally fast,
//!    and moving to a faster array (the local one at metro distance) is what matters.
//! 4. The gate: inside the group, only paths whose *relative* latency is within `gate` × the
//!    best path's are used (unmeasured paths are used, to measure them). A completion's relative
//!    latency is its latency over the device's typical latency for I/O of its kind (read or
//!    write, size to the power of two), itself a mean over all paths with the same τ; a path's
//!    relative latency is their weighted mean like the estimate's. Comparing raw latencies
//!    judges the mix a path carried lately, not the path: on the CX4's 8 KiB-1 MiB mix with 40%
//!    writes (reads 75 ms, writes 16 ms on average at 16 LUNs x 16 outstanding), paths were left
//!    out at random, and on two nearly full links most LUNs then left the same link at once: it
//!    sat idle for a few hundred ms while the other overflowed, 28% fewer I/O/s than round robin
//!    iops=1 (one size and direction alone: no loss). ESXi's latency sub-type and HPP LB-Latency
//!    weigh latency by size for the same reason (`latency_sampler.rs`); per kind also separates
//!    a write acknowledged from cache from a read from disk of the same size.
//! 5. Least load: among those, the path with the least (outstanding I/Os + 1) × service time:
//!    the expected completion of this I/O if the path serves its queue at its recent pace. The
//!    service time is estimated as dm's historical-service-time does: a completion's time since
//!    the later of its start and the previous completion on the path, so that queueing is not
//!    counted twice. Ties go round from the path after the last chosen one.
//! 6. Probing: a usable path that has not been sent an I/O for `probe_ms` (default 500 ms) gets
//!    the next one, so that a path left out is re-measured and comes back once it is fast.
//!
//! Parameters: `gate_percent` 105..=1000 (default 150: a path or group 1.5× slower than the
//! best is left out), `tau_ms` 1..=60000 (100), `probe_ms` 10..=600000 (500),
//! `error_gate_percent` 1..=100 (10).
//! Tie-break: round from the path after the last chosen.
//! Real stack reproduced: none; it borrows ESXi's latency exclusion, dm service-time's
//! load-weighted choice and PowerPath's continuous adaptation, and adds group affinity.

use crate::params::{check_range, ParamSpec, PolicyError, PolicySpec};
use crate::path_set::{least_from, next_in_rotation, path_set_membership, rotation, USUAL_PATHS};
use crate::registered::{HostStack, Registered};
use crate::status::{GatedPath, PolicyStatus};
use crate::{AluaState, HostView, IoDesc, IoDone, PathDesc, PathId, PathSelector, PathSet, TimeNs};
use serde::{Deserialize, Serialize};

pub(crate) const SPEC: PolicySpec = PolicySpec {
    stack: "pathlab",
    summary: "Fastest array, fast paths only, least expected completion time; adapts in well under a second",
    params: &[
        ParamSpec {
            name: "gate_percent",
            unset: None,
            range: Some((105, 1000)),
            choices: &[],
            help: "a path (a group) is left out when slower than this % of the best",
        },
        ParamSpec {
            name: "tau_ms",
            unset: None,
            range: Some((1, 60_000)),
            choices: &[],
            help: "time constant of the latency estimates",
        },
        ParamSpec {
            name: "probe_ms",
            unset: None,
            range: Some((10, 600_000)),
            choices: &[],
            help: "a usable path unused this long gets one I/O to re-measure it",
        },
        ParamSpec {
            name: "error_gate_percent",
            unset: None,
            range: Some((1, 100)),
            choices: &[],
            help: "a path whose recent error rate is above this % is left out",
        },
    ],
};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct GatedLeastLoadConfig {
    pub gate_percent: u64,
    pub tau_ms: u64,
    pub probe_ms: u64,
    pub error_gate_percent: u64,
}

impl Default for GatedLeastLoadConfig {
    fn default() -> Self {
        GatedLeastLoadConfig { gate_percent: 150, tau_ms: 100, probe_ms: 500, error_gate_percent: 10 }
    }
}

impl Registered for GatedLeastLoadConfig {
    const SPEC: &'static PolicySpec = &SPEC;
    const HOST: HostStack = HostStack::Esxi;

    fn validate(&self) -> Result<(), PolicyError> {
        check_range(SPEC.param("gate_percent"), self.gate_percent)?;
        check_range(SPEC.param("tau_ms"), self.tau_ms)?;
        check_range(SPEC.param("probe_ms"), self.probe_ms)?;
        check_range(SPEC.param("error_gate_percent"), self.error_gate_percent)
    }

    fn build(&self) -> Box<dyn PathSelector> {
        Box::new(GatedLeastLoad::new(self.clone()))
    }
}

/// What choosing a path reads of it (`survey`, the least expected completion), in 48 bytes:
/// with the path's id and whether it is usable (copied from the path set, whose tables would be
/// two more cache lines an I/O), and a measurement not made yet a NaN, not an `Option`. What
/// only the path's completions read is apart (`PathHistory`): the survey reads every path at
/// every I/O, and on a host of thousands of devices each line it reads is a cache miss (80
/// bytes a path, the whole state together, put 8 paths on 10 lines; these take 6).
#[derive(Clone, Debug)]
#[repr(C)]
struct PathState {
    id: PathId,
    group: u32,
    outstanding: u32,
    /// `PathSet::usable(i, false)`, copied after every change of the set (`copy_usable`).
    usable: bool,
    /// Left out for errors: above the error gate; taken back below half of it (hysteresis, so
    /// that a path hovering at the gate does not flap in and out).
    erring: bool,
    /// When the path is due a probe if it carries nothing: a probe interval after it was last
    /// sent an I/O (0 until it is first used: due at once).
    probe_due_ns: TimeNs,
    /// Relative latency: the smoothed ratio of the path's latencies to the device's typical
    /// latency for I/O of the same kind (1: as fast as usual). What the gate compares.
    relative: Measure,
    /// Least latency seen lately (ns), drifting back up towards the estimate.
    floor_ns: Measure,
    /// Service time estimate (ns): time since the later of start and previous completion.
    service_ns: Measure,
}

// The size the layout above is for.
const _: () = assert!(std::mem::size_of::<PathState>() == 48);

impl PathState {
    fn new(id: PathId, group: u32) -> Self {
        let unmeasured = Measure::default();
        PathState {
            id,
            group,
            outstanding: 0,
            usable: false,
            erring: false,
            probe_due_ns: 0,
            relative: unmeasured,
            floor_ns: unmeasured,
            service_ns: unmeasured,
        }
    }
}

/// What only a path's completions read and write, 32 bytes on a line's half (`align(32)`).
#[derive(Clone, Debug)]
#[repr(C, align(32))]
struct PathHistory {
    /// Latency estimate in ns; missing until the first successful completion.
    estimate_ns: Measure,
    /// The last successful completion: the weight of the next sample, and where the next
    /// service time starts at the latest.
    last_sample_ns: TimeNs,
    /// Recent fraction of commands that ended in error.
    error_rate: f64,
    last_outcome_ns: TimeNs,
}

impl Default for PathHistory {
    fn default() -> Self {
        PathHistory { estimate_ns: Measure::default(), last_sample_ns: 0, error_rate: 0.0, last_outcome_ns: 0 }
    }
}

/// A smoothed measurement, missing until its first sample: an `Option<f64>` in 8 bytes, NaN
/// when missing (no measurement is a NaN: they are means and minima of finite latencies).
#[derive(Clone, Copy, Debug)]
struct Measure(f64);

impl Default for Measure {
    fn default() -> Self {
        Measure(f64::NAN)
    }
}

impl Measure {
    fn get(self) -> Option<f64> {
        (!self.0.is_nan()).then_some(self.0)
    }

    fn set(&mut self, value: f64) {
        self.0 = value;
    }

    /// The value, or infinity when missing: what a search for the least value starts from.
    fn or_infinity(self) -> f64 {
        if self.0.is_nan() {
            f64::INFINITY
        } else {
            self.0
        }
    }
}

/// Kinds of I/O whose latencies are compared with each other: reads and writes, each by size in
/// powers of two from 4 KiB (and less) to 8 MiB (and more).
const SIZE_KINDS: usize = 12;
const KINDS: usize = 2 * SIZE_KINDS;

fn kind(io: &IoDesc) -> usize {
    let log2 = io.bytes.max(1).next_power_of_two().trailing_zeros() as usize;
    usize::from(io.is_write) * SIZE_KINDS + log2.clamp(12, 12 + SIZE_KINDS - 1) - 12
}

/// The device's typical latency of one kind of I/O, over all its paths: 16 bytes (a NaN for
/// none yet), so that the one a completion reads never straddles two cache lines.
#[derive(Clone, Copy, Debug, Default)]
struct Typical {
    latency_ns: Measure,
    last_sample_ns: TimeNs,
}

/// One device's policy, in the order an I/O reads it (`repr(C, align(64))`): the paths' states
/// and histories, the current group and the last path chosen in the first cache line; the config
/// and the path set's positions (`start_io` and `end_io` look the path up) in the second; the
/// typical latencies after. Every I/O reads both lines, and no other of the policy's own.
#[derive(Clone)]
#[repr(C, align(64))]
pub struct GatedLeastLoad {
    state: Vec<PathState>,
    history: Vec<PathHistory>,
    group: Option<u32>,
    last: usize,
    config: GatedLeastLoadConfig,
    paths: PathSet,
    typical: [Typical; KINDS],
}

const _: () = assert!(std::mem::offset_of!(GatedLeastLoad, config) == 64);
// The path set's head (its positions: `PathPositions::Consecutive`'s tag, first id and count,
// 12 bytes, as round robin's assert counts them) within the second line.
const _: () = assert!(std::mem::offset_of!(GatedLeastLoad, paths) + 12 <= 128);

impl GatedLeastLoad {
    pub fn new(config: GatedLeastLoadConfig) -> Self {
        GatedLeastLoad {
            state: Vec::new(),
            history: Vec::new(),
            group: None,
            last: 0,
            config,
            paths: PathSet::default(),
            typical: [Typical::default(); KINDS],
        }
    }

    fn gate(&self) -> f64 {
        self.config.gate_percent as f64 / 100.0
    }

    /// Brings the paths' usable flags in line with the path set after a change to it.
    fn copy_usable(&mut self) {
        for (s, &usable) in self.state.iter_mut().zip(self.paths.usable_flags(false)) {
            s.usable = usable;
        }
    }

    /// Usable by ALUA and not failing too often.
    fn healthy(&self, i: usize) -> bool {
        self.state[i].usable && !self.state[i].erring
    }

    /// May carry I/O: healthy, or merely usable when no path is healthy (errors beat no path).
    fn candidate(&self, i: usize, any_healthy: bool) -> bool {
        self.state[i].usable && !(any_healthy && self.state[i].erring)
    }

    /// The gate's bound on a path's relative latency, from its group's best (`None`: none measured).
    fn bound(&self, best: Option<f64>) -> Option<f64> {
        best.map(|b| b * self.gate())
    }

    /// A candidate of `group` within the gate's `bound` (`bound`: from the group's best
    /// estimate; an unmeasured path is admitted, to measure it).
    #[inline]
    fn admits(&self, i: usize, group: u32, bound: Option<f64>, any_healthy: bool) -> bool {
        let s = &self.state[i];
        self.candidate(i, any_healthy)
            && s.group == group
            && match (s.relative.get(), bound) {
                (Some(e), Some(b)) => e <= b,
                _ => true,
            }
    }

    /// The best of `value` among healthy paths of a group (`None`: none measured).
    fn group_best(&self, group: u32, value: impl Fn(&PathState) -> Option<f64>) -> Option<f64> {
        (0..self.state.len())
            .filter(|&i| self.healthy(i) && self.state[i].group == group)
            .filter_map(|i| value(&self.state[i]))
            .reduce(f64::min)
    }

    /// Looks at every path once for `select_path`: walking round from `start`, it stops at the
    /// first path due a probe (the answer then); otherwise it gathers what choosing the group
    /// needs, and the current group's best relative latency and service time, which the choice
    /// within the group needs when the group stays (it usually does). One pass: the separate
    /// scans for each of these were most of an I/O's cost.
    fn survey(&self, start: usize, now_ns: TimeNs) -> Survey {
        let mut v = Survey::default();
        // The least floor of a healthy path and its group; the current group's least floor,
        // relative latency and service time (infinity: none measured). No measurement is
        // infinite, and none is a NaN or -0, so `<` finds what `f64::min` and `total_cmp` did.
        let (mut fastest, mut fastest_group) = (f64::INFINITY, u32::MAX);
        let [mut floor, mut relative, mut service] = [f64::INFINITY; 3];
        for i in rotation(self.state.len(), start) {
            let s = &self.state[i];
            if !s.usable {
                continue;
            }
            // A usable path never used, or left unused for a probe interval, is measured next.
            if s.outstanding == 0 && now_ns >= s.probe_due_ns {
                v.stale = Some(i);
                return v;
            }
            let current = self.group == Some(s.group);
            v.first_usable = v.first_usable.min(i);
            v.usable_in_current |= current;
            if s.erring {
                continue;
            }
            v.first_healthy = v.first_healthy.min(i);
            v.healthy_in_current |= current;
            let f = s.floor_ns.or_infinity();
            if f < fastest || (f == fastest && f < f64::INFINITY && s.group < fastest_group) {
                (fastest, fastest_group) = (f, s.group);
            }
            if current {
                floor = if f < floor { f } else { floor };
                let r = s.relative.or_infinity();
                relative = if r < relative { r } else { relative };
                let t = s.service_ns.or_infinity();
                service = if t < service { t } else { service };
            }
        }
        let measured = |x: f64| (x < f64::INFINITY).then_some(x);
        v.fastest = measured(fastest).map(|f| (f, fastest_group));
        (v.current_floor, v.current_relative, v.current_service) =
            (measured(floor), measured(relative), measured(service));
        v
    }

    /// Keeps the current group unless another is faster by more than the gate, or it has no
    /// candidate left; `None` when no path may carry I/O.
    fn choose_group(&mut self, v: &Survey) -> Option<u32> {
        let any_healthy = v.first_healthy < usize::MAX;
        // The first candidate: the first healthy path, or the first usable one when none is.
        let first = if any_healthy { v.first_healthy } else { v.first_usable };
        if first == usize::MAX {
            return None;
        }
        let current = self.group.filter(|_| if any_healthy { v.healthy_in_current } else { v.usable_in_current });
        // The fastest group is the group of the healthy path with the least floor (ties: the
        // lower group number).
        let chosen = match (current, v.fastest) {
            (Some(c), Some((best, g))) => match v.current_floor {
                Some(cur) if cur > best * self.gate() => g,
                _ => c,
            },
            (Some(c), None) => c,
            (None, Some((_, g))) => g,
            (None, None) => self.state[first].group,
        };
        self.group = Some(chosen);
        Some(chosen)
    }
}

/// What one look at a device's paths found (`GatedLeastLoad::survey`). Indices are
/// `usize::MAX` when no path qualified; "current" is the group I/O went to last.
#[derive(Clone, Copy, Debug)]
struct Survey {
    /// The path due a probe, first in rotation.
    stale: Option<usize>,
    first_usable: usize,
    first_healthy: usize,
    usable_in_current: bool,
    healthy_in_current: bool,
    /// The least floor of a healthy path and its group.
    fastest: Option<(f64, u32)>,
    /// The current group's best (least) floor, relative latency and service time among its
    /// healthy paths.
    current_floor: Option<f64>,
    current_relative: Option<f64>,
    current_service: Option<f64>,
}

impl Default for Survey {
    fn default() -> Self {
        Survey {
            stale: None,
            first_usable: usize::MAX,
            first_healthy: usize::MAX,
            usable_in_current: false,
            healthy_in_current: false,
            fastest: None,
            current_floor: None,
            current_relative: None,
            current_service: None,
        }
    }
}

impl PathSelector for GatedLeastLoad {
    /// Reads no other device's commands in flight (`HostView::nexus_outstanding`).
    fn reads_host_queues(&self) -> bool {
        false
    }

    fn add_path(&mut self, path: &PathDesc) {
        self.paths.add(path);
        if self.state.is_empty() {
            // Room for a usual device's paths at once: one allocation of each table per device.
            self.state.reserve(USUAL_PATHS);
            self.history.reserve(USUAL_PATHS);
        }
        self.state.push(PathState::new(path.id, path.target_port_group));
        self.history.push(PathHistory::default());
        self.copy_usable();
    }

    path_set_membership!(copy_usable);

    fn select_path(&mut self, _io: &IoDesc, now_ns: TimeNs, _host: &dyn HostView) -> Option<PathId> {
        let n = self.state.len();
        let start = if n == 0 { 0 } else { next_in_rotation(self.last, n) };
        let v = self.survey(start, now_ns);
        let chosen = match v.stale {
            Some(i) => i,
            None => {
                let any_healthy = v.first_healthy < usize::MAX;
                let current = self.group;
                let group = self.choose_group(&v)?;
                let (best, best_service) = if current == Some(group) {
                    (v.current_relative, v.current_service)
                } else {
                    (self.group_best(group, |s| s.relative.get()), self.group_best(group, |s| s.service_ns.get()))
                };
                // The gate's bound worked out once for every path.
                let bound = self.bound(best);
                let state = &self.state;
                let admitted = |i: usize| self.admits(i, group, bound, any_healthy);
                // Expected completion: queue ahead (plus this I/O) at the path's recent pace;
                // an unmeasured path counts as the best one, so it gets measured.
                let expected = |i: usize| {
                    let pace = state[i].service_ns.get().or(best_service).unwrap_or(1.0);
                    ((state[i].outstanding + 1) as f64 * pace) as u64
                };
                least_from(n, start, admitted, expected)?
            }
        };
        self.last = chosen;
        self.state[chosen].probe_due_ns = now_ns + self.config.probe_ms * 1_000_000;
        Some(self.state[chosen].id)
    }

    /// The header's two lines, every path's state (the survey's), the last path's history and
    /// the typical latencies.
    fn preload(&self) -> u64 {
        let states = self.state.iter().fold(0, |sum, s| sum + u64::from(s.outstanding));
        let history = self.history.get(self.last).map_or(0, |h| h.last_sample_ns);
        (self.last as u64)
            .wrapping_add(self.config.tau_ms)
            .wrapping_add(states)
            .wrapping_add(history)
            .wrapping_add(self.typical[0].last_sample_ns)
    }

    fn start_io(&mut self, path: PathId, _io: &IoDesc, _now_ns: TimeNs) {
        if let Some(i) = self.paths.index_of(path) {
            self.state[i].outstanding += 1;
        }
    }

    fn end_io(&mut self, path: PathId, io: &IoDesc, done: &IoDone) {
        let Some(i) = self.paths.index_of(path) else { return };
        let tau_ns = self.config.tau_ms as f64 * 1e6;
        let weight = |since: TimeNs| 1.0 - (-(done.now_ns.saturating_sub(since) as f64) / tau_ns).exp();
        // The path's sample weight, for its relative latency, estimate and service time (worked
        // out once: an `exp` costs some 30 instructions, and this runs for every I/O).
        let path_weight = weight(self.history[i].last_sample_ns);
        if !done.failed {
            // Against the typical latency of its kind before this sample counts in it.
            let typical = &mut self.typical[kind(io)];
            let sample = done.latency_ns as f64;
            let ratio = typical.latency_ns.get().map_or(1.0, |t| sample / t.max(1.0));
            let w = weight(typical.last_sample_ns);
            typical.latency_ns.set(typical.latency_ns.get().map_or(sample, |t| t + w * (sample - t)));
            typical.last_sample_ns = done.now_ns;
            let s = &mut self.state[i];
            s.relative.set(s.relative.get().map_or(ratio, |r| r + path_weight * (ratio - r)));
        }
        let (s, h) = (&mut self.state[i], &mut self.history[i]);
        s.outstanding = s.outstanding.saturating_sub(1);
        let failed = if done.failed { 1.0 } else { 0.0 };
        // The outcome's weight is the sample's when the last outcome was the last sample (no
        // error since).
        let outcome_weight =
            if h.last_outcome_ns == h.last_sample_ns { path_weight } else { weight(h.last_outcome_ns) };
        // Capped at one half: after a quiet spell one lucky probe must not clear a failing
        // path's record; four clean ones in a row do.
        h.error_rate += outcome_weight.min(0.5) * (failed - h.error_rate);
        h.last_outcome_ns = done.now_ns;
        let gate = self.config.error_gate_percent as f64 / 100.0;
        s.erring = if s.erring { h.error_rate >= gate / 2.0 } else { h.error_rate > gate };
        if done.failed {
            return;
        }
        let sample = done.latency_ns as f64;
        let w = path_weight;
        let estimate = h.estimate_ns.get().map_or(sample, |old| old + w * (sample - old));
        h.estimate_ns.set(estimate);
        // The floor drifts up towards the estimate ten times slower than the estimate moves.
        let drift = 1.0 - (1.0 - w).powf(0.1);
        s.floor_ns.set(s.floor_ns.get().map_or(sample, |f| (f + drift * (estimate - f)).min(sample)));
        let started = done.now_ns.saturating_sub(done.latency_ns).max(h.last_sample_ns);
        let service = done.now_ns.saturating_sub(started) as f64;
        s.service_ns.set(s.service_ns.get().map_or(service, |old| old + w * (service - old)));
        h.last_sample_ns = done.now_ns;
    }

    fn status(&self) -> PolicyStatus {
        let paths = (0..self.paths.len())
            .map(|i| {
                let s = &self.state[i];
                GatedPath {
                    path: self.paths.id(i),
                    group: s.group,
                    estimate_ns: self.history[i].estimate_ns.get(),
                    relative: s.relative.get(),
                    outstanding: u64::from(s.outstanding),
                }
            })
            .collect();
        PolicyStatus::GatedLeastLoad { gate_percent: self.config.gate_percent, tau_ms: self.config.tau_ms, paths }
    }

    fn working_paths(&self) -> Vec<PathId> {
        let n = self.paths.len();
        let any_healthy = (0..n).any(|i| self.healthy(i));
        let Some(group) = self.group else {
            return (0..n).filter(|&i| self.candidate(i, any_healthy)).map(|i| self.paths.id(i)).collect();
        };
        let best = self.group_best(group, |s| s.relative.get());
        (0..n).filter(|&i| self.admits(i, group, self.bound(best), any_healthy)).map(|i| self.paths.id(i)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::IdleHost;

    /// Paths 0..n in groups `group(i)`, all active-optimized.
    fn policy(n: u32, group: impl Fn(u32) -> u32) -> GatedLeastLoad {
        let mut p = GatedLeastLoad::new(GatedLeastLoadConfig::default());
        for i in 0..n {
            let name = format!("vmhba1:C0:T{i}:L0");
            let desc = PathDesc {
                target_port_group: group(i),
                ..PathDesc::simple(PathId(i), &name, AluaState::ActiveOptimized)
            };
            p.add_path(&desc);
        }
        p
    }

    const READ_8K: IoDesc = IoDesc { bytes: 8192, is_write: false, cpu: 0 };

    /// One 8 KiB read at a time, every `gap_us`, each taking `latency_us(path, now)`.
    fn drive(
        p: &mut GatedLeastLoad,
        count: u64,
        start_us: u64,
        gap_us: u64,
        latency_us: impl Fn(u32, u64) -> u64,
    ) -> Vec<u32> {
        drive_ios(p, count, start_us, gap_us, |_| READ_8K, |i, now, _| latency_us(i, now))
    }

    /// One I/O at a time, every `gap_us`: the `k`th is `io(k)` and takes
    /// `latency_us(path, now, io)`.
    fn drive_ios(
        p: &mut GatedLeastLoad,
        count: u64,
        start_us: u64,
        gap_us: u64,
        io: impl Fn(u64) -> IoDesc,
        latency_us: impl Fn(u32, u64, &IoDesc) -> u64,
    ) -> Vec<u32> {
        (0..count)
            .map(|k| {
                let now = (start_us + k * gap_us) * 1000;
                let io = io(k);
                let path = p.select_path(&io, now, &IdleHost).unwrap();
                p.start_io(path, &io, now);
                let latency_ns = latency_us(path.0, now, &io) * 1000;
                p.end_io(path, &io, &IoDone { now_ns: now + latency_ns, latency_ns, failed: false });
                path.0
            })
            .collect()
    }

    #[test]
    fn equal_idle_paths_take_turns() {
        let mut p = policy(3, |_| 1);
        assert_eq!(drive(&mut p, 6, 0, 1000, |_, _| 200), [1, 2, 0, 1, 2, 0]);
    }

    #[test]
    fn least_expected_completion_wins_under_load() {
        let mut p = policy(2, |_| 1);
        // Path 0 takes 100 us, path 1 140 us (inside the 1.5× gate).
        drive(&mut p, 2, 0, 1000, |i, _| if i == 0 { 100 } else { 140 });
        let io = IoDesc { bytes: 8192, is_write: false, cpu: 0 };
        // Idle: 1 × 100 < 1 × 140, path 0 whoever went last.
        p.last = 0;
        assert_eq!(p.select_path(&io, 3_000_000, &IdleHost), Some(PathId(0)));
        // One outstanding on path 0: 2 × 100 = 200 > 140, path 1.
        p.start_io(PathId(0), &io, 3_000_000);
        assert_eq!(p.select_path(&io, 3_000_000, &IdleHost), Some(PathId(1)));
        // Two on path 1 too: 2 × 100 = 200 < 3 × 140.
        p.start_io(PathId(1), &io, 3_000_000);
        p.start_io(PathId(1), &io, 3_000_000);
        assert_eq!(p.select_path(&io, 3_000_000, &IdleHost), Some(PathId(0)));
    }

    #[test]
    fn a_path_that_slows_down_is_left_within_a_second_and_probed_back() {
        let mut p = policy(2, |_| 1);
        // Path 1 becomes 4× slower at t = 1 s and recovers at t = 3 s; one I/O every 1 ms.
        let slow = |i: u32, now: u64| if i == 1 && (1_000_000_000..3_000_000_000).contains(&now) { 800 } else { 200 };
        drive(&mut p, 1000, 0, 1000, slow);
        let after = drive(&mut p, 1000, 1_000_000, 1000, slow);
        let last_on_slow = after.iter().rposition(|&x| x == 1).unwrap();
        // Left out after a few τ of slow samples, except for probes every 500 ms.
        let within_ms = after.iter().take(400).rposition(|&x| x == 1).unwrap();
        assert!(within_ms < 100, "still used {within_ms} ms after slowing down");
        assert_eq!(after[400..].iter().filter(|&&x| x == 1).count(), 1, "one probe at 1.5 s");
        assert!(last_on_slow > 400);
        let healed = drive(&mut p, 1000, 3_100_000, 1000, slow);
        assert!(healed[600..].iter().filter(|&&x| x == 1).count() > 100, "back in use once a probe found it fast");
    }

    /// Every third I/O a 1 MiB read of 20 ms, the others 8 KiB writes of 300 us (into a write
    /// cache): on each path, as on the CX4 with its large mix, latency says more about what a
    /// path carried lately than about the path.
    fn mixed(k: u64) -> IoDesc {
        if k.is_multiple_of(3) {
            IoDesc { bytes: 1 << 20, is_write: false, cpu: 0 }
        } else {
            IoDesc { bytes: 8192, is_write: true, cpu: 0 }
        }
    }

    fn mixed_latency_us(io: &IoDesc) -> u64 {
        if io.is_write {
            300
        } else {
            20_000
        }
    }

    #[test]
    fn equal_paths_carrying_different_mixes_of_sizes_are_both_kept() {
        let mut p = policy(2, |_| 1);
        // One I/O every 25 ms for 10 s; both paths take the same time for the same I/O.
        let mut used = [0u32; 2];
        for k in 0..400 {
            let path = drive_ios(&mut p, 1, k * 25_000, 0, |_| mixed(k), |_, _, io| mixed_latency_us(io))[0];
            used[path as usize] += 1;
            // A path whose last I/O was the read would look 60 times slower than one whose last was
            // a write, were latencies of different sizes compared with each other.
            assert_eq!(p.working_paths().len(), 2, "I/O {k}: a path left out ({:?})", p.status());
        }
        assert!(used.iter().all(|&u| u >= 100), "{used:?}");
    }

    #[test]
    fn a_path_slower_for_every_size_is_left_out_under_a_mix_of_sizes() {
        let mut p = policy(2, |_| 1);
        // Path 1 takes 3 times as long as path 0 for every I/O, whatever its size.
        let slow = |i: u32, _: u64, io: &IoDesc| mixed_latency_us(io) * if i == 1 { 3 } else { 1 };
        let used = drive_ios(&mut p, 400, 0, 25_000, mixed, slow);
        // After the first second: probes only, one every 500 ms.
        assert!(used[40..].iter().filter(|&&x| x == 1).count() <= 18, "{:?}", &used[40..]);
    }

    #[test]
    fn stays_on_one_group_while_the_other_is_not_faster_by_the_gate() {
        let mut p = policy(4, |i| if i < 2 { 1 } else { 2 });
        // Groups equally fast: the first group measured keeps the I/O (no spreading over arrays).
        let equal = drive(&mut p, 200, 0, 1000, |_, _| 200);
        assert!(equal[20..199].iter().all(|&x| x < 2), "{:?}", &equal[..40]);
        // Group 2 becomes twice as fast (the other array got closer): move there.
        let faster = drive(&mut p, 2000, 200_000, 1000, |i, _| if i < 2 { 400 } else { 200 });
        assert!(faster[1000..].iter().filter(|&&x| x >= 2).count() > 990);
    }

    #[test]
    fn a_path_failing_often_is_left_out_and_one_failing_rarely_is_kept() {
        let io = IoDesc { bytes: 8192, is_write: false, cpu: 0 };
        let mut p = policy(2, |_| 1);
        // One I/O every ms alternating; path 1 fails one command in 50 (2%), then every other.
        let mut used = [0u32; 2];
        let mut on_path1 = 0u64;
        for k in 0..4000u64 {
            let now = k * 1_000_000;
            let path = p.select_path(&io, now, &IdleHost).unwrap();
            p.start_io(path, &io, now);
            on_path1 += u64::from(path.0 == 1);
            let failed =
                path.0 == 1 && (if k < 2000 { on_path1.is_multiple_of(50) } else { on_path1.is_multiple_of(2) });
            p.end_io(path, &io, &IoDone { now_ns: now + 200_000, latency_ns: 200_000, failed });
            // Counted from 1 s in each phase: after the estimates have settled.
            if (1000..2000).contains(&k) || k >= 2100 {
                used[path.0 as usize] += 1;
            }
            if k == 1999 {
                assert!(used[1] > 400, "2% errors: still used ({used:?})");
                used = [0, 0];
            }
        }
        // Left out within 100 ms of the errors starting, then one probe every 500 ms.
        assert!(used[1] <= 4, "50% errors: left out but for probes ({used:?})");
    }

    /// `select_path` as it was before its one-pass survey: a scan for each question, in the order
    /// the algorithm asks them. Returns the path and the group it left current.
    fn select_by_scans(p: &GatedLeastLoad, now_ns: TimeNs) -> (Option<usize>, Option<u32>) {
        let n = p.paths.len();
        let probe_ns = p.config.probe_ms * 1_000_000;
        let last = p.last;
        let last_sent = |s: &PathState| s.probe_due_ns.checked_sub(probe_ns).filter(|_| s.probe_due_ns > 0);
        let stale = (0..n).map(|k| (last + 1 + k) % n).find(|&i| {
            let s = &p.state[i];
            p.paths.usable(i, false) && s.outstanding == 0 && last_sent(s).is_none_or(|t| now_ns >= t + probe_ns)
        });
        if stale.is_some() {
            return (stale, p.group);
        }
        let any_healthy = (0..n).any(|i| p.healthy(i));
        let Some(first) = (0..n).find(|&i| p.candidate(i, any_healthy)) else { return (None, p.group) };
        let current = p.group.filter(|&g| (0..n).any(|i| p.candidate(i, any_healthy) && p.state[i].group == g));
        let fastest = (0..n)
            .filter(|&i| p.healthy(i))
            .filter_map(|i| p.state[i].floor_ns.get().map(|f| (f, p.state[i].group)))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let group = match (current, fastest) {
            (Some(c), Some((best, g))) => match p.group_best(c, |s| s.floor_ns.get()) {
                Some(cur) if cur > best * p.gate() => g,
                _ => c,
            },
            (Some(c), None) => c,
            (None, Some((_, g))) => g,
            (None, None) => p.state[first].group,
        };
        let best = p.group_best(group, |s| s.relative.get());
        let best_service = p.group_best(group, |s| s.service_ns.get());
        let expected = |i: usize| {
            let pace = p.state[i].service_ns.get().or(best_service).unwrap_or(1.0);
            ((p.state[i].outstanding + 1) as f64 * pace) as u64
        };
        let chosen = least_from(n, (last + 1) % n, |i| p.admits(i, group, p.bound(best), any_healthy), expected);
        (chosen, Some(group))
    }

    /// The one-pass survey chooses the path and the group the separate scans chose, on random
    /// states: paths in one to three groups, failed, erring, busy, due a probe or not, measured
    /// or not, with ties in every measure.
    #[test]
    fn the_survey_chooses_as_the_separate_scans_do() {
        let mut x: u64 = 7;
        let mut draw = |m: u64| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        let now = 10_000_000_000;
        for _ in 0..20_000 {
            let n = 1 + draw(9) as u32;
            let groups = 1 + draw(3) as u32;
            let mut p = policy(n, |i| 1 + i % groups);
            for i in 0..n as usize {
                if draw(6) == 0 {
                    p.fail_path(PathId(i as u32));
                }
                let measure = |v: u64| if v == 0 { Measure::default() } else { Measure(v as f64 * 100.0) };
                let s = &mut p.state[i];
                s.erring = draw(5) == 0;
                s.outstanding = draw(3) as u32;
                s.probe_due_ns = [0, now - 1, now, now + 1][draw(4) as usize];
                s.floor_ns = measure(draw(4));
                s.relative = measure(draw(4));
                s.service_ns = measure(draw(4));
            }
            p.group = [None, Some(1), Some(2), Some(3)][draw(4) as usize];
            p.last = draw(n as u64) as usize;
            let expected = select_by_scans(&p, now);
            let chosen = p.select_path(&READ_8K, now, &IdleHost);
            assert_eq!((chosen, p.group), (expected.0.map(|i| PathId(i as u32)), expected.1));
        }
    }

    #[test]
    fn gate_out_of_range_is_rejected() {
        let e = GatedLeastLoadConfig { gate_percent: 100, ..Default::default() }.validate().unwrap_err();
        assert_eq!(e.field, "gate_percent");
    }
}
