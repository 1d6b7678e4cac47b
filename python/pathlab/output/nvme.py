"""`nvme list-subsys` for the host's native NVMe multipath heads, as nvme-cli 2.x prints it
(`nvme-print-stdout.c`, research/formats.md §3.5; `readers/nvme_subsys.py` reads it back):

    nvme-subsys0 - NQN=nqn.2014-08.org.nvmexpress:uuid:bulk
                   hostnqn=nqn.2014-08.org.nvmexpress:uuid:nvmeof-client
                   iopolicy=numa
    \\
     +- nvme0 tcp traddr=subsys/P0,trsvcid=4420 live optimized

One subsystem per array, in the order of its first namespace; its NQN is the namespaces' name
before `/ns` (the scenario names them so), else pathlab's own for the array. One controller per
(adapter, array port) the namespaces are reached over, numbered `nvme0`, `nvme1`, … in order of
appearance, as the host connected them. Transport from the adapter's name (`tcp`, `rdma`, else
`fc`); the address is the array port as the scenario names it, followed by the host fields an
imported adapter carries (`host_traddr=`, `host_iface=`, `src_addr=`, where the listing had them). The state is `live`, or
`connecting` while the path is down (the kernel reconnects until ctrl_loss_tmo, then deletes the
controller; this view keeps listing it). The ANA state is shown, as for one namespace, when
every namespace of the subsystem sees that controller the same way, and the array reports ANA
(target port groups: `tpgs`).

`nvme show-topology` (`show_topology`) prints the same subsystems with each namespace's paths
under it, each with that namespace's ANA state, in the layout of nvme-cli PR 1693 (the corpus
sample `nvme-show-topology/001`: ` +- ns id N`, a line ` \\`, then `  +- nvmeC …` per controller).
A namespace named `NQN/nsN` keeps its NSID N (an imported one); others are numbered from 1.
A PCIe drive (adapter `pcie…`) shows its PCI address as the address, as nvme-cli does."""

from __future__ import annotations

import re
from typing import Any

from pathlab.importer.nvme_findings import usable_as_listed
from pathlab.output.as_read import NOT_READ, now_held

#: ALUA states as `describe` gives them, and the ANA state names (`nvme_ana_state_names`): `T`
#: is a group in the change state, which the kernel's `ana_state` and nvme-cli print `change`.
ANA = {"AO": "optimized", "ANO": "non-optimized", "T": "change"}
#: An NVMe/TCP or RDMA target's port (IANA: 4420, NVMe-oF).
TRSVCID = 4420


def subsystem_nqn(device: str, array: str) -> str:
    """The subsystem a namespace belongs to: its name before `/ns`, or the name itself when it is
    an NQN (`nqn.…`, or `…:…` as a page may have cut it: an imported subsystem), else pathlab's own
    for the array."""
    if "/ns" in device:
        return device.split("/ns", 1)[0]
    return device if device.startswith("nqn.") or ":" in device else f"nqn.2024-01.org.pathlab:{array}"


def transport(adapter: str) -> str:
    return next((t for t in ("tcp", "rdma", "pcie") if t in adapter.lower()), "fc")


def host_port(adapter: str) -> str:
    """The host fields an imported adapter carries in its name (`tcp0,host_traddr=192.168.1.22`):
    `,host_traddr=…,host_iface=…,src_addr=…` as the original listing printed them (the `:` the name could
    not hold written `+`), else nothing."""
    return adapter[adapter.index(","):].replace("+", ":") if "," in adapter else ""


def _address(target: str, kind: str) -> str:
    """An imported port is named by its address (`10.0.0.1:4420`, `nn-0x…:pn-0x…`): that address;
    any other is named by the scenario's `ARRAY/PORT`, on the IANA service for IP transports."""
    port = target.split("/", 1)[-1]
    if kind == "pcie":
        return port
    service = re.fullmatch(r"(.+):(\d+)", port)
    if kind != "fc" and service:
        return f"traddr={service.group(1)},trsvcid={service.group(2)}"
    if kind == "fc" and port.startswith("nn-0x"):
        return f"traddr={port}"
    return f"traddr={target}" + (f",trsvcid={TRSVCID}" if kind != "fc" else "")


