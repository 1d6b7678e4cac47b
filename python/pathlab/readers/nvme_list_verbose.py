"""`nvme list -v` (nvme-cli 2.x and later, text): three tables, each a header line, a line of
dashes and a row a line (nvme-cli `nvme-print-stdout.c`, `stdout_detailed_list`):

- subsystems: `Subsystem Subsystem-NQN Controllers`, a row `nvme-subsys0 nqn.… nvme0, nvme1`;
- controllers: `Device [Orchestrator] [Cntlid] SN MN FR TxPort Address [Slot] Subsystem Namespaces`
  (Cntlid came in 2.9, Orchestrator in 3.0; the model may hold blanks and the
  address and slot may be empty, so a row is read from its transport on: the word the header's
  `TxPort` stands for is one of `TRANSPORTS`, then the address and slot, then `nvme-subsysN`);
- namespaces: `Device Generic NSID Usage Format Controllers`, a row `/dev/nvme0n1 /dev/ng0n1 0x1
  … nvme0, nvme1` (the NSID printed `%#x`; nvme-cli 2.x before 2.9 prints `nvme0n1` without `/dev/`;
  2.15 on add the usage in binary units in brackets after it).

nvme-cli 3.0 (`src/nvme-print-stdout.c` at v3.0-rc1, `stdout_detailed_ctrl` and
`stdout_ns_details`) prints a controller row `%-16s %-12s %-6s %-20s %-40s %-8s %-6s %-14s %-6s
%-12s ` (name, Orchestrator: `kernel` for a PCIe controller, else its registered owner or `-`,
Cntlid, SN, MN, FR, transport, address, slot, subsystem), its header and dashes the same widths,
and a namespace row `%-17s %-20s %#-10x %-21s %-25s %-16s ` (device, generic device, NSID, usage
`%6.2f %1sB / %6.2f %1sB`, the binary usage `(%7.2f %2sB / %7.2f %2sB)`, format) under a header
whose Usage is `%-49s` (the 3.0 betas print the generic device `%-17s`, as 2.15 and 2.16 do).
2.16 prints the name `%-16s` before the Cntlid, 2.9 to 2.15 `%-8s`: the columns that hold are
the ones read.

The serial, model (MN) and firmware are read by their columns (`_identity`): nvme-cli prints
`%-20s %-40s %-8s` for SN, MN and FR, and NVMe's Identify Controller holds at most 20, 40 and 8
bytes of them (a serial and a model may hold blanks: `VMware NVME_0002`, `VMware Virtual NVMe
Disk`); a row whose padding a paste lost is read by words (the first the serial, the last the
firmware, the words between the model) for `show`, and gives no model to match vendors' rows on.

It prints no controller state, no ANA state, no host NQN and no iopolicy: the rows read give
those as missing (`nvme_subsys.COLUMNS`), one per namespace and controller that serves it (one per
controller where the namespace table is empty), each at its controller's line."""

from __future__ import annotations

import re
from typing import Any

from pathlab.api import ScenarioError, warn
from pathlab.readers._dashed_table import DASHES
from pathlab.readers.pasted import Line, between, output_of

#: The header of its first table, by which the listing is told apart.
HEADER = re.compile(r"^\s*Subsystem\s+Subsystem-NQN\s+Controllers\s*$", re.M)
#: The transports libnvme names (`nvme_ctrl_get_transport`: the kernel's `transport` attribute).
TRANSPORTS = ("pcie", "tcp", "rdma", "fc", "loop", "apple-nvme")
_COMMANDS = (re.compile(r"^nvme\s+list\s+(?:-v|--verbose)\b"),)
_SUBSYS = re.compile(r"^nvme-subsys\d+$")
_CTRL = re.compile(r"^nvme\d+$")


def is_verbose_list(text: str) -> bool:
    """Whether a capture holds `nvme list -v`'s first header (quoted or marked up as pasted)."""
    return re.search(r"\bSubsystem\s+Subsystem-NQN\s+Controllers\b", text) is not None


def namespace_id(name: str, where: str, text: str) -> int:
    """A namespace ID as printed (decimal, or `%#x` in `nvme list -v`): NSID is a 32-bit field
    (NVMe Base, Identify), so a larger number is no namespace (and no table column holds it)."""
    number = int(text, 16) if text.startswith("0x") else int(text)
    if not 0 <= number < 1 << 32:
        raise ScenarioError(name, where, f"namespace ID {text[:24]}: allowed 0 to 0xffffffff (NSID is 32 bits)")
    return number


