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
            if let TransitionRule::Requeue { timeout_ns, .. } = rule {
                let at = self.events.now() + timeout_ns;
                if at < self.measure_end() {
                    let change = self.ana[p].changes;
                    self.events.at(at, Event::Anatt { path: p as u32, change });
                }
            }
            return;
        }
        if rule == TransitionRule::Held && self.model.paths[p].connected {
            // What the path held is sent again, to a group that answers now.
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

    /// A command sent down a transitioning path reaches the port and comes back NOT READY
    /// (04h/0Ah): Linux sends it down the path again after the reprep delay; ESXi holds it on the
    /// path until the transition ends (`alua_transition` sends it again then). The hold is not
    /// the path's `blocked`, a lost link's hold: the two come and go apart (a link that drops
    /// and comes back during the transition ends its own hold, not this one).
    pub(super) fn refused_transitioning(&mut self, io: u32, attempt: u32, one_way_ns: TimeNs, p: usize) {
        if let TransitionRule::Requeue { delay_ns, .. } = self.transition_rule(p) {
            self.events.after(2 * one_way_ns + delay_ns, Event::Resend { io, attempt });
        }
    }
}
