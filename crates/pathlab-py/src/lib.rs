//! Thin PyO3 bindings: opaque handles over the core types and one place that maps errors.
//! No model logic lives here; the Python package documents and shapes the API.

mod errors;
mod esxtop_columns;
mod from_python;
mod to_python;

use errors::{run_error, scenario_error, ScenarioError};
use pathlab_sim::model::Model;
use pathlab_sim::observe::responses_kept::ResponseScope;
use pathlab_sim::scenario::fault_windows::fault_windows;
use pathlab_sim::scenario::schema::ListedValues;
use pathlab_sim::scenario::{parse_override_value, AppliedTables};
use pathlab_sim::{run, Scenario, Simulation};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::collections::BTreeMap;
use std::sync::Mutex;
use to_python::{to_python, to_python_rows, RowFields};

/// A parsed and checked scenario (one variant and the user's overrides applied).
#[pyclass(module = "pathlab._core", frozen)]
struct ScenarioHandle {
    inner: Scenario,
    /// The model as built, kept for the simulations a caller said are coming (`simulation`'s
    /// `runs`), with how many more will take it: the last takes it, the others a copy.
    built: Mutex<Option<(Model, usize)>>,
}

impl ScenarioHandle {
    fn new(inner: Scenario) -> Self {
        ScenarioHandle { inner, built: Mutex::new(None) }
    }

    /// The model for one simulation: the one kept from an earlier build (a copy while more
    /// simulations are to take it), else built, and kept for `runs - 1` more when `runs` > 1.
    fn model(&self, runs: usize) -> PyResult<Model> {
        let mut built = self.built.lock().map_err(|_| PyRuntimeError::new_err("scenario lock poisoned"))?;
        match built.take() {
            Some((model, left)) if left > 1 => {
                let copy = model.clone();
                *built = Some((model, left - 1));
                Ok(copy)
            }
            Some((model, _)) => Ok(model),
            None => {
                let model = run::model(&self.inner).map_err(scenario_error)?;
                if runs > 1 {
                    *built = Some((model.clone(), runs - 1));
                }
                Ok(model)
            }
        }
    }
}

#[pymethods]
impl ScenarioHandle {
    #[getter]
    fn name(&self) -> String {
        self.inner.name().to_string()
    }

    #[getter]
    fn file(&self) -> String {
        self.inner.file.clone()
    }

    #[getter]
    fn description(&self) -> String {
        self.inner.spec.description.clone()
    }

    #[getter]
    fn source(&self) -> String {
        self.inner.spec.source.clone()
    }

    #[getter]
    fn variant(&self) -> Option<String> {
        self.inner.variant.clone()
    }

    /// Every variant of the file as (name, description), in file order.
    #[getter]
    fn variants(&self) -> Vec<(String, String)> {
        self.inner.variants.iter().map(|(n, v)| (n.clone(), v.description.clone())).collect()
    }

    #[getter]
    fn published(&self) -> BTreeMap<String, f64> {
        self.inner.published.clone()
    }

    #[getter]
    fn tolerance(&self) -> BTreeMap<String, f64> {
        self.inner.tolerance.clone()
    }

    #[getter]
    fn explained(&self) -> BTreeMap<String, String> {
        self.inner.explained.clone()
    }

    /// The hosts' names, `[host]` first then `[[hosts]]` in file order (as a description lists
    /// them, without building the network).
    #[getter]
    fn hosts(&self) -> Vec<String> {
        let spec = &self.inner.spec;
        std::iter::once(&spec.host).chain(&spec.hosts).map(|h| h.name.clone()).collect()
    }

    /// The esxcli commands the scenario runs on its hosts, in order (`esxcli = [...]`).
    #[getter]
    fn esxcli(&self) -> Vec<String> {
        self.inner.spec.esxcli.clone()
    }

    /// What each device's listing printed (its `listed` table), for `pathlab show` to print
    /// back as read: (host, device, the device's values, each path's values), devices that
    /// have one, in file order.
    #[getter]
    #[allow(clippy::type_complexity)]
    fn listed(&self) -> Vec<(String, String, ListedValues, BTreeMap<String, ListedValues>)> {
        let spec = &self.inner.spec;
        spec.devices
            .iter()
            .filter(|d| !d.listed.device.is_empty() || !d.listed.paths.is_empty())
            .map(|d| {
                let host = d.host.clone().unwrap_or_else(|| spec.host.name.clone());
                (host, d.name.clone(), d.listed.device.clone(), d.listed.paths.clone())
            })
            .collect()
    }

