"""The advisor's answer (`advise.advice.Advice`) as `pathlab advise` prints it: findings, the
candidates with their figures over seeds, and the recommendation with the commands to paste; as
JSON, as the HTML report, and as the short view a notebook shows."""

from __future__ import annotations

import html as html_text
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from pathlab.advisor.advice import Advice, CandidateResult
from pathlab.advisor.candidates import OWN_POLICY
from pathlab.advisor.decide import MARGIN
from pathlab.advisor.group_candidate import PER_GROUP
from pathlab.assumption import Assumption
from pathlab.finding import Finding
from pathlab.output import in_force_capture
from pathlab.output.repeats import alike, counted, hosts_of
from pathlab.output.sink import Output
from pathlab.toml_values import to_toml


@dataclass
class AdviceOutput(Output):
    """The advice for the output sink (`--format`, `--html`)."""

    advice: Advice
    #: With the seeds each candidate took and each run's length (`--verbose`; both always in the JSON).
    verbose: bool = False

    def table(self) -> str:
        return text(self.advice, self.verbose)

    def document(self) -> Any:
        return document(self.advice)

    def html(self, provenance: dict[str, Any]) -> str:
        return report(self.advice, provenance, self.verbose)

def document(a: Advice) -> dict[str, Any]:
    """The JSON document: mappings and lists."""
    rec = a.recommendation
    return {
        "findings": [asdict(f) for f in a.findings],
        "objective": a.objective,
        "candidates": [{**asdict(c.candidate), "figures": {k: list(v) for k, v in c.figures.items()},
                        "gain": _number(c.gain), "gain_range": None if c.gain_range is None else [_number(g) for g in c.gain_range],
                        "simulated": True, "seeds": c.seeds, "model_error": model_error_document(c)}
                       for c in a.candidates],
        "gain_range_over": None if a.gain_range_over is None else list(a.gain_range_over),
        "run_length": None if a.run_length is None else {
            **asdict(a.run_length), "at_span_ends": [{"end": end, **asdict(length)}
                                                     for end, length in a.run_lengths_at_ends]},
        "recommendation": None if rec is None else {
            "change": rec.change, "to": rec.to, "reason": rec.reason, "margin": rec.margin,
            "in_force_assumed": [{"field": f, "assumed": m} for f, m in rec.in_force_assumed]},
        "assumptions": [{"field": f, "assumed": m} for f, m in a.assumptions],
        "capture_needed": a.capture_needed,
        "in_force_against_capture": None if a.capture_check is None else in_force_capture.document(a.capture_check),
    } | (cluster_document(a) if a.hosts else {})


def cluster_document(a: Advice) -> dict[str, Any]:
    """What a cluster's advice adds to the JSON: its hosts, each candidate's figures per host, the
    groups of hosts with their own choice and gain, the host shown and its commands."""
    shown = [a.shown_host] if a.shown_host else list(a.hosts)
    return {"hosts": list(a.hosts), "shown_host": a.shown_host,
            "host_figures": {c.label: {h: {k: list(v) for k, v in c.hosts[h].items()} for h in shown if h in c.hosts}
                             for c in a.candidates},
            "host_gain_ranges": {c.label: {h: [_number(g) for g in c.host_gain_ranges[h]] for h in shown
                                           if h in c.host_gain_ranges} for c in a.candidates if c.host_gain_ranges},
            "groups": [{"reach": g.reach, "hosts": list(g.hosts), "own_choice": g.own_choice, "gain": _number(g.gain),
                        "p99_ratio": _number(g.p99_ratio)} for g in a.groups],
            "commands": a.commands}


def report(a: Advice, provenance: dict[str, Any], verbose: bool = False) -> str:
    """The self-contained HTML report: its findings and assumptions said as the text says them
    (alike ones counted, every one with `verbose`)."""
    from pathlab.output.report.advice import advise_report

    return advise_report(f"pathlab advise: {a.subject}", said_findings(a, verbose) + [f for f in a.findings if f.normal],
                         a.candidates, seeds_taken(a.candidates), as_simulated(a), provenance,
                         recommendation(a) + _cluster_lines(a), said_assumptions(a, verbose),
                         [gain_cell(c) for c in a.candidates], ranges_note(a) + model_error_note(a) + run_length_note(a),
                         f"in force: {a.scenario.setting}",
                         in_force_capture.html(a.capture_check, verbose) if a.capture_check is not None else "")


