//! Array-side balancing: an array (an NVMe-oF gateway group) that moves LUN ownership between
//! its controllers by itself, as Ceph NVMe-oF gateways move namespaces between load-balancing
//! (ANA) groups.
//!
//! The rule follows ceph/ceph-nvmeof `control/rebalance.py` (`auto_rebalance_task`,
//! `rebalance_logic`, `find_min_loaded_group_in_subsys`): every `rebalance_period_sec` (default
//! 7) a pass makes up to `max_ns_to_change_lb_grp` (default 8) single moves; each takes one
//! namespace of the most loaded group to the least loaded one when the move leaves the first no
//! lower than the second (`(mine - 1) >= (min + 1)`, a difference of two or more), and the pass
//! ends early when no move qualifies. A group's load is the number of namespaces it holds
//! (`ana_grp_ns_load`), not their I/O. Simplifications, each a reading of that file: every
//! device of the array is one subsystem (Ceph balances per subsystem); ties go to the first
//! controller in the array's order, and the namespace moved is the first the group holds in
//! scenario order (Ceph takes the first its table lists); the move is one change (Ceph's 10 ms
//! pause between moves, the monitor's choice of which gateway runs the pass and scale-down
//! passes are not modelled).

use super::Model;
use crate::engine::TimeNs;

/// `[arrays.balance]` of one array, checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Balance {
    pub period_ns: TimeNs,
    pub max_moves: u32,
}

/// One namespace changing owner on an array: `device` goes to controller `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    pub device: usize,
    pub to: usize,
}

impl Model {
    /// The devices each controller of `array` owns, by the array's controller order.
    fn owned(&self, array: usize) -> Vec<Vec<usize>> {
        let controllers = &self.arrays[array].controllers;
        let mut owned = vec![Vec::new(); controllers.len()];
        for (d, device) in self.devices.iter().enumerate() {
            if let Some(&(_, owner)) = device.owners.iter().find(|o| o.0 == array) {
                let slot = controllers.iter().position(|&c| c == owner).expect("owner on its array");
                owned[slot].push(d);
            }
        }
        owned
    }

    /// The next move the balancer of `array` makes, if any qualifies.
    pub fn next_balance_move(&self, array: usize) -> Option<Move> {
        let owned = self.owned(array);
        let (most, least) = (0..owned.len()).fold((0, 0), |(most, least), c| {
            let more = owned[c].len() > owned[most].len();
            let less = owned[c].len() < owned[least].len();
            (if more { c } else { most }, if less { c } else { least })
        });
        (owned[most].len() >= owned[least].len() + 2).then(|| {
            let controllers = &self.arrays[array].controllers;
            Move { device: owned[most][0], to: controllers[least] }
        })
    }
}
