//! The client handle and how to connect it.

use std::sync::Arc;

use mcpweft_bridge::{CallOptions, Client, ClientCallbacks, Subscription, to_json_text};
use serde_json::Value;

use crate::{
    NativeCancelHandle, NativeHandler, NativeListener, NativeMiddlewareEntry, NativeServer,
    error::{Result, parse, parse_optional},
    runtime::cancellable,
    server::Foreign,
};

/// The Swift handlers a client answers the server with; the client declares exactly the
/// capabilities they imply.
#[derive(uniffi::Record, Default)]
pub struct NativeClientHandlers {
    /// Answers `sampling/createMessage`.
    pub sampling: Option<Arc<dyn NativeHandler>>,
    /// Declares sampling with tools.
    pub sampling_tools: bool,
    /// Answers `elicitation/create`.
    pub elicitation: Option<Arc<dyn NativeHandler>>,
    /// Declares form-mode elicitation.
    pub elicitation_form: bool,
    /// Declares URL-mode elicitation.
    pub elicitation_url: bool,
    /// Answers `roots/list`.
    pub roots: Option<Arc<dyn NativeHandler>>,
    /// Hears every notification from the server.
    pub notification: Option<Arc<dyn NativeHandler>>,
    /// Lets the user log in to a protected HTTP server: the payload is
    /// `{"authorizationUrl"}`, and it returns the URL the authorization server redirected to.
    pub authorizer: Option<Arc<dyn NativeHandler>>,
    /// Keeps the tokens of protected HTTP servers: the payload is `{"op": "load",
    /// "resource"}` (it returns the stored tokens or `null`) or `{"op": "save", "resource",
    /// "tokens"}`.
    pub token_store: Option<Arc<dyn NativeHandler>>,
    /// Hears, once, that the connection ended: the payload is `{"reason": "closed",
    /// "message"}` or `{"reason": "disconnected", "message", "exitCode", "signal", "stderr"}`.
    pub close: Option<Arc<dyn NativeHandler>>,
    /// The middleware around every message the client sends and receives, outermost first.
    pub middleware: Vec<NativeMiddlewareEntry>,
}

impl NativeClientHandlers {
    /// The bridge's callbacks; a built-in middleware with bad settings is an error.
    pub(crate) fn callbacks(self) -> Result<ClientCallbacks> {
        let mut callbacks = ClientCallbacks::new();
        for middleware in self.middleware {
            callbacks = middleware.add_to(callbacks)?;
        }
        if let Some(handler) = self.sampling {
            callbacks = callbacks.with_sampling(Foreign::callback(handler), self.sampling_tools);
        }
        if let Some(handler) = self.elicitation {
            let form = self.elicitation_form;
            callbacks = callbacks.with_elicitation(Foreign::callback(handler), form, self.elicitation_url);
        }
        if let Some(handler) = self.roots {
            callbacks = callbacks.with_roots(Foreign::callback(handler));
        }
        if let Some(handler) = self.notification {
            callbacks = callbacks.with_notification(Foreign::callback(handler));
        }
        if let Some(handler) = self.authorizer {
            callbacks = callbacks.with_authorizer(Foreign::callback(handler));
        }
        if let Some(handler) = self.token_store {
            callbacks = callbacks.with_token_store(Foreign::callback(handler));
        }
        if let Some(handler) = self.close {
            callbacks = callbacks.with_close(Foreign::callback(handler));
        }
        Ok(callbacks)
    }
}

/// The options of one request.
#[derive(uniffi::Record, Default)]
pub struct NativeCallOptions {
    /// The JSON text of the bridge's call options (`timeoutMs`, `task`, `meta`); the client's
    /// defaults when `None`.
    pub options: Option<String>,
    /// Hears each `notifications/progress` params object, as JSON text.
    pub progress: Option<Arc<dyn NativeListener>>,
    /// Cancels the request.
    pub cancel: Option<Arc<NativeCancelHandle>>,
}

impl NativeCallOptions {
    /// Splits the options into the bridge's and the cancel handle.
    pub(crate) fn split(self) -> Result<(CallOptions, Option<Arc<NativeCancelHandle>>)> {
        let on_progress = self.progress.map(|listener| {
            let hear: Arc<dyn Fn(Value) + Send + Sync> = Arc::new(move |p: Value| listener.hear(p.to_string()));
            hear
        });
        let options = CallOptions::from_json(parse_optional(self.options, "the call options")?, on_progress)?;
        Ok((options, self.cancel))
    }
}

/// Connects to a server and initializes the session; `transport` and `options` are the JSON
/// texts of the bridge's transport spec and client options.
#[uniffi::export]
pub async fn native_connect(
    transport: String,
    options: Option<String>,
    handlers: NativeClientHandlers,
    cancel: Option<Arc<NativeCancelHandle>>,
) -> Result<Arc<NativeClient>> {
    let transport = parse(&transport, "the transport")?;
    let options = parse_optional(options, "the client options")?;
    let inner = cancellable(Client::connect(transport, options, handlers.callbacks()?), cancel).await?;
    Ok(Arc::new(NativeClient { inner }))
}

