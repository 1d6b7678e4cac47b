"""An assumption: a value a host's captures did not give, and what was taken instead. A
prediction made on an imported host rests on them (issue 32 gives every value its provenance)."""

from __future__ import annotations

from typing import NamedTuple


class Assumption(NamedTuple):
    #: The scenario field, dotted (`fabric.latency`).
    field: str
    #: What was assumed and why, in one sentence.
    assumed: str
