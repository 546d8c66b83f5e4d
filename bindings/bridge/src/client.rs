//! The client handle: connect from a JSON transport spec, send any request, and answer the
//! server's requests with [`Callback`]s.

use std::{collections::HashMap, path::PathBuf, sync::Arc, time::Duration};

use async_trait::async_trait;
use mcpweft::{
    ClientHandler, ClientOptions, ErrorData, RequestOptions,
    client::SubscriptionFilter,
    jsonrpc::Notification,
    model::{
        CallToolRequestParams, ClientCapabilities, CreateMessageRequestParams, CreateMessageResult,
        ElicitRequestParams, ElicitResult, ElicitationCapability, ElicitationCompleteNotificationParams, Icon,
        JsonObject, ListRootsResult, LoggingMessageNotificationParams, ResourceUpdatedNotificationParams,
        SamplingCapability, TaskMetadata, methods,
    },
    session::IncomingRequest,
    transport::{
        ChildProcessTransport, Transport,
        http::{HttpClientOptions, StreamableHttpClientTransport},
        memory_pair,
    },
};
use serde::{Deserialize, Serialize, de::DeserializeOwned};
use serde_json::{Value, json};

use crate::{Callback, Context, Error, Server, Task, context::logging_level, server::parse};

/// The callbacks a client answers the server with; the client declares exactly the
/// capabilities they imply.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct ClientCallbacks {
    pub(crate) sampling: Option<(Arc<dyn Callback>, bool)>,
    pub(crate) elicitation: Option<(Arc<dyn Callback>, bool, bool)>,
    pub(crate) roots: Option<Arc<dyn Callback>>,
    pub(crate) notification: Option<Arc<dyn Callback>>,
    pub(crate) authorizer: Option<Arc<dyn Callback>>,
    pub(crate) token_store: Option<Arc<dyn Callback>>,
    pub(crate) close: Option<Arc<dyn Callback>>,
    pub(crate) middleware: mcpweft::middleware::MiddlewareChain,
}

impl std::fmt::Debug for ClientCallbacks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientCallbacks")
            .field("sampling", &self.sampling.as_ref().map(|s| s.1))
            .field("elicitation", &self.elicitation.as_ref().map(|e| (e.1, e.2)))
            .field("roots", &self.roots.is_some())
            .field("notification", &self.notification.is_some())
            .field("authorizer", &self.authorizer.is_some())
            .field("token_store", &self.token_store.is_some())
            .field("close", &self.close.is_some())
            .field("middleware", &self.middleware.len())
            .finish()
    }
}

impl ClientCallbacks {
    /// Creates a set with no callbacks: the client declares no capabilities.
    pub fn new() -> Self {
        Self::default()
    }

    /// Answers `sampling/createMessage` (payload: the request's params; returns a
    /// `CreateMessageResult`); `tools` declares sampling with tools and tool choice.
    pub fn with_sampling(mut self, callback: Arc<dyn Callback>, tools: bool) -> Self {
        self.sampling = Some((callback, tools));
        self
    }

    /// Answers `elicitation/create` (payload: the request's params; returns an
    /// `ElicitResult`) in form mode, URL mode, or both.
    pub fn with_elicitation(mut self, callback: Arc<dyn Callback>, form: bool, url: bool) -> Self {
        self.elicitation = Some((callback, form, url));
        self
    }

    /// Answers `roots/list` (payload `{}`; returns a `ListRootsResult`, or just the array of
    /// roots). The client declares `roots.listChanged`.
    pub fn with_roots(mut self, callback: Arc<dyn Callback>) -> Self {
        self.roots = Some(callback);
        self
    }

    /// Hears every notification from the server (payload `{"method", "params"}`).
    pub fn with_notification(mut self, callback: Arc<dyn Callback>) -> Self {
        self.notification = Some(callback);
        self
    }

    /// Lets the user log in to a protected HTTP server (payload `{"authorizationUrl"}`):
    /// show the URL in a browser and return the URL the authorization server redirected to,
    /// as a string or `{"redirectUrl"}`. Used by an HTTP transport with `auth` options.
    pub fn with_authorizer(mut self, callback: Arc<dyn Callback>) -> Self {
        self.authorizer = Some(callback);
        self
    }

    /// Keeps the tokens of protected HTTP servers between runs: the payload is `{"op":
    /// "load", "resource"}` (return the stored tokens or `null`) or `{"op": "save",
    /// "resource", "tokens"}`. Without it tokens live in memory.
    pub fn with_token_store(mut self, callback: Arc<dyn Callback>) -> Self {
        self.token_store = Some(callback);
        self
    }