    /// The devices a listing printed that the scenario does not simulate (`[[unsimulated]]`):
    /// (host, device, why, the device's values, each path's values by its place), in file order.
    #[getter]
    #[allow(clippy::type_complexity)]
    fn unsimulated(&self) -> Vec<(String, String, String, ListedValues, BTreeMap<String, ListedValues>)> {
        let spec = &self.inner.spec;
        spec.unsimulated
            .iter()
            .map(|u| {
                let host = u.host.clone().unwrap_or_else(|| spec.host.name.clone());
                (host, u.name.clone(), u.why.clone(), u.listed.device.clone(), u.listed.paths.clone())
            })
            .collect()
    }

    /// Legal settings that are probably not what was meant, as (field, message).
    #[getter]
    fn warnings(&self) -> Vec<(String, String)> {
        self.inner.warnings.clone()
    }

    /// What sets each device apart besides its policy and paths, as the scenario resolved it
    /// (variant and overrides applied), one entry per device in file order: (name, its device
    /// table without name and LUN, every workload that drives it and every replication group it
    /// is in, each without its name and device list). Equal texts are equal settings: the
    /// advisor pools devices alike in everything (`pathlab.advisor.alike`).
    #[getter]
    fn device_settings(&self) -> Vec<(String, String, Vec<String>)> {
        let spec = &self.inner.spec;
        // One pass over the workloads and groups, each text given to the devices it names
        // (a name look-up per device and workload is quadratic on a host of thousands); keyed
        // by the entry's place, so a name listed twice in one entry counts once.
        let mut with: BTreeMap<String, BTreeMap<usize, String>> = BTreeMap::new();
        let texts = spec
            .workloads
            .iter()
            .map(|w| {
                let mut w = w.clone();
                w.name.clear();
                (std::mem::take(&mut w.devices), format!("workload {w:?}"))
            })
            .chain(spec.replication.iter().map(|r| {
                let mut r = r.clone();
                r.name.clear();
                (std::mem::take(&mut r.devices), format!("replication {r:?}"))
            }));
        for (place, (devices, text)) in texts.enumerate() {
            for name in devices {
                with.entry(name).or_default().insert(place, text.clone());
            }
        }
        spec.devices
            .iter()
            .map(|d| {
                let mut table = d.clone();
                table.name.clear();
                table.lun = 0;
                table.listed = Default::default(); // what a listing printed sets nothing apart
                let mut driven_by: Vec<String> =
                    with.get(&d.name).map(|w| w.values().cloned().collect()).unwrap_or_default();
                driven_by.sort();
                (d.name.clone(), format!("{table:?}"), driven_by)
            })
            .collect()
    }

