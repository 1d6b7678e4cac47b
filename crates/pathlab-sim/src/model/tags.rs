//! The Linux block layer under a native NVMe multipath device: blk-mq's tags per controller.
//!
//! The multipath head is bio-based and has no queue of its own: `nvme_ns_head_submit_bio`
//! picks a path (`nvme_find_path`) as each bio arrives, before any request exists. The bio then
//! needs a tag from that path's controller. A controller's tag set has one tag map per I/O
//! queue (blk-mq hardware context); a submitting CPU uses the queue its CPU maps to (CPUs split
//! in consecutive blocks over the queues, `blk_mq_map_queues`). Each map holds `sqsize` tags
//! (`queue_size` − 1), one of them reserved for the fabric's connect command, so 126 serve I/O
//! at the default `queue_size` of 128 [torvalds/linux `drivers/nvme/host/core.c`
//! `nvme_alloc_io_tag_set`; `fabrics.h` `NVMF_DEF_QUEUE_SIZE`]. Every namespace on the
//! controller shares the map; when several are busy, blk-mq lets each hold at most
//! max(⌈tags / busy namespaces⌉, 4) (`hctx_may_queue`). A bio that finds no tag sleeps until
//! one frees (FIFO here).
//!
//! Only with a tag is the request started (`nvme_start_request`), and only then does the
//! controller's `nr_active`, which `iopolicy=queue-depth` reads, count it: bios waiting here are
//! invisible to the policy, which is how thousands of outstanding requests pile up behind one
//! controller on real hosts.
//!
//! A namespace counts as busy from its first request on a map (`blk_mq_tag_busy`) until the
//! queue's timeout timer fires and finds none of its requests started (`blk_mq_timeout_work`,
//! then `blk_mq_tag_idle`). The timer is armed at most `BLK_MAX_TIMEOUT` (5 s) ahead, so a
//! namespace with a request now and then stays busy, and keeps its share from the others. Here
//! every namespace is checked on one 5 s grid (`idle_check`) rather than by its own timer, and
//! one still waiting for a tag counts as not idle (the kernel's marks itself busy again when it
//! retries).

use std::collections::VecDeque;

/// `nvme connect --queue-size` default (`NVMF_DEF_QUEUE_SIZE`).
pub const NVME_DEFAULT_QUEUE_SIZE: u32 = 128;
/// The range `nvme connect --queue-size` accepts (`NVMF_MIN_QUEUE_SIZE`, `NVMF_MAX_QUEUE_SIZE`).
pub const NVME_QUEUE_SIZE_RANGE: (u32, u32) = (16, 1024);
/// Tags of a map kept from I/O: the fabric's connect command (`reserved_tags = 1`).
const RESERVED_TAGS: u32 = 1;
/// The least a busy namespace may hold however many share the map (`hctx_may_queue`).
const FAIR_SHARE_FLOOR: u32 = 4;
/// How often idle namespaces are found (`BLK_MAX_TIMEOUT`, 5 × HZ: the furthest a queue's
/// timeout timer is armed ahead).
pub const IDLE_CHECK_NS: u64 = 5_000_000_000;

/// Tags for I/O in one map of a controller with `queue_size` entries per submission queue.
pub fn tags_per_queue(queue_size: u32) -> u32 {
    queue_size - 1 - RESERVED_TAGS
}

/// One tag map: a controller's I/O queue.
#[derive(Clone, Debug, Default)]
pub struct TagPool {
    pub depth: u32,
    pub held: u32,
    /// Namespaces counted busy on it (blk-mq's `active_queues`).
    pub busy_namespaces: u32,
    /// Requests waiting for one of its tags, in all its namespaces' lines.
    pub waiting: u32,
    /// The namespace queues on it: the lines a freed tag is offered to.
    queues: Vec<u32>,
    /// Order of arrival in its lines: the oldest request that may take a freed tag gets it.
    next_arrival: u64,
}

