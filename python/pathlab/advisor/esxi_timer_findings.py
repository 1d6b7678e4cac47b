"""Advice on an ESXi host's failure timers, from its own listings only (`Host.timers`: each iSCSI
adapter's `esxcli iscsi adapter param get`, `esxcli system settings advanced list -o
/Misc/APDTimeout`, `/Misc/APDHandlingEnable` and `/Disk/PathEvalTime`): what a silent path loss, a link loss the host sees
and every path down would cost the application, by `stall_rule.py`'s ESXi rules, with the file
and line of every value; the built-in values a rule also needs are said as assumed. Nothing is
said where no listing gave a timer: which of the host's adapters are iSCSI is not in the path
listings, so no default is offered as the host's; where one did, `Misc.APDTimeout` not given is
said with its default and the command that would settle it."""

from __future__ import annotations

from collections.abc import Sequence

from pathlab.advisor import stall_rule as rule
from pathlab.devices import Device
from pathlab.finding import Finding
from pathlab.importer.timer_values import TimerValue

#: An adapter's session timers, by esxcli's name, and the built-in value of each.
SESSION = (("NoopOutInterval", rule.ESXI_NOOP_OUT_INTERVAL), ("NoopOutTimeout", rule.ESXI_NOOP_OUT_TIMEOUT),
           ("RecoveryTimeout", rule.ESXI_RECOVERY_TIMEOUT))
SETTLE_ISCSI = "`esxcli iscsi adapter param get -A {adapter}` would settle it"
SETTLE_APD = "`esxcli system settings advanced list -o /Misc/APDTimeout` would settle it"


def esxi_timer_findings(timers: Sequence[TimerValue], devices: Sequence[Device] = ()) -> list[Finding]:
    """The findings of the ESXi timers read (none where none was); an adapter's LoginTimeout and
    DelayedAck against the iSCSI practice of the vendors of `devices`' arrays."""
    by_scope: dict[str, dict[str, TimerValue]] = {}
    for t in timers:
        by_scope.setdefault(t.scope, {})[t.setting] = t
    host = by_scope.pop("host", {})
    found: list[Finding] = []
    # Adapters with the same session timers are said once (the first adapter's lines cited).
    groups: dict[tuple[str | None, ...], list[str]] = {}
    for adapter in sorted(by_scope, key=lambda a: (len(a), a)):
        values = tuple(one.value if (one := by_scope[adapter].get(name)) else None for name, _ in SESSION)
        groups.setdefault(values, []).append(adapter)
    for members in groups.values():
        found += _adapter(members, by_scope[members[0]])
    for adapter in sorted(by_scope, key=lambda a: (len(a), a)):
        found += _iscsi_practice(adapter, by_scope[adapter], devices)
    handling = host.get("Misc.APDHandlingEnable")
    if handling is not None and int(handling.value) == 0:
        stall = rule.esxi_all_paths_down(None)
        timeout = host.get("Misc.APDTimeout")
        unused = f"; Misc.APDTimeout {timeout.value} (read at {timeout.where}) does nothing while it is off" \
            if timeout is not None else ""
        found.append(Finding("APD handling is off: every path down of any device retries all I/O until a path "
                             "returns, which may leave virtual machines past their own I/O timeout, unresponsive, and "
                             "the host disconnected from vCenter Server",
                             f"Misc.APDHandlingEnable 0 (read at {handling.where}); {stall.rule}; {stall.assumes}"
                             f"{unused}; with it on (1, the default) I/O that is not a virtual machine's fails after "
                             f"Misc.APDTimeout ({rule.ESXI_APD_TIMEOUT.text()} by default)"))
    elif "Misc.APDTimeout" in host:
        apd = host["Misc.APDTimeout"]
        stall = rule.esxi_all_paths_down(float(apd.value))
        failure = stall.failure[:1].upper() + stall.failure[1:]
        found.append(Finding(f"{failure} of any device retries I/O for about {stall.seconds:g} s, then {stall.then}",
                             f"Misc.APDTimeout {apd.value} (read at {apd.where}); assumes {stall.assumes}"))
    elif timers:  # an ESXi timer was read, but not this one: what it would be, and what would settle it
        found.append(Finding("Failure timers no capture gives: Misc.APDTimeout",
                             f"Misc.APDTimeout: the built-in default would be {rule.ESXI_APD_TIMEOUT.text()} "
                             f"({rule.ESXI_APD_TIMEOUT.source}); {SETTLE_APD}"))
    if "Disk.PathEvalTime" in host:
        evaluation = host["Disk.PathEvalTime"]
        found.append(Finding(f"A dead path that comes back without a link event is taken back within about "
                             f"{float(evaluation.value):g} s (the next path evaluation)",
                             f"Disk.PathEvalTime {evaluation.value} (read at {evaluation.where}); "
                             f"{rule.ESXI_PATH_EVAL_TIME.source}; a path whose link the host sees return is taken "
                             "back at once"))
    return found


