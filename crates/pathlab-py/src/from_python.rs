//! Python values (dicts, lists, strings, numbers, booleans) as the TOML tree a scenario's text
//! parses to: how an imported host's tables reach the scenario loader without being written as
//! text and parsed again, every check and `--set` applying as to a file.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// Where a value is in the tables: its keys and indices, said (dotted) only in an error. A
/// cluster's tables are millions of values: a dotted name made for each was most of the
/// conversion's allocations (issue 33 item 4).
#[derive(Clone, Copy)]
enum At<'a> {
    Root,
    Key(&'a At<'a>, &'a str),
    Index(&'a At<'a>, usize),
}

impl At<'_> {
    fn dotted(&self) -> String {
        match self {
            At::Root => String::new(),
            At::Key(At::Root, key) => (*key).to_string(),
            At::Key(up, key) => format!("{}.{key}", up.dotted()),
            At::Index(up, i) => format!("{}.{i}", up.dotted()),
        }
    }
}

/// What a table's conversion leaves out.
#[derive(Clone, Copy, PartialEq)]
enum Keep {
    /// Every value.
    All,
    /// Every value but the `listed` table of each `[[devices]]` and `[[unsimulated]]` entry: what
    /// a listing printed, word for word, which no run reads (`DeviceSpec::listed`). On an imported
    /// cluster of 32 hosts × 500 devices × 8 paths it is 2.16 M of the tables' 2.74 M values: most
    /// of a load's conversion, typing and drop.
    ToRun,
}

impl Keep {
    fn keeps(self, at: At<'_>, key: &str) -> bool {
        self == Keep::All
            || key != "listed"
            || !matches!(at, At::Index(At::Key(At::Root, "devices" | "unsimulated"), _))
    }
}

/// The TOML value of a Python value at `at`.
fn to_toml(value: &Bound<'_, PyAny>, at: At<'_>, keep: Keep) -> PyResult<toml::Value> {
    // A bool is an int to Python: asked first.
    if let Ok(b) = value.downcast::<PyBool>() {
        return Ok(toml::Value::Boolean(b.is_true()));
    }
    if let Ok(i) = value.downcast::<PyInt>() {
        return i
            .extract::<i64>()
            .map(toml::Value::Integer)
            .map_err(|_| PyTypeError::new_err(format!("{}: {i} is beyond a TOML integer", at.dotted())));
    }
    if let Ok(f) = value.downcast::<PyFloat>() {
        return Ok(toml::Value::Float(f.value()));
    }
    if let Ok(s) = value.downcast::<PyString>() {
        return Ok(toml::Value::String(s.to_cow()?.into_owned()));
    }
    if let Ok(d) = value.downcast::<PyDict>() {
        return table_at(d, at, keep).map(toml::Value::Table);
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let mut out = Vec::with_capacity(value.len().unwrap_or(0));
        for (i, item) in value.try_iter()?.enumerate() {
            out.push(to_toml(&item?, At::Index(&at, i), keep)?);
        }
        return Ok(toml::Value::Array(out));
    }
    Err(PyTypeError::new_err(format!("{}: a {} has no TOML form", at.dotted(), value.get_type().name()?)))
}

/// A Python dict of string keys as a TOML table, in the dict's order.
pub fn table(d: &Bound<'_, PyDict>) -> PyResult<toml::Table> {
    table_at(d, At::Root, Keep::All)
}

/// As [`table`], without what no run reads: the devices' `listed` tables (`Keep::ToRun`).
pub fn table_to_run(d: &Bound<'_, PyDict>) -> PyResult<toml::Table> {
    table_at(d, At::Root, Keep::ToRun)
}

fn table_at(d: &Bound<'_, PyDict>, at: At<'_>, keep: Keep) -> PyResult<toml::Table> {
    let mut out = toml::Table::new();
    for (k, v) in d.iter() {
        let key = k
            .downcast::<PyString>()
            .map_err(|_| PyTypeError::new_err(format!("{}: a key that is no string", at.dotted())))?;
        let key = key.to_cow()?;
        if !keep.keeps(at, &key) {
            continue;
        }
        let value = to_toml(&v, At::Key(&at, &key), keep)?;
        out.insert(key.into_owned(), value);
    }
    Ok(out)
}
