//! The client handle: connect over stdio, HTTP or in memory, send any request, and answer the
//! server's requests with Python callables.

use std::sync::Arc;

use mcpweft_bridge::{CallOptions, Client, ClientCallbacks, Subscription};
use pyo3::{prelude::*, types::PyBytes};
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
pub(crate) struct Handlers {
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
    /// The middleware, outermost first: `(True, spec)` for a built-in one, `(False, coroutine
    /// function)` for one written in Python.
    #[pyo3(default)]
    middleware: Vec<(bool, Py<PyAny>)>,
}

impl Handlers {
    pub(crate) fn callbacks(self, py: Python<'_>, event_loop: &LoopSlot) -> PyResult<ClientCallbacks> {
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
        for (builtin, middleware) in self.middleware {
            callbacks = if builtin {
                callbacks.with_builtin_middleware(convert::from_py(middleware.bind(py))?).or_raise(py)?
            } else {
                callbacks.with_middleware(event_loop.middleware(middleware))
            };
        }
        Ok(callbacks)
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
    let task = connect(handlers.callbacks(py, &event_loop)?);
    runtime::await_task(py, task, move |py, inner| Ok(Bound::new(py, PyClient { inner, event_loop })?.into_any()))
}

/// Reads the bridge's call options from a dict (or `None`), with `progress(params)` scheduled
/// on `event_loop` for each progress notification.
pub(crate) fn call_options(
    py: Python<'_>,
    event_loop: &LoopSlot,
    options: Option<&Bound<'_, PyAny>>,
    progress: Option<Py<PyAny>>,
) -> PyResult<CallOptions> {
    let on_progress = progress.map(|callback| {
        let event_loop = event_loop.clone();
        let hear: Arc<dyn Fn(Value) + Send + Sync> = Arc::new(move |params: Value| {
            runtime::attach(|py| {
                let scheduled = convert::to_py(py, &params).and_then(|p| event_loop.call_soon(py, &callback, p));
                if let Err(e) = scheduled {
                    tracing::warn!(error = %e, "the progress callback could not be scheduled");
                }
            });
        });
        hear
    });
    CallOptions::from_json(convert::from_opt(options)?, on_progress).or_raise(py)
}

impl PyClient {
    /// Reads the bridge's call options, with progress scheduled on the client's loop.
    fn options(
        &self,
        py: Python<'_>,
        options: Option<&Bound<'_, PyAny>>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<CallOptions> {
        call_options(py, &self.event_loop, options, progress)
    }
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

    /// Sends a request and returns an awaitable of its result. `options` is the bridge's call
    /// options (`timeoutMs`, `task`, `meta`) as a dict or `None`; `progress(params)` is
    /// scheduled on the loop for each progress notification.
    #[pyo3(signature = (method, params=None, options=None, progress=None))]
    fn request<'py>(
        &self,
        py: Python<'py>,
        method: &str,
        params: Option<&Bound<'py, PyAny>>,
        options: Option<&Bound<'py, PyAny>>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let options = self.options(py, options, progress)?;
        let params = convert::from_opt(params)?;
        runtime::await_json(py, self.inner.request(method, params, options))
    }

