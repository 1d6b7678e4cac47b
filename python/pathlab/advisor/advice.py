"""The advisor's answer, typed: what `pathlab.advise` returns and `pathlab advise` prints
(`output/advice.py` renders it). Findings, each candidate simulated on the host with its 95%
intervals and gain range, the recommendation with its commands, and the values assumed."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, NamedTuple

from pathlab.advisor.candidates import Candidate
from pathlab.advisor.capture_check import CaptureCheck
from pathlab.advisor.decide import MARGIN, Decision
from pathlab.advisor.model_error import ModelError, host_families, of_candidate
from pathlab.advisor.ranges import GainRanges
from pathlab.advisor.ranked import Ranked
from pathlab.advisor.run_length import RunLength
from pathlab.api import Scenario
from pathlab.assumption import Assumption
from pathlab.devices import Device
from pathlab.finding import Finding

if TYPE_CHECKING:  # pandas is imported where a table is asked for: `import pathlab` stays quick
    import pandas as pd

#: What to capture so that advise can predict a gain, by the host's stack: the performance
#: counters each importer reads as the host's load (5 s samples for 5 minutes).
CAPTURE_COMMANDS = {
    "esxi": ["esxtop -b -d 5 -n 61 > esxtop.csv",
             "esxcli storage nmp device list > devices.txt; esxcli storage nmp path list > paths.txt"],
    "linux": ["multipath -ll > multipath.txt", "iostat -xt 5 61 > iostat.txt   # or: for i in $(seq 61); do date +%s; "
              "cat /proc/diskstats; sleep 5; done > diskstats.txt"],
    "nvme": ["nvme list-subsys > subsys.txt", "iostat -xt 5 61 > iostat.txt",
             "grep -r . /sys/block/nvme*c*n*/{queue_depth,ana_state,diag/*} /sys/class/nvme/nvme*/diag/* "
             "/sys/class/nvme-subsystem/nvme-subsys*/iopolicy > sysfs.txt"
             "   # the iopolicy in force; kernels of 2026: per-path failover, retry and error counters"],
    "powerpath": ["# powermt's queued-IOs is one snapshot, no rate, and pathlab reads no PowerPath host's counters yet:",
                  "pathlab import powermt.txt > host.toml",
                  "# set its [[workloads]] to the pseudo devices' load (iostat -xt 5 61 on Linux),",
                  "pathlab advise host.toml"],
    "windows": ["# pathlab reads no Windows performance counters yet: write the host's scenario,",
                "pathlab import mpclaim.txt > host.toml",
                "# set its [[workloads]] to the disks' load (Get-Counter '\\PhysicalDisk(*)\\Current Disk Queue Length'),",
                "pathlab advise host.toml"],
}

#: The label of the candidate that changes nothing.
IN_FORCE = "the setting in force"


class Interval(NamedTuple):
    """A figure's mean over seeds with the half-width of its 95% interval."""

    mean: float
    half_width: float

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width


@dataclass(frozen=True)
class CandidateResult:
    """A candidate setting simulated on the host over seeds, on the same I/Os as the others."""

    candidate: Candidate
    #: Figure (iops, resp_ms, p99_ms, failed) to its mean and 95% interval over the seeds.
    figures: Mapping[str, Interval]
    #: The I/O rate against the setting in force's; NaN where the setting in force moved no I/O.
    gain: float
    #: The lowest and highest gain over the spans of the assumptions that matter (port capacity,
    #: load), or None where the prediction rests on none.
    gain_range: tuple[float, float] | None
    #: Seeds it was simulated over (fewer than asked when the intervals decided sooner).
    seeds: int
    #: The model's error on the nearest validated change, which its gain is rounded to; None for
    #: the setting in force (no change).
    model_error: ModelError | None = None
    #: On a cluster: each host's figures (iops, resp_ms, p99_ms) in the same runs, host → figure →
    #: mean and 95% interval (`host_figures`); empty for one host.
    hosts: Mapping[str, Mapping[str, Interval]] = field(default_factory=dict)
    #: On a cluster: each host's lowest and highest gain over the assumptions' spans, where the
    #: gains are ranges (`ranges.GainRanges.hosts`).
    host_gain_ranges: Mapping[str, tuple[float, float]] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.candidate.label

    @property
    def commands(self) -> list[str]:
        """The commands that apply it on the host, one per line."""
        return self.candidate.commands

    @property
    def caveat(self) -> str:
        return self.candidate.caveat

    @property
    def overrides(self) -> dict[str, Any]:
        """What it sets on the host's scenario (dotted key to value)."""
        return self.candidate.overrides


