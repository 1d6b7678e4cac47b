//! An I/O on the wire and in the arrays: the SCSI exchange over the path, and the walk of its
//! route (stations, delays, replication, extent ownership) until the answer goes back.

use super::known_at_send::trip_out_ns;
use super::{Event, IoState, Simulation};
use crate::engine::rng::stage_quantile;
use crate::engine::TimeNs;
use crate::model::{transfer, Step};

impl Simulation {
    /// Issues the command to the driver: the start of DAVG.
    pub(super) fn send(&mut self, io: u32) {
        let p = self.ios.get(io).path as usize;
        self.send_on::<false>(io, p, false);
    }

    /// Sends `io` down its path `p`; with `unless_full`, queues it at the adapter instead when
    /// the adapter has no free slot (`onto_adapter`). The path's and the adapter's records are
    /// looked up once for both.
    #[inline(always)]
    pub(super) fn send_on<const PLAIN: bool>(&mut self, io: u32, p: usize, unless_full: bool) {
        let now = self.events.now();
        let path = &self.model.paths[p];
        let a = path.adapter();
        let adapter = &mut self.model.adapters[a];
        if unless_full && adapter.active.value() >= u64::from(adapter.queue_depth) {
            adapter.waiting.push_back(io);
            adapter.queued.add(now, 1);
            self.ios.get_mut(io).state = IoState::WaitAdapter;
            return;
        }
        self.next_attempt = self.next_attempt.wrapping_add(1);
        let attempt = self.next_attempt;
        let r = self.ios.get_mut(io);
        let is_write = r.is_write;
        r.state = IoState::InFlight;
        r.dispatched_at = now;
        r.attempt = attempt;
        let route = path.routes[usize::from(is_write)];
        r.route = route;
        r.stage = 0;
        let one_way = path.one_way_ns;
        adapter.active.add(now, 1);
        // The driver reads an interrupt-coalescing adapter's response queue as it starts a
        // command: what it holds is delivered (`coalescing.rs`), after what the send schedules.
        let reap_held = !PLAIN && adapter.coalescing.as_ref().is_some_and(|c| !c.held.is_empty());
        if !PLAIN {
            self.model.host.nexus_sent(path.nexus);
        }
        let timed_link = !PLAIN && adapter.bytes_per_ns.is_some();
        let mut refused = false;
        // The station of a route known at the send (`known_at_send.rs`): only a plain run's.
        let known = if PLAIN { self.known_at_send[route as usize] } else { None };
        match (is_write, timed_link, known) {
            // Lost on a path whose connection is gone: the host only learns by its timeout.
            // A blocked path holds it until the host fails the path.
            _ if !PLAIN && path.blocked => {}
            _ if !PLAIN && !path.connected => {
                let timeout = self.model.devices[path.device].stack.io_timeout_ns;
                self.events.after(timeout, Event::Timeout { io, attempt });
            }
            // Its target port group is transitioning: the command comes back refused.
            _ if !PLAIN && path.transitioning => refused = true,
            (_, _, Some(st)) => self.send_known(io, attempt, st, one_way),
            (false, _, None) => self.events.after_fixed(one_way, Event::AtPort { io, attempt }),
            (true, true, None) => self.events.after_fixed(2 * one_way, Event::SendWriteData { io, attempt }),
            (true, false, None) => self.events.after_fixed(trip_out_ns(true, one_way), Event::AtPort { io, attempt }),
        }
        if refused {
            self.refused_transitioning(io, attempt, one_way, p);
        }
        if reap_held {
            self.deliver_held(a);
        }
    }

    pub(super) fn send_write_data(&mut self, io: u32, attempt: u32) {
        let r = self.ios.get(io);
        let path = &self.model.paths[r.path as usize];
        let adapter = &mut self.model.adapters[path.adapter()];
        let sent = transfer(&mut adapter.tx_free_at, adapter.bytes_per_ns, self.events.now(), r.bytes);
        self.events.at(sent + path.one_way_ns, Event::AtPort { io, attempt });
    }

