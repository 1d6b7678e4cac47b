//! The simulation: one host's workers issue I/O through the kernel's device queue, the path
//! selection policy, the adapter and the fabric to array ports, and back.
//!
//! The SCSI exchange (DOMAIN.md §3): a read costs one round trip (command out; data and status
//! back) plus the data transfer; a write costs two (command out, transfer-ready back, data out,
//! status back). When the command (read) or the data (write) reaches the array port, the I/O
//! walks its path's route inside the arrays (`model::Step`): port, controller, forwarding to
//! the owning controller, cache, extent ownership and replication to the peer array. Then the
//! data (read) or the status (write) goes back to the host.
//!
//! Faults and each stack's handling of them (errors, timeouts, failover, no path) are in
//! `sim/failure.rs`; the per-I/O path only checks a path's flags.

mod failure;

use crate::engine::event_queue::EventQueue;
use crate::engine::rng::{stage_quantile, Purpose, Stream};
use crate::engine::slab::Slab;
use crate::engine::TimeNs;
use crate::model::fault::ScheduledFault;
use crate::model::{transfer, Model, Outage, Step};
use crate::observe::result::{
    Accounting, AdapterResult, DeviceResult, EsxtopFigures, Figures, IntervalRow, ObjectIntervalRow, PathResult,
    ReplicationResult, RunResult, StationResult, Summary,
};
use crate::observe::{Completion, IoCounters, Recorder, Snapshot};
use crate::workload::{IoAttrs, Loop, Worker};
use failure::LogEntry;
use hdrhistogram::Histogram;
use pathlab_policy::{IoDesc, IoDone, PathId};

#[derive(Clone, Copy, Debug)]
enum Event {
    /// An open-loop worker issues its next I/O.
    Arrival {
        worker: u32,
    },
    /// The command (read) or the data (write) reaches the array port: its route starts.
    AtPort {
        io: u32,
        attempt: u32,
    },
    /// Transfer-ready reached the host: the write's data goes on the link.
    SendWriteData {
        io: u32,
        attempt: u32,
    },
    /// A station (port, controller) finished serving an I/O.
    StationDone {
        station: u32,
        io: u32,
        attempt: u32,
    },
    /// A delay step (forwarding, cache, replication round trip) is over.
    StepDone {
        io: u32,
        attempt: u32,
    },
    /// A request for an extent reaches the array that owns it.
    ExtentRequest {
        group: u32,
        device: u32,
        extent: u64,
    },
    /// The grant of an extent reaches the array that asked for it.
    ExtentGrant {
        group: u32,
        device: u32,
        extent: u64,
    },
    /// The status reached the host.
    Complete {
        io: u32,
        attempt: u32,
    },
    /// A scheduled fault (an index into the run's fault list) starts or ends.
    Fault {
        index: u32,
    },
    /// The host's I/O timeout for a command that got no answer.
    Timeout {
        io: u32,
        attempt: u32,
    },
    /// The host's checker or reconnect attempt looks at a path it failed.
    Reinstate {
        path: u32,
    },
    /// A device has waited for a path as long as its stack allows.
    GiveUp {
        device: u32,
        episode: u32,
    },
    /// A closed-loop worker issues again after one of its I/Os failed.
    Reissue {
        worker: u32,
    },
    /// The host pauses (`model::pause`).
    HostPause,
    /// A pause is over: the application sees a completion it could not see during it.
    Reap {
        io: u32,
    },
    WarmupEnd,
    MeasureEnd,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum IoState {
    Free,
    /// In the device queue, or waiting for a usable path.
    Queued,
    /// Has a path, waits for an adapter slot.
    WaitAdapter,
    /// Issued to the driver.
    InFlight,
    /// Completed by the kernel; the application has not seen it yet (a host pause).
    Reaping,
}

#[derive(Clone, Copy, Debug)]
struct Io {
    worker: u32,
    cpu: u32,
    device: u32,
    path: u32,
    attrs: IoAttrs,
    issued_at: TimeNs,
    dispatched_at: TimeNs,
    /// When the kernel completed it (the application may see it later: a host pause).
    kernel_done_at: TimeNs,
    /// Changes at every dispatch: events of an abandoned attempt no longer match and are dropped.
    attempt: u32,
    state: IoState,
    route: u32,
    /// Next step of the route.
    stage: u8,
    /// Errors met so far (against the stack's retries).
    errors: u8,
    /// The path the previous attempt erred on, until the retry is dispatched; `NOT_A_RETRY`.
    retry_of: u32,
    extent: ExtentHold,
}

const NOT_A_RETRY: u32 = u32::MAX;

/// The most I/Os alive at once (about 100 bytes each): an open-loop rate that the paths cannot
/// serve piles I/Os up without end, and the run stops there rather than exhaust memory.
pub const MAX_LIVE_IOS: usize = 4_000_000;

/// Why a run could not produce a result.
#[derive(Debug, Clone)]
pub enum RunError {
    /// The workload asked for more than the host could hold in flight: bad input, not a bug.
    Overloaded { field: String, message: String },
    /// An I/O was lost or counted twice: a bug in the engine.
    Accounting(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Overloaded { field, message } => write!(f, "{field}: {message}"),
            RunError::Accounting(m) => f.write_str(m),
        }
    }
}

