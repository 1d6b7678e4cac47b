//! What each host stack does when paths fail, in one table keyed by the family of a device's
//! policy: how long an unanswered command waits before it times out, what an error on a path
//! does to the path, how often an I/O is retried after errors, when a path that works again is
//! taken back, and what happens to I/O while no path is usable. The engine applies these rules;
//! the policies only hear `fail_path`, `reinstate_path` and `end_io(failed)`.
//!
//! | Stack (policies) | io_timeout | error on a working path | retries | path back | no path |
//! |---|---|---|---|---|---|
//! | ESXi (VMW_PSP_*, HPP, PowerPath/VE, gated-least-load) | 30 s | retried, path kept | 5 | at once | queue; APD: fail after 140 s |
//! | Linux dm-multipath | 30 s | path failed | no limit | next checker tick (5 s) | policy's `no_path_retry` |
//! | Linux NVMe | 30 s | retried, path kept | 5 | next reconnect (10 s grid) | queue while a controller is live; fail after fast_io_fail_tmo (off) or ctrl_loss_tmo 600 s + delayed_removal_secs 0 from the controllers' loss (`nvme_wait.rs`) |
//! | SPDK bdev_nvme | 10 s | retried, path kept | 3 | next reconnect (10 s grid) | queue, no limit but fast_io_fail_timeout_sec (`nvme_wait.rs`) |
//! | Windows MPIO | 120 s | retried, path kept | 3 | at once | policy's PDORemovePeriod |
//!
//! On every stack a timed-out command on a path that is really down fails the path (the
//! stack's probe of the path fails too), and the commands still on it are aborted and retried.
//! A loss the link reports is failed at once, except where the stack holds it first
//! (`Found::Fail { hold_ns }`: FC's blocked remote port until `fast_io_fail_tmo` or
//! `dev_loss_tmo`, an iSCSI session until `replacement_timeout`); the commands aborted then are
//! retried without counting against the I/O's retries. A loss nothing reports is found by the
//! stack's probes (`Probe`: multipathd's checker at `max_polling_interval` + `checker_timeout`,
//! iSCSI's NOP-Out, NVMe's keep-alive) or a command's timeout, whichever comes first. NVMe may
//! hold a lost controller's I/O before its retry (TP4129, `FailoverHold`, ended early by a
//! TP8028 cross-controller reset); `target_quiesce_ns` bounds how long the target may still
//! execute what it received, which the run's write hazard count reads. When the policy has no usable path, I/O waits or fails
//! by the `no path` rule; the wait is counted from the moment the device first had no path, and
//! once given up, new I/O fails at once until a path is back (ESXi's APD timeout, multipathd's
//! `fail_if_no_path`, MPIO's removed pseudo-LUN, NVMe's deleted controllers all behave so).
//! Waiting I/O is re-dispatched as soon as a path comes back or changes ALUA state; the
//! policies' polling periods (`NoPathAction::Queue.retry_ns`) are not modelled.
//!
//! dm-multipath's shaky-path checks (`san_path_err_*`, `marginal_path_*`: multipathd holds a
//! path that keeps failing and coming back) come from the policy's settings; the checker applies
//! them (`sim/shaky.rs`).
//!
//! `[host.stack]` overrides the timings for every device, whatever its stack.

use crate::engine::TimeNs;
use crate::scenario::bounds;
use crate::scenario::schema::{ScsiTransport, StackSpec};
use crate::scenario::units::DurationNs;
use pathlab_policy::{MarginalPathgroups, NoPathAction, NoPathRetry, PolicyConfig, ShakyCheck};

use super::nvme_wait::ControllerWait;
use crate::scenario::error::FieldError;

const SECOND_NS: TimeNs = 1_000_000_000;

