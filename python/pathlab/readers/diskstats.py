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
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pathlab.api import ScenarioError, regular_file

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


def read(path: str | Path) -> pd.DataFrame:
    """One row per sample and device: `sample` (from 0), `time` (the sample's timestamp, missing if
    the file has none), major, minor, device and the counters of iostats.rst (missing where the
    kernel does not print them), and the line. Read line by line into one array per column, so
    that memory follows the rows, not the text. Every sample lists the devices of the first (the
    last may stop short: a capture cut off); lines out of order are refused."""
    import numpy as np
    import pandas as pd

    name = str(path)
    regular_file(path)
    columns: dict[str, array[int]] = {c: array("Q") for c in ("major", "minor", *COUNTERS)}
    given = {c: array("B") for c in COUNTERS}  # 1 where the line has the counter
    samples, lines = array("q"), array("q")
    devices: list[str] = []
    names: dict[str, str] = {}
    times: list[datetime | None] = []
    sample, time = 0, None
    seen: set[tuple[str, str, str]] = set()
    first: set[tuple[str, str, str]] | None = None
    separated = False  # blank or timestamp lines mark the samples
    pending: datetime | None = None
    any_text = False

    def next_sample(where: str) -> None:
        nonlocal sample, seen, first
        if first is None:
            first = seen
        elif seen != first:
            raise ScenarioError(name, where, f"sample {sample} lists {len(seen)} devices where the first lists "
                                             f"{len(first)} ({_differ(seen, first)}): lines out of order, or a sample cut short")
        sample, seen = sample + 1, set()

    try:
        f = open(path, encoding="utf-8", errors="replace", newline="\n")  # noqa: SIM115
    except OSError as e:
        raise ScenarioError(name, "", e.strerror or "cannot be read") from None
    with f:
        for number, raw in enumerate(f, start=1):
            line = raw.rstrip("\n").rstrip("\r")
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
                pending = time = stamp
                continue
            major, minor, device, rest = m.groups()
            counters = rest.split()
            if len(counters) != 4 and not 11 <= len(counters) <= 17:
                raise ScenarioError(name, where, f"{device}: expected 11, 15 or 17 counters after `major minor name` "
                                                 f"(14, 18 or 20 fields), found {len(counters)} (truncated?)")
            fields = SHORT_PARTITION if len(counters) == 4 else COUNTERS[:len(counters)]
            values: dict[str, int] = {}
            for i, (field, value) in enumerate(zip(fields, counters)):
                if not value.isdigit() or not value.isascii() or int(value) >= _MAX:
                    raise ScenarioError(name, where, f"{device}: field {i + 4} ({field}) {value[:20]!r} is not a "
                                                     "counter (a whole number below 2^64)")
                values[field] = int(value)
            if int(major) >= _MAX or int(minor) >= _MAX:
                raise ScenarioError(name, where, f"{device}: major/minor {major}:{minor} out of range")
            key = (major, minor, device)
            if key in seen:
                if separated:
                    raise ScenarioError(name, where, f"{device} appears twice in one sample: lines out of order")
                next_sample(where)  # no separator: the device comes round again
                time = None
            if pending is not None:
                time, pending = pending, None
            seen.add(key)
            samples.append(sample)
            times.append(time)
            columns["major"].append(int(major))
            columns["minor"].append(int(minor))
            devices.append(names.setdefault(device, device))  # one string per device, not per line
            for c in COUNTERS:
                columns[c].append(values.get(c, 0))
                given[c].append(c in values)
            lines.append(number)
    if not devices:
        raise ScenarioError(name, "line 1", "no /proc/diskstats line: not a diskstats capture" if any_text
                            else "empty file: expected /proc/diskstats samples")

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
        "line": pd.array(np.frombuffer(lines, dtype=np.int64), dtype="Int64"),
    })
    table.attrs["source"] = name
    return table