    /// Hears, once, that the connection ended. The payload is `{"reason": "closed",
    /// "message"}` when this side closed it, or `{"reason": "disconnected", "message",
    /// "exitCode", "signal", "stderr"}` when the server ended it: `message` is the message of
    /// the `transport_closed` error that requests fail with from then on, and the other fields
    /// (present when known) are a spawned server's exit code, the signal that ended it, and the
    /// last of what it wrote to stderr. What the callback returns is ignored.
    pub fn with_close(mut self, callback: Arc<dyn Callback>) -> Self {
        self.close = Some(callback);
        self
    }

    /// Adds a middleware written in the binding's language around every message of the
    /// connection, inside those already added.
    pub fn with_middleware(mut self, callback: Arc<dyn crate::MiddlewareCallback>) -> Self {
        self.middleware.push_arc(crate::middleware::foreign(callback));
        self
    }

    /// Adds one of the core's built-in middleware from its JSON, as
    /// [`Server::add_builtin_middleware`](crate::Server::add_builtin_middleware) reads it.
    pub fn with_builtin_middleware(mut self, spec: Value) -> Result<Self, Error> {
        self.middleware.push_arc(crate::middleware::builtin(spec)?);
        Ok(self)
    }

    /// The capabilities the callbacks imply.
    pub(crate) fn capabilities(&self) -> ClientCapabilities {
        let mut caps = ClientCapabilities::default();
        if let Some((_, tools)) = &self.sampling {
            let mut sampling = SamplingCapability::default();
            sampling.tools = tools.then(JsonObject::new);
            caps.sampling = Some(sampling);
        }
        if let Some((_, form, url)) = &self.elicitation {
            let mut elicitation = ElicitationCapability::default();
            elicitation.form = form.then(JsonObject::new);
            elicitation.url = url.then(JsonObject::new);
            caps.elicitation = Some(elicitation);
        }
        if self.roots.is_some() {
            caps = caps.with_roots(true);
        }
        caps
    }

    /// Answers the request `method` with `callback` ("method not found" without one), reading
    /// what it returns as the request's result.
    pub(crate) async fn answer<P: Serialize, R: DeserializeOwned>(
        callback: Option<&Arc<dyn Callback>>,
        method: &str,
        params: P,
        request: IncomingRequest,
    ) -> Result<R, ErrorData> {
        let callback = callback.ok_or_else(|| ErrorData::method_not_found(method))?;
        let params = serde_json::to_value(params).map_err(|e| ErrorData::internal_error(e.to_string()))?;
        let mut value = callback.call(params, Context::client(request)).await.map_err(|e| e.to_error_data())?;
        if method == methods::ROOTS_LIST && value.is_array() {
            value = json!({ "roots": value });
        }
        serde_json::from_value(value)
            .map_err(|e| ErrorData::internal_error(format!("the {method} callback returned an invalid result: {e}")))
    }

    async fn hear<P: Serialize>(&self, method: &str, params: P) {
        if let Some(callback) = &self.notification {
            let payload = json!({ "method": method, "params": serde_json::to_value(params).unwrap_or(Value::Null) });
            if let Err(e) = callback.call(payload, Context::notification()).await {
                tracing::warn!(error = %e, method, "the notification callback failed");
            }
        }
    }
}

#[async_trait]
impl ClientHandler for ClientCallbacks {
    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        request: IncomingRequest,
    ) -> Result<CreateMessageResult, ErrorData> {
        let callback = self.sampling.as_ref().map(|s| &s.0);
        Self::answer(callback, methods::SAMPLING_CREATE_MESSAGE, params, request).await
    }

    async fn elicit(&self, params: ElicitRequestParams, request: IncomingRequest) -> Result<ElicitResult, ErrorData> {
        let callback = self.elicitation.as_ref().map(|e| &e.0);
        Self::answer(callback, methods::ELICITATION_CREATE, params, request).await
    }

    async fn list_roots(&self, request: IncomingRequest) -> Result<ListRootsResult, ErrorData> {
        Self::answer(self.roots.as_ref(), methods::ROOTS_LIST, json!({}), request).await
    }

    async fn on_log_message(&self, params: LoggingMessageNotificationParams) {
        self.hear(methods::NOTIFICATIONS_MESSAGE, params).await;
    }

    async fn on_resource_updated(&self, params: ResourceUpdatedNotificationParams) {
        self.hear(methods::NOTIFICATIONS_RESOURCES_UPDATED, params).await;
    }

    async fn on_list_changed(&self, method: &str) {
        self.hear(method, json!({})).await;
    }

    async fn on_elicitation_complete(&self, params: ElicitationCompleteNotificationParams) {
        self.hear(methods::NOTIFICATIONS_ELICITATION_COMPLETE, params).await;
    }

    async fn on_notification(&self, notification: Notification) {
        self.hear(&notification.method, notification.params.unwrap_or_else(|| json!({}))).await;
    }
}

