"""How long the application's I/O stalls after each kind of failure, by each stack's detection
and recovery rule, from the timers in force: the one rule advise's timer findings
(`timer_findings.py`) use. Every built-in value is a `Builtin` with its source; a rule takes the
host's values (or the built-in ones, which the finding then says it assumed) and gives a `Stall`
that says what it assumes.

The rules (seconds; `None` is "until a path returns"):
- dm-multipath, a link down the FC HBA sees (RSCN): the rport is blocked and its I/O held until
  `fast_io_fail_tmo`, then failed to dm-multipath, which fails the path and retries the I/O on
  another path: the stall is `fast_io_fail_tmo` (with `off`, `dev_loss_tmo`, which the kernel
  then caps at 600 s).
- dm-multipath over iSCSI, a connection that stops answering: the NOP-Out, sent every interval,
  finds it within interval + timeout; the session then holds I/O for `replacement_timeout`, which
  multipathd sets to `fast_io_fail_tmo`; then another path.
- dm-multipath, a path that stops answering with no link event: an I/O sent down it waits the
  SCSI command timeout (`/sys/block/sdX/device/timeout`), then is aborted and retried on another
  path; the checker fails the path for new I/O by `max_polling_interval` + `checker_timeout` at
  the latest (a healthy path's checks space out to `max_polling_interval`; its next TUR goes
  unanswered for `checker_timeout`). The stall is the command timeout.
- dm-multipath, every path down: `no_path_retry queue` holds I/O until a path returns;
  `no_path_retry N` holds it N × `polling_interval` (multipathd counts `retry_tick` down once a
  second from N × checkint + 1), then fails it; `fail` fails it at once.
- NVMe/TCP, RDMA or FC, a controller that stops answering: the keep-alive, sent every KATO/2,
  times out after KATO, so error recovery starts within 1.5 × KATO, or at `io_timeout` if that
  is shorter; the I/O it held is retried on another path then. Where the controller advertises
  traffic-based keep-alive (TBKAS), Linux checks every KATO/4 and sends none while completions
  arrive: under I/O the check after the loss still saw some, so the keep-alive goes out one check
  later: found 1.25 to 1.5 × KATO after the loss (`pathlab.keep_alive`, the engine's rule).
- NVMe, a hang shorter than the keep-alive's detection: no keep-alive times out while the
  controller is silent, so a command lost in the hang waits `io_timeout` (30 s), longer than a
  hang the keep-alive finds (1.5 × KATO); one from KATO (1.25 × KATO with TBKAS under I/O) to
  1.5 × KATO is found or not by where it falls on the keep-alive's grid.
- NVMe with TP4129's hold: the I/O of a controller the host failed is held 2 (3 with TBKAS) × KATO + CQT
  from then before its retry on another path, or until the other controller confirms a
  cross-controller reset (TP8028's CCR, one round trip in the model).
- NVMe, every path down: I/O waits while any of the namespace's controllers may return (a live
  one, whatever its ANA state, or one reconnecting every `reconnect_delay`), until each lost one
  has run out `fast_io_fail_tmo` (then it fails) or `ctrl_loss_tmo` (the controller is removed
  and its I/O fails; `off`: never), counted from when the host failed it.
- NVMe, an ANA group in the change state with no other path: Linux holds the I/O until the
  change ends (its controller is live) and resets the controller every 2 × ANATT meanwhile,
  failing nothing; SPDK gives the path up after ANATT and fails the I/O then.
- SCSI ALUA, a target port group Transitioning (NOT READY, 04h/0Ah) with no other usable path:
  Linux requeues a refused command on its path a second later (scsi_lib.c's reprep delay) while
  scsi_dh_alua lets the group transition, so the I/O goes on at the first retry after the
  transition ends (within that second); a transition longer than the handler's timeout (the
  array's IMPLICIT TRANSITION TIME, else 60 s) sets the group standby and fails the path then,
  its I/O to another path or to `no_path_retry`. ESXi's SATP retries on the path until the
  transition ends.
- ESXi, every path down (APD): I/O is retried for `Misc.APDTimeout`; then the I/O that is not a
  virtual machine's fails, and the virtual machines' is retried on (VMware's page below). With
  APD handling off (`Misc.APDHandlingEnable` 0) every I/O is retried until a path returns, as in
  ESXi 5.0 (VMware's 5.1 page, 'Disable Storage APD Handling').
- ESXi software iSCSI (the adapter's `esxcli iscsi adapter param` timers): a NOP-Out every
  `NoopOutInterval` finds a connection that stopped answering after `NoopOutTimeout`; the session
  then holds its I/O `RecoveryTimeout` while it logs in again, after which the path is dead and
  the PSP retries the I/O on another path; a command whose own timeout (30 s) comes before the
  NOP-Out's finds the loss first. A link the host sees go is held `RecoveryTimeout`.
- Windows MPIO (msdsm): a failed request is retried after `RetryInterval` while it has been
  retried fewer than `RetryCount` times; a path lost with a link event fails its requests at once
  (retried after `RetryInterval` on another path), one that stops answering holds a request for
  the disk timeout (`DiskTimeoutValue`), or, with `PathVerifyEnabled`, until the next path
  verification (every `PathVerificationPeriod`) goes unanswered for its 10 s command timeout,
  then the request is retried after `RetryInterval`; with every path down the pseudo-LUN holds
  I/O for `PDORemovePeriod`, then fails it.
- SPDK bdev_nvme: no I/O timeout by default; a silent controller is found by its keep-alive
  timeout, which resets it and aborts what it held, retried on another path at once; with every
  path down I/O waits while the controllers reconnect (every `reconnect_delay_sec`) until
  `ctrlr_loss_timeout_sec` (-1: never), or until the first failed reconnect attempt at least
  `fast_io_fail_timeout_sec` after the loss."""

