//! The request context a Python handler receives: progress, logging, and requests to the client.

use mcpkit::{
    RequestContext,
    model::{CreateMessageRequestParams, ElicitRequestParams, LoggingLevel},
};
use pyo3::prelude::*;
use serde_json::Value;

use crate::{
    convert::{self, Json},
    error::IntoPyErr,
    runtime,
};

/// Parses a level name such as `"info"`.
pub(crate) fn logging_level(level: &str) -> PyResult<LoggingLevel> {
    serde_json::from_value(Value::String(level.to_owned()))
        .map_err(|_| pyo3::exceptions::PyValueError::new_err(format!("unknown logging level {level:?}")))
}

/// The context of one request a server handler is answering.
#[pyclass(name = "Context", module = "mcpkit._native", frozen)]
pub(crate) struct PyContext {
    inner: RequestContext,
}

impl PyContext {
    /// Wraps the core's context.
    pub(crate) fn new(inner: RequestContext) -> Self {
        PyContext { inner }
    }
}

#[pymethods]
impl PyContext {
    /// The JSON-RPC id of the request (an int or a str).
    #[getter]
    fn request_id<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_py(py, self.inner.request_id())
    }

    /// Whether the client cancelled the request, or the session ended.
    #[getter]
    fn is_cancelled(&self) -> bool {
        self.inner.is_cancelled()
    }

    /// The client's `clientInfo` (name, version, ...), once it initialized.
    #[getter]
    fn client_info<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner.client_info().map(|info| convert::to_py(py, &info)).transpose()
    }

    /// The capabilities the client declared.
    #[getter]
    fn client_capabilities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_py(py, &self.inner.client_capabilities())
    }

    /// Reports progress if the client asked for it; `progress` must increase.
    #[pyo3(signature = (progress, total=None, message=None))]
    fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<String>) -> PyResult<()> {
        self.inner.report_progress(progress, total, message).map_err(IntoPyErr::into_py_err)
    }

    /// Sends a log message if its level passes the client's threshold.
    #[pyo3(signature = (level, data, logger=None))]
    fn log(&self, level: &str, data: &Bound<'_, PyAny>, logger: Option<&str>) -> PyResult<()> {
        let level = logging_level(level)?;
        self.inner.log(level, logger, convert::from_py(data)?).map_err(IntoPyErr::into_py_err)
    }

    /// Ends this request's SSE stream over Streamable HTTP; the client resumes it after the
    /// server's `retry` delay and gets the rest, the result included. Does nothing elsewhere.
    fn close_sse_stream(&self) -> PyResult<()> {
        self.inner.close_sse_stream().map_err(IntoPyErr::into_py_err)
    }

    /// Sends `sampling/createMessage` with `params` and returns an awaitable of the result.
    fn create_message<'py>(&self, py: Python<'py>, params: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let params: CreateMessageRequestParams = convert::extract(params, "sampling parameters")?;
        let inner = self.inner.clone();
        runtime::future_into_py(py, async move {
            Json::of(&inner.create_message(params).await.map_err(IntoPyErr::into_py_err)?)
        })
    }

    /// Sends `elicitation/create` with `params` and returns an awaitable of the result.
    fn elicit<'py>(&self, py: Python<'py>, params: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let params: ElicitRequestParams = convert::extract(params, "elicitation parameters")?;
        let inner = self.inner.clone();
        runtime::future_into_py(
            py,
            async move { Json::of(&inner.elicit(params).await.map_err(IntoPyErr::into_py_err)?) },
        )
    }

    /// Sends `roots/list` and returns an awaitable of the result.
    fn list_roots<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let inner = self.inner.clone();
        runtime::future_into_py(py, async move { Json::of(&inner.list_roots().await.map_err(IntoPyErr::into_py_err)?) })
    }
}
