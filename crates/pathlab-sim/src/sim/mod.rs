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
//! One idea per file: this one holds the state and dispatches events; `io_life.rs` is an I/O's
//! life on the host (issue, device queue, adapter slot, completion, reaping); `route.rs` the
//! wire and the arrays; `contention.rs` the extent ownership protocol; `failure.rs` faults and
//! each stack's handling of them (errors, timeouts, failover, no path; the per-I/O path only
//! checks a path's flags); `ana.rs` NVMe's ANA change state and its ANATT timer;
//! `nvme_head.rs` how long an NVMe namespace's I/O waits for its controllers; `keep_alive.rs`
//! what Linux's traffic-based keep-alive reads of each connection's completions; `shaky.rs` multipathd's shaky-path checks at its checker's ticks;
//! `balance.rs` an array's periodic rebalancing pass; `coalescing.rs` an adapter's interrupt
//! coalescing; `sampling.rs` the interval rows;
//! `result.rs` the end of the run.
//! Time and the event queue are `engine::scheduler`; counters are `observe::Recorder`, fed one
//! call per observation; levels (active, queued, busy) are the model objects' own gauges.

mod alua_transition;
mod ana;
mod anatt_timer;
mod backend;
mod balance;
mod coalescing;
mod contention;
mod failure;
mod io_life;
mod keep_alive;
mod known_at_send;
mod never_wait;
mod nvme_head;
mod plan;
mod read_ahead;
mod result;
mod route;
mod sampling;
mod shaky;

