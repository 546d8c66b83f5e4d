//! The server handle: registrations backed by Python callables, and serving over stdio or HTTP.
//!
//! Every handler is called as `handler(payload, context)` with the payload the bridge
//! documents for its kind, and returns JSON that the bridge turns into the result.

use std::{sync::mpsc, time::Duration};

use mcpweft_bridge::{Error, HttpServer, Server};
use pyo3::prelude::*;

use crate::{
    convert,
    error::OrRaise,
    http::PyHttpEndpoint,
    runtime::{self, LoopSlot},
};

/// How often a blocking serve wakes up to run the interpreter's signal handlers.
const SIGNAL_CHECK: Duration = Duration::from_millis(100);

/// An MCP server whose handlers are Python callables.
#[pyclass(name = "Server", module = "mcpweft._native", frozen)]
pub(crate) struct PyServer {
    pub(crate) inner: Server,
    pub(crate) event_loop: LoopSlot,
}

#[pymethods]
impl PyServer {
    /// Creates a server from its description and settings (the bridge's server spec).
    #[new]
    fn new(py: Python<'_>, spec: &Bound<'_, PyAny>) -> PyResult<Self> {
        let inner = Server::new(convert::from_py(spec)?).or_raise(py)?;
        Ok(PyServer { inner, event_loop: LoopSlot::default() })
    }

    /// Registers a handler of `kind` (`tool`, `resource`, `resource_template` or `prompt`)
    /// described by `descriptor`, the schema's dict of that kind. A tool's or prompt's handler
    /// gets the arguments, a resource's `{"uri", "variables"}`. A name (or URI) registered
    /// already raises `ConfigError` unless `replace`.
    #[pyo3(signature = (kind, descriptor, handler, is_async, replace=false))]
    fn add(
        &self,
        py: Python<'_>,
        kind: &str,
        descriptor: &Bound<'_, PyAny>,
        handler: Py<PyAny>,
        is_async: bool,
        replace: bool,
    ) -> PyResult<()> {
        let (descriptor, callback) = (convert::from_py(descriptor)?, self.event_loop.callback(handler, is_async));
        match kind {
            "tool" => self.inner.add_tool(descriptor, callback, replace),
            "resource" => self.inner.add_resource(descriptor, callback, replace),
            "resource_template" => self.inner.add_resource_template(descriptor, callback, replace),
            "prompt" => self.inner.add_prompt(descriptor, callback, replace),
            _ => Err(Error::invalid_input(format!("unknown kind {kind:?}"))),
        }
        .or_raise(py)
    }

    /// Serves an app view (MCP Apps) from its descriptor (`uri`, `name`, `html`, `csp`,
    /// `permissions`, `domain`, `prefersBorder`).
    fn add_app_view(&self, py: Python<'_>, descriptor: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner.add_app_view(convert::from_py(descriptor)?).or_raise(py)
    }

    /// Adds the coroutine function `middleware(message, next)` around every message of the
    /// sessions started from now on, inside those already added.
    fn add_middleware(&self, middleware: Py<PyAny>) {
        self.inner.add_middleware(self.event_loop.middleware(middleware));
    }

    /// Adds one of the core's built-in middleware from its dict (`{"timing": {}}`,
    /// `{"rateLimit": {...}}` or `{"cache": {...}}`), inside those already added.
    fn add_builtin_middleware(&self, py: Python<'_>, spec: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner.add_builtin_middleware(convert::from_py(spec)?).or_raise(py)
    }

    /// Sets `handler(params, context)` as the answer to `completion/complete`.
    fn set_completion(&self, handler: Py<PyAny>, is_async: bool) {
        self.inner.set_completion(self.event_loop.callback(handler, is_async));
    }

    /// Sets `handler({}, context)` to hear that a client's roots changed; the context can ask
    /// that client for its roots.
    fn on_roots_changed(&self, py: Python<'_>, handler: Py<PyAny>, is_async: bool) -> PyResult<()> {
        self.inner.on_roots_changed(self.event_loop.callback(handler, is_async)).or_raise(py)
    }

    /// Removes the registration of `kind` named `key` (a name, URI or URI template),
    /// returning whether it existed.
    fn remove(&self, py: Python<'_>, kind: &str, key: &str) -> PyResult<bool> {
        match kind {
            "tool" => Ok(self.inner.remove_tool(key)),
            "resource" => Ok(self.inner.remove_resource(key)),
            "resource_template" => Ok(self.inner.remove_resource_template(key)),
            "prompt" => Ok(self.inner.remove_prompt(key)),
            _ => Err(Error::invalid_input(format!("unknown kind {kind:?}"))).or_raise(py),
        }
    }

