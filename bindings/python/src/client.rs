//! The client handle: connect over stdio, HTTP or in memory, call the server, and answer its
//! requests with Python callables.

use std::{collections::HashMap, time::Duration};

use async_trait::async_trait;
use mcpkit::{
    Client, ClientHandler, ClientOptions, ErrorData, RequestOptions,
    model::{
        CallToolRequestParams, ClientCapabilities, CompletionReference, CreateMessageRequestParams,
        CreateMessageResult, ElicitRequestParams, ElicitResult, JsonObject, ListRootsResult,
        LoggingMessageNotificationParams, ResourceUpdatedNotificationParams,
    },
    session::IncomingRequest,
    transport::{ChildProcessTransport, Transport, http::StreamableHttpClientTransport, memory_pair},
};
use pyo3::{
    prelude::*,
    types::{PyDict, PyTuple},
};
use serde::{Serialize, de::DeserializeOwned};
use serde_json::Value;

use crate::{
    context::logging_level,
    convert::{self, Json},
    error::IntoPyErr,
    runtime::{self, LoopSlot, PyCallback},
    server::PyServer,
};

/// The Python callables that answer the server, keyed by role.
#[derive(Default)]
struct Callbacks(HashMap<String, PyCallback>);

impl Callbacks {
    /// Reads `{role: (callable, is_async)}`.
    fn from_dict(handlers: Option<&Bound<'_, PyDict>>, event_loop: &LoopSlot) -> PyResult<Self> {
        let mut map = HashMap::new();
        for (key, value) in handlers.into_iter().flat_map(|d| d.iter()) {
            let (func, is_async): (Py<PyAny>, bool) = value.extract()?;
            map.insert(key.extract()?, PyCallback::new(func, is_async, event_loop.clone()));
        }
        Ok(Callbacks(map))
    }

    /// The capabilities implied by the roles present.
    fn capabilities(&self) -> ClientCapabilities {
        let mut caps = ClientCapabilities::default();
        if self.0.contains_key("sampling") {
            caps = caps.with_sampling();
        }
        if self.0.contains_key("elicitation") {
            caps = caps.with_elicitation(false);
        }
        if self.0.contains_key("roots") {
            caps = caps.with_roots(true);
        }
        caps
    }

    async fn request<P, R>(&self, role: &str, params: P) -> Result<R, ErrorData>
    where
        P: Serialize + Send + 'static,
        R: DeserializeOwned,
    {
        let callback = self.0.get(role).ok_or_else(|| ErrorData::method_not_found(role))?;
        let out = callback.call(move |py| PyTuple::new(py, [convert::to_py(py, &params)?])).await?;
        serde_json::from_value(out)
            .map_err(|e| ErrorData::internal_error(format!("the {role} handler returned an invalid result: {e}")))
    }

    async fn notify<P: Serialize + Send + 'static>(&self, role: &str, params: P) {
        if let Some(callback) = self.0.get(role)
            && let Err(e) = callback.call(move |py| PyTuple::new(py, [convert::to_py(py, &params)?])).await
        {
            tracing::warn!(error = %e, role, "a client callback failed");
        }
    }
}

#[async_trait]
impl ClientHandler for Callbacks {
    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: IncomingRequest,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.request("sampling", params).await
    }

    async fn elicit(&self, params: ElicitRequestParams, _context: IncomingRequest) -> Result<ElicitResult, ErrorData> {
        self.request("elicitation", params).await
    }

    async fn list_roots(&self, _context: IncomingRequest) -> Result<ListRootsResult, ErrorData> {
        self.request("roots", Value::Null).await
    }

    async fn on_log_message(&self, params: LoggingMessageNotificationParams) {
        self.notify("logging", params).await;
    }

    async fn on_resource_updated(&self, params: ResourceUpdatedNotificationParams) {
        self.notify("resource_updated", params).await;
    }

    async fn on_list_changed(&self, method: &str) {
        self.notify("list_changed", method.to_owned()).await;
    }
}

