"""A scenario's devices or paths as `pathlab show` prints them: in the style of the host's own
tools (esxcli storage nmp device/path list, `multipath -ll` or `-l`, `nvme list-subsys` or `show-
topology`), each host's view in turn under its heading, or as JSON (one list, each device or path
naming its host; with `--host`, that host's)."""

from __future__ import annotations

import tomllib
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pathlab import host_views
from pathlab.api import PathlabWarning, Scenario, ScenarioError
from pathlab.output import esxcli, hosts, mpclaim, multipath, nvme, nvme_list, powermt
from pathlab.output.sink import RENDERERS, Output
from pathlab.toml_values import to_toml

#: The host styles, each drawing one host's view (`desc` is the whole description, for the
#: esxcli path list's array side).
Style = Callable[[str, dict[str, Any], dict[str, Any]], str]
STYLES: dict[str, Style] = {
    "esxi": lambda what, view, desc: esxcli.device_list(view) if what == "devices" else esxcli.path_list(view, desc),
    "linux": lambda what, view, desc: multipath.multipath_ll(view),
    "linux-l": lambda what, view, desc: multipath.multipath_ll(view, checked=False),
    "nvme": lambda what, view, desc: nvme.list_subsys(view),
    "nvme-topology": lambda what, view, desc: nvme.show_topology(view),
    "nvme-list": lambda what, view, desc: nvme_list.list_verbose(view),
    "powerpath": lambda what, view, desc: powermt.display(view),
    "mpio": lambda what, view, desc: mpclaim.disks(view),
}


@dataclass
class Configuration(Output):
    #: `devices` or `paths`.
    what: str
    #: One of `STYLES` (the table's), or `json`.
    style: str
    #: The scenario's description at the time asked for.
    desc: dict[str, Any]
    #: The host --host chose, if any.
    host: str | None
    file: str

    def table(self) -> str:
        draw = STYLES[self.style]
        views = host_views.each(self.desc, self.host, self.file)
        # The listings end their own lines; the sink ends the last.
        return hosts.joined([(name, draw(self.what, view, self.desc)) for name, view in views]).removesuffix("\n")

    def document(self) -> Any:
        host_views.check(host_views.names(self.desc), self.host, self.file)
        return (host_views.view(self.desc, self.host) if self.host else self.desc)[self.what]


def configuration(scenario: Scenario, what: str, style: str, at: str = "0s", host: str | None = None) -> Configuration:
    """The devices or paths (`what`) of `scenario` at simulated time `at`, to print in `style`
    (`pathlab show`, and the agents' `show` tool)."""
    desc = scenario.describe(at)
    listed = scenario.listed  # what the listings printed: each style prints it back as read
    _check_places(scenario.file, listed)
    paths_of: dict[tuple[str, str], set[str]] = {}
    for p in desc["paths"]:
        paths_of.setdefault((p["host"], p["device"]), set()).add(p["name"])
    for d in desc["devices"]:
        key = (d["host"], d["name"])
        if key in listed:
            d["listed"] = listed[key]
            for name in sorted(set(listed[key]["paths"]) - paths_of.get(key, set())):
                warnings.warn(f"{scenario.file}: devices.{d['name']}.listed.paths: {name} is no path of the device: "
                              "what it lists is not shown", PathlabWarning, stacklevel=2)
    if listed and style != "json":
        # The styles print what the listing printed where the scenario still holds it as imported.
        imported = as_imported(scenario)
        for d in desc["devices"]:
            if (d["host"], d["name"]) in imported:
                d["imported"] = imported[d["host"], d["name"]]
    if style.startswith("linux"):  # the maps a listing printed that the scenario does not simulate
        desc["unsimulated"] = scenario.unsimulated  # each one's host checked where the scenario loads
    if style.startswith("nvme") and not any(f["nvme_head"] for f in desc["linux"]["devices"]):
        warnings.warn("no device is a native NVMe multipath head (policy nvme or nvme-latency): nvme list-subsys lists "
                      "nothing", PathlabWarning, stacklevel=2)
    tool = {"powerpath": "powermt display", "mpio": "mpclaim -s -d"}.get(style)
    if tool and not any(d["psp"] == style for d in desc["devices"]):
        warnings.warn(f"no device is under the {style} policy: {tool} lists nothing", PathlabWarning, stacklevel=2)
    return Configuration(what, style, desc, host, scenario.file)


def _check_places(file: str, listed: dict[tuple[str, str], dict[str, Any]]) -> None:
    """A path's `order` and `group` (its place in the listing, its group's) order what the styles
    print: a hand edit that makes one no whole number is refused naming it."""
    for (_, device), values in listed.items():
        for path, row in values["paths"].items():
            for key in ("order", "group"):
                if key in row and not str(row[key]).isdigit():
                    raise ScenarioError(file, f'devices.{device}.listed.paths."{path}".{key}',
                                        f"{row[key]!r}: allowed a whole number from 0 (the place in the listing)")


def as_imported(scenario: Scenario) -> dict[tuple[str, str], dict[str, Any]]:
    """Each device as the scenario held it when imported: its file without variant, `--set` or
    faults (but the paths the import found failed, `path_down` at 0 s), at 0 s; by (host, device):
    `device`, its `facts` (`describe`'s `linux` facts) and `paths` (by name)."""
    # An imported host's tables as values where the scenario was built from them (`from_values`);
    # a scenario file's text only where it is all there is.
    tables = scenario.tables if scenario.tables is not None else tomllib.loads(scenario.text)
    faults = tables.get("faults", [])
    failed = [f for f in faults if isinstance(f, dict) and f.get("kind") == "path_down" and f.get("at") == "0s"]
    desc = scenario.as_given([f"faults={to_toml(failed)}"]).describe()
    paths: dict[tuple[str, str], dict[str, Any]] = {}
    for p in desc["paths"]:
        paths.setdefault((p["host"], p["device"]), {})[p["name"]] = p
    return {(d["host"], d["name"]): {"device": d, "facts": facts, "paths": paths.get((d["host"], d["name"]), {})}
            for d, facts in zip(desc["devices"], desc["linux"]["devices"])}


def text(shown: Configuration) -> str:
    """What `pathlab show` prints of it: JSON, or the host's style."""
    return RENDERERS["json" if shown.style == "json" else "table"][1](shown)