/// ESXi `Misc.APDTimeout`: a device in all-paths-down retries I/O this long, then fails it and
/// fails new I/O fast until a path returns. Allowed 20..=99999 s. [doc: vSphere Storage,
/// "Change Timeout Limits for Storage APD"]
pub const ESXI_APD_TIMEOUT_NS: TimeNs = 140 * SECOND_NS;
/// ESXi `Disk.PathEvalTime`, default 300 s: "the host performs a periodic path evaluation
/// every five minutes" [doc: vSphere 8.0 Storage, "Viewing and Managing Paths"]; a dead path
/// that comes back unannounced is found alive then.
pub const ESXI_PATH_EVAL_TIME_NS: TimeNs = 300 * SECOND_NS;
/// Windows MPIO `PathVerificationPeriod`, default 30 s, honoured when `PathVerifyEnabled`
/// (default disabled) [doc: Microsoft, MPIO_TIMERS_COUNTERS WMI class; Get-MPIOSetting].
pub const WINDOWS_PATH_VERIFICATION_PERIOD_NS: TimeNs = 30 * SECOND_NS;
/// MPIO's path verification of an ALUA device (msdsm `DsmPathVerify`) is a REPORT TARGET PORT
/// GROUPS sent down the path with a 10 s timeout (`SPC3_REPORT_TARGET_PORT_GROUPS_TIMEOUT`)
/// [microsoft/Windows-driver-samples@5d61a4a7 `storage/msdsm/src/prototypes.h`, `intrface.c`
/// `DsmPathVerify`]; a device without ALUA gets a TUR through mpio.sys, whose timeout is not
/// published: taken as the same (assumed). Unanswered, it is a command timed out on the path,
/// which fails the path and retries what the path holds, as a timed-out I/O does.
pub const WINDOWS_PATH_VERIFY_TIMEOUT_NS: TimeNs = 10 * SECOND_NS;
/// ESXi `Misc.APDHandlingEnable` 0: "the host will indefinitely continue to retry issued
/// commands in an attempt to reconnect to the APD device. Continuing to retry is the same
/// behavior as in ESXi version 5.0" [doc: vSphere 5.1 Storage, "Disable Storage APD Handling",
/// pubs.vmware.com/vsphere-51 GUID-54F4B360-F32D-41B0-BDA8-AEBE9F01AC72]: no APD timeout.
pub const ESXI_APD_HANDLING_OFF: &str = "Misc.APDHandlingEnable 0: I/O is retried until a path returns";
/// The range `Misc.APDTimeout` accepts, in seconds.
pub const ESXI_APD_TIMEOUT_RANGE_S: (u64, u64) = (20, 99_999);
/// ESXi's time to declare an unanswered command lost: "storage I/O might pause for 30 to 60
/// seconds until your host determines that the link is unavailable" [doc: vSphere 6.0 Storage,
/// "Path failover"]; we take the lower bound, which is also Linux's disk timeout.
pub const ESXI_IO_TIMEOUT_NS: TimeNs = 30 * SECOND_NS;
/// Linux SCSI disk timeout `SD_TIMEOUT` (30 × HZ) [drivers/scsi/sd.h].
pub const LINUX_SCSI_IO_TIMEOUT_NS: TimeNs = 30 * SECOND_NS;
/// Linux `nvme_core.io_timeout`, default 30 s [drivers/nvme/host/nvme.h `NVME_IO_TIMEOUT`].
pub const NVME_IO_TIMEOUT_NS: TimeNs = 30 * SECOND_NS;
/// SPDK has no I/O timeout by default (`timeout_us` 0); a silent loss is found by the keep-alive
/// timeout, 10 s (`SPDK_BDEV_NVME_DEFAULT_KEEP_ALIVE_TIMEOUT_IN_MS`), which resets the
/// controller and aborts what it held [spdk `module/bdev/nvme/bdev_nvme.c`].
pub const SPDK_IO_TIMEOUT_NS: TimeNs = 10 * SECOND_NS;
/// Windows MPIO `DiskTimeoutValue`, default 120 s [doc: Microsoft, Get-MPIOSetting].
pub const WINDOWS_IO_TIMEOUT_NS: TimeNs = 120 * SECOND_NS;
/// multipathd `polling_interval`, default 5 s [multipath-tools `libmultipath/defaults.h`].
pub const MULTIPATHD_CHECKER_INTERVAL_NS: TimeNs = 5 * SECOND_NS;
/// NVMe-oF `reconnect_delay`, default 10 s (`NVMF_DEF_RECONNECT_DELAY`) [drivers/nvme/host/fabrics.h].
pub const NVME_RECONNECT_DELAY_NS: TimeNs = 10 * SECOND_NS;
/// NVMe-oF `ctrl_loss_tmo`, default 600 s (`NVMF_DEF_CTRL_LOSS_TMO`) [drivers/nvme/host/fabrics.h].
pub const NVME_CTRL_LOSS_TIMEOUT_NS: TimeNs = 600 * SECOND_NS;
/// Linux NVMe `delayed_removal_secs`, default 0: the multipath head is removed, and what it
/// queued fails, as soon as its last path is removed (the controllers deleted when
/// `ctrl_loss_tmo` runs out); set, the head keeps queueing that much longer and a path that
/// comes back within it takes the queued I/O [torvalds/linux `drivers/nvme/host/multipath.c`
/// `nvme_mpath_remove_disk` and `nvme_available_path`, commit 62188639ec16 "nvme-multipath:
/// introduce delayed removal of the multipath head node", 6.16].
pub const NVME_DELAYED_REMOVAL_NS: TimeNs = 0;
/// SPDK `reconnect_delay_sec` as SPDK's multipath HOWTO sets it (`-o 10`, with
/// `ctrlr_loss_timeout_sec -1`: never give up). The library defaults (0 and 0) delete a
/// controller whose reset fails, so that a lost path never returns; multipath setups avoid them
/// [spdk `doc/nvmf_multipath_howto.md`].
pub const SPDK_RECONNECT_DELAY_NS: TimeNs = 10 * SECOND_NS;
/// FC `fast_io_fail_tmo` as multipathd sets it, default 5 s (`DEFAULT_FAST_IO_FAIL`)
/// [multipath-tools 0.14.3 `libmultipath/defaults.h:28`]. Under iSCSI multipathd writes it into
/// the session's `replacement_timeout` (recovery_tmo) [`libmultipath/discovery.c:819`].
pub const FC_FAST_IO_FAIL_NS: TimeNs = 5 * SECOND_NS;
/// FC `dev_loss_tmo`, the FC transport's default 60 s (`fc_dev_loss_tmo`)
/// [drivers/scsi/scsi_transport_fc.c]; multipathd sets it only where configured.
pub const FC_DEV_LOSS_NS: TimeNs = 60 * SECOND_NS;
/// multipathd's `max_polling_interval` is 4 × `polling_interval` unless set
/// [multipath-tools 0.14.3 `libmultipath/config.c:960`].
pub const MAX_POLLING_FACTOR: u64 = 4;
/// open-iscsi NOP-Out interval and timeout, 5 s each (`DEF_NOOP_OUT_INTERVAL`,
/// `DEF_NOOP_OUT_TIMEO`) [open-iscsi@bc236140 `usr/iscsi_settings.h:8-9`].
///
/// What a NOP-Out timeout does to the commands on the connection, as the kernel does it (not
/// as Red Hat's RHEL 6 Storage Administration Guide, 39.2.1, says: "failing any running
/// commands ... the multipath layer then retries those commands on another path", which was
/// libiscsi's `DID_BUS_BUSY` before 2.6.28): `iscsi_check_transport_timeouts` calls
/// `iscsi_conn_failure(conn, ISCSI_ERR_NOP_TIMEDOUT)`; the connection is stopped for recovery
/// (`iscsi_start_session_recovery`: `iscsi_block_session`, then `fail_scsi_tasks(conn, -1,
/// DID_TRANSPORT_DISRUPTED)`) [torvalds/linux `drivers/scsi/libiscsi.c`]; the SCSI midlayer
/// requeues a `DID_TRANSPORT_DISRUPTED` command ("the transport class is now blocked ... and
/// the transport will decide what to do with the IO based on its timers",
/// `scsi_decide_disposition`) [`drivers/scsi/scsi_error.c`], and the blocked session holds it,
/// with new I/O, until it logs in again or `replacement_timeout` (`recovery_tmo`) runs out
/// (`session_recovery_timedout`: unblocked offline, the commands fail to dm-multipath)
/// [`drivers/scsi/scsi_transport_iscsi.c`]. So the commands wait `replacement_timeout` after
/// the NOP-Out timeout, whether or not the error handler runs: `Found::Fail { hold_ns }`. The
/// maintainer said so when a patch to fail them over at once was proposed: "The FC and iscsi
/// drivers block the rport/session, return that code and then it's up the
/// fast_io_fail/replacement timeout" [Mike Christie, linux-scsi, 2021-01-27, "Re: [PATCH] scsi:
/// do not retry FAILFAST commands on DID_TRANSPORT_DISRUPTED",
/// <e5c71e73-f36b-8ff8-ef4e-d424304431a6@oracle.com>].
pub const ISCSI_NOOP_OUT_INTERVAL_NS: TimeNs = 5 * SECOND_NS;
pub const ISCSI_NOOP_OUT_TIMEOUT_NS: TimeNs = 5 * SECOND_NS;
/// Linux NVMe keep-alive timeout, default 5 s (`NVME_DEFAULT_KATO`) [drivers/nvme/host/nvme.h];
/// a keep-alive is sent every KATO/2 (`nvme_keep_alive_work_period`) and times out after KATO
/// (`nvme_keep_alive_work`: `rq->timeout = ctrl->kato * HZ`) [drivers/nvme/host/core.c]; under
/// traffic-based keep-alive the grid is KATO/4 and a run that saw completions sends none
/// (`model::keep_alive`, which the probe's detection defers to on such a path).
pub const NVME_KATO_NS: TimeNs = 5 * SECOND_NS;
/// SPDK's keep-alive timeout, 10 s (`SPDK_BDEV_NVME_DEFAULT_KEEP_ALIVE_TIMEOUT_IN_MS`)
/// [spdk `module/bdev/nvme/bdev_nvme.c`].
pub const SPDK_KATO_NS: TimeNs = 10 * SECOND_NS;
/// The TP4129 hold's multiples of KATO: 2, or 3 with traffic-based keep-alive [NVM Express
/// TP4129; NVMe Base 2.1 "Communication Loss Handling"]: the controller's, not the host's choice
/// (`Model::check_keep_alive` refuses the other).
pub const TP4129_KATO_MULTIPLES: [u32; 2] = [2, 3];
// Retries of an I/O after errors. dm-multipath has no count: it requeues while a path is valid.
/// VMware does not publish NMP's count: 5 is ours, as Linux `SD_MAX_RETRIES` [drivers/scsi/sd.h].
pub const ESXI_MAX_RETRIES: u32 = 5;
/// Linux `nvme_core.max_retries`, default 5 [drivers/nvme/host/core.c].
pub const NVME_MAX_RETRIES: u32 = 5;
/// SPDK `bdev_retry_count`, default 3 [spdk `module/bdev/nvme/bdev_nvme.c` `g_opts`].
pub const SPDK_MAX_RETRIES: u32 = 3;
/// Windows MPIO `RetryCount`, default 3 [doc: Microsoft, MPIO_TIMERS_COUNTERS WMI class].
pub const WINDOWS_MAX_RETRIES: u32 = 3;
/// Windows MPIO `RetryInterval`, default 1 s: a failed request is retried this long after the
/// DSM decided to retry it [doc: Microsoft, MPIO_TIMERS_COUNTERS WMI class; Set-MPIOSetting
/// `-NewRetryInterval`]. The other stacks retry at once.
pub const WINDOWS_RETRY_INTERVAL_NS: TimeNs = SECOND_NS;

