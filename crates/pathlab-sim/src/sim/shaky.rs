//! multipathd's shaky-path checks at work (`pathlab_policy::ShakyPath` holds the rules): a
//! failure is counted when the host fails a path, and a checker tick that finds a failed path
//! good asks whether to put it back. A held path stays failed (`path_delayed` in the log) and is
//! looked at again at every tick, or with `marginal_pathgroups on` goes back in use in the
//! marginal group until the hold ends.

use super::failure::Seen;
use super::{Event, Simulation};
use crate::engine::TimeNs;
use crate::model::stack::Reinstate;
use pathlab_policy::{PathId, ShakyPath, Verdict};

/// One path's checker state for the shaky-path checks.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct PathChecks {
    state: ShakyPath,
    /// The last tick that checked the path: a tick is taken once however many events it has.
    checked_at: Option<TimeNs>,
    /// Held: failed (`PATH_DELAYED`) or in the marginal group.
    held: bool,
}

impl Simulation {
    fn checker_interval(&self, p: usize) -> Option<TimeNs> {
        match self.model.devices[self.model.paths[p].device].stack.reinstate {
            Reinstate::CheckerTick { interval_ns } => Some(interval_ns),
            _ => None,
        }
    }

    /// The host failed path `p`: the checks count it.
    pub(super) fn shaky_failed(&mut self, p: usize) {
        let d = self.model.paths[p].device;
        let (Some(check), Some(interval)) = (self.model.devices[d].stack.shaky, self.checker_interval(p)) else {
            return;
        };
        self.checks[p].state.failed(&check, self.events.now(), interval);
    }

    /// A checker tick finds path `p` connected. True when the shaky-path check dealt with it
    /// (held it, or put it back as marginal, or took it out of the marginal group); false when
    /// the path is simply taken back.
    pub(super) fn shaky_check(&mut self, p: usize) -> bool {
        let now = self.events.now();
        let d = self.model.paths[p].device;
        let rules = self.model.devices[d].stack;
        let (Some(check), Some(interval)) = (rules.shaky, self.checker_interval(p)) else {
            return false;
        };
        if self.checks[p].checked_at == Some(now) {
            return true;
        }
        self.checks[p].checked_at = Some(now);
        let active = self.model.devices[d].paths.iter().filter(|&&q| q != p && self.model.paths[q].up).count();
        // What direct reads down the path would see: its expected error rate.
        let probe_errors = self.model.paths[p].errors().map_or(0.0, |e| {
            let duty = e.burst.map_or(1.0, |(every, length)| length as f64 / every as f64);
            e.error_rate * duty * 1000.0
        });
        let verdict = self.checks[p].state.check(&check, now, active, probe_errors);
        let was_held = std::mem::replace(&mut self.checks[p].held, verdict == Verdict::Hold);
        let to_group = rules.shaky_to_marginal_group;
        match verdict {
            Verdict::Reinstate if was_held && to_group => {
                self.model.devices[d].policy.set_marginal(PathId(p as u32), false);
                self.note_path(p, Seen::NotMarginal);
                self.host_reinstate_path(p);
                self.dispatch_device(d);
                true
            }
            Verdict::Reinstate => false,
            Verdict::Hold => {
                if to_group {
                    if !was_held {
                        self.model.devices[d].policy.set_marginal(PathId(p as u32), true);
                        self.note_path(p, Seen::Marginal);
                    }
                    self.host_reinstate_path(p);
                } else if !was_held {
                    self.note_path(p, Seen::PathDelayed);
                }
                let next = (now / interval + 1) * interval;
                self.events.at(next, Event::Reinstate { path: p as u32 });
                true
            }
        }
    }
}
