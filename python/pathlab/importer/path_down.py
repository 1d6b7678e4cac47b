"""A path the listing shows out of use (dm's failed/faulty, ESXi's dead or disabled, an NVMe
controller not live or its ANA state inaccessible, PowerPath's dead, MPIO's failed) stays so in
the imported host: a `path_down` fault at 0 s, the one `[[faults]]` table every importer writes."""

from __future__ import annotations

from pathlab.importer.host_tables import HostTables
from pathlab.importer.provenance import Own, Provenance

#: Why the fault's kind and time are the scenario's own: the path's line says what the host showed.
FROM_START = Own("a path the listing shows out of use is down from the start (its `path` line says which and where)")


def down_from_start(host: HostTables, path: str, shown: Provenance) -> None:
    """A fault taking `path` (its name in the scenario) down at 0 s; `shown`: where the listing
    shows it out of use."""
    fault = host.table("faults", array=True)
    fault.key("kind", "path_down", FROM_START)
    fault.key("at", "0s", FROM_START)
    fault.key("path", path, shown)
