//! The one mapping between bridge errors and Python exceptions, both ways.
//!
//! The exception classes live in `mcpweft.errors`, whose `_from_native` picks the class of a
//! bridge error by its kind; this module only calls it, and reads back what a Python handler
//! raised.

use mcpweft_bridge::Error;
use pyo3::prelude::*;

use crate::convert;

/// Converts a bridge error into the matching `mcpweft.errors` exception (or `ValueError`,
/// `OSError`, `RuntimeError` for local failures that are not MCP errors).
pub(crate) fn to_py(py: Python<'_>, error: Error) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let data = error.data.as_ref().map(|d| convert::to_py(py, d)).transpose()?;
        let args = (error.kind_name(), error.code, error.message.as_str(), data);
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
/// An `McpError` that is not local keeps its code, message and data, and the peer gets
/// exactly that JSON-RPC error; anything else (local `McpError`s such as time-outs included)
/// is a handler failure whose message is the exception's text, or its class name when the
/// text is empty: a tool returns it as an `isError` result, other handlers as an internal
/// error.
pub(crate) fn from_py(py: Python<'_>, err: &PyErr) -> Error {
    let value = err.value(py);
    if let Some(error) = rpc_error(value) {
        return error;
    }
    let text = value.str().map(|s| s.to_string()).unwrap_or_default();
    let text = if text.is_empty() { err.get_type(py).name().map(|n| n.to_string()).unwrap_or_default() } else { text };
    Error::handler(text)
}

fn rpc_error(value: &Bound<'_, PyAny>) -> Option<Error> {
    let class = value.py().import("mcpweft.errors").and_then(|m| m.getattr("McpError")).ok()?;
    if !value.is_instance(&class).ok()? || value.getattr("local").and_then(|l| l.is_truthy()).ok()? {
        return None;
    }
    let code = value.getattr("code").and_then(|c| c.extract::<i64>()).ok()?;
    let message = value.getattr("message").and_then(|m| m.extract::<String>()).ok()?;
    let data = value.getattr("data").ok().filter(|d| !d.is_none()).and_then(|d| convert::from_py(&d).ok());
    Some(Error::rpc(code, message, data))
}
