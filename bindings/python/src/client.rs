//! The client handle: connect over stdio, HTTP or in memory, send any request, and answer the
//! server's requests with Python callables.

use std::{sync::Arc, time::Duration};

use mcpweft_bridge::{CallOptions, Client, ClientCallbacks};
use pyo3::{exceptions::PyValueError, prelude::*, types::PyBytes};
use serde_json::Value;

use crate::{
    convert,
    error::OrRaise,
    runtime::{self, LoopSlot},
    server::PyServer,
};

/// A Python callable and whether it is a coroutine function.
type Handler = Option<(Py<PyAny>, bool)>;

/// The Python callables that answer the server and log in to a protected one, read from a
/// dict that has every key.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
struct Handlers {
    sampling: Handler,
    sampling_tools: bool,
    elicitation: Handler,
    elicitation_form: bool,
    elicitation_url: bool,
    roots: Handler,
    notification: Handler,
    authorizer: Handler,
    token_store: Handler,
    close: Handler,
}

impl Handlers {
    fn callbacks(self, event_loop: &LoopSlot) -> ClientCallbacks {
        let wrap = |handler: Handler| handler.map(|(func, is_async)| event_loop.callback(func, is_async));
        let mut callbacks = ClientCallbacks::new();
        if let Some(callback) = wrap(self.sampling) {
            callbacks = callbacks.with_sampling(callback, self.sampling_tools);
        }
        if let Some(callback) = wrap(self.elicitation) {
            callbacks = callbacks.with_elicitation(callback, self.elicitation_form, self.elicitation_url);
        }
        if let Some(callback) = wrap(self.roots) {
            callbacks = callbacks.with_roots(callback);
        }
        if let Some(callback) = wrap(self.notification) {
            callbacks = callbacks.with_notification(callback);
        }
        if let Some(callback) = wrap(self.authorizer) {
            callbacks = callbacks.with_authorizer(callback);
        }
        if let Some(callback) = wrap(self.token_store) {
            callbacks = callbacks.with_token_store(callback);
        }
        if let Some(callback) = wrap(self.close) {
            callbacks = callbacks.with_close(callback);
        }
        callbacks
    }
}

/// A connected MCP client.
#[pyclass(name = "Client", module = "mcpweft._native", frozen)]
pub(crate) struct PyClient {
    inner: Client,
    event_loop: LoopSlot,
}

/// Captures the loop and awaits a connection made by `connect`.
fn connect<'py>(
    py: Python<'py>,
    handlers: Handlers,
    connect: impl FnOnce(ClientCallbacks) -> mcpweft_bridge::Task<Client>,
) -> PyResult<Bound<'py, PyAny>> {
    let event_loop = LoopSlot::default();
    event_loop.capture(py)?;
    let task = connect(handlers.callbacks(&event_loop));
    runtime::await_task(py, task, move |py, inner| Ok(Bound::new(py, PyClient { inner, event_loop })?.into_any()))
}

