"""`iostat -x` (sysstat 9 to 12; `-k`, `-m`, `-t`, `-y`, `-z`, `-d`, `-p`, `--pretty`) as text
(research/formats.md §3.4). The column set is read from each `Device` header, so every version's
reads: sysstat ≤ 11.4 `rrqm/s wrqm/s r/s w/s rkB/s wkB/s avgrq-sz avgqu-sz await [r_await w_await]
svctm %util`, 11.5 to 12.0 `r/s w/s rkB/s wkB/s rrqm/s wrqm/s %rrqm %wrqm r_await w_await aqu-sz
rareq-sz wareq-sz svctm %util`, 12.1 on with the discard (`d/s` …) and flush (`f/s f_await`)
columns; `-m` prints `rMB/s`, older versions `rsec/s` without `-k`. `normalise` renames the old
names to the current ones and converts MB/s and sectors to kB.

The banner (`Linux 5.4.0 (host) 06/01/20 _x86_64_ (8 CPU)`), `avg-cpu` blocks and blank lines are
skipped; a timestamp line (`-t`: `11/10/14 17:44:13`, `06/22/2020 12:46:10 AM`, ISO
`2020-06-22T12:46:10+0000`, …) dates the report that follows it. Values may use a decimal comma
(locales that print `0,00`). Human-readable values (`-h`: `1.2M`, `10.0%`) are refused.

A report is one table, or several with `--pretty` (read, write, discard, flush: a header whose
columns the report has not had yet continues it). One run prints every report with the same
columns: a header with others is a second run joined in the file (`-m` and `-k` runs give `rMB/s`
and `rkB/s`; its first report counts since boot), refused naming its line. So is a capture of
headers alone (every report empty): it measures nothing."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pathlab.api import ScenarioError, warn
from pathlab.readers._file import lines_of
from pathlab.readers.pasted import command_of

if TYPE_CHECKING:
    import pandas as pd

_BANNER = re.compile(r"^\s*Linux \S+ \(.*\)\s+\S+\s+_\S+_\s+\(\d+ CPU\)\s*$")
_NUMBER = re.compile(r"^-?\d+(?:[.,]\d+)?$")
_HUMAN = re.compile(r"^-?\d+(?:[.,]\d+)?[kMGTP%]$")
_TIME_FORMATS = ("%m/%d/%y %H:%M:%S", "%m/%d/%Y %H:%M:%S", "%m/%d/%y %I:%M:%S %p", "%m/%d/%Y %I:%M:%S %p",
                 "%d/%m/%Y %H:%M:%S", "%d.%m.%Y %H:%M:%S", "%d.%m.%y %H:%M:%S", "%Y-%m-%d %H:%M:%S",
                 "%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%dT%H:%M:%S")
_TIME_SHAPE = re.compile(r"^\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}[ T]\d{1,2}:\d\d:\d\d(?: ?[AaPp][Mm])?(?:Z|[+-]\d\d:?\d\d)?$")
#: Old column names and the current ones, with the factor from the old unit to the new.
RENAMES = {"avgqu-sz": ("aqu-sz", 1.0), "rMB/s": ("rkB/s", 1024.0), "wMB/s": ("wkB/s", 1024.0),
           "dMB/s": ("dkB/s", 1024.0), "rsec/s": ("rkB/s", 0.5), "wsec/s": ("wkB/s", 0.5),
           "avgrq-sz": ("areq-sz", 0.5)}


def _time(text: str) -> datetime | None:
    for fmt in _TIME_FORMATS:
        try:
            stamp = datetime.strptime(text, fmt)
        except ValueError:
            continue
        return stamp.replace(tzinfo=None)
    return None


def rows(path: str | Path) -> Iterator[dict[str, Any]]:
    """The device lines in file order, one dict each: `report` (from 0), `time` (with `-t`, else
    None), `device`, the header's columns as floats, and `line`. Read a line at a time."""
    for item in _read(path):
        if isinstance(item, dict):
            yield item


