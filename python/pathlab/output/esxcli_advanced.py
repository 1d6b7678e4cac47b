"""`pathlab show advanced`: an ESXi host's `Misc.APDTimeout` and `Disk.PathEvalTime` as `esxcli
system settings advanced list -o OPTION` prints them, each under its command line (so that
`pathlab import` reads them back, `readers/esxcli_advanced.py`): Int Value is the scenario's
`[host.stack]` value (the default where it gives none); Default, Min, Max and Description are
what ESXi 8.0 U3 prints (William Lam's dump, `lamw/esxi-advanced-and-kernel-settings@ad6c0456`
`esxi-80u3-advanced-settings.md`, lines 113 and 347). `Misc.APDHandlingEnable` (line 346 there)
is printed where the scenario gives `apd_handling`, as 0 or 1."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pathlab.api import Scenario, ScenarioError
from pathlab.output.esxcli_written import PROMPT, host_tables, printed, refuse_overrides, seconds
from pathlab.output.sink import Output

#: The option's path, its `[host.stack]` key, and what ESXi 8.0 U3 prints: default, min, max, description.
OPTIONS = (("/Misc/APDTimeout", "apd_timeout", 140, 20, 999999,
            "Number of seconds a device can be in APD before failing User World I/O."),
           ("/Disk/PathEvalTime", "path_eval_time", 300, 0, 31536000, "The number of seconds between FC path evaluations"))
#: `Misc.APDHandlingEnable` as ESXi 8.0 U3 prints it, where the scenario gives `apd_handling`.
HANDLING = ("/Misc/APDHandlingEnable", "apd_handling", 1, 0, 1, "Enable Storage APD Handling.")


@dataclass
class Advanced(Output):
    """Each host's options, `[(host, {key: seconds})]`; `several`: each under its host's heading."""

    hosts: list[tuple[str, dict[str, int]]]
    several: bool = False

    def table(self) -> str:
        blocks = [(host, "".join(option_list(path, values[key], default, low, high, text)
                                 for path, key, default, low, high, text in (HANDLING, *OPTIONS) if key in values))
                  for host, values in self.hosts]
        return printed(blocks, self.several)

    def document(self) -> Any:
        return [{"host": host, **{path: values[key] for path, key, *_ in (HANDLING, *OPTIONS) if key in values}}
                for host, values in self.hosts]


def advanced(scenario: Scenario, host: str | None = None) -> Advanced:
    """The options of the scenario's ESXi hosts (those with an ESXi device; or of `host`) as the
    scenario writes them; a `--set` or the variant's override of the host's stack is refused
    (printed as written, it would not be what runs)."""
    refuse_overrides(scenario, ("host.stack", "hosts"), "show advanced", "the settings")
    esxi = {d.host for d in scenario.devices if d.stack == "esxi"}
    if not esxi:
        raise ScenarioError(scenario.file, "devices", "no device of an ESXi host: Misc.APDTimeout and Disk.PathEvalTime "
                                                      "are ESXi's")
    tables = host_tables(scenario, host)
    if host is not None and host not in esxi:
        raise ScenarioError(scenario.file, "--host", f"{host} has no device of an ESXi host: Misc.APDTimeout and "
                                                     "Disk.PathEvalTime are ESXi's")
    # A host of a cluster whose devices run another stack has no such settings: it is left out.
    found = [(name, _values(table.get("stack", {}) or {})) for name, table in tables if name in esxi]
    return Advanced(found, host is None and len(tables) > 1)


def _values(stack: dict[str, Any]) -> dict[str, int]:
    """The options' values of a host's `[host.stack]` (the default where it gives none), and
    `Misc.APDHandlingEnable` as 0 or 1 where it gives it; with APD handling off no
    `Misc.APDTimeout` (the scenario has none: it does nothing then, and the engine refuses it)."""
    values = {key: seconds(stack.get(key), default) for _, key, default, *_ in OPTIONS}
    if "apd_handling" in stack:
        values["apd_handling"] = int(bool(stack["apd_handling"]))
        if not stack["apd_handling"]:
            del values["apd_timeout"]
    return values


def option_list(path: str, value: int, default: int, low: int, high: int, description: str) -> str:
    """One option's block under its command line, each line ended."""
    lines = [f"{PROMPT}esxcli system settings advanced list -o {path}", f"   Path: {path}", "   Type: integer",
             f"   Int Value: {value}", f"   Default Int Value: {default}", f"   Min Value: {low}",
             f"   Max Value: {high}", "   String Value:", "   Default String Value:", "   Valid Characters:",
             f"   Description: {description}"]
    return "\n".join(lines) + "\n"
