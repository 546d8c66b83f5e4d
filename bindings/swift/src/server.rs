//! The server handle, the foreign handler traits Swift implements (and how their calls are
//! answered), and the HTTP server handle.

use std::sync::Arc;

use async_trait::async_trait;
use mcpweft_bridge::{Callback, Context, Error, HttpServer, Reply, Server, to_json_text};
use serde_json::Value;

use crate::{
    NativeCancelHandle, NativeContext, NativeError, NativeHttpEndpoint, NativeMiddleware,
    error::{Result, parse},
    runtime::cancellable,
};

/// A handler written in Swift: it starts one call from the JSON text of the payload and the
/// request's context, and answers through `reply` with the JSON text of the handler's value.
///
/// The bridge's result rules and error policy turn the value into the MCP result. `start`
/// returns the running call, or `None` when it has answered already; dropping the call on the
/// Rust side (the request was cancelled) cancels it.
#[uniffi::export(with_foreign)]
pub trait NativeHandler: Send + Sync {
    /// Starts a call.
    fn start(
        &self,
        payload: String,
        context: Arc<NativeContext>,
        reply: Arc<NativeReply>,
    ) -> Option<Arc<dyn NativeCall>>;
}

/// A call of a Swift handler that has not answered yet.
#[uniffi::export(with_foreign)]
pub trait NativeCall: Send + Sync {
    /// Cancels the call (the Swift task running it), which still answers through its reply.
    fn cancel(&self);
}

/// Where a call of a Swift handler answers; the first answer counts.
#[derive(uniffi::Object)]
pub struct NativeReply {
    reply: Reply,
    /// What the result is, in errors: "a handler's result", "a middleware's result".
    result: String,
}

#[uniffi::export]
impl NativeReply {
    /// Answers with the JSON text of the handler's value.
    pub fn resolve(&self, value: String) {
        self.reply.resolve_json(&value, &self.result);
    }

    /// Answers with the string `text` itself, which needs no JSON text: the handler's value
    /// was that string, so a long text is neither escaped by Swift nor parsed by the glue.
    pub fn resolve_text(&self, text: String) {
        self.reply.resolve_text(text);
    }

    /// Answers with an error.
    pub fn reject(&self, error: NativeError) {
        self.reply.reject(error.into());
    }
}

/// A listener written in Swift that hears JSON payloads, such as progress notifications.
#[uniffi::export(with_foreign)]
pub trait NativeListener: Send + Sync {
    /// Hears one payload.
    fn hear(&self, payload: String);
}

/// A call of a Swift handler that is cancelled when dropped before it answered.
struct Running(Option<Arc<dyn NativeCall>>);

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(call) = self.0.take() {
            call.cancel();
        }
    }
}

/// Starts a call of Swift code with `start`, which answers through the reply it is given, and
/// returns the answer's JSON; dropped before the answer came, it cancels the call. `what` names
/// the Swift code (a handler, a middleware) in errors.
pub(crate) async fn answer(
    what: &str,
    start: impl FnOnce(Arc<NativeReply>) -> Option<Arc<dyn NativeCall>>,
) -> std::result::Result<Value, Error> {
    let (reply, answer) = mcpweft_bridge::reply();
    let mut running = Running(start(Arc::new(NativeReply { reply, result: format!("a {what}'s result") })));
    let outcome = answer.wait(|| Error::internal(format!("a Swift {what} ended without answering"))).await;
    running.0 = None;
    outcome
}

/// Adapts a Swift handler to the bridge's one callback shape.
pub(crate) struct Foreign(Arc<dyn NativeHandler>);

impl Foreign {
    pub(crate) fn callback(handler: Arc<dyn NativeHandler>) -> Arc<dyn Callback> {
        Arc::new(Foreign(handler))
    }
}

#[async_trait]
impl Callback for Foreign {
    async fn call(&self, payload: Value, context: Context) -> std::result::Result<Value, Error> {
        let context = Arc::new(NativeContext::new(context));
        answer("handler", |reply| self.0.start(to_json_text(&payload), context, reply)).await
    }
}

/// An MCP server whose handlers are written in Swift.
#[derive(uniffi::Object)]
pub struct NativeServer {
    pub(crate) inner: Server,
}

#[uniffi::export]
impl NativeServer {
    /// Creates a server from the JSON text of its description and settings (see the bridge's
    /// `Server::new`).
    #[uniffi::constructor]
    pub fn new(spec: String) -> Result<Arc<Self>> {
        Ok(Arc::new(NativeServer { inner: Server::new(parse(&spec, "the server description")?)? }))
    }