use crate::engine::rng::{Purpose, Stream};
use crate::engine::scheduler::Scheduler;
use crate::engine::slab::Slab;
use crate::engine::TimeNs;
use crate::model::fault::ScheduledFault;
use crate::model::tags::IDLE_CHECK_NS;
use crate::model::Model;
use crate::observe::recovery::PathsInUse;
use crate::observe::responses_kept::{KeptResponses, ResponseScope};
use crate::observe::result::{IntervalRow, ObjectIntervalRow};
use crate::observe::{Recorder, Snapshot};
use crate::scenario::limits::MAX_LIVE_IOS;
use crate::workload::{IoAttrs, Loop, Worker};
use failure::LogEntry;
use pathlab_policy::IoDesc;

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
    /// A station (port, controller, disk) finished serving an I/O (a disk: an operation of a
    /// back-end request, whose id `io` then holds).
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
    /// A request for an extent (its id in `model::contention`) reaches the array that owns it.
    ExtentRequest {
        group: u32,
        extent: u32,
    },
    /// The grant of an extent reaches the array that asked for it.
    ExtentGrant {
        group: u32,
        extent: u32,
    },
    /// The status reached the host.
    Complete {
        io: u32,
        attempt: u32,
    },
    /// The status reached an adapter that coalesces interrupts (`coalescing.rs`).
    AtAdapter {
        io: u32,
        attempt: u32,
    },
    /// An adapter's interrupt delay is over (`hold`: the adapter's count of holds when it began).
    InterruptDue {
        adapter: u32,
        hold: u32,
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
    /// The host finds that a path lost its connection (`loss`: the path's count of losses when
    /// it was scheduled): by its probe `step` (an index into `StackRules::probes`), or, with
    /// `HOLD_ENDS`, the hold of a blocked path is over and the host fails it.
    Detect {
        path: u32,
        loss: u32,
        step: u8,
    },
    /// TP4129: I/O held after a controller's loss may be retried now.
    Release {
        path: u32,
    },
    /// NVMe: the ANATT timer of a path's controller runs out (`change`: the path's count of
    /// ANA changes when it was armed; `ana.rs`).
    Anatt {
        path: u32,
        change: u32,
    },
    /// Linux NVMe: the ANATT timer of a host-controller connection (`nexus`) runs out
    /// (`generation`: its count of settings when it was set; `anatt_timer.rs`).
    ControllerAnatt {
        nexus: u32,
        generation: u32,
    },
    /// The block layer's timeout timers find idle namespaces (`model::tags`).
    TagIdleCheck,
    /// An array's balancer makes its periodic pass (`model::balance`).
    Rebalance {
        array: u32,
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
    /// A command refused with BUSY is sent again (`Step::Admit`).
    Resend {
        io: u32,
        attempt: u32,
    },
    /// A host pauses (`model::pause`).
    HostPause {
        host: u32,
    },
    /// A pause is over: the application sees a completion it could not see during it.
    Reap {
        io: u32,
    },
    WarmupEnd,
    MeasureEnd,
}

// Events are most of what the engine moves: 16 bytes keep a queue entry at 32.
const _: () = assert!(std::mem::size_of::<Event>() == 16);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum IoState {
    Free,
    /// In the device queue, or waiting for a usable path.
    Queued,
    /// Has a path, waits for a blk-mq tag of the path's controller (`model::tags`).
    WaitTag,
    /// Has a path, waits for a command slot of the path's own queue (`Device::per_path_depth`).
    WaitPath,
    /// Has a path, waits for an adapter slot.
    WaitAdapter,
    /// Issued to the driver.
    InFlight,
    /// Completed by the kernel; the application has not seen it yet (a host pause).
    Reaping,
}

/// An I/O's record: what its events read and write, in one cache line (`repr(C, align(64))`);
/// what only some models read (the offset, where a write stands with its extent, when the kernel
/// completed it if the application sees it later) is apart, in `IoRest`. On a host of many
/// devices the records of the I/Os in flight do not stay in the cache from one event to the
/// next: as two lines (the ticket and attributes in the first, the times, the extent and the
/// kernel's end in the second, session 25) the response's release of the extent and the
/// completion's times each missed the second line again (10,000 × 8 × 1, session 26).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Io {
    state: IoState,
    /// Next step of the route.
    stage: u8,
    /// Errors met so far (against the stack's retries).
    errors: u8,
    is_write: bool,
    /// Changes at every dispatch: events of an abandoned attempt no longer match and are dropped.
    attempt: u32,
    device: u32,
    path: u32,
    route: u32,
    worker: u32,
    bytes: u64,
    /// Key of the I/O's service draws (`IoAttrs::service_key`).
    service_key: u64,
    issued_at: TimeNs,
    dispatched_at: TimeNs,
    cpu: u32,
    /// The path the previous attempt erred on, until the retry is dispatched; `NOT_A_RETRY`.
    retry_of: u32,
}

const _: () = assert!(std::mem::size_of::<Io>() == 64);

/// What some models read of an I/O beyond its record, by the record's index (`Simulation::io_rest`).
#[derive(Clone, Copy, Debug)]
struct IoRest {
    /// Its offset, kept only where something reads it (`Model::reads_offsets`).
    offset: u64,
    /// When the kernel completed it, written only where the application sees it later (a host
    /// stack's time, a pause: the `Reap` event).
    kernel_done_at: TimeNs,
    /// Kept only where writes take extents (`Replication::contention`).
    extent: ExtentHold,
}

impl Default for IoRest {
    fn default() -> Self {
        IoRest { offset: 0, kernel_done_at: 0, extent: ExtentHold::None }
    }
}

const NOT_A_RETRY: u32 = u32::MAX;

/// `Io::dispatched_at` of an I/O whose last command was given up before it left the host
/// (waiting for an adapter slot, a tag or its path's queue): no copy of it can land late.
const NEVER_SENT: TimeNs = TimeNs::MAX;

