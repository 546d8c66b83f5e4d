//! The host handle: one client for many servers, read from the `mcpServers` configuration, with
//! the servers' states, the one view of their features and the host's events as JSON.
//!
//! The core's [`mcpweft::host`] does the work (connecting, namespacing, collisions, routing,
//! restarts, time-outs kept alive by progress); this module only reads its settings from JSON,
//! answers the servers' requests with the bridge's [`Callback`](crate::Callback)s, told the
//! server's name in the payload, and writes what the host knows as JSON.

use std::sync::Arc;

use async_trait::async_trait;
use mcpweft::{
    ErrorData,
    host::{self, CollisionKind, HostConfig, HostEvent, HostHandler, ListKind, ServerState},
    jsonrpc::Notification,
    model::{
        CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
        ElicitationCompleteNotificationParams, JsonObject, ListRootsResult, LoggingMessageNotificationParams,
        ResourceUpdatedNotificationParams, methods,
    },
    session::IncomingRequest,
};
use serde::Serialize;
use serde_json::{Map, Value, json};
use tokio::sync::broadcast::{self, error::RecvError};
use tokio_util::sync::CancellationToken;

use crate::{CallOptions, ClientCallbacks, Context, Error, Task, client::ClientSpec, server::parse};

/// The core's builder of a host of `config` with `options`: a client's settings (see
/// [`crate::Client`]) and the `separator`; it declares the capabilities the callbacks imply
/// beside those declared, and answers the servers with the callbacks.
fn host_builder(config: HostConfig, options: Value, callbacks: ClientCallbacks) -> Result<host::HostBuilder, Error> {
    let mut options = match options {
        Value::Null => Map::new(),
        Value::Object(map) => map,
        other => return Err(Error::invalid_input(format!("host options are an object, not {other}"))),
    };
    let separator = options.remove("separator").map(|v| parse::<String>(v, "the host's separator")).transpose()?;
    let redirect_uri =
        options.remove("redirectUri").map(|v| parse::<String>(v, "the host's redirectUri")).transpose()?;
    let client = parse::<ClientSpec>(Value::Object(options), "host options")?.options(&callbacks, "mcpweft-host");
    let mut builder = host::Host::builder(config)
        .with_info(client.info)
        .with_capabilities(client.capabilities)
        .with_protocol_version(client.protocol_version)
        .with_request_timeout(client.request_timeout)
        .with_middleware_chain(client.middleware);
    if let Some(separator) = separator {
        builder = builder.with_separator(separator);
    }
    match (redirect_uri, &callbacks.authorizer) {
        (Some(redirect_uri), Some(authorizer)) => {
            builder = builder.with_authorizer(redirect_uri, crate::auth::authorizer(authorizer.clone()));
        }
        (None, None) => {}
        (Some(_), None) => return Err(Error::invalid_input("the host's redirectUri needs an authorizer callback")),
        (None, Some(_)) => return Err(Error::invalid_input("a host with an authorizer callback needs redirectUri")),
    }
    if let Some(store) = &callbacks.token_store {
        builder = builder.with_token_store(crate::auth::token_store(store.clone()));
    }
    Ok(builder.with_handler(Callbacks(callbacks)))
}

/// Reads a host's configuration: the path of a file, the whole configuration (an object with
/// `mcpServers`, or VS Code's `servers`), or the `mcpServers` object alone.
fn host_config(config: Value) -> Result<HostConfig, Error> {
    Ok(match config {
        Value::String(path) => HostConfig::from_file(path)?,
        Value::Object(map) if map.contains_key("mcpServers") || map.contains_key("servers") => {
            HostConfig::from_value(&Value::Object(map))?
        }
        Value::Object(servers) => HostConfig::from_value(&json!({ "mcpServers": servers }))?,
        other => {
            return Err(Error::invalid_input(format!(
                "a host configuration is an object or the path of a file, not {other}"
            )));
        }
    })
}