    /// Walks the I/O's route from its current step until it has to wait; at the end of the
    /// route, sends the data (read) or the status (write) back to the host. Inlined into its two
    /// callers (an event's dispatch and a station's end): a call's frame twice an I/O.
    #[inline(always)]
    pub(super) fn advance<const PLAIN: bool>(&mut self, io: u32, attempt: u32) {
        loop {
            // One borrow of the record per step: the step, and what the step needs of the I/O.
            let r = self.ios.get_mut(io);
            let (stage, bytes, key) = (r.stage, r.bytes, r.service_key);
            let route = &self.model.routes[r.route as usize];
            let Some(&step) = route.get(usize::from(stage)) else {
                return self.respond::<PLAIN>(io, attempt);
            };
            let last = usize::from(stage) + 1 == route.len();
            r.stage += 1;
            match step {
                Step::Serve(st) => {
                    // The station's record looked up once, for its service time and its servers.
                    let station = &mut self.model.stations[st as usize];
                    let service = station.service.sample_ns(bytes, stage_quantile(key, stage));
                    let now = self.events.now();
                    if PLAIN && last && self.never_wait[st as usize] {
                        // Served at once, and its end is the trip back's start (`never_wait.rs`).
                        station.begin_held(now, now.saturating_add(service));
                        return self.trip_back(io, attempt, Some(service));
                    }
                    if station.arrive(now, io, attempt, service) {
                        self.served_after(st, io, attempt, service);
                    }
                    return;
                }
                Step::Admit(port) => {
                    if !self.admitted(io, attempt, port as usize) {
                        return;
                    }
                }
                Step::Backend(group) => return self.backend(io, attempt, group),
                Step::PortData { port, inbound } => {
                    let data =
                        self.model.ports[port as usize].data.as_mut().expect("PortData steps come from a port's data");
                    let done = transfer(
                        &mut data.free_at[usize::from(inbound)],
                        Some(data.bytes_per_ns),
                        self.events.now(),
                        bytes,
                    );
                    self.events.at(done, Event::StepDone { io, attempt });
                    return;
                }
                Step::Delay(ns) => {
                    self.events.after_fixed(ns, Event::StepDone { io, attempt });
                    return;
                }
                // The peer is lost (`site_down`): this array acknowledges alone.
                Step::Replicate { group, .. } if self.model.replications[group as usize].suspended => {}
                Step::Replicate { group, side } => {
                    let rep = &mut self.model.replications[group as usize];
                    let peer = rep.arrays[usize::from(1 - side)];
                    let sent =
                        transfer(&mut rep.free_at[usize::from(side)], rep.bytes_per_ns, self.events.now(), bytes);
                    rep.writes[usize::from(side)] += 1;
                    let acked = sent + rep.one_way_ns + self.model.arrays[peer].write_latency_ns + rep.one_way_ns;
                    self.events.at(acked, Event::StepDone { io, attempt });
                    return;
                }
                Step::Acquire { group, side } => {
                    if !self.acquire(io, group, side) {
                        return;
                    }
                }
                // The error status goes back like any answer; `faulty_response` reads it.
                Step::Reject => {}
            }
        }
    }

    /// The command reaches port `p`: taken, or refused with BUSY by a port with commands queued;
    /// the status goes back and the host sends the command again after the array's retry delay.
    fn admitted(&mut self, io: u32, attempt: u32, p: usize) -> bool {
        let rule = self.model.arrays[self.model.ports[p].array].busy.expect("Admit steps come from a busy rule");
        if !rule.refuses(self.model.port_waiting(p), self.busy_rng.open01()) {
            return true;
        }
        let path = &self.model.paths[self.ios.get(io).path as usize];
        let back = path.one_way_ns.saturating_add(path.added_ns(self.events.now()));
        if path.draining() {
            self.events.after(back.saturating_add(rule.retry_ns), Event::Resend { io, attempt });
        } else {
            self.events.after_fixed(back + rule.retry_ns, Event::Resend { io, attempt });
        }
        false
    }

    /// A command refused with BUSY goes down its path again: its adapter slot is given back and
    /// taken anew, as the driver completes the refused command and issues the retry.
    pub(super) fn resend(&mut self, io: u32) {
        self.release_slot(self.ios.get(io).path as usize);
        self.send(io);
    }

    /// Work reaches a station: served at once by a free server, or queued.
    pub(super) fn enter_station(&mut self, st: usize, io: u32, attempt: u32, service_ns: TimeNs) {
        if self.model.stations[st].arrive(self.events.now(), io, attempt, service_ns) {
            self.served_after(st as u32, io, attempt, service_ns);
        }
    }

    /// A server of station `st` has started on the work: it is done `service_ns` from now.
    /// Inlined (callgrind on bench-minimal, session 20: −12 instructions an I/O; session 19 had
    /// measured `start_service`, which held it, at +7).
    #[inline(always)]
    fn served_after(&mut self, st: u32, io: u32, attempt: u32, service_ns: TimeNs) {
        self.events.after(service_ns, Event::StationDone { station: st, io, attempt });
    }