    /// Calls the tool `name` with `arguments`; with a `task` in `options` the result is the
    /// created task.
    #[pyo3(signature = (name, arguments=None, options=None, progress=None))]
    fn call_tool<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        arguments: Option<&Bound<'py, PyAny>>,
        options: Option<&Bound<'py, PyAny>>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let options = self.options(py, options, progress)?;
        runtime::await_json(py, self.inner.call_tool(name, convert::from_opt(arguments)?, options))
    }

    /// Checks that the server answers, whatever the revision.
    #[pyo3(signature = (options=None))]
    fn ping<'py>(&self, py: Python<'py>, options: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_unit(py, self.inner.ping(self.options(py, options, None)?))
    }

    /// Subscribes to updates of the resource at `uri`, whatever the revision.
    #[pyo3(signature = (uri, options=None))]
    fn subscribe<'py>(
        &self,
        py: Python<'py>,
        uri: &str,
        options: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_unit(py, self.inner.subscribe(uri, self.options(py, options, None)?))
    }

    /// Ends the subscription to the resource at `uri`.
    #[pyo3(signature = (uri, options=None))]
    fn unsubscribe<'py>(
        &self,
        py: Python<'py>,
        uri: &str,
        options: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_unit(py, self.inner.unsubscribe(uri, self.options(py, options, None)?))
    }

    /// Sets the lowest level of the log messages the server sends, whatever the revision.
    #[pyo3(signature = (level, options=None))]
    fn set_logging_level<'py>(
        &self,
        py: Python<'py>,
        level: &str,
        options: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_unit(py, self.inner.set_logging_level(level, self.options(py, options, None)?))
    }

    /// Reads the resource at `uri`.
    #[pyo3(signature = (uri, options=None))]
    fn read_resource<'py>(
        &self,
        py: Python<'py>,
        uri: &str,
        options: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_json(py, self.inner.read_resource(uri, self.options(py, options, None)?))
    }

    /// Reads the app view (MCP Apps) at `uri`: a dict of `uri`, `html` and `meta`.
    fn read_app_view<'py>(&self, py: Python<'py>, uri: &str) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_json(py, self.inner.read_app_view(uri))
    }

    /// Gets the prompt `name` with string `arguments`.
    #[pyo3(signature = (name, arguments=None, options=None))]
    fn get_prompt<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        arguments: Option<&Bound<'py, PyAny>>,
        options: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let options = self.options(py, options, None)?;
        runtime::await_json(py, self.inner.get_prompt(name, convert::from_opt(arguments)?, options))
    }

    /// Asks for completions; `params` holds `ref`, `argument` and, optionally, `context`.
    #[pyo3(signature = (params, options=None))]
    fn complete<'py>(
        &self,
        py: Python<'py>,
        params: &Bound<'py, PyAny>,
        options: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let options = self.options(py, options, None)?;
        runtime::await_json(py, self.inner.complete(convert::from_py(params)?, options))
    }

    /// Returns the current state of the task `task_id`.
    #[pyo3(signature = (task_id, options=None))]
    fn get_task<'py>(
        &self,
        py: Python<'py>,
        task_id: &str,
        options: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_json(py, self.inner.get_task(task_id, self.options(py, options, None)?))
    }

    /// Waits until the task `task_id` ends and returns the result of its request.
    #[pyo3(signature = (task_id, options=None))]
    fn task_result<'py>(
        &self,
        py: Python<'py>,
        task_id: &str,
        options: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_json(py, self.inner.task_result(task_id, self.options(py, options, None)?))
    }

    /// Cancels the task `task_id` and returns its final state.
    #[pyo3(signature = (task_id, options=None))]
    fn cancel_task<'py>(
        &self,
        py: Python<'py>,
        task_id: &str,
        options: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_json(py, self.inner.cancel_task(task_id, self.options(py, options, None)?))
    }

    /// Lists one page of `kind` (`tools`, `resources`, `resourceTemplates`, `prompts`,
    /// `tasks`) from `cursor`.
    #[pyo3(signature = (kind, cursor=None))]
    fn list_page<'py>(&self, py: Python<'py>, kind: &str, cursor: Option<String>) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_json(py, self.inner.list(kind, cursor, CallOptions::new()))
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

    /// Opens a `subscriptions/listen` stream of a 2026-07-28 server for the notifications
    /// `filter` names; the awaitable gives the `Subscription` once the server acknowledged it.
    fn listen<'py>(&self, py: Python<'py>, filter: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let task = self.inner.listen(convert::from_py(filter)?);
        runtime::await_task(py, task, |py, inner| Ok(Bound::new(py, PySubscription { inner })?.into_any()))
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

/// An open `subscriptions/listen` stream.
#[pyclass(name = "Subscription", module = "mcpweft._native", frozen)]
pub(crate) struct PySubscription {
    inner: Subscription,
}

#[pymethods]
impl PySubscription {
    /// What the server agreed to send, as a dict of the filter's keys.
    #[getter]
    fn acknowledged<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_py(py, &self.inner.acknowledged())
    }

    /// Returns an awaitable of the stream's next notification (`{"method", "params"}`), or of
    /// `None` once the stream ended.
    fn next<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_json(py, self.inner.next_notification())
    }

    /// Ends the stream; a waiting `next` gives `None`.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_unit(py, self.inner.close())
    }
}
