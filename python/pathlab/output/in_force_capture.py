"""The setting in force against the captures (`advise.capture_check.CaptureCheck`), as `pathlab
advise` prints it: each device's captured and simulated rate and response side by side, each
labelled, what was fitted to make them agree, or why they could not be made to."""

from __future__ import annotations

import html as html_text
import math
from dataclasses import asdict
from typing import Any

from pathlab.advisor.capture_check import CaptureCheck, DeviceFigures
from pathlab.output.repeats import alike, counted
from pathlab.toml_values import to_toml


def lines(r: CaptureCheck, every: bool = True) -> list[str]:
    """The text block: a table of the devices, then the verdict. Without `every`, the devices
    that agree past the first few are counted with the spread of their differences, and alike
    captures past the first few counted (`repeats`): every device that does not agree is shown."""
    width = max(6, *(len(d.device) for d in (*r.devices, *r.together)))
    out = [f"The setting in force, captured against simulated ({r.runs} fitting run{'s' if r.runs > 1 else ''} of "
           f"{r.duration_s:.3g} s, seed {r.seed}):",
           f"  {'device':<{width}} {'captured I/O per s':>18} {'simulated':>10} {'captured ms':>11} {'simulated':>10}  agree"]
    for d in (*_rows(r, every), *r.together):
        if isinstance(d, str):
            out.append(f"  {d}")
            continue
        captured_ms = "-" if d.captured_response_ms is None else f"{d.captured_response_ms:.3f}"
        out.append(f"  {d.device:<{width}} {d.captured_rate:>18,.0f} {d.simulated_rate:>10,.0f} {captured_ms:>11} "
                   f"{d.simulated_response_ms:>10.3f}  {_agree(d)}")
    where = list(dict.fromkeys(d.where for d in r.devices))
    said = where if every else counted(where, alike, lambda rest: f"and {len(rest):,} more alike")
    out.append(f"  Captured: {'; '.join(str(w) for w in said)}.")
    if r.judged_why:
        out.append(f"  {r.judged_why[0].upper()}{r.judged_why[1:]}.")
    if r.agrees:
        out.append("  They agree within the tolerance (rate 5%, response 20%, wider where a device's I/Os in the runs are "
                   "few, its capture's intervals spread or its run is short of its rotations): the fitted values are in the "
                   "assumptions.")
    else:
        out.append(f"  They do not agree: {r.why}. No gain is predicted against a host that is not the one captured.")
    return out


def _rows(r: CaptureCheck, every: bool) -> list[DeviceFigures | str]:
    """The devices' rows as the outputs show them: every one, or those that agree past the first
    few counted (every device that does not agree is shown)."""
    return list[DeviceFigures | str](r.devices) if every else \
        counted(r.devices, lambda d: "agree" if d.agrees else d.device, _agreeing_too)


def _agreeing_too(rest: list[DeviceFigures]) -> str:
    """The devices that agree beyond the first few: how many, and the spread of their differences."""
    rates = [d.rate_off for d in rest]
    responses = [d.response_off for d in rest if d.response_off is not None]
    spread = f"rate {min(rates):+.1%} to {max(rates):+.1%}" + (
        f", response {min(responses):+.1%} to {max(responses):+.1%}" if responses else "")
    return f"... {len(rest):,} more devices agree ({spread}; every one with --verbose or --format json)"


def _agree(d: DeviceFigures) -> str:
    off = d.response_off
    said = f"rate {d.rate_off:+.1%}" + (f", response {off:+.1%}" if off is not None else ", no captured response")
    return ("yes" if d.agrees else "no") + f" ({said})"


def document(r: CaptureCheck) -> dict[str, Any]:
    """The JSON form: per device the captured and simulated figures under those names."""
    return {
        "agrees": r.agrees,
        "why": r.why,
        "devices": [_figures(d) for d in r.devices],
        # The devices together, per port group and per array, and the level judged at the fit's tolerances.
        "together": [{"level": d.level, **_figures(d)} for d in r.together],
        "judged": {"level": r.judged, "why": r.judged_why},
        "fitted": [asdict(f) for f in r.fitted],
        # The fitted values as `--set` takes them: the host as advise simulated it.
        "set": [f"{key}={to_toml(value)}" for key, value in r.overrides.items()],
        "runs": r.runs,
        "duration_s": r.duration_s,
        "seed": r.seed,
    }


def _figures(d: DeviceFigures) -> dict[str, Any]:
    return {"device": d.device,
            "captured": {"iops": d.captured_rate, "resp_ms": d.captured_response_ms, "where": d.where},
            "simulated": {"iops": d.simulated_rate, "resp_ms": d.simulated_response_ms},
            "tolerance": {"iops": _finite(d.rate_tolerance), "resp_ms": _finite(d.response_tolerance)},
            "agrees": d.agrees}


def _finite(share: float) -> float | None:
    """A tolerance as JSON has it: None for a unit whose run allows anything (no rotation at all)."""
    return share if math.isfinite(share) else None


def html(r: CaptureCheck, every: bool = True) -> str:
    """The HTML report's section: a table of the devices, the captures' files and the verdict
    (`every` as `lines` takes it)."""
    head = "".join(f"<th>{h}</th>" for h in ("device", "captured I/O per s", "simulated I/O per s", "captured ms",
                                              "simulated ms", "agree"))
    shown = _rows(r, every)
    rows = "".join(
        f"<tr><td colspan='6'>{html_text.escape(d)}</td></tr>" if isinstance(d, str) else
        f"<tr><th style='text-align:left'>{html_text.escape(d.device)}</th><td>{d.captured_rate:,.0f}</td>"
        f"<td>{d.simulated_rate:,.0f}</td><td>{'-' if d.captured_response_ms is None else f'{d.captured_response_ms:.3f}'}</td>"
        f"<td>{d.simulated_response_ms:.3f}</td><td>{html_text.escape(_agree(d))}</td></tr>"
        for d in (*shown, *r.together))
    said = lines(r, every)
    return (f"<p>{html_text.escape(said[0])}</p><table><tr>{head}</tr>{rows}</table>"
            + "".join(f"<p>{html_text.escape(line.strip())}</p>" for line in said[2 + len(shown) + len(r.together):]))
