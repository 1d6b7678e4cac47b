"""`/proc/diskstats` sampled repeatedly (research/formats.md §3.3, the kernel's
`Documentation/admin-guide/iostats.rst`): snapshots of the file one after another, each optionally
preceded by a timestamp line, or separated by blank lines.

A line is `major minor name` and 11 counters (kernels before 4.18: 14 fields in all), 15 (4.18 on:
discards, 18 fields) or 17 (5.5 on: flushes, 20 fields); 2.6 kernels before 2.6.25 printed only 4
counters for partitions (reads, sectors read, writes, sectors written). Sectors are 512 bytes,
times are milliseconds, every counter is cumulative except `in_flight`.

Timestamp lines understood: pt-stalk's `TS 1298130003.073935000 [2011-02-19T…]`, a bare epoch
(`date +%s`), ISO `2024-01-02 15:04:05` (or with `T`), and `date`'s default
`Tue Jan  2 15:04:05 UTC 2024`. Without timestamp lines or blank lines, a sample ends where a
device seen in it appears again.

Like sysstat, lines with 12 to 16 counters (no kernel prints them, sysstat's tests have one) are
read as far as they go; the counters they lack are missing."""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pathlab.api import ScenarioError, warn
from pathlab.readers._file import lines_of
from pathlab.readers._spread import spread
from pathlab.readers._whole import is_whole

if TYPE_CHECKING:
    import pandas as pd

#: The counters after `major minor name`, in the order of iostats.rst.
COUNTERS = ["reads", "reads_merged", "sectors_read", "read_ms", "writes", "writes_merged", "sectors_written",
            "write_ms", "in_flight", "io_ms", "weighted_io_ms", "discards", "discards_merged", "sectors_discarded",
            "discard_ms", "flushes", "flush_ms"]
#: Counters of the short partition lines of 2.6 kernels before 2.6.25.
SHORT_PARTITION = ["reads", "sectors_read", "writes", "sectors_written"]
COLUMNS = ["sample", "time", "major", "minor", "device", *COUNTERS, "line"]
RATE_COLUMNS = ["sample", "time", "device", "interval_s", "reads_per_s", "writes_per_s", "read_kib_per_s",
                "write_kib_per_s", "read_latency_ms", "write_latency_ms", "in_flight", "utilisation", "queue_length",
                "reset"]

_LINE = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*?)\s*$")
_MAX = 1 << 64
#: Counters that are all plain ASCII numbers.
_COUNTS = re.compile(r"[0-9]+(?:\s+[0-9]+)*")


def _stamp(line: str) -> datetime | None:
    """The time a timestamp line gives (naive, UTC for epochs), or None if it is not one."""
    s = line.strip()
    m = re.fullmatch(r"(?:TS\s+)?(\d{9,11}(?:\.\d+)?)(?:\s+\S.*)?", s)
    if m and (s.startswith("TS") or " " not in s):
        try:
            return datetime.fromtimestamp(float(m.group(1)), tz=UTC).replace(tzinfo=None)
        except (OverflowError, OSError, ValueError):
            return None
    m = re.fullmatch(r"(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d| [A-Z]{2,5})?", s)
    if m:
        try:
            return datetime.strptime(f"{m.group(1)} {m.group(2)}", "%Y-%m-%d %H:%M:%S")
        except ValueError:
            return None
    m = re.fullmatch(r"[A-Z][a-z]{2} ([A-Z][a-z]{2}) +(\d{1,2}) (\d\d:\d\d:\d\d)(?: [A-Z]{2,5}| [+-]\d{4})? (\d{4})", s)
    if m:
        try:
            return datetime.strptime(f"{m.group(1)} {m.group(2)} {m.group(3)} {m.group(4)}", "%b %d %H:%M:%S %Y")
        except ValueError:
            return None
    return None


@dataclass(frozen=True, slots=True)
class Line:
    """One device's line of one sample."""
    sample: int
    #: The sample's timestamp, None if the file has none.
    time: datetime | None
    number: int
    major: int
    minor: int
    device: str
    #: The counters the line has (4 on old partition lines, 11 to 17 on the others).
    values: dict[str, int]


