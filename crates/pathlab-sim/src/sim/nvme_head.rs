//! NVMe: how long a namespace's I/O with no usable path waits (`model::nvme_wait` has the
//! rules and their sources). It waits while any of the namespace's controllers may still serve
//! it: one the host uses (live, whatever its ANA state: an ANA group in the change or
//! inaccessible state keeps I/O waiting), or one it lost that is reconnecting and has not run
//! out its `fast_io_fail_tmo` or `ctrl_loss_tmo` (SPDK: nor ANATT in the change state). The
//! wait ends when the last of them stops counting, so it is counted from the controllers' own
//! failures, not from when the device first had no path.

use super::{Event, Simulation};
use crate::engine::TimeNs;
use crate::model::nvme_wait::ControllerWait;
use crate::model::Outage;

impl Simulation {
    /// When the waiting I/O of device `d` fails: `None` while a controller may serve it for
    /// ever (one the host uses, or one reconnecting without end).
    pub(super) fn controllers_give_up_at(&self, d: usize, wait: ControllerWait) -> Option<TimeNs> {
        let mut last = self.events.now();
        for &p in &self.model.devices[d].paths {
            let path = &self.model.paths[p];
            let ends = match self.ana[p].given_up_at {
                Some(t) => t,
                None if path.up => return None,
                None => path.failed_at_ns.saturating_add(wait.after_failure_ns?),
            };
            last = last.max(ends);
        }
        Some(last)
    }

    /// A controller of device `d` was failed, came back or was given up: a device waiting for
    /// a path counts its wait again (its old give-up timer no longer holds), and one that had
    /// given up waits again while a controller may serve it (`nvme_available_path` is asked
    /// again for every bio).
    pub(super) fn controllers_changed(&mut self, d: usize) {
        let Some(wait) = self.model.devices[d].stack.controllers else {
            return;
        };
        let give_up_at = self.controllers_give_up_at(d, wait);
        match self.model.devices[d].outage {
            Outage::None => return,
            Outage::GivenUp if give_up_at.is_some_and(|t| t <= self.events.now()) => return,
            Outage::Waiting { .. } | Outage::GivenUp => {}
        }
        self.outages += 1;
        let episode = self.outages;
        self.model.devices[d].outage = Outage::Waiting { episode };
        if let Some(at) = give_up_at {
            self.events.at(at, Event::GiveUp { device: d as u32, episode });
        }
    }
}