/// SCSI (FC, iSCSI: ESXi, dm-multipath, MPIO) sets no bound on how long a target may still
/// execute a command whose abort it never received: the host's abort (ABTS, an iSCSI task
/// management function) goes down the lost path, and only a new login of the nexus (FC PLOGI/
/// PRLI, an iSCSI session reinstated) clears the target's tasks [SAM-5 "Command lifetime";
/// FCP-4 "Exchange termination"; RFC 7143 "Session reinstatement"]. A command aborted on a path
/// that still answers is confirmed. So a write retried on another path while its first copy's
/// path is lost counts as a hazard until that path is back.
pub const SCSI_UNCONFIRMED_ABORT: TimeNs = TimeNs::MAX;

/// The host multipath stack a policy belongs to (the policy's registration says which).
pub use pathlab_policy::HostStack as Stack;

/// What an error on a path that still works does to the path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnPathError {
    /// The kernel fails the path at its first retryable error (dm `multipath_end_io`); the
    /// checker takes it back.
    FailPath,
    /// The command is retried where the policy sends it next; the path stays in use.
    Retry,
}

/// When the host takes back a path that works again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reinstate {
    /// At once: the link coming up is reported (RSCN, PnP arrival).
    AtOnce,
    /// At the first tick of a checker polling every `interval_ns` from time zero (multipathd).
    CheckerTick { interval_ns: TimeNs },
    /// At the first reconnect attempt; attempts follow every `delay_ns` after the host lost the
    /// path (NVMe-oF, SPDK).
    Reconnect { delay_ns: TimeNs },
}

impl Reinstate {
    /// When a path the host failed at `failed_at_ns` is taken back, if it works from `now_ns`.
    pub fn at(self, failed_at_ns: TimeNs, now_ns: TimeNs) -> TimeNs {
        match self {
            Reinstate::AtOnce => now_ns,
            Reinstate::CheckerTick { interval_ns } => now_ns.div_ceil(interval_ns) * interval_ns,
            Reinstate::Reconnect { delay_ns } => {
                let attempts = (now_ns.saturating_sub(failed_at_ns)).div_ceil(delay_ns).max(1);
                failed_at_ns + attempts * delay_ns
            }
        }
    }
}

/// What happens to I/O while the policy has no usable path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoPath {
    /// Fail it at once.
    Fail,
    /// Hold it; once the device has had no path for `give_up_after_ns`, fail what waits and
    /// every new I/O until a path is back.
    Queue { give_up_after_ns: Option<TimeNs> },
}

