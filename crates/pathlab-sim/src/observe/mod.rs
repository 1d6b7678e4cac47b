//! Observation: the simulation reports completions, errors and retries; this module accumulates
//! them into cumulative counters, reads the model's gauges, and turns differences of snapshots into the figures people read
//! (vdbench's summary line, esxtop's per-object columns). Memory is fixed per object.

pub mod application;
pub mod describe;
pub mod device_latency;
pub mod devices;
pub mod host_latency;
pub mod recovery;
pub mod response_counts;
pub mod responses_kept;
pub mod result;
pub mod window;

use crate::engine::TimeNs;
use crate::model::Model;
use application::{DeviceWatch, FailedIos};
use response_counts::ResponseCounts;
use responses_kept::KeptResponses;

/// What one finished command tells the counters.
#[derive(Clone, Copy, Debug)]
pub struct Completion {
    pub bytes: u64,
    pub is_write: bool,
    /// From issue to the driver until completion (esxtop DAVG).
    pub driver_ns: TimeNs,
    /// Waiting in the kernel's queues before that (esxtop QAVG; the model has no other kernel
    /// time, so KAVG equals QAVG).
    pub kernel_ns: TimeNs,
}

/// Cumulative esxtop-style counters of one object (device, path, adapter).
///
/// `repr(C, align(32))` with a read's four counters and a write's four each in one aligned
/// 32 bytes: a completion updates one of the two groups, which then never straddles two cache
/// lines (on a host of many devices, the paths' and devices' counters are out of the cache).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(32))]
pub struct IoCounters {
    pub reads: u64,
    pub bytes_read: u64,
    pub driver_read_ns: u64,
    pub kernel_read_ns: u64,
    pub writes: u64,
    pub bytes_written: u64,
    pub driver_write_ns: u64,
    pub kernel_write_ns: u64,
    /// Commands that ended in error on this object: aborted when the host failed the path,
    /// timed out, or answered with an error status (and were retried or failed).
    pub errors: u64,
    /// Commands re-issued after an error: on a device, I/Os queued again; on a path or adapter,
    /// retries issued down it.
    pub retries: u64,
    /// Failovers: I/Os that erred on this object and were re-issued on another path (on a
    /// device: those re-issued on another of its paths).
    pub failovers: u64,
}

impl IoCounters {
    pub fn record(&mut self, c: &Completion) {
        if c.is_write {
            self.writes += 1;
            self.bytes_written += c.bytes;
            self.driver_write_ns += c.driver_ns;
            self.kernel_write_ns += c.kernel_ns;
        } else {
            self.reads += 1;
            self.bytes_read += c.bytes;
            self.driver_read_ns += c.driver_ns;
            self.kernel_read_ns += c.kernel_ns;
        }
    }

    pub fn since(&self, earlier: &IoCounters) -> IoCounters {
        IoCounters {
            reads: self.reads - earlier.reads,
            writes: self.writes - earlier.writes,
            bytes_read: self.bytes_read - earlier.bytes_read,
            bytes_written: self.bytes_written - earlier.bytes_written,
            driver_read_ns: self.driver_read_ns - earlier.driver_read_ns,
            driver_write_ns: self.driver_write_ns - earlier.driver_write_ns,
            kernel_read_ns: self.kernel_read_ns - earlier.kernel_read_ns,
            kernel_write_ns: self.kernel_write_ns - earlier.kernel_write_ns,
            errors: self.errors - earlier.errors,
            retries: self.retries - earlier.retries,
            failovers: self.failovers - earlier.failovers,
        }
    }

    pub fn commands(&self) -> u64 {
        self.reads + self.writes
    }
}

/// Guest-level (vdbench) counters of all I/O: response is from issue to completion.
#[derive(Clone, Copy, Debug, Default)]
pub struct GuestCounters {
    pub io: IoCounters,
    pub resp_read_ns: u64,
    pub resp_write_ns: u64,
    pub resp_sq_ns2: u128,
    /// I/Os that failed for good (the application saw an error).
    pub failed: u64,
}

impl GuestCounters {
    pub fn record(&mut self, c: &Completion) {
        self.io.record(c);
        let resp = c.driver_ns + c.kernel_ns;
        if c.is_write {
            self.resp_write_ns += resp;
        } else {
            self.resp_read_ns += resp;
        }
        self.resp_sq_ns2 += u128::from(resp) * u128::from(resp);
    }