/// How to reach a server, as JSON.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "camelCase", deny_unknown_fields)]
enum TransportSpec {
    /// Spawn a command and speak over its stdin and stdout.
    #[serde(rename_all = "camelCase")]
    Stdio { command: String, args: Option<Vec<String>>, env: Option<HashMap<String, String>>, cwd: Option<PathBuf> },
    /// Speak Streamable HTTP to a URL.
    #[serde(rename_all = "camelCase")]
    Http {
        url: String,
        headers: Option<HashMap<String, String>>,
        bearer_token: Option<String>,
        timeout_ms: Option<u64>,
        open_get_stream: Option<bool>,
        legacy_fallback: Option<bool>,
        auth: Option<Value>,
    },
}

/// The settings of a client, as JSON (a host's too, beside its separator).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ClientSpec {
    name: Option<String>,
    version: Option<String>,
    title: Option<String>,
    icons: Option<Vec<Icon>>,
    website_url: Option<String>,
    protocol_version: Option<String>,
    request_timeout_ms: Option<u64>,
    capabilities: Option<ClientCapabilities>,
    apps: Option<bool>,
}

impl ClientSpec {
    /// The core's client options: these settings, the client named `default_name` unless they
    /// name it, and the capabilities the callbacks imply beside those declared.
    pub(crate) fn options(self, callbacks: &ClientCallbacks, default_name: &str) -> ClientOptions {
        let name = self.name.unwrap_or_else(|| default_name.to_owned());
        let version = self.version.unwrap_or_else(|| env!("CARGO_PKG_VERSION").to_owned());
        let mut options = ClientOptions::new(name, version);
        options.info.title = self.title;
        options.info.icons = self.icons;
        options.info.website_url = self.website_url;
        if let Some(version) = self.protocol_version {
            options.protocol_version = version;
        }
        if let Some(ms) = self.request_timeout_ms {
            options.request_timeout = Duration::from_millis(ms);
        }
        let mut caps = self.capabilities.unwrap_or_default();
        let derived = callbacks.capabilities();
        caps.sampling = caps.sampling.or(derived.sampling);
        caps.elicitation = caps.elicitation.or(derived.elicitation);
        caps.roots = caps.roots.or(derived.roots);
        options.capabilities = caps;
        // A 2026-07-28 server sends list changes only on a stream asked for them.
        options.list_changed_notifications = callbacks.notification.is_some();
        options.middleware = callbacks.middleware.clone();
        if self.apps == Some(true) {
            options = options.with_apps();
        }
        options
    }
}

/// The settings of a Streamable HTTP transport, from its JSON.
struct HttpTransportSpec {
    url: String,
    headers: Option<HashMap<String, String>>,
    bearer_token: Option<String>,
    timeout_ms: Option<u64>,
    open_get_stream: Option<bool>,
    legacy_fallback: Option<bool>,
    auth: Option<Value>,
}

fn http_transport(
    spec: HttpTransportSpec,
    callbacks: &ClientCallbacks,
) -> Result<StreamableHttpClientTransport, Error> {
    let HttpTransportSpec { url, headers, bearer_token, timeout_ms, open_get_stream, legacy_fallback, auth } = spec;
    let mut options = HttpClientOptions::new();
    if let Some(auth) = auth {
        let login = crate::auth::oauth_client(&url, auth, callbacks.authorizer.clone(), callbacks.token_store.clone())?;
        options = options.with_auth(Arc::new(login));
    }
    for (name, value) in headers.unwrap_or_default() {
        let name = http::HeaderName::from_bytes(name.as_bytes())
            .map_err(|e| Error::invalid_input(format!("invalid header name {name:?}: {e}")))?;
        let value = http::HeaderValue::from_str(&value)
            .map_err(|e| Error::invalid_input(format!("invalid value of header {name}: {e}")))?;
        options = options.with_header(name, value);
    }
    if let Some(token) = bearer_token {
        options = options.with_bearer_token(&token)?;
    }
    if let Some(ms) = timeout_ms {
        options = options.with_request_timeout(Duration::from_millis(ms));
    }
    if let Some(open) = open_get_stream {
        options = options.with_get_stream(open);
    }
    if let Some(fallback) = legacy_fallback {
        options = options.with_legacy_fallback(fallback);
    }
    Ok(StreamableHttpClientTransport::with_options(url, options)?)
}

