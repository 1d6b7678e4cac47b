"""The ranges (low, high, in seconds) ESXi accepts for the timers an import reads from a host:
an iSCSI adapter's NoopOutInterval, NoopOutTimeout and RecoveryTimeout and `Misc.APDTimeout`.
They come from the engine (`model/esxi_iscsi.rs`, `model/stack.rs`, with their sources), so the
import refuses a listing's value, `show` prints Min and Max, and advise takes a value exactly as
`run` would."""

from __future__ import annotations

from pathlab import _core

_RANGES = _core.esxi_timer_ranges()

#: The adapter's session timers, by esxcli's names (`esxcli iscsi adapter param get`).
ISCSI: dict[str, tuple[int, int]] = {name: (low, high) for name, (low, high) in _RANGES.items()
                                     if name != "Misc.APDTimeout"}
#: `Misc.APDTimeout`.
APD_TIMEOUT: tuple[int, int] = tuple(_RANGES["Misc.APDTimeout"])  # type: ignore[assignment]