def _differ(seen: set[tuple[str, str, str]], first: set[tuple[str, str, str]]) -> str:
    """What one sample's devices lack or add against the first's, briefly."""
    missing, extra = sorted(d for _, _, d in first - seen), sorted(d for _, _, d in seen - first)
    return "; ".join(part for part in (f"without {', '.join(missing[:3])}" if missing else "",
                                       f"with {', '.join(extra[:3])}" if extra else "") if part)


def rates(samples: pd.DataFrame, interval: float = 1.0) -> pd.DataFrame:
    """Per device and pair of consecutive samples: I/Os and KiB per second, mean read and write
    latency in ms (ticks delta / I/Os delta, missing when no I/O completed), in-flight I/Os at the
    later sample, utilisation (io_ms delta / interval, 0 to 1) and mean queue length
    (weighted_io_ms delta / interval). The interval is the difference of the samples' timestamps,
    or `interval` seconds when either has none. A counter that went down (a reset, or a 32-bit
    wrap on old kernels) leaves that row's figures missing, with `reset` true."""
    import numpy as np
    import pandas as pd

    source = str(samples.attrs.get("source", "diskstats"))
    if not isinstance(interval, (int, float)) or isinstance(interval, bool) or not interval > 0 or interval == float("inf"):
        raise ScenarioError(source, "interval", f"{interval!r}: expected a positive number of seconds")
    if samples.empty:
        return pd.DataFrame(columns=RATE_COLUMNS)
    frame = samples.copy()
    frame["key"] = frame["major"].astype(str) + ":" + frame["minor"].astype(str) + ":" + frame["device"].astype(str)
    count = frame[["reads", "writes", "sectors_read", "sectors_written", "read_ms", "write_ms", "io_ms",
                   "weighted_io_ms", "in_flight"]].astype("float64")
    frame = pd.concat([frame[["sample", "time", "device", "key"]], count], axis=1)
    times = frame.groupby("sample")["time"].first()
    later = frame.merge(frame.assign(sample=frame["sample"] + 1), on=["sample", "key"], suffixes=("", "_prev"))
    if later.empty:
        return pd.DataFrame(columns=RATE_COLUMNS)
    t_now = later["sample"].map(times)
    t_prev = (later["sample"] - 1).map(times)
    stamped = t_now.notna() & t_prev.notna()
    seconds = (pd.to_datetime(t_now) - pd.to_datetime(t_prev)).dt.total_seconds()
    bad = stamped & ~(seconds > 0)
    if bad.any():
        k = int(later.loc[bad, "sample"].iloc[0])
        raise ScenarioError(source, f"sample {k}", f"its time {t_now[bad].iloc[0]} is not after the previous "
                                                   f"sample's {t_prev[bad].iloc[0]}: cannot compute rates")
    span = seconds.where(stamped, float(interval)).astype("float64")
    delta = {c: later[c] - later[f"{c}_prev"] for c in ("reads", "writes", "sectors_read", "sectors_written",
                                                        "read_ms", "write_ms", "io_ms", "weighted_io_ms")}
    reset = pd.concat([d < 0 for d in delta.values()], axis=1).any(axis=1)
    ok = ~reset

    def per(value: pd.Series, divisor: pd.Series) -> pd.Series:
        with np.errstate(divide="ignore", invalid="ignore"):
            out = value / divisor
        return out.where(ok & (divisor > 0))

    table = pd.DataFrame({
        "sample": later["sample"].astype("Int64"), "time": pd.to_datetime(t_now), "device": later["device"],
        "interval_s": span,
        "reads_per_s": per(delta["reads"], span), "writes_per_s": per(delta["writes"], span),
        "read_kib_per_s": per(delta["sectors_read"] * 512 / 1024, span),
        "write_kib_per_s": per(delta["sectors_written"] * 512 / 1024, span),
        "read_latency_ms": per(delta["read_ms"], delta["reads"]),
        "write_latency_ms": per(delta["write_ms"], delta["writes"]),
        "in_flight": later["in_flight"],
        "utilisation": per(delta["io_ms"], span * 1000), "queue_length": per(delta["weighted_io_ms"], span * 1000),
        "reset": reset.astype(bool),
    })
    return table.sort_values(["sample", "device"], kind="stable").reset_index(drop=True)
