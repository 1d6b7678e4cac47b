"""What a text output says alike of many devices or paths, said a few times and then counted: a
cluster of 32 hosts × 500 devices has a finding, an assumption and a row of the capture check for
each of 16,000 devices, where an admin reads the first few and how many more are alike. Alike is
the same text once its names (hosts, NAA/EUI/NQN identifiers, runtime names, device and path
names) and its figures are taken out. `--verbose` and the JSON keep every one."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

#: Alike items said in full before the rest are counted.
SHOWN = 3

T = TypeVar("T")

#: Names that tell alike lines apart: a host's prefix (`esx01: `, `esx01, esx02: `), SCSI and
#: NVMe identifiers (`naa.`, `eui.`, `t10.`, `nqn.`, `uuid.`, `nvme.`, and scsi_id's WWIDs as
#: multipath names maps: `3` and 32 or 16 hex digits, `2` and 16), ESXi runtime names and Linux
#: H:C:T:L, multipath's friendly names (`mpatha`), dm and block devices (`dm-3`, `sdk`,
#: `nvme0n1`, `nvme0c1n1`), `HOST/NAME` (and files' paths).
_NAMES = re.compile(r"^[\w.-]+(?:, [\w.-]+)*: (?=\S)|\b(?:naa|eui|t10|nqn|uuid|nvme)\.[\w.:-]+"
                    r"|\bvmhba\d+:C\d+:T\d+:L\d+\b|\b\d+:\d+:\d+:\d+\b|\b(?:3[0-9a-f]{32}|[23][0-9a-f]{16})\b"
                    r"|\bmpath[a-z]+\b|\bdm-\d+\b|\bsd[a-z]{1,3}\b|\bnvme\d+(?:c\d+)?n\d+\b|\b[\w.-]+/[\w.-]+\b")
_FIGURES = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?")


def alike(text: str, figures: bool = True) -> str:
    """`text` with its names taken out, and its figures unless `figures` is false (warnings keep
    theirs: a queue 95% full is not said alike with one 5% full): the key alike texts share."""
    named = _NAMES.sub("#", text)
    return _FIGURES.sub("#", named) if figures else named


def counted(items: Sequence[T], key: Callable[[T], str], more: Callable[[list[T]], str],
            shown: int = SHOWN) -> list[T | str]:
    """`items` with each group of alike ones (`key`) cut to its first `shown` and the rest said
    once after them (`more` of the ones left out), each group where its first item is (a group
    comes together ahead of items between its members); a group of `shown` + 1 is said whole, in
    its order among the others (a line saying "1 more" says no less)."""
    groups: dict[str, list[T]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    out: list[T | str] = []
    placed: set[str] = set()
    for item in items:
        k = key(item)
        group = groups[k]
        if len(group) <= shown + 1:
            out.append(item)
        elif k not in placed:
            placed.add(k)
            out += [*group[:shown], more(group[shown:])]
    return out


def hosts_of(titles: Iterable[str], hosts: Sequence[str]) -> list[str]:
    """The cluster's hosts that the titles begin with (`esx01: …`, `esx01, esx04: …`), in the
    cluster's order."""
    named: set[str] = set()
    for title in titles:
        head = title.split(": ", 1)[0]
        named.update(h for h in head.split(", ") if h in hosts)
    return [h for h in hosts if h in named]
