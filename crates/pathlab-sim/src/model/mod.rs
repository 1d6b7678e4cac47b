//! The storage network as the engine runs it: host adapters, fabric nexuses, array ports and
//! controllers (FIFO stations), devices and their paths, replication between arrays. Built from a
//! checked scenario; holds state, formats nothing.
//!
//! Each path has a route for reads and one for writes: the steps its I/O takes inside the
//! arrays after crossing the fabric (serve at the port, at the controller, be forwarded to the
//! owning controller, get extent ownership, replicate to the peer, land in cache). The engine
//! walks a route with a cursor, so every array model is the same few mechanisms.
//!
//! `fault` resolves the faults a scenario schedules; `stack` holds each host stack's failure
//! handling (timeouts, retries, reinstatement, no-path behaviour); `balance` an array's own
//! moves of LUN ownership between its controllers; `tags` the Linux block layer's tags under
//! NVMe controllers.

pub mod alua_transition;
pub mod backend;
pub mod balance;
mod build;
pub mod contention;
pub mod esxi_iscsi;
pub mod fault;
pub mod keep_alive;
mod names;
pub(crate) mod names_per_host;
pub mod nvme_wait;
pub mod pause;
pub mod service;
pub mod stack;
pub mod tags;

pub use crate::scenario::error::FieldError;
pub use build::build_model;

use crate::engine::level::Level;
use crate::engine::TimeNs;
use crate::linux::claim::LinuxClaim;
use crate::nmp::SatpKind;
use crate::observe::application::{DeviceWatch, FailedIos};
use crate::observe::IoCounters;
use backend::Backends;
use contention::Contention;
use fault::ErrorProfile;
use pathlab_policy::{AluaState, HostView, PolicyConfig, Selector};
use pause::HostPauses;
use service::ServiceModel;
use stack::StackRules;
use std::collections::VecDeque;
use std::sync::Arc;

/// The host beyond one device, as policies may see it: load per I_T nexus across devices, and
/// the CPU topology.
#[derive(Clone)]
pub struct HostState {
    /// I/Os the applications have issued and not yet seen complete.
    pub outstanding: Level,
    /// Commands sent and not completed per I_T nexus: empty where no device's policy reads them
    /// (`Selector::reads_host_queues`), and then nothing is counted (two look-ups an I/O).
    nexus_outstanding: Vec<u32>,
    pub cpus: u32,
    pub numa_nodes: u32,
}

impl HostState {
    /// A host of `nexuses` I_T nexuses, with nothing outstanding.
    pub(crate) fn new(nexuses: usize, cpus: u32, numa_nodes: u32) -> HostState {
        HostState { outstanding: Level::default(), nexus_outstanding: vec![0; nexuses], cpus, numa_nodes }
    }

    /// No device's policy reads the counts per nexus: they are not kept.
    pub(crate) fn keep_no_nexus_counts(&mut self) {
        self.nexus_outstanding = Vec::new();
    }

    /// Whether the counts per nexus are kept (a device's policy reads them).
    pub fn keeps_nexus_counts(&self) -> bool {
        !self.nexus_outstanding.is_empty()
    }

    /// A command went down nexus `nexus`.
    #[inline]
    pub fn nexus_sent(&mut self, nexus: usize) {
        if let Some(n) = self.nexus_outstanding.get_mut(nexus) {
            *n += 1;
        }
    }

    /// A command of nexus `nexus` completed or was given up.
    #[inline]
    pub fn nexus_done(&mut self, nexus: usize) {
        if let Some(n) = self.nexus_outstanding.get_mut(nexus) {
            *n -= 1;
        }
    }
}

impl HostView for HostState {
    fn nexus_outstanding(&self, nexus: u32) -> u32 {
        self.nexus_outstanding.get(nexus as usize).copied().unwrap_or(0)
    }

    fn cpu_node(&self, cpu: u32) -> u32 {
        cpu * self.numa_nodes / self.cpus
    }

    fn node_distance(&self, from: u32, to: u32) -> u32 {
        // The ACPI SLIT convention Linux reports: 10 local, 20 remote (two-socket hosts).
        if from == to {
            10
        } else {
            20
        }
    }
}