/// The options of one request.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct CallOptions {
    pub(crate) timeout: Option<Duration>,
    pub(crate) max_total_timeout: Option<Duration>,
    pub(crate) on_progress: Option<Arc<dyn Fn(Value) + Send + Sync>>,
    pub(crate) task: Option<Value>,
    pub(crate) meta: Option<JsonObject>,
}

impl std::fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOptions")
            .field("timeout", &self.timeout)
            .field("max_total_timeout", &self.max_total_timeout)
            .field("task", &self.task)
            .field("meta", &self.meta)
            .field("progress", &self.on_progress.is_some())
            .finish()
    }
}

/// The options of one request as a binding hands them over, in JSON.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct CallSpec {
    timeout_ms: Option<Value>,
    max_total_timeout_ms: Option<Value>,
    task: Option<Value>,
    meta: Option<Value>,
}

impl CallOptions {
    /// Creates options that keep the client's defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads the options of one request from JSON, the one place every binding's options are
    /// checked: `null`, or an object with `timeoutMs` (a non-negative number of milliseconds,
    /// fractions allowed), `maxTotalTimeoutMs` (the same: how long the request may take in
    /// all, however much progress it reports), `task` (task metadata such as `{"ttl": 60000}`,
    /// to send the request as a task) and `meta` (an object of entries to add to the request's
    /// `_meta`); a `null` member is the same as a missing one. `on_progress` asks for progress and hears each
    /// `notifications/progress` params object.
    ///
    /// Fails with kind `InvalidInput`, naming the option, for anything else.
    pub fn from_json(options: Value, on_progress: Option<Arc<dyn Fn(Value) + Send + Sync>>) -> Result<Self, Error> {
        let spec = match options {
            Value::Null => CallSpec::default(),
            Value::Object(_) => parse::<CallSpec>(options, "call options")?,
            other => return Err(Error::invalid_input(format!("call options must be an object or null, not {other}"))),
        };
        let mut call = CallOptions { on_progress, ..CallOptions::default() };
        call.timeout = millis(spec.timeout_ms, "timeoutMs")?;
        call.max_total_timeout = millis(spec.max_total_timeout_ms, "maxTotalTimeoutMs")?;
        match spec.task {
            None | Some(Value::Null) => {}
            Some(task @ Value::Object(_)) => {
                serde_json::from_value::<TaskMetadata>(task.clone()).map_err(|e| {
                    Error::invalid_input(format!(
                        "invalid task metadata {task}: the ttl must be a non-negative integer"
                    ))
                    .with_cause(e.to_string())
                })?;
                call.task = Some(task);
            }
            Some(other) => {
                return Err(Error::invalid_input(format!("task must be an object of task metadata, not {other}")));
            }
        }
        match spec.meta {
            None | Some(Value::Null) => {}
            Some(Value::Object(meta)) => call.meta = Some(meta),
            Some(other) => return Err(Error::invalid_input(format!("meta must be an object, not {other}"))),
        }
        Ok(call)
    }

    /// Sets the time-out of this request; `notifications/cancelled` is sent when it passes.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Asks for progress; `callback` gets each `notifications/progress` params object.
    pub fn with_progress(mut self, callback: Arc<dyn Fn(Value) + Send + Sync>) -> Self {
        self.on_progress = Some(callback);
        self
    }

    /// Sends the request as a task (experimental): `task` is the task metadata, such as
    /// `{"ttl": 60000}`, and the result is the created task.
    pub fn with_task(mut self, task: Value) -> Self {
        self.task = Some(task);
        self
    }

    /// Adds entries to the request's `_meta`.
    pub fn with_meta(mut self, meta: JsonObject) -> Self {
        self.meta = Some(meta);
        self
    }

    /// Returns the time-out of a call the core makes with its own parameters (`ping`,
    /// subscriptions, the log level, a page of tools), refusing the options it cannot carry.
    fn timeout_only(self, call: &str) -> Result<Option<Duration>, Error> {
        if self.task.is_some() || self.meta.is_some() || self.on_progress.is_some() || self.max_total_timeout.is_some()
        {
            return Err(Error::invalid_input(format!(
                "{call} takes a time-out only, not a task, meta, progress or maximum total time"
            )));
        }
        Ok(self.timeout)
    }
}

/// Runs one of the core's calls within `timeout`, when there is one; the request is cancelled
/// when it passes.
async fn within<T>(
    timeout: Option<Duration>,
    call: impl Future<Output = Result<T, mcpweft::Error>>,
) -> Result<T, Error> {
    match timeout {
        Some(limit) => match tokio::time::timeout(limit, call).await {
            Ok(outcome) => Ok(outcome?),
            Err(_) => Err(mcpweft::Error::Timeout(limit).into()),
        },
        None => Ok(call.await?),
    }
}

