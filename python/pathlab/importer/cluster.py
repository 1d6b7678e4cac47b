"""Several hosts that share arrays, for the library: `import_cluster(hosts={name: files})` builds
what `pathlab import --host NAME=FILES …` writes, typed. Each host is imported as `import_host`
reads it (its own checks, findings and assumptions); `cluster_merge` puts them together. A host's
name comes from its captures where they hold one (`host_names`), else from the name given; two
hosts of one name, or one capture given for two hosts, are refused naming both."""

from __future__ import annotations

import gc
import os
import tempfile
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from pathlab.api import PathlabWarning, Scenario, ScenarioError, warn
from pathlab.assumption import Assumption
from pathlab.importer.host import Host
from pathlab.importer.host_tables import HostTables
from pathlab.importer.provenance import Given, Provenance
from pathlab.processes import cores, in_order

if TYPE_CHECKING:
    from pathlab.importer.cluster_merge import Merged

FileName = str | os.PathLike[str]
#: What `import_cluster` takes: {name: files}, or each host's files alone (the name from its captures).
Hosts = Mapping[str, FileName | Sequence[FileName]] | Iterable[FileName | Sequence[FileName]]


@dataclass(frozen=True)
class Cluster:
    """The hosts the captures describe, as one scenario: each host as its own import reads it,
    what they share, and the scenario of them together."""

    #: Each host by its name, as `import_host` reads its captures alone (findings, assumptions,
    #: measured load, and its scenario alone).
    hosts: dict[str, Host]
    #: What the cluster's scenario is named in its errors (after the captures).
    file: str
    #: Devices several hosts have (one NAA, WWID or NQN): name → the hosts, in the order given.
    shared_devices: dict[str, tuple[str, ...]]
    #: Every array port (`ARRAY/PORT`) → the hosts that reach it.
    ports: dict[str, tuple[str, ...]]
    #: Every array port → what it is known by (`FC target fc.…`, `iSCSI portal …`, `NVMe … traddr
    #: …`), None where the captures name it by nothing another host could match.
    port_identities: dict[str, str | None]
    #: What putting the hosts together assumed (a LUN numbered otherwise, values of an array two
    #: hosts read differently); each host's own are in `hosts[name].assumptions`.
    assumptions: tuple[Assumption, ...]
    #: Where each host's name comes from (a capture's file and line, or `given`).
    named_from: dict[str, str] = field(repr=False)
    #: The scenario's TOML text, every value commented with where it came from.
    text: str = field(repr=False)
    #: The scenario as typed tables (`tables.render()` is `text` but for a tarball's files, named
    #: there as given), each value with its provenance.
    tables: HostTables = field(default_factory=HostTables, repr=False)

    @cached_property
    def scenario(self) -> Scenario:
        """The cluster as a checked scenario: every host's adapters, paths and load, the arrays once;
        built from `tables` when first asked for (the import checked it, and advise builds its own
        with its settings: 580 MiB on 32 × 500 × 8 not held beside advise's)."""
        return Scenario.from_values(self.tables.values(), self.text, self.file)

    def __repr__(self) -> str:
        return (f"<pathlab.Cluster {', '.join(self.hosts)}: {len(self.shared_devices)} shared devices, "
                f"{sum(1 for h in self.ports.values() if len(h) > 1)} of {len(self.ports)} ports shared>")

    def to_toml(self) -> str:
        """The scenario as `pathlab import --host …` writes it."""
        return self.text


def import_cluster(hosts: Hosts) -> Cluster:
    """The hosts that `hosts` describe, as one scenario: {name: files} (the name used where the
    captures name no host), or a list of each host's files (a folder, a vm-support bundle or
    sosreport, extracted or as a tarball; its captures must name the host). Warnings as
    `import_host`'s; bad input raises `ScenarioError` naming the file."""
    return cluster_of(_given(hosts))


