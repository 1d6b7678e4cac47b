//! The scenario file, field by field. Every table rejects unknown fields; defaults are the
//! values a user of the real tools would expect when a field is left out.

use super::units::{Bytes, BytesPerSec, DurationNs, Kilometres};
use pathlab_policy::PolicyConfig;
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSpec {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub run: RunSpec,
    pub host: HostSpec,
    /// `[[hosts]]`: more hosts sharing the arrays, each with its own adapters, stack time,
    /// pauses and failure timings. A device belongs to `[host]` unless it names one of these.
    #[serde(default)]
    pub hosts: Vec<HostSpec>,
    pub arrays: Vec<ArraySpec>,
    pub devices: Vec<DeviceSpec>,
    /// Which adapter reaches which array port, and how far away it is.
    pub fabric: Vec<FabricSpec>,
    /// The policy of every device that does not name its own; left out, each device gets the
    /// path selection policy its array-type claim rule gives (as ESXi does). A Linux policy's
    /// parameters left out take the Linux claim tables' values (`crate::linux`).
    #[serde(default)]
    pub policy: Option<PolicySetting>,
    /// The admin's own esxcli commands, applied in order before the devices are claimed
    /// (`satp rule add`) or after (`device set`, `psp roundrobin deviceconfig set`).
    #[serde(default)]
    pub esxcli: Vec<String>,
    /// Active-active replication between two arrays.
    #[serde(default)]
    pub replication: Vec<ReplicationSpec>,
    pub workloads: Vec<WorkloadSpec>,
    #[serde(default)]
    pub faults: Vec<FaultSpec>,
    /// Published figures of the base scenario (variants carry their own).
    #[serde(default)]
    pub published: BTreeMap<String, f64>,
    #[serde(default)]
    pub tolerance: BTreeMap<String, f64>,
    /// Where the published figures come from.
    #[serde(default)]
    pub source: String,
    /// Devices a host's listing printed that the scenario does not simulate (a map whose only
    /// paths show no SCSI address), kept for `pathlab show` to print back as read: `pathlab
    /// import` writes them; the simulation does not read them.
    #[serde(default)]
    pub unsimulated: Vec<UnsimulatedSpec>,
}

/// A device a listing printed that the scenario does not simulate, and why.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnsimulatedSpec {
    /// The device's name, as a `[[devices]]` name (its WWID).
    #[serde(deserialize_with = "device_name")]
    pub name: String,
    /// The host whose listing printed it (a `[[hosts]]` name); left out, `[host]`.
    #[serde(default)]
    pub host: Option<String>,
    /// Why it is not simulated, in words.
    #[serde(default)]
    pub why: String,
    /// What the listing printed of it, as a device's `listed` table; its paths by their place
    /// in the listing (`"0"`, `"1"`, …), since they have no runtime name.
    #[serde(default)]
    pub listed: ListedSpec,
}