/// Reads an option of milliseconds (a non-negative number, fractions allowed); `null` or a
/// missing option is `None`.
fn millis(value: Option<Value>, name: &str) -> Result<Option<Duration>, Error> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(ms) => ms
            .as_f64()
            .filter(|ms| ms.is_finite() && *ms >= 0.0)
            .and_then(|ms| Duration::try_from_secs_f64(ms / 1000.0).ok())
            .map(Some)
            .ok_or_else(|| {
                Error::invalid_input(format!("{name} must be a non-negative number of milliseconds, not {ms}"))
            }),
    }
}

/// A `subscriptions/listen` stream of a 2026-07-28 server, opened with [`Client::listen`]: its
/// notifications reach the client's notification callback and
/// [`Subscription::next_notification`] until it is closed or dropped.
#[derive(Debug)]
pub struct Subscription {
    acknowledged: Value,
    stream: Arc<tokio::sync::Mutex<Option<mcpweft::client::Subscription>>>,
    closed: tokio_util::sync::CancellationToken,
}

impl Subscription {
    /// Returns what the server agreed to send, as the filter object of `subscriptions/listen`
    /// (`toolsListChanged`, `promptsListChanged`, `resourcesListChanged`,
    /// `resourceSubscriptions`).
    pub fn acknowledged(&self) -> Value {
        self.acknowledged.clone()
    }

    /// Waits for the stream's next notification and returns it as `{"method", "params"}`, the
    /// payload of the notification callback, or `null` once the stream ended (closed here,
    /// ended by the server, or dropped with the connection). Notifications come in order; a
    /// call made while another waits gets the one after it.
    pub fn next_notification(&self) -> Task<Value> {
        let (stream, closed) = (self.stream.clone(), self.closed.clone());
        Task::new(async move {
            let next = async {
                match stream.lock().await.as_mut() {
                    Some(stream) => stream.next().await,
                    None => None,
                }
            };
            let notification = tokio::select! {
                biased;
                () = closed.cancelled() => None,
                notification = next => notification,
            };
            Ok(notification.map_or(
                Value::Null,
                |n| json!({ "method": n.method, "params": n.params.unwrap_or_else(|| json!({})) }),
            ))
        })
    }

    /// Ends the stream: a waiting [`Subscription::next_notification`] returns `null` at once,
    /// and the task finishes once the request is over. Closing again does nothing.
    pub fn close(&self) -> Task<()> {
        self.closed.cancel();
        let stream = self.stream.clone();
        Task::new(async move {
            let stream = stream.lock().await.take();
            if let Some(stream) = stream {
                stream.close().await;
            }
            Ok(())
        })
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        // A waiting `next` lets go of the stream, which ends when the last reference goes.
        self.closed.cancel();
    }
}

/// The kinds of list the server offers, by the name of their result's array.
const LISTS: [(&str, &str); 5] = [
    ("tools", methods::TOOLS_LIST),
    ("resources", methods::RESOURCES_LIST),
    ("resourceTemplates", methods::RESOURCES_TEMPLATES_LIST),
    ("prompts", methods::PROMPTS_LIST),
    ("tasks", methods::TASKS_LIST),
];

fn list_method(kind: &str) -> Result<&'static str, Error> {
    LISTS.iter().find(|(k, _)| *k == kind).map(|(_, m)| *m).ok_or_else(|| {
        let known: Vec<_> = LISTS.iter().map(|(k, _)| *k).collect();
        Error::invalid_input(format!("unknown list {kind:?}; expected one of {known:?}"))
    })
}

/// A connected MCP client; cloning is cheap and gives the same connection.
#[derive(Clone, Debug)]
pub struct Client {
    pub(crate) inner: mcpweft::Client,
}