def _cluster_lines(a: Advice) -> list[str]:
    """What the report adds under a cluster's recommendation: the groups, and each host's figures."""
    return groups_lines(a) + (["", *cluster_candidates(a)] if a.hosts and a.candidates else [])


def as_simulated(a: Advice) -> str:
    """The host's scenario as advise simulated it: the file, then what was set over it, each said
    (`--set`, the run length advise chose, and the load, back end and port times fitted to the
    captures, which the file alone does not hold)."""
    fitted = {k: to_toml(v) for k, v in (a.capture_check.overrides if a.capture_check else {}).items()}
    sets = [f"{k} = {v}  # set over the file: --set, or the run length advise chose" for k, v in a.scenario.overrides
            if k not in fitted]
    sets += [f"{k} = {v}  # fitted to the captures (the setting in force, captured against simulated)"
             for k, v in fitted.items()]
    if not sets:
        return a.scenario.text
    return a.scenario.text.rstrip("\n") + "\n\n# Set over it when simulated (dotted keys, as --set gives them):\n" \
        + "\n".join(sets) + "\n"


def notebook_html(a: Advice) -> str:
    """What a notebook shows of the advice: the recommendation, the candidates' table and the
    findings (the report with its plots is `pathlab advise --html`)."""
    parts = [f"<p><b>pathlab advise: {html_text.escape(a.subject)}</b></p>",
             f"<pre>{html_text.escape(chr(10).join(_capture_check_lines(a) + recommendation(a)))}</pre>"]
    if a.candidates:
        # The gains as the table prints them (to the model's error), not the simulated floats.
        table = a.candidates_table.drop(columns=["gain", "gain_low", "gain_high"])
        table["gain"] = [gain_cell(c) for c in a.candidates]
        table["model error"] = [c.model_error.says if c.model_error else "" for c in a.candidates]
        parts.append(table.to_html(index=False, float_format=lambda x: f"{x:.4g}"))
    if a.hosts and a.candidates:  # a cluster: each host's figures in the same runs
        shown = a.hosts_table if a.shown_host is None else a.hosts_table.query("host == @a.shown_host")
        parts.append(shown.to_html(index=False, float_format=lambda x: f"{x:.4g}"))
    parts.append(a.findings_table.to_html(index=False) if a.findings else "<p>Findings: nothing stands out.</p>")
    return "\n".join(parts)


def _capture_check_lines(a: Advice) -> list[str]:
    return in_force_capture.lines(a.capture_check) if a.capture_check is not None else []


def gain_cell(c: CandidateResult, gain: float | None = None, gain_range: tuple[float, float] | None = None) -> str:
    """The gain as the table shows it: the range over the assumptions' spans where there are
    some, else the one figure; the candidate's own, or one host's (`gain`, `gain_range`)."""
    gain, gain_range = (c.gain, c.gain_range) if gain is None else (gain, gain_range)
    if gain_range is None:
        return gain_text(gain, c)
    low, high = (gain_text(g, c) for g in gain_range)
    return low if math.isnan(gain_range[0]) or low == high else f"{low} to {high}"


def _number(value: float) -> float | None:
    return None if math.isnan(value) else value


def ranges_note(a: Advice) -> list[str]:
    """What the gain ranges are over, or nothing when the gains are single figures."""
    if a.gain_range_over is None:
        return []
    own = [f"  {OWN_POLICY}: its gain at the assumed values alone; never recommended, it is not simulated at the",
           "  spans' ends (and the fabric's distance, which no span covers, moves its gain about twice as much as the",
           "  port capacity's span does: docs, 'Advice ranges')"]
    said = ["Gains are ranges: each candidate a recommendation may choose simulated at both ends of each assumption's",
            "span (the others at their assumed value, the same seeds and I/Os), lowest to highest, over:"]
    return said + [f"    {o}" for o in a.gain_range_over] + (own if any(c.label == OWN_POLICY for c in a.candidates) else [])