/// Connects to `server` in this process over an in-memory transport.
#[uniffi::export]
pub async fn native_connect_memory(
    server: Arc<NativeServer>,
    options: Option<String>,
    handlers: NativeClientHandlers,
) -> Result<Arc<NativeClient>> {
    let options = parse_optional(options, "the client options")?;
    let inner = Client::connect_memory(&server.inner, options, handlers.callbacks()?).await?;
    Ok(Arc::new(NativeClient { inner }))
}

/// A connected MCP client.
#[derive(uniffi::Object)]
pub struct NativeClient {
    inner: Client,
}

#[uniffi::export]
impl NativeClient {
    /// Returns the JSON text of the server's `initialize` result.
    pub fn server_info(&self) -> String {
        self.inner.server_info().to_string()
    }

    /// Returns the negotiated protocol version.
    pub fn protocol_version(&self) -> String {
        self.inner.protocol_version()
    }

    /// Sends any request (`params` is JSON text) and returns the JSON text of its result.
    pub async fn request(&self, method: String, params: Option<String>, options: NativeCallOptions) -> Result<String> {
        let params = parse_optional(params, "the request params")?;
        let (options, cancel) = options.split()?;
        Ok(to_json_text(&cancellable(self.inner.request(&method, params, options), cancel).await?))
    }

    /// Calls a tool with the JSON text of its arguments.
    pub async fn call_tool(
        &self,
        name: String,
        arguments: Option<String>,
        options: NativeCallOptions,
    ) -> Result<String> {
        let arguments = parse_optional(arguments, "the tool arguments")?;
        let (options, cancel) = options.split()?;
        Ok(to_json_text(&cancellable(self.inner.call_tool(&name, arguments, options), cancel).await?))
    }

    /// Checks that the server answers, whatever the revision.
    pub async fn ping(&self, options: NativeCallOptions) -> Result<()> {
        let (options, cancel) = options.split()?;
        Ok(cancellable(self.inner.ping(options), cancel).await?)
    }

    /// Subscribes to updates of the resource at `uri`, whatever the revision.
    pub async fn subscribe(&self, uri: String, options: NativeCallOptions) -> Result<()> {
        let (options, cancel) = options.split()?;
        Ok(cancellable(self.inner.subscribe(&uri, options), cancel).await?)
    }

    /// Ends the subscription to the resource at `uri`.
    pub async fn unsubscribe(&self, uri: String, options: NativeCallOptions) -> Result<()> {
        let (options, cancel) = options.split()?;
        Ok(cancellable(self.inner.unsubscribe(&uri, options), cancel).await?)
    }

    /// Sets the lowest level of the log messages the server sends, whatever the revision.
    pub async fn set_logging_level(&self, level: String, options: NativeCallOptions) -> Result<()> {
        let (options, cancel) = options.split()?;
        Ok(cancellable(self.inner.set_logging_level(&level, options), cancel).await?)
    }

    /// Reads the resource at `uri`; returns the JSON text of its result.
    pub async fn read_resource(&self, uri: String, options: NativeCallOptions) -> Result<String> {
        let (options, cancel) = options.split()?;
        Ok(to_json_text(&cancellable(self.inner.read_resource(&uri, options), cancel).await?))
    }

    /// Reads the HTML view of an app (MCP Apps) at `uri` and returns the JSON text of `{"uri",
    /// "html", "meta"}` (`meta` the view's `_meta.ui`); a resource that is no app view fails
    /// with kind `protocol`.
    pub async fn read_app_view(&self, uri: String, cancel: Option<Arc<NativeCancelHandle>>) -> Result<String> {
        Ok(to_json_text(&cancellable(self.inner.read_app_view(&uri), cancel).await?))
    }

    /// Gets the prompt `name` with the JSON text of its string arguments.
    pub async fn get_prompt(
        &self,
        name: String,
        arguments: Option<String>,
        options: NativeCallOptions,
    ) -> Result<String> {
        let arguments = parse_optional(arguments, "the prompt arguments")?;
        let (options, cancel) = options.split()?;
        Ok(to_json_text(&cancellable(self.inner.get_prompt(&name, arguments, options), cancel).await?))
    }

    /// Asks for completions; `params` is the JSON text of `ref`, `argument` and `context`.
    pub async fn complete(&self, params: String, options: NativeCallOptions) -> Result<String> {
        let params = parse(&params, "the completion params")?;
        let (options, cancel) = options.split()?;
        Ok(to_json_text(&cancellable(self.inner.complete(params, options), cancel).await?))
    }

    /// Returns the JSON text of the current state of the task `task_id` (`tasks/get`).
    pub async fn get_task(&self, task_id: String, options: NativeCallOptions) -> Result<String> {
        let (options, cancel) = options.split()?;
        Ok(to_json_text(&cancellable(self.inner.get_task(&task_id, options), cancel).await?))
    }