/// Why a run could not produce a result.
#[derive(Debug, Clone)]
pub enum RunError {
    /// The workload asked for more than the host could hold in flight: bad input, not a bug.
    Overloaded { field: String, message: String },
    /// An I/O was lost or counted twice: a bug in the engine.
    Accounting(String),
    /// The end asked for responses the simulation was made not to keep (`run::simulation_keeping`): a bug in
    /// the caller.
    NotKept(ResponseScope),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Overloaded { field, message } => write!(f, "{field}: {message}"),
            RunError::Accounting(m) => f.write_str(m),
            RunError::NotKept(scope) => {
                write!(f, "the simulation was made to keep {scope:?} responses, not what its end reads")
            }
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
        IoDesc { bytes: self.bytes, is_write: self.is_write, cpu: self.cpu }
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
    /// Whether interval rows are built per path (off for a ranking's runs, which read none: on
    /// a host of thousands of paths they are most of the result).
    pub path_intervals: bool,
    /// What the run's end reads of the devices' responses, and so what it keeps.
    pub responses: ResponseScope,
    /// The scenario's faults as windows on the timeline (`observe::recovery` reads them).
    pub fault_windows: Vec<crate::scenario::fault_windows::FaultWindow>,
}

pub struct Simulation {
    model: Model,
    workers: Vec<Worker>,
    plan: RunPlan,
    events: Scheduler<Event>,
    ios: Slab<Io>,
    /// Per slot of `ios`: what some models read beyond the record (`IoRest`).
    io_rest: Vec<IoRest>,
    /// Whether anything reads an I/O's offset or extent (`Model::reads_offsets`: extent
    /// ownership, RAID back ends): only then are they kept in `io_rest`.
    keeps_offsets: bool,
    /// The model has none of the mechanisms the plain step plan leaves out (`plan.rs`): the
    /// events run through the hot steps' plain instance.
    plain: bool,
    /// Per station: it never makes work wait, and its service's end is no event of its own
    /// (`never_wait.rs`); whether any does.
    never_wait: Vec<bool>,
    never_wait_any: bool,
    /// Per route: the station, where the route is one station that never makes work wait and its
    /// I/O's `Complete` is scheduled as it is sent (`known_at_send.rs`).
    known_at_send: Vec<Option<u32>>,
    /// Requests on RAID groups' disks (`model::backend`), by the id their disk work carries.
    requests: Slab<crate::model::backend::Request>,
    next_attempt: u32,
    issuing: bool,
    /// On a host of many devices: where a completion's lines are read ahead (`read_ahead.rs`).
    read_ahead: read_ahead::ReadAhead,
    rec: Recorder,
    last_sample: Snapshot,
    at_warmup: Option<Snapshot>,
    at_end: Option<Snapshot>,
    /// Age of the oldest I/O still in flight when the measurement ended.
    oldest_in_flight_ns: TimeNs,
    intervals: Vec<IntervalRow>,
    device_intervals: Vec<ObjectIntervalRow>,
    path_intervals: Vec<ObjectIntervalRow>,
    adapter_intervals: Vec<ObjectIntervalRow>,
    row_names: sampling::RowNames,
    faults: Vec<ScheduledFault>,
    /// One stream per path for the errors of flaky paths.
    fault_rng: Vec<Stream>,
    /// Per path: multipathd's shaky-path checks (`shaky.rs`).
    checks: Vec<shaky::PathChecks>,
    /// Per host: its pauses' own stream (`model::pause`; when the pause ends: `Model::host_reaping`).
    pause_rng: Vec<Stream>,
    /// Draws of ports refusing commands (`Step::Admit`).
    busy_rng: Stream,
    /// The next interval boundary. Samples are kept out of the event queue (one at a time, not
    /// all scheduled up front) and run before any event of the same time.
    next_sample_at: Option<TimeNs>,
    /// Set when open-loop arrivals pile up beyond what memory allows: the run stops issuing.
    overloaded: Option<RunError>,
    log: Vec<LogEntry>,
    /// Outages of any device so far: tells a give-up timer from an older one.
    outages: u32,
    /// Each device's paths in use at each interval boundary, on runs with faults.
    paths_in_use: Option<PathsInUse>,
    /// Per path: I/O held after its loss (TP4129), with when each may be retried.
    held: Vec<Vec<(u32, TimeNs)>>,
    /// Per device: writes retried on another path while their first copy could still land.
    hazards: Vec<u64>,
    /// Per path: its ANA changes and ANATT timer (`ana.rs`).
    ana: Vec<ana::AnaPath>,
    /// Per host-controller connection (nexus): Linux's ANATT timer, from the first ANA change
    /// (`anatt_timer.rs`).
    anatt_timers: anatt_timer::ControllerTimers,
    /// Per host-controller connection: what traffic-based keep-alive reads (`keep_alive.rs`).
    keep_alive_seen: keep_alive::Completions,
}