def _read(path: str | Path) -> Iterator[int | dict[str, Any]]:
    """`rows`, each report's number before its rows (an empty report, as `-z` prints an idle
    host's, is its number alone)."""
    name = str(path)
    columns: list[str] = []
    first_header = 0  # the line of the first `Device` header
    first_report: set[str] | None = None  # the first report's columns, once it is complete
    in_report: set[str] = set()  # the columns of the report being read (--pretty splits one in tables)
    device_last = False
    report, headers, devices = -1, 0, 0
    report_header = 0  # the line of the current report's first `Device` header
    stamp: datetime | None = None
    pending: datetime | None = None
    skip_cpu = False
    orphan: tuple[str, int] | None = None  # a device name alone on its line (long names)
    any_text = False
    for number, line in enumerate(lines_of(path), start=1):
        any_text = any_text or bool(line.strip())
        where = f"line {number}"
        words = line.split()
        if skip_cpu:
            skip_cpu = False
            if words and all(_NUMBER.match(w) or _HUMAN.match(w) for w in words):
                continue
        if not words or _BANNER.match(line):
            continue
        command = command_of(line)
        if command is not None:
            # A prompt or command line pasted with the output: iostat's own is the capture's
            # heading; another's is said (its output would be refused at its first line).
            if command and not command.startswith("iostat"):
                warn(name, where, f"a pasted command line skipped: {line.strip()[:60]!r}")
            continue
        if words[0] == "avg-cpu:":
            skip_cpu = True
            continue
        if words[0].rstrip(":") == "Device" or words[-1] == "Device":
            device_last = words[0].rstrip(":") != "Device"
            columns = words[:-1] if device_last else words[1:]
            if not columns or len(set(columns)) != len(columns):
                raise ScenarioError(name, where, "a Device header without columns, or with a column twice")
            if in_report & set(columns) or not in_report:  # a new report; else --pretty's next table of it
                if first_report is None and in_report:
                    first_report = in_report
                elif first_report is not None and in_report != first_report:
                    raise _fewer_columns(name, report_header, in_report, first_report, first_header)
                report, in_report, report_header = report + 1, set(), number
                stamp, pending = pending, None
                yield report
            in_report |= set(columns)
            if first_report is not None and not set(columns) <= first_report:
                # One run prints the same reports: other columns are a second run joined (its first
                # report counts since boot, and rMB/s beside rkB/s would be summed as one figure).
                raise ScenarioError(name, where, f"columns {' '.join(c for c in columns if c not in first_report)} that "
                                                 f"the first report (line {first_header}) has not: a second iostat run "
                                                 "joined in one file (as `iostat -xm` and `iostat -xk` would be); give one run")
            first_header, headers = first_header or number, headers + 1
            orphan = None
            continue
        if _TIME_SHAPE.match(line.strip()):
            pending = _time(line.strip())
            if pending is None:
                raise ScenarioError(name, where, f"{line.strip()!r} looks like an iostat -t timestamp but is not a date")
            continue
        if not columns:
            raise ScenarioError(name, where, "expected iostat output: a `Device` header line before the device lines, "
                                             f"found {line.strip()[:50]!r}")
        if orphan is not None:
            if not (line[:1].isspace() and len(words) == len(columns)):
                raise ScenarioError(name, f"line {orphan[1]}", f"{orphan[0]!r}: a device name alone on its line, not "
                                                               f"followed by its {len(columns)} values")
            device, values = orphan[0], words
        elif len(words) == 1 and not line[:1].isspace():
            orphan = (words[0], number)
            continue
        else:
            if len(words) != len(columns) + 1:
                raise ScenarioError(name, where, f"expected a device name and {len(columns)} values ({' '.join(columns)}), "
                                                 f"found {len(words)} fields (truncated?)")
            device, values = (words[-1], words[:-1]) if device_last else (words[0], words[1:])
        orphan = None
        devices += 1
        row: dict[str, Any] = {"report": report, "time": stamp, "device": device, "line": number}
        for column, value in zip(columns, values):
            if _HUMAN.match(value):
                raise ScenarioError(name, where, f"{value!r} in column {column}: human-readable values (iostat -h) "
                                                 "are not supported; capture without -h")
            if not _NUMBER.match(value):
                raise ScenarioError(name, where, f"{value[:20]!r} in column {column} of {device} is not a number")
            row[column] = float(value.replace(",", "."))
        yield row
    if orphan is not None:
        raise ScenarioError(name, f"line {orphan[1]}", f"{orphan[0]!r}: a device name without its values (truncated?)")
    if first_report is not None and in_report != first_report:
        raise _fewer_columns(name, report_header, in_report, first_report, first_header)
    if not headers:
        raise ScenarioError(name, "line 1", "empty file: expected iostat -x output" if not any_text else
                            "no `Device` header: not iostat output")
    if not devices:
        # Headers alone (every report empty) measure nothing: refused as an empty file is.
        raise ScenarioError(name, f"line {first_header}", f"{headers} `Device` header(s) and no device line: the "
                                                          "capture holds no report of a device")


def read(path: str | Path) -> pd.DataFrame:
    """One row per report and device: `report` (from 0), `time` (with `-t`, else missing),
    `device`, one float column per header column, named as the header prints it (`r/s`, `rkB/s`,
    `r_await`, `aqu-sz` or `avgqu-sz`, `%util`, …), and the line."""
    import pandas as pd

    found = list(rows(path))
    order = dict.fromkeys(c for row in found for c in row if c not in ("report", "time", "device", "line"))
    table = pd.DataFrame(found, columns=["report", "time", "device", *order, "line"])
    table = table.astype({"report": "Int64", "device": "string", "line": "Int64"} | {c: "float64" for c in order})
    table["time"] = pd.to_datetime(table["time"])
    return table