impl ScenarioSpec {
    /// Every host with the field path of its table: `[host]` first, then `[[hosts]]` in order. A
    /// host's index in this list is its index everywhere in the model.
    pub fn every_host(&self) -> Vec<(String, &HostSpec)> {
        std::iter::once(("host".to_string(), &self.host))
            .chain(self.hosts.iter().enumerate().map(|(i, h)| (format!("hosts.{i}"), h)))
            .collect()
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunSpec {
    /// Length of the measurement window, after the warm-up.
    pub duration: DurationNs,
    /// Time simulated before measuring (discarded, like vdbench's first interval).
    pub warmup: DurationNs,
    /// Sampling interval of the time series (esxtop's default delay is 5 s).
    pub interval: DurationNs,
    pub seed: u64,
}

impl Default for RunSpec {
    fn default() -> Self {
        RunSpec {
            duration: DurationNs(60_000_000_000),
            warmup: DurationNs(0),
            interval: DurationNs(5_000_000_000),
            seed: 1,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    #[serde(default = "default_host_name", deserialize_with = "host_name")]
    pub name: String,
    /// Host CPUs; workers are spread over them in order (worker i submits on CPU i mod cpus).
    #[serde(default = "default_cpus")]
    pub cpus: u32,
    /// NUMA nodes; CPUs are split into equal consecutive blocks, one per node.
    #[serde(default = "default_numa_nodes")]
    pub numa_nodes: u32,
    pub adapters: Vec<AdapterSpec>,
    /// Failure-handling timings of the host's multipath stack; each one left out takes the
    /// default of the stack the device's policy belongs to (`model::stack`).
    #[serde(default)]
    pub stack: StackSpec,
    /// `[host.pauses]`: moments when the host stops reaping completions (guest or VMkernel
    /// scheduling, a load generator's garbage collection). Off unless given.
    #[serde(default)]
    pub pauses: Option<PauseSpec>,
    /// Host time per I/O outside the device queue (guest block layer and driver, the
    /// hypervisor's virtual adapter and storage stack, interrupt to the application): every
    /// I/O spends it between the kernel's completion and the application seeing it, holding
    /// no device or adapter slot. Zero unless given.
    #[serde(default)]
    pub stack_time: DurationNs,
    /// The multipath-tools release whose listing rules `multipath -ll`/`-l` of this host follow
    /// (`show --style linux`): one of `linux::MULTIPATH_TOOLS` (the releases whose
    /// printing differs), left out for today's. Display only: the simulation does not read it.
    #[serde(default)]
    pub multipath_tools: Option<String>,
}

/// `[host.pauses]`: pauses at Poisson instants `every` apart on average, each lasting
/// `duration` (drawn from `distribution` with that mean). During a pause completions wait: the
/// I/Os finish at the array but the application sees them only when the pause ends.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PauseSpec {
    pub every: DurationNs,
    pub duration: DurationNs,
    #[serde(default)]
    pub distribution: Distribution,
    /// Coefficient of variation, for `lognormal` only.
    #[serde(default)]
    pub cv: Option<f64>,
}

/// `[host.stack]`: overrides of the stack's failure-handling timings, for every device.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StackSpec {
    /// How long a command may go unanswered before the host aborts it (SCSI disk timeout,
    /// `nvme_core.io_timeout`, MPIO DiskTimeoutValue).
    #[serde(default)]
    pub io_timeout: Option<DurationNs>,
    /// ESXi `Misc.APDTimeout`: how long I/O waits in all-paths-down before it fails.
    #[serde(default)]
    pub apd_timeout: Option<DurationNs>,
    /// ESXi `Misc.APDHandlingEnable`: `false` (0) turns APD handling off, and I/O in
    /// all-paths-down is retried until a path returns, as in ESXi 5.0 (`apd_timeout` then does
    /// nothing, and is refused beside it); default `true`.
    #[serde(default)]
    pub apd_handling: Option<bool>,
    /// multipathd `polling_interval`: how often the path checker looks at failed paths.
    #[serde(default)]
    pub checker_interval: Option<DurationNs>,
    /// NVMe-oF `reconnect_delay` / SPDK `reconnect_delay_sec`: time between reconnect attempts.
    #[serde(default)]
    pub reconnect_delay: Option<DurationNs>,
    /// NVMe-oF `ctrl_loss_tmo` / SPDK `ctrlr_loss_timeout_sec`: how long I/O waits with no
    /// path before it fails.
    #[serde(default)]
    pub controller_loss_timeout: Option<DurationNs>,
    /// Linux NVMe `delayed_removal_secs` (the multipath head's sysfs attribute, 6.16): how long
    /// the head keeps queueing I/O after its last path is removed (the controllers deleted at
    /// `ctrl_loss_tmo`) before it is removed and the I/O fails. 0 (the kernel's default): at once.
    #[serde(default)]
    pub delayed_removal: Option<DurationNs>,
    /// Linux NVMe-oF `nvme connect --queue-size`: entries per I/O submission queue, which
    /// bounds blk-mq's tags per controller queue (`model::tags`). Default 128.
    #[serde(default)]
    pub nvme_queue_size: Option<u32>,
    /// Linux NVMe-oF `nvme connect --nr-io-queues`: I/O queues (tag maps) per controller.
    /// Default: one per CPU, as the kernel gives.
    #[serde(default)]
    pub nvme_io_queues: Option<u32>,
    /// The SCSI transport of dm-multipath's paths, which decides how a loss is found: `fc`
    /// (the HBA sees a link go, `fast_io_fail_tmo`) or `iscsi` (NOP-Out, `replacement_timeout`).
    #[serde(default)]
    pub scsi_transport: ScsiTransport,
    /// FC `fast_io_fail_tmo` (multipathd sets it; default 5 s): a remote port the HBA saw go is
    /// blocked, and its I/O held this long before it fails to dm-multipath, which retries it on
    /// another path; 0 fails it over at once. Under iSCSI, multipathd writes it into the
    /// session's `replacement_timeout`. On NVMe (Linux `nvme connect --fast_io_fail_tmo`, SPDK
    /// `fast_io_fail_timeout_sec`; default off): a controller reconnecting this long no longer
    /// keeps I/O waiting for it, so I/O with no other path fails then instead of at
    /// `controller_loss_timeout` (SPDK: at its first failed reconnect attempt from then).
    #[serde(default)]
    pub fast_io_fail_tmo: Option<DurationNs>,
    /// FC `dev_loss_tmo`: the blocked remote port is removed after this long, its I/O failed
    /// over then if `fast_io_fail_tmo` has not done it. Default 60 s (the FC transport's).
    #[serde(default)]
    pub dev_loss_tmo: Option<DurationNs>,
    /// multipathd `max_polling_interval`: a healthy path's checks space out to this period; the
    /// checker finds a path that stopped answering at its next check. Default 4 × the checker
    /// interval.
    #[serde(default)]
    pub max_polling_interval: Option<DurationNs>,
    /// multipathd `checker_timeout`: how long the checker's command (TUR) waits for an answer
    /// before the path is down. Default: the I/O timeout (the device's sysfs timeout).
    #[serde(default)]
    pub checker_timeout: Option<DurationNs>,
    /// open-iscsi `node.conn[0].timeo.noop_out_interval` (ESXi `NoopOutInterval`): a NOP-Out ping
    /// this often on each connection. Default 5 s.
    #[serde(default)]
    pub noop_out_interval: Option<DurationNs>,
    /// open-iscsi `node.conn[0].timeo.noop_out_timeout` (ESXi `NoopOutTimeout`): a NOP-Out
    /// unanswered this long fails the connection. Default 5 s.
    #[serde(default)]
    pub noop_out_timeout: Option<DurationNs>,
    /// open-iscsi `node.session.timeo.replacement_timeout` (ESXi `RecoveryTimeout`): a failed
    /// session holds its I/O this long, then fails it up. Under dm-multipath multipathd sets it
    /// to `fast_io_fail_tmo`: give one of the two.
    #[serde(default)]
    pub replacement_timeout: Option<DurationNs>,
    /// NVMe keep-alive timeout (KATO; `nvme connect --keep-alive-tmo`): a keep-alive goes out
    /// every KATO/2 and one unanswered for KATO fails the controller; towards a controller that
    /// advertises traffic-based keep-alive (`[[arrays]] traffic_based_keep_alive`) Linux checks
    /// every KATO/4 and sends none while completions arrive. Default 5 s (Linux), 10 s (SPDK).
    #[serde(default)]
    pub keep_alive_timeout: Option<DurationNs>,
    /// The controller's Command Quiesce Time (CQT, NVMe 2.1 "Communication Loss Handling"): how
    /// long after its keep-alive timer expires it may still be finishing commands. Default 0.
    #[serde(default)]
    pub command_quiesce_time: Option<DurationNs>,
    /// Linux NVMe kernels from 4.8 added `NVME_KATO_GRACE` (10 s) to the KATO they sent the
    /// controller in Connect (commit 038bd4cb "nvme: add keep-alive support"; still so in a 2019
    /// trace, linux-nvme/nvme-cli#624), so the controller's own keep-alive timer, and the window
    /// in which it may still execute what a lost host sent, ran that much longer; later kernels
    /// send KATO as is (`nvmf_connect_cmd_prep`). Default 0.
    #[serde(default)]
    pub kato_grace: Option<DurationNs>,
    /// TP4129: hold a failed controller's I/O this many KATO plus CQT before retrying it on
    /// another path (2, or 3 with traffic-based keep-alive: 2 is refused towards a controller
    /// that advertises it). Left out: retried at once (Linux).
    #[serde(default)]
    pub tp4129_hold: Option<u32>,
    /// Errors after which an I/O is still retried, where the stack counts them (ESXi 5, Linux
    /// NVMe `max_retries` 5, SPDK `bdev_retry_count` 3, Windows MPIO `RetryCount` 3; dm-multipath
    /// counts none and ignores it).
    #[serde(default)]
    pub retry_count: Option<u32>,
    /// How long a failed request waits before its retry: Windows MPIO `RetryInterval` (default
    /// 1 s); the other stacks retry at once (0) unless given.
    #[serde(default)]
    pub retry_interval: Option<DurationNs>,
    /// ESXi `Disk.PathEvalTime`: how often the host evaluates its paths (default 300 s). A dead
    /// path that comes back without a link event (a loss with `detection = "timeout"`) is taken
    /// back at the next evaluation; one the link reports back, at once.
    #[serde(default)]
    pub path_eval_time: Option<DurationNs>,
    /// Windows MPIO `PathVerifyEnabled` (default off): MPIO verifies every path each
    /// `path_verification_period`, and a dead path that comes back without a PnP arrival (a
    /// loss with `detection = "timeout"`) is taken back at the next verification. Off: taken
    /// back at once, as on a PnP arrival.
    #[serde(default)]
    pub path_verify: bool,
    /// Windows MPIO `PathVerificationPeriod`, default 30 s (with `path_verify`).
    #[serde(default)]
    pub path_verification_period: Option<DurationNs>,
    /// TP8028 cross-controller reset: with the TP4129 hold, another controller of the subsystem
    /// resets the failed one and the hold ends when it confirms (one round trip on its path).
    #[serde(default)]
    pub ccr: bool,
}

/// `[host.stack] scsi_transport`: how dm-multipath's SCSI paths find a loss.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ScsiTransport {
    /// Fibre Channel: the HBA sees a link go (RSCN) and blocks the remote port for
    /// `fast_io_fail_tmo`.
    #[default]
    Fc,
    /// iSCSI: NOP-Out pings find a connection that stopped answering; the session holds its I/O
    /// for `replacement_timeout`.
    Iscsi,
}

fn default_cpus() -> u32 {
    8
}

fn default_numa_nodes() -> u32 {
    1
}

fn default_host_name() -> String {
    "esx01".to_string()
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdapterSpec {
    /// `vmhbaN`: the first part of every runtime name through this adapter.
    #[serde(deserialize_with = "adapter_name")]
    pub name: String,
    /// Line rate of the adapter's link; left out, data transfer takes no time.
    #[serde(default)]
    pub link_speed: Option<BytesPerSec>,
    /// Commands the adapter accepts at once (esxtop AQLEN).
    #[serde(default = "default_adapter_queue_depth")]
    pub queue_depth: u32,
    /// NUMA node the adapter is attached to.
    #[serde(default)]
    pub numa_node: u32,
    /// `interrupt_coalescing`: the adapter holds completions and raises one interrupt per
    /// `delay` (QLogic's ZIO). Left out, every completion is delivered as it arrives.
    #[serde(default)]
    pub interrupt_coalescing: Option<CoalescingSpec>,
    /// `iscsi`: an ESXi software (or dependent hardware) iSCSI adapter, with the adapter-level
    /// parameters `esxcli iscsi adapter param set` changes; `iscsi = {}` takes VMware's
    /// defaults. Left out, the adapter is not iSCSI (FC).
    #[serde(default)]
    pub iscsi: Option<EsxiIscsiSpec>,
}

/// An ESXi iSCSI adapter's session timers (`esxcli iscsi adapter param get`): a NOP-Out every
/// `noop_out_interval`, unanswered for `noop_out_timeout`, ends the connection; the session then
/// holds its I/O `recovery_timeout` while it logs in again, after which its paths are dead and
/// the PSP retries the I/O on another path.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EsxiIscsiSpec {
    /// `NoopOutInterval`, default 15 s (1 to 60 s).
    #[serde(default)]
    pub noop_out_interval: Option<DurationNs>,
    /// `NoopOutTimeout`, default 10 s (10 to 30 s).
    #[serde(default)]
    pub noop_out_timeout: Option<DurationNs>,
    /// `RecoveryTimeout`, default 10 s (1 to 120 s).
    #[serde(default)]
    pub recovery_timeout: Option<DurationNs>,
}

/// A completion reaching the adapter is held while the adapter has `threshold` commands or more
/// in flight (always, without a threshold); the first held one starts `delay`, at whose end all
/// held ones are delivered; the driver starting any command on the adapter delivers them at
/// once (it reads the response queue as it submits).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoalescingSpec {
    pub delay: DurationNs,
    #[serde(default)]
    pub threshold: Option<u32>,
}

