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
from dataclasses import replace

from pathlab import host_views
from pathlab.advisor.advice import Advice, GroupResult, advice_of
from pathlab.advisor.candidates import Candidate, candidates
from pathlab.advisor.capture_check import CaptureCheck
from pathlab.advisor.cluster_findings import cluster_findings, per_host
from pathlab.advisor.decide import decide, order
from pathlab.advisor.findings import findings, practice_findings, printed_configs
from pathlab.advisor.group_candidate import by_group
from pathlab.advisor.group_decision import own_choice, per_group_decision
from pathlab.advisor.host_groups import HostGroup, group_ranked, host_groups
from pathlab.advisor.ranges import AtEnd, Span, end_labels, gain_ranges
from pathlab.advisor.rank import figures_of, rank_together
from pathlab.advisor.ranked import Ranked
from pathlab.advisor.run_length import RunLength
from pathlab.advisor.timer_findings import timer_findings
from pathlab.api import Result, Scenario
from pathlab.devices import Device
from pathlab.finding import Finding
from pathlab.importer.captured_load import CapturedLoad
from pathlab.importer.host import Host
from pathlab.importer.imported import Undetermined
from pathlab.progress import Progress, run_batch
from pathlab.study.executor import LOCAL, Executor


def advise_cluster(scenario: Scenario, subject: str, objective: str, seeds: int, length: RunLength,
                   imported: Mapping[str, Host] | None = None, assumptions: Sequence[tuple[str, str]] = (),
                   shown_host: str | None = None, progress: Progress | None = None,
                   chosen: tuple[list[Candidate], list[list[Device]]] | None = None,
                   capture_check: CaptureCheck | None = None, spans: Sequence[Span] = (),
                   at_ends: Sequence[tuple[AtEnd, RunLength]] | Callable[[], Sequence[tuple[AtEnd, RunLength]]] = (),
                   executor: Executor = LOCAL) -> Advice:
    """The cluster's advice (`scenario` with every host, its run length set to `length`, and the
    values fitted to the captures set);
    `imported`: each host as its captures were read, for their findings; `shown_host`: the host
    the advice is narrowed to (checked against the scenario's hosts before anything runs);
    `chosen`: the candidates and their resolved devices, where a pilot run chose the length;
    `capture_check`: the setting in force against every host's captures (`captured_of`);
    `spans`: the imported hosts' assumptions that move a gain (`ranges.span_ends`), and `at_ends` the
    cluster at each end with its run length, ranked beside it for each candidate's gain range (or
    what gives them once their pilots are done: they run beside the setting in force's, `end_pilots`);
    `executor`: where the candidates' runs go."""
    if shown_host is not None:  # the devices' hosts only where one is to be checked: resolving them builds the cluster
        host_views.check(list(dict.fromkeys(d.host for d in scenario.devices)), shown_host, subject)
    if imported and not all(h.measured_load for h in imported.values()):
        # No counters on some host: findings from the listings alone, and no simulated gain (as for one host).
        stack = next(h.stack for h in imported.values() if not h.measured_load)
        found = _captured(imported) + _listed(scenario.devices, imported)
        return advice_of(subject, scenario, objective, _narrowed(found, shown_host), [], None, assumptions,
                         unmeasured_stack=stack, hosts=list(imported), shown_host=shown_host)
    if imported and capture_check is not None and not capture_check.agrees:
        # The setting in force does not reproduce the captures: a gain against it would be another cluster's.
        found = _captured(imported) + _listed(scenario.devices, imported)
        return advice_of(subject, scenario, objective, _narrowed(found, shown_host), [], None, assumptions,
                         capture_check=capture_check, hosts=list(imported), shown_host=shown_host)
    said = progress or Progress()
    said.stage("the setting in force's run and findings")
    (in_force,) = run_batch([scenario], progress, path_intervals=False)
    hosts = host_views.names(in_force.data)
    found = _captured(imported or {}) + cluster_findings(in_force) + per_host(in_force, _host_findings(imported or {}))
    cands, resolved = chosen or (candidates(scenario, in_force, undetermined_of(imported)), None)
    groups = host_groups(in_force.data)
    # The setting in force's seed 1 as the ranking keeps it: the whole run (every path's row) let go before the ranking.
    in_force = figures_of(in_force)
    ends: list[tuple[AtEnd, RunLength]] = []  # once the ends' pilots are done (`measured`)

    def each_length(of: list[Candidate], devices: list[list[Device]] | None,
                    lengths: list[RunLength]) -> list[list[dict[str, str]]]:
        """Per scenario of `lengths`' (the cluster, then each span's end), each candidate's run length."""
        return [[n.overrides(d) for d in devices] if devices else [n.overrides()] * len(of) for n in lengths]

    def measured() -> tuple[list[AtEnd], list[list[dict[str, str]]]]:
        """The ends and their candidates' lengths, asked by the ranking once the cluster's first runs are started."""
        ends.extend(at_ends() if callable(at_ends) else at_ends)
        return [end for end, _ in ends], each_length(cands, resolved, [n for _, n in ends])

    said.stage("the ranking")
    ranked, *ranked_at_ends = rank_together([scenario], cands, seeds, each_length(cands, resolved, [length]), in_force,
                                            resolved, per_host=True, executor=executor, later=measured)
    scenarios: list[Scenario | AtEnd] = [scenario, *(end for end, _ in ends)]
    decision = decide(ranked, objective)
    own = [own_choice(ranked, g, decision.choice or ranked[0], objective) for g in groups] if len(groups) > 1 else []
    if any(o is not (decision.choice or ranked[0]) for o in own):
        # A group does better with a setting of its own, beyond the intervals: each group's, simulated with the others.
        said.stage("a setting per host group")
        mixed = by_group(scenario, [(g, o.candidate) for g, o in zip(groups, own)])
        pair = [cands[0], mixed]
        devices = resolved and [resolved[0], scenario.with_set(mixed.overrides, to_run=True).devices]
        for ranking, (_, extra) in zip([ranked, *ranked_at_ends],
                                       rank_together(scenarios, pair, seeds,
                                                     each_length(pair, devices, [length, *(n for _, n in ends)]), in_force,
                                                     devices, per_host=True, executor=executor)):
            extra.gain = extra.figures["iops"][0] / ranking[0].figures["iops"][0]
            ranking.append(extra)
        decision = per_group_decision(decision, ranked[-1], ranked[0], objective)
    said.stage("the advice")
    results = [_group_result(ranked, g, o, decision.choice) for g, o in zip(groups, own)]
    return advice_of(subject, scenario, objective, _narrowed(found, shown_host), order(ranked, objective), decision,
                     assumptions, gain_ranges(list(spans), ranked, ranked_at_ends), length,
                     list(zip(end_labels(list(spans)), (n for _, n in ends))), capture_check=capture_check,
                     hosts=hosts, groups=results, shown_host=shown_host, devices=resolved[0] if resolved else None)


