"""`readers/esxtop._header_columns`: each disk counter's file column placed under its table and
instance (a counter named twice: the first), whether a head's counters are taken at once as its
object's instance before it had them (`_alike`) or a column at a time: checked against the rule
written column by column, on headers with instances alike, with counters missing, added, doubled
or reordered, heads named again further on, adapters' own entries and objects not read."""

from __future__ import annotations

import random

import pytest

from pathlab.readers import esxtop

DISK = ["Commands/sec", "Reads/sec", "Writes/sec", "Average Driver MilliSec/Command", "Failed Commands/sec"]


def _by_column(header: list[str]) -> dict[str, list[tuple[str, list[tuple[str, int]]]]]:
    """The rule, a column at a time: a column's table is its object's, or the adapters' for an
    adapter's own `Physical Disk` entry's queue depth; the first column of each counter of each
    instance, instances in the order first named."""
    found: dict[tuple[str, str], dict[str, int]] = {}
    for i, column in enumerate(header[1:], start=1):
        head, _, counter = column.rpartition("\\")
        place = esxtop._place(head)
        table = esxtop._table_of(place, counter)
        if table is not None and place is not None:
            found.setdefault((table, place[1]), {}).setdefault(counter, i)
    out: dict[str, list[tuple[str, list[tuple[str, int]]]]] = {t: [] for t in esxtop.OBJECTS.values()}
    for (table, instance), counters in found.items():
        out[table].append((instance, list(counters.items())))
    return out


def _placed(header: list[str]) -> dict[str, list[tuple[str, list[tuple[str, int]]]]]:
    tables: dict[str, dict[str, list[tuple[str, int]]]] = {t: {} for t in esxtop.OBJECTS.values()}
    esxtop._header_columns(header, tables)
    return {name: list(t.items()) for name, t in tables.items()}


def _header(draw: random.Random) -> list[str]:
    """A capture's header: per adapter its own entry, its adapter counters, its paths' `Physical
    Disk` entries (not read); then paths and devices; instances alike, then edited at random."""
    columns = ["(PDH-CSV 4.0) (UTC)(0)"]
    for a in range(draw.randint(1, 3)):
        columns.append(f"\\\\esx01\\Physical Disk(vmhba{a})\\Adapter Q Depth")
        columns += [f"\\\\esx01\\Physical Disk Adapter(vmhba{a})\\{c}" for c in DISK]
        for p in range(draw.randint(0, 4)):
            columns += [f"\\\\esx01\\Physical Disk(vmhba{a}:C0:T{p}:L0)\\{c}" for c in DISK]
    for obj in ("Physical Disk Path", "Physical Disk SCSI Device", "Physical Cpu"):
        for k in range(draw.randint(1, 6)):
            columns += [f"\\\\esx01\\{obj}(naa.{k}\\x)\\{c}" if k == 5 else f"\\\\esx01\\{obj}(inst{k})\\{c}"
                        for c in DISK]
    for _ in range(draw.randint(0, 6)):
        at = draw.randrange(1, len(columns))
        edit = draw.random()
        if edit < 0.25:
            del columns[at]
        elif edit < 0.5:
            columns.insert(at, columns[draw.randrange(1, len(columns))])  # a counter doubled, or a head again
        elif edit < 0.7:
            columns[at] = columns[at] + "x"  # a counter of its own
        elif edit < 0.85:
            other = draw.randrange(1, len(columns))
            columns[at], columns[other] = columns[other], columns[at]
        else:
            columns.insert(at, "not a counter")
    return columns


def test_heads_are_placed_as_column_by_column() -> None:
    draw = random.Random(22)
    for _ in range(2_000):
        header = _header(draw)
        assert _placed(header) == _by_column(header), header


def test_instances_alike_are_taken_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    header = _header(random.Random(1))
    header = [c for c in header if "Physical Disk Path" not in c]
    header += [f"\\\\esx01\\Physical Disk Path(p{k})\\{c}" for k in range(50) for c in DISK]
    taken = []
    monkeypatch.setattr(esxtop, "_put", lambda into, counters, i, put=esxtop._put: (taken.append(i), put(into, counters, i)))
    assert _placed(header) == _by_column(header)
    # The 49 paths after the first, each taken at once at its first column (the first read a column at a time).
    start = len(header) - 50 * len(DISK)
    assert [i for i in taken if i >= start] == [start + k * len(DISK) for k in range(1, 50)]
    assert esxtop._alike(header, len(header) - len(DISK), "\\\\esx01\\Physical Disk Path(p49)", DISK)
    assert not esxtop._alike(header, len(header) - len(DISK) + 1, "\\\\esx01\\Physical Disk Path(p49)", DISK)