    /// Registers a tool from the JSON text of its `Tool` descriptor; a tool of the same name is
    /// refused unless `replace`.
    pub fn add_tool(&self, descriptor: String, handler: Arc<dyn NativeHandler>, replace: bool) -> Result<()> {
        Ok(self.inner.add_tool(parse(&descriptor, "the tool")?, Foreign::callback(handler), replace)?)
    }

    /// Registers a resource from the JSON text of its `Resource` descriptor; one at the same URI
    /// is refused unless `replace`.
    pub fn add_resource(&self, descriptor: String, handler: Arc<dyn NativeHandler>, replace: bool) -> Result<()> {
        Ok(self.inner.add_resource(parse(&descriptor, "the resource")?, Foreign::callback(handler), replace)?)
    }

    /// Registers a resource template from the JSON text of its `ResourceTemplate` descriptor;
    /// one with the same URI template is refused unless `replace`.
    pub fn add_resource_template(
        &self,
        descriptor: String,
        handler: Arc<dyn NativeHandler>,
        replace: bool,
    ) -> Result<()> {
        let descriptor = parse(&descriptor, "the resource template")?;
        Ok(self.inner.add_resource_template(descriptor, Foreign::callback(handler), replace)?)
    }

    /// Registers a resource template like `add_resource_template`, whose resources `list`
    /// lists in `resources/list`: it gets `{}` and returns the JSON text of an array of
    /// `Resource` objects or of `{"resources": [...]}`, each taking the template's metadata
    /// where it sets none. One with the same URI template is refused unless `replace`.
    pub fn add_listed_resource_template(
        &self,
        descriptor: String,
        handler: Arc<dyn NativeHandler>,
        list: Arc<dyn NativeHandler>,
        replace: bool,
    ) -> Result<()> {
        let descriptor = parse(&descriptor, "the resource template")?;
        let (handler, list) = (Foreign::callback(handler), Foreign::callback(list));
        Ok(self.inner.add_listed_resource_template(descriptor, handler, list, replace)?)
    }

    /// Registers a prompt from the JSON text of its `Prompt` descriptor; one of the same name is
    /// refused unless `replace`.
    pub fn add_prompt(&self, descriptor: String, handler: Arc<dyn NativeHandler>, replace: bool) -> Result<()> {
        Ok(self.inner.add_prompt(parse(&descriptor, "the prompt")?, Foreign::callback(handler), replace)?)
    }

    /// Sets the handler of `completion/complete`.
    pub fn set_completion(&self, handler: Arc<dyn NativeHandler>) {
        self.inner.set_completion(Foreign::callback(handler));
    }

    /// Sets the handler that hears that a client's roots changed; it can be set once.
    pub fn on_roots_changed(&self, handler: Arc<dyn NativeHandler>) -> Result<()> {
        Ok(self.inner.on_roots_changed(Foreign::callback(handler))?)
    }

    /// Removes a tool, returning whether it existed.
    pub fn remove_tool(&self, name: String) -> bool {
        self.inner.remove_tool(&name)
    }

    /// Removes a resource by URI, returning whether it existed.
    pub fn remove_resource(&self, uri: String) -> bool {
        self.inner.remove_resource(&uri)
    }

    /// Removes a resource template by its URI template, returning whether it existed.
    pub fn remove_resource_template(&self, uri_template: String) -> bool {
        self.inner.remove_resource_template(&uri_template)
    }

    /// Removes a prompt, returning whether it existed.
    pub fn remove_prompt(&self, name: String) -> bool {
        self.inner.remove_prompt(&name)
    }

    /// Serves a skill of the skills extension, from the JSON text of its descriptor
    /// (`skillMd`, `files`); a skill of the same name is refused unless `replace`.
    pub fn add_skill(&self, descriptor: String, replace: bool) -> Result<()> {
        Ok(self.inner.add_skill(parse(&descriptor, "the skill")?, replace)?)
    }

    /// Serves the HTML view of an app (MCP Apps) from the JSON text of its descriptor (`uri`, a
    /// `ui://` URI, `name`, `html`, and optionally `csp`, `permissions`, `domain` and
    /// `prefersBorder`); tools bind to it with `_meta.ui.resourceUri` in their descriptors.
    pub fn add_app_view(&self, descriptor: String) -> Result<()> {
        Ok(self.inner.add_app_view(parse(&descriptor, "the app view")?)?)
    }