impl Simulation {
    pub fn new(model: Model, workers: Vec<Worker>, plan: RunPlan, faults: Vec<ScheduledFault>) -> Self {
        let responses = KeptResponses::new(plan.responses, model.devices.len(), model.host_names.len());
        let rec = Recorder::new(responses, plan.warmup_ns == 0);
        let last_sample = rec.snapshot(&model, 0);
        let model_paths = model.paths.len();
        let model_devices = model.devices.len();
        let keeps_offsets = model.reads_offsets();
        let fault_rng = (0..model.paths.len()).map(|p| Stream::new(plan.seed, p as u64, Purpose::Faults)).collect();
        let hosts = model.host_pauses.len();
        let pause_rng = (0..hosts as u64).map(|h| Stream::new(plan.seed, h, Purpose::HostPauses)).collect();
        let row_names = sampling::RowNames::new();
        let mut sim = Simulation {
            model,
            workers,
            events: Scheduler::default(),
            ios: Slab::default(),
            io_rest: Vec::new(),
            keeps_offsets,
            plain: false,
            never_wait: Vec::new(),
            never_wait_any: false,
            known_at_send: Vec::new(),
            requests: Slab::default(),
            next_attempt: 0,
            issuing: true,
            read_ahead: read_ahead::ReadAhead::new(model_devices),
            rec,
            at_warmup: (plan.warmup_ns == 0).then(|| last_sample.clone()),
            last_sample,
            at_end: None,
            oldest_in_flight_ns: 0,
            intervals: Vec::new(),
            device_intervals: Vec::new(),
            path_intervals: Vec::new(),
            adapter_intervals: Vec::new(),
            row_names,
            faults,
            fault_rng,
            checks: vec![shaky::PathChecks::default(); model_paths],
            pause_rng,
            busy_rng: Stream::new(plan.seed, 0, Purpose::Busy),
            next_sample_at: None,
            overloaded: None,
            log: Vec::new(),
            outages: 0,
            paths_in_use: (!plan.fault_windows.is_empty()).then(|| PathsInUse::new(model_devices)),
            held: vec![Vec::new(); model_paths],
            hazards: vec![0; model_devices],
            ana: vec![ana::AnaPath::default(); model_paths],
            anatt_timers: anatt_timer::ControllerTimers::default(),
            keep_alive_seen: None,
            plan,
        };
        sim.keep_alive_seen = sim.keep_alive_completions();
        sim.plain = sim.plain_plan();
        sim.never_wait = sim.stations_that_never_wait();
        sim.never_wait_any = sim.never_wait.contains(&true);
        sim.known_at_send = sim.routes_known_at_send();
        sim.see_paths_in_use();
        let end = sim.measure_end();
        sim.next_sample_at = sim.sample_after(0);
        if sim.plan.warmup_ns > 0 {
            sim.events.at(sim.plan.warmup_ns, Event::WarmupEnd);
        }
        sim.events.at(end, Event::MeasureEnd);
        for host in 0..sim.model.host_pauses.len() {
            if let Some(pauses) = sim.model.host_pauses[host] {
                let first = pauses.next_gap_ns(&mut sim.pause_rng[host]);
                if first < end {
                    sim.events.at(first, Event::HostPause { host: host as u32 });
                }
            }
        }
        for (array, a) in sim.model.arrays.iter().enumerate() {
            if let Some(b) = a.balance.filter(|b| b.period_ns < end) {
                sim.events.at(b.period_ns, Event::Rebalance { array: array as u32 });
            }
        }
        if !sim.model.tags.pools.is_empty() && IDLE_CHECK_NS < end {
            sim.events.at(IDLE_CHECK_NS, Event::TagIdleCheck);
        }
        for (index, f) in sim.faults.iter().enumerate() {
            sim.events.at(f.at_ns, Event::Fault { index: index as u32 });
        }
        for w in 0..sim.workers.len() {
            match sim.workers[w].mode {
                Loop::Closed { outstanding } => (0..outstanding).for_each(|_| sim.issue(w)),
                Loop::Open { .. } => {
                    let gap = sim.workers[w].next_gap_ns();
                    sim.events.at(gap, Event::Arrival { worker: w as u32 });
                }
            }
        }
        sim
    }

