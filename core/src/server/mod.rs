//! The server role: register tools, resources, prompts and completions, then serve sessions.
//!
//! A [`Server`] holds the registrations and can serve any number of sessions at once, over
//! any transport. Registrations may change while sessions run; each session that is in
//! operation then gets the matching `list_changed` notification.
//!
//! ```no_run
//! use mcpweft::{model::*, server::Server};
//!
//! # async fn run() -> Result<(), mcpweft::Error> {
//! let server = Server::builder(Implementation::new("greeter", "1.0.0"))
//!     .tool(
//!         Tool::new("greet", "Greets someone.", serde_json::json!({
//!             "type": "object",
//!             "properties": { "name": { "type": "string" } },
//!             "required": ["name"]
//!         }).as_object().unwrap().clone()),
//!         |args: JsonObject, _ctx| async move {
//!             Ok(CallToolResult::text(format!("Hello, {}!", args["name"].as_str().unwrap_or("you"))))
//!         },
//!     )
//!     .build()?;
//! server.serve_stdio().await?;
//! # Ok(()) }
//! ```

mod apps;
mod context;
mod handler;
mod listen;
mod registry;
mod rounds;
mod schema;
mod session;
mod skills;
mod tasks;
mod typed;
mod uri_template;

use std::{
    sync::{Arc, Mutex, OnceLock, Weak},
    time::Duration,
};

use tokio::task::JoinHandle;

pub use context::RequestContext;
pub use handler::{CompletionHandler, PromptHandler, ResourceHandler, ResourceLister, ResourceRequest, ToolHandler};
pub use skills::{MAX_SKILL_BYTES, MAX_SKILL_FILES, Skill};
pub use tasks::TaskOptions;
#[cfg(feature = "redis")]
pub(crate) use tasks::TaskShare;
pub use typed::{IntoToolResult, Json};
pub use uri_template::UriTemplate;

use self::{registry::Registry, schema::ToolSchema, session::ServerSession};
use crate::{
    Error,
    middleware::{Middleware, MiddlewareChain, Role},
    model::{
        Implementation, JsonObject, ListChangedCapability, LoggingLevel, MAX_TOOL_NAME_LENGTH, Prompt, Resource,
        ResourceTemplate, ResourcesCapability, ServerCapabilities, Tool, is_valid_tool_name, methods,
    },
    session::{self as rt, Peer, SessionConfig},
    sync::lock,
    transport::Transport,
};

/// Settings of a server.
///
/// Build them with [`ServerOptions::new`] and the `with_*` methods, or through
/// [`Server::builder`]; fields may be added in later versions.
#[derive(Clone)]
#[non_exhaustive]
pub struct ServerOptions {
    /// Text the client may give its model about how to use this server.
    pub instructions: Option<String>,
    /// How many items a list request returns per page.
    pub page_size: usize,
    /// The log level in force until the client sets one.
    pub default_log_level: LoggingLevel,
    /// Whether clients may subscribe to resource updates.
    pub resource_subscriptions: bool,
    /// The time-out of requests the server sends to clients.
    pub request_timeout: Duration,
    /// Extra capabilities to declare beyond what the registrations imply.
    pub capabilities: ServerCapabilities,
    /// Called when a client reports that its roots changed.
    pub on_roots_changed: Option<Arc<dyn Fn(SessionHandle) + Send + Sync>>,
    /// Task support (experimental): when set, tools that allow it can be called as tasks and
    /// the server declares the `tasks` capability. Off by default.
    pub tasks: Option<TaskOptions>,
    /// The longest resource URI accepted, in bytes, by `resources/read`,
    /// `resources/subscribe` and `resources/unsubscribe`; [`DEFAULT_MAX_URI_LENGTH`] by
    /// default.
    pub max_uri_length: usize,
    /// How many requests of one client a session runs at once; beyond it a request is refused
    /// with [`TOO_MANY_REQUESTS`](crate::jsonrpc::TOO_MANY_REQUESTS).
    /// [`DEFAULT_MAX_IN_FLIGHT`](rt::DEFAULT_MAX_IN_FLIGHT) by default.
    pub max_in_flight_requests: usize,
    /// How many outgoing messages a stdio or child-process session queues for a client that
    /// reads slowly; [`DEFAULT_MAX_QUEUED_MESSAGES`](rt::DEFAULT_MAX_QUEUED_MESSAGES) by
    /// default. Streamable HTTP bounds each stream instead.
    pub max_queued_messages: usize,
    /// How many bytes of outgoing messages a stdio or child-process session queues for a
    /// client that reads slowly, counted before encoding;
    /// [`DEFAULT_MAX_QUEUED_BYTES`](rt::DEFAULT_MAX_QUEUED_BYTES) by default.
    pub max_queued_bytes: usize,
    /// How many resources one session may be subscribed to at once; a `resources/subscribe`
    /// beyond it is refused with an invalid-params error. [`DEFAULT_MAX_SUBSCRIPTIONS`] by
    /// default.
    pub max_subscriptions: usize,
    /// The middleware around every message of every session, received and sent; the first
    /// added is the outermost.
    pub middleware: MiddlewareChain,
}

/// The longest resource URI a server accepts by default: 8 KiB.
pub const DEFAULT_MAX_URI_LENGTH: usize = 8 * 1024;