    /// What places events on the run's timeline, as the scenario resolved it (variant and
    /// overrides applied, whatever their shape): "faults", "host pauses", "workload bursts",
    /// "array balancing", each named once when present. A run shorter than their periods shows
    /// one of them or none instead of their share (the advisor keeps the full length then).
    #[getter]
    fn timeline(&self) -> Vec<&'static str> {
        let spec = &self.inner.spec;
        let present = [
            ("faults", !spec.faults.is_empty()),
            ("host pauses", std::iter::once(&spec.host).chain(&spec.hosts).any(|h| h.pauses.is_some())),
            ("workload bursts", spec.workloads.iter().any(|w| w.burst.is_some())),
            ("array balancing", spec.arrays.iter().any(|a| a.balance.is_some())),
        ];
        present.into_iter().filter(|(_, on)| *on).map(|(name, _)| name).collect()
    }

    /// The faults as the scenario resolved them (variant and overrides applied), in file
    /// order: (kind, what it hits, start ns, end ns); the end is `None` for a moment (a path
    /// coming back). A window without `until` ends where a later `path_up`/`port_up` brings its
    /// path or port back, else at the run's end. Reports shade them.
    #[getter]
    fn faults(&self) -> Vec<(&'static str, String, u64, Option<u64>)> {
        let windows = fault_windows(&self.inner.spec.faults, self.end_ns());
        windows.into_iter().map(|w| (w.kind, w.target, w.start_ns, w.end_ns)).collect()
    }

    /// End of the measurement window in simulated nanoseconds.
    #[getter]
    fn end_ns(&self) -> u64 {
        self.inner.spec.run.warmup.0 + self.inner.spec.run.duration.0
    }

    /// The objects that get a row of interval figures each (host, devices, paths, adapters): with
    /// `MAX_INTERVAL_ROWS`, how short the scenario's interval may be.
    #[getter]
    fn interval_objects(&self) -> PyResult<u64> {
        pathlab_sim::run::interval_objects(&self.inner).map_err(scenario_error)
    }

    /// A fresh simulation of the scenario. Without `path_intervals`, it builds no interval rows
    /// per path (the advisor's pilot and findings read none: on 5,000 devices × 8 paths they are
    /// 30 MB of the result's 54), and its result's `path_intervals` is empty. `seed`: another
    /// seed than the scenario's, the same simulation as `with_seed(seed)`'s without copying the
    /// scenario (a ranking's runs of one candidate over its seeds). `runs`: how many simulations
    /// of this scenario (this one with them) the caller is about to make: the model is built once
    /// for them, kept until the last takes it, and copied for the others (`run::model`: a copy is
    /// the model built again, so each is the same simulation as with `runs=1`).
    /// The build (or copy) runs without the GIL: a cluster's model takes about half a second,
    /// and another thread's run steps on meanwhile (a ranking's runs go side by side).
    /// `responses`: what its end reads of the responses beyond the summary's, and so what it
    /// keeps: "devices" (every device's p99: `finish()`), "hosts" (each host's:
    /// `finish(device_rows=True)`) or "summary" (`finish(figures_only=True)`); an end reading
    /// more raises RuntimeError.
    #[pyo3(signature = (path_intervals=true, seed=None, runs=1, responses="devices"))]
    fn simulation(
        &self,
        py: Python<'_>,
        path_intervals: bool,
        seed: Option<u64>,
        runs: usize,
        responses: &str,
    ) -> PyResult<SimulationHandle> {
        let scope = match responses {
            "devices" => ResponseScope::Devices,
            "hosts" => ResponseScope::Hosts,
            "summary" => ResponseScope::Summary,
            other => {
                return Err(PyValueError::new_err(format!(
                    "responses: {other:?} is not one of \"devices\", \"hosts\", \"summary\""
                )))
            }
        };
        let seed = seed.unwrap_or(self.inner.spec.run.seed);
        let sim = py.detach(|| -> PyResult<Simulation> {
            let sim = run::simulation_keeping(&self.inner, self.model(runs)?, seed, scope).map_err(scenario_error)?;
            Ok(if path_intervals { sim } else { sim.without_path_intervals() })
        })?;
        Ok(SimulationHandle {
            inner: Mutex::new(Some(sim)),
            events: std::sync::atomic::AtomicU64::new(0),
            file: self.inner.file.clone(),
        })
    }
}

/// A running simulation: advance it step by step (for progress), then finish it.
#[pyclass(module = "pathlab._core", frozen)]
struct SimulationHandle {
    inner: Mutex<Option<Simulation>>,
    /// Events the engine processed, once finished (the benchmark's events per second).
    events: std::sync::atomic::AtomicU64,
    /// The scenario's file, for errors the run itself finds in the input.
    file: String,
}

impl SimulationHandle {
    fn with<T>(&self, f: impl FnOnce(&mut Simulation) -> T) -> PyResult<T> {
        let mut guard = self.inner.lock().map_err(|_| PyRuntimeError::new_err("simulation lock poisoned"))?;
        let sim = guard.as_mut().ok_or_else(|| PyRuntimeError::new_err("the simulation has already finished"))?;
        Ok(f(sim))
    }
}

#[pymethods]
impl SimulationHandle {
    #[getter]
    fn now_ns(&self) -> PyResult<u64> {
        self.with(|s| s.now())
    }