    /// Serves a skill of the skills extension from its descriptor (`skillMd`, `files`); a skill
    /// of the same name raises `ConfigError` unless `replace`.
    #[pyo3(signature = (descriptor, replace=false))]
    fn add_skill(&self, py: Python<'_>, descriptor: &Bound<'_, PyAny>, replace: bool) -> PyResult<()> {
        self.inner.add_skill(convert::from_py(descriptor)?, replace).or_raise(py)
    }

    /// Tells subscribed clients that the resource at `uri` changed.
    fn notify_resource_updated(&self, uri: &str) {
        self.inner.notify_resource_updated(uri);
    }

    /// Sends a log message to every client whose level lets it through.
    #[pyo3(signature = (level, data, logger=None))]
    fn log(&self, py: Python<'_>, level: &str, data: &Bound<'_, PyAny>, logger: Option<&str>) -> PyResult<()> {
        self.inner.log(level, convert::from_py(data)?, logger).or_raise(py)
    }

    /// The capabilities the server declares now, as a dict.
    #[getter]
    fn capabilities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_py(py, &self.inner.capabilities())
    }

    /// Serves one session over stdin and stdout; the awaitable ends when the client leaves.
    fn serve_stdio<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.event_loop.capture(py)?;
        runtime::await_unit(py, self.inner.serve_stdio())
    }

    /// Serves one session over stdin and stdout, blocking this thread (detached from the
    /// interpreter) until the client leaves: how a server whose handlers are all plain
    /// functions serves without an asyncio loop. A signal handler's exception (Ctrl-C's
    /// `KeyboardInterrupt`) ends serving and is raised.
    fn serve_stdio_blocking(&self, py: Python<'_>) -> PyResult<()> {
        let (tx, mut rx) = mpsc::channel();
        let handle = self.inner.serve_stdio().on_complete(move |outcome| {
            let _ = tx.send(outcome);
        });
        loop {
            // The receiver moves to the detached closure and back, as it cannot be shared.
            let (received, back) = py.detach(move || (rx.recv_timeout(SIGNAL_CHECK), rx));
            rx = back;
            match received {
                Ok(outcome) => return outcome.or_raise(py),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if let Err(e) = py.check_signals() {
                        handle.abort();
                        return Err(e);
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(()),
            }
        }
    }

    /// Serves Streamable HTTP with `options` (the bridge's HTTP options); the awaitable gives
    /// the running `HttpServer`. `verifier` is a callable `(payload, context)` with whether it
    /// is a coroutine function: it gets `{"token"}` and returns the caller's identity, or
    /// `None` (or raises) to refuse the token; the `auth` key of `options` then protects the
    /// server.
    #[pyo3(signature = (options=None, verifier=None))]
    fn serve_http<'py>(
        &self,
        py: Python<'py>,
        options: Option<&Bound<'py, PyAny>>,
        verifier: Option<(Py<PyAny>, bool)>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.event_loop.capture(py)?;
        let options = convert::from_opt(options)?;
        let task = match verifier {
            Some((func, is_async)) => {
                self.inner.serve_http_with_verifier(options, self.event_loop.callback(func, is_async))
            }
            None => self.inner.serve_http(options),
        };
        runtime::await_task(py, task, |py, inner| Ok(Bound::new(py, PyHttpServer { inner })?.into_any()))
    }

    /// Returns an endpoint that answers the HTTP exchanges an ASGI server receives, with
    /// `options` (the bridge's HTTP options but `host` and `port`); handlers run on the loop
    /// running now. `verifier` checks bearer tokens as in `serve_http`, the `auth` key of
    /// `options` then protecting the endpoint.
    #[pyo3(signature = (options=None, verifier=None))]
    fn http_endpoint(
        &self,
        py: Python<'_>,
        options: Option<&Bound<'_, PyAny>>,
        verifier: Option<(Py<PyAny>, bool)>,
    ) -> PyResult<PyHttpEndpoint> {
        self.event_loop.capture(py)?;
        let options = convert::from_opt(options)?;
        let inner = match verifier {
            Some((func, is_async)) => {
                self.inner.http_endpoint_with_verifier(options, self.event_loop.callback(func, is_async))
            }
            None => self.inner.http_endpoint(options),
        };
        Ok(PyHttpEndpoint { inner: inner.or_raise(py)? })
    }
}

/// A running Streamable HTTP server.
#[pyclass(name = "HttpServer", module = "mcpweft._native", frozen)]
pub(crate) struct PyHttpServer {
    inner: HttpServer,
}

#[pymethods]
impl PyHttpServer {
    /// The URL of the MCP endpoint, such as `http://127.0.0.1:8000/mcp`.
    #[getter]
    fn url(&self) -> &str {
        self.inner.url()
    }

    /// Stops the server and ends its sessions; the awaitable ends once it stopped.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_unit(py, self.inner.close())
    }

    /// Returns an awaitable that ends when the server is closed.
    fn wait<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_unit(py, self.inner.wait())
    }
}
