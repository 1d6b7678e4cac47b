"""A setting per group of hosts, as one candidate: where the groups of a cluster (`host_groups`)
each do best with a different setting, every host's devices get their group's, simulated with the
whole cluster on the same I/Os as the other candidates; its commands are each group's for its
hosts. `commands_for` takes one host's (or some hosts') lines out of a candidate's commands."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from pathlab.advisor.candidate import Candidate
from pathlab.advisor.host_groups import HostGroup
from pathlab.api import Scenario

#: The header `candidates._per_host` writes above each host's commands, and above the claim rule.
ON_HOST, EVERY_HOST = "# on {}:", "every host"
#: The header `by_group` writes above each group's blocks: its hosts, how they reach the arrays, its setting.
GROUP_HEADER = "# hosts {} ({}): {}"
#: The candidate's label (which group gets which: its commands, and the advice's groups).
PER_GROUP = "a setting per host group"


def commands_for(commands: Sequence[str], hosts: Collection[str], every_host: bool = True) -> list[str]:
    """The lines of `commands` for `hosts`: each `# on HOST:` block of one of them, the lines
    before any block (a multipath.conf stanza is every host's), the `# on every host:` block
    (a claim rule) unless `every_host` is false, and a group's `# hosts …:` header (`by_group`) with
    the lines under it where the group has one of them."""
    out, keep = [], True
    for line in commands:
        if line.startswith("# on ") and line.endswith(":"):
            who = line[len("# on "):-1]
            keep = who in hosts or (who == EVERY_HOST and every_host)
        elif line.startswith("# hosts "):  # a group's header, and its lines up to its first host's block
            keep = any(h in hosts for h in _group_hosts(line))
        if keep:
            out.append(line)
    return out


def _group_hosts(header: str) -> list[str]:
    """The hosts a `GROUP_HEADER` line names (host names hold no comma nor space)."""
    return header[len("# hosts "):].split(" (", 1)[0].split(", ")


def by_group(scenario: Scenario, choices: Sequence[tuple[HostGroup, Candidate]]) -> Candidate:
    """Each group's hosts with their group's candidate: every device's policy as that candidate
    resolves it on the device (explicit, so no per-device esxcli command of another group's
    reaches it; the claim rules are kept), and each group's commands for its hosts alone (no
    claim rule: one rule for every host cannot give the groups different settings)."""
    resolved = {c.label: scenario.with_set(c.overrides, to_run=True).devices for _, c in choices}
    candidate_of = {h: c for g, c in choices for h in g.hosts}
    overrides: dict[str, object] = {"esxcli": [c for c in scenario.esxcli if "satp rule add" in c]}
    for i, d in enumerate(scenario.devices):
        table = resolved[candidate_of[d.host].label][i].policy.table()
        overrides[f"devices.{i}.policy"] = {k: v for k, v in table.items() if v is not None}  # None: the claim's
    commands: list[str] = []
    for g, c in choices:
        own = commands_for(c.commands, g.hosts, every_host=False)
        commands += [GROUP_HEADER.format(", ".join(g.hosts), g.reach, c.label), *(own or ["#   nothing to change"])]
    return Candidate(PER_GROUP, overrides, commands,
                     "the groups get different settings: set each group's devices with the commands above, not with "
                     "one claim rule for every host")
