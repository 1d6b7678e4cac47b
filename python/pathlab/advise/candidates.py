"""The advisor: what is wrong with a host's multipathing, which setting to change, and what the
change gains, predicted by simulating the host (a scenario) with each candidate on the same I/Os
over several seeds.

Findings are read off the run of the setting in force, each with the counters that show it, as
an admin would read them in esxtop. Candidates are the setting in force, the array vendor's
practice, the other settings of the host's stack, and pathlab's own policy."""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from pathlab.api import Result, Scenario, run_many
from pathlab.figures import HEADLINE
from pathlab.output import hosts
from pathlab.study.stats import half_width
from pathlab.toml_values import to_toml

#: Figures the ranking reports, with their mean and 95% interval over seeds.
FIGURES = (*(f.key for f in HEADLINE), "failed")


@dataclass(frozen=True)
class Finding:
    title: str
    evidence: str


@dataclass(frozen=True)
class Candidate:
    label: str
    #: Overrides applied to the host's scenario (dotted key to Python value).
    overrides: dict[str, Any]
    #: The commands that apply it on the host, one per line.
    commands: list[str] = field(default_factory=list)
    caveat: str = ""


@dataclass
class Ranked:
    candidate: Candidate
    figures: dict[str, tuple[float, float]]  # figure -> (mean, 95% half-width)
    gain: float  # I/O rate against the setting in force


# The array vendors' published practice for ESXi round robin, as (vendor, model) -> the
# candidate's label. Sources: Dell EMC's VMAX field test of iops=1 against iops=1000
# (CALIBRATION.md C1) and Pure Storage's FlashArray claim rule (`-O iops=1`, DOMAIN.md §2;
# ActiveCluster at distance: the latency sub-type or a preferred array, CALIBRATION.md C2).
VENDOR_PRACTICE = {
    ("EMC", "SYMMETRIX"): "round robin, iops=1",
    ("PURE", "FlashArray"): "round robin, iops=1",
}


def _device_limit(device_config: str) -> int | None:
    """The round robin I/O limit in force, from `{policy=iops,iops=1000,...}`."""
    match = re.search(r"policy=(?:rr|iops)\b.*?iops=(\d+)", device_config)
    return int(match.group(1)) if match else None


def findings(data: dict[str, Any]) -> list[Finding]:
    """What the run of the setting in force shows, each with its counters."""
    found: list[Finding] = []
    ports = data["ports"]
    mean_busy = sum(p["util_pct"] for p in ports) / len(ports) if ports else 0.0
    for d in data["devices"]:
        limit = _device_limit(d["device_config"])
        full = d["dqlen"] is not None and d["actv"] >= 0.9 * d["dqlen"]
        if d["policy"] == "VMW_PSP_RR" and limit is not None and limit >= 100 and full and mean_busy < 60:
            found.append(Finding(
                f"{d['name']}: round robin at iops={limit} keeps the device's whole queue on one path at a time",
                f"ACTV {d['actv']:.0f} of DQLEN {d['dqlen']}, QUED {d['qued']:.0f}, KAVG {d['kavg_ms']:.2f} ms, "
                f"while the array ports are {mean_busy:.0f}% busy on average: the queue waits although the ports "
                f"have room, because {limit} I/Os in a row go down the same path",
            ))
        elif d["qued"] > 1 and d["kavg_ms"] > 0.5 * max(d["davg_ms"], 1e-9):
            # A Linux NVMe head has no device queue: its requests wait for the controllers' tags.
            full_queue, bound = ("the device queue is full", f"DQLEN {d['dqlen']}") if d["dqlen"] is not None \
                else ("every blk-mq tag of its controllers is in use", "no device queue: nvme connect --queue-size")
            found.append(Finding(
                f"{d['name']}: {full_queue}",
                f"QUED {d['qued']:.1f}, KAVG {d['kavg_ms']:.2f} ms against DAVG {d['davg_ms']:.2f} ms ({bound})",
            ))
        paths = [p for p in data["paths"] if p["device"] == d["name"] and p["cmds_s"] > 0]
        if not paths:
            continue
        best = min(p["davg_ms"] for p in paths)
        slow = [p for p in paths if p["davg_ms"] > 2 * best and p["davg_ms"] - best > 0.2]
        if slow:
            share = sum(p["cmds_s"] for p in slow) / sum(p["cmds_s"] for p in paths)
            kinds = "non-optimized or remote" if any(p["alua"] != "AO" for p in slow) else "slow"
            worst = max(slow, key=lambda p: p["davg_ms"])
            found.append(Finding(
                f"{d['name']}: {len(slow)} {kinds} paths carry {share:.0%} of its I/O at higher latency",
                f"DAVG {best:.2f} ms on the best path against {worst['davg_ms']:.2f} ms on {worst['name']} "
                f"({worst['alua']}, {worst['target']})",
            ))
        erring = [p for p in paths if p["errors"] > 0]
        for p in erring:
            found.append(Finding(f"{p['name']}: the path returns errors",
                                 f"{p['errors']} errors, {p['retries']} retries during the measurement"))
    found += _alua_thrashing(data)
    return found


