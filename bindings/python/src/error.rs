//! The one mapping between core errors and Python exceptions.
//!
//! The exception classes live in `mcpkit.errors`; this module only imports and raises them,
//! and reads them back when a Python handler raises one.

use mcpkit::{Error, ErrorData, jsonrpc::INTERNAL_ERROR};
use pyo3::{
    exceptions::{PyOSError, PyRuntimeError, PyValueError},
    prelude::*,
};

use crate::{convert, runtime};

/// Converts a core error into the matching `mcpkit.errors` exception.
pub(crate) trait IntoPyErr {
    /// Builds the Python exception.
    fn into_py_err(self) -> PyErr;
}

impl IntoPyErr for Error {
    fn into_py_err(self) -> PyErr {
        runtime::attach(|py| build(py, self).unwrap_or_else(|e| e)).unwrap_or_else(runtime::exiting)
    }
}

fn build(py: Python<'_>, error: Error) -> PyResult<PyErr> {
    let errors = py.import("mcpkit.errors")?;
    let local = |class: &str, message: String| -> PyResult<PyErr> {
        Ok(PyErr::from_value(errors.getattr(class)?.call1((message,))?))
    };
    match error {
        Error::Rpc(data) => {
            let payload = data.data.as_ref().map(|d| convert::to_py(py, d)).transpose()?;
            let exception =
                errors.getattr("McpError")?.call_method1("from_wire", (data.code, data.message, payload))?;
            Ok(PyErr::from_value(exception))
        }
        Error::TransportClosed => local("TransportClosed", error.to_string()),
        Error::Timeout(_) => local("RequestTimeout", error.to_string()),
        Error::Cancelled => local("RequestCancelled", error.to_string()),
        Error::CapabilityMissing(_) => local("CapabilityMissing", error.to_string()),
        Error::Protocol(_) | Error::Json(_) => local("ProtocolError", error.to_string()),
        Error::Config(_) => Ok(PyValueError::new_err(error.to_string())),
        Error::Io(e) => Ok(PyOSError::new_err(e.to_string())),
        other => Ok(PyRuntimeError::new_err(other.to_string())),
    }
}

/// Converts an exception raised by a Python handler into the JSON-RPC error to answer with.
///
/// An `McpError` keeps its code, message and data; anything else is an internal error whose
/// message is the exception's text.
pub(crate) fn to_error_data(py: Python<'_>, err: &PyErr) -> ErrorData {
    let value = err.value(py);
    let is_mcp = py
        .import("mcpkit.errors")
        .and_then(|m| m.getattr("McpError"))
        .and_then(|class| value.is_instance(&class))
        .unwrap_or(false);
    if is_mcp {
        let code = value.getattr("code").and_then(|c| c.extract::<i64>());
        let message = value.getattr("message").and_then(|m| m.extract::<String>());
        let data = value.getattr("data").ok().filter(|d| !d.is_none()).and_then(|d| convert::from_py(&d).ok());
        if let (Ok(code), Ok(message)) = (code, message) {
            let error = ErrorData::new(code, message);
            return match data {
                Some(data) => error.with_data(data),
                None => error,
            };
        }
    }
    let text = value.str().map(|s| s.to_string()).unwrap_or_default();
    let text = if text.is_empty() { err.get_type(py).name().map(|n| n.to_string()).unwrap_or_default() } else { text };
    ErrorData::new(INTERNAL_ERROR, text)
}
