"""The failure timers `advise --failures` simulates: those in force on the host, each said as read
(the scenario's `[host.stack]` or `--set`, an imported host's multipath.conf or sysfs, with file
and line), derived (multipath-tools' hardware table for the array, the claim's `no_path_retry`)
or assumed (the stack's built-in default, with its source), and the candidates against them: the
array vendor's published timers (`vendor_practice.toml`, with the row's source) and, on NVMe,
TP4129's hold and TP8028's cross-controller reset as options. Each candidate carries the
overrides that run it and the commands that would apply it on the host's stack."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from pathlab._core import parse_duration_ns
from pathlab.advisor import stall_rule as rule
from pathlab.advisor.as_run import as_run, set_where, tree
from pathlab.advisor.failure_theory import Timers
from pathlab.advisor.nvme_vendor_timers import read_rows
from pathlab.advisor.practice import rows_for
from pathlab.advisor.vendor_table import Practice, practice_for
from pathlab.api import Scenario
from pathlab.devices import Device
from pathlab.importer.most_given import most_given
from pathlab.importer.timer_values import TimerValue, hwtable_timer
from pathlab.readers.nvme_id_ctrl import CTRATT_TBKAS

#: Each stack's timers: (the name the stack gives it, the `[host.stack]` key, the built-in value).
DM_TIMERS = (("fast_io_fail_tmo", "fast_io_fail_tmo", rule.FAST_IO_FAIL_TMO),
             ("dev_loss_tmo", "dev_loss_tmo", rule.FC_DEV_LOSS_TMO),
             ("SCSI command timeout", "io_timeout", rule.SCSI_COMMAND_TIMEOUT),
             ("polling_interval", "checker_interval", rule.POLLING_INTERVAL))
ISCSI_TIMERS = (("noop_out_interval", "noop_out_interval", rule.ISCSI_NOOP_OUT_INTERVAL),
                ("noop_out_timeout", "noop_out_timeout", rule.ISCSI_NOOP_OUT_TIMEOUT))
NVME_TIMERS = (("kato", "keep_alive_timeout", rule.NVME_KATO),
               ("io_timeout", "io_timeout", rule.NVME_IO_TIMEOUT),
               ("reconnect_delay", "reconnect_delay", rule.NVME_RECONNECT_DELAY),
               ("ctrl_loss_tmo", "controller_loss_timeout", rule.NVME_CTRL_LOSS_TMO),
               ("fast_io_fail_tmo", "fast_io_fail_tmo", rule.NVME_FAST_IO_FAIL_TMO),
               ("CQT", "command_quiesce_time", rule.NVME_CQT))
ESXI_TIMERS = (("I/O timeout (path failover)", "io_timeout", rule.ESXI_IO_TIMEOUT),
               ("Misc.APDTimeout", "apd_timeout", rule.ESXI_APD_TIMEOUT))
WINDOWS_TIMERS = (("DiskTimeoutValue", "io_timeout", rule.MPIO_DISK_TIMEOUT),
                  ("RetryCount", "retry_count", rule.MPIO_RETRY_COUNT),
                  ("RetryInterval", "retry_interval", rule.MPIO_RETRY_INTERVAL))
#: An ESXi software iSCSI adapter's session timers: esxcli's name, the adapter's `iscsi` key.
ESXI_ISCSI_TIMERS = (("NoopOutInterval", "noop_out_interval", rule.ESXI_NOOP_OUT_INTERVAL),
                     ("NoopOutTimeout", "noop_out_timeout", rule.ESXI_NOOP_OUT_TIMEOUT),
                     ("RecoveryTimeout", "recovery_timeout", rule.ESXI_RECOVERY_TIMEOUT))
#: SPDK's timers as the engine models them: I/O waits while the controllers reconnect, up to
#: ctrlr_loss_timeout_sec or the first failed reconnect past fast_io_fail_timeout_sec.
SPDK_TIMERS = (("I/O timeout (stands for the keep-alive timeout)", "io_timeout", rule.SPDK_KEEP_ALIVE),
               ("keep_alive_timeout_ms", "keep_alive_timeout", rule.SPDK_KEEP_ALIVE),
               ("reconnect_delay_sec", "reconnect_delay", rule.SPDK_RECONNECT_DELAY),
               ("ctrlr_loss_timeout_sec", "controller_loss_timeout", rule.SPDK_CTRLR_LOSS),
               ("fast_io_fail_timeout_sec", "fast_io_fail_tmo", rule.SPDK_FAST_IO_FAIL),
               ("CQT", "command_quiesce_time", rule.NVME_CQT))
STACK_TIMERS = {"linux-dm": DM_TIMERS, "linux-nvme": NVME_TIMERS, "esxi": ESXI_TIMERS, "windows": WINDOWS_TIMERS,
                "spdk": SPDK_TIMERS}
#: dm timers of the FC transport only: multipath-tools sets dev_loss_tmo on FC and SAS remote
#: ports and logs "ignoring dev_loss_tmo on iSCSI" (libmultipath/discovery.c:792).
FC_ONLY = ("dev_loss_tmo",)
#: `[host.stack]` keys that hold a count, not a time.
COUNTS = ("retry_count",)
#: Windows MPIO's timers in a vendor row (`vendor_practice.toml`), by the name Set-MPIOSetting
#: gives them: the row's setting, the `[host.stack]` key (None: the policy's `pdo_remove_period`).
MPIO_ROW = (("PDORemovePeriod", "pdo_remove_period", None), ("RetryCount", "retry_count", "retry_count"),
            ("RetryInterval", "retry_interval", "retry_interval"), ("DiskTimeoutValue", "disk_timeout", "io_timeout"))
#: Why ESXi has no vendor candidate: what was searched (sessions 15 and 18), and what is not simulated.
ESXI_UNPUBLISHED = (
    "ESXi's simulated timers (the path failover's I/O timeout, Misc.APDTimeout) have no vendor value: NetApp's "
    "vSphere 8 host settings (NetAppDocs/ontap-sanhost hu_vsphere_8.adoc, 'Recommended settings') change neither "
    "(only the guests' disk timeout, 60 s), and VMware's page gives 140 s as the default; of the ESXi iSCSI "
    "adapter settings (an adapter's `iscsi` table: NoopOutInterval, NoopOutTimeout, RecoveryTimeout, simulated), no "
    "vendor value was found in a guide to cite (HPE Nimble's 30 s NoopOut values only in a user's script); the "
    "vendor rows of an iSCSI adapter's LoginTimeout and DelayedAck (Pure's 30 s and off, vendor_practice.toml "
    "esxi-iscsi) change no stall pathlab simulates: the timer findings compare them with the adapter's listing, and "
    "Dell's PS Series TR1074 (LoginTimeout 60, DelayedAck off) was read only in an undated copy")
#: A row's MPIO settings advise --failures does not run (PathRecoveryInterval is not modelled).
MPIO_NOT_RUN = {"path_recovery_interval": "PathRecoveryInterval"}
#: An imported host's timers by the name its files give, as the `[host.stack]` key they set.
READ_AS = {"polling_interval": "checker_interval", "max_polling_interval": "max_polling_interval",
           "checker_timeout": "checker_timeout", "fast_io_fail_tmo": "fast_io_fail_tmo",
           "dev_loss_tmo": "dev_loss_tmo", "kato": "keep_alive_timeout", "io_timeout": "io_timeout", "timeout": "io_timeout",
           "reconnect_delay": "reconnect_delay", "ctrl_loss_tmo": "controller_loss_timeout",
           "RetryCount": "retry_count", "RetryInterval": "retry_interval", "DiskTimeoutValue": "io_timeout",
           "PDORemovePeriod": "pdo_remove_period", "Misc.APDTimeout": "apd_timeout", "Disk.PathEvalTime": "path_eval_time"}
#: The longest time a scenario takes (units.rs bounds every time to 100 days): `infinity` and
#: `off` are run as this, past any run's end.
FOREVER = "2000h"


@dataclass(frozen=True)
class TimerSetting:
    """One timer of a candidate: the stack's name for it, its value as the stack writes it, and
    where it comes from (`read`, `derived`, `assumed`, or `candidate`: what the candidate changes)."""

    name: str
    value: str
    provenance: str
    where: str

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "value": self.value, "provenance": self.provenance, "where": self.where}


@dataclass(frozen=True)
class TimerCandidate:
    """A setting of the failure timers: its label, why it is a candidate (its source), its timers,
    the scenario overrides that run it, the timers as the theory reads them, and the commands
    that apply it (none for the setting in force)."""

    label: str
    source: str
    settings: tuple[TimerSetting, ...]
    overrides: dict[str, Any]
    timers: Timers
    commands: tuple[str, ...] = ()


def _seconds(value: Any) -> float | None:
    """A timer as a scenario or a host's file writes it ("5s", 5, "off", "infinity") in seconds."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return None if value < 0 else float(value)
    text = str(value).strip()
    if text in ("off", "-1", "infinity"):
        return None
    try:
        return float(text)
    except ValueError:
        return parse_duration_ns(text) / 1e9


