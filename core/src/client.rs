//! The client role: connect to a server, call its features, and answer its requests.
//!
//! ```no_run
//! use mcpweft::{client::{Client, ClientOptions}, transport::ChildProcessTransport};
//!
//! # async fn run() -> Result<(), mcpweft::Error> {
//! let transport = ChildProcessTransport::command("my-server", ["--stdio"])?;
//! let client = Client::connect(transport, ClientOptions::new("my-host", "1.0.0")).await?;
//! for tool in client.list_all_tools().await? {
//!     println!("{}", tool.name);
//! }
//! let result = client.call_tool("add", serde_json::json!({ "a": 1, "b": 2 })).await?;
//! client.close().await;
//! # Ok(()) }
//! ```

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use async_trait::async_trait;
use futures::{FutureExt, future::BoxFuture};
use serde_json::Value;
use tokio::task::JoinHandle;

mod listen;
pub mod skills;

pub use listen::{Subscription, SubscriptionFilter};

use crate::{
    Error,
    jsonrpc::{ErrorData, Notification, Request, RequestId, quoted},
    middleware::{Middleware, MiddlewareChain, Role},
    model::{
        CallToolRequestParams, CallToolResult, ClientCapabilities, CompleteRequestParams, CompleteResult,
        CompletionArgument, CompletionContext, CompletionReference, CreateMessageRequestParams, CreateMessageResult,
        CreateTaskResult, ElicitRequestParams, ElicitResult, ElicitationCompleteNotificationParams, EmptyResult,
        GetPromptRequestParams, GetPromptResult, GetTaskResult, Implementation, InitializeRequestParams,
        InitializeResult, JsonObject, LATEST_PROTOCOL_VERSION, ListPromptsResult, ListResourceTemplatesResult,
        ListResourcesResult, ListRootsResult, ListTasksResult, ListToolsResult, LoggingLevel,
        LoggingMessageNotificationParams, PaginatedRequestParams, Prompt, ReadResourceResult, Resource,
        ResourceRequestParams, ResourceTemplate, ResourceUpdatedNotificationParams, STATELESS_PROTOCOL_VERSION,
        SetLevelRequestParams, TaskIdRequestParams, TaskMetadata, Tool, is_supported_protocol_version, meta_keys,
        methods,
    },
    session::{self as rt, IncomingRequest, Peer, Reply, RequestOptions, Service, SessionConfig, parse_params},
    sync::lock,
    transport::Transport,
};

/// How a client answers the server's requests and hears its notifications.
///
/// Every method has a default: requests the client does not support are refused with
/// "method not found", and notifications are ignored.
#[async_trait]
pub trait ClientHandler: Send + Sync + 'static {
    /// Answers `sampling/createMessage`.
    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: IncomingRequest,
    ) -> Result<CreateMessageResult, ErrorData> {
        let _ = (params, context);
        Err(ErrorData::method_not_found(methods::SAMPLING_CREATE_MESSAGE))
    }

    /// Answers `elicitation/create`.
    async fn elicit(&self, params: ElicitRequestParams, context: IncomingRequest) -> Result<ElicitResult, ErrorData> {
        let _ = (params, context);
        Err(ErrorData::method_not_found(methods::ELICITATION_CREATE))
    }

    /// Answers `roots/list`.
    async fn list_roots(&self, context: IncomingRequest) -> Result<ListRootsResult, ErrorData> {
        let _ = context;
        Err(ErrorData::method_not_found(methods::ROOTS_LIST))
    }

    /// Hears `notifications/message`.
    async fn on_log_message(&self, params: LoggingMessageNotificationParams) {
        let _ = params;
    }

    /// Hears `notifications/resources/updated`.
    async fn on_resource_updated(&self, params: ResourceUpdatedNotificationParams) {
        let _ = params;
    }

    /// Hears `notifications/tools/list_changed`, `notifications/prompts/list_changed` and
    /// `notifications/resources/list_changed`; `method` says which.
    async fn on_list_changed(&self, method: &str) {
        let _ = method;
    }

    /// Hears `notifications/elicitation/complete`.
    async fn on_elicitation_complete(&self, params: ElicitationCompleteNotificationParams) {
        let _ = params;
    }

    /// Hears any other notification.
    async fn on_notification(&self, notification: Notification) {
        let _ = notification;
    }
}

/// A client handler that supports nothing and ignores every notification.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoHandler;

impl ClientHandler for NoHandler {}

/// Settings of a client connection.
///
/// Build them with [`ClientOptions::new`] and the `with_*` methods; fields may be added in
/// later versions.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ClientOptions {
    /// The client's name and version, sent in `initialize`.
    pub info: Implementation,
    /// The capabilities to declare; set them to match the handler.
    pub capabilities: ClientCapabilities,
    /// The protocol version to ask for.
    pub protocol_version: String,
    /// The time-out of requests that set none.
    pub request_timeout: Duration,
    /// Whether to ask a 2026-07-28 server, on connecting, for the list changes it offers (on
    /// a `subscriptions/listen` stream); older servers send them unasked.
    pub list_changed_notifications: bool,
    /// The middleware around every message of the connection, sent and received; the first
    /// added is the outermost.
    pub middleware: MiddlewareChain,
}