fn default_adapter_queue_depth() -> u32 {
    4096
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArraySpec {
    #[serde(deserialize_with = "array_name")]
    pub name: String,
    #[serde(default = "default_vendor")]
    pub vendor: String,
    #[serde(default = "default_model")]
    pub model: String,
    /// Time from the end of port service to the data leaving for a read served from cache.
    #[serde(default)]
    pub read_latency: DurationNs,
    /// Time from the end of port service to the status of a write landing in cache.
    #[serde(default)]
    pub write_latency: DurationNs,
    /// Service of every port that does not give its own.
    #[serde(default)]
    pub service: Option<ServiceSpec>,
    /// Service of one LUN's commands at one port, after the port's own: a FIFO per (port, LUN)
    /// pair, so a LUN's work through a port is done one command at a time. Left out, none.
    #[serde(default)]
    pub device_service: Option<ServiceSpec>,
    /// Whether the array reports ALUA target port groups (SCSI TPGS): what claim rules match
    /// with `tpgs_on` / `tpgs_off`.
    #[serde(default)]
    pub tpgs: bool,
    /// Storage processors / directors. Left out, the array has one controller that owns all.
    #[serde(default)]
    pub controllers: Vec<ControllerSpec>,
    /// Every controller serves every LUN as its own (VMAX, FlashArray): no LUN ownership, no
    /// forwarding, every path active-optimized. Otherwise a LUN is owned by one controller.
    #[serde(default)]
    pub symmetric: bool,
    /// One-way latency of the internal link between controllers, paid twice by I/O that arrives
    /// on a controller that does not own its LUN.
    #[serde(default)]
    pub forward_latency: DurationNs,
    pub ports: Vec<PortSpec>,
    /// The state the array reports for a LUN through the controllers that do not own it:
    /// `active_non_optimized` (forwarded, the default), or `unavailable` (NVMe ANA inaccessible:
    /// a Ceph NVMe-oF gateway answers I/O for another gateway's namespaces with an error).
    #[serde(default = "non_owner_default")]
    pub non_owner_state: pathlab_policy::AluaState,
    /// `[arrays.balance]`: the array moves LUN ownership between its controllers by itself.
    #[serde(default)]
    pub balance: Option<BalanceSpec>,
    /// `[[arrays.raid_groups]]`: disk back ends. A device that names one is served by its disks
    /// on a read miss and on destage; the others stay cache-served (`read_latency`,
    /// `write_latency`).
    #[serde(default)]
    pub raid_groups: Vec<RaidGroupSpec>,
    /// `[arrays.cache]`: read hit ratio and write cache of the RAID groups' devices.
    #[serde(default)]
    pub cache: Option<CacheSpec>,
    /// `busy`: the ports refuse commands when deep in work (SCSI BUSY / TASK SET FULL), and the
    /// host sends a refused command again after a delay. Left out, ports take every command.
    #[serde(default)]
    pub busy: Option<BusySpec>,
    /// NVMe ANA Transition Time its controllers report (Identify Controller `ANATT`, whole
    /// seconds 1 to 255; `nvme id-ctrl` prints it as `anatt`): how long an ANA group may stay in
    /// the change state before the host acts (Linux resets the controller after 2 × ANATT, SPDK
    /// gives the path up after ANATT). A controller's own `anatt` wins. Needed by a fault that
    /// passes through the change state (`ana_change`).
    #[serde(default)]
    pub anatt: Option<DurationNs>,
    /// NVMe: its controllers advertise traffic-based keep-alive (Identify Controller CTRATT bit
    /// 6, TBKAS; `nvme id-ctrl` prints `ctratt`): Linux then checks every KATO/4 and skips the
    /// keep-alive while completions arrive (`model::keep_alive`), and TP4129's hold is 3 × KATO.
    /// Left out: not advertised (assumed; Linux's own target, nvmet, advertises it). A
    /// controller's own setting wins. Read by Linux NVMe hosts (policy nvme) only.
    #[serde(default)]
    pub traffic_based_keep_alive: Option<bool>,
    /// SCSI: the IMPLICIT TRANSITION TIME its REPORT TARGET PORT GROUPS reports (the extended
    /// header, whole seconds 0 to 255): how long Linux's scsi_dh_alua lets a target port group
    /// stay Transitioning before it sets it standby and fails the path (60 s, `ALUA_FAILOVER_TIMEOUT`, where left out or 0). Read by a
    /// `controller_reboot` with `ana_change` on a dm-multipath host.
    #[serde(default)]
    pub implicit_transition_time: Option<DurationNs>,
}

/// A command reaching a port with w commands queued (for the port or its LUNs' FIFOs, not in
/// service) is refused with probability w / `depth`; the host sends it again down the same path
/// `retry` after the status reaches it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BusySpec {
    pub depth: f64,
    pub retry: DurationNs,
}

