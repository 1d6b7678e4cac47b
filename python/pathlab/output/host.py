"""An imported host as a notebook shows it: its stack, whether its load was measured, what the
captures show and what was assumed (the scenario itself is `Host.to_toml()`)."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlab.importer.host import Host


def host_html(host: Host) -> str:
    load = "measured" if host.measured_load else "not measured (no performance counters in the captures)"
    rows = "".join(f"<li><b>{html.escape(f.title)}</b><br>{html.escape(f.evidence)}</li>" for f in host.findings)
    assumed = "".join(f"<li><code>{html.escape(a.field)}</code>: {html.escape(a.assumed)}</li>" for a in host.assumptions)
    devices = len(host.scenario.devices)
    return (f"<p><b>{html.escape(host.file)}</b>: {html.escape(host.stack)} host, {devices} "
            f"device{'s' if devices != 1 else ''}, load {load}</p>"
            + (f"<p>Findings:</p><ul>{rows}</ul>" if rows else "<p>Findings: nothing stands out.</p>")
            + (f"<p>Assumed, not in the captures:</p><ul>{assumed}</ul>" if assumed else ""))