/// Where a write stands with the ownership of its extent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ExtentHold {
    None,
    Waiting { group: u32, side: u8 },
    Holding { group: u32, side: u8 },
}

impl Io {
    fn desc(&self) -> IoDesc {
        IoDesc { bytes: self.attrs.bytes, is_write: self.attrs.is_write, cpu: self.cpu }
    }
}

/// Timing and labels of a run.
#[derive(Clone, Debug)]
pub struct RunPlan {
    pub scenario: String,
    pub variant: Option<String>,
    pub seed: u64,
    pub warmup_ns: TimeNs,
    pub duration_ns: TimeNs,
    pub interval_ns: TimeNs,
}

pub struct Simulation {
    model: Model,
    workers: Vec<Worker>,
    plan: RunPlan,
    events: EventQueue<Event>,
    ios: Slab<Io>,
    now: TimeNs,
    next_attempt: u32,
    issuing: bool,
    measuring: bool,
    rec: Recorder,
    latency: Histogram<u64>,
    device_latency: Vec<Histogram<u32>>,
    window_max_ns: u64,
    interval_max_ns: u64,
    last_sample: Snapshot,
    at_warmup: Option<Snapshot>,
    at_end: Option<Snapshot>,
    intervals: Vec<IntervalRow>,
    device_intervals: Vec<ObjectIntervalRow>,
    path_intervals: Vec<ObjectIntervalRow>,
    adapter_intervals: Vec<ObjectIntervalRow>,
    faults: Vec<ScheduledFault>,
    /// One stream per path for the errors of flaky paths.
    fault_rng: Vec<Stream>,
    pause_rng: Stream,
    /// The host reaps no completion before this time (`model::pause`).
    paused_until: TimeNs,
    /// The next interval boundary. Samples are kept out of the event queue (one at a time, not
    /// all scheduled up front) and run before any event of the same time.
    next_sample_at: Option<TimeNs>,
    /// Set when open-loop arrivals pile up beyond what memory allows: the run stops issuing.
    overloaded: Option<RunError>,
    log: Vec<LogEntry>,
    /// Outages of any device so far: tells a give-up timer from an older one.
    outages: u32,
    issued: u64,
    completed: u64,
    failed: u64,
    retried: u64,
    failovers: u64,
}

fn new_histogram() -> Histogram<u64> {
    // 1 ns to 1 hour at 3 significant digits: fixed size whatever the run's length.
    Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid histogram bounds")
}

/// Per device (for its p99): 2 significant digits and 32-bit counts, 16 KiB instead of 270, so
/// that a host of 10,000 devices fits in memory.
fn new_device_histogram() -> Histogram<u32> {
    Histogram::new_with_bounds(1, 3_600_000_000_000, 2).expect("valid histogram bounds")
}

impl Simulation {
    pub fn new(model: Model, workers: Vec<Worker>, plan: RunPlan, faults: Vec<ScheduledFault>) -> Self {
        let rec = Recorder::new(model.devices.len(), model.paths.len(), model.adapters.len(), model.stations.len());
        let last_sample = rec.snapshot(0);
        let device_latency = model.devices.iter().map(|_| new_device_histogram()).collect();
        let fault_rng = (0..model.paths.len()).map(|p| Stream::new(plan.seed, p as u64, Purpose::Faults)).collect();
        let mut sim = Simulation {
            model,
            workers,
            events: EventQueue::default(),
            ios: Slab::default(),
            now: 0,
            next_attempt: 0,
            issuing: true,
            measuring: plan.warmup_ns == 0,
            rec,
            latency: new_histogram(),
            device_latency,
            window_max_ns: 0,
            interval_max_ns: 0,
            at_warmup: (plan.warmup_ns == 0).then(|| last_sample.clone()),
            last_sample,
            at_end: None,
            intervals: Vec::new(),
            device_intervals: Vec::new(),
            path_intervals: Vec::new(),
            adapter_intervals: Vec::new(),
            faults,
            fault_rng,
            pause_rng: Stream::new(plan.seed, 0, Purpose::HostPauses),
            paused_until: 0,
            next_sample_at: None,
            overloaded: None,
            log: Vec::new(),
            outages: 0,
            issued: 0,
            completed: 0,
            failed: 0,
            retried: 0,
            failovers: 0,
            plan,
        };
        let end = sim.measure_end();
        sim.next_sample_at = sim.sample_after(0);
        if sim.plan.warmup_ns > 0 {
            sim.events.schedule(sim.plan.warmup_ns, Event::WarmupEnd);
        }
        sim.events.schedule(end, Event::MeasureEnd);
        if let Some(pauses) = sim.model.host_pauses {
            let first = pauses.next_gap_ns(&mut sim.pause_rng);
            if first < end {
                sim.events.schedule(first, Event::HostPause);
            }
        }
        for (index, f) in sim.faults.iter().enumerate() {
            sim.events.schedule(f.at_ns, Event::Fault { index: index as u32 });
        }
        for w in 0..sim.workers.len() {
            match sim.workers[w].mode {
                Loop::Closed { outstanding } => (0..outstanding).for_each(|_| sim.issue(w)),
                Loop::Open { .. } => {
                    let gap = sim.workers[w].next_gap_ns();
                    sim.events.schedule(gap, Event::Arrival { worker: w as u32 });
                }
            }
        }
        sim
    }