def _written(seconds: float | None, key: str = "") -> str | int:
    if key in COUNTS:
        return int(seconds or 0)
    return FOREVER if seconds is None else f"{seconds:g}s"


def in_force(scenario: Scenario, devices: Sequence[Device], timers: Sequence[TimerValue] = (),
             path: str | None = None) -> TimerCandidate:
    """The timers in force on the host of `devices` (its first device's stack), from the scenario,
    an imported host's `timers`, the hardware table, else the built-in values; on ESXi, the iSCSI
    session's of `path`'s adapter where it is a software iSCSI adapter."""
    device = devices[0]
    # The timers the run reads: the file's, its variant's and the --set overrides', each said where it was set.
    stack_table = as_run(scenario).get("host", {}).get("stack", {}) or {}
    given = {k: (v, _stack_key_where(scenario, k)) for k, v in stack_table.items()}
    iscsi = str(given.get("scsi_transport", ("fc",))[0]) == "iscsi"
    own = _own_subsystem(scenario, device) if device.stack == "linux-nvme" else None
    # a controller's sysfs timers count for its own subsystem's devices only, as ANATT and TBKAS
    read = _read_timers([t for t in timers if own is None or t.scope == "host" or t.scope in own])
    settings: list[TimerSetting] = []
    seconds: dict[str, float | None] = {}
    overrides: dict[str, Any] = {}
    handling_off = _apd_handling_off(given, timers) if device.stack == "esxi" else None
    for name, key, builtin in (*STACK_TIMERS.get(device.stack, ()), *(ISCSI_TIMERS if iscsi else ())):
        if iscsi and key in FC_ONLY:  # the engine refuses a timer the transport does not read
            continue
        if key == "apd_timeout" and handling_off is not None:  # no APD timeout: retried until a path returns
            settings.append(TimerSetting("Misc.APDHandlingEnable", "0", "read", handling_off))
            seconds[key] = None
            continue
        if key in given:
            value, where = given[key]
            if key in read and _seconds(read[key][0]) == _seconds(value):  # an imported host's: its file and line
                where = read[key][1]
            settings.append(TimerSetting(name, str(value), "read", where))
        elif key in read:
            value, where = read[key]
            settings.append(TimerSetting(name, value, "read", where))
            overrides[f"host.stack.{key}"] = _written(_seconds(value), key)
        elif device.stack == "linux-dm" and (table := hwtable_timer(name, device.array.vendor, device.array.model)):
            value, where = table
            settings.append(TimerSetting(name, value, "derived", f"multipath-tools' hardware table, {where}"))
            overrides[f"host.stack.{key}"] = _written(_seconds(value))
        else:
            value = builtin.text("")
            settings.append(TimerSetting(name, value, "assumed", f"the built-in default, {builtin.source}"))
        seconds[key] = _seconds(value)
    extra = ("max_polling_interval", "checker_timeout", *(("replacement_timeout",) if iscsi else ()))
    for key in extra:  # multipathd's, and open-iscsi's own replacement_timeout, where read
        if device.stack == "linux-dm" and (key in given or key in read):
            value, where = given.get(key) or read[key]
            settings.append(TimerSetting(key, str(value), "read", where))
            seconds[key] = _seconds(value)
            if key in read and key not in given:
                overrides[f"host.stack.{key}"] = _written(_seconds(value))
    if device.stack == "esxi" and (adapter := _esxi_iscsi_adapter(scenario, path)) is not None:
        iscsi = True
        listed = {(t.scope, t.setting): t for t in timers}  # an imported host's listing of the adapter
        for name, key, builtin in ESXI_ISCSI_TIMERS:
            if key in adapter["iscsi"]:
                value = adapter["iscsi"][key]
                where = f"{scenario.file}, the adapter {adapter['name']}'s iscsi.{key}"
                if (one := listed.get((adapter["name"], name))) is not None and _seconds(one.value) == _seconds(value):
                    where = one.where
                settings.append(TimerSetting(name, str(value), "read", where))
            else:
                value = builtin.text("")
                settings.append(TimerSetting(name, value, "assumed", f"the built-in default, {builtin.source}"))
            seconds[key] = _seconds(value)
    if device.stack == "windows" and stack_table.get("path_verify"):  # msdsm's path verification
        value, where = given.get("path_verification_period", (None, ""))
        settings.append(TimerSetting("PathVerifyEnabled", "1", "read", given["path_verify"][1]))
        if value is None:
            builtin = rule.MPIO_PATH_VERIFICATION_PERIOD
            value, how, where = builtin.text(""), "assumed", f"the built-in default, {builtin.source}"
        else:
            how = "read"
        settings.append(TimerSetting("PathVerificationPeriod", str(value), how, where))
        seconds["path_verification_period"] = _seconds(value)
    if device.stack == "linux-dm":  # multipathd's own, where not read (config.c:960; propsel.c:637)
        seconds.setdefault("max_polling_interval", (seconds.get("checker_interval") or 0) * (rule.MAX_POLLING_FACTOR.value or 0))
        seconds.setdefault("checker_timeout", seconds.get("io_timeout"))
    _fast_off(seconds, overrides)
    retry = "fail"
    if device.stack == "windows":  # msdsm's PDORemovePeriod is the policy's
        pdo = device.policy.get("pdo_remove_period", rule.MPIO_PDO_REMOVE_PERIOD.value)
        given_pdo = "pdo_remove_period" in device.policy.given
        where = read["pdo_remove_period"][1] if "pdo_remove_period" in read else f"{scenario.file}, the device's policy"
        settings.append(TimerSetting("PDORemovePeriod", str(pdo), "read" if given_pdo else "assumed",
                                     where if given_pdo else f"the built-in default, {rule.MPIO_PDO_REMOVE_PERIOD.source}"))
        seconds["pdo_remove_period"] = float(pdo)
    if device.stack == "linux-dm":
        retry = str(device.policy.get("no_path_retry", "fail"))
        how = "read" if "no_path_retry" in device.policy.given else "derived"
        where = f"{scenario.file}, the device's policy" if how == "read" else \
            "the claim (multipath-tools' hardware table, else fail)"
        settings.append(TimerSetting("no_path_retry", retry, how, where))
    tbkas = False
    if device.stack in ("linux-nvme", "spdk"):
        settings += _anatt(scenario, device, timers, seconds)
        keep_alive, tbkas = _traffic_based_keep_alive(scenario, device, timers)
        settings.append(keep_alive)
    if device.stack in ("linux-dm", "esxi"):
        settings += _implicit_transition_time(scenario, device, timers, seconds)
    hold = stack_table.get("tp4129_hold")
    ccr = bool(stack_table.get("ccr", False))
    timers_run = Timers(seconds, retry, int(hold) if hold else None, ccr, iscsi, traffic_based_keep_alive=tbkas)
    return TimerCandidate("in force", "the host's own", tuple(settings), overrides, timers_run)