impl Client {
    /// Connects to a server and initializes the session.
    ///
    /// `transport` is `{"type": "stdio", "command", "args", "env", "cwd"}` or
    /// `{"type": "http", "url", "headers", "bearerToken", "timeoutMs", "openGetStream",
    /// "legacyFallback", "auth"}`, where `auth` logs in to a protected server: `null` or an
    /// object with `clientName`, `redirectUri`, `clientId` and `clientSecret` (pre-registered),
    /// `clientMetadataUrl`, `scopes`, `maxStepUps`, and `clientCredentials` (`clientId` with
    /// `clientSecret` or `privateKeyPem` and `algorithm`, for machine clients) or
    /// `identityAssertion` (`clientId`, `clientSecret`, `idpTokenEndpoint`, `idToken`,
    /// `idpClientId`: enterprise-managed authorization with the user's ID token) or
    /// `workloadIdentity` (`assertion`, the workload's JWT, and `clientId`: workload identity
    /// federation); users log in
    /// through the callbacks' authorizer. `options` is `null` or an object with `name`, `version`, `title`,
    /// `icons`, `websiteUrl`, `protocolVersion`, `requestTimeoutMs` and `capabilities`
    /// (declared beside those the callbacks imply).
    pub fn connect(transport: Value, options: Value, callbacks: ClientCallbacks) -> Task<Client> {
        Task::new(async move {
            let spec = client_spec(options)?;
            match parse::<TransportSpec>(transport, "transport")? {
                TransportSpec::Stdio { command, args, env, cwd } => {
                    let mut process = tokio::process::Command::new(&command);
                    process.args(args.unwrap_or_default());
                    process.envs(env.unwrap_or_default());
                    if let Some(cwd) = cwd {
                        process.current_dir(cwd);
                    }
                    let transport = ChildProcessTransport::spawn(process)
                        .map_err(|e| Error::from(e).with_cause(format!("spawning {command}")))?;
                    connect_over(transport, spec, callbacks).await
                }
                TransportSpec::Http {
                    url,
                    headers,
                    bearer_token,
                    timeout_ms,
                    open_get_stream,
                    legacy_fallback,
                    auth,
                } => {
                    let http = HttpTransportSpec {
                        url,
                        headers,
                        bearer_token,
                        timeout_ms,
                        open_get_stream,
                        legacy_fallback,
                        auth,
                    };
                    let transport = http_transport(http, &callbacks)?;
                    connect_over(transport, spec, callbacks).await
                }
            }
        })
    }

    /// Connects to `server` in this process over an in-memory transport (for tests).
    pub fn connect_memory(server: &Server, options: Value, callbacks: ClientCallbacks) -> Task<Client> {
        let server = server.inner.clone();
        Task::new(async move {
            let spec = client_spec(options)?;
            let (ours, theirs) = memory_pair();
            server.serve(theirs);
            connect_over(ours, spec, callbacks).await
        })
    }

    /// Returns the server's `initialize` result (server info, capabilities, instructions).
    pub fn server_info(&self) -> Value {
        serde_json::to_value(self.inner.server()).unwrap_or(Value::Null)
    }

    /// Returns the negotiated protocol version.
    pub fn protocol_version(&self) -> String {
        self.inner.protocol_version().to_owned()
    }

    /// Sends any request and returns a task of its result.
    ///
    /// Requests of the protocol are checked against the server's capabilities first. A
    /// `tools/call` result with structured content is validated against the tool's output
    /// schema, when the tool was listed with one. Dropping the task cancels the request.
    pub fn request(&self, method: &str, params: Value, options: CallOptions) -> Task<Value> {
        let client = self.inner.clone();
        let method = method.to_owned();
        Task::new(async move {
            let mut params = match params {
                Value::Null => JsonObject::new(),
                Value::Object(object) => object,
                _ => return Err(Error::invalid_input("request params must be a JSON object or null")),
            };
            if let Some(task) = options.task {
                params.insert("task".to_owned(), task);
            }
            if let Some(extra) = options.meta {
                let meta = params.entry("_meta").or_insert_with(|| json!({}));
                if let Some(meta) = meta.as_object_mut() {
                    meta.extend(extra);
                }
            }
            let mut request = RequestOptions::new();
            request.timeout = options.timeout;
            request.max_total_timeout = options.max_total_timeout;
            request.on_progress = options.on_progress.map(|callback| {
                let callback: mcpweft::session::ProgressCallback =
                    Arc::new(move |p| callback(serde_json::to_value(p).unwrap_or(Value::Null)));
                callback
            });
            if method == methods::TOOLS_CALL && !params.contains_key("task") {
                let params: CallToolRequestParams = parse(Value::Object(params), "tools/call params")?;
                let result = client.call_tool_with(params, request).await?;
                return Ok(serde_json::to_value(result).unwrap_or(Value::Null));
            }
            Ok(client.request(&method, Some(Value::Object(params)), request).await?)
        })
    }

    /// Calls a tool; shorthand for a `tools/call` [`Client::request`]. With a task in
    /// `options` the result is the created task.
    pub fn call_tool(&self, name: &str, arguments: Value, options: CallOptions) -> Task<Value> {
        let arguments = if arguments.is_null() { json!({}) } else { arguments };
        self.request(methods::TOOLS_CALL, json!({ "name": name, "arguments": arguments }), options)
    }