/// A host bus adapter (vmhbaN) with its command slots and its link.
#[derive(Clone)]
pub struct Adapter {
    pub name: String,
    /// The host it sits in (0: `[host]`, then `[[hosts]]` in order).
    pub host: usize,
    pub numa_node: u32,
    /// Esxtop AQLEN.
    pub queue_depth: u32,
    /// Commands in flight (esxtop ACTV).
    pub active: Level,
    /// I/Os that have a path but wait for an adapter slot (esxtop QUED: `waiting`'s length).
    pub queued: Level,
    pub waiting: VecDeque<u32>,
    /// Esxtop's counters of the commands it carried (`observe::Recorder` snapshots them).
    pub counters: IoCounters,
    /// Bytes per nanosecond; `None`: transfers take no time.
    pub bytes_per_ns: Option<f64>,
    /// When the host→array and array→host directions of the link are next free.
    pub tx_free_at: TimeNs,
    pub rx_free_at: TimeNs,
    /// Interrupt coalescing (`sim/coalescing.rs`); `None`: completions are delivered at once.
    pub coalescing: Option<Coalescing>,
    /// An ESXi iSCSI adapter's session timers (`model/esxi_iscsi.rs`); `None`: not iSCSI.
    pub esxi_iscsi: Option<esxi_iscsi::EsxiIscsi>,
}

/// An adapter's interrupt coalescing (QLogic ZIO) and the completions it holds.
#[derive(Clone, Debug, Default)]
pub struct Coalescing {
    pub delay_ns: TimeNs,
    /// Completions are held only while this many commands or more are in flight on the adapter.
    pub threshold: Option<u32>,
    /// (I/O, attempt) of each completion held.
    pub held: Vec<(u32, u32)>,
    /// Counts the holds: a timer that finds another hold under way is stale.
    pub hold: u32,
}

/// Puts `bytes` on one direction of a link no earlier than `ready`; returns when the last byte
/// arrives. A link is a FIFO server whose service time is the serialisation time.
pub fn transfer(free_at: &mut TimeNs, bytes_per_ns: Option<f64>, ready: TimeNs, bytes: u64) -> TimeNs {
    match bytes_per_ns {
        None => ready,
        Some(rate) => {
            let start = ready.max(*free_at);
            let end = start.saturating_add((bytes as f64 / rate).round() as TimeNs);
            *free_at = end;
            end
        }
    }
}

/// When an array's ports refuse commands: with probability waiting / depth for a port with
/// `waiting` commands queued, the host sending a refused command again `retry_ns` after the
/// status reaches it.
#[derive(Clone, Copy, Debug)]
pub struct BusyRule {
    pub depth: f64,
    pub retry_ns: TimeNs,
}

impl BusyRule {
    pub fn refuses(&self, waiting: u64, uniform: f64) -> bool {
        uniform * self.depth < waiting as f64
    }
}

#[derive(Clone)]
pub struct Array {
    pub name: String,
    pub vendor: String,
    pub model: String,
    pub tpgs: bool,
    /// No LUN ownership: every controller serves every LUN.
    pub symmetric: bool,
    pub read_latency_ns: TimeNs,
    pub write_latency_ns: TimeNs,
    pub forward_ns: TimeNs,
    /// Indices into the controller table.
    pub controllers: Vec<usize>,
    /// What the controllers that do not own a LUN report for it.
    pub non_owner: AluaState,
    /// The array moves LUN ownership between its controllers by itself.
    pub balance: Option<balance::Balance>,
    pub busy: Option<BusyRule>,
    /// SCSI: the IMPLICIT TRANSITION TIME its REPORT TARGET PORT GROUPS reports, where given.
    pub implicit_transition_ns: Option<TimeNs>,
}

/// A FIFO queue in front of `servers` identical servers: an array port, a controller's cores.
#[derive(Clone)]
pub struct Station {
    pub name: String,
    pub service: ServiceModel,
    pub servers: u32,
    /// Servers at work; at a station that never makes work wait (`sim/never_wait.rs`) the
    /// services held whole (`begin_held`) are not in its value.
    pub busy: Level,
    /// Commands it has started serving.
    pub commands: u64,
    /// I/Os waiting: (slot, attempt, service time fixed on arrival).
    pub queue: VecDeque<(u32, u32, TimeNs)>,
}

impl Station {
    /// Work arrives at `now`: a free server takes it (true), or it joins the queue.
    #[inline]
    pub fn arrive(&mut self, now: TimeNs, io: u32, attempt: u32, service_ns: TimeNs) -> bool {
        if self.busy.value() < u64::from(self.servers) {
            self.begin(now);
            true
        } else {
            self.queue.push_back((io, attempt, service_ns));
            false
        }
    }

    /// A server starts on a command at `now`.
    #[inline]
    pub fn begin(&mut self, now: TimeNs) {
        self.busy.add(now, 1);
        self.commands += 1;
    }

    /// A server starts on a command at `now` and ends it at `end` with no event of its own
    /// (`sim/never_wait.rs`): the whole service is held at once (`Level::hold`), so
    /// `busy.value()` does not count it while it lasts. Harmless where it is used: a station
    /// that never makes work wait has a server free whatever `arrive` counts.
    #[inline]
    pub fn begin_held(&mut self, now: TimeNs, end: TimeNs) {
        self.busy.hold(now, end);
        self.commands += 1;
    }
}

