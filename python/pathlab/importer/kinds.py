"""The kinds of input `pathlab import` and `advise` read, in the order they are tried: how each is
recognised in the file's first 4 KiB, the reader that reads it, what it contributes to the host's
scenario, and the host stacks whose scenario it can describe."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pathlab.api import ScenarioError, regular_file
from pathlab.importer.kind import Kind

if TYPE_CHECKING:
    import pandas as pd

    from pathlab.readers.esxtop_summary import Summary

#: How much of a file is looked at to tell its kind.
HEAD_BYTES = 4096


def _esxtop(name: str) -> Summary:
    from pathlab.readers import esxtop

    return esxtop.summary(Path(name))


def _nmp_devices(name: str) -> pd.DataFrame:
    from pathlab.readers import esxcli_devices

    return esxcli_devices.read(Path(name))


def _hpp_devices(name: str) -> pd.DataFrame:
    from pathlab.importer.esxi import hpp_devices

    return hpp_devices(name)


def _paths(name: str) -> pd.DataFrame:
    from pathlab.readers import esxcli_paths

    return esxcli_paths.read(Path(name))


def _nvme(name: str) -> pd.DataFrame:
    from pathlab.readers import nvme_subsys

    return nvme_subsys.read(name)


def _folder_dump() -> re.Pattern[str]:
    from pathlab.readers.nvme_sysfs import FOLDER_DUMP

    return FOLDER_DUMP


def _nvme_sysfs(name: str) -> pd.DataFrame:
    from pathlab.readers import nvme_sysfs

    return nvme_sysfs.read(name)


def _nvme_id_ctrl(name: str) -> Any:
    from pathlab.readers import nvme_id_ctrl

    return nvme_id_ctrl.read(name)


def _powermt(name: str) -> Any:
    from pathlab.readers import powermt

    return powermt.read(name)


def _mpclaim(name: str) -> Any:
    from pathlab.readers import mpclaim

    return mpclaim.read(name)


def _mpio_settings(name: str) -> Any:
    from pathlab.readers import mpio_settings

    return mpio_settings.read(name)


def _iscsi_params(name: str) -> Any:
    from pathlab.readers import esxcli_iscsi_params

    return esxcli_iscsi_params.read(name)


def _esxi_advanced(name: str) -> Any:
    from pathlab.readers import esxcli_advanced

    return esxcli_advanced.read(name)


def _sg_rtpg(name: str) -> Any:
    from pathlab.readers import sg_rtpg

    return sg_rtpg.read(name)


def _scsi_timeout(name: str) -> Any:
    from pathlab.readers import scsi_timeout

    return scsi_timeout.read(name)


def _multipath(name: str) -> dict[str, pd.DataFrame]:
    from pathlab.readers import multipath_ll

    return multipath_ll.read(name)


def _multipath_conf(name: str) -> dict[str, pd.DataFrame]:
    from pathlab.readers import multipath_conf

    return multipath_conf.read(name)


def _iscsi_sessions(name: str) -> dict[str, pd.DataFrame]:
    from pathlab.readers import iscsi_sessions

    return iscsi_sessions.read(name)


def _iostat_rates(name: str) -> pd.DataFrame:
    from pathlab.readers import iostat

    return iostat.device_means(name)


def _diskstats_rates(name: str) -> pd.DataFrame:
    from pathlab.readers import diskstats

    return diskstats.device_means(name)


#: The inputs, by host stack, as refusals and the help of `import` and `advise` name them.
READ = ("ESXi (`esxcli storage nmp device list` or `hpp device list`, `nmp path list`, `core path list` or `hpp path "
        "list`, an "
        "`esxtop -b` capture, `esxcli iscsi adapter param get -A vmhbaN`, `esxcli system settings advanced list -o "
        "/Misc/APDTimeout`), Linux dm-multipath (`multipath -ll`, `multipath.conf`, `iscsiadm -m session -P 3`, "
        "/proc/diskstats or `iostat -x`, "
        "`sg_rtpg -e /dev/sdX`, `grep . /sys/block/sd*/device/timeout`), native NVMe (`nvme list-subsys` or `list -v`, "
        "the paths' sysfs attributes, "
        "`nvme id-ctrl`), PowerPath (`powermt display dev=all`, `rpowermt` on ESXi) or Windows MPIO (`mpclaim -s -d N`, "
        "`Get-MPIOSetting`)")

WORKLOAD = "the workload: each device's I/O rate, size and queue"

KINDS: tuple[Kind, ...] = (
    Kind("esxtop", "esxtop -b", lambda head: head.lstrip('"').startswith("(PDH-CSV"), _esxtop,
         "device queue depths, the workload (ACTV + QUED per device) and, where one path works alone under a deep "
         "queue, the array ports' capacity", ("esxi",)),
    Kind("devices", "esxcli storage nmp device list", lambda head: "Path Selection Policy Device Config" in head,
         _nmp_devices, "the devices, the SATP that claimed each and the policy in force", ("esxi",)),
    Kind("hpp-devices", "esxcli storage hpp device list", lambda head: "Path Selection Scheme" in head, _hpp_devices,
         "the devices under HPP with their scheme, and their paths when no path list is given", ("esxi",)),
    Kind("paths", "esxcli storage nmp path list, core path list, hpp path list or esxcfg-mpath -l",
         lambda head: "Runtime Name" in head, _paths,
         "the paths: adapter, target port and ALUA target port group (or NVMe ANA group) of each", ("esxi",)),
    Kind("iscsi-params", "esxcli iscsi adapter param get -A vmhbaN (or target portal param get)",
         lambda head: re.search(r"^\s*Name\s+Current\s+Default\s+Min\s+Max\s+Settable\s+Inherit\s*$", head, re.M)
         is not None, _iscsi_params,
         "an iSCSI adapter's session timers (NoopOutInterval, NoopOutTimeout, RecoveryTimeout) into its iscsi table; "
         "one file per adapter, the command line naming it", ("esxi",), repeatable=True),
    Kind("esxi-advanced", "esxcli system settings advanced list -o /Misc/APDTimeout (or /Disk/PathEvalTime)",
         lambda head: re.search(r"^\s*Path:\s*/\w+/\w+\s*$", head, re.M) is not None
         and re.search(r"^\s*Int Value:", head, re.M) is not None, _esxi_advanced,
         "Misc.APDTimeout and Disk.PathEvalTime into [host.stack] (apd_timeout, path_eval_time)", ("esxi",),
         repeatable=True),
    Kind("nvme-sysfs", "grep -r . /sys/block/nvme*c*n*/{queue_depth,ana_state,diag/*} /sys/class/nvme/nvme*/diag/*",
         lambda head: re.search(r"/sys/(?:\S*/)?(nvme\d+(c\d+n\d+)?/(queue_depth|ana_state|diag/)|nvme-subsys\d+/iopolicy"
                                r"|nvme\d+/(ctrl_loss_tmo|reconnect_delay|fast_io_fail_tmo|kato):"
                                r"|module/nvme_core/parameters/[a-z_]+:)", head) is not None
         or any(_folder_dump().match(line) for line in head.splitlines()),
         _nvme_sysfs, "per path: the controller's I/Os in flight (one snapshot, under iopolicy queue-depth) and the ANA "
         "state; failover, retry, error, reset and no-path counters as health findings; each subsystem's iopolicy; "
         "the controllers' timers (ctrl_loss_tmo, reconnect_delay, fast_io_fail_tmo, kato) and nvme_core's io_timeout",
         ("nvme",)),
    Kind("nvme-id-ctrl", "nvme id-ctrl /dev/nvmeN (text or -o json), one or more controllers",
         lambda head: "NVME Identify Controller:" in head
         or re.search(r'^\s*(?:anatt\s+:\s*\d+|"anatt"\s*:\s*\d+)', head, re.M) is not None
         or re.search(r"^\s*(?:[#$]|\S*[#$])\s*(?:sudo\s+)?nvme\s+id-ctrl\b", head, re.M) is not None,
         _nvme_id_ctrl, "each controller's ANA Transition Time (anatt, with anacap, kas, cntlid), tied to its "
         "subsystem in nvme list-subsys by subnqn and controller name: the array's ANATT, which advise --failures "
         "runs an ANA change (a controller reboot) with; and its model (mn), which the vendors' ctrl_loss_tmo rules "
         "match on", ("nvme",)),
    Kind("nvme", "nvme list-subsys, show-topology or list -v (text or -o json)",
         lambda head: "NQN=" in head or '"Subsystems"' in head or "nvme-subsys" in head, _nvme,
         "the subsystems, their controllers (the paths), transport addresses, ANA states and iopolicy (`list -v`: "
         "no state or iopolicy, and in text no ANA state), and the model where `list -v` or `list-subsys -v` prints "
         "it", ("nvme",)),
    Kind("iscsi-sessions", "iscsiadm -m session -P 3 (or -P 1)",
         lambda head: re.search(r"^\s*Current Portal:", head, re.M) is not None, _iscsi_sessions,
         "each iSCSI session's target, the portal it runs to (address:port) and its portal group; with -P 3 the SCSI "
         "host and disks it carries, so that multipath -ll's paths reach one array port per portal", ("linux",)),
    Kind("powermt", "powermt display dev=all (or rpowermt display dev=all host=…)",
         lambda head: re.search(r"^\s*Pseudo name=", head, re.M) is not None, _powermt,
         "the pseudo devices, their policy, owner SP and failover mode, and each path's adapter, array port, mode, "
         "state, queued I/Os and errors", ("powerpath",)),
    Kind("mpclaim", "mpclaim -s -d N (a disk's paths; or mpclaim -s -d, the disks and their policies)",
         lambda head: re.search(r"^\s*MPIO Disk\d+", head, re.M) is not None, _mpclaim,
         "each MPIO disk's load-balance policy and, with a disk number, its paths: state, SCSI address, weight "
         "and ALUA state", ("windows",)),
    Kind("mpio-settings", "Get-MPIOSetting, Get-MSDSMGlobalDefaultLoadBalancePolicy",
         lambda head: re.search(r"^\s*(PDORemovePeriod|PathVerificationState)\s*:", head, re.M) is not None
         or "Get-MSDSMGlobalDefaultLoadBalancePolicy" in head, _mpio_settings,
         "MPIO's timers (PDORemovePeriod: how long I/O waits with no path; RetryCount, RetryInterval and "
         "DiskTimeoutValue, which advise --failures runs) and the MSDSM's default policy",
         ("windows",)),
    Kind("multipath", "multipath -ll",
         lambda head: "hwhandler=" in head or "policy='" in head or re.search(r"\bdm-\d+\b.*,", head) is not None,
         _multipath, "the maps, their path groups with selector and priority, and each path's states", ("linux",)),
    Kind("sg-rtpg", "sg_rtpg -e /dev/sdX (sg3_utils' REPORT TARGET PORT GROUPS, extended), one or more paths",
         lambda head: re.search(r"^\s*Report target port groups:\s*$", head, re.M) is not None
         or re.search(r"^\s*(?:[#$]|\S*[#$])\s*(?:sudo\s+)?sg_rtpg\b", head, re.M) is not None, _sg_rtpg,
         "the array's implicit transition time (-e), tied to a map by the path its command line names: how long "
         "advise --failures runs an ALUA transition (a controller reboot); one file, the paths' outputs each after "
         "its command line", ("linux",)),
    Kind("scsi-timeout", "grep . /sys/block/sd*/device/timeout (or eh_timeout; a loop's `sdX SECONDS` or a `cat` "
         "of one file under its command line)",
         lambda head: re.search(r"/sys/(?:block|class/scsi_(?:device|disk|generic))/\S*/device/(?:eh_)?timeout\b"
                                r"|/sys/bus/scsi/devices/\S*/(?:eh_)?timeout\b", head) is not None, _scsi_timeout,
         "each path's SCSI command timeout, tied to its map by the path's sdX (or H:C:T:L): [host.stack] io_timeout, "
         "which a path that stops answering waits (and multipathd's checker, unless checker_timeout is set); "
         "eh_timeout read and said, not simulated", ("linux",)),
    Kind("multipath.conf", "/etc/multipath.conf",
         lambda head: re.search(r"^\s*(defaults|devices|blacklist|multipaths|overrides)\s*\{", head, re.M) is not None,
         _multipath_conf, "the settings multipath -ll does not show (failback, no_path_retry)", ("linux",)),
    Kind("iostat", "iostat -x", lambda head: re.search(r"^\s*Device\b.*\br/s\b", head, re.M) is not None,
         _iostat_rates, WORKLOAD, ("linux", "nvme")),
    Kind("diskstats", "/proc/diskstats samples",
         lambda head: re.search(r"^\s*\d+\s+\d+\s+\S+(\s+\d+){10,}\s*$", head, re.M) is not None,
         _diskstats_rates, WORKLOAD, ("linux", "nvme")),
)


def kind_of(name: str) -> Kind:
    """What a capture is, from its first 4 KiB; a folder is a copy of /sys (`bundle.files_in`
    gives a sosreport's `sys/` so)."""
    if Path(name).is_dir():
        return next(kind for kind in KINDS if kind.name == "nvme-sysfs")
    regular_file(name)
    from pathlab.readers.pasted import MAIL_QUOTE, decode

    with open(name, "rb") as f:
        head = decode(f.read(HEAD_BYTES))  # UTF-16 with a byte order mark (PowerShell's `>`), as the readers read it
    # A mail reply's quoting (`> `), which the readers take off (`pasted.unwrapped`).
    unquoted = "\n".join(MAIL_QUOTE.sub("", line) for line in head.splitlines())
    for kind in KINDS:
        if kind.recognise(head) or kind.recognise(unquoted):
            return kind
    from pathlab.importer.lookalikes import looks_like

    raise ScenarioError(name, "", f"not one of the inputs pathlab reads ({READ}); {looks_like(head)}")
