//! The result of a run: vdbench's summary figures with percentiles, esxtop's figures per device,
//! path and adapter, and the same per interval. Serialised once to JSON; everything that prints
//! (tables, CSV, esxtop batch files) reads from it.

use super::describe::HostAdapters;
use super::{GuestCounters, IoCounters};
use serde::Serialize;

const MIB: f64 = 1_048_576.0;

fn per_ms(total_ns: u64, count: u64) -> f64 {
    if count == 0 {
        0.0
    } else {
        total_ns as f64 / count as f64 / 1e6
    }
}

/// Esxtop's columns for one object over one window.
#[derive(Debug, Clone, Serialize)]
pub struct EsxtopFigures {
    pub cmds_s: f64,
    pub reads_s: f64,
    pub writes_s: f64,
    pub mbread_s: f64,
    pub mbwrtn_s: f64,
    pub davg_ms: f64,
    pub kavg_ms: f64,
    pub gavg_ms: f64,
    pub qavg_ms: f64,
    pub davg_rd_ms: f64,
    pub kavg_rd_ms: f64,
    pub gavg_rd_ms: f64,
    pub davg_wr_ms: f64,
    pub kavg_wr_ms: f64,
    pub gavg_wr_ms: f64,
    pub errors: u64,
    pub retries: u64,
    pub failovers: u64,
}

impl EsxtopFigures {
    pub fn from_counters(c: &IoCounters, seconds: f64) -> Self {
        let rate = |n: u64| {
            if seconds > 0.0 {
                n as f64 / seconds
            } else {
                0.0
            }
        };
        let n = c.commands();
        let davg = per_ms(c.driver_read_ns + c.driver_write_ns, n);
        let kavg = per_ms(c.kernel_read_ns + c.kernel_write_ns, n);
        let (davg_rd, kavg_rd) = (per_ms(c.driver_read_ns, c.reads), per_ms(c.kernel_read_ns, c.reads));
        let (davg_wr, kavg_wr) = (per_ms(c.driver_write_ns, c.writes), per_ms(c.kernel_write_ns, c.writes));
        EsxtopFigures {
            cmds_s: rate(n),
            reads_s: rate(c.reads),
            writes_s: rate(c.writes),
            mbread_s: rate(c.bytes_read) / MIB,
            mbwrtn_s: rate(c.bytes_written) / MIB,
            davg_ms: davg,
            kavg_ms: kavg,
            gavg_ms: davg + kavg,
            qavg_ms: kavg,
            davg_rd_ms: davg_rd,
            kavg_rd_ms: kavg_rd,
            gavg_rd_ms: davg_rd + kavg_rd,
            davg_wr_ms: davg_wr,
            kavg_wr_ms: kavg_wr,
            gavg_wr_ms: davg_wr + kavg_wr,
            errors: c.errors,
            retries: c.retries,
            failovers: c.failovers,
        }
    }
}

/// Vdbench's interval/summary figures for the whole host.
#[derive(Debug, Clone, Serialize)]
pub struct Figures {
    pub ios: u64,
    pub iops: f64,
    pub mbps: f64,
    pub bytes_per_io: f64,
    pub read_pct: f64,
    pub resp_ms: f64,
    pub read_resp_ms: f64,
    pub write_resp_ms: f64,
    pub resp_max_ms: f64,
    pub resp_stddev_ms: f64,
    /// Time-averaged number of I/Os outstanding from the workers' view.
    pub queue_depth: f64,
}