fn non_owner_default() -> pathlab_policy::AluaState {
    pathlab_policy::AluaState::ActiveNonOptimized
}

/// Array-side balancing, as Ceph NVMe-oF gateway groups do it (`control/rebalance.py`): every
/// `period` a pass moves up to `max_moves` namespaces, one at a time, from the most loaded
/// controller (gateway, ANA group) to the least loaded, while they differ by two or more.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BalanceSpec {
    /// Time between passes (Ceph `rebalance_period_sec`, default 7 s).
    #[serde(default = "default_balance_period")]
    pub period: DurationNs,
    /// Namespaces moved per pass at most (Ceph `max_ns_to_change_lb_grp`, default 8).
    #[serde(default = "default_balance_moves")]
    pub max_moves: u32,
    /// What a controller's load is.
    #[serde(default)]
    pub load: BalanceLoad,
}

/// How the balancer weighs a controller.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum BalanceLoad {
    /// The namespaces it owns (Ceph's `ana_grp_ns_load`: a count, not I/O).
    #[default]
    Namespaces,
}

fn default_balance_period() -> DurationNs {
    DurationNs(7_000_000_000)
}

fn default_balance_moves() -> u32 {
    8
}

/// A RAID group: `disks` identical disks in `level`, data laid out in stripe elements.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RaidGroupSpec {
    pub name: String,
    pub level: RaidLevel,
    pub disks: u32,
    /// Bytes of a LUN on one disk before the next disk takes over. FLARE's default (and only
    /// Navisphere choice) is 128 blocks, 64 KiB (EMC CLARiiON Best Practices for Performance
    /// and Availability, R28-R30: "stripe element size").
    #[serde(default = "default_stripe_element")]
    pub stripe_element: Bytes,
    pub disk: DiskSpec,
    /// Fraction of reads served from the read cache, from 0 to 1; left out, the array's
    /// `cache.read_hit`.
    #[serde(default)]
    pub read_hit: Option<f64>,
}

fn default_stripe_element() -> Bytes {
    Bytes(64 * 1024)
}

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RaidLevel {
    /// Rotating single parity: a small write reads and writes data and parity (4 disk ops).
    #[default]
    Raid5,
    /// Rotating double parity (P and Q): a small write costs 6 disk ops over 3 disks.
    Raid6,
    /// Mirrored pairs, striped: a write goes to both sides of its pair.
    Raid10,
}

/// A disk drive from its datasheet: average seek, spindle speed, sustained media rate.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiskSpec {
    /// Average seek of a read (the datasheet's "average seek, read").
    pub seek: DurationNs,
    /// Average seek of a write (write settling is longer); left out, `seek`.
    #[serde(default)]
    pub write_seek: Option<DurationNs>,
    /// Spindle speed: the rotational latency is uniform over one revolution (60 / rpm).
    pub rpm: u32,
    /// Sustained media transfer rate.
    pub transfer_rate: BytesPerSec,
    /// How seek times spread about their mean; left out, every seek takes the average.
    #[serde(default)]
    pub seek_distribution: Distribution,
    /// Coefficient of variation of the seek, for `lognormal` only.
    #[serde(default)]
    pub cv: Option<f64>,
}

/// The array's cache in front of its RAID groups (FLARE: read cache per SP, one mirrored write
/// cache with high and low watermarks).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheSpec {
    /// Fraction of reads served from cache, from 0 to 1 (decided by each read's own draw).
    #[serde(default)]
    pub read_hit: f64,
    /// Write cache size; left out, writes go through to the disks (write cache disabled).
    #[serde(default)]
    pub write_size: Option<Bytes>,
    /// Writes larger than this bypass the write cache. FLARE's default write-aside size is 2048
    /// blocks, 1 MiB (EMC CLARiiON Best Practices for Performance and Availability, R28-R30).
    #[serde(default = "default_write_aside")]
    pub write_aside: Bytes,
    /// Destage requests the array keeps in flight per disk of a group while it flushes. Not
    /// published for FLARE: pathlab's choice, deep enough that every disk always has flushing
    /// work (the destage rate is then the disks' rate, whatever the depth), shallow enough that
    /// a read miss queues behind a few destage operations only.
    #[serde(default = "default_destage_depth")]
    pub destage_depth: u32,
    /// Dirty share of the write cache, in percent, at which the array starts flushing to the
    /// disks. FLARE's default is 80 (EMC CLARiiON Best Practices, R30: "80% high watermark").
    #[serde(default = "default_high_watermark")]
    pub high_watermark: f64,
    /// Dirty share at which flushing stops; FLARE's default 60.
    #[serde(default = "default_low_watermark")]
    pub low_watermark: f64,
}

fn default_destage_depth() -> u32 {
    4
}

fn default_write_aside() -> Bytes {
    Bytes(1 << 20)
}

fn default_high_watermark() -> f64 {
    80.0
}