/// The host's side over the bridge's callbacks: every payload names the server.
struct Callbacks(ClientCallbacks);

/// The payload of a callback: the server's name beside what it sent.
fn from_server(server: &str, params: impl Serialize) -> Value {
    json!({ "server": server, "params": serde_json::to_value(params).unwrap_or(Value::Null) })
}

impl Callbacks {
    async fn hear(&self, server: &str, method: &str, params: impl Serialize) {
        if let Some(callback) = &self.0.notification {
            let mut payload = from_server(server, params);
            payload["method"] = json!(method);
            if let Err(e) = callback.call(payload, Context::notification()).await {
                tracing::warn!(error = %e, server, method, "the notification callback failed");
            }
        }
    }
}

#[async_trait]
impl HostHandler for Callbacks {
    async fn create_message(
        &self,
        server: &str,
        params: CreateMessageRequestParams,
        request: IncomingRequest,
    ) -> Result<CreateMessageResult, ErrorData> {
        let callback = self.0.sampling.as_ref().map(|s| &s.0);
        let payload = from_server(server, params);
        ClientCallbacks::answer(callback, methods::SAMPLING_CREATE_MESSAGE, payload, request).await
    }

    async fn elicit(
        &self,
        server: &str,
        params: ElicitRequestParams,
        request: IncomingRequest,
    ) -> Result<ElicitResult, ErrorData> {
        let callback = self.0.elicitation.as_ref().map(|e| &e.0);
        ClientCallbacks::answer(callback, methods::ELICITATION_CREATE, from_server(server, params), request).await
    }

    async fn list_roots(&self, server: &str, request: IncomingRequest) -> Result<ListRootsResult, ErrorData> {
        let payload = json!({ "server": server });
        ClientCallbacks::answer(self.0.roots.as_ref(), methods::ROOTS_LIST, payload, request).await
    }

    async fn on_log_message(&self, server: &str, params: LoggingMessageNotificationParams) {
        self.hear(server, methods::NOTIFICATIONS_MESSAGE, params).await;
    }

    async fn on_resource_updated(&self, server: &str, params: ResourceUpdatedNotificationParams) {
        self.hear(server, methods::NOTIFICATIONS_RESOURCES_UPDATED, params).await;
    }

    async fn on_elicitation_complete(&self, server: &str, params: ElicitationCompleteNotificationParams) {
        self.hear(server, methods::NOTIFICATIONS_ELICITATION_COMPLETE, params).await;
    }

    async fn on_notification(&self, server: &str, notification: Notification) {
        let params = notification.params.unwrap_or_else(|| json!({}));
        self.hear(server, &notification.method, params).await;
    }
}

/// A server's state as JSON: `{"state"}`, one of `disabled`, `connecting`, `ready`, `failed`
/// and `closed`, with `reason` and (when the server wrote any) `stderr` for `failed`.
fn state_json(state: &ServerState) -> Map<String, Value> {
    let name = match state {
        ServerState::Disabled => "disabled".to_owned(),
        ServerState::Connecting => "connecting".to_owned(),
        ServerState::Ready => "ready".to_owned(),
        ServerState::Failed { .. } => "failed".to_owned(),
        ServerState::Closed => "closed".to_owned(),
        other => other.to_string(),
    };
    let mut map = Map::new();
    map.insert("state".to_owned(), json!(name));
    if let ServerState::Failed { reason, stderr } = state {
        map.insert("reason".to_owned(), json!(reason));
        if let Some(stderr) = stderr {
            map.insert("stderr".to_owned(), json!(stderr));
        }
    }
    map
}

/// A feature of one server as JSON: its schema shape, with the server's name added.
fn with_server(item: &impl Serialize, server: &str) -> Value {
    let mut value = serde_json::to_value(item).unwrap_or_else(|_| json!({}));
    if let Some(map) = value.as_object_mut() {
        map.insert("server".to_owned(), json!(server));
    }
    value
}

