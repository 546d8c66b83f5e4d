//! The server handle: registrations backed by Python callables, and serving over stdio or HTTP.

use std::{collections::HashMap, sync::Mutex};

use async_trait::async_trait;
use mcpkit::{
    ErrorData, RequestContext, Server,
    http::{BoundHttpServer, HttpServerOptions, StreamableHttpServer},
    model::{
        CallToolResult, CompleteRequestParams, CompleteResult, GetPromptResult, Implementation, JsonObject, Prompt,
        ReadResourceResult, Resource, ResourceTemplate, Tool,
    },
    server::{CompletionHandler, PromptHandler, ResourceHandler, ResourceRequest, ServerOptions, ToolHandler},
};
use pyo3::{exceptions::PyValueError, prelude::*, types::PyTuple};
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::{
    context::{PyContext, logging_level},
    convert,
    error::IntoPyErr,
    runtime::{self, LoopSlot, PyCallback},
};

/// Adapts one Python callable to every server handler trait of the core.
struct Handler(PyCallback);

fn decode<T: DeserializeOwned>(value: Value, what: &str) -> Result<T, ErrorData> {
    serde_json::from_value(value)
        .map_err(|e| ErrorData::internal_error(format!("the {what} handler returned an invalid result: {e}")))
}

fn with_context<'py>(
    py: Python<'py>,
    first: Bound<'py, PyAny>,
    context: RequestContext,
) -> PyResult<Bound<'py, PyTuple>> {
    let context = Bound::new(py, PyContext::new(context))?.into_any();
    PyTuple::new(py, [first, context])
}

#[async_trait]
impl ToolHandler for Handler {
    async fn call(&self, arguments: JsonObject, context: RequestContext) -> Result<CallToolResult, ErrorData> {
        let out = self.0.call(move |py| with_context(py, convert::to_py(py, &arguments)?, context)).await?;
        decode(out, "tool")
    }
}

#[async_trait]
impl ResourceHandler for Handler {
    async fn read(&self, request: ResourceRequest, context: RequestContext) -> Result<ReadResourceResult, ErrorData> {
        let out = self
            .0
            .call(move |py| {
                let context = Bound::new(py, PyContext::new(context))?.into_any();
                let args =
                    [request.uri.into_pyobject(py)?.into_any(), convert::to_py(py, &request.variables)?, context];
                PyTuple::new(py, args)
            })
            .await?;
        decode(out, "resource")
    }
}

#[async_trait]
impl PromptHandler for Handler {
    async fn get(
        &self,
        arguments: HashMap<String, String>,
        context: RequestContext,
    ) -> Result<GetPromptResult, ErrorData> {
        let out = self.0.call(move |py| with_context(py, convert::to_py(py, &arguments)?, context)).await?;
        decode(out, "prompt")
    }
}

#[async_trait]
impl CompletionHandler for Handler {
    async fn complete(
        &self,
        params: CompleteRequestParams,
        context: RequestContext,
    ) -> Result<CompleteResult, ErrorData> {
        let out = self.0.call(move |py| with_context(py, convert::to_py(py, &params)?, context)).await?;
        match out {
            Value::Array(_) => Ok(CompleteResult::new(decode(out, "completion")?)),
            other => decode(other, "completion"),
        }
    }
}

/// An MCP server whose handlers are Python callables.
#[pyclass(name = "Server", module = "mcpkit._native", frozen)]
pub(crate) struct PyServer {
    pub(crate) inner: Server,
    pub(crate) event_loop: LoopSlot,
}

impl PyServer {
    fn handler(&self, func: Py<PyAny>, is_async: bool) -> Handler {
        Handler(PyCallback::new(func, is_async, self.event_loop.clone()))
    }
}

#[pymethods]
impl PyServer {
    /// Creates a server that presents itself as `name` `version`.
    #[new]
    #[pyo3(signature = (name, version, instructions=None))]
    fn new(name: String, version: String, instructions: Option<String>) -> Self {
        let mut options = ServerOptions::new();
        if let Some(instructions) = instructions {
            options = options.with_instructions(instructions);
        }
        PyServer { inner: Server::new(Implementation::new(name, version), options), event_loop: LoopSlot::default() }
    }

    /// Registers a tool (a `Tool` dict) answered by `handler(arguments, context)`.
    fn add_tool(&self, tool: &Bound<'_, PyAny>, handler: Py<PyAny>, is_async: bool) -> PyResult<()> {
        let tool: Tool = convert::extract(tool, "tool")?;
        self.inner.add_tool(tool, self.handler(handler, is_async)).map_err(IntoPyErr::into_py_err)
    }

    /// Registers a resource (a `Resource` dict) read by `handler(uri, variables, context)`.
    fn add_resource(&self, resource: &Bound<'_, PyAny>, handler: Py<PyAny>, is_async: bool) -> PyResult<()> {
        let resource: Resource = convert::extract(resource, "resource")?;
        self.inner.add_resource(resource, self.handler(handler, is_async));
        Ok(())
    }