fn default_low_watermark() -> f64 {
    60.0
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControllerSpec {
    pub name: String,
    /// The controller's processing of each I/O (a shared pool of cores: `servers`); left out,
    /// the controller adds no time of its own.
    #[serde(default)]
    pub service: Option<ServiceSpec>,
    /// This controller's ANATT (Identify Controller), where it differs from its array's `anatt`.
    #[serde(default)]
    pub anatt: Option<DurationNs>,
    /// Whether this controller advertises traffic-based keep-alive (CTRATT TBKAS), where it
    /// differs from its array's `traffic_based_keep_alive`.
    #[serde(default)]
    pub traffic_based_keep_alive: Option<bool>,
}

fn default_vendor() -> String {
    "PATHLAB".to_string()
}

fn default_model() -> String {
    "SIMARRAY".to_string()
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortSpec {
    #[serde(deserialize_with = "port_name")]
    pub name: String,
    #[serde(default)]
    pub service: Option<ServiceSpec>,
    /// The controller the port belongs to (required when the array declares controllers).
    #[serde(default)]
    pub controller: Option<String>,
}

/// A station's service time: fixed + per_kib × KiB, drawn from the distribution with that mean.
/// On a port (its own `service` or its array's) the station serves only `fixed`, per command;
/// `per_kib` is the time its data takes in the I/O's direction, at a constant rate, reads' data
/// going out while writes' data comes in (Fibre Channel is full duplex; before session 8 both
/// shared the one FIFO). On a controller or `device_service` both parts stay in the station.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceSpec {
    pub fixed: DurationNs,
    #[serde(default)]
    pub per_kib: DurationNs,
    #[serde(default)]
    pub distribution: Distribution,
    /// Coefficient of variation, for `lognormal` only.
    #[serde(default)]
    pub cv: Option<f64>,
    /// I/Os served at once (port processors).
    #[serde(default = "one")]
    pub servers: u32,
}

fn one() -> u32 {
    1
}

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum Distribution {
    #[default]
    Fixed,
    Exponential,
    Lognormal,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceSpec {
    /// Device name as ESXi shows it (`naa.60000970…`).
    #[serde(deserialize_with = "device_name")]
    pub name: String,
    pub array: String,
    /// LUN number: the `L` of each path's runtime name.
    #[serde(default)]
    pub lun: u32,
    /// The controller that owns the LUN: its ports are active-optimized, the others
    /// active-non-optimized (forwarded). Defaults to the array's first controller.
    #[serde(default)]
    pub owner: Option<String>,
    /// The controller of the device's array whose target port group reports ALUA's preferred
    /// bit (REPORT TARGET PORT GROUPS' PREF): dm-multipath's `alua` prioritizer adds 80 to its
    /// paths' priority where they are not active-optimized (multipath-tools `alua.c`). Left
    /// out, no port group is preferred.
    #[serde(default)]
    pub preferred: Option<String>,
    /// Device queue depth (esxtop DQLEN): commands in flight to the array at once; the rest
    /// wait in the kernel (QUED). Left out, 32 (`queue_depth()`). A Linux NVMe head has none;
    /// under Linux dm-multipath it is each path's (every path is a SCSI disk with its own
    /// queue depth, the map none), and an I/O waits at the path its selector chose.
    #[serde(default)]
    pub queue_depth: Option<u32>,
    /// Overrides the scenario's `policy` for this device.
    #[serde(default)]
    pub policy: Option<PolicySetting>,
    /// The host that sees the device (a `[[hosts]]` name): its paths are that host's adapters'.
    /// Left out, `[host]`. A LUN several hosts share is one device per host, same array and LUN,
    /// and the same name (its NAA): elsewhere written `host/name`.
    #[serde(default)]
    pub host: Option<String>,
    /// The RAID group of its array that holds the LUN; left out, the LUN is cache-served.
    #[serde(default)]
    pub raid_group: Option<String>,
    /// The state the array reports to this device's host through the controllers that do not
    /// own the LUN, where it is not the array's `non_owner_state` (arrays set it per host or
    /// host group: an ALUA or failover mode per initiator). Left out, the array's.
    #[serde(default)]
    pub non_owner_state: Option<pathlab_policy::AluaState>,
    /// What the host's own listing printed of the device and its paths, word for word, for
    /// `pathlab show` to print back as read: `pathlab import` writes it; the simulation does
    /// not read it.
    #[serde(default)]
    pub listed: ListedSpec,
}

/// A device's `listed` table: the values a listing printed, by the listing's own field names
/// (`name`, `size`, `dm`, …; "What a host's admin sees" in getting started lists them per style).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListedSpec {
    /// The device's values.
    #[serde(default)]
    pub device: ListedValues,
    /// Each path's values, by the path's runtime name (`host3:C0:T1:L2`).
    #[serde(default)]
    pub paths: BTreeMap<String, ListedValues>,
}

/// Values as a listing printed them, by its field names.
pub type ListedValues = BTreeMap<String, String>;

/// A `policy` table: the policy, and which of its parameters the file gives. The others hold
/// the policy's own defaults, which a host's claim tables may replace (as multipath-tools'
/// hardware table fills what multipath.conf leaves out).
#[derive(Debug, Clone, PartialEq)]
pub struct PolicySetting {
    pub config: PolicyConfig,
    /// The parameters written, `name` aside.
    pub given: Vec<String>,
}

impl<'de> Deserialize<'de> for PolicySetting {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let value = toml::Value::deserialize(deserializer)?;
        let given: Vec<String> = match &value {
            toml::Value::Table(t) => t.keys().filter(|k| *k != "name").cloned().collect(),
            _ => Vec::new(),
        };
        let config = typed::<PolicyConfig, serde::de::value::Error>(value.clone()).map_err(|e| {
            // serde reads the table whole (its `name` picks the type) and loses the field of a
            // bad value: it is the given field whose text the message quotes.
            let message = e.to_string();
            let quoted = |k: &String| match value.get(k) {
                Some(toml::Value::String(v)) => {
                    message.contains(&format!("`{v}`")) || message.contains(&format!("\"{v}\""))
                }
                _ => false,
            };
            match given.iter().find(|k| quoted(k)) {
                Some(k) if !message.contains(FIELD_PATH_END) => {
                    D::Error::custom(format!("{k}{FIELD_PATH_END}{message}"))
                }
                _ => D::Error::custom(message),
            }
        })?;
        Ok(PolicySetting { config, given })
    }
}

/// A device's name as the host shows it (`naa.6…`, `mpatha`, a bare WWID with a blank in it):
/// not empty, and without control characters (a NUL or a line break cannot be printed in
/// esxcli's or multipath's listings, nor named in a workload).
fn device_name<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    shown_name(deserializer, "a device name is the name the host shows (naa.6…, mpatha)")
}

/// A host's, adapter's, array's or port's name: printed in the host's listings (esxtop's counter
/// paths, runtime names, `HOST/NAME`) and in every message, so checked as a device's is.
fn host_name<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    shown_name(deserializer, "a host name (esx-a)")
}

fn adapter_name<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    shown_name(deserializer, "an adapter name (vmhba1, host3)")
}

fn array_name<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    shown_name(deserializer, "an array name (vmax250f)")
}

fn port_name<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    shown_name(deserializer, "a port name (FA-1D:4, SPA0)")
}

/// A name printed as given: not empty, without control characters.
fn shown_name<'de, D: serde::Deserializer<'de>>(deserializer: D, what: &str) -> Result<String, D::Error> {
    use serde::de::Error;
    let name = String::deserialize(deserializer)?;
    if name.trim().is_empty() || name.chars().any(char::is_control) {
        return Err(D::Error::custom(format!(
            "{name:?}: {what}: not empty, without control characters (NUL, tab, line breaks)"
        )));
    }
    Ok(name)
}

/// ESXi's DQLEN for a LUN when the scenario gives none (Disk.SchedNumReqOutstanding's 32).
pub const DEFAULT_DEVICE_QUEUE_DEPTH: u32 = 32;

impl DeviceSpec {
    /// The device queue depth given, or the default.
    pub fn queue_depth(&self) -> u32 {
        self.queue_depth.unwrap_or(DEFAULT_DEVICE_QUEUE_DEPTH)
    }
}

