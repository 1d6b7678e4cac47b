"""One WWID that two hosts list at different sizes is not one LUN (a LUN resized and not rescanned
on one host, or two arrays reusing an identifier): refused, naming both listings and lines. Only
`multipath -ll` shows a size (`size=100G`); the esxcli device list and `nvme list-subsys` do not."""

from __future__ import annotations

from collections.abc import Sequence

from pathlab.api import ScenarioError


def refuse_sizes_that_differ(hosts: Sequence[tuple[str, Sequence[str]]]) -> None:
    """`hosts`: each host's name and capture files."""
    from pathlab.importer.kinds import kind_of

    seen: dict[str, tuple[str, str, str]] = {}  # WWID -> (size, where, host)
    for host, files in hosts:
        for file in files:
            kind = kind_of(file)
            if kind.name != "multipath":
                continue
            for m in kind.read(file)["maps"].itertuples():
                size, where = str(m.size), f"{file}, line {m.line}"
                first = seen.setdefault(str(m.wwid), (size, where, host))
                if first[2] != host and first[0] != size:
                    raise ScenarioError(file, f"line {m.line}", f"{m.wwid} is {size} on {host}, {first[0]} on {first[2]} "
                                                                f"({first[1]}): one WWID at two sizes is not one LUN; "
                                                                "rescan the host that shows the old size")
