"""A finding: something an admin should know about a host's multipathing, with the evidence
that shows it (counters, a capture's file and line). The importer finds them in captures, the
advisor in a simulated run; both print them alike."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    title: str
    evidence: str
    #: A state the host shows that is how its array works, not a problem (the standby paths of an
    #: array with LUN ownership or ALUA standby ports): said once, apart from the findings.
    normal: bool = False
