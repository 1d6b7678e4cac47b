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
from pathlab.output.esxcli_written import PROMPT, host_tables, printed, refuse_overrides, seconds
from pathlab.output.sink import Output

#: esxcli's name, the adapter's `iscsi` key, the default.
TIMERS = (("NoopOutInterval", "noop_out_interval", rule.ESXI_NOOP_OUT_INTERVAL),
          ("NoopOutTimeout", "noop_out_timeout", rule.ESXI_NOOP_OUT_TIMEOUT),
          ("RecoveryTimeout", "recovery_timeout", rule.ESXI_RECOVERY_TIMEOUT))
HEADER = ("Name", "Current", "Default", "Min", "Max", "Settable", "Inherit")
#: The columns' widths as esxcli's dashes draw them (elatov's ESXi 5.0 listing).
WIDTHS = (20, 10, 10, 3, 8, 8, 7)


@dataclass
class IscsiParams(Output):
    """Each host's iSCSI adapters, each as `[(name, {key: seconds})]`; `several`: the scenario has
    several hosts (each block is then under its host's heading, however many are printed)."""

    hosts: list[tuple[str, list[tuple[str, dict[str, int]]]]]
    several: bool = False

    def table(self) -> str:
        blocks = [(host, "".join(param_get(name, values) for name, values in adapters))
                  for host, adapters in self.hosts]
        return printed(blocks, self.several)

    def document(self) -> Any:
        return [{"host": host, "adapter": name, **{label: values[key] for label, key, _ in TIMERS}}
                for host, adapters in self.hosts for name, values in adapters]


def iscsi_params(scenario: Scenario, host: str | None = None) -> IscsiParams:
    """The iSCSI adapters of the scenario's hosts (or of `host`), as the scenario writes them; a
    `--set` or the variant's override of an adapter is refused (printed as written, it would not be
    what runs)."""
    refuse_overrides(scenario, ("host.adapters", "hosts"), "show iscsi", "the adapters")
    found, tables = [], host_tables(scenario, host)
    for name, table in tables:
        adapters = [(str(a["name"]), {key: seconds(a["iscsi"].get(key), default.value) for _, key, default in TIMERS})
                    for a in table.get("adapters", []) if isinstance(a.get("iscsi"), dict)]
        if adapters:
            found.append((name, adapters))
    if not found:
        of = f" of {host}" if host is not None else ""
        raise ScenarioError(scenario.file, "host.adapters", f"no adapter{of} has an `iscsi` table (an ESXi software "
                                                            "iSCSI adapter's timers): nothing to show")
    return IscsiParams(found, host is None and len(tables) > 1)


def param_get(adapter: str, values: dict[str, int]) -> str:
    """One adapter's table under its command line, each line ended."""
    rows = [HEADER, tuple("-" * w for w in WIDTHS)]
    for label, key, default in TIMERS:
        low, high = rule.ESXI_ISCSI_RANGES[label]
        rows.append((label, str(values[key]), f"{default.value:g}", str(low), str(high), "true", "false"))
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, WIDTHS)).rstrip() for row in rows]
    return f"{PROMPT}esxcli iscsi adapter param get -A {adapter}\n" + "\n".join(lines) + "\n"