def run_length_note(a: Advice) -> list[str]:
    """How long each run simulated and why, with the span ends' lengths where they differ."""
    if a.run_length is None:
        return []
    ends = [f"    at {end}: {length.duration_s:g} s after {length.warmup_s:g} s"
            + (f" ({length.reason})" if length.reason != a.run_length.reason else "")
            for end, length in a.run_lengths_at_ends if not length.same_runs(a.run_length)]
    return [f"Each run simulated {a.run_length.duration_s:g} s after {a.run_length.warmup_s:g} s of warm-up "
            f"({a.run_length.reason}){'; the ends of the spans where they differ:' if ends else '.'}", *ends]


def gain_text(gain: float, c: CandidateResult | None = None) -> str:
    """A gain as people read it, to the precision of the model's error on the candidate's nearest
    validated change (`advise.model_error`); none where the setting in force moved no I/O at all."""
    if math.isnan(gain):
        return "-"
    return c.model_error.gain_text(gain) if c is not None and c.model_error else f"{gain:.2f}x"


def model_error_document(c: CandidateResult) -> dict[str, Any] | None:
    """The model's error a candidate's gain is rounded to, and the rounded gain, for the JSON."""
    e = c.model_error
    if e is None:
        return None
    return {"case": e.case, "error": e.error, "match": e.match,
            "gain": None if math.isnan(c.gain) else e.rounded(c.gain),
            "gain_range": None if c.gain_range is None or math.isnan(c.gain_range[0])
            else [e.rounded(g) for g in c.gain_range]}


def model_error_note(a: Advice) -> list[str]:
    """Each candidate's model error, and the validated case it comes from."""
    said = [c for c in a.candidates if c.model_error]
    if not said:
        return []
    return (["Gains are rounded to the model's error on the nearest validated change (its simulated gain against the",
             "published one; docs/calibration.md):"]
            + [f"    {c.label}: {c.model_error.says}" for c in said if c.model_error])


def _cell(figure: tuple[float, float], digits: int) -> str:
    mean, hw = figure
    return f"{mean:,.{digits}f} ± {hw:,.{digits}f}"


def recommendation(a: Advice) -> list[str]:
    """The recommendation's lines: the change and its commands, or keep, or what to capture."""
    if a.capture_needed:
        return ["No prediction: the captures carry no performance counters over time (one snapshot of the I/Os queued",
                "is no rate), so the host's load is not known and a gain cannot be predicted from them. Take a capture",
                "on the host and run advise again with it:"] + \
               [f"    {c}" for c in a.capture_needed]
    if a.unreproduced:
        return ["No prediction: the setting in force, simulated, does not reproduce what the captures measured (above),",
                "so a gain against it would be a gain on another host."]
    assert a.recommendation is not None
    choice = a.recommendation.candidate
    if choice is None:
        return [f"Recommendation: keep the setting in force ({a.recommendation.reason})."]
    in_force = a.in_force
    assert in_force is not None  # a change is chosen against the setting in force, simulated beside it
    f, base = choice.figures, in_force.figures
    p99 = f["p99_ms"].mean / base["p99_ms"].mean if base["p99_ms"].mean > 0 else float("nan")
    gain = f"{gain_text(choice.gain, choice)} the I/O rate in force" if choice.gain_range is None else \
        f"{gain_cell(choice)} the I/O rate in force over the assumptions' spans, {gain_text(choice.gain, choice)} at " \
        "the assumed values"
    lines = [f"Recommendation: {choice.label} (simulated: {gain}, "
             f"p99 {p99:.2f}x; {a.recommendation.reason})", f"  {assumed_load(a)}"]
    if choice.model_error:
        lines.append(f"  Model error: {choice.model_error.says}")
    commands = a.commands if a.hosts else choice.commands  # a cluster's narrowed to the host shown
    if commands:
        lines += ["  Commands:"] + [f"    {c}" for c in commands]
    if choice.caveat:
        lines.append(f"  Note: {choice.caveat}")
    for field_name, assumed in a.recommendation.in_force_assumed:
        lines.append(f"  Note: the setting it replaces is assumed, not read ({field_name}: {assumed}): if the host "
                     "already runs this setting, there is nothing to change")
    if choice.gain_range is not None and a.objective != "latency":
        low = choice.gain_range[0]
        if low < 1 + MARGIN:  # the decision is on the assumed values; at a span's end the gain is within the margin
            lines.append(f"  Note: at the low end of the assumptions' spans the gain is {gain_text(low, choice)}, within the "
                         f"{MARGIN:.0%} that matters: the change pays only if the assumed values hold; a capture "
                         "with the host's load and its ports' figures tells")
    return lines


