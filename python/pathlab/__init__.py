"""pathlab: a laboratory for host multipathing.

Load a scenario, override what you want, run it, read the results as typed objects and DataFrames::

    import pathlab
    scenario = pathlab.Scenario.load("scenarios/c1-vmax-1lun.toml", variant="iops1")
    result = scenario.run()
    result.summary          # vdbench figures, typed (summary.p99_ms; to_pandas() for a Series)
    result.paths            # esxtop figures per path
"""

from pathlab.api import PathlabWarning, Result, Scenario, ScenarioError, policies, run_many
from pathlab.version import __version__ as __version__

__all__ = ["PathlabWarning", "Result", "Scenario", "ScenarioError", "policies", "run_many"]
