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
from typing import TYPE_CHECKING, Any

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
#: whether it reports ALUA), as `linux.hwtable_sets` gives them.
Hwtable = Callable[[str, str, bool], dict[str, str]]


def dm_timers(conf: dict[str, pd.DataFrame] | None, conf_file: str, maps: pd.DataFrame, mfile: str,
              hwtable: Hwtable) -> list[TimerValue]:
    """multipathd's timers (host), each map's timers in force from the conf, and the queueing
    each map's features show (`queue_if_no_path`, read from the listing)."""
    out: list[TimerValue] = []
    placed = _Placed(conf, conf_file, hwtable)
    for r in placed.at("defaults"):
        if r.keyword in DAEMON_TIMERS:
            out.append(TimerValue(str(r.keyword), str(r.value), "host", f"{conf_file}, line {r.line} (defaults)"))
    for m in maps.itertuples():
        vendor, product, wwid = str(m.vendor).strip(), str(m.product).strip(), str(m.wwid)
        for setting in (*MAP_TIMERS, *PATH_TIMERS):
            found = placed.in_force(setting, wwid, vendor, product)
            if found is not None:
                out.append(TimerValue(setting, found[0], wwid, found[1]))
        features = "" if _absent(m.features) else str(m.features).strip().strip("'\"")
        if features and features[0].isdigit():
            queueing = "queue_if_no_path" in features.split()
            out.append(TimerValue("queue_if_no_path", "yes" if queueing else "no", wwid,
                                  f"{mfile}, line {m.line} (map {m.name}: features='{features}')"))
    return out


class _Placed:
    """multipath.conf's settings by where they stand (section, subsection, entry), and the line
    in force for a map's timer by propsel.c's precedence; a host's maps share a few arrays, so
    each answer is kept (`multipathd show config` has an entry per array of the hardware table)."""

    def __init__(self, conf: dict[str, pd.DataFrame] | None, conf_file: str, hwtable: Hwtable):
        self.file, self.hwtable = conf_file, hwtable
        self.places: dict[tuple[str, str | None, int | None], list[Any]] = {}
        for r in [] if conf is None else conf["settings"].itertuples():
            entry = None if _absent(r.entry) else int(r.entry)
            place = (str(r.section), None if _absent(r.subsection) else str(r.subsection), entry)
            self.places.setdefault(place, []).append(r)
        self.devices = [] if conf is None else list(conf["devices"].itertuples())
        self.entries = {} if conf is None else {str(w): i for i, w in enumerate(conf["multipaths"]["wwid"])}
        self.known: dict[tuple[str, str | None, str, str], tuple[str, str] | None] = {}

    def at(self, section: str, subsection: str | None = None, entry: int | None = None) -> list[Any]:
        return self.places.get((section, subsection, entry), [])

    def lines(self, setting: str, section: str, subsection: str | None = None, entry: int | None = None) -> list[Any]:
        here = self.at(section, subsection, entry)
        own = [r for r in here if r.keyword == setting]
        if own or setting != "no_path_retry":
            return own
        return [_QueueFeature(r) for r in here if r.keyword == "features" and "queue_if_no_path" in str(r.value).split()]

    def in_force(self, setting: str, wwid: str, vendor: str, product: str) -> tuple[str, str] | None:
        """The value in force for one map's timer and where it stands, or None."""
        key = (setting, wwid if wwid in self.entries else None, vendor, product)
        if key not in self.known:
            self.known[key] = self._in_force(setting, wwid, vendor, product)
        return self.known[key]

    def _said(self, r: Any, section: str) -> tuple[str, str]:
        return str(r.value), f"{self.file}, line {r.line} ({section}{r.note if isinstance(r, _QueueFeature) else ''})"

    def _in_force(self, setting: str, wwid: str, vendor: str, product: str) -> tuple[str, str] | None:
        if setting in MAP_TIMERS:
            if wwid in self.entries and (found := self.lines(setting, "multipaths", "multipath", self.entries[wwid])):
                return self._said(found[-1], f"multipaths entry {wwid}")
        elif protocol := self.lines(setting, "overrides", "protocol"):  # per transport, which no capture shows
            return "", (f"{self.file}, line {protocol[-1].line} (overrides protocol): set per transport, and the "
                        "paths' transport is not in the captures: not determined")
        if overrides := self.lines(setting, "overrides"):
            return self._said(overrides[-1], "overrides")
        for i in reversed(range(len(self.devices))):  # the later entry wins (find_hwe searches backwards)
            d = self.devices[i]
            if _matches(d.vendor, vendor) and _matches(d.product, product) and \
                    (found := self.lines(setting, "devices", "device", i)):
                return self._said(found[-1], f"devices entry {d.vendor}/{d.product}")
        if hwtable_timer(setting, vendor, product) is not None:
            return None  # the built-in table's entry for the array wins over `defaults`
        if setting in MAP_TIMERS and any(setting in self.hwtable(vendor, product, tpgs) for tpgs in (False, True)):
            return None  # with or without ALUA
        defaults = self.lines(setting, "defaults")
        return self._said(defaults[-1], "defaults") if defaults else None


class _QueueFeature:
    """A `features` line with `queue_if_no_path` where the same section sets no `no_path_retry`:
    multipath-tools reads it as `no_path_retry queue` (0.14.3 libmultipath/propsel.c:427
    `reconcile_features_with_options`, called for a devices entry at config.c:483)."""

    note = ": features with queue_if_no_path, read as no_path_retry queue"

    def __init__(self, row: Any):
        self.line, self.subsection, self.entry, self.value = row.line, row.subsection, row.entry, "queue"


def _absent(value: Any) -> bool:
    """A table cell with nothing in it (None, pandas' NA or NaN)."""
    return value is None or str(value) in ("<NA>", "nan", "None")


def _matches(pattern: Any, text: str) -> bool:
    return _absent(pattern) or re.search(str(pattern), text) is not None


def nvme_timers(attributes: pd.DataFrame, file: str) -> list[TimerValue]:
    """Each fabrics controller's timers and nvme_core's `io_timeout`, as sysfs gives them."""
    from pathlab.readers.nvme_sysfs import MODULE_PARAMETERS, TIMERS

    return [TimerValue(str(r.attribute), str(r.value), "host" if r.object == "module" else str(r.name),
                       f"{file}, {r.where}")
            for r in attributes.itertuples() if r.attribute in (*TIMERS, *MODULE_PARAMETERS)]