def cluster_of(given: Sequence[tuple[str | None, tuple[str, ...]]], workers: int | None = None) -> Cluster:
    """`import_cluster` of each host's (name or None, files), as `pathlab import --host` gives them;
    the hosts are imported on `workers` processes (by default one a core), the cluster the same
    byte for byte whatever their number."""
    if len(given) < 2:
        raise ScenarioError("the hosts given", "", f"{'one host only' if given else 'no host'}: a cluster is two hosts "
                                                    "or more: give each host's captures (pathlab import: --host once "
                                                    "per host; one host's files without --host)")
    unpacked: dict[str, str] = {}  # each tarball given → the folder it was unpacked to
    workers = workers or cores()
    # gc has no partial unfreeze: where the caller froze objects of its own, the hosts are not frozen.
    freezing = gc.get_freeze_count() == 0
    # Where worker processes read the hosts (`in_order`: more than one worker, two hosts or more),
    # the collector is off here until the cluster is checked: what arrives is the hosts' millions
    # of objects, which live to the import's end and make no cycles to collect, and the merge's,
    # the text's and the check's few; its passes over them as they arrive (the pool's thread
    # unpickling a host) cost a sixth of this process's CPU on 32 × 500 × 8. A host read here
    # keeps the caller's collector: its import makes cycles (25 MiB a host) that it collects.
    collecting = gc.isenabled() and workers > 1
    if collecting:
        gc.disable()
    try:
        with tempfile.TemporaryDirectory(prefix="pathlab-bundles-") as scratch:
            try:
                members, imported, said, merged = _imported(given, Path(scratch), unpacked, workers, freezing)
            except ScenarioError as e:  # a file inside a tarball named as the tarball's
                raise ScenarioError(*(_as_given(str(a), _outside(unpacked)) for a in e.args)) from None
        return _cluster(members, imported, said, merged, unpacked)
    finally:
        if collecting:
            gc.enable()  # as the caller had it
        if freezing:
            gc.unfreeze()  # the hosts read are the collector's again (`_imported` froze them)


def _cluster(members: list[tuple[str, Provenance, tuple[str, ...], tuple[str, ...]]], imported: dict[str, Host],
             said: list[str], merged: Merged, unpacked: dict[str, str]) -> Cluster:
    """The cluster of the hosts read and merged, its files named as given."""
    outside = _outside(unpacked)
    text = _as_given(merged.text, outside)
    for tables in (merged.tables, *(h.tables for h in imported.values())):
        tables.forget_lines()  # the hosts' texts and the cluster's hold them: not every line again
    for message in said:  # each host's own warnings, its bundles named as given
        warnings.warn(_as_given(message, outside), PathlabWarning, stacklevel=3)
    label = " and ".join(n for n, *_ in members)
    for field_name, message in merged.warnings:
        warn(label, field_name, message)
    file = f"the cluster imported from {', '.join(f for m in members for f in m[2])}"
    # Checked here, where its errors are the import's; without the devices' `listed` tables (what a
    # listing printed: most of the values, and most of the check's time), each checked by its
    # host's import (`cluster_hosts`) and left by the merge as they were but for their paths' keys
    # (`_renumber_listed`), which any string is.
    Scenario.from_values(merged.tables.values(listed=False), text, file)
    hosts_of = {d: tuple(h) for d, h in merged.device_hosts.items() if len(h) > 1}
    return Cluster({n: _as_given_host(imported[n], outside) for n in imported}, file, hosts_of,
                   {p: tuple(h) for p, h in merged.port_hosts.items()}, merged.port_ids,
                   tuple(Assumption(f, m) for f, m in merged.warnings),
                   {n: _as_given(source.comment(), outside) for n, source, *_ in members}, text, merged.tables)