    /// Processes every event up to simulated time `until_ns`, without holding the GIL.
    fn run_until(&self, py: Python<'_>, until_ns: u64) -> PyResult<()> {
        py.detach(|| self.with(|s| s.run_until(until_ns)))
    }

    /// Events the engine processed, once the run is finished.
    #[getter]
    fn events(&self) -> u64 {
        self.events.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Devices and paths as esxcli / multipath would show them now (a dict, as the JSON reads).
    fn describe<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, &self.with(|s| s.describe())?)
    }

    /// Each device's resolved policy configuration, status, stack and array now (a list of dicts).
    fn devices<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, &self.with(|s| s.device_setups())?)
    }

    /// Drains the I/Os in flight, checks the accounting and returns the result (a dict, as its
    /// JSON reads: `pathlab run --format json` writes it), with each device's setup at the end
    /// (as `devices` gives it) beside it.
    /// With `figures_only`, the result holds the run's identity, `summary` and `accounting` and
    /// no per-object tables, and no setups come back (what a ranking over many runs reads: the
    /// tables of a host of thousands of paths are megabytes of objects to make per run); with
    /// `device_rows`, the same and `hosts`, `host_latency` (several hosts) and `devices` besides,
    /// each device's row its `host`, `cmds_s` and `gavg_ms` alone (a cluster's ranking reads each
    /// host's figures from them). Either way the engine builds nothing else (`finish_figures`): on
    /// 32 hosts × 500 devices × 8 paths the full result is 128,000 path rows and 16,000 devices'
    /// statuses, quantiles, intervals and setups. `rows`: the full result with each table named
    /// (`paths`, `devices`...) holding only the fields named in each row (a pilot's passes read 10
    /// of a path row's 28 fields); a table the result does not hold (an empty one is left out), a
    /// name that is no table of rows, or a field no row of a table holds raises ValueError, the
    /// first in the names' order; `rows` with `figures_only` or `device_rows` too, before the run
    /// is finished.
    #[pyo3(signature = (figures_only=false, device_rows=false, rows=None))]
    fn finish<'py>(
        &self,
        py: Python<'py>,
        figures_only: bool,
        device_rows: bool,
        rows: Option<BTreeMap<String, Vec<String>>>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let sim = self
            .inner
            .lock()
            .map_err(|_| PyRuntimeError::new_err("simulation lock poisoned"))?
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("the simulation has already finished"))?;
        if rows.is_some() && (figures_only || device_rows) {
            *self.inner.lock().map_err(|_| PyRuntimeError::new_err("simulation lock poisoned"))? = Some(sim);
            return Err(PyValueError::new_err("rows: the full result's tables, not with figures_only or device_rows"));
        }
        if figures_only || device_rows {
            let figures = py.detach(|| sim.finish_figures(device_rows)).map_err(|e| run_error(&self.file, e))?;
            self.events.store(figures.engine_events, std::sync::atomic::Ordering::Relaxed);
            return Ok((to_python(py, &figures)?, PyList::empty(py).into_any()));
        }
        let result = py.detach(|| sim.finish()).map_err(|e| run_error(&self.file, e))?;
        self.events.store(result.engine_events, std::sync::atomic::Ordering::Relaxed);
        let data = match rows {
            None => to_python(py, &result)?,
            Some(rows) => {
                let kept: RowFields =
                    rows.iter().map(|(table, fields)| (table.clone(), fields.iter().cloned().collect())).collect();
                let data = to_python_rows(py, &result, &kept)?;
                unknown_rows(&data, &rows)?;
                data
            }
        };
        Ok((data, to_python(py, &result.setups)?))
    }
}

/// The first of `rows` (in its order) that `finish` cannot keep: a table `data` does not hold as
/// a list of rows, or a field that no row of a non-empty table holds (the search stops at the
/// first row holding it: the first row, but for a field some rows leave out).
fn unknown_rows(data: &Bound<'_, PyAny>, rows: &BTreeMap<String, Vec<String>>) -> PyResult<()> {
    for (table, fields) in rows {
        let rows_of = data.get_item(table.as_str()).ok().and_then(|t| t.downcast_into::<PyList>().ok());
        let Some(rows_of) = rows_of else {
            return Err(PyValueError::new_err(format!("rows: {table:?} is no table of rows in this run's result")));
        };
        let held = |field: &str| {
            rows_of.iter().any(|row| row.downcast::<PyDict>().is_ok_and(|r| r.contains(field).unwrap_or(false)))
        };
        if let Some(field) = fields.iter().find(|f| !rows_of.is_empty() && !held(f)) {
            return Err(PyValueError::new_err(format!("rows: no row of {table:?} has a field {field:?}")));
        }
    }
    Ok(())
}