/// What the host does once it has found that a path lost its connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// It holds the path's I/O (new I/O sent down it too; command timeouts wait) for `hold_ns`,
    /// then fails the path and retries what was on it: FC's blocked remote port until
    /// `fast_io_fail_tmo`, an iSCSI session in recovery until `replacement_timeout`, NVMe's error
    /// recovery at once (0).
    Fail { hold_ns: TimeNs },
    /// It fails the path for new I/O; commands already on it wait for their own timeout
    /// (multipathd's checker: dm's `fail_path` does not abort what the path holds).
    FailNewIo,
}

/// A probe the host sends on a grid from time zero: a loss the link does not report is found
/// when the first probe sent after it goes unanswered for `timeout_ns`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    pub every_ns: TimeNs,
    pub timeout_ns: TimeNs,
    pub then: Found,
}

impl Probe {
    /// When a loss at `lost_at_ns` is found (the probe's timeout, before any hold).
    pub fn finds_at(self, lost_at_ns: TimeNs) -> TimeNs {
        lost_at_ns.div_ceil(self.every_ns) * self.every_ns + self.timeout_ns
    }
}

/// TP4129's hold of a failed controller's I/O, and TP8028's cross-controller reset that ends it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FailoverHold {
    pub hold_ns: TimeNs,
    pub ccr: bool,
}

/// A device's failure handling, resolved from its stack, its policy and `[host.stack]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackRules {
    pub stack: Stack,
    pub io_timeout_ns: TimeNs,
    pub on_error: OnPathError,
    /// Errors after which an I/O is still retried; `None`: no limit.
    pub max_retries: Option<u32>,
    pub reinstate: Reinstate,
    /// When a path that comes back without a link event is taken back, where it differs from
    /// `reinstate`: ESXi's periodic path evaluation (`Disk.PathEvalTime`).
    pub silent_reinstate: Option<Reinstate>,
    pub no_path: NoPath,
    /// multipathd's shaky-path check (`san_path_err_*`, `marginal_path_*`), if configured.
    pub shaky: Option<ShakyCheck>,
    /// A path the check holds goes to a marginal group (`marginal_pathgroups on`) instead of
    /// staying failed.
    pub shaky_to_marginal_group: bool,
    /// What the host does about a loss its link reports.
    pub on_link_loss: Found,
    /// The probes that find a loss no link reports (besides the commands' own timeout).
    pub probes: [Option<Probe>; 2],
    /// How long a failed request waits before its retry (MPIO's RetryInterval; 0 elsewhere).
    pub retry_delay_ns: TimeNs,
    /// TP4129: how long the I/O of a path that lost its connection is held before its retry.
    pub failover_hold: Option<FailoverHold>,
    /// How long after a loss the target may still execute a command it received (NVMe: its own
    /// keep-alive expiry, KATO (plus `kato_grace`), plus CQT; SCSI: `SCSI_UNCONFIRMED_ABORT`, until the nexus logs
    /// in again); `None`: not modelled (the hazard is not counted).
    pub target_quiesce_ns: Option<TimeNs>,
    /// NVMe: the keep-alive timeout (KATO) the host gives its controllers; `None` elsewhere. A
    /// controller with traffic-based keep-alive may run one KATO longer (`model::keep_alive`).
    pub kato_ns: Option<TimeNs>,
    /// NVMe: how I/O with no usable path waits for the namespace's controllers, and what the
    /// ANA change state's timer does (`model::nvme_wait`); `None` on the other stacks.
    pub controllers: Option<ControllerWait>,
}

fn timer(value: Option<TimeNs>, field: &str) -> Result<Option<TimeNs>, FieldError> {
    value.map(|v| bounds::long_enough(v, bounds::TIMER)).transpose().map_err(|m| (format!("host.stack.{field}"), m))
}