def undetermined_of(imported: Mapping[str, Host] | None) -> list[Undetermined]:
    """Every host's settings its captures leave open, each keyed by its host too: the hosts name a
    shared LUN alike, and one host's iopolicy may be read where another's is assumed."""
    return [replace(u, host=name) for name, host in (imported or {}).items() for u in host.undetermined]


def captured_of(imported: Mapping[str, Host]) -> list[CapturedLoad]:
    """Every host's captured load, each device named as the cluster's workloads name it (`HOST/NAME`)."""
    return [replace(c, device=f"{name}/{c.device}") for name, host in imported.items() for c in host.captured]


def _listed(devices: list[Device], imported: Mapping[str, Host]) -> list[Finding]:
    """Each imported host's vendor-practice departures and timers, from its listings alone."""
    out = []
    for name, host in imported.items():
        own = [d for d in devices if d.host == name]
        out += [Finding(f"{name}: {f.title}", f.evidence, f.normal) for f in
                practice_findings(own, undetermined=host.undetermined) + timer_findings(host.stack, host.timers, own)]
    return out


def _group_result(ranked: list[Ranked], group: HostGroup, own: Ranked, chosen: Ranked | None) -> GroupResult:
    """The group's own choice (`own_choice`), and the recommendation's gain on its hosts."""
    if chosen is None:
        return GroupResult(group.reach, group.hosts, own.candidate.label, math.nan, math.nan)
    on_group = group_ranked(ranked, group)
    mine = on_group[ranked.index(chosen)]
    base = on_group[0].figures["p99_ms"][0]
    return GroupResult(group.reach, group.hosts, own.candidate.label, mine.gain,
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
