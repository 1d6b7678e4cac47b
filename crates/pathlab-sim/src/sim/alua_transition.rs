//! SCSI ALUA's Transitioning state as the host handles it (`model::alua_transition` has the
//! rules and their sources): the path stays in use. Linux's dm-multipath sends a refused command
//! down the path again a second after the refusal comes back, and fails the path once the
//! transition outlasts scsi_dh_alua's timeout; ESXi holds it on the path until the transition
//! ends. Commands already past the port when the transition begins complete there.

use super::failure::Seen;
use super::{Event, Simulation};
use crate::engine::TimeNs;
use crate::model::alua_transition::TransitionRule;

impl Simulation {
    /// The rule of path `p`'s stack (checked when the fault was resolved).
    fn transition_rule(&self, p: usize) -> TransitionRule {
        let path = &self.model.paths[p];
        let implicit = self.model.arrays[self.model.ports[path.port].array].implicit_transition_ns;
        TransitionRule::of(&self.model.devices[path.device].policy_config, implicit)
            .expect("checked when the fault was resolved")
    }

    /// Path `p`'s target port group begins (`on`) or ends its transition.
    pub(super) fn alua_transition(&mut self, p: usize, on: bool) {
        if self.model.paths[p].transitioning == on {
            return;
        }
        self.model.paths[p].transitioning = on;
        self.ana[p].changes += 1;
        self.note_path(p, Seen::AnaChange(on));
        let d = self.model.paths[p].device;
        let rule = self.transition_rule(p);
        if on {
            match rule {
                TransitionRule::Held => self.model.paths[p].blocked = true,
                TransitionRule::Requeue { timeout_ns, .. } => {
                    let at = self.events.now() + timeout_ns;
                    if at < self.measure_end() {
                        let change = self.ana[p].changes;
                        self.events.at(at, Event::Anatt { path: p as u32, change });
                    }
                }
            }
            return;
        }
        let path = &self.model.paths[p];
        if rule == TransitionRule::Held && path.blocked && path.connected {
            // What the path held is sent again, to a group that answers now.
            self.model.paths[p].blocked = false;
            self.abort_commands(p);
        }
        if !self.model.paths[p].up && self.model.paths[p].connected {
            self.schedule_reinstate(p, None);
        }
        self.dispatch_device(d);
    }

    /// Linux: the transition outlasted scsi_dh_alua's timeout (`change` tells the transition the
    /// timer was set in): the group is set standby, and the path fails with what it held.
    pub(super) fn transition_timed_out(&mut self, p: usize, change: u32) {
        if !self.model.paths[p].transitioning || self.ana[p].changes != change {
            return;
        }
        self.note_path(p, Seen::TransitionTimedOut);
        self.host_fail_path(p, true);
    }

    /// Linux: a command sent down a transitioning path reaches the port, comes back NOT READY
    /// (04h/0Ah) and goes down the path again after the reprep delay.
    pub(super) fn refused_transitioning(&mut self, io: u32, attempt: u32, one_way_ns: TimeNs, p: usize) {
        let TransitionRule::Requeue { delay_ns, .. } = self.transition_rule(p) else {
            unreachable!("a held path's commands wait on the path")
        };
        self.events.after(2 * one_way_ns + delay_ns, Event::Resend { io, attempt });
    }
}