def assumed_load(a: Advice) -> str:
    """The load a predicted gain rests on: the captured one, where the setting in force reproduces
    it (every host's, on a cluster), else the scenario's workloads."""
    check = a.capture_check
    if check is None or not check.agrees:
        whose = "hosts'" if a.hosts else "host's"
        return f"The load it assumes: the scenario's [[workloads]], not a capture of the {whose} own"
    rate = sum(d.captured_rate for d in check.devices)
    return (f"The load it assumes: the captured one ({rate:,.0f} I/O per s in force over {len(check.devices)} "
            "device(s)), as the workloads fitted to it issue it (the assumptions: a closed loop keeps its I/Os "
            "outstanding, so a faster setting completes more of them)")


def seeds_taken(candidates: tuple[CandidateResult, ...]) -> str:
    """The seeds the candidates were simulated over, as the outputs say them ("2", "2 to 3");
    none when nothing was simulated."""
    taken = sorted({c.seeds for c in candidates})
    if not taken:
        return "0"
    return f"{taken[0]}" if len(taken) == 1 else f"{taken[0]} to {taken[-1]}"


def text(a: Advice, verbose: bool = False) -> str:
    """The text `pathlab advise` prints; `verbose` adds the seeds each candidate took and each
    run's length."""
    lines = ["Findings (the setting in force):"]
    lines += [f"  - {f}" if isinstance(f, str) else f"  - {f.title}\n      {f.evidence}" for f in said_findings(a, verbose)] \
        or ["  (nothing stands out)"]
    normal = [f for f in a.findings if f.normal]
    if normal:
        lines += ["As the array works (not findings):", *(f"  - {f.title}\n      {f.evidence}" for f in normal)]
    if a.capture_check is not None:
        lines += ["", *in_force_capture.lines(a.capture_check, every=verbose)]
    if a.candidates and a.hosts:
        lines += ["", *cluster_candidates(a)]
        lines += [f"  {line}" for line in ranges_note(a) + model_error_note(a) + (run_length_note(a) if verbose else [])]
    elif a.candidates:
        lines += ["", f"Candidates, simulated on this host on the same I/Os over {seeds_taken(a.candidates)} seeds (mean ± 95% "
                      "interval), "
                      f"in the order of the objective ({a.objective}):"]
        width = max(6, *(len(gain_cell(c)) for c in a.candidates))
        lines.append(f"  {'setting':<28} {'I/O per s':>22} {'mean ms':>16} {'p99 ms':>16} {'gain':>{width}}")
        for c in a.candidates:
            f = c.figures
            lines.append(f"  {c.label:<28} {_cell(f['iops'], 0):>22} {_cell(f['resp_ms'], 3):>16} "
                         f"{_cell(f['p99_ms'], 3):>16} {gain_cell(c):>{width}}")
        assumed = dict.fromkeys(c.candidate.against_assumed for c in a.candidates if c.candidate.against_assumed)
        lines += [f"  {note[:1].upper()}{note[1:]}." for note in assumed]
        if verbose and len({c.seeds for c in a.candidates}) > 1:
            lines.append("  Seeds per candidate (more only while the intervals left the decision open): "
                         + ", ".join(f"{c.label} {c.seeds}" for c in a.candidates))
        lines += [f"  {line}" for line in ranges_note(a) + model_error_note(a) + (run_length_note(a) if verbose else [])]
    lines += [""] + recommendation(a) + groups_lines(a)
    if a.candidates:
        lines.append("  Simulated figures, not measured ones: they rest on the scenario's workload and hardware figures"
                     + (", and on these values the captures do not give:" if a.assumptions else "."))
        lines += [f"    {x}" if isinstance(x, str) else f"    {x[0]}: {x[1]}" for x in said_assumptions(a, verbose)]
    return "\n".join(lines)


def said_findings(a: Advice, every: bool) -> list[Finding | str]:
    """The findings (not the array's normal working) as the outputs say them: every one, or alike
    ones said a few times and then counted (`repeats.counted`)."""
    found = [f for f in a.findings if not f.normal]
    return list[Finding | str](found) if every else counted(found, lambda f: alike(f.title), _more_findings(a))