/// `--set` pairs (dotted key, raw value) with each value read as the engine reads it.
fn parsed_overrides(overrides: Vec<(String, String)>) -> Vec<(String, toml::Value)> {
    overrides.into_iter().map(|(k, v)| (k, parse_override_value(&v))).collect()
}

/// Loads a scenario from its text. `overrides` are (dotted key, raw value) pairs as given to
/// `--set`; raises ScenarioError(file, field, message) on bad input. `to_run`: loaded to be run
/// at once, the checks that build its model (names across tables, faults, limits) left to its
/// simulation, which makes them with the same errors (its model is then built once, not twice).
#[pyfunction]
#[pyo3(signature = (text, file, variant=None, overrides=Vec::new(), seed=None, to_run=false))]
fn load_scenario(
    py: Python<'_>,
    text: &str,
    file: &str,
    variant: Option<&str>,
    overrides: Vec<(String, String)>,
    seed: Option<u64>,
    to_run: bool,
) -> PyResult<ScenarioHandle> {
    let parsed = parsed_overrides(overrides);
    // Parsed and checked without the GIL (a ranking loads a candidate while others run).
    let inner = py.detach(|| {
        if to_run {
            Scenario::parse(text, file, variant, &parsed, seed)
        } else {
            run::load(text, file, variant, &parsed, seed)
        }
    });
    Ok(ScenarioHandle::new(inner.map_err(scenario_error)?))
}

/// Loads a scenario from its tables as Python values (a dict of what its text would parse to:
/// an imported host's, built without text), checked as `load_scenario` checks a file. A scenario
/// loaded from tables to be run at once is `load_scenario_run_tables`'.
#[pyfunction]
#[pyo3(signature = (tables, file, variant=None, overrides=Vec::new(), seed=None))]
fn load_scenario_values(
    tables: &Bound<'_, pyo3::types::PyDict>,
    file: &str,
    variant: Option<&str>,
    overrides: Vec<(String, String)>,
    seed: Option<u64>,
) -> PyResult<ScenarioHandle> {
    let table = from_python::table(tables)?;
    let parsed = parsed_overrides(overrides);
    // Typed and checked without the GIL (a ranking loads a candidate while others run).
    let inner = tables.py().detach(|| run::load_table(table, file, variant, &parsed, seed));
    Ok(ScenarioHandle::new(inner.map_err(scenario_error)?))
}

/// A scenario's tables as the engine holds them for its runs (`from_python::table_to_run`: no
/// device's `listed` table), converted once from the Python values and kept: each scenario loaded
/// to be run from the same tables (`load_scenario_run_tables`: a ranking's candidates, span ends
/// and seeds, the pilots) starts from a copy of them, made without the GIL, instead of converting
/// millions of Python values again with the GIL held (on 32 hosts × 500 devices × 8 paths).
#[pyclass(module = "pathlab._core", frozen)]
struct RunTables {
    table: toml::Table,
}

/// `tables` (Python values, as `load_scenario_values` takes them) converted for runs: `RunTables`.
#[pyfunction]
fn run_tables(tables: &Bound<'_, pyo3::types::PyDict>) -> PyResult<RunTables> {
    Ok(RunTables { table: from_python::table_to_run(tables)? })
}