def lines(path: str | Path) -> Iterator[Line]:
    """The capture's device lines in file order, sample after sample. Every sample lists the
    devices of the first (the last may stop short: a capture cut off); lines out of order are
    refused. Memory follows the devices, not the file."""
    name = str(path)
    names: dict[str, str] = {}
    sample, time = 0, None
    seen: set[tuple[str, str, str]] = set()
    first: set[tuple[str, str, str]] | None = None
    separated = False  # blank or timestamp lines mark the samples
    any_text = any_line = False

    def next_sample(where: str) -> None:
        nonlocal sample, seen, first
        if first is None:
            first = seen
        elif seen != first:
            raise ScenarioError(name, where, f"sample {sample} lists {len(seen)} devices where the first lists "
                                             f"{len(first)} ({_differ(seen, first)}): lines out of order, or a sample cut short")
        sample, seen = sample + 1, set()

    for number, line in enumerate(lines_of(path), start=1):
        where = f"line {number}"
        any_text = any_text or bool(line.strip())
        if not line.strip():
            if seen:
                next_sample(where)
                time, separated = None, True
            continue
        m = _LINE.match(line)
        if not m:
            stamp = _stamp(line)
            if stamp is None:
                raise ScenarioError(name, where, "expected a /proc/diskstats line (`major minor name` and 11, 15 or "
                                                 "17 counters) or a timestamp line (`TS 1298130003.07`, a date), "
                                                 f"found {line.strip()[:50]!r}")
            if seen:
                next_sample(where)
                separated = True
            time = stamp
            continue
        major, minor, device, rest = m.groups()
        counters = rest.split()
        if len(counters) != 4 and not 11 <= len(counters) <= 17:
            raise ScenarioError(name, where, f"{device}: expected 11, 15 or 17 counters after `major minor name` "
                                             f"(14, 18 or 20 fields), found {len(counters)} (truncated?)")
        fields = SHORT_PARTITION if len(counters) == 4 else COUNTERS[:len(counters)]
        values: dict[str, int] = {}
        if _COUNTS.fullmatch(rest) and max(map(len, counters)) < 20:  # below 2^64: the common case, at C speed
            values = dict(zip(fields, map(int, counters)))
        for i, (field, value) in enumerate(zip(fields, counters) if not values else ()):
            if not is_whole(value) or len(value) > 20 or int(value) >= _MAX:
                raise ScenarioError(name, where, f"{device}: field {i + 4} ({field}) {value[:20]!r} is not a "
                                                 "counter (a whole number below 2^64)")
            values[field] = int(value)
        if len(major) > 20 or len(minor) > 20 or int(major) >= _MAX or int(minor) >= _MAX:
            raise ScenarioError(name, where, f"{device}: major/minor {major[:20]}:{minor[:20]} out of range")
        key = (major, minor, device)
        if key in seen:
            if separated:
                raise ScenarioError(name, where, f"{device} appears twice in one sample: lines out of order")
            next_sample(where)  # no separator: the device comes round again
            time = None
        seen.add(key)
        any_line = True
        # One string per device, not per line.
        yield Line(sample, time, number, int(major), int(minor), names.setdefault(device, device), values)
    if not any_line:
        raise ScenarioError(name, "line 1", "no /proc/diskstats line: not a diskstats capture" if any_text
                            else "empty file: expected /proc/diskstats samples")