/// How many resources one session may be subscribed to by default.
pub const DEFAULT_MAX_SUBSCRIPTIONS: usize = 1024;

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            instructions: None,
            page_size: 100,
            default_log_level: LoggingLevel::Info,
            resource_subscriptions: true,
            request_timeout: rt::DEFAULT_REQUEST_TIMEOUT,
            capabilities: ServerCapabilities::default(),
            on_roots_changed: None,
            tasks: None,
            max_uri_length: DEFAULT_MAX_URI_LENGTH,
            max_in_flight_requests: rt::DEFAULT_MAX_IN_FLIGHT,
            max_queued_messages: rt::DEFAULT_MAX_QUEUED_MESSAGES,
            max_queued_bytes: rt::DEFAULT_MAX_QUEUED_BYTES,
            max_subscriptions: DEFAULT_MAX_SUBSCRIPTIONS,
            middleware: MiddlewareChain::default(),
        }
    }
}

impl ServerOptions {
    /// Creates the default settings: pages of 100, log level `info`, resource subscriptions
    /// on, a 60-second request time-out, and no tasks.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the text the client may give its model about how to use this server.
    pub fn with_instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into());
        self
    }

    /// Sets how many items a list request returns per page (at least 1).
    pub fn with_page_size(mut self, size: usize) -> Self {
        self.page_size = size.max(1);
        self
    }

    /// Sets the log level in force until the client sets one.
    pub fn with_default_log_level(mut self, level: LoggingLevel) -> Self {
        self.default_log_level = level;
        self
    }

    /// Sets whether clients may subscribe to resource updates.
    pub fn with_resource_subscriptions(mut self, enabled: bool) -> Self {
        self.resource_subscriptions = enabled;
        self
    }

    /// Sets the time-out of requests the server sends to clients.
    pub fn with_request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Sets extra capabilities to declare beyond what the registrations imply.
    pub fn with_capabilities(mut self, capabilities: ServerCapabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// Sets what is called when a client reports that its roots changed.
    pub fn with_on_roots_changed(mut self, callback: impl Fn(SessionHandle) + Send + Sync + 'static) -> Self {
        self.on_roots_changed = Some(Arc::new(callback));
        self
    }

    /// Turns on task support (experimental) with these settings.
    pub fn with_tasks(mut self, tasks: TaskOptions) -> Self {
        self.tasks = Some(tasks);
        self
    }

    /// Sets the longest resource URI accepted, in bytes (at least 1).
    pub fn with_max_uri_length(mut self, bytes: usize) -> Self {
        self.max_uri_length = bytes.max(1);
        self
    }

    /// Sets how many requests of one client a session runs at once (at least 1).
    pub fn with_max_in_flight_requests(mut self, requests: usize) -> Self {
        self.max_in_flight_requests = requests.max(1);
        self
    }

    /// Sets how many outgoing messages a stdio or child-process session queues for a client
    /// that reads slowly (at least 1).
    pub fn with_max_queued_messages(mut self, messages: usize) -> Self {
        self.max_queued_messages = messages.max(1);
        self
    }

    /// Sets how many bytes of outgoing messages a stdio or child-process session queues for a
    /// client that reads slowly (at least 1; one message is always let through).
    pub fn with_max_queued_bytes(mut self, bytes: usize) -> Self {
        self.max_queued_bytes = bytes.max(1);
        self
    }

    /// Sets how many resources one session may be subscribed to at once (at least 1).
    pub fn with_max_subscriptions(mut self, subscriptions: usize) -> Self {
        self.max_subscriptions = subscriptions.max(1);
        self
    }

    /// Adds a middleware inside those already added.
    pub fn with_middleware(mut self, middleware: impl Middleware) -> Self {
        self.middleware.push(middleware);
        self
    }
}

impl std::fmt::Debug for ServerOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerOptions")
            .field("instructions", &self.instructions)
            .field("page_size", &self.page_size)
            .field("default_log_level", &self.default_log_level)
            .field("resource_subscriptions", &self.resource_subscriptions)
            .field("request_timeout", &self.request_timeout)
            .field("tasks", &self.tasks)
            .field("max_uri_length", &self.max_uri_length)
            .field("max_in_flight_requests", &self.max_in_flight_requests)
            .field("max_queued_messages", &self.max_queued_messages)
            .field("max_queued_bytes", &self.max_queued_bytes)
            .field("max_subscriptions", &self.max_subscriptions)
            .finish()
    }
}

pub(crate) struct ToolEntry {
    pub(crate) tool: Tool,
    pub(crate) handler: Arc<dyn ToolHandler>,
    pub(crate) input: Option<ToolSchema>,
    pub(crate) output: Option<ToolSchema>,
    /// The parameters the tool mirrors into `Mcp-Param-*` headers (`x-mcp-header`).
    pub(crate) header_params: Vec<crate::model::headers::HeaderParam>,
}

pub(crate) struct ResourceEntry {
    pub(crate) resource: Resource,
    pub(crate) handler: Arc<dyn ResourceHandler>,
}

pub(crate) struct TemplateEntry {
    pub(crate) template: ResourceTemplate,
    pub(crate) matcher: UriTemplate,
    pub(crate) handler: Arc<dyn ResourceHandler>,
    /// Lists the template's resources in `resources/list`, when set.
    pub(crate) lister: Option<Arc<dyn ResourceLister>>,
}

pub(crate) struct PromptEntry {
    pub(crate) prompt: Prompt,
    pub(crate) handler: Arc<dyn PromptHandler>,
}

/// The scope under which a cluster shares the tasks of the tasks extension (server-wide).
#[cfg(feature = "redis")]
const EXTENSION_TASK_SCOPE: &str = "extension";

