"""`nvme list -v` for the host's native NVMe multipath heads, as nvme-cli 2.x prints it
(`stdout_detailed_list` in `nvme-print-stdout.c`; `readers/nvme_list_verbose.py` reads it back),
or as 3.0 does where the listing read was 3.0's (its Orchestrator column):
three tables, each a header, a line of dashes and its rows, a blank line between them.

    Subsystem        Subsystem-NQN  (96 columns)        Controllers
    nvme-subsys0     nqn.…                               nvme0, nvme1

    Device   SN                   MN (40 columns)       FR       TxPort Address        Subsystem    Namespaces
    nvme0    85JZX23              dellemc-powerstore    2.1.0.0  tcp    traddr=…       nvme-subsys0 nvme0n1

    Device       Generic      NSID       Usage                      Format           Controllers
    /dev/nvme0n1 /dev/ng0n1   0x1         1.07  GB /   1.07  GB     512   B +  0 B   nvme0, nvme1

The columns by release, from nvme-cli's tags: 2.0 to 2.4 print no Slot and the NSID `%-8x`; 2.5
adds the Slot and prints the NSID `%#-10x`; 2.9 adds the Cntlid (its header `%-16s %-5s` over
rows `%-8s %-6s`, the namespace header `%-17s` over rows `%-12s`, as nvme-cli has them); 3.0
(`src/nvme-print-stdout.c` at v3.0-rc1) adds the Orchestrator, prints the name `%-16s` and the
namespaces `%-17s %-20s %#-10x %-21s %-25s %-16s` (usage, then the usage in binary units). An
imported listing is printed in the columns it had (`columns` in its `listed` table), every row
and value as read, in the listing's order; it prints no state, so nothing the simulation changes
shows here. A head that was not imported from `nvme list -v` prints the model's names (`Names`
in `output/nvme.py`) and `?` for what the model does not hold (serial, model, firmware, generic
device, usage, format)."""

from __future__ import annotations

import re
from typing import Any

from pathlab.output.as_read import NOT_READ
from pathlab.output.nvme import Subsystems, _address, transport

DASHES = "-" * 100
#: Each layout's header widths and row widths (`columns` as the import read them: the optional
#: columns its controller table had), for the controller and namespace tables.
CONTROLLER_COLUMNS = {
    "": (("Device", 8, 8), ("SN", 20, 20), ("MN", 40, 40), ("FR", 8, 8), ("TxPort", 6, 6), ("Address", 14, 14),
         ("Subsystem", 12, 12)),
    "Slot": (("Device", 8, 8), ("SN", 20, 20), ("MN", 40, 40), ("FR", 8, 8), ("TxPort", 6, 6), ("Address", 14, 14),
             ("Slot", 6, 6), ("Subsystem", 12, 12)),
    "Cntlid,Slot": (("Device", 16, 8), ("Cntlid", 5, 6), ("SN", 20, 20), ("MN", 40, 40), ("FR", 8, 8), ("TxPort", 6, 6),
                    ("Address", 14, 14), ("Slot", 6, 6), ("Subsystem", 12, 12)),
    "Orchestrator,Cntlid,Slot": (("Device", 16, 16), ("Orchestrator", 12, 12), ("Cntlid", 6, 6), ("SN", 20, 20),
                                 ("MN", 40, 40), ("FR", 8, 8), ("TxPort", 6, 6), ("Address", 14, 14), ("Slot", 6, 6),
                                 ("Subsystem", 12, 12)),
}
#: The namespace table's Device, Generic and NSID widths (header, dashes and row alike but 2.9's),
#: and its Usage's: one column `%-26s`, or from 2.15 `%-21s %-25s` (the usage, then in binary units)
#: under a header `%-49s`.
NAMESPACE_COLUMNS = {"": ((12, 12), (12, 12), (8, 8)), "Slot": ((12, 12), (12, 12), (10, 10)),
                     "Cntlid,Slot": ((17, 12), (17, 12), (10, 10)),
                     "Orchestrator,Cntlid,Slot": ((17, 17), (20, 20), (10, 10))}
USAGE_COLUMNS = {"Orchestrator,Cntlid,Slot": (49, 21, 25)}
_FIELD = {"Device": "controller", "Orchestrator": "orchestrator", "Cntlid": "cntlid", "SN": "serial", "MN": "model",
          "FR": "firmware", "TxPort": "transport", "Address": "address", "Slot": "slot", "Subsystem": "subsystem"}


def _header(columns: list[tuple[str, int]], last: str) -> list[str]:
    """A table's header (the last column padded to 16) and its dashes (each cut to its width)."""
    names = " ".join(f"{name:<{width}}" for name, width in columns) + f" {last:<16}"
    dashes = " ".join(DASHES[:max(width, len(name))] for name, width in columns) + " " + DASHES[:16]
    return [names, dashes]


