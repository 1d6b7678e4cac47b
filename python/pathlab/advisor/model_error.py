"""The model's own error beside a predicted gain (issue 34 item 3): the error the model made on
the nearest validated change (`pathlab.validated`: the simulated gain against the published one
between two published variants), and the gain rounded to it.

Nearest, in this order: a validated change of the same kind (advise's candidate label) from the
policy the host runs on an array of the host's family; the same kind with the family or the
policy in force apart (said which); else no validated case is of this kind, and the largest error
of any validated change stands for it (said so: the model's error on that kind is not measured).

A gain is printed to the decimal place of its error's first significant figure (± 0.18 on 3.75:
tenths, 3.8x; ± 0.045 on 1.6: hundredths, 1.60x), or of its 95% interval over the seeds where
that is wider, never finer than the two places gains had before, so it never reads more precise
than the model or the runs are."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from pathlab import validated

#: The finest a gain is printed, in decimal places.
MOST_DECIMALS = 2


@dataclass(frozen=True)
class ModelError:
    """The model's error on the validated change a gain's precision rests on."""

    #: The validated change used, as advise names it ("C1 (c1-vmax-1lun, iops1000 to iops1: …)").
    case: str
    #: Its simulated gain against its published gain, relative and signed.
    error: float
    #: Why that case: "the same array family (VMAX) and change", or what stood in for it.
    match: str
    #: The gain's own 95% half-width over the seeds (0 where one seed gives none): where it is
    #: wider than the model's error, the gain is rounded to it instead.
    seed_half_width: float = 0.0

    def decimals(self, gain: float) -> int:
        """The decimal places a gain is printed to: those of the first significant figure of its
        error or of its seed interval, whichever is wider."""
        seeds = self.seed_half_width if math.isfinite(self.seed_half_width) else 0.0
        spread = max(abs(self.error) * abs(gain), seeds)
        if not math.isfinite(spread) or spread == 0:
            return MOST_DECIMALS
        return min(MOST_DECIMALS, max(0, -math.floor(math.log10(spread))))

    def rounded(self, gain: float) -> float:
        return round(gain, self.decimals(gain))

    def gain_text(self, gain: float) -> str:
        return f"{gain:.{self.decimals(gain)}f}x"

    @property
    def says(self) -> str:
        """The error and its case, as the outputs say them."""
        return f"{self.error * 100:+.1f}% on {self.case}, {self.match}"


def of_candidate(kind: str, families: Iterable[str], policies: Iterable[str]) -> ModelError:
    """The model's error for a change of `kind` (advise's candidate label) on a host whose arrays
    are of `families` and whose devices run `policies`: the nearest validated change's (the fewest
    differences, then the largest error)."""
    changes = validated.changes()
    family, in_force = set(families), sorted(set(policies))

    def differences(c: validated.Change) -> list[str]:
        return ([f"on another array family ({c.family}): "
                 + ("none validated on this host's" if family else "this host's arrays are of no validated family")]
                * (c.family not in family)
                + [f"from {c.from_policy}, where this host runs {', '.join(in_force)}"] * (c.from_policy not in in_force))

    alike = [c for c in changes if c.kind == kind]
    if alike:
        nearest = min(alike, key=lambda c: (len(differences(c)), -abs(c.error)))
        apart = differences(nearest)
        match = f"the same change {' and '.join(apart)}" if apart else f"the same array family ({nearest.family}) and change"
        return ModelError(nearest.says, nearest.error, match)
    worst = max(changes, key=lambda c: abs(c.error))
    return ModelError(worst.says, worst.error, "no validated case of this change: the largest error of any validated "
                                               "change stands for it")


def host_families(arrays: Iterable[tuple[str, str, str | None]]) -> set[str]:
    """The array families of a host's devices (inquiry vendor, model, ESXi SATP or None); arrays
    of no listed family add none."""
    return {f for v, m, satp in arrays if (f := validated.family_of(v, m, satp)) is not None}