#: ALUA state changes of one device within a run above which its paths are thrashing.
THRASHING_CHANGES = 3


def _alua_thrashing(data: dict[str, Any]) -> list[Finding]:
    """Devices whose paths changed ALUA state again and again during the run (the run's event
    log): each change moves I/O between controllers and costs the array a transition."""
    changes: dict[str, list[float]] = {}
    for e in data.get("events", []):
        if e["event"] == "alua":
            changes.setdefault(e["device"], []).append(e["t_s"])
    return [Finding(f"{device}: its paths' ALUA states thrash",
                    f"{len(times)} ALUA state changes between {min(times):.1f} s and {max(times):.1f} s")
            for device, times in sorted(changes.items()) if len(times) >= THRASHING_CHANGES]


def practice_findings(scenario: Scenario, data: dict[str, Any]) -> list[Finding]:
    """Devices whose round robin setting differs from their array vendor's published practice."""
    arrays = _arrays(scenario)
    found = []
    for d in data["devices"]:
        practice = VENDOR_PRACTICE.get(arrays.get(d["array"], ("", "")))
        limit = _device_limit(d["device_config"])
        if practice == "round robin, iops=1" and limit not in (None, 1):
            vendor, model = arrays[d["array"]]
            found.append(Finding(
                f"{d['name']}: round robin at iops={limit}, where {vendor} {model}'s practice is iops=1",
                f"{d['policy']} {d['device_config']}",
            ))
    return found


def _arrays(scenario: Scenario) -> dict[str, tuple[str, str]]:
    spec = tomllib.loads(scenario.text)
    return {a["name"]: (a.get("vendor", ""), a.get("model", "")) for a in spec.get("arrays", [])}


def _with_policy(scenario: Scenario, policy: dict[str, Any]) -> dict[str, Any]:
    """Overrides that give every device `policy`: the admin's per-device esxcli commands are
    replaced by it, the claim rules (which choose the SATP) are kept."""
    esxcli = tomllib.loads(scenario.text).get("esxcli", [])
    return {"devices.*.policy": policy, "esxcli": [c for c in esxcli if "satp rule add" in c]}


def candidates(scenario: Scenario, data: dict[str, Any]) -> list[Candidate]:
    """The settings worth simulating on this host (ESXi NMP hosts: round robin variants and
    pathlab's own policy; other stacks: pathlab's own policy against the setting in force)."""
    nmp = all(d["policy"] == "VMW_PSP_RR" for d in data["devices"])
    out = [Candidate("the setting in force", {})]
    if nmp:
        arrays = _arrays(scenario)
        rules = sorted({(d["satp"], *arrays.get(d["array"], ("", ""))) for d in data["devices"]})
        for label, iops_or_type in (("round robin, iops=1", "iops=1"), ("round robin, latency", "latency")):
            setting = "--type=iops --iops=1" if iops_or_type == "iops=1" else "--type=latency"
            per_device = _per_host(data, f"esxcli storage nmp psp roundrobin deviceconfig set --device={{}} {setting}")
            claim = [
                f"esxcli storage nmp satp rule add -s {satp} -V {vendor}" + (f" -M {model}" if model else "")
                + f" -P VMW_PSP_RR -O {iops_or_type}"
                for satp, vendor, model in rules if vendor
            ] if iops_or_type == "iops=1" else []
            if claim and len(hosts.names(data)) > 1:
                claim.insert(0, "# on every host:")
            policy = {"name": "VMW_PSP_RR", "type": "iops", "iops": 1} if iops_or_type == "iops=1" else \
                {"name": "VMW_PSP_RR", "type": "latency"}
            caveat = "latency sub-type: ESXi 6.7 U1 or later" if iops_or_type == "latency" else \
                "the claim rule applies to LUNs presented after it is added; existing LUNs take the device command"
            out.append(Candidate(label, _with_policy(scenario, policy), per_device + claim, caveat))
    if all(d["policy"] == "dm-multipath" for d in data["devices"]):
        out += _dm_candidates(scenario, data)
    if all(d["policy"] == "nvme" for d in data["devices"]):
        out += _nvme_candidates(scenario)
    out.append(Candidate(
        "pathlab gated-least-load", _with_policy(scenario, {"name": "gated-least-load"}), [],
        "pathlab's own policy: not in any shipping stack; shown as the bar the others could reach",
    ))
    return out


