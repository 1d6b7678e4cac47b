//! An I/O's life on the host: a worker issues it, the device queue and the policy give it a
//! path, an adapter slot sends it, the kernel completes it and the application reaps it.

use super::{keep_alive, Event, Io, IoRest, IoState, RunError, Simulation, NEVER_SENT, NOT_A_RETRY};
use crate::engine::TimeNs;
use crate::model::tags::{TagSlot, IDLE_CHECK_NS};
use crate::model::Outage;
use crate::observe::Completion;
use crate::scenario::limits::MAX_LIVE_IOS;
use crate::workload::Loop;
use pathlab_policy::{AluaState, IoDone, PathId};

impl Simulation {
    /// A worker issues a new I/O to its device.
    pub(super) fn issue(&mut self, w: usize) {
        self.issue_in::<false>(w, None);
    }

    /// A worker issues a new I/O, in the record of the one it just reaped (`reused`) or a new
    /// one. A closed loop that issues again at once (`reap`) keeps its record: the slab's free
    /// list and the host's outstanding count would take it and give it back in the same instant
    /// (the free list is last in, first out: the same record; the count's level the same value
    /// and moment), some 30 instructions an I/O that a hand-written loop does not spend. The
    /// record kept is the worker's own: its worker, device and CPU stay, and the worker's second
    /// line (which holds its device and CPU) is not read. `PLAIN`: the step plan's instance
    /// (`plan.rs`), as in every hot step below.
    #[inline(always)]
    pub(super) fn issue_in<const PLAIN: bool>(&mut self, w: usize, reused: Option<u32>) {
        let now = self.events.now();
        let worker = &mut self.workers[w];
        let attrs = worker.next_io();
        worker.in_flight += 1;
        let issued = |worker: u32, cpu: u32, device: u32| Io {
            worker,
            cpu,
            device,
            path: 0,
            bytes: attrs.bytes,
            is_write: attrs.is_write,
            service_key: attrs.service_key,
            issued_at: now,
            dispatched_at: now,
            attempt: 0,
            state: IoState::Queued,
            route: 0,
            stage: 0,
            errors: 0,
            retry_of: NOT_A_RETRY,
        };
        let (io, device) = match reused {
            Some(io) => {
                let r = self.ios.get_mut(io);
                debug_assert_eq!(r.worker as usize, w, "a record reused is its worker's own");
                *r = issued(r.worker, r.cpu, r.device);
                (io, r.device as usize)
            }
            None => {
                let (cpu, device) = (worker.cpu, worker.device);
                let io = self.ios.insert(issued(w as u32, cpu, device));
                // The slab numbers a new slot next after its last (`Slab::insert`): `io_rest` grows with it.
                debug_assert!(io as usize <= self.io_rest.len(), "a slab slot past the I/Os' rest");
                if io as usize == self.io_rest.len() {
                    self.io_rest.push(IoRest::default());
                }
                self.model.host.outstanding.add(now, 1);
                (io, device as usize)
            }
        };
        if !PLAIN && self.keeps_offsets {
            self.io_rest[io as usize] = IoRest { offset: attrs.offset, ..IoRest::default() };
        }
        let device_state = &mut self.model.devices[device];
        self.rec.io_issued(&mut device_state.watch, now);
        if device_state.queue_waits() {
            device_state.queue_push_back(now, io);
            return self.dispatch_device_in::<PLAIN>(device);
        }
        // An empty queue: the new I/O would be its front and leave it at once if a slot is free,
        // so it goes straight to a path, without the trip through the queue's buffer (a cache
        // miss per I/O on a host of many devices). The same steps in the same order otherwise,
        // but for QUED: an I/O that starts as it is issued is not counted in it (`place`), which
        // added one and took it back in the same instant (the level's value and moment the same).
        if !device_state.slot_free() {
            device_state.queue_push_back(now, io);
        } else if !self.place::<PLAIN>(device, io, false) {
            self.model.devices[device].queue_push_back(now, io);
            self.no_usable_path(device);
        }
    }

    /// Whether device `d` may start another command (`Device::slot_free`).
    #[inline]
    fn slot_free(&self, d: usize) -> bool {
        self.model.devices[d].slot_free()
    }