    pub fn now(&self) -> TimeNs {
        self.now
    }

    /// Devices and paths as the host's tools would show them now.
    pub fn describe(&self) -> crate::observe::describe::Description {
        crate::observe::describe::describe(&self.model, self.now)
    }

    /// End of the measurement window: no I/O is issued after it.
    pub fn measure_end(&self) -> TimeNs {
        self.plan.warmup_ns + self.plan.duration_ns
    }

    /// Processes every event up to and including time `until`.
    pub fn run_until(&mut self, until: TimeNs) {
        loop {
            let next_event = self.events.peek_time();
            if let Some(t) = self.next_sample_at.filter(|&t| t <= until && next_event.is_none_or(|e| t <= e)) {
                self.now = t;
                self.sample();
                self.next_sample_at = self.sample_after(t);
                continue;
            }
            match next_event {
                Some(t) if t <= until => {
                    let (t, event) = self.events.pop().expect("peeked");
                    self.now = t;
                    self.handle(event);
                }
                _ => break,
            }
        }
        self.now = self.now.max(until.min(self.measure_end()));
    }

    /// The first interval boundary after `t`: every `interval` from the start until the end of
    /// the warm-up, then every `interval` from the end of the warm-up (so that no interval
    /// straddles it), and the end of the measurement.
    fn sample_after(&self, t: TimeNs) -> Option<TimeNs> {
        let (warmup, step, end) = (self.plan.warmup_ns, self.plan.interval_ns, self.measure_end());
        if t < warmup {
            return Some(((t / step + 1) * step).min(warmup));
        }
        let next = warmup + ((t - warmup) / step + 1) * step;
        match next < end {
            true => Some(next),
            false => (t < end).then_some(end),
        }
    }

    fn handle(&mut self, event: Event) {
        match event {
            Event::Arrival { worker } => {
                let w = worker as usize;
                if self.ios.live() >= MAX_LIVE_IOS {
                    return self.overload(w);
                }
                self.issue(w);
                let next = self.now + self.workers[w].next_gap_ns();
                if next < self.measure_end() {
                    self.events.schedule(next, Event::Arrival { worker });
                }
            }
            Event::AtPort { io, attempt } | Event::StepDone { io, attempt } => {
                if self.current(io, attempt) {
                    self.advance(io, attempt);
                }
            }
            Event::SendWriteData { io, attempt } => self.send_write_data(io, attempt),
            Event::StationDone { station, io, attempt } => self.station_done(station as usize, io, attempt),
            Event::ExtentRequest { group, device, extent } => self.extent_request(group, (device, extent)),
            Event::ExtentGrant { group, device, extent } => self.extent_grant(group, (device, extent)),
            Event::Complete { io, attempt } => self.complete(io, attempt),
            Event::Reap { io } if self.now < self.paused_until => {
                self.events.schedule(self.paused_until, Event::Reap { io });
            }
            Event::Reap { io } => self.reap(io),
            Event::HostPause => self.host_pause(),
            Event::Fault { index } => self.apply_fault(index as usize),
            Event::Timeout { io, attempt } => {
                if self.current(io, attempt) {
                    self.command_error(io);
                }
            }
            Event::Reinstate { path } => self.checker_sees(path as usize),
            Event::GiveUp { device, episode } => self.give_up(device as usize, episode),
            Event::Reissue { worker } => {
                if self.issuing {
                    self.issue(worker as usize);
                }
            }
            Event::WarmupEnd => {
                self.measuring = true;
                self.at_warmup = Some(self.rec.snapshot(self.now));
            }
            Event::MeasureEnd => {
                self.measuring = false;
                self.issuing = false;
                self.at_end = Some(self.rec.snapshot(self.now));
            }
        }
    }