#[derive(Clone)]
pub struct Controller {
    pub name: String,
    pub array: usize,
    /// Its processing, when the scenario gives one.
    pub station: Option<usize>,
    /// NVMe ANA Transition Time it reports (Identify Controller), when the scenario gives one.
    pub anatt_ns: Option<TimeNs>,
    /// NVMe: whether it advertises traffic-based keep-alive (CTRATT TBKAS), when the scenario
    /// says (`model::keep_alive`; not given: not advertised).
    pub traffic_based_keep_alive: Option<bool>,
}

#[derive(Clone)]
pub struct Port {
    pub name: String,
    pub array: usize,
    pub controller: usize,
    pub station: usize,
    /// (LUN, station) pairs sorted by LUN: each LUN's own FIFO at this port, when the array
    /// gives a `device_service`.
    pub lun_stations: Vec<(u32, usize)>,
    /// The port's data, in both directions at once (FC is full duplex), when its service has a
    /// `per_kib`.
    pub data: Option<PortData>,
    /// Outages of the port still open (`port_down`, a controller reboot, a site loss): while
    /// any is, no path through it carries anything.
    pub downs: u32,
}

/// A port's data engines: one per direction, each a FIFO at the port's rate (`transfer`), so a
/// read's data going out and a write's data coming in do not wait for each other.
#[derive(Clone)]
pub struct PortData {
    pub bytes_per_ns: f64,
    /// When the array→host (0) and host→array (1) directions are next free.
    pub free_at: [TimeNs; 2],
}

/// One step of an I/O inside the arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Step {
    /// Queue for and be served by a station.
    Serve(u32),
    /// Be taken or refused (BUSY) by a port whose array has a `BusyRule`.
    Admit(u32),
    /// Move the I/O's data through port `port` in one direction: out for a read, in for a write.
    PortData { port: u32, inbound: bool },
    /// Pure latency: an internal link, cache.
    Delay(TimeNs),
    /// The LUN's RAID group (`model::backend`): the read cache or the disks for a read, the
    /// write cache or the disks for a write.
    Backend(u32),
    /// Get ownership of the written extent at side `side` of replication `group`.
    Acquire { group: u32, side: u8 },
    /// Send the write to the peer and wait for its acknowledgement.
    Replicate { group: u32, side: u8 },
    /// The port answers with an error status and the I/O goes no further: the LUN is
    /// inaccessible through this controller (NVMe ANA inaccessible, ALUA unavailable).
    Reject,
}

/// A path: adapter → fabric → array port → LUN, with its ESXi runtime name.
///
/// In declared order (`repr(C)`, aligned to a cache line): what an I/O's send, response and
/// completion read of it in its first 32 bytes, esxtop's counters it writes right after, so that
/// a read's four (`IoCounters`' first 32 bytes) share the head's line and a write's four start
/// the next; the rest after. On a host of many devices the paths' records are out of the cache:
/// an I/O used to touch about five lines of its path's (callgrind's cache simulation on
/// 1,000 × 8 × 1, session 21), then two with the head in 64 bytes and the counters in the next
/// 64 (session 21), and with the head in 32 one for a read. The rarely set fault fields
/// (congestion, a slow drain, an error profile) are after the counters, behind one flag of the
/// head (`impaired`) that their setters keep, so that the head fits.
#[derive(Clone)]
#[repr(C, align(64))]
pub struct Path {
    /// One-way fabric latency.
    pub one_way_ns: TimeNs,
    /// Index of the (adapter, port) pair in the zoning: shared by every device's path over it.
    pub nexus: usize,
    /// Route ids for reads and for writes.
    pub routes: [u32; 2],
    /// Its adapter's index (a `u16`, so that the head fits 32 bytes: `adapter()`; a scenario
    /// has at most `MAX_ADAPTERS`, and discovery refuses more than a `u16` holds with the
    /// limit's own message, before `scenario::limits::check` would).
    adapter: u16,
    /// The host holds what is sent down it (a blocked FC remote port, an iSCSI session in
    /// recovery): commands wait without timing out until the host fails the path.
    pub blocked: bool,
    /// Commands get through: the link is not cut and the port works. A path the host still
    /// uses while not connected loses what is sent down it.
    pub connected: bool,
    /// SCSI: the path's target port group reports Transitioning (`sim/alua_transition.rs`): the
    /// host still uses it, and the stack retries what it refuses.
    pub transitioning: bool,
    /// ALUA state the array reports for the path's target port group.
    pub alua: AluaState,
    /// Whether any of `added_latency_ns`, `drain` and `errors` is set: the per-I/O steps read
    /// them only then (they are after the counters, out of the head's line).
    impaired: bool,
    /// Esxtop's counters of the commands it carried (`observe::Recorder` snapshots them).
    pub counters: IoCounters,
    /// Congestion: every response on the path arrives this much later.
    added_latency_ns: TimeNs,
    /// A slow drain since `.0`: responses wait `.1` ns more for each second since then.
    drain: Option<Box<(TimeNs, TimeNs)>>,
    /// Commands on the path end in error (a flaky path).
    errors: Option<Box<ErrorProfile>>,
    /// Its runtime name, shared by the model's copies (a ranking's seeds of one candidate run
    /// on copies of one build: 128,000 names on a cluster of 32 hosts × 500 devices × 8 paths).
    pub name: Arc<str>,
    pub device: usize,
    pub port: usize,
    /// The host uses the path: it has not failed it (esxcli's active versus dead).
    pub up: bool,
    /// When the host last failed it.
    pub failed_at_ns: TimeNs,
    /// When it last lost its connection, and how many times it has (tells a detection timer
    /// of an earlier loss from the current one).
    pub lost_at_ns: Option<TimeNs>,
    pub losses: u32,
    /// When another controller confirmed a cross-controller reset of this path's controller
    /// after its last loss (TP8028): what it held can no longer land.
    pub reset_at_ns: Option<TimeNs>,
    /// Outages of the path's own link still open (`path_down`, `switch_down`,
    /// `all_paths_down`): while any is, the link is cut.
    pub cuts: u32,
    /// NVMe: the path's ANA group reports the change state (`sim/ana.rs`): the host does not use
    /// it, whatever `alua` says.
    pub ana_change: bool,
    pub tpg_id: u32,
    /// Relative target port id (the port's number on its array, from 1).
    pub rtp_id: u32,
    /// On a device whose queue depth is each path's (`Device::per_path_depth`): its commands
    /// started (sent or waiting for the adapter), and the I/Os given this path waiting for one
    /// of them to end (the path's SCSI disk's queue).
    pub active: u32,
    pub waiting: VecDeque<u32>,
}