/// A scenario loaded from tables converted once (`run_tables`) to be run at once: as
/// `load_scenario`'s `to_run`, the checks that build its model (names across tables, faults,
/// limits) are left to its simulation, which makes them with the same errors, so that a
/// scenario loaded to be run (a cluster's candidate in a ranking) builds its model once, not
/// twice. The same scenario as `load_scenario_values` gives but for the devices' `listed`
/// tables, which no run reads (its `listed` and `unsimulated` getters give none of what a
/// listing printed).
#[pyfunction]
#[pyo3(signature = (tables, file, variant=None, overrides=Vec::new(), seed=None))]
fn load_scenario_run_tables(
    py: Python<'_>,
    tables: &RunTables,
    file: &str,
    variant: Option<&str>,
    overrides: Vec<(String, String)>,
    seed: Option<u64>,
) -> PyResult<ScenarioHandle> {
    // Read, copied, typed and checked without the GIL (a ranking loads a candidate while others run).
    let inner =
        py.detach(|| Scenario::from_kept_table(&tables.table, file, variant, &parsed_overrides(overrides), seed));
    Ok(ScenarioHandle::new(inner.map_err(scenario_error)?))
}

/// Tables converted for runs (`RunTables`) with a variant's `set` and overrides applied, kept for
/// the scenarios loaded to be run that add overrides of their own after the same ones
/// (`load_scenario_applied`: a ranking's candidates of a cluster fitted to its captures, whose
/// 32,000 fitted values are then read and applied once, not once a candidate).
#[pyclass(module = "pathlab._core", frozen)]
struct AppliedRunTables {
    inner: AppliedTables,
}

/// `tables` with `variant`'s `set` and `overrides` applied (`AppliedRunTables`); raises
/// ScenarioError as `load_scenario_run_tables` would with these overrides.
#[pyfunction]
#[pyo3(signature = (tables, file, variant=None, overrides=Vec::new()))]
fn applied_run_tables(
    py: Python<'_>,
    tables: &RunTables,
    file: &str,
    variant: Option<&str>,
    overrides: Vec<(String, String)>,
) -> PyResult<AppliedRunTables> {
    let inner = py.detach(|| AppliedTables::new(tables.table.clone(), file, variant, &parsed_overrides(overrides)));
    Ok(AppliedRunTables { inner: inner.map_err(scenario_error)? })
}

/// A scenario loaded to be run from applied tables (`applied_run_tables`) with `overrides`
/// applied after theirs: the scenario `load_scenario_run_tables` gives of the same tables, the
/// same variant and their overrides followed by these, with the same errors.
#[pyfunction]
#[pyo3(signature = (tables, file, overrides=Vec::new(), seed=None))]
fn load_scenario_applied(
    py: Python<'_>,
    tables: &AppliedRunTables,
    file: &str,
    overrides: Vec<(String, String)>,
    seed: Option<u64>,
) -> PyResult<ScenarioHandle> {
    let inner = py.detach(|| tables.inner.scenario(file, &parsed_overrides(overrides), seed));
    Ok(ScenarioHandle::new(inner.map_err(scenario_error)?))
}

/// The tables a scenario's run reads, as Python values: `tables` (what its text parses to) with
/// its variant's `set` and then `overrides` applied as the engine applies them before it types
/// them (the advisor's `as_run`); raises ScenarioError as loading would for a bad key.
#[pyfunction]
#[pyo3(signature = (tables, file, variant=None, overrides=Vec::new()))]
fn tables_as_run<'py>(
    py: Python<'py>,
    tables: &Bound<'_, pyo3::types::PyDict>,
    file: &str,
    variant: Option<&str>,
    overrides: Vec<(String, String)>,
) -> PyResult<Bound<'py, PyAny>> {
    let table = from_python::table(tables)?;
    let parsed = parsed_overrides(overrides);
    let applied = pathlab_sim::scenario::tables_as_run(table, file, variant, &parsed).map_err(scenario_error)?;
    to_python(py, &applied)
}

/// A duration in nanoseconds from its human form ("60s", "1.5ms"); raises ValueError.
#[pyfunction]
fn parse_duration_ns(text: &str) -> PyResult<u64> {
    pathlab_sim::scenario::units::parse_duration_ns(text).map_err(pyo3::exceptions::PyValueError::new_err)
}

/// What a default Linux host sets for an array's LUNs (multipath-tools' hwtable and defaults,
/// the NVMe udev rules): the matching hwtable entries and every setting with its origin.
#[pyfunction]
fn linux_claim<'py>(py: Python<'py>, vendor: &str, product: &str, tpgs: bool) -> PyResult<Bound<'py, PyAny>> {
    #[derive(serde::Serialize)]
    struct Claimed<'a> {
        hwtable: &'a [&'static str],
        settings: Vec<pathlab_sim::linux::claim::Setting>,
    }
    let claim = pathlab_sim::linux::claim::claim(vendor, product, tpgs);
    let settings = claim.settings(&pathlab_policy::PolicyConfig::default(), &[]);
    to_python(py, &Claimed { hwtable: &claim.multipath.entries, settings })
}

