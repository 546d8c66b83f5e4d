//! Hosts: one client for many servers.
//!
//! A [`Host`] reads the `mcpServers` configuration that Claude Desktop, Cursor and VS Code use,
//! connects to every enabled server at once (a server that fails does not hold up the others),
//! and offers one view of the tools, prompts, resources and resource templates of the servers
//! that are ready. Tool and prompt names are kept apart by a prefix, the server's name by
//! default, and a separator, [`DEFAULT_SEPARATOR`] (`github__create_issue`); a name that two
//! servers offer at once is reported as a [`Collision`] and offered by neither. Calls are
//! routed by those names (resources by their URI), with time-outs that progress keeps alive and
//! a separate limit on the whole call. A stdio server that exits is started again with a
//! backoff; an HTTP server that went away is connected to again the same way (one that only
//! forgot its session is initialized again by the transport). The host answers its servers'
//! requests (sampling, elicitation, roots) and hears their logs through one [`HostHandler`],
//! told which server asks.
//!
//! ```no_run
//! use mcpweft::host::{Host, HostConfig};
//!
//! # async fn run() -> Result<(), mcpweft::Error> {
//! let config = HostConfig::parse(
//!     r#"{ "mcpServers": {
//!         "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."] },
//!         "search": { "type": "http", "url": "https://example.com/mcp",
//!                     "headers": { "Authorization": "Bearer ${SEARCH_TOKEN}" } }
//!     } }"#,
//! )?;
//! let host = Host::connect(config).await?;
//! for (name, state) in host.servers() {
//!     println!("{name}: {state}");
//! }
//! for tool in host.tools() {
//!     println!("{} (from {})", tool.name, tool.server);
//! }
//! let result = host.call_tool("files__list_directory", serde_json::json!({ "path": "." })).await?;
//! host.close().await;
//! # Ok(()) }
//! ```

mod config;
mod handler;
mod view;

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use serde_json::Value;
use tokio::{
    sync::{Notify, broadcast},
    task::JoinHandle,
    time::Instant,
};
use tokio_util::sync::CancellationToken;

pub use config::{DEFAULT_MAX_RESTARTS, DEFAULT_SEPARATOR, HostConfig, OAuthConfig, ServerConfig, ServerTransport};
use handler::ServerHandler;
pub use handler::{HostHandler, NoHostHandler};
pub use view::{Collision, CollisionKind, HostPrompt, HostResource, HostResourceTemplate, HostTool};
use view::{Lists, View};

use crate::{
    Client, ClientOptions, CloseReason, Error,
    jsonrpc::{CONNECTION_CLOSED, ErrorData},
    model::{
        CallToolRequestParams, CallToolResult, ClientCapabilities, CreateTaskResult, GetPromptRequestParams,
        GetPromptResult, GetTaskResult, Implementation, JsonObject, ProgressNotificationParams, ReadResourceResult,
        ResourceRequestParams, TaskIdRequestParams, TaskMetadata, methods,
    },
    server::UriTemplate,
    session::{ProgressCallback, RequestOptions},
    sync::lock,
    transport::ChildProcessTransport,
};

/// The delay before the first restart of a server that went away; each further one waits twice
/// as long.
const FIRST_RESTART_DELAY: Duration = Duration::from_millis(100);

/// How long a connection must have lasted for its loss to count as a first failure again.
const STABLE_CONNECTION: Duration = Duration::from_secs(10);

/// How many events a receiver may fall behind before it misses some.
const EVENT_CAPACITY: usize = 256;

/// Where a server stands.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerState {
    /// The configuration turns it off; the host does not connect to it.
    Disabled,
    /// The host is starting it or connecting to it (again).
    Connecting,
    /// It is connected and initialized; its features are in the host's view.
    Ready,
    /// It could not be started or connected to, or it went away more often than the host
    /// starts it again; [`Host::restart`] tries again.
    Failed {
        /// What went wrong, in words.
        reason: String,
        /// The last of what a spawned server wrote to its stderr, when it wrote anything.
        stderr: Option<String>,
    },
    /// The host was closed.
    Closed,
}

impl std::fmt::Display for ServerState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServerState::Disabled => f.write_str("disabled"),
            ServerState::Connecting => f.write_str("connecting"),
            ServerState::Ready => f.write_str("ready"),
            ServerState::Failed { reason, .. } => write!(f, "failed: {reason}"),
            ServerState::Closed => f.write_str("closed"),
        }
    }
}

/// A tool call a server runs as a task, made by [`Host::call_tool_as_task`]: the server's
/// name, which [`Host::get_task`], [`Host::task_result`] and [`Host::cancel_task`] take with the
/// task's id, and the task the server created.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct HostTask {
    /// The server that runs the task.
    pub server: String,
    /// The server's answer: the task, with its id and status.
    pub created: CreateTaskResult,
}

/// Which list of a server changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ListKind {
    /// Its tools.
    Tools,
    /// Its resources and resource templates.
    Resources,
    /// Its prompts.
    Prompts,
}

/// What happened in a host, as [`Host::events`] tells it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum HostEvent {
    /// A server changed state; the host's view already shows it (a `Ready` server's features
    /// are in it, others' are not).
    StateChanged {
        /// The server's name.
        server: String,
        /// Its new state.
        state: ServerState,
    },
    /// A server said one of its lists changed, and the host's view shows the new list.
    ListChanged {
        /// The server's name.
        server: String,
        /// Which list changed.
        list: ListKind,
    },
    /// The names that several servers offer at once changed: these are all of them now (empty
    /// when none are left).
    Collisions {
        /// Every collision of the view.
        collisions: Vec<Collision>,
    },
}

