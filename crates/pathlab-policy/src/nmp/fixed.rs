//! VMW_PSP_FIXED: VMware NMP fixed path with failback.
//!
//! Algorithm (vSphere Storage guide, "VMware Path Selection Plug-ins", 6.5 and 8.0): all I/O goes
//! down the preferred path while it works. When it fails, I/O moves to an alternative (the first
//! usable path in discovery order, active-optimized before non-optimized) and stays there while
//! it works. When the preferred path returns, I/O fails back to it at once.
//! A preferred path the admin set explicitly stays preferred; when the host chose it by default
//! (the first path discovered) and it dies, the alternative becomes the new preferred path, so
//! there is no failback in that case (6.5 guide).
//!
//! Parameters: `preferred`: runtime name of the preferred path (`vmhba1:C0:T0:L1`); default the
//! first path discovered.

use crate::params::{ParamSpec, PolicySpec};
use crate::path_set::path_set_membership;
use crate::registered::{HostStack, Registered};
use crate::status::PolicyStatus;
use crate::{AluaState, HostView, IoDesc, PathDesc, PathId, PathSelector, PathSet, TimeNs};
use serde::{Deserialize, Serialize};

pub(crate) const SPEC: PolicySpec = PolicySpec {
    stack: "VMware ESXi NMP",
    summary: "Fixed: the preferred path while it works, fail back to it when it returns",
    params: &[ParamSpec {
        name: "preferred",
        unset: Some("first path discovered"),
        range: None,
        choices: &[],
        help: "runtime name of the preferred path, e.g. vmhba1:C0:T0:L1",
    }],
};

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct FixedConfig {
    pub preferred: Option<String>,
}

impl Registered for FixedConfig {
    const SPEC: &'static PolicySpec = &SPEC;
    const HOST: HostStack = HostStack::Esxi;

    fn build(&self) -> Box<dyn PathSelector> {
        Box::new(VmwPspFixed::new(self.clone()))
    }
}

#[derive(Clone)]
pub struct VmwPspFixed {
    config: FixedConfig,
    paths: PathSet,
    preferred: Option<usize>,
    current: Option<usize>,
}

impl VmwPspFixed {
    pub fn new(config: FixedConfig) -> Self {
        VmwPspFixed { config, paths: PathSet::default(), preferred: None, current: None }
    }

    fn usable(&self, index: Option<usize>) -> Option<usize> {
        index.filter(|&i| self.paths.usable(i, false))
    }
}

impl PathSelector for VmwPspFixed {
    /// Reads no other device's commands in flight (`HostView::nexus_outstanding`).
    fn reads_host_queues(&self) -> bool {
        false
    }

    fn add_path(&mut self, path: &PathDesc) {
        self.paths.add(path);
        let index = self.paths.len() - 1;
        let chosen = match &self.config.preferred {
            Some(name) => name == path.name,
            None => self.preferred.is_none(),
        };
        if chosen {
            self.preferred = Some(index);
        }
    }

    path_set_membership!();

    fn select_path(&mut self, _io: &IoDesc, _now_ns: TimeNs, _host: &dyn HostView) -> Option<PathId> {
        let chosen = match self.usable(self.preferred).or(self.usable(self.current)) {
            Some(i) => i,
            None => {
                let alternative = self.paths.next_usable_from(0, false)?;
                if self.config.preferred.is_none() {
                    self.preferred = Some(alternative);
                }
                alternative
            }
        };
        self.current = Some(chosen);
        Some(self.paths.id(chosen))
    }

    fn status(&self) -> PolicyStatus {
        let id = |i: Option<usize>| i.map(|i| self.paths.id(i));
        PolicyStatus::Fixed { preferred: id(self.preferred), current: id(self.current) }
    }

    fn working_paths(&self) -> Vec<PathId> {
        self.current.or(self.preferred).map(|i| self.paths.id(i)).into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{add_paths, run_sequence};

    #[test]
    fn explicit_preferred_path_fails_over_and_back() {
        let mut p = VmwPspFixed::new(FixedConfig { preferred: Some("vmhba1:C0:T2:L0".into()) });
        add_paths(&mut p, 4, |_| AluaState::ActiveOptimized);
        assert_eq!(run_sequence(&mut p, &[4096; 3]), [2, 2, 2]);
        p.fail_path(PathId(2));
        assert_eq!(run_sequence(&mut p, &[4096; 2]), [0, 0]);
        p.fail_path(PathId(0));
        assert_eq!(run_sequence(&mut p, &[4096; 2]), [1, 1]);
        p.reinstate_path(PathId(0));
        assert_eq!(run_sequence(&mut p, &[4096; 1]), [1], "stays on a working alternative");
        p.reinstate_path(PathId(2));
        assert_eq!(run_sequence(&mut p, &[4096; 2]), [2, 2], "fails back to the preferred path");
    }

    #[test]
    fn default_preferred_path_is_replaced_when_it_dies() {
        let mut p = VmwPspFixed::new(FixedConfig::default());
        add_paths(&mut p, 3, |_| AluaState::ActiveOptimized);
        assert_eq!(run_sequence(&mut p, &[4096; 2]), [0, 0]);
        p.fail_path(PathId(0));
        assert_eq!(run_sequence(&mut p, &[4096; 2]), [1, 1]);
        p.reinstate_path(PathId(0));
        assert_eq!(run_sequence(&mut p, &[4096; 2]), [1, 1]);
        assert_eq!(
            p.status().render(&|id| format!("vmhba1:C0:T{}:L0", id.0)),
            "{preferred=vmhba1:C0:T1:L0;current=vmhba1:C0:T1:L0}"
        );
    }
}