    /// Whether path `p` of device `d` has no free command slot of its own.
    #[inline]
    fn path_full(&self, d: usize, p: usize) -> bool {
        let device = &self.model.devices[d];
        device.per_path_depth && self.model.paths[p].active >= device.queue_depth
    }

    /// A started command of device `d` on path `p` has ended (completed or given up): where
    /// each path has its own queue depth, the path's next waiting I/O starts.
    pub(super) fn leave_path(&mut self, d: usize, p: usize) {
        if self.model.devices[d].per_path_depth {
            self.path_slot_freed(p);
        }
    }

    /// A command slot of path `p` (of a `per_path_depth` device) is free again.
    fn path_slot_freed(&mut self, p: usize) {
        let path = &mut self.model.paths[p];
        path.active -= 1;
        if let Some(next) = path.waiting.pop_front() {
            self.start(next);
        }
    }

    /// Moves queued I/Os of a device onto paths while it has free slots.
    pub(super) fn dispatch_device(&mut self, d: usize) {
        self.dispatch_device_in::<false>(d);
    }

    /// `dispatch_device` in the step plan's instance `PLAIN` (`plan.rs`): a plain run's queued
    /// I/Os take the plain steps too.
    fn dispatch_device_in<const PLAIN: bool>(&mut self, d: usize) {
        loop {
            if !self.slot_free(d) {
                return;
            }
            let Some(io) = self.model.devices[d].queue_front() else {
                return;
            };
            if !self.place::<PLAIN>(d, io, true) {
                return self.no_usable_path(d);
            }
        }
    }

    /// Gives I/O `io` (the front of device `d`'s queue when `queued`, else one just issued, not
    /// counted in QUED) its path and starts it; false, leaving it where it is (counted in QUED
    /// if it was queued, uncounted if just issued), when the policy has no usable path.
    #[inline(always)]
    fn place<const PLAIN: bool>(&mut self, d: usize, io: u32, queued: bool) -> bool {
        let now = self.events.now();
        let desc = self.ios.get(io).desc();
        let mut device = &mut self.model.devices[d];
        let Some(PathId(p)) = device.policy.select_path(&desc, now, &self.model.host) else {
            return false;
        };
        if device.outage != Outage::None {
            self.path_restored(d);
            device = &mut self.model.devices[d];
        }
        if queued {
            device.queue_pop_front();
        }
        device.policy.start_io(PathId(p), &desc, now);
        // Without an NVMe head's tags and a path's own queue depth (the usual host) nothing holds
        // the I/O back: it starts (`start`) in this look-up of its device, and goes to its adapter.
        let plain = PLAIN || (!device.per_path_depth && self.model.tags.pools.is_empty());
        if plain && queued {
            device.started(now);
        } else if plain {
            // Straight from its issue, never counted in QUED (`issue_in`).
            device.active.add(now, 1);
        } else if !queued {
            // From its issue: QUED counts it until it starts (`start`).
            device.queued.add(now, 1);
        }
        let r = self.ios.get_mut(io);
        r.path = p;
        // A retry only follows an error, which the plain plan never meets.
        if !PLAIN && r.retry_of != NOT_A_RETRY {
            let from = std::mem::replace(&mut r.retry_of, NOT_A_RETRY);
            let write_sent_at = (r.is_write && r.dispatched_at != NEVER_SENT).then_some(r.dispatched_at);
            self.count_retry(d, from as usize, p as usize, write_sent_at);
        }
        if plain {
            self.onto_adapter::<PLAIN>(io, p as usize);
            return true;
        }
        match self.tag_slot(io) {
            // Not started: blk-mq holds the bio until a tag frees, so esxtop's view of the
            // head keeps counting it as queued (QUED), not active (ACTV).
            Some(slot) if !self.model.tags.take_or_wait(slot, io) => self.ios.get_mut(io).state = IoState::WaitTag,
            // Counted by the selector already, queued at the path's disk until a command ends.
            _ if self.path_full(d, p as usize) => {
                self.model.paths[p as usize].waiting.push_back(io);
                self.ios.get_mut(io).state = IoState::WaitPath;
            }
            _ => self.start(io),
        }
        true
    }

