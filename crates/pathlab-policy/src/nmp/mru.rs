//! VMW_PSP_MRU: VMware NMP most recently used path.
//!
//! Algorithm (vSphere Storage guide, "VMware Path Selection Plug-ins"): I/O goes down the first
//! working path discovered and stays on whatever path it uses until that path fails; then it
//! moves to the first usable path in discovery order. No failback: a returning path is not
//! preferred. Under VMW_SATP_ALUA, MRU picks an active-optimized path, uses an
//! active-non-optimized one only when no optimized path works, and moves from a non-optimized
//! path to an optimized one as soon as one appears.
//!
//! Parameters: none.

use crate::params::PolicySpec;
use crate::path_set::path_set_membership;
use crate::registered::{HostStack, Registered};
use crate::status::PolicyStatus;
use crate::{AluaState, HostView, IoDesc, PathDesc, PathId, PathSelector, PathSet, TimeNs};
use serde::{Deserialize, Serialize};

pub(crate) const SPEC: PolicySpec = PolicySpec {
    stack: "VMware ESXi NMP",
    summary: "Most recently used: stay on the current path until it fails; no failback",
    params: &[],
};

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MruConfig {}

#[derive(Clone)]
pub struct VmwPspMru {
    paths: PathSet,
    current: Option<usize>,
}

impl Registered for MruConfig {
    const SPEC: &'static PolicySpec = &SPEC;
    const HOST: HostStack = HostStack::Esxi;

    fn build(&self) -> Box<dyn PathSelector> {
        Box::new(VmwPspMru::new(self.clone()))
    }
}

impl VmwPspMru {
    pub fn new(_config: MruConfig) -> Self {
        VmwPspMru { paths: PathSet::default(), current: None }
    }
}

impl PathSelector for VmwPspMru {
    /// Reads no other device's commands in flight (`HostView::nexus_outstanding`).
    fn reads_host_queues(&self) -> bool {
        false
    }

    fn add_path(&mut self, path: &PathDesc) {
        self.paths.add(path);
    }

    path_set_membership!();

    fn select_path(&mut self, _io: &IoDesc, _now_ns: TimeNs, _host: &dyn HostView) -> Option<PathId> {
        // `usable` already refuses a non-optimized path while an optimized one works, which is
        // what moves MRU from ANO to AO.
        let chosen = match self.current.filter(|&i| self.paths.usable(i, false)) {
            Some(i) => i,
            None => self.paths.next_usable_from(0, false)?,
        };
        self.current = Some(chosen);
        Some(self.paths.id(chosen))
    }

    fn status(&self) -> PolicyStatus {
        PolicyStatus::Mru { current: self.current.map(|i| self.paths.id(i)) }
    }

    fn working_paths(&self) -> Vec<PathId> {
        self.current.map(|i| self.paths.id(i)).into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{add_paths, run_sequence};

    #[test]
    fn stays_on_the_new_path_after_the_old_one_returns() {
        let mut p = VmwPspMru::new(MruConfig {});
        add_paths(&mut p, 3, |_| AluaState::ActiveOptimized);
        assert_eq!(run_sequence(&mut p, &[4096; 2]), [0, 0]);
        p.fail_path(PathId(0));
        assert_eq!(run_sequence(&mut p, &[4096; 2]), [1, 1]);
        p.reinstate_path(PathId(0));
        assert_eq!(run_sequence(&mut p, &[4096; 3]), [1, 1, 1], "no failback");
    }

    #[test]
    fn moves_from_non_optimized_to_optimized_when_one_appears() {
        let mut p = VmwPspMru::new(MruConfig {});
        add_paths(&mut p, 2, |i| if i == 0 { AluaState::ActiveOptimized } else { AluaState::ActiveNonOptimized });
        p.fail_path(PathId(0));
        assert_eq!(run_sequence(&mut p, &[4096; 2]), [1, 1]);
        p.reinstate_path(PathId(0));
        assert_eq!(run_sequence(&mut p, &[4096; 1]), [0]);
    }
}
