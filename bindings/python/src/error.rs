//! The one mapping between bridge errors and Python exceptions, both ways.
//!
//! The exception classes live in `mcpweft.errors`, whose `_from_native` picks the class of a
//! bridge error by its kind; this module only calls it, and reads back what a Python handler
//! raised, which the bridge's `Error::from_foreign` turns into a bridge error by the rule every
//! binding shares.

use mcpweft_bridge::Error;
use pyo3::prelude::*;

use crate::convert;

/// Converts a bridge error into its `mcpweft.errors` exception, an `McpError` subclass per
/// kind (and per JSON-RPC code for kind `rpc`).
pub(crate) fn to_py(py: Python<'_>, error: Error) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let data = error.data.as_ref().map(|d| convert::to_py(py, d)).transpose()?;
        let args = (error.kind_name(), error.code, error.message.as_str(), data, error.causes.clone());
        let exception = py.import("mcpweft.errors")?.call_method1("_from_native", args)?;
        Ok(PyErr::from_value(exception))
    };
    build().unwrap_or_else(|e| e)
}

/// Turns a bridge result into a Python one.
pub(crate) trait OrRaise<T> {
    /// Raises the error as its Python exception.
    fn or_raise(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> OrRaise<T> for Result<T, Error> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py(py, e))
    }
}

/// Converts an exception raised by a Python handler into the bridge error it stands for.
///
/// An `McpError` hands over its `kind`, `code`, `message`, `data` and `causes`; any other
/// exception is a handler failure whose message is the exception's text, or its class name
/// when the text is empty. `Error::from_foreign` decides what each becomes.
pub(crate) fn from_py(py: Python<'_>, err: &PyErr) -> Error {
    let value = err.value(py);
    if let Some(error) = mcpweft_error(value) {
        return error;
    }
    let text = value.str().map(|s| s.to_string()).unwrap_or_default();
    let text = if text.is_empty() { err.get_type(py).name().map(|n| n.to_string()).unwrap_or_default() } else { text };
    Error::from_foreign(None, None, text, None, Vec::new())
}

fn mcpweft_error(value: &Bound<'_, PyAny>) -> Option<Error> {
    let class = value.py().import("mcpweft.errors").and_then(|m| m.getattr("McpError")).ok()?;
    if !value.is_instance(&class).ok()? {
        return None;
    }
    let kind = value.getattr("kind").and_then(|k| k.extract::<String>()).ok()?;
    let code = value.getattr("code").and_then(|c| c.extract::<Option<i64>>()).ok().flatten();
    let message = value.getattr("message").and_then(|m| m.extract::<String>()).ok()?;
    let data = value.getattr("data").ok().filter(|d| !d.is_none()).and_then(|d| convert::from_py(&d).ok());
    let causes = value.getattr("causes").and_then(|c| c.extract::<Vec<String>>()).unwrap_or_default();
    Some(Error::from_foreign(Some(&kind), code, message, data, causes))
}