    /// The I/O has its path (and its tag, under an NVMe head): it leaves the device's queue
    /// for its active commands, and goes to its adapter.
    fn start(&mut self, io: u32) {
        let now = self.events.now();
        let r = self.ios.get(io);
        let (d, p) = (r.device as usize, r.path as usize);
        let device = &mut self.model.devices[d];
        device.started(now);
        if device.per_path_depth {
            self.model.paths[p].active += 1;
        }
        self.onto_adapter::<false>(io, p);
    }

    /// The I/O has its path `p` (and its tag, under an NVMe head): sent if its adapter has a free
    /// slot, else queued there. Inlined, as `place` and `respond` are: a call's frame fewer an I/O
    /// each (callgrind on bench-minimal, session 20: −10, −25 and −29 instructions an I/O; `reap`
    /// inlined the same way cost +6).
    #[inline(always)]
    fn onto_adapter<const PLAIN: bool>(&mut self, io: u32, p: usize) {
        self.send_on::<PLAIN>(io, p, true);
    }

    /// Where the I/O's request takes its blk-mq tag, if its device is an NVMe head.
    #[inline]
    pub(super) fn tag_slot(&self, io: u32) -> Option<TagSlot> {
        // No NVMe head on the host (the usual case): the I/O's and its path's records are not
        // read (two look-ups with their bounds checks, twice an I/O).
        if self.model.tags.pools.is_empty() {
            return None;
        }
        let r = self.ios.get(io);
        let p = r.path as usize;
        self.model.tags.slot(p, self.model.paths[p].nexus, r.cpu)
    }

    /// The I/O gives its tag back; the oldest waiters that may take one get it and go on.
    /// Without an NVMe head on the host (the usual case) one test inlined, not a call (it was
    /// kept a call: 10 instructions an I/O for nothing).
    #[inline(always)]
    pub(super) fn release_tag(&mut self, io: u32) {
        if !self.model.tags.pools.is_empty() {
            self.give_tag_back(io);
        }
    }

    fn give_tag_back(&mut self, io: u32) {
        let Some(slot) = self.tag_slot(io) else { return };
        self.model.tags.release(slot);
        self.admit_tag_waiters(slot.pool);
    }

    /// Requests waiting on tag map `pool` that may now take a tag are started.
    fn admit_tag_waiters(&mut self, pool: u32) {
        while let Some(next) = self.model.tags.admit_next(pool) {
            self.start(next);
        }
    }

    /// Idle namespaces stop counting in their maps' fair shares; the next check 5 s later.
    pub(super) fn tag_idle_check(&mut self) {
        for pool in self.model.tags.idle_check() {
            self.admit_tag_waiters(pool);
        }
        let next = self.events.now() + IDLE_CHECK_NS;
        if next < self.measure_end() {
            self.events.at(next, Event::TagIdleCheck);
        }
    }