/// Options of one call through a host.
///
/// The time-out restarts with every progress notification of the call, so a call that reports
/// progress is not ended at a fixed deadline; `max_total_timeout` bounds it however much
/// progress it reports. Build them with [`CallOptions::new`] and the `with_*` methods; fields
/// may be added in later versions.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct CallOptions {
    /// Receives the call's progress notifications.
    pub on_progress: Option<ProgressCallback>,
    /// Cancels the call: the server is told and the call fails with [`Error::Cancelled`].
    pub cancel: Option<CancellationToken>,
    /// How long the call may wait without an answer or progress; the server's `timeoutMs`, or
    /// the host's default, when `None`.
    pub timeout: Option<Duration>,
    /// How long the call may take in all; the server's `maxTotalTimeoutMs` when `None`.
    pub max_total_timeout: Option<Duration>,
}

impl std::fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOptions")
            .field("on_progress", &self.on_progress.is_some())
            .field("cancel", &self.cancel.is_some())
            .field("timeout", &self.timeout)
            .field("max_total_timeout", &self.max_total_timeout)
            .finish()
    }
}

impl CallOptions {
    /// Creates options that take every time-out from the server's configuration.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the progress callback.
    pub fn with_progress(mut self, callback: impl Fn(ProgressNotificationParams) + Send + Sync + 'static) -> Self {
        self.on_progress = Some(Arc::new(callback));
        self
    }

    /// Sets the token that cancels the call.
    pub fn with_cancel(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// Sets how long the call may wait without an answer or progress.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets how long the call may take in all.
    pub fn with_max_total_timeout(mut self, limit: Duration) -> Self {
        self.max_total_timeout = Some(limit);
        self
    }

    /// The request options of a call to `config`'s server.
    fn request_options(&self, config: &ServerConfig) -> RequestOptions {
        let callback = self.on_progress.clone().unwrap_or_else(|| Arc::new(|_| {}));
        RequestOptions {
            timeout: self.timeout.or(config.timeout),
            // Progress restarts the time-out only for a request that asked for progress.
            on_progress: Some(callback),
            reset_timeout_on_progress: true,
            max_total_timeout: self.max_total_timeout.or(config.max_total_timeout),
            cancel: self.cancel.clone(),
            ..RequestOptions::default()
        }
    }
}

/// Settings of a host, and how it starts.
///
/// Created by [`Host::builder`]; fields may be added in later versions.
#[must_use = "a builder does nothing until it connects"]
pub struct HostBuilder {
    config: HostConfig,
    info: Implementation,
    capabilities: ClientCapabilities,
    protocol_version: Option<String>,
    request_timeout: Option<Duration>,
    middleware: crate::middleware::MiddlewareChain,
    separator: String,
    handler: Arc<dyn HostHandler>,
    #[cfg(feature = "auth")]
    auth: AuthSettings,
}

/// How the host logs in to servers that want OAuth.
#[cfg(feature = "auth")]
#[derive(Default)]
struct AuthSettings {
    /// The redirect URI and the application's part of the authorization code flow.
    authorizer: Option<(String, Arc<dyn crate::auth::Authorizer>)>,
    /// Providers the application set for single servers, by server name.
    providers: std::collections::HashMap<String, Arc<dyn crate::auth::AuthProvider>>,
    /// Where the tokens of every server's login are kept (in memory when `None`).
    store: Option<Arc<dyn crate::auth::TokenStore>>,
}

impl std::fmt::Debug for HostBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostBuilder")
            .field("config", &self.config)
            .field("info", &self.info)
            .field("separator", &self.separator)
            .finish_non_exhaustive()
    }
}

impl HostBuilder {
    /// Sets the client's name and version, sent to every server.
    pub fn with_info(mut self, info: Implementation) -> Self {
        self.info = info;
        self
    }

    /// Sets the capabilities declared to every server; declare those the handler answers
    /// (`roots`, `sampling`, `elicitation`).
    pub fn with_capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// Adds a middleware around every message of every server's connection, inside those
    /// already added.
    pub fn with_middleware(mut self, middleware: impl crate::middleware::Middleware) -> Self {
        self.middleware.push(middleware);
        self
    }

    /// Replaces the middleware around every server's connection with `chain`.
    pub fn with_middleware_chain(mut self, chain: crate::middleware::MiddlewareChain) -> Self {
        self.middleware = chain;
        self
    }

    /// Adds a middleware that is already shared around every server's connection.
    pub fn with_middleware_arc(mut self, middleware: Arc<dyn crate::middleware::Middleware>) -> Self {
        self.middleware.push_arc(middleware);
        self
    }

    /// Declares MCP Apps (`io.modelcontextprotocol/ui`) to every server: the host renders app
    /// views, so servers list their views and the tools only a view may call.
    pub fn with_apps(mut self) -> Self {
        self.capabilities =
            self.capabilities.with_extension(crate::model::apps::APPS_EXTENSION, crate::model::apps::client_settings());
        self
    }

    /// Sets the protocol version to ask every server for (the latest by default; with
    /// `2026-07-28` a server that does not offer it is spoken to in the latest older one).
    pub fn with_protocol_version(mut self, version: impl Into<String>) -> Self {
        self.protocol_version = Some(version.into());
        self
    }

