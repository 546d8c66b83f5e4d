//! The server handle.

use mcpweft_bridge::Server;
use napi::bindgen_prelude::Function;
use napi_derive::napi;

use crate::{
    callback::callback,
    error::{parse_or_throw, throw},
    http::{NativeHttpEndpoint, NativeHttpServer},
    middleware::middleware,
    task::{Done, Pending, settle},
};

/// A JavaScript handler trampoline.
type Handler<'a> = Function<'a, (), ()>;

/// An MCP server whose handlers are JavaScript functions.
#[napi]
pub struct NativeServer {
    pub(crate) inner: Server,
}

#[napi]
impl NativeServer {
    /// Creates a server from the JSON text of its description and settings.
    #[napi(constructor, catch_unwind)]
    pub fn new(spec: String) -> napi::Result<Self> {
        let inner = Server::new(parse_or_throw(&spec, "server description")?).map_err(throw)?;
        Ok(NativeServer { inner })
    }

    /// Registers a tool from the JSON text of its `Tool` descriptor; a tool of the same name is
    /// refused unless `replace`.
    #[napi(
        catch_unwind,
        ts_args_type = "descriptor: string, handler: (payloads: string[], contexts: NativeContext[]) => void, replace: boolean"
    )]
    pub fn add_tool(&self, descriptor: String, handler: Handler<'_>, replace: bool) -> napi::Result<()> {
        let descriptor = parse_or_throw(&descriptor, "tool")?;
        self.inner.add_tool(descriptor, callback(handler)?, replace).map_err(throw)
    }

    /// Registers a resource from the JSON text of its `Resource` descriptor; one at the same URI
    /// is refused unless `replace`.
    #[napi(
        catch_unwind,
        ts_args_type = "descriptor: string, handler: (payloads: string[], contexts: NativeContext[]) => void, replace: boolean"
    )]
    pub fn add_resource(&self, descriptor: String, handler: Handler<'_>, replace: bool) -> napi::Result<()> {
        let descriptor = parse_or_throw(&descriptor, "resource")?;
        self.inner.add_resource(descriptor, callback(handler)?, replace).map_err(throw)
    }

    /// Registers a resource template from the JSON text of its `ResourceTemplate` descriptor;
    /// one with the same URI template is refused unless `replace`; `list`, when given, lists its
    /// resources in `resources/list`.
    #[napi(
        catch_unwind,
        ts_args_type = "descriptor: string, handler: (payloads: string[], contexts: NativeContext[]) => void, replace: boolean, list: ((payloads: string[], contexts: NativeContext[]) => void) | null"
    )]
    pub fn add_resource_template(
        &self,
        descriptor: String,
        handler: Handler<'_>,
        replace: bool,
        list: Option<Handler<'_>>,
    ) -> napi::Result<()> {
        let descriptor = parse_or_throw(&descriptor, "resource template")?;
        match list {
            Some(list) => {
                self.inner.add_listed_resource_template(descriptor, callback(handler)?, callback(list)?, replace)
            }
            None => self.inner.add_resource_template(descriptor, callback(handler)?, replace),
        }
        .map_err(throw)
    }

    /// Registers a prompt from the JSON text of its `Prompt` descriptor; one of the same name is
    /// refused unless `replace`.
    #[napi(
        catch_unwind,
        ts_args_type = "descriptor: string, handler: (payloads: string[], contexts: NativeContext[]) => void, replace: boolean"
    )]
    pub fn add_prompt(&self, descriptor: String, handler: Handler<'_>, replace: bool) -> napi::Result<()> {
        let descriptor = parse_or_throw(&descriptor, "prompt")?;
        self.inner.add_prompt(descriptor, callback(handler)?, replace).map_err(throw)
    }

    /// Sets the handler of `completion/complete`.
    #[napi(catch_unwind, ts_args_type = "handler: (payloads: string[], contexts: NativeContext[]) => void")]
    pub fn set_completion(&self, handler: Handler<'_>) -> napi::Result<()> {
        self.inner.set_completion(callback(handler)?);
        Ok(())
    }

    /// Sets the handler that hears that a client's roots changed; it can be set once.
    #[napi(catch_unwind, ts_args_type = "handler: (payloads: string[], contexts: NativeContext[]) => void")]
    pub fn on_roots_changed(&self, handler: Handler<'_>) -> napi::Result<()> {
        self.inner.on_roots_changed(callback(handler)?).map_err(throw)
    }

    /// Adds a JavaScript middleware around every message of the sessions started from now on,
    /// inside those already added.
    #[napi(catch_unwind, ts_args_type = "middleware: (payloads: string[], nexts: NativeNext[]) => void")]
    pub fn add_middleware(&self, handler: Handler<'_>) -> napi::Result<()> {
        self.inner.add_middleware(middleware(handler)?);
        Ok(())
    }

    /// Adds one of the core's built-in middleware from the JSON text of its settings
    /// (`{"timing": {}}`, `{"rateLimit": {...}}` or `{"cache": {...}}`), inside those already
    /// added.
    #[napi(catch_unwind)]
    pub fn add_builtin_middleware(&self, spec: String) -> napi::Result<()> {
        let spec = parse_or_throw(&spec, "built-in middleware")?;
        self.inner.add_builtin_middleware(spec).map_err(throw)
    }

    /// Removes a tool, returning whether it existed.
    #[napi(catch_unwind)]
    pub fn remove_tool(&self, name: String) -> bool {
        self.inner.remove_tool(&name)
    }

    /// Removes a resource by URI, returning whether it existed.
    #[napi(catch_unwind)]
    pub fn remove_resource(&self, uri: String) -> bool {
        self.inner.remove_resource(&uri)
    }

    /// Removes a resource template by its URI template, returning whether it existed.
    #[napi(catch_unwind)]
    pub fn remove_resource_template(&self, uri_template: String) -> bool {
        self.inner.remove_resource_template(&uri_template)
    }

    /// Removes a prompt, returning whether it existed.
    #[napi(catch_unwind)]
    pub fn remove_prompt(&self, name: String) -> bool {
        self.inner.remove_prompt(&name)
    }

    /// Serves a skill of the skills extension, with the JSON text of its descriptor
    /// (`skillMd`, `files`); a skill of the same name is refused unless `replace`.
    #[napi(catch_unwind)]
    pub fn add_skill(&self, descriptor: String, replace: bool) -> napi::Result<()> {
        let descriptor = parse_or_throw(&descriptor, "skill")?;
        self.inner.add_skill(descriptor, replace).map_err(throw)
    }

    /// Serves the HTML view of an app (MCP Apps) from the JSON text of its descriptor (`uri`,
    /// `name`, `html`, `csp`, `permissions`, `domain`, `prefersBorder`).
    #[napi(catch_unwind)]
    pub fn add_app_view(&self, descriptor: String) -> napi::Result<()> {
        let descriptor = parse_or_throw(&descriptor, "app view")?;
        self.inner.add_app_view(descriptor).map_err(throw)
    }

    /// Tells the clients subscribed to `uri` that the resource changed.
    #[napi(catch_unwind)]
    pub fn notify_resource_updated(&self, uri: String) {
        self.inner.notify_resource_updated(&uri);
    }

    /// Sends a log message at `level`, with the JSON text `data`, to every client.
    #[napi(catch_unwind)]
    pub fn log(&self, level: String, data: String, logger: Option<String>) -> napi::Result<()> {
        let data = parse_or_throw(&data, "log data")?;
        self.inner.log(&level, data, logger.as_deref()).map_err(throw)
    }

    /// Returns the JSON text of the capabilities the server declares now.
    #[napi(catch_unwind)]
    pub fn capabilities(&self) -> String {
        self.inner.capabilities().to_string()
    }

    /// Serves one client over the process's stdin and stdout.
    #[napi(catch_unwind, ts_args_type = "done: (error: string | null, value: null) => void")]
    pub fn serve_stdio(&self, done: Done<'_>) -> napi::Result<Pending> {
        settle(done, self.inner.serve_stdio(), |()| ())
    }

    /// Serves Streamable HTTP on its own port, with the JSON text of its options.
    #[napi(
        catch_unwind,
        ts_args_type = "options: string, done: (error: string | null, value: NativeHttpServer | null) => void"
    )]
    pub fn serve_http(&self, options: String, done: Done<'_>) -> napi::Result<Pending> {
        let options = parse_or_throw(&options, "HTTP options")?;
        settle(done, self.inner.serve_http(options), NativeHttpServer::new)
    }

    /// Returns an endpoint that answers the exchanges of a host application's HTTP server.
    #[napi(catch_unwind)]
    pub fn http_endpoint(&self, options: String) -> napi::Result<NativeHttpEndpoint> {
        let options = parse_or_throw(&options, "HTTP options")?;
        self.inner.http_endpoint(options).map(NativeHttpEndpoint::new).map_err(throw)
    }

    /// Serves Streamable HTTP like `serve_http`, protected by the options' `auth`, with bearer
    /// tokens checked by `verifier`: its payload is `{"token"}`, and it answers the caller's
    /// identity, or `null` or an error to refuse the token.
    #[napi(
        catch_unwind,
        ts_args_type = "options: string, verifier: (payloads: string[], contexts: NativeContext[]) => void, done: (error: string | null, value: NativeHttpServer | null) => void"
    )]
    pub fn serve_http_with_verifier(
        &self,
        options: String,
        verifier: Handler<'_>,
        done: Done<'_>,
    ) -> napi::Result<Pending> {
        let options = parse_or_throw(&options, "HTTP options")?;
        settle(done, self.inner.serve_http_with_verifier(options, callback(verifier)?), NativeHttpServer::new)
    }

    /// Returns an endpoint like `http_endpoint`, protected by the options' `auth`, with bearer
    /// tokens checked by `verifier` as in `serve_http_with_verifier`.
    #[napi(
        catch_unwind,
        ts_args_type = "options: string, verifier: (payloads: string[], contexts: NativeContext[]) => void"
    )]
    pub fn http_endpoint_with_verifier(
        &self,
        options: String,
        verifier: Handler<'_>,
    ) -> napi::Result<NativeHttpEndpoint> {
        let options = parse_or_throw(&options, "HTTP options")?;
        self.inner.http_endpoint_with_verifier(options, callback(verifier)?).map(NativeHttpEndpoint::new).map_err(throw)
    }
}