fn connect<'py, T: Transport>(
    py: Python<'py>,
    transport: impl FnOnce() -> Result<T, mcpkit::Error> + Send + 'static,
    handlers: Option<&Bound<'py, PyDict>>,
    timeout: Option<f64>,
) -> PyResult<Bound<'py, PyAny>> {
    let event_loop = LoopSlot::default();
    event_loop.capture(py)?;
    let callbacks = Callbacks::from_dict(handlers, &event_loop)?;
    let mut options =
        ClientOptions::new("mcpkit-python", env!("CARGO_PKG_VERSION")).with_capabilities(callbacks.capabilities());
    if let Some(seconds) = timeout {
        options = options.with_request_timeout(Duration::from_secs_f64(seconds));
    }
    runtime::future_into_py(py, async move {
        let transport = transport().map_err(IntoPyErr::into_py_err)?;
        let inner =
            Client::connect_with_handler(transport, options, callbacks).await.map_err(IntoPyErr::into_py_err)?;
        Ok(PyClient { inner, event_loop })
    })
}

/// A connected MCP client.
#[pyclass(name = "Client", module = "mcpkit._native", frozen)]
pub(crate) struct PyClient {
    inner: Client,
    event_loop: LoopSlot,
}

/// Runs one client call and hands its serialized result to Python.
fn call<'py, F, T>(py: Python<'py>, fut: F) -> PyResult<Bound<'py, PyAny>>
where
    F: Future<Output = Result<T, mcpkit::Error>> + Send + 'static,
    T: Serialize,
{
    runtime::future_into_py(py, async move { Json::of(&fut.await.map_err(IntoPyErr::into_py_err)?) })
}