// The head above (`one_way_ns` to `impaired`) fits 32 bytes; the counters follow, a read's four
// in the head's line.
const _: () = assert!(std::mem::offset_of!(Path, counters) == 32);
const _: () = assert!(std::mem::offset_of!(IoCounters, kernel_read_ns) + 8 == 32);
const _: () = assert!(crate::scenario::limits::MAX_ADAPTERS <= u16::MAX as usize);

impl Path {
    /// A path of adapter `adapter` as discovery makes it, unimpaired.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn discovered(
        name: Arc<str>,
        device: usize,
        adapter: u16,
        port: usize,
        nexus: usize,
        one_way_ns: TimeNs,
        alua: AluaState,
        tpg_id: u32,
        rtp_id: u32,
    ) -> Path {
        Path {
            one_way_ns,
            nexus,
            routes: [0, 0],
            adapter,
            blocked: false,
            connected: true,
            transitioning: false,
            alua,
            impaired: false,
            counters: Default::default(),
            added_latency_ns: 0,
            drain: None,
            errors: None,
            name,
            device,
            port,
            up: true,
            failed_at_ns: 0,
            lost_at_ns: None,
            losses: 0,
            reset_at_ns: None,
            cuts: 0,
            ana_change: false,
            tpg_id,
            rtp_id,
            active: 0,
            waiting: VecDeque::new(),
        }
    }

    /// Its adapter's index.
    #[inline]
    pub fn adapter(&self) -> usize {
        usize::from(self.adapter)
    }

    /// What a response on the path waits beyond the fabric at `now_ns`: congestion, and a slow
    /// drain's delay grown since it started.
    #[inline]
    pub fn added_ns(&self, now_ns: TimeNs) -> TimeNs {
        if self.impaired {
            self.added_when_impaired(now_ns)
        } else {
            0
        }
    }

    // The fault fields are read behind `impaired` in calls of their own: inlined, the compiler
    // reads them ahead of the test (a reference's target may be read at any time), and an
    // unimpaired path's completion missed their line (callgrind on 10,000 × 8 × 1, session 26).
    #[inline(never)]
    fn added_when_impaired(&self, now_ns: TimeNs) -> TimeNs {
        let drained = self.drain.as_deref().map_or(0, |&(since, per_s)| {
            // Grown past what a time can hold (a long drain at a steep growth): the longest.
            TimeNs::try_from(u128::from(now_ns.saturating_sub(since)) * u128::from(per_s) / 1_000_000_000)
                .unwrap_or(TimeNs::MAX)
        });
        self.added_latency_ns.saturating_add(drained)
    }

    /// Whether its responses are held back: a slow drain or congestion.
    #[inline]
    pub fn delayed(&self) -> bool {
        self.impaired && self.delayed_when_impaired()
    }

    #[inline(never)]
    fn delayed_when_impaired(&self) -> bool {
        self.drain.is_some() || self.added_latency_ns != 0
    }

    /// Whether a slow drain holds its responses back (a delay that grows with time).
    #[inline]
    pub fn draining(&self) -> bool {
        self.impaired && self.draining_when_impaired()
    }

    #[inline(never)]
    fn draining_when_impaired(&self) -> bool {
        self.drain.is_some()
    }

    /// Whether commands on it end in error (a flaky path).
    #[inline]
    pub fn erring(&self) -> bool {
        self.impaired && self.errors_when_impaired().is_some()
    }

    /// Its error profile, on a flaky path.
    #[inline]
    pub fn errors(&self) -> Option<&ErrorProfile> {
        if self.impaired {
            self.errors_when_impaired()
        } else {
            None
        }
    }

    #[inline(never)]
    fn errors_when_impaired(&self) -> Option<&ErrorProfile> {
        self.errors.as_deref()
    }

    /// Sets (or clears) its error profile.
    pub fn set_errors(&mut self, errors: Option<ErrorProfile>) {
        self.errors = errors.map(Box::new);
        self.note_impaired();
    }

    /// Adds (or, with `add` false, takes back) congestion of `added_ns`.
    pub fn add_latency(&mut self, added_ns: TimeNs, add: bool) {
        let added = &mut self.added_latency_ns;
        *added = if add { *added + added_ns } else { *added - added_ns };
        self.note_impaired();
    }

    /// Sets (or clears) a slow drain: since `.0`, `.1` ns more for each second.
    pub fn set_drain(&mut self, drain: Option<(TimeNs, TimeNs)>) {
        self.drain = drain.map(Box::new);
        self.note_impaired();
    }

    fn note_impaired(&mut self) {
        self.impaired = self.errors.is_some() || self.drain.is_some() || self.added_latency_ns != 0;
    }
}