def _in_listing(line: str) -> bool:
    """Whether a line can end the listing: a header, dashes or a row (every row names a device or subsystem)."""
    return bool(DASHES.match(line) or re.match(r"\s*(?:/dev/)?nvme[-0-9a-z]*\d\s|\s*(?:Subsystem|Device)\s", line))


def _names(words: list[str]) -> list[str]:
    """`nvme0, nvme1` as printed (a comma and a blank between names)."""
    return [w for w in (w.strip(",") for w in " ".join(words).replace(",", " ").split()) if w]


def _tables(name: str, lines: list[Line]) -> list[tuple[Line, list[Line]]]:
    """Each table's header and its rows (the lines after its dashes up to a blank line)."""
    out: list[tuple[Line, list[Line]]] = []
    i = 0
    while i < len(lines):
        if i + 1 < len(lines) and lines[i].text.strip() and DASHES.match(lines[i + 1].text):
            rows, j = [], i + 2
            while j < len(lines) and lines[j].text.strip():
                rows.append(lines[j])
                j += 1
            out.append((lines[i], rows))
            i = j
        else:  # a blank line, or a table's title (`NVM Express Subsystems` in nvme-cli 2.0's first releases)
            i += 1
    if not out or not HEADER.match(out[0][0].text):
        raise ScenarioError(name, f"line {out[0][0].number}" if out else "", "expected `nvme list -v`'s first header "
                            "(`Subsystem Subsystem-NQN Controllers`) and its line of dashes")
    return out


def _controller(name: str, line: Line, header: list[str]) -> dict[str, Any]:
    words = line.text.split()
    at = next((i for i, w in enumerate(words) if _SUBSYS.match(w)), None)
    port = None if at is None else next((i for i in range(at - 1, 0, -1) if words[i] in TRANSPORTS), None)
    if at is None or port is None or not _CTRL.match(words[0]):
        raise ScenarioError(name, f"line {line.number}", "a controller row of `nvme list -v` is `nvmeN`, its serial, "
                            f"model and firmware, a transport ({', '.join(TRANSPORTS)}), its address, "
                            "`nvme-subsysN` and its namespaces: " + line.text.strip())
    between = words[port + 1:at]
    # The address has `=` (fabrics: traddr=…,trsvcid=…) or `:` (PCIe 0000:01:00.0); a slot has neither.
    address = next((w for w in between if "=" in w or ":" in w), None)
    if len(between) > ("Slot" in header) + 1 or (between and address is None and "Slot" not in header):
        raise ScenarioError(name, f"line {line.number}", f"between the transport {words[port]} and {words[at]}: "
                            f"{' '.join(between)}: expected its address" + (" and slot" if "Slot" in header else ""))
    slot = next((w for w in between if w != address), None)
    identity, by_columns = _identity(line.text, words[:port], LEADS["Orchestrator" if "Orchestrator" in header else
                                                                     "Cntlid" if "Cntlid" in header else ""])
    # The model the vendors' rows match on only where nvme-cli's columns hold: the words of a row
    # whose padding a paste lost cannot say where a serial with blanks ends.
    return {"controller": words[0], "transport": words[port], "address": address, "subsystem": words[at],
            "namespaces": _names(words[at + 1:]), "line": line.number,
            "model": identity["model"] if by_columns else None,
            "shown": {**identity, "slot": slot, "namespaces": ", ".join(_names(words[at + 1:]))}}


#: The widths nvme-cli pads a controller row's SN, MN and FR to (`stdout_detailed_ctrl`: `%-20s
#: %-40s %-8s`; the NVMe fields are at most 20, 40 and 8 bytes, so they never overflow).
_IDENTITY_WIDTHS = (("serial", 20), ("model", 40), ("firmware", 8))
#: The columns before SN, (field, width), that each release prints, tried in order, by the
#: header's columns: 2.0 to 2.8 the name `%-8s`; 2.9 to 2.15 the name and Cntlid `%-8s %-6s`,
#: 2.16 `%-16s %-6s`; 3.0 the name, Orchestrator and Cntlid `%-16s %-12s %-6s`.
LEADS: dict[str, tuple[tuple[tuple[str, int], ...], ...]] = {
    "": ((("controller", 8),),),
    "Cntlid": ((("controller", 8), ("cntlid", 6)), (("controller", 16), ("cntlid", 6))),
    "Orchestrator": ((("controller", 16), ("orchestrator", 12), ("cntlid", 6)),),
}