    /// Sets the time-out of requests to servers that configure no `timeoutMs`.
    pub fn with_request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = Some(timeout);
        self
    }

    /// Sets the separator between a server's prefix and a tool or prompt name
    /// ([`DEFAULT_SEPARATOR`] by default). It must be made of characters a tool name may hold:
    /// letters, digits, `_`, `-` and `.`.
    pub fn with_separator(mut self, separator: impl Into<String>) -> Self {
        self.separator = separator.into();
        self
    }

    /// Sets the handler of the servers' requests and notifications.
    pub fn with_handler(mut self, handler: impl HostHandler) -> Self {
        self.handler = Arc::new(handler);
        self
    }

    /// Lets users log in to HTTP servers configured with `oauth`: `authorizer` shows them the
    /// authorization URL, and the authorization server redirects to `redirect_uri` (such as a
    /// [`LoopbackRedirect`](crate::auth::LoopbackRedirect)'s).
    #[cfg(feature = "auth")]
    pub fn with_authorizer(
        mut self,
        redirect_uri: impl Into<String>,
        authorizer: Arc<dyn crate::auth::Authorizer>,
    ) -> Self {
        self.auth.authorizer = Some((redirect_uri.into(), authorizer));
        self
    }

    /// Keeps the tokens of every server's OAuth login in `store` (each under its server's
    /// resource URL), so that a later run finds them instead of asking the user again; they are
    /// kept in memory for the host's life otherwise.
    #[cfg(feature = "auth")]
    pub fn with_token_store(mut self, store: Arc<dyn crate::auth::TokenStore>) -> Self {
        self.auth.store = Some(store);
        self
    }

    /// Uses `provider` for the credentials of the HTTP server `server`, whatever its `oauth`
    /// settings say.
    #[cfg(feature = "auth")]
    pub fn with_auth_provider(
        mut self,
        server: impl Into<String>,
        provider: Arc<dyn crate::auth::AuthProvider>,
    ) -> Self {
        self.auth.providers.insert(server.into(), provider);
        self
    }

    /// Starts connecting to every enabled server and returns at once; [`Host::events`] tells
    /// when each is ready. Must be called within a Tokio runtime.
    ///
    /// Fails when the separator holds a character a tool name cannot.
    pub fn start(self) -> Result<Host, Error> {
        if self.separator.is_empty()
            || !self.separator.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        {
            return Err(Error::Config(format!(
                "the separator {:?} must be letters, digits, '_', '-' or '.'",
                self.separator
            )));
        }
        let closed = CancellationToken::new();
        let slots = self
            .config
            .servers
            .into_iter()
            .map(|config| {
                let state = if config.enabled { ServerState::Connecting } else { ServerState::Disabled };
                Arc::new(Slot {
                    name: Arc::from(config.name.as_str()),
                    config,
                    live: Mutex::new(Live { state, client: None, generation: 0, lists: Lists::default() }),
                    restart: Notify::new(),
                    refresh: tokio::sync::Mutex::new(()),
                    settled: CancellationToken::new(),
                    #[cfg(feature = "auth")]
                    auth: std::sync::OnceLock::new(),
                })
            })
            .collect();
        let (events, _) = broadcast::channel(EVENT_CAPACITY);
        let inner = Arc::new(Inner {
            info: self.info,
            capabilities: self.capabilities,
            protocol_version: self.protocol_version,
            request_timeout: self.request_timeout,
            middleware: self.middleware,
            separator: self.separator,
            handler: self.handler,
            #[cfg(feature = "auth")]
            auth: self.auth,
            slots,
            events,
            view: Mutex::new(Arc::default()),
            closed: closed.clone(),
            tasks: Mutex::default(),
        });
        for slot in &inner.slots {
            if slot.config.enabled {
                let task = tokio::spawn(supervise(inner.clone(), slot.clone()));
                lock(&inner.tasks).push(task);
            } else {
                slot.settled.cancel();
            }
        }
        Ok(Host { inner, _guard: Arc::new(CloseOnDrop(closed)) })
    }

    /// Connects to every enabled server at once and returns when each has become ready or
    /// failed.
    pub async fn connect(self) -> Result<Host, Error> {
        let host = self.start()?;
        for slot in &host.inner.slots {
            slot.settled.cancelled().await;
        }
        Ok(host)
    }
}

/// One client for many servers: the servers of a [`HostConfig`], one view of their features,
/// and calls routed to the server that offers each.
///
/// Cloning is cheap; clones share the servers. The servers are closed when the last clone is
/// dropped, or by [`Host::close`], which waits for them to end.
#[derive(Clone)]
pub struct Host {
    inner: Arc<Inner>,
    _guard: Arc<CloseOnDrop>,
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host").field("servers", &self.servers()).finish()
    }
}

/// Closes the host when the last handle goes.
struct CloseOnDrop(CancellationToken);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// What the host and its servers' tasks share.
struct Inner {
    info: Implementation,
    capabilities: ClientCapabilities,
    protocol_version: Option<String>,
    request_timeout: Option<Duration>,
    middleware: crate::middleware::MiddlewareChain,
    separator: String,
    handler: Arc<dyn HostHandler>,
    #[cfg(feature = "auth")]
    auth: AuthSettings,
    slots: Vec<Arc<Slot>>,
    events: broadcast::Sender<HostEvent>,
    /// The view of the ready servers; replaced as a whole whenever one of them changes.
    view: Mutex<Arc<View>>,
    closed: CancellationToken,
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

/// One configured server and its connection.
struct Slot {
    name: Arc<str>,
    config: ServerConfig,
    live: Mutex<Live>,
    /// Wakes the server's task to connect again at once.
    restart: Notify,
    /// Serializes the refreshes of its lists.
    refresh: tokio::sync::Mutex<()>,
    /// Cancelled once the first connection attempt ended, either way.
    settled: CancellationToken,
    /// The credentials of an HTTP server configured with `oauth`, kept across reconnections.
    #[cfg(feature = "auth")]
    auth: std::sync::OnceLock<Arc<dyn crate::auth::AuthProvider>>,
}

/// The changing part of a slot.
struct Live {
    state: ServerState,
    client: Option<Client>,
    /// Counts the connections, so that a late answer of an old one changes nothing.
    generation: u64,
    lists: Lists,
}

impl Slot {
    /// The client of the current connection and its generation, while the server is ready.
    fn ready(&self) -> Result<(Client, u64), Error> {
        let live = lock(&self.live);
        match (&live.state, &live.client) {
            (ServerState::Ready, Some(client)) => Ok((client.clone(), live.generation)),
            (state, _) => {
                let mut reason = CloseReason::new(format!("server {:?} is not ready: it is {state}", self.name));
                if let ServerState::Failed { stderr, .. } = state {
                    reason.stderr.clone_from(stderr);
                }
                Err(Error::Disconnected(Arc::new(reason)))
            }
        }
    }