@dataclass(frozen=True)
class GroupResult:
    """A group of a cluster's hosts that reach the arrays alike (`host_groups`): the setting its
    own figures choose, and what the recommendation gives it, both from the cluster's runs."""

    #: How its hosts reach the arrays ("r1: 4 ports at 2 µs one way; r2: 4 ports at 252 µs one way").
    reach: str
    hosts: tuple[str, ...]
    #: The candidate the group's own figures (its hosts' rates summed, their worst p99) choose
    #: by the objective, or the setting in force.
    own_choice: str
    #: The recommended setting's I/O rate on the group's hosts against the setting in force's; NaN
    #: when the setting in force is kept.
    gain: float
    #: The same for the group's worst p99 (below 1: shorter).
    p99_ratio: float


@dataclass(frozen=True)
class Recommendation:
    """Whether to change, to what, and why."""

    #: The candidate to change to, or None: keep the setting in force.
    candidate: CandidateResult | None
    #: Why, in one sentence, with the figures that decided it.
    reason: str
    #: The smallest gain worth a change, as a share of the setting in force's figure.
    margin: float = MARGIN
    #: What the captures did not show of the setting the change replaces (an NVMe iopolicy, a
    #: dm grouping): the gain is against an assumed setting, which the host may not run.
    in_force_assumed: tuple[Assumption, ...] = ()

    @property
    def change(self) -> bool:
        return self.candidate is not None

    @property
    def to(self) -> str:
        return self.candidate.label if self.candidate else IN_FORCE

    @property
    def commands(self) -> list[str]:
        return self.candidate.commands if self.candidate else []


