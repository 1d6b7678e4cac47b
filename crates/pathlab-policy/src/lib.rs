//! Path selection policies of the real multipath stacks, as pure state machines.
//!
//! The interface follows the Linux device-mapper path selector
//! (`drivers/md/dm-path-selector.h`): whoever drives the policy (the simulator, or any other
//! harness) owns path health, timing, retries and every counter; a policy keeps only its own
//! bookkeeping. One policy instance serves one device (LUN), as in ESXi NMP where
//! `lastPathIndex` is per device.
//!
//! Adding a policy is one new file and one arm of [`PolicyConfig`].

mod params;
mod path_set;
mod vmw_psp_fixed;
mod vmw_psp_mru;
mod vmw_psp_rr;

use serde::Deserialize;

pub use params::{check_range, ParamSpec, PolicyError, PolicySpec};
pub use path_set::PathSet;
pub use vmw_psp_fixed::{FixedConfig, VmwPspFixed};
pub use vmw_psp_mru::{MruConfig, VmwPspMru};
pub use vmw_psp_rr::{RoundRobinConfig, RrType, VmwPspRr};

/// Simulated time: an integer count of nanoseconds.
pub type TimeNs = u64;

/// Index of a path in the harness's path table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
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
}

/// What a policy may know of an I/O when it chooses a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoDesc {
    pub bytes: u64,
    pub is_write: bool,
}

/// A path selection policy for one device.
pub trait PathSelector: Send {
    /// Makes a path known to the policy, usable from now on.
    fn add_path(&mut self, path: &PathDesc);
    /// The path stopped working (I/O error, link down, checker).
    fn fail_path(&mut self, path: PathId);
    /// The path works again.
    fn reinstate_path(&mut self, path: PathId);
    /// The array reported a new ALUA state for the path's target port group.
    fn set_alua_state(&mut self, path: PathId, state: AluaState);
    /// The path for the next I/O; `None` when no path is usable.
    fn select_path(&mut self, io: &IoDesc, now_ns: TimeNs) -> Option<PathId>;
    /// The I/O was issued on `path` (called right after `select_path`).
    fn start_io(&mut self, _path: PathId, _io: &IoDesc, _now_ns: TimeNs) {}
    /// The I/O issued on `path` finished after `latency_ns` (also called on error).
    fn end_io(&mut self, _path: PathId, _io: &IoDesc, _latency_ns: TimeNs, _now_ns: TimeNs) {}
    /// The device config as the stack prints it (e.g. ESXi's `Path Selection Policy Device
    /// Config`); `name` turns a path id into its runtime name.
    fn status(&self, name: &dyn Fn(PathId) -> String) -> String;
    /// The paths the policy would use now (ESXi's `Working Paths`), in path order.
    fn working_paths(&self) -> Vec<PathId>;
}

/// Every built-in policy with its parameters, as written in a scenario file:
/// `policy = { name = "VMW_PSP_RR", type = "iops", iops = 1 }`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(tag = "name")]
pub enum PolicyConfig {
    #[serde(rename = "VMW_PSP_RR")]
    VmwRoundRobin(RoundRobinConfig),
    #[serde(rename = "VMW_PSP_FIXED")]
    VmwFixed(FixedConfig),
    #[serde(rename = "VMW_PSP_MRU")]
    VmwMru(MruConfig),
}

impl Default for PolicyConfig {
    fn default() -> Self {
        PolicyConfig::VmwRoundRobin(RoundRobinConfig::default())
    }
}

impl PolicyConfig {
    /// Checks every parameter against the range the real stack accepts.
    pub fn validate(&self) -> Result<(), PolicyError> {
        match self {
            PolicyConfig::VmwRoundRobin(c) => c.validate(),
            PolicyConfig::VmwFixed(_) | PolicyConfig::VmwMru(_) => Ok(()),
        }
    }

    /// A fresh policy instance for one device.
    pub fn build(&self) -> Result<Box<dyn PathSelector>, PolicyError> {
        self.validate()?;
        Ok(match self {
            PolicyConfig::VmwRoundRobin(c) => Box::new(VmwPspRr::new(c.clone())),
            PolicyConfig::VmwFixed(c) => Box::new(VmwPspFixed::new(c.clone())),
            PolicyConfig::VmwMru(c) => Box::new(VmwPspMru::new(c.clone())),
        })
    }

    /// The policy's name as the stack spells it.
    pub fn name(&self) -> &'static str {
        match self {
            PolicyConfig::VmwRoundRobin(_) => vmw_psp_rr::SPEC.name,
            PolicyConfig::VmwFixed(_) => vmw_psp_fixed::SPEC.name,
            PolicyConfig::VmwMru(_) => vmw_psp_mru::SPEC.name,
        }
    }
}

/// The catalogue shown by `pathlab policies`: every policy, its parameters, defaults and ranges.
pub fn catalog() -> Vec<&'static PolicySpec> {
    vec![&vmw_psp_rr::SPEC, &vmw_psp_fixed::SPEC, &vmw_psp_mru::SPEC]
}

#[cfg(test)]
pub(crate) mod test_support {
    use crate::{AluaState, IoDesc, PathDesc, PathId, PathSelector};

    /// Adds `n` paths named `vmhba1:C0:T<i>:L0` with the ALUA state `alua(i)`.
    pub fn add_paths(p: &mut dyn PathSelector, n: u32, alua: impl Fn(u32) -> AluaState) {
        for i in 0..n {
            let name = format!("vmhba1:C0:T{i}:L0");
            p.add_path(&PathDesc {
                id: PathId(i),
                name: &name,
                alua: alua(i),
            });
        }
    }

    /// Issues one I/O of each size in turn (each completing before the next) and returns the
    /// path index each one took.
    pub fn run_sequence(p: &mut dyn PathSelector, sizes: &[u64]) -> Vec<u32> {
        sizes
            .iter()
            .map(|&bytes| {
                let io = IoDesc {
                    bytes,
                    is_write: false,
                };
                let path = p.select_path(&io, 0).expect("a usable path");
                p.start_io(path, &io, 0);
                p.end_io(path, &io, 1000, 0);
                path.0
            })
            .collect()
    }
}