    /// Ends connection `generation`, which can no longer reach the server; the server's task
    /// then connects again.
    fn lost(&self, generation: u64) {
        let live = lock(&self.live);
        if live.generation == generation
            && let Some(client) = &live.client
        {
            client.peer().close();
        }
    }
}

impl Inner {
    /// Sets a server's state, rebuilds the view and tells the receivers.
    fn set_state(&self, slot: &Slot, state: ServerState, connection: Option<(Client, Lists)>) {
        {
            let mut live = lock(&slot.live);
            if live.state == state && connection.is_none() && live.client.is_none() {
                return;
            }
            live.state = state.clone();
            match connection {
                Some((client, lists)) => {
                    live.generation += 1;
                    live.client = Some(client);
                    live.lists = lists;
                }
                None => {
                    live.client = None;
                    live.lists = Lists::default();
                }
            }
        }
        self.rebuild_view();
        let _ = self.events.send(HostEvent::StateChanged { server: slot.name.to_string(), state });
    }

    /// Builds the view anew from the ready servers, and tells when its collisions changed.
    fn rebuild_view(&self) {
        let mut view = lock(&self.view);
        let lives: Vec<_> = self.slots.iter().map(|slot| (slot, lock(&slot.live))).collect();
        let ready = lives
            .iter()
            .filter(|(_, live)| live.state == ServerState::Ready)
            .map(|(slot, live)| (&slot.config, &live.lists));
        let next = View::build(&self.separator, ready);
        drop(lives);
        let changed = next.collisions != view.collisions;
        if changed {
            let collisions = next.collisions.clone();
            if !collisions.is_empty() {
                tracing::warn!(?collisions, "several servers offer the same names; the host offers none of them");
            }
            let _ = self.events.send(HostEvent::Collisions { collisions });
        }
        *view = Arc::new(next);
    }

    fn view(&self) -> Arc<View> {
        lock(&self.view).clone()
    }

    /// Fetches one list of a ready server again, after it said the list changed.
    async fn refresh(&self, slot: &Slot, list: ListKind) {
        let _turn = slot.refresh.lock().await;
        let Ok((client, generation)) = slot.ready() else { return };
        let caps = client.server().capabilities.clone();
        let fetched = match list {
            ListKind::Tools => tolerant(&slot.name, "tools", caps.tools.is_some(), client.list_all_tools())
                .await
                .map(|tools| Lists { tools, ..Lists::default() }),
            ListKind::Prompts => tolerant(&slot.name, "prompts", caps.prompts.is_some(), client.list_all_prompts())
                .await
                .map(|prompts| Lists { prompts, ..Lists::default() }),
            ListKind::Resources => fetch_resources(&slot.name, &client).await,
        };
        let fetched = match fetched {
            Ok(fetched) => fetched,
            Err(e) => {
                tracing::warn!(server = %slot.name, error = %e, "refreshing a list failed");
                if is_unreachable(&e) {
                    slot.lost(generation);
                }
                return;
            }
        };
        {
            let mut live = lock(&slot.live);
            if live.generation != generation || live.state != ServerState::Ready {
                return;
            }
            match list {
                ListKind::Tools => live.lists.tools = fetched.tools,
                ListKind::Prompts => live.lists.prompts = fetched.prompts,
                ListKind::Resources => {
                    live.lists.resources = fetched.resources;
                    live.lists.templates = fetched.templates;
                }
            }
        }
        self.rebuild_view();
        let _ = self.events.send(HostEvent::ListChanged { server: slot.name.to_string(), list });
    }

    /// Connects to a server and fetches its lists.
    async fn connect(self: &Arc<Self>, slot: &Arc<Slot>) -> Result<(Client, Lists), Error> {
        let config = &slot.config;
        let mut options = ClientOptions::new(self.info.name.clone(), self.info.version.clone())
            .with_info(self.info.clone())
            .with_capabilities(self.capabilities.clone())
            .with_list_changed_notifications(true);
        options.middleware = self.middleware.clone();
        if let Some(version) = &self.protocol_version {
            options = options.with_protocol_version(version.clone());
        }
        if let Some(timeout) = config.timeout.or(self.request_timeout) {
            options = options.with_request_timeout(timeout);
        }
        let handler = ServerHandler {
            server: slot.name.clone(),
            handler: self.handler.clone(),
            host: Arc::downgrade(self),
            slot: Arc::downgrade(slot),
        };
        let client = match &config.transport {
            ServerTransport::Stdio { command, args, env, cwd } => {
                let mut process = tokio::process::Command::new(command);
                process.args(args).envs(env);
                if let Some(cwd) = cwd {
                    process.current_dir(cwd);
                }
                let transport = ChildProcessTransport::spawn(process)?;
                Client::connect_with_handler(transport, options, handler).await?
            }
            #[cfg(feature = "http")]
            ServerTransport::Http { url, headers, .. } => {
                let transport = self.http_transport(slot, url, headers)?;
                Client::connect_with_handler(transport, options, handler).await?
            }
            #[cfg(not(feature = "http"))]
            ServerTransport::Http { .. } => {
                return Err(Error::Config(format!(
                    "server {:?}: url: this build has no HTTP client (feature `http`)",
                    slot.name
                )));
            }
        };
        match fetch_lists(&slot.name, &client).await {
            Ok(lists) => Ok((client, lists)),
            Err(e) => {
                client.close().await;
                Err(e)
            }
        }
    }