    /// Checks that the server answers: `ping`, or with a 2026-07-28 server (which has no
    /// `ping`) `server/discover`. Only the time-out of `options` applies.
    pub fn ping(&self, options: CallOptions) -> Task<()> {
        let client = self.inner.clone();
        Task::new(async move { within(options.timeout_only("ping")?, client.ping()).await })
    }

    /// Subscribes to updates of the resource at `uri`, which reach the notification callback
    /// as `notifications/resources/updated`: `resources/subscribe`, or with a 2026-07-28 server
    /// the client's own `subscriptions/listen` stream, reopened with `uri` among its resources.
    /// Only the time-out of `options` applies.
    pub fn subscribe(&self, uri: &str, options: CallOptions) -> Task<()> {
        let (client, uri) = (self.inner.clone(), uri.to_owned());
        Task::new(async move { within(options.timeout_only("subscribe")?, client.subscribe(&uri)).await })
    }

    /// Ends the subscription to the resource at `uri`, as [`Client::subscribe`] made it.
    pub fn unsubscribe(&self, uri: &str, options: CallOptions) -> Task<()> {
        let (client, uri) = (self.inner.clone(), uri.to_owned());
        Task::new(async move { within(options.timeout_only("unsubscribe")?, client.unsubscribe(&uri)).await })
    }

    /// Sets the lowest level (such as `"warning"`) of the log messages the server sends:
    /// `logging/setLevel`, or with a 2026-07-28 server the level in the `_meta` of every later
    /// request. Only the time-out of `options` applies.
    pub fn set_logging_level(&self, level: &str, options: CallOptions) -> Task<()> {
        let client = self.inner.clone();
        let level = logging_level(level);
        Task::new(async move {
            let timeout = options.timeout_only("setting the logging level")?;
            within(timeout, client.set_logging_level(level?)).await
        })
    }

    /// Reads the resource at `uri` (`resources/read`).
    pub fn read_resource(&self, uri: &str, options: CallOptions) -> Task<Value> {
        self.request(methods::RESOURCES_READ, json!({ "uri": uri }), options)
    }

    /// Reads the HTML view of an app (MCP Apps) at `uri`: `{"uri", "html", "meta"}`, where
    /// `meta` is the view's `_meta.ui` (CSP, permissions, domain, prefersBorder). A resource
    /// that is not an app view fails with a protocol error.
    pub fn read_app_view(&self, uri: &str) -> Task<Value> {
        let (client, uri) = (self.inner.clone(), uri.to_owned());
        Task::new(async move { Ok(app_view_json(&client.read_app_view(&uri).await?)) })
    }

    /// Gets the prompt `name` with `arguments`, an object of strings or `null`
    /// (`prompts/get`).
    pub fn get_prompt(&self, name: &str, arguments: Value, options: CallOptions) -> Task<Value> {
        let arguments = if arguments.is_null() { json!({}) } else { arguments };
        self.request(methods::PROMPTS_GET, json!({ "name": name, "arguments": arguments }), options)
    }

    /// Asks for completions (`completion/complete`); `params` holds `ref`, `argument` and,
    /// optionally, `context`.
    pub fn complete(&self, params: Value, options: CallOptions) -> Task<Value> {
        self.request(methods::COMPLETION_COMPLETE, params, options)
    }

    /// Returns the current state of the task `task_id` (`tasks/get`).
    pub fn get_task(&self, task_id: &str, options: CallOptions) -> Task<Value> {
        self.request(methods::TASKS_GET, json!({ "taskId": task_id }), options)
    }

    /// Waits until the task `task_id` ends and returns the result of its request
    /// (`tasks/result`).
    pub fn task_result(&self, task_id: &str, options: CallOptions) -> Task<Value> {
        self.request(methods::TASKS_RESULT, json!({ "taskId": task_id }), options)
    }

    /// Cancels the task `task_id` and returns its final state (`tasks/cancel`).
    pub fn cancel_task(&self, task_id: &str, options: CallOptions) -> Task<Value> {
        self.request(methods::TASKS_CANCEL, json!({ "taskId": task_id }), options)
    }

    /// Opens a `subscriptions/listen` stream of a 2026-07-28 server for the notifications
    /// `filter` names (`toolsListChanged`, `promptsListChanged`, `resourcesListChanged`,
    /// `resourceSubscriptions`) and waits for the server's acknowledgment; the stream's
    /// notifications come from [`Subscription::next_notification`] (and reach the notification
    /// callback). With an older server the task fails with kind `CapabilityMissing`: it sends
    /// its notifications unasked.
    pub fn listen(&self, filter: Value) -> Task<Subscription> {
        let client = self.inner.clone();
        Task::new(async move {
            let filter: SubscriptionFilter = parse(filter, "subscription filter")?;
            let stream = client.listen(filter).await?;
            let acknowledged = serde_json::to_value(stream.acknowledged()).unwrap_or(Value::Null);
            let stream = Arc::new(tokio::sync::Mutex::new(Some(stream)));
            Ok(Subscription { acknowledged, stream, closed: tokio_util::sync::CancellationToken::new() })
        })
    }

