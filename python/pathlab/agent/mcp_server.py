"""pathlab as an MCP server (the official MCP Python SDK, `pip install 'pathlab[mcp]'`): an agent
that reads a live host can ask what a change would do before making it. The tools are the
library's verbs, each with a JSON schema from its typed parameters and a JSON-able result:
`import_host`, `advise`, `run`, `compare` and `show`.

A tool reads only files under the folders the server is given (`--allow DIR`, symlinks followed
before the check, a folder's captures each checked); the shipped scenarios and captures are
always allowed, by name. Bad input is one line, as on the command line."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from pathlab import shipped
from pathlab.advisor.pipeline import advise as advise_on
from pathlab.api import PathlabWarning, ScenarioError
from pathlab.importer.host import import_host as host_of
from pathlab.study.compare import compare as compared
from pathlab.version import __version__

#: The per-interval tables a run's JSON holds: left out of `run`'s answer (an agent asks for
#: figures, not thousands of rows).
INTERVAL_TABLES = ("intervals", "device_intervals", "path_intervals", "adapter_intervals")

INSTRUCTIONS = """pathlab simulates how a host spreads I/O over its paths to storage (ESXi NMP/HPP, Linux
dm-multipath, native NVMe). Give `advise` a host's captures (esxcli listings and an esxtop -b capture,
multipath -ll with iostat -x or /proc/diskstats samples, nvme list-subsys) to learn what to change,
the commands, and the predicted gain; `import_host` shows what pathlab read of them; `run`, `compare`
and `show` work on scenario files or shipped scenarios (c1-vmax-1lun, ...). Shipped capture:
vmax-iops1000."""


class Allowed:
    """The folders a tool may read under, resolved (symlinks followed)."""

    def __init__(self, folders: Sequence[str | os.PathLike[str]]):
        self.folders = [Path(f).resolve() for f in folders]

    def scenario(self, name: str) -> str:
        """A scenario file to read: a shipped scenario by name, or a file under an allowed folder."""
        if name.removesuffix(".toml") in shipped.names():
            return str(shipped.path(name))
        return self.path(name)

    def captures(self, files: Sequence[str]) -> list[str]:
        """A host's captures to read: a shipped capture by name, or files and folders under an
        allowed folder. The files returned are the very ones the import reads (a folder expanded
        as the importer expands it), each checked, symlinks followed."""
        from pathlab.importer import capture_files_of

        shipped_names = len(files) == 1 and shipped.capture_files(files[0]) is not None and not Path(files[0]).exists()
        read = capture_files_of(files)
        if not shipped_names:
            for f in [*files, *read]:
                self.path(f)
        return read

    def path(self, name: str) -> str:
        resolved = Path(name).resolve()
        if not any(resolved == folder or folder in resolved.parents for folder in self.folders):
            where = ", ".join(map(str, self.folders)) or "none given"
            raise ToolError(f"{name}: outside the folders this server may read ({where}); the server's --allow "
                            "names them (shipped scenarios and captures are allowed by name)")
        return name


@contextmanager
def _answering(said: list[str]) -> Iterator[None]:
    """Warnings collected for the answer, and bad input as one line (`file: field: message`)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PathlabWarning)
        try:
            yield
        except ScenarioError as e:
            file, field, message = e.args
            raise ToolError(f"{file}: {field}: {message}" if field else f"{file}: {message}") from None
        finally:
            said.extend(dict.fromkeys(str(w.message) for w in caught if issubclass(w.category, PathlabWarning)))