/// Zoning: every listed adapter reaches every listed port, `latency` (one way) or `distance`
/// away. Target numbers (`T` in runtime names) count each adapter's ports in order of appearance.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FabricSpec {
    /// The fabric's (or its switch's) name, as admins call it (`A`, `fabric-b`, `sw01`): what a
    /// `switch_down` fault names. Left out, the table's index (`0`, `1`, …) names it.
    #[serde(default)]
    pub name: Option<String>,
    /// Adapters by name; a name several hosts have (every ESXi host has a `vmhba1`) as
    /// `host/adapter`.
    pub adapters: Vec<String>,
    /// Ports as `array/port`.
    pub ports: Vec<String>,
    #[serde(default)]
    pub latency: Option<DurationNs>,
    #[serde(default)]
    pub distance: Option<Kilometres>,
    /// The target numbers (the `T` of runtime names) of `ports`, in order, as the host numbered
    /// them (SAS `T72`); left out, each adapter numbers its ports 0, 1, … in order of appearance.
    #[serde(default)]
    pub targets: Option<Vec<u32>>,
    /// The channel (the `C` of runtime names) these paths are on: ESXi numbers each iSCSI port
    /// binding's sessions of one software adapter on a channel of its own (`vmhba64:C1:T0:L0`).
    #[serde(default)]
    pub channel: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    #[serde(default)]
    pub name: String,
    /// Devices driven, each by its own worker (like one vdbench SD with its threads); a name
    /// several hosts have as `host/device`.
    pub devices: Vec<String>,
    /// Closed loop: I/Os kept outstanding per device.
    #[serde(default)]
    pub outstanding: Option<u32>,
    /// Open loop: I/Os per second per device.
    #[serde(default)]
    pub rate: Option<f64>,
    #[serde(default)]
    pub arrival: Arrival,
    #[serde(default)]
    pub block_size: Option<Bytes>,
    /// Weighted block-size mix like fio's bssplit: `[["8KiB", 60], ["32KiB", 40]]`.
    #[serde(default)]
    pub bssplit: Option<Vec<(Bytes, u32)>>,
    #[serde(default = "default_read_pct")]
    pub read_pct: f64,
    #[serde(default)]
    pub access: Access,
    /// Span of the offsets.
    #[serde(default = "default_range")]
    pub range: Bytes,
    /// Exponent of the Zipf popularity for `access = "zipf"` (fio's zipf:1.2 is 1.2).
    #[serde(default)]
    pub zipf_theta: Option<f64>,
    /// After one of its I/Os fails for good, a closed-loop worker waits this long before it
    /// issues the next (an application that logs the error and moves on).
    #[serde(default = "default_error_backoff")]
    pub error_backoff: DurationNs,
    /// A closed-loop worker waits this long after an I/O completes before it issues the next
    /// (fio `thinktime`, Iometer's transfer delay).
    #[serde(default)]
    pub think_time: DurationNs,
    /// Bursts on top of an open-loop Poisson base (`rate`), as Iometer's burst/delay and
    /// vdbench's variable `iorate` make them.
    #[serde(default)]
    pub burst: Option<BurstSpec>,
    /// Sequential access: independent streams, each over its own slice of the range, taken in
    /// turn (vdbench's `streams=`, several sequential readers of one LUN).
    #[serde(default)]
    pub streams: Option<u32>,
}

/// A burst of `length` every `length / duty`, adding `rate` I/Os per second while it lasts.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BurstSpec {
    pub rate: f64,
    pub length: DurationNs,
    /// Fraction of the time in bursts, above 0 and below 1.
    pub duty: f64,
}

fn default_error_backoff() -> DurationNs {
    DurationNs(1_000_000_000)
}

fn default_read_pct() -> f64 {
    100.0
}

fn default_range() -> Bytes {
    Bytes(1 << 30)
}

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum Arrival {
    #[default]
    Poisson,
    Uniform,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    #[default]
    Random,
    Sequential,
    /// Random with a Zipf-distributed block popularity (fio's `random_distribution=zipf`).
    Zipf,
}

/// How the host learns that a path lost its connection.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Detection {
    /// Loss of light or an RSCN: the host fails the path at once and retries what was on it.
    #[default]
    Link,
    /// Nothing tells the host: commands sent down the path are lost, and the first one to
    /// reach the stack's `io_timeout` fails the path.
    Timeout,
}

/// A scheduled fault, by its `kind`. Paths are named by runtime name or a prefix ending at a
/// `:` (`vmhba1:C0:T0`, `vmhba2`); ports as `array/port`. Windows (`from`..`until`) end at the
/// end of the measurement when `until` is left out or later.
#[derive(Debug, Clone)]
pub enum FaultSpec {
    PathDown(PathDownSpec),
    PathUp(PathUpSpec),
    PortDown(PortDownSpec),
    PortUp(PortUpSpec),
    AllPathsDown(AllPathsDownSpec),
    AluaState(AluaStateSpec),
    ControllerFailover(ControllerFailoverSpec),
    Flaky(FlakySpec),
    Congestion(CongestionSpec),
    LinkSpeed(LinkSpeedSpec),
    Marginal(MarginalSpec),
    ControllerReboot(ControllerRebootSpec),
    SwitchDown(SwitchDownSpec),
    SiteDown(SiteDownSpec),
    SlowDrain(SlowDrainSpec),
}

impl FaultSpec {
    /// When the fault starts (`at`, or `from` for windows).
    pub fn starts_at(&self) -> DurationNs {
        match self {
            FaultSpec::PathDown(f) => f.at,
            FaultSpec::PathUp(f) => f.at,
            FaultSpec::PortDown(f) => f.at,
            FaultSpec::PortUp(f) => f.at,
            FaultSpec::AllPathsDown(f) => f.at,
            FaultSpec::AluaState(f) => f.at,
            FaultSpec::ControllerFailover(f) => f.at,
            FaultSpec::Flaky(f) => f.from,
            FaultSpec::Congestion(f) => f.from,
            FaultSpec::LinkSpeed(f) => f.from,
            FaultSpec::Marginal(f) => f.from,
            FaultSpec::ControllerReboot(f) => f.at,
            FaultSpec::SwitchDown(f) => f.at,
            FaultSpec::SiteDown(f) => f.at,
            FaultSpec::SlowDrain(f) => f.from,
        }
    }