/// Where a cluster sends the resource updates of its server.
#[cfg(feature = "redis")]
pub(crate) type ResourceUpdateRoute = Arc<dyn Fn(&str) + Send + Sync>;

pub(crate) struct ServerInner {
    pub(crate) info: Implementation,
    pub(crate) options: ServerOptions,
    pub(crate) tools: Mutex<Registry<ToolEntry>>,
    pub(crate) resources: Mutex<Registry<ResourceEntry>>,
    pub(crate) templates: Mutex<Registry<TemplateEntry>>,
    pub(crate) prompts: Mutex<Registry<PromptEntry>>,
    /// The skills served (the skills extension), keyed by the URI of their `SKILL.md`.
    pub(crate) skills: Mutex<Registry<crate::model::skills::SkillEntry>>,
    pub(crate) completion: Mutex<Option<Arc<dyn CompletionHandler>>>,
    /// The middleware of the sessions started from now on: the options' chain and those added
    /// since.
    middleware: Mutex<MiddlewareChain>,
    /// Whether an app view (MCP Apps) is served: the extension is declared, and clients without
    /// Apps are spared what only a view uses.
    pub(crate) apps: std::sync::atomic::AtomicBool,
    sessions: Mutex<Vec<Weak<ServerSession>>>,
    /// The key and bookkeeping of revision 2026-07-28's requests for input across rounds.
    pub(crate) rounds: rounds::Rounds,
    /// The open `subscriptions/listen` streams (revision 2026-07-28).
    pub(crate) listeners: listen::Listeners,
    /// The tasks of the tasks extension (revision 2026-07-28), shared by every request since
    /// they outlive the requests that make them; made on first use when tasks are on.
    task_extension: OnceLock<Arc<tasks::TaskStore>>,
    /// Where resource updates go instead of this process's sessions: a cluster's subscribers.
    #[cfg(feature = "redis")]
    resource_updates: OnceLock<ResourceUpdateRoute>,
    /// Where tasks are shared with a cluster's other processes.
    #[cfg(feature = "redis")]
    task_share: OnceLock<Arc<dyn tasks::TaskShare>>,
    /// The shared task stores of this process, by scope, for the commands other processes send.
    #[cfg(feature = "redis")]
    shared_task_stores: Mutex<std::collections::HashMap<String, Weak<tasks::TaskStore>>>,
}

impl ServerInner {
    /// The capabilities this server declares, derived from what is registered.
    pub(crate) fn capabilities(&self) -> ServerCapabilities {
        let mut caps = self.options.capabilities.clone();
        let listed = Some(ListChangedCapability { list_changed: Some(true) });
        if caps.tools.is_none() && !lock(&self.tools).is_empty() {
            caps.tools = listed.clone();
        }
        if caps.prompts.is_none() && !lock(&self.prompts).is_empty() {
            caps.prompts = listed.clone();
        }
        if caps.resources.is_none() && (!lock(&self.resources).is_empty() || !lock(&self.templates).is_empty()) {
            caps.resources = Some(ResourcesCapability {
                subscribe: Some(self.options.resource_subscriptions),
                list_changed: Some(true),
            });
        }
        if caps.completions.is_none() && lock(&self.completion).is_some() {
            caps.completions = Some(JsonObject::new());
        }
        if caps.tasks.is_none() && self.options.tasks.is_some() {
            caps.tasks = Some(TaskOptions::capability());
        }
        if caps.logging.is_none() {
            caps.logging = Some(JsonObject::new());
        }
        if self.apps.load(std::sync::atomic::Ordering::Relaxed) {
            caps.extensions
                .get_or_insert_with(JsonObject::new)
                .entry(crate::model::apps::APPS_EXTENSION)
                .or_insert_with(|| serde_json::Value::Object(JsonObject::new()));
        }
        caps
    }

    /// The capabilities declared to 2026-07-28 clients: tasks are the tasks extension there,
    /// under `extensions`, rather than the `tasks` capability.
    pub(crate) fn stateless_capabilities(&self) -> ServerCapabilities {
        let mut caps = self.capabilities();
        if caps.tasks.take().is_some() {
            caps.extensions
                .get_or_insert_with(JsonObject::new)
                .entry(crate::model::TASKS_EXTENSION)
                .or_insert_with(|| serde_json::Value::Object(JsonObject::new()));
        }
        if !lock(&self.skills).is_empty() {
            caps.extensions
                .get_or_insert_with(JsonObject::new)
                .entry(crate::model::skills::SKILLS_EXTENSION)
                .or_insert_with(|| serde_json::json!({ "directoryRead": true }));
        }
        caps
    }

    /// The store of the tasks extension, when tasks are on.
    pub(crate) fn task_extension(&self) -> Option<&Arc<tasks::TaskStore>> {
        let options = self.options.tasks.as_ref()?;
        Some(self.task_extension.get_or_init(|| {
            let store = Arc::new(tasks::TaskStore::extension(options.clone()));
            #[cfg(feature = "redis")]
            self.share_task_store(&store, EXTENSION_TASK_SCOPE.to_owned());
            store
        }))
    }

    /// Shares `store` under `scope` when tasks are shared with a cluster.
    #[cfg(feature = "redis")]
    pub(crate) fn share_task_store(&self, store: &Arc<tasks::TaskStore>, scope: String) {
        let Some(share) = self.task_share.get() else { return };
        store.share(share.clone(), scope.clone());
        let mut stores = lock(&self.shared_task_stores);
        stores.retain(|_, store| store.strong_count() > 0);
        stores.insert(scope, Arc::downgrade(store));
    }

