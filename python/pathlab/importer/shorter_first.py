"""An order of names that differ in a number at the end: the shorter name first, then by text, so
that `vmhba2` comes before `vmhba10` and target port group `2` before `10` (a plain sort puts
`10` first). Names of different stems are ordered by length first, which is all the import
needs of it: one order, the same every run."""

from __future__ import annotations


def shorter_first(name: str) -> tuple[int, str]:
    """The sort key: `sorted(names, key=shorter_first)`."""
    return len(name), name
