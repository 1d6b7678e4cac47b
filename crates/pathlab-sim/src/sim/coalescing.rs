//! An adapter's interrupt coalescing, as QLogic's ZIO does it (`model::Coalescing`; sources in
//! docs/design/2026-11-29-hba-interrupt-coalescing.md): the firmware holds completions in its
//! response queue and raises one interrupt per delay, or at once while fewer than its threshold
//! of commands are in flight; the driver reads the whole queue at every interrupt and whenever it
//! starts a command. A completion the host sees is an `Event::Complete` at that moment.

use super::{Event, Simulation};

impl Simulation {
    /// The status of `io` reached its adapter.
    pub(super) fn at_adapter(&mut self, io: u32, attempt: u32) {
        let a = self.model.paths[self.ios.get(io).path as usize].adapter();
        let adapter = &mut self.model.adapters[a];
        let in_flight = adapter.active.value();
        let c = adapter.coalescing.as_mut().expect("AtAdapter comes only from an adapter that coalesces");
        let at_once = c.threshold.is_some_and(|t| in_flight < u64::from(t));
        if at_once && c.held.is_empty() {
            return self.complete::<false>(io);
        }
        c.held.push((io, attempt));
        if at_once {
            return self.deliver_held(a);
        }
        if c.held.len() == 1 {
            let due = self.events.now().saturating_add(c.delay_ns);
            self.events.at(due, Event::InterruptDue { adapter: a as u32, hold: c.hold });
        }
    }

    /// The delay started by the first completion of hold `hold` is over.
    pub(super) fn interrupt_due(&mut self, adapter: usize, hold: u32) {
        let c = self.model.adapters[adapter]
            .coalescing
            .as_ref()
            .expect("InterruptDue comes only from an adapter that coalesces");
        if c.hold == hold {
            self.deliver_held(adapter);
        }
    }

    /// Every held completion reaches the host now; a delay still running belongs to a past hold.
    /// (Also when the driver starts a command on the adapter: it reads the response queue as it
    /// does so, `send_on`.)
    pub(super) fn deliver_held(&mut self, adapter: usize) {
        let now = self.events.now();
        let c = self.model.adapters[adapter].coalescing.as_mut().expect("only an adapter that coalesces holds");
        c.hold = c.hold.wrapping_add(1);
        for (io, attempt) in c.held.drain(..) {
            self.events.at(now, Event::Complete { io, attempt });
        }
    }
}