def said_assumptions(a: Advice, every: bool) -> list[Assumption | str]:
    """The assumptions as the outputs say them: every one, or alike ones counted."""
    given = list(a.assumptions)
    return list[Assumption | str](given) if every else counted(given, lambda x: alike(f"{x[0]}: {x[1]}"),
                                       lambda rest: f"and {len(rest):,} more alike, {rest[0][0]} to {rest[-1][0]} "
                                                    "(every one with --verbose)")


def _more_findings(a: Advice) -> Callable[[list[Finding]], str]:
    """The line that counts the alike findings left out, naming the hosts they are on."""
    def more(rest: list[Finding]) -> str:
        on = hosts_of((f.title for f in rest), a.hosts) if a.hosts else []
        return (f"and {len(rest):,} more alike" + (f" on {', '.join(on)}" if on else "")
                + " (every one with --verbose or --format json)")
    return more


def cluster_candidates(a: Advice) -> list[str]:
    """A cluster's candidates: the cluster's figures (every host's I/O rate, the worst host's p99),
    each host's beneath (the host shown alone with `--host`), its gain rounded as the candidate's
    is and a range where the candidate's is."""
    shown = [a.shown_host] if a.shown_host else list(a.hosts)
    base = a.in_force.hosts if a.in_force else {}

    def host_gain(c: CandidateResult, h: str) -> str:
        rate = base[h]["iops"].mean if h in base else 0.0
        return gain_cell(c, c.hosts[h]["iops"].mean / rate if rate > 0 else math.nan, c.host_gain_ranges.get(h))

    width = max(6, *(len(gain_cell(c)) for c in a.candidates), *(len(host_gain(c, h)) for c in a.candidates for h in shown))
    lines = [f"Candidates, simulated on the whole cluster ({len(a.hosts)} hosts: {', '.join(a.hosts)}) at once, on the "
             f"same I/Os over {seeds_taken(a.candidates)} seeds (mean ± 95% interval), in the order of the objective "
             f"({a.objective}): the cluster's I/O rate and the worst host's p99 (a host's p99: of its own I/Os), "
             "each host's figures beneath",
             f"  {'setting':<28} {'I/O per s':>22} {'mean ms':>16} {'p99 ms':>16} {'gain':>{width}}"]
    for c in a.candidates:
        f = c.figures
        lines.append(f"  {c.label:<28} {_cell(f['iops'], 0):>22} {_cell(f['resp_ms'], 3):>16} "
                     f"{_cell(f['p99_ms'], 3):>16} {gain_cell(c):>{width}}")
        for h in shown:
            own = c.hosts[h]
            lines.append(f"    {h:<26} {_cell(own['iops'], 0):>22} {_cell(own['resp_ms'], 3):>16} "
                         f"{_cell(own['p99_ms'], 3):>16} {host_gain(c, h):>{width}}")
    return lines


def groups_lines(a: Advice) -> list[str]:
    """Which hosts get which setting and why: each group of hosts that reach the arrays alike,
    the setting its own figures choose (where they tell it from the cluster's), the
    recommendation's gain on it, and why one setting serves every host where a setting per group
    was simulated and not chosen."""
    if not a.groups:
        return []
    lines = ["  Hosts by how they reach the arrays (each group's figures from the same runs):"]
    chosen = a.recommendation.candidate if a.recommendation else None  # its gains are rounded to its model error
    for g in a.groups:
        if a.shown_host and a.shown_host not in g.hosts:
            continue
        gain = "" if math.isnan(g.gain) else f"; the recommendation gives them {gain_text(g.gain, chosen)} the I/O rate in " \
            f"force, p99 {g.p99_ratio:.2f}x"
        lines.append(f"    {', '.join(g.hosts)} ({g.reach}): on their own figures, {g.own_choice}{gain}")
    if chosen is not None and chosen.label != PER_GROUP and any(c.label == PER_GROUP for c in a.candidates):
        lines.append(f"    Each group given its own ({PER_GROUP}, simulated with the others) does not beat one setting for "
                     f"every host ({chosen.label}) on the cluster's figures by {MARGIN:.0%} beyond the 95% intervals: "
                     "one setting serves every host")
    return lines