    /// A pause starts now; the next one is scheduled while the run still issues I/O.
    fn host_pause(&mut self) {
        let pauses = self.model.host_pauses.expect("pauses are scheduled only when configured");
        let until = self.now.saturating_add(pauses.next_duration_ns(&mut self.pause_rng));
        self.paused_until = self.paused_until.max(until);
        let next = self.now + pauses.next_gap_ns(&mut self.pause_rng);
        if next < self.measure_end() {
            self.events.schedule(next, Event::HostPause);
        }
    }

    /// Open-loop arrivals have piled up to `MAX_LIVE_IOS`: stop issuing and say which workload.
    fn overload(&mut self, w: usize) {
        self.issuing = false;
        let workload = self.workers[w].workload;
        let secs = self.now as f64 / 1e9;
        self.overloaded = Some(RunError::Overloaded {
            field: format!("workloads.{workload}.rate"),
            message: format!(
                "{MAX_LIVE_IOS} I/Os were waiting at {secs:.3} s of simulated time: the paths cannot serve this \
                 rate; lower it, or give `outstanding` (a closed loop) instead"
            ),
        });
    }

    fn current(&self, io: u32, attempt: u32) -> bool {
        let r = self.ios.get(io);
        r.state == IoState::InFlight && r.attempt == attempt
    }

    /// A worker issues a new I/O to its device.
    fn issue(&mut self, w: usize) {
        let worker = &mut self.workers[w];
        let attrs = worker.next_io();
        worker.in_flight += 1;
        let device = worker.device;
        let io = self.ios.insert(Io {
            worker: w as u32,
            cpu: w as u32 % self.model.host.cpus,
            device: device as u32,
            path: 0,
            attrs,
            issued_at: self.now,
            dispatched_at: self.now,
            kernel_done_at: self.now,
            attempt: 0,
            state: IoState::Queued,
            route: 0,
            stage: 0,
            errors: 0,
            retry_of: NOT_A_RETRY,
            extent: ExtentHold::None,
        });
        self.issued += 1;
        self.rec.outstanding.add(self.now, 1);
        self.rec.device_queued[device].add(self.now, 1);
        self.model.devices[device].queue.push_back(io);
        self.dispatch_device(device);
    }

    /// Moves queued I/Os of a device onto paths while it has free slots.
    fn dispatch_device(&mut self, d: usize) {
        loop {
            let device = &mut self.model.devices[d];
            if device.active >= device.queue_depth {
                return;
            }
            let Some(&io) = device.queue.front() else {
                return;
            };
            let desc = self.ios.get(io).desc();
            let Some(PathId(p)) = device.policy.select_path(&desc, self.now, &self.model.host) else {
                return self.no_usable_path(d);
            };
            if device.outage != Outage::None {
                self.path_restored(d);
            }
            let device = &mut self.model.devices[d];
            device.queue.pop_front();
            device.active += 1;
            device.policy.start_io(PathId(p), &desc, self.now);
            self.rec.device_queued[d].add(self.now, -1);
            self.rec.device_active[d].add(self.now, 1);
            let r = self.ios.get_mut(io);
            r.path = p;
            if r.retry_of != NOT_A_RETRY {
                let from = std::mem::replace(&mut r.retry_of, NOT_A_RETRY);
                self.count_retry(d, from as usize, p as usize);
            }
            let a = self.model.paths[p as usize].adapter;
            let adapter = &mut self.model.adapters[a];
            if adapter.active < adapter.queue_depth {
                self.send(io);
            } else {
                adapter.waiting.push_back(io);
                self.ios.get_mut(io).state = IoState::WaitAdapter;
                self.rec.adapter_queued[a].add(self.now, 1);
            }
        }
    }