    /// The fault on the run's timeline, for reports that mark it: its kind as written, what it
    /// hits (a path, port, adapter, device or array), when it starts and when it ends (`None`
    /// for a moment, such as a path coming back; a window without `until` lasts to the end).
    pub fn window(&self) -> (&'static str, String, u64, Option<u64>, bool) {
        fn at(what: &Option<String>, or: &Option<String>) -> String {
            what.clone().or_else(|| or.clone()).unwrap_or_default()
        }
        let until = |u: &Option<DurationNs>| u.map(|d| d.0);
        let (kind, what, until, lasts) = match self {
            FaultSpec::PathDown(f) => ("path_down", f.path.clone(), until(&f.until), true),
            FaultSpec::PathUp(f) => ("path_up", f.path.clone(), None, false),
            FaultSpec::PortDown(f) => ("port_down", f.port.clone(), until(&f.until), true),
            FaultSpec::PortUp(f) => ("port_up", f.port.clone(), None, false),
            FaultSpec::AllPathsDown(f) => {
                let device = f.device.clone().unwrap_or_else(|| "every device".to_string());
                ("all_paths_down", device, until(&f.until), true)
            }
            FaultSpec::AluaState(f) => ("alua_state", format!("{} to {}", f.path, f.state.short_name()), None, false),
            FaultSpec::ControllerFailover(f) => {
                let what = f.device.clone().unwrap_or_else(|| f.array.clone());
                ("controller_failover", format!("{what} to {}", f.owner), None, false)
            }
            FaultSpec::Flaky(f) => ("flaky", at(&f.path, &f.port), until(&f.until), true),
            FaultSpec::Congestion(f) => ("congestion", at(&f.path, &f.port), until(&f.until), true),
            FaultSpec::LinkSpeed(f) => ("link_speed", f.adapter.clone(), until(&f.until), true),
            FaultSpec::Marginal(f) => ("marginal", at(&f.path, &f.port), until(&f.until), true),
            FaultSpec::ControllerReboot(f) => {
                ("controller_reboot", format!("{}/{}", f.array, f.controller), until(&f.until), true)
            }
            FaultSpec::SwitchDown(f) => ("switch_down", f.fabric.clone(), until(&f.until), true),
            FaultSpec::SiteDown(f) => ("site_down", f.array.clone(), until(&f.until), true),
            FaultSpec::SlowDrain(f) => ("slow_drain", at(&f.adapter, &f.port), until(&f.until), true),
        };
        (kind, what, self.starts_at().0, until, lasts)
    }
}

/// Every `kind`, as written.
pub const FAULT_KINDS: &[&str] = &[
    "path_down",
    "path_up",
    "port_down",
    "port_up",
    "all_paths_down",
    "alua_state",
    "controller_failover",
    "flaky",
    "congestion",
    "link_speed",
    "marginal",
    "controller_reboot",
    "switch_down",
    "site_down",
    "slow_drain",
];

/// Separates the path of a field inside a fault from serde's message, so that the loader can
/// name it (`faults.3.detection`): serde loses the path inside internally tagged enums, so
/// `FaultSpec` reads its kind and then its body itself.
pub const FIELD_PATH_END: char = '\u{1f}';

/// Reads a table the loader already holds as TOML, keeping the path of a field inside it in the
/// message (after `FIELD_PATH_END`) for the loader to name.
fn typed<T: serde::de::DeserializeOwned, E: serde::de::Error>(value: toml::Value) -> Result<T, E> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let message = e.into_inner().to_string();
        match path.as_str() {
            "." | "?" | "" => E::custom(message),
            _ => E::custom(format!("{path}{FIELD_PATH_END}{message}")),
        }
    })
}

impl<'de> Deserialize<'de> for FaultSpec {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let mut table = toml::Table::deserialize(deserializer)?;
        let kind = match table.remove("kind") {
            Some(toml::Value::String(kind)) => kind,
            Some(_) => return Err(D::Error::custom(format!("kind{FIELD_PATH_END}must be a string"))),
            None => return Err(D::Error::missing_field("kind")),
        };
        fn body<T: serde::de::DeserializeOwned, E: Error>(table: toml::Table) -> Result<T, E> {
            typed(toml::Value::Table(table))
        }
        Ok(match kind.as_str() {
            "path_down" => FaultSpec::PathDown(body(table)?),
            "path_up" => FaultSpec::PathUp(body(table)?),
            "port_down" => FaultSpec::PortDown(body(table)?),
            "port_up" => FaultSpec::PortUp(body(table)?),
            "all_paths_down" => FaultSpec::AllPathsDown(body(table)?),
            "alua_state" => FaultSpec::AluaState(body(table)?),
            "controller_failover" => FaultSpec::ControllerFailover(body(table)?),
            "flaky" => FaultSpec::Flaky(body(table)?),
            "congestion" => FaultSpec::Congestion(body(table)?),
            "link_speed" => FaultSpec::LinkSpeed(body(table)?),
            "marginal" => FaultSpec::Marginal(body(table)?),
            "controller_reboot" => FaultSpec::ControllerReboot(body(table)?),
            "switch_down" => FaultSpec::SwitchDown(body(table)?),
            "site_down" => FaultSpec::SiteDown(body(table)?),
            "slow_drain" => FaultSpec::SlowDrain(body(table)?),
            other => {
                let allowed = FAULT_KINDS.join(", ");
                return Err(D::Error::custom(format!(
                    "kind{FIELD_PATH_END}unknown value `{other}`; allowed: {allowed}"
                )));
            }
        })
    }
}

/// The paths lose their connection (cable, switch port, HBA port), until `until` if given.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathDownSpec {
    pub at: DurationNs,
    pub path: String,
    #[serde(default)]
    pub until: Option<DurationNs>,
    #[serde(default)]
    pub detection: Detection,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathUpSpec {
    pub at: DurationNs,
    pub path: String,
}

/// An array front-end port fails: every path through it loses its connection.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortDownSpec {
    pub at: DurationNs,
    pub port: String,
    #[serde(default)]
    pub until: Option<DurationNs>,
    #[serde(default)]
    pub detection: Detection,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortUpSpec {
    pub at: DurationNs,
    pub port: String,
}

/// Every path (of `device`, or of every device) loses its connection.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllPathsDownSpec {
    pub at: DurationNs,
    /// The device by name, or as `host/device` when several hosts have the name.
    #[serde(default)]
    pub device: Option<String>,
    #[serde(default)]
    pub until: Option<DurationNs>,
    #[serde(default)]
    pub detection: Detection,
}

/// The array reports a new ALUA state for the target port groups of these paths.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AluaStateSpec {
    pub at: DurationNs,
    pub path: String,
    pub state: pathlab_policy::AluaState,
}

/// Ownership of the LUNs (`device`, or every device on `array`) moves to controller `owner`:
/// the ALUA states and the routes inside the array change with it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControllerFailoverSpec {
    pub at: DurationNs,
    pub array: String,
    /// The device by name, or as `host/device` when several hosts have the name.
    #[serde(default)]
    pub device: Option<String>,
    pub owner: String,
    /// NVMe: the devices' ANA groups on the array report the change state this long from `at`
    /// (no path of theirs there is used), then the new owner's states; on SCSI hosts their target
    /// port groups report Transitioning that long. Left out: at once. Longer than the run: a
    /// change that never completes.
    #[serde(default)]
    pub ana_change: Option<DurationNs>,
}

/// Commands on a path (or every path through a port) end in error at `error_rate`, or in bursts
/// of `burst_length` every `burst_every` (at `error_rate` within a burst).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlakySpec {
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub port: Option<String>,
    pub from: DurationNs,
    #[serde(default)]
    pub until: Option<DurationNs>,
    #[serde(default = "certain")]
    pub error_rate: f64,
    #[serde(default)]
    pub burst_every: Option<DurationNs>,
    #[serde(default)]
    pub burst_length: Option<DurationNs>,
}

/// Congestion (slow drain, buffer-credit starvation): responses on a path (or every path through
/// a port) arrive `added_latency` later.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CongestionSpec {
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub port: Option<String>,
    pub from: DurationNs,
    #[serde(default)]
    pub until: Option<DurationNs>,
    pub added_latency: DurationNs,
}