    pub fn since(&self, earlier: &GuestCounters) -> GuestCounters {
        GuestCounters {
            io: self.io.since(&earlier.io),
            resp_read_ns: self.resp_read_ns - earlier.resp_read_ns,
            resp_write_ns: self.resp_write_ns - earlier.resp_write_ns,
            resp_sq_ns2: self.resp_sq_ns2 - earlier.resp_sq_ns2,
            failed: self.failed - earlier.failed,
        }
    }
}

/// Counters of every object at one instant; two snapshots give the figures of the window
/// between them.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    pub time: TimeNs,
    pub guest: GuestCounters,
    pub outstanding_area: u128,
    pub devices: Vec<IoCounters>,
    pub device_active_area: Vec<u128>,
    pub device_queued_area: Vec<u128>,
    pub paths: Vec<IoCounters>,
    pub adapters: Vec<IoCounters>,
    pub adapter_active_area: Vec<u128>,
    pub adapter_queued_area: Vec<u128>,
    pub station_commands: Vec<u64>,
    pub station_busy_area: Vec<u128>,
    /// Dirty bytes of each array's write cache, integrated (zero without one).
    pub cache_dirty_area: Vec<u128>,
    /// Where the I/Os issued so far went; those neither completed nor failed are in flight.
    pub accounting: IoAccounting,
}

/// Where the I/Os of a run went: each issued I/O completes or fails exactly once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IoAccounting {
    pub issued: u64,
    pub completed: u64,
    pub failed: u64,
    /// I/Os queued again after an error.
    pub retried: u64,
    /// Retries issued on another path than the one that erred.
    pub failovers: u64,
}

/// The one place observations are aggregated. The simulation reports each event once
/// (a command done, an error, a retry); the levels (active, queued, busy) and esxtop's counters
/// (`IoCounters`) are the model objects' own, read at each snapshot: a completion updates the
/// records of its device, path and adapter that it reads anyway.
pub struct Recorder {
    guest: GuestCounters,
    pub accounting: IoAccounting,
    /// Inside the measurement window: response times are kept only there.
    measuring: bool,
    /// Responses as the application saw them, in the window (3 significant digits).
    pub latency: ResponseCounts<u64, 3>,
    /// Responses per device (or per host, or none: as the run's end reads them), from issue to
    /// the kernel's completion, in the window.
    pub responses: KeptResponses,
    /// The longest response in the window, and in the current interval.
    pub window_max_ns: u64,
    interval_max_ns: u64,
    /// Stalls are timed until the measurement ends.
    timing_stalls: bool,
}

impl Recorder {
    /// `responses`: what the run keeps of its devices' responses (`ResponseScope`).
    pub fn new(responses: KeptResponses, measuring: bool) -> Self {
        Recorder {
            guest: GuestCounters::default(),
            accounting: IoAccounting::default(),
            measuring,
            latency: ResponseCounts::new(),
            responses,
            window_max_ns: 0,
            interval_max_ns: 0,
            timing_stalls: true,
        }
    }

    /// The measurement window opens or closes.
    pub fn set_measuring(&mut self, measuring: bool) {
        if self.measuring && !measuring {
            self.responses.flush_all();
        }
        self.measuring = measuring;
    }

    /// The longest response since the last call (one interval's).
    pub fn take_interval_max_ns(&mut self) -> u64 {
        std::mem::take(&mut self.interval_max_ns)
    }

    /// An I/O was issued to the device whose watch is `watch` (`Device::watch`: the device's
    /// own record, which the issue reads anyway).
    #[inline]
    pub fn io_issued(&mut self, watch: &mut DeviceWatch, now: TimeNs) {
        self.accounting.issued += 1;
        watch.issued(now);
    }

    /// The measurement ended at `now`: stalls going on count up to it, and no longer grow.
    pub fn stop_timing_stalls(&mut self, m: &mut Model, now: TimeNs) {
        m.devices.iter_mut().for_each(|d| d.watch.close(now));
        self.timing_stalls = false;
    }