fn collisions_json(collisions: &[host::Collision]) -> Value {
    let kind = |kind: CollisionKind| match kind {
        CollisionKind::Tool => "tool".to_owned(),
        CollisionKind::Prompt => "prompt".to_owned(),
        CollisionKind::Resource => "resource".to_owned(),
        CollisionKind::ResourceTemplate => "resourceTemplate".to_owned(),
        other => format!("{other:?}"),
    };
    collisions.iter().map(|c| json!({ "kind": kind(c.kind), "name": c.name, "servers": c.servers })).collect()
}

/// An event as JSON, or `None` for a kind of event this bridge does not know.
fn event_json(event: &HostEvent) -> Option<Value> {
    Some(match event {
        HostEvent::StateChanged { server, state } => {
            let mut map = Map::new();
            map.insert("type".to_owned(), json!("stateChanged"));
            map.insert("server".to_owned(), json!(server));
            map.extend(state_json(state));
            Value::Object(map)
        }
        HostEvent::ListChanged { server, list } => {
            let list = match list {
                ListKind::Tools => "tools".to_owned(),
                ListKind::Prompts => "prompts".to_owned(),
                ListKind::Resources => "resources".to_owned(),
                other => format!("{other:?}"),
            };
            json!({ "type": "listChanged", "server": server, "list": list })
        }
        HostEvent::Collisions { collisions } => {
            json!({ "type": "collisions", "collisions": collisions_json(collisions) })
        }
        _ => return None,
    })
}

/// The core's options of a call through a host, from the bridge's: time-outs and progress,
/// not a task (a tool call's task is taken out before) or `_meta`.
fn host_call(options: CallOptions, call: &str) -> Result<host::CallOptions, Error> {
    if options.task.is_some() {
        return Err(Error::invalid_input(format!("{call} through a host takes no task")));
    }
    host_options(options)
}

/// The core's options of a host call whose task, when it has one, was taken out.
fn host_options(options: CallOptions) -> Result<host::CallOptions, Error> {
    if options.meta.is_some() {
        return Err(Error::invalid_input(
            "a call through a host takes timeoutMs, maxTotalTimeoutMs and progress (and a task for a tool), not meta",
        ));
    }
    let mut host = host::CallOptions::new();
    if let Some(timeout) = options.timeout {
        host = host.with_timeout(timeout);
    }
    if let Some(limit) = options.max_total_timeout {
        host = host.with_max_total_timeout(limit);
    }
    if let Some(callback) = options.on_progress {
        host = host.with_progress(move |p| callback(serde_json::to_value(p).unwrap_or(Value::Null)));
    }
    Ok(host)
}