impl ClientOptions {
    /// Creates options with no capabilities and the latest protocol version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        ClientOptions {
            info: Implementation::new(name, version),
            capabilities: ClientCapabilities::default(),
            protocol_version: LATEST_PROTOCOL_VERSION.to_owned(),
            request_timeout: rt::DEFAULT_REQUEST_TIMEOUT,
            list_changed_notifications: false,
            middleware: MiddlewareChain::default(),
        }
    }

    /// Sets the client's whole description (name, version, title, icons, …).
    pub fn with_info(mut self, info: Implementation) -> Self {
        self.info = info;
        self
    }

    /// Sets the capabilities to declare.
    pub fn with_capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// Sets the protocol version to ask for.
    pub fn with_protocol_version(mut self, version: impl Into<String>) -> Self {
        self.protocol_version = version.into();
        self
    }

    /// Sets the default request time-out.
    pub fn with_request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Sets whether to ask a 2026-07-28 server for the list changes it offers
    /// (`notifications/tools/list_changed` and the like, heard by
    /// [`ClientHandler::on_list_changed`]).
    pub fn with_list_changed_notifications(mut self, wanted: bool) -> Self {
        self.list_changed_notifications = wanted;
        self
    }

    /// Adds a middleware inside those already added.
    pub fn with_middleware(mut self, middleware: impl Middleware) -> Self {
        self.middleware.push(middleware);
        self
    }

    /// Declares MCP Apps (`io.modelcontextprotocol/ui`): the client renders HTML views, so a
    /// server lists its views and the tools only a view may call.
    pub fn with_apps(mut self) -> Self {
        self.capabilities =
            self.capabilities.with_extension(crate::model::apps::APPS_EXTENSION, crate::model::apps::client_settings());
        self
    }
}

struct ClientService {
    handler: Arc<dyn ClientHandler>,
    capabilities: ClientCapabilities,
    streams: Arc<listen::Streams>,
}

fn answer<T: serde::Serialize>(result: Result<T, ErrorData>) -> Result<Value, ErrorData> {
    result.and_then(|r| rt::to_result(&r))
}

impl Service for ClientService {
    fn request(&self, request: Request, incoming: IncomingRequest) -> Reply {
        let handler = self.handler.clone();
        let caps = &self.capabilities;
        match request.method.as_str() {
            methods::PING => Reply::Now(rt::to_result(&EmptyResult::default())),
            methods::SAMPLING_CREATE_MESSAGE if caps.sampling.is_some() => {
                let params: CreateMessageRequestParams = match rt::request_params(request.params) {
                    Ok(p) => p,
                    Err(e) => return Reply::Now(Err(e)),
                };
                let with_tools = params.tools.is_some() || params.tool_choice.is_some();
                if with_tools && caps.sampling.as_ref().and_then(|s| s.tools.as_ref()).is_none() {
                    let e =
                        ErrorData::invalid_params("tools in sampling were sent without the sampling.tools capability");
                    return Reply::Now(Err(e));
                }
                Reply::later(async move { answer(handler.create_message(params, incoming).await) })
            }
            methods::ELICITATION_CREATE if caps.elicitation.is_some() => {
                let params: ElicitRequestParams = match rt::request_params(request.params) {
                    Ok(p) => p,
                    Err(e) => return Reply::Now(Err(e)),
                };
                let declared = caps.elicitation.as_ref().is_some_and(|e| match &params {
                    ElicitRequestParams::Form(_) => e.supports_form(),
                    ElicitRequestParams::Url(_) => e.supports_url(),
                });
                if !declared {
                    return Reply::Now(Err(ErrorData::invalid_params("elicitation mode not supported by this client")));
                }
                Reply::later(async move { answer(handler.elicit(params, incoming).await) })
            }
            methods::ROOTS_LIST if caps.roots.is_some() => {
                Reply::later(async move { answer(handler.list_roots(incoming).await) })
            }
            other => Reply::Now(Err(ErrorData::method_not_found(other))),
        }
    }