/// A device. In declared order (`repr(C)`, aligned to a cache line), what every I/O reads and
/// writes of it in its first lines, its policy's per-I/O fields from the fifth (round robin's
/// lead it: `VmwPspRr`), the rest after: levels, outage, queue depth in the first; the
/// application's watch (32 bytes) and a read's four esxtop counters in the second; a write's
/// four, the error counts, the queue, the failed I/Os and the host in the third and fourth. On a host of many devices the records are
/// out of the cache, and an I/O used to touch about seven lines of its device's, the policy's
/// spread from byte 288 to 430 (callgrind's cache simulation on 1,000 × 8 × 1, session 21); the
/// watch had the fourth line to itself until session 27 (a read's I/O: three lines, now two).
#[repr(C, align(64))]
#[derive(Clone)]
pub struct Device {
    /// Commands issued to a path and not completed (esxtop ACTV).
    pub active: Level,
    /// I/Os waiting in the kernel, in `queue` or `no_path` (esxtop QUED).
    pub queued: Level,
    /// Where the device stands with having no usable path.
    pub outage: Outage,
    /// Esxtop DQLEN. Not a limit on a `bio_based` device; each path's on a `per_path_depth` one.
    pub queue_depth: u32,
    /// Linux dm-multipath: the map has no queue depth of its own (its blk-mq tag set is
    /// `DM_MQ_QUEUE_DEPTH` 2048, drivers/md/dm-rq.c); each path is a SCSI disk with its own
    /// `queue_depth`, and a request chosen for a path whose disk is full waits there, already
    /// counted by the path selector (`start_io` runs at the map, `multipath_clone_and_map`).
    pub per_path_depth: bool,
    /// A Linux NVMe multipath head: it has no queue of its own and sends each I/O down a path
    /// as it comes; the controller's blk-mq tags hold it there (`tags`).
    pub bio_based: bool,
    /// Whether `queue` holds an I/O, kept by the queue's methods: every issue and completion
    /// asks, and the queue's own length is in the record's third line, which an I/O otherwise
    /// does not touch (one last-level miss an I/O on a host of many devices, session 23).
    queue_waits: bool,
    /// What its application saw (`observe::application`: the longest stall), in the record an
    /// issue reads anyway, beside a read's counters, which its completion writes.
    pub watch: DeviceWatch,
    /// Esxtop's counters of its commands (`observe::Recorder` snapshots them): kept in the
    /// device's own record, which a completion reads anyway, rather than in a table of the
    /// recorder's (one look-up fewer an I/O for each of device, path and adapter).
    pub counters: IoCounters,
    /// Waiting for a device slot, retries first: changed only through `Device`'s queue methods,
    /// which keep `queue_waits`.
    queue: VecDeque<u32>,
    /// The I/Os that failed back to its application (no completion reads them).
    pub failed: FailedIos,
    /// The host that sees it (index as `Adapter::host`; a completion reads its adapter's, the
    /// same: `build::paths::discover`).
    pub host: usize,
    /// Knows paths by their index in the path table (`PathId(i)`).
    pub policy: Selector,
    /// Shared by the model's copies, as a path's name.
    pub name: Arc<str>,
    pub array: usize,
    /// Its LUN number: on a port with per-LUN service, the FIFO it queues in.
    pub lun: u32,
    /// The state its host is reported through non-owners, where not the array's (`non_owner`).
    pub non_owner: Option<AluaState>,
    /// Waiting because no path is usable.
    pub no_path: VecDeque<u32>,
    /// The failure handling of its stack.
    pub stack: StackRules,
    /// The array-type plugin that claimed it. This and the next two are read, never changed,
    /// once the model is built: shared by the model's copies, and between devices claimed alike.
    pub satp: Arc<str>,
    /// What a Linux host's claim tables give it (`crate::linux`).
    pub linux: Arc<LinuxClaim>,
    /// The parameters of its policy the scenario gives; the others are the stack's or the
    /// claim's.
    pub given: Arc<[String]>,
    /// How its stack sees path states: the SATP's kind on ESXi, the prioritizer's on Linux
    /// dm-multipath.
    pub path_states: SatpKind,
    pub policy_config: PolicyConfig,
    /// This device's paths in discovery order (indices into the path table).
    pub paths: Vec<usize>,
    /// The owning controller on each array the device lives on, by array index.
    pub owners: Vec<(usize, usize)>,
    /// Its replication group, if it lives on two arrays.
    pub replication: Option<usize>,
    /// The RAID group holding the LUN (`model::backend`); `None`: cache-served.
    pub raid_group: Option<usize>,
}

