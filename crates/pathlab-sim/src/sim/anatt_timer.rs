//! Linux NVMe's ANATT timer, one per controller as the kernel keeps it (`struct nvme_ctrl`'s
//! `anatt_timer`), where SPDK keeps one per namespace (`ana.rs`). A host-controller connection
//! is a nexus here (every namespace's path over one adapter and one array port).
//!
//! torvalds/linux `drivers/nvme/host/multipath.c`:
//! - `nvme_read_ana_log` reads the controller's ANA log (on a change notice, `nvme_ana_work`; when
//!   the controller connects, `nvme_mpath_init_identify`) and counts its groups in the change
//!   state: with any, `mod_timer(&ctrl->anatt_timer, ctrl->anatt * HZ * 2 + jiffies)`, which arms
//!   the timer or pushes an armed one back; with none, `del_timer_sync`. Its comment: "In theory
//!   we should have an ANATT timer per group as they might enter the change state at different
//!   times. But that is a lot of overhead ...".
//! - `nvme_anatt_timeout` resets the controller (`nvme_reset_ctrl`): every command on it is
//!   aborted and retried, whichever namespace's, and the log is read again once it answers.
//! - `nvme_mpath_stop` deletes the timer when the controller is torn down (the host failed it).

use super::failure::Seen;
use super::{Event, Simulation};
use crate::model::nvme_wait::AnattRule;
use crate::model::stack::Stack;

/// One controller connection's timer: armed or not, and a count that tells a current expiry
/// from one a re-arm or a deletion has replaced.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ControllerAnatt {
    armed: bool,
    generation: u32,
    at_ns: u64,
}

/// Every connection's timer, and its Linux NVMe paths (the namespaces of one host-controller
/// connection), both made at the first log read: each read looks at its connection's paths, and
/// a scan of every path for each would cost paths² over a change on a large host.
#[derive(Debug, Default)]
pub(super) struct ControllerTimers {
    timers: Vec<ControllerAnatt>,
    paths: Vec<Vec<usize>>,
}

impl ControllerTimers {
    /// Whether no log has been read yet (no timer can be armed).
    pub(super) fn is_empty(&self) -> bool {
        self.timers.is_empty()
    }
}

impl Simulation {
    /// The timers and each connection's Linux NVMe paths, made at the first log read.
    fn made_timers(&mut self) {
        let (t, m) = (&mut self.anatt_timers, &self.model);
        if t.timers.is_empty() {
            t.timers = vec![ControllerAnatt::default(); m.nexus_fabric.len()];
            t.paths = vec![Vec::new(); m.nexus_fabric.len()];
            for (q, path) in m.paths.iter().enumerate() {
                if m.devices[path.device].stack.stack == Stack::LinuxNvme {
                    t.paths[path.nexus].push(q);
                }
            }
        }
    }

    /// Linux reads the ANA log of path `p`'s controller (only a live controller it reaches
    /// answers): with a group of the controller in the change state the timer is (re)armed 2 ×
    /// ANATT from now, else deleted. One that would run out after the measurement is not armed
    /// (the run only drains then: a change that never ends would re-arm for ever).
    pub(super) fn read_ana_log(&mut self, p: usize) {
        let path = &self.model.paths[p];
        if !(path.up && path.connected) {
            return;
        }
        let (nexus, controller) = (path.nexus, self.model.ports[path.port].controller);
        self.made_timers();
        let changing = self.anatt_timers.paths[nexus].iter().any(|&q| self.model.paths[q].ana_change);
        let now = self.events.now();
        let timer = &mut self.anatt_timers.timers[nexus];
        if !changing {
            if timer.armed {
                timer.armed = false;
                timer.generation += 1;
            }
            return;
        }
        // A fault that passes through the change state is refused without the controller's ANATT.
        let anatt = self.model.controllers[controller].anatt_ns.expect("checked when the fault was resolved");
        let at = now + AnattRule::ResetController.after(anatt);
        if timer.armed && timer.at_ns == at {
            return; // armed by another namespace's path in the same read
        }
        timer.armed = false;
        timer.generation += 1;
        if at < self.measure_end() {
            let timer = &mut self.anatt_timers.timers[nexus];
            (timer.armed, timer.at_ns) = (true, at);
            let generation = timer.generation;
            self.events.at(at, Event::ControllerAnatt { nexus: nexus as u32, generation });
        }
    }

    /// The ANATT timer of nexus `nexus`'s controller runs out: the controller is reset, every
    /// command on it aborted and retried, and, once it answers, its log read again (the timer
    /// armed again while a group is still changing); a controller that is gone is failed and
    /// reconnects as after any loss. Nothing happens where a re-arm or deletion replaced it.
    pub(super) fn controller_anatt_expired(&mut self, nexus: usize, generation: u32) {
        let timer = &mut self.anatt_timers.timers[nexus];
        if !timer.armed || timer.generation != generation {
            return;
        }
        timer.armed = false;
        let paths: Vec<usize> =
            self.anatt_timers.paths[nexus].iter().copied().filter(|&q| self.model.paths[q].up).collect();
        for &q in &paths {
            self.note_path(q, Seen::AnattReset);
            if self.model.paths[q].connected {
                self.abort_commands(q);
            } else {
                self.host_fail_path(q, true);
            }
        }
        // It answers at once and its log is read again: still changing, the timer is set again.
        if let Some(&q) = paths.iter().find(|&&q| self.model.paths[q].connected) {
            self.read_ana_log(q);
        }
    }
}