def _identity(text: str, words: list[str], leads: tuple[tuple[tuple[str, int], ...], ...]
              ) -> tuple[dict[str, str | None], bool]:
    """A controller row's Orchestrator, Cntlid, SN, MN and FR as printed, and whether nvme-cli's
    columns gave them: cut at the columns where the row keeps them (a serial or model may have
    blanks: `VMware NVME_0002`), each release's `leads` tried in turn, else, where a paste lost the
    padding (nvme-cli 1.x printed none), the words before the serial one each, the next the serial,
    the last the firmware and the words between the model (for `show` to print back)."""
    start = text.index(words[0])
    for lead in leads:
        out: dict[str, str | None] = {}  # in the row's order, for the words' check below
        at = start + lead[0][1] + 1
        for key, width in lead[1:]:
            out[key], at = text[at:at + width].strip() or None, at + width + 1
        cut = {}
        for key, width in _IDENTITY_WIDTHS:
            cut[key], at = text[at:at + width].strip(), at + width + 1
        # The cut holds when it leaves the transport where nvme-cli put it and gives back the words.
        if " ".join(" ".join(v for v in [*out.values(), *cut.values()] if v).split()) == " ".join(words[1:]) \
                and all(cut.values()) and text[at - 1:at] == " " and text[at:].split()[:1]:
            return {"cntlid": None} | out | cut, True
    lead = leads[0]
    out = {"cntlid": None} | {key: w for (key, _), w in zip(lead[1:], words[1:])}
    rest = words[len(lead):]
    if len(rest) < 3:
        return out | dict.fromkeys(("serial", "model", "firmware"), None), False
    return out | {"serial": rest[0], "model": " ".join(rest[1:-1]), "firmware": rest[-1]}, False


def _namespace(name: str, line: Line) -> dict[str, Any]:
    words = line.text.split()
    controllers: list[str] = []
    while len(words) > 3 and _CTRL.match(words[-1].strip(",")):
        controllers.insert(0, words.pop().strip(","))
    head = words[0].removeprefix("/dev/") if words else ""
    nsid = words[2] if len(words) > 2 else ""
    if not re.fullmatch(r"nvme\d+n\d+", head) or not re.fullmatch(r"0x[0-9a-fA-F]+|\d+", nsid) or not controllers:
        raise ScenarioError(name, f"line {line.number}", "a namespace row of `nvme list -v` is its device "
                            "(`/dev/nvmeXnY`), generic device, NSID, usage, format and controllers: " + line.text.strip())
    number = namespace_id(name, f"line {line.number}", nsid)
    return {"head": head, "nsid": number, "controllers": controllers, "line": line.number,
            "shown": {"device": words[0], "generic": words[1], "nsid": nsid, **_usage_format(line.text),
                      "controllers": ", ".join(controllers)}}


#: A namespace row's Usage (`%6.2f %2sB / %6.2f %2sB`, a later release adding its binary sizes in
#: brackets) and Format (`%3.0f %2sB + %2d B`), their blanks as printed.
_USAGE_FORMAT = re.compile(r"\s(?P<usage>[\d.]+\s+\S*B\s+/\s+[\d.]+\s+\S*B(?:\s+\(.*?\))?)\s+"
                           r"(?P<format>\d+\s+\S*B\s+\+\s+\d+\s+B)\s")


def _usage_format(text: str) -> dict[str, str | None]:
    found = _USAGE_FORMAT.search(text + " ")
    return {"usage": found["usage"], "format": found["format"]} if found else {"usage": None, "format": None}