def _with_warnings(compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    said: list[str] = []
    with _answering(said):
        answer = compute()
    return {**answer, "warnings": said}


def server(allow: Sequence[str | os.PathLike[str]] = ()) -> MCPServer:
    """The MCP server of pathlab's tools, reading files under `allow` only."""
    allowed = Allowed(allow)
    mcp = MCPServer("pathlab", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING")

    @mcp.tool()
    def import_host(files: list[str]) -> dict[str, Any]:
        """Read a host's captures (ESXi esxcli listings and esxtop -b; multipath -ll with iostat -x or
        /proc/diskstats; nvme list-subsys), a folder of them, or a shipped capture's name
        (vmax-iops1000): the host's stack, whether its load was measured, what the captures show,
        the values assumed, and the scenario pathlab built (TOML)."""
        def compute() -> dict[str, Any]:
            host = host_of(*allowed.captures(files))
            return {"stack": host.stack, "measured_load": host.measured_load,
                    "devices": len(host.scenario.devices),
                    "findings": [{"title": f.title, "evidence": f.evidence, "normal": f.normal} for f in host.findings],
                    "assumptions": [{"field": a.field, "assumed": a.assumed} for a in host.assumptions],
                    "scenario_toml": host.to_toml()}
        return _with_warnings(compute)

    @mcp.tool()
    def advise(files: list[str], objective: Literal["balanced", "throughput", "latency"] = "balanced",
               seeds: int = 3, duration: str = "auto", warmup: str = "5s", variant: str | None = None,
               set: list[str] | None = None, host: str | None = None) -> dict[str, Any]:  # noqa: A002 - mirrors --set
        """What to change on a host and what it gains: findings, every candidate setting simulated on
        the host over seeds (mean and 95% interval, gain and its range over the assumed values), the
        recommendation with the commands to paste, and what was assumed. `files`: a host's captures
        (as import_host takes them), or one scenario file or shipped scenario name. `duration`: each
        run's simulated length (e.g. "2s"), or "auto"; `set`: overrides as key=value. A scenario whose
        hosts share a LUN (e.g. srdf-metro-cluster-50km) is advised as a cluster, every host simulated
        at once, each host's figures under `host_figures`; `host`: narrow the answer to one of them."""
        def compute() -> dict[str, Any]:
            subject = allowed.captures(files) if not _one_scenario(files) else allowed.scenario(files[0])
            advice = advise_on(subject, objective=objective, seeds=seeds, duration=duration, warmup=warmup,
                                    variant=variant, set=set or [], host=host)
            return {"recommendation_text": "\n".join(_recommendation(advice)), **advice.to_dict()}
        return _with_warnings(compute)

    @mcp.tool()
    def run(scenario: str, variant: str | None = None, set: list[str] | None = None,  # noqa: A002
            seed: int | None = None, duration: str | None = None, warmup: str | None = None) -> dict[str, Any]:
        """Simulate a scenario (a file or a shipped scenario's name, e.g. c1-vmax-1lun): the run's
        summary (vdbench's figures and percentiles) and esxtop's figures per device, path, adapter
        and array port. `duration`/`warmup` shorten or lengthen the run (e.g. "2s")."""
        def compute() -> dict[str, Any]:
            length = [f'run.{k}="{v}"' for k, v in (("duration", duration), ("warmup", warmup)) if v is not None]
            from pathlab.loading import load

            loaded = load(allowed.scenario(scenario), variant, [*(set or []), *length], seed)  # its warnings said
            data = loaded.run(path_intervals=False).data
            return {k: v for k, v in data.items() if k not in INTERVAL_TABLES}
        return _with_warnings(compute)

    @mcp.tool()
    def compare(scenario: str, lineup: bool = False, variant: str | None = None, set: list[str] | None = None,  # noqa: A002
                seed: int | None = None, seeds: int | None = None) -> dict[str, Any]:
        """Settings of a scenario side by side on the same I/Os: its variants, or with `lineup` every
        stack's policies (from `variant`); with `seeds` (2 or more) over that many seeds, with 95%
        intervals. Keep runs short with set=["run.duration=2s"]."""
        def compute() -> dict[str, Any]:
            done = compared(allowed.scenario(scenario), lineup=lineup, variant=variant, set=set or [],
                                   seed=seed, seeds=seeds)
            return {"kind": done.kind, **_plain(done.to_dict())}
        return _with_warnings(compute)

    @mcp.tool()
    def show(what: Literal["devices", "paths"], scenario: str,
             style: Literal["esxi", "linux", "linux-l", "nvme", "nvme-topology", "json"] = "esxi",
             variant: str | None = None, set: list[str] | None = None,  # noqa: A002
             at: str = "0s", host: str | None = None) -> str:
        """The scenario's devices or paths as the host's own tools print them: esxcli storage nmp
        device/path list (esxi), multipath -ll (linux; -l: linux-l), nvme list-subsys (nvme), nvme
        show-topology, or JSON; at simulated time `at` (e.g. "60s", after a fault). What the command
        line says on stderr follows the listing, a `pathlab: warning:` line each."""
        said: list[str] = []
        with _answering(said):
            from pathlab.loading import load
            from pathlab.output.configuration import configuration, text

            shown = text(configuration(load(allowed.scenario(scenario), variant, set or []), what, style, at, host))
        return shown + "".join(f"pathlab: warning: {w}\n" for w in said)

    return mcp


def _one_scenario(files: Sequence[str]) -> bool:
    """Whether advise is given one scenario (a .toml file or a shipped scenario's name)."""
    return len(files) == 1 and (files[0].endswith(".toml") or files[0].removesuffix(".toml") in shipped.names())


def _recommendation(advice: Any) -> list[str]:
    from pathlab.output.advice import recommendation

    return recommendation(advice)


def _plain(document: Any) -> dict[str, Any]:
    """A JSON document whose NaN figures (a replicated table's empty cells) are None."""
    import json
    import math

    def clean(v: Any) -> Any:
        if isinstance(v, float) and math.isnan(v):
            return None
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items()}
        if isinstance(v, list):
            return [clean(x) for x in v]
        return v

    return clean(json.loads(json.dumps(document, default=str)))


def serve(allow: Sequence[str | os.PathLike[str]]) -> None:
    """Serves the tools over stdio until the client closes it (or goes away, or Ctrl-C)."""
    try:
        server(allow).run("stdio")
    except KeyboardInterrupt:
        pass
    except BaseExceptionGroup as group:
        _, rest = group.split((BrokenPipeError, ConnectionResetError))
        if rest is not None:
            raise