def _anatt(scenario: Scenario, device: Device, timers: Sequence[TimerValue], seconds: dict[str, float | None]
           ) -> list[TimerSetting]:
    """The ANATT of the device's own subsystem, which its ANA change lasts (none where neither
    `nvme id-ctrl` nor the scenario gives it): the longest that `nvme id-ctrl` printed for the
    subsystem or one of its controllers (as the device's listing names them; every one read
    where the scenario keeps no listing), else the scenario's array's (or its controllers'
    longest). Another subsystem's ANATT says nothing of this device's: where only others' were
    read, the array's value (the longest of theirs, as imported) is said assumed, not read."""
    own = _own_subsystem(scenario, device)
    read = [t for t in timers if t.setting == "anatt" and (own is None or t.scope in own)]
    if read:
        longest = max(read, key=lambda t: int(t.value))
        seconds["anatt"] = float(longest.value)
        return [TimerSetting("ANATT", longest.value, "read", longest.where)]
    i, array = _array_as_run(scenario, device)
    given = [(str(c["anatt"]), f"arrays.{i}.controllers.{j}.anatt",
              f"[[arrays]] {array['name']} controller {c.get('name')}'s anatt")
             for j, c in enumerate(array.get("controllers", [])) if "anatt" in c]
    given += [(str(array["anatt"]), f"arrays.{i}.anatt", f"[[arrays]] {array['name']} anatt")] \
        if "anatt" in array else []
    if not given:
        return []
    value, key, said = max(given, key=lambda g: _seconds(g[0]) or 0.0)
    seconds["anatt"] = _seconds(value)
    others = [t for t in timers if t.setting == "anatt"]  # read, but none of the device's own subsystem
    if others and set_where(scenario, key) is None:
        # The import wrote the longest of the subsystems read as the array's: another subsystem's
        # ANATT says nothing of this device's, yet the run changes its groups that long: assumed, said.
        other = max(others, key=lambda t: int(t.value))
        return [TimerSetting("ANATT", value, "assumed",
                             f"the array's ({scenario.file}, {said}), another subsystem's ({other.where}): no "
                             f"`nvme id-ctrl` of this device's subsystem's controllers was read "
                             f"({', '.join(sorted(own or ()))}); one of theirs would settle it")]
    return [TimerSetting("ANATT", value, "read", _where(scenario, key, said))]


