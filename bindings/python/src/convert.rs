//! JSON-shaped values across the boundary: Python dicts, lists and scalars to and from serde.

use pyo3::{exceptions::PyValueError, prelude::*};
use serde::{Serialize, de::DeserializeOwned};
use serde_json::Value;

/// Converts a serializable value into the matching Python value (dict, list, str, ...).
pub(crate) fn to_py<'py, T: Serialize + ?Sized>(py: Python<'py>, value: &T) -> PyResult<Bound<'py, PyAny>> {
    Ok(pythonize::pythonize(py, value)?)
}

/// Converts a JSON-shaped Python value into JSON.
pub(crate) fn from_py(value: &Bound<'_, PyAny>) -> PyResult<Value> {
    Ok(pythonize::depythonize(value)?)
}

/// Converts a JSON-shaped Python value into a core type, naming `what` when it does not fit.
pub(crate) fn extract<T: DeserializeOwned>(value: &Bound<'_, PyAny>, what: &str) -> PyResult<T> {
    serde_json::from_value(from_py(value)?).map_err(|e| PyValueError::new_err(format!("invalid {what}: {e}")))
}

/// A JSON value on its way to Python, for the results of awaitables.
pub(crate) struct Json(pub(crate) Value);

impl Json {
    /// Serializes any value to go back to Python.
    pub(crate) fn of<T: Serialize>(value: &T) -> PyResult<Json> {
        serde_json::to_value(value).map(Json).map_err(|e| PyValueError::new_err(e.to_string()))
    }
}

impl<'py> IntoPyObject<'py> for Json {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.0)
    }
}