impl StackRules {
    /// The rules of `policy`'s stack, its no-path action bounded by the stack's own loss timeout.
    pub fn resolve(policy: &PolicyConfig, action: NoPathAction, spec: &StackSpec) -> Result<StackRules, FieldError> {
        let io_timeout = timer(spec.io_timeout.map(|d| d.0), "io_timeout")?;
        let checker = timer(spec.checker_interval.map(|d| d.0), "checker_interval")?;
        let reconnect = timer(spec.reconnect_delay.map(|d| d.0), "reconnect_delay")?;
        let controller_loss = timer(spec.controller_loss_timeout.map(|d| d.0), "controller_loss_timeout")?;
        let delayed_removal = spec.delayed_removal.map_or(NVME_DELAYED_REMOVAL_NS, |d| d.0);
        let apd = spec.apd_timeout.map_or(ESXI_APD_TIMEOUT_NS, |d| d.0);
        let (low, high) = ESXI_APD_TIMEOUT_RANGE_S;
        if !(low * SECOND_NS..=high * SECOND_NS).contains(&apd) {
            return Err(("host.stack.apd_timeout".into(), format!("allowed {low}s..={high}s (Misc.APDTimeout)")));
        }
        let apd_handling = spec.apd_handling.unwrap_or(true);
        if !apd_handling && spec.apd_timeout.is_some() {
            return Err((
                "host.stack.apd_timeout".into(),
                format!("does nothing with apd_handling = false ({ESXI_APD_HANDLING_OFF}): give one or the other"),
            ));
        }
        let stack = policy.host_stack();
        let controllers = ControllerWait::resolve(
            stack,
            spec,
            reconnect.unwrap_or(if stack == Stack::Spdk { SPDK_RECONNECT_DELAY_NS } else { NVME_RECONNECT_DELAY_NS }),
            if stack == Stack::Spdk {
                controller_loss
            } else {
                Some(controller_loss.unwrap_or(NVME_CTRL_LOSS_TIMEOUT_NS))
            },
            delayed_removal,
        )?;
        let (default_timeout, on_error, max_retries, reinstate, loss_timeout) = match stack {
            Stack::Esxi => {
                let apd = apd_handling.then_some(apd);
                (ESXI_IO_TIMEOUT_NS, OnPathError::Retry, Some(ESXI_MAX_RETRIES), Reinstate::AtOnce, apd)
            }
            Stack::LinuxDm => {
                let interval_ns = checker.unwrap_or(MULTIPATHD_CHECKER_INTERVAL_NS);
                (LINUX_SCSI_IO_TIMEOUT_NS, OnPathError::FailPath, None, Reinstate::CheckerTick { interval_ns }, None)
            }
            Stack::LinuxNvme => (
                NVME_IO_TIMEOUT_NS,
                OnPathError::Retry,
                Some(NVME_MAX_RETRIES),
                Reinstate::Reconnect { delay_ns: reconnect.unwrap_or(NVME_RECONNECT_DELAY_NS) },
                // The head outlives its deleted controllers by `delayed_removal_secs`.
                Some(controller_loss.unwrap_or(NVME_CTRL_LOSS_TIMEOUT_NS) + delayed_removal),
            ),
            Stack::Spdk => (
                SPDK_IO_TIMEOUT_NS,
                OnPathError::Retry,
                Some(SPDK_MAX_RETRIES),
                Reinstate::Reconnect { delay_ns: reconnect.unwrap_or(SPDK_RECONNECT_DELAY_NS) },
                controller_loss,
            ),
            Stack::Windows => {
                (WINDOWS_IO_TIMEOUT_NS, OnPathError::Retry, Some(WINDOWS_MAX_RETRIES), Reinstate::AtOnce, None)
            }
        };
        let io_timeout_ns = io_timeout.unwrap_or(default_timeout);
        if let Some(n) = spec.retry_count.filter(|&n| n > u32::from(u8::MAX)) {
            return Err(("host.stack.retry_count".into(), format!("{n}: allowed 0 to {}", u8::MAX)));
        }
        // Where the stack counts retries, `retry_count` sets the count (dm has none).
        let max_retries = max_retries.map(|default| spec.retry_count.unwrap_or(default));
        let default_delay = if stack == Stack::Windows { WINDOWS_RETRY_INTERVAL_NS } else { 0 };
        let retry_delay_ns = spec.retry_interval.map_or(default_delay, |d| d.0);
        let no_path = match action {
            NoPathAction::Fail => NoPath::Fail,
            NoPathAction::Queue { give_up_after_ns, .. } => {
                // multipathd counts `no_path_retry N` in checker intervals (`retry_tick = N ×
                // checkint + 1`, the +1 for a tick before the count starts) [multipath-tools
                // 0.14.3 `libmultipath/structs_vec.c:697`].
                let give_up_after_ns = match policy {
                    PolicyConfig::DmMultipath(c) => match c.no_path_retry {
                        NoPathRetry::Retries(n) => Some(n * checker.unwrap_or(MULTIPATHD_CHECKER_INTERVAL_NS)),
                        _ => give_up_after_ns,
                    },
                    _ => give_up_after_ns,
                };
                let bounds = [give_up_after_ns, loss_timeout];
                NoPath::Queue { give_up_after_ns: bounds.into_iter().flatten().min() }
            }
        };
        let (shaky, shaky_to_marginal_group) = match policy {
            PolicyConfig::DmMultipath(c) => (c.shaky_check(), c.marginal_pathgroups == MarginalPathgroups::On),
            _ => (None, false),
        };
        let found = Detection::resolve(stack, spec, io_timeout_ns, checker)?;
        let path_eval = timer(spec.path_eval_time.map(|d| d.0), "path_eval_time")?;
        let verify_period = timer(spec.path_verification_period.map(|d| d.0), "path_verification_period")?;
        if verify_period.is_some() && !spec.path_verify {
            return Err((
                "host.stack.path_verification_period".into(),
                "MPIO honours it only with path verification: give path_verify = true too".into(),
            ));
        }
        let silent_reinstate = match stack {
            Stack::Esxi => Some(path_eval.unwrap_or(ESXI_PATH_EVAL_TIME_NS)),
            Stack::Windows if spec.path_verify => Some(verify_period.unwrap_or(WINDOWS_PATH_VERIFICATION_PERIOD_NS)),
            _ => None,
        }
        .map(|interval_ns| Reinstate::CheckerTick { interval_ns });
        let mut probes = found.probes;
        if let (Stack::Windows, Some(Reinstate::CheckerTick { interval_ns })) = (stack, silent_reinstate) {
            // The verification finds a path that stopped answering too (tests/silent_loss.rs).
            let timeout_ns = WINDOWS_PATH_VERIFY_TIMEOUT_NS;
            probes[0] = Some(Probe { every_ns: interval_ns, timeout_ns, then: Found::Fail { hold_ns: 0 } });
        }
        Ok(StackRules {
            shaky,
            shaky_to_marginal_group,
            stack,
            io_timeout_ns,
            on_error,
            max_retries,
            reinstate,
            silent_reinstate,
            no_path,
            retry_delay_ns,
            on_link_loss: found.on_link_loss,
            probes,
            failover_hold: found.failover_hold,
            target_quiesce_ns: found.target_quiesce_ns,
            kato_ns: found.kato_ns,
            controllers,
        })
    }
}

/// A setting's name, whether the scenario gives it, whether a stack (over a SCSI transport)
/// reads it, and the readers in words.
type Readers = (&'static str, bool, fn(Stack, ScsiTransport) -> bool, &'static str);

