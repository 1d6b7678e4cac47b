"""The failure timers a host's own files give, each with the file and line it was read at: what
multipath.conf (or `multipathd show config`, printed in the same syntax) sets for each map of
`multipath -ll`, the queueing its features show, and an NVMe host's controller timers and
nvme_core's `io_timeout` from sysfs. Nothing here is a default: a timer no file gives is absent,
and `advisor/timer_findings.py` says what would settle it and what the built-in default would be.

Which multipath.conf line is in force for a map follows multipath-tools' precedence (0.14.3,
`libmultipath/propsel.c`): map attributes (`no_path_retry`, `failback`) from the map's
`multipaths` entry, then `overrides`, then a matching `devices` entry, then the built-in hardware
table, then `defaults`; path attributes (`fast_io_fail_tmo`, `dev_loss_tmo`: `select_fast_io_fail`,
`select_dev_loss`) from `overrides` (its `protocol` subsections first), a matching `devices`
entry, the hardware table, then `defaults`. `polling_interval`, `max_polling_interval` and
`checker_timeout` are `defaults` alone. Where the built-in hardware table has an entry for the
array that sets the timer, a `defaults` line is not in force and is not given as the map's."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pathlab.importer.conf_precedence import ConfPrecedence, absent

if TYPE_CHECKING:
    import pandas as pd

#: Map attributes and path attributes the failure timers of dm-multipath are made of.
MAP_TIMERS = ("no_path_retry", "failback")
PATH_TIMERS = ("fast_io_fail_tmo", "dev_loss_tmo")
#: multipathd's own timers: `defaults` only.
DAEMON_TIMERS = ("polling_interval", "max_polling_interval", "checker_timeout")

#: The failure timers multipath-tools 0.14.3's built-in hardware table sets for the arrays pathlab
#: ships (pathlab's claim tables, `crates/pathlab-sim/src/linux/hwtable.rs`, keep no timers but
#: `no_path_retry`): (vendor, product) regular expressions as hwtable.c writes them, the
#: attributes set, and the line of the entry's `.vendor` in
#: opensvc/multipath-tools@c2fcdaf1 `libmultipath/hwtable.c`. `infinity` is `MAX_DEV_LOSS_TMO`.
HWTABLE_TIMERS: tuple[tuple[str, str, dict[str, str], int], ...] = (
    ("3PARdata", "VV", {"fast_io_fail_tmo": "10", "dev_loss_tmo": "infinity"}, 112),
    ("DellEMC", "PowerStore", {"fast_io_fail_tmo": "15"}, 389),
    ("NETAPP", "LUN", {"dev_loss_tmo": "infinity"}, 822),
    ("PURE", "FlashArray", {"fast_io_fail_tmo": "10"}, 1092),
    ("NFINIDAT", "InfiniBox", {"fast_io_fail_tmo": "15", "dev_loss_tmo": "infinity"}, 1146),
)
HWTABLE_SOURCE = "multipath-tools 0.14.3 libmultipath/hwtable.c"


@dataclass(frozen=True)
class TimerValue:
    """One failure timer as the host's files give it."""

    #: Its name in the stack's own terms (`no_path_retry`, `ctrl_loss_tmo`, `io_timeout`,
    #: `queue_if_no_path`).
    setting: str
    #: As written (`5`, `queue`, `off`, `infinity`).
    value: str
    #: What it applies to: `host` (multipathd, nvme_core), a device (its WWID or NQN), or a
    #: controller (`nvme0`).
    scope: str
    #: Where it was read: the file, line and multipath.conf section.
    where: str


def hwtable_timer(setting: str, vendor: str, product: str) -> tuple[str, str] | None:
    """The value the built-in hardware table sets for the array, and where, if it has an entry
    (among `HWTABLE_TIMERS`) that sets it."""
    for v, p, values, line in HWTABLE_TIMERS:
        if setting in values and re.search(v, vendor) and re.search(p, product):
            return values[setting], f"{HWTABLE_SOURCE}:{line} ({v},{p})"
    return None


#: The attributes multipath-tools' built-in hardware table sets for an array (vendor, product,
#: whether it reports ALUA), as `conf_precedence.hwtable_sets` gives them.
Hwtable = Callable[[str, str, bool], dict[str, str]]


def dm_timers(conf: dict[str, pd.DataFrame] | None, conf_file: str, maps: pd.DataFrame, mfile: str,
              hwtable: Hwtable) -> list[TimerValue]:
    """multipathd's timers (host), each map's timers in force from the conf, and the queueing
    each map's features show (`queue_if_no_path`, read from the listing)."""
    out: list[TimerValue] = []
    placed = ConfPrecedence(conf)
    for r in placed.at("defaults"):
        if r.keyword in DAEMON_TIMERS:
            out.append(TimerValue(str(r.keyword), str(r.value), "host", f"{conf_file}, line {r.line} (defaults)"))
    for m in maps.itertuples():
        vendor, product, wwid = str(m.vendor).strip(), str(m.product).strip(), str(m.wwid)
        for setting in (*MAP_TIMERS, *PATH_TIMERS):
            found = _in_force(placed, conf_file, setting, wwid, vendor, product, hwtable)
            if found is not None:
                out.append(TimerValue(setting, found[0], wwid, found[1]))
        features = "" if absent(m.features) else str(m.features).strip().strip("'\"")
        if features and features[0].isdigit():
            queueing = "queue_if_no_path" in features.split()
            out.append(TimerValue("queue_if_no_path", "yes" if queueing else "no", wwid,
                                  f"{mfile}, line {m.line} (map {m.name}: features='{features}')"))
    return out


def _in_force(conf: ConfPrecedence, conf_file: str, setting: str, wwid: str, vendor: str, product: str,
              hwtable: Hwtable) -> tuple[str, str] | None:
    """The value in force for one map's timer and where it stands, or None (`conf_precedence`; the
    built-in table's entry for the array, with or without ALUA, wins over `defaults`)."""
    if setting in MAP_TIMERS:
        table = {setting} if any(setting in hwtable(vendor, product, tpgs) for tpgs in (False, True)) else set()
    else:
        table = {setting} if hwtable_timer(setting, vendor, product) is not None else set()
    found = conf.in_force(setting, wwid, vendor, product, table)
    if found is None:
        return None
    if found.per_transport:  # per transport, which no capture shows
        return "", (f"{conf_file}, line {found.line} (overrides protocol): set per transport, and the paths' "
                    "transport is not in the captures: not determined")
    return found.value, f"{conf_file}, line {found.line} ({found.place}{found.note})"


def nvme_timers(attributes: pd.DataFrame, file: str) -> list[TimerValue]:
    """Each fabrics controller's timers and nvme_core's `io_timeout`, as sysfs gives them."""
    from pathlab.readers.nvme_sysfs import MODULE_PARAMETERS, TIMERS

    return [TimerValue(str(r.attribute), str(r.value), "host" if r.object == "module" else str(r.name),
                       f"{file}, {r.where}")
            for r in attributes.itertuples() if r.attribute in (*TIMERS, *MODULE_PARAMETERS)]
