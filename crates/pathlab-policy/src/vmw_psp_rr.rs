//! VMW_PSP_RR: VMware NMP round robin, switching by I/O count or by bytes.
//!
//! Algorithm (VMware KB 2069356 / Broadcom 323117; vSphere Storage guide, "VMware Path Selection
//! Plug-ins"): the device keeps one current path (`lastPathIndex`, its position in discovery
//! order). Every I/O goes down the current path until the limit is reached; the next I/O then
//! moves to the next usable path in discovery order, wrapping round, and the counters restart.
//!
//! Parameters (`esxcli storage nmp psp roundrobin deviceconfig set`):
//! - `type`: `iops` (switch after `iops` I/Os), `bytes` (after `bytes` bytes), or `default`
//!   (the factory state, printed `policy=rr`: switch on whichever limit is reached first, as the
//!   KB words it: "rebalance after every 1000 I/Os or 10485760 bytes"). Default `default`.
//! - `iops`: 1..=2147483647, default 1000.
//! - `bytes`: 1..=2147483647, default 10485760.
//! - `use_ano` (esxcli `--useano`): also use active-non-optimized ALUA paths while optimized ones
//!   exist. Default false. Without it ANO paths are used only when no AO path works.
//!
//! Counting: an I/O counts towards the limit when it is issued (`start_io`); the I/O that
//! reaches the limit still goes down the current path, the one after it switches. A path that
//! fails or becomes unusable is left at once for the next usable one.
//! Tie-break: none needed; the order is the device's path discovery order.

use crate::params::{check_range, ParamSpec, PolicyError, PolicySpec};
use crate::path_set::path_set_membership;
use crate::{AluaState, HostView, IoDesc, IoDone, PathDesc, PathId, PathSelector, PathSet, TimeNs};
use serde::Deserialize;

pub(crate) const SPEC: PolicySpec = PolicySpec {
    name: "VMW_PSP_RR",
    stack: "VMware ESXi NMP",
    summary: "Round robin: N I/Os or B bytes down one path, then the next usable path in order",
    params: &[
        ParamSpec {
            name: "type",
            default: "default",
            range: None,
            choices: &["default", "iops", "bytes"],
            help: "what triggers the switch to the next path (default: whichever limit first)",
        },
        ParamSpec {
            name: "iops",
            default: "1000",
            range: Some((1, 2_147_483_647)),
            choices: &[],
            help: "I/Os sent down a path before switching",
        },
        ParamSpec {
            name: "bytes",
            default: "10485760",
            range: Some((1, 2_147_483_647)),
            choices: &[],
            help: "bytes sent down a path before switching",
        },
        ParamSpec {
            name: "use_ano",
            default: "false",
            range: None,
            choices: &["false", "true"],
            help: "use active-non-optimized ALUA paths too (esxcli --useano)",
        },
    ],
};

/// What triggers the switch to the next path.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RrType {
    #[default]
    Default,
    Iops,
    Bytes,
}

impl RrType {
    /// The word ESXi prints after `policy=`.
    fn display(self) -> &'static str {
        match self {
            RrType::Default => "rr",
            RrType::Iops => "iops",
            RrType::Bytes => "bytes",
        }
    }
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct RoundRobinConfig {
    #[serde(rename = "type")]
    pub limit_type: RrType,
    pub iops: u64,
    pub bytes: u64,
    pub use_ano: bool,
}

impl Default for RoundRobinConfig {
    fn default() -> Self {
        RoundRobinConfig { limit_type: RrType::Default, iops: 1000, bytes: 10_485_760, use_ano: false }
    }
}

impl RoundRobinConfig {
    pub fn validate(&self) -> Result<(), PolicyError> {
        check_range(SPEC.param("iops"), self.iops)?;
        check_range(SPEC.param("bytes"), self.bytes)
    }
}

/// Round robin state of one device.
pub struct VmwPspRr {
    config: RoundRobinConfig,
    paths: PathSet,
    /// Position of the current path (ESXi's `lastPathIndex`).
    current: Option<usize>,
    ios_on_current: u64,
    bytes_on_current: u64,
    pending_ios: u64,
    pending_bytes: u64,
}

