//! Observation: models report completions and level changes; this module accumulates them into
//! cumulative counters, and turns differences of snapshots into the figures people read
//! (vdbench's summary line, esxtop's per-object columns). Memory is fixed per object.

pub mod describe;
pub mod result;

use crate::engine::TimeNs;

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
#[derive(Clone, Copy, Debug, Default)]
pub struct IoCounters {
    pub reads: u64,
    pub writes: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub driver_read_ns: u64,
    pub driver_write_ns: u64,
    pub kernel_read_ns: u64,
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

/// A quantity that holds a level over time (commands active, queued, outstanding), integrated
/// so that its time average over any window is exact.
#[derive(Clone, Copy, Debug, Default)]
pub struct Level {
    value: u64,
    area: u128,
    since: TimeNs,
}

impl Level {
    pub fn add(&mut self, now: TimeNs, delta: i64) {
        self.area = self.area_at(now);
        self.since = now;
        self.value = self.value.checked_add_signed(delta).expect("a level never goes below zero");
    }

    /// ∫ level dt from time zero to `now`, in level × ns.
    pub fn area_at(&self, now: TimeNs) -> u128 {
        self.area + u128::from(self.value) * u128::from(now - self.since)
    }

    pub fn value(&self) -> u64 {
        self.value
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
}

/// Live counters of a run.
#[derive(Default)]
pub struct Recorder {
    pub guest: GuestCounters,
    pub outstanding: Level,
    pub devices: Vec<IoCounters>,
    pub device_active: Vec<Level>,
    pub device_queued: Vec<Level>,
    pub paths: Vec<IoCounters>,
    pub adapters: Vec<IoCounters>,
    pub adapter_active: Vec<Level>,
    pub adapter_queued: Vec<Level>,
    pub station_commands: Vec<u64>,
    pub station_busy: Vec<Level>,
}

impl Recorder {
    pub fn new(devices: usize, paths: usize, adapters: usize, stations: usize) -> Self {
        Recorder {
            devices: vec![IoCounters::default(); devices],
            device_active: vec![Level::default(); devices],
            device_queued: vec![Level::default(); devices],
            paths: vec![IoCounters::default(); paths],
            adapters: vec![IoCounters::default(); adapters],
            adapter_active: vec![Level::default(); adapters],
            adapter_queued: vec![Level::default(); adapters],
            station_commands: vec![0; stations],
            station_busy: vec![Level::default(); stations],
            ..Default::default()
        }
    }

    pub fn snapshot(&self, now: TimeNs) -> Snapshot {
        let areas = |levels: &[Level]| levels.iter().map(|l| l.area_at(now)).collect();
        Snapshot {
            time: now,
            guest: self.guest,
            outstanding_area: self.outstanding.area_at(now),
            devices: self.devices.clone(),
            device_active_area: areas(&self.device_active),
            device_queued_area: areas(&self.device_queued),
            paths: self.paths.clone(),
            adapters: self.adapters.clone(),
            adapter_active_area: areas(&self.adapter_active),
            adapter_queued_area: areas(&self.adapter_queued),
            station_commands: self.station_commands.clone(),
            station_busy_area: areas(&self.station_busy),
        }
    }
}
