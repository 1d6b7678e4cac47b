//! The extent ownership protocol of active-active replication: a write takes its extent at its
//! own array, or waits while ownership is asked for and granted across the link. The per-extent
//! state is `model::contention`.

use super::{Event, ExtentHold, Simulation};

impl Simulation {
    /// The id of the extent the write `io` goes to: of its LUN, whichever host wrote it.
    pub(super) fn extent_of(&mut self, io: u32, group: u32) -> u32 {
        let (device, offset) = (self.ios.get(io).device, self.io_rest[io as usize].offset);
        let c = self.model.replications[group as usize].contention.as_mut().expect("acquire needs contention");
        c.extent_id(device, offset)
    }

    /// Takes the written extent at `side`, or queues for it; true when the write may go on.
    pub(super) fn acquire(&mut self, io: u32, group: u32, side: u8) -> bool {
        let extent = self.extent_of(io, group);
        let one_way = self.model.replications[group as usize].one_way_ns;
        let c = self.model.replications[group as usize].contention.as_mut().expect("contention");
        let e = &mut c.extents[extent as usize];
        if e.owner == side && e.moving_to.is_none() {
            e.holders += 1;
            self.io_rest[io as usize].extent = ExtentHold::Holding { group, side };
            return true;
        }
        e.waiters[usize::from(side)].push_back(io);
        self.io_rest[io as usize].extent = ExtentHold::Waiting { group, side };
        if e.moving_to.is_none() && e.owner != side {
            e.moving_to = Some(side);
            self.events.after(one_way, Event::ExtentRequest { group, extent });
        }
        false
    }

    /// A write that held its extent is done with it (or was abandoned). Inlined: on a model
    /// without extent ownership it is one test per I/O, not a call, and reads nothing of the I/O.
    #[inline(always)]
    pub(super) fn release_extent(&mut self, io: u32) {
        if !self.keeps_offsets {
            return;
        }
        let hold = std::mem::replace(&mut self.io_rest[io as usize].extent, ExtentHold::None);
        if hold != ExtentHold::None {
            self.give_back_extent(io, hold);
        }
    }

    fn give_back_extent(&mut self, io: u32, hold: ExtentHold) {
        let (group, waiting_side) = match hold {
            ExtentHold::None => return,
            ExtentHold::Holding { group, .. } => (group, None),
            ExtentHold::Waiting { group, side } => (group, Some(side)),
        };
        let extent = self.extent_of(io, group);
        let c = self.model.replications[group as usize].contention.as_mut().expect("contention");
        let e = &mut c.extents[extent as usize];
        match waiting_side {
            Some(side) => e.waiters[usize::from(side)].retain(|&w| w != io),
            None => {
                e.holders -= 1;
                if e.holders == 0 && e.request_arrived {
                    self.send_grant(group, extent);
                }
            }
        }
    }

    pub(super) fn send_grant(&mut self, group: u32, extent: u32) {
        let rep = &mut self.model.replications[group as usize];
        let c = rep.contention.as_mut().expect("contention");
        let delay = rep.one_way_ns + c.grant_ns;
        c.extents[extent as usize].request_arrived = false;
        self.events.after(delay, Event::ExtentGrant { group, extent });
    }

    pub(super) fn extent_request(&mut self, group: u32, extent: u32) {
        let c = self.model.replications[group as usize].contention.as_mut().expect("contention");
        let e = &mut c.extents[extent as usize];
        if e.holders == 0 {
            self.send_grant(group, extent);
        } else {
            e.request_arrived = true;
        }
    }

    /// Ownership arrives: every write waiting on this side goes on; if the other side is now
    /// waiting, ownership is asked back at once.
    pub(super) fn extent_grant(&mut self, group: u32, extent: u32) {
        let one_way = self.model.replications[group as usize].one_way_ns;
        let c = self.model.replications[group as usize].contention.as_mut().expect("contention");
        let e = &mut c.extents[extent as usize];
        let side = e.moving_to.take().expect("a grant answers a request");
        e.owner = side;
        c.transfers[usize::from(side)] += 1;
        let e = &mut c.extents[extent as usize];
        let released: Vec<u32> = e.waiters[usize::from(side)].drain(..).collect();
        e.holders += released.len() as u32;
        if !e.waiters[usize::from(1 - side)].is_empty() {
            e.moving_to = Some(1 - side);
            self.events.after(one_way, Event::ExtentRequest { group, extent });
        }
        for io in released {
            self.io_rest[io as usize].extent = ExtentHold::Holding { group, side };
            let attempt = self.ios.get(io).attempt;
            self.advance::<false>(io, attempt);
        }
    }
}
