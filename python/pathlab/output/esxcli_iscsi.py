"""`pathlab show iscsi`: each ESXi software iSCSI adapter's session timers as `esxcli iscsi
adapter param get -A vmhbaNN` prints them, under its command line (so that `pathlab import`
reads a host's adapter back, `readers/esxcli_iscsi_params.py`): Current is the scenario's value
(VMware's default where the adapter's `iscsi` table leaves it out), Default, Min and Max VMware's
(`stall_rule.py`'s, as the engine's `model/esxi_iscsi.rs` has them), Settable true, Inherit false
(an adapter's own). Only the three timers the engine simulates are printed: the others the
listing carries are not in the scenario."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pathlab.advisor import stall_rule as rule
from pathlab.api import Scenario, ScenarioError
from pathlab.output import hosts
from pathlab.output.esxcli_written import refuse_overrides
from pathlab.output.sink import Output

#: esxcli's name, the adapter's `iscsi` key, the default.
TIMERS = (("NoopOutInterval", "noop_out_interval", rule.ESXI_NOOP_OUT_INTERVAL),
          ("NoopOutTimeout", "noop_out_timeout", rule.ESXI_NOOP_OUT_TIMEOUT),
          ("RecoveryTimeout", "recovery_timeout", rule.ESXI_RECOVERY_TIMEOUT))
HEADER = ("Name", "Current", "Default", "Min", "Max", "Settable", "Inherit")
#: The columns' widths as esxcli's dashes draw them (elatov's ESXi 5.0 listing).
WIDTHS = (20, 10, 10, 3, 8, 8, 7)
PROMPT = "~ # "


@dataclass
class IscsiParams(Output):
    """Each host's iSCSI adapters, each as `[(name, {key: seconds})]`; `several`: the scenario has
    several hosts (each block is then under its host's heading, however many are printed)."""

    hosts: list[tuple[str, list[tuple[str, dict[str, int]]]]]
    several: bool = False

    def table(self) -> str:
        blocks = [(host, "".join(param_get(name, values) for name, values in adapters))
                  for host, adapters in self.hosts]
        if self.several:
            return "\n".join(f"{hosts.heading(host)}\n{text}" for host, text in blocks).removesuffix("\n")
        return hosts.joined(blocks).removesuffix("\n")

    def document(self) -> Any:
        return [{"host": host, "adapter": name, **{label: values[key] for label, key, _ in TIMERS}}
                for host, adapters in self.hosts for name, values in adapters]


def iscsi_params(scenario: Scenario, host: str | None = None) -> IscsiParams:
    """The iSCSI adapters of the scenario's hosts (or of `host`), as the scenario writes them; a
    `--set` or the variant's override of an adapter is refused (printed as written, it would not be
    what runs)."""
    refuse_overrides(scenario, ("host.adapters", "hosts"), "show iscsi", "the adapters")
    from pathlab.advisor.timer_candidates import tree

    values = tree(scenario)
    tables = [values.get("host", {}), *values.get("hosts", [])]
    found = []
    for table in tables:
        name = str(table.get("name", "esx01"))
        if host is not None and name != host:
            continue
        adapters = [(str(a["name"]), {key: seconds(a["iscsi"].get(key), default.value) for _, key, default in TIMERS})
                    for a in table.get("adapters", []) if isinstance(a.get("iscsi"), dict)]
        if adapters:
            found.append((name, adapters))
    if host is not None and not any(name == host for name, _ in found) and not any(
            str(t.get("name", "esx01")) == host for t in tables):
        raise ScenarioError(scenario.file, "--host", f"{host} is no host of the scenario")
    if not found:
        of = f" of {host}" if host is not None else ""
        raise ScenarioError(scenario.file, "host.adapters", f"no adapter{of} has an `iscsi` table (an ESXi software "
                                                            "iSCSI adapter's timers): nothing to show")
    return IscsiParams(found, len(tables) > 1 and host is None)


def seconds(value: Any, default: float | None) -> int:
    """A timer as the scenario writes it (`"15s"`) in whole seconds (the engine refuses others)."""
    if value is None:
        return int(default or 0)
    from pathlab._core import parse_duration_ns

    return int(parse_duration_ns(str(value)) // 1_000_000_000)


def param_get(adapter: str, values: dict[str, int]) -> str:
    """One adapter's table under its command line, each line ended."""
    rows = [HEADER, tuple("-" * w for w in WIDTHS)]
    for label, key, default in TIMERS:
        low, high = rule.ESXI_ISCSI_RANGES[label]
        rows.append((label, str(values[key]), f"{default.value:g}", str(low), str(high), "true", "false"))
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, WIDTHS)).rstrip() for row in rows]
    return f"{PROMPT}esxcli iscsi adapter param get -A {adapter}\n" + "\n".join(lines) + "\n"
