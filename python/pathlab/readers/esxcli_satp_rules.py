"""`esxcli storage nmp satp rule list` (ESX 4.x: `esxcli nmp satp listrules`): a fixed-width
table, a header line, a line of dashes under each column (dropped when the output went through
grep), then one rule per line with empty cells left blank (research/formats.md §2.5).

Columns are placed by the dashes or, without them, by where each column name starts in the
header. ESXi 5+ prints Name, Device, Vendor, Model, Driver, Transport, Options, Rule Group, Claim
Options, Default PSP, PSP Options, Description; ESX 4.1 has no Rule Group."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pathlab.readers import _esxcli_text as t
from pathlab.readers._dashed_table import DASHES, rows_under

if TYPE_CHECKING:
    import pandas as pd

COMMAND = "esxcli storage nmp satp rule list"
#: Column name: DataFrame column.
COLUMNS = {
    "Name": "name", "Device": "device", "Vendor": "vendor", "Model": "model", "Driver": "driver",
    "Transport": "transport", "Options": "options", "Rule Group": "rule_group",
    "Claim Options": "claim_options", "Default PSP": "default_psp", "PSP Options": "psp_options",
    "Description": "description",
}
REQUIRED = ("Name", "Vendor", "Model", "Driver", "Transport", "Options", "Claim Options", "Description")
DTYPES = {column: "string" for column in COLUMNS.values()} | {
    "psp_policy": "string", "iops": "Int64", "bytes": "Int64", "line": "Int64"}
_SATP = re.compile(r"^[A-Za-z0-9_]+$")
#: The header of `esxcli storage nmp satp list`, the other table people paste.
_SATP_LIST = ("Name", "Default PSP", "Description")


def read(path: str | Path) -> pd.DataFrame:
    """One row per rule, every column a string (<NA> where the cell is blank), the PSP options
    also split into `psp_policy`, `iops` and `bytes` where they say so (`iops=1`,
    `policy=latency`), and `line`, the rule's line in the file."""
    reader = t.Reader(path, COMMAND)
    rows = [(n, line.rstrip()) for n, line in reader.lines
            if line.strip() and not t.is_shell(line)]
    if not rows:
        reader.empty()
    header_number, header = rows[0]
    if "\t" in header:
        reader.fail(header_number, "a tab in the table header: the columns cannot be placed (paste the "
                                   "output as esxcli prints it, with spaces)")
    spans = _columns(reader, header_number, header, rows[1] if len(rows) > 1 else None)
    body = rows_under(reader.name, header_number, rows[1:], "rule")
    return t.frame([_rule(reader, n, line, spans, header_number) for n, line in body], DTYPES, COMMAND)


def _columns(reader: t.Reader, number: int, header: str,
             dashes: tuple[int, str] | None) -> list[tuple[str, int, int | None]]:
    """(column name, start, end) for each column, end None for the last."""
    if t.KEY.match(header) or not header.lstrip().startswith("Name"):
        reader.fail(number, f"expected the table header `Name  Device  Vendor  Model …` of `{COMMAND}`, "
                            f"found {header.strip()[:60]!r}")
    if dashes and DASHES.match(dashes[1]):
        starts = [m.start() for m in re.finditer(r"-+", dashes[1])]
        names = [header[s:e].strip() for s, e in zip(starts, starts[1:] + [len(header) + 1])]
        for start, name in zip(starts, names):
            if start > 0 and start <= len(header) and header[start - 1] != " ":
                reader.fail(dashes[0], f"the dashes do not line up with the header on line {number} "
                                       f"(column {start + 1})")
            if name not in COLUMNS:
                reader.fail(number, f"unknown column `{name}`: expected {', '.join(COLUMNS)}")
    else:
        starts, names = _names(reader, number, header)
    if tuple(names) == _SATP_LIST:
        reader.fail(number, "this is `esxcli storage nmp satp list` (each SATP and its default PSP), "
                            f"not `{COMMAND}`")
    missing = [n for n in REQUIRED if n not in names]
    if missing:
        reader.fail(number, f"the header has no {', '.join(f'`{m}`' for m in missing)}: not the header "
                            f"of `{COMMAND}`")
    if len(set(names)) != len(names):
        reader.fail(number, "a column named twice in the header")
    ends: list[int | None] = [*starts[1:], None]
    return list(zip(names, starts, ends))


def _names(reader: t.Reader, number: int, header: str) -> tuple[list[int], list[str]]:
    """Column names and where they start, matched against the known names (longest first), so
    that a single blank between two names (`Options Rule Group`) is still read."""
    known = sorted(COLUMNS, key=len, reverse=True)
    starts, names, position = [], [], 0
    while position < len(header):
        if header[position] == " ":
            position += 1
            continue
        name = next((k for k in known if header.startswith(k, position)
                     and header[position + len(k):position + len(k) + 1] in ("", " ")), None)
        if name is None:
            word = header[position:].split()[0]
            reader.fail(number, f"unknown column `{word}` at character {position + 1}: expected "
                                f"{', '.join(COLUMNS)}")
        starts.append(position)
        names.append(name)
        position += len(name)
    return starts, names


def _rule(reader: t.Reader, number: int, line: str, spans: list[tuple[str, int, int | None]],
          header_number: int) -> dict[str, Any]:
    if "\t" in line:
        reader.fail(number, "a tab in a table row: the columns cannot be placed (paste the output as "
                            "esxcli prints it, with spaces)")
    first = spans[0][1]
    if line[:first].strip():
        reader.fail(number, f"text before the first column, which starts at character {first + 1} "
                            f"(header on line {header_number})")
    row: dict[str, Any] = {column: None for column in COLUMNS.values()}
    for name, start, _ in spans[1:]:
        if start < len(line) and line[start - 1] != " " and line[start] != " ":
            reader.fail(number, f"text runs across the start of column `{name}` (character {start + 1}): "
                                f"the row does not line up with the header on line {header_number}")
    for name, start, end in spans:
        cell = line[start:end].strip()
        row[COLUMNS[name]] = cell or None
    if not row["name"] or not _SATP.match(row["name"]):
        reader.fail(number, f"expected an SATP name (VMW_SATP_…) in column `Name`, found "
                            f"{(row['name'] or '')[:40]!r}")
    options = t.pairs(row["psp_options"] or "", ",;")
    row["psp_policy"] = options.get("policy")
    for key in ("iops", "bytes"):
        value = options.get(key)
        if value is not None and not t.is_whole(value):
            reader.fail(number, f"`PSP Options`: {key} should be a whole number, found {value!r}")
        row[key] = int(value) if value is not None else None
    row["line"] = number
    return row