    /// The HTTP transport of a server: Streamable HTTP, whose fallback reaches an endpoint of the
    /// deprecated HTTP+SSE transport (`"type": "sse"`) when that endpoint refuses the initialize
    /// POST.
    #[cfg(feature = "http")]
    fn http_transport(
        &self,
        slot: &Slot,
        url: &str,
        headers: &std::collections::BTreeMap<String, String>,
    ) -> Result<crate::transport::http::StreamableHttpClientTransport, Error> {
        use reqwest::header::{HeaderName, HeaderValue};
        let mut options = crate::transport::http::HttpClientOptions::new();
        for (name, value) in headers {
            let bad = |what: String| Error::Config(format!("server {:?}: headers.{name}: {what}", slot.name));
            let header = HeaderName::from_bytes(name.as_bytes()).map_err(|e| bad(e.to_string()))?;
            let mut value = HeaderValue::from_str(value).map_err(|e| bad(e.to_string()))?;
            value.set_sensitive(true);
            options = options.with_header(header, value);
        }
        #[cfg(feature = "auth")]
        if let Some(provider) = self.auth_provider(slot, url)? {
            options = options.with_auth(provider);
        }
        #[cfg(not(feature = "auth"))]
        if slot.config.oauth.is_some() {
            return Err(Error::Config(format!(
                "server {:?}: oauth: this build has no OAuth client (feature `auth`)",
                slot.name
            )));
        }
        crate::transport::http::StreamableHttpClientTransport::with_options(url, options)
            .map_err(|e| Error::Config(format!("server {:?}: url: {e}", slot.name)))
    }

    /// The credentials of a server: the provider the application set for it, or an OAuth client
    /// made once from its `oauth` settings.
    #[cfg(feature = "auth")]
    fn auth_provider(&self, slot: &Slot, url: &str) -> Result<Option<Arc<dyn crate::auth::AuthProvider>>, Error> {
        use crate::auth::{ClientCredentials, OAuthClient, OAuthClientOptions};
        if let Some(provider) = self.auth.providers.get(&*slot.name) {
            return Ok(Some(provider.clone()));
        }
        let Some(oauth) = &slot.config.oauth else { return Ok(None) };
        if let Some(provider) = slot.auth.get() {
            return Ok(Some(provider.clone()));
        }
        let mut options = match (&oauth.client_id, &oauth.client_secret, &self.auth.authorizer) {
            (Some(client_id), Some(client_secret), _) if oauth.client_credentials => {
                OAuthClientOptions::machine(ClientCredentials::Secret {
                    client_id: client_id.clone(),
                    client_secret: client_secret.clone(),
                })
            }
            (client_id, client_secret, Some((redirect_uri, authorizer))) => {
                let options = OAuthClientOptions::new(self.info.name.clone(), redirect_uri.clone(), authorizer.clone());
                match client_id {
                    Some(id) => options.with_client(id.clone(), client_secret.clone()),
                    None => options,
                }
            }
            _ => {
                return Err(Error::Config(format!(
                    "server {:?}: oauth: the host has no authorizer to let a user log in (HostBuilder::with_authorizer)",
                    slot.name
                )));
            }
        };
        if let Some(scopes) = &oauth.scopes {
            options = options.with_scopes(scopes.clone());
        }
        if let Some(url) = &oauth.client_metadata_url {
            options = options.with_client_metadata_url(url.clone());
        }
        if let Some(store) = &self.auth.store {
            options = options.with_store(store.clone());
        }
        let provider: Arc<dyn crate::auth::AuthProvider> = Arc::new(OAuthClient::new(url, options)?);
        Ok(Some(slot.auth.get_or_init(|| provider).clone()))
    }
}

/// Lists what a server declares, leaving out a list the server refuses (some declare resources
/// without templates, say).
async fn fetch_lists(server: &str, client: &Client) -> Result<Lists, Error> {
    let caps = client.server().capabilities.clone();
    let tools = tolerant(server, "tools", caps.tools.is_some(), client.list_all_tools()).await?;
    let prompts = tolerant(server, "prompts", caps.prompts.is_some(), client.list_all_prompts()).await?;
    let resources = fetch_resources(server, client).await?;
    Ok(Lists { tools, prompts, ..resources })
}

async fn fetch_resources(server: &str, client: &Client) -> Result<Lists, Error> {
    let declared = client.server().capabilities.resources.is_some();
    let resources = tolerant(server, "resources", declared, client.list_all_resources()).await?;
    let templates = tolerant(server, "resource templates", declared, client.list_all_resource_templates()).await?;
    Ok(Lists { resources, templates, ..Lists::default() })
}

/// Awaits one list, or none when it is not declared; a JSON-RPC error of the server leaves it
/// empty, any other error fails.
async fn tolerant<T>(
    server: &str,
    what: &str,
    declared: bool,
    list: impl Future<Output = Result<Vec<T>, Error>>,
) -> Result<Vec<T>, Error> {
    if !declared {
        return Ok(Vec::new());
    }
    match list.await {
        Err(Error::Rpc(e)) if !is_unreachable_data(&e) => {
            tracing::warn!(server, error = %e, "the server refused to list its {what}");
            Ok(Vec::new())
        }
        other => other,
    }
}

/// Whether the HTTP transport could not reach the server at all.
fn is_unreachable(error: &Error) -> bool {
    error.rpc().is_some_and(is_unreachable_data)
}

fn is_unreachable_data(error: &ErrorData) -> bool {
    error.code == CONNECTION_CLOSED
        && error.data.as_ref().and_then(|d| d.get("unreachable")).and_then(Value::as_bool) == Some(true)
}

/// What a failed connection attempt says, and the end of the server's stderr when it has one.
fn failure(error: &Error) -> ServerState {
    match error {
        Error::Disconnected(reason) => {
            ServerState::Failed { reason: reason.message.clone(), stderr: reason.stderr.clone() }
        }
        other => ServerState::Failed { reason: other.to_string(), stderr: None },
    }
}

/// How long to wait before restart number `n` (from 0).
fn restart_delay(n: u32) -> Duration {
    FIRST_RESTART_DELAY.saturating_mul(1 << n.min(16))
}

/// Keeps one server connected: connects, waits until the connection ends, and connects again
/// with a backoff, until it fails too often in a row or the host closes.
async fn supervise(inner: Arc<Inner>, slot: Arc<Slot>) {
    let closed = inner.closed.clone();
    let max = slot.config.max_restarts;
    // Restarts in a row since the last connection that lasted.
    let mut restarts = 0u32;
    let mut first = true;
    loop {
        inner.set_state(&slot, ServerState::Connecting, None);
        let attempt = tokio::select! {
            attempt = inner.connect(&slot) => attempt,
            _ = closed.cancelled() => break,
        };
        let failed = match attempt {
            Ok((client, lists)) => {
                let since = Instant::now();
                inner.set_state(&slot, ServerState::Ready, Some((client.clone(), lists)));
                slot.settled.cancel();
                first = false;
                let asked = tokio::select! {
                    _ = client.peer().disconnected() => false,
                    _ = slot.restart.notified() => true,
                    _ = closed.cancelled() => {
                        client.close().await;
                        break;
                    }
                };
                let reason = client.peer().close_reason();
                let message = match &reason {
                    Some(reason) => reason.message.clone(),
                    None => "the connection ended".to_owned(),
                };
                tracing::warn!(server = %slot.name, reason = %message, "the server went away");
                inner.set_state(&slot, ServerState::Connecting, None);
                client.close().await;
                if asked || since.elapsed() >= STABLE_CONNECTION {
                    restarts = 0;
                }
                if asked {
                    continue;
                }
                ServerState::Failed { reason: message, stderr: reason.and_then(|r| r.stderr.clone()) }
            }
            Err(e) => {
                let failed = failure(&e);
                // The reason without a spawned server's stderr, which reached ours as it came.
                if let ServerState::Failed { reason, .. } = &failed {
                    tracing::warn!(server = %slot.name, reason = %reason, "connecting to the server failed");
                }
                failed
            }
        };
        if first || restarts >= max {
            inner.set_state(&slot, failed, None);
            slot.settled.cancel();
            first = false;
            tokio::select! {
                _ = slot.restart.notified() => restarts = 0,
                _ = closed.cancelled() => break,
            }
            continue;
        }
        tokio::select! {
            _ = tokio::time::sleep(restart_delay(restarts)) => restarts += 1,
            _ = slot.restart.notified() => restarts = 0,
            _ = closed.cancelled() => break,
        }
    }
    inner.set_state(&slot, ServerState::Closed, None);
    slot.settled.cancel();
}

impl Host {
    /// Starts building a host of the servers of `config`.
    pub fn builder(config: HostConfig) -> HostBuilder {
        HostBuilder {
            config,
            info: Implementation::new("mcpweft-host", env!("CARGO_PKG_VERSION")),
            capabilities: ClientCapabilities::default(),
            protocol_version: None,
            request_timeout: None,
            middleware: crate::middleware::MiddlewareChain::default(),
            separator: DEFAULT_SEPARATOR.to_owned(),
            handler: Arc::new(NoHostHandler),
            #[cfg(feature = "auth")]
            auth: AuthSettings::default(),
        }
    }

