"""One host of a cluster read in a worker process (`importer/cluster.py` runs one a core): its
capture files found, its name read where a capture holds it, its own captures digested (to find
one capture given for two hosts), and the host imported alone. Everything crosses back to the
parent pickled (a `Host`'s scenario as its tables, `Scenario.__reduce__`); a refusal as its words
(`ScenarioError`, the engine's type, does not pickle), for the parent to raise in the order the
hosts were given: every host's naming before any host's import, as one process would."""

from __future__ import annotations

import gc
import hashlib
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from pathlab.api import PathlabWarning, ScenarioError
from pathlab.importer.host import Host
from pathlab.importer.provenance import Read
from pathlab.processes import in_worker

#: The kinds of capture that are one host's own: two hosts never print them byte for byte alike.
OWN_KINDS = ("esxtop", "paths", "diskstats", "iostat")


@dataclass
class HostRead:
    """What a worker read of one host's files (as given, tarballs unpacked)."""

    #: The capture files the import reads (a tree's found in it).
    captures: list[str] = field(default_factory=list)
    #: The host's name and the file and line that hold it; None where no capture names it.
    named: tuple[str, Read] | None = None
    #: Each capture of `OWN_KINDS` → its SHA-256.
    digests: dict[str, str] = field(default_factory=dict)
    #: The host as `import_host` reads it alone, and the warnings it gave, in order.
    host: Host | None = None
    said: list[str] = field(default_factory=list)
    #: Why the files could not be named (`ScenarioError`'s arguments): nothing imported then.
    naming_refused: tuple[str, ...] | None = None
    #: Why the host's import refused them.
    import_refused: tuple[str, ...] | None = None
    #: Its scenario's objects with rows of interval figures (`ScenarioHandle.interval_objects`),
    #: read where the import built it: the cluster's `[run]` interval is sized by them.
    interval_objects: int = 0


def read_host(files: tuple[str, ...]) -> HostRead:
    """One host's files read: named, digested, imported (`HostRead`). In a worker process, without
    the garbage collector's passes (`uncollected`)."""
    if in_worker():  # not a caller's process, whoever started it
        uncollected()
    return _read_host(files)


def uncollected() -> None:
    """A worker's collector off, once the previous host's cycles are collected: a host's import
    makes objects that live to its end (its tables: 100,000 of a host of 500 devices × 8 paths),
    which the collector's 400 passes a host walked for nothing (a tenth of a worker's CPU on
    32 × 500 × 8). Its few cycles (the esxtop summary's, pandas' row types: 25 MiB a host) are
    collected here, before the next host, and what outlives every host (modules, caches) is frozen
    out of the collector's walk: the worker's peak stays one host's."""
    gc.disable()
    gc.collect()
    gc.freeze()


def _read_host(files: tuple[str, ...]) -> HostRead:
    from pathlab.importer.host_names import let_go_kept

    try:
        return _named_and_imported(files)
    finally:  # what the naming kept for the capture's reader, where the reader did not take it
        let_go_kept()


def _named_and_imported(files: tuple[str, ...]) -> HostRead:
    from pathlab.importer import capture_files_of
    from pathlab.importer.host import host_and_scenario
    from pathlab.importer.host_names import host_named
    from pathlab.importer.kinds import kind_of

    out = HostRead()
    try:
        with warnings.catch_warnings():  # what a tree's files are is said once, by its import
            warnings.simplefilter("ignore", PathlabWarning)
            out.captures = [f for f in capture_files_of(files) if Path(f).is_file()]
        out.named = host_named(files, out.captures)
        out.digests = {f: digest(f) for f in out.captures if kind_of(f).name in OWN_KINDS}
    except ScenarioError as e:
        out.naming_refused = tuple(str(a) for a in e.args)
        return out
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", PathlabWarning)
        try:
            out.host, scenario = host_and_scenario(*files)
            out.interval_objects = scenario.handle.interval_objects
        except ScenarioError as e:
            out.import_refused = tuple(str(a) for a in e.args)
    out.said = [str(w.message) for w in said]
    return out


def digest(file: str) -> str:
    h = hashlib.sha256()
    with open(file, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()
