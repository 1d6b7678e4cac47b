"""Which multipath.conf line is in force for a map's or a path's attribute: the one resolver the
import (`map_policy.conf_settings`), the listing's findings (`listing_findings`) and the failure
timers (`timer_values`) use.

multipath-tools' precedence (0.14.3 `libmultipath/propsel.c`): a map attribute (`no_path_retry`,
`failback`, `path_grouping_policy`, `prio`, …: `mp_set_mpe`, `mp_set_ovr`, `mp_set_hwe`,
`mp_set_conf`) from the map's `multipaths` entry, then `overrides`, then the last matching
`devices` entry that sets it (`find_hwe` takes the entries last first; vendor and product are
regular expressions searched unanchored, as `regexec` does, and an entry without one matches
any), then the built-in hardware table, then `defaults`. A path attribute (`fast_io_fail_tmo`,
`dev_loss_tmo`, `eh_deadline`: `select_fast_io_fail`, `select_dev_loss`) takes no `multipaths`
entry and looks first at `overrides`' `protocol` subsections, which apply per transport. The
hardware table's entries are the caller's to know (`hwtable`: the attributes it sets for the
array): where it sets the attribute, no `defaults` line is in force.

Values as multipathd reads them: `no_path_retry 0` is `fail` (dict.c `set_no_path_retry`), and
a section's `features` with `queue_if_no_path` where that section sets no `no_path_retry` is
`no_path_retry queue` (propsel.c:427 `reconcile_features_with_options`)."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

#: Attributes multipathd selects per path: no `multipaths` entry; `overrides` `protocol` first.
PATH_ATTRIBUTES = ("fast_io_fail_tmo", "dev_loss_tmo", "eh_deadline")
#: The note on a `no_path_retry` read from a `features` line.
QUEUE_FEATURE = ": features with queue_if_no_path, read as no_path_retry queue"


@dataclass(frozen=True)
class InForce:
    """The line in force for an attribute."""

    #: As multipathd reads it (`no_path_retry 0` is `fail`).
    value: str
    line: int
    #: `multipaths`, `overrides`, `devices` or `defaults`.
    section: str
    #: Where it stands, for a reader: `multipaths entry WWID`, `overrides`, `overrides protocol`,
    #: `devices entry VENDOR/PRODUCT`, `defaults`.
    place: str
    #: What was read to give it (QUEUE_FEATURE), else empty.
    note: str = ""

    @property
    def per_transport(self) -> bool:
        """Set in an `overrides` `protocol` subsection: in force or not by the paths' transport."""
        return self.place == "overrides protocol"


def absent(value: Any) -> bool:
    """A table cell with nothing in it (None, pandas' NA or NaN)."""
    return value is None or str(value) in ("<NA>", "nan", "None")


def _matches(pattern: Any, text: str) -> bool:
    return absent(pattern) or re.search(str(pattern), text) is not None


class ConfPrecedence:
    """multipath.conf's settings (`readers.multipath_conf.read`'s tables) by where they stand, and
    the line in force for one map's attribute; a host's maps share a few arrays, so each answer
    is kept."""

    def __init__(self, conf: dict[str, pd.DataFrame] | None):
        self.places: dict[tuple[str, str | None, int | None], list[Any]] = {}
        for r in [] if conf is None else conf["settings"].itertuples():
            entry = None if absent(r.entry) else int(r.entry)
            place = (str(r.section), None if absent(r.subsection) else str(r.subsection), entry)
            self.places.setdefault(place, []).append(r)
        self.devices = [] if conf is None else list(zip(conf["devices"]["vendor"], conf["devices"]["product"]))
        self.entries = {} if conf is None else {str(w): i for i, w in enumerate(conf["multipaths"]["wwid"])}
        self.known: dict[tuple[str, str | None, str, str, frozenset[str]], InForce | None] = {}

    def at(self, section: str, subsection: str | None = None, entry: int | None = None) -> list[Any]:
        """The settings standing in one place, in the file's order."""
        return self.places.get((section, subsection, entry), [])

    def in_force(self, keyword: str, wwid: str, vendor: str, product: str,
                 hwtable: Collection[str] = ()) -> InForce | None:
        """The line in force for `keyword` of the map `wwid` (its array's vendor and product, as
        the listing shows them), or None where multipath.conf leaves it to the hardware table
        (`hwtable`: the attributes it sets for the array) or the compiled-in default."""
        key = (keyword, wwid if wwid in self.entries else None, vendor, product, frozenset(hwtable) & {keyword})
        if key not in self.known:
            self.known[key] = self._in_force(keyword, wwid, vendor, product, keyword in hwtable)
        return self.known[key]

    def beside(self, found: InForce, keyword: str, wwid: str, vendor: str, product: str) -> InForce | None:
        """The `keyword` that goes with the attribute `found` in force (`prio_args` with `prio`),
        as `select_prio` takes them (propsel.c `set_prio`, `set_prio_from_vec`): from the same
        `multipaths` entry, `overrides` or `defaults`, or from the last matching `devices` entry
        that sets it (each may be another entry than the one `found` stands in)."""
        if found.section == "multipaths":
            return self._last(keyword, found.place, "multipaths", "multipath", self.entries[wwid])
        if found.section != "devices":
            return self._last(keyword, found.place, found.section)
        for i in reversed(range(len(self.devices))):
            v, p = self.devices[i]
            if _matches(v, vendor) and _matches(p, product):
                there = self._last(keyword, f"devices entry {v}/{p}", "devices", "device", i)
                if there:
                    return there
        return None

    def _last(self, keyword: str, place: str, section: str, subsection: str | None = None,
              entry: int | None = None) -> InForce | None:
        here = self.at(section, subsection, entry)
        own = [r for r in here if r.keyword == keyword]
        if own:
            value = str(own[-1].value)
            if keyword == "no_path_retry" and value == "0":
                value = "fail"
            return InForce(value, int(own[-1].line), section, place)
        queued = [r for r in here if r.keyword == "features" and "queue_if_no_path" in str(r.value).split()]
        if keyword == "no_path_retry" and queued:
            return InForce("queue", int(queued[-1].line), section, place, QUEUE_FEATURE)
        return None

    def _in_force(self, keyword: str, wwid: str, vendor: str, product: str, in_hwtable: bool) -> InForce | None:
        if keyword in PATH_ATTRIBUTES:
            found = self._last(keyword, "overrides protocol", "overrides", "protocol")
        elif wwid in self.entries:
            found = self._last(keyword, f"multipaths entry {wwid}", "multipaths", "multipath", self.entries[wwid])
        else:
            found = None
        found = found or self._last(keyword, "overrides", "overrides")
        for i in reversed(range(len(self.devices))):  # the later entry wins (find_hwe searches backwards)
            if found:
                break
            v, p = self.devices[i]
            if _matches(v, vendor) and _matches(p, product):
                found = self._last(keyword, f"devices entry {v}/{p}", "devices", "device", i)
        if found or in_hwtable:
            return found  # the built-in table's entry for the array wins over `defaults`
        return self._last(keyword, "defaults", "defaults")


def hwtable_sets(vendor: str, product: str, tpgs: bool) -> dict[str, str]:
    """The attributes multipath-tools' built-in hardware table sets for the array, and their values."""
    from pathlab import _core

    return {s["name"]: s["value"] for s in _core.linux_claim(vendor, product, tpgs)["settings"]
            if s["origin"] == "storage device configuration"}
