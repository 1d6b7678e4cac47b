//! rnbd: the path selection of RNBD, the Linux RDMA network block device, done by its transport
//! RTRS (`mpath_policy` of the session: `round-robin`, `min-inflight`, `min-latency`).
//!
//! Source: torvalds/linux `drivers/infiniband/ulp/rtrs/rtrs-clt.c` (`get_next_path_rr`,
//! `get_next_path_min_inflight`, `get_next_path_min_latency`, `alloc_clt`, `rtrs_clt_rdma_done`),
//! `rtrs-clt-sysfs.c` (`mpath_policy_store`); min-latency added in Linux 5.17
//! (research/anchors-2026.md §1.7).
//!
//! A path is an RTRS path of the session (one per server port), usable while CONNECTED (here:
//! not failed). RTRS knows no ALUA: ALUA states are ignored, every connected path is a peer.
//! - `min-inflight` (the default, `alloc_clt`): scan the paths in list order and take the one
//!   with the fewest requests in flight, strict `<` (ties to the first). The count is the
//!   session path's `stats->inflight`, which every device mapped over the session shares (here
//!   `HostView::nexus_outstanding` of the path's nexus).
//! - `min-latency`: the same scan on `hb_cur_latency`, the round trip of the path's last
//!   heart-beat (an empty RDMA write answered by the server, sent every `RTRS_HB_INTERVAL_MS`,
//!   5 s). Until its first answer a path's value is 0, so an unmeasured path wins. The
//!   simulator has no heart-beat message: the latency of the first completion on the path at or
//!   after each heart-beat tick (multiples of `hb_interval_ms` from time 0) stands in for the
//!   heart-beat's round trip. That includes the array's service time, which a heart-beat does
//!   not; pathlab's approximation, not the kernel's.
//! - `round-robin`: per CPU, the path after the one that CPU used last (the first path at
//!   first), skipping paths that are not connected.
//!
//! Not modelled: the per-request skip list (a retry of one request avoids the paths it already
//! tried; here the harness's retry asks the policy again).
//!
//! No usable path: I/O waits for a reconnect (the host stack used is Linux NVMe's, the closest
//! one pathlab has: reconnect with a delay, retry elsewhere on error).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::params::{check_range, ParamSpec, PolicyError, PolicySpec};
use crate::path_set::{least_from, next_from, path_set_membership};
use crate::registered::{HostStack, Registered};
use crate::status::{NvmePath, PolicyStatus};
use crate::{AluaState, HostView, IoDesc, IoDone, PathDesc, PathId, PathSelector, PathSet, TimeNs};

pub(crate) const SPEC: PolicySpec = PolicySpec {
    stack: "Linux RNBD/RTRS (RDMA block device)",
    summary: "RTRS session path selection: fewest in flight, least heart-beat latency, or round robin",
    params: &[
        ParamSpec {
            name: "mp_policy",
            unset: None,
            range: None,
            choices: &["min-inflight", "min-latency", "round-robin"],
            help: "the session's mpath_policy (sysfs); min-inflight is the kernel default",
        },
        ParamSpec {
            name: "hb_interval_ms",
            unset: None,
            range: Some((1, 3_600_000)),
            choices: &[],
            help: "min-latency: the heart-beat period (RTRS_HB_INTERVAL_MS, 5000)",
        },
    ],
};

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum RnbdPolicy {
    #[default]
    MinInflight,
    MinLatency,
    RoundRobin,
}

