//! What a policy shows of itself, as typed data: code reads it (which path is preferred, which
//! is current) without searching text, and `render` prints it in the stack's own words (ESXi's
//! `Path Selection Policy Device Config`, `multipath -ll`'s groups, `nvme list-subsys`, SPDK's
//! `bdev_nvme_get_io_paths`, `mpclaim`, `powermt display`), for the views in `observe/`.

use crate::{GroupState, PathId};
use serde::Serialize;
use std::fmt::Write;

/// One device's policy state, one variant per policy family.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PolicyStatus {
    /// VMW_PSP_RR switching by I/O count or bytes.
    RoundRobin {
        /// ESXi's word after `policy=`: rr, iops or bytes.
        policy: &'static str,
        iops: u64,
        bytes: u64,
        use_ano: bool,
        last_path_index: usize,
        pending_ios: u64,
        pending_bytes: u64,
    },
    /// VMW_PSP_RR type=latency.
    RoundRobinLatency {
        eval_time_ms: u64,
        sampling_cycles: u64,
        current_cycle: u64,
        use_ano: bool,
        current: Option<PathId>,
        pending_ios: u64,
        latency_us: u64,
    },
    Fixed {
        preferred: Option<PathId>,
        current: Option<PathId>,
    },
    Mru {
        current: Option<PathId>,
    },
    Hpp {
        scheme: &'static str,
        /// The scheme's two settings as esxcli names them.
        settings: [(&'static str, u64); 2],
        current: Option<HppCurrent>,
    },
    GatedLeastLoad {
        gate_percent: u64,
        tau_ms: u64,
        paths: Vec<GatedPath>,
    },
    DmMultipath {
        queue_if_no_path: bool,
        groups: Vec<DmGroupStatus>,
    },
    Nvme {
        iopolicy: &'static str,
        paths: Vec<NvmePath>,
    },
    Spdk {
        policy: &'static str,
        /// Active-active only: the selector and, for round robin, its `rr_min_io`.
        selector: Option<(&'static str, Option<u64>)>,
        paths: Vec<SpdkPath>,
    },
    Mpio {
        policy: &'static str,
        paths: Vec<MpioPath>,
    },
    PowerPath {
        policy: &'static str,
        paths: Vec<PowerPathPath>,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HppCurrent {
    pub path: PathId,
    pub pending_ios: u64,
    pub latency_per_kib_ns: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GatedPath {
    pub path: PathId,
    pub group: u32,
    pub estimate_ns: Option<f64>,
    /// Latency relative to the device's typical for the same kind of I/O: what the gate compares.
    pub relative: Option<f64>,
    pub outstanding: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DmGroupStatus {
    /// As `multipath -ll` prints it (`service-time 0`).
    pub selector: String,
    pub priority: i32,
    pub state: GroupState,
    pub paths: Vec<DmPathStatus>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DmPathStatus {
    pub path: PathId,
    pub failed: bool,
    /// The selector's per-path status (`ps_info`), empty when it has none.
    pub info: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NvmePath {
    pub path: PathId,
    pub live: bool,
    /// optimized, non-optimized or inaccessible.
    pub ana: &'static str,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpdkPath {
    pub path: PathId,
    pub ana: &'static str,
    pub connected: bool,
    pub current: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MpioPath {
    pub path: PathId,
    /// Active/Optimized, Active/Unoptimized, Standby, Unavailable or Failed.
    pub state: &'static str,
    pub weight: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PowerPathPath {
    pub path: PathId,
    /// active, asb:prox or asb:iopf.
    pub mode: &'static str,
    pub alive: bool,
    pub queued: u64,
    pub errors: u64,
}

impl PolicyStatus {
    /// The configured or chosen preferred path (Fixed, HPP FIXED).
    pub fn preferred(&self) -> Option<PathId> {
        match self {
            PolicyStatus::Fixed { preferred, .. } => *preferred,
            _ => None,
        }
    }

    /// The status in the stack's own words; `name` turns a path id into its runtime name.
    pub fn render(&self, name: &dyn Fn(PathId) -> String) -> String {
        let show = |p: Option<PathId>| p.map(name).unwrap_or_default();
        match self {
            PolicyStatus::RoundRobin { policy, iops, bytes, use_ano, last_path_index, pending_ios, pending_bytes } => {
                format!(
                    "{{policy={policy},iops={iops},bytes={bytes},useANO={}; lastPathIndex={last_path_index}: \
                     NumIOsPending={pending_ios},numBytesPending={pending_bytes}}}",
                    u8::from(*use_ano)
                )
            }
            PolicyStatus::RoundRobinLatency {
                eval_time_ms,
                sampling_cycles,
                current_cycle,
                use_ano,
                current,
                pending_ios,
                latency_us,
            } => format!(
                "{{policy=latency,latencyEvalTime={eval_time_ms},samplingCycles={sampling_cycles},\
                 curSamplingCycle={current_cycle},useANO={}; CurrentPath={}: NumIOsPending={pending_ios},\
                 latency={latency_us}}}",
                u8::from(*use_ano),
                show(*current)
            ),
            PolicyStatus::Fixed { preferred, current } => {
                format!("{{preferred={};current={}}}", show(*preferred), show(*current))
            }
            PolicyStatus::Mru { current } => format!("Current Path={}", show(*current)),
            PolicyStatus::Hpp { scheme, settings, current } => {
                let [(k1, v1), (k2, v2)] = settings;
                let current = current.as_ref().map_or(String::new(), |c| {
                    let latency = c.latency_per_kib_ns.map_or(String::new(), |l| format!(",latencyPerKiB={l:.0}"));
                    format!("{}: NumIOsPending={}{latency}", name(c.path), c.pending_ios)
                });
                format!("{{scheme={scheme},{k1}={v1},{k2}={v2}; CurrentPath={current}}}")
            }
            PolicyStatus::GatedLeastLoad { gate_percent, tau_ms, paths } => {
                let shown: Vec<String> = paths
                    .iter()
                    .map(|p| {
                        let est = p.estimate_ns.map_or("-".to_string(), |e| format!("{:.0}us", e / 1e3));
                        let rel = p.relative.map_or("-".to_string(), |r| format!("x{r:.2}"));
                        format!("{}:tpg{}:{est}:{rel}:q{}", name(p.path), p.group, p.outstanding)
                    })
                    .collect();
                format!("{{policy=gated-least-load,gate={gate_percent}%,tau={tau_ms}ms; {}}}", shown.join(" "))
            }
            PolicyStatus::DmMultipath { queue_if_no_path, groups } => render_multipath(*queue_if_no_path, groups, name),
            PolicyStatus::Nvme { iopolicy, paths } => {
                let mut out = format!("iopolicy={iopolicy}");
                for p in paths {
                    let state = if p.live { "live" } else { "connecting" };
                    let _ = write!(out, "\n +- {} {state} {}", name(p.path), p.ana);
                }
                out
            }
            PolicyStatus::Spdk { policy, selector, paths } => {
                let mut out = format!("multipath_policy={policy}");
                match selector {
                    Some((s, Some(n))) => {
                        let _ = write!(out, " {s} rr_min_io={n}");
                    }
                    Some((s, None)) => {
                        let _ = write!(out, " {s}");
                    }
                    None => {}
                }
                for p in paths {
                    let _ = write!(
                        out,
                        "\n{}: ana_state={} connected={} current={}",
                        name(p.path),
                        p.ana,
                        p.connected,
                        p.current
                    );
                }
                out
            }
            PolicyStatus::Mpio { policy, paths } => {
                let mut out = format!("Load Balance Policy: {policy}");
                for p in paths {
                    let _ = write!(out, "\n{}: {} weight={}", name(p.path), p.state, p.weight);
                }
                out
            }
            PolicyStatus::PowerPath { policy, paths } => {
                let mut out = format!("policy={policy}");
                for p in paths {
                    let state = if p.alive { "alive" } else { "dead" };
                    let _ = write!(out, "\n{} {} {state} q_ios={} errors={}", name(p.path), p.mode, p.queued, p.errors);
                }
                out
            }
        }
    }
}

/// The map of a device as `multipath -ll` draws it below its header line.
fn render_multipath(queue_if_no_path: bool, groups: &[DmGroupStatus], name: &dyn Fn(PathId) -> String) -> String {
    let features = if queue_if_no_path { "1 queue_if_no_path" } else { "0" };
    let mut out = format!("features='{features}' hwhandler='1 alua' wp=rw");
    for (g, group) in groups.iter().enumerate() {
        let last_group = g + 1 == groups.len();
        let state = match group.state {
            GroupState::Active => "active",
            GroupState::Enabled => "enabled",
            GroupState::Disabled => "disabled",
        };
        let (branch, stem) = if last_group { ("`-+-", " ") } else { ("|-+-", "|") };
        let _ = write!(out, "\n{branch} policy='{}' prio={} status={state}", group.selector, group.priority);
        for (k, p) in group.paths.iter().enumerate() {
            let leaf = if k + 1 == group.paths.len() { "`-" } else { "|-" };
            let dm_state = if p.failed { "failed faulty" } else { "active ready" };
            let _ = write!(out, "\n{stem} {leaf} {} {dm_state} running", name(p.path));
            if !p.info.is_empty() {
                let _ = write!(out, " ps_info='{}'", p.info);
            }
        }
    }
    out
}
