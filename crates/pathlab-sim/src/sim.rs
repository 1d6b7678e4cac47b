//! The simulation: one host's workers issue I/O through the kernel's device queue, the path
//! selection policy, the adapter and the fabric to array ports, and back.
//!
//! The SCSI exchange (DOMAIN.md §3): a read costs one round trip (command out; data and status
//! back) plus the data transfer; a write costs two (command out, transfer-ready back, data out,
//! status back). Port service happens when the command (read) or the data (write) reaches the
//! port; the array's cache latency follows it.

use crate::engine::event_queue::EventQueue;
use crate::engine::slab::Slab;
use crate::engine::TimeNs;
use crate::model::{Adapter, Model};
use crate::observe::result::{
    Accounting, AdapterResult, DeviceResult, EsxtopFigures, Figures, IntervalRow, ObjectIntervalRow, PathResult,
    PortResult, RunResult, Summary,
};
use crate::observe::{Completion, IoCounters, Recorder, Snapshot};
use crate::workload::{IoAttrs, Loop, Worker};
use hdrhistogram::Histogram;
use pathlab_policy::{IoDesc, IoDone, PathId};

#[derive(Clone, Copy, Debug)]
enum Event {
    /// An open-loop worker issues its next I/O.
    Arrival {
        worker: u32,
    },
    /// The command (read) or the data (write) reaches the array port.
    AtPort {
        io: u32,
        attempt: u32,
    },
    /// Transfer-ready reached the host: the write's data goes on the link.
    SendWriteData {
        io: u32,
        attempt: u32,
    },
    /// A port finished serving an I/O.
    PortDone {
        port: u32,
        io: u32,
        attempt: u32,
    },
    /// The status reached the host.
    Complete {
        io: u32,
        attempt: u32,
    },
    PathState {
        path: u32,
        up: bool,
    },
    Sample,
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
    /// Changes at every dispatch: events of an abandoned attempt no longer match and are dropped.
    attempt: u32,
    state: IoState,
}

impl Io {
    fn desc(&self) -> IoDesc {
        IoDesc { bytes: self.attrs.bytes, is_write: self.attrs.is_write, cpu: self.cpu }
    }
}

/// A scheduled change of path state, resolved to path indices.
#[derive(Clone, Debug)]
pub struct PathEvent {
    pub at_ns: TimeNs,
    pub paths: Vec<usize>,
    pub up: bool,
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
    device_latency: Vec<Histogram<u64>>,
    window_max_ns: u64,
    interval_max_ns: u64,
    last_sample: Snapshot,
    at_warmup: Option<Snapshot>,
    at_end: Option<Snapshot>,
    intervals: Vec<IntervalRow>,
    device_intervals: Vec<ObjectIntervalRow>,
    path_intervals: Vec<ObjectIntervalRow>,
    adapter_intervals: Vec<ObjectIntervalRow>,
    issued: u64,
    completed: u64,
    failed: u64,
    retried: u64,
}

fn new_histogram() -> Histogram<u64> {
    // 1 ns to 1 hour at 3 significant digits: fixed size whatever the run's length.
    Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid histogram bounds")
}