// The layout above: the watch starts the second line and a read's counters end it (a write's
// start the third), the policy starts the fifth.
const _: () = assert!(std::mem::offset_of!(Device, queue_waits) < 64);
const _: () = assert!(std::mem::offset_of!(Device, watch) == 64);
const _: () = assert!(std::mem::offset_of!(Device, counters) == 96);
const _: () = assert!(std::mem::offset_of!(Device, policy) == 256);

/// A device's state with respect to having no usable path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outage {
    /// The policy finds a path.
    None,
    /// No usable path: I/O waits. `episode` tells this outage's give-up timer from older ones.
    Waiting { episode: u32 },
    /// Waited as long as the stack allows (or the stack never waits): I/O fails at once until
    /// a path is back.
    GivenUp,
}

/// Two arrays replicating volumes: the link between them and, optionally, extent ownership.
#[derive(Clone)]
pub struct Replication {
    pub name: String,
    /// A site is lost (`site_down`): the surviving array acknowledges writes alone.
    pub suspended: bool,
    pub arrays: [usize; 2],
    pub one_way_ns: TimeNs,
    pub bytes_per_ns: Option<f64>,
    /// When each direction of the link is next free (index: sending side).
    pub free_at: [TimeNs; 2],
    pub contention: Option<Contention>,
    /// Writes replicated from each side.
    pub writes: [u64; 2],
    /// The array whose paths hosts see active-optimized (the other's are non-optimized).
    pub preferred_array: Option<usize>,
}

/// Everything the engine needs to run, built once per run.
#[derive(Clone)]
pub struct Model {
    /// Every host's name: `[host]`, then `[[hosts]]` in order (index as `Adapter::host`).
    pub host_names: Vec<String>,
    /// Per host: the multipath-tools release its listings follow (`[host] multipath_tools`).
    pub host_multipath_tools: Vec<Option<String>>,
    pub host: HostState,
    /// Per host (`[host]`, then `[[hosts]]`): when its application stops reaping.
    pub host_pauses: Vec<Option<HostPauses>>,
    /// Per host: what its application waits for before it reaps a completion (the host stack's
    /// time, a pause).
    pub host_reaping: Vec<pause::Reaping>,
    pub adapters: Vec<Adapter>,
    pub arrays: Vec<Array>,
    pub controllers: Vec<Controller>,
    pub stations: Vec<Station>,
    pub ports: Vec<Port>,
    pub paths: Vec<Path>,
    pub devices: Vec<Device>,
    pub routes: Vec<Vec<Step>>,
    /// Each distinct route's id in `routes`, so that paths share routes without a search. Ordered,
    /// not hashed: a model's distinct routes are few beside its paths (one a port and direction, or
    /// a LUN's and port's where a LUN has stations of its own), and a tree's few comparisons find
    /// one for less than a hash of its steps (a cluster's build asks for 256,000: SipHash was an eighth of it).
    pub route_ids: std::collections::BTreeMap<Vec<Step>, u32>,
    pub replications: Vec<Replication>,
    /// RAID groups and write caches; their disks are stations.
    pub backends: Backends,
    /// blk-mq's tag maps under each NVMe controller, for the `bio_based` devices' paths.
    pub tags: tags::TagSets,
    /// Each `[[fabric]]` table's name (its index where it has none), and each nexus's table.
    pub fabric_names: Vec<String>,
    pub nexus_fabric: Vec<usize>,
}

