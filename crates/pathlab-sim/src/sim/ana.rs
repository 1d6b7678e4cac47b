//! NVMe's ANA change state (`FaultAction::AnaChange`) and its timer, ANATT, as the host
//! handles them (`model::nvme_wait` has the rules and their sources). A path whose group is in
//! the change state is not used (the policy sees it inaccessible); I/O with no other path waits,
//! since its controller is live (`nvme_head.rs`). The host reads the ANA log when the change
//! notice comes (here at once) and arms the ANATT timer: Linux's is the controller's
//! (`anatt_timer.rs`), which resets it after 2 × ANATT; SPDK's is the namespace's, here the
//! path's, which gives the path up after ANATT, so that I/O with no other path fails. Commands
//! already on a path when its group enters the change state complete there.

use super::failure::Seen;
use super::Simulation;
use crate::engine::TimeNs;
use crate::model::nvme_wait::AnattRule;
use pathlab_policy::{HostStack, PathId};

/// A path's ANA changes: how many (tells an ANATT timer of an earlier change from the current
/// one), whether its timer runs, and when SPDK gave the path up in the current one.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct AnaPath {
    /// Also counts a SCSI path's ALUA transitions (`alua_transition.rs`).
    pub(super) changes: u32,
    timer: bool,
    pub(super) given_up_at: Option<TimeNs>,
}

impl Simulation {
    /// The paths' ANA groups enter (`on`) or leave the change state.
    pub(super) fn ana_change(&mut self, paths: &[usize], on: bool) {
        for &p in paths {
            let stack = self.model.devices[self.model.paths[p].device].policy_config.host_stack();
            if !matches!(stack, HostStack::LinuxNvme | HostStack::Spdk) {
                // A SCSI host's target port group: the ALUA Transitioning state.
                self.alua_transition(p, on);
                continue;
            }
            if self.model.paths[p].ana_change == on {
                continue;
            }
            let before = self.model.policy_alua(p);
            self.model.paths[p].ana_change = on;
            self.ana[p].changes += 1;
            self.ana[p].timer = false;
            self.note_path(p, Seen::AnaChange(on));
            let d = self.model.paths[p].device;
            let seen = self.model.policy_alua(p);
            if seen != before {
                self.model.devices[d].policy.set_alua_state(PathId(p as u32), seen);
            }
            if on {
                self.arm_anatt(p);
            } else if self.ana[p].given_up_at.take().is_some() {
                self.controllers_changed(d);
            } else if self.resets_controller(p) {
                // Linux reads the log at the change's end too: its controller's timer is
                // deleted, or pushed back while another of its groups still changes.
                self.read_ana_log(p);
            }
            self.wake_waiting(d);
            self.dispatch_device(d);
        }
    }

    /// Whether path `p`'s host keeps Linux's ANATT timer, one per controller (`anatt_timer.rs`).
    fn resets_controller(&self, p: usize) -> bool {
        let wait = self.model.devices[self.model.paths[p].device].stack.controllers;
        wait.is_some_and(|w| w.anatt == AnattRule::ResetController)
    }

    /// The host read the ANA log of path `p`'s controller with its group changing (only a live
    /// controller it reaches tells it): the ANATT timer starts (Linux's, the controller's, is
    /// set again). One that would run out after the measurement is not armed (the run only
    /// drains then: a change that never ends would re-arm for ever).
    fn arm_anatt(&mut self, p: usize) {
        if self.resets_controller(p) {
            return self.read_ana_log(p);
        }
        let path = &self.model.paths[p];
        let Some(wait) = self.model.devices[path.device].stack.controllers.filter(|_| path.up && path.connected) else {
            return;
        };
        let controller = self.model.ports[path.port].controller;
        // A fault that passes through the change state is refused without the controller's ANATT.
        let anatt = self.model.controllers[controller].anatt_ns.expect("checked when the fault was resolved");
        let at = self.events.now() + wait.anatt.after(anatt);
        if at < self.measure_end() {
            self.ana[p].timer = true;
            self.events.at(at, super::Event::Anatt { path: p as u32, change: self.ana[p].changes });
        }
    }

    /// The controller of path `p` is live again (a reconnect) and reads the ANA log: Linux
    /// sets its controller's timer, or deletes one left from before the loss (`nvme_mpath_stop`
    /// deleted it with the controller); SPDK's belongs to the namespace and runs on, or starts
    /// if none ran.
    pub(super) fn ana_reconnected(&mut self, p: usize) {
        if self.resets_controller(p) && (self.model.paths[p].ana_change || !self.anatt_timers.is_empty()) {
            return self.read_ana_log(p);
        }
        let rule = self.model.devices[self.model.paths[p].device].stack.controllers.map(|w| w.anatt);
        if !self.model.paths[p].ana_change {
            return;
        }
        let a = self.ana[p];
        match rule {
            Some(AnattRule::GiveUpPath) if !a.timer && a.given_up_at.is_none() => {}
            _ => return,
        }
        self.ana[p].changes += 1;
        self.arm_anatt(p);
    }

    /// SPDK's ANATT timer of path `p` runs out (Linux's is the controller's, `anatt_timer.rs`);
    /// nothing happens if the change it was armed in is over.
    pub(super) fn anatt_expired(&mut self, p: usize, change: u32) {
        if self.model.paths[p].transitioning {
            return self.transition_timed_out(p, change);
        }
        let path = &self.model.paths[p];
        if !path.ana_change || self.ana[p].changes != change {
            return;
        }
        let d = path.device;
        let Some(wait) = self.model.devices[d].stack.controllers else {
            return;
        };
        self.ana[p].timer = false;
        match wait.anatt {
            AnattRule::ResetController => {}
            AnattRule::GiveUpPath => {
                self.note_path(p, Seen::AnattExpired);
                self.ana[p].given_up_at = Some(self.events.now());
                self.controllers_changed(d);
            }
        }
    }
}
