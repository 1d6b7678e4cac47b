"""The validated figures (`validated.toml`): each published figure the model reproduces with the
check it must pass, the changes between published variants whose gain error advise states, the
array families, and the field reports in words. Published values and tolerances are read from
the scenario files, never copied; the measured fields are written by
`scripts/calibration_table.py`."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

#: The data file, inside the package (advise reads it on an installed host).
FILE = Path(__file__).resolve().parent / "validated.toml"


@dataclass(frozen=True)
class Figure:
    """One published figure of one case's variant, with the check the model's value must pass
    and what it gave when last measured."""

    case: str
    scenario: str
    variant: str
    #: A summary key (`iops`, `resp_ms`, `resp_stddev_ms`, `resp_max_ms`).
    figure: str
    #: "tolerance" (the scenario's relative tolerance), "ratio" or "range" (`low` to `high`).
    check: str
    #: The run length the page's value is measured at: (duration, warmup).
    run: tuple[str, str]
    low: float | None = None
    high: float | None = None
    #: Why a "range" row sits apart from the published value (the known disagreement).
    why: str = ""
    simulated: float | None = None
    #: When and at which commit `simulated` was measured.
    measured: str = ""
    commit: str = ""
    #: A row whose page run is too long for the test suite (C3's and C4's 300 s are 87 and 18
    #: million I/Os) is also measured at this shorter run, seed 1, the one the suite runs, and
    #: `pinned` is what it gave: the suite must get it exactly (written with `simulated`).
    pin_run: tuple[str, str] | None = None
    pinned: float | None = None

    @property
    def recorded(self) -> float | None:
        """The value the test suite must get: `pinned` at `pin_run`, else `simulated` at `run`."""
        return self.pinned if self.pin_run else self.simulated

    @property
    def published(self) -> float:
        return _published(self.scenario, self.variant)[0][self.figure]

    @property
    def tolerance(self) -> float | None:
        """The scenario's relative tolerance for the figure (a "tolerance" row's bound)."""
        return _published(self.scenario, self.variant)[1].get(self.figure)

    def error(self, simulated: float) -> float:
        """The relative error of a simulated value against the published one."""
        return (simulated - self.published) / self.published

    def holds(self, simulated: float) -> bool:
        """Whether a simulated value passes the row's check."""
        if self.check == "tolerance":
            assert self.tolerance is not None, f"{self.scenario} {self.variant} states no tolerance for {self.figure}"
            return abs(self.error(simulated)) <= self.tolerance
        assert self.low is not None and self.high is not None
        value = simulated / self.published if self.check == "ratio" else simulated
        return self.low <= value <= self.high

    @property
    def allowed(self) -> str:
        """The check as the page says it: "±10%", "×0.5 to ×2", "200 to 210"."""
        if self.check == "tolerance":
            return f"±{(self.tolerance or 0) * 100:g}%"
        return f"×{self.low:g} to ×{self.high:g}" if self.check == "ratio" else f"{self.low:g} to {self.high:g}"


@dataclass(frozen=True)
class Change:
    """A change between two published variants of one case: the model's error on its gain."""

    case: str
    family: str
    #: advise's candidate label for the change ("round robin, iops=1").
    kind: str
    scenario: str
    from_variant: str
    to_variant: str
    #: The policy in force before the change (its `name`: "VMW_PSP_RR").
    from_policy: str

    @property
    def published_gain(self) -> float:
        return _rate(self, "published")

    @property
    def simulated_gain(self) -> float:
        return _rate(self, "simulated")

    @property
    def error(self) -> float:
        """The simulated gain in I/O rate against the published gain, as a relative error."""
        return self.simulated_gain / self.published_gain - 1

    @property
    def says(self) -> str:
        """The case as advise names it."""
        return (f"{self.case} ({self.scenario}, {self.from_variant} to {self.to_variant}: published "
                f"{self.published_gain:.3f}x, simulated {self.simulated_gain:.3f}x)")


@dataclass(frozen=True)
class Report:
    """A field report in words, whether the model gives it, the test that checks the model's
    side, and the variants' figures when last measured."""

    scenario: str
    field: str
    holds: bool
    test: str
    runs: tuple[str, ...]
    #: Variant to its measured "I/O/s, mean ms" (seed 1, the file's run length).
    figures: dict[str, str]
    measured: str = ""
    commit: str = ""


def _rate(change: Change, which: str) -> float:
    def iops(variant: str) -> float:
        row = next(f for f in figures() if (f.scenario, f.variant, f.figure) == (change.scenario, variant, "iops"))
        value = row.published if which == "published" else row.simulated
        assert value is not None, f"{row.scenario} {variant}: iops not measured yet (scripts/calibration_table.py)"
        return value
    return iops(change.to_variant) / iops(change.from_variant)


@cache
def _published(scenario: str, variant: str) -> tuple[dict[str, float], dict[str, float]]:
    from pathlab import shipped
    from pathlab.api import Scenario

    loaded = Scenario.load(shipped.path(scenario), variant=variant)
    return loaded.published, loaded.tolerance


@cache
def document() -> dict[str, Any]:
    return tomllib.loads(FILE.read_text())


def figures() -> list[Figure]:
    return [Figure(**{**f, "run": tuple(f["run"]), "pin_run": tuple(f["pin_run"]) if "pin_run" in f else None})
            for f in document()["figure"]]


def changes() -> list[Change]:
    return [Change(c["case"], c["family"], c["kind"], c["scenario"], c["from"], c["to"], c["from_policy"])
            for c in document()["change"]]


def reports() -> list[Report]:
    return [Report(**{**r, "runs": tuple(r["runs"]), "figures": r.get("figures", {})}) for r in document()["report"]]


def family_of(vendor: str, model: str, satp: str | None = None) -> str | None:
    """The array family of an array by its inquiry vendor and model, or by the ESXi SATP that
    claimed it; None when no family lists it."""
    for family in document()["family"]:
        if [vendor.strip(), model.strip()] in family["arrays"] or (satp and satp in family.get("satps", [])):
            return family["name"]
    return None