impl RnbdPolicy {
    fn name(self) -> &'static str {
        match self {
            RnbdPolicy::MinInflight => "min-inflight",
            RnbdPolicy::MinLatency => "min-latency",
            RnbdPolicy::RoundRobin => "round-robin",
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct RnbdConfig {
    pub mp_policy: RnbdPolicy,
    pub hb_interval_ms: u64,
}

impl Default for RnbdConfig {
    fn default() -> Self {
        RnbdConfig { mp_policy: RnbdPolicy::MinInflight, hb_interval_ms: 5_000 }
    }
}

impl Registered for RnbdConfig {
    const SPEC: &'static PolicySpec = &SPEC;
    const HOST: HostStack = HostStack::LinuxNvme;

    fn validate(&self) -> Result<(), PolicyError> {
        check_range(SPEC.param("hb_interval_ms"), self.hb_interval_ms)
    }

    fn build(&self) -> Box<dyn PathSelector> {
        Box::new(Rnbd::new(self.clone()))
    }
}

#[derive(Clone)]
pub struct Rnbd {
    config: RnbdConfig,
    paths: PathSet,
    /// The nexus (RTRS session path) of each path, by index.
    nexus: Vec<u32>,
    /// `hb_cur_latency` of each path, by index: 0 until measured.
    latency_ns: Vec<TimeNs>,
    /// When each path's next heart-beat answer is due (a completion at or after it is taken).
    next_beat_ns: Vec<TimeNs>,
    /// Per CPU, the path it used last (round-robin).
    last: HashMap<u32, usize>,
}

impl Rnbd {
    pub fn new(config: RnbdConfig) -> Self {
        Rnbd {
            config,
            paths: PathSet::default(),
            nexus: Vec::new(),
            latency_ns: Vec::new(),
            next_beat_ns: Vec::new(),
            last: HashMap::new(),
        }
    }

    fn connected(&self, i: usize) -> bool {
        !self.paths.failed(i)
    }
}

impl PathSelector for Rnbd {
    fn add_path(&mut self, path: &PathDesc) {
        self.paths.add(path);
        self.nexus.push(path.nexus);
        self.latency_ns.push(0);
        self.next_beat_ns.push(0);
    }

    path_set_membership!();

    fn select_path(&mut self, io: &IoDesc, _now_ns: TimeNs, host: &dyn HostView) -> Option<PathId> {
        let n = self.paths.len();
        let chosen = match self.config.mp_policy {
            RnbdPolicy::MinInflight => {
                least_from(n, 0, |i| self.connected(i), |i| host.nexus_outstanding(self.nexus[i]))
            }
            RnbdPolicy::MinLatency => least_from(n, 0, |i| self.connected(i), |i| self.latency_ns[i]),
            RnbdPolicy::RoundRobin => {
                let start = self.last.get(&io.cpu).map_or(0, |&i| i + 1);
                let next = next_from(n, start, |i| self.connected(i))?;
                self.last.insert(io.cpu, next);
                Some(next)
            }
        }?;
        Some(self.paths.id(chosen))
    }

    fn end_io(&mut self, path: PathId, _io: &IoDesc, done: &IoDone) {
        let Some(i) = self.paths.index_of(path) else { return };
        if done.failed || done.now_ns < self.next_beat_ns[i] {
            return;
        }
        let interval = self.config.hb_interval_ms * 1_000_000;
        self.latency_ns[i] = done.latency_ns;
        self.next_beat_ns[i] = (done.now_ns / interval + 1) * interval;
    }

    fn status(&self) -> PolicyStatus {
        let paths = (0..self.paths.len())
            .map(|i| NvmePath {
                path: self.paths.id(i),
                live: self.connected(i),
                ana: if self.connected(i) { "connected" } else { "reconnecting" },
            })
            .collect();
        PolicyStatus::Nvme { iopolicy: self.config.mp_policy.name(), paths }
    }

    fn working_paths(&self) -> Vec<PathId> {
        (0..self.paths.len()).filter(|&i| self.connected(i)).map(|i| self.paths.id(i)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{add_paths, complete, io, issue, TestHost};
    use crate::IdleHost;

    const MS: TimeNs = 1_000_000;

    fn rnbd(mp_policy: RnbdPolicy, n: u32) -> Rnbd {
        let mut p = Rnbd::new(RnbdConfig { mp_policy, ..Default::default() });
        // ALUA states mean nothing to RTRS: a standby path is a peer.
        add_paths(&mut p, n, |i| if i == 2 { AluaState::Standby } else { AluaState::ActiveOptimized });
        p
    }

    #[test]
    fn min_inflight_takes_the_session_path_with_fewest_in_flight_ties_to_the_first() {
        let mut p = rnbd(RnbdPolicy::MinInflight, 3);
        // In flight per session path, every device of the session counted: 4, 2, 2.
        let host = TestHost { nexus_load: vec![4, 2, 2], ..Default::default() };
        assert_eq!(issue(&mut p, &host, &io(4096, 0), 0), 1);
        let host = TestHost { nexus_load: vec![4, 3, 2], ..Default::default() };
        assert_eq!(issue(&mut p, &host, &io(4096, 0), 0), 2);
        // Path 2 down: 1 wins among the connected ones; all equal: the first.
        p.fail_path(PathId(2));
        assert_eq!(issue(&mut p, &host, &io(4096, 0), 0), 1);
        assert_eq!(issue(&mut p, &IdleHost, &io(4096, 0), 0), 0);
    }

    #[test]
    fn min_latency_follows_the_heart_beat_round_trip_sampled_once_a_period() {
        let mut p = rnbd(RnbdPolicy::MinLatency, 2);
        let read = io(4096, 0);
        // Unmeasured paths are 0: the first in list order wins until its first sample.
        assert_eq!(issue(&mut p, &IdleHost, &read, 0), 0);
        complete(&mut p, 0, &read, 0, 300_000); // path 0: 300 µs, next beat at 5 s
        assert_eq!(issue(&mut p, &IdleHost, &read, MS), 1);
        complete(&mut p, 1, &read, MS, MS + 200_000); // path 1: 200 µs
        assert_eq!(p.latency_ns, [300_000, 200_000]);
        // Within the period later completions do not count: path 1 at 900 µs is not seen yet.
        complete(&mut p, 1, &read, 2 * MS, 2 * MS + 900_000);
        assert_eq!(issue(&mut p, &IdleHost, &read, 3 * MS), 1);
        // From the 5 s tick on, the next completion is the new heart-beat: 900 µs > 300 µs.
        complete(&mut p, 1, &read, 5_000 * MS, 5_000 * MS + 900_000);
        assert_eq!(p.latency_ns, [300_000, 900_000]);
        assert_eq!(issue(&mut p, &IdleHost, &read, 5_001 * MS), 0);
        // A failed I/O is no heart-beat answer.
        let failed = IoDone { now_ns: 10_000 * MS, latency_ns: 1, failed: true };
        p.end_io(PathId(0), &read, &failed);
        assert_eq!(p.latency_ns[0], 300_000);
    }

    #[test]
    fn round_robin_rotates_per_cpu_over_connected_paths() {
        let mut p = rnbd(RnbdPolicy::RoundRobin, 3);
        let took = |p: &mut Rnbd, cpu| issue(p, &IdleHost, &io(4096, cpu), 0);
        assert_eq!([took(&mut p, 0), took(&mut p, 0), took(&mut p, 1), took(&mut p, 0)], [0, 1, 0, 2]);
        p.fail_path(PathId(0));
        assert_eq!([took(&mut p, 0), took(&mut p, 1), took(&mut p, 1)], [1, 1, 2]);
    }
}