    /// Connects to the servers of `config` with the default settings and returns when each has
    /// become ready or failed.
    pub async fn connect(config: HostConfig) -> Result<Host, Error> {
        Self::builder(config).connect().await
    }

    /// Returns every configured server, in the order of the configuration, with its state.
    pub fn servers(&self) -> Vec<(String, ServerState)> {
        self.inner.slots.iter().map(|slot| (slot.name.to_string(), lock(&slot.live).state.clone())).collect()
    }

    /// Returns the state of the server `name`, when it is configured.
    pub fn state(&self, name: &str) -> Option<ServerState> {
        self.slot(name).ok().map(|slot| lock(&slot.live).state.clone())
    }

    /// Returns the configuration of the server `name`, when it is configured.
    pub fn config(&self, name: &str) -> Option<&ServerConfig> {
        self.slot(name).ok().map(|slot| &slot.config)
    }

    /// Returns a receiver of what happens from now on: state changes, list changes and
    /// collisions. A receiver that falls more than 256 events behind misses the oldest
    /// (`RecvError::Lagged`); the host's lists and [`Host::servers`] always show the present.
    pub fn events(&self) -> broadcast::Receiver<HostEvent> {
        self.inner.events.subscribe()
    }

    /// Returns the tools of every ready server that the allow and deny lists let through,
    /// each once under its host name (see [`HostTool::name`]), colliding names left out.
    pub fn tools(&self) -> Vec<HostTool> {
        self.inner.view().tools.values().cloned().collect()
    }

    /// Returns the prompts of every ready server under their host names, colliding names left
    /// out.
    pub fn prompts(&self) -> Vec<HostPrompt> {
        self.inner.view().prompts.values().cloned().collect()
    }

    /// Returns the resources of every ready server, URIs that several list left out.
    pub fn resources(&self) -> Vec<HostResource> {
        self.inner.view().resources.values().cloned().collect()
    }

    /// Returns the resource templates of every ready server, templates that several list left
    /// out.
    pub fn resource_templates(&self) -> Vec<HostResourceTemplate> {
        self.inner.view().templates.values().cloned().collect()
    }