from __future__ import annotations

import math
from dataclasses import dataclass

from pathlab import esxi_timer_ranges, keep_alive

MULTIPATH_TOOLS = "opensvc/multipath-tools 0.14.3 (c2fcdaf1)"


@dataclass(frozen=True)
class Builtin:
    """A value the stack uses when the host sets none, and where that is written."""

    value: float | None  # None: off / infinity
    source: str

    def text(self, unit: str = " s") -> str:
        return "off" if self.value is None else f"{self.value:g}{unit}"


# dm-multipath and the SCSI layer under it
SCSI_COMMAND_TIMEOUT = Builtin(30, "Linux drivers/scsi/sd.h SD_TIMEOUT (30 * HZ)")
POLLING_INTERVAL = Builtin(5, f"{MULTIPATH_TOOLS} libmultipath/defaults.h:66 DEFAULT_CHECKINT")
MAX_POLLING_FACTOR = Builtin(4, f"{MULTIPATH_TOOLS} libmultipath/config.c:960 (max_checkint = checkint * 4)")
CHECKER_TIMEOUT = Builtin(30, f"{MULTIPATH_TOOLS} libmultipath/propsel.c:637 (the device's sysfs timeout, else "
                              "discovery.h:17 DEF_TIMEOUT 30)")
FAST_IO_FAIL_TMO = Builtin(5, f"{MULTIPATH_TOOLS} libmultipath/defaults.h:28 DEFAULT_FAST_IO_FAIL")
#: The FC transport's own dev_loss_tmo, where multipathd sets none (what the engine runs).
FC_DEV_LOSS_TMO = Builtin(60, "Linux drivers/scsi/scsi_transport_fc.c fc_dev_loss_tmo")
#: multipathd caps dev_loss_tmo at 600 s when fast_io_fail_tmo is off.
DEV_LOSS_CAP = Builtin(600, f"{MULTIPATH_TOOLS} libmultipath/defaults.h:29 DEFAULT_DEV_LOSS_TMO, discovery.c:737")
# open-iscsi, under dm-multipath
ISCSI_NOOP_OUT_INTERVAL = Builtin(5, "open-iscsi@bc236140 usr/iscsi_settings.h:8 DEF_NOOP_OUT_INTERVAL (etc/iscsid.conf:138)")
ISCSI_NOOP_OUT_TIMEOUT = Builtin(5, "open-iscsi@bc236140 usr/iscsi_settings.h:9 DEF_NOOP_OUT_TIMEO (etc/iscsid.conf:145)")
#: multipathd writes fast_io_fail_tmo into the iSCSI session's recovery_tmo (replacement_timeout).
ISCSI_RECOVERY_SOURCE = f"{MULTIPATH_TOOLS} libmultipath/discovery.c:819 (recovery_tmo = fast_io_fail_tmo)"
NO_PATH_RETRY = "fail"
NO_PATH_RETRY_SOURCE = f"{MULTIPATH_TOOLS} libmultipath/defaults.h:24 NO_PATH_RETRY_UNDEF (multipath.conf(5): fail)"
RETRY_TICK_SOURCE = f"{MULTIPATH_TOOLS} libmultipath/structs_vec.c:697 (retry_tick = no_path_retry * checkint + 1)"
# Linux NVMe
NVME_IO_TIMEOUT = Builtin(30, "Linux drivers/nvme/host/core.c io_timeout (NVME_IO_TIMEOUT, 30 * HZ)")
NVME_KATO = Builtin(5, "Linux drivers/nvme/host/nvme.h NVME_DEFAULT_KATO")
#: The keep-alive is sent every KATO/2 (core.c nvme_keep_alive_work_period) and times out after
#: KATO (nvme_keep_alive_work: rq->timeout = ctrl->kato * HZ).
KEEP_ALIVE_SOURCE = keep_alive.SOURCE
#: Whether a controller advertises traffic-based keep-alive where nothing read says: not assumed.
NVME_TBKAS = Builtin(0, "NVMe Base 2.1 Identify Controller CTRATT bit 6 (TBKAS), 0 unless the controller supports it; "
                        "`nvme id-ctrl` prints ctratt (Linux's own target, nvmet, sets it)")
