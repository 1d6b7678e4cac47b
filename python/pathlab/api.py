"""The Python API: scenarios, runs and their results."""

from __future__ import annotations

import os
import stat
import threading
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pathlab import _core
from pathlab._core import ScenarioError
from pathlab.toml_values import flatten, to_toml

if TYPE_CHECKING:  # pandas is imported where tables are built: `import pathlab` stays quick
    import pandas as pd

    from pathlab import results
    from pathlab.devices import Device

#: Seeds are 64-bit unsigned integers, as the engine's random streams take them.
MAX_SEED = 2**64 - 1

#: Simulated time advanced per step, as a fraction of the run: granularity of progress reports.
_STEPS = 200

ProgressCallback = Callable[[float], None]

_T = TypeVar("_T")


def regular_file(path: str | os.PathLike[str]) -> None:
    """Refuses a name that is no regular file: missing, a folder, or a device or FIFO, which
    would be read for ever (/dev/zero) or block (a FIFO nobody writes)."""
    name = str(path)
    if not name.strip():
        raise ScenarioError(name, "", "no file name given")
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        from pathlab.shipped import suggestion

        raise ScenarioError(name, "", f"no such file{suggestion(name)}") from None
    except OSError as e:
        raise ScenarioError(name, "", e.strerror or "cannot be read") from None
    if stat.S_ISDIR(mode):
        raise ScenarioError(name, "", "is a directory, not a file")
    if not stat.S_ISREG(mode):
        raise ScenarioError(name, "", "is not a regular file (a device, a FIFO or a socket): give a file")


def _read(path: str | os.PathLike[str]) -> str:
    """Reads a scenario file, turning every way it can be unreadable into a ScenarioError."""
    name = str(path)
    regular_file(path)
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError(name, "", "no such file") from None
    except IsADirectoryError:
        raise ScenarioError(name, "", "is a directory, not a scenario file") from None
    except PermissionError:
        raise ScenarioError(name, "", "permission denied") from None
    except UnicodeDecodeError as e:
        raise ScenarioError(name, "", f"not UTF-8 text ({e.reason} at byte {e.start})") from None


def _overrides(values: Mapping[str, Any] | Iterable[str] | str | None) -> list[tuple[str, str]]:
    """Accepts {"policy.iops": 1}, {"policy": {"iops": 1}} (Python values), or
    ["policy.iops=1"] and "policy.iops=1" (as on the command line: TOML literals)."""
    if values is None:
        return []
    if isinstance(values, Mapping):
        pairs = []
        for key, value in flatten(values):
            try:
                pairs.append((key, to_toml(value)))
            except ValueError as e:
                raise ScenarioError("set", key, str(e)) from None
        return pairs
    if isinstance(values, str):
        values = [values]
    pairs = []
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ScenarioError("--set", item, "expected dotted.key=value, like policy.iops=1")
        if "\n" in value.strip() or "\r" in value.strip():
            # TOML would end the value at the line break and the text after it be lost (a line
            # end after the value, a script's CRLF, is only blank)
            raise ScenarioError("--set", key.strip(), f"{value.strip()[:40]!r} runs over a line break: give one "
                                "key=value per --set, on one line")
        pairs.append((key.strip(), value.strip()))
    return pairs


def _check_seed(seed: Any, file: str) -> None:
    if seed is None:
        return
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ScenarioError(file, "seed", f"{seed!r}: allowed a whole number from 0 to {MAX_SEED}")


@dataclass(frozen=True)
class Fault:
    """A fault on a run's timeline, in seconds of simulated time from the start (warm-up included)."""

    #: As a scenario's `[[faults]]` writes it: congestion, path_down, ...
    kind: str
    #: What it hits: a path, port, adapter, device or array (an ALUA change and a failover say to what).
    target: str
    start_s: float
    #: None for a moment (a path coming back, a failover); a window without `until` ends with the run.
    end_s: float | None


#: The fewest overrides of a scenario whose tables `with_set(..., to_run=True)` keeps applied with
#: them (`_RunTables.applied_with`): reading and applying an override is about 2 µs, the kept
#: tables a second copy of the converted ones (63 MiB more on 32 hosts × 500 devices × 8 paths).
_APPLIED_AT_LEAST = 1000