/// The ranges (low, high, in seconds) the engine accepts for the ESXi timers an import reads, by
/// esxcli's names, so that the import refuses a listing's value exactly where `run` would.
#[pyfunction]
fn esxi_timer_ranges(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    use pathlab_sim::model::{esxi_iscsi, stack};
    let range = |(_, low, high): (u64, u64, u64)| (low, high);
    let ranges = std::collections::BTreeMap::from([
        ("NoopOutInterval", range(esxi_iscsi::NOOP_OUT_INTERVAL_S)),
        ("NoopOutTimeout", range(esxi_iscsi::NOOP_OUT_TIMEOUT_S)),
        ("RecoveryTimeout", range(esxi_iscsi::RECOVERY_TIMEOUT_S)),
        ("Misc.APDTimeout", stack::ESXI_APD_TIMEOUT_RANGE_S),
    ]);
    to_python(py, &ranges)
}

/// How long after a controller stops answering Linux's keep-alive finds it, earliest and latest
/// over where the loss falls on the keep-alive's grid (ns), with or without traffic-based
/// keep-alive and steady I/O: the engine's rule (`model/keep_alive.rs`), for `stall_rule.py`.
#[pyfunction]
fn keep_alive_detection_ns(kato_ns: u64, traffic_based: bool, traffic: bool) -> PyResult<(u64, u64)> {
    if kato_ns < 4 {
        return Err(pyo3::exceptions::PyValueError::new_err("KATO must be at least 4 ns"));
    }
    Ok(pathlab_sim::model::keep_alive::detection_range_ns(kato_ns, traffic_based, traffic))
}

/// The policy catalogue: name, stack, summary and parameters of every policy (a list of dicts).
#[pyfunction]
fn policy_catalog(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let policies: Vec<serde_json::Value> = pathlab_policy::catalog()
        .into_iter()
        .map(|p| {
            let params: Vec<serde_json::Value> = p
                .spec
                .params
                .iter()
                .zip(&p.defaults)
                .map(|(q, default)| {
                    serde_json::json!({
                        "name": q.name,
                        "default": default,
                        "range": q.range.map(|(lo, hi)| format!("{lo} to {hi}")),
                        "choices": q.choices,
                        "help": q.help,
                    })
                })
                .collect();
            serde_json::json!({ "name": p.name, "stack": p.spec.stack, "summary": p.spec.summary, "params": params })
        })
        .collect();
    to_python(py, &policies)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ScenarioHandle>()?;
    m.add_class::<SimulationHandle>()?;
    m.add_class::<RunTables>()?;
    m.add_class::<AppliedRunTables>()?;
    esxtop_columns::register(m)?;
    m.add_function(wrap_pyfunction!(load_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(load_scenario_values, m)?)?;
    m.add_function(wrap_pyfunction!(run_tables, m)?)?;
    m.add_function(wrap_pyfunction!(load_scenario_run_tables, m)?)?;
    m.add_function(wrap_pyfunction!(applied_run_tables, m)?)?;
    m.add_function(wrap_pyfunction!(load_scenario_applied, m)?)?;
    m.add_function(wrap_pyfunction!(tables_as_run, m)?)?;
    m.add_function(wrap_pyfunction!(policy_catalog, m)?)?;
    m.add_function(wrap_pyfunction!(linux_claim, m)?)?;
    m.add_function(wrap_pyfunction!(esxi_timer_ranges, m)?)?;
    m.add_function(wrap_pyfunction!(parse_duration_ns, m)?)?;
    m.add_function(wrap_pyfunction!(keep_alive_detection_ns, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("MAX_INTERVAL_ROWS", pathlab_sim::scenario::limits::MAX_INTERVAL_ROWS)?;
    m.add("MULTIPATH_TOOLS", pathlab_sim::linux::MULTIPATH_TOOLS.to_vec())?;
    Ok(())
}
