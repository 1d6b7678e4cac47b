//! Dell EMC PowerPath (PowerPath/VE): adaptive, least I/Os, least blocks and round robin load
//! balancing, basic failover, with autostandby.
//!
//! PowerPath is closed source and its weighting formulas and autostandby thresholds are not
//! published. What follows models its *documented intent* (PowerPath manual definitions as
//! quoted on dostor.com; Dell KB 000047102 and community posts on autostandby; Chad Sakac on
//! adaptive balancing "on an I/O by I/O basis" that backs off a congested array port); every
//! formula and threshold below is ours and is a parameter.
//!
//! Paths: the device's native paths in discovery order. ALUA first: active-optimized paths, and
//! active-non-optimized ones only when no optimized path works. Among those, paths in `active`
//! mode carry the I/O; paths in standby (here only autostandby's `asb:prox` and `asb:iopf`) are
//! used only when no active path is left ("will not be used unless all other active paths are
//! dead"). Then, per I/O:
//! - `least_ios` ("the fewest queued requests, regardless of total block volume"): the fewest
//!   I/Os of this device outstanding on the path.
//! - `least_blocks` ("the fewest queued blocks, regardless of the number of requests"): the
//!   fewest bytes of this device outstanding on the path.
//! - `adaptive` (the default): the least expected wait, `(q + 1) * L`, where `q` is every
//!   request outstanding on the path's HBA-port-to-array-port nexus across all devices
//!   (`HostView::nexus_outstanding`: PowerPath sees the whole host, which is how it backs off a
//!   congested port) and `L` the path's latency EWMA: `L += (sample - L) >> ewma_shift` at each
//!   completion (weight 1/8 by default, TCP's smoothed-RTT gain), the first sample taken as is.
//!   A path never measured counts 0, so it is tried.
//! - `round_robin` ("I/O requests are assigned to each available path in rotation"): the next
//!   eligible path after the last one used.
//! - `basic_failover` ("load balancing is not in effect": the policy of an unlicensed PowerPath):
//!   every I/O down one path, the first eligible in order, until it fails; then the first
//!   eligible one after it takes over and keeps the I/O when the first returns (no failback:
//!   PowerPath moves it back only on `powermt restore`).
//!
//! Ties go round: the first path met after the last one used.
//!
//! Autostandby (`powermt set autostandby=on trigger=prox|iopf`); a path put in standby stays
//! there (PowerPath needs `autostandby=reinitialize` or `mode=active force` to undo it):
//! - `prox`: once a path has `prox_min_ios` completions, it goes to `asb:prox` when its latency
//!   EWMA exceeds `prox_ratio_percent`% of the fastest such active path's (default 200%: twice
//!   as slow, as a cross-connected remote array of SRDF/Metro or VPLEX Metro is).
//! - `iopf` (I/Os per failure): a path goes to `asb:iopf` when it has `iopf_errors` failures
//!   within its last `iopf_window_ios` I/Os (defaults 2 and 6000): a path that keeps failing
//!   and coming back. A failure is the path going down, or an I/O error while it is up; the
//!   burst of errors of the in-flight I/Os of a dead path counts once.

use serde::{Deserialize, Serialize};

use crate::params::{check_range, ParamSpec, PolicyError, PolicySpec};
use crate::path_set::least_from;
use crate::registered::{HostStack, Registered};
use crate::status::{PolicyStatus, PowerPathPath};
use crate::{AluaState, HostView, IoDesc, IoDone, PathDesc, PathId, PathSelector, PathSet, TimeNs};