def _stack_key_where(scenario: Scenario, key: str) -> str:
    """Where `[host.stack] key` of the run was set: an override or the variant, else the file."""
    said = set_where(scenario, f"host.stack.{key}")
    if said is None:
        return f"{scenario.file}, [host.stack] {key}"
    # The whole table set at once (`--set host.stack={...}`): which of its keys this is.
    return f"{said} (its {key})" if said == set_where(scenario, "host.stack") else said


def _own_subsystem(scenario: Scenario, device: Device) -> set[str] | None:
    """The device's NVMe subsystem as its listing printed it (`listed`): its NQN and its paths'
    controllers (`nvme53`), the scopes `nvme id-ctrl`'s timers are read for; None where the
    scenario keeps no listing of the device."""
    for d in as_run(scenario).get("devices", []):
        if device.name in (d.get("name"), f"{d.get('host')}/{d.get('name')}"):
            listed = d.get("listed", {})
            nqn = listed.get("device", {}).get("nqn")
            controllers = {str(p["controller"]) for p in listed.get("paths", {}).values() if "controller" in p}
            return ({str(nqn)} if nqn else set()) | controllers or None
    return None


def _traffic_based_keep_alive(scenario: Scenario, device: Device, timers: Sequence[TimerValue]
                              ) -> tuple[TimerSetting, bool]:
    """Whether the device's controllers advertise traffic-based keep-alive (CTRATT bit 6), which
    moves the keep-alive's detection and makes TP4129's hold 3 × KATO: read where `nvme id-ctrl`
    printed `ctratt` (any controller that advertises it: the engine's array table has the same),
    else the scenario's array (or a controller of it), else assumed not. Only the device's own
    subsystem's controllers count, as for ANATT."""
    own = _own_subsystem(scenario, device)
    read = [t for t in timers if t.setting == "ctratt" and (own is None or t.scope in own)]
    if read:
        one = next((t for t in read if int(t.value, 16) & CTRATT_TBKAS), read[0])
        tbkas = bool(int(one.value, 16) & CTRATT_TBKAS)
        return TimerSetting("TBKAS", "1" if tbkas else "0", "read", f"{one.where}: ctratt {one.value}"), tbkas
    i, array = _array_as_run(scenario, device)
    given = [(bool(c["traffic_based_keep_alive"]),
              _where(scenario, f"arrays.{i}.controllers.{j}.traffic_based_keep_alive",
                     f"[[arrays]] {array['name']} controller {c.get('name')}'s traffic_based_keep_alive"))
             for j, c in enumerate(array.get("controllers", [])) if "traffic_based_keep_alive" in c]
    if "traffic_based_keep_alive" in array:
        given.append((bool(array["traffic_based_keep_alive"]),
                      _where(scenario, f"arrays.{i}.traffic_based_keep_alive",
                             f"[[arrays]] {array['name']} traffic_based_keep_alive")))
    if given:
        tbkas, where = next((g for g in given if g[0]), given[0])
        return TimerSetting("TBKAS", "1" if tbkas else "0", "read", where), tbkas
    return TimerSetting("TBKAS", "0", "assumed", f"not advertised: {rule.NVME_TBKAS.source}"), False