class _RunTables:
    """A scenario's tables as the engine holds them for runs (`_core.run_tables`), converted by the
    first scenario loaded to be run from them and kept for every later one: the scenarios derived
    from one base (`with_set`, `with_seed`, `with_variant`) share this box. On 32 hosts × 500
    devices × 8 paths a conversion is about 0.13 s of CPU with the GIL held, made once instead of
    once per candidate, span end and pilot; the kept tables are about 50 MiB.

    It also keeps the tables with one scenario's variant and overrides applied (`applied_with`),
    for the scenarios loaded to be run with more overrides after them (`with_set`): a cluster
    fitted to its captures carries 32,000 fitted values (two a workload), read and applied once
    for its ranking's candidates and span ends, not once each (about 60 ms of each load)."""

    __slots__ = ("applied", "applying", "converted")

    def __init__(self) -> None:
        self.converted: _core.RunTables | None = None
        self.applied: tuple[tuple[str | None, tuple[tuple[str, str], ...]], _core.AppliedRunTables | None] | None = None
        # One thread applies while the other waits for its tables (a ranking's two cores load their
        # first candidates at once): two copies of 63 MiB made at once would raise the ranking's peak.
        self.applying = threading.Lock()

    def of(self, tables: Mapping[str, Any]) -> _core.RunTables:
        if self.converted is None:  # two threads may both convert: the same tables, either kept
            self.converted = _core.run_tables(dict(tables))
        return self.converted

    def applied_with(self, tables: Mapping[str, Any], file: str, variant: str | None,
                     overrides: tuple[tuple[str, str], ...]) -> tuple[_core.AppliedRunTables | None, tuple[tuple[str, str], ...]]:
        """The tables with `variant` and the first of `overrides` applied, and the overrides left to
        apply after them: the kept tables where their overrides begin `overrides` (a cluster's
        pilots load its fitted values, its ranking those and its run length: one set of tables for
        both, not one made again at each turn from one to the other), else made for all of them and
        kept. None where the overrides do not read back as themselves from their `key=value` form
        (a mapping's key with `=` or blanks in it), which `with_set` reads them from."""
        with self.applying:
            kept = self.applied
            if kept is None or kept[0][0] != variant or overrides[:len(kept[0][1])] != kept[0][1]:
                self.applied = None  # the last scenario's let go before these are made
                as_given = tuple(_overrides([f"{k}={v}" for k, v in overrides])) == overrides
                applied = _core.applied_run_tables(self.of(tables), file, variant, list(overrides)) if as_given else None
                self.applied = kept = ((variant, overrides), applied)
            return kept[1], overrides[len(kept[0][1]):]

