//! VMware ESXi HPP (High-Performance Plug-in, vSphere 7.0+): its path selection schemes.
//!
//! Sources: vSphere API `HostMultipathInfoHppLogicalUnitPolicy` (parameters, ranges, defaults);
//! vSphere Storage guide, "VMware High Performance Plug-In and Path Selection Schemes" (scheme
//! behaviour, as recalled: the page is not in our research corpus).
//!
//! Usable paths follow the ALUA rule of ESXi: active-optimized paths, and active-non-optimized
//! ones only when no optimized path works.
//! - `FIXED`: the preferred path (`preferred`, a runtime name) while it works, else the first
//!   working path discovered; back to the preferred path when it returns. The same rule as
//!   VMW_PSP_FIXED, whose implementation it uses. (The API says that without a preferred path
//!   "ESX will choose the random possible path"; the guide, the first working path discovered.)
//! - `LB-RR` (the default scheme): after `iops` I/Os or `bytes` bytes on the current path,
//!   whichever comes first, the next usable path in round robin.
//! - `LB-IOPS`: after `iops` I/Os, the usable path with the fewest I/Os of this device
//!   outstanding (ties: the first after the current path, going round).
//! - `LB-BYTES`: the same after `bytes` bytes.
//! - `LB-Latency` (the API spells it `LB--Latency`; both are accepted). VMware publishes the
//!   knobs, not the rule; ours is inferred: every `latency_eval_time` ms an evaluation starts,
//!   in which the next `sampling_ios_per_path` I/Os to each usable path are sent round robin,
//!   and each path is judged by the size-weighted mean of its samples (total latency over total
//!   KiB, so a 64 KiB I/O may take longer than a 4 KiB one): the evaluation NMP's latency type
//!   makes (`latency_sampler.rs`). Outside sampling each I/O goes to the usable path minimising
//!   `latency_per_kib * (outstanding + 1)` (its own outstanding I/Os on the path): a path twice
//!   as slow gets I/O only when the fast path has a queue, which at low load leaves slow paths
//!   idle, as VMware warns ("the system might not use some paths"). A path not measured yet
//!   counts 0 and is tried. Ties: the first after the last path used, going round.
//!   (NMP's `type=latency` in `vmw_psp_rr.rs` uses a different inferred in-period rule.)
//!
//! Counting for the switch limits: an I/O counts when it is issued; the I/O that reaches the
//! limit still goes down the current path. A path that fails is left at once.
//!
//! Parameters (API ranges): `scheme`; `preferred`; `iops` 1..=10000, default 1000; `bytes`
//! 1..=104857600, default 10485760; `latency_eval_time` ms 10000..=300000, default 30000;
//! `sampling_ios_per_path` 16..=160, default 16. HPP's defaults differ from NMP's latency
//! sub-type (180000 ms).

use serde::{Deserialize, Serialize};

use crate::latency_sampler::{CountsBeside, LatencySampler};
use crate::params::{check_range, ParamSpec, PolicyError, PolicySpec};
use crate::path_set::{least_from, path_set_membership};
use crate::registered::{HostStack, Registered};
use crate::status::{HppCurrent, PolicyStatus};
use crate::{
    AluaState, FixedConfig, HostView, IoDesc, IoDone, PathDesc, PathId, PathSelector, PathSet, TimeNs, VmwPspFixed,
};

pub(crate) const SPEC: PolicySpec = PolicySpec {
    stack: "VMware ESXi HPP",
    summary: "High-Performance Plug-in: fixed, round robin, least outstanding by I/Os or bytes, or sampled latency",
    params: &[
        ParamSpec {
            name: "scheme",
            unset: None,
            range: None,
            choices: &["FIXED", "LB-RR", "LB-IOPS", "LB-BYTES", "LB-Latency"],
            help: "path selection scheme (esxcli storage hpp device set -P)",
        },
        ParamSpec {
            name: "preferred",
            unset: Some("first working path discovered"),
            range: None,
            choices: &[],
            help: "FIXED: runtime name of the preferred path",
        },
        ParamSpec {
            name: "iops",
            unset: None,
            range: Some((1, 10_000)),
            choices: &[],
            help: "LB-RR, LB-IOPS: I/Os on a path before switching",
        },
        ParamSpec {
            name: "bytes",
            unset: None,
            range: Some((1, 104_857_600)),
            choices: &[],
            help: "LB-RR, LB-BYTES: bytes on a path before switching",
        },
        ParamSpec {
            name: "latency_eval_time",
            unset: None,
            range: Some((10_000, 300_000)),
            choices: &[],
            help: "LB-Latency: ms between latency evaluations",
        },
        ParamSpec {
            name: "sampling_ios_per_path",
            unset: None,
            range: Some((16, 160)),
            choices: &[],
            help: "LB-Latency: sample I/Os per path at each evaluation",
        },
    ],
};

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
pub enum HppScheme {
    #[serde(rename = "FIXED")]
    Fixed,
    #[default]
    #[serde(rename = "LB-RR")]
    LbRr,
    #[serde(rename = "LB-IOPS")]
    LbIops,
    #[serde(rename = "LB-BYTES")]
    LbBytes,
    #[serde(rename = "LB-Latency", alias = "LB--Latency")]
    LbLatency,
}