def _implicit_transition_time(scenario: Scenario, device: Device, timers: Sequence[TimerValue],
                              seconds: dict[str, float | None]) -> list[TimerSetting]:
    """The array's IMPLICIT TRANSITION TIME, which an ALUA transition lasts (none where neither a
    reader nor the scenario gives it): the longest `sg_rtpg` read of a map on the device's own
    array (each read is scoped to its map), else the scenario's array's."""
    own_maps = {d.name for d in scenario.devices if d.array.name == device.array.name}
    read = [t for t in timers if t.setting == "implicit_transition_time" and t.scope in own_maps]
    if read:
        longest = max(read, key=lambda t: _seconds(t.value) or 0.0)
        seconds["implicit_transition_time"] = _seconds(longest.value)
        return [TimerSetting("implicit transition time", longest.value, "read", longest.where)]
    i, array = _array_as_run(scenario, device)
    if "implicit_transition_time" not in array:
        return []
    value = str(array["implicit_transition_time"])
    seconds["implicit_transition_time"] = _seconds(value)
    return [TimerSetting("implicit transition time", value, "read",
                         _where(scenario, f"arrays.{i}.implicit_transition_time",
                                f"[[arrays]] {array['name']} implicit_transition_time"))]


def _array_as_run(scenario: Scenario, device: Device) -> tuple[int, dict[str, Any]]:
    """The device's `[[arrays]]` table as the run reads it (`--set` and the variant applied) and
    its index; an empty table where none is named so."""
    arrays = as_run(scenario).get("arrays", [])
    return next(((i, a) for i, a in enumerate(arrays) if a.get("name") == device.array.name), (-1, {}))


def _where(scenario: Scenario, key: str, said: str) -> str:
    """Where the scenario value at dotted `key` was read: the override or variant that set it,
    else the file's table `said` names."""
    return set_where(scenario, key) or f"{scenario.file}, {said}"


def _esxi_iscsi_adapter(scenario: Scenario, path: str | None) -> dict[str, Any] | None:
    """The adapters table of `path`'s adapter (its runtime name's first part; in a cluster
    `HOST/NAME`, the adapter of that host's `[host]` or `[[hosts]]` table) if it is an ESXi iSCSI
    adapter (it has an `iscsi` table); without a path, the first host's first such adapter."""
    values = as_run(scenario)
    hosts = [values.get("host", {}), *values.get("hosts", [])]
    host_name, _, name = path.split(":")[0].rpartition("/") if path else ("", "", "")
    host = next((h for h in hosts if h.get("name") == host_name), hosts[0]) if host_name else hosts[0]
    adapters = [a for a in host.get("adapters", []) if isinstance(a.get("iscsi"), dict)]
    return next((a for a in adapters if not name or a.get("name") == name), None)


