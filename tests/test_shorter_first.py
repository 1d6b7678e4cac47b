"""`importer.shorter_first`: names that differ in a number at the end in its order."""

from __future__ import annotations

from pathlab.importer.shorter_first import shorter_first


def test_a_number_at_the_end_sorts_as_a_number() -> None:
    assert sorted(["vmhba10", "vmhba2", "vmhba1", "vmhba32"], key=shorter_first) == ["vmhba1", "vmhba2", "vmhba10",
                                                                                    "vmhba32"]
    assert sorted(["10", "2", "1"], key=shorter_first) == ["1", "2", "10"]
