//! JSON-shaped values across the boundary: Python dicts, lists and scalars to and from JSON.
//!
//! Richer Python values (bytes, media, dataclasses, pydantic models) are turned into JSON
//! shapes by the package's `_convert` module before they get here.

use pyo3::prelude::*;
use serde_json::Value;

/// Converts a JSON value into the matching Python value (dict, list, str, ...).
pub(crate) fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(pythonize::pythonize(py, value)?)
}

/// Converts a JSON-shaped Python value into JSON; `None` is `null`.
pub(crate) fn from_py(value: &Bound<'_, PyAny>) -> PyResult<Value> {
    Ok(pythonize::depythonize(value)?)
}

/// Converts an optional JSON-shaped Python value; a missing one is `null`.
pub(crate) fn from_opt(value: Option<&Bound<'_, PyAny>>) -> PyResult<Value> {
    value.map_or(Ok(Value::Null), from_py)
}
