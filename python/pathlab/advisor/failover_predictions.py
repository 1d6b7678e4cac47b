"""What a failover study's timers predict for each of its rows, before the runs are looked at:
the longest wait of one I/O by `failure_theory.predict` (the stall rule of each stack,
`stall_rule.py`), from the setting's timers as `advise --failures` reads them
(`timer_candidates.in_force`) and the failure's kind and length. `pathlab failover` prints it
beside what each run measured, so that the page states no prediction the command does not give.

A fault maps to the kinds `advise --failures` knows: a loss the link reports is a `link_down`
(a path or a port) or its own kind (a controller reboot, a switch, a site), one it does not
report a `path_hang`; an NVMe controller reboot whose partner passes through the ANA change
state waits for that change as well (`failure_theory.with_ana_change`), a SCSI one whose
partner's port groups are Transitioning for the transition (`failure_theory.with_alua_transition`)."""

from __future__ import annotations

import tomllib
from typing import Any

from pathlab._core import parse_duration_ns
from pathlab.advisor.as_run import as_run
from pathlab.advisor.failure_theory import Prediction, predict, with_alua_transition, with_ana_change
from pathlab.advisor.timer_candidates import in_force
from pathlab.api import Scenario
from pathlab.study.failover import FailoverRow, FailoverStudy
from pathlab.toml_values import to_toml

#: Faults the host sees as a link event, by their own kind; the others map as `_kind` says.
OWN_KINDS = ("controller_reboot", "switch_down", "site_down", "all_paths_down")


def predictions(study: FailoverStudy) -> list[Prediction]:
    """Each row's prediction, in the study's row order."""
    variants = tomllib.loads(study.text).get("variants", {})
    return [_predicted(study.file, variants.get(row.setting, {}).get("set", {}), row) for row in study.rows]


def _seconds(value: str) -> float:
    return parse_duration_ns(value) / 1e9


def _kind(fault: dict[str, Any]) -> str | None:
    seen = fault.get("detection", "link") == "link"
    if fault["kind"] in ("path_down", "port_down"):
        return "link_down" if seen else "path_hang"
    if fault["kind"] in OWN_KINDS:
        return fault["kind"] if seen or fault["kind"] == "all_paths_down" else "path_hang"
    return None


def _predicted(file: str, variant_set: dict[str, Any], row: FailoverRow) -> Prediction:
    """The row's prediction from its first fault (a study's failure is one fault)."""
    fault = row.faults[0] if row.faults else None
    kind = _kind(fault) if fault else None
    if fault is None or kind is None:
        return Prediction(None, 0, f"no rule for {row.failure}")
    sets = [f"{k}={to_toml(v)}" for k, v in variant_set.items()]
    scenario = Scenario.load(file, set=[*sets, f"faults={to_toml(row.faults)}"])
    devices = scenario.devices
    stack = devices[0].stack
    outage = _seconds(fault["until"]) - _seconds(fault["at"]) if "until" in fault else float("inf")
    timers = in_force(scenario, devices).timers
    found = predict(stack, kind, timers, outage)
    change = fault.get("ana_change")
    if change is None:
        return found
    # The partner's groups change (NVMe) or transition (SCSI ALUA) while the lost controller's I/O
    # is held: the longer of the two.
    if stack in ("linux-dm", "esxi"):
        return with_alua_transition(stack, found, _seconds(change), _implicit(scenario, fault))
    return with_ana_change(stack, found, timers, _anatt(scenario, fault), _seconds(change))


def _array(scenario: Scenario, fault: dict[str, Any]) -> dict[str, Any]:
    """The `[[arrays]]` table the fault names."""
    return next(a for a in as_run(scenario).get("arrays", []) if a.get("name") == fault["array"])


def _implicit(scenario: Scenario, fault: dict[str, Any]) -> float | None:
    """The fault's array's implicit transition time (None: it reports none)."""
    array = _array(scenario, fault)
    return _seconds(array["implicit_transition_time"]) if "implicit_transition_time" in array else None


def _anatt(scenario: Scenario, fault: dict[str, Any]) -> float:
    """The ANATT of the fault's array (its controllers' own where given, the first found)."""
    array = _array(scenario, fault)
    own = [c["anatt"] for c in array.get("controllers", []) if "anatt" in c]
    return _seconds(own[0] if own else array["anatt"])
