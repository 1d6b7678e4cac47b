//! Python values (dicts, lists, strings, numbers, booleans) as the TOML tree a scenario's text
//! parses to: how an imported host's tables reach the scenario loader without being written as
//! text and parsed again, every check and `--set` applying as to a file.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// The TOML value of a Python value; `at` names where it is (dotted), for the error.
pub fn to_toml(value: &Bound<'_, PyAny>, at: &str) -> PyResult<toml::Value> {
    // A bool is an int to Python: asked first.
    if let Ok(b) = value.downcast::<PyBool>() {
        return Ok(toml::Value::Boolean(b.is_true()));
    }
    if let Ok(i) = value.downcast::<PyInt>() {
        return i
            .extract::<i64>()
            .map(toml::Value::Integer)
            .map_err(|_| PyTypeError::new_err(format!("{at}: {i} is beyond a TOML integer")));
    }
    if let Ok(f) = value.downcast::<PyFloat>() {
        return Ok(toml::Value::Float(f.value()));
    }
    if let Ok(s) = value.downcast::<PyString>() {
        return Ok(toml::Value::String(s.extract::<String>()?));
    }
    if let Ok(d) = value.downcast::<PyDict>() {
        return table(d, at).map(toml::Value::Table);
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let mut out = Vec::new();
        for (i, item) in value.try_iter()?.enumerate() {
            out.push(to_toml(&item?, &format!("{at}.{i}"))?);
        }
        return Ok(toml::Value::Array(out));
    }
    Err(PyTypeError::new_err(format!("{at}: a {} has no TOML form", value.get_type().name()?)))
}

/// A Python dict of string keys as a TOML table, in the dict's order.
pub fn table(d: &Bound<'_, PyDict>, at: &str) -> PyResult<toml::Table> {
    let mut out = toml::Table::new();
    for (k, v) in d.iter() {
        let key: String = k.extract().map_err(|_| PyTypeError::new_err(format!("{at}: a key that is no string")))?;
        let here = if at.is_empty() { key.clone() } else { format!("{at}.{key}") };
        out.insert(key, to_toml(&v, &here)?);
    }
    Ok(out)
}
