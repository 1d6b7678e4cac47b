//! An array's own balancing pass (`model::balance` says which namespace moves where): each
//! move is an ownership change, which the hosts see as ALUA/ANA state changes on the paths, as
//! with a controller failover; the log records the move.

use super::failure::Seen;
use super::{Event, Simulation};

impl Simulation {
    /// Up to the array's cap of moves, then the next pass one period later.
    pub(super) fn rebalance(&mut self, array: usize) {
        let Some(balance) = self.model.arrays[array].balance else { return };
        for _ in 0..balance.max_moves {
            let Some(m) = self.model.next_balance_move(array) else { break };
            self.note(m.device, None, Seen::OwnerMoved(m.to));
            self.failover(&[m.device], array, m.to);
        }
        let next = self.events.now() + balance.period_ns;
        if next < self.measure_end() {
            self.events.at(next, Event::Rebalance { array: array as u32 });
        }
    }
}