    pub fn now(&self) -> TimeNs {
        self.events.now()
    }

    /// Devices and paths as the host's tools would show them now.
    pub fn describe(&self) -> crate::observe::describe::Description {
        crate::observe::describe::describe(&self.model, self.events.now())
    }

    /// Each device's resolved policy, status, stack and array now.
    pub fn device_setups(&self) -> Vec<crate::observe::devices::DeviceSetup> {
        crate::observe::devices::setups(&self.model)
    }

    /// End of the measurement window: no I/O is issued after it.
    pub fn measure_end(&self) -> TimeNs {
        self.plan.warmup_ns + self.plan.duration_ns
    }

    /// Processes every event up to and including time `until`.
    pub fn run_until(&mut self, until: TimeNs) {
        if self.plain {
            self.run_plan_until::<true>(until)
        } else {
            self.run_plan_until::<false>(until)
        }
    }

    /// `run_until` by the step plan's instance (`plan.rs`).
    fn run_plan_until<const PLAIN: bool>(&mut self, until: TimeNs) {
        loop {
            // The events before the next sample without looking for it at each event (a sample
            // comes first at its own time, and times are whole nanoseconds), then the sample.
            let before_sample = self.next_sample_at.filter(|&t| t <= until).map_or(until, |t| t - 1);
            while let Some(event) = self.events.next_until(before_sample) {
                self.handle::<PLAIN>(event);
            }
            if !self.step_until(until) {
                break;
            }
        }
        self.events.advance_to(until.min(self.measure_end()));
    }

    /// Processes the next event (or interval sample) if it is due by `until`; false when none is.
    /// A sample due at the time of an event comes first.
    pub fn step_until(&mut self, until: TimeNs) -> bool {
        let next_event = self.events.next_time();
        if let Some(t) = self.next_sample_at.filter(|&t| t <= until && next_event.is_none_or(|e| t <= e)) {
            self.events.advance_to(t);
            self.sample();
            self.next_sample_at = self.sample_after(t);
            return true;
        }
        match self.events.next_until(until) {
            Some(event) => {
                self.handle::<false>(event);
                true
            }
            None => false,
        }
    }

