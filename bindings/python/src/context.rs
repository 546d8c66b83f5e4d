//! The context a Python handler receives: ids, progress, logging, notifications, and requests
//! to the peer.

use mcpweft_bridge::Context;
use pyo3::prelude::*;
use serde_json::Value;

use crate::{convert, error::OrRaise, runtime};

/// The context of one handler call.
#[pyclass(name = "Context", module = "mcpweft._native", frozen)]
pub(crate) struct PyContext {
    inner: Context,
}

impl PyContext {
    /// Wraps the bridge's context.
    pub(crate) fn new(inner: Context) -> Self {
        PyContext { inner }
    }
}

fn optional<'py>(py: Python<'py>, value: Option<Value>) -> PyResult<Option<Bound<'py, PyAny>>> {
    value.map(|v| convert::to_py(py, &v)).transpose()
}

#[pymethods]
impl PyContext {
    /// The JSON-RPC id of the request (an int or a str), or `None` outside a request.
    #[getter]
    fn request_id<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        optional(py, self.inner.request_id())
    }

    /// The transport's id of the session (Streamable HTTP's `Mcp-Session-Id`), if it has one.
    #[getter]
    fn session_id(&self) -> Option<String> {
        self.inner.session_id()
    }

    /// Who the request came from on a protected HTTP server (`subject`, `clientId`, `issuer`,
    /// `audience`, `scopes`, `expiresAt`, `claims`), as the token verifier saw them.
    #[getter]
    fn auth<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        optional(py, self.inner.auth())
    }

    /// The request's `_meta`, if it had one.
    #[getter]
    fn meta<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        optional(py, self.inner.meta())
    }

    /// The progress token the peer asked for, if any.
    #[getter]
    fn progress_token<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        optional(py, self.inner.progress_token())
    }

    /// Whether the peer cancelled the request, or the session ended.
    #[getter]
    fn is_cancelled(&self) -> bool {
        self.inner.is_cancelled()
    }

    /// The client's `clientInfo` (name, version, ...), once it initialized.
    #[getter]
    fn client_info<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        optional(py, self.inner.client_info())
    }

    /// The capabilities the client declared.
    #[getter]
    fn client_capabilities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_py(py, &self.inner.client_capabilities())
    }

    /// The protocol version negotiated for the session.
    #[getter]
    fn protocol_version(&self) -> Option<String> {
        self.inner.protocol_version()
    }

    /// Reports progress if the peer asked for it; `progress` must increase.
    #[pyo3(signature = (progress, total=None, message=None))]
    fn report_progress(
        &self,
        py: Python<'_>,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> PyResult<()> {
        self.inner.report_progress(progress, total, message).or_raise(py)
    }

    /// Sends a log message if its level passes the client's threshold.
    #[pyo3(signature = (level, data, logger=None))]
    fn log(&self, py: Python<'_>, level: &str, data: &Bound<'_, PyAny>, logger: Option<&str>) -> PyResult<()> {
        self.inner.log(level, convert::from_py(data)?, logger).or_raise(py)
    }

    /// Sends a notification to the peer, tied to the request being handled.
    #[pyo3(signature = (method, params=None))]
    fn notify(&self, py: Python<'_>, method: &str, params: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        self.inner.notify(method, convert::from_opt(params)?).or_raise(py)
    }

    /// Tells the client that the URL-mode elicitation `elicitation_id` finished.
    fn notify_elicitation_complete(&self, py: Python<'_>, elicitation_id: &str) -> PyResult<()> {
        self.inner.notify_elicitation_complete(elicitation_id).or_raise(py)
    }

    /// Ends this request's SSE stream over Streamable HTTP; the client resumes it after the
    /// server's `retry` delay and gets the rest, the result included. Does nothing elsewhere.
    fn close_sse_stream(&self, py: Python<'_>) -> PyResult<()> {
        self.inner.close_sse_stream().or_raise(py)
    }

    /// Asks the client for input under `key` (the name a 2026-07-28 client answers it by) and
    /// returns an awaitable of its answer.
    fn ask<'py>(
        &self,
        py: Python<'py>,
        key: &str,
        method: &str,
        params: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_json(py, self.inner.ask(key, method, convert::from_py(params)?))
    }

    /// The state kept by `set_state` in an earlier round of this 2026-07-28 request, if any.
    #[getter]
    fn state(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.inner.state().map(|s| convert::to_py(py, &s).map(Bound::unbind)).transpose()
    }

    /// Keeps `state` (JSON) for the next round of this 2026-07-28 request.
    fn set_state(&self, state: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner.set_state(convert::from_py(state)?);
        Ok(())
    }

    /// Asks the client to sample from its model and returns an awaitable of its
    /// `CreateMessageResult`.
    fn sample<'py>(&self, py: Python<'py>, params: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_json(py, self.inner.sample(convert::from_py(params)?))
    }

    /// Asks the client to elicit input from its user (form or URL mode) and returns an
    /// awaitable of its `ElicitResult`.
    fn elicit<'py>(&self, py: Python<'py>, params: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_json(py, self.inner.elicit(convert::from_py(params)?))
    }

    /// Asks the client for its roots and returns an awaitable of its `ListRootsResult`.
    fn list_roots<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_json(py, self.inner.list_roots())
    }

    /// Sends a request to the peer (sampling, elicitation and roots are checked against the
    /// client's capabilities) and returns an awaitable of its result.
    #[pyo3(signature = (method, params=None))]
    fn request<'py>(
        &self,
        py: Python<'py>,
        method: &str,
        params: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let params = match convert::from_opt(params)? {
            Value::Null => Value::Object(serde_json::Map::new()),
            other => other,
        };
        runtime::await_json(py, self.inner.request(method, params))
    }
}