    /// Waits until the task `task_id` ends and returns the JSON text of the result of its
    /// request (`tasks/result`).
    pub async fn task_result(&self, task_id: String, options: NativeCallOptions) -> Result<String> {
        let (options, cancel) = options.split()?;
        Ok(to_json_text(&cancellable(self.inner.task_result(&task_id, options), cancel).await?))
    }

    /// Cancels the task `task_id` and returns the JSON text of its final state (`tasks/cancel`).
    pub async fn cancel_task(&self, task_id: String, options: NativeCallOptions) -> Result<String> {
        let (options, cancel) = options.split()?;
        Ok(to_json_text(&cancellable(self.inner.cancel_task(&task_id, options), cancel).await?))
    }

    /// Lists the server's skills (every page of `skills/list`) as the JSON text of an array of
    /// entries, reading no skill file.
    pub async fn list_skills(&self, cancel: Option<Arc<NativeCancelHandle>>) -> Result<String> {
        Ok(to_json_text(&cancellable(self.inner.list_skills(), cancel).await?))
    }

    /// Loads the skill of `entry` (the JSON text of one entry of `list_skills`), verified by the
    /// core against the entry, and returns the JSON text of `{"entry", "frontmatter", "body"}`.
    pub async fn load_skill(&self, entry: String, cancel: Option<Arc<NativeCancelHandle>>) -> Result<String> {
        let entry = parse(&entry, "the skill entry")?;
        Ok(to_json_text(&cancellable(self.inner.load_skill(entry), cancel).await?))
    }

    /// Reads the file `uri` of the skill of `entry` (the JSON text of one entry of
    /// `list_skills`) and returns its bytes once the core checked them against the entry.
    pub async fn read_skill_file(
        &self,
        entry: String,
        uri: String,
        cancel: Option<Arc<NativeCancelHandle>>,
    ) -> Result<Vec<u8>> {
        let entry = parse(&entry, "the skill entry")?;
        Ok(cancellable(self.inner.read_skill_file(entry, uri), cancel).await?)
    }

    /// Opens a `subscriptions/listen` stream of a 2026-07-28 server for the notifications the
    /// JSON text `filter` names (`toolsListChanged`, `promptsListChanged`,
    /// `resourcesListChanged`, `resourceSubscriptions`), once the server acknowledged it; an
    /// older server fails it with kind `capabilityMissing`.
    pub async fn listen(
        &self,
        filter: String,
        cancel: Option<Arc<NativeCancelHandle>>,
    ) -> Result<Arc<NativeSubscription>> {
        let filter = parse(&filter, "the subscription filter")?;
        let inner = cancellable(self.inner.listen(filter), cancel).await?;
        Ok(Arc::new(NativeSubscription { inner }))
    }

    /// Sends a notification to the server.
    pub fn notify(&self, method: String, params: Option<String>) -> Result<()> {
        Ok(self.inner.notify(&method, parse_optional(params, "the notification params")?)?)
    }

    /// Lists one page of `kind` (`tools`, `resources`, `resourceTemplates`, `prompts`,
    /// `tasks`) from `cursor`.
    pub async fn list(
        &self,
        kind: String,
        cursor: Option<String>,
        cancel: Option<Arc<NativeCancelHandle>>,
    ) -> Result<String> {
        Ok(to_json_text(&cancellable(self.inner.list(&kind, cursor, CallOptions::new()), cancel).await?))
    }

    /// Lists every item of `kind`, as the JSON text of an array.
    pub async fn list_all(&self, kind: String, cancel: Option<Arc<NativeCancelHandle>>) -> Result<String> {
        Ok(to_json_text(&cancellable(self.inner.list_all(&kind), cancel).await?))
    }

    /// Tells the server that the client's roots changed.
    pub fn notify_roots_changed(&self) -> Result<()> {
        Ok(self.inner.notify_roots_changed()?)
    }

    /// Closes the connection; closing again does nothing.
    pub async fn close(&self) {
        let _ = self.inner.close().await;
    }
}

/// An open `subscriptions/listen` stream, from [`NativeClient::listen`]; dropping it ends the
/// stream.
#[derive(uniffi::Object)]
pub struct NativeSubscription {
    inner: Subscription,
}

#[uniffi::export]
impl NativeSubscription {
    /// Returns the JSON text of what the server agreed to send: the filter's notifications it
    /// supports.
    pub fn acknowledged(&self) -> String {
        self.inner.acknowledged().to_string()
    }

    /// Waits for the stream's next notification and returns its JSON text (`{"method",
    /// "params"}`), or `None` once the stream ended (closed, ended by the server, or dropped
    /// with the connection).
    pub async fn next_notification(&self, cancel: Option<Arc<NativeCancelHandle>>) -> Result<Option<String>> {
        let notification = cancellable(self.inner.next_notification(), cancel).await?;
        Ok((!notification.is_null()).then(|| notification.to_string()))
    }

    /// Ends the stream and returns once its request is over: a waiting and every later
    /// `next_notification` returns `None`. Closing again does nothing.
    pub async fn close(&self) {
        let _ = self.inner.close().await;
    }
}