def _imported(given: Sequence[tuple[str | None, tuple[str, ...]]], scratch: Path, unpacked: dict[str, str], workers: int,
              freezing: bool) -> tuple[list[tuple[str, Provenance, tuple[str, ...], tuple[str, ...]]], dict[str, Host],
                                       list[str], Merged]:
    """Each host read on up to `workers` processes (`cluster_hosts.read_host`: named, digested,
    imported alone) and merged as it arrives (in the hosts' order: the merge's work is done while
    the workers read the later hosts, not after the last), checked against the others (what the
    checks refuse is refused as one process would, in its order, before the merge's own refusal);
    the hosts' warnings recorded in the hosts' order (they name files unpacked from tarballs under
    `scratch`)."""
    from pathlab.importer.archives import is_archive, unpack
    from pathlab.importer.cluster_hosts import HostRead, read_host
    from pathlab.importer.cluster_merge import Member, Merging
    from pathlab.importer.device_sizes import refuse_sizes_that_differ
    from pathlab.importer.host_names import checked_name
    from pathlab.importer.run_interval import cluster_objects, size_interval

    reads = []
    for i, (_, files) in enumerate(given):
        for k, f in enumerate(files):  # each tarball unpacked once, into a folder of its own
            if is_archive(f) and f not in unpacked:
                unpacked[f] = str(unpack(f, scratch / f"{i}-{k}"))
        reads.append(tuple(unpacked.get(f, f) for f in files))
    hosts: list[HostRead] = []
    members: list[tuple[str, Provenance, tuple[str, ...], tuple[str, ...]]] = []  # (name, source, as given, read)
    merging: Merging | None = Merging()  # each host merged as it arrives (the merge's refusal kept for its turn)
    merge_refused: ScenarioError | None = None
    for (name, files), read, r in zip(given, reads, in_order(read_host, reads, workers)):
        hosts.append(r)
        if r.naming_refused is not None:
            raise ScenarioError(*r.naming_refused)
        named = r.named
        if named is None and name is None:
            raise ScenarioError(", ".join(files), "", "no capture names its host (an esxtop capture, a sosreport's "
                                                      "or vm-support's hostname do): give its name, --host NAME=FILES")
        if named is not None and name is not None and named[0] != name:
            warn(", ".join(files), "host", f"given as {name}, named {named[0]} by {named[1].comment()}: {named[0]} used")
        host_name, source = named if named is not None else (checked_name(str(name), ", ".join(files)),
                                                             Given("no capture names the host"))
        members.append((host_name, source, files, read))
        if merging is not None and (r.host is None or host_name in (m.name for m in merging.members)):
            merging = None  # refused below, before any merge: nothing more is merged
        if merging is not None:
            assert r.host is not None
            try:
                merging.add(Member(host_name, source, r.host.stack, files, r.host.tables))
            except ScenarioError as e:
                merging, merge_refused = None, e
        # Each host read and merged lives to the end: its millions of objects are left out of the
        # garbage collector's full passes, which would walk them again and again as the merge
        # grows (32 × 500 × 8: the parent's CPU a third less); `cluster_of` gives them back.
        if freezing:
            gc.freeze()
    first: dict[str, HostRead] = {}  # each name's first host read
    for (host_name, *_), r in zip(members, hosts):
        first.setdefault(host_name, r)
    _refuse_one_host_twice(members, {name: r.digests for name, r in first.items()})
    refuse_sizes_that_differ([(name, first[name].captures) for name, *_ in members])
    imported: dict[str, Host] = {}
    said: list[str] = []
    objects: list[int] = []  # each host's objects with rows of interval figures
    for (host_name, *_), r in zip(members, hosts):
        if r.import_refused is not None:
            raise ScenarioError(*r.import_refused)
        assert r.host is not None
        imported[host_name] = r.host
        said += r.said
        objects.append(r.interval_objects)
    if merge_refused is not None:
        raise merge_refused
    assert merging is not None
    merged = merging.merged()
    size_interval(merged.tables, cluster_objects(objects))
    return members, imported, said, merged


def _outside(unpacked: dict[str, str]) -> dict[str, str]:
    """Each unpacked folder → the tarball given."""
    return {folder: archive for archive, folder in unpacked.items()}


def _given(hosts: Hosts) -> list[tuple[str | None, tuple[str, ...]]]:
    """(name or None, files) of each host, files as strings."""
    def files_of(value: FileName | Sequence[FileName]) -> tuple[str, ...]:
        return (str(value),) if isinstance(value, (str, os.PathLike)) else tuple(str(f) for f in value)

    if isinstance(hosts, Mapping):
        return [(str(name), files_of(files)) for name, files in hosts.items()]
    return [(None, files_of(files)) for files in hosts]


def _refuse_one_host_twice(members: list[tuple[str, Provenance, tuple[str, ...], tuple[str, ...]]],
                           digests_of: dict[str, dict[str, str]]) -> None:
    """Two hosts of one name, or one capture (the same bytes) given for two hosts: the same host
    twice, whose load would count twice. Only captures no two hosts print alike are compared
    (`cluster_hosts.OWN_KINDS`, digested by each host's worker): measured counters, and ESXi path
    lists (they name the host's adapters by WWN); hosts of a cluster list the same devices alike."""
    seen: dict[str, tuple[str, str]] = {}
    digests: dict[str, tuple[str, str]] = {}
    for name, source, files, _ in members:
        note = source.comment()
        if name in seen:
            raise ScenarioError(", ".join(files), "", f"host {name} ({note}) is given twice: the other is "
                                                      f"{seen[name][1]} ({seen[name][0]}); give each host once")
        seen[name] = (note, ", ".join(files))
        for f, digest in digests_of[name].items():
            if digest in digests and digests[digest][0] != name:
                raise ScenarioError(f, "", f"the same capture as {digests[digest][1]} (host {digests[digest][0]}), given "
                                           f"for host {name}: one host's captures given twice; give each host's own")
            digests.setdefault(digest, (name, f))


def _as_given(text: str, outside: dict[str, str]) -> str:
    """A text naming files unpacked from a tarball, with the tarball's name (`bundle.tgz!…`) instead."""
    for folder, archive in outside.items():
        text = text.replace(folder + os.sep, f"{archive}!")
    return text


def _as_given_host(host: Host, outside: dict[str, str]) -> Host:
    if not outside:
        return host
    from dataclasses import replace

    return replace(host, files=tuple(outside.get(f, f) for f in host.files), text=_as_given(host.text, outside),
                   assumptions=tuple(Assumption(a.field, _as_given(a.assumed, outside)) for a in host.assumptions))