/// A controller of an array reboots: its ports leave the fabric (the hosts see the link go)
/// and, on an array where controllers own LUNs, the LUNs it owns move to the first other
/// controller (their ALUA/ANA states change with it); at `until` its ports are back and its LUNs
/// move back to it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControllerRebootSpec {
    pub at: DurationNs,
    pub array: String,
    pub controller: String,
    #[serde(default)]
    pub until: Option<DurationNs>,
    #[serde(default)]
    pub detection: Detection,
    /// NVMe: the partner's ANA groups for the LUNs it takes over report the change state this
    /// long from `at` before they become optimized (its paths there are not used meanwhile).
    /// SCSI (dm-multipath, ESXi NMP): its target port groups report Transitioning this long
    /// (NOT READY, 04h/0Ah), and the stack retries what they refuse. Left out: at once. Must end
    /// before `until`.
    #[serde(default)]
    pub ana_change: Option<DurationNs>,
}

/// A fabric's switch is lost: every path zoned through that `[[fabric]]` table loses its
/// connection, until `until`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchDownSpec {
    pub at: DurationNs,
    /// The fabric by its `name`, or by its index (`"0"`) when it has none.
    pub fabric: String,
    #[serde(default)]
    pub until: Option<DurationNs>,
    #[serde(default)]
    pub detection: Detection,
}

/// A site is lost in a metro setup: every port of `array` goes down with its links, and the
/// replication to it stops (the surviving array acknowledges writes alone), until `until`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiteDownSpec {
    pub at: DurationNs,
    pub array: String,
    #[serde(default)]
    pub until: Option<DurationNs>,
    #[serde(default)]
    pub detection: Detection,
}

/// A slow-drain device: an adapter (or an array port) whose buffer credits starve, so that each
/// response on its paths waits longer the longer it lasts: `growth` more for every second since
/// `from` (no loss: nothing fails unless a wait reaches the I/O timeout).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlowDrainSpec {
    #[serde(default)]
    pub adapter: Option<String>,
    #[serde(default)]
    pub port: Option<String>,
    pub from: DurationNs,
    #[serde(default)]
    pub until: Option<DurationNs>,
    /// How much the per-response delay grows each second.
    pub growth: DurationNs,
}

/// The fabric marks a path, or every path through a port, marginal (a Fibre Channel FPIN
/// link-integrity notification) from `from` until `until`: each stack reacts as it does to FPIN
/// (NVMe demotes the paths to non-optimized; dm-multipath with `marginal_pathgroups` moves them
/// to a group of their own; the others ignore it).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MarginalSpec {
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub port: Option<String>,
    pub from: DurationNs,
    #[serde(default)]
    pub until: Option<DurationNs>,
}

/// An adapter's link runs at `speed` (a renegotiated lower rate).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpeedSpec {
    /// The adapter by name, or as `host/adapter` when several hosts have the name.
    pub adapter: String,
    pub from: DurationNs,
    #[serde(default)]
    pub until: Option<DurationNs>,
    pub speed: BytesPerSec,
}

fn certain() -> f64 {
    1.0
}

/// One volume (or more) living on two arrays at once (ActiveCluster, SRDF/Metro, VPLEX Metro):
/// reads are served by the array that receives them; a write is sent on to the peer over the
/// inter-array link and acknowledged to the host only when the peer has it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplicationSpec {
    #[serde(default)]
    pub name: String,
    /// The two arrays; the first is where the volumes were created (it owns every extent at
    /// the start when contention is modelled).
    pub arrays: Vec<String>,
    /// Devices by name, or as `host/device` when several hosts have the name.
    pub devices: Vec<String>,
    /// One-way latency of the inter-array link, or its `distance`.
    #[serde(default)]
    pub latency: Option<DurationNs>,
    #[serde(default)]
    pub distance: Option<Kilometres>,
    /// Line rate of the inter-array link; left out, transfers take no time.
    #[serde(default)]
    pub bandwidth: Option<BytesPerSec>,
    /// The array whose paths this host sees as active-optimized (the other's are
    /// active-non-optimized). Left out, every path is active-optimized.
    #[serde(default)]
    pub preferred_array: Option<String>,
    /// Coordination of writes to the same extent arriving at both arrays.
    #[serde(default)]
    pub contention: Option<ContentionSpec>,
}

/// Extent ownership: each extent (track) is owned by one array; a write arriving at the other
/// array must first get ownership, which waits for the owner's writes in progress on that extent
/// to finish and costs a round trip on the inter-array link plus `grant_cost`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContentionSpec {
    #[serde(default = "default_extent")]
    pub extent: Bytes,
    #[serde(default = "default_grant_cost")]
    pub grant_cost: DurationNs,
}

fn default_extent() -> Bytes {
    Bytes(128 * 1024)
}

fn default_grant_cost() -> DurationNs {
    DurationNs(20_000)
}

/// A named variant: overrides of the base scenario and the figures published for it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantSpec {
    #[serde(default)]
    pub description: String,
    /// Dotted keys and values, as with `--set`.
    #[serde(default)]
    pub set: toml::Table,
    #[serde(default)]
    pub published: BTreeMap<String, f64>,
    #[serde(default)]
    pub tolerance: BTreeMap<String, f64>,
    /// Published figures the model is known not to match, with the reason: shown, never hidden,
    /// and not counted as a failure by `reproduce --check`.
    #[serde(default)]
    pub explained: BTreeMap<String, String>,
}

/// Summary figures a scenario may publish (the keys of `summary` in the JSON result).
pub const PUBLISHABLE: &[&str] = &[
    "iops",
    "mbps",
    "resp_ms",
    "read_resp_ms",
    "write_resp_ms",
    "resp_max_ms",
    "resp_stddev_ms",
    "queue_depth",
    "p50_ms",
    "p90_ms",
    "p99_ms",
    "p999_ms",
];

#[cfg(test)]
mod tests {
    use super::FaultSpec;

    fn fault(text: &str) -> FaultSpec {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn a_fault_on_the_timeline_names_its_kind_target_start_and_end() {
        let window =
            fault("kind = \"congestion\"\nport = \"aa/P1\"\nfrom = \"20s\"\nuntil = \"100s\"\nadded_latency = \"2ms\"");
        assert_eq!(window.window(), ("congestion", "aa/P1".to_string(), 20_000_000_000, Some(100_000_000_000), true));
        // A window without `until` lasts (the caller ends it with the run); a moment does not.
        let open = fault("kind = \"path_down\"\npath = \"vmhba1:C0:T0\"\nat = \"1s\"");
        assert_eq!(open.window(), ("path_down", "vmhba1:C0:T0".to_string(), 1_000_000_000, None, true));
        let moment = fault("kind = \"controller_failover\"\nat = \"2s\"\narray = \"cx4\"\nowner = \"SPB\"");
        assert_eq!(moment.window(), ("controller_failover", "cx4 to SPB".to_string(), 2_000_000_000, None, false));
    }
}