    fn notification(&self, notification: Notification, _peer: &Peer) -> Option<BoxFuture<'static, ()>> {
        if notification.method == methods::NOTIFICATIONS_SUBSCRIPTIONS_ACKNOWLEDGED
            && self.streams.acknowledge(notification.params.as_ref())
        {
            return None;
        }
        if !self.streams.delivers(&notification) {
            tracing::debug!(method = %notification.method, "a notification of a subscription that ended");
            return None;
        }
        let handler = self.handler.clone();
        Some(
            async move {
                match notification.method.as_str() {
                    methods::NOTIFICATIONS_MESSAGE => match parse_params(&notification.params) {
                        Some(p) => handler.on_log_message(p).await,
                        None => tracing::debug!("malformed log notification"),
                    },
                    methods::NOTIFICATIONS_RESOURCES_UPDATED => match parse_params(&notification.params) {
                        Some(p) => handler.on_resource_updated(p).await,
                        None => tracing::debug!("malformed resource update"),
                    },
                    m @ (methods::NOTIFICATIONS_TOOLS_LIST_CHANGED
                    | methods::NOTIFICATIONS_PROMPTS_LIST_CHANGED
                    | methods::NOTIFICATIONS_RESOURCES_LIST_CHANGED) => handler.on_list_changed(m).await,
                    methods::NOTIFICATIONS_ELICITATION_COMPLETE => match parse_params(&notification.params) {
                        Some(p) => handler.on_elicitation_complete(p).await,
                        None => tracing::debug!("malformed elicitation completion"),
                    },
                    _ => handler.on_notification(notification).await,
                }
            }
            .boxed(),
        )
    }
}

/// Follows `nextCursor` from page to page and gathers every item.
async fn collect_pages<T, F, Fut>(mut fetch: F) -> Result<Vec<T>, Error>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: std::future::Future<Output = Result<(Vec<T>, Option<String>), Error>>,
{
    let mut all = Vec::new();
    let mut cursor = None;
    loop {
        let (items, next) = fetch(cursor).await?;
        all.extend(items);
        match next {
            Some(next) => cursor = Some(next),
            None => return Ok(all),
        }
    }
}

/// A connected, initialized MCP client.
///
/// Cloning is cheap; clones share the connection.
#[derive(Clone)]
pub struct Client {
    peer: Peer,
    server: Arc<InitializeResult>,
    task: Arc<Mutex<Option<JoinHandle<()>>>>,
    output_schemas: Arc<Mutex<HashMap<String, Arc<jsonschema::Validator>>>>,
    /// Set when the server speaks revision 2026-07-28: requests carry the client's envelope.
    stateless: Option<Arc<Stateless>>,
    /// The client's `subscriptions/listen` streams.
    streams: Arc<listen::Streams>,
    /// The client's own `subscriptions/listen` stream.
    managed: Arc<tokio::sync::Mutex<listen::Managed>>,
    /// The time-out of requests that set none.
    request_timeout: Duration,
}

/// How many `input_required` rounds one request may take before the client gives up.
pub const MAX_INPUT_ROUNDS: usize = 16;

/// What a client speaking revision 2026-07-28 adds to its requests, and answers with.
struct Stateless {
    /// The `_meta` keys of every request: version, capabilities, client info.
    envelope: JsonObject,
    /// The log level set with `set_logging_level`, sent with every request.
    log_level: Mutex<Option<LoggingLevel>>,
    handler: Arc<dyn ClientHandler>,
    capabilities: ClientCapabilities,
}

impl Stateless {
    /// Answers the requests for input of an `input_required` result with the client's handlers.
    async fn answer(&self, peer: &Peer, requests: Option<&Value>) -> Result<JsonObject, Error> {
        let Some(Value::Object(requests)) = requests else {
            return Err(Error::Protocol("an input_required result without inputRequests".into()));
        };
        let mut responses = JsonObject::new();
        for (key, request) in requests {
            let method = request.get("method").and_then(Value::as_str).unwrap_or_default();
            let params = request.get("params").cloned().unwrap_or_else(|| Value::Object(JsonObject::new()));
            let incoming = IncomingRequest::local(peer.clone(), RequestId::String(key.clone()));
            let caps = &self.capabilities;
            let answer = match method {
                methods::ELICITATION_CREATE if caps.elicitation.is_some() => {
                    answer(self.handler.elicit(serde_json::from_value(params)?, incoming).await)
                }
                methods::SAMPLING_CREATE_MESSAGE if caps.sampling.is_some() => {
                    answer(self.handler.create_message(serde_json::from_value(params)?, incoming).await)
                }
                methods::ROOTS_LIST if caps.roots.is_some() => answer(self.handler.list_roots(incoming).await),
                other => {
                    return Err(Error::Protocol(format!(
                        "the server asked for {} input, which this client does not give",
                        quoted(other)
                    )));
                }
            };
            responses.insert(key.clone(), answer?);
        }
        Ok(responses)
    }
}