impl VmwPspRr {
    pub fn new(config: RoundRobinConfig) -> Self {
        VmwPspRr {
            config,
            paths: PathSet::default(),
            current: None,
            ios_on_current: 0,
            bytes_on_current: 0,
            pending_ios: 0,
            pending_bytes: 0,
        }
    }

    fn limit_reached(&self) -> bool {
        let by_ios = self.ios_on_current >= self.config.iops;
        let by_bytes = self.bytes_on_current >= self.config.bytes;
        match self.config.limit_type {
            RrType::Iops => by_ios,
            RrType::Bytes => by_bytes,
            RrType::Default => by_ios || by_bytes,
        }
    }
}

impl PathSelector for VmwPspRr {
    fn add_path(&mut self, path: &PathDesc) {
        self.paths.add(path);
    }

    path_set_membership!();

    fn select_path(&mut self, _io: &IoDesc, _now_ns: TimeNs, _host: &dyn HostView) -> Option<PathId> {
        if let Some(i) = self.current {
            if self.paths.usable(i, self.config.use_ano) && !self.limit_reached() {
                return Some(self.paths.id(i));
            }
        }
        if self.paths.is_empty() {
            return None;
        }
        let start = self.current.map_or(0, |i| (i + 1) % self.paths.len());
        let next = self.paths.next_usable_from(start, self.config.use_ano)?;
        self.current = Some(next);
        self.ios_on_current = 0;
        self.bytes_on_current = 0;
        Some(self.paths.id(next))
    }

    fn start_io(&mut self, path: PathId, io: &IoDesc, _now_ns: TimeNs) {
        if self.current.map(|i| self.paths.id(i)) == Some(path) {
            self.ios_on_current += 1;
            self.bytes_on_current += io.bytes;
        }
        self.pending_ios += 1;
        self.pending_bytes += io.bytes;
    }

    fn end_io(&mut self, _path: PathId, io: &IoDesc, _done: &IoDone) {
        self.pending_ios -= 1;
        self.pending_bytes -= io.bytes;
    }

    fn status(&self, _name: &dyn Fn(PathId) -> String) -> String {
        let c = &self.config;
        format!(
            "{{policy={},iops={},bytes={},useANO={}; lastPathIndex={}: NumIOsPending={},numBytesPending={}}}",
            c.limit_type.display(),
            c.iops,
            c.bytes,
            u8::from(c.use_ano),
            self.current.unwrap_or(0),
            self.pending_ios,
            self.pending_bytes
        )
    }