impl Figures {
    pub fn from_counters(g: &GuestCounters, seconds: f64, outstanding_area: u128, max_ns: u64) -> Self {
        let io = &g.io;
        let n = io.commands();
        let bytes = io.bytes_read + io.bytes_written;
        let total_ns = g.resp_read_ns + g.resp_write_ns;
        let mean_ns = if n == 0 { 0.0 } else { total_ns as f64 / n as f64 };
        let var = if n == 0 { 0.0 } else { (g.resp_sq_ns2 as f64 / n as f64 - mean_ns * mean_ns).max(0.0) };
        let per_s = |x: f64| if seconds > 0.0 { x / seconds } else { 0.0 };
        Figures {
            ios: n,
            iops: per_s(n as f64),
            mbps: per_s(bytes as f64) / MIB,
            bytes_per_io: if n == 0 { 0.0 } else { bytes as f64 / n as f64 },
            read_pct: if n == 0 { 0.0 } else { 100.0 * io.reads as f64 / n as f64 },
            resp_ms: mean_ns / 1e6,
            read_resp_ms: per_ms(g.resp_read_ns, io.reads),
            write_resp_ms: per_ms(g.resp_write_ns, io.writes),
            resp_max_ms: max_ns as f64 / 1e6,
            resp_stddev_ms: var.sqrt() / 1e6,
            queue_depth: if seconds > 0.0 { outstanding_area as f64 / (seconds * 1e9) } else { 0.0 },
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    #[serde(flatten)]
    pub figures: Figures,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub p999_ms: f64,
    pub errors: u64,
    pub retries: u64,
    pub failed: u64,
    /// I/Os issued but neither completed nor failed when the measurement ended: in no other
    /// figure (an I/O stuck behind a slow path shows here, not in the response times).
    pub in_flight: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct DeviceResult {
    pub name: String,
    /// The host that sees it.
    pub host: String,
    pub array: String,
    pub satp: String,
    pub policy: String,
    /// As `esxcli storage nmp device list` prints "Path Selection Policy Device Config".
    pub device_config: String,
    pub working_paths: Vec<String>,
    /// None for a Linux NVMe head: it has no device queue, only the controllers' tags.
    pub dqlen: Option<u32>,
    /// A native NVMe multipath head (`Device::nvme_head`): its block devices are `nvmeXnY`.
    pub nvme_head: bool,
    pub actv: f64,
    pub qued: f64,
    pub p99_ms: f64,
    /// Writes retried on another path while their first copy could still land (sent before its
    /// path lost its connection, retried before the target surely stopped executing it: NVMe's
    /// KATO + CQT after the loss), over the whole run; 0 where the stack has no such bound.
    pub hazards: u64,
    #[serde(flatten)]
    pub figures: EsxtopFigures,
}

#[derive(Debug, Clone, Serialize)]
pub struct PathResult {
    pub name: String,
    pub device: String,
    /// The host whose adapter it leaves from.
    pub host: String,
    pub adapter: String,
    /// The array port as `array/port`.
    pub target: String,
    pub state: String,
    /// ALUA state the array reports: AO, ANO, STBY, UNAV.
    pub alua: String,
    pub tpg_id: u32,
    pub one_way_us: f64,
    /// Whether commands get through at the end of the run (the host may not know: `state`).
    pub connected: bool,
    #[serde(flatten)]
    pub figures: EsxtopFigures,
}

#[derive(Debug, Clone, Serialize)]
pub struct AdapterResult {
    pub name: String,
    /// The host it sits in.
    pub host: String,
    pub aqlen: u32,
    pub actv: f64,
    pub qued: f64,
    #[serde(flatten)]
    pub figures: EsxtopFigures,
}

/// An array port or controller: how much work it did and how busy it was.
#[derive(Debug, Clone, Serialize)]
pub struct StationResult {
    pub name: String,
    pub cmds_s: f64,
    /// Busy servers over available servers, in percent.
    pub util_pct: f64,
}

/// A RAID group over the window: its disks' operations and how busy they were; and over the
/// whole run, where its reads were served and how much it destaged.
#[derive(Debug, Clone, Serialize)]
pub struct RaidGroupResult {
    /// `array/group`.
    pub name: String,
    pub level: String,
    pub disks: u32,
    /// Disk operations per second, every disk of the group together.
    pub disk_ops_s: f64,
    /// Mean utilisation of its disks, in percent.
    pub util_pct: f64,
    pub read_hits: u64,
    pub read_misses: u64,
    /// Destage requests finished (each one costs the RAID write penalty).
    pub destages: u64,
    /// Each disk's operations per second and utilisation (`array/group/diskN`).
    pub per_disk: Vec<StationResult>,
}

/// An array's write cache: its size, watermarks, mean dirty share over the window, and the
/// writes that had to wait for room over the whole run (forced flushing).
#[derive(Debug, Clone, Serialize)]
pub struct WriteCacheResult {
    pub array: String,
    pub size_bytes: u64,
    pub high_watermark_pct: f64,
    pub low_watermark_pct: f64,
    pub dirty_pct: f64,
    pub forced_waits: u64,
}

/// Writes replicated between two arrays and, with contention, how often extents changed hands.
#[derive(Debug, Clone, Serialize)]
pub struct ReplicationResult {
    pub name: String,
    pub arrays: [String; 2],
    /// Writes each array sent to its peer over the whole run.
    pub writes: [u64; 2],
    /// Extent ownership moves towards each array over the whole run.
    pub ownership_moves: [u64; 2],
}

#[derive(Debug, Clone, Serialize)]
pub struct IntervalRow {
    /// End of the interval, seconds from the start of the run.
    pub t_s: f64,
    /// False for warm-up intervals.
    pub measured: bool,
    #[serde(flatten)]
    pub figures: Figures,
    /// Commands that ended in error, retries issued, failovers (see `EsxtopFigures`) and I/Os
    /// that failed for good, over the interval.
    pub errors: u64,
    pub retries: u64,
    pub failovers: u64,
    pub failed: u64,
}

/// One object's esxtop figures over one interval.
#[derive(Debug, Clone, Serialize)]
pub struct ObjectIntervalRow {
    pub t_s: f64,
    pub name: String,
    pub actv: f64,
    pub qued: f64,
    #[serde(flatten)]
    pub figures: EsxtopFigures,
}

/// What the host saw happen to its paths and devices, in time order.
#[derive(Debug, Clone, Serialize)]
pub struct HostEvent {
    pub t_s: f64,
    /// `HOST/NAME` when another host has a device of that name, as the interval rows name it.
    pub device: String,
    /// Empty for events of the whole device.
    pub path: String,
    /// `link_down` / `link_up` (the path's connection, whether or not the host knows),
    /// `path_failed` / `path_reinstated` (the host stops or starts using it), `alua` (the array
    /// reports a new state: `detail`), `no_path` (the policy has no usable path), `gave_up` (the
    /// stack stopped waiting: what waited failed; APD timeout), `path_restored` (a path again).
    pub event: String,
    pub detail: String,
}

/// Every I/O issued completes or fails exactly once: the totals after the drain that follows the
/// measurement, and where the I/Os stood when it ended (`at_end`).
#[derive(Debug, Clone, Serialize)]
pub struct Accounting {
    pub issued: u64,
    pub completed: u64,
    pub failed: u64,
    pub at_end: AccountingAtEnd,
    pub retried: u64,
    /// I/Os re-issued on another path than the one they erred on.
    pub failovers: u64,
    /// Slots of the I/O slab ever used: the most I/Os alive at once.
    pub peak_in_flight: u64,
}

/// The I/Os issued, as the measurement ended: issued = completed + failed + in flight (no I/O is
/// issued after it). Those in flight end in the drain, after every figure of the window.
#[derive(Debug, Clone, Serialize)]
pub struct AccountingAtEnd {
    pub completed: u64,
    pub failed: u64,
    pub in_flight: u64,
    /// How long the oldest of them had been in flight then (0 when none).
    pub oldest_in_flight_s: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct RunResult {
    pub scenario: String,
    pub variant: Option<String>,
    pub seed: u64,
    /// The first host's name (`[host]`).
    pub host: String,
    /// Every host with its adapters, `[host]` first: each sees only its own devices and adapters.
    pub hosts: Vec<HostAdapters>,
    /// Each host's p99 (its own responses together), where the run has several hosts.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub host_latency: Vec<super::host_latency::HostLatency>,
    pub warmup_s: f64,
    pub duration_s: f64,
    pub interval_s: f64,
    pub summary: Summary,
    pub devices: Vec<DeviceResult>,
    pub paths: Vec<PathResult>,
    pub adapters: Vec<AdapterResult>,
    pub ports: Vec<StationResult>,
    pub controllers: Vec<StationResult>,
    pub replication: Vec<ReplicationResult>,
    pub raid_groups: Vec<RaidGroupResult>,
    pub write_caches: Vec<WriteCacheResult>,
    pub intervals: Vec<IntervalRow>,
    pub device_intervals: Vec<ObjectIntervalRow>,
    pub path_intervals: Vec<ObjectIntervalRow>,
    pub adapter_intervals: Vec<ObjectIntervalRow>,
    pub events: Vec<HostEvent>,
    /// What the application saw: stalls, failed I/Os, back to full rate and fail back.
    pub application: super::application::ApplicationView,
    pub accounting: Accounting,
    /// Events the engine processed: for the benchmark's events per second, not a result (a
    /// fault that changes nothing still adds its events), so not serialized.
    #[serde(skip)]
    pub engine_events: u64,
    /// Each device's setup at the end of the run, as typed data (`devices::setups`); its
    /// status is in `devices` as the stack prints it, so not serialized again.
    #[serde(skip)]
    pub setups: Vec<super::devices::DeviceSetup>,
}

/// What a ranking over many runs reads of one (`Simulation::finish_figures`): the run's identity,
/// summary and accounting, and where the run's hosts are ranked each apart, the hosts, each
/// host's p99 and each device's rate and mean response. Each field is the full result's field of
/// the same name (a device's row: its fields of the same names), computed by the same code.
#[derive(Debug, Clone, Serialize)]
pub struct RunFigures {
    pub scenario: String,
    pub variant: Option<String>,
    pub seed: u64,
    pub warmup_s: f64,
    pub duration_s: f64,
    pub summary: Summary,
    pub accounting: Accounting,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hosts: Option<Vec<HostAdapters>>,
    /// None on a run of one host as well (the full result leaves it out then).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_latency: Option<Vec<super::host_latency::HostLatency>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub devices: Option<Vec<DeviceRate>>,
    /// As `RunResult::engine_events`.
    #[serde(skip)]
    pub engine_events: u64,
}

/// A device's host, commands a second and mean response (GAVG) over the measurement window: a
/// host's rate and response are its devices' (`advisor/host_figures.py`).
#[derive(Debug, Clone, Serialize)]
pub struct DeviceRate {
    pub host: String,
    pub cmds_s: f64,
    pub gavg_ms: f64,
}