class Names:
    """The kernel's names for NVMe heads and their paths: subsystem `s` (one per array, in the
    order of its first namespace), controllers `nvmeC` per (adapter, array port) in order of
    appearance, heads `nvme<s>n<i>` and paths `nvme<s>c<C>n<i>` (namespace `i` counted from 1
    within its subsystem)."""

    def __init__(self, heads: list[str], paths: list[dict[str, Any]]) -> None:
        self.subsystems: dict[str, list[str]] = {}
        array_of = {p["device"]: p["target"].split("/")[0] for p in paths}
        for d in heads:
            self.subsystems.setdefault(subsystem_nqn(d, array_of[d]), []).append(d)
        self.head: dict[str, str] = {}
        #: Per (adapter, array port): the controller's instance number (`nvme<number>`).
        self.controller: dict[tuple[str, str], str] = {}
        self.path: dict[str, str] = {}
        for s, namespaces in enumerate(self.subsystems.values()):
            nsid = {d: _nsid(d, i) for i, d in enumerate(namespaces, start=1)}
            self.head.update((d, f"nvme{s}n{i}") for d, i in nsid.items())
            for p in (p for p in paths if p["device"] in nsid):
                number = self.controller.setdefault((p["adapter"], p["target"]), f"{len(self.controller)}")
                self.path[p["name"]] = f"nvme{s}c{number}n{nsid[p['device']]}"


def _nsid(device: str, place: int) -> int:
    """A namespace's NSID: N of an imported `NQN/nsN`, else its place in its subsystem."""
    named = re.search(r"/ns(\d+)$", device)
    return int(named.group(1)) if named else place


class Subsystems:
    """The heads of a host's view, by subsystem, with what every layout prints of them."""

    def __init__(self, desc: dict[str, Any]) -> None:
        facts = list(zip(desc["devices"], desc["linux"]["devices"]))
        #: What the imported listing printed of each namespace and its paths (`listed`).
        self.listed = {d["name"]: d["listed"] for d in desc["devices"] if d.get("listed")}
        self.read_paths = {name: values for listed in self.listed.values() for name, values in listed["paths"].items()}
        heads = [d["name"] for d, f in facts if f["nvme_head"]]
        self.policy = {d["name"]: _iopolicy(f) for d, f in facts}
        # A subsystem without ANA (the array reports no target port groups) shows no ANA state.
        self.ana_reported = {d["name"]: f["tpgs"] for d, f in facts}
        # Each namespace as the scenario held it when imported (`configuration.as_imported`).
        imported = {d["name"]: d["imported"] for d in desc["devices"] if d.get("imported")}
        self.imported_policy = {name: _iopolicy(i["facts"]) for name, i in imported.items()}
        self.imported_alua = {n: p["alua"] for i in imported.values() for n, p in i["paths"].items()}
        self.paths = [p for p in desc["paths"] if p["device"] in heads]
        self.names = Names(heads, self.paths)
        self.host = desc["host"]

    def header(self, number: int, nqn: str, namespaces: list[str]) -> list[str]:
        """The subsystem's lines; an imported one's as its listing printed them: its name, NQN,
        and the host NQN and iopolicy only where it printed them (nvme-cli 1.x prints neither)."""
        listed = self.listed.get(namespaces[0])
        if listed is None:
            return [f"nvme-subsys{number} - NQN={nqn}", f"{'':15}hostnqn=nqn.2014-08.org.nvmexpress:uuid:{self.host}",
                    f"{'':15}iopolicy={self.policy[namespaces[0]]}", "\\"]
        own = dict(listed["device"])
        policy = self.policy[namespaces[0]]
        if "iopolicy" in own and own["iopolicy"] != policy != self.imported_policy.get(namespaces[0], policy):
            own["iopolicy"] = now_held(policy)  # `--set` chose another: the scenario's, marked
        return [f"{own.get('subsystem', f'nvme-subsys{number}')} - NQN={own.get('nqn', nqn)}",
                *(f"{'':15}{key}={own[key]}" for key in ("hostnqn", "iopolicy") if key in own), "\\"]

    def controller(self, nexus: tuple[str, str], on: list[dict[str, Any]], ana_shown: bool) -> str:
        """A controller's row: name, transport, address, state, and the ANA state of `on` (its
        paths) when they agree and `ana_shown`. An imported controller's as its listing printed
        them, its states too while the simulation has its paths as the listing had them."""
        state = "live" if all(p["up"] for p in on) else "connecting"
        ana = {ANA.get(p["alua"], "inaccessible") for p in on}
        kind = transport(nexus[0])
        tail = f" {ana.pop()}" if len(ana) == 1 and ana_shown else ""
        read = [self.read_paths[p["name"]] for p in on if p["name"] in self.read_paths]
        if not read and any(p["device"] in self.listed for p in on):
            # A controller the model has that the listing did not show (pathlab zones every host port
            # to every port of the array): its name was not read, and is marked so.
            return f"+- {NOT_READ} {kind} {_address(nexus[1], kind)}{host_port(nexus[0])} {state}{tail}"
        if not read:
            return f"+- nvme{self.names.controller[nexus]} {kind} {_address(nexus[1], kind)}{host_port(nexus[0])} {state}{tail}"
        first = read[0]
        if all(p["up"] != _read_down(v) for p, v in zip(on, read)) and len(read) == len(on):
            shown = dict(first)
            if "ana_state" in first and tail and first["ana_state"] != tail.strip() \
                    and any(self.imported_alua.get(p["name"], p["alua"]) != p["alua"] for p in on):
                shown["ana_state"] = now_held(tail.strip())  # an alua_state fault changed it: the scenario's, marked
            states = " ".join(shown[k] for k in ("state", "ana_state") if k in shown)
        else:
            states = f"{state}{tail}"
        words = [first.get("controller", f"nvme{self.names.controller[nexus]}"), first.get("transport", kind),
                 first.get("address", ""), states]
        return "+- " + " ".join(w for w in words if w)