    fn working_paths(&self) -> Vec<PathId> {
        let usable = self.paths.usable_indices(self.config.use_ano);
        usable.into_iter().map(|i| self.paths.id(i)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{add_paths, run_sequence};

    fn rr(config: RoundRobinConfig, n: u32) -> VmwPspRr {
        let mut p = VmwPspRr::new(config);
        add_paths(&mut p, n, |_| AluaState::ActiveOptimized);
        p
    }

    #[test]
    fn iops_limit_sends_n_ios_down_each_path_in_order() {
        let cfg = RoundRobinConfig { limit_type: RrType::Iops, iops: 3, ..Default::default() };
        let seq = run_sequence(&mut rr(cfg, 3), &[8192; 10]);
        assert_eq!(seq, [0, 0, 0, 1, 1, 1, 2, 2, 2, 0]);
    }

    #[test]
    fn iops_one_alternates_every_io() {
        let cfg = RoundRobinConfig { limit_type: RrType::Iops, iops: 1, ..Default::default() };
        let seq = run_sequence(&mut rr(cfg, 4), &[512; 9]);
        assert_eq!(seq, [0, 1, 2, 3, 0, 1, 2, 3, 0]);
    }

    #[test]
    fn bytes_limit_switches_after_the_io_that_reaches_it() {
        let cfg = RoundRobinConfig { limit_type: RrType::Bytes, bytes: 20_000, ..Default::default() };
        // 8 KiB I/Os: 8192, 16384, 24576 >= 20000 after the third, so three per path.
        let seq = run_sequence(&mut rr(cfg, 2), &[8192; 7]);
        assert_eq!(seq, [0, 0, 0, 1, 1, 1, 0]);
        // Mixed sizes: a 64 KiB I/O alone passes the limit.
        let cfg = RoundRobinConfig { limit_type: RrType::Bytes, bytes: 20_000, ..Default::default() };
        let seq = run_sequence(&mut rr(cfg, 2), &[65536, 4096, 4096, 4096, 4096, 4096, 65536, 512]);
        assert_eq!(seq, [0, 1, 1, 1, 1, 1, 0, 1]);
    }

    #[test]
    fn default_type_switches_on_whichever_limit_comes_first() {
        let cfg = RoundRobinConfig { iops: 4, bytes: 10_000, ..Default::default() };
        // 1 KiB I/Os reach 4 I/Os before 10000 bytes; 8 KiB I/Os reach the bytes first (2 I/Os).
        assert_eq!(run_sequence(&mut rr(cfg.clone(), 2), &[1024; 5]), [0, 0, 0, 0, 1]);
        assert_eq!(run_sequence(&mut rr(cfg, 2), &[8192; 5]), [0, 0, 1, 1, 0]);
    }

    #[test]
    fn failed_path_is_skipped_and_rotation_resumes_after_reinstate() {
        let cfg = RoundRobinConfig { limit_type: RrType::Iops, iops: 1, ..Default::default() };
        let mut p = rr(cfg, 3);
        assert_eq!(run_sequence(&mut p, &[512; 2]), [0, 1]);
        p.fail_path(PathId(2));
        assert_eq!(run_sequence(&mut p, &[512; 3]), [0, 1, 0]);
        p.reinstate_path(PathId(2));
        assert_eq!(run_sequence(&mut p, &[512; 3]), [1, 2, 0]);
        for i in 0..3 {
            p.fail_path(PathId(i));
        }
        assert_eq!(p.select_path(&IoDesc { bytes: 512, is_write: false, cpu: 0 }, 0, &crate::IdleHost), None);
    }

    #[test]
    fn ano_paths_are_used_only_without_optimized_ones_unless_use_ano() {
        let alua = |i: u32| {
            if i < 2 {
                AluaState::ActiveOptimized
            } else {
                AluaState::ActiveNonOptimized
            }
        };
        let cfg = RoundRobinConfig { limit_type: RrType::Iops, iops: 1, ..Default::default() };
        let mut p = VmwPspRr::new(cfg.clone());
        add_paths(&mut p, 4, alua);
        assert_eq!(run_sequence(&mut p, &[512; 4]), [0, 1, 0, 1]);
        assert_eq!(p.working_paths(), [PathId(0), PathId(1)]);
        p.fail_path(PathId(0));
        p.fail_path(PathId(1));
        assert_eq!(run_sequence(&mut p, &[512; 3]), [2, 3, 2]);

        let mut p = VmwPspRr::new(RoundRobinConfig { use_ano: true, ..cfg });
        add_paths(&mut p, 4, alua);
        assert_eq!(run_sequence(&mut p, &[512; 5]), [0, 1, 2, 3, 0]);
    }

    #[test]
    fn status_prints_like_esxcli_device_list() {
        let mut p = rr(RoundRobinConfig::default(), 3);
        let io = IoDesc { bytes: 4096, is_write: true, cpu: 0 };
        let path = p.select_path(&io, 0, &crate::IdleHost).unwrap();
        p.start_io(path, &io, 0);
        assert_eq!(
            p.status(&|_| String::new()),
            "{policy=rr,iops=1000,bytes=10485760,useANO=0; lastPathIndex=0: NumIOsPending=1,numBytesPending=4096}"
        );
    }

    #[test]
    fn limits_outside_esxi_ranges_are_rejected() {
        let err = RoundRobinConfig { iops: 0, ..Default::default() }.validate().unwrap_err();
        assert_eq!(err.field, "iops");
        assert!(err.message.contains("1..=2147483647"));
        assert!(RoundRobinConfig { bytes: 1 << 40, ..Default::default() }.validate().is_err());
    }
}