    /// Sends a notification to the server.
    pub fn notify(&self, method: &str, params: Value) -> Result<(), Error> {
        Ok(self.inner.peer().notify(method, &params, None)?)
    }

    /// Lists one page of `kind` (`tools`, `resources`, `resourceTemplates`, `prompts` or
    /// `tasks`) from `cursor`; the result holds the items and `nextCursor`. Tools are listed
    /// as the core lists them: under revision 2026-07-28 a tool whose `x-mcp-header`
    /// annotations break the rules is left out, and output schemas are kept to validate results
    /// (only the time-out of `options` applies to them).
    pub fn list(&self, kind: &str, cursor: Option<String>, options: CallOptions) -> Task<Value> {
        if kind == "tools" {
            let client = self.inner.clone();
            return Task::new(async move {
                let page = within(options.timeout_only("listing tools")?, client.list_tools(cursor)).await?;
                Ok(serde_json::to_value(page).unwrap_or(Value::Null))
            });
        }
        match list_method(kind) {
            Ok(method) => {
                let params = cursor.map(|c| json!({ "cursor": c })).unwrap_or(Value::Null);
                self.request(method, params, options)
            }
            Err(e) => Task::ready(Err(e)),
        }
    }

    /// Lists every item of `kind`, following `nextCursor` from page to page.
    pub fn list_all(&self, kind: &str) -> Task<Value> {
        let client = self.clone();
        let kind = kind.to_owned();
        Task::new(async move {
            list_method(&kind)?;
            let mut items = Vec::new();
            let mut cursor = None;
            loop {
                let mut page = client.list(&kind, cursor.take(), CallOptions::new()).await?;
                if let Some(Value::Array(more)) = page.get_mut(&kind).map(Value::take) {
                    items.extend(more);
                }
                match page.get("nextCursor").and_then(Value::as_str) {
                    Some(next) => cursor = Some(next.to_owned()),
                    None => return Ok(Value::Array(items)),
                }
            }
        })
    }

    /// Tells the server that the client's roots changed.
    pub fn notify_roots_changed(&self) -> Result<(), Error> {
        Ok(self.inner.notify_roots_list_changed()?)
    }

    /// Closes the connection (a stdio server is shut down, an HTTP session deleted); closing
    /// again does nothing.
    pub fn close(&self) -> Task<()> {
        let client = self.inner.clone();
        Task::new(async move {
            client.close().await;
            Ok(())
        })
    }
}

fn client_spec(options: Value) -> Result<ClientSpec, Error> {
    match options {
        Value::Null => Ok(ClientSpec::default()),
        other => parse(other, "client options"),
    }
}

async fn connect_over(
    transport: impl Transport,
    spec: ClientSpec,
    callbacks: ClientCallbacks,
) -> Result<Client, Error> {
    let options = spec.options(&callbacks, "mcpweft");
    let on_close = callbacks.close.clone();
    let inner = mcpweft::Client::connect_with_handler(transport, options, callbacks).await?;
    if let Some(on_close) = on_close {
        let peer = inner.peer().clone();
        tokio::spawn(async move {
            peer.disconnected().await;
            if let Err(e) = on_close.call(close_payload(&peer), Context::notification()).await {
                tracing::warn!(error = %e, "the close callback failed");
            }
        });
    }
    Ok(Client { inner })
}

/// Describes how a connection ended, for the close callback.
fn close_payload(peer: &mcpweft::Peer) -> Value {
    if peer.closed_by_this_side() {
        return json!({ "reason": "closed", "message": "the client closed the connection" });
    }
    let Some(reason) = peer.close_reason() else {
        return json!({ "reason": "disconnected", "message": mcpweft::Error::TransportClosed.to_string() });
    };
    let mut payload = serde_json::to_value(reason.as_ref()).unwrap_or_else(|_| json!({}));
    payload["reason"] = json!("disconnected");
    payload["message"] = json!(mcpweft::Error::Disconnected(reason).to_string());
    payload
}

/// An app view as every binding receives it.
pub(crate) fn app_view_json(view: &mcpweft::model::apps::AppView) -> Value {
    json!({ "uri": view.uri, "html": view.html, "meta": view.meta })
}