/// Asks a server for `server/discover` with the client's envelope: its answer when it speaks
/// revision 2026-07-28, `None` when it does not (an error, or a list of versions without it).
async fn discover(peer: &Peer, envelope: &JsonObject) -> Result<Option<InitializeResult>, Error> {
    let params = serde_json::json!({ "_meta": envelope });
    let mut attempts = 0;
    let result = loop {
        attempts += 1;
        match peer.request(methods::SERVER_DISCOVER, Some(params.clone()), RequestOptions::default()).await {
            Ok(result) => break result,
            // A refusal of the version that lists it as supported after all is tried once more.
            Err(Error::Rpc(e))
                if attempts == 1
                    && e.code == crate::jsonrpc::UNSUPPORTED_PROTOCOL_VERSION
                    && e.data
                        .as_ref()
                        .and_then(|d| d.get("supported"))
                        .and_then(Value::as_array)
                        .is_some_and(|versions| versions.iter().any(|v| v == STATELESS_PROTOCOL_VERSION)) => {}
            Err(Error::Rpc(e)) => {
                tracing::debug!(code = e.code, "server/discover failed: the server is older than 2026-07-28");
                return Ok(None);
            }
            Err(e) => return Err(e),
        }
    };
    let speaks = result
        .get("supportedVersions")
        .and_then(Value::as_array)
        .is_some_and(|v| v.iter().any(|v| v == STATELESS_PROTOCOL_VERSION));
    if !speaks {
        return Ok(None);
    }
    let info = result
        .get("_meta")
        .and_then(|m| m.get(meta_keys::SERVER_INFO))
        .or_else(|| result.get("serverInfo"))
        .cloned()
        .ok_or_else(|| Error::Protocol("server/discover named no server".into()))?;
    Ok(Some(InitializeResult {
        protocol_version: STATELESS_PROTOCOL_VERSION.to_owned(),
        capabilities: serde_json::from_value(result.get("capabilities").cloned().unwrap_or_default())?,
        server_info: serde_json::from_value(info)?,
        instructions: result.get("instructions").and_then(Value::as_str).map(str::to_owned),
        meta: None,
    }))
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("server", &self.server.server_info).finish()
    }
}

impl Client {
    /// Connects over `transport` with no client-side features and initializes the session.
    pub async fn connect(transport: impl Transport, options: ClientOptions) -> Result<Client, Error> {
        Self::connect_with_handler(transport, options, NoHandler).await
    }

    /// Connects over `transport`, answering server requests with `handler`, and initializes.
    ///
    /// Fails when the server answers with a protocol version this crate does not support.
    pub async fn connect_with_handler(
        transport: impl Transport,
        options: ClientOptions,
        handler: impl ClientHandler,
    ) -> Result<Client, Error> {
        let handler: Arc<dyn ClientHandler> = Arc::new(handler);
        let streams = Arc::new(listen::Streams::default());
        let service = Arc::new(ClientService {
            handler: handler.clone(),
            capabilities: options.capabilities.clone(),
            streams: streams.clone(),
        });
        let config = SessionConfig {
            default_timeout: options.request_timeout,
            middleware: options.middleware.clone(),
            role: Role::Client,
            ..SessionConfig::default()
        };
        let (peer, task) = rt::start(transport, service, config);
        let mut version = options.protocol_version;
        if version == STATELESS_PROTOCOL_VERSION {
            let mut envelope = JsonObject::new();
            envelope.insert(meta_keys::PROTOCOL_VERSION.to_owned(), Value::from(STATELESS_PROTOCOL_VERSION));
            envelope.insert(meta_keys::CLIENT_CAPABILITIES.to_owned(), serde_json::to_value(&options.capabilities)?);
            envelope.insert(meta_keys::CLIENT_INFO.to_owned(), serde_json::to_value(&options.info)?);
            match discover(&peer, &envelope).await {
                Ok(Some(server)) => {
                    let stateless = Stateless {
                        envelope,
                        log_level: Mutex::new(None),
                        handler,
                        capabilities: options.capabilities,
                    };
                    let client = Client {
                        peer,
                        server: Arc::new(server),
                        task: Arc::new(Mutex::new(Some(task))),
                        output_schemas: Arc::default(),
                        stateless: Some(Arc::new(stateless)),
                        streams,
                        managed: Arc::default(),
                        request_timeout: options.request_timeout,
                    };
                    if options.list_changed_notifications
                        && let Err(e) = client.listen_for_list_changes().await
                    {
                        tracing::warn!(error = %e, "the server refused a subscriptions/listen stream for list changes");
                    }
                    return Ok(client);
                }
                // An older server: the session starts with initialize, as before.
                Ok(None) => version = LATEST_PROTOCOL_VERSION.to_owned(),
                Err(e) => {
                    peer.close();
                    return Err(e);
                }
            }
        }
        let mut params = InitializeRequestParams::new(options.capabilities, options.info);
        params.protocol_version = version;
        let result: Result<InitializeResult, Error> =
            peer.request_typed(methods::INITIALIZE, &params, RequestOptions::default()).await;
        let result = match result {
            Ok(r) => r,
            Err(e) => {
                peer.close();
                return Err(e);
            }
        };
        if !is_supported_protocol_version(&result.protocol_version) {
            peer.close();
            return Err(Error::Protocol(format!(
                "the server chose protocol version {}, which is not supported",
                result.protocol_version
            )));
        }
        peer.notify(methods::NOTIFICATIONS_INITIALIZED, &serde_json::json!({}), None)?;
        Ok(Client {
            peer,
            server: Arc::new(result),
            task: Arc::new(Mutex::new(Some(task))),
            output_schemas: Arc::default(),
            stateless: None,
            streams,
            managed: Arc::default(),
            request_timeout: options.request_timeout,
        })
    }