def _padded(text: str, width: int) -> str:
    """A usage or format as nvme-cli formats it: its first figure right-aligned to `width`
    (`%6.2f`, `%3.0f`), what follows as read."""
    m = re.match(r"([\d.]+)(.*)", text)
    return f"{m[1]:>{width}}{m[2]}" if m else text


def list_verbose(desc: dict[str, Any]) -> str:
    view = Subsystems(desc)
    subsystems: dict[str, tuple[int, str, str]] = {}
    controllers: dict[str, tuple[int, dict[str, str]]] = {}
    namespaces: list[tuple[int, dict[str, str]]] = []
    layouts = set()
    for number, (nqn, heads) in enumerate(view.names.subsystems.items()):
        for place, head in enumerate(heads):
            listed = view.listed.get(head)
            own = listed["device"] if listed else {}
            paths = [p for p in view.paths if p["device"] == head]
            if own.get("listing") == "nvme list -v":
                layouts.add(own.get("columns", ""))
                name = own.get("subsystem", f"nvme-subsys{number}")
                subsystems.setdefault(name, (int(own["subsystem row"]), own.get("nqn", nqn), own["subsystem controllers"]))
                for p in paths:
                    read = listed["paths"].get(p["name"]) if listed else None
                    if read is not None:
                        controllers.setdefault(read["controller"], (int(read["row"]), read | {"subsystem": name}))
                if "ns row" in own:
                    namespaces.append((int(own["ns row"]), {k.removeprefix("ns "): v for k, v in own.items()}))
                continue
            # A head the model has that no `nvme list -v` was read for: the model's names, `?` for the rest.
            name, order = f"nvme-subsys{number}", len(subsystems) + 1000
            names = [f"nvme{view.names.controller[(p['adapter'], p['target'])]}" for p in paths]
            subsystems.setdefault(name, (order, nqn, ", ".join(dict.fromkeys(names))))
            for p, c in zip(paths, names, strict=True):
                kind = transport(p["adapter"])
                controllers.setdefault(c, (len(controllers) + 1000, {
                    "controller": c, "serial": NOT_READ, "model": NOT_READ, "firmware": NOT_READ, "transport": kind,
                    "address": _address(p["target"], kind).removeprefix("traddr=") if kind == "pcie" else
                    _address(p["target"], kind), "subsystem": name, "namespaces": view.names.head[head]}))
            namespaces.append((len(namespaces) + 1000, {
                "device": f"/dev/{view.names.head[head]}", "generic": NOT_READ, "nsid": hex(place + 1),
                "usage": NOT_READ, "format": NOT_READ, "controllers": ", ".join(names)}))
    layout = layouts.pop() if len(layouts) == 1 else "Cntlid,Slot"
    lines = [f"{'Subsystem':<16} {'Subsystem-NQN':<96} Controllers", f"{DASHES[:16]} {DASHES[:96]} {DASHES[:16]}"]
    lines += [f"{name:<16} {nqn:<96} {names}" for name, (_, nqn, names) in sorted(subsystems.items(), key=lambda s: s[1][0])]
    columns = CONTROLLER_COLUMNS[layout]
    lines += ["", *_header([(name, head) for name, head, _ in columns], "Namespaces")]
    for _, row in sorted(controllers.values(), key=lambda c: c[0]):
        lines.append(" ".join(f"{row.get(_FIELD[name]) or '':<{width}}" for name, _, width in columns)
                     + f" {row.get('namespaces', '')}")
    if not namespaces:  # the listing printed no namespace table (a drive's namespaces not attached): none is made up
        return "\n".join(lines) + "\n"
    widths = NAMESPACE_COLUMNS[layout]
    usage = USAGE_COLUMNS.get(layout)
    lines += ["", *_header([("Device", widths[0][0]), ("Generic", widths[1][0]), ("NSID", widths[2][0]),
                            ("Usage", usage[0] if usage else 26), ("Format", 16)], "Controllers")]
    for _, ns in sorted(namespaces, key=lambda n: n[0]):
        lines.append(f"{ns['device']:<{widths[0][1]}} {ns['generic']:<{widths[1][1]}} {ns['nsid']:<{widths[2][1]}} "
                     f"{_usage(ns.get('usage') or '', usage)} {_padded(ns.get('format') or '', 3):<16} {ns['controllers']}")
    return "\n".join(lines) + "\n"


def _usage(text: str, columns: tuple[int, int, int] | None) -> str:
    """A usage in its column (`%-26s`), or in two (`%-21s %-25s`), the binary units in brackets in the second."""
    if columns is None:
        return f"{_padded(text, 6):<26}"
    decimal, _, binary = text.partition(" (")
    return f"{_padded(decimal.rstrip(), 6):<{columns[1]}} {'(' + binary if binary else '':<{columns[2]}}"