    /// The application saw an I/O of the device whose watch is `watch` complete at `now`
    /// (vdbench's counters).
    pub fn io_completed(&mut self, watch: &mut DeviceWatch, now: TimeNs, seen: &Completion) {
        watch.answered(now, self.timing_stalls);
        self.guest.record(seen);
        let resp = seen.driver_ns + seen.kernel_ns;
        if self.measuring {
            self.latency.record(resp.max(1));
            self.window_max_ns = self.window_max_ns.max(resp);
        }
        self.interval_max_ns = self.interval_max_ns.max(resp);
        self.accounting.completed += 1;
    }

    /// The kernel completed an I/O of `device` (of `host`) `response_ns` after it was issued.
    pub fn device_response(&mut self, device: usize, host: usize, response_ns: TimeNs) {
        if self.measuring {
            self.responses.record(device, host, response_ns.max(1));
        }
    }

    /// A command ended in error on a path (esxtop's counters of the model's objects).
    pub fn command_error(&mut self, m: &mut Model, device: usize, path: usize, adapter: usize) {
        for counters in [
            &mut m.paths[path].counters,
            &mut m.adapters[adapter].counters,
            &mut m.devices[device].counters,
            &mut self.guest.io,
        ] {
            counters.errors += 1;
        }
    }

    /// An I/O that erred is queued again on its device.
    pub fn io_requeued(&mut self, m: &mut Model, device: usize) {
        m.devices[device].counters.retries += 1;
        self.guest.io.retries += 1;
        self.accounting.retried += 1;
    }

    /// A retry is issued on `to` after an error on `from` (each a path and its adapter); a
    /// failover when they differ.
    pub fn retry_issued(&mut self, m: &mut Model, device: usize, from: (usize, usize), to: (usize, usize)) {
        m.paths[to.0].counters.retries += 1;
        m.adapters[to.1].counters.retries += 1;
        if from.0 != to.0 {
            for counters in [
                &mut m.paths[from.0].counters,
                &mut m.adapters[from.1].counters,
                &mut m.devices[device].counters,
                &mut self.guest.io,
            ] {
                counters.failovers += 1;
            }
            self.accounting.failovers += 1;
        }
    }

    /// An I/O of the device whose watch and failures are `watch` and `failed` failed for good at
    /// `now`: the application saw an error.
    pub fn io_failed(&mut self, watch: &mut DeviceWatch, failed: &mut FailedIos, now: TimeNs) {
        watch.answered(now, self.timing_stalls);
        failed.failed(now);
        self.guest.failed += 1;
        self.accounting.failed += 1;
    }

    /// Every object's counters now (the window's ends, and the first sample).
    pub fn snapshot(&self, model: &Model, now: TimeNs) -> Snapshot {
        Snapshot { paths: model.paths.iter().map(|p| p.counters).collect(), ..self.snapshot_without_paths(model, now) }
    }

    /// The same without the paths' counters (`paths` empty): an interval's sample on a run that
    /// builds no interval row per path, where the paths' were most of the snapshot (128,000
    /// paths' counters, 12 MB copied, on 32 hosts × 500 devices × 8 paths).
    pub fn snapshot_without_paths(&self, model: &Model, now: TimeNs) -> Snapshot {
        Snapshot {
            time: now,
            guest: self.guest,
            outstanding_area: model.host.outstanding.area_at(now),
            devices: model.devices.iter().map(|d| d.counters).collect(),
            device_active_area: model.devices.iter().map(|d| d.active.area_at(now)).collect(),
            device_queued_area: model.devices.iter().map(|d| d.queued.area_at(now)).collect(),
            paths: Vec::new(),
            adapters: model.adapters.iter().map(|a| a.counters).collect(),
            adapter_active_area: model.adapters.iter().map(|a| a.active.area_at(now)).collect(),
            adapter_queued_area: model.adapters.iter().map(|a| a.queued.area_at(now)).collect(),
            station_commands: model.stations.iter().map(|s| s.commands).collect(),
            station_busy_area: model.stations.iter().map(|s| s.busy.area_at(now)).collect(),
            cache_dirty_area: model
                .backends
                .caches
                .iter()
                .map(|c| c.as_ref().map_or(0, |c| c.dirty.area_at(now)))
                .collect(),
            accounting: self.accounting,
        }
    }
}
