"""Settings of one scenario side by side on the same I/Os, as `pathlab.compare` and `pathlab
compare` give them: its variants, or the standard lineup of every stack's policies, one run each
or replicated over seeds (`replicate.py`)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pathlab.api import Result, Scenario, ScenarioError, _overrides
from pathlab.loading import load, resolve
from pathlab.progress import Progress, run_batch
from pathlab.study.lineup import LINEUP, OURS, overrides
from pathlab.study.replicate import replicate

if TYPE_CHECKING:  # pandas is imported where a table is asked for: `import pathlab` stays quick
    import pandas as pd


@dataclass(frozen=True)
class Lineup:
    """The lineup on one scenario: its label, the policies' labels and each run's JSON result."""

    scenario: str
    labels: list[str]
    runs: list[dict[str, Any]]


@dataclass(frozen=True, eq=False)
class Comparison:
    """Settings of one scenario on the same I/Os: one run each (`results`), or one run per setting
    and seed (`replicated`)."""

    #: The scenario file (or shipped scenario) compared.
    file: str
    #: The scenario's name (with the variant a lineup starts from).
    scenario: str
    #: "variants" or "lineup".
    kind: str
    #: Each setting as (label, description), in the order shown.
    settings: tuple[tuple[str, str], ...]
    #: The scenario file's text.
    text: str
    #: One result per setting (one seed); empty when replicated.
    results: tuple[Result, ...] = ()
    #: One row per setting and seed (`setting`, `seed`, every figure) when replicated.
    replicated: pd.DataFrame | None = None

    def __repr__(self) -> str:
        runs = f"{len(self.replicated)} runs over seeds" if self.replicated is not None else f"{len(self.results)} runs"
        return f"<pathlab.Comparison {self.scenario}: {self.kind} {', '.join(self.labels)}; {runs}>"

    @property
    def labels(self) -> list[str]:
        return [label for label, _ in self.settings]

    @property
    def reference(self) -> str | None:
        """The setting the others are tested against: ours in a lineup, else the best of each figure."""
        return OURS if self.kind == "lineup" else None

    @property
    def table(self) -> pd.DataFrame:
        """One row per setting (per setting and seed when replicated) with every summary figure."""
        import pandas as pd

        if self.replicated is not None:
            return self.replicated
        return pd.DataFrame([{"setting": label, "seed": r.data["seed"], **r.data["summary"]}
                             for label, r in zip(self.labels, self.results, strict=True)])

    def to_dict(self) -> Any:
        """As `pathlab compare --format json` prints it (a lineup: one scenario's entry)."""
        from pathlab.output.comparison import output_of

        document = output_of(self).document()
        if self.replicated is not None:
            return {"scenario": self.file, "runs": document.drop(columns="scenario").to_dict(orient="records")}
        return document[0] if isinstance(document, list) else document

    def _repr_html_(self) -> str:
        from pathlab.output.comparison import notebook_html

        return notebook_html(self)


#: A scenario or a file (or shipped scenario's name).
ScenarioOrFile = Scenario | str | os.PathLike[str]


def compare(scenario_or_file: ScenarioOrFile, *, variants: Sequence[str] | None = None, lineup: bool = False,
            seeds: int | None = None, seed: int | None = None, variant: str | None = None,
            set: Mapping[str, Any] | Iterable[str] | None = None,  # noqa: A002 - mirrors --set
            progress: Progress | None = None) -> Comparison:
    """Every variant of a scenario (or those named in `variants`), or with `lineup` every stack's
    policies from `variant`, on the same I/Os: one run each with `seed`, or over `seeds` seeds
    (seed, seed + 1, ...) with 95% intervals. A `Scenario` is compared with its own overrides."""
    file, text, sets = _source(scenario_or_file, set)
    if isinstance(scenario_or_file, Scenario):
        variant = variant or scenario_or_file.variant
        seed = scenario_or_file.seed if seed is None else seed
    if seeds is not None and (isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 2):
        raise ScenarioError(file, "seeds", f"{seeds!r}: replications are 2 or more (one run: leave seeds out)")
    if lineup and variants:
        raise ScenarioError(file, "variants", "a lineup runs every stack's policies from one setting: name it with "
                                              "`variant`, not `variants`")
    base = _open(file, text, variant if lineup else None, sets, seed)
    if lineup:
        settings = tuple((label, "") for label, _ in LINEUP)
    elif not base.variants:
        raise ScenarioError(file, "variants", "the file defines no variants to compare")
    else:
        settings = _chosen(base, variants, file)
    kind = "lineup" if lineup else "variants"
    if seeds is not None:
        first = 1 if seed is None else seed  # seed 0 is a seed: SEED, SEED + 1, ... as --seeds says
        own = [(label, variant, overrides(policy)) for label, policy in LINEUP] if lineup else \
            [(name, name, []) for name, _ in settings]
        runs = replicate(resolve(file), sets, own, range(first, first + seeds), text)
        return Comparison(file, base.label, kind, settings, base.text, replicated=runs)
    scenarios = [_open(file, text, variant, [*sets, *overrides(policy)], seed) for _, policy in LINEUP] if lineup \
        else [base.with_variant(name) for name, _ in settings]
    return Comparison(file, base.label if lineup else base.name, kind, settings, base.text,
                      tuple(run_batch(scenarios, progress)))


def run_lineup(file: str, variant: str | None, sets: Sequence[str], seed: int | None) -> Lineup:
    """Every lineup policy on FILE (a file or shipped scenario's name): the scenario's label, the
    policies, each run's JSON result."""
    return lineup_of(compare(file, lineup=True, variant=variant, set=sets, seed=seed))


def lineup_of(c: Comparison) -> Lineup:
    return Lineup(c.scenario, c.labels, [r.data for r in c.results])


def _source(subject: ScenarioOrFile, given: Mapping[str, Any] | Iterable[str] | None) -> tuple[str, str | None, list[str]]:
    """The file name, the text when the subject is a scenario in memory, and every override as
    `key=value` (a scenario's own first)."""
    sets = [f"{k}={v}" for k, v in _overrides(given)]
    if isinstance(subject, Scenario):
        return subject.file, subject.text, [*(f"{k}={v}" for k, v in subject.overrides), *sets]
    return str(subject), None, sets


def _open(file: str, text: str | None, variant: str | None, sets: Sequence[str], seed: int | None) -> Scenario:
    """A file (or shipped scenario's name) loaded with its warnings, or a scenario in memory's text."""
    if text is None:
        return load(file, variant, sets, seed)
    return Scenario.from_text(text, file, variant, sets, seed)


def _chosen(base: Scenario, names: Sequence[str] | None, file: str) -> tuple[tuple[str, str], ...]:
    """The variants to compare: those named, in the order given, or every one in file order."""
    if names is None:
        return tuple(base.variants)
    known = dict(base.variants)
    for name in names:
        if name not in known:
            raise ScenarioError(file, "variants", f"{name!r}: no such variant; the file's: {', '.join(known)}")
    return tuple((name, known[name]) for name in names)