    /// Issues the command to the driver: the start of DAVG.
    fn send(&mut self, io: u32) {
        self.next_attempt = self.next_attempt.wrapping_add(1);
        let attempt = self.next_attempt;
        let now = self.now;
        let r = self.ios.get_mut(io);
        let (is_write, p) = (r.attrs.is_write, r.path as usize);
        let path = &self.model.paths[p];
        r.state = IoState::InFlight;
        r.dispatched_at = now;
        r.attempt = attempt;
        r.route = path.routes[usize::from(is_write)];
        r.stage = 0;
        let one_way = path.one_way_ns;
        let adapter = &mut self.model.adapters[path.adapter];
        adapter.active += 1;
        self.model.host.nexus_outstanding[path.nexus] += 1;
        let timed_link = adapter.bytes_per_ns.is_some();
        self.rec.adapter_active[path.adapter].add(now, 1);
        let event = match (is_write, timed_link) {
            // Lost on a path whose connection is gone: the host only learns by its timeout.
            _ if !path.connected => {
                (now + self.model.devices[path.device].stack.io_timeout_ns, Event::Timeout { io, attempt })
            }
            (false, _) => (now + one_way, Event::AtPort { io, attempt }),
            (true, true) => (now + 2 * one_way, Event::SendWriteData { io, attempt }),
            (true, false) => (now + 3 * one_way, Event::AtPort { io, attempt }),
        };
        self.events.schedule(event.0, event.1);
    }

    fn send_write_data(&mut self, io: u32, attempt: u32) {
        if !self.current(io, attempt) {
            return;
        }
        let r = self.ios.get(io);
        let path = &self.model.paths[r.path as usize];
        let adapter = &mut self.model.adapters[path.adapter];
        let sent = transfer(&mut adapter.tx_free_at, adapter.bytes_per_ns, self.now, r.attrs.bytes);
        self.events.schedule(sent + path.one_way_ns, Event::AtPort { io, attempt });
    }

    /// Walks the I/O's route from its current step until it has to wait; at the end of the
    /// route, sends the data (read) or the status (write) back to the host.
    fn advance(&mut self, io: u32, attempt: u32) {
        loop {
            // One borrow of the record per step: the step, and what the step needs of the I/O.
            let r = self.ios.get_mut(io);
            let (stage, bytes, key) = (r.stage, r.attrs.bytes, r.attrs.service_key);
            let Some(&step) = self.model.routes[r.route as usize].get(usize::from(stage)) else {
                return self.respond(io, attempt);
            };
            r.stage += 1;
            match step {
                Step::Serve(st) => {
                    let st = st as usize;
                    let station = &mut self.model.stations[st];
                    let service = station.service.sample_ns(bytes, stage_quantile(key, stage));
                    if station.busy < station.servers {
                        self.start_service(st, io, attempt, service);
                    } else {
                        station.queue.push_back((io, attempt, service));
                    }
                    return;
                }
                Step::Delay(ns) => {
                    self.events.schedule(self.now + ns, Event::StepDone { io, attempt });
                    return;
                }
                Step::Replicate { group, side } => {
                    let rep = &mut self.model.replications[group as usize];
                    let peer = rep.arrays[usize::from(1 - side)];
                    let sent = transfer(&mut rep.free_at[usize::from(side)], rep.bytes_per_ns, self.now, bytes);
                    rep.writes[usize::from(side)] += 1;
                    let acked = sent + rep.one_way_ns + self.model.arrays[peer].write_latency_ns + rep.one_way_ns;
                    self.events.schedule(acked, Event::StepDone { io, attempt });
                    return;
                }
                Step::Acquire { group, side } => {
                    if !self.acquire(io, group, side) {
                        return;
                    }
                }
            }
        }
    }

    fn start_service(&mut self, st: usize, io: u32, attempt: u32, service_ns: TimeNs) {
        self.model.stations[st].busy += 1;
        self.rec.station_busy[st].add(self.now, 1);
        self.rec.station_commands[st] += 1;
        self.events.schedule(self.now + service_ns, Event::StationDone { station: st as u32, io, attempt });
    }

    fn station_done(&mut self, st: usize, io: u32, attempt: u32) {
        // The station serves whatever reached it, even work whose path has since failed.
        self.model.stations[st].busy -= 1;
        self.rec.station_busy[st].add(self.now, -1);
        if let Some((next, next_attempt, service)) = self.model.stations[st].queue.pop_front() {
            self.start_service(st, next, next_attempt, service);
        }
        if self.current(io, attempt) {
            self.advance(io, attempt);
        }
    }

    /// The route is done: data or status travels back to the host.
    fn respond(&mut self, io: u32, attempt: u32) {
        self.release_extent(io);
        let r = *self.ios.get(io);
        let path = &self.model.paths[r.path as usize];
        let back = self.now + path.one_way_ns + path.added_latency_ns;
        let done = if r.attrs.is_write {
            back
        } else {
            let adapter = &mut self.model.adapters[path.adapter];
            transfer(&mut adapter.rx_free_at, adapter.bytes_per_ns, back, r.attrs.bytes)
        };
        self.events.schedule(done, Event::Complete { io, attempt });
    }

    fn extent_key(&self, io: u32, group: u32) -> (u32, u64) {
        let r = self.ios.get(io);
        let c = self.model.replications[group as usize].contention.as_ref().expect("acquire needs contention");
        c.key(r.device, r.attrs.offset)
    }