    fn session_config(&self) -> SessionConfig {
        SessionConfig {
            default_timeout: self.options.request_timeout,
            max_in_flight: self.options.max_in_flight_requests,
            max_queued: self.options.max_queued_messages,
            max_queued_bytes: self.options.max_queued_bytes,
            middleware: lock(&self.middleware).clone(),
            role: Role::Server,
            ..SessionConfig::default()
        }
    }

    fn live_sessions(&self) -> Vec<Arc<ServerSession>> {
        let mut sessions = lock(&self.sessions);
        sessions.retain(|s| s.strong_count() > 0);
        sessions.iter().filter_map(Weak::upgrade).collect()
    }

    pub(crate) fn forget(&self, session: &Arc<ServerSession>) {
        lock(&self.sessions).retain(|s| !std::ptr::eq(s.as_ptr(), Arc::as_ptr(session)));
    }

    /// Removes an entry from a registry and, if it existed, tells the sessions with `method`.
    /// Registers `entry` under `key`, telling sessions with `method`; a key that is registered
    /// already is a configuration error unless `duplicate` says to replace it. The check and the
    /// insertion hold one lock, so two registrations racing for one key cannot both succeed.
    fn register<T>(
        &self,
        registry: &Mutex<Registry<T>>,
        what: &str,
        key: String,
        entry: T,
        duplicate: Duplicate,
        method: &str,
    ) -> Result<(), Error> {
        {
            let mut registry = lock(registry);
            if duplicate == Duplicate::Refuse && registry.contains(&key) {
                return Err(already_registered(what, &key));
            }
            registry.insert(key, entry);
        }
        self.broadcast(method);
        Ok(())
    }

    fn remove<T>(&self, registry: &Mutex<Registry<T>>, key: &str, method: &str) -> bool {
        let removed = lock(registry).remove(key);
        if removed {
            self.broadcast(method);
        }
        removed
    }

    /// Sends a list change to every `subscriptions/listen` stream that asked for it and to
    /// every session whose `initialize` was answered: one still waiting for its
    /// `notifications/initialized` hears it too, since it may have read the lists already.
    fn broadcast(&self, method: &str) {
        self.listeners.publish(method, serde_json::json!({}));
        for session in self.live_sessions() {
            if matches!(session.phase(), session::Phase::Initializing | session::Phase::Ready)
                && let Some(peer) = session.peer.get()
            {
                let _ = peer.notify(method, &serde_json::json!({}), None);
            }
        }
    }
}

/// An MCP server: the registrations, shared by every session it serves.
///
/// Cloning is cheap and every clone is the same server.
#[derive(Clone)]
pub struct Server {
    inner: Arc<ServerInner>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("info", &self.inner.info).finish()
    }
}

/// What a registration does when its name (or URI) is registered already.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Duplicate {
    /// Fail with a configuration error: the `add_*` methods.
    Refuse,
    /// Replace the registration, which keeps its place in lists: the `replace_*` methods.
    Replace,
}

/// The configuration error of a second registration of `key`, a `what` (tool, prompt...).
pub(crate) fn already_registered(what: &str, key: &str) -> Error {
    Error::Config(format!("the {what} {key:?} is already registered; register it with replace to replace it"))
}

/// Checks what the specification asks of a tool beyond a valid schema: its name follows the
/// tool-name guidance and its arguments are an object.
fn check_tool(tool: &Tool) -> Result<(), Error> {
    if !is_valid_tool_name(&tool.name) {
        return Err(Error::Config(format!(
            "the tool name {:?} is invalid: use 1 to {MAX_TOOL_NAME_LENGTH} ASCII letters, digits, '_', '-' or '.'",
            tool.name
        )));
    }
    if tool.input_schema.get("type").and_then(serde_json::Value::as_str) != Some("object") {
        return Err(Error::Config(format!(
            "the inputSchema of tool {} must be an object schema (\"type\": \"object\")",
            tool.name
        )));
    }
    Ok(())
}

impl Server {
    /// Tells this process's `subscriptions/listen` streams that asked for `uri` that the
    /// resource changed.
    pub(crate) fn publish_resource_update(&self, uri: &str) {
        self.inner.listeners.publish(methods::NOTIFICATIONS_RESOURCES_UPDATED, serde_json::json!({ "uri": uri }));
    }

    /// Sends resource updates to `route` instead of this process's sessions, once: the cluster's
    /// record of subscriptions reaches the subscribed sessions wherever they are served.
    #[cfg(feature = "redis")]
    pub(crate) fn route_resource_updates(&self, route: ResourceUpdateRoute) {
        let _ = self.inner.resource_updates.set(route);
    }

    /// Shares tasks through `share` from now on, once: every process of a cluster answers for
    /// the tasks any of them runs.
    #[cfg(feature = "redis")]
    pub(crate) fn share_tasks(&self, share: Arc<dyn tasks::TaskShare>) {
        if self.inner.task_share.set(share).is_ok()
            && let Some(store) = self.inner.task_extension.get()
        {
            self.inner.share_task_store(store, EXTENSION_TASK_SCOPE.to_owned());
        }
    }

    /// Applies a command another process of the cluster sent for a task this one runs.
    #[cfg(feature = "redis")]
    pub(crate) fn apply_task_command(&self, scope: &str, task_id: &str, command: &serde_json::Value) {
        let store = lock(&self.inner.shared_task_stores).get(scope).and_then(Weak::upgrade);
        match store {
            Some(store) => store.apply(task_id, command),
            None => tracing::debug!(scope, task_id, "a command for tasks this process does not hold was dropped"),
        }
    }