    /// Returns the names that several ready servers offer at once.
    pub fn collisions(&self) -> Vec<Collision> {
        self.inner.view().collisions.clone()
    }

    /// Returns the client of the server `name` while it is ready, for anything the host does
    /// not route itself (completions, subscriptions).
    pub fn client(&self, name: &str) -> Option<Client> {
        self.slot(name).ok().and_then(|slot| slot.ready().ok()).map(|(client, _)| client)
    }

    /// Calls a tool by its host name with JSON arguments (an object, or `null` for none).
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<CallToolResult, Error> {
        self.call_tool_with(name, arguments, CallOptions::default()).await
    }

    /// Calls a tool by its host name, with progress, cancellation and time-outs.
    ///
    /// A name the host does not offer is the JSON-RPC error a server answers an unknown tool
    /// with; a name several servers offer is an [`Error::Config`]; a server that is not ready,
    /// or goes away during the call, is an [`Error::Disconnected`] that names it.
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: Value,
        options: CallOptions,
    ) -> Result<CallToolResult, Error> {
        let (slot, params) = self.tool_call(name, arguments)?;
        let (client, generation) = slot.ready()?;
        let result = client.call_tool_with(params, options.request_options(&slot.config)).await;
        self.settle(slot, generation, result)
    }

    /// The server that offers the tool `name` and the params of a call to it.
    fn tool_call(&self, name: &str, arguments: Value) -> Result<(&Slot, CallToolRequestParams), Error> {
        let view = self.inner.view();
        let Some(tool) = view.tools.get(name) else {
            return Err(self.unknown(&view, CollisionKind::Tool, name, || {
                ErrorData::invalid_params(format!("unknown tool: {name}"))
            }));
        };
        let slot = self.slot(&tool.server)?;
        let arguments = match arguments {
            Value::Object(map) => Some(map),
            Value::Null => None,
            other => return Err(Error::Protocol(format!("tool arguments must be a JSON object, not {other}"))),
        };
        Ok((slot, CallToolRequestParams { name: tool.tool.name.clone(), arguments, task: None, meta: None }))
    }