def read(path: str | Path) -> pd.DataFrame:
    """One row per sample and device: `sample` (from 0), `time` (the sample's timestamp, missing if
    the file has none), major, minor, device and the counters of iostats.rst (missing where the
    kernel does not print them), and the line. Built in one array per column, so that memory
    follows the rows, not the text; `rates` and `device_means` need no table."""
    import numpy as np
    import pandas as pd

    columns: dict[str, array[int]] = {c: array("Q") for c in ("major", "minor", *COUNTERS)}
    given = {c: array("B") for c in COUNTERS}  # 1 where the line has the counter
    samples, numbers = array("q"), array("q")
    devices: list[str] = []
    times: list[datetime | None] = []
    for line in lines(path):
        samples.append(line.sample)
        times.append(line.time)
        columns["major"].append(line.major)
        columns["minor"].append(line.minor)
        devices.append(line.device)
        for c in COUNTERS:
            columns[c].append(line.values.get(c, 0))
            given[c].append(c in line.values)
        numbers.append(line.number)

    def unsigned(c: str) -> pd.api.extensions.ExtensionArray:
        values = np.frombuffer(columns[c], dtype=np.uint64)
        mask = np.zeros(len(values), dtype=bool) if c in ("major", "minor") else np.frombuffer(given[c], dtype=np.uint8) == 0
        return pd.arrays.IntegerArray(values, mask)

    # Counters above 2^53 keep every digit: unsigned 64-bit arrays all the way, no float.
    table = pd.DataFrame({
        "sample": pd.array(np.frombuffer(samples, dtype=np.int64), dtype="Int64"),
        "time": pd.to_datetime(pd.Series(times, dtype="object")),
        "major": unsigned("major"),
        "minor": unsigned("minor"),
        "device": pd.array(devices, dtype="string"),
        **{c: unsigned(c) for c in COUNTERS},
        "line": pd.array(np.frombuffer(numbers, dtype=np.int64), dtype="Int64"),
    })
    table.attrs["source"] = str(path)
    return table


def _differ(seen: set[tuple[str, str, str]], first: set[tuple[str, str, str]]) -> str:
    """What one sample's devices lack or add against the first's, briefly."""
    missing, extra = sorted(d for _, _, d in first - seen), sorted(d for _, _, d in seen - first)
    return "; ".join(part for part in (f"without {', '.join(missing[:3])}" if missing else "",
                                       f"with {', '.join(extra[:3])}" if extra else "") if part)


#: The counters rates are taken from: their differences between samples.
_DELTAS = ("reads", "writes", "sectors_read", "sectors_written", "read_ms", "write_ms", "io_ms", "weighted_io_ms")
#: The figures `device_means` averages.
MEAN_COLUMNS = ["reads_per_s", "writes_per_s", "read_kib_per_s", "write_kib_per_s", "read_latency_ms",
                "write_latency_ms", "in_flight", "utilisation", "queue_length"]
_NAN = float("nan")


def _intervals(path: str | Path, interval: float) -> Iterator[dict[str, Any]]:
    """The rows of `rates`, in file order, from the lines as they are read: only each device's
    previous line is kept."""
    source = str(path)
    if not isinstance(interval, (int, float)) or isinstance(interval, bool) or not interval > 0 or interval == float("inf"):
        raise ScenarioError(source, "interval", f"{interval!r}: expected a positive number of seconds")
    previous: dict[tuple[int, int, str], Line] = {}
    for now in lines(path):
        key = (now.major, now.minor, now.device)
        before, previous[key] = previous.get(key), now
        if before is None or before.sample != now.sample - 1:
            continue
        stamped = now.time is not None and before.time is not None
        if stamped:
            assert now.time is not None and before.time is not None
            span = (now.time - before.time).total_seconds()
            if not span > 0:
                raise ScenarioError(source, f"sample {now.sample}", f"its time {now.time} is not after the previous "
                                                                    f"sample's {before.time}: cannot compute rates")
        else:
            span = float(interval)
        delta = {c: float(now.values.get(c, _NAN)) - float(before.values.get(c, _NAN)) for c in _DELTAS}
        reset = any(d < 0 for d in delta.values())

        def per(value: float, divisor: float, reset: bool = reset) -> float:
            return value / divisor if not reset and divisor > 0 else _NAN

        yield {
            "sample": now.sample, "time": now.time, "device": now.device, "interval_s": span,
            "reads_per_s": per(delta["reads"], span), "writes_per_s": per(delta["writes"], span),
            "read_kib_per_s": per(delta["sectors_read"] * 512 / 1024, span),
            "write_kib_per_s": per(delta["sectors_written"] * 512 / 1024, span),
            "read_latency_ms": per(delta["read_ms"], delta["reads"]),
            "write_latency_ms": per(delta["write_ms"], delta["writes"]),
            "in_flight": float(now.values.get("in_flight", _NAN)),
            "utilisation": per(delta["io_ms"], span * 1000), "queue_length": per(delta["weighted_io_ms"], span * 1000),
            "reset": reset,
        }