NVME_RECONNECT_DELAY = Builtin(10, "Linux drivers/nvme/host/fabrics.h NVMF_DEF_RECONNECT_DELAY")
NVME_CTRL_LOSS_TMO = Builtin(600, "Linux drivers/nvme/host/fabrics.h NVMF_DEF_CTRL_LOSS_TMO")
NVME_FAST_IO_FAIL_TMO = Builtin(None, "Linux drivers/nvme/host/fabrics.h NVMF_DEF_FAIL_FAST_TMO (-1: off)")
NVME_CQT = Builtin(0, "NVMe Base 2.1, 'Communication Loss Handling' (the controller reports its CQT; 0 where it "
                      "reports none)")
TP4129 = "NVM Express TP4129 (Keep Alive and command quiesce time): hold 2 or 3 × KATO plus CQT before retrying " \
         "elsewhere"
#: Linux's ANATT timer and what it does (drivers/nvme/host/multipath.c).
NVME_ANATT_SOURCE = "Linux drivers/nvme/host/multipath.c nvme_read_ana_log (mod_timer(&ctrl->anatt_timer, ctrl->anatt " \
                    "* HZ * 2 + jiffies) while a group is in the change state), nvme_anatt_timeout (nvme_reset_ctrl), " \
                    "nvme_available_path (a live controller keeps I/O queued)"
SPDK_ANATT_SOURCE = "spdk module/bdev/nvme/bdev_nvme.c _nvme_ns_set_ana_state (anatt_timer of cdata->anatt seconds in " \
                    "the change or inaccessible state), any_io_path_may_become_available (skips ana_transition_timedout)"
SPDK_FAST_IO_FAIL = Builtin(None, "spdk module/bdev/nvme/bdev_nvme.c g_opts fast_io_fail_timeout_sec 0 (off); checked "
                                  "when a reconnect attempt fails (bdev_nvme_check_fast_io_fail_timeout)")
# SCSI ALUA's Transitioning state (the engine's model/alua_transition.rs has the same)
ALUA_FAILOVER_TIMEOUT = Builtin(60, "Linux drivers/scsi/device_handler/scsi_dh_alua.c ALUA_FAILOVER_TIMEOUT (alua_rtpg: "
                                    "'Transitioning time exceeded, set port to standby'; the array's IMPLICIT TRANSITION "
                                    "TIME where it reports one)")
ALUA_REPREP_DELAY = Builtin(1, "Linux drivers/scsi/scsi_lib.c ALUA_TRANSITION_REPREP_DELAY (1000 ms: the refused "
                               "command goes down its path again)")
ESXI_ALUA_RETRY_SOURCE = "Broadcom KB 310442, 'ALUA parameters in ESXi Server' (action_OnRetryErrors=off, the default: " \
                         "the path stays on while the I/O is retried indefinitely)"
# ESXi
ESXI_IO_TIMEOUT = Builtin(30, "VMware vSphere 6.0 Storage, 'Path failover': I/O 'might pause for 30 to 60 seconds' "
                              "(the lower bound)")
#: The range VMware's page below gives for Misc.APDTimeout, which the engine takes.
ESXI_APD_TIMEOUT_RANGE = esxi_timer_ranges.APD_TIMEOUT
ESXI_APD_TIMEOUT = Builtin(140, "VMware vSphere 7.0 Storage, 'Change Timeout Limits for Storage APD', "
                                "https://docs.vmware.com/en/VMware-vSphere/7.0/com.vmware.vsphere.storage.doc/"
                                "GUID-5CC5A990-AC23-4D51-80DD-37F09175E255.html")
