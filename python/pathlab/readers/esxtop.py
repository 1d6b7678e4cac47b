"""`esxtop -b` batch captures (PDH-CSV): the disk objects only, read column-selectively with
pandas, so that a capture of every counter (17,000 columns, hundreds of MB) costs the memory of
the few hundred columns wanted (research/formats.md §1).

A column is named `\\\\host\\Object(instance)\\Counter`; the first column is the sample time."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import TYPE_CHECKING

from pathlab.api import ScenarioError

if TYPE_CHECKING:
    import pandas as pd

#: The objects read, with the table each becomes. `Physical Disk` (paths listed under their
#: adapter) repeats `Physical Disk Path` and is skipped.
OBJECTS = {
    "Physical Disk Adapter": "adapters",
    "Physical Disk Path": "paths",
    "Physical Disk SCSI Device": "devices",
}
TIME_FORMATS = ("%m/%d/%Y %H:%M:%S", "%H:%M:%S")


def _split(column: str) -> tuple[str, str, str] | None:
    """(object, instance, counter) of `\\\\host\\Object(instance)\\Counter`, or None."""
    if not column.startswith("\\\\"):
        return None
    parts = column[2:].split("\\", 1)
    if len(parts) != 2 or "\\" not in parts[1]:
        return None
    left, counter = parts[1].rsplit("\\", 1)
    obj, paren, rest = left.partition("(")
    if not paren or not rest.endswith(")"):
        return None
    return obj, rest[:-1], counter


def _header(path: Path) -> list[str]:
    """The first line only, however long, whatever its line ends (CR, LF or CRLF)."""
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        try:
            return next(csv.reader(f))
        except StopIteration:
            return []
        except csv.Error as e:
            raise ScenarioError(str(path), "line 1", f"not CSV: {e}") from None


def read(path: str | Path) -> dict[str, pd.DataFrame]:
    """The capture's adapters, paths and devices: one table each, one row per sample and
    instance, with `time` (the sample's timestamp), `name` and one column per counter."""
    import pandas as pd

    path = Path(path)
    name = str(path)
    if not path.is_file():
        raise ScenarioError(name, "", "no such file")
    header = _header(path)
    if not header or not header[0].startswith("(PDH-CSV"):
        raise ScenarioError(name, "line 1", "not an esxtop batch capture: expected a (PDH-CSV 4.0) header")
    wanted = {i: parts for i, c in enumerate(header) if (parts := _split(c)) and parts[0] in OBJECTS}
    if not wanted:
        raise ScenarioError(name, "line 1", "no Physical Disk Adapter, Path or SCSI Device counters: capture the "
                                            "disk panels (esxtop -b with its default fields or -a)")
    try:
        data = pd.read_csv(path, usecols=[0, *wanted], header=0, dtype=str, keep_default_na=False,
                           encoding="utf-8", encoding_errors="replace")
    except (ValueError, pd.errors.ParserError) as e:
        raise ScenarioError(name, "", f"cannot be read as CSV: {str(e).splitlines()[0]}") from None
    stamps = data.iloc[:, 0]
    times = next((t for fmt in TIME_FORMATS if (t := pd.to_datetime(stamps, format=fmt, errors="coerce")).notna().all()),
                 None)
    if times is None:
        bad = stamps[pd.to_datetime(stamps, format=TIME_FORMATS[0], errors="coerce").isna()].index[0]
        raise ScenarioError(name, f"line {bad + 2}", f"{stamps[bad]!r} is not a sample time like 04/26/2018 14:06:27")
    tables = {}
    for obj, table in OBJECTS.items():
        columns = [(i, inst, counter) for i, (o, inst, counter) in wanted.items() if o == obj]
        frames = []
        for instance in dict.fromkeys(inst for _, inst, _ in columns):
            own = {counter: header[i] for i, inst, counter in columns if inst == instance}
            values = data[list(own.values())].apply(pd.to_numeric, errors="coerce")
            values.columns = list(own)
            frames.append(values.assign(time=times.values, name=instance))
        if frames:
            tables[table] = pd.concat(frames, ignore_index=True)[["time", "name", *frames[0].columns[:-2]]]
        else:
            tables[table] = pd.DataFrame(columns=["time", "name"])
    return tables