impl Model {
    /// The devices' names, as a reference finds them: `HOST/NAME`, or a name alone one host has.
    pub fn device_names(&self) -> names_per_host::NamesPerHost<'_> {
        let named = self.devices.iter().map(|d| (&*d.name, d.host)).collect();
        names_per_host::NamesPerHost::new(named, &self.host_names, "device")
    }

    /// Whether anything reads an I/O's offset: extent ownership (`Replication::contention`)
    /// and RAID back ends. Without them the workers draw none.
    pub fn reads_offsets(&self) -> bool {
        self.replications.iter().any(|r| r.contention.is_some()) || !self.backends.groups.is_empty()
    }
}

impl Device {
    /// Whether it may start another command (a bio-based device has no queue depth; on a
    /// `per_path_depth` one each path has its own, checked once the path is chosen).
    #[inline]
    pub fn slot_free(&self) -> bool {
        self.bio_based || self.per_path_depth || self.active.value() < u64::from(self.queue_depth)
    }

    /// Whether an I/O waits in its queue (from the record's first line).
    #[inline(always)]
    pub fn queue_waits(&self) -> bool {
        self.queue_waits
    }

    /// The I/O at the front of its queue.
    pub fn queue_front(&self) -> Option<u32> {
        self.queue.front().copied()
    }

    /// I/O `io` joins the back of the device's queue, counted in QUED (esxtop's queued commands)
    /// from `now`: every I/O that waits there was just issued.
    pub fn queue_push_back(&mut self, now: TimeNs, io: u32) {
        self.queued.add(now, 1);
        self.queue.push_back(io);
        self.queue_waits = true;
    }

    /// I/O `io` goes back to the front of the device's queue; the caller has counted it in QUED
    /// already (`requeue`, `retry_or_hold`): a held I/O is not counted twice.
    pub fn queue_push_front(&mut self, io: u32) {
        self.queue.push_front(io);
        self.queue_waits = true;
    }

    pub fn queue_pop_front(&mut self) -> Option<u32> {
        let io = self.queue.pop_front();
        self.queue_waits = !self.queue.is_empty();
        io
    }

    /// What waits for a path goes to the front of its queue, ahead of what is there.
    pub fn queue_behind(&mut self, mut front: VecDeque<u32>) {
        front.append(&mut self.queue);
        self.queue = front;
        self.queue_waits = !self.queue.is_empty();
    }

    /// No path is usable: what waits in its queue moves behind what waits for a path.
    pub fn queue_onto_no_path(&mut self) {
        self.no_path.append(&mut self.queue);
        self.queue_waits = false;
    }

    /// A command leaves its queue for its active ones (it has its path, and its tag under an
    /// NVMe head).
    #[inline]
    pub fn started(&mut self, now: TimeNs) {
        self.queued.add(now, -1);
        self.active.add(now, 1);
    }

    /// A native NVMe multipath head: bio-based, and not RNBD (which sits over the same block
    /// layer but is not NVMe). `nvme list-subsys` shows it; dm-multipath leaves it alone.
    pub fn nvme_head(&self) -> bool {
        self.bio_based && !matches!(self.policy_config, pathlab_policy::PolicyConfig::Rnbd(_))
    }
}

impl Model {
    /// Commands queued at port `p`, for the port or for one of its LUNs' FIFOs (not in service).
    pub fn port_waiting(&self, p: usize) -> u64 {
        let port = &self.ports[p];
        let waiting = |st: usize| self.stations[st].queue.len() as u64;
        waiting(port.station) + port.lun_stations.iter().map(|&(_, st)| waiting(st)).sum::<u64>()
    }

    /// The ALUA state an array reports for `device` through `port`: active-optimized on the
    /// owning controller (every controller of a symmetric array) of the preferred array, if the
    /// device's replication group names one; on other controllers the array's non-owner state
    /// (active-non-optimized unless it says otherwise); active-non-optimized on the array that
    /// is not preferred. A device whose host the array answers otherwise has its own non-owner
    /// state.
    pub fn reported_alua(&self, device: usize, port: usize) -> AluaState {
        let port = &self.ports[port];
        let d = &self.devices[device];
        let owner = match self.arrays[port.array].symmetric {
            true => Some(port.controller),
            false => d.owners.iter().find(|o| o.0 == port.array).map(|o| o.1),
        };
        let preferred = d.replication.and_then(|g| self.replications[g].preferred_array);
        if owner != Some(port.controller) {
            d.non_owner.unwrap_or(self.arrays[port.array].non_owner)
        } else if preferred.is_some_and(|a| a != port.array) {
            AluaState::ActiveNonOptimized
        } else {
            AluaState::ActiveOptimized
        }
    }