/// The stacks that read each `[host.stack]` setting beyond those every stack reads
/// (`io_timeout`, `retry_interval`), with how the refusal names them. A setting none of a
/// host's devices' stacks reads would do nothing: refused rather than ignored.
fn readers(spec: &StackSpec) -> [Readers; 21] {
    fn dm(s: Stack, _: ScsiTransport) -> bool {
        s == Stack::LinuxDm
    }
    fn dm_fc(s: Stack, t: ScsiTransport) -> bool {
        s == Stack::LinuxDm && t == ScsiTransport::Fc
    }
    fn dm_iscsi(s: Stack, t: ScsiTransport) -> bool {
        s == Stack::LinuxDm && t == ScsiTransport::Iscsi
    }
    fn nvme(s: Stack, _: ScsiTransport) -> bool {
        matches!(s, Stack::LinuxNvme | Stack::Spdk)
    }
    const DM: &str = "Linux dm-multipath (policy dm-multipath)";
    const DM_FC: &str = "Linux dm-multipath over FC (policy dm-multipath, scsi_transport = \"fc\")";
    const DM_ISCSI: &str = "Linux dm-multipath over iSCSI (policy dm-multipath, scsi_transport = \"iscsi\")";
    const NVME: &str = "NVMe (policy nvme or spdk)";
    const DM_OR_NVME: &str = "Linux dm-multipath and NVMe (policy dm-multipath, nvme or spdk)";
    [
        ("apd_timeout", spec.apd_timeout.is_some(), |s, _| s == Stack::Esxi, "ESXi"),
        ("apd_handling", spec.apd_handling.is_some(), |s, _| s == Stack::Esxi, "ESXi"),
        ("path_eval_time", spec.path_eval_time.is_some(), |s, _| s == Stack::Esxi, "ESXi"),
        ("path_verify", spec.path_verify, |s, _| s == Stack::Windows, "Windows MPIO (policy mpio)"),
        ("checker_interval", spec.checker_interval.is_some(), dm, DM),
        ("max_polling_interval", spec.max_polling_interval.is_some(), dm, DM),
        ("checker_timeout", spec.checker_timeout.is_some(), dm, DM),
        // Native NVMe multipath fails a lost controller's I/O over at once: its own
        // fast_io_fail_tmo bounds how long I/O with no other path waits (`model::nvme_wait`).
        ("fast_io_fail_tmo", spec.fast_io_fail_tmo.is_some(), |s, t| dm(s, t) || nvme(s, t), DM_OR_NVME),
        ("dev_loss_tmo", spec.dev_loss_tmo.is_some(), dm_fc, DM_FC),
        ("noop_out_interval", spec.noop_out_interval.is_some(), dm_iscsi, DM_ISCSI),
        ("noop_out_timeout", spec.noop_out_timeout.is_some(), dm_iscsi, DM_ISCSI),
        ("replacement_timeout", spec.replacement_timeout.is_some(), dm_iscsi, DM_ISCSI),
        ("reconnect_delay", spec.reconnect_delay.is_some(), nvme, NVME),
        ("controller_loss_timeout", spec.controller_loss_timeout.is_some(), nvme, NVME),
        ("delayed_removal", spec.delayed_removal.is_some(), |s, _| s == Stack::LinuxNvme, "Linux NVMe (policy nvme)"),
        ("keep_alive_timeout", spec.keep_alive_timeout.is_some(), nvme, NVME),
        ("command_quiesce_time", spec.command_quiesce_time.is_some(), nvme, NVME),
        ("kato_grace", spec.kato_grace.is_some(), |s, _| s == Stack::LinuxNvme, "Linux NVMe (policy nvme)"),
        ("tp4129_hold", spec.tp4129_hold.is_some(), nvme, NVME),
        ("ccr", spec.ccr, nvme, NVME),
        (
            "retry_count",
            spec.retry_count.is_some(),
            |s, _| s != Stack::LinuxDm,
            "ESXi, NVMe and Windows MPIO (dm-multipath counts no retries)",
        ),
    ]
}

/// Refuses a `[host.stack]` setting that no stack of the host's devices (`stacks`) reads.
pub fn check_read(spec: &StackSpec, stacks: &[Stack]) -> Result<(), FieldError> {
    let words = |s: &Stack| match s {
        Stack::Esxi => "ESXi",
        Stack::LinuxDm => "Linux dm-multipath",
        Stack::LinuxNvme => "Linux NVMe",
        Stack::Spdk => "SPDK",
        Stack::Windows => "Windows MPIO",
    };
    for (field, given, reads, readers) in readers(spec) {
        if given && !stacks.iter().any(|&s| reads(s, spec.scsi_transport)) {
            let mut on: Vec<&str> = stacks.iter().map(words).collect();
            on.dedup();
            return Err((
                format!("host.stack.{field}"),
                format!("read by {readers} only; this host's devices are on {}: it would do nothing", on.join(", ")),
            ));
        }
    }
    Ok(())
}

/// How a stack finds a loss and what it holds: the part of `StackRules` the timers of
/// `[host.stack]` beyond the I/O timeout decide.
struct Detection {
    on_link_loss: Found,
    probes: [Option<Probe>; 2],
    failover_hold: Option<FailoverHold>,
    target_quiesce_ns: Option<TimeNs>,
    kato_ns: Option<TimeNs>,
}

