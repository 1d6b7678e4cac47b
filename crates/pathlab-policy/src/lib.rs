//! Path selection policies of the real multipath stacks, as pure state machines.
//!
//! The interface follows the Linux device-mapper path selector
//! (`drivers/md/dm-path-selector.h`): whoever drives the policy (the simulator, or any other
//! harness) owns path health, timing, retries and every counter; a policy keeps only its own
//! bookkeeping. One policy instance serves one device (LUN), as in ESXi NMP where
//! `lastPathIndex` is per device.
//!
//! Adding a policy is one new file and one line of the registration list (`registry.rs`).

mod dm;
mod gated_least_load;
mod hpp;
mod latency_sampler;
mod mpio;
mod nmp;
mod nvme;
mod nvme_latency;
mod params;
mod path_set;
mod positions;
mod powerpath;
mod registered;
mod registry;
mod rnbd;
mod selector;
mod spdk;
mod status;

use serde::Deserialize;

pub use dm::map_table::{Prioritizer, HARDWARE_HANDLERS, SIMULATED_PRIORITIZERS};
pub use dm::multipath::{
    DmMultipath, DmMultipathConfig, DmSelectorKind, Failback, MarginalPathgroups, NoPathRetry, PathGrouping,
};
pub use dm::shaky_paths::{ShakyCheck, ShakyPath, Verdict};
pub use gated_least_load::{GatedLeastLoad, GatedLeastLoadConfig};
pub use hpp::{HppConfig, HppScheme};
pub use mpio::{MpioConfig, MpioPolicy, MsdsmMpio};
pub use nmp::fixed::{FixedConfig, VmwPspFixed};
pub use nmp::mru::{MruConfig, VmwPspMru};
pub use nmp::round_robin::{RoundRobinConfig, RrType, VmwPspRr};
pub use nvme::{NvmeConfig, NvmeIoPolicy, NvmeMultipath};
pub use nvme_latency::{KeyedBy, LatencyDesign, NvmeLatency, NvmeLatencyConfig, SizeBuckets};
pub use params::{check_range, ParamSpec, PolicyError, PolicySpec};
pub use path_set::{flat_group, PathSet};
pub use powerpath::{Autostandby, PowerPath, PowerPathConfig, PowerPathPolicy};
pub use registered::{HostStack, Registered};
pub use registry::{catalog, CatalogEntry, PolicyConfig};
pub use rnbd::{Rnbd, RnbdConfig, RnbdPolicy};
pub use selector::Selector;
pub use spdk::{SpdkBdevNvme, SpdkConfig, SpdkPolicy, SpdkSelector};
pub use status::PolicyStatus;

/// Simulated time: an integer count of nanoseconds.
pub type TimeNs = u64;

/// Index of a path in the harness's path table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct PathId(pub u32);

/// Asymmetric access state of the target port group a path leads to (SPC-4 ALUA).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AluaState {
    ActiveOptimized,
    ActiveNonOptimized,
    Standby,
    Unavailable,
}

impl AluaState {
    /// ESXi's short form, as in `{TPG_id=1,TPG_state=AO}`.
    pub fn short_name(self) -> &'static str {
        match self {
            AluaState::ActiveOptimized => "AO",
            AluaState::ActiveNonOptimized => "ANO",
            AluaState::Standby => "STBY",
            AluaState::Unavailable => "UNAV",
        }
    }
}

/// A path as the policy learns of it when it is added.
#[derive(Clone, Copy, Debug)]
pub struct PathDesc<'a> {
    pub id: PathId,
    /// Runtime name, e.g. `vmhba1:C0:T3:L17` (used to resolve a configured preferred path).
    pub name: &'a str,
    pub alua: AluaState,
    /// The ALUA "preferred" bit of the path's target port group (dm's alua prioritizer adds 80).
    pub preferred: bool,
    /// Target port group id (ALUA TPG, NVMe ANA group).
    pub target_port_group: u32,
    /// The I_T nexus (adapter and target port; an NVMe controller), shared with the same
    /// adapter-port pair of every other device: counters "per path across LUNs" (Windows LQD)
    /// and "per controller across namespaces" (NVMe queue-depth) are kept per nexus.
    pub nexus: u32,
    /// NUMA node of the host adapter (NVMe `numa` iopolicy, dm io-affinity).
    pub numa_node: u32,
}

impl<'a> PathDesc<'a> {
    /// A plain active-optimized path on nexus `id`, node 0: for tests and simple harnesses.
    pub fn simple(id: PathId, name: &'a str, alua: AluaState) -> Self {
        PathDesc { id, name, alua, preferred: false, target_port_group: 0, nexus: id.0, numa_node: 0 }
    }
}

/// What a policy may know of an I/O when it chooses a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoDesc {
    pub bytes: u64,
    pub is_write: bool,
    /// Host CPU that submits it (dm io-affinity, NVMe per-node and SPDK per-thread state).
    pub cpu: u32,
}

