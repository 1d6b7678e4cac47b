//! The one place where core errors become Python exceptions.

use pathlab_sim::sim::RunError;
use pathlab_sim::ScenarioError as CoreScenarioError;
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::PyErr;

// Named by its module's full path, `pathlab._core`, as Python imports it: pickle finds the class
// by `__module__` (a process pool or Ray sends a bad scenario's error back pickled); `_core`
// alone is no importable module.
create_exception!(pathlab._core, ScenarioError, PyValueError, "Bad scenario input; args are (file, field, message).");

pub fn scenario_error(e: CoreScenarioError) -> PyErr {
    ScenarioError::new_err((e.file, e.field, e.message))
}

/// A run that could not finish: bad input found while running (ScenarioError), or an engine
/// bug (RuntimeError).
pub fn run_error(file: &str, e: RunError) -> PyErr {
    match e {
        RunError::Overloaded { field, message } => scenario_error(CoreScenarioError::new(file, field, message)),
        RunError::Accounting(_) | RunError::NotKept(_) => PyRuntimeError::new_err(e.to_string()),
    }
}