def _per_host(data: dict[str, Any], command: str) -> list[str]:
    """`command` with each device's name in its `{}`; with several hosts, each host's under a
    `# on HOST:` line, since an admin pastes them into each host's shell."""
    every = hosts.names(data)
    out: list[str] = []
    for host in every:
        if len(every) > 1:
            out.append(f"# on {host}:")
        out += [command.format(d["name"]) for d in data["devices"] if d["host"] == host]
    return out


#: The dm-multipath path selectors worth trying, as multipath.conf spells them.
DM_SELECTORS = ("service-time 0", "queue-length 0", "round-robin 0")


def _dm_candidates(scenario: Scenario, data: dict[str, Any]) -> list[Candidate]:
    """Each kernel path selector not in force, with the multipath.conf stanza that sets it for
    the host's arrays (then `multipathd reconfigure`)."""
    spec = tomllib.loads(scenario.text)
    in_force = {d.get("policy", {}).get("selector", "service-time") for d in spec.get("devices", [])}
    arrays = _arrays(scenario)
    out = []
    for selector in DM_SELECTORS:
        name = selector.split(" ")[0]
        if in_force == {name}:
            continue
        stanza = ["# /etc/multipath.conf", "devices {"]
        for vendor, model in sorted(set(arrays.values())):
            stanza += ["    device {", f'        vendor "{vendor}"', f'        product "{model}"',
                       f'        path_selector "{selector}"', "    }"]
        stanza += ["}", "multipathd reconfigure"]
        policies = {d["name"]: {**d.get("policy", {"name": "dm-multipath"}), "selector": name} for d in spec.get("devices", [])}
        overrides = {f"devices.{i}.policy": policies[d["name"]] for i, d in enumerate(spec.get("devices", []))}
        out.append(Candidate(f"dm {name}", overrides, stanza,
                             "the stanza adds to the device's built-in settings; `multipath -ll` shows the selector in force"))
    return out


def _nvme_candidates(scenario: Scenario) -> list[Candidate]:
    """Each native NVMe iopolicy not in force, set through sysfs now and a udev rule for good."""
    spec = tomllib.loads(scenario.text)
    in_force = {d.get("policy", {}).get("iopolicy", "numa") for d in spec.get("devices", [])}
    out = []
    for iopolicy in ("numa", "round-robin", "queue-depth"):
        if in_force == {iopolicy}:
            continue
        commands = [
            f"echo {iopolicy} | tee /sys/class/nvme-subsystem/nvme-subsys*/iopolicy",
            "# for good, /etc/udev/rules.d/71-nvme-iopolicy.rules:",
            f'ACTION=="add|change", SUBSYSTEM=="nvme-subsystem", ATTR{{subsystype}}=="nvm", ATTR{{iopolicy}}="{iopolicy}"',
        ]
        caveat = "queue-depth: kernel 6.11 or later" if iopolicy == "queue-depth" else ""
        overrides = {f"devices.{i}.policy": {"name": "nvme", "iopolicy": iopolicy} for i, _ in enumerate(spec.get("devices", []))}
        out.append(Candidate(f"nvme {iopolicy}", overrides, commands, caveat))
    return out


def _summaries(results: list[Result]) -> dict[str, tuple[float, float]]:
    out = {}
    for f in FIGURES:
        values = [r.data["summary"][f] for r in results]
        hw = half_width(values)
        out[f] = (sum(values) / len(values), 0.0 if math.isnan(hw) else hw)
    return out


def rank(scenario: Scenario, cands: list[Candidate], seeds: int, length: dict[str, str]) -> list[Ranked]:
    """Simulates every candidate on the same I/Os (same seeds) and ranks them by I/O rate."""
    base = [f"{k}={v}" for k, v in scenario.overrides] + [f"{k}={to_toml(v)}" for k, v in length.items()]
    runs = [
        Scenario.from_text(scenario.text, scenario.file, scenario.variant,
                           base + [f"{k}={to_toml(v)}" for k, v in c.overrides.items()], seed=seed)
        for c in cands for seed in range(1, seeds + 1)
    ]
    results = run_many(runs)
    ranked = []
    for i, c in enumerate(cands):
        ranked.append(Ranked(c, _summaries(results[i * seeds:(i + 1) * seeds]), 0.0))
    in_force = ranked[0].figures["iops"][0]
    for r in ranked:
        r.gain = r.figures["iops"][0] / in_force if in_force > 0 else math.nan
    # Rates are compared in steps of 0.1% of the best, so that two settings held by the same
    # resource (a closed loop's rates then differ by a few I/Os) rank by the lower p99.
    best = max((r.figures["iops"][0] for r in ranked), default=0.0)
    return sorted(ranked, key=lambda r: (-round(r.figures["iops"][0] / (best * 1e-3)) if best > 0 else 0,
                                         r.figures["p99_ms"][0]))
