"""`advise --failures` on a cluster: one set of failure timers on every host. The hosts must run
one stack and the same timers in force (their `[host.stack]` tables, or what each imported
host's files give); a candidate's timers are set on every host (`host.stack.KEY` and
`hosts.N.stack.KEY`, since the engine reads each host's own table) and applied there by the same
commands, run on each host."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from pathlab.advisor.as_run import as_run, set_value
from pathlab.advisor.timer_candidates import TimerCandidate, in_force
from pathlab.api import Scenario, ScenarioError
from pathlab.importer.timer_values import TimerValue


def check_alike(scenario: Scenario, timers: Mapping[str, Sequence[TimerValue]] | None = None) -> None:
    """Refuses, in one line, a cluster whose hosts run several stacks or different timers in force
    (`timers`: each imported host's as read, by host name)."""
    devices = scenario.devices
    stacks = {d.host: d.stack for d in devices}
    first = scenario.hosts[0]
    for host, stack in stacks.items():
        if stack != stacks[first]:
            raise ScenarioError(scenario.file, "--failures", f"{host} runs {stack} and {first} {stacks[first]}: a "
                                                             "cluster's failure timers are advised for one stack (advise "
                                                             "each stack's hosts on their own)")
    for key, _ in scenario.overrides:
        if key.startswith("hosts.") and ".stack" in key:
            raise ScenarioError(scenario.file, key, "one host's timers: set a cluster's with host.stack.KEY, which "
                                                    "advise --failures sets on every host")
    tables = as_run(scenario)
    own = (tables.get("host", {}) or {}).get("stack", {}) or {}
    for i, other in enumerate(tables.get("hosts", []) or []):
        if (other.get("stack", {}) or {}) != own:
            raise ScenarioError(scenario.file, f"hosts.{i}.stack", f"{other.get('name')}'s failure timers differ from "
                                                                   f"{first}'s ([host.stack]): advise --failures on a "
                                                                   "cluster runs one set on every host (give each the same)")
    if timers:
        said = {host: in_force(scenario, [d for d in devices if d.host == host], read).timers
                for host, read in timers.items()}
        for host, found in said.items():
            if found != said[first]:
                raise ScenarioError(scenario.file, "--failures", f"{host}'s files give other failure timers than "
                                                                 f"{first}'s: advise --failures on a cluster runs one "
                                                                 "set on every host (advise each host alone)")


def on_every_host(scenario: Scenario) -> Scenario:
    """The scenario with the user's own `host.stack.KEY` overrides set on every host, as a
    cluster's timers in force are read (the engine would give them to the first host alone)."""
    extra = _every_host({k: set_value(v) for k, v in scenario.overrides if k.startswith("host.stack")}, scenario)
    return scenario.with_set(extra) if extra else scenario


def for_every_host(candidate: TimerCandidate, scenario: Scenario) -> TimerCandidate:
    """The candidate with its `[host.stack]` timers set on each host of the cluster."""
    return replace(candidate, overrides={**candidate.overrides, **_every_host(candidate.overrides, scenario)})


def _every_host(overrides: Mapping[str, Any], scenario: Scenario) -> dict[str, Any]:
    """`hosts.N.KEY` for each `host.KEY` of `overrides` that sets a timer, N over the `[[hosts]]`."""
    more = len(scenario.hosts) - 1
    return {f"hosts.{n}.{key.removeprefix('host.')}": value for key, value in overrides.items()
            if key.startswith("host.stack") for n in range(more)}