pub(crate) const SPEC: PolicySpec = PolicySpec {
    stack: "Dell EMC PowerPath (modelled from documented intent)",
    summary: "Per-I/O least queued work (adaptive), least I/Os or least blocks; autostandby for slow or flaky paths",
    params: &[
        ParamSpec {
            name: "policy",
            unset: None,
            range: None,
            choices: &["adaptive", "least_ios", "least_blocks", "round_robin", "basic_failover"],
            help: "load-balancing policy (powermt set policy=ad|li|lb|rr|bf)",
        },
        ParamSpec {
            name: "autostandby",
            unset: None,
            range: None,
            choices: &["off", "prox", "iopf"],
            help: "put slow (prox) or intermittently failing (iopf) paths in standby",
        },
        ParamSpec {
            name: "ewma_shift",
            unset: None,
            range: Some((0, 16)),
            choices: &[],
            help: "latency EWMA weight 2^-shift (adaptive, prox); 0 keeps only the last sample",
        },
        ParamSpec {
            name: "prox_ratio_percent",
            unset: None,
            range: Some((101, 100_000)),
            choices: &[],
            help: "prox: standby when latency exceeds this % of the fastest active path's",
        },
        ParamSpec {
            name: "prox_min_ios",
            unset: None,
            range: Some((1, 4_294_967_295)),
            choices: &[],
            help: "prox: completions a path needs before it is judged",
        },
        ParamSpec {
            name: "iopf_errors",
            unset: None,
            range: Some((1, 1000)),
            choices: &[],
            help: "iopf: failures within the window that put a path in standby",
        },
        ParamSpec {
            name: "iopf_window_ios",
            unset: None,
            range: Some((1, 4_294_967_295)),
            choices: &[],
            help: "iopf: the window, in I/Os issued on the path",
        },
    ],
};

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PowerPathPolicy {
    #[default]
    Adaptive,
    LeastIos,
    LeastBlocks,
    RoundRobin,
    BasicFailover,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Autostandby {
    #[default]
    Off,
    Prox,
    Iopf,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct PowerPathConfig {
    pub policy: PowerPathPolicy,
    pub autostandby: Autostandby,
    pub ewma_shift: u64,
    pub prox_ratio_percent: u64,
    pub prox_min_ios: u64,
    pub iopf_errors: u64,
    pub iopf_window_ios: u64,
}

impl Default for PowerPathConfig {
    fn default() -> Self {
        PowerPathConfig {
            policy: PowerPathPolicy::Adaptive,
            autostandby: Autostandby::Off,
            ewma_shift: 3,
            prox_ratio_percent: 200,
            prox_min_ios: 100,
            iopf_errors: 2,
            iopf_window_ios: 6000,
        }
    }
}

impl Registered for PowerPathConfig {
    const SPEC: &'static PolicySpec = &SPEC;
    const HOST: HostStack = HostStack::Esxi;

    fn validate(&self) -> Result<(), PolicyError> {
        check_range(SPEC.param("ewma_shift"), self.ewma_shift)?;
        check_range(SPEC.param("prox_ratio_percent"), self.prox_ratio_percent)?;
        check_range(SPEC.param("prox_min_ios"), self.prox_min_ios)?;
        check_range(SPEC.param("iopf_errors"), self.iopf_errors)?;
        check_range(SPEC.param("iopf_window_ios"), self.iopf_window_ios)
    }

    fn build(&self) -> Box<dyn PathSelector> {
        Box::new(PowerPath::new(self.clone()))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Active,
    StandbyProx,
    StandbyIopf,
}

impl Mode {
    /// As `powermt display` shows it.
    fn display(self) -> &'static str {
        match self {
            Mode::Active => "active",
            Mode::StandbyProx => "asb:prox",
            Mode::StandbyIopf => "asb:iopf",
        }
    }
}

#[derive(Clone)]
struct PpPath {
    mode: Mode,
    nexus: u32,
    latency_ewma_ns: Option<u64>,
    completions: u64,
    ios: u64,
    /// `ios` at each recent failure, oldest first; at most `iopf_errors` kept.
    failures: Vec<u64>,
    errors: u64,
    outstanding_ios: u64,
    outstanding_bytes: u64,
}

/// One PowerPath pseudo device.
#[derive(Clone)]
pub struct PowerPath {
    config: PowerPathConfig,
    paths: PathSet,
    state: Vec<PpPath>,
    last: Option<usize>,
}

impl PowerPath {
    pub fn new(config: PowerPathConfig) -> Self {
        PowerPath { config, paths: PathSet::default(), state: Vec::new(), last: None }
    }

    fn usable(&self, i: usize) -> bool {
        self.paths.usable(i, false)
    }

    /// Whether any usable path is active: if not, the standby paths are in use.
    fn active_left(&self) -> bool {
        (0..self.paths.len()).any(|k| self.usable(k) && self.state[k].mode == Mode::Active)
    }

    /// A usable path of the mode in use.
    fn eligible(&self, i: usize, active_left: bool) -> bool {
        self.usable(i) && (self.state[i].mode == Mode::Active) == active_left
    }

    fn cost(&self, i: usize, host: &dyn HostView) -> u128 {
        let p = &self.state[i];
        match self.config.policy {
            PowerPathPolicy::LeastIos => u128::from(p.outstanding_ios),
            PowerPathPolicy::LeastBlocks => u128::from(p.outstanding_bytes),
            // Every eligible path ties: the first after the last one used wins.
            PowerPathPolicy::RoundRobin | PowerPathPolicy::BasicFailover => 0,
            PowerPathPolicy::Adaptive => {
                let queued = u128::from(host.nexus_outstanding(p.nexus)) + 1;
                queued * u128::from(p.latency_ewma_ns.unwrap_or(0))
            }
        }
    }

    fn record_latency(&mut self, i: usize, sample_ns: u64) {
        let shift = self.config.ewma_shift as u32;
        let p = &mut self.state[i];
        p.latency_ewma_ns = Some(match p.latency_ewma_ns {
            None => sample_ns,
            Some(l) => (i128::from(l) + ((i128::from(sample_ns) - i128::from(l)) >> shift)) as u64,
        });
        p.completions += 1;
        if self.config.autostandby == Autostandby::Prox {
            self.judge_proximity();
        }
    }

    fn judge_proximity(&mut self) {
        let judged = |p: &PpPath| p.mode == Mode::Active && p.completions >= self.config.prox_min_ios;
        let Some(fastest) = self.state.iter().filter(|p| judged(p)).filter_map(|p| p.latency_ewma_ns).min() else {
            return;
        };
        let limit = u128::from(fastest) * u128::from(self.config.prox_ratio_percent);
        for k in 0..self.state.len() {
            let slow = self.state[k].latency_ewma_ns.is_some_and(|l| u128::from(l) * 100 > limit);
            if judged(&self.state[k]) && slow {
                self.state[k].mode = Mode::StandbyProx;
            }
        }
    }

    fn record_failure(&mut self, i: usize) {
        let (errors, window) = (self.config.iopf_errors as usize, self.config.iopf_window_ios);
        let p = &mut self.state[i];
        p.errors += 1;
        if self.config.autostandby != Autostandby::Iopf || p.mode != Mode::Active {
            return;
        }
        let now = p.ios;
        p.failures.push(now);
        p.failures.retain(|&at| at + window > now);
        if p.failures.len() > errors {
            p.failures.remove(0);
        }
        if p.failures.len() >= errors {
            p.mode = Mode::StandbyIopf;
        }
    }
}

impl PathSelector for PowerPath {
    fn add_path(&mut self, path: &PathDesc) {
        self.paths.add(path);
        self.state.push(PpPath {
            mode: Mode::Active,
            nexus: path.nexus,
            latency_ewma_ns: None,
            completions: 0,
            ios: 0,
            failures: Vec::new(),
            errors: 0,
            outstanding_ios: 0,
            outstanding_bytes: 0,
        });
    }

    fn fail_path(&mut self, path: PathId) {
        let Some(i) = self.paths.index_of(path) else { return };
        if !self.paths.failed(i) {
            self.paths.set_failed(path, true);
            self.record_failure(i);
        }
    }

    fn reinstate_path(&mut self, path: PathId) {
        self.paths.set_failed(path, false);
    }

    fn set_alua_state(&mut self, path: PathId, state: AluaState) {
        self.paths.set_alua(path, state);
    }

    fn select_path(&mut self, _io: &IoDesc, _now_ns: TimeNs, host: &dyn HostView) -> Option<PathId> {
        let n = self.paths.len();
        let start = self.last.map_or(0, |l| (l + 1) % n);
        let active_left = self.active_left();
        if self.config.policy == PowerPathPolicy::BasicFailover {
            if let Some(l) = self.last.filter(|&l| self.eligible(l, active_left)) {
                return Some(self.paths.id(l));
            }
        }
        let chosen = least_from(n, start, |i| self.eligible(i, active_left), |i| self.cost(i, host))?;
        self.last = Some(chosen);
        Some(self.paths.id(chosen))
    }

    fn start_io(&mut self, path: PathId, io: &IoDesc, _now_ns: TimeNs) {
        let Some(i) = self.paths.index_of(path) else { return };
        let p = &mut self.state[i];
        p.ios += 1;
        p.outstanding_ios += 1;
        p.outstanding_bytes += io.bytes;
    }

    fn end_io(&mut self, path: PathId, io: &IoDesc, done: &IoDone) {
        let Some(i) = self.paths.index_of(path) else { return };
        let p = &mut self.state[i];
        p.outstanding_ios = p.outstanding_ios.saturating_sub(1);
        p.outstanding_bytes = p.outstanding_bytes.saturating_sub(io.bytes);
        match (done.failed, self.paths.failed(i)) {
            (false, _) => self.record_latency(i, done.latency_ns),
            (true, false) => self.record_failure(i),
            (true, true) => {}
        }
    }

    fn path_groups(&self) -> Vec<crate::PathGroup> {
        crate::path_set::flat_group(&self.paths)
    }

    /// Like `powermt display dev=`: each path's mode, state, queued I/Os and errors.
    fn status(&self) -> PolicyStatus {
        let policy = match self.config.policy {
            PowerPathPolicy::Adaptive => "Adaptive",
            PowerPathPolicy::LeastIos => "LeastIos",
            PowerPathPolicy::LeastBlocks => "LeastBlocks",
            PowerPathPolicy::RoundRobin => "RoundRobin",
            PowerPathPolicy::BasicFailover => "BasicFailover",
        };
        let paths = self
            .state
            .iter()
            .enumerate()
            .map(|(i, p)| PowerPathPath {
                path: self.paths.id(i),
                mode: p.mode.display(),
                alive: !self.paths.failed(i),
                queued: p.outstanding_ios,
                errors: p.errors,
            })
            .collect();
        PolicyStatus::PowerPath { policy, paths }
    }

    fn working_paths(&self) -> Vec<PathId> {
        let active_left = self.active_left();
        (0..self.paths.len()).filter(|&i| self.eligible(i, active_left)).map(|i| self.paths.id(i)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{add_paths, complete, io, issue, TestHost};

    fn powerpath(config: PowerPathConfig, n: u32) -> PowerPath {
        let mut p = PowerPath::new(config);
        add_paths(&mut p, n, |_| AluaState::ActiveOptimized);
        p
    }

    /// Issues `count` I/Os one after another, each taking `latency_ns(path)`; the paths taken.
    fn drive(p: &mut PowerPath, host: &TestHost, count: usize, latency_ns: impl Fn(u32) -> u64) -> Vec<u32> {
        (0..count)
            .map(|_| {
                let io = io(8192, 0);
                let path = issue(p, host, &io, 0);
                complete(p, path, &io, 0, latency_ns(path));
                path
            })
            .collect()
    }

    fn modes(p: &PowerPath) -> Vec<&'static str> {
        p.state.iter().map(|s| s.mode.display()).collect()
    }

    #[test]
    fn adaptive_weighs_each_ports_queue_by_its_latency() {
        let mut host = TestHost::default();
        let mut p = powerpath(PowerPathConfig::default(), 2);
        // Unmeasured paths cost 0 and take turns: path 0 answers in 1 ms, path 1 in 3 ms.
        assert_eq!(drive(&mut p, &host, 2, |path| [1_000_000, 3_000_000][path as usize]), [0, 1]);
        // Idle ports: 1 ms beats 3 ms. Two requests of other LUNs on port 0: 3 * 1 ms ties with
        // 1 * 3 ms, and the tie goes to the path after the last used (0), which is 1.
        assert_eq!(drive(&mut p, &host, 1, |_| 1_000_000), [0]);
        host.nexus_load = vec![2, 0];
        assert_eq!(drive(&mut p, &host, 1, |_| 3_000_000), [1]);
        host.nexus_load = vec![3, 0];
        assert_eq!(drive(&mut p, &host, 1, |_| 3_000_000), [1]);
        // Path 0's EWMA after 1 ms, 1 ms and now 2 ms: 1000000 + (2000000 - 1000000) / 8.
        host.nexus_load = vec![0, 0];
        drive(&mut p, &host, 1, |_| 2_000_000);
        assert_eq!(p.state[0].latency_ewma_ns, Some(1_125_000));
    }

    #[test]
    fn round_robin_takes_the_paths_in_turn() {
        let host = TestHost::default();
        let config = PowerPathConfig { policy: PowerPathPolicy::RoundRobin, ..PowerPathConfig::default() };
        let mut p = powerpath(config, 3);
        // However fast path 0 answers, each path takes its turn.
        assert_eq!(drive(&mut p, &host, 6, |path| [100_000, 5_000_000, 5_000_000][path as usize]), [0, 1, 2, 0, 1, 2]);
    }

    #[test]
    fn basic_failover_keeps_one_path_until_it_fails_and_does_not_fail_back() {
        let host = TestHost::default();
        let config = PowerPathConfig { policy: PowerPathPolicy::BasicFailover, ..PowerPathConfig::default() };
        let mut p = powerpath(config, 3);
        assert_eq!(drive(&mut p, &host, 3, |_| 1_000_000), [0, 0, 0]);
        p.fail_path(p.paths.id(0));
        assert_eq!(drive(&mut p, &host, 2, |_| 1_000_000), [1, 1]);
        p.reinstate_path(p.paths.id(0));
        assert_eq!(drive(&mut p, &host, 2, |_| 1_000_000), [1, 1]);
    }

    #[test]
    fn least_ios_and_least_blocks_count_this_devices_queue() {
        let host = TestHost::default();
        let config = PowerPathConfig { policy: PowerPathPolicy::LeastIos, ..PowerPathConfig::default() };
        let mut p = powerpath(config, 2);
        let (big, small) = (io(1 << 20, 0), io(4096, 0));
        assert_eq!([issue(&mut p, &host, &big, 0), issue(&mut p, &host, &small, 0)], [0, 1]);
        assert_eq!(issue(&mut p, &host, &small, 0), 0, "1 I/O each: the tie goes round");
        let config = PowerPathConfig { policy: PowerPathPolicy::LeastBlocks, ..PowerPathConfig::default() };
        let mut p = powerpath(config, 2);
        assert_eq!([issue(&mut p, &host, &big, 0), issue(&mut p, &host, &small, 0)], [0, 1]);
        assert_eq!(issue(&mut p, &host, &small, 0), 1, "4 KiB queued against 1 MiB");
    }

    #[test]
    fn prox_puts_a_slow_path_in_standby_used_only_when_no_active_path_is_left() {
        let host = TestHost::default();
        let config = PowerPathConfig {
            policy: PowerPathPolicy::LeastIos,
            autostandby: Autostandby::Prox,
            prox_min_ios: 4,
            ..PowerPathConfig::default()
        };
        // Path 0: 1 ms, path 1: 1.5 ms (within 200%), path 2: 2.5 ms (over).
        let latency = |path: u32| [1_000_000, 1_500_000, 2_500_000][path as usize];
        let mut p = powerpath(config, 3);
        assert_eq!(drive(&mut p, &host, 12, latency), [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2]);
        assert_eq!(modes(&p), ["active", "active", "asb:prox"]);
        assert_eq!(drive(&mut p, &host, 3, latency), [0, 1, 0]);
        p.fail_path(PathId(0));
        p.fail_path(PathId(1));
        assert_eq!(drive(&mut p, &host, 2, latency), [2, 2]);
        p.reinstate_path(PathId(1));
        assert_eq!(drive(&mut p, &host, 2, latency), [1, 1]);
        assert_eq!(p.working_paths(), [PathId(1)]);
    }

    #[test]
    fn iopf_puts_a_path_that_keeps_failing_in_standby() {
        let host = TestHost::default();
        let config = PowerPathConfig {
            policy: PowerPathPolicy::LeastIos,
            autostandby: Autostandby::Iopf,
            iopf_window_ios: 100,
            ..PowerPathConfig::default()
        };
        let mut p = powerpath(config, 2);
        // Path 0 fails, returns, carries 150 more I/Os, fails again: 1 failure per window.
        p.fail_path(PathId(0));
        p.reinstate_path(PathId(0));
        drive(&mut p, &host, 300, |_| 1000);
        p.fail_path(PathId(0));
        p.reinstate_path(PathId(0));
        assert_eq!(modes(&p), ["active", "active"]);
        // Path 1 fails twice within 10 of its I/Os: standby; errors of its in-flight I/Os while
        // it is down do not count again.
        p.fail_path(PathId(1));
        p.end_io(PathId(1), &io(4096, 0), &IoDone { now_ns: 0, latency_ns: 0, failed: true });
        p.reinstate_path(PathId(1));
        drive(&mut p, &host, 20, |_| 1000);
        p.fail_path(PathId(1));
        p.reinstate_path(PathId(1));
        assert_eq!(modes(&p), ["active", "asb:iopf"]);
        // Path 0 carries everything now; it fails once more, 110 of its I/Os after its last failure.
        assert_eq!(drive(&mut p, &host, 100, |_| 1000), vec![0; 100]);
        p.fail_path(PathId(0));
        assert_eq!(drive(&mut p, &host, 2, |_| 1000), [1, 1]);
        assert_eq!(
            p.status().render(&|id| format!("sd{}", id.0)),
            "policy=LeastIos\nsd0 active dead q_ios=0 errors=3\nsd1 asb:iopf alive q_ios=0 errors=2"
        );
    }
}