def _fast_off(seconds: dict[str, float | None], overrides: dict[str, Any]) -> None:
    """fast_io_fail_tmo `off` runs as a hold past dev_loss_tmo (the engine's way of writing it)."""
    if "fast_io_fail_tmo" in seconds and seconds["fast_io_fail_tmo"] is None and "host.stack.fast_io_fail_tmo" in overrides:
        loss = seconds.get("dev_loss_tmo")
        overrides["host.stack.fast_io_fail_tmo"] = FOREVER if loss is None else f"{loss + 1:g}s"


def _apd_handling_off(given: dict[str, tuple[Any, str]], timers: Sequence[TimerValue]) -> str | None:
    """Where APD handling is said to be off (`[host.stack] apd_handling = false`, with the
    listing's line where an imported host's read it), None where it is on."""
    if "apd_handling" not in given or given["apd_handling"][0] is not False:
        return None
    read = next((t.where for t in timers if t.setting == "Misc.APDHandlingEnable" and t.value == "0"), None)
    return read or given["apd_handling"][1]


def _read_timers(timers: Sequence[TimerValue]) -> dict[str, tuple[str, str]]:
    """An imported host's timers by `[host.stack]` key, where the file and line of the value run
    are said. The engine runs one value per host: the one most maps or controllers give, but for
    `ctrl_loss_tmo` the longest (a namespace's I/O waits while any of its controllers may return:
    `nvme_available_path`); where they differ, how many give another value is said."""
    by_key: dict[str, list[TimerValue]] = {}
    for t in timers:
        if t.setting in READ_AS and t.value and not (t.setting == "kato" and t.value == "0"):  # 0: a discovery controller
            by_key.setdefault(READ_AS[t.setting], []).append(t)
    out = {}
    for key, values in by_key.items():
        if key == "controller_loss_timeout":
            run = max(values, key=lambda v: math.inf if (s := _seconds(v.value)) is None else s).value
        else:
            run = most_given(values, lambda v: v.value)[0].value
        first = next(v for v in values if v.value == run)
        others = sum(v.value != run for v in values)
        why = "the longest: I/O waits for any controller" if key == "controller_loss_timeout" else "the most give"
        out[key] = (run, first.where + (f" ({others} of {len(values)} give another value; the host runs one, {why})"
                                         if others else ""))
    return out


def candidates(scenario: Scenario, devices: Sequence[Device], timers: Sequence[TimerValue] = (),
               path: str | None = None) -> tuple[list[TimerCandidate], list[str]]:
    """The setting in force first (`path`: the path the failures take), then the vendor's published
    timers for the host's array where they differ, then (NVMe) TP4129's hold and the hold with CCR
    (an array of two controllers or more)."""
    now = in_force(scenario, devices, timers, path)
    found = [now]
    device = devices[0]
    if device.stack == "linux-dm":
        found += _dm_vendor(now, device, scenario) + _scsi_timeout_vendor(now, device)
    elif device.stack == "windows":
        found += _mpio_vendor(now, device, scenario)
    if device.stack in ("linux-nvme", "spdk"):
        found += _nvme_vendor(now, device, timers, _own_subsystem(scenario, device))
        array: dict[str, Any] = next((a for a in as_run(scenario).get("arrays", []) if a.get("name") == device.array.name), {})
        found += _tp4129(now, len(array.get("controllers", [])) >= 2, device.stack)
    return found, _agreeing(device, found)


def _agreeing(device: Device, found: Sequence[TimerCandidate]) -> list[str]:
    """What to say when no vendor row became a candidate: the rows whose timers are those in
    force, or that the vendor publishes none for this array and stack."""
    timers = {"fast_io_fail_tmo", "dev_loss_tmo", "no_path_retry", "ctrl_loss_tmo", *(r for _, r, _ in MPIO_ROW)}
    rows = [r for r in rows_for(device) if set(r.setting.given()) & timers]
    rows += _scsi_timeout_rows(device)
    if any(c.label in (f"{r.vendor} {r.model}", _scsi_label(r)) for c in found for r in rows):
        return []
    if rows:
        return [f"{r.vendor} {r.model}'s published timers are those in force ({r.source})" for r in rows]
    return [f"no vendor row publishes failure timers for {device.array.vendor},{device.array.model} on this stack "
            "(vendor_practice.toml)", *((ESXI_UNPUBLISHED,) if device.stack == "esxi" else ())]