fn to_json(value: &impl Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// One client for many servers; cloning is cheap and gives the same servers, which are closed
/// when the last clone is dropped or by [`Host::close`].
#[derive(Clone, Debug)]
pub struct Host {
    inner: host::Host,
    /// Cancelled once [`Host::close`] has closed every server, which ends the event readers.
    closed: CancellationToken,
}

impl Host {
    /// Connects to every enabled server of `config` at once and finishes when each has become
    /// ready or failed (a server that fails does not fail the task: its state says why).
    ///
    /// `config` is the path of a configuration file, the whole configuration (an object with
    /// `mcpServers`, or VS Code's `servers`), or the `mcpServers` object alone (a server named
    /// `servers` needs the `mcpServers` around it); `${VAR}` is expanded from this process's
    /// environment. `options` is `null` or an object with `name`, `version`, `title`, `icons`,
    /// `websiteUrl` (the client's description sent to every server), `protocolVersion`,
    /// `requestTimeoutMs` (for servers without `timeoutMs`), `capabilities` (declared beside
    /// those the callbacks imply) and `separator` (between a server's prefix and a tool or
    /// prompt name, `__` by default).
    ///
    /// The callbacks answer every server, each payload naming it: sampling and elicitation get
    /// `{"server", "params"}`, roots `{"server"}`, and the notification callback hears
    /// `{"server", "method", "params"}` for log messages, resource updates and any other
    /// notification but list changes, which the host handles itself ([`Host::events`]).
    ///
    /// Servers configured with `oauth` log in through the authorizer callback (as a client's
    /// does: `{"authorizationUrl"}` in, the URL the authorization server redirected to out),
    /// which needs the option `redirectUri`; the token store callback keeps every server's
    /// tokens under its resource URL. A host takes no close callback: its events tell when a
    /// server goes away.
    pub fn connect(config: Value, options: Value, callbacks: ClientCallbacks) -> Task<Host> {
        Task::new(async move {
            let config = host_config(config)?;
            if callbacks.close.is_some() {
                return Err(Error::invalid_input(
                    "a host takes no close callback: its events tell when a server goes away",
                ));
            }
            let inner = host_builder(config, options, callbacks)?.connect().await?;
            Ok(Host { inner, closed: CancellationToken::new() })
        })
    }

    /// Returns every configured server in the order of the configuration, each as its state
    /// with its `name` first: `{"name", "state", "reason", "stderr"}` (see [`Host::state`]).
    pub fn servers(&self) -> Value {
        let servers = self.inner.servers().into_iter().map(|(name, state)| {
            let mut map = Map::new();
            map.insert("name".to_owned(), json!(name));
            map.extend(state_json(&state));
            Value::Object(map)
        });
        Value::Array(servers.collect())
    }

    /// Returns the state of the server `name` as `{"state"}`, one of `disabled`,
    /// `connecting`, `ready`, `failed` and `closed`; a failed server's has the `reason` and,
    /// when it wrote any, the end of its `stderr`. Fails with kind `Config` for a name the
    /// configuration does not have.
    pub fn state(&self, name: &str) -> Result<Value, Error> {
        let state = self.inner.state(name).ok_or_else(|| Error::config(format!("no server is named {name:?}")))?;
        Ok(Value::Object(state_json(&state)))
    }

    /// Returns the tools of every ready server as the schema has them, each under its host
    /// name (`calc__add`) and with the `server` that offers it; names that several servers
    /// offer are left out ([`Host::collisions`]).
    pub fn tools(&self) -> Value {
        let tool = |t: &host::HostTool| {
            let mut value = with_server(&t.namespaced(), &t.server);
            value["visibleToModel"] = Value::Bool(t.visible_to_model());
            value
        };
        self.inner.tools().iter().map(tool).collect()
    }

    /// Reads the app view (MCP Apps) of the tool with host name `tool` from its server:
    /// `{"uri", "html", "meta"}` as [`crate::Client::read_app_view`] gives it.
    pub fn read_app_view(&self, tool: &str) -> Task<Value> {
        let (host, tool) = (self.inner.clone(), tool.to_owned());
        Task::new(async move { Ok(crate::client::app_view_json(&host.read_app_view(&tool).await?)) })
    }

    /// Returns the prompts of every ready server, each under its host name and with its
    /// `server`.
    pub fn prompts(&self) -> Value {
        self.inner.prompts().iter().map(|p| with_server(&p.namespaced(), &p.server)).collect()
    }

    /// Returns the resources of every ready server, each with its `server`.
    pub fn resources(&self) -> Value {
        self.inner.resources().iter().map(|r| with_server(&r.resource, &r.server)).collect()
    }

    /// Returns the resource templates of every ready server, each with its `server`.
    pub fn resource_templates(&self) -> Value {
        self.inner.resource_templates().iter().map(|t| with_server(&t.template, &t.server)).collect()
    }

    /// Returns the names that several ready servers offer at once, which the host offers under
    /// none of them: `[{"kind", "name", "servers"}]`, `kind` being `tool`, `prompt`,
    /// `resource` or `resourceTemplate`.
    pub fn collisions(&self) -> Value {
        collisions_json(&self.inner.collisions())
    }

    /// Calls a tool by its host name with JSON arguments (an object, or `null`). `options`
    /// may hold `timeoutMs` (which each progress notification restarts), `maxTotalTimeoutMs`
    /// and the progress callback; they override the server's configuration. A server that is
    /// not ready, or goes away during the call, fails it with kind `TransportClosed`, naming
    /// the server; a name several servers offer fails with kind `Config`. Dropping the task
    /// cancels the call.
    ///
    /// With a `task` in `options` (`{"ttl"}`, milliseconds), the server that offers the tool
    /// runs it as a task: the result is the created task (`{"task"}`) with the `server` that
    /// runs it, which [`Host::get_task`], [`Host::task_result`] and [`Host::cancel_task`] take.
    pub fn call_tool(&self, name: &str, arguments: Value, mut options: CallOptions) -> Task<Value> {
        let (host, name) = (self.inner.clone(), name.to_owned());
        Task::new(async move {
            let Some(task) = options.task.take() else {
                let options = host_call(options, "calling a tool")?;
                return Ok(to_json(&host.call_tool_with(&name, arguments, options).await?));
            };
            // `CallOptions::from_json` checked the task's fields.
            let ttl = task.get("ttl").and_then(Value::as_u64);
            let task = host.call_tool_as_task(&name, arguments, ttl, host_options(options)?).await?;
            let mut created = to_json(&task.created);
            created["server"] = json!(task.server);
            Ok(created)
        })
    }

    /// Returns the state of the task `task_id` of the server `server` (`tasks/get`); `options`
    /// as for [`Host::call_tool`], without a task.
    pub fn get_task(&self, server: &str, task_id: &str, options: CallOptions) -> Task<Value> {
        let (host, server, task_id) = (self.inner.clone(), server.to_owned(), task_id.to_owned());
        Task::new(async move {
            let options = host_call(options, "getting a task")?;
            Ok(to_json(&host.get_task(&server, &task_id, options).await?))
        })
    }

    /// Waits until the task `task_id` of the server `server` ends and returns the tool's
    /// result (`tasks/result`); `options` as for [`Host::get_task`].
    pub fn task_result(&self, server: &str, task_id: &str, options: CallOptions) -> Task<Value> {
        let (host, server, task_id) = (self.inner.clone(), server.to_owned(), task_id.to_owned());
        Task::new(async move {
            let options = host_call(options, "waiting for a task")?;
            Ok(to_json(&host.task_result(&server, &task_id, options).await?))
        })
    }

    /// Cancels the task `task_id` of the server `server` and returns its final state
    /// (`tasks/cancel`); `options` as for [`Host::get_task`].
    pub fn cancel_task(&self, server: &str, task_id: &str, options: CallOptions) -> Task<Value> {
        let (host, server, task_id) = (self.inner.clone(), server.to_owned(), task_id.to_owned());
        Task::new(async move {
            let options = host_call(options, "cancelling a task")?;
            Ok(to_json(&host.cancel_task(&server, &task_id, options).await?))
        })
    }

    /// Reads the resource at `uri` from `server`, or else from the server that lists it or the
    /// one server whose resource template matches it; `options` as for [`Host::call_tool`].
    pub fn read_resource(&self, uri: &str, server: Option<String>, options: CallOptions) -> Task<Value> {
        let (host, uri) = (self.inner.clone(), uri.to_owned());
        Task::new(async move {
            let options = host_call(options, "reading a resource")?;
            Ok(to_json(&host.read_resource_with(&uri, server.as_deref(), options).await?))
        })
    }

    /// Gets a prompt by its host name with `arguments`, an object of strings or `null`;
    /// `options` as for [`Host::call_tool`].
    pub fn get_prompt(&self, name: &str, arguments: Value, options: CallOptions) -> Task<Value> {
        let (host, name) = (self.inner.clone(), name.to_owned());
        Task::new(async move {
            let options = host_call(options, "getting a prompt")?;
            let arguments = match arguments {
                Value::Null => JsonObject::new(),
                Value::Object(arguments) => arguments,
                other => {
                    return Err(Error::invalid_input(format!("prompt arguments must be an object, not {other}")));
                }
            };
            Ok(to_json(&host.get_prompt_with(&name, arguments, options).await?))
        })
    }

    /// Connects to the server `name` again: a ready one is closed first, a failed one is tried
    /// anew. Fails with kind `Config` for a name the configuration does not have or a disabled
    /// server.
    pub fn restart(&self, name: &str) -> Result<(), Error> {
        Ok(self.inner.restart(name)?)
    }

    /// Tells every ready server that the host's roots changed.
    pub fn notify_roots_changed(&self) {
        self.inner.notify_roots_list_changed();
    }

    /// Returns a reader of what happens from now on, one event at a time
    /// ([`HostEvents::next_event`]).
    pub fn events(&self) -> HostEvents {
        HostEvents {
            receiver: Arc::new(tokio::sync::Mutex::new(self.inner.events())),
            host_closed: self.closed.clone(),
            closed: CancellationToken::new(),
        }
    }

    /// Closes every server and finishes once each has ended (a spawned one is asked to exit,
    /// then terminated); every state becomes `closed`, and the event readers end after the
    /// events that tell it. Closing again does nothing.
    pub fn close(&self) -> Task<()> {
        let (host, closed) = (self.inner.clone(), self.closed.clone());
        Task::new(async move {
            host.close().await;
            closed.cancel();
            Ok(())
        })
    }
}

/// A reader of a host's events, made by [`Host::events`].
#[derive(Debug)]
pub struct HostEvents {
    receiver: Arc<tokio::sync::Mutex<broadcast::Receiver<HostEvent>>>,
    host_closed: CancellationToken,
    closed: CancellationToken,
}

impl HostEvents {
    /// Waits for the next event and returns it as JSON, or `null` once the reader or the host
    /// is closed (after the events the host's closing sent):
    ///
    /// - `{"type": "stateChanged", "server", "state", "reason", "stderr"}`: a server changed
    ///   state (as [`Host::state`] writes it); the host's lists already show it.
    /// - `{"type": "listChanged", "server", "list"}`: a server's `tools`, `prompts` or
    ///   `resources` (with its templates) changed, and the host's lists show the new one.
    /// - `{"type": "collisions", "collisions"}`: the names several servers offer changed; these
    ///   are all of them now (as [`Host::collisions`] writes them).
    /// - `{"type": "lagged", "missed"}`: the reader fell more than 256 events behind and missed
    ///   the oldest `missed`; the host's lists and states always show the present.
    ///
    /// Events come in order; a call made while another waits gets the one after it.
    pub fn next_event(&self) -> Task<Value> {
        let (receiver, host_closed, closed) = (self.receiver.clone(), self.host_closed.clone(), self.closed.clone());
        Task::new(async move {
            let next = async {
                let mut receiver = receiver.lock().await;
                loop {
                    let received = tokio::select! {
                        biased;
                        received = receiver.recv() => received,
                        () = host_closed.cancelled() => return Value::Null,
                    };
                    match received {
                        Ok(event) => {
                            if let Some(event) = event_json(&event) {
                                return event;
                            }
                        }
                        Err(RecvError::Lagged(missed)) => return json!({ "type": "lagged", "missed": missed }),
                        Err(RecvError::Closed) => return Value::Null,
                    }
                }
            };
            Ok(tokio::select! {
                biased;
                () = closed.cancelled() => Value::Null,
                event = next => event,
            })
        })
    }

    /// Ends the reader: a waiting [`HostEvents::next_event`] returns `null` at once, and so
    /// does every later one. Closing again does nothing.
    pub fn close(&self) {
        self.closed.cancel();
    }
}

impl Drop for HostEvents {
    fn drop(&mut self) {
        self.closed.cancel();
    }
}
