"""Advice on a host's failure timers, from its own files only (`Host.timers`: multipath.conf or
`multipathd show config`, the maps' features, NVMe sysfs; ESXi's in `esxi_timer_findings.py`): what each kind of failure would cost
the application here, by `stall_rule.py`, with the file and line of every value it rests on;
timers against the array vendor's published practice (`vendor_practice.toml`); and what no file
gives, with the built-in default it would be and what would settle it. A stall is estimated only
where the host gives a timer it rests on; the built-in values it also needs are said as assumed."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pathlab.advisor import stall_rule as rule
from pathlab.advisor.nvme_vendor_timers import ctrl_loss_practice
from pathlab.advisor.practice import rows_for
from pathlab.devices import Device
from pathlab.finding import Finding
from pathlab.importer.timer_values import HWTABLE_SOURCE, TimerValue, hwtable_timer
from pathlab.readers.nvme_id_ctrl import ANACAP_CHANGE, CTRATT_TBKAS

#: What would settle a timer no file gives, by stack.
SETTLE_DM = "multipath.conf or `multipathd show config` would settle it"
SETTLE_SCSI_TIMEOUT = "/sys/block/sdX/device/timeout would settle it"
SETTLE_NVME = "`grep -r . /sys/class/nvme/nvme*/{kato,ctrl_loss_tmo,reconnect_delay,fast_io_fail_tmo}` would settle it"
SETTLE_NVME_IO = "/sys/module/nvme_core/parameters/io_timeout would settle it"
#: A map's timers, as `timer_values.dm_timers` gives them.
DM_DEVICE_TIMERS = ("no_path_retry", "queue_if_no_path", "fast_io_fail_tmo", "dev_loss_tmo")
#: How many devices a finding names before "and N more".
NAMED = 3


@dataclass(frozen=True)
class Value:
    """A timer in force: its value, and where it was read or which built-in value it is."""

    value: str
    where: str
    read: bool

    @property
    def said(self) -> str:
        return f"{self.value} ({'read at ' if self.read else ''}{self.where})"


def timer_findings(stack: str, timers: Sequence[TimerValue], devices: Sequence[Device]) -> list[Finding]:
    """The timer findings of a host of `stack` (linux, nvme, esxi: `esxi_timer_findings.py`)."""
    if stack == "linux":
        return _dm(_read(timers), devices)
    if stack == "nvme":
        return _nvme(_read(timers))
    if stack == "esxi":
        from pathlab.advisor.esxi_timer_findings import esxi_timer_findings

        return esxi_timer_findings(timers, devices)
    return []


#: The timers read, by what each applies to and its setting (the last read wins): a host has
#: thousands of maps, each looked up by name.
Read = dict[tuple[str, str], Value]


def _read(timers: Iterable[TimerValue]) -> Read:
    return {(t.scope, t.setting): Value(t.value, t.where, True) for t in timers}


def _given(timers: Read, scope: str, setting: str) -> Value | None:
    return timers.get((scope, setting))


def _or_builtin(value: Value | None, builtin: rule.Builtin) -> Value:
    return value or Value(builtin.text(""), f"assumed: the built-in default, {builtin.source}", False)


def _names(devices: Sequence[str]) -> str:
    shown = ", ".join(devices[:NAMED])
    return shown + (f" and {len(devices) - NAMED} more" if len(devices) > NAMED else "")


def _dm(timers: Read, devices: Sequence[Device]) -> list[Finding]:
    polling = _polling(timers)
    found: list[Finding] = []
    not_given: dict[str, str] = {}
    # Each map's paths' command timeout as sysfs gives it (the last path read of the map).
    timeouts = {d.name: v for d in devices if (v := _given(timers, d.name, "timeout")) is not None}
    if timeouts:  # maps of one timeout said once
        by_value: dict[str, list[str]] = {}
        for name, v in timeouts.items():
            by_value.setdefault(v.value, []).append(name)
        every = len(by_value) == 1 and len(timeouts) == len(devices)
        for names in by_value.values():
            found.append(_path_hang("Every map" if every else _names(names), timers, polling, timeouts[names[0]]))
    elif any(_given(timers, "host", s) for s in ("polling_interval", "max_polling_interval", "checker_timeout")):
        found.append(_path_hang("Every map", timers, polling, None))
    else:  # the hung path's stall rests on the command timeout, which no capture gives either
        not_given["polling_interval"] = f"the built-in default would be {rule.POLLING_INTERVAL.text('')} " \
                                        f"({rule.POLLING_INTERVAL.source})"
    # Maps of one array with the same values are said once (the first map's lines are cited).
    groups: dict[tuple[str, str, tuple[str | None, ...]], list[Device]] = {}
    for d in devices:
        values = tuple((v.value if (v := _given(timers, d.name, s)) else None) for s in (*DM_DEVICE_TIMERS, "timeout"))
        groups.setdefault((d.array.vendor, d.array.model, values), []).append(d)
    for (vendor, model, _), members in groups.items():
        given = {s: _given(timers, members[0].name, s) for s in DM_DEVICE_TIMERS}
        scope = f"{_names([d.name for d in members])} ({vendor},{model})"
        found += _all_paths_down(scope, given, polling, vendor, model, not_given)
        found += _link_down(scope, given, members[0], not_given)
        found += _timeout_practice(scope, members[0], timeouts.get(members[0].name))
    if not_given:
        found.append(Finding("Failure timers no capture gives: " + ", ".join(not_given),
                             "; ".join(f"{k}: {v}" for k, v in not_given.items()) + f"; {SETTLE_DM}"))
    return found


def _path_hang(scope: str, timers: Read, polling: Value, timeout: Value | None) -> Finding:
    """A path that stops answering: its command timeout (read, else the built-in one said with
    the file that would settle it) against multipathd's checker, whose timeout is the device's
    own unless `checker_timeout` is set (propsel.c select_checker_timeout)."""
    command = timeout or Value(rule.SCSI_COMMAND_TIMEOUT.text(""), f"assumed: {rule.SCSI_COMMAND_TIMEOUT.source}; "
                                                                    f"{SETTLE_SCSI_TIMEOUT}", False)
    checker = _given(timers, "host", "checker_timeout") or (
        Value(command.value, f"the device's timeout, {rule.CHECKER_TIMEOUT.source}", False) if timeout
        else _or_builtin(None, rule.CHECKER_TIMEOUT))
    max_polling = _given(timers, "host", "max_polling_interval") or Value(
        f"{float(polling.value) * float(rule.MAX_POLLING_FACTOR.value or 0):g}",
        f"assumed: {rule.MAX_POLLING_FACTOR.text('')} × polling_interval, {rule.MAX_POLLING_FACTOR.source}", False)
    stall = rule.dm_path_hang(float(command.value), float(max_polling.value), float(checker.value))
    return Finding(f"{scope}: {stall.failure} stalls I/O for about {stall.seconds:g} s, then {stall.then}",
                   f"{stall.rule}; the command timeout (device/timeout) {command.said}; polling_interval "
                   f"{polling.said}; max_polling_interval {max_polling.said}; checker_timeout {checker.said}; "
                   f"assumes {stall.assumes}")


def _polling(timers: Read) -> Value:
    """polling_interval in force: read, else a quarter of a max_polling_interval read
    (config.c:963), else the built-in default."""
    given, longest = _given(timers, "host", "polling_interval"), _given(timers, "host", "max_polling_interval")
    if given is None and longest is not None:
        return Value(f"{max(1, int(longest.value) // 4)}", f"assumed: max_polling_interval {longest.value} / 4, "
                     f"{rule.MULTIPATH_TOOLS} libmultipath/config.c:963", False)
    return _or_builtin(given, rule.POLLING_INTERVAL)


def _all_paths_down(scope: str, given: dict[str, Value | None], polling: Value, vendor: str, model: str,
                    not_given: dict[str, str]) -> list[Finding]:
    retry, queueing = given["no_path_retry"], given["queue_if_no_path"]
    if retry is not None and retry.value:
        stall = rule.dm_all_paths_down(retry.value, float(polling.value))
        hangs = "hangs I/O until a path returns" if stall.seconds is None else \
            f"holds I/O for about {stall.seconds:g} s, then {stall.then}" if stall.seconds else "fails I/O at once"
        return [Finding(f"{scope}: {stall.failure} {hangs}: no_path_retry {retry.value}",
                        f"no_path_retry {retry.said}" + (f"; polling_interval {polling.said}; {stall.rule}" if stall.seconds
                                                         else "") + f"; assumes {stall.assumes}")]
    table = _hwtable_retry(vendor, model)
    builtin = f"the built-in hardware table would set {table} ({HWTABLE_SOURCE})" if table else \
        f"the built-in default would be {rule.NO_PATH_RETRY} ({rule.NO_PATH_RETRY_SOURCE})"
    if queueing is not None and queueing.value == "yes":
        return [Finding(f"{scope}: every path down holds I/O, until a path returns (no_path_retry queue) or for "
                        f"no_path_retry × polling_interval: not determined",
                        f"queue_if_no_path {queueing.said}; {builtin}; {SETTLE_DM}")]
    if queueing is not None:
        return [Finding(f"{scope}: every path down fails I/O at once: the map does not queue",
                        f"queue_if_no_path {queueing.said}: no_path_retry fail, or its retries have run out")]
    not_given.setdefault("no_path_retry", builtin)
    return []


def _link_down(scope: str, given: dict[str, Value | None], device: Device, not_given: dict[str, str]) -> list[Finding]:
    vendor, model = device.array.vendor, device.array.model
    fast, loss = given["fast_io_fail_tmo"], given["dev_loss_tmo"]
    practice = _practice(device, given)
    if fast is None and loss is None:
        table = hwtable_timer("fast_io_fail_tmo", vendor, model)
        not_given.setdefault("fast_io_fail_tmo", f"the built-in hardware table would set {table[0]} ({table[1]})" if table
                             else f"the built-in default would be {rule.FAST_IO_FAIL_TMO.text('')} "
                                  f"({rule.FAST_IO_FAIL_TMO.source})")
        loss_table = hwtable_timer("dev_loss_tmo", vendor, model)
        not_given.setdefault("dev_loss_tmo", f"the built-in hardware table would set {loss_table[0]} ({loss_table[1]})"
                             if loss_table else "multipathd leaves the HBA driver's own (multipath.conf(5): hardware "
                                                "dependent)")
        return [Finding(f"{scope}: {practice[0]}", practice[1])] if practice else []
    if (fast is not None and not fast.value) or (loss is not None and not loss.value):
        undetermined = fast if fast is not None and not fast.value else loss
        assert undetermined is not None
        return [Finding(f"{scope}: the FC timers are not determined", undetermined.where)]
    fast_in_force = fast or _builtin_fast(vendor, model)
    loss_in_force = loss or _builtin_loss(vendor, model)
    loss_s = rule.seconds(loss_in_force.value) if loss_in_force else None
    # No conf line gives no_path_retry: the hardware table's, where it sets one (NETAPP LUN: queue).
    table_retry = _hwtable_retry(vendor, model)
    retry = given["no_path_retry"] or (Value(table_retry, f"assumed: the built-in hardware table, {HWTABLE_SOURCE} "
                                                           f"({vendor},{model})", False) if table_retry else None)
    fast_s = rule.seconds(fast_in_force.value)
    queue = retry is not None and retry.value == "queue"
    stall = rule.dm_link_down(fast_s, loss_s, queue)
    after = "only when a path returns" if stall.seconds is None else f"after about {stall.seconds:g} s"
    iscsi = f"; on iSCSI paths, {_iscsi(fast_s)}" if fast_s else ""
    found = [Finding(f"{scope}: {stall.failure} fails I/O over {after} ({stall.rule})",
                     f"fast_io_fail_tmo {fast_in_force.said}"
                     + (f"; dev_loss_tmo {loss_in_force.said}" if loss_in_force else "")
                     + (f"; no_path_retry {retry.said}" if queue and retry is not None and fast_s is None else "")
                     + f"; assumes {stall.assumes}"
                     + iscsi)]
    if loss_in_force and loss_s is not None and fast_s is not None and loss_s <= fast_s:
        found.append(Finding(f"{scope}: dev_loss_tmo {loss_in_force.value} is not above fast_io_fail_tmo "
                             f"{fast_in_force.value}: the path is removed before its I/O fails over",
                             f"dev_loss_tmo {loss_in_force.said}; fast_io_fail_tmo {fast_in_force.said}; "
                             "multipath.conf(5): fast_io_fail_tmo should be smaller than dev_loss_tmo"))
    if practice:
        found.append(Finding(f"{scope}: {practice[0]}", practice[1]))
    return found


def _hwtable_retry(vendor: str, model: str) -> str | None:
    """The no_path_retry the built-in hardware table sets for the array (with or without ALUA), if any."""
    from pathlab.importer.conf_precedence import hwtable_sets

    return next((v for tpgs in (False, True) if (v := hwtable_sets(vendor, model, tpgs).get("no_path_retry"))), None)


def _iscsi(fast_io_fail: float) -> str:
    """The stall of an iSCSI connection loss under the same fast_io_fail_tmo, for the evidence."""
    stall = rule.dm_iscsi_connection_lost(fast_io_fail, float(rule.ISCSI_NOOP_OUT_INTERVAL.value or 0),
                                          float(rule.ISCSI_NOOP_OUT_TIMEOUT.value or 0))
    return (f"{stall.failure} fails I/O over after about {stall.seconds:g} s ({stall.rule}: "
            f"{rule.ISCSI_RECOVERY_SOURCE}; {rule.ISCSI_NOOP_OUT_INTERVAL.source}; {rule.ISCSI_NOOP_OUT_TIMEOUT.source}; "
            f"assumes {stall.assumes})")


def _builtin_loss(vendor: str, model: str) -> Value | None:
    """The built-in hardware table's dev_loss_tmo for the array, if it sets one (else the HBA driver's own)."""
    table = hwtable_timer("dev_loss_tmo", vendor, model)
    return Value(table[0], f"assumed: the built-in hardware table, {table[1]}", False) if table else None


def _builtin_fast(vendor: str, model: str) -> Value:
    table = hwtable_timer("fast_io_fail_tmo", vendor, model)
    if table:
        return Value(table[0], f"assumed: the built-in hardware table, {table[1]}", False)
    return _or_builtin(None, rule.FAST_IO_FAIL_TMO)


def _practice(device: Device, given: dict[str, Value | None]) -> tuple[str, str] | None:
    """The FC timers the vendor publishes for the array where the ones in force differ (read, or
    the built-in table's or default where the host gives none), with the stall the vendor's
    fast_io_fail_tmo would give."""
    vendor, model = device.array.vendor, device.array.model
    in_force = {"fast_io_fail_tmo": given["fast_io_fail_tmo"] or _builtin_fast(vendor, model),
                "dev_loss_tmo": given["dev_loss_tmo"] or _builtin_loss(vendor, model)}
    for row in rows_for(device):
        said = row.setting.given()
        away = {k: said[k] for k in in_force
                if k in said and (in_force[k] is None or str(in_force[k].value) != str(said[k]))}  # type: ignore[union-attr]
        if not away:
            continue
        text = "; ".join(f"{k} {_shown(in_force[k])} where {row.vendor} says {v}" for k, v in away.items())
        if "fast_io_fail_tmo" in away:
            text += f": with it an FC link down would fail I/O over after about {away['fast_io_fail_tmo']} s"
        return text, f"{row.source} ({row.date})"
    return None


def _timeout_practice(scope: str, device: Device, timeout: Value | None) -> list[Finding]:
    """The SCSI disk timeout the array's vendor publishes (a udev rule's `device/timeout`) where the
    one in force differs (read, else the kernel's 30 s, said as not read), with the path-hang stall
    it would give."""
    from pathlab.advisor.vendor_table import practice_for

    in_force = timeout or Value(rule.SCSI_COMMAND_TIMEOUT.text(""), f"assumed: {rule.SCSI_COMMAND_TIMEOUT.source}; "
                                                                     f"{SETTLE_SCSI_TIMEOUT}", False)
    found = []
    for row in practice_for(device.array.vendor, device.array.model, "linux-scsi"):
        said = row.setting.device_timeout
        if said is None or float(said) == float(in_force.value):
            continue
        found.append(Finding(f"{scope}: device/timeout {_shown(in_force)} where {row.vendor} says {said}: with it a path "
                             f"that stops answering would stall I/O for about {said} s (a longer timeout rides out "
                             "the array's slow recoveries, and holds a lost command as long)",
                             f"device/timeout {in_force.said}; {row.source} ({row.date}); udev rule: {row.command}"))
    return found


def _shown(value: Value | None) -> str:
    if value is None:
        return "not given (the HBA driver's own)"
    return value.value if value.read else f"not given ({value.value}, the built-in)"


def _nvme(timers: Read) -> list[Finding]:
    io_given = _given(timers, "host", "io_timeout")
    io = _or_builtin(io_given, rule.NVME_IO_TIMEOUT)
    controllers = sorted({scope for scope, _ in timers if scope != "host"}, key=lambda c: (len(c), c))
    found: list[Finding] = []
    not_given: dict[str, str] = {}
    by_kato: dict[tuple[str, bool], list[str]] = {}
    for c in controllers:
        if (kato := _given(timers, c, "kato")) is not None:
            ctratt = _given(timers, c, "ctratt")  # `nvme id-ctrl`: traffic-based keep-alive (bit 6)
            by_kato.setdefault((kato.value, ctratt is not None and bool(int(ctratt.value, 16) & CTRATT_TBKAS)),
                               []).append(c)
    for (value, tbkas), members in by_kato.items():
        kato = _given(timers, members[0], "kato")
        assert kato is not None
        if int(value) == 0:
            continue  # no keep-alive (a discovery controller)
        stall = rule.nvme_controller_silent(float(value), float(io.value), tbkas)
        ctratt = _given(timers, members[0], "ctratt")
        said = f"; ctratt {ctratt.said}" if ctratt is not None else ""
        found.append(Finding(f"{_names(members)}: {stall.failure} stalls I/O for about {stall.seconds:g} s, then "
                             f"{stall.then}", f"kato {kato.said}{said}; io_timeout {io.said}; {stall.rule}; assumes "
                                              f"{stall.assumes}"))
    if by_kato:
        katos = " and ".join(f"{v} s" for v in dict.fromkeys(v for v, _ in by_kato))
        found.append(Finding(f"KATO {katos} and no CQT hold is shown: an I/O can be retried on another path while its "
                             "first copy may still land",
                             f"{rule.TP4129}; Linux's nvme_failover_req (drivers/nvme/host/multipath.c) requeues it on "
                             "another path as soon as error recovery cancels it"))
    else:
        not_given["kato"] = f"the built-in default would be {rule.NVME_KATO.text()} ({rule.NVME_KATO.source})"
    found += _nvme_all_paths_down(timers, controllers, not_given)
    found += _nvme_ana_change(timers, controllers)
    found += ctrl_loss_practice(timers)
    settle = [SETTLE_NVME] if not_given else []
    if io_given is None:
        not_given["io_timeout"] = f"the built-in default would be {rule.NVME_IO_TIMEOUT.text()} ({rule.NVME_IO_TIMEOUT.source})"
        settle.append(SETTLE_NVME_IO)
    if not_given:
        found.append(Finding("Failure timers no capture gives: " + ", ".join(not_given),
                             "; ".join(f"{k}: {v}" for k, v in not_given.items()) + "; " + "; ".join(settle)))
    return found


def _nvme_ana_change(timers: Read, controllers: Sequence[str]) -> list[Finding]:
    """An ANA change with no other usable path, as `nvme id-ctrl` gives ANATT: Linux holds the
    I/O while the changing controller is live, as long as the change lasts, at most ANATT
    (`stall_rule.nvme_ana_change`); the longest ANATT read, of the controllers that report the
    change state (ANATT above 0, ANACAP bit 4 set where printed)."""
    read = []
    for c in controllers:
        anatt, anacap = _given(timers, c, "anatt"), _given(timers, c, "anacap")
        if anatt is None or int(anatt.value) == 0 or (anacap is not None and not int(anacap.value) & ANACAP_CHANGE):
            continue
        read.append((c, anatt))
    if not read:
        return []
    c, anatt = max(read, key=lambda r: int(r[1].value))
    seconds = float(anatt.value)
    stall = rule.nvme_ana_change(seconds, seconds)
    longest = f"; the longest of the {len(read)} controllers read" if len(read) > 1 else ""
    return [Finding(f"An ANA change with no other usable path (the owning controller reboots, its partner's groups in "
                    f"the change state) holds I/O for up to {seconds:g} s (ANATT), then {stall.then}",
                    f"{c}: anatt {anatt.said}{longest}; {stall.rule}; a change that outlasts ANATT: "
                    f"{rule.nvme_ana_change(seconds, None).rule}; assumes the change lasts as long as ANATT allows "
                    f"({stall.assumes})")]


def _nvme_all_paths_down(timers: Read, controllers: Sequence[str],
                         not_given: dict[str, str]) -> list[Finding]:
    """Every path of a namespace down: its I/O is held while any of its controllers may come back
    (`nvme_available_path`), so the longest hold among the controllers read is the stall."""
    stalls = []
    for c in controllers:
        loss, fast = _given(timers, c, "ctrl_loss_tmo"), _given(timers, c, "fast_io_fail_tmo")
        if loss is None and fast is None:
            continue
        loss_v = loss or _or_builtin(None, rule.NVME_CTRL_LOSS_TMO)
        fast_v = fast or _or_builtin(None, rule.NVME_FAST_IO_FAIL_TMO)
        stalls.append((c, loss_v, fast_v, rule.nvme_all_paths_down(rule.seconds(loss_v.value), rule.seconds(fast_v.value))))
    if not stalls:
        not_given["ctrl_loss_tmo"] = (f"the built-in default would be {rule.NVME_CTRL_LOSS_TMO.text()} "
                                      f"({rule.NVME_CTRL_LOSS_TMO.source})")
        return []
    c, loss_v, fast_v, stall = max(stalls, key=lambda s: float("inf") if s[3].seconds is None else s[3].seconds)
    what = "a controller that never returns is retried forever: I/O hangs until a path returns" \
        if stall.seconds is None else f"I/O is held for about {stall.seconds:g} s, then {stall.then}"
    return [Finding(f"Every path down: {what}",
                    f"{c}: ctrl_loss_tmo {loss_v.said}; fast_io_fail_tmo {fast_v.said}; {stall.rule}; I/O waits while any "
                    f"of a namespace's controllers may return (drivers/nvme/host/multipath.c nvme_available_path): the "
                    f"longest of the {len(stalls)} controllers read; assumes {stall.assumes} and that {c} serves the "
                    "namespace")]