    /// Signs and checks revision 2026-07-28's `requestState` with `key` from now on, the key
    /// every process of a cluster shares.
    #[cfg(feature = "redis")]
    pub(crate) fn share_round_key(&self, key: [u8; 32]) {
        self.inner.rounds.share_key(key);
    }

    /// Starts building a server that presents itself with `info`.
    pub fn builder(info: Implementation) -> ServerBuilder {
        ServerBuilder { server: Server::new(info, ServerOptions::default()), errors: Vec::new() }
    }

    /// Creates a server with no registrations.
    pub fn new(info: Implementation, options: ServerOptions) -> Server {
        let middleware = Mutex::new(options.middleware.clone());
        Server {
            inner: Arc::new(ServerInner {
                info,
                options,
                middleware,
                apps: std::sync::atomic::AtomicBool::new(false),
                tools: Mutex::default(),
                resources: Mutex::default(),
                templates: Mutex::default(),
                prompts: Mutex::default(),
                skills: Mutex::default(),
                completion: Mutex::default(),
                sessions: Mutex::default(),
                rounds: rounds::Rounds::new(),
                listeners: listen::Listeners::default(),
                task_extension: OnceLock::new(),
                #[cfg(feature = "redis")]
                resource_updates: OnceLock::new(),
                #[cfg(feature = "redis")]
                task_share: OnceLock::new(),
                #[cfg(feature = "redis")]
                shared_task_stores: Mutex::default(),
            }),
        }
    }

    /// Returns the server's name and version.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }

    /// Returns the capabilities the server declares now.
    pub fn capabilities(&self) -> ServerCapabilities {
        self.inner.capabilities()
    }

    /// Registers a tool; a tool with the same name already registered is an error.
    ///
    /// Fails with [`Error::Config`] when a tool of that name is registered (use
    /// [`replace_tool`](Self::replace_tool) to replace it), when the name does not follow the
    /// MCP tool-name guidance (see [`is_valid_tool_name`]), when the input schema is not an
    /// object schema (`"type": "object"`), when the input or output schema is not a valid JSON
    /// Schema, or when an `x-mcp-header` annotation breaks its rules (see
    /// [`header_params`](crate::model::headers::header_params)). Sessions in operation get
    /// `notifications/tools/list_changed`.
    pub fn add_tool(&self, tool: Tool, handler: impl ToolHandler) -> Result<(), Error> {
        self.add_tool_arc(tool, Arc::new(handler))
    }

    /// Registers a tool whose handler is already shared, as [`add_tool`](Self::add_tool) does.
    pub fn add_tool_arc(&self, tool: Tool, handler: Arc<dyn ToolHandler>) -> Result<(), Error> {
        self.register_tool(tool, handler, Duplicate::Refuse)
    }

    /// Registers a tool, or replaces the one with the same name, which keeps its place in
    /// `tools/list`; the checks of [`add_tool`](Self::add_tool) apply but the one for a
    /// duplicate name.
    pub fn replace_tool(&self, tool: Tool, handler: impl ToolHandler) -> Result<(), Error> {
        self.register_tool(tool, Arc::new(handler), Duplicate::Replace)
    }

    fn register_tool(&self, mut tool: Tool, handler: Arc<dyn ToolHandler>, duplicate: Duplicate) -> Result<(), Error> {
        check_tool(&tool)?;
        // A tool bound to an app view also carries the flat key older hosts read.
        if let Some(ui) = crate::model::apps::AppToolMeta::of(&tool) {
            ui.apply(&mut tool);
        }
        let input = Some(ToolSchema::new(&tool.name, "inputSchema", &tool.input_schema)?);
        let output = tool.output_schema.as_ref().map(|s| ToolSchema::new(&tool.name, "outputSchema", s)).transpose()?;
        let header_params = crate::model::headers::header_params(&tool.input_schema)
            .map_err(|e| Error::Config(format!("the inputSchema of tool {}: {e}", tool.name)))?;
        let name = tool.name.clone();
        let entry = ToolEntry { tool, handler, input, output, header_params };
        self.inner.register(
            &self.inner.tools,
            "tool",
            name,
            entry,
            duplicate,
            methods::NOTIFICATIONS_TOOLS_LIST_CHANGED,
        )
    }

