"""Findings about a cluster (several hosts on shared LUNs and array ports), read off the run of
the setting in force: hosts that set one LUN apart (the SATP, the PSP or its limit), a host whose
paths to a LUN skip a port the others use, and an array port busy with several hosts' commands;
and each host's own findings (`findings.py`, on the host's view of the run), said once for every
host they are true of."""

from __future__ import annotations

from collections.abc import Callable

from pathlab import host_views
from pathlab.api import Result
from pathlab.devices import Device
from pathlab.finding import Finding

#: An array port this busy (percent) queues its commands: with several hosts on it, each host's
#: commands wait behind the others' (a FIFO's wait grows as U / (1 − U): ×2.3 at 70%).
HOT_PORT_PCT = 70.0


def cluster_findings(run: Result) -> list[Finding]:
    """What only the hosts together show: disagreeing settings, skipped ports, shared hot ports."""
    return _disagreements(run.setups) + _skipped_ports(run.data) + _hot_ports(run.data)


def per_host(run: Result, found_on: Callable[[str, Result], list[Finding]]) -> list[Finding]:
    """`found_on` of each host's own view of the run, each finding titled with the hosts it is
    true of (one finding for several hosts when they show the same)."""
    hosts_of: dict[Finding, list[str]] = {}
    setups: dict[str, list[Device]] = {}
    for d in run.setups:
        setups.setdefault(d.host, []).append(d)
    for host, view in host_views.views(run.data):
        own = Result(view, 0, setups.get(host, []))
        for f in found_on(host, own):
            hosts_of.setdefault(f, []).append(host)
    return [Finding(f"{', '.join(hosts)}: {f.title}", f.evidence, f.normal) for f, hosts in hosts_of.items()]


def _disagreements(devices: list[Device]) -> list[Finding]:
    """Each LUN several hosts have whose hosts claim it with different SATPs or run different
    PSPs or limits: the cluster's hosts see one datastore through different settings."""
    by_lun: dict[str, dict[str, Device]] = {}
    for d in devices:
        by_lun.setdefault(d.name, {})[d.host] = d
    found = []
    for lun, on in by_lun.items():
        settings: dict[tuple[str, str], list[str]] = {}
        for host, d in on.items():
            settings.setdefault((d.satp or "no SATP", d.policy.label), []).append(host)
        if len(on) < 2 or len(settings) < 2:
            continue
        what = [w for w, differ in (("SATP", len({s for s, _ in settings}) > 1),
                                    ("PSP or its limit", len({p for _, p in settings}) > 1)) if differ]
        found.append(Finding(
            f"{lun}: its hosts disagree on the {' and the '.join(what)}",
            "; ".join(f"{', '.join(hosts)}: {satp}, {label}" for (satp, label), hosts in settings.items())
            + ": one LUN, one claim rule; the advice below gives every host the same setting unless a group gains by another",
        ))
    return found


def _skipped_ports(data: dict) -> list[Finding]:
    """A host whose paths to a shared LUN reach fewer of the array's ports than another host's:
    its I/O to the LUN crowds the ports it has (zoning or masking left one out)."""
    ports: dict[str, dict[str, set[str]]] = {}  # LUN → host → ports its paths reach
    for p in data["paths"]:
        ports.setdefault(_lun(p["device"], p["host"]), {}).setdefault(p["host"], set()).add(p["target"])
    found = []
    for lun, by_host in ports.items():
        every = set().union(*by_host.values())
        for host, reached in by_host.items():
            missing = sorted(every - reached)
            if len(by_host) < 2 or not missing:
                continue
            users = sorted(h for h, r in by_host.items() if r & set(missing))
            found.append(Finding(
                f"{host}: its paths to {lun} skip port{'s' if len(missing) > 1 else ''} {', '.join(missing)}, "
                f"which {', '.join(users)} use{'s' if len(users) == 1 else ''}",
                f"{host} reaches {len(reached)} of the {len(every)} ports the hosts reach the LUN through "
                f"({', '.join(sorted(reached))}): check its zoning and the array's masking",
            ))
    return found


def _lun(device: str, host: str) -> str:
    """A path row's device as the LUN's name (a row of a LUN several hosts have names it `HOST/NAME`)."""
    return device.removeprefix(f"{host}/")


def _hot_ports(data: dict) -> list[Finding]:
    """Each array port at least `HOT_PORT_PCT` busy that several hosts send commands to, with
    each host's share: a host whose own load would leave the port idle waits behind the others."""
    sent: dict[str, dict[str, float]] = {}  # port → host → commands a second
    for p in data["paths"]:
        if p["cmds_s"] > 0:
            by_host = sent.setdefault(p["target"], {})
            by_host[p["host"]] = by_host.get(p["host"], 0.0) + p["cmds_s"]
    found = []
    for port in data["ports"]:
        by_host = sent.get(port["name"], {})
        if port["util_pct"] < HOT_PORT_PCT or len(by_host) < 2:
            continue
        total = sum(by_host.values())
        found.append(Finding(
            f"array port {port['name']} is {port['util_pct']:.0f}% busy with {len(by_host)} hosts' commands",
            f"{port['cmds_s']:,.0f} commands a second: "
            + ", ".join(f"{h} {rate / total:.0%}" for h, rate in sorted(by_host.items()))
            + "; each host's commands there wait behind the others': advice for one host alone would miss it",
        ))
    return found