    /// Calls a tool by its host name as a task (experimental), asking the server to keep it
    /// `ttl` milliseconds, and returns the created task at once with the server's name; the
    /// options' time-outs and cancellation apply to the creation.
    ///
    /// A server that does not declare task-augmented tool calls is an
    /// [`Error::CapabilityMissing`]; names are resolved as [`Host::call_tool_with`] does.
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Value,
        ttl: Option<u64>,
        options: CallOptions,
    ) -> Result<HostTask, Error> {
        let (slot, mut params) = self.tool_call(name, arguments)?;
        params.task = Some(TaskMetadata { ttl });
        let server = slot.name.to_string();
        let created = self.request(slot, methods::TOOLS_CALL, &params, &options).await?;
        Ok(HostTask { server, created })
    }

    /// Returns the current state of the task `task_id` of the server `server` (`tasks/get`).
    pub async fn get_task(&self, server: &str, task_id: &str, options: CallOptions) -> Result<GetTaskResult, Error> {
        let params = TaskIdRequestParams { task_id: task_id.to_owned(), meta: None };
        self.request(self.slot(server)?, methods::TASKS_GET, &params, &options).await
    }

    /// Waits until the task `task_id` of the server `server` ends and returns the tool's
    /// result (`tasks/result`), or the error the call ended with.
    pub async fn task_result(
        &self,
        server: &str,
        task_id: &str,
        options: CallOptions,
    ) -> Result<CallToolResult, Error> {
        let params = TaskIdRequestParams { task_id: task_id.to_owned(), meta: None };
        self.request(self.slot(server)?, methods::TASKS_RESULT, &params, &options).await
    }

    /// Cancels the task `task_id` of the server `server` and returns its final state
    /// (`tasks/cancel`).
    pub async fn cancel_task(&self, server: &str, task_id: &str, options: CallOptions) -> Result<GetTaskResult, Error> {
        let params = TaskIdRequestParams { task_id: task_id.to_owned(), meta: None };
        self.request(self.slot(server)?, methods::TASKS_CANCEL, &params, &options).await
    }

    /// Sends a request to the server of `slot` with the options of a host call, its
    /// capabilities checked by its client, and reads the typed result.
    async fn request<P: serde::Serialize, R: serde::de::DeserializeOwned>(
        &self,
        slot: &Slot,
        method: &str,
        params: &P,
        options: &CallOptions,
    ) -> Result<R, Error> {
        let params = crate::session::typed_params(params)?;
        let (client, generation) = slot.ready()?;
        let result = client.request(method, params, options.request_options(&slot.config)).await;
        let value = self.settle(slot, generation, result)?;
        crate::session::typed_result(method, value)
    }

    /// Reads a resource, from the server that lists its URI or else the one server whose
    /// resource template matches it.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, Error> {
        self.read_resource_with(uri, None, CallOptions::default()).await
    }

    /// Reads the app view (MCP Apps) of the tool with host name `tool`, from the server that
    /// offers it; [`Error::Config`] for a tool without a view, [`Error::Protocol`] for a resource
    /// that is not one.
    pub async fn read_app_view(&self, tool: &str) -> Result<crate::model::apps::AppView, Error> {
        let found = self.tools().into_iter().find(|t| t.name == tool);
        let Some(found) = found else { return Err(Error::Config(format!("no tool is named {tool:?}"))) };
        let Some(uri) = found.app().and_then(|ui| ui.resource_uri) else {
            return Err(Error::Config(format!("tool {tool:?} has no app view")));
        };
        let result = self.read_resource_from(&found.server, &uri).await?;
        crate::model::apps::AppView::from_read(&uri, &result).map_err(Error::Protocol)
    }

    /// Reads a resource from the server `server`, whether or not it lists it.
    pub async fn read_resource_from(&self, server: &str, uri: &str) -> Result<ReadResourceResult, Error> {
        self.read_resource_with(uri, Some(server), CallOptions::default()).await
    }

    /// Reads a resource, from `server` when given (otherwise as [`Host::read_resource`] finds
    /// it), with progress, cancellation and time-outs.
    pub async fn read_resource_with(
        &self,
        uri: &str,
        server: Option<&str>,
        options: CallOptions,
    ) -> Result<ReadResourceResult, Error> {
        let server = match server {
            Some(server) => server.to_owned(),
            None => self.resource_server(uri)?,
        };
        let params = ResourceRequestParams { uri: uri.to_owned(), meta: None };
        self.request(self.slot(&server)?, methods::RESOURCES_READ, &params, &options).await
    }

    /// Gets a prompt by its host name with string arguments.
    pub async fn get_prompt<'a>(
        &self,
        name: &str,
        arguments: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<GetPromptResult, Error> {
        let arguments = arguments.into_iter().map(|(k, v)| (k.to_owned(), Value::String(v.to_owned()))).collect();
        self.get_prompt_with(name, arguments, CallOptions::default()).await
    }

    /// Gets a prompt by its host name, with progress, cancellation and time-outs.
    pub async fn get_prompt_with(
        &self,
        name: &str,
        arguments: JsonObject,
        options: CallOptions,
    ) -> Result<GetPromptResult, Error> {
        let view = self.inner.view();
        let Some(prompt) = view.prompts.get(name) else {
            return Err(self.unknown(&view, CollisionKind::Prompt, name, || {
                ErrorData::invalid_params(format!("unknown prompt: {name}"))
            }));
        };
        let params =
            GetPromptRequestParams { name: prompt.prompt.name.clone(), arguments: Some(arguments), meta: None };
        self.request(self.slot(&prompt.server)?, methods::PROMPTS_GET, &params, &options).await
    }

    /// Tells every ready server that the host's roots changed.
    pub fn notify_roots_list_changed(&self) {
        for slot in &self.inner.slots {
            if let Ok((client, _)) = slot.ready()
                && let Err(e) = client.notify_roots_list_changed()
            {
                tracing::debug!(server = %slot.name, error = %e, "could not tell the server its roots changed");
            }
        }
    }

    /// Connects to the server `name` again: a ready one is closed first, a failed one is tried
    /// anew with its restarts counted from zero.
    pub fn restart(&self, name: &str) -> Result<(), Error> {
        let slot = self.slot(name)?;
        if !slot.config.enabled {
            return Err(Error::Config(format!("server {name:?} is disabled")));
        }
        slot.restart.notify_one();
        Ok(())
    }

    /// Closes every server and waits until each has ended (a spawned one is asked to exit, then
    /// terminated); every state becomes `Closed`.
    pub async fn close(&self) {
        self.inner.closed.cancel();
        let tasks: Vec<_> = lock(&self.inner.tasks).drain(..).collect();
        for task in tasks {
            let _ = task.await;
        }
    }

    fn slot(&self, name: &str) -> Result<&Arc<Slot>, Error> {
        self.inner
            .slots
            .iter()
            .find(|slot| &*slot.name == name)
            .ok_or_else(|| Error::Config(format!("no server is named {name:?}")))
    }

    /// The error of a name the view does not hold: a collision, or `missing`.
    fn unknown(&self, view: &View, kind: CollisionKind, name: &str, missing: impl FnOnce() -> ErrorData) -> Error {
        match view.collision(kind, name) {
            Some(collision) => Error::Config(format!(
                "{name} is offered by several servers ({}): give them different prefixes",
                collision.servers.join(", ")
            )),
            None => Error::Rpc(missing()),
        }
    }

    /// The server to read `uri` from: the one that lists it, or the one whose template matches.
    fn resource_server(&self, uri: &str) -> Result<String, Error> {
        let view = self.inner.view();
        if let Some(resource) = view.resources.get(uri) {
            return Ok(resource.server.clone());
        }
        if let Some(collision) = view.collision(CollisionKind::Resource, uri) {
            return Err(Error::Config(format!(
                "{uri} is listed by several servers ({}): read it from one of them",
                collision.servers.join(", ")
            )));
        }
        let mut servers: Vec<&str> = view
            .templates
            .values()
            .filter(|t| UriTemplate::parse(&t.template.uri_template).is_ok_and(|m| m.matches(uri).is_some()))
            .map(|t| t.server.as_str())
            .collect();
        servers.dedup();
        match servers.as_slice() {
            [server] => Ok((*server).to_owned()),
            [] => Err(Error::Rpc(ErrorData::resource_not_found(uri))),
            several => Err(Error::Config(format!(
                "{uri} matches resource templates of several servers ({}): read it from one of them",
                several.join(", ")
            ))),
        }
    }

    /// Names the server in the error of a call whose connection ended, and ends a connection
    /// that can no longer reach its server.
    fn settle<T>(&self, slot: &Slot, generation: u64, result: Result<T, Error>) -> Result<T, Error> {
        match result {
            Err(e) if is_unreachable(&e) => {
                slot.lost(generation);
                let reason = CloseReason::new(format!("server {:?} cannot be reached: {e}", slot.name));
                Err(Error::Disconnected(Arc::new(reason)))
            }
            Err(Error::Disconnected(reason)) => {
                let mut named = (*reason).clone();
                named.message = format!("server {:?}: {}", slot.name, reason.message);
                Err(Error::Disconnected(Arc::new(named)))
            }
            Err(Error::TransportClosed) => {
                let reason = CloseReason::new(format!("server {:?}: the connection ended", slot.name));
                Err(Error::Disconnected(Arc::new(reason)))
            }
            other => other,
        }
    }
}