def normalise(table: pd.DataFrame) -> pd.DataFrame:
    """The same report with the current sysstat names: `avgqu-sz` → `aqu-sz`, `rMB/s`/`rsec/s` →
    `rkB/s` (and `w…`, `d…`), `avgrq-sz` (sectors) → `areq-sz` (kB), values converted."""
    out = table.copy()
    for old, (new, factor) in RENAMES.items():
        if old in out.columns and new not in out.columns:
            out[new] = out.pop(old) * factor
    return out


def _fewer_columns(name: str, line: int, columns: set[str], first: set[str], first_header: int) -> ScenarioError:
    """A report without some of the first report's columns: one run prints every report alike,
    so it is another run joined (or an edited file), and its missing columns would be read as
    zero in the means."""
    missing = " ".join(sorted(first - columns))
    return ScenarioError(name, f"line {line}", f"a report without the columns {missing} that the first report (line "
                                               f"{first_header}) has: a second iostat run joined in one file; give one run")


#: iostat's columns (as `normalise` names them) and the names of `diskstats.device_means`.
MEANS = {"r/s": "reads_per_s", "w/s": "writes_per_s", "rkB/s": "read_kib_per_s", "wkB/s": "write_kib_per_s",
         "aqu-sz": "queue_length", "r_await": "read_latency_ms", "w_await": "write_latency_ms"}
#: The key of `device_means`' `attrs` saying the capture leaves idle devices out (`-z`): a device
#: in none of its reports was idle in every one.
LEAVES_IDLE_OUT = "leaves_idle_out"


def device_means(path: str | Path) -> pd.DataFrame:
    """One row per device: the mean of its reads and writes per second, KiB per second and
    queue over the reports (the first with devices left out when there are more: it counts
    since boot), named as `diskstats.device_means` names them (a queue missing if iostat printed
    none). A device missing from a later report counts as idle there (`-z` leaves idle devices
    out; said on stderr). `attrs[LEAVES_IDLE_OUT]`: a device is missing from a later report and
    no line after the first report is all zeros (iostat prints one for an idle device without
    `-z`; a device with any I/O has a non-zero rate, size or wait), so the capture is `-z`'s.
    Running sums per device as the file is read, so memory follows the devices, not the reports.
    The means are taken of the columns as printed, then `normalise`d: a mean of values in MB/s is
    the mean of the same values in kB/s, over 1024."""
    import pandas as pd

    # For the first report with devices, and for the rest: device -> column -> sum.
    first: dict[str, dict[str, float]] = {}
    later: dict[str, dict[str, float]] = {}
    first_report: int | None = None
    reports_after = 0  # the reports after it, empty ones included
    # The later reports each device is in, counted (its rows come report by report; --pretty
    # prints a device once per table of a report, so a report counts once: at its first row).
    reports_in: dict[str, int] = {}
    last_report: dict[str, int] = {}
    # Whether a later report printed a device with zeros alone (idle devices printed: no -z), from
    # each device's lines in the report being read (--pretty prints one per table of a report).
    idle_printed = False
    active: dict[str, bool] = {}
    for item in _read(path):
        if isinstance(item, int):
            idle_printed = idle_printed or not all(active.values())
            active.clear()
            if first_report is not None:
                reports_after += 1
            continue
        if first_report is None:
            first_report = item["report"]
        is_later = item["report"] != first_report
        sums = (later if is_later else first).setdefault(item["device"], {})
        if is_later and last_report.get(item["device"]) != item["report"]:
            last_report[item["device"]] = item["report"]
            reports_in[item["device"]] = reports_in.get(item["device"], 0) + 1
        figures = {c: v for c, v in item.items() if c not in ("report", "time", "device", "line")}
        if is_later:
            active[item["device"]] = active.get(item["device"], False) or any(figures.values())
        for column, value in figures.items():
            sums[column] = sums.get(column, 0.0) + value
    idle_printed = idle_printed or not all(active.values())
    idle: list[str] = []
    if reports_after:
        columns = dict.fromkeys(c for sums in [*first.values(), *later.values()] for c in sums)
        means = [{"device": device, **{c: later.get(device, {}).get(c, 0.0) / reports_after for c in columns}}
                 for device in dict.fromkeys([*first, *later])]
        idle = [device for device in dict.fromkeys([*first, *later]) if reports_in.get(device, 0) < reports_after]
        if idle:
            warn(str(path), "devices", f"{', '.join(idle[:3])}{' and others' if len(idle) > 3 else ''} missing from "
                                       f"some of the {reports_after} reports after the first: taken as idle there "
                                       "(iostat -z leaves idle devices out)")
    else:
        means = [{"device": device, **sums} for device, sums in first.items()]
    table = normalise(pd.DataFrame(means)).reindex(columns=["device", *MEANS]).rename(columns=MEANS)
    table.attrs[LEAVES_IDLE_OUT] = bool(idle) and not idle_printed
    return table