    #[inline(always)]
    pub(super) fn station_done<const PLAIN: bool>(&mut self, st: usize, io: u32, attempt: u32) {
        // The station serves whatever reached it, even work whose path has since failed; its
        // record looked up once for the server freed and the next in its queue.
        let now = self.events.now();
        let disk = !PLAIN && self.model.backends.is_disk(st);
        let station = &mut self.model.stations[st];
        station.busy.add(now, -1);
        if let Some((next, next_attempt, service)) = station.queue.pop_front() {
            station.begin(now);
            self.served_after(st as u32, next, next_attempt, service);
            if self.read_ahead.on && !disk {
                self.preload_served(next);
            }
        }
        if disk {
            // A disk's work is an operation of a back-end request (`io` is the request).
            self.disk_op_done(io);
        } else if PLAIN || self.current(io, attempt) {
            debug_assert!(self.current(io, attempt), "a stale station's end in the plain plan");
            self.advance::<PLAIN>(io, attempt);
        }
    }

    /// Reads one word of each line the end of I/O `io`'s service will read first (its record,
    /// its path's head), as its service starts: on a host of many devices each is a
    /// cache miss, and the record's must come before the path's can start; read here, they are
    /// under way beside the station's other work rather than one after the other when it ends.
    #[inline(always)]
    fn preload_served(&self, io: u32) {
        let r = self.ios.get(io);
        std::hint::black_box(r.dispatched_at.wrapping_add(self.model.paths[r.path as usize].one_way_ns));
    }

    /// The plain plan's trip back (`plan.rs`): `respond`'s steps with every test the plan
    /// leaves out folded away, so nothing but the path's one-way time (no congestion, drain,
    /// coalescing or timed link), from now or, after a station that never makes work wait, from
    /// the end of the service `served_ns` (`never_wait.rs`: then not a fixed delay from now, so
    /// on the heap).
    #[inline(always)]
    fn trip_back(&mut self, io: u32, attempt: u32, served_ns: Option<TimeNs>) {
        let r = self.ios.get(io);
        let (device, worker) = (r.device, r.worker);
        let one_way = self.model.paths[r.path as usize].one_way_ns;
        self.preload_as_sent(device, worker, one_way);
        let complete = Event::Complete { io, attempt };
        match served_ns {
            None => self.events.after_fixed(one_way, complete),
            Some(service) => self.events.after(service.saturating_add(one_way), complete),
        }
    }

    /// Read ahead as the response is sent, where the trip back is short (`read_ahead.rs`).
    #[inline(always)]
    fn preload_as_sent(&self, device: u32, worker: u32, one_way_ns: TimeNs) {
        if self.read_ahead.on && self.read_ahead.as_sent(one_way_ns) {
            self.preload_completion(device, worker);
        }
    }

    /// The route is done: data or status travels back to the host.
    #[inline(always)]
    pub(super) fn respond<const PLAIN: bool>(&mut self, io: u32, attempt: u32) {
        if PLAIN {
            return self.trip_back(io, attempt, None);
        }
        self.release_extent(io);
        let r = *self.ios.get(io);
        let path = &self.model.paths[r.path as usize];
        let trip = path.one_way_ns.saturating_add(path.added_ns(self.events.now()));
        // A response held back (a slow drain, congestion) past the host's I/O timeout is not
        // waited for: the host aborts the command then, as the stack does any other.
        if path.delayed() {
            let deadline = r.dispatched_at.saturating_add(self.model.devices[path.device].stack.io_timeout_ns);
            if self.events.now().saturating_add(trip) > deadline {
                let at = deadline.max(self.events.now());
                return self.events.at(at, Event::Timeout { io, attempt });
            }
        }
        self.preload_as_sent(r.device, r.worker, path.one_way_ns);
        let adapter = &mut self.model.adapters[path.adapter()];
        // An adapter that coalesces interrupts decides when the host sees it (`coalescing.rs`).
        let arrives = match adapter.coalescing {
            None => Event::Complete { io, attempt },
            Some(_) => Event::AtAdapter { io, attempt },
        };
        // A slow drain's delay grows with time: not a lane's constant, so not `after_fixed`.
        if !path.draining() && (r.is_write || adapter.bytes_per_ns.is_none()) {
            // Nothing but the trip back: a fixed delay.
            self.events.after_fixed(trip, arrives);
        } else {
            let back = self.events.now().saturating_add(trip);
            let done = match adapter.bytes_per_ns {
                Some(_) if !r.is_write => transfer(&mut adapter.rx_free_at, adapter.bytes_per_ns, back, r.bytes),
                _ => back,
            };
            self.events.at(done, arrives);
        }
    }
}