def _iopolicy(facts: dict[str, Any]) -> str:
    return next((s["value"] for s in facts["settings"] if s["name"] == "iopolicy"), "numa")


def _read_down(values: dict[str, str]) -> bool:
    """Whether the listing showed the controller unusable (the import makes it a path down from 0 s)."""
    return not usable_as_listed(values.get("state", ""), values.get("ana_state", ""))


def _nexus_order(view: Subsystems, paths: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The controllers of a subsystem's paths, in the listing's order where it was imported."""
    nexuses = list(dict.fromkeys((p["adapter"], p["target"]) for p in paths))
    place = {(p["adapter"], p["target"]): int(view.read_paths[p["name"]].get("order", 0))
             for p in paths if p["name"] in view.read_paths}
    return sorted(nexuses, key=lambda n: place.get(n, 0)) if len(place) == len(nexuses) else nexuses


def list_subsys(desc: dict[str, Any]) -> str:
    view = Subsystems(desc)
    blocks = []
    for number, (nqn, namespaces) in enumerate(view.names.subsystems.items()):
        paths = [p for p in view.paths if p["device"] in namespaces]
        lines = view.header(number, nqn, namespaces)
        for nexus in _nexus_order(view, paths):
            on = [p for p in paths if (p["adapter"], p["target"]) == nexus]
            lines.append(" " + view.controller(nexus, on, view.ana_reported[namespaces[0]]))
        blocks.append("\n".join(lines) + "\n")
    return "".join(blocks)


def show_topology(desc: dict[str, Any]) -> str:
    view = Subsystems(desc)
    blocks = []
    for number, (nqn, namespaces) in enumerate(view.names.subsystems.items()):
        lines = view.header(number, nqn, namespaces)
        for place, device in sorted(enumerate(namespaces, start=1), key=lambda nd: _nsid(nd[1], nd[0])):
            lines += [f" +- ns id {_nsid(device, place)}", " \\"]
            for p in (p for p in view.paths if p["device"] == device):
                lines.append("  " + view.controller((p["adapter"], p["target"]), [p], view.ana_reported[device]))
        blocks.append("\n".join(lines) + "\n")
    return "".join(blocks)
