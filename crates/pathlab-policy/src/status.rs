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
pub enum PolicyStatus<P = PathId> {
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
        current: Option<P>,
        pending_ios: u64,
        latency_us: u64,
    },
    Fixed {
        preferred: Option<P>,
        current: Option<P>,
    },
    Mru {
        current: Option<P>,
    },
    Hpp {
        scheme: &'static str,
        /// The scheme's two settings as esxcli names them.
        settings: [(&'static str, u64); 2],
        current: Option<HppCurrent<P>>,
    },
    GatedLeastLoad {
        gate_percent: u64,
        tau_ms: u64,
        paths: Vec<GatedPath<P>>,
    },
    DmMultipath {
        queue_if_no_path: bool,
        /// The hardware handler in force, as `multipath -ll` prints it (`1 alua`, `1 emc`, `0`).
        hwhandler: String,
        groups: Vec<DmGroupStatus<P>>,
    },
    Nvme {
        iopolicy: &'static str,
        paths: Vec<NvmePath<P>>,
    },
    Spdk {
        policy: &'static str,
        /// Active-active only: the selector and, for round robin, its `rr_min_io`.
        selector: Option<(&'static str, Option<u64>)>,
        paths: Vec<SpdkPath<P>>,
    },
    Mpio {
        policy: &'static str,
        paths: Vec<MpioPath<P>>,
    },
    PowerPath {
        policy: &'static str,
        paths: Vec<PowerPathPath<P>>,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HppCurrent<P = PathId> {
    pub path: P,
    pub pending_ios: u64,
    pub latency_per_kib_ns: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GatedPath<P = PathId> {
    pub path: P,
    pub group: u32,
    pub estimate_ns: Option<f64>,
    /// Latency relative to the device's typical for the same kind of I/O: what the gate compares.
    pub relative: Option<f64>,
    pub outstanding: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DmGroupStatus<P = PathId> {
    /// As `multipath -ll` prints it (`service-time 0`).
    pub selector: String,
    pub priority: i32,
    pub state: GroupState,
    pub paths: Vec<DmPathStatus<P>>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DmPathStatus<P = PathId> {
    pub path: P,
    pub failed: bool,
    /// The selector's per-path status (`ps_info`), empty when it has none.
    pub info: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NvmePath<P = PathId> {
    pub path: P,
    pub live: bool,
    /// optimized, non-optimized or inaccessible.
    pub ana: &'static str,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpdkPath<P = PathId> {
    pub path: P,
    pub ana: &'static str,
    pub connected: bool,
    pub current: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MpioPath<P = PathId> {
    pub path: P,
    /// Active/Optimized, Active/Unoptimized, Standby, Unavailable or Failed.
    pub state: &'static str,
    pub weight: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PowerPathPath<P = PathId> {
    pub path: P,
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
            PolicyStatus::DmMultipath { queue_if_no_path, hwhandler, groups } => {
                render_multipath(*queue_if_no_path, hwhandler, groups, name)
            }
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

impl<P: Copy> PolicyStatus<P> {
    /// The same status with each path shown as `name` gives it (a runtime name for a reader
    /// outside the simulation, which knows no path index).
    pub fn named<Q>(&self, name: &dyn Fn(P) -> Q) -> PolicyStatus<Q> {
        let each = |p: Option<P>| p.map(name);
        match self {
            PolicyStatus::RoundRobin { policy, iops, bytes, use_ano, last_path_index, pending_ios, pending_bytes } => {
                PolicyStatus::RoundRobin {
                    policy,
                    iops: *iops,
                    bytes: *bytes,
                    use_ano: *use_ano,
                    last_path_index: *last_path_index,
                    pending_ios: *pending_ios,
                    pending_bytes: *pending_bytes,
                }
            }
            PolicyStatus::RoundRobinLatency {
                eval_time_ms,
                sampling_cycles,
                current_cycle,
                use_ano,
                current,
                pending_ios,
                latency_us,
            } => PolicyStatus::RoundRobinLatency {
                eval_time_ms: *eval_time_ms,
                sampling_cycles: *sampling_cycles,
                current_cycle: *current_cycle,
                use_ano: *use_ano,
                current: each(*current),
                pending_ios: *pending_ios,
                latency_us: *latency_us,
            },
            PolicyStatus::Fixed { preferred, current } => {
                PolicyStatus::Fixed { preferred: each(*preferred), current: each(*current) }
            }
            PolicyStatus::Mru { current } => PolicyStatus::Mru { current: each(*current) },
            PolicyStatus::Hpp { scheme, settings, current } => PolicyStatus::Hpp {
                scheme,
                settings: *settings,
                current: current.as_ref().map(|c| HppCurrent {
                    path: name(c.path),
                    pending_ios: c.pending_ios,
                    latency_per_kib_ns: c.latency_per_kib_ns,
                }),
            },
            PolicyStatus::GatedLeastLoad { gate_percent, tau_ms, paths } => PolicyStatus::GatedLeastLoad {
                gate_percent: *gate_percent,
                tau_ms: *tau_ms,
                paths: paths
                    .iter()
                    .map(|p| GatedPath {
                        path: name(p.path),
                        group: p.group,
                        estimate_ns: p.estimate_ns,
                        relative: p.relative,
                        outstanding: p.outstanding,
                    })
                    .collect(),
            },
            PolicyStatus::DmMultipath { queue_if_no_path, hwhandler, groups } => PolicyStatus::DmMultipath {
                queue_if_no_path: *queue_if_no_path,
                hwhandler: hwhandler.clone(),
                groups: groups
                    .iter()
                    .map(|g| DmGroupStatus {
                        selector: g.selector.clone(),
                        priority: g.priority,
                        state: g.state,
                        paths: g
                            .paths
                            .iter()
                            .map(|p| DmPathStatus { path: name(p.path), failed: p.failed, info: p.info.clone() })
                            .collect(),
                    })
                    .collect(),
            },
            PolicyStatus::Nvme { iopolicy, paths } => PolicyStatus::Nvme {
                iopolicy,
                paths: paths.iter().map(|p| NvmePath { path: name(p.path), live: p.live, ana: p.ana }).collect(),
            },
            PolicyStatus::Spdk { policy, selector, paths } => PolicyStatus::Spdk {
                policy,
                selector: *selector,
                paths: paths
                    .iter()
                    .map(|p| SpdkPath { path: name(p.path), ana: p.ana, connected: p.connected, current: p.current })
                    .collect(),
            },
            PolicyStatus::Mpio { policy, paths } => PolicyStatus::Mpio {
                policy,
                paths: paths
                    .iter()
                    .map(|p| MpioPath { path: name(p.path), state: p.state, weight: p.weight })
                    .collect(),
            },
            PolicyStatus::PowerPath { policy, paths } => PolicyStatus::PowerPath {
                policy,
                paths: paths
                    .iter()
                    .map(|p| PowerPathPath {
                        path: name(p.path),
                        mode: p.mode,
                        alive: p.alive,
                        queued: p.queued,
                        errors: p.errors,
                    })
                    .collect(),
            },
        }
    }
}

/// The map of a device as `multipath -ll` draws it below its header line.
fn render_multipath(
    queue_if_no_path: bool,
    hwhandler: &str,
    groups: &[DmGroupStatus],
    name: &dyn Fn(PathId) -> String,
) -> String {
    let features = if queue_if_no_path { "1 queue_if_no_path" } else { "0" };
    let mut out = format!("features='{features}' hwhandler='{hwhandler}' wp=rw");
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
