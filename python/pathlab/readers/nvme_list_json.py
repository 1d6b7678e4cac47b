"""`nvme list -v -o json` (nvme-cli 2.x, `json_detail_list` in `nvme-print-json.c`): the hosts
under `Devices`, each with its `HostNQN` and `Subsystems`, each subsystem its `Subsystem` name,
`SubsystemNQN`, `Controllers` and `Namespaces`:

    {"Devices": [{"HostNQN": "nqn.…", "HostID": "…", "Subsystems": [{"Subsystem": "nvme-subsys0",
      "SubsystemNQN": "nqn.…", "Controllers": [{"Controller": "nvme0", "Cntlid": "1",
      "SerialNumber": "…", "ModelNumber": "…", "Firmware": "…", "Transport": "tcp",
      "Address": "traddr=…,trsvcid=4420", "Slot": "", "Namespaces": [], "Paths": [{"Path":
      "nvme0c0n1", "ANAState": "optimized"}]}], "Namespaces": [{"NameSpace": "nvme0n1",
      "Generic": "ng0n1", "NSID": 1, "UsedBytes": …, "MaximumLBA": …, "PhysicalSize": …,
      "SectorSize": 512}]}]}]}

(`Cntlid` from 2.9, `Slot` and `Generic` from 2.5; 2.0 to 2.4 print the HostID always.) A path
`nvmeXcYnZ` is the namespace `nvmeXnZ` of its subsystem through controller `nvmeY`: one row per
path, its NSID that namespace's; a controller's own `Namespaces` (a drive that is not a
multipath head) give a row each, without a path; a controller with neither, one row where no
controller of the document has a namespace, else none (said, as the text listing says it). It prints
no controller state and no iopolicy (the rows give none). Each row names the line of its path
(or controller) where json-c's pretty printing put one key a line; a document on one line is
line 1 throughout."""

from __future__ import annotations

import re
from typing import Any

from pathlab.api import ScenarioError, warn
from pathlab.readers._json_values import as_dict, as_list, as_str

_PATH = re.compile(r"nvme(\d+)c\d+n(\d+)")


def is_detail_list(doc: Any) -> bool:
    """Whether a JSON document is `nvme list -v -o json`'s: `Devices` whose hosts have `Subsystems`."""
    return isinstance(doc, dict) and isinstance(doc.get("Devices"), list) and \
        any(isinstance(h, dict) and "Subsystems" in h for h in doc["Devices"])


class _Lines:
    """The line of each value, found in order through the document's text (json-c keeps the keys
    in the order they were added, one a line when pretty-printed)."""

    def __init__(self, text: str, offset: int) -> None:
        self.text, self.offset, self.at = text, offset, 0

    def of(self, key: str, value: str | None) -> int | None:
        if value is None:
            return None
        found = re.compile(rf'"{re.escape(key)}"\s*:\s*"{re.escape(value)}"').search(self.text, self.at)
        if found is None:
            return None
        self.at = found.end()
        return self.offset + self.text.count("\n", 0, found.start()) + 1


def rows(name: str, doc: dict[str, Any], text: str, offset: int) -> list[dict[str, Any]]:
    """The rows of `nvme_subsys.COLUMNS` the document gives; a value of the wrong type refused,
    naming its place in the document (`Devices[0].Subsystems[1].Controllers[0].Paths[2].Path`)."""
    lines = _Lines(text, offset)
    out: list[dict[str, Any]] = []
    bare: list[dict[str, Any]] = []  # the controllers with neither a path nor a namespace of their own
    for h, host in enumerate(as_list(doc.get("Devices"), name, "Devices")):
        hwhere = f"Devices[{h}]"
        host = as_dict(host, name, hwhere)
        hostnqn = as_str(host.get("HostNQN"), name, f"{hwhere}.HostNQN")
        for i, item in enumerate(as_list(host.get("Subsystems"), name, f"{hwhere}.Subsystems")):
            where = f"{hwhere}.Subsystems[{i}]"
            item = as_dict(item, name, where)
            subsystem = as_str(item.get("Subsystem"), name, f"{where}.Subsystem")
            nqn = as_str(item.get("SubsystemNQN"), name, f"{where}.SubsystemNQN")
            if subsystem is None or nqn is None:
                raise ScenarioError(name, where, "a subsystem of `nvme list -v -o json` has its `Subsystem` name and "
                                                 "`SubsystemNQN`")
            lines.of("Subsystem", subsystem)
            base = {"subsystem": subsystem, "nqn": nqn, "hostnqn": hostnqn, "iopolicy": None, "state": None,
                    "iopolicy_line": None, "shown": None}
            nsid_of = _namespaces(name, item.get("Namespaces"), f"{where}.Namespaces")
            for k, c in enumerate(as_list(item.get("Controllers"), name, f"{where}.Controllers")):
                cwhere = f"{where}.Controllers[{k}]"
                c = as_dict(c, name, cwhere)
                controller = as_str(c.get("Controller"), name, f"{cwhere}.Controller")
                if controller is None:
                    raise ScenarioError(name, f"{cwhere}.Controller", "a controller without its name (`nvme0`)")
                ctrl = {**base, "controller": controller, "line": lines.of("Controller", controller),
                        "transport": as_str(c.get("Transport"), name, f"{cwhere}.Transport"),
                        "address": as_str(c.get("Address"), name, f"{cwhere}.Address")}
                paths = as_list(c.get("Paths"), name, f"{cwhere}.Paths")
                for j, p in enumerate(paths):
                    pwhere = f"{cwhere}.Paths[{j}]"
                    p = as_dict(p, name, pwhere)
                    path = as_str(p.get("Path"), name, f"{pwhere}.Path")
                    head = _PATH.fullmatch(path or "")
                    if head is None:
                        raise ScenarioError(name, f"{pwhere}.Path", f"{str(path)[:40]!r}: a path is named `nvmeXcYnZ` "
                                                                    "(namespace Z of subsystem X through controller Y)")
                    line = lines.of("Path", path)
                    out.append({**ctrl, "nsid": nsid_of.get(f"nvme{head[1]}n{head[2]}"), "path": path,
                                "ana_state": as_str(p.get("ANAState"), name, f"{pwhere}.ANAState"),
                                "line": line if line is not None else ctrl["line"]})
                own = _namespaces(name, c.get("Namespaces"), f"{cwhere}.Namespaces")
                out += [{**ctrl, "nsid": nsid, "path": None, "ana_state": None} for nsid in own.values()]
                if not paths and not own:
                    bare.append({**ctrl, "nsid": None, "path": None, "ana_state": None})
    if out:  # a controller beside others' namespaces serves none: said and left out, as in the text listing
        for c in bare:
            warn(name, f"line {c['line']}" if c["line"] is not None else c["controller"],
                 f"{c['controller']} serves no namespace the document lists: no path of it imported")
        return out
    return bare


def _namespaces(name: str, value: Any, where: str) -> dict[str, int]:
    """Each namespace's head (`nvme0n1`) → its NSID."""
    out = {}
    for k, ns in enumerate(as_list(value, name, where)):
        nwhere = f"{where}[{k}]"
        ns = as_dict(ns, name, nwhere)
        head = as_str(ns.get("NameSpace"), name, f"{nwhere}.NameSpace")
        nsid = ns.get("NSID")
        if not isinstance(nsid, int) or isinstance(nsid, bool) or not 0 <= nsid < 1 << 32:
            raise ScenarioError(name, f"{nwhere}.NSID", f"expected a namespace number (0 to 0xffffffff), found {nsid!r}")
        out[head or f"nsid {nsid}"] = nsid
    return out