    /// Takes the written extent at `side`, or queues for it; true when the write may go on.
    fn acquire(&mut self, io: u32, group: u32, side: u8) -> bool {
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
            self.events.schedule(self.now + one_way, event);
        }
        false
    }

    /// A write that held its extent is done with it (or was abandoned).
    fn release_extent(&mut self, io: u32) {
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

    fn send_grant(&mut self, group: u32, key: (u32, u64)) {
        let rep = &mut self.model.replications[group as usize];
        let delay = rep.one_way_ns + rep.contention.as_ref().expect("contention").grant_ns;
        let e = rep.contention.as_mut().expect("contention").extents.get_mut(&key).expect("extent");
        e.request_arrived = false;
        self.events.schedule(self.now + delay, Event::ExtentGrant { group, device: key.0, extent: key.1 });
    }

    fn extent_request(&mut self, group: u32, key: (u32, u64)) {
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
    fn extent_grant(&mut self, group: u32, key: (u32, u64)) {
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
            self.events.schedule(self.now + one_way, Event::ExtentRequest { group, device: key.0, extent: key.1 });
        }
        for io in released {
            self.ios.get_mut(io).extent = ExtentHold::Holding { group, side };
            let attempt = self.ios.get(io).attempt;
            self.advance(io, attempt);
        }
    }

    fn complete(&mut self, io: u32, attempt: u32) {
        if !self.current(io, attempt) {
            return;
        }
        let now = self.now;
        let r = *self.ios.get(io);
        let (d, p) = (r.device as usize, r.path as usize);
        let path = &self.model.paths[p];
        if (!path.connected || path.errors.is_some()) && self.faulty_response(io, p) {
            return;
        }
        let a = self.model.paths[p].adapter;
        let c = Completion {
            bytes: r.attrs.bytes,
            is_write: r.attrs.is_write,
            driver_ns: now - r.dispatched_at,
            kernel_ns: r.dispatched_at - r.issued_at,
        };
        // The kernel's part: esxtop's counters, the policy, the slots.
        self.rec.paths[p].record(&c);
        self.rec.devices[d].record(&c);
        self.rec.adapters[a].record(&c);
        if self.measuring {
            self.device_latency[d].saturating_record((now - r.issued_at).max(1));
        }
        let done = IoDone { now_ns: now, latency_ns: c.driver_ns, failed: false };
        self.model.devices[d].policy.end_io(PathId(p as u32), &r.desc(), &done);
        self.release_slot(p);
        self.rec.device_active[d].add(now, -1);
        self.model.devices[d].active -= 1;
        let rec = self.ios.get_mut(io);
        rec.state = IoState::Reaping;
        rec.kernel_done_at = now;
        self.dispatch_adapter(a);
        self.dispatch_device(d);
        // The application's part, once the host is not paused (`model::pause`).
        if now < self.paused_until {
            self.events.schedule(self.paused_until, Event::Reap { io });
        } else {
            self.reap(io);
        }
    }

    /// The application sees the I/O complete: vdbench's figures, and a closed loop issues again.
    fn reap(&mut self, io: u32) {
        let r = *self.ios.get(io);
        let resp = self.now - r.issued_at;
        let driver_ns = r.kernel_done_at - r.dispatched_at;
        // The time the application took to see it counts as host time, as vdbench sees it.
        let seen =
            Completion { bytes: r.attrs.bytes, is_write: r.attrs.is_write, driver_ns, kernel_ns: resp - driver_ns };
        self.rec.guest.record(&seen);
        if self.measuring {
            self.latency.saturating_record(resp.max(1));
            self.window_max_ns = self.window_max_ns.max(resp);
        }
        self.interval_max_ns = self.interval_max_ns.max(resp);
        self.completed += 1;
        self.retire(io);
        if self.issuing {
            let w = r.worker as usize;
            if let Loop::Closed { .. } = self.workers[w].mode {
                match self.workers[w].think_ns {
                    0 => self.issue(w),
                    think => self.events.schedule(self.now + think, Event::Reissue { worker: r.worker }),
                }
            }
        }
    }

    /// Frees the adapter slot an in-flight command on path `p` held.
    fn release_slot(&mut self, p: usize) {
        let path = &self.model.paths[p];
        self.model.adapters[path.adapter].active -= 1;
        self.model.host.nexus_outstanding[path.nexus] -= 1;
        self.rec.adapter_active[path.adapter].add(self.now, -1);
    }

    /// The I/O is finished for good (completed or failed): the worker and the slab forget it.
    fn retire(&mut self, io: u32) {
        let r = self.ios.get_mut(io);
        r.state = IoState::Free;
        let w = r.worker as usize;
        self.workers[w].in_flight -= 1;
        self.rec.outstanding.add(self.now, -1);
        self.ios.remove(io);
    }

    fn dispatch_adapter(&mut self, a: usize) {
        while self.model.adapters[a].active < self.model.adapters[a].queue_depth {
            let Some(io) = self.model.adapters[a].waiting.pop_front() else {
                return;
            };
            self.rec.adapter_queued[a].add(self.now, -1);
            self.send(io);
        }
    }

    fn sample(&mut self) {
        let snap = self.rec.snapshot(self.now);
        let prev = std::mem::replace(&mut self.last_sample, snap);
        let snap = &self.last_sample;
        let secs = (snap.time - prev.time) as f64 / 1e9;
        let t_s = snap.time as f64 / 1e9;
        let g = snap.guest.since(&prev.guest);
        self.intervals.push(IntervalRow {
            t_s,
            measured: prev.time >= self.plan.warmup_ns,
            figures: Figures::from_counters(
                &g,
                secs,
                snap.outstanding_area - prev.outstanding_area,
                self.interval_max_ns,
            ),
            errors: g.io.errors,
            retries: g.io.retries,
            failovers: g.io.failovers,
            failed: g.failed,
        });
        self.interval_max_ns = 0;
        let level = |now: &[u128], before: &[u128], i: usize| level_mean(now[i] - before[i], secs);
        let rows = |names: &mut dyn Iterator<Item = String>, now: &[IoCounters], before: &[IoCounters]| {
            names
                .zip(now.iter().zip(before))
                .map(|(name, (n, b))| (name, EsxtopFigures::from_counters(&n.since(b), secs)))
                .collect::<Vec<_>>()
        };
        let devices = rows(&mut self.model.devices.iter().map(|d| d.name.clone()), &snap.devices, &prev.devices);
        for (i, (name, figures)) in devices.into_iter().enumerate() {
            let actv = level(&snap.device_active_area, &prev.device_active_area, i);
            let qued = level(&snap.device_queued_area, &prev.device_queued_area, i);
            self.device_intervals.push(ObjectIntervalRow { t_s, name, actv, qued, figures });
        }
        let adapters = rows(&mut self.model.adapters.iter().map(|a| a.name.clone()), &snap.adapters, &prev.adapters);
        for (i, (name, figures)) in adapters.into_iter().enumerate() {
            let actv = level(&snap.adapter_active_area, &prev.adapter_active_area, i);
            let qued = level(&snap.adapter_queued_area, &prev.adapter_queued_area, i);
            self.adapter_intervals.push(ObjectIntervalRow { t_s, name, actv, qued, figures });
        }
        let paths = rows(&mut self.model.paths.iter().map(|p| p.name.clone()), &snap.paths, &prev.paths);
        for (name, figures) in paths {
            self.path_intervals.push(ObjectIntervalRow { t_s, name, actv: 0.0, qued: 0.0, figures });
        }
    }

    /// Lets every I/O in flight finish, fails those that can never finish, checks that every
    /// I/O issued completed or failed exactly once, and returns the results.
    pub fn finish(mut self) -> Result<RunResult, RunError> {
        self.run_until(TimeNs::MAX);
        for d in 0..self.model.devices.len() {
            self.fail_waiting(d);
        }
        if let Some(e) = self.overloaded.take() {
            return Err(e);
        }
        if self.issued != self.completed + self.failed || self.ios.live() != 0 {
            return Err(RunError::Accounting(format!(
                "I/O accounting broken: issued {} but completed {} and failed {} ({} still alive)",
                self.issued,
                self.completed,
                self.failed,
                self.ios.live()
            )));
        }
        Ok(self.result())
    }

    fn result(&self) -> RunResult {
        let start = self.at_warmup.as_ref().expect("warm-up snapshot taken");
        let end = self.at_end.as_ref().expect("end snapshot taken");
        let secs = (end.time - start.time) as f64 / 1e9;
        let g = end.guest.since(&start.guest);
        let summary = Summary {
            figures: Figures::from_counters(
                &g,
                secs,
                end.outstanding_area - start.outstanding_area,
                self.window_max_ns,
            ),
            p50_ms: quantile_ms(&self.latency, 0.50),
            p90_ms: quantile_ms(&self.latency, 0.90),
            p99_ms: quantile_ms(&self.latency, 0.99),
            p999_ms: quantile_ms(&self.latency, 0.999),
            errors: end.paths.iter().zip(&start.paths).map(|(e, s)| e.errors - s.errors).sum(),
            retries: end.devices.iter().zip(&start.devices).map(|(e, s)| e.retries - s.retries).sum(),
            failed: self.failed,
        };
        let m = &self.model;
        let name_of = |id: PathId| m.paths[id.0 as usize].name.clone();
        let devices = m
            .devices
            .iter()
            .enumerate()
            .map(|(i, d)| DeviceResult {
                name: d.name.clone(),
                array: m.arrays[d.array].name.clone(),
                satp: d.satp.clone(),
                policy: d.policy_config.name().to_string(),
                device_config: d.policy.status(&name_of),
                working_paths: d.policy.working_paths().into_iter().map(name_of).collect(),
                dqlen: d.queue_depth,
                actv: level_mean(end.device_active_area[i] - start.device_active_area[i], secs),
                qued: level_mean(end.device_queued_area[i] - start.device_queued_area[i], secs),
                p99_ms: quantile_ms(&self.device_latency[i], 0.99),
                figures: EsxtopFigures::from_counters(&end.devices[i].since(&start.devices[i]), secs),
            })
            .collect();
        let paths = m
            .paths
            .iter()
            .enumerate()
            .map(|(i, p)| PathResult {
                name: p.name.clone(),
                device: m.devices[p.device].name.clone(),
                adapter: m.adapters[p.adapter].name.clone(),
                target: format!("{}/{}", m.arrays[m.ports[p.port].array].name, m.ports[p.port].name),
                state: if p.up { "active" } else { "dead" }.to_string(),
                alua: p.alua.short_name().to_string(),
                tpg_id: p.tpg_id,
                one_way_us: p.one_way_ns as f64 / 1e3,
                connected: p.connected,
                figures: EsxtopFigures::from_counters(&end.paths[i].since(&start.paths[i]), secs),
            })
            .collect();
        let adapters = m
            .adapters
            .iter()
            .enumerate()
            .map(|(i, a)| AdapterResult {
                name: a.name.clone(),
                aqlen: a.queue_depth,
                actv: level_mean(end.adapter_active_area[i] - start.adapter_active_area[i], secs),
                qued: level_mean(end.adapter_queued_area[i] - start.adapter_queued_area[i], secs),
                figures: EsxtopFigures::from_counters(&end.adapters[i].since(&start.adapters[i]), secs),
            })
            .collect();
        let station = |st: usize| StationResult {
            name: m.stations[st].name.clone(),
            cmds_s: (end.station_commands[st] - start.station_commands[st]) as f64 / secs.max(f64::MIN_POSITIVE),
            util_pct: 100.0 * level_mean(end.station_busy_area[st] - start.station_busy_area[st], secs)
                / f64::from(m.stations[st].servers),
        };
        let ports = m.ports.iter().map(|p| station(p.station)).collect();
        let controllers = m.controllers.iter().filter_map(|c| c.station).map(station).collect();
        let replication = m
            .replications
            .iter()
            .map(|r| ReplicationResult {
                name: r.name.clone(),
                arrays: r.arrays.map(|a| m.arrays[a].name.clone()),
                writes: r.writes,
                ownership_moves: r.contention.as_ref().map_or([0, 0], |c| c.transfers),
            })
            .collect();
        RunResult {
            scenario: self.plan.scenario.clone(),
            variant: self.plan.variant.clone(),
            seed: self.plan.seed,
            host: m.host_name.clone(),
            warmup_s: self.plan.warmup_ns as f64 / 1e9,
            duration_s: self.plan.duration_ns as f64 / 1e9,
            interval_s: self.plan.interval_ns as f64 / 1e9,
            summary,
            devices,
            paths,
            adapters,
            ports,
            controllers,
            replication,
            intervals: self.intervals.clone(),
            device_intervals: self.device_intervals.clone(),
            path_intervals: self.path_intervals.clone(),
            adapter_intervals: self.adapter_intervals.clone(),
            events: self.log.iter().map(|e| e.to_result(m)).collect(),
            accounting: Accounting {
                issued: self.issued,
                completed: self.completed,
                failed: self.failed,
                retried: self.retried,
                failovers: self.failovers,
                peak_in_flight: self.ios.capacity_used() as u64,
            },
        }
    }
}

/// A latency quantile in milliseconds; 0 for an empty histogram.
fn quantile_ms<T: hdrhistogram::Counter>(h: &Histogram<T>, q: f64) -> f64 {
    if h.is_empty() {
        0.0
    } else {
        h.value_at_quantile(q) as f64 / 1e6
    }
}

/// Mean level over a window from its integrated area (level × ns).
fn level_mean(area: u128, seconds: f64) -> f64 {
    if seconds > 0.0 {
        area as f64 / (seconds * 1e9)
    } else {
        0.0
    }
}