    #[inline(always)]
    fn handle<const PLAIN: bool>(&mut self, event: Event) {
        // The events that belong to one attempt of an I/O (AtPort, StepDone, SendWriteData,
        // Complete, AtAdapter, Resend, Timeout: those carrying `attempt`, its ticket) are dropped unhandled
        // once the I/O has moved to another attempt or ended, checked in the one dispatch on the
        // event's kind. A station's `StationDone` is not among them: the station serves whatever
        // reached it, even work whose path has since failed (`station_done` checks afterwards).
        // The plain plan schedules no timeout, retry or refusal: every event is current.
        macro_rules! current {
            ($io:expr, $attempt:expr) => {
                debug_assert!(!PLAIN || self.current($io, $attempt), "a stale event in the plain plan");
                if !PLAIN && !self.current($io, $attempt) {
                    return;
                }
            };
        }
        match event {
            Event::Arrival { worker } => {
                let w = worker as usize;
                if self.ios.live() >= MAX_LIVE_IOS {
                    return self.overload(w);
                }
                self.issue_in::<PLAIN>(w, None);
                let next = self.events.now() + self.workers[w].next_gap_ns();
                if next < self.measure_end() {
                    self.events.at(next, Event::Arrival { worker });
                }
            }
            Event::AtPort { io, attempt } | Event::StepDone { io, attempt } => {
                current!(io, attempt);
                self.advance::<PLAIN>(io, attempt)
            }
            Event::SendWriteData { io, attempt } => {
                current!(io, attempt);
                self.send_write_data(io, attempt)
            }
            Event::StationDone { station, io, attempt } => self.station_done::<PLAIN>(station as usize, io, attempt),
            Event::ExtentRequest { group, extent } => self.extent_request(group, extent),
            Event::ExtentGrant { group, extent } => self.extent_grant(group, extent),
            Event::Complete { io, attempt } => {
                current!(io, attempt);
                self.complete::<PLAIN>(io)
            }
            Event::AtAdapter { io, attempt } => {
                current!(io, attempt);
                self.at_adapter(io, attempt)
            }
            Event::InterruptDue { adapter, hold } => self.interrupt_due(adapter as usize, hold),
            Event::Reap { io } => self.reap_unless_paused(io),
            Event::Resend { io, attempt } => {
                current!(io, attempt);
                self.resend(io)
            }
            Event::HostPause { host } => self.host_pause(host as usize),
            Event::Fault { index } => self.apply_fault(index as usize),
            Event::Timeout { io, attempt } => {
                current!(io, attempt);
                // A blocked path's commands wait for the hold's end, not their timeout.
                if !self.model.paths[self.ios.get(io).path as usize].blocked {
                    self.command_error(io)
                }
            }
            Event::Reinstate { path } => self.checker_sees(path as usize),
            Event::Detect { path, loss, step } => self.detect(path as usize, loss, step),
            Event::Release { path } => self.release_held(path as usize),
            Event::Anatt { path, change } => self.anatt_expired(path as usize, change),
            Event::ControllerAnatt { nexus, generation } => self.controller_anatt_expired(nexus as usize, generation),
            Event::GiveUp { device, episode } => self.give_up(device as usize, episode),
            Event::Rebalance { array } => self.rebalance(array as usize),
            Event::TagIdleCheck => self.tag_idle_check(),
            Event::Reissue { worker } => {
                if self.issuing {
                    self.issue_in::<PLAIN>(worker as usize, None);
                }
            }
            Event::WarmupEnd => {
                self.rec.set_measuring(true);
                let mut at_warmup = self.rec.snapshot(&self.model, self.events.now());
                self.take_off_services_to_come(&mut at_warmup);
                self.at_warmup = Some(at_warmup);
            }
            Event::MeasureEnd => {
                self.rec.set_measuring(false);
                self.rec.stop_timing_stalls(&mut self.model, self.events.now());
                self.issuing = false;
                let mut at_end = self.rec.snapshot(&self.model, self.events.now());
                self.take_off_services_to_come(&mut at_end);
                self.at_end = Some(at_end);
                let now = self.events.now();
                let alive = self.ios.iter().filter(|io| io.state != IoState::Free);
                self.oldest_in_flight_ns = alive.map(|io| now - io.issued_at).max().unwrap_or(0);
            }
        }
    }

    /// I/O `io`'s attributes as its worker drew them (its offset where one is kept).
    fn io_attrs(&self, io: u32) -> IoAttrs {
        let r = self.ios.get(io);
        IoAttrs {
            bytes: r.bytes,
            is_write: r.is_write,
            offset: self.io_rest[io as usize].offset,
            service_key: r.service_key,
        }
    }

    /// Whether `attempt` is the I/O's attempt in flight: the ticket of its events.
    pub(super) fn current(&self, io: u32, attempt: u32) -> bool {
        let r = self.ios.get(io);
        r.state == IoState::InFlight && r.attempt == attempt
    }
}
