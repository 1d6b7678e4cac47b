//! The back end on the engine's clock (`model::backend`): read hits and misses, the write cache
//! and its flushing, and requests on the disks in their phases.
//!
//! Every draw comes from the key of the I/O whose data moves (a destage uses the key of the
//! write it destages), at stages of its own: the same I/O hits or misses, and meets the same
//! seeks and rotations, whatever path a policy sent it down.

use super::{Event, Simulation};
use crate::engine::rng::stage_quantile;
use crate::model::backend::{Owner, Request, DISK_STAGE, HIT_STAGE};
use crate::scenario::schema::RaidLevel;

impl Simulation {
    /// The `Backend` step of an I/O's route: it waits here for the cache or the disks.
    pub(super) fn backend(&mut self, io: u32, attempt: u32, group: u32) {
        let attrs = self.io_attrs(io);
        let g = &mut self.model.backends.groups[group as usize];
        let array = g.array;
        let owner = Owner::Io { io, attempt };
        if !attrs.is_write {
            if stage_quantile(attrs.service_key, HIT_STAGE) < g.read_hit {
                g.read_hits += 1;
                let hit = self.model.arrays[array].read_latency_ns;
                self.events.after_fixed(hit, Event::StepDone { io, attempt });
            } else {
                g.read_misses += 1;
                self.disk_request(owner, group, attrs.offset, false, attrs.bytes, attrs.service_key);
            }
            return;
        }
        match &mut self.model.backends.caches[array] {
            Some(c) if attrs.bytes <= c.write_aside_bytes && c.has_room(attrs.bytes) => {
                self.cache_write(io, attempt, group)
            }
            Some(c) if attrs.bytes <= c.write_aside_bytes => {
                // Forced flushing: the write waits for a destage to make room.
                c.waiting.push_back((io, attempt, group));
                c.forced += 1;
                c.flushing = true;
                self.flush(array);
            }
            // No write cache, or a write larger than the write-aside size: straight to the disks.
            _ => self.disk_request(owner, group, attrs.offset, true, attrs.bytes, attrs.service_key),
        }
    }

    /// A write lands in the cache: acknowledged after the cache's write latency, destaged later.
    fn cache_write(&mut self, io: u32, attempt: u32, group: u32) {
        let now = self.events.now();
        let attrs = self.io_attrs(io);
        let g = &mut self.model.backends.groups[group as usize];
        g.dirty.push_back((attrs.offset, attrs.service_key, attrs.bytes));
        let array = g.array;
        let c = self.model.backends.caches[array].as_mut().expect("a cached write has a cache");
        c.dirty.add(now, attrs.bytes as i64);
        if c.dirty.value() >= c.high_bytes {
            c.flushing = true;
        }
        let ack = self.model.arrays[array].write_latency_ns;
        self.events.after_fixed(ack, Event::StepDone { io, attempt });
        self.flush(array);
    }

    /// While the array flushes, keeps each of its groups destaging at its depth.
    fn flush(&mut self, array: usize) {
        let (groups, depth) = match &self.model.backends.caches[array] {
            Some(c) if c.flushing => (c.groups.len(), c.destage_depth),
            _ => return,
        };
        for k in 0..groups {
            let gi = self.model.backends.caches[array].as_ref().expect("checked").groups[k];
            loop {
                let g = &mut self.model.backends.groups[gi];
                if g.destaging >= depth * g.disks {
                    break;
                }
                let Some((offset, key, bytes)) = g.dirty.pop_front() else { break };
                g.destaging += 1;
                self.disk_request(Owner::Destage, gi as u32, offset, true, bytes, key);
            }
        }
    }

    /// A destage is on disk: its bytes are clean, waiting writes get the room, flushing goes on
    /// until the low watermark.
    fn destaged(&mut self, group: u32, bytes: u64) {
        let now = self.events.now();
        let g = &mut self.model.backends.groups[group as usize];
        g.destaging -= 1;
        g.destages += 1;
        let array = g.array;
        let c = self.model.backends.caches[array].as_mut().expect("a destage has a cache");
        c.dirty.add(now, -(bytes as i64));
        loop {
            let c = self.model.backends.caches[array].as_ref().expect("a destage has a cache");
            let Some(&(io, attempt, g)) = c.waiting.front() else { break };
            // An attempt given up while it waited (a timeout, a failed path) leaves the queue.
            let live = self.current(io, attempt);
            if live && c.dirty.value() + self.ios.get(io).bytes > c.capacity_bytes {
                break;
            }
            self.model.backends.caches[array].as_mut().expect("checked").waiting.pop_front();
            if live {
                self.cache_write(io, attempt, g);
            }
        }
        let c = self.model.backends.caches[array].as_mut().expect("a destage has a cache");
        // Hysteresis: a destage only ends flushing (at the low watermark); the high watermark
        // or a waiting write starts it.
        if c.dirty.value() <= c.low_bytes && c.waiting.is_empty() {
            c.flushing = false;
        }
        self.flush(array);
    }

    /// Starts a request on a group's disks: a read miss, a write-through or a destage.
    fn disk_request(&mut self, owner: Owner, group: u32, offset: u64, is_write: bool, bytes: u64, key: u64) {
        let g = &self.model.backends.groups[group as usize];
        // A mirrored read goes to the side with the shorter queue (Linux md's read_balance
        // does the same with pending I/O), the first on a tie.
        let mirror = match (g.level, is_write) {
            (RaidLevel::Raid10, false) => {
                let first = g.ops(offset, false, 0).disks[0];
                let load = |d: u8| {
                    let s = &self.model.stations[g.station(d)];
                    s.busy.value() as usize + s.queue.len()
                };
                u8::from(load(first + 1) < load(first))
            }
            _ => 0,
        };
        let ops = g.ops(offset, is_write, mirror);
        let id = self.requests.insert(Request { owner, group, ops, is_write, bytes, key, phase: 0, pending: 0 });
        self.start_phase(id);
    }

    /// Puts the operations of a request's current phase on their disks, each at once.
    fn start_phase(&mut self, id: u32) {
        let r = *self.requests.get(id);
        let g = &self.model.backends.groups[r.group as usize];
        let (disk, writes) = (g.disk, r.ops.writes(r.is_write, r.phase));
        for k in 0..r.ops.width {
            let op = 2 * (3 * r.phase + k);
            let (seek_q, rotation_q) =
                (stage_quantile(r.key, DISK_STAGE + op), stage_quantile(r.key, DISK_STAGE + op + 1));
            let service = disk.sample_ns(r.bytes, writes, seek_q, rotation_q);
            let st = self.model.backends.groups[r.group as usize].station(r.ops.disks[usize::from(k)]);
            self.enter_station(st, id, 0, service);
        }
        self.requests.get_mut(id).pending = r.ops.width;
    }

    /// One disk operation of request `id` is done.
    pub(super) fn disk_op_done(&mut self, id: u32) {
        let r = self.requests.get_mut(id);
        r.pending -= 1;
        if r.pending > 0 {
            return;
        }
        if r.phase + 1 < r.ops.phases {
            r.phase += 1;
            return self.start_phase(id);
        }
        let r = *r;
        self.requests.remove(id);
        match r.owner {
            // A request finishes even for an attempt that has been given up: the disks did it.
            Owner::Io { io, attempt } if self.current(io, attempt) => self.advance::<false>(io, attempt),
            Owner::Io { .. } => {}
            Owner::Destage => self.destaged(r.group, r.bytes),
        }
    }
}