def _changed(now: TimerCandidate, label: str, source: str, values: dict[str, tuple[str, str, float | None]],
             retry: str | None, commands: tuple[str, ...], policy_keys: Sequence[str] = ()) -> TimerCandidate:
    """`now` with `values` (stack name -> [host.stack] key, value as written, seconds) and
    `no_path_retry` changed."""
    settings = [s for s in now.settings if s.name not in values and not (retry is not None and s.name == "no_path_retry")]
    overrides = dict(now.overrides)
    seconds = dict(now.timers.seconds)
    for name, (key, written, secs) in values.items():
        if key == "fast_io_fail_tmo" and "replacement_timeout" in seconds:  # iSCSI's own, given: multipathd would set it
            key = "replacement_timeout"
        settings.append(TimerSetting(name, written, "candidate", source))
        overrides[f"host.stack.{key}"] = _written(secs, key)
        seconds[key] = secs
    if retry is not None:
        settings.append(TimerSetting("no_path_retry", retry, "candidate", source))
        for key in policy_keys:
            overrides[key] = int(retry) if retry.isdigit() else retry
    _fast_off(seconds, overrides)
    timers = replace(now.timers, seconds=seconds, no_path_retry=retry or now.timers.no_path_retry)
    return TimerCandidate(label, source, tuple(settings), overrides, timers, commands)


def _policy_keys(scenario: Scenario, param: str = "no_path_retry") -> list[str]:
    """Where a scenario writes `param` of each device's policy: its own `[[devices]] policy`, else `[policy]`."""
    written = tree(scenario).get("devices", [])
    own = [f"devices.{i}.policy.{param}" for i, d in enumerate(written) if isinstance(d.get("policy"), dict)]
    return own or [f"policy.{param}"]


def _dm_vendor(now: TimerCandidate, device: Device, scenario: Scenario) -> list[TimerCandidate]:
    in_force = {s.name: s.value for s in now.settings}
    found = []
    for row in rows_for(device):
        said = row.setting.given()
        values = {name: (key, str(said[name]), _seconds(said[name])) for name, key, _ in DM_TIMERS[:2]
                  if name in said and _seconds(said[name]) != _seconds(in_force.get(name, ""))}
        retry = str(said["no_path_retry"]) if "no_path_retry" in said else None
        retry = retry if retry is not None and retry != in_force.get("no_path_retry") else None
        if not values and retry is None:
            continue
        lines = [f"        {name} {v[1]}" for name, v in values.items()] + \
                ([f"        no_path_retry {retry}"] if retry is not None else [])
        stanza = "\n".join(["devices {", "    device {", f'        vendor "{device.array.vendor}"',
                            f'        product "{device.array.model}"', *lines, "    }", "}"])
        commands = (f"# /etc/multipath.conf: {row.vendor} {row.model}'s timers ({row.source})", stanza,
                    "multipathd reconfigure")
        found.append(_changed(now, f"{row.vendor} {row.model}", f"{row.source} ({row.date})", values, retry, commands,
                              _policy_keys(scenario)))
    return found


def _scsi_timeout_rows(device: Device) -> list[Practice]:
    """The vendor's published SCSI disk timeout for a dm-multipath device's array (a udev rule's)."""
    return practice_for(device.array.vendor, device.array.model, "linux-scsi") if device.stack == "linux-dm" else []


def _scsi_label(row: Practice) -> str:
    return f"{row.vendor} {row.model} (device/timeout)"


def _scsi_timeout_vendor(now: TimerCandidate, device: Device) -> list[TimerCandidate]:
    """The vendor's SCSI disk timeout (`device/timeout`, which a lost command waits and
    multipathd's checker too unless checker_timeout is set) where it differs from the one in force."""
    in_force = {s.name: s.value for s in now.settings}
    found = []
    for row in _scsi_timeout_rows(device):
        value = row.setting.device_timeout
        if value is None or _seconds(value) == _seconds(in_force.get("SCSI command timeout", "")):
            continue
        commands = (f"# /etc/udev/rules.d/99-{row.vendor.split()[0].lower()}.rules: {row.vendor} {row.model}'s SCSI "
                    f"disk timeout ({row.source})", row.command.strip(), "udevadm control --reload-rules && udevadm "
                                                                          "trigger --subsystem-match=block")
        candidate = _changed(now, _scsi_label(row), f"{row.source} ({row.date})",
                             {"SCSI command timeout": ("io_timeout", f"{value}s", float(value))}, None, commands)
        if "checker_timeout" not in in_force:  # the checker waits the device's timeout (propsel.c)
            seconds = {**candidate.timers.seconds, "checker_timeout": float(value)}
            candidate = replace(candidate, timers=replace(candidate.timers, seconds=seconds))
        found.append(candidate)
    return found