/// How an I/O issued on a path ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoDone {
    pub now_ns: TimeNs,
    /// From issue on the path to completion or error.
    pub latency_ns: TimeNs,
    /// The path returned an error (the harness will retry the I/O elsewhere or fail it).
    pub failed: bool,
}

/// What the harness knows of the host beyond one device. Policies that only look at their own
/// device ignore it.
pub trait HostView {
    /// Commands in flight on an I_T nexus across every device of the host: sent to the driver
    /// and not completed (what waits above the driver is not counted).
    fn nexus_outstanding(&self, nexus: u32) -> u32;
    /// NUMA node of a host CPU.
    fn cpu_node(&self, cpu: u32) -> u32;
    /// Linux `node_distance`: 10 within a node, larger across.
    fn node_distance(&self, from: u32, to: u32) -> u32;
}

/// A host with no other load and one NUMA node: for tests and single-device harnesses.
pub struct IdleHost;

impl HostView for IdleHost {
    fn nexus_outstanding(&self, _nexus: u32) -> u32 {
        0
    }
    fn cpu_node(&self, _cpu: u32) -> u32 {
        0
    }
    fn node_distance(&self, from: u32, to: u32) -> u32 {
        if from == to {
            10
        } else {
            20
        }
    }
}

/// What the stack does with an I/O when no path is usable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoPathAction {
    /// Hold the I/O and try again when a path comes back, or after `retry_ns`; give up and fail
    /// it once it has waited `give_up_after_ns` (None: wait for ever).
    Queue { retry_ns: Option<TimeNs>, give_up_after_ns: Option<TimeNs> },
    /// Fail the I/O at once.
    Fail,
}

/// State of a priority group, as `multipath -ll` prints it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupState {
    Active,
    Enabled,
    Disabled,
}

/// A group of paths the policy treats alike (dm priority group; one group for flat policies).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathGroup {
    pub priority: i32,
    pub state: GroupState,
    /// The selector as `multipath -ll` prints it (`service-time 0`), empty when not dm.
    pub selector: String,
    pub paths: Vec<PathId>,
}

/// A path selection policy for one device. Every policy is `Clone` (`dyn_clone::DynClone`): a model
/// built once is copied for each seed's run, the copy the same as a second build.
pub trait PathSelector: Send + dyn_clone::DynClone {
    /// Makes a path known to the policy, usable from now on.
    fn add_path(&mut self, path: &PathDesc);
    /// The path stopped working (I/O error, link down, checker).
    fn fail_path(&mut self, path: PathId);
    /// The path works again.
    fn reinstate_path(&mut self, path: PathId);
    /// The array reported a new ALUA state for the path's target port group.
    fn set_alua_state(&mut self, path: PathId, state: AluaState);
    /// The fabric marked the path marginal (a Fibre Channel FPIN link-integrity notification),
    /// or no longer. Stacks that do not act on FPIN keep this default and ignore it.
    fn set_marginal(&mut self, _path: PathId, _marginal: bool) {}
    /// The stack has claimed the device, named `device`, with every path added so far. ESXi's
    /// round robin starts on a path that depends on the device (`nmp/round_robin.rs`); policies
    /// that start where their path order does keep this default.
    fn claimed(&mut self, _device: &str) {}
    /// The path for the next I/O; `None` when no path is usable.
    fn select_path(&mut self, io: &IoDesc, now_ns: TimeNs, host: &dyn HostView) -> Option<PathId>;
    /// The I/O was issued on `path` (called right after `select_path`).
    fn start_io(&mut self, _path: PathId, _io: &IoDesc, _now_ns: TimeNs) {}
    /// The I/O issued on `path` ended, well or with an error.
    fn end_io(&mut self, _path: PathId, _io: &IoDesc, _done: &IoDone) {}
    /// Reads one word of each line of the policy's own that the next `end_io` and `select_path`
    /// will read, and returns their wrapping sum (for the caller to hand to
    /// `std::hint::black_box` once with its own): a harness with many devices starts their cache
    /// misses together, ahead of the completion that needs them. Changes nothing; policies
    /// whose per-I/O state is a line or two keep this default, which reads nothing.
    fn preload(&self) -> u64 {
        0
    }
    /// Whether `select_path` reads the host's commands in flight per I_T nexus
    /// (`HostView::nexus_outstanding`, other devices' included): the engine keeps those counts,
    /// and a test per I/O for them, only on a host where some device's policy does. True unless
    /// the policy says otherwise: one that never reads them keeps the same choices whatever
    /// they are (`registry`'s test checks it for every policy that says false).
    fn reads_host_queues(&self) -> bool {
        true
    }
    /// What to do with I/O while no path is usable. Default: hold it until a path returns.
    fn no_path_action(&self) -> NoPathAction {
        NoPathAction::Queue { retry_ns: None, give_up_after_ns: None }
    }
    /// The policy's path groups; flat policies have one, holding every path.
    fn path_groups(&self) -> Vec<PathGroup>;
    /// The policy's state as typed data; `PolicyStatus::render` prints it as the stack does
    /// (e.g. ESXi's `Path Selection Policy Device Config`).
    fn status(&self) -> PolicyStatus;
    /// The paths the policy would use now (ESXi's `Working Paths`), in path order.
    fn working_paths(&self) -> Vec<PathId>;
}