    /// Removes a tool, returning whether it existed.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.inner.remove(&self.inner.tools, name, methods::NOTIFICATIONS_TOOLS_LIST_CHANGED)
    }

    /// Returns the registration of a tool, for the HTTP server's header checks.
    pub(crate) fn tool_entry(&self, name: &str) -> Option<Arc<ToolEntry>> {
        lock(&self.inner.tools).get(name)
    }

    /// Registers a resource with a fixed URI; a resource with the same URI already registered
    /// is an [`Error::Config`] (use [`replace_resource`](Self::replace_resource) to replace it).
    pub fn add_resource(&self, resource: Resource, handler: impl ResourceHandler) -> Result<(), Error> {
        self.add_resource_arc(resource, Arc::new(handler))
    }

    /// Registers a resource whose handler is already shared, as
    /// [`add_resource`](Self::add_resource) does.
    pub fn add_resource_arc(&self, resource: Resource, handler: Arc<dyn ResourceHandler>) -> Result<(), Error> {
        self.register_resource(resource, handler, Duplicate::Refuse)
    }

    /// Registers a resource, or replaces the one with the same URI.
    pub fn replace_resource(&self, resource: Resource, handler: impl ResourceHandler) {
        // Replacing never meets a duplicate, the one failure of a resource's registration.
        let _ = self.register_resource(resource, Arc::new(handler), Duplicate::Replace);
    }

    fn register_resource(
        &self,
        resource: Resource,
        handler: Arc<dyn ResourceHandler>,
        duplicate: Duplicate,
    ) -> Result<(), Error> {
        let uri = resource.uri.clone();
        let entry = ResourceEntry { resource, handler };
        let list_changed = methods::NOTIFICATIONS_RESOURCES_LIST_CHANGED;
        self.inner.register(&self.inner.resources, "resource", uri, entry, duplicate, list_changed)
    }

    /// Removes a resource, returning whether it existed.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.inner.remove(&self.inner.resources, uri, methods::NOTIFICATIONS_RESOURCES_LIST_CHANGED)
    }

    /// Registers a resource template; reads of matching URIs go to its handler.
    ///
    /// Fails with [`Error::Config`] when the template is not a valid RFC 6570 template, or when
    /// a template with the same URI template is registered (use
    /// [`replace_resource_template`](Self::replace_resource_template) to replace it).
    pub fn add_resource_template(
        &self,
        template: ResourceTemplate,
        handler: impl ResourceHandler,
    ) -> Result<(), Error> {
        self.add_resource_template_arc(template, Arc::new(handler))
    }

    /// Registers a resource template whose handler is already shared, as
    /// [`add_resource_template`](Self::add_resource_template) does.
    pub fn add_resource_template_arc(
        &self,
        template: ResourceTemplate,
        handler: Arc<dyn ResourceHandler>,
    ) -> Result<(), Error> {
        self.register_resource_template(template, handler, None, Duplicate::Refuse)
    }

    /// Registers a resource template, or replaces the one with the same URI template; fails
    /// when the template is not a valid RFC 6570 template.
    pub fn replace_resource_template(
        &self,
        template: ResourceTemplate,
        handler: impl ResourceHandler,
    ) -> Result<(), Error> {
        self.register_resource_template(template, Arc::new(handler), None, Duplicate::Replace)
    }

    /// Registers a resource template whose resources `lister` lists: `resources/list` shows
    /// them after the fixed resources, on its last page, as the TypeScript SDK does.
    ///
    /// Fails when the template is not a valid RFC 6570 template, or when a template with the
    /// same URI template is registered (use
    /// [`replace_listed_resource_template`](Self::replace_listed_resource_template) to replace it).
    pub fn add_listed_resource_template(
        &self,
        template: ResourceTemplate,
        handler: Arc<dyn ResourceHandler>,
        lister: Arc<dyn ResourceLister>,
    ) -> Result<(), Error> {
        self.register_resource_template(template, handler, Some(lister), Duplicate::Refuse)
    }

    /// Registers a resource template whose resources `lister` lists, or replaces the one with
    /// the same URI template; fails when the template is not a valid RFC 6570 template.
    pub fn replace_listed_resource_template(
        &self,
        template: ResourceTemplate,
        handler: Arc<dyn ResourceHandler>,
        lister: Arc<dyn ResourceLister>,
    ) -> Result<(), Error> {
        self.register_resource_template(template, handler, Some(lister), Duplicate::Replace)
    }

    fn register_resource_template(
        &self,
        template: ResourceTemplate,
        handler: Arc<dyn ResourceHandler>,
        lister: Option<Arc<dyn ResourceLister>>,
        duplicate: Duplicate,
    ) -> Result<(), Error> {
        let matcher = UriTemplate::parse(&template.uri_template).map_err(Error::Config)?;
        let key = template.uri_template.clone();
        let entry = TemplateEntry { template, matcher, handler, lister };
        let list_changed = methods::NOTIFICATIONS_RESOURCES_LIST_CHANGED;
        self.inner.register(&self.inner.templates, "resource template", key, entry, duplicate, list_changed)
    }

    /// Removes a resource template by its URI template, returning whether it existed.
    pub fn remove_resource_template(&self, uri_template: &str) -> bool {
        self.inner.remove(&self.inner.templates, uri_template, methods::NOTIFICATIONS_RESOURCES_LIST_CHANGED)
    }

    /// Registers a prompt; a prompt with the same name already registered is an
    /// [`Error::Config`] (use [`replace_prompt`](Self::replace_prompt) to replace it).
    pub fn add_prompt(&self, prompt: Prompt, handler: impl PromptHandler) -> Result<(), Error> {
        self.add_prompt_arc(prompt, Arc::new(handler))
    }

    /// Registers a prompt whose handler is already shared, as [`add_prompt`](Self::add_prompt)
    /// does.
    pub fn add_prompt_arc(&self, prompt: Prompt, handler: Arc<dyn PromptHandler>) -> Result<(), Error> {
        self.register_prompt(prompt, handler, Duplicate::Refuse)
    }

    /// Registers a prompt, or replaces the one with the same name.
    pub fn replace_prompt(&self, prompt: Prompt, handler: impl PromptHandler) {
        // Replacing never meets a duplicate, the one failure of a prompt's registration.
        let _ = self.register_prompt(prompt, Arc::new(handler), Duplicate::Replace);
    }

    fn register_prompt(
        &self,
        prompt: Prompt,
        handler: Arc<dyn PromptHandler>,
        duplicate: Duplicate,
    ) -> Result<(), Error> {
        let name = prompt.name.clone();
        let entry = PromptEntry { prompt, handler };
        let list_changed = methods::NOTIFICATIONS_PROMPTS_LIST_CHANGED;
        self.inner.register(&self.inner.prompts, "prompt", name, entry, duplicate, list_changed)
    }

    /// Removes a prompt, returning whether it existed.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.inner.remove(&self.inner.prompts, name, methods::NOTIFICATIONS_PROMPTS_LIST_CHANGED)
    }

    /// Sets the handler of `completion/complete`.
    pub fn set_completion_handler(&self, handler: impl CompletionHandler) {
        self.set_completion_handler_arc(Arc::new(handler));
    }

    /// Sets the completion handler from one that is already shared.
    pub fn set_completion_handler_arc(&self, handler: Arc<dyn CompletionHandler>) {
        *lock(&self.inner.completion) = Some(handler);
    }

    /// Tells every session subscribed to `uri` that the resource changed, and every
    /// `subscriptions/listen` stream that asked for it; when the server serves a cluster
    /// (feature `redis`), those of every process of the cluster.
    pub fn notify_resource_updated(&self, uri: &str) {
        self.publish_resource_update(uri);
        #[cfg(feature = "redis")]
        if let Some(route) = self.inner.resource_updates.get() {
            return route(uri);
        }
        for session in self.inner.live_sessions() {
            let _ = session.resource_updated(uri);
        }
    }

    /// Sends a log message to every session whose level lets it through.
    pub fn log(&self, level: LoggingLevel, logger: Option<&str>, data: serde_json::Value) {
        for session in self.inner.live_sessions() {
            let _ = session.log(level, logger, data.clone(), None);
        }
    }

    /// Adds a middleware inside those already added; it applies to the sessions started from
    /// now on.
    pub fn add_middleware(&self, middleware: impl Middleware) {
        lock(&self.inner.middleware).push(middleware);
    }

    /// Adds a middleware that is already shared; it applies to the sessions started from now
    /// on.
    pub fn add_middleware_arc(&self, middleware: Arc<dyn Middleware>) {
        lock(&self.inner.middleware).push_arc(middleware);
    }

    /// Serves one session over `transport`, returning at once with a handle to it.
    pub fn serve(&self, transport: impl Transport) -> SessionHandle {
        self.serve_with_task(transport).0
    }

    /// Serves one session and returns its handle together with the task that runs it.
    pub fn serve_with_task(&self, transport: impl Transport) -> (SessionHandle, JoinHandle<()>) {
        let session = Arc::new(ServerSession::new(self.inner.clone()));
        lock(&self.inner.sessions).push(Arc::downgrade(&session));
        let (peer, task) = rt::start(transport, Arc::new(session.clone()), self.inner.session_config());
        let _ = session.peer.set(peer);
        (SessionHandle { session }, task)
    }

    /// Serves one session whose transport pushes incoming messages itself and takes outgoing
    /// ones synchronously (the Streamable HTTP server).
    pub(crate) fn serve_direct(&self, writer: Arc<dyn rt::DirectWriter>) -> (SessionHandle, rt::DirectInput) {
        let session = Arc::new(ServerSession::new(self.inner.clone()));
        lock(&self.inner.sessions).push(Arc::downgrade(&session));
        let (peer, input) = rt::start_direct(writer, Arc::new(session.clone()), self.inner.session_config());
        let _ = session.peer.set(peer);
        (SessionHandle { session }, input)
    }

    /// Serves one session over this process's stdin and stdout until the client leaves.
    pub async fn serve_stdio(&self) -> Result<(), Error> {
        let (_, task) = self.serve_with_task(crate::transport::stdio());
        task.await.map_err(|e| Error::Protocol(format!("the session task failed: {e}")))
    }
}