ESXI_APD_HANDLING_OFF_SOURCE = ("VMware vSphere 5.1 Storage, 'Disable Storage APD Handling' (\"the host will "
                                "indefinitely continue to retry issued commands in an attempt to reconnect to the APD "
                                "device. Continuing to retry is the same behavior as in ESXi version 5.0\"), "
                                "https://pubs.vmware.com/vsphere-51/topic/com.vmware.vsphere.storage.doc/"
                                "GUID-54F4B360-F32D-41B0-BDA8-AEBE9F01AC72.html")

# Windows MPIO (msdsm): Microsoft's defaults
MPIO_TIMERS_SOURCE = "Microsoft, MPIO_TIMERS_COUNTERS WMI class, https://learn.microsoft.com/en-us/windows-hardware/" \
                     "drivers/storage/mpio-timers-counters-wmi-class"
MPIO_DISK_TIMEOUT = Builtin(120, "Microsoft, Get-MPIOSetting (DiskTimeoutValue 120), https://learn.microsoft.com/en-us/"
                                 "powershell/module/mpio/get-mpiosetting")
MPIO_RETRY_COUNT = Builtin(3, f"{MPIO_TIMERS_SOURCE} (RetryCount: 'The default is set to 3')")
MPIO_RETRY_INTERVAL = Builtin(1, f"{MPIO_TIMERS_SOURCE} (RetryInterval: a failed request is retried after it; 1 s)")
MPIO_PDO_REMOVE_PERIOD = Builtin(20, f"{MPIO_TIMERS_SOURCE} (PDORemovePeriod: 'The default is 20 seconds')")
MPIO_PATH_VERIFICATION_PERIOD = Builtin(30, f"{MPIO_TIMERS_SOURCE} (PathVerificationPeriod, honoured with "
                                            "PathVerifyEnabled, default disabled)")
MPIO_VERIFY_TIMEOUT = Builtin(10, "microsoft/Windows-driver-samples@5d61a4a7 storage/msdsm/src/prototypes.h "
                                  "SPC3_REPORT_TARGET_PORT_GROUPS_TIMEOUT (DsmPathVerify's RTPG, intrface.c)")
# ESXi software iSCSI: VMware's defaults and the ranges esxcli accepts (the engine's
# model/esxi_iscsi.rs has the same and says where they come from)
ESXI_ISCSI_SOURCE = "ESXi's iSCSI host-profile plugin ISCSI_DEFAULT_* constants; vSphere 8.0 Storage, 'Configuring " \
                    "Advanced Parameters for iSCSI' (GUID-7FCA31F2-FA13-4BFD-8057-5A36DC3FBC14)"
ESXI_NOOP_OUT_INTERVAL = Builtin(15, f"{ESXI_ISCSI_SOURCE} (NoopOutInterval 15, 1 to 60)")
ESXI_NOOP_OUT_TIMEOUT = Builtin(10, f"{ESXI_ISCSI_SOURCE} (NoopOutTimeout 10, 10 to 30)")
ESXI_RECOVERY_TIMEOUT = Builtin(10, f"{ESXI_ISCSI_SOURCE} (RecoveryTimeout 10, 1 to 120)")
#: The ranges esxcli accepts for them (Min, Max), by esxcli's name, as `show` prints them.
ESXI_ISCSI_RANGES = esxi_timer_ranges.ISCSI
ESXI_PATH_EVAL_TIME = Builtin(300, "VMware vSphere 8.0 Storage, 'Viewing and Managing Paths' (a periodic path "
                                   "evaluation every five minutes)")
# SPDK bdev_nvme, as SPDK's multipath HOWTO attaches controllers
SPDK_KEEP_ALIVE = Builtin(10, "spdk module/bdev/nvme/bdev_nvme.c SPDK_BDEV_NVME_DEFAULT_KEEP_ALIVE_TIMEOUT_IN_MS "
                              "(timeout_us 0: no I/O timeout; the keep-alive finds a silent controller and resets it)")
SPDK_RECONNECT_DELAY = Builtin(10, "spdk doc/nvmf_multipath_howto.md (bdev_nvme_attach_controller -o 10: "
                                   "reconnect_delay_sec)")
SPDK_CTRLR_LOSS = Builtin(None, "spdk doc/nvmf_multipath_howto.md (ctrlr_loss_timeout_sec -1: reconnect forever)")


@dataclass(frozen=True)
class Stall:
    """What the application sees after one kind of failure: the longest wait of an I/O (None:
    until a path returns), whether the I/O then fails or goes on over another path, how the
    stall comes from the timers, and what the rule assumes."""

    failure: str
    seconds: float | None
    then: str
    rule: str
    assumes: str

    def text(self) -> str:
        wait = "until a path returns" if self.seconds is None else f"about {self.seconds:g} s"
        return f"{self.failure}: I/O stalls {wait}, then {self.then} ({self.rule}; assumes {self.assumes})"