// A `Box<dyn PathSelector>` is `Clone` (each policy is: `DynClone`).
dyn_clone::clone_trait_object!(PathSelector);

#[cfg(test)]
pub(crate) mod test_support {
    use crate::{AluaState, HostView, IdleHost, IoDesc, IoDone, PathDesc, PathId, PathSelector, TimeNs};

    /// A host whose per-nexus load, CPU placement and node distances a test sets.
    #[derive(Default)]
    pub struct TestHost {
        /// Commands in flight per nexus (by index), other devices' included; missing: 0.
        pub nexus_load: Vec<u32>,
        /// NUMA node of each CPU (by index); missing: node 0.
        pub cpu_nodes: Vec<u32>,
        /// `distances[from][to]`; empty: 10 within a node, 20 across.
        pub distances: Vec<Vec<u32>>,
    }

    impl HostView for TestHost {
        fn nexus_outstanding(&self, nexus: u32) -> u32 {
            self.nexus_load.get(nexus as usize).copied().unwrap_or(0)
        }
        fn cpu_node(&self, cpu: u32) -> u32 {
            self.cpu_nodes.get(cpu as usize).copied().unwrap_or(0)
        }
        fn node_distance(&self, from: u32, to: u32) -> u32 {
            match self.distances.get(from as usize) {
                Some(row) => row[to as usize],
                None => IdleHost.node_distance(from, to),
            }
        }
    }

    /// Adds `n` paths named like [`add_paths`], active-optimized on nexus `i` and node 0 until
    /// `describe(i, &mut desc)` says otherwise.
    pub fn add_paths_with(p: &mut dyn PathSelector, n: u32, describe: impl Fn(u32, &mut PathDesc)) {
        for i in 0..n {
            let name = format!("vmhba1:C0:T{i}:L0");
            let mut desc = PathDesc::simple(PathId(i), &name, AluaState::ActiveOptimized);
            describe(i, &mut desc);
            p.add_path(&desc);
        }
    }

    pub fn io(bytes: u64, cpu: u32) -> IoDesc {
        IoDesc { bytes, is_write: false, cpu }
    }

    /// Selects a path for one I/O and starts it there, leaving it outstanding.
    pub fn issue(p: &mut dyn PathSelector, host: &dyn HostView, io: &IoDesc, now_ns: TimeNs) -> u32 {
        let path = p.select_path(io, now_ns, host).expect("a usable path");
        p.start_io(path, io, now_ns);
        path.0
    }

    /// Ends an I/O that started on `path` at `start_ns`, at `end_ns`.
    pub fn complete(p: &mut dyn PathSelector, path: u32, io: &IoDesc, start_ns: TimeNs, end_ns: TimeNs) {
        let done = IoDone { now_ns: end_ns, latency_ns: end_ns - start_ns, failed: false };
        p.end_io(PathId(path), io, &done);
    }

    /// Issues one 4 KiB I/O from each CPU in turn on `host`, each completing before the next,
    /// and returns the path index each one took.
    pub fn run_on_cpus(p: &mut dyn PathSelector, host: &dyn HostView, cpus: &[u32]) -> Vec<u32> {
        cpus.iter()
            .map(|&cpu| {
                let io = io(4096, cpu);
                let path = issue(p, host, &io, 0);
                complete(p, path, &io, 0, 1000);
                path
            })
            .collect()
    }

    /// Adds `n` paths named `vmhba1:C0:T<i>:L0` with the ALUA state `alua(i)`.
    pub fn add_paths(p: &mut dyn PathSelector, n: u32, alua: impl Fn(u32) -> AluaState) {
        for i in 0..n {
            let name = format!("vmhba1:C0:T{i}:L0");
            p.add_path(&PathDesc::simple(PathId(i), &name, alua(i)));
        }
    }

    /// Issues one I/O of each size in turn (each completing before the next) and returns the
    /// path index each one took.
    pub fn run_sequence(p: &mut dyn PathSelector, sizes: &[u64]) -> Vec<u32> {
        sizes
            .iter()
            .map(|&bytes| {
                let io = IoDesc { bytes, is_write: false, cpu: 0 };
                let path = p.select_path(&io, 0, &IdleHost).expect("a usable path");
                p.start_io(path, &io, 0);
                p.end_io(path, &io, &IoDone { now_ns: 0, latency_ns: 1000, failed: false });
                path.0
            })
            .collect()
    }
}