    /// Registers a resource template (a `ResourceTemplate` dict) read by
    /// `handler(uri, variables, context)`.
    fn add_resource_template(&self, template: &Bound<'_, PyAny>, handler: Py<PyAny>, is_async: bool) -> PyResult<()> {
        let template: ResourceTemplate = convert::extract(template, "resource template")?;
        let handler = self.handler(handler, is_async);
        self.inner.add_resource_template(template, handler).map_err(IntoPyErr::into_py_err)
    }

    /// Registers a prompt (a `Prompt` dict) rendered by `handler(arguments, context)`.
    fn add_prompt(&self, prompt: &Bound<'_, PyAny>, handler: Py<PyAny>, is_async: bool) -> PyResult<()> {
        let prompt: Prompt = convert::extract(prompt, "prompt")?;
        self.inner.add_prompt(prompt, self.handler(handler, is_async));
        Ok(())
    }

    /// Sets `handler(params, context)` as the answer to `completion/complete`; it returns a
    /// list of values or a `CompleteResult` dict.
    fn set_completion_handler(&self, handler: Py<PyAny>, is_async: bool) {
        self.inner.set_completion_handler(self.handler(handler, is_async));
    }

    /// Removes a tool, returning whether it existed.
    fn remove_tool(&self, name: &str) -> bool {
        self.inner.remove_tool(name)
    }

    /// Removes a resource, returning whether it existed.
    fn remove_resource(&self, uri: &str) -> bool {
        self.inner.remove_resource(uri)
    }

    /// Removes a resource template, returning whether it existed.
    fn remove_resource_template(&self, uri_template: &str) -> bool {
        self.inner.remove_resource_template(uri_template)
    }

    /// Removes a prompt, returning whether it existed.
    fn remove_prompt(&self, name: &str) -> bool {
        self.inner.remove_prompt(name)
    }

    /// Tells subscribed clients that the resource at `uri` changed.
    fn notify_resource_updated(&self, uri: &str) {
        self.inner.notify_resource_updated(uri);
    }

    /// Sends a log message to every client whose level lets it through.
    #[pyo3(signature = (level, data, logger=None))]
    fn log(&self, level: &str, data: &Bound<'_, PyAny>, logger: Option<&str>) -> PyResult<()> {
        self.inner.log(logging_level(level)?, logger, convert::from_py(data)?);
        Ok(())
    }

    /// The capabilities the server declares now, as a dict.
    #[getter]
    fn capabilities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_py(py, &self.inner.capabilities())
    }

    /// Serves one session over stdin and stdout; the awaitable ends when the client leaves.
    fn serve_stdio<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.event_loop.capture(py)?;
        let server = self.inner.clone();
        runtime::future_into_py(py, async move { server.serve_stdio().await.map_err(IntoPyErr::into_py_err) })
    }

    /// Serves Streamable HTTP on `host`:`port` (0 picks a free port); the awaitable gives the
    /// running `HttpServer`.
    #[pyo3(signature = (host, port, path=None))]
    fn serve_http<'py>(
        &self,
        py: Python<'py>,
        host: String,
        port: u16,
        path: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.event_loop.capture(py)?;
        let server = self.inner.clone();
        let mut options = HttpServerOptions::new();
        if let Some(path) = path {
            options = options.with_path(path);
        }
        runtime::future_into_py(py, async move {
            let addr = tokio::net::lookup_host((host.as_str(), port))
                .await?
                .next()
                .ok_or_else(|| PyValueError::new_err(format!("{host} resolves to no address")))?;
            let bound = StreamableHttpServer::bind(server, addr, options).await.map_err(IntoPyErr::into_py_err)?;
            Ok(PyHttpServer { url: bound.url(), bound: Mutex::new(Some(bound)), closed: CancellationToken::new() })
        })
    }
}

/// A running Streamable HTTP server.
#[pyclass(name = "HttpServer", module = "mcpkit._native", frozen)]
pub(crate) struct PyHttpServer {
    url: String,
    bound: Mutex<Option<BoundHttpServer>>,
    closed: CancellationToken,
}

#[pymethods]
impl PyHttpServer {
    /// The URL of the MCP endpoint, such as `http://127.0.0.1:8000/mcp`.
    #[getter]
    fn url(&self) -> &str {
        &self.url
    }

    /// Stops the server and ends its sessions; the awaitable ends once it stopped.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let bound = self.bound.lock().unwrap_or_else(|e| e.into_inner()).take();
        let closed = self.closed.clone();
        runtime::future_into_py(py, async move {
            if let Some(bound) = bound {
                bound.shutdown().await;
            }
            closed.cancel();
            Ok(())
        })
    }

    /// Returns an awaitable that ends when the server is closed.
    fn wait<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let closed = self.closed.clone();
        runtime::future_into_py(py, async move {
            closed.cancelled().await;
            Ok(())
        })
    }
}