/// A namespace's use of one tag map (its request queue's hardware context on that path).
#[derive(Debug, Default, Clone)]
struct NamespaceQueue {
    held: u32,
    /// Its requests waiting for a tag: (order of arrival on the map, I/O id), oldest first. A
    /// namespace's requests are all held back by the same share, so one line each keeps the
    /// map's order while a freed tag is offered to each namespace's oldest only.
    line: VecDeque<(u64, u32)>,
    /// Counted among its map's busy namespaces (`BLK_MQ_S_TAG_ACTIVE`).
    busy: bool,
}

/// Where a request of a given path and CPU gets its tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TagSlot {
    pub pool: u32,
    queue: u32,
}

const NO_TAGS: u32 = u32::MAX;

/// A path's namespace queues: `maps` of them from `first_queue`, on the maps from `first_pool`.
#[derive(Debug, Clone, Copy)]
struct PathQueues {
    first_queue: u32,
    first_pool: u32,
    maps: u32,
}

/// Every controller's tag maps, and each path's namespace queues on them.
#[derive(Clone, Debug, Default)]
pub struct TagSets {
    pub pools: Vec<TagPool>,
    /// Per nexus: its first pool and its number of pools (0: no NVMe device uses it).
    nexus_pools: Vec<(u32, u32)>,
    /// Per path: its namespace's queues on its controller's maps, or `NO_TAGS` for a device above
    /// no blk-mq tags.
    path_queues: Vec<PathQueues>,
    queues: Vec<NamespaceQueue>,
    cpus: u32,
}

impl TagSets {
    pub fn new(nexuses: usize, cpus: u32) -> TagSets {
        TagSets { nexus_pools: vec![(0, 0); nexuses], cpus, ..Default::default() }
    }

    /// Gives the controller behind `nexus` its `io_queues` maps of `queue_size`, unless it has
    /// them already.
    pub fn add_controller(&mut self, nexus: usize, queue_size: u32, io_queues: u32) {
        if self.nexus_pools[nexus].1 > 0 {
            return;
        }
        self.nexus_pools[nexus] = (self.pools.len() as u32, io_queues);
        let depth = tags_per_queue(queue_size);
        self.pools.extend((0..io_queues).map(|_| TagPool { depth, ..Default::default() }));
    }

    /// The `nvme connect` options of the controller behind `nexus`: queue size and I/O queues.
    pub fn connect_options(&self, nexus: usize) -> Option<(u32, u32)> {
        let (first, maps) = self.nexus_pools[nexus];
        (maps > 0).then(|| (self.pools[first as usize].depth + 1 + RESERVED_TAGS, maps))
    }

    /// Path `path` (over `nexus`, whose controller must have its maps) takes tags: its
    /// namespace gets a queue on each map. Paths are added in order, all of them.
    pub fn add_path(&mut self, path: usize, nexus: Option<usize>) {
        debug_assert_eq!(self.path_queues.len(), path);
        match nexus {
            Some(n) => {
                let (first_pool, maps) = self.nexus_pools[n];
                let first_queue = self.queues.len() as u32;
                self.path_queues.push(PathQueues { first_queue, first_pool, maps });
                self.queues.extend(std::iter::repeat_n(NamespaceQueue::default(), maps as usize));
                for map in 0..maps {
                    self.pools[(first_pool + map) as usize].queues.push(first_queue + map);
                }
            }
            None => self.path_queues.push(PathQueues { first_queue: NO_TAGS, first_pool: 0, maps: 0 }),
        }
    }

    /// Where a request on `path` over `nexus`, submitted on `cpu`, gets its tag; `None` for a
    /// path with no tags.
    #[inline]
    pub fn slot(&self, path: usize, nexus: usize, cpu: u32) -> Option<TagSlot> {
        if self.pools.is_empty() {
            return None; // no NVMe head on the host: no per-path table to read (a cache miss on a large host)
        }
        let queues = *self.path_queues.get(path)?;
        if queues.first_queue == NO_TAGS {
            return None;
        }
        debug_assert_eq!(self.nexus_pools[nexus], (queues.first_pool, queues.maps));
        let map = (u64::from(cpu) * u64::from(queues.maps) / u64::from(self.cpus)) as u32;
        Some(TagSlot { pool: queues.first_pool + map, queue: queues.first_queue + map })
    }