def seconds(value: str) -> float | None:
    """A timer as written (`5`, `off`, `infinity`) in seconds: None for off (-1), inf for infinity."""
    if value in ("off", "-1"):
        return None
    return math.inf if value == "infinity" else float(value)


def dm_link_down(fast_io_fail: float | None, dev_loss: float | None, queue: bool = False) -> Stall:
    """An FC link down the HBA sees: held until fast_io_fail_tmo (or dev_loss_tmo, whichever
    comes first: the rport is then removed), then retried on another path. `fast_io_fail` None
    is off; `dev_loss` None is not given (the HBA driver's own), inf is infinity; `queue`:
    no_path_retry queue, under which multipathd does not cap dev_loss_tmo."""
    seen = "the HBA sees the link go (RSCN) and another path works"
    if fast_io_fail is not None and (dev_loss is None or fast_io_fail < dev_loss):
        return Stall("an FC link down", fast_io_fail, "it is retried on another path",
                     f"fast_io_fail_tmo {fast_io_fail:g} s", seen + ("" if dev_loss is not None else
                                                                      " and the HBA driver's dev_loss_tmo is longer"))
    if fast_io_fail is not None and dev_loss is not None:
        return Stall("an FC link down", dev_loss, "it is retried on another path",
                     f"dev_loss_tmo {dev_loss:g} s comes before fast_io_fail_tmo {fast_io_fail:g} s: the port is "
                     "removed and its I/O fails over", seen)
    cap = DEV_LOSS_CAP.value or 0.0
    if dev_loss is None:
        return Stall("an FC link down", cap, "it is retried on another path",
                     f"fast_io_fail_tmo off: held until the HBA driver's dev_loss_tmo, at most {cap:g} s (the kernel "
                     "limits it so without fast_io_fail_tmo)", seen)
    held = None if queue and math.isinf(dev_loss) else dev_loss if queue or dev_loss <= cap else cap
    capped = "" if held == dev_loss or queue else f" (multipathd caps dev_loss_tmo at {cap:g} s without fast_io_fail_tmo, " \
                                         "unless no_path_retry is queue)"
    until = "" if held is None else f" {held:g} s"
    return Stall("an FC link down", held, "it is retried on another path",
                 f"fast_io_fail_tmo off: held until dev_loss_tmo{until}{capped}", seen)


def dm_iscsi_connection_lost(fast_io_fail: float, noop_interval: float, noop_timeout: float) -> Stall:
    """An iSCSI connection that stops answering: the NOP-Out finds it within its interval and
    timeout, then the session holds I/O for replacement_timeout, which multipathd sets to
    fast_io_fail_tmo; then the I/O is retried on another path."""
    found = noop_interval + noop_timeout
    return Stall("an iSCSI connection loss", found + fast_io_fail, "it is retried on another path",
                 f"found within NOP-Out's {noop_interval:g} s interval and {noop_timeout:g} s timeout, then "
                 f"replacement_timeout = "
                 f"fast_io_fail_tmo {fast_io_fail:g} s", "open-iscsi's NOP-Out defaults and another path works")


def dm_path_hang(command_timeout: float, max_polling: float, checker_timeout: float) -> Stall:
    """A path that stops answering with no link event: the SCSI command timeout, then another
    path; a healthy path is checked every max_polling_interval (the interval grows to it)."""
    bound = max_polling + checker_timeout
    return Stall("a path that stops answering (no link event)", command_timeout, "it is retried on another path",
                 f"the SCSI command timeout {command_timeout:g} s; the checker fails the path for new I/O within "
                 f"max_polling_interval {max_polling:g} + checker_timeout {checker_timeout:g} = {bound:g} s",
                 "the error handler's abort ends the command at once (eh_deadline unset)")


def dm_all_paths_down(no_path_retry: str, polling: float) -> Stall:
    """Every path down: queue forever, N × polling_interval, or fail at once."""
    if no_path_retry == "queue":
        return Stall("every path down", None, "it continues", "no_path_retry queue (queue_if_no_path)",
                     "multipathd keeps running (queue_without_daemon)")
    if no_path_retry == "fail":
        return Stall("every path down", 0, "it fails to the application", "no_path_retry fail",
                     "nothing beyond the setting")
    retries = int(no_path_retry)
    return Stall("every path down", retries * polling, "it fails to the application",
                 f"no_path_retry {retries} × polling_interval {polling:g} s", "the paths stay down that long")