@dataclass(frozen=True)
class Scenario:
    """A checked scenario: the base file, one variant, and the user's overrides."""

    handle: _core.ScenarioHandle
    text: str = field(repr=False)
    overrides: tuple[tuple[str, str], ...] = ()
    seed: int | None = None
    #: The tables as Python values where the scenario was built from them (an imported host's,
    #: `from_values`), else None: variants and overrides rebuild it from them, not from `text`.
    tables: Mapping[str, Any] | None = field(default=None, repr=False, compare=False, hash=False)
    #: `tables` converted for runs, shared by the scenarios derived from the same tables.
    run_tables: _RunTables = field(default_factory=_RunTables, repr=False, compare=False, hash=False)

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str],
        variant: str | None = None,
        set: Mapping[str, Any] | Iterable[str] | None = None,  # noqa: A002 - mirrors --set
        seed: int | None = None,
    ) -> Scenario:
        return cls.from_text(_read(path), str(path), variant=variant, set=set, seed=seed)

    @classmethod
    def from_text(
        cls,
        text: str,
        file: str = "<scenario>",
        variant: str | None = None,
        set: Mapping[str, Any] | Iterable[str] | None = None,  # noqa: A002
        seed: int | None = None,
        to_run: bool = False,
    ) -> Scenario:
        """`to_run`: loaded to be run at once (`with_set`)."""
        pairs = tuple(_overrides(set))
        _check_seed(seed, file)
        handle = _core.load_scenario(text, file, variant, list(pairs), seed, to_run)
        return cls(handle, text, pairs, seed)

    @classmethod
    def from_values(
        cls,
        tables: Mapping[str, Any],
        text: str,
        file: str,
        variant: str | None = None,
        set: Mapping[str, Any] | Iterable[str] | None = None,  # noqa: A002
        seed: int | None = None,
        to_run: bool = False,
        run_tables: _RunTables | None = None,
    ) -> Scenario:
        """A scenario from its tables as Python values (what `text`, its annotated form, parses
        to), checked as a file is, without parsing the text: an imported host's. `to_run`: loaded
        to be run at once (`with_set`), from the tables converted once for runs (`run_tables`, the
        box of the scenario it derives from): what a listing printed of each device is left out
        (no run reads it), and its `listed` and `unsimulated` give none of it."""
        pairs = tuple(_overrides(set))
        _check_seed(seed, file)
        boxed = run_tables or _RunTables()

        def load() -> _core.ScenarioHandle:
            if to_run:
                return _core.load_scenario_run_tables(boxed.of(tables), file, variant, list(pairs), seed)
            return _core.load_scenario_values(dict(tables), file, variant, list(pairs), seed)

        return cls(_values_loaded(file, load), text, pairs, seed, tables, boxed)

    def _again(self, variant: str | None, sets: list[str], to_run: bool = False) -> Scenario:
        """The same base (text or tables) and seed with this variant and these overrides."""
        if self.tables is not None:
            return Scenario.from_values(self.tables, self.text, self.file, variant, sets, self.seed, to_run,
                                        self.run_tables)
        return Scenario.from_text(self.text, self.file, variant, sets, self.seed, to_run)

    def __reduce__(self) -> tuple[Any, ...]:
        """A scenario pickles as what it was built from (its tables or text, variant, overrides and
        seed) and is checked again where it is unpickled: the engine's handle does not pickle (an
        imported host crosses from the process that read it, `importer/cluster.py`)."""
        return _rebuilt, (None if self.tables is None else dict(self.tables), self.text, self.file, self.variant,
                          [f"{k}={v}" for k, v in self.overrides], self.seed)

    def as_given(self, sets: list[str] | None = None) -> Scenario:
        """The base as given (text or tables), without variant or overrides but `sets`: what was
        imported, for `show` to tell what a variant or `--set` changed since."""
        return self._again(None, list(sets or []))

    def with_variant(self, variant: str | None) -> Scenario:
        """The same file and overrides with another variant."""
        return self._again(variant, [f"{k}={v}" for k, v in self.overrides])

    def with_set(self, values: Mapping[str, Any] | Iterable[str], to_run: bool = False) -> Scenario:
        """The same file, variant and seed with more overrides (dotted key to Python value, or
        `key=value` as `--set` takes them), applied after the scenario's own; a value is set whole
        at its key (a table replaces the table there, as `--set key={...}` does). `to_run`: loaded
        to be simulated at once (a ranking's candidate, or to read its `devices`): the checks that
        build the model (names across tables, faults, limits) are made when a simulation builds it,
        with the same errors, so its model is built once a simulation and not once more to load it
        (on 32 hosts × 500 devices × 8 paths a build is about a second)."""
        sets = set_strings(values)
        tables = self.tables
        if to_run and tables is not None and len(self.overrides) >= _APPLIED_AT_LEAST:
            # From the tables kept with this scenario's own overrides applied: only `sets` read and applied.
            applied, rest = _values_loaded(self.file, lambda: self.run_tables.applied_with(tables, self.file, self.variant,
                                                                                          self.overrides))
            if applied is not None:
                more = tuple(_overrides(sets))
                handle = _core.load_scenario_applied(applied, self.file, [*rest, *more], self.seed)
                return Scenario(handle, self.text, self.overrides + more, self.seed, tables, self.run_tables)
        return self._again(self.variant, [*(f"{k}={v}" for k, v in self.overrides), *sets], to_run)

    def with_seed(self, seed: int) -> Scenario:
        """The same scenario with another seed, not parsed and checked again (a ranking's runs of
        one setting over its seeds: a host of thousands of devices takes a tenth of a second to load),
        on the same engine handle (a cluster of 32 hosts × 500 devices × 8 paths is about 200 MiB of
        it): its runs are simulated with this seed (`_simulation`)."""
        _check_seed(seed, self.file)
        return Scenario(self.handle, self.text, self.overrides, seed, self.tables, self.run_tables)

    def _simulation(self, path_intervals: bool = True, runs: int = 1, responses: str = "devices") -> _core.SimulationHandle:
        """A fresh simulation of the scenario with its seed (the handle's own where none was given);
        `runs`: the simulations of this handle about to be made, this one with them (a ranking's
        seeds of one candidate, `run_many`): their model is built once and copied for each;
        `responses`: what the end reads of them, so what the run keeps ("devices", "hosts", "summary")."""
        return self.handle.simulation(path_intervals, self.seed, runs, responses)

    @property
    def timeline(self) -> list[str]:
        """What places events on the run's timeline as resolved (variant and overrides applied):
        "faults", "host pauses", "workload bursts", "array balancing"."""
        return self.handle.timeline

    @property
    def faults(self) -> list[Fault]:
        """The faults on the run's timeline as resolved (variant and overrides applied), in file
        order: what reports shade."""
        return [Fault(kind, target, start / 1e9, None if end is None else end / 1e9)
                for kind, target, start, end in self.handle.faults]

    @property
    def setting(self) -> str:
        """The policy and setting the devices start with, as an admin says it (`devices.in_force`)."""
        from pathlab.devices import in_force

        return in_force(self.devices)

    @property
    def name(self) -> str:
        return self.handle.name

    @property
    def file(self) -> str:
        return self.handle.file

    @property
    def variant(self) -> str | None:
        return self.handle.variant

    @property
    def variants(self) -> list[tuple[str, str]]:
        return self.handle.variants

    @property
    def description(self) -> str:
        return self.handle.description

    @property
    def source(self) -> str:
        return self.handle.source

    @property
    def published(self) -> dict[str, float]:
        return self.handle.published

    @property
    def tolerance(self) -> dict[str, float]:
        return self.handle.tolerance

    @property
    def explained(self) -> dict[str, str]:
        """Published figures the model knowingly does not match, with the reason."""
        return self.handle.explained

    @property
    def label(self) -> str:
        return f"{self.name}:{self.variant}" if self.variant else self.name

    def describe(self, at: str | int = 0) -> dict[str, Any]:
        """Devices and paths as esxcli / multipath show them, at simulated time `at` (ns, or a
        duration like "60s"; the run is simulated up to then). `linux` holds what `multipath -ll`
        needs besides: the adapters in SCSI host order and, per device, ALUA support and queueing."""
        try:
            at_ns = at if isinstance(at, int) else _core.parse_duration_ns(at)
        except ValueError as e:
            raise ScenarioError(self.file, "--at", str(e)) from None
        end = self.handle.end_ns
        if isinstance(at_ns, bool) or not isinstance(at_ns, int) or at_ns < 0:
            raise ScenarioError(self.file, "--at", f"{at!r}: a time from 0 to the end of the run ({end / 1e9:g} s)")
        if at_ns > end:
            warn(self.file, "--at", f"{at_ns / 1e9:g} s is past the end of the run: showing the state at its end "
                                    f"({end / 1e9:g} s)")
            at_ns = end
        sim = self._simulation()
        sim.run_until(at_ns)  # at 0 too: what happens at 0 s (a path the captures show failed) is the state at 0 s
        return sim.describe()

    @property
    def hosts(self) -> list[str]:
        """The hosts' names, `[host]` first (read from the scenario, nothing built)."""
        return list(self.handle.hosts)

    @property
    def esxcli(self) -> list[str]:
        """The esxcli commands the scenario runs on its hosts (claim rules, device settings)."""
        return self.handle.esxcli

    @property
    def listed(self) -> dict[tuple[str, str], dict[str, Any]]:
        """What a listing printed of each imported device (its `listed` table), by (host, device):
        `device` (its values) and `paths` (each path's, by path name), for `pathlab show`."""
        return {(host, name): {"device": own, "paths": paths} for host, name, own, paths in self.handle.listed}

    @property
    def unsimulated(self) -> list[dict[str, Any]]:
        """The devices a listing printed that the scenario does not simulate (`[[unsimulated]]`),
        in file order: `host`, `name`, `why` and `listed` (`device` and `paths` by their place),
        for `pathlab show` to print back as read."""
        return [{"host": host, "name": name, "why": why, "listed": {"device": own, "paths": paths}}
                for host, name, why, own, paths in self.handle.unsimulated]

    @property
    def devices(self) -> list[Device]:
        """Each device's resolved policy, status, host stack and array, as the run starts."""
        from pathlab.devices import from_engine

        return from_engine(self._simulation().devices())

    @property
    def warnings(self) -> list[tuple[str, str]]:
        """Legal settings that are probably not what was meant, as (field, message)."""
        return self.handle.warnings

    def run(self, progress: ProgressCallback | None = None, figures_only: bool = False,
            path_intervals: bool = True, device_rows: bool = False) -> Result:
        """Runs the scenario; `progress` is called with the fraction of simulated time done.
        `figures_only`: the result holds the summary and accounting alone (no per-object tables,
        no setups), for rankings over many runs of a large host; `device_rows`: the same and its
        hosts, their p99s and each device's host, rate and response (`cmds_s`, `gavg_ms`: a
        cluster's ranking, where each host's figures are its devices'). Without
        `path_intervals`, the result's `path_intervals` is empty (the largest table of a host of
        thousands of paths)."""
        return self._run(progress, figures_only, path_intervals, device_rows)

    def _run(self, progress: ProgressCallback | None, figures_only: bool, path_intervals: bool, device_rows: bool,
             runs: int = 1, rows: Mapping[str, Sequence[str]] | None = None) -> Result:
        """`run`, one of `runs` simulations of this handle about to be made (`_simulation`); `rows`:
        the tables named (`paths`, `devices`...) with only the fields named in each row (a pilot's
        passes read 10 of a path row's 28 fields: 128,000 rows on 32 hosts × 500 devices × 8 paths)."""
        # A figures-only result has no tables: its per-path rows are not built either. Its end
        # reads no device's p99 (device rows: each host's; figures alone: none), so none is kept.
        responses = "hosts" if device_rows else "summary" if figures_only else "devices"
        sim = self._simulation(path_intervals and not (figures_only or device_rows), runs, responses)
        end = self.handle.end_ns
        step = max(1, end // _STEPS)
        t = 0
        while t < end:
            t = min(end, t + step)
            sim.run_until(t)
            if progress:
                progress(t / end)
        data, setups = sim.finish(figures_only, device_rows,
                                  None if rows is None else {table: list(fields) for table, fields in rows.items()})
        from pathlab.devices import from_engine

        return Result(data, sim.events, from_engine(setups))


def _values_loaded(file: str, load: Callable[[], _T]) -> _T:
    """`load()`, a load from tables as Python values, with a value no TOML holds (a whole number
    past 64 bits) refused as ScenarioError naming its field, in one line."""
    try:
        return load()
    except TypeError as e:
        field, _, said = str(e).partition(": ")
        if not said.endswith("is beyond a TOML integer"):
            raise
        raise ScenarioError(file, field, f"{said} (at most {2**63 - 1:,})") from None


def set_strings(values: Mapping[str, Any] | Iterable[str]) -> list[str]:
    """`Scenario.with_set`'s values as `key=value` overrides (a dotted key to a Python value, or
    `key=value` as `--set` takes them)."""
    return [f"{k}={to_toml(v)}" for k, v in values.items()] if isinstance(values, Mapping) else list(values)


def _rebuilt(tables: dict[str, Any] | None, text: str, file: str, variant: str | None, sets: list[str],
             seed: int | None) -> Scenario:
    """A pickled scenario, built again as it was (`Scenario.__reduce__`)."""
    if tables is not None:
        return Scenario.from_values(tables, text, file, variant, sets, seed)
    return Scenario.from_text(text, file, variant, sets, seed)


def run_many(
    scenarios: Sequence[Scenario],
    progress: Callable[[int, float], None] | None = None,
    workers: int | None = None,
    figures_only: bool = False,
    path_intervals: bool = True,
    device_rows: bool = False,
    rows: Mapping[str, Sequence[str]] | None = None,
) -> list[Result]:
    """Runs scenarios side by side on the machine's cores; results come back in input order
    (`figures_only`, `path_intervals` and `device_rows` as `Scenario.run` takes them, `rows` as `_run`)."""
    workers = workers or min(len(scenarios), os.cpu_count() or 1) or 1
    # The runs on one engine handle (a scenario's seeds, `with_seed`) share one build of its model, copied for each.
    on_handle = Counter(id(s.handle) for s in scenarios)

    def one(index: int) -> Result:
        report = (lambda f: progress(index, f)) if progress else None
        s = scenarios[index]
        return s._run(report, figures_only, path_intervals, device_rows, on_handle[id(s.handle)], rows)

    if workers == 1:  # one run (`pathlab run`): no pool, no thread
        return [one(i) for i in range(len(scenarios))]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one, range(len(scenarios))))