    /// Adds a middleware written in Swift around every message of the sessions started from
    /// now on, inside those already added.
    pub fn add_middleware(&self, middleware: Arc<dyn NativeMiddleware>) {
        self.inner.add_middleware(crate::middleware::callback(middleware));
    }

    /// Adds one of the core's built-in middleware from the JSON text of its settings
    /// (`{"timing": {}}`, `{"rateLimit": {...}}`, `{"cache": {...}}`, `{"openTelemetry": {}}`),
    /// inside those already added.
    pub fn add_builtin_middleware(&self, spec: String) -> Result<()> {
        Ok(self.inner.add_builtin_middleware(parse(&spec, "the built-in middleware")?)?)
    }

    /// Tells the clients subscribed to `uri` that the resource changed.
    pub fn notify_resource_updated(&self, uri: String) {
        self.inner.notify_resource_updated(&uri);
    }

    /// Sends a log message (the JSON text `data`) at `level` to every client that wants it.
    pub fn log(&self, level: String, data: String, logger: Option<String>) -> Result<()> {
        Ok(self.inner.log(&level, parse(&data, "the log data")?, logger.as_deref())?)
    }

    /// Returns the JSON text of the capabilities the server declares now.
    pub fn capabilities(&self) -> String {
        self.inner.capabilities().to_string()
    }

    /// Serves one client over this process's stdin and stdout until it leaves.
    pub async fn serve_stdio(&self, cancel: Option<Arc<NativeCancelHandle>>) -> Result<()> {
        Ok(cancellable(self.inner.serve_stdio(), cancel).await?)
    }

    /// Serves Streamable HTTP on its own port; `options` is the JSON text of the bridge's
    /// HTTP options (`host`, `port`, `path`, ...).
    pub async fn serve_http(&self, options: String) -> Result<Arc<NativeHttpServer>> {
        let options = parse(&options, "the HTTP options")?;
        Ok(Arc::new(NativeHttpServer { inner: self.inner.serve_http(options).await? }))
    }

    /// Serves Streamable HTTP like `serve_http`, protected by the options' `auth`, with bearer
    /// tokens checked by `verifier`: its payload is `{"token"}`, and it returns the JSON text
    /// of the caller's identity, or `null` or an error to refuse the token.
    pub async fn serve_http_with_verifier(
        &self,
        options: String,
        verifier: Arc<dyn NativeHandler>,
    ) -> Result<Arc<NativeHttpServer>> {
        let options = parse(&options, "the HTTP options")?;
        let inner = self.inner.serve_http_with_verifier(options, Foreign::callback(verifier)).await?;
        Ok(Arc::new(NativeHttpServer { inner }))
    }

    /// Returns an endpoint that answers the HTTP exchanges a host application's own server
    /// receives; `options` is the JSON text of the bridge's HTTP options without `host` and
    /// `port`.
    pub fn http_endpoint(&self, options: String) -> Result<Arc<NativeHttpEndpoint>> {
        let options = parse(&options, "the HTTP options")?;
        Ok(Arc::new(NativeHttpEndpoint::new(self.inner.http_endpoint(options)?)))
    }

    /// Returns an endpoint like `http_endpoint`, protected by the options' `auth`, with bearer
    /// tokens checked by `verifier` as in `serve_http_with_verifier`.
    pub fn http_endpoint_with_verifier(
        &self,
        options: String,
        verifier: Arc<dyn NativeHandler>,
    ) -> Result<Arc<NativeHttpEndpoint>> {
        let options = parse(&options, "the HTTP options")?;
        let inner = self.inner.http_endpoint_with_verifier(options, Foreign::callback(verifier))?;
        Ok(Arc::new(NativeHttpEndpoint::new(inner)))
    }
}

/// A running Streamable HTTP server.
#[derive(uniffi::Object)]
pub struct NativeHttpServer {
    inner: HttpServer,
}

#[uniffi::export]
impl NativeHttpServer {
    /// Returns the URL of the MCP endpoint.
    pub fn url(&self) -> String {
        self.inner.url().to_owned()
    }

    /// Stops the server and ends its sessions; closing again does nothing.
    pub async fn close(&self) -> Result<()> {
        Ok(self.inner.close().await?)
    }

    /// Returns when the server is closed.
    pub async fn wait(&self, cancel: Option<Arc<NativeCancelHandle>>) -> Result<()> {
        Ok(cancellable(self.inner.wait(), cancel).await?)
    }
}