def nvme_controller_silent(kato: float, io_timeout: float, traffic_based: bool = False) -> Stall:
    """A controller that stops answering: the keep-alive finds it within 1.5 × KATO (under TBKAS
    too: a check every KATO/4, one skipped for the completions before the loss), or io_timeout."""
    latest = keep_alive.detection(kato, traffic_based).latest
    found = min(latest, io_timeout)
    grid = "checked every KATO/4 and sent at the first check that saw no completion (traffic-based keep-alive)" \
        if traffic_based else "every KATO/2"
    rule = f"keep-alive {grid}, timing out after KATO {kato:g} s: {latest / kato:g} × KATO = {latest:g} s" \
        if found < io_timeout else f"io_timeout {io_timeout:g} s, before the keep-alive's {latest / kato:g} × KATO"
    return Stall("a controller that stops answering", found, "it is retried on another path", rule,
                 "the controller stops answering keep-alives too (an I/O queue alone that hangs waits io_timeout) "
                 "and another path works")


def nvme_short_hang(kato: float, io_timeout: float, outage: float, traffic_based: bool = False) -> Stall | None:
    """A controller silent for `outage` seconds, shorter than the keep-alive's worst case
    (1.5 × KATO) and than `io_timeout`: before the keep-alive's earliest detection (KATO, 1.25 ×
    KATO under TBKAS with I/O flowing) none can time out before it answers again, so a command lost
    in the hang waits `io_timeout`; from then on, the keep-alive finds it or not by where the hang
    falls on its grid. None where the hang is longer (`nvme_controller_silent`)."""
    found = keep_alive.detection(kato, traffic_based)
    if outage >= min(found.latest, io_timeout):
        return None
    rule = f"a hang of {outage:g} s ends before the keep-alive (KATO {kato:g} s) times out: a command lost in it " \
           f"waits io_timeout {io_timeout:g} s" if outage < found.earliest else \
        f"a hang of {outage:g} s, between {_times_kato(found.earliest, kato)} {kato:g} s and " \
        f"{_times_kato(found.latest, kato)}: found by the keep-alive if it began early enough in its grid, else a " \
        f"command lost in it waits io_timeout {io_timeout:g} s"
    return Stall("a controller that stops answering briefly", io_timeout, "it is retried (the path is back)", rule,
                 "commands sent into the hang are lost, as the engine models a silent path (NVMe/TCP's own "
                 "retransmission would deliver them after the hang: not modelled)")


def _times_kato(seconds: float, kato: float) -> str:
    """`KATO`, or `1.5 × KATO`: a time as a multiple of KATO."""
    return "KATO" if seconds == kato else f"{seconds / kato:g} × KATO"


def tp4129_hold(kato: float, cqt: float, multiple: int, ccr: bool) -> Stall:
    """TP4129: a failed controller's I/O held multiple × KATO + CQT before its retry elsewhere,
    or until another controller confirms a cross-controller reset (TP8028)."""
    hold = multiple * kato + cqt
    if ccr:
        return Stall("a controller lost (TP4129 with CCR)", 0.0, "it is retried on another path",
                     f"CCR confirms the reset after one round trip, before the {multiple} × KATO + CQT = {hold:g} s hold",
                     "another controller answers the reset (NVM Express TP8028, not merged in Linux)")
    return Stall("a controller lost (TP4129)", hold, "it is retried on another path",
                 f"TP4129 hold {multiple} × KATO {kato:g} + CQT {cqt:g} = {hold:g} s", TP4129)


def nvme_ana_change(anatt: float, change: float | None, spdk: bool = False, others: float | None = 0.0) -> Stall:
    """An ANA group in the change state for `change` seconds (None: never ending) with no other
    usable path: Linux holds the I/O until it ends (the controller is live) and resets the
    controller every 2 × ANATT meanwhile; SPDK gives the path up after ANATT, and fails the I/O
    once the namespace's other controllers (lost ones, still reconnecting) stop counting too:
    `others` seconds after the change began (None: never; 0: there are none)."""
    if spdk:
        gives_up = None if others is None else max(anatt, others)
        if gives_up is not None and (change is None or gives_up < change):
            lost = f", and the lost controllers stop counting at {others:g} s" if others else ""
            return Stall("an ANA change", gives_up, "it fails to the application",
                         f"ANATT {anatt:g} s runs out in the change state: the path is given up{lost} (within SPDK's "
                         "1 s retry)", SPDK_ANATT_SOURCE)
        why = f"the change ends before ANATT {anatt:g} s" if change is not None and change < anatt else \
            "a lost controller still reconnecting keeps the I/O waiting past ANATT"
        return Stall("an ANA change", change, "it continues on the new state" if change is not None else "it continues",
                     f"held until the change ends: {why}", SPDK_ANATT_SOURCE)
    resets = f"; the controller is reset every 2 × ANATT = {2 * anatt:g} s meanwhile, failing nothing" \
        if change is None or change >= 2 * anatt else ""
    return Stall("an ANA change", change, "it continues on the new state" if change is not None else "it continues",
                 f"held until the change ends (the controller is live: nvme_available_path){resets}", NVME_ANATT_SOURCE)


