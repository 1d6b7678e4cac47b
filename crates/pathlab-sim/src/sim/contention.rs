//! The extent ownership protocol of active-active replication: a write takes its extent at its
//! own array, or waits while ownership is asked for and granted across the link. The per-extent
//! state is `model::contention`.

use super::{Event, ExtentHold, Simulation};

impl Simulation {
    pub(super) fn extent_key(&self, io: u32, group: u32) -> (u32, u64) {
        let r = self.ios.get(io);
        let c = self.model.replications[group as usize].contention.as_ref().expect("acquire needs contention");
        c.key(r.device, r.attrs.offset)
    }

    /// Takes the written extent at `side`, or queues for it; true when the write may go on.
    pub(super) fn acquire(&mut self, io: u32, group: u32, side: u8) -> bool {
        let key = self.extent_key(io, group);
        let one_way = self.model.replications[group as usize].one_way_ns;
        let c = self.model.replications[group as usize].contention.as_mut().expect("contention");
        let e = c.extents.entry(key).or_default();
        if e.owner == side && e.moving_to.is_none() {
            e.holders += 1;
            self.ios.get_mut(io).extent = ExtentHold::Holding { group, side };
            return true;
        }
        e.waiters[usize::from(side)].push_back(io);
        self.ios.get_mut(io).extent = ExtentHold::Waiting { group, side };
        if e.moving_to.is_none() && e.owner != side {
            e.moving_to = Some(side);
            let event = Event::ExtentRequest { group, device: key.0, extent: key.1 };
            self.events.after(one_way, event);
        }
        false
    }

    /// A write that held its extent is done with it (or was abandoned).
    pub(super) fn release_extent(&mut self, io: u32) {
        let hold = std::mem::replace(&mut self.ios.get_mut(io).extent, ExtentHold::None);
        let (group, waiting_side) = match hold {
            ExtentHold::None => return,
            ExtentHold::Holding { group, .. } => (group, None),
            ExtentHold::Waiting { group, side } => (group, Some(side)),
        };
        let key = self.extent_key(io, group);
        let c = self.model.replications[group as usize].contention.as_mut().expect("contention");
        let e = c.extents.get_mut(&key).expect("held extent exists");
        match waiting_side {
            Some(side) => e.waiters[usize::from(side)].retain(|&w| w != io),
            None => {
                e.holders -= 1;
                if e.holders == 0 && e.request_arrived {
                    self.send_grant(group, key);
                }
            }
        }
    }

    pub(super) fn send_grant(&mut self, group: u32, key: (u32, u64)) {
        let rep = &mut self.model.replications[group as usize];
        let delay = rep.one_way_ns + rep.contention.as_ref().expect("contention").grant_ns;
        let e = rep.contention.as_mut().expect("contention").extents.get_mut(&key).expect("extent");
        e.request_arrived = false;
        self.events.after(delay, Event::ExtentGrant { group, device: key.0, extent: key.1 });
    }

    pub(super) fn extent_request(&mut self, group: u32, key: (u32, u64)) {
        let c = self.model.replications[group as usize].contention.as_mut().expect("contention");
        let e = c.extents.get_mut(&key).expect("requested extent exists");
        if e.holders == 0 {
            self.send_grant(group, key);
        } else {
            e.request_arrived = true;
        }
    }

    /// Ownership arrives: every write waiting on this side goes on; if the other side is now
    /// waiting, ownership is asked back at once.
    pub(super) fn extent_grant(&mut self, group: u32, key: (u32, u64)) {
        let one_way = self.model.replications[group as usize].one_way_ns;
        let c = self.model.replications[group as usize].contention.as_mut().expect("contention");
        let e = c.extents.get_mut(&key).expect("granted extent exists");
        let side = e.moving_to.take().expect("a grant answers a request");
        e.owner = side;
        c.transfers[usize::from(side)] += 1;
        let e = c.extents.get_mut(&key).expect("extent");
        let released: Vec<u32> = e.waiters[usize::from(side)].drain(..).collect();
        e.holders += released.len() as u32;
        if !e.waiters[usize::from(1 - side)].is_empty() {
            e.moving_to = Some(1 - side);
            self.events.after(one_way, Event::ExtentRequest { group, device: key.0, extent: key.1 });
        }
        for io in released {
            self.ios.get_mut(io).extent = ExtentHold::Holding { group, side };
            let attempt = self.ios.get(io).attempt;
            self.advance(io, attempt);
        }
    }
}