impl HppScheme {
    fn name(self) -> &'static str {
        match self {
            HppScheme::Fixed => "FIXED",
            HppScheme::LbRr => "LB-RR",
            HppScheme::LbIops => "LB-IOPS",
            HppScheme::LbBytes => "LB-BYTES",
            HppScheme::LbLatency => "LB-Latency",
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct HppConfig {
    pub scheme: HppScheme,
    pub preferred: Option<String>,
    pub iops: u64,
    pub bytes: u64,
    /// Milliseconds.
    pub latency_eval_time: u64,
    pub sampling_ios_per_path: u64,
}

impl Default for HppConfig {
    fn default() -> Self {
        HppConfig {
            scheme: HppScheme::LbRr,
            preferred: None,
            iops: 1000,
            bytes: 10_485_760,
            latency_eval_time: 30_000,
            sampling_ios_per_path: 16,
        }
    }
}

impl Registered for HppConfig {
    const SPEC: &'static PolicySpec = &SPEC;
    const HOST: HostStack = HostStack::Esxi;

    fn validate(&self) -> Result<(), PolicyError> {
        check_range(SPEC.param("iops"), self.iops)?;
        check_range(SPEC.param("bytes"), self.bytes)?;
        check_range(SPEC.param("latency_eval_time"), self.latency_eval_time)?;
        check_range(SPEC.param("sampling_ios_per_path"), self.sampling_ios_per_path)?;
        if self.preferred.is_some() && self.scheme != HppScheme::Fixed {
            return Err(PolicyError { field: "preferred".to_string(), message: "only FIXED takes it".to_string() });
        }
        Ok(())
    }

    /// A policy instance for one device: FIXED is VMW_PSP_FIXED's rule.
    fn build(&self) -> Box<dyn PathSelector> {
        match self.scheme {
            HppScheme::Fixed => Box::new(VmwPspFixed::new(FixedConfig { preferred: self.preferred.clone() })),
            _ => Box::new(HppLoadBalance::new(self.clone())),
        }
    }
}

/// HPP's load-balancing schemes for one device.
#[derive(Clone)]
pub struct HppLoadBalance {
    config: HppConfig,
    paths: PathSet,
    outstanding: Vec<u64>,
    current: Option<usize>,
    ios_on_current: u64,
    bytes_on_current: u64,
    /// LB-Latency's evaluation of the paths.
    sampler: LatencySampler,
    /// LB-Latency's samples sent down each path in the current sampling.
    samples_sent: Vec<u32>,
}

impl HppLoadBalance {
    pub fn new(config: HppConfig) -> Self {
        let sampler = LatencySampler::new(config.sampling_ios_per_path, config.latency_eval_time * 1_000_000);
        HppLoadBalance {
            sampler,
            config,
            paths: PathSet::default(),
            outstanding: Vec::new(),
            current: None,
            ios_on_current: 0,
            bytes_on_current: 0,
            samples_sent: Vec::new(),
        }
    }

    fn usable(&self, i: usize) -> bool {
        self.paths.usable(i, false)
    }

    fn after_current(&self) -> usize {
        self.current.map_or(0, |c| (c + 1) % self.paths.len())
    }

    fn limit_reached(&self) -> bool {
        let by_ios = self.ios_on_current >= self.config.iops;
        let by_bytes = self.bytes_on_current >= self.config.bytes;
        match self.config.scheme {
            HppScheme::LbIops => by_ios,
            HppScheme::LbBytes => by_bytes,
            _ => by_ios || by_bytes,
        }
    }

    fn switch_limited(&mut self) -> Option<usize> {
        if let Some(c) = self.current.filter(|&c| self.usable(c)) {
            if !self.limit_reached() {
                return Some(c);
            }
        }
        let n = self.paths.len();
        let next = match self.config.scheme {
            HppScheme::LbRr => self.paths.next_usable_from(self.after_current(), false),
            _ => least_from(n, self.after_current(), |i| self.usable(i), |i| self.outstanding[i]),
        }?;
        self.ios_on_current = 0;
        self.bytes_on_current = 0;
        Some(next)
    }

    fn least_latency(&mut self, now_ns: TimeNs) -> Option<usize> {
        let mut sampled = CountsBeside { usable: self.paths.usable_flags(false), sent: &mut self.samples_sent };
        if let Some(i) = self.sampler.sample_path(&mut sampled, now_ns, 0) {
            return Some(i);
        }
        let n = self.paths.len();
        let cost = |i: usize| {
            let per_kib = self.sampler.ns_per_kib(i).unwrap_or(0.0);
            (per_kib * (self.outstanding[i] + 1) as f64) as u128
        };
        least_from(n, self.after_current(), |i| self.usable(i), cost)
    }
}

impl PathSelector for HppLoadBalance {
    /// Reads no other device's commands in flight (`HostView::nexus_outstanding`).
    fn reads_host_queues(&self) -> bool {
        false
    }

    fn add_path(&mut self, path: &PathDesc) {
        self.paths.add(path);
        self.outstanding.push(0);
        self.sampler.add_path();
        self.samples_sent.push(0);
    }

    path_set_membership!();

    fn select_path(&mut self, _io: &IoDesc, now_ns: TimeNs, _host: &dyn HostView) -> Option<PathId> {
        if self.paths.is_empty() {
            return None;
        }
        let chosen = match self.config.scheme {
            HppScheme::LbLatency => self.least_latency(now_ns),
            _ => self.switch_limited(),
        }?;
        self.current = Some(chosen);
        Some(self.paths.id(chosen))
    }

    fn start_io(&mut self, path: PathId, io: &IoDesc, _now_ns: TimeNs) {
        let Some(i) = self.paths.index_of(path) else { return };
        self.outstanding[i] += 1;
        if self.current == Some(i) {
            self.ios_on_current += 1;
            self.bytes_on_current += io.bytes;
        }
    }

    fn end_io(&mut self, path: PathId, io: &IoDesc, done: &IoDone) {
        let Some(i) = self.paths.index_of(path) else { return };
        self.outstanding[i] = self.outstanding[i].saturating_sub(1);
        if self.config.scheme == HppScheme::LbLatency {
            let started = done.now_ns.saturating_sub(done.latency_ns);
            self.sampler.on_complete(i, self.samples_sent[i], started, done.latency_ns, io.bytes, done.failed);
        }
    }

    /// The scheme and its config, then the current path's pending I/Os (and latency, ns/KiB).
    fn status(&self) -> PolicyStatus {
        let c = &self.config;
        let settings = match c.scheme {
            HppScheme::LbLatency => {
                [("latencyEvalTime", c.latency_eval_time), ("samplingIOsPerPath", c.sampling_ios_per_path)]
            }
            _ => [("iops", c.iops), ("bytes", c.bytes)],
        };
        let current = self.current.map(|i| HppCurrent {
            path: self.paths.id(i),
            pending_ios: self.outstanding[i],
            latency_per_kib_ns: self.sampler.ns_per_kib(i),
        });
        PolicyStatus::Hpp { scheme: c.scheme.name(), settings, current }
    }

    fn working_paths(&self) -> Vec<PathId> {
        self.paths.usable_indices(false).into_iter().map(|i| self.paths.id(i)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{add_paths, complete, io, issue, run_sequence, TestHost};

    fn hpp(config: HppConfig, n: u32) -> Box<dyn PathSelector> {
        let mut p = config.build();
        add_paths(p.as_mut(), n, |_| AluaState::ActiveOptimized);
        p
    }

    #[test]
    fn parameters_outside_the_api_ranges_are_rejected() {
        let check = |c: HppConfig| c.validate().map_err(|e| e.field);
        let base = HppConfig::default();
        assert_eq!(check(base.clone()), Ok(()));
        for (iops, ok) in [(0, false), (1, true), (10_000, true), (10_001, false)] {
            assert_eq!(check(HppConfig { iops, ..base.clone() }).is_ok(), ok, "iops {iops}");
        }
        for (bytes, ok) in [(0, false), (104_857_600, true), (104_857_601, false)] {
            assert_eq!(check(HppConfig { bytes, ..base.clone() }).is_ok(), ok, "bytes {bytes}");
        }
        for (ms, ok) in [(9_999, false), (10_000, true), (300_000, true), (300_001, false)] {
            assert_eq!(check(HppConfig { latency_eval_time: ms, ..base.clone() }).is_ok(), ok, "eval {ms}");
        }
        for (n, ok) in [(15, false), (16, true), (160, true), (161, false)] {
            assert_eq!(check(HppConfig { sampling_ios_per_path: n, ..base.clone() }).is_ok(), ok, "sampling {n}");
        }
        let err = check(HppConfig { preferred: Some("vmhba1:C0:T0:L0".into()), ..base });
        assert_eq!(err, Err("preferred".to_string()));
    }

    #[test]
    fn lb_rr_switches_on_whichever_limit_comes_first() {
        let config = HppConfig { iops: 3, bytes: 20_000, ..HppConfig::default() };
        assert_eq!(run_sequence(hpp(config.clone(), 3).as_mut(), &[4096; 7]), [0, 0, 0, 1, 1, 1, 2]);
        assert_eq!(run_sequence(hpp(config, 3).as_mut(), &[8192; 7]), [0, 0, 0, 1, 1, 1, 2]);
        let config = HppConfig { iops: 3, bytes: 10_000, ..HppConfig::default() };
        assert_eq!(run_sequence(hpp(config, 3).as_mut(), &[8192; 5]), [0, 0, 1, 1, 2]);
    }

    #[test]
    fn lb_iops_switches_to_the_least_busy_path() {
        let host = TestHost::default();
        let config = HppConfig { scheme: HppScheme::LbIops, iops: 2, ..HppConfig::default() };
        let mut p = hpp(config, 3);
        let io = io(4096, 0);
        let mut seq: Vec<u32> = (0..5).map(|_| issue(p.as_mut(), &host, &io, 0)).collect();
        assert_eq!(seq, [0, 0, 1, 1, 2]);
        complete(p.as_mut(), 1, &io, 0, 10);
        complete(p.as_mut(), 1, &io, 0, 10);
        // Round robin would take path 0 next; it still has 2 outstanding and path 1 none.
        seq = (0..3).map(|_| issue(p.as_mut(), &host, &io, 10)).collect();
        assert_eq!(seq, [2, 1, 1]);
    }

    #[test]
    fn fixed_uses_the_preferred_path_and_fails_back() {
        let config =
            HppConfig { scheme: HppScheme::Fixed, preferred: Some("vmhba1:C0:T1:L0".into()), ..HppConfig::default() };
        let mut p = hpp(config, 3);
        assert_eq!(run_sequence(p.as_mut(), &[4096; 2]), [1, 1]);
        p.fail_path(PathId(1));
        assert_eq!(run_sequence(p.as_mut(), &[4096; 2]), [0, 0]);
        p.reinstate_path(PathId(1));
        assert_eq!(run_sequence(p.as_mut(), &[4096]), [1]);
    }

    /// One 8 KiB I/O at `now_ns` taking `latency_ns(path)`, completed; the path taken.
    fn timed(p: &mut dyn PathSelector, now_ns: TimeNs, latency_ns: impl Fn(u32) -> u64) -> u32 {
        let io = io(8192, 0);
        let path = issue(p, &TestHost::default(), &io, now_ns);
        complete(p, path, &io, now_ns, now_ns + latency_ns(path));
        path
    }

    #[test]
    fn lb_latency_samples_round_robin_then_weighs_latency_by_queue() {
        let config = HppConfig { scheme: HppScheme::LbLatency, ..HppConfig::default() };
        let mut p = hpp(config, 2);
        let latency = |path: u32| [1_000_000, 3_000_000][path as usize];
        // 16 samples per path, round robin; 1 ms and 3 ms for 8 KiB: 125000 and 375000 ns/KiB.
        let sampled: Vec<u32> = (0..32).map(|k| timed(p.as_mut(), k * 10_000_000, latency)).collect();
        assert_eq!(sampled, [0, 1].repeat(16));
        let expected = "{scheme=LB-Latency,latencyEvalTime=30000,samplingIOsPerPath=16; \
                        CurrentPath=1: NumIOsPending=0,latencyPerKiB=375000}";
        assert_eq!(p.status().render(&|id| id.0.to_string()), expected);
        // Outside sampling, with queues: 125000 * (q + 1) against 375000 * (q + 1).
        let host = TestHost::default();
        let io = io(8192, 0);
        let now = 400_000_000;
        let seq: Vec<u32> = (0..5).map(|_| issue(p.as_mut(), &host, &io, now)).collect();
        // q0 = 0, 1: path 0; q0 = 2: 375000 each, the tie goes to the path after the last (1);
        // then 375000 against 750000, and 500000 against 750000.
        assert_eq!(seq, [0, 0, 1, 0, 0]);
        for path in seq {
            complete(p.as_mut(), path, &io, now, now + 1_000_000);
        }
        // 30 s after the evaluation began (t = 0) a new one samples both paths again, round
        // robin from the first path.
        let resampled: Vec<u32> = (0..4).map(|k| timed(p.as_mut(), 30_000_000_000 + k, latency)).collect();
        assert_eq!(resampled, [0, 1, 0, 1]);
    }
}
