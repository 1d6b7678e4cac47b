//! The one place where core errors become Python exceptions.

use pathlab_sim::ScenarioError as CoreScenarioError;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::PyErr;

create_exception!(_core, ScenarioError, PyValueError, "Bad scenario input; args are (file, field, message).");

pub fn scenario_error(e: CoreScenarioError) -> PyErr {
    ScenarioError::new_err((e.file, e.field, e.message))
}