impl Detection {
    fn resolve(
        stack: Stack,
        spec: &StackSpec,
        io_timeout_ns: TimeNs,
        checker: Option<TimeNs>,
    ) -> Result<Detection, FieldError> {
        let t = |v: Option<DurationNs>, field: &str| timer(v.map(|d| d.0), field);
        // 0 is the kernel's "fail at once" (the port's I/O fails over when it is blocked).
        let fast_io_fail = match spec.fast_io_fail_tmo {
            Some(DurationNs(0)) => Some(0),
            other => t(other, "fast_io_fail_tmo")?,
        };
        let dev_loss = t(spec.dev_loss_tmo, "dev_loss_tmo")?;
        let max_polling = t(spec.max_polling_interval, "max_polling_interval")?;
        let checker_timeout = t(spec.checker_timeout, "checker_timeout")?;
        let noop_interval = t(spec.noop_out_interval, "noop_out_interval")?;
        let noop_timeout = t(spec.noop_out_timeout, "noop_out_timeout")?;
        let replacement = spec.replacement_timeout.map(|d| d.0);
        let kato = t(spec.keep_alive_timeout, "keep_alive_timeout")?;
        let cqt = spec.command_quiesce_time.map_or(0, |d| d.0);
        if let Some(k) = spec.tp4129_hold.filter(|k| !TP4129_KATO_MULTIPLES.contains(k)) {
            return Err(("host.stack.tp4129_hold".into(), format!("{k}: allowed 2 or 3 (multiples of KATO)")));
        }
        if spec.ccr && spec.tp4129_hold.is_none() {
            return Err(("host.stack.ccr".into(), "ends the TP4129 hold early: give tp4129_hold too".into()));
        }
        let at_once = Found::Fail { hold_ns: 0 };
        let mut d = Detection {
            on_link_loss: at_once,
            probes: [None, None],
            failover_hold: None,
            target_quiesce_ns: None,
            kato_ns: None,
        };
        match stack {
            Stack::LinuxDm => {
                let checkint = checker.unwrap_or(MULTIPATHD_CHECKER_INTERVAL_NS);
                let max_polling = max_polling.unwrap_or(MAX_POLLING_FACTOR * checkint);
                if max_polling < checkint {
                    return Err((
                        "host.stack.max_polling_interval".into(),
                        "must be at least the checker interval (polling_interval)".into(),
                    ));
                }
                // A healthy path's checks have spaced out to max_polling_interval; its next TUR
                // goes unanswered for checker_timeout (the device's timeout unless set).
                let checker = Probe {
                    every_ns: max_polling,
                    timeout_ns: checker_timeout.unwrap_or(io_timeout_ns),
                    then: Found::FailNewIo,
                };
                let fast_io_fail = fast_io_fail.unwrap_or(FC_FAST_IO_FAIL_NS);
                match spec.scsi_transport {
                    ScsiTransport::Fc => {
                        // The blocked port's I/O fails over at fast_io_fail_tmo, or when the
                        // port is removed at dev_loss_tmo if that comes first.
                        let hold_ns = fast_io_fail.min(dev_loss.unwrap_or(FC_DEV_LOSS_NS));
                        d.on_link_loss = Found::Fail { hold_ns };
                        d.probes = [Some(checker), None];
                    }
                    ScsiTransport::Iscsi => {
                        if spec.replacement_timeout.is_some() && spec.fast_io_fail_tmo.is_some() {
                            return Err((
                                "host.stack.replacement_timeout".into(),
                                "multipathd sets the iSCSI session's replacement_timeout to fast_io_fail_tmo: give \
                                 one of the two"
                                    .into(),
                            ));
                        }
                        let hold_ns = replacement.unwrap_or(fast_io_fail);
                        let noop = Probe {
                            every_ns: noop_interval.unwrap_or(ISCSI_NOOP_OUT_INTERVAL_NS),
                            timeout_ns: noop_timeout.unwrap_or(ISCSI_NOOP_OUT_TIMEOUT_NS),
                            then: Found::Fail { hold_ns },
                        };
                        d.on_link_loss = Found::Fail { hold_ns };
                        d.probes = [Some(noop), Some(checker)];
                    }
                }
            }
            Stack::LinuxNvme | Stack::Spdk => {
                let kato = kato.unwrap_or(if stack == Stack::Spdk { SPDK_KATO_NS } else { NVME_KATO_NS });
                // Linux's keep-alive; SPDK's timeout already stands for its own (`io_timeout`).
                if stack == Stack::LinuxNvme {
                    d.probes = [Some(Probe { every_ns: kato / 2, timeout_ns: kato, then: at_once }), None];
                }
                d.failover_hold =
                    spec.tp4129_hold.map(|k| FailoverHold { hold_ns: u64::from(k) * kato + cqt, ccr: spec.ccr });
                // The controller's keep-alive timer runs the KATO the host sent it: older Linux
                // added NVME_KATO_GRACE (`kato_grace`).
                let grace = spec.kato_grace.map_or(0, |d| d.0);
                d.target_quiesce_ns = Some(kato + grace + cqt);
                d.kato_ns = Some(kato);
            }
            Stack::Esxi | Stack::Windows => {}
        }
        if matches!(stack, Stack::Esxi | Stack::LinuxDm | Stack::Windows) {
            d.target_quiesce_ns = Some(SCSI_UNCONFIRMED_ABORT);
        }
        Ok(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pathlab_policy::{DmMultipathConfig, NvmeConfig, RoundRobinConfig, SpdkConfig};

    fn rules(policy: PolicyConfig, spec: &StackSpec) -> StackRules {
        let action = policy.build().unwrap().no_path_action();
        StackRules::resolve(&policy, action, spec).unwrap()
    }

    #[test]
    fn esxi_queues_until_the_apd_timeout_and_takes_paths_back_at_once() {
        let r = rules(PolicyConfig::VmwRoundRobin(RoundRobinConfig::default()), &StackSpec::default());
        assert_eq!(r.no_path, NoPath::Queue { give_up_after_ns: Some(140 * SECOND_NS) });
        assert_eq!((r.io_timeout_ns, r.on_error, r.max_retries), (30 * SECOND_NS, OnPathError::Retry, Some(5)));
        assert_eq!(r.reinstate.at(3, 7), 7);
    }

    #[test]
    fn esxi_without_apd_handling_queues_until_a_path_returns_and_refuses_an_apd_timeout_beside_it() {
        let off = StackSpec { apd_handling: Some(false), ..Default::default() };
        let r = rules(PolicyConfig::VmwRoundRobin(RoundRobinConfig::default()), &off);
        assert_eq!(r.no_path, NoPath::Queue { give_up_after_ns: None });
        let on = StackSpec { apd_handling: Some(true), ..Default::default() };
        let r = rules(PolicyConfig::VmwRoundRobin(RoundRobinConfig::default()), &on);
        assert_eq!(r.no_path, NoPath::Queue { give_up_after_ns: Some(140 * SECOND_NS) });
        let policy = PolicyConfig::VmwRoundRobin(RoundRobinConfig::default());
        let action = policy.build().unwrap().no_path_action();
        let both = StackSpec { apd_timeout: Some(DurationNs(60 * SECOND_NS)), ..off };
        let err = StackRules::resolve(&policy, action, &both).unwrap_err();
        assert_eq!(err.0, "host.stack.apd_timeout");
        assert!(err.1.starts_with("does nothing with apd_handling = false"), "{}", err.1);
    }

    #[test]
    fn dm_follows_no_path_retry_and_the_checker_grid() {
        let queue = DmMultipathConfig { no_path_retry: NoPathRetry::Retries(12), ..Default::default() };
        let r = rules(PolicyConfig::DmMultipath(queue), &StackSpec::default());
        assert_eq!(r.no_path, NoPath::Queue { give_up_after_ns: Some(60 * SECOND_NS) });
        assert_eq!((r.on_error, r.max_retries), (OnPathError::FailPath, None));
        // Up at 6.5 s: the checker sees it at 10 s; a tick at the very moment counts.
        assert_eq!(r.reinstate.at(1, 6_500_000_000), 10 * SECOND_NS);
        assert_eq!(r.reinstate.at(1, 5 * SECOND_NS), 5 * SECOND_NS);
        let fail = rules(PolicyConfig::DmMultipath(DmMultipathConfig::default()), &StackSpec::default());
        assert_eq!(fail.no_path, NoPath::Fail);
    }

    #[test]
    fn nvme_and_spdk_reconnect_on_a_grid_from_the_loss() {
        let nvme = rules(PolicyConfig::Nvme(NvmeConfig::default()), &StackSpec::default());
        assert_eq!(nvme.no_path, NoPath::Queue { give_up_after_ns: Some(600 * SECOND_NS) });
        // Lost at 1 s, back at 3 s: the attempt at 11 s finds it; back at 21 s: that attempt.
        assert_eq!(nvme.reinstate.at(SECOND_NS, 3 * SECOND_NS), 11 * SECOND_NS);
        assert_eq!(nvme.reinstate.at(SECOND_NS, 21 * SECOND_NS), 21 * SECOND_NS);
        // The head queues `delayed_removal_secs` beyond the controllers' loss; SPDK has no head.
        let delayed = StackSpec { delayed_removal: Some(DurationNs(30 * SECOND_NS)), ..Default::default() };
        let kept = rules(PolicyConfig::Nvme(NvmeConfig::default()), &delayed);
        assert_eq!(kept.no_path, NoPath::Queue { give_up_after_ns: Some(630 * SECOND_NS) });
        let spdk = rules(PolicyConfig::Spdk(SpdkConfig::default()), &delayed);
        assert_eq!(spdk.no_path, NoPath::Queue { give_up_after_ns: None });
        assert_eq!((spdk.io_timeout_ns, spdk.max_retries), (10 * SECOND_NS, Some(3)));
    }

    #[test]
    fn scenario_settings_override_the_defaults_and_are_checked() {
        let spec = StackSpec {
            io_timeout: Some(DurationNs(2 * SECOND_NS)),
            apd_timeout: Some(DurationNs(20 * SECOND_NS)),
            ..Default::default()
        };
        let r = rules(PolicyConfig::VmwRoundRobin(RoundRobinConfig::default()), &spec);
        assert_eq!(r.io_timeout_ns, 2 * SECOND_NS);
        assert_eq!(r.no_path, NoPath::Queue { give_up_after_ns: Some(20 * SECOND_NS) });
        let policy = PolicyConfig::VmwRoundRobin(RoundRobinConfig::default());
        let action = policy.build().unwrap().no_path_action();
        let short = StackSpec { apd_timeout: Some(DurationNs(SECOND_NS)), ..Default::default() };
        let err = StackRules::resolve(&policy, action, &short).unwrap_err();
        assert_eq!(err, ("host.stack.apd_timeout".to_string(), "allowed 20s..=99999s (Misc.APDTimeout)".to_string()));
        let zero = StackSpec { checker_interval: Some(DurationNs(0)), ..Default::default() };
        assert_eq!(StackRules::resolve(&policy, action, &zero).unwrap_err().0, "host.stack.checker_interval");
    }

    #[test]
    fn each_stack_finds_a_loss_by_its_own_timers() {
        let dm = PolicyConfig::DmMultipath(DmMultipathConfig::default());
        let fc = rules(dm.clone(), &StackSpec::default());
        assert_eq!(fc.on_link_loss, Found::Fail { hold_ns: 5 * SECOND_NS });
        let checker = Probe { every_ns: 20 * SECOND_NS, timeout_ns: 30 * SECOND_NS, then: Found::FailNewIo };
        assert_eq!(fc.probes, [Some(checker), None]);
        assert_eq!((fc.failover_hold, fc.target_quiesce_ns), (None, Some(SCSI_UNCONFIRMED_ABORT)));
        // Lost at 21 s: the check at 40 s goes unanswered until 70 s.
        assert_eq!(checker.finds_at(21 * SECOND_NS), 70 * SECOND_NS);
        let before = StackSpec { dev_loss_tmo: Some(DurationNs(2 * SECOND_NS)), ..Default::default() };
        assert_eq!(rules(dm.clone(), &before).on_link_loss, Found::Fail { hold_ns: 2 * SECOND_NS });
        let iscsi = StackSpec { scsi_transport: ScsiTransport::Iscsi, ..Default::default() };
        let r = rules(dm.clone(), &iscsi);
        let noop =
            Probe { every_ns: 5 * SECOND_NS, timeout_ns: 5 * SECOND_NS, then: Found::Fail { hold_ns: 5 * SECOND_NS } };
        assert_eq!(r.probes, [Some(noop), Some(checker)]);
        let queue = DmMultipathConfig { no_path_retry: NoPathRetry::Retries(3), ..Default::default() };
        let every_2s = StackSpec { checker_interval: Some(DurationNs(2 * SECOND_NS)), ..Default::default() };
        let r = rules(PolicyConfig::DmMultipath(queue), &every_2s);
        assert_eq!(r.no_path, NoPath::Queue { give_up_after_ns: Some(6 * SECOND_NS) });
        let held =
            StackSpec { tp4129_hold: Some(3), command_quiesce_time: Some(DurationNs(SECOND_NS)), ..Default::default() };
        let nvme = rules(PolicyConfig::Nvme(NvmeConfig::default()), &held);
        assert_eq!(nvme.on_link_loss, Found::Fail { hold_ns: 0 });
        let keep_alive = Probe { every_ns: 2_500_000_000, timeout_ns: 5 * SECOND_NS, then: Found::Fail { hold_ns: 0 } };
        assert_eq!(nvme.probes, [Some(keep_alive), None]);
        assert_eq!(nvme.failover_hold, Some(FailoverHold { hold_ns: 16 * SECOND_NS, ccr: false }));
        assert_eq!(nvme.target_quiesce_ns, Some(6 * SECOND_NS));
        let spdk = rules(PolicyConfig::Spdk(SpdkConfig::default()), &StackSpec::default());
        assert_eq!((spdk.probes, spdk.target_quiesce_ns), ([None, None], Some(10 * SECOND_NS)));
    }
}
