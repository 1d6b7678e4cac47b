"""`esxcli storage nmp device list` (ESXi 5 to 8): one block per device, `Key: value` lines
indented under the device name, blocks separated by blank lines (research/formats.md §2.1)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pathlab.api import ScenarioError
from pathlab.readers import _esxcli_text as t
from pathlab.readers._listed_once import listed_once

if TYPE_CHECKING:
    import pandas as pd

#: The keys every block has, with the column each becomes.
FIELDS = {
    "Device Display Name": "display_name",
    "Storage Array Type": "satp",
    "Storage Array Type Device Config": "satp_config",
    "Path Selection Policy": "psp",
    "Path Selection Policy Device Config": "psp_config",
    "Working Paths": "working_paths",
}
COMMAND = "esxcli storage nmp device list"
#: What a device's block says of the host's settings and topology (`_listed_once`): its display
#: name (`esxcli storage core device set --name`), SATP (claim rules, `esxcli storage nmp satp
#: rule add`) and its options, PSP (`esxcli storage nmp device set --psp`) and the settings of its
#: config (`_esxcli_text.PSP_SETTINGS`, read as `rr_type`, `iops`, `bytes`, `use_ano`), and the
#: other keys (`Is USB`, the custom config: `esxcli storage nmp psp generic deviceconfig set`).
#: `Working Paths` and the rest of the PSP's config are of the listing's moment: a failover or a
#: busy host moves them.
SETTINGS: dict[str, Callable[[Any], Any] | None] = {
    "display_name": None, "satp": None, "satp_config": t.satp_settings, "psp": None, "psp_config": t.psp_settings,
    "rr_type": None, "iops": None, "bytes": None, "use_ano": None, "others": None,
}
#: Every key the listing prints (ESXi 5 to 8): a line starting with one starts a new value.
_KEYS = frozenset(FIELDS) | frozenset(t.SIGNATURES[COMMAND]) | {"Is USB", "Is Local SAS Device", "Is Boot USB Device"}
_DEVICE = re.compile(r"^(naa|eui|t10|mpx|vml)\.\S+?:?$")


def _round_robin(config: str, name: str, line: int) -> dict[str, Any]:
    """`{policy=rr,iops=1000,bytes=10485760,useANO=0; ...}` as rr_type, iops, bytes, use_ano
    (`config` printed at `line` of file `name`)."""
    head = config.strip("{}").split(";")[0]
    pairs = dict(p.split("=", 1) for p in head.split(",") if "=" in p)

    def number(key: str) -> int | None:
        text = pairs.get(key)
        if text is None:
            return None
        text = text.strip()
        if not t.is_whole(text):  # refused as the HPP reader refuses its scheme's: never dropped for the default
            raise ScenarioError(name, f"line {line}", f"`Path Selection Policy Device Config`: {key} should be a whole "
                                                      f"number, found {text[:40]!r}")
        return t.within_column(name, line, f"`Path Selection Policy Device Config`: {key}", text)

    return {"rr_type": pairs.get("policy"), "iops": number("iops"), "bytes": number("bytes"),
            "use_ano": pairs.get("useANO") == "1"}


def read(path: str | Path) -> pd.DataFrame:
    """One row per device; `working_paths` is a list of runtime names; `others` the other keys
    of the block and their values, in order (`Is USB: false`); round robin devices also
    get `rr_type` (rr, iops, bytes, latency), `iops`, `bytes` and `use_ano`. `line` is the
    device name's line, `satp_line`, `psp_config_line`, `working_paths_line` (and so on) each
    value's."""
    import pandas as pd

    reader = t.Reader(path, COMMAND)
    name = reader.name
    rows = _plain_rows(reader) if reader.plain is not None else _rows(reader)
    if not rows:
        raise ScenarioError(name, "", "no device: not `esxcli storage nmp device list` output")
    for row in rows:
        missing = [k for k, col in FIELDS.items() if col not in row]
        if missing:
            raise ScenarioError(name, row["device"], f"missing {', '.join(missing)}")
        row["working_paths"] = t.path_list(row["working_paths"])
        for working in row["working_paths"]:
            if len(working.split()) > 1:  # (a wrap's rest joined to the list, or a key line cut before its colon)
                raise ScenarioError(name, f"line {row['working_paths_line']}", f"`Working Paths`: {working[:40]!r} is not a "
                                    "runtime name (a blank inside it: the next line joined to the list, or the file cut short?)")
        if row["psp"] == "VMW_PSP_RR":
            row.update(_round_robin(row["psp_config"], name, row["psp_config_line"]))
    return pd.DataFrame(listed_once(rows, "device", name, COMMAND, SETTINGS))


def _rows(reader: t.Reader) -> list[dict[str, Any]]:
    """Each device's block read a line at a time (a listing as pasted, `_esxcli_text.Reader`)."""
    name = reader.name
    rows: list[dict[str, Any]] = []
    for number, line in reader.lines:
        if not line.strip() or t.is_shell(line):
            continue
        if _DEVICE.match(line.strip()):  # at any indentation: a blog may have lost it
            rows.append({"device": line.strip().rstrip(":"), "line": number})  # some pages print `naa.…:`
            continue
        key = t.KEY.match(line)
        if not rows:
            if key and line[:1].isspace():
                raise ScenarioError(name, f"line {number}", "a `Key: value` line before any device name")
            raise ScenarioError(name, f"line {number}", f"expected a device name (naa.…), found {line.strip()[:40]!r}")
        if key is None:  # (a value a wrap cut is joined before: `_esxcli_text._continued`)
            raise ScenarioError(name, f"line {number}", f"expected `Key: value`, found {line.strip()[:40]!r}")
        _add(rows[-1], key.group(1).strip(), (key.group(2) or "").strip(), number)
    return rows


def _plain_rows(reader: t.Reader) -> list[dict[str, Any]]:
    """Each device's block as the plain listing's blocks give it (`_plain_listing`: a name line,
    then its keys, each a known key once, with its value and line): what `_rows` reads of the same
    lines, without matching each line again (500 devices' 6,500 lines, 10 ms). No line of a plain
    listing is a prompt or a command (`is_shell`), every key line is a `KEY` line, and a name line
    has no blank: one that is not a device's name is refused in `_rows`' words."""
    assert reader.plain is not None
    lines, blocks = reader.plain
    rows: list[dict[str, Any]] = []
    for device, number, _, fields in blocks:
        line = lines[number - 1]
        if not _DEVICE.match(line):
            raise ScenarioError(reader.name, f"line {number}", f"expected a device name (naa.…), found {line[:40]!r}"
                                if not rows else f"expected `Key: value`, found {line[:40]!r}")
        row: dict[str, Any] = {"device": device, "line": number}
        for field, (value, at) in fields.items():
            _add(row, field, value, at)
        rows.append(row)
    return rows


def _add(row: dict[str, Any], field: str, value: str, number: int) -> None:
    """A key of a device's block, read at line `number`, into its row."""
    column = FIELDS.get(field)
    if column is not None:
        row[column] = value
        row[f"{column}_line"] = number  # where a finding points
    elif field in _KEYS:  # printed, not modelled (`Is USB`, the custom config): `show` prints it back
        row.setdefault("others", {})[field] = value