def nvme_all_paths_down(ctrl_loss: float | None, fast_io_fail: float | None, spdk_reconnect: float | None = None) -> Stall:
    """Every path down: held while the controllers reconnect, until fast_io_fail_tmo or
    ctrl_loss_tmo; SPDK (`spdk_reconnect`, its reconnect_delay_sec) checks fast_io_fail when a
    reconnect attempt fails, so it counts at the first attempt at or after it."""
    rule = f"fast_io_fail_tmo {fast_io_fail:g} s" if fast_io_fail is not None else ""
    if fast_io_fail is not None and spdk_reconnect:
        on_grid = math.ceil(fast_io_fail / spdk_reconnect) * spdk_reconnect
        rule = f"fast_io_fail_timeout_sec {fast_io_fail:g} s, at the first reconnect attempt (every {spdk_reconnect:g} " \
               f"s) from then: {on_grid:g} s"
        fast_io_fail = on_grid
    if fast_io_fail is not None and (ctrl_loss is None or fast_io_fail < ctrl_loss):
        return Stall("every path down", fast_io_fail, "it fails to the application", rule,
                     "the controllers stay unreachable that long")
    if ctrl_loss is None:
        return Stall("every path down", None, "it continues", "ctrl_loss_tmo off: the controllers reconnect forever",
                     "nothing beyond the setting")
    return Stall("every path down", ctrl_loss, "it fails to the application (the controllers are removed)",
                 f"ctrl_loss_tmo {ctrl_loss:g} s", "delayed_removal_secs 0 and the controllers stay unreachable")


def mpio_path_lost(retry_interval: float) -> Stall:
    """A path lost with a link event (PnP removal, the HBA's link down): its requests fail at
    once and are retried on another path after RetryInterval (a removal is not counted against
    RetryCount)."""
    return Stall("a path lost (link event)", retry_interval, "it is retried on another path",
                 f"the request fails at once and is retried after RetryInterval {retry_interval:g} s",
                 "another path works")


def mpio_path_hang(disk_timeout: float, retry_count: float, retry_interval: float,
                   verification: float | None = None) -> Stall:
    """A path that stops answering: the request waits the disk timeout, or (`verification`: the
    PathVerificationPeriod with PathVerifyEnabled) until the first verification after the loss
    goes unanswered for its 10 s timeout if that comes first, at worst a whole period after the
    loss; then it is retried after RetryInterval on another path (failed if RetryCount is 0)."""
    found, how = disk_timeout, f"the disk timeout (DiskTimeoutValue) {disk_timeout:g} s"
    verify = MPIO_VERIFY_TIMEOUT.value or 0.0
    if verification is not None and verification + verify < disk_timeout:
        found = verification + verify
        how = f"path verification every {verification:g} s, its command unanswered {verify:g} s ({MPIO_VERIFY_TIMEOUT.source})"
    assumes = "path verification is off or comes later" if found == disk_timeout else \
        "the loss falls just after a verification (a whole period before the next)"
    if retry_count < 1:
        return Stall("a path that stops answering (no link event)", found, "it fails to the application",
                     f"{how}, and RetryCount 0 retries nothing", assumes)
    return Stall("a path that stops answering (no link event)", found + retry_interval,
                 "it is retried on another path", f"{how}, then RetryInterval {retry_interval:g} s", assumes)