    /// Returns what the server said in its `initialize` result.
    pub fn server(&self) -> &InitializeResult {
        &self.server
    }

    /// Returns the negotiated protocol version.
    pub fn protocol_version(&self) -> &str {
        &self.server.protocol_version
    }

    /// Returns the handle to the server, for raw requests and notifications.
    pub fn peer(&self) -> &Peer {
        &self.peer
    }

    fn require(&self, declared: bool, what: &str) -> Result<(), Error> {
        if declared { Ok(()) } else { Err(Error::CapabilityMissing(what.to_owned())) }
    }

    /// Sends any request and returns its raw result.
    ///
    /// A request of the protocol is checked against the server's capabilities first, as the
    /// typed methods check it; other methods go out as they are.
    pub async fn request(&self, method: &str, params: Option<Value>, options: RequestOptions) -> Result<Value, Error> {
        self.check_capability(method, params.as_ref())?;
        self.send(method, params, options).await
    }

    /// Sends a request with typed parameters and reads its typed result.
    async fn send_typed<P: serde::Serialize, R: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        params: &P,
        options: RequestOptions,
    ) -> Result<R, Error> {
        let value = self.send(method, crate::session::typed_params(params)?, options).await?;
        crate::session::typed_result(method, value)
    }

    /// Sends a request: as it is to a 2025-11-25 session; to a 2026-07-28 server with the
    /// client's envelope in `_meta`, answering each `input_required` result with the client's
    /// own handlers and retrying with `inputResponses` and `requestState`, at most
    /// [`MAX_INPUT_ROUNDS`] times.
    async fn send(&self, method: &str, params: Option<Value>, options: RequestOptions) -> Result<Value, Error> {
        let Some(next) = &self.stateless else { return self.peer.request(method, params, options).await };
        let mut params = match params {
            None | Some(Value::Null) => JsonObject::new(),
            Some(Value::Object(map)) => map,
            Some(other) => return Err(Error::Protocol(format!("request parameters must be an object, not {other}"))),
        };
        let meta = params.entry("_meta").or_insert_with(|| Value::Object(JsonObject::new()));
        if let Value::Object(meta) = meta {
            meta.extend(next.envelope.clone());
            if let Some(level) = *lock(&next.log_level) {
                meta.insert(meta_keys::LOG_LEVEL.to_owned(), serde_json::to_value(level)?);
            }
        }
        for _ in 0..MAX_INPUT_ROUNDS {
            let result = self.peer.request(method, Some(Value::Object(params.clone())), options.clone()).await?;
            if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
                return Ok(result);
            }
            let responses = next.answer(&self.peer, result.get("inputRequests")).await?;
            params.insert("inputResponses".to_owned(), Value::Object(responses));
            match result.get("requestState") {
                Some(state) => params.insert("requestState".to_owned(), state.clone()),
                None => params.remove("requestState"),
            };
        }
        Err(Error::Protocol(format!("the server asked for input more than {MAX_INPUT_ROUNDS} times in one {method}")))
    }

    /// Fails with [`Error::CapabilityMissing`] when the server did not declare what
    /// `method` needs.
    fn check_capability(&self, method: &str, params: Option<&Value>) -> Result<(), Error> {
        let caps = &self.server.capabilities;
        let tasks = self.tasks_capability();
        match method {
            methods::TOOLS_LIST => self.require(caps.tools.is_some(), "tools"),
            methods::TOOLS_CALL if params.and_then(|p| p.get("task")).is_some() => self.require(
                tasks
                    .and_then(|t| t.requests.as_ref())
                    .and_then(|r| r.tools.as_ref())
                    .is_some_and(|t| t.call.is_some()),
                "tasks.requests.tools.call",
            ),
            methods::TOOLS_CALL => self.require(caps.tools.is_some(), "tools"),
            methods::RESOURCES_LIST | methods::RESOURCES_TEMPLATES_LIST | methods::RESOURCES_READ => {
                self.require(caps.resources.is_some(), "resources")
            }
            methods::RESOURCES_SUBSCRIBE | methods::RESOURCES_UNSUBSCRIBE => {
                self.require(self.subscriptions_declared(), "resources.subscribe")
            }
            methods::PROMPTS_LIST | methods::PROMPTS_GET => self.require(caps.prompts.is_some(), "prompts"),
            methods::COMPLETION_COMPLETE => self.require(caps.completions.is_some(), "completions"),
            methods::LOGGING_SET_LEVEL => self.require(caps.logging.is_some(), "logging"),
            methods::TASKS_GET | methods::TASKS_RESULT => self.require(tasks.is_some(), "tasks"),
            methods::TASKS_LIST => self.require(tasks.is_some_and(|t| t.list.is_some()), "tasks.list"),
            methods::TASKS_CANCEL => self.require(tasks.is_some_and(|t| t.cancel.is_some()), "tasks.cancel"),
            _ => Ok(()),
        }
    }

    /// Sends `ping`.
    pub async fn ping(&self) -> Result<(), Error> {
        if self.stateless.is_some() {
            // 2026-07-28 has no ping: any request shows the server is there.
            return self.send(methods::SERVER_DISCOVER, None, RequestOptions::default()).await.map(drop);
        }
        self.peer.ping().await
    }

    /// Lists one page of tools.
    pub async fn list_tools(&self, cursor: Option<String>) -> Result<ListToolsResult, Error> {
        self.require(self.server.capabilities.tools.is_some(), "tools")?;
        let params = PaginatedRequestParams { cursor, meta: None };
        let mut result: ListToolsResult =
            self.send_typed(methods::TOOLS_LIST, &params, RequestOptions::default()).await?;
        if self.stateless.is_some() {
            // Revision 2026-07-28: a tool whose x-mcp-header annotations break the rules is left out.
            result.tools.retain(|tool| match crate::model::headers::header_params(&tool.input_schema) {
                Ok(_) => true,
                Err(e) => {
                    tracing::warn!(tool = %tool.name, error = %e, "leaving out a tool with invalid x-mcp-header annotations");
                    false
                }
            });
        }
        let mut schemas = lock(&self.output_schemas);
        for tool in &result.tools {
            if let Some(schema) = &tool.output_schema
                && let Ok(v) = jsonschema::validator_for(&Value::Object(schema.clone()))
            {
                schemas.insert(tool.name.clone(), Arc::new(v));
            }
        }
        Ok(result)
    }

    /// Lists every tool, following the pages.
    pub async fn list_all_tools(&self) -> Result<Vec<Tool>, Error> {
        collect_pages(|cursor| async move {
            let page = self.list_tools(cursor).await?;
            Ok((page.tools, page.next_cursor))
        })
        .await
    }

    /// Calls a tool with JSON arguments (an object, or `null` for none).
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<CallToolResult, Error> {
        let arguments = tool_arguments(arguments)?;
        let params = CallToolRequestParams { name: name.to_owned(), arguments, task: None, meta: None };
        self.call_tool_with(params, RequestOptions::default()).await
    }

    fn tasks_capability(&self) -> Option<&crate::model::ServerTasksCapability> {
        self.server.capabilities.tasks.as_ref()
    }

    /// Calls a tool as a task (experimental), asking the server to keep it `ttl` milliseconds
    /// (the server may grant less), and returns the created task at once.
    ///
    /// Follow it with [`get_task`](Self::get_task) and [`task_result`](Self::task_result).
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Value,
        ttl: Option<u64>,
    ) -> Result<CreateTaskResult, Error> {
        let declared = self
            .tasks_capability()
            .and_then(|t| t.requests.as_ref())
            .and_then(|r| r.tools.as_ref())
            .is_some_and(|t| t.call.is_some());
        self.require(declared, "tasks.requests.tools.call")?;
        let arguments = tool_arguments(arguments)?;
        let params =
            CallToolRequestParams { name: name.to_owned(), arguments, task: Some(TaskMetadata { ttl }), meta: None };
        self.send_typed(methods::TOOLS_CALL, &params, RequestOptions::default()).await
    }

    /// Returns the current state of a task (`tasks/get`).
    pub async fn get_task(&self, task_id: &str) -> Result<GetTaskResult, Error> {
        self.require(self.tasks_capability().is_some(), "tasks")?;
        let params = TaskIdRequestParams { task_id: task_id.to_owned(), meta: None };
        self.send_typed(methods::TASKS_GET, &params, RequestOptions::default()).await
    }

    /// Waits until a tool-call task ends and returns its result (`tasks/result`), or the
    /// error the call ended with.
    ///
    /// The wait is bounded by the client's request time-out; use [`request`](Self::request)
    /// with other options for longer tasks.
    pub async fn task_result(&self, task_id: &str) -> Result<CallToolResult, Error> {
        self.require(self.tasks_capability().is_some(), "tasks")?;
        let params = TaskIdRequestParams { task_id: task_id.to_owned(), meta: None };
        self.send_typed(methods::TASKS_RESULT, &params, RequestOptions::default()).await
    }

    /// Lists one page of the tasks the server keeps for this session (`tasks/list`).
    pub async fn list_tasks(&self, cursor: Option<String>) -> Result<ListTasksResult, Error> {
        self.require(self.tasks_capability().is_some_and(|t| t.list.is_some()), "tasks.list")?;
        let params = PaginatedRequestParams { cursor, meta: None };
        self.send_typed(methods::TASKS_LIST, &params, RequestOptions::default()).await
    }

    /// Cancels a task (`tasks/cancel`) and returns its final state.
    pub async fn cancel_task(&self, task_id: &str) -> Result<GetTaskResult, Error> {
        self.require(self.tasks_capability().is_some_and(|t| t.cancel.is_some()), "tasks.cancel")?;
        let params = TaskIdRequestParams { task_id: task_id.to_owned(), meta: None };
        self.send_typed(methods::TASKS_CANCEL, &params, RequestOptions::default()).await
    }

    /// Calls a tool with full control over the parameters and the request.
    ///
    /// When the tool was listed with an output schema, structured content is validated
    /// against it and a mismatch is an error.
    pub async fn call_tool_with(
        &self,
        params: CallToolRequestParams,
        options: RequestOptions,
    ) -> Result<CallToolResult, Error> {
        self.require(self.server.capabilities.tools.is_some(), "tools")?;
        let name = params.name.clone();
        let result: CallToolResult = self.send_typed(methods::TOOLS_CALL, &params, options).await?;
        let validator = lock(&self.output_schemas).get(&name).cloned();
        if let Some(validator) = validator
            && !result.is_error()
        {
            let structured = result.structured_content.clone().map(Value::Object);
            match structured {
                Some(s) if validator.is_valid(&s) => {}
                Some(_) => {
                    return Err(Error::Protocol(format!(
                        "tool {name} returned structured content that does not match its output schema"
                    )));
                }
                None => {
                    return Err(Error::Protocol(format!(
                        "tool {name} has an output schema but returned no structured content"
                    )));
                }
            }
        }
        Ok(result)
    }

    /// Lists one page of resources.
    pub async fn list_resources(&self, cursor: Option<String>) -> Result<ListResourcesResult, Error> {
        self.require(self.server.capabilities.resources.is_some(), "resources")?;
        let params = PaginatedRequestParams { cursor, meta: None };
        self.send_typed(methods::RESOURCES_LIST, &params, RequestOptions::default()).await
    }

    /// Lists every resource, following the pages.
    pub async fn list_all_resources(&self) -> Result<Vec<Resource>, Error> {
        collect_pages(|cursor| async move {
            let page = self.list_resources(cursor).await?;
            Ok((page.resources, page.next_cursor))
        })
        .await
    }

    /// Lists one page of resource templates.
    pub async fn list_resource_templates(&self, cursor: Option<String>) -> Result<ListResourceTemplatesResult, Error> {
        self.require(self.server.capabilities.resources.is_some(), "resources")?;
        let params = PaginatedRequestParams { cursor, meta: None };
        self.send_typed(methods::RESOURCES_TEMPLATES_LIST, &params, RequestOptions::default()).await
    }

    /// Lists every resource template, following the pages.
    pub async fn list_all_resource_templates(&self) -> Result<Vec<ResourceTemplate>, Error> {
        collect_pages(|cursor| async move {
            let page = self.list_resource_templates(cursor).await?;
            Ok((page.resource_templates, page.next_cursor))
        })
        .await
    }

    /// Reads the HTML view of an app (MCP Apps) at `uri`, checking its MIME type; fails with
    /// [`Error::Protocol`] when the resource is not an app view.
    pub async fn read_app_view(&self, uri: &str) -> Result<crate::model::apps::AppView, Error> {
        let result = self.read_resource(uri).await?;
        crate::model::apps::AppView::from_read(uri, &result).map_err(Error::Protocol)
    }

    /// Reads a resource.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, Error> {
        self.require(self.server.capabilities.resources.is_some(), "resources")?;
        let params = ResourceRequestParams { uri: uri.to_owned(), meta: None };
        self.send_typed(methods::RESOURCES_READ, &params, RequestOptions::default()).await
    }

    fn subscriptions_declared(&self) -> bool {
        self.server.capabilities.resources.as_ref().and_then(|r| r.subscribe) == Some(true)
    }

    /// Subscribes to updates of a resource.
    ///
    /// With a 2026-07-28 server the client's own `subscriptions/listen` stream is reopened with
    /// `uri` among its resources, and this returns once the server acknowledged it.
    pub async fn subscribe(&self, uri: &str) -> Result<(), Error> {
        self.require(self.subscriptions_declared(), "resources.subscribe")?;
        if self.stateless.is_some() {
            return self.listen_to_resource(uri).await;
        }
        let params = ResourceRequestParams { uri: uri.to_owned(), meta: None };
        self.send_typed::<_, EmptyResult>(methods::RESOURCES_SUBSCRIBE, &params, RequestOptions::default())
            .await
            .map(drop)
    }

    /// Ends a subscription.
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), Error> {
        self.require(self.subscriptions_declared(), "resources.subscribe")?;
        if self.stateless.is_some() {
            return self.stop_listening_to_resource(uri).await;
        }
        let params = ResourceRequestParams { uri: uri.to_owned(), meta: None };
        self.send_typed::<_, EmptyResult>(methods::RESOURCES_UNSUBSCRIBE, &params, RequestOptions::default())
            .await
            .map(drop)
    }

    /// Lists one page of prompts.
    pub async fn list_prompts(&self, cursor: Option<String>) -> Result<ListPromptsResult, Error> {
        self.require(self.server.capabilities.prompts.is_some(), "prompts")?;
        let params = PaginatedRequestParams { cursor, meta: None };
        self.send_typed(methods::PROMPTS_LIST, &params, RequestOptions::default()).await
    }

    /// Lists every prompt, following the pages.
    pub async fn list_all_prompts(&self) -> Result<Vec<Prompt>, Error> {
        collect_pages(|cursor| async move {
            let page = self.list_prompts(cursor).await?;
            Ok((page.prompts, page.next_cursor))
        })
        .await
    }

    /// Gets a prompt with string arguments.
    pub async fn get_prompt<'a>(
        &self,
        name: &str,
        arguments: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<GetPromptResult, Error> {
        self.require(self.server.capabilities.prompts.is_some(), "prompts")?;
        let arguments: JsonObject =
            arguments.into_iter().map(|(k, v)| (k.to_owned(), Value::String(v.to_owned()))).collect();
        let params = GetPromptRequestParams { name: name.to_owned(), arguments: Some(arguments), meta: None };
        self.send_typed(methods::PROMPTS_GET, &params, RequestOptions::default()).await
    }

    /// Asks for completions of an argument of a prompt or resource template.
    ///
    /// [`Client::complete_with_context`] also sends the arguments already resolved.
    pub async fn complete(
        &self,
        reference: CompletionReference,
        argument: &str,
        value: &str,
    ) -> Result<CompleteResult, Error> {
        self.send_complete(reference, argument, value, None).await
    }

    /// Asks for completions of an argument, telling the server the other arguments already
    /// resolved for the same prompt or template (the request's `context.arguments`), so that it
    /// can narrow its suggestions to them.
    pub async fn complete_with_context<'a>(
        &self,
        reference: CompletionReference,
        argument: &str,
        value: &str,
        resolved: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<CompleteResult, Error> {
        let arguments = resolved.into_iter().map(|(k, v)| (k.to_owned(), v.to_owned())).collect();
        self.send_complete(reference, argument, value, Some(CompletionContext { arguments: Some(arguments) })).await
    }

    async fn send_complete(
        &self,
        reference: CompletionReference,
        argument: &str,
        value: &str,
        context: Option<CompletionContext>,
    ) -> Result<CompleteResult, Error> {
        self.require(self.server.capabilities.completions.is_some(), "completions")?;
        let params = CompleteRequestParams {
            reference,
            argument: CompletionArgument { name: argument.to_owned(), value: value.to_owned() },
            context,
            meta: None,
        };
        self.send_typed(methods::COMPLETION_COMPLETE, &params, RequestOptions::default()).await
    }

    /// Sets the lowest level of log messages the server should send.
    ///
    /// With a 2026-07-28 server the level goes into the `_meta` of every later request instead.
    pub async fn set_logging_level(&self, level: LoggingLevel) -> Result<(), Error> {
        self.require(self.server.capabilities.logging.is_some(), "logging")?;
        if let Some(next) = &self.stateless {
            *lock(&next.log_level) = Some(level);
            return Ok(());
        }
        let params = SetLevelRequestParams { level, meta: None };
        self.send_typed::<_, EmptyResult>(methods::LOGGING_SET_LEVEL, &params, RequestOptions::default())
            .await
            .map(drop)
    }

    /// Tells the server that the client's roots changed.
    pub fn notify_roots_list_changed(&self) -> Result<(), Error> {
        self.peer.notify(methods::NOTIFICATIONS_ROOTS_LIST_CHANGED, &serde_json::json!({}), None)
    }

    /// Closes the connection and waits until the session has ended.
    ///
    /// Over a spawned process this closes its stdin, waits for it to exit, and terminates
    /// it if it does not.
    pub async fn close(&self) {
        self.peer.close();
        let task = lock(&self.task).take();
        if let Some(task) = task {
            let _ = task.await;
        }
    }
}

/// Turns JSON tool arguments (an object, or `null` for none) into call parameters.
fn tool_arguments(arguments: Value) -> Result<Option<JsonObject>, Error> {
    match arguments {
        Value::Object(map) => Ok(Some(map)),
        Value::Null => Ok(None),
        other => Err(Error::Protocol(format!("tool arguments must be a JSON object, not {other}"))),
    }
}