/// Builds a [`Server`] from registrations.
pub struct ServerBuilder {
    server: Server,
    errors: Vec<Error>,
}

impl std::fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerBuilder").field("server", &self.server).finish()
    }
}

impl ServerBuilder {
    fn options(&mut self) -> &mut ServerOptions {
        &mut Arc::get_mut(&mut self.server.inner).expect("the builder owns its server").options
    }

    /// Replaces all options, the middleware added so far included.
    pub fn options_from(mut self, options: ServerOptions) -> Self {
        *lock(&self.server.inner.middleware) = options.middleware.clone();
        *self.options() = options;
        self
    }

    /// Sets the instructions for the client's model.
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.options().instructions = Some(text.into());
        self
    }

    /// Sets how many items a list request returns per page.
    pub fn page_size(mut self, size: usize) -> Self {
        self.options().page_size = size.max(1);
        self
    }

    /// Sets the longest resource URI accepted, in bytes (at least 1).
    pub fn max_uri_length(mut self, bytes: usize) -> Self {
        self.options().max_uri_length = bytes.max(1);
        self
    }

    /// Sets how many requests of one client a session runs at once (at least 1).
    pub fn max_in_flight_requests(mut self, requests: usize) -> Self {
        self.options().max_in_flight_requests = requests.max(1);
        self
    }

    /// Sets how many outgoing messages a stdio or child-process session queues for a slow
    /// client (at least 1).
    pub fn max_queued_messages(mut self, messages: usize) -> Self {
        self.options().max_queued_messages = messages.max(1);
        self
    }

    /// Sets how many bytes of outgoing messages a stdio or child-process session queues for a
    /// slow client (at least 1).
    pub fn max_queued_bytes(mut self, bytes: usize) -> Self {
        self.options().max_queued_bytes = bytes.max(1);
        self
    }

    /// Sets how many resources one session may be subscribed to at once (at least 1).
    pub fn max_subscriptions(mut self, subscriptions: usize) -> Self {
        self.options().max_subscriptions = subscriptions.max(1);
        self
    }

    /// Turns on task support (experimental) with these settings.
    pub fn tasks(mut self, options: TaskOptions) -> Self {
        self.options().tasks = Some(options);
        self
    }

    /// Adds a middleware around every message of every session, inside those already added.
    pub fn middleware(self, middleware: impl Middleware) -> Self {
        self.server.add_middleware(middleware);
        self
    }

    /// Records the error of a registration, if it failed.
    fn record(mut self, outcome: Result<(), Error>) -> Self {
        if let Err(e) = outcome {
            self.errors.push(e);
        }
        self
    }

    /// Adds a tool; a second tool with the same name is a configuration mistake.
    pub fn tool(self, tool: Tool, handler: impl ToolHandler) -> Self {
        let outcome = self.server.add_tool(tool, handler);
        self.record(outcome)
    }

    /// Adds a resource; a second resource with the same URI is a configuration mistake.
    pub fn resource(self, resource: Resource, handler: impl ResourceHandler) -> Self {
        let outcome = self.server.add_resource(resource, handler);
        self.record(outcome)
    }

    /// Adds a resource template; a second template with the same URI template is a
    /// configuration mistake.
    pub fn resource_template(self, template: ResourceTemplate, handler: impl ResourceHandler) -> Self {
        let outcome = self.server.add_resource_template(template, handler);
        self.record(outcome)
    }

    /// Adds a prompt; a second prompt with the same name is a configuration mistake.
    pub fn prompt(self, prompt: Prompt, handler: impl PromptHandler) -> Self {
        let outcome = self.server.add_prompt(prompt, handler);
        self.record(outcome)
    }

    /// Sets the completion handler.
    pub fn completion(self, handler: impl CompletionHandler) -> Self {
        self.server.set_completion_handler(handler);
        self
    }

    /// Finishes the server, failing with the first configuration mistake ([`Error::Config`]).
    pub fn build(mut self) -> Result<Server, Error> {
        match self.errors.drain(..).next() {
            Some(e) => Err(e),
            None => Ok(self.server),
        }
    }
}