    /// The request `io` takes a tag (true), or waits for one at the end of the line (false).
    pub fn take_or_wait(&mut self, slot: TagSlot, io: u32) -> bool {
        self.mark_busy(slot);
        if self.may_take(slot) {
            self.take(slot);
            true
        } else {
            let pool = &mut self.pools[slot.pool as usize];
            pool.waiting += 1;
            pool.next_arrival += 1;
            self.queues[slot.queue as usize].line.push_back((pool.next_arrival, io));
            false
        }
    }

    /// A request that held a tag on `slot` gives it back.
    pub fn release(&mut self, slot: TagSlot) {
        self.pools[slot.pool as usize].held -= 1;
        self.queues[slot.queue as usize].held -= 1;
    }

    /// A waiting request `io` leaves the line without a tag (its path failed).
    pub fn leave(&mut self, slot: TagSlot, io: u32) {
        let line = &mut self.queues[slot.queue as usize].line;
        let at = line.iter().position(|&(_, w)| w == io).expect("a request waiting for a tag is in its line");
        line.remove(at);
        self.pools[slot.pool as usize].waiting -= 1;
    }

    /// The timeout timers' pass: each path's namespace with nothing started or waiting on any
    /// of its controller's maps is no longer busy. Returns the maps whose busy count fell, where
    /// a waiting request of another namespace may now take a tag.
    pub fn idle_check(&mut self) -> Vec<u32> {
        let mut freed = Vec::new();
        for path in self.path_queues.iter().filter(|p| p.maps > 0) {
            let queues = path.first_queue as usize..(path.first_queue + path.maps) as usize;
            if self.queues[queues.clone()].iter().any(|q| q.held > 0 || !q.line.is_empty()) {
                continue;
            }
            for (map, queue) in queues.enumerate() {
                if std::mem::take(&mut self.queues[queue].busy) {
                    let pool = path.first_pool + map as u32;
                    self.pools[pool as usize].busy_namespaces -= 1;
                    freed.push(pool);
                }
            }
        }
        freed.sort_unstable();
        freed.dedup();
        freed
    }

    /// The oldest waiting request of `pool` whose namespace may now take a tag, given its tag.
    /// Looks at each namespace's oldest only: the map's namespaces, not its waiting requests.
    pub fn admit_next(&mut self, pool: u32) -> Option<u32> {
        let p = &self.pools[pool as usize];
        if p.waiting == 0 || p.held >= p.depth {
            return None;
        }
        let slot = p
            .queues
            .iter()
            .map(|&queue| TagSlot { pool, queue })
            .filter(|&slot| self.may_take(slot))
            .filter_map(|slot| self.queues[slot.queue as usize].line.front().map(|&(arrival, _)| (arrival, slot)))
            .min_by_key(|&(arrival, _)| arrival)?
            .1;
        let (_, io) = self.queues[slot.queue as usize].line.pop_front().expect("the line has a front");
        self.pools[pool as usize].waiting -= 1;
        self.take(slot);
        Some(io)
    }

    fn may_take(&self, slot: TagSlot) -> bool {
        let pool = &self.pools[slot.pool as usize];
        if pool.held >= pool.depth {
            return false;
        }
        let sharers = pool.busy_namespaces.max(1);
        let share = pool.depth.div_ceil(sharers).max(FAIR_SHARE_FLOOR);
        self.queues[slot.queue as usize].held < share
    }

    fn take(&mut self, slot: TagSlot) {
        self.pools[slot.pool as usize].held += 1;
        self.queues[slot.queue as usize].held += 1;
    }

