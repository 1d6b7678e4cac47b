"""pathlab: a laboratory for host multipathing.

Ask what to change on a host, from its captures or a scenario::

    import pathlab
    host = pathlab.import_host("vmax-iops1000")       # a shipped capture, or your host's files
    advice = pathlab.advise(host)
    advice.recommendation.to, advice.commands, advice.candidates_table

Load a scenario, override what you want, run it, read the results as typed objects and DataFrames::

    scenario = pathlab.Scenario.load("scenarios/c1-vmax-1lun.toml", variant="iops1")
    result = scenario.run()
    result.summary          # vdbench figures, typed (summary.p99_ms; to_pandas() for a Series)
    result.paths            # esxtop figures per path

Compare settings (`pathlab.compare`) and sweep a grid (`pathlab.sweep`) the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pathlab.api import PathlabWarning, Result, Scenario, ScenarioError, policies, run_many
from pathlab.version import __version__ as __version__

if TYPE_CHECKING:
    from pathlab.advisor.advice import Advice
    from pathlab.advisor.pipeline import advise
    from pathlab.importer.cluster import Cluster, import_cluster
    from pathlab.importer.host import Host, import_host
    from pathlab.progress import Progress
    from pathlab.study.compare import Comparison, compare
    from pathlab.study.sweep_pipeline import Sweep, sweep

#: The library's pipelines, imported when first used: `import pathlab` stays quick (no pandas,
#: no importers or advisor until asked for).
_LAZY = {
    "Advice": "pathlab.advisor.advice", "advise": "pathlab.advisor.pipeline",
    "import_host": "pathlab.importer.host", "Host": "pathlab.importer.host",
    "import_cluster": "pathlab.importer.cluster", "Cluster": "pathlab.importer.cluster",
    "compare": "pathlab.study.compare", "Comparison": "pathlab.study.compare",
    "sweep": "pathlab.study.sweep_pipeline", "Sweep": "pathlab.study.sweep_pipeline",
    "Progress": "pathlab.progress",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'pathlab' has no attribute {name!r}")


__all__ = ["Advice", "Cluster", "Comparison", "Host", "PathlabWarning", "Progress", "Result", "Scenario", "ScenarioError",
           "Sweep", "advise", "compare", "import_cluster", "import_host", "policies", "run_many", "sweep"]
