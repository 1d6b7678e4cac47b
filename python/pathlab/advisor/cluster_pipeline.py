"""Advice for a cluster: several hosts on shared LUNs and array ports, simulated together. The
setting in force runs once for the findings (each host's own, and the cluster's: disagreeing
settings, skipped ports, shared hot ports); every candidate is one simulation of every host at
once, on the same I/Os (same seeds), ranked by the cluster's objective (the total I/O rate, the
worst host's p99) with each host's figures beside it. Hosts that reach the arrays differently
(`host_groups`) are judged on their own figures from the same runs; where their choices differ,
a setting per group is simulated as one more candidate. `shown_host` narrows what is said to one
host, never what is simulated."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from pathlab import host_views
from pathlab.advisor.advice import IN_FORCE, Advice, GroupResult, advice_of
from pathlab.advisor.candidates import Candidate, candidates
from pathlab.advisor.cluster_findings import cluster_findings, per_host
from pathlab.advisor.decide import decide, order
from pathlab.advisor.findings import findings, practice_findings, printed_configs
from pathlab.advisor.group_candidate import by_group
from pathlab.advisor.host_groups import HostGroup, group_choice, host_groups
from pathlab.advisor.rank import rank_together
from pathlab.advisor.ranked import Ranked
from pathlab.advisor.run_length import RunLength
from pathlab.advisor.timer_findings import timer_findings
from pathlab.api import Result, Scenario
from pathlab.devices import Device
from pathlab.finding import Finding
from pathlab.importer.host import Host
from pathlab.progress import Progress, run_batch
from pathlab.study.executor import LOCAL, Executor


def advise_cluster(scenario: Scenario, subject: str, objective: str, seeds: int, length: RunLength,
                   imported: Mapping[str, Host] | None = None, assumptions: Sequence[tuple[str, str]] = (),
                   shown_host: str | None = None, progress: Progress | None = None,
                   chosen: tuple[list[Candidate], list[list[Device]]] | None = None, executor: Executor = LOCAL) -> Advice:
    """The cluster's advice (`scenario` with every host, its run length set to `length`);
    `imported`: each host as its captures were read, for their findings; `shown_host`: the host
    the advice is narrowed to (checked against the scenario's hosts before anything runs);
    `chosen`: the candidates and their resolved devices, where a pilot run chose the length;
    `executor`: where the candidates' runs go."""
    host_views.check(list(dict.fromkeys(d.host for d in scenario.devices)), shown_host, subject)
    if imported and not all(h.measured_load for h in imported.values()):
        # No counters on some host: findings from the listings alone, and no simulated gain (as for one host).
        stack = next(h.stack for h in imported.values() if not h.measured_load)
        found = _captured(imported) + _listed(scenario.devices, imported)
        return advice_of(subject, scenario, objective, _narrowed(found, shown_host), [], None, assumptions,
                         unmeasured_stack=stack, hosts=list(imported), shown_host=shown_host)
    (in_force,) = run_batch([scenario], progress, path_intervals=False)
    hosts = host_views.names(in_force.data)
    found = _captured(imported or {}) + cluster_findings(in_force) + per_host(in_force, _host_findings(imported or {}))
    cands, resolved = chosen or (candidates(scenario, in_force), None)

    def lengths(of: list[Candidate], devices: list[list[Device]] | None) -> list[dict[str, str]]:
        return [length.overrides(d) for d in devices] if devices else [length.overrides()] * len(of)

    ranked = _ranked(scenario, cands, seeds, lengths(cands, resolved), in_force, executor, resolved)
    groups = host_groups(in_force.data)
    if len(groups) > 1:
        own = [group_choice(ranked, g, objective)[0] for g in groups]
        if any(_label(o) != _label(decide(ranked, objective).choice) for o in own):
            # The groups do best with different settings: each its own, simulated with the others.
            mixed = by_group(scenario, [(g, o.candidate if o else cands[0]) for g, o in zip(groups, own)])
            pair = [cands[0], mixed]
            _, extra = _ranked(scenario, pair, seeds, lengths(pair, resolved and [resolved[0],
                                                                                  scenario.with_set(mixed.overrides).devices]),
                               in_force, executor)
            extra.gain = extra.figures["iops"][0] / ranked[0].figures["iops"][0]
            ranked.append(extra)
    decision = decide(ranked, objective)
    said = [_group_result(ranked, g, decision.choice, objective) for g in groups] if len(groups) > 1 else []
    return advice_of(subject, scenario, objective, _narrowed(found, shown_host), order(ranked, objective), decision,
                     assumptions, None, length, hosts=hosts, groups=said, shown_host=shown_host)


def _ranked(scenario: Scenario, cands: list[Candidate], seeds: int, lengths: list[dict[str, str]],
            in_force: Result, executor: Executor = LOCAL, resolved: list[list[Device]] | None = None) -> list[Ranked]:
    """The candidates ranked on the whole cluster; `resolved`: their devices where the pilot
    resolved them already (a large cluster's scenario takes seconds to build)."""
    (ranked,) = rank_together([scenario], cands, seeds, [lengths], in_force, resolved, per_host=True, executor=executor)
    return ranked


def _listed(devices: list[Device], imported: Mapping[str, Host]) -> list[Finding]:
    """Each imported host's vendor-practice departures and timers, from its listings alone."""
    out = []
    for name, host in imported.items():
        own = [d for d in devices if d.host == name]
        out += [Finding(f"{name}: {f.title}", f.evidence, f.normal) for f in
                practice_findings(own, undetermined=host.undetermined) + timer_findings(host.stack, host.timers, own)]
    return out


def _label(choice: Ranked | None) -> str:
    return choice.candidate.label if choice else IN_FORCE


def _group_result(ranked: list[Ranked], group: HostGroup, chosen: Ranked | None, objective: str) -> GroupResult:
    """The group's own choice, and the recommendation's gain on its hosts."""
    own, on_group = group_choice(ranked, group, objective)
    if chosen is None:
        return GroupResult(group.reach, group.hosts, _label(own), math.nan, math.nan)
    mine = on_group[ranked.index(chosen)]
    base = on_group[0].figures["p99_ms"][0]
    return GroupResult(group.reach, group.hosts, _label(own), mine.gain,
                       mine.figures["p99_ms"][0] / base if base > 0 else math.nan)


def _captured(imported: Mapping[str, Host]) -> list[Finding]:
    """What each host's captures showed, titled with its host."""
    return [Finding(f"{name}: {f.title}", f.evidence, f.normal) for name, host in imported.items() for f in host.findings]


def _host_findings(imported: Mapping[str, Host]) -> Callable[[str, Result], list[Finding]]:
    """What the run shows of one host (its view), with its vendor-practice departures and, for an
    imported host, its timers."""
    def found_on(host: str, run: Result) -> list[Finding]:
        read = imported.get(host)
        out = findings(run) + practice_findings(run.setups, printed_configs(run), read.undetermined if read else ())
        return out + (timer_findings(read.stack, read.timers, run.setups) if read else [])
    return found_on


def _narrowed(found: list[Finding], host: str | None) -> list[Finding]:
    """The findings about `host` (titled with it, or naming it as one of several), all without one."""
    if host is None:
        return found
    return [f for f in found if host in f.title.split(":", 1)[0].split(", ") or _names(f, host)]


def _names(f: Finding, host: str) -> bool:
    """Whether a cluster finding's text names `host` among the hosts it is about."""
    words = {w.strip(",;:()") for w in f"{f.title} {f.evidence}".split()}
    return host in words