def _mpio_vendor(now: TimerCandidate, device: Device, scenario: Scenario) -> list[TimerCandidate]:
    """The vendor's published MPIO timers where they differ from those in force: RetryCount,
    RetryInterval and the disk timeout in `[host.stack]`, PDORemovePeriod in the policy; its path
    verification settings are applied by the command but not run (said in the source)."""
    in_force = {s.name: s.value for s in now.settings}
    found = []
    for row in rows_for(device):
        said = row.setting.given()
        changed = {name: (setting, key, said[setting]) for name, setting, key in MPIO_ROW
                   if setting in said and _seconds(said[setting]) != _seconds(in_force.get(name, ""))}
        verify = bool(said.get("path_verify_enabled")) and "PathVerifyEnabled" not in in_force
        if not changed and not verify:
            continue
        source = f"{row.source} ({row.date})"
        values: dict[str, tuple[str, str, float | None]] = {
            name: (key, str(v), float(v)) for name, (_, key, v) in changed.items() if key is not None}
        unrun = [f"{MPIO_NOT_RUN[k]} {int(said[k])}" for k in MPIO_NOT_RUN if k in said]
        commands = (f"# {row.vendor} {row.model}'s MPIO timers ({row.source})", row.command.strip(),
                    *((f"# applied, not run here: {', '.join(unrun)} (PathRecoveryInterval is not modelled)",)
                      if unrun else ()))
        candidate = _changed(now, f"{row.vendor} {row.model}", source, values, None, commands)
        if verify:  # path verification on, at the period in force (Microsoft's 30 s unless set)
            period = rule.MPIO_PATH_VERIFICATION_PERIOD.value
            settings = (*candidate.settings, TimerSetting("PathVerifyEnabled", "1", "candidate", source))
            overrides = {**candidate.overrides, "host.stack.path_verify": True}
            timers = replace(candidate.timers, seconds={**candidate.timers.seconds, "path_verification_period": period})
            candidate = replace(candidate, settings=settings, overrides=overrides, timers=timers)
        if "PDORemovePeriod" in changed:
            pdo = float(changed["PDORemovePeriod"][2])
            settings = (*(s for s in candidate.settings if s.name != "PDORemovePeriod"),
                        TimerSetting("PDORemovePeriod", f"{pdo:g}", "candidate", source))
            overrides = {**candidate.overrides, **{k: int(pdo) for k in _policy_keys(scenario, "pdo_remove_period")}}
            timers = replace(candidate.timers, seconds={**candidate.timers.seconds, "pdo_remove_period": pdo})
            candidate = replace(candidate, settings=settings, overrides=overrides, timers=timers)
        found.append(candidate)
    return found


def _nvme_vendor(now: TimerCandidate, device: Device, timers: Sequence[TimerValue],
                 own: set[str] | None = None) -> list[TimerCandidate]:
    """The vendor's `ctrl_loss_tmo` for the device's array (a scenario's array named by its model),
    or for the models and transports an imported host's files give its controllers: those of the
    device's own subsystem (`own`, as for ANATT and TBKAS), every one where no listing names them."""
    in_force = {s.name: s.value for s in now.settings}
    found = []
    mine = [t for t in timers if own is None or t.scope in own]
    for row in dict.fromkeys([*rows_for(device), *read_rows(mine)]):
        loss = row.setting.given().get("ctrl_loss_tmo")
        if loss is None or _seconds(loss) == _seconds(in_force.get("ctrl_loss_tmo", "")):
            continue
        commands = (f"# {row.vendor}'s udev rule ({row.source})", row.command.strip())
        found.append(_changed(now, f"{row.vendor} {row.model}", f"{row.source} ({row.date})",
                              {"ctrl_loss_tmo": ("controller_loss_timeout", str(loss), _seconds(loss))}, None, commands))
    return found


#: Where each NVMe host retries a lost controller's I/O at once, which TP4129's hold would change.
RETRIED_AT_ONCE = {"linux-nvme": "no Linux setting: drivers/nvme/host/multipath.c nvme_failover_req retries a lost "
                                 "controller's I/O at once",
                   "spdk": "no SPDK option: bdev_nvme as pathlab models it retries a lost controller's I/O on another "
                           "path at once"}


def _tp4129(now: TimerCandidate, controllers: bool, stack: str) -> list[TimerCandidate]:
    """TP4129's hold of 2 × KATO + CQT (3 × where the controller advertises traffic-based
    keep-alive), alone and (where the array has another controller to reset the lost one) ended
    by CCR (TP8028): options no Linux release has (`nvme_failover_req` retries at once), said so
    in their commands."""
    if now.timers.tp4129_hold is not None:
        return []
    out = []
    multiple = 3 if now.timers.traffic_based_keep_alive else 2
    options = [(f"TP4129 hold {multiple} × KATO + CQT", False, rule.TP4129)]
    if controllers:
        options.append(("TP4129 hold, ended by CCR", True, rule.TP4129 + "; NVM Express TP8028 (cross-controller reset, "
                                                                          "not merged)"))
    for label, ccr, source in options:
        settings = (*now.settings, TimerSetting("tp4129_hold", str(multiple), "candidate", source),
                    *((TimerSetting("ccr", "yes", "candidate", source),) if ccr else ()))
        overrides = {**now.overrides, "host.stack.tp4129_hold": multiple, **({"host.stack.ccr": True} if ccr else {})}
        commands = (f"# {RETRIED_AT_ONCE[stack]}; this needs a host driver with TP4129" + (" and TP8028" if ccr else ""),)
        out.append(TimerCandidate(label, source, settings, overrides, replace(now.timers, tp4129_hold=multiple, ccr=ccr),
                                  commands))
    return out