def _table(key: str, doc: str) -> Any:
    """A DataFrame view of one list of the result."""
    def view(self: Result) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(self.data[key])

    return property(view, doc=doc)


class Result:
    """What a run measured. `data` is the result as the engine gives it (dicts and lists, what
    `pathlab run --format json` writes); `summary`, `device_rows`, `path_rows`, `events` and
    `application` are typed objects (`pathlab.results`), the other properties DataFrame views."""

    def __init__(self, data: dict[str, Any], engine_events: int = 0, setups: Sequence[Device] = ()):
        self.data = data
        #: Events the engine processed (for benchmarks; not a figure of the run).
        self.engine_events = engine_events
        #: Each device's resolved policy, status, host stack and array at the end of the run.
        self.setups = list(setups)

    def __repr__(self) -> str:
        s = self.data["summary"]
        variant = f":{self.data['variant']}" if self.data["variant"] else ""
        return (
            f"<pathlab.Result {self.data['scenario']}{variant} seed={self.data['seed']}: "
            f"{s['iops']:,.0f} I/O/s, {s['resp_ms']:.3f} ms mean, {s['p99_ms']:.3f} ms p99, "
            f"{s['failed']} failed>"
        )

    def _repr_html_(self) -> str:
        """A notebook shows the run's label and headline figures, then its summary as a table."""
        from html import escape

        return f"<p>{escape(repr(self).strip('<>'))}</p>" + self.summary._repr_html_()

    def to_json(self) -> str:
        import json

        return json.dumps(self.data, indent=2)

    @cached_property
    def summary(self) -> results.Summary:
        """The vdbench figures and percentiles of the measurement window, by attribute or name
        (`summary.to_pandas()` is the Series)."""
        from pathlab import results

        return results.summary(self.data)

    @cached_property
    def device_rows(self) -> tuple[results.DeviceFigures, ...]:
        """Each device's esxtop figures, policy and working paths (`devices` is the DataFrame)."""
        from pathlab import results

        return results.devices(self.data)

    @cached_property
    def path_rows(self) -> tuple[results.PathFigures, ...]:
        """Each path's esxtop figures, states and target (`paths` is the DataFrame)."""
        from pathlab import results

        return results.paths(self.data)

    @cached_property
    def events(self) -> tuple[results.HostEvent, ...]:
        """What the host saw happen to its paths and devices, in time order."""
        from pathlab import results

        return results.events(self.data)

    @cached_property
    def application(self) -> results.Application:
        """What the application saw: each device's and host's longest stall and failed I/Os, and
        how each came back from each fault (back to full rate, failed back)."""
        from pathlab import results

        return results.application(self.data)

    devices = _table("devices", "Esxtop figures per device, with its SATP, policy and working paths.")
    paths = _table("paths", "Esxtop figures per path, with its ALUA state, target and errors.")
    adapters = _table("adapters", "Esxtop figures per host adapter.")
    ports = _table("ports", "Commands and busy time per array port.")
    raid_groups = _table("raid_groups", "Disk operations, utilisation, read hits and destages per RAID group.")
    write_caches = _table("write_caches", "Size, watermarks, mean dirty share and forced-flush waits per write cache.")
    intervals = _table("intervals", "Vdbench's interval lines.")
    path_intervals = _table("path_intervals", "Esxtop figures per path and interval.")
    device_intervals = _table("device_intervals", "Esxtop figures per device and interval.")
    adapter_intervals = _table("adapter_intervals", "Esxtop figures per adapter and interval.")


class PathlabWarning(UserWarning):
    """A legal setting that is probably not what was meant."""


def warn(file: str, field: str, message: str) -> None:
    """Warns about a setting: the CLI prints it as one line on stderr."""
    warnings.warn(f"{file}: {field}: {message}", PathlabWarning, stacklevel=3)


def policies() -> list[dict[str, Any]]:
    """Every policy with its parameters, defaults and valid ranges."""
    return _core.policy_catalog()


def policy_choices(policy: str, parameter: str) -> list[str]:
    """The values a policy's parameter allows, as the catalogue lists them (`iopolicy` of nvme:
    numa, round-robin, queue-depth)."""
    return next(q["choices"] for p in policies() if p["name"] == policy for q in p["params"] if q["name"] == parameter)