impl Simulation {
    pub fn new(model: Model, workers: Vec<Worker>, plan: RunPlan, path_events: Vec<PathEvent>) -> Self {
        let rec = Recorder::new(model.devices.len(), model.paths.len(), model.adapters.len(), model.ports.len());
        let last_sample = rec.snapshot(0);
        let device_latency = model.devices.iter().map(|_| new_histogram()).collect();
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
            issued: 0,
            completed: 0,
            failed: 0,
            retried: 0,
            plan,
        };
        // Intervals restart at the end of the warm-up, so that none straddles it.
        let end = sim.measure_end();
        let (warmup, step) = (sim.plan.warmup_ns, sim.plan.interval_ns);
        let boundaries = (1..)
            .map(|k| k * step)
            .take_while(|&t| t < warmup)
            .chain((0..).map(|k| warmup + k * step).skip_while(|&t| t == 0).take_while(|&t| t < end));
        for t in boundaries.chain([end]) {
            sim.events.schedule(t, Event::Sample);
        }
        if sim.plan.warmup_ns > 0 {
            sim.events.schedule(sim.plan.warmup_ns, Event::WarmupEnd);
        }
        sim.events.schedule(end, Event::MeasureEnd);
        for e in path_events.iter().filter(|e| e.at_ns < end) {
            for &p in &e.paths {
                sim.events.schedule(e.at_ns, Event::PathState { path: p as u32, up: e.up });
            }
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

    /// End of the measurement window: no I/O is issued after it.
    pub fn measure_end(&self) -> TimeNs {
        self.plan.warmup_ns + self.plan.duration_ns
    }

    /// Processes every event up to and including time `until`.
    pub fn run_until(&mut self, until: TimeNs) {
        while let Some(t) = self.events.peek_time() {
            if t > until {
                break;
            }
            let (t, event) = self.events.pop().expect("peeked");
            self.now = t;
            self.handle(event);
        }
        self.now = self.now.max(until.min(self.measure_end()));
    }

    fn handle(&mut self, event: Event) {
        match event {
            Event::Arrival { worker } => {
                let w = worker as usize;
                self.issue(w);
                let next = self.now + self.workers[w].next_gap_ns();
                if next < self.measure_end() {
                    self.events.schedule(next, Event::Arrival { worker });
                }
            }
            Event::AtPort { io, attempt } => self.at_port(io, attempt),
            Event::SendWriteData { io, attempt } => self.send_write_data(io, attempt),
            Event::PortDone { port, io, attempt } => self.port_done(port as usize, io, attempt),
            Event::Complete { io, attempt } => self.complete(io, attempt),
            Event::PathState { path, up } => self.set_path_state(path as usize, up),
            Event::Sample => self.sample(),
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
            attempt: 0,
            state: IoState::Queued,
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
                // No usable path: everything queued waits for one to come back.
                let waiting: Vec<u32> = device.queue.drain(..).collect();
                device.no_path.extend(waiting);
                return;
            };
            device.queue.pop_front();
            device.active += 1;
            device.policy.start_io(PathId(p), &desc, self.now);
            self.rec.device_queued[d].add(self.now, -1);
            self.rec.device_active[d].add(self.now, 1);
            self.ios.get_mut(io).path = p;
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
        r.state = IoState::InFlight;
        r.dispatched_at = now;
        r.attempt = attempt;
        let (is_write, p) = (r.attrs.is_write, r.path as usize);
        let path = &self.model.paths[p];
        let one_way = path.one_way_ns;
        let adapter = &mut self.model.adapters[path.adapter];
        adapter.active += 1;
        self.model.host.nexus_outstanding[path.nexus] += 1;
        let timed_link = adapter.bytes_per_ns.is_some();
        self.rec.adapter_active[path.adapter].add(now, 1);
        let event = match (is_write, timed_link) {
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
        let sent = Adapter::transfer(&mut adapter.tx_free_at, adapter.bytes_per_ns, self.now, r.attrs.bytes);
        self.events.schedule(sent + path.one_way_ns, Event::AtPort { io, attempt });
    }

    fn at_port(&mut self, io: u32, attempt: u32) {
        if !self.current(io, attempt) {
            return; // lost with its path
        }
        let r = self.ios.get(io);
        let p = self.model.paths[r.path as usize].port;
        let port = &mut self.model.ports[p];
        let service = port.service.sample_ns(r.attrs.bytes, r.attrs.service_quantile);
        if port.busy < port.servers {
            self.start_service(p, io, attempt, service);
        } else {
            port.queue.push_back((io, attempt, service));
        }
    }

    fn start_service(&mut self, p: usize, io: u32, attempt: u32, service_ns: TimeNs) {
        self.model.ports[p].busy += 1;
        self.rec.port_busy[p].add(self.now, 1);
        self.rec.port_commands[p] += 1;
        self.events.schedule(self.now + service_ns, Event::PortDone { port: p as u32, io, attempt });
    }

    fn port_done(&mut self, p: usize, io: u32, attempt: u32) {
        // The port serves whatever reached it, even work whose path has since failed.
        self.model.ports[p].busy -= 1;
        self.rec.port_busy[p].add(self.now, -1);
        if let Some((next, next_attempt, service)) = self.model.ports[p].queue.pop_front() {
            self.start_service(p, next, next_attempt, service);
        }
        if !self.current(io, attempt) {
            return;
        }
        let r = *self.ios.get(io);
        let path = &self.model.paths[r.path as usize];
        let array = &self.model.arrays[self.model.ports[p].array];
        let done = if r.attrs.is_write {
            self.now + array.write_latency_ns + path.one_way_ns
        } else {
            let adapter = &mut self.model.adapters[path.adapter];
            let leaves = self.now + array.read_latency_ns + path.one_way_ns;
            Adapter::transfer(&mut adapter.rx_free_at, adapter.bytes_per_ns, leaves, r.attrs.bytes)
        };
        self.events.schedule(done, Event::Complete { io, attempt });
    }

    fn complete(&mut self, io: u32, attempt: u32) {
        if !self.current(io, attempt) {
            return;
        }
        let now = self.now;
        let r = *self.ios.get(io);
        let (d, p) = (r.device as usize, r.path as usize);
        let a = self.model.paths[p].adapter;
        let c = Completion {
            bytes: r.attrs.bytes,
            is_write: r.attrs.is_write,
            driver_ns: now - r.dispatched_at,
            kernel_ns: r.dispatched_at - r.issued_at,
        };
        self.rec.paths[p].record(&c);
        self.rec.devices[d].record(&c);
        self.rec.adapters[a].record(&c);
        self.rec.guest.record(&c);
        let resp = now - r.issued_at;
        if self.measuring {
            self.latency.saturating_record(resp.max(1));
            self.device_latency[d].saturating_record(resp.max(1));
            self.window_max_ns = self.window_max_ns.max(resp);
        }
        self.interval_max_ns = self.interval_max_ns.max(resp);
        let done = IoDone { now_ns: now, latency_ns: c.driver_ns, failed: false };
        self.model.devices[d].policy.end_io(PathId(p as u32), &r.desc(), &done);
        self.completed += 1;
        self.release_slot(p);
        self.rec.device_active[d].add(now, -1);
        self.model.devices[d].active -= 1;
        self.retire(io);
        self.dispatch_adapter(a);
        self.dispatch_device(d);
        if self.issuing {
            if let Loop::Closed { .. } = self.workers[r.worker as usize].mode {
                self.issue(r.worker as usize);
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

    fn set_path_state(&mut self, p: usize, up: bool) {
        if self.model.paths[p].up == up {
            return;
        }
        self.model.paths[p].up = up;
        let d = self.model.paths[p].device;
        let now = self.now;
        if up {
            self.model.devices[d].policy.reinstate_path(PathId(p as u32));
            let device = &mut self.model.devices[d];
            let waiting: Vec<u32> = device.no_path.drain(..).collect();
            for io in waiting.into_iter().rev() {
                device.queue.push_front(io);
            }
            self.dispatch_device(d);
            return;
        }
        self.model.devices[d].policy.fail_path(PathId(p as u32));
        // Every command on the failed path comes back with an error and is retried on another
        // path, ahead of the I/Os that never left the kernel.
        let aborted: Vec<u32> = self
            .ios
            .iter_mut()
            .filter(|(_, r)| r.path as usize == p && matches!(r.state, IoState::InFlight | IoState::WaitAdapter))
            .map(|(i, _)| i)
            .collect();
        let a = self.model.paths[p].adapter;
        for &io in &aborted {
            let r = *self.ios.get(io);
            if r.state == IoState::InFlight {
                self.release_slot(p);
            } else {
                self.model.adapters[a].waiting.retain(|&w| w != io);
                self.rec.adapter_queued[a].add(now, -1);
            }
            let done = IoDone { now_ns: now, latency_ns: now - r.dispatched_at, failed: true };
            self.model.devices[d].policy.end_io(PathId(p as u32), &r.desc(), &done);
            self.model.devices[d].active -= 1;
            self.rec.device_active[d].add(now, -1);
            self.rec.device_queued[d].add(now, 1);
            self.rec.paths[p].errors += 1;
            self.rec.devices[d].retries += 1;
            self.retried += 1;
            // Queued again: events of the abandoned attempt no longer match.
            self.ios.get_mut(io).state = IoState::Queued;
        }
        let device = &mut self.model.devices[d];
        for &io in aborted.iter().rev() {
            device.queue.push_front(io);
        }
        self.dispatch_adapter(a);
        self.dispatch_device(d);
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
    pub fn finish(mut self) -> Result<RunResult, String> {
        self.run_until(TimeNs::MAX);
        for d in 0..self.model.devices.len() {
            let device = &mut self.model.devices[d];
            let stuck: Vec<u32> = device.no_path.drain(..).chain(device.queue.drain(..)).collect();
            for io in stuck {
                self.failed += 1;
                self.rec.device_queued[d].add(self.now, -1);
                self.retire(io);
            }
        }
        if self.issued != self.completed + self.failed || self.ios.live() != 0 {
            return Err(format!(
                "I/O accounting broken: issued {} but completed {} and failed {} ({} still alive)",
                self.issued,
                self.completed,
                self.failed,
                self.ios.live()
            ));
        }
        Ok(self.result())
    }

    fn result(&self) -> RunResult {
        let start = self.at_warmup.as_ref().expect("warm-up snapshot taken");
        let end = self.at_end.as_ref().expect("end snapshot taken");
        let secs = (end.time - start.time) as f64 / 1e9;
        let g = end.guest.since(&start.guest);
        let ms = |h: &Histogram<u64>, q: f64| {
            if h.is_empty() {
                0.0
            } else {
                h.value_at_quantile(q) as f64 / 1e6
            }
        };
        let summary = Summary {
            figures: Figures::from_counters(
                &g,
                secs,
                end.outstanding_area - start.outstanding_area,
                self.window_max_ns,
            ),
            p50_ms: ms(&self.latency, 0.50),
            p90_ms: ms(&self.latency, 0.90),
            p99_ms: ms(&self.latency, 0.99),
            p999_ms: ms(&self.latency, 0.999),
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
                policy: d.policy_config.name().to_string(),
                device_config: d.policy.status(&name_of),
                working_paths: d.policy.working_paths().into_iter().map(name_of).collect(),
                dqlen: d.queue_depth,
                actv: level_mean(end.device_active_area[i] - start.device_active_area[i], secs),
                qued: level_mean(end.device_queued_area[i] - start.device_queued_area[i], secs),
                p99_ms: ms(&self.device_latency[i], 0.99),
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
                one_way_us: p.one_way_ns as f64 / 1e3,
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
        let ports = m
            .ports
            .iter()
            .enumerate()
            .map(|(i, p)| PortResult {
                name: format!("{}/{}", m.arrays[p.array].name, p.name),
                cmds_s: (end.port_commands[i] - start.port_commands[i]) as f64 / secs.max(f64::MIN_POSITIVE),
                util_pct: 100.0 * level_mean(end.port_busy_area[i] - start.port_busy_area[i], secs)
                    / f64::from(p.servers),
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
            intervals: self.intervals.clone(),
            device_intervals: self.device_intervals.clone(),
            path_intervals: self.path_intervals.clone(),
            adapter_intervals: self.adapter_intervals.clone(),
            accounting: Accounting {
                issued: self.issued,
                completed: self.completed,
                failed: self.failed,
                retried: self.retried,
                peak_in_flight: self.ios.capacity_used() as u64,
            },
        }
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