@dataclass(frozen=True)
class Advice:
    """What to change on a host, and what it gains, simulated on the host's own scenario."""

    #: What was advised on (the files, capture or scenario as given).
    subject: str
    #: The host's scenario as simulated (variant and overrides applied).
    scenario: Scenario
    #: What a change must improve: balanced, throughput or latency.
    objective: str
    findings: tuple[Finding, ...]
    #: Every candidate in the objective's order; empty when nothing was simulated (no measured load).
    candidates: tuple[CandidateResult, ...]
    #: None when nothing was simulated: `capture_needed` says what to capture.
    recommendation: Recommendation | None
    #: Values the captures did not give: the prediction rests on them.
    assumptions: tuple[Assumption, ...] = ()
    #: What the gain ranges are over (the assumptions' spans); None when gains are single figures.
    gain_range_over: tuple[str, ...] | None = None
    #: How long each run simulated and why; None when nothing was simulated.
    run_length: RunLength | None = None
    #: The run length at each span's end the ranges were simulated at, as (end, length).
    run_lengths_at_ends: tuple[tuple[str, RunLength], ...] = ()
    #: Set when the captures carry no performance counters: the host's stack, for what to capture.
    unmeasured_stack: str | None = None
    #: The setting in force, simulated, against the captured rate and response of each device,
    #: with the values fitted to make them agree; None where no capture measured a device's load.
    #: When they do not agree, nothing is ranked and `capture_check.why` says why.
    capture_check: CaptureCheck | None = None
    #: A cluster's hosts, simulated together (every candidate's figures are the cluster's: the
    #: total I/O rate, the worst host's p99; each host's in `CandidateResult.hosts`); empty for one host.
    hosts: tuple[str, ...] = ()
    #: A cluster's groups of hosts that reach the arrays alike, each with its own choice and gain;
    #: empty for one host or when every host reaches them alike.
    groups: tuple[GroupResult, ...] = ()
    #: The host the output is narrowed to (`--host`): the cluster simulated whole, this host's
    #: findings, figures and commands shown.
    shown_host: str | None = None

    def __repr__(self) -> str:
        rec = self.recommendation
        said = ("no prediction: the setting in force does not reproduce the captures" if self.unreproduced else
                "no prediction: capture the host's load") if rec is None else \
            f"change to {rec.to}" if rec.candidate else "keep the setting in force"
        error = rec.candidate.model_error if rec and rec.candidate else None
        gain = f" ({error.gain_text(rec.candidate.gain) if error else f'{rec.candidate.gain:.2f}x'})" \
            if rec and rec.candidate else ""
        return f"<pathlab.Advice {self.subject}: {said}{gain}; {len(self.candidates)} candidates, {len(self.findings)} findings>"

    @property
    def in_force(self) -> CandidateResult | None:
        """The setting in force, as simulated (the gains' reference); None when nothing was
        simulated (captures without performance counters)."""
        return next((c for c in self.candidates if c.label == IN_FORCE), None)

    @property
    def unreproduced(self) -> bool:
        """Whether the setting in force, simulated, could not be made to reproduce the captures
        (then nothing is predicted)."""
        return self.capture_check is not None and not self.capture_check.agrees

    @property
    def commands(self) -> list[str]:
        """The commands to paste: the recommended change's, or what to capture when no gain could
        be predicted; none when the setting in force is kept."""
        commands = self.recommendation.commands if self.recommendation else list(self.capture_needed or [])
        if self.shown_host is None:
            return commands
        from pathlab.advisor.group_candidate import commands_for

        return commands_for(commands, [self.shown_host])

    @property
    def capture_needed(self) -> list[str] | None:
        return CAPTURE_COMMANDS[self.unmeasured_stack] if self.unmeasured_stack else None

    @property
    def candidates_table(self) -> pd.DataFrame:
        """One row per candidate: its figures' means and 95% half-widths, gain and gain range as
        simulated, and the model's error on the nearest validated change (NaN for the setting in force)."""
        import pandas as pd

        rows = []
        for c in self.candidates:
            row: dict[str, Any] = {"setting": c.label}
            for key, figure in c.figures.items():
                row[f"{key}_mean"], row[f"{key}_ci95"] = figure
            low, high = c.gain_range or (math.nan, math.nan)
            rows.append(row | {"gain": c.gain, "gain_low": low, "gain_high": high, "seeds": c.seeds,
                               "model_error": c.model_error.error if c.model_error else math.nan})
        return pd.DataFrame(rows)

    @property
    def hosts_table(self) -> pd.DataFrame:
        """On a cluster: one row per candidate and host, the host's figures' means and 95%
        half-widths in the cluster's runs (empty for one host)."""
        import pandas as pd

        rows = []
        for c in self.candidates:
            for host, figures in c.hosts.items():
                row: dict[str, Any] = {"setting": c.label, "host": host}
                for key, figure in figures.items():
                    row[f"{key}_mean"], row[f"{key}_ci95"] = figure
                rows.append(row)
        return pd.DataFrame(rows)

    @property
    def findings_table(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame([{"title": f.title, "evidence": f.evidence, "normal": f.normal} for f in self.findings],
                            columns=["title", "evidence", "normal"])

    def to_dict(self) -> dict[str, Any]:
        """The advice as `pathlab advise --format json` prints it (JSON-able)."""
        from pathlab.output.advice import document

        return document(self)

    def to_text(self, verbose: bool = False) -> str:
        """The advice as `pathlab advise` prints it (`verbose`: as `--verbose` does)."""
        from pathlab.output.advice import text

        return text(self, verbose)

    def _repr_html_(self) -> str:
        from pathlab.output.advice import notebook_html

        return notebook_html(self)


def typed(ranked: list[Ranked], ranges: GainRanges | None, devices: Sequence[Device] = ()) -> tuple[CandidateResult, ...]:
    """The ranking's candidates as typed results, with their gain ranges and the model's error on
    the nearest validated change (for the host's `devices`: their arrays and policies)."""
    families = host_families((d.array.vendor, d.array.model, d.satp) for d in devices)
    policies = {d.policy.name for d in devices}
    in_force = next((r for r in ranked if r.candidate.label == IN_FORCE), None)

    def error(r: Ranked) -> ModelError | None:
        if r.candidate.label == IN_FORCE:
            return None
        found = of_candidate(r.candidate.label, families, policies)
        return replace(found, seed_half_width=gain_half_width(r, in_force)) if in_force else found

    return tuple(CandidateResult(r.candidate, {k: Interval(*v) for k, v in r.figures.items()}, r.gain,
                                 ranges.gains.get(r.candidate.label) if ranges else None, r.seeds, error(r),
                                 {h: {k: Interval(*v) for k, v in f.items()} for h, f in r.hosts.items()},
                                 ranges.hosts.get(r.candidate.label, {}) if ranges else {})
                 for r in ranked)


def gain_half_width(r: Ranked, in_force: Ranked) -> float:
    """The 95% half-width of a gain (a ratio of two I/O rates) over the seeds, from each rate's own:
    relative half-widths added in quadrature (0 where a rate has no interval: one seed)."""
    shares = [hw / mean for mean, hw in (r.figures["iops"][:2], in_force.figures["iops"][:2])
              if mean > 0 and math.isfinite(hw)]
    return abs(r.gain) * math.sqrt(sum(s * s for s in shares)) if math.isfinite(r.gain) else 0.0


def recommended(decision: Decision, candidates: tuple[CandidateResult, ...],
                assumptions: Sequence[Assumption] = ()) -> Recommendation:
    """The decision, on the typed candidates, with the assumed values of the setting it replaces."""
    choice = decision.choice
    chosen = next(c for c in candidates if c.label == choice.candidate.label) if choice else None
    return Recommendation(chosen, decision.reason, MARGIN, _replaced(assumptions, chosen))


def _replaced(assumptions: Sequence[Assumption], chosen: CandidateResult | None) -> tuple[Assumption, ...]:
    """The assumptions about the devices' policy in force (`devices.D.policy`, or one of its keys)
    that the chosen candidate's policy sets."""
    policy = chosen.overrides.get("devices.*.policy") if chosen else None
    if not isinstance(policy, dict):
        return ()

    def replaced(field: str) -> bool:
        parts = field.split(".")
        if len(parts) < 3 or parts[0] != "devices" or "policy" not in parts[2:]:
            return False
        key = parts[parts.index("policy", 2) + 1:]
        return not key or key[0] in policy
    return tuple(a for a in assumptions if replaced(a.field))


def advice_of(subject: str, scenario: Scenario, objective: str, findings: list[Finding], ranked: list[Ranked],
              decision: Decision | None, assumptions: Sequence[tuple[str, str]] = (),
              ranges: GainRanges | None = None, run_length: RunLength | None = None,
              run_lengths_at_ends: Sequence[tuple[str, RunLength]] = (),
              unmeasured_stack: str | None = None, capture_check: CaptureCheck | None = None,
              hosts: Sequence[str] = (), groups: Sequence[GroupResult] = (), shown_host: str | None = None,
              devices: Sequence[Device] | None = None) -> Advice:
    """The advice from the advisor's products: the ranking in the objective's order, the decision
    on it, and the gain ranges over the assumptions' spans. `devices`: the scenario's devices as a
    run of it resolved them, where the caller holds them (a cluster's pilot's: resolving them
    again builds the cluster's model, 1.2 s of CPU on 32 hosts × 500 devices × 8 paths); their
    arrays, claims and policies are the scenario's whatever the run's length."""
    candidates = typed(ranked, ranges, scenario.devices if devices is None else devices) if ranked else ()
    assumed = tuple(Assumption(*a) for a in assumptions)
    return Advice(subject, scenario, objective, tuple(findings), candidates,
                  recommended(decision, candidates, assumed) if decision else None, assumed,
                  tuple(ranges.over) if ranges else None, run_length, tuple(run_lengths_at_ends), unmeasured_stack,
                  capture_check, tuple(hosts), tuple(groups), shown_host)
