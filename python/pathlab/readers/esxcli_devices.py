"""`esxcli storage nmp device list` (ESXi 5 to 8): one block per device, `Key: value` lines
indented under the device name, blocks separated by blank lines (research/formats.md §2.1)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pathlab.api import ScenarioError
from pathlab.readers._file import text_of

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
_DEVICE = re.compile(r"^(naa|eui|t10|mpx|vml)\.\S+$")


def _round_robin(config: str) -> dict[str, Any]:
    """`{policy=rr,iops=1000,bytes=10485760,useANO=0; ...}` as rr_type, iops, bytes, use_ano."""
    head = config.strip("{}").split(";")[0]
    pairs = dict(p.split("=", 1) for p in head.split(",") if "=" in p)
    number = lambda k: int(pairs[k]) if pairs.get(k, "").isdigit() else None  # noqa: E731
    return {"rr_type": pairs.get("policy"), "iops": number("iops"), "bytes": number("bytes"),
            "use_ano": pairs.get("useANO") == "1"}


def read(path: str | Path) -> pd.DataFrame:
    """One row per device; `working_paths` is a list of runtime names; round robin devices also
    get `rr_type` (rr, iops, bytes, latency), `iops`, `bytes` and `use_ano`."""
    import pandas as pd

    name = str(path)
    text = text_of(path)
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if not line.startswith((" ", "\t")):
            if not _DEVICE.match(line.strip()):
                raise ScenarioError(name, f"line {number}", f"expected a device name (naa.…), found {line.strip()[:40]!r}")
            rows.append({"device": line.strip()})
            continue
        if not rows:
            raise ScenarioError(name, f"line {number}", "a `Key: value` line before any device name")
        key, sep, value = line.strip().partition(":")
        if not sep:
            raise ScenarioError(name, f"line {number}", f"expected `Key: value`, found {line.strip()[:40]!r}")
        if key in FIELDS:
            rows[-1][FIELDS[key]] = value.strip()
    if not rows:
        raise ScenarioError(name, "", "no device: not `esxcli storage nmp device list` output")
    for row in rows:
        missing = [k for k, col in FIELDS.items() if col not in row]
        if missing:
            raise ScenarioError(name, row["device"], f"missing {', '.join(missing)}")
        row["working_paths"] = [p.strip() for p in row["working_paths"].split(",") if p.strip()]
        if row["psp"] == "VMW_PSP_RR":
            row.update(_round_robin(row["psp_config"]))
    return pd.DataFrame(rows)
