"""The settings worth simulating on a host, per stack it runs: the setting in force, ESXi round
robin variants (with the esxcli commands and the array vendor's claim rule), the dm-multipath path
selectors (with the multipath.conf stanza), the native NVMe iopolicies (sysfs and a udev rule),
PowerPath's policies (`powermt set`, `powerpath_candidates.py`), Windows MPIO's (`mpclaim -l`,
`mpio_candidates.py`), and
pathlab's own policy as the bar the others could reach. Each reads the devices as the engine
resolved them (`Scenario.devices`): the policy in force, its host stack and the array."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from pathlab import host_views
from pathlab.advisor.candidate import Candidate, as_given
from pathlab.advisor.mpio_candidates import mpio_candidates
from pathlab.advisor.powerpath_candidates import powerpath_candidates
from pathlab.advisor.practice import Departure, departures
from pathlab.api import Result, Scenario, policy_choices
from pathlab.devices import Device
from pathlab.importer.imported import Undetermined

#: ESXi NMP's path selection plugins that round robin can replace per device.
NMP_PSPS = ("VMW_PSP_RR", "VMW_PSP_FIXED", "VMW_PSP_MRU")


#: pathlab's own policy's label: not a shipping stack's setting, never recommended, and simulated
#: at the assumed values alone, not at the spans' ends (`rank._spanned`; `advisor.ranges` says why).
OWN_POLICY = "pathlab gated-least-load"


def candidates(scenario: Scenario, run: Result, undetermined: Sequence[Undetermined] = ()) -> list[Candidate]:
    """The setting in force, each stack's alternatives when every device runs that stack's policy
    (on ESXi NMP round robin whatever the PSP in force), and pathlab's own policy. `undetermined`:
    the settings the captures leave open (an NVMe iopolicy no capture shows), simulated as assumed."""
    devices = run.setups
    out = [Candidate("the setting in force", {})]
    if all(d.policy.name in NMP_PSPS for d in devices):  # Fixed and MRU hosts are offered round robin too
        out += _round_robin_candidates(scenario, run)
    if all(d.policy.name == "dm-multipath" for d in devices):
        out += _dm_candidates(devices)
    if all(d.policy.name == "nvme" for d in devices):
        out += _nvme_candidates(devices, [u for u in undetermined if u.setting == "iopolicy"])
    if all(d.policy.name == "powerpath" for d in devices):
        out += powerpath_candidates(devices)
    if all(d.policy.name == "mpio" for d in devices):
        out += mpio_candidates(devices)
    out.append(Candidate(
        OWN_POLICY, _with_policy(scenario, {"name": "gated-least-load"}), [],
        "pathlab's own policy: not in any shipping stack; shown as the bar the others could reach",
    ))
    return out


def _with_policy(scenario: Scenario, policy: dict[str, Any]) -> dict[str, Any]:
    """Overrides that give every device `policy`: the admin's per-device esxcli commands are
    replaced by it, the claim rules (which choose the SATP) are kept."""
    return {"devices.*.policy": policy, "esxcli": [c for c in scenario.esxcli if "satp rule add" in c]}


def _round_robin_candidates(scenario: Scenario, run: Result) -> list[Candidate]:
    """Round robin after every I/O (with the claim rule for the host's arrays) and the latency
    sub-type, as esxcli sets them per device."""
    rules = sorted({(d.satp or "", d.array.vendor, d.array.model) for d in run.setups})
    psp = {(d.host, d.name): d.policy.name for d in run.setups}  # hosts of a cluster may run different PSPs on one LUN
    out = []
    for label, iops_or_type in (("round robin, iops=1", "iops=1"), ("round robin, latency", "latency")):
        setting = "--type=iops --iops=1" if iops_or_type == "iops=1" else "--type=latency"

        def commands(host: str, name: str, setting: str = setting) -> list[str]:
            switch = [f"esxcli storage nmp device set --device={name} --psp=VMW_PSP_RR"] \
                if psp[host, name] != "VMW_PSP_RR" else []
            return [*switch, f"esxcli storage nmp psp roundrobin deviceconfig set --device={name} {setting}"]

        per_device = _per_host(run.data, commands)
        claim = [
            f"esxcli storage nmp satp rule add -s {satp} -V {vendor}" + (f" -M {model}" if model else "")
            + f" -P VMW_PSP_RR -O {iops_or_type}"
            for satp, vendor, model in rules if vendor
        ] if iops_or_type == "iops=1" else []
        if claim and len(host_views.names(run.data)) > 1:
            claim.insert(0, "# on every host:")
        caveat = "latency sub-type: ESXi 6.7 U1 or later" if iops_or_type == "latency" else \
            "the claim rule applies to LUNs presented after it is added; existing LUNs take the device command"
        if iops_or_type == "iops=1":
            overrides = _with_policy(scenario, {"name": "VMW_PSP_RR", "type": "iops", "iops": 1})
        else:
            # `deviceconfig set --type=latency` keeps each device's I/O limit: simulate it so.
            limits = {d.policy.get("iops", 1000) for d in run.setups}
            latency = {"name": "VMW_PSP_RR", "type": "latency"}
            overrides = _with_policy(scenario, latency | {"iops": limits.pop()}) if len(limits) == 1 else \
                {"esxcli": _with_policy(scenario, {})["esxcli"]} | {
                    f"devices.{i}.policy": latency | {"iops": d.policy.get("iops", 1000)} for i, d in enumerate(run.setups)}
        out.append(Candidate(label, overrides, per_device + claim, caveat))
    return out


def _per_host(data: dict[str, Any], commands: Callable[[str, str], list[str]]) -> list[str]:
    """Each device's commands (`commands` of its host and name); with several hosts, each host's
    under a `# on HOST:` line, since an admin pastes them into each host's shell."""
    every = host_views.names(data)
    out: list[str] = []
    for host in every:
        if len(every) > 1:
            out.append(f"# on {host}:")
        out += [line for d in data["devices"] if d["host"] == host for line in commands(host, d["name"])]
    return out


#: The dm-multipath path selectors worth trying, as multipath.conf spells them.
DM_SELECTORS = ("service-time 0", "queue-length 0", "round-robin 0")


def _dm_candidates(devices: Sequence[Device]) -> list[Candidate]:
    """Each kernel path selector and each path grouping not in force (a failover grouping keeps
    one path busy), with the multipath.conf stanza that sets it for the host's arrays (then
    `multipathd reconfigure`); groupings are simulated like selectors, so an ALUA array's
    non-optimized paths show what multibus costs."""
    selectors = [(selector.split(" ")[0], "selector", "path_selector", selector) for selector in DM_SELECTORS]
    groupings = [(grouping, "path_grouping_policy", "path_grouping_policy", grouping) for grouping in DM_GROUPINGS]
    return [_dm_candidate(devices, *choice) for choice in selectors + groupings
            if {d.policy.get(choice[1]) for d in devices} != {choice[0]}]


#: The path groupings worth trying: every path in one group, or groups by priority (ALUA).
DM_GROUPINGS = ("multibus", "group_by_prio")


def _dm_candidate(devices: Sequence[Device], name: str, param: str, keyword: str, value: str) -> Candidate:
    """Every device with the dm policy parameter `param` set to `name`, and the stanza that sets
    multipath.conf's `keyword` to `value` for the host's arrays."""
    stanza = ["# /etc/multipath.conf", "devices {"]
    for vendor, model in sorted({(d.array.vendor, d.array.model) for d in devices}):
        stanza += ["    device {", f'        vendor "{vendor}"', f'        product "{model}"', f'        {keyword} "{value}"', "    }"]
    stanza += ["}", "multipathd reconfigure"]
    overrides = {f"devices.{i}.policy": {**as_given(d), param: name} for i, d in enumerate(devices)}
    return Candidate(f"dm {name}", overrides, stanza,
                     f"the stanza adds to the device's built-in settings; `multipath -ll` shows the {keyword} in force"
                     + practice_flag(devices, param, name, keyword))


def practice_flag(devices: Sequence[Device], param: str, value: str, setting: str) -> str:
    """What the vendor-practice check would find on the devices with `param` set to `value`
    (`setting` as the check names it), said beside the candidate: advice that its own findings
    would flag is recommended only with the finding, on its simulated figures (issue 32 item 9)."""
    said: dict[tuple[str, str], Departure] = {}
    for d in devices:
        changed = replace(d, policy=replace(d.policy, params={**d.policy.params, param: value}))
        for away in departures(changed)[0]:
            if away.setting == setting:
                said.setdefault((away.row.vendor, away.row.model), away)
    return "".join(f"; {away.setting} {away.in_force} is not {vendor} {model}'s practice ({away.practice}): a "
                   "finding on every device it sets, offered for its simulated figures alone"
                   for (vendor, model), away in sorted(said.items()))


def _nvme_candidates(devices: Sequence[Device], open_iopolicy: Sequence[Undetermined] = ()) -> list[Candidate]:
    """Each native NVMe iopolicy not in force (the kernel's default, or what the vendor's udev
    rule set), set through sysfs now and a udev rule for good. Where a device's iopolicy is not
    determined (`open_iopolicy`: no capture shows it) the setting in force is an assumed one:
    every iopolicy is offered, the assumed one too (the host may run another), and each says that
    it is ranked against the assumed one and which file settles it; on a cluster, on which hosts."""
    in_force = {d.policy["iopolicy"] for d in devices}
    # Each assumed iopolicy and the cluster hosts it is assumed on (none named on one host).
    hosts_of: dict[str, dict[str, None]] = {}
    for d in devices:
        for u in (u for u in open_iopolicy if u.concerns(d)):
            hosts_of.setdefault(d.policy["iopolicy"], {}).update({u.host: None} if u.host is not None else {})
    assumed = sorted(hosts_of)
    settle = ", ".join(dict.fromkeys(u.settle for u in open_iopolicy))
    said = " and ".join(p + (f" on {', '.join(hosts_of[p])}" if hosts_of[p] else "") for p in assumed)
    host = "a host" if any(hosts_of.values()) else "the host"
    out = []
    for iopolicy in policy_choices("nvme", "iopolicy"):
        if in_force == {iopolicy} and not assumed:
            continue
        commands = [
            f"echo {iopolicy} | tee /sys/class/nvme-subsystem/nvme-subsys*/iopolicy",
            "# for good, /etc/udev/rules.d/71-nvme-iopolicy.rules:",
            f'ACTION=="add|change", SUBSYSTEM=="nvme-subsystem", ATTR{{subsystype}}=="nvm", ATTR{{iopolicy}}="{iopolicy}"',
        ]
        notes = ["queue-depth: kernel 6.11 or later"] if iopolicy == "queue-depth" else []
        if iopolicy in assumed:
            notes.append(f"the setting in force is simulated as {said}, assumed, so {iopolicy} ranks as it does: it "
                         f"changes something only if {host} runs another iopolicy")
        against = f"the iopolicy in force is not determined ({settle}): every candidate is ranked against {said}, " \
                  "assumed" if assumed else ""
        overrides = {f"devices.{i}.policy": {"name": "nvme", "iopolicy": iopolicy} for i, _ in enumerate(devices)}
        out.append(Candidate(f"nvme {iopolicy}", overrides, commands, "; ".join(notes), against))
    return out