#[pymethods]
impl PyClient {
    /// Connects over `transport` (the bridge's transport spec) with `options` (the bridge's
    /// client options) and `handlers`.
    #[staticmethod]
    fn connect<'py>(
        py: Python<'py>,
        transport: &Bound<'py, PyAny>,
        options: &Bound<'py, PyAny>,
        handlers: Handlers,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (transport, options) = (convert::from_py(transport)?, convert::from_py(options)?);
        connect(py, handlers, move |callbacks| Client::connect(transport, options, callbacks))
    }

    /// Connects to a server in this process over an in-memory transport.
    #[staticmethod]
    fn connect_memory<'py>(
        py: Python<'py>,
        server: &PyServer,
        options: &Bound<'py, PyAny>,
        handlers: Handlers,
    ) -> PyResult<Bound<'py, PyAny>> {
        server.event_loop.capture(py)?;
        let options = convert::from_py(options)?;
        connect(py, handlers, |callbacks| Client::connect_memory(&server.inner, options, callbacks))
    }

    /// What the server answered to `initialize`, as a dict.
    #[getter]
    fn server<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_py(py, &self.inner.server_info())
    }

    /// The negotiated protocol version.
    #[getter]
    fn protocol_version(&self) -> String {
        self.inner.protocol_version()
    }

    /// Sends a request and returns an awaitable of its result. `timeout` is in seconds;
    /// `progress(params)` is scheduled on the loop for each progress notification; `task` sends
    /// it as a task with that metadata; `meta` adds to its `_meta`.
    #[pyo3(signature = (method, params=None, timeout=None, progress=None, task=None, meta=None))]
    #[allow(clippy::too_many_arguments)] // The keyword arguments of the Python method.
    fn request<'py>(
        &self,
        py: Python<'py>,
        method: &str,
        params: Option<&Bound<'py, PyAny>>,
        timeout: Option<f64>,
        progress: Option<Py<PyAny>>,
        task: Option<&Bound<'py, PyAny>>,
        meta: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut options = CallOptions::new();
        if let Some(seconds) = timeout {
            let timeout = Duration::try_from_secs_f64(seconds).map_err(|e| PyValueError::new_err(e.to_string()))?;
            options = options.with_timeout(timeout);
        }
        if let Some(callback) = progress {
            let event_loop = self.event_loop.clone();
            options = options.with_progress(Arc::new(move |params: Value| {
                runtime::attach(|py| {
                    let scheduled = convert::to_py(py, &params).and_then(|p| event_loop.call_soon(py, &callback, p));
                    if let Err(e) = scheduled {
                        tracing::warn!(error = %e, "the progress callback could not be scheduled");
                    }
                });
            }));
        }
        if let Some(task) = task {
            options = options.with_task(convert::from_py(task)?);
        }
        if let Some(meta) = meta {
            let Value::Object(meta) = convert::from_py(meta)? else {
                return Err(PyValueError::new_err("meta must be a dict"));
            };
            options = options.with_meta(meta);
        }
        let params = convert::from_opt(params)?;
        runtime::await_json(py, self.inner.request(method, params, options))
    }

    /// Lists one page of `kind` (`tools`, `resources`, `resourceTemplates`, `prompts`,
    /// `tasks`) from `cursor`.
    #[pyo3(signature = (kind, cursor=None))]
    fn list_page<'py>(&self, py: Python<'py>, kind: &str, cursor: Option<String>) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_json(py, self.inner.list(kind, cursor))
    }

    /// Lists every item of `kind`, following the pages.
    fn list_all<'py>(&self, py: Python<'py>, kind: &str) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_json(py, self.inner.list_all(kind))
    }

    /// Lists the server's skills (every page), reading no skill file.
    fn list_skills<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_json(py, self.inner.list_skills())
    }

    /// Loads the skill of `entry`: its `SKILL.md`, verified against the entry.
    fn load_skill<'py>(&self, py: Python<'py>, entry: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_json(py, self.inner.load_skill(convert::from_py(entry)?))
    }

    /// Reads the file `uri` of the skill of `entry` as `bytes`, verified against the entry.
    fn read_skill_file<'py>(
        &self,
        py: Python<'py>,
        entry: &Bound<'py, PyAny>,
        uri: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        let task = self.inner.read_skill_file(convert::from_py(entry)?, uri);
        runtime::await_task(py, task, |py, bytes| Ok(PyBytes::new(py, &bytes).into_any()))
    }

    /// Sends a notification to the server.
    #[pyo3(signature = (method, params=None))]
    fn notify(&self, py: Python<'_>, method: &str, params: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        self.inner.notify(method, convert::from_opt(params)?).or_raise(py)
    }

    /// Tells the server that the client's roots changed.
    fn notify_roots_changed(&self, py: Python<'_>) -> PyResult<()> {
        self.inner.notify_roots_changed().or_raise(py)
    }

    /// Closes the connection; the awaitable ends when the session has ended.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_unit(py, self.inner.close())
    }
}