    fn mark_busy(&mut self, slot: TagSlot) {
        let q = &mut self.queues[slot.queue as usize];
        if !q.busy {
            q.busy = true;
            self.pools[slot.pool as usize].busy_namespaces += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One controller (nexus 0) with one map of `queue_size`, and `namespaces` paths over it.
    fn one_map(queue_size: u32, namespaces: usize) -> TagSets {
        let mut t = TagSets::new(1, 1);
        t.add_controller(0, queue_size, 1);
        for p in 0..namespaces {
            t.add_path(p, Some(0));
        }
        t
    }

    #[test]
    fn the_default_queue_size_leaves_126_tags_for_io() {
        let mut t = one_map(NVME_DEFAULT_QUEUE_SIZE, 1);
        let slot = t.slot(0, 0, 0).unwrap();
        let taken = (0..200).filter(|&io| t.take_or_wait(slot, io)).count();
        assert_eq!(taken, 126);
        assert_eq!(t.pools[0].waiting, 74);
        // A freed tag goes to the oldest waiter.
        t.release(slot);
        assert_eq!(t.admit_next(0), Some(126));
        assert_eq!(t.admit_next(0), None);
    }

    #[test]
    fn busy_namespaces_share_a_map_fairly_with_a_floor_of_four() {
        // Queue size 16: 14 tags. Two busy namespaces: at most 7 each.
        let mut t = one_map(16, 2);
        let (a, b) = (t.slot(0, 0, 0).unwrap(), t.slot(1, 0, 0).unwrap());
        assert!(t.take_or_wait(b, 1000));
        let taken_by_a = (0..20).filter(|&io| t.take_or_wait(a, io)).count();
        assert_eq!(taken_by_a, 7);
        // b's one request done: b stays busy, and a at 7, until the idle check finds b empty.
        t.release(b);
        assert_eq!(t.admit_next(0), None);
        assert_eq!(t.idle_check(), vec![0]);
        assert_eq!(t.idle_check(), Vec::<u32>::new(), "b is idle already; a is not empty");
        // Alone again, a may have all 14: its waiters come in.
        let admitted: Vec<u32> = std::iter::from_fn(|| t.admit_next(0)).collect();
        assert_eq!(admitted, vec![7, 8, 9, 10, 11, 12, 13]);
        // Five namespaces on 14 tags: ⌈14/5⌉ = 3, raised to the floor of 4.
        let mut five = one_map(16, 5);
        for p in 1..5 {
            assert!(five.take_or_wait(five.slot(p, 0, 0).unwrap(), 100 + p as u32));
        }
        let first = five.slot(0, 0, 0).unwrap();
        assert_eq!((0..10).filter(|&io| five.take_or_wait(first, io)).count(), 4);
    }

    #[test]
    fn cpus_map_to_queues_in_consecutive_blocks_and_untagged_paths_have_no_slot() {
        let mut t = TagSets::new(2, 8);
        t.add_controller(1, 128, 2);
        t.add_path(0, None);
        t.add_path(1, Some(1));
        assert_eq!(t.slot(0, 0, 3), None);
        let pools: Vec<u32> = (0..8).map(|cpu| t.slot(1, 1, cpu).unwrap().pool).collect();
        assert_eq!(pools, vec![0, 0, 0, 0, 1, 1, 1, 1]);
    }

    #[test]
    fn a_waiter_that_leaves_is_idle_at_the_next_check() {
        let mut t = one_map(16, 2);
        let (a, b) = (t.slot(0, 0, 0).unwrap(), t.slot(1, 0, 0).unwrap());
        for io in 0..14 {
            assert!(t.take_or_wait(a, io));
        }
        assert!(!t.take_or_wait(b, 99));
        assert_eq!(t.pools[0].busy_namespaces, 2);
        t.leave(b, 99);
        assert_eq!((t.pools[0].busy_namespaces, t.pools[0].waiting), (2, 0));
        assert_eq!(t.idle_check(), vec![0]);
        assert_eq!(t.pools[0].busy_namespaces, 1);
    }
}