def _adapter(members: list[str], read: dict[str, TimerValue]) -> list[Finding]:
    """A group of adapters' silent path loss and seen link loss, by the session timers read."""
    said: list[str] = []
    seconds: dict[str, float] = {}
    for name, builtin in SESSION:
        value = read.get(name)
        if value is not None:
            said.append(f"{name} {value.value} (read at {value.where})")
            seconds[name] = float(value.value)
        else:
            said.append(f"{name} {builtin.text('')} (assumed: the built-in default, {builtin.source}; "
                        f"{SETTLE_ISCSI.format(adapter=members[0])})")
            seconds[name] = float(builtin.value or 0)
    io_timeout = float(rule.ESXI_IO_TIMEOUT.value or 0)
    names = ", ".join(members)
    hang = rule.esxi_iscsi_path_hang(seconds["NoopOutInterval"], seconds["NoopOutTimeout"], seconds["RecoveryTimeout"],
                                     io_timeout)
    link = rule.esxi_iscsi_link_down(seconds["RecoveryTimeout"])
    values = "; ".join(said)
    return [
        Finding(f"{names}: {hang.failure} stalls I/O for about {hang.seconds:g} s, then {hang.then}",
                f"{values}; the I/O timeout assumed {rule.ESXI_IO_TIMEOUT.text()} ({rule.ESXI_IO_TIMEOUT.source}); "
                f"{hang.rule}; assumes {hang.assumes}"),
        Finding(f"{names}: {link.failure} holds I/O for about {link.seconds:g} s, then {link.then}",
                f"RecoveryTimeout {_said(read, 'RecoveryTimeout')}; {link.rule}; assumes {link.assumes}"),
    ]


def _said(read: dict[str, TimerValue], name: str) -> str:
    value = read.get(name)
    return f"{value.value} (read at {value.where})" if value else f"{rule.ESXI_RECOVERY_TIMEOUT.text('')} (assumed)"


#: An adapter's parameters a vendor's iSCSI row gives: esxcli's name, the row's setting.
COMPARED = (("LoginTimeout", "login_timeout"), ("DelayedAck", "delayed_ack"))


def _iscsi_practice(adapter: str, read: dict[str, TimerValue], devices: Sequence[Device]) -> list[Finding]:
    """The adapter's LoginTimeout and DelayedAck where they differ from a vendor's iSCSI row for
    an array of the host's devices (`vendor_practice.toml` esxi-iscsi); neither is simulated."""
    from pathlab.advisor.vendor_table import practice_for

    found = []
    arrays = dict.fromkeys((d.array.vendor, d.array.model) for d in devices if d.stack == "esxi")
    for vendor, model in arrays:
        for row in practice_for(vendor, model, "esxi-iscsi"):
            said = row.setting.given()
            away = [(name, read[name], said[key]) for name, key in COMPARED
                    if key in said and name in read and read[name].value != str(said[key]).lower()]
            if not away:
                continue
            title = "; ".join(f"{name} {v.value} where {row.vendor} says {str(p).lower()}" for name, v, p in away)
            evidence = "; ".join(f"{name} {v.value} (read at {v.where})" for name, v, _ in away)
            found.append(Finding(f"{adapter}: {title} for {row.model} iSCSI targets (not simulated: neither changes a "
                                 "stall pathlab simulates)",
                                 f"{evidence}; an adapter's listing gives the adapter's value, and a send target may "
                                 f"set its own (`esxcli iscsi adapter target portal param get -A {adapter} -a ADDRESS "
                                 f"-n IQN` shows what a session uses); {row.source} ({row.date}); {row.command}"))
    return found