/// A handle to one session a server is serving.
#[derive(Clone)]
pub struct SessionHandle {
    session: Arc<ServerSession>,
}

impl std::fmt::Debug for SessionHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionHandle").field("phase", &self.session.phase()).finish()
    }
}

impl SessionHandle {
    /// Records who sent the request about to be delivered, for handlers to see.
    #[cfg(feature = "auth")]
    pub(crate) fn set_auth(&self, auth: Option<Arc<crate::auth::AuthInfo>>) {
        *lock(&self.session.auth) = auth;
    }

    /// Returns the handle to the client.
    pub fn peer(&self) -> &Peer {
        self.session.peer.get().expect("a served session has a peer")
    }

    /// Returns the client's name and version, once it initialized.
    pub fn client_info(&self) -> Option<Implementation> {
        self.session.client_params().map(|p| p.client_info)
    }

    /// Returns the capabilities the client declared, once it initialized.
    pub fn client_capabilities(&self) -> Option<crate::model::ClientCapabilities> {
        self.session.client_params().map(|p| p.capabilities)
    }

    /// Returns the negotiated protocol version, once the client initialized.
    pub fn protocol_version(&self) -> Option<String> {
        self.session.protocol_version()
    }

    /// Returns the negotiated protocol version without copying it.
    pub(crate) fn negotiated_version(&self) -> Option<&str> {
        self.session.negotiated_version()
    }

    /// Returns the transport's id of the session (Streamable HTTP's `Mcp-Session-Id`), when
    /// the transport has one.
    pub fn session_id(&self) -> Option<&str> {
        self.session.transport_id.get().map(String::as_str)
    }

    /// Makes `first` the id of the next request the server sends in this session.
    #[cfg(feature = "redis")]
    pub(crate) fn set_request_id_base(&self, first: i64) {
        self.peer().set_next_request_id(first);
    }

    /// Returns whether the client subscribed to updates of `uri` in this session.
    #[cfg(feature = "redis")]
    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        self.session.is_subscribed(uri)
    }

    /// Returns what the client sent in `initialize`, once it did.
    #[cfg(feature = "redis")]
    pub(crate) fn client_params(&self) -> Option<crate::model::InitializeRequestParams> {
        self.session.client_params()
    }

    /// Records the transport's id of the session.
    pub(crate) fn set_session_id(&self, id: String) {
        #[cfg(feature = "redis")]
        if !id.is_empty() {
            self.session.share_tasks(&id);
        }
        let _ = self.session.transport_id.set(id);
    }

    /// Returns whether the client completed initialization.
    pub fn is_initialized(&self) -> bool {
        self.session.phase() == session::Phase::Ready
    }

    /// Sends a log message to this client, if its level lets it through.
    pub fn log(&self, level: LoggingLevel, logger: Option<&str>, data: serde_json::Value) -> Result<(), Error> {
        self.session.log(level, logger, data, None)
    }

    /// Asks this client for its roots.
    pub async fn list_roots(&self) -> Result<crate::model::ListRootsResult, Error> {
        if self.client_capabilities().and_then(|c| c.roots).is_none() {
            return Err(Error::CapabilityMissing("roots".into()));
        }
        self.peer().request_typed(methods::ROOTS_LIST, &serde_json::json!({}), rt::RequestOptions::default()).await
    }

    /// Resolves when the session has ended.
    pub async fn closed(&self) {
        self.peer().closed().await;
    }

    /// Ends the session.
    pub fn close(&self) {
        self.peer().close();
    }
}