def esxi_iscsi_path_hang(interval: float, noop_timeout: float, recovery: float, io_timeout: float) -> Stall:
    """An ESXi iSCSI path that stops answering: the first NOP-Out after the loss (at worst a whole
    NoopOutInterval later) goes unanswered NoopOutTimeout, then the session holds the I/O
    RecoveryTimeout; a command whose own timeout comes before the NOP-Out's ends the wait then."""
    failure = "a path that stops answering (no link event)"
    if noop_timeout >= io_timeout:
        return Stall(failure, io_timeout, "it is retried on another path",
                     f"the I/O timeout {io_timeout:g} s, before any NOP-Out times out ({noop_timeout:g} s)",
                     "nothing beyond the settings")
    if interval + noop_timeout < io_timeout:
        return Stall(failure, interval + noop_timeout + recovery, "it is retried on another path",
                     f"NOP-Out every NoopOutInterval {interval:g} s, unanswered NoopOutTimeout {noop_timeout:g} s, then "
                     f"RecoveryTimeout {recovery:g} s", "the loss falls just after a NOP-Out (a whole interval before the "
                                                       "next)")
    return Stall(failure, io_timeout + recovery, "it is retried on another path",
                 f"at most: a NOP-Out timing out just before the I/O timeout {io_timeout:g} s, then RecoveryTimeout "
                 f"{recovery:g} s (a loss just after a NOP-Out waits the I/O timeout alone)",
                 "the worst place of the loss on the NOP-Out grid")


def esxi_iscsi_link_down(recovery: float) -> Stall:
    """An ESXi iSCSI path whose link the host sees go (the vmknic's uplink): the session holds its
    I/O RecoveryTimeout while it logs in again, then the path is dead and the PSP retries the I/O
    on another path."""
    return Stall("a link down the host sees (iSCSI)", recovery, "it is retried on another path",
                 f"the iSCSI session holds the path's I/O RecoveryTimeout {recovery:g} s", "another path works")


def esxi_all_paths_down(apd: float | None) -> Stall:
    """Every path of a device down (APD): I/O is retried for Misc.APDTimeout, then the I/O that is
    not a virtual machine's fails; a virtual machine's is retried until a path returns. `apd`
    None: APD handling off (Misc.APDHandlingEnable 0), every I/O retried until a path returns."""
    if apd is None:
        return Stall("every path down (APD)", None, "it continues", "Misc.APDHandlingEnable 0: retried until a path "
                                                                    "returns", ESXI_APD_HANDLING_OFF_SOURCE)
    return Stall("every path down (APD)", apd, "I/O that is not a virtual machine's fails (a virtual machine's is "
                                               "retried until a path returns)", f"Misc.APDTimeout {apd:g} s",
                 f"APD handling on (Misc.APDHandlingEnable 1, the default): {ESXI_APD_TIMEOUT.source}")


def mpio_all_paths_down(pdo_remove: float, retry_interval: float) -> Stall:
    """Every path down: each request is retried after RetryInterval, finds no path, and the
    pseudo-LUN holds it PDORemovePeriod, then fails it."""
    return Stall("every path down", retry_interval + pdo_remove, "it fails to the application (the pseudo-LUN is removed)",
                 f"RetryInterval {retry_interval:g} s, then PDORemovePeriod {pdo_remove:g} s", "the paths stay down that long")


def alua_transition(change: float, esxi: bool, implicit: float | None = None) -> Stall:
    """A target port group Transitioning for `change` seconds with no other usable path: Linux
    retries the refused command every reprep delay until the transition ends (the stall is
    within that delay after it), or fails the path at scsi_dh_alua's timeout (`implicit`, the
    array's IMPLICIT TRANSITION TIME, else 60 s) if the transition lasts longer; ESXi holds it
    on the path until the transition ends."""
    failure = "an ALUA transition"
    if esxi:
        return Stall(failure, change, "it continues on the new state", f"retried on the path until the transition ends "
                                                                         f"after {change:g} s", ESXI_ALUA_RETRY_SOURCE)
    timeout = alua_transition_timeout(implicit)
    delay = ALUA_REPREP_DELAY.value or 0.0
    if not alua_transition_ends_in_time(change, implicit):
        return Stall(failure, timeout, "the path fails: the I/O goes to another path, or to no_path_retry",
                     f"the transition outlasts scsi_dh_alua's {timeout:g} s: the group is set standby",
                     ALUA_FAILOVER_TIMEOUT.source)
    return Stall(failure, change, "it continues on the new state",
                 f"requeued on the path every {delay:g} s until the transition ends after {change:g} s (within "
                 f"{delay:g} s)", ALUA_REPREP_DELAY.source)


def alua_transition_timeout(implicit: float | None) -> float:
    """How long Linux's scsi_dh_alua lets a group transition: the array's IMPLICIT TRANSITION
    TIME where it reports one, else ALUA_FAILOVER_TIMEOUT."""
    return implicit if implicit else ALUA_FAILOVER_TIMEOUT.value or 0.0


def alua_transition_ends_in_time(change: float, implicit: float | None) -> bool:
    """Whether Linux sees a transition of `change` seconds end before scsi_dh_alua gives the group
    up: one that ends as the timeout falls ends in time (the engine's order too)."""
    return change <= alua_transition_timeout(implicit)