    /// The status reached the host: the kernel's part, then the application's. Inlined into the
    /// event's dispatch (callgrind on bench-minimal, session 20: −19 instructions an I/O).
    #[inline(always)]
    pub(super) fn complete<const PLAIN: bool>(&mut self, io: u32) {
        let now = self.events.now();
        let r = *self.ios.get(io);
        let (d, p) = (r.device as usize, r.path as usize);
        let path = &self.model.paths[p];
        if self.read_ahead.on {
            // A route known at the send had no response step to read ahead at. Only a plain run's
            // routes are all in `known_at_send`: a failover or a balance adds routes mid-run.
            if !self.read_ahead.as_sent(path.one_way_ns) || (PLAIN && self.known_at_send[r.route as usize].is_some()) {
                self.preload_completion(r.device, r.worker);
            }
            self.read_ahead.completed(now);
        }
        let inaccessible = path.alua == AluaState::Unavailable;
        if !PLAIN && (!path.connected || path.erring() || inaccessible) && self.faulty_response(io, p) {
            return;
        }
        let c = Completion {
            bytes: r.bytes,
            is_write: r.is_write,
            driver_ns: now - r.dispatched_at,
            kernel_ns: r.dispatched_at - r.issued_at,
        };
        // The kernel's part, each object's record looked up once: the path's (esxtop's counters,
        // its connection's traffic), the adapter's (counters, slot), the device's (counters,
        // policy, slot). Counters and levels of different objects: in any order the same.
        let path = &mut self.model.paths[p];
        path.counters.record(&c);
        let (a, nexus) = (path.adapter(), path.nexus);
        if !PLAIN {
            keep_alive::traffic(&mut self.keep_alive_seen, nexus, r.dispatched_at);
        }
        let adapter = &mut self.model.adapters[a];
        adapter.counters.record(&c);
        adapter.active.add(now, -1);
        // The device's host, read from the adapter at hand: a device's paths are its host's
        // adapters' (`build::paths::discover`), and its record's hot lines hold no host.
        let host = adapter.host;
        if !PLAIN {
            self.model.host.nexus_done(nexus);
        }
        self.rec.device_response(d, host, now - r.issued_at);
        let done = IoDone { now_ns: now, latency_ns: c.driver_ns, failed: false };
        let device = &mut self.model.devices[d];
        device.counters.record(&c);
        device.policy.end_io(PathId(p as u32), &r.desc(), &done);
        device.active.add(now, -1);
        debug_assert_eq!(device.host, host, "a device's paths are its host's adapters'");
        let per_path_depth = device.per_path_depth;
        // Read now, not looked up again: what follows starts or sends I/Os that have their
        // path already, and none of it adds to a device's queue.
        let device_queue_waits = device.queue_waits();
        if !PLAIN {
            self.release_tag(io);
            if per_path_depth {
                self.path_slot_freed(p);
            }
        }
        self.ios.get_mut(io).state = IoState::Reaping;
        self.dispatch_adapter_in::<PLAIN>(a);
        if device_queue_waits {
            self.dispatch_device_in::<PLAIN>(d);
        }
        // The application's part: after the host stack's own time, once the host is not paused
        // (`model::pause`; the Reap event waits out a pause itself).
        // When the kernel completed it is kept only for a later reaping (`IoRest`). The plain
        // plan has no stack time and no pause.
        if PLAIN {
            return self.reap::<PLAIN>(io, now);
        }
        let reaping = self.model.host_reaping[host];
        if reaping.stack_ns > 0 {
            self.io_rest[io as usize].kernel_done_at = now;
            self.events.after_fixed(reaping.stack_ns, Event::Reap { io });
        } else if now < reaping.paused_until {
            self.io_rest[io as usize].kernel_done_at = now;
            self.events.at(reaping.paused_until, Event::Reap { io });
        } else {
            self.reap::<false>(io, now);
        }
    }

    /// Reads one word of each line the I/O's completion (and its closed loop's next issue) will
    /// read beyond its own record and path head (which holds a read's counters): its device's
    /// levels, counters and watch (one line), policy, its worker's first line (a closed loop
    /// that issues again at once reads no more of it). On a host of many devices each is a cache miss;
    /// read all at once, their misses are under way together rather than one after the other
    /// as the completion's steps come to them. Where the trip back is short
    /// (`ReadAhead::as_sent`) they are read as the response is sent (`respond`), beside that
    /// step's own misses (the path's head); else at the completion's start, since the other I/Os' completions in a long trip evict them before use.
    #[inline(always)]
    pub(super) fn preload_completion(&self, device: u32, worker: u32) {
        let d = &self.model.devices[device as usize];
        let w = &self.workers[worker as usize];
        let words = [
            d.active.value(),
            d.counters.reads,
            d.policy.preload(),
            u64::from(w.in_flight) + u64::from(w.reissues_at_once),
        ];
        // One black box for them all: each its own cost some 10 instructions an I/O more.
        std::hint::black_box(words.iter().fold(0u64, |sum, &w| sum.wrapping_add(w)));
    }

    /// The application sees the I/O complete (the kernel did at `kernel_done_at`): vdbench's
    /// figures, and a closed loop issues again.
    pub(super) fn reap<const PLAIN: bool>(&mut self, io: u32, kernel_done_at: TimeNs) {
        let r = *self.ios.get(io);
        let resp = self.events.now() - r.issued_at;
        let driver_ns = kernel_done_at - r.dispatched_at;
        // The time the application took to see it counts as host time, as vdbench sees it.
        let seen = Completion { bytes: r.bytes, is_write: r.is_write, driver_ns, kernel_ns: resp - driver_ns };
        self.rec.io_completed(&mut self.model.devices[r.device as usize].watch, self.events.now(), &seen);
        // The worker's part in one look-up (`retire`'s, and a closed loop issues again).
        let w = r.worker as usize;
        let worker = &mut self.workers[w];
        worker.in_flight -= 1;
        if worker.reissues_at_once && self.issuing {
            return self.issue_in::<PLAIN>(w, Some(io));
        }
        self.free_record(io);
        let worker = &self.workers[w];
        if self.issuing && matches!(worker.mode, Loop::Closed { .. }) {
            self.events.after(worker.think_ns, Event::Reissue { worker: r.worker });
        }
    }