#[pymethods]
impl PyClient {
    /// Spawns `command` and connects to it over stdio. `handlers` maps roles (`sampling`,
    /// `elicitation`, `roots`, `logging`, `resource_updated`, `list_changed`) to
    /// `(callable, is_async)`.
    #[staticmethod]
    #[pyo3(signature = (command, handlers=None, timeout=None))]
    fn connect_stdio<'py>(
        py: Python<'py>,
        command: Vec<String>,
        handlers: Option<&Bound<'py, PyDict>>,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (program, args) =
            command.split_first().ok_or_else(|| pyo3::exceptions::PyValueError::new_err("the command is empty"))?;
        let (program, args) = (program.clone(), args.to_vec());
        connect(py, move || ChildProcessTransport::command(program, args), handlers, timeout)
    }

    /// Connects to a Streamable HTTP endpoint.
    #[staticmethod]
    #[pyo3(signature = (url, handlers=None, timeout=None))]
    fn connect_http<'py>(
        py: Python<'py>,
        url: String,
        handlers: Option<&Bound<'py, PyDict>>,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        connect(py, move || StreamableHttpClientTransport::new(url), handlers, timeout)
    }

    /// Connects to a server in this process over an in-memory transport.
    #[staticmethod]
    #[pyo3(signature = (server, handlers=None, timeout=None))]
    fn connect_memory<'py>(
        py: Python<'py>,
        server: &PyServer,
        handlers: Option<&Bound<'py, PyDict>>,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        server.event_loop.capture(py)?;
        let (ours, theirs) = memory_pair();
        let _guard = runtime::runtime().enter();
        server.inner.serve(theirs);
        connect(py, move || Ok(ours), handlers, timeout)
    }

    /// What the server answered to `initialize`, as a dict.
    #[getter]
    fn server<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_py(py, self.inner.server())
    }

    /// Lists every tool, following the pages.
    fn list_tools<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let inner = self.inner.clone();
        call(py, async move { inner.list_all_tools().await })
    }

    /// Calls a tool. `progress(params)` is scheduled on the loop for each progress
    /// notification; `timeout` is in seconds.
    #[pyo3(signature = (name, arguments=None, progress=None, timeout=None))]
    fn call_tool<'py>(
        &self,
        py: Python<'py>,
        name: String,
        arguments: Option<&Bound<'py, PyAny>>,
        progress: Option<Py<PyAny>>,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let arguments: Option<JsonObject> = arguments.map(|a| convert::extract(a, "tool arguments")).transpose()?;
        let mut params = CallToolRequestParams::new(name, JsonObject::new());
        params.arguments = arguments;
        let mut options = RequestOptions::new();
        if let Some(seconds) = timeout {
            options = options.with_timeout(Duration::from_secs_f64(seconds));
        }
        if let Some(callback) = progress {
            let event_loop = self.event_loop.clone();
            options = options.with_progress(move |p| {
                runtime::attach(|py| {
                    let scheduled = convert::to_py(py, &p).and_then(|p| event_loop.call_soon(py, &callback, p));
                    if let Err(e) = scheduled {
                        tracing::warn!(error = %e, "the progress callback could not be scheduled");
                    }
                });
            });
        }
        let inner = self.inner.clone();
        call(py, async move { inner.call_tool_with(params, options).await })
    }

    /// Lists every resource, following the pages.
    fn list_resources<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let inner = self.inner.clone();
        call(py, async move { inner.list_all_resources().await })
    }

    /// Lists every resource template, following the pages.
    fn list_resource_templates<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let inner = self.inner.clone();
        call(py, async move { inner.list_all_resource_templates().await })
    }

    /// Reads a resource.
    fn read_resource<'py>(&self, py: Python<'py>, uri: String) -> PyResult<Bound<'py, PyAny>> {
        let inner = self.inner.clone();
        call(py, async move { inner.read_resource(&uri).await })
    }

    /// Subscribes to updates of a resource.
    fn subscribe<'py>(&self, py: Python<'py>, uri: String) -> PyResult<Bound<'py, PyAny>> {
        let inner = self.inner.clone();
        call(py, async move { inner.subscribe(&uri).await })
    }

    /// Ends a subscription.
    fn unsubscribe<'py>(&self, py: Python<'py>, uri: String) -> PyResult<Bound<'py, PyAny>> {
        let inner = self.inner.clone();
        call(py, async move { inner.unsubscribe(&uri).await })
    }

    /// Lists every prompt, following the pages.
    fn list_prompts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let inner = self.inner.clone();
        call(py, async move { inner.list_all_prompts().await })
    }

    /// Gets a prompt with string arguments.
    #[pyo3(signature = (name, arguments=None))]
    fn get_prompt<'py>(
        &self,
        py: Python<'py>,
        name: String,
        arguments: Option<HashMap<String, String>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let inner = self.inner.clone();
        call(py, async move {
            let arguments = arguments.unwrap_or_default();
            inner.get_prompt(&name, arguments.iter().map(|(k, v)| (k.as_str(), v.as_str()))).await
        })
    }

    /// Asks for completions of `argument` (currently `value`) of a prompt or template `ref`.
    fn complete<'py>(
        &self,
        py: Python<'py>,
        reference: &Bound<'py, PyAny>,
        argument: String,
        value: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        let reference: CompletionReference = convert::extract(reference, "completion reference")?;
        let inner = self.inner.clone();
        call(py, async move { inner.complete(reference, &argument, &value).await })
    }

    /// Sets the lowest level of log messages the server sends.
    fn set_logging_level<'py>(&self, py: Python<'py>, level: &str) -> PyResult<Bound<'py, PyAny>> {
        let level = logging_level(level)?;
        let inner = self.inner.clone();
        call(py, async move { inner.set_logging_level(level).await })
    }

    /// Sends `ping`.
    fn ping<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let inner = self.inner.clone();
        call(py, async move { inner.ping().await })
    }

    /// Tells the server that the client's roots changed.
    fn notify_roots_changed(&self) -> PyResult<()> {
        self.inner.notify_roots_list_changed().map_err(IntoPyErr::into_py_err)
    }

    /// Closes the connection; the awaitable ends when the session has ended.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let inner = self.inner.clone();
        runtime::future_into_py(py, async move {
            inner.close().await;
            Ok(())
        })
    }
}