    /// The steps of an I/O through path `p` inside the arrays.
    pub fn route_steps(&self, p: usize, is_write: bool) -> Vec<Step> {
        let path = &self.paths[p];
        let port = &self.ports[path.port];
        let array = &self.arrays[port.array];
        let device = &self.devices[path.device];
        let owner = match array.symmetric {
            true => port.controller,
            false => device.owners.iter().find(|o| o.0 == port.array).map_or(port.controller, |o| o.1),
        };
        // Room for the most a route takes (11 steps, below), so that its steps are one
        // allocation, not three as the vector grows (a cluster's build asks for 256,000 routes).
        let mut steps = Vec::with_capacity(11);
        if array.busy.is_some() {
            steps.push(Step::Admit(path.port as u32));
        }
        steps.push(Step::Serve(port.station as u32));
        if self.reported_alua(path.device, path.port) == AluaState::Unavailable {
            steps.push(Step::Reject);
            return steps;
        }
        let data = port.data.is_some().then_some(Step::PortData { port: path.port as u32, inbound: is_write });
        // A write's data comes in once the port has taken the command (FCP XFER_RDY).
        if is_write {
            steps.extend(data);
        }
        if let Ok(i) = port.lun_stations.binary_search_by_key(&device.lun, |&(lun, _)| lun) {
            steps.push(Step::Serve(port.lun_stations[i].1 as u32));
        }
        let serve_at = |c: usize, steps: &mut Vec<Step>| {
            if let Some(st) = self.controllers[c].station {
                steps.push(Step::Serve(st as u32));
            }
        };
        serve_at(port.controller, &mut steps);
        if owner != port.controller {
            // Arrived on a controller that does not own the LUN: forwarded to the owner and back.
            if array.forward_ns > 0 {
                steps.push(Step::Delay(array.forward_ns));
            }
            serve_at(owner, &mut steps);
            if array.forward_ns > 0 {
                steps.push(Step::Delay(array.forward_ns));
            }
        }
        let cache = if is_write { array.write_latency_ns } else { array.read_latency_ns };
        match device.raid_group {
            Some(g) => steps.push(Step::Backend(g as u32)),
            None if cache > 0 => steps.push(Step::Delay(cache)),
            None => {}
        }
        if let (true, Some(g)) = (is_write, device.replication) {
            let r = &self.replications[g];
            let side = u8::from(r.arrays[1] == port.array);
            if r.contention.is_some() {
                steps.push(Step::Acquire { group: g as u32, side });
            }
            steps.push(Step::Replicate { group: g as u32, side });
        }
        // A read's data goes out once the array has it.
        if !is_write {
            steps.extend(data);
        }
        steps
    }

    /// Gives path `p` its read and write routes for the current ownership, sharing identical
    /// routes between paths. Routes already in use stay: I/O on them finishes on them.
    pub fn set_routes(&mut self, p: usize) {
        for (rw, is_write) in [(0, false), (1, true)] {
            let steps = self.route_steps(p, is_write);
            // Looked up before it is copied: most are known.
            let id = match self.route_ids.get(&steps) {
                Some(&id) => id,
                None => {
                    let id = self.routes.len() as u32;
                    self.route_ids.insert(steps.clone(), id);
                    self.routes.push(steps);
                    id
                }
            };
            self.paths[p].routes[rw] = id;
        }
    }

    /// The ALUA state the device's policy should see for a path, through its SATP: ALUA
    /// plugins pass the array's report on, active-active plugins see every path active, and
    /// active-passive plugins see the owner's paths active and the others standby.
    pub fn policy_alua(&self, path: usize) -> AluaState {
        let p = &self.paths[path];
        let device = &self.devices[p.device];
        if p.ana_change {
            // No ANA state in the change state is usable (`__nvme_find_path`).
            return AluaState::Unavailable;
        }
        match device.path_states {
            SatpKind::Alua => p.alua,
            SatpKind::ActiveActive => AluaState::ActiveOptimized,
            SatpKind::ActivePassive => {
                let port = &self.ports[p.port];
                let owner = device.owners.iter().find(|o| o.0 == port.array).map(|o| o.1);
                if self.arrays[port.array].symmetric || owner == Some(port.controller) {
                    AluaState::ActiveOptimized
                } else {
                    AluaState::Standby
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::BusyRule;

    #[test]
    fn a_port_refuses_in_proportion_to_the_commands_queued_there() {
        let rule = BusyRule { depth: 100.0, retry_ns: 1 };
        let share = |waiting: u64| {
            let n = 100_000;
            (0..n).filter(|i| rule.refuses(waiting, (*i as f64 + 0.5) / n as f64)).count() as f64 / n as f64
        };
        assert_eq!(share(0), 0.0);
        assert!((share(5) - 0.05).abs() < 1e-4);
        assert!((share(50) - 0.5).abs() < 1e-4);
        assert_eq!(share(100), 1.0);
    }
}
