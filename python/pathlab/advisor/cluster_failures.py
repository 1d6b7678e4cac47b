"""`advise --failures` on an imported cluster: every host's timers as its files give them must be
one set (`cluster_timers`), each host's timer findings titled with its name, then the failures
run on the whole cluster as on a scenario of several hosts (`failure_pipeline`)."""

from __future__ import annotations

from collections.abc import Mapping

from pathlab import host_views
from pathlab.advisor.failure_advice import FailureAdvice
from pathlab.advisor.failure_pipeline import advise_failures
from pathlab.advisor.timer_findings import timer_findings
from pathlab.api import Scenario
from pathlab.finding import Finding
from pathlab.importer.host import Host
from pathlab.progress import Progress


def cluster_failures(scenario: Scenario, name: str, hosts: Mapping[str, Host], kinds: str, objective: str, seeds: int,
                     shown_host: str | None, progress: Progress | None) -> FailureAdvice:
    """The cluster's failure kinds under one set of timers on every host, each imported host's
    timers as read (the first host's said, every host's checked alike)."""
    host_views.check(list(hosts), shown_host, name)
    found = [Finding(f"{host}: {f.title}", f.evidence, f.normal) for host, read in hosts.items()
             if shown_host in (None, host)
             for f in timer_findings(read.stack, read.timers, [d for d in scenario.devices if d.host == host])]
    notes = [] if all(h.measured_load for h in hosts.values()) else [
        "some hosts' captures hold no I/O counters: their load is assumed (the import says how), so the stalls "
        "and failed I/Os hold while their rates are the assumed load's"]
    first = next(iter(hosts.values()))
    return advise_failures(scenario, name, kinds, objective, seeds, first.timers, found, notes, progress,
                           hosts_timers={host: read.timers for host, read in hosts.items()}, shown_host=shown_host)