def rates(path: str | Path, interval: float = 1.0) -> pd.DataFrame:
    """Per device and pair of consecutive samples: I/Os and KiB per second, mean read and write
    latency in ms (ticks delta / I/Os delta, missing when no I/O completed), in-flight I/Os at the
    later sample, utilisation (io_ms delta / interval, 0 to 1) and mean queue length
    (weighted_io_ms delta / interval). The interval is the difference of the samples' timestamps,
    or `interval` seconds when either has none. A counter that went down (a reset, or a 32-bit
    wrap on old kernels) leaves that row's figures missing, with `reset` true."""
    import pandas as pd

    table = pd.DataFrame(list(_intervals(path, interval)), columns=RATE_COLUMNS)
    table = table.astype({"sample": "Int64", "time": "datetime64[ns]", "reset": bool})
    return table.sort_values(["sample", "device"], kind="stable").reset_index(drop=True)


def device_means(path: str | Path, interval: float = 1.0) -> pd.DataFrame:
    """One row per device: the number of intervals and the mean of each of `rates`' figures over
    them (intervals where it is missing left out; missing if it is missing in all). Running sums
    per device as the file is read, so memory follows the devices, not the samples. Counters that
    went down (a reboot, a wrap, or two captures joined in one file) are said on stderr: the means
    then span both sides of it. `rate_spread` and `response_spread`: the 95% half-width of the
    mean I/O rate (reads and writes) and mean response over the intervals, as a share of the mean
    (`spread`)."""
    import pandas as pd

    sums: dict[str, list[float]] = {}
    # Per device: each interval's I/O rate and mean response, as count, sum and sum of squares.
    moments: dict[str, list[list[float]]] = {}
    counts: dict[str, list[int]] = {}
    intervals: dict[str, int] = {}
    resets: dict[str, int] = {}
    for row in _intervals(path, interval):
        device = row["device"]
        if row["reset"]:
            resets[device] = resets.get(device, 0) + 1
        total = sums.setdefault(device, [0.0] * len(MEAN_COLUMNS))
        count = counts.setdefault(device, [0] * len(MEAN_COLUMNS))
        intervals[device] = intervals.get(device, 0) + 1
        ios = row["reads_per_s"] + row["writes_per_s"]
        response = (row["read_latency_ms"] * row["reads_per_s"] if row["reads_per_s"] else 0.0) + \
            (row["write_latency_ms"] * row["writes_per_s"] if row["writes_per_s"] else 0.0)
        for figure, value in zip(moments.setdefault(device, [[0.0] * 3, [0.0] * 3]), (ios, response / ios if ios else _NAN)):
            if value == value:  # not NaN
                figure[0], figure[1], figure[2] = figure[0] + 1, figure[1] + value, figure[2] + value * value
        for i, column in enumerate(MEAN_COLUMNS):
            if row[column] == row[column]:  # not NaN
                total[i] += row[column]
                count[i] += 1
    if resets:
        warn(str(path), "counters", f"went down in {sum(resets.values())} interval(s) of {', '.join(sorted(resets)[:3])}"
                                    f"{' and others' if len(resets) > 3 else ''}: a reboot, a 32-bit wrap or two captures "
                                    "joined; those intervals are left out, and the means span both sides")
    return pd.DataFrame([[device, intervals[device], *(s / c if c else _NAN for s, c in zip(sums[device], counts[device])),
                          *(spread(*m) for m in moments[device])]
                         for device in sorted(sums)], columns=["device", "intervals", *MEAN_COLUMNS, *SPREAD_COLUMNS])


#: The columns `device_means` adds after the means: how closely the capture gives its means.
SPREAD_COLUMNS = ["rate_spread", "response_spread"]