    /// Frees the adapter slot an in-flight command on path `p` held.
    #[inline]
    pub(super) fn release_slot(&mut self, p: usize) {
        let path = &self.model.paths[p];
        self.model.adapters[path.adapter()].active.add(self.events.now(), -1);
        self.model.host.nexus_done(path.nexus);
    }

    /// The I/O is finished for good (completed or failed): the worker and the slab forget it.
    #[inline]
    pub(super) fn retire(&mut self, io: u32) {
        let w = self.ios.get(io).worker as usize;
        self.free_record(io);
        self.workers[w].in_flight -= 1;
    }

    /// The I/O's record is freed, and the host no longer counts it outstanding.
    #[inline]
    fn free_record(&mut self, io: u32) {
        self.ios.get_mut(io).state = IoState::Free;
        self.model.host.outstanding.add(self.events.now(), -1);
        self.ios.remove(io);
    }

    /// Sends what waits for adapter `a`'s free slots. Inlined: a completion on an adapter with
    /// nothing waiting (the usual case) is one test, not a call.
    #[inline(always)]
    pub(super) fn dispatch_adapter(&mut self, a: usize) {
        self.dispatch_adapter_in::<false>(a);
    }

    /// `dispatch_adapter` in the step plan's instance `PLAIN` (`plan.rs`).
    #[inline(always)]
    fn dispatch_adapter_in<const PLAIN: bool>(&mut self, a: usize) {
        if !self.model.adapters[a].waiting.is_empty() {
            self.send_waiting::<PLAIN>(a);
        }
    }

    fn send_waiting<const PLAIN: bool>(&mut self, a: usize) {
        loop {
            let adapter = &mut self.model.adapters[a];
            if adapter.active.value() >= u64::from(adapter.queue_depth) {
                return;
            }
            let Some(io) = adapter.waiting.pop_front() else {
                return;
            };
            adapter.queued.add(self.events.now(), -1);
            let p = self.ios.get(io).path as usize;
            self.send_on::<PLAIN>(io, p, false);
        }
    }

    /// Open-loop arrivals have piled up to `MAX_LIVE_IOS`: stop issuing and say which workload.
    pub(super) fn overload(&mut self, w: usize) {
        self.issuing = false;
        let workload = self.workers[w].workload;
        let secs = self.events.now() as f64 / 1e9;
        self.overloaded = Some(RunError::Overloaded {
            field: format!("workloads.{workload}.rate"),
            message: format!(
                "{MAX_LIVE_IOS} I/Os were waiting at {secs:.3} s of simulated time: the paths cannot serve this \
                 rate; lower it, or give `outstanding` (a closed loop) instead"
            ),
        });
    }

    /// A pause of `host` starts now; its next one is scheduled while the run still issues I/O.
    pub(super) fn host_pause(&mut self, host: usize) {
        let pauses = self.model.host_pauses[host].expect("pauses are scheduled only when configured");
        let rng = &mut self.pause_rng[host];
        let until = self.events.now().saturating_add(pauses.next_duration_ns(rng));
        let next = self.events.now() + pauses.next_gap_ns(rng);
        let reaping = &mut self.model.host_reaping[host];
        reaping.paused_until = reaping.paused_until.max(until);
        if next < self.measure_end() {
            self.events.at(next, Event::HostPause { host: host as u32 });
        }
    }

    /// The application reaps `io` now, or when its host's pause ends.
    pub(super) fn reap_unless_paused(&mut self, io: u32) {
        let host = self.model.devices[self.ios.get(io).device as usize].host;
        match self.model.host_reaping[host].paused_until {
            until if self.events.now() < until => self.events.at(until, Event::Reap { io }),
            _ => self.reap::<false>(io, self.io_rest[io as usize].kernel_done_at),
        }
    }
}