def read_lines(name: str, text: str) -> list[dict[str, Any]]:
    """The rows of `nvme_subsys.COLUMNS` that `nvme list -v` output gives."""
    lines = between(name, output_of(name, text, _COMMANDS, "nvme list -v"), lambda line: HEADER.match(line) is not None,
                    _in_listing, "nvme list -v")
    tables = _tables(name, lines)
    if len(tables) < 2:
        raise ScenarioError(name, "", "`nvme list -v` without its controller table: paste its three tables whole")
    (subsys_head, subsys_rows), (ctrl_head, ctrl_rows), *rest = tables
    nqn_of: dict[str, str] = {}
    listed_of: dict[str, str] = {}  # each subsystem's controllers as its row lists them
    for row in subsys_rows:
        words = row.text.split()
        listed: list[str] = []
        while len(words) > 2 and _CTRL.match(words[-1].strip(",")):
            listed.insert(0, words.pop().strip(","))  # its controllers: the controller table gives each with its subsystem
        listed_of[words[0]] = ", ".join(listed)
        if len(words) < 2 or not _SUBSYS.match(words[0]):
            raise ScenarioError(name, f"line {row.number}", "a subsystem row of `nvme list -v` is `nvme-subsysN`, its "
                                "NQN and its controllers: " + row.text.strip())
        # An NQN with blanks (a drive's serial and model, padded as Identify Controller holds them) kept as printed.
        after = row.text.strip()[len(words[0]):]
        nqn_of[words[0]] = re.sub(r"\s+nvme\d+(?:,\s*nvme\d+)*\s*$", "", after).strip() if listed else after.strip()
    header = ctrl_head.text.split()
    if header[:1] != ["Device"] or "TxPort" not in header:
        raise ScenarioError(name, f"line {ctrl_head.number}", "expected the controller table's header (`Device … "
                            "TxPort Address … Subsystem Namespaces`): " + ctrl_head.text.strip())
    controllers = {c["controller"]: c for c in (_controller(name, r, header) for r in ctrl_rows)}
    for c in controllers.values():
        if c["subsystem"] not in nqn_of:
            raise ScenarioError(name, f"line {c['line']}", f"{c['controller']}'s subsystem {c['subsystem']} is not in "
                                f"the subsystem table (lines {subsys_head.number}-{subsys_head.number + len(subsys_rows) + 1})")
    spaces = [_namespace(name, r) for r in rest[0][1]] if rest else []
    place = {"subsystem": {n: i for i, n in enumerate(listed_of)}, "controller": {n: i for i, n in enumerate(controllers)}}
    layout = ",".join(c for c in ("Orchestrator", "Cntlid", "Slot") if c in header)
    out = []
    for i, ns in enumerate(spaces):
        for c in ns["controllers"]:
            if c not in controllers:
                raise ScenarioError(name, f"line {ns['line']}", f"{ns['head']}'s controller {c} is not in the controller "
                                    f"table (from line {ctrl_head.number})")
            out.append(_row(controllers[c], nqn_of, ns["nsid"], _shown(controllers[c], listed_of, place, layout,
                                                                           ns["shown"] | {"row": str(i)})))
    served = {c for ns in spaces for c in ns["controllers"]}
    for c in (c for n, c in controllers.items() if n not in served):
        if spaces:  # its namespaces are elsewhere (another host's, or none attached): no path of this listing
            warn(name, f"line {c['line']}", f"{c['controller']} serves no namespace the namespace table lists: "
                                            "no path of it imported")
        else:
            out.append(_row(c, nqn_of, None, _shown(c, listed_of, place, layout, {})))
    return out


def _shown(c: dict[str, Any], listed_of: dict[str, str], place: dict[str, dict[str, int]], layout: str,
           namespace: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """What the listing printed beyond `COLUMNS`, for `show --style nvme-list` to print back: the
    namespace's row (`ns …`) and its subsystem's (`subsystem controllers`, its place), as the
    device's; the controller's row (its Cntlid, SN, MN, FR, slot, namespaces, place) as the path's."""
    device = {f"ns {k}": v for k, v in namespace.items()} | {
        "listing": "nvme list -v", "columns": layout, "subsystem controllers": listed_of[c["subsystem"]],
        "subsystem row": str(place["subsystem"][c["subsystem"]])}
    path = c["shown"] | {"row": str(place["controller"][c["controller"]])}
    return {"device": device, "path": path}


def _row(c: dict[str, Any], nqn_of: dict[str, str], nsid: int | None, shown: dict[str, Any]) -> dict[str, Any]:
    return {"subsystem": c["subsystem"], "nqn": nqn_of[c["subsystem"]], "hostnqn": None, "iopolicy": None,
            "nsid": nsid, "path": None, "controller": c["controller"], "transport": c["transport"],
            "address": c["address"], "state": None, "ana_state": None, "line": c["line"], "iopolicy_line": None,
            "model": c["model"], "model_line": c["line"] if c["model"] is not None else None, "shown": shown}
