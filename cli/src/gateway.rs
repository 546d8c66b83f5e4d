//! `mcpweft gateway`: one Streamable HTTP endpoint in front of every server of an `mcpServers`
//! configuration.
//!
//! The core's host connects to the servers, keeps them running (a server that exits is started
//! again), names their tools and prompts `prefix__name`, applies the allow and deny lists and
//! leaves out names that several servers offer. The gateway is a core [`Server`] whose
//! registrations mirror the host's view: each tool, prompt, resource and resource template of a
//! ready server is registered with a handler that forwards the request through the host, with
//! progress and cancellation. When the view changes (a server starts, stops or says one of its
//! lists changed) the registrations follow, and the core's server tells its clients with
//! `notifications/*/list_changed`.
//!
//! A server's own requests (sampling, elicitation, roots) go to the one client request that is
//! waiting on that server: when exactly one request to it is in flight, the server's request is
//! sent through that request's context; otherwise the server is answered with an error, since
//! the gateway cannot tell which of its clients the request is meant for.
//!
//! With `--no-prefix` and one server there is nothing to merge: the gateway is then a reverse
//! proxy of that server ([`passthrough`]), which carries every feature the server speaks.

use std::{
    collections::{HashMap, HashSet},
    net::{SocketAddr, ToSocketAddrs as _},
    sync::{
        Arc, Mutex, OnceLock, PoisonError,
        atomic::{AtomicU64, Ordering},
    },
};

use async_trait::async_trait;
use mcpweft::{
    Error, ErrorData, RequestContext, RequestOptions, Server,
    auth::{JwtVerifier, ResourceServerOptions},
    host::{CallOptions, Host, HostConfig, HostEvent, HostHandler, ServerState},
    http::{ClusterOptions, HttpServerOptions, StreamableHttpServer},
    jsonrpc::{INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, REQUEST_TIMEOUT},
    model::{
        CallToolResult, ClientCapabilities, CompleteRequestParams, CompleteResult, CompletionReference,
        CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult, GetPromptResult,
        Implementation, JsonObject, ListRootsResult, LoggingMessageNotificationParams, Prompt, ReadResourceResult,
        Resource, ResourceTemplate, ResourceUpdatedNotificationParams, ServerCapabilities, Tool, methods,
    },
    server::{CompletionHandler, PromptHandler, ResourceHandler, ResourceRequest, ServerOptions, ToolHandler},
    session::IncomingRequest,
};
use serde_json::{Value, json};
use tokio::sync::broadcast::error::{RecvError, TryRecvError};

use crate::{
    args::{GatewayArgs, GatewayAuthArgs},
    failure::Failure,
    passthrough,
};

/// How many events already waiting are taken together before the registrations follow the
/// host's view once for all of them.
const EVENT_BATCH: usize = 256;

/// Serves the servers of `args.config` at `args.listen` until the process is interrupted.
pub(crate) async fn run(args: GatewayArgs) -> Result<(), Failure> {
    let config = host_config(&args)?;
    args.login.check_for_config()?;
    let addr = listen_address(&args.listen)?;
    let auth = protection(&args.auth)?;
    let cluster = crate::cluster::options(&args.cluster, "mcpweft-gateway")?;
    if !args.path.starts_with('/') {
        return Err(Failure::usage(format!("--path {:?} must start with '/'", args.path)));
    }
    // In cluster mode the sessions live in Redis and outlive the process that created them,
    // which a relayed session, bound to its connection, would not: the host serves them.
    let relayed = if cluster.is_none() { passthrough::relayed(&config, args.no_prefix) } else { None };
    let options = http_options(&args, auth, cluster);
    if let Some(server) = relayed {
        tracing::info!(server = %server.name, "one server without prefix: the gateway relays each session to it");
        let relay = Arc::new(passthrough::ServerRelay::new(server.clone()));
        let bound = StreamableHttpServer::bind_relay(relay, addr, options).await.map_err(bind_failure)?;
        eprintln!("listening on {}", bound.url());
        interrupted().await;
        tracing::info!("stopping the gateway");
        bound.shutdown().await;
        return Ok(());
    }
    let front = Arc::new(Front::default());
    let builder = Host::builder(config.clone())
        .with_info(Implementation::new("mcpweft-gateway", env!("CARGO_PKG_VERSION")))
        .with_capabilities(backend_capabilities())
        .with_handler(FrontHandler { front: front.clone() });
    let host = args.login.host(builder, &config).await?.connect().await?;
    for (name, state) in host.servers() {
        report_state(&name, &state);
    }
    let server = front_server(&host);
    let _ = front.server.set(server.clone());
    let gateway = Arc::new(Gateway { host: host.clone(), front, mirror: Mutex::default() });
    let events = host.events();
    gateway.sync(&server);
    let follower = tokio::spawn(follow(gateway.clone(), server.clone(), events));

    let bound = match StreamableHttpServer::bind(server, addr, options).await {
        Ok(bound) => bound,
        Err(e) => {
            host.close().await;
            return Err(bind_failure(e));
        }
    };
    eprintln!("listening on {}", bound.url());
    interrupted().await;
    tracing::info!("stopping the gateway");
    follower.abort();
    bound.shutdown().await;
    host.close().await;
    Ok(())
}

/// The options of the gateway's HTTP side: its path, the `Host` and `Origin` checks, the
/// version header, the OAuth protection `auth` and the cluster mode `cluster`.
fn http_options(
    args: &GatewayArgs,
    auth: Option<ResourceServerOptions>,
    cluster: Option<ClusterOptions>,
) -> HttpServerOptions {
    let mut options = HttpServerOptions::new().with_path(&args.path);
    if !args.allowed_hosts.is_empty() {
        options = options.with_allowed_hosts(&args.allowed_hosts);
    }
    if !args.allowed_origins.is_empty() {
        options = options.with_allowed_origins(&args.allowed_origins);
    }
    options = options
        .with_allow_remote_without_auth(args.allow_remote_without_auth)
        .with_require_negotiated_version(!args.any_protocol_version);
    if let Some(auth) = auth {
        options = options.with_auth(auth);
    }
    if let Some(cluster) = cluster {
        options = options.with_cluster(cluster);
    }
    options
}

/// Why the gateway could not listen: the address (exit code 1) or its options (2).
fn bind_failure(error: Error) -> Failure {
    match error {
        Error::Io(e) => Failure::failed(e.to_string()),
        other => other.into(),
    }
}

/// The host configuration of the file `args.config`; with `--no-prefix` every server keeps
/// the names of its tools and prompts.
fn host_config(args: &GatewayArgs) -> Result<HostConfig, Failure> {
    let shown = args.config.display();
    let text = std::fs::read_to_string(&args.config)
        .map_err(|e| Failure::usage(format!("cannot read the configuration {shown}: {e}")))?;
    let mut root: Value = serde_json::from_str(&text)
        .map_err(|e| Failure::usage(format!("the configuration {shown} is not valid JSON: {e}")))?;
    let key = ["mcpServers", "servers"]
        .into_iter()
        .find(|key| root.get(key).is_some_and(Value::is_object))
        .ok_or_else(|| Failure::usage(format!("the configuration {shown} has no mcpServers object")))?;
    let Some(Value::Object(entries)) = root.get_mut(key) else {
        return Err(Failure::usage(format!("the configuration {shown} has no mcpServers object")));
    };
    if entries.is_empty() {
        return Err(Failure::usage(format!("the configuration {shown} has no servers")));
    }
    if args.no_prefix {
        for (name, entry) in entries.iter_mut() {
            let Value::Object(entry) = entry else {
                return Err(Failure::usage(format!("server {name:?} of {shown} is not an object")));
            };
            entry.insert("prefix".to_owned(), json!(""));
        }
    }
    HostConfig::from_value(&root).map_err(|e| Failure::usage(format!("the configuration {shown}: {e}")))
}

/// The OAuth protection the `--auth-*` options ask for, if any: JWTs of one issuer, checked
/// against its keys, for the gateway's URL, with the scopes every request needs.
fn protection(args: &GatewayAuthArgs) -> Result<Option<ResourceServerOptions>, Failure> {
    let Some(resource) = &args.auth_resource else { return Ok(None) };
    let Some(issuer) = &args.auth_issuer else {
        return Err(Failure::usage("--auth-resource needs --auth-issuer, the authorization server's issuer"));
    };
    let verifier = match (&args.auth_jwks_url, &args.auth_jwks_file) {
        (Some(url), None) => JwtVerifier::with_jwks_url(url, issuer, resource),
        (None, Some(path)) => {
            let shown = path.display();
            let text = std::fs::read_to_string(path)
                .map_err(|e| Failure::usage(format!("cannot read the JWKS {shown}: {e}")))?;
            let jwks: Value = serde_json::from_str(&text)
                .map_err(|e| Failure::usage(format!("the JWKS {shown} is not valid JSON: {e}")))?;
            JwtVerifier::with_jwks(&jwks, issuer, resource)
                .map_err(|e| Failure::usage(format!("the JWKS {shown}: {e}")))?
        }
        _ => return Err(Failure::usage("--auth-resource needs --auth-jwks-url or --auth-jwks-file")),
    };
    let mut auth = ResourceServerOptions::new(resource, Arc::new(verifier)).with_authorization_server(issuer.as_str());
    if !args.auth_scopes.is_empty() {
        auth = auth.with_required_scopes(&args.auth_scopes).with_scopes_supported(&args.auth_scopes);
    }
    Ok(Some(auth))
}

/// The address of `--listen`: an IP address and port, or a name this machine resolves.
fn listen_address(listen: &str) -> Result<SocketAddr, Failure> {
    let wrong = |why: String| Failure::usage(format!("--listen {listen:?} is not HOST:PORT: {why}"));
    if let Ok(addr) = listen.parse() {
        return Ok(addr);
    }
    let mut addrs = listen.to_socket_addrs().map_err(|e| wrong(e.to_string()))?;
    addrs.next().ok_or_else(|| wrong("the name has no address".to_owned()))
}

/// What the gateway declares to its servers: it passes their requests for input on to its own
/// clients, which may or may not support them.
fn backend_capabilities() -> ClientCapabilities {
    let declared = json!({
        "roots": { "listChanged": true },
        "sampling": {},
        "elicitation": { "form": {}, "url": {} },
    });
    serde_json::from_value(declared).unwrap_or_default()
}

/// The gateway's server: every list with `listChanged`, resource subscriptions, completions and
/// logging, whatever is registered now; the servers' instructions, each under its name.
fn front_server(host: &Host) -> Server {
    let declared = json!({
        "tools": { "listChanged": true },
        "prompts": { "listChanged": true },
        "resources": { "subscribe": true, "listChanged": true },
        "completions": {},
        "logging": {},
    });
    let capabilities: ServerCapabilities = serde_json::from_value(declared).unwrap_or_default();
    let roots_host = host.clone();
    let mut options = ServerOptions::new()
        .with_capabilities(capabilities)
        .with_on_roots_changed(move |_| roots_host.notify_roots_list_changed());
    let servers = host.servers();
    let single = servers.len() == 1;
    let instructions: Vec<String> = servers
        .into_iter()
        .filter_map(|(name, _)| {
            let text = host.client(&name)?.server().instructions.clone()?;
            Some(if single { text } else { format!("{name}: {text}") })
        })
        .collect();
    if !instructions.is_empty() {
        options = options.with_instructions(instructions.join("\n\n"));
    }
    let info = Implementation::new("mcpweft-gateway", env!("CARGO_PKG_VERSION"));
    let server = Server::new(info, options);
    let completion_host = host.clone();
    server.set_completion_handler(Completions { host: completion_host });
    server
}

/// Resolves when the process is asked to stop (Ctrl-C, or SIGTERM on Unix).
async fn interrupted() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
                return;
            }
            Err(e) => tracing::warn!(error = %e, "cannot listen for SIGTERM"),
        }
    }
    if let Err(e) = tokio::signal::ctrl_c().await {
        tracing::warn!(error = %e, "cannot listen for Ctrl-C; the gateway runs until it is killed");
        std::future::pending::<()>().await;
    }
}

/// Logs a server's new state.
fn report_state(server: &str, state: &ServerState) {
    match state {
        // A spawned server's stderr reached ours as it was written: not repeated here.
        ServerState::Failed { reason, .. } => tracing::warn!(server, "the server failed: {reason}"),
        ServerState::Ready => tracing::info!(server, "the server is ready"),
        other => tracing::info!(server, "the server is {other}"),
    }
}

/// Follows the host's events: each state change, list change or collision brings the
/// registrations in line with the host's view, once for all the events already waiting.
async fn follow(gateway: Arc<Gateway>, server: Server, mut events: tokio::sync::broadcast::Receiver<HostEvent>) {
    loop {
        match events.recv().await {
            Ok(event) => note(&event),
            Err(RecvError::Lagged(missed)) => tracing::debug!(missed, "the gateway fell behind the host's events"),
            Err(RecvError::Closed) => return,
        }
        for _ in 0..EVENT_BATCH {
            match events.try_recv() {
                Ok(event) => note(&event),
                Err(TryRecvError::Lagged(_)) => {}
                Err(TryRecvError::Empty | TryRecvError::Closed) => break,
            }
        }
        gateway.sync(&server);
    }
}

/// Logs what an event says.
fn note(event: &HostEvent) {
    match event {
        HostEvent::StateChanged { server, state } => report_state(server, state),
        HostEvent::ListChanged { server, list } => tracing::debug!(server, ?list, "a list of the server changed"),
        HostEvent::Collisions { collisions } => {
            for collision in collisions {
                tracing::warn!(
                    name = %collision.name,
                    servers = %collision.servers.join(", "),
                    "several servers offer this name, so the gateway offers it under none: give them prefixes"
                );
            }
        }
        _ => {}
    }
}

/// What the gateway registered, by name (tools, prompts) or URI (resources, templates), with the
/// server each came from.
#[derive(Default)]
struct Mirror {
    tools: HashMap<String, (String, Tool)>,
    prompts: HashMap<String, (String, Prompt)>,
    resources: HashMap<String, (String, Resource)>,
    templates: HashMap<String, (String, ResourceTemplate)>,
}

/// The host and what the gateway's server registered from its view.
struct Gateway {
    host: Host,
    front: Arc<Front>,
    mirror: Mutex<Mirror>,
}

impl Gateway {
    /// Registers what the host's view offers and the server does not, replaces what changed and
    /// removes what is gone, in the order of the view; each change tells the server's clients
    /// that the list changed.
    fn sync(self: &Arc<Self>, server: &Server) {
        let mut mirror = self.mirror.lock().unwrap_or_else(PoisonError::into_inner);
        let Mirror { tools, prompts, resources, templates } = &mut *mirror;
        let wanted = self.host.tools().into_iter().map(|t| (t.name.clone(), t.server.clone(), t.namespaced()));
        follow_list(
            tools,
            wanted.collect(),
            "tool",
            |key| server.remove_tool(key),
            |key, from, tool| server.replace_tool(tool, self.forward(key, from)),
        );
        let wanted = self.host.prompts().into_iter().map(|p| (p.name.clone(), p.server.clone(), p.namespaced()));
        follow_list(
            prompts,
            wanted.collect(),
            "prompt",
            |key| server.remove_prompt(key),
            |key, from, prompt| {
                server.replace_prompt(prompt, self.forward(key, from));
                Ok(())
            },
        );
        let wanted = self.host.resources().into_iter().map(|r| (r.resource.uri.clone(), r.server, r.resource));
        follow_list(
            resources,
            wanted.collect(),
            "resource",
            |key| server.remove_resource(key),
            |key, from, resource| {
                server.replace_resource(resource, self.forward(key, from));
                Ok(())
            },
        );
        let wanted =
            self.host.resource_templates().into_iter().map(|t| (t.template.uri_template.clone(), t.server, t.template));
        let remove = |key: &str| server.remove_resource_template(key);
        follow_list(templates, wanted.collect(), "resource template", remove, |key, from, template| {
            server.replace_resource_template(template, self.forward(key, from))
        });
    }

    /// The handler of the registration `key` of the server `from`.
    fn forward(self: &Arc<Self>, key: &str, from: &str) -> Forward {
        Forward { gateway: self.clone(), server: from.to_owned(), name: key.to_owned() }
    }
}

/// Brings one list of registrations in line with `wanted` (key, server, item, in the view's
/// order): what `registered` holds and `wanted` does not is removed through `remove`, what is
/// new or changed is registered through `register`; an item the server refuses is logged and
/// left out.
fn follow_list<T: Clone + PartialEq>(
    registered: &mut HashMap<String, (String, T)>,
    wanted: Vec<(String, String, T)>,
    what: &str,
    remove: impl Fn(&str) -> bool,
    register: impl Fn(&str, &str, T) -> Result<(), Error>,
) {
    let keys: HashSet<&str> = wanted.iter().map(|(key, _, _)| key.as_str()).collect();
    registered.retain(|key, _| {
        let kept = keys.contains(key.as_str());
        if !kept {
            remove(key);
        }
        kept
    });
    for (key, from, item) in wanted {
        if registered.get(&key).is_some_and(|(server, known)| *server == from && *known == item) {
            continue;
        }
        match register(&key, &from, item.clone()) {
            Ok(()) => {
                registered.insert(key, (from, item));
            }
            Err(e) => {
                tracing::warn!(server = %from, error = %e, "the gateway cannot offer the {what} {key}");
                if registered.remove(&key).is_some() {
                    remove(&key);
                }
            }
        }
    }
}

/// The handler of one registration: it forwards the request to `server` through the host,
/// under the host's `name` for it (a tool's or prompt's host name, a resource's URI).
struct Forward {
    gateway: Arc<Gateway>,
    server: String,
    name: String,
}

impl Forward {
    /// The options of a call for the client request of `ctx`: its progress is passed on to that
    /// client, and its cancellation cancels the call.
    fn options(ctx: &RequestContext) -> CallOptions {
        let progress = ctx.clone();
        CallOptions::new().with_cancel(ctx.cancellation_token()).with_progress(move |p| {
            if let Err(e) = progress.report_progress(p.progress, p.total, p.message) {
                tracing::debug!(error = %e, "a progress notification of a server was not passed on");
            }
        })
    }
}

#[async_trait]
impl ToolHandler for Forward {
    async fn call(&self, arguments: JsonObject, ctx: RequestContext) -> Result<CallToolResult, ErrorData> {
        let _waiting = self.gateway.front.waiting(&self.server, &ctx);
        let options = Self::options(&ctx);
        self.gateway.host.call_tool_with(&self.name, Value::Object(arguments), options).await.map_err(to_error_data)
    }
}

#[async_trait]
impl PromptHandler for Forward {
    async fn get(&self, arguments: HashMap<String, String>, ctx: RequestContext) -> Result<GetPromptResult, ErrorData> {
        let _waiting = self.gateway.front.waiting(&self.server, &ctx);
        let arguments = arguments.into_iter().map(|(name, value)| (name, Value::String(value))).collect();
        let options = Self::options(&ctx);
        self.gateway.host.get_prompt_with(&self.name, arguments, options).await.map_err(to_error_data)
    }
}

#[async_trait]
impl ResourceHandler for Forward {
    async fn read(&self, request: ResourceRequest, ctx: RequestContext) -> Result<ReadResourceResult, ErrorData> {
        let _waiting = self.gateway.front.waiting(&self.server, &ctx);
        let options = Self::options(&ctx);
        self.gateway.host.read_resource_with(&request.uri, Some(&self.server), options).await.map_err(to_error_data)
    }
}

/// Forwards `completion/complete` to the server that owns the prompt or resource template, under
/// that server's own name for a prompt.
struct Completions {
    host: Host,
}

#[async_trait]
impl CompletionHandler for Completions {
    async fn complete(
        &self,
        mut params: CompleteRequestParams,
        ctx: RequestContext,
    ) -> Result<CompleteResult, ErrorData> {
        let server = match &mut params.reference {
            CompletionReference::Prompt(reference) => {
                let prompt = self.host.prompts().into_iter().find(|p| p.name == reference.name);
                let Some(prompt) = prompt else {
                    return Err(ErrorData::invalid_params(format!("unknown prompt: {}", reference.name)));
                };
                reference.name = prompt.prompt.name;
                prompt.server
            }
            CompletionReference::Resource(reference) => {
                let template =
                    self.host.resource_templates().into_iter().find(|t| t.template.uri_template == reference.uri);
                let resource = || self.host.resources().into_iter().find(|r| r.resource.uri == reference.uri);
                match (template, resource()) {
                    (Some(template), _) => template.server,
                    (None, Some(resource)) => resource.server,
                    (None, None) => {
                        return Err(ErrorData::invalid_params(format!("unknown resource template: {}", reference.uri)));
                    }
                }
            }
        };
        let Some(client) = self.host.client(&server) else {
            return Err(ErrorData::internal_error(format!("server {server:?} is not connected")));
        };
        if client.server().capabilities.completions.is_none() {
            return Ok(CompleteResult::new(Vec::new()));
        }
        params.meta = None;
        let params = serde_json::to_value(&params).map_err(|e| ErrorData::internal_error(e.to_string()))?;
        let options = RequestOptions::new().with_cancel(ctx.cancellation_token());
        let result =
            client.request(methods::COMPLETION_COMPLETE, Some(params), options).await.map_err(to_error_data)?;
        serde_json::from_value(result)
            .map_err(|e| ErrorData::internal_error(format!("server {server:?} sent an invalid completion: {e}")))
    }
}

/// A failure of a forwarded request as the gateway's client sees it: a server's JSON-RPC error
/// as it was, anything else as an error that says what happened.
fn to_error_data(error: Error) -> ErrorData {
    match error {
        Error::Rpc(data) => data,
        Error::Config(message) => ErrorData::new(INVALID_PARAMS, message),
        Error::Timeout(after) => ErrorData::new(REQUEST_TIMEOUT, format!("the server did not answer within {after:?}")),
        Error::Disconnected(reason) => ErrorData::new(INTERNAL_ERROR, reason.message.clone()),
        other => ErrorData::new(INTERNAL_ERROR, other.to_string()),
    }
}

/// The requests of the gateway's clients that wait on each server, and the gateway's server.
#[derive(Default)]
struct Front {
    /// By server name: each waiting request, under a number of its own.
    waiting: Mutex<HashMap<String, Vec<(u64, RequestContext)>>>,
    next: AtomicU64,
    server: OnceLock<Server>,
}

impl Front {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<(u64, RequestContext)>>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Notes that the request of `ctx` waits on `server` until the returned guard is dropped.
    fn waiting(self: &Arc<Self>, server: &str, ctx: &RequestContext) -> Waiting {
        let number = self.next.fetch_add(1, Ordering::Relaxed);
        self.lock().entry(server.to_owned()).or_default().push((number, ctx.clone()));
        Waiting { front: self.clone(), server: server.to_owned(), number }
    }

    /// The context of the one request waiting on `server`, or the error to answer `method`
    /// with when there is none or more than one.
    fn only(&self, server: &str, method: &str) -> Result<RequestContext, ErrorData> {
        let mut waiting = self.lock();
        // A request its client cancelled waits no more for anything the server asks.
        if let Some(list) = waiting.get_mut(server) {
            list.retain(|(_, ctx)| !ctx.is_cancelled());
        }
        match waiting.get(server).map(Vec::as_slice).unwrap_or_default() {
            [(_, ctx)] => Ok(ctx.clone()),
            [] => Err(ErrorData::new(
                INTERNAL_ERROR,
                format!(
                    "the gateway passes {method} on only while a client's request to server {server:?} is waiting, and none is"
                ),
            )),
            several => Err(ErrorData::new(
                INTERNAL_ERROR,
                format!(
                    "the gateway cannot tell which of {} client requests waiting on server {server:?} {method} is for",
                    several.len()
                ),
            )),
        }
    }
}

/// Removes a waiting request from [`Front`] when dropped.
struct Waiting {
    front: Arc<Front>,
    server: String,
    number: u64,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        let mut waiting = self.front.lock();
        if let Some(list) = waiting.get_mut(&self.server) {
            list.retain(|(number, _)| *number != self.number);
            if list.is_empty() {
                waiting.remove(&self.server);
            }
        }
    }
}

/// The host's side towards the servers: their requests for input go to the gateway's client
/// whose request waits on them, their logs and resource updates to the gateway's clients.
struct FrontHandler {
    front: Arc<Front>,
}

/// The error a server is answered with when the gateway's client could not answer it.
fn to_server_error(error: Error, method: &str) -> ErrorData {
    match error {
        Error::Rpc(data) => data,
        Error::CapabilityMissing(what) => {
            ErrorData::new(METHOD_NOT_FOUND, format!("the gateway's client does not support {what} ({method})"))
        }
        other => ErrorData::new(INTERNAL_ERROR, format!("the gateway's client did not answer {method}: {other}")),
    }
}

/// Runs `ask` until it ends or the server cancels its request.
async fn unless_cancelled<T>(
    incoming: &IncomingRequest,
    method: &str,
    ask: impl Future<Output = Result<T, Error>>,
) -> Result<T, ErrorData> {
    tokio::select! {
        outcome = ask => outcome.map_err(|e| to_server_error(e, method)),
        _ = incoming.cancellation.cancelled() => Err(ErrorData::new(INTERNAL_ERROR, format!("{method} was cancelled"))),
    }
}

#[async_trait]
impl HostHandler for FrontHandler {
    async fn create_message(
        &self,
        server: &str,
        params: CreateMessageRequestParams,
        incoming: IncomingRequest,
    ) -> Result<CreateMessageResult, ErrorData> {
        let method = methods::SAMPLING_CREATE_MESSAGE;
        let ctx = self.front.only(server, method)?;
        unless_cancelled(&incoming, method, ctx.create_message(params)).await
    }

    async fn elicit(
        &self,
        server: &str,
        params: ElicitRequestParams,
        incoming: IncomingRequest,
    ) -> Result<ElicitResult, ErrorData> {
        let method = methods::ELICITATION_CREATE;
        let ctx = self.front.only(server, method)?;
        unless_cancelled(&incoming, method, ctx.elicit(params)).await
    }

    async fn list_roots(&self, server: &str, incoming: IncomingRequest) -> Result<ListRootsResult, ErrorData> {
        let method = methods::ROOTS_LIST;
        let ctx = self.front.only(server, method)?;
        unless_cancelled(&incoming, method, ctx.list_roots()).await
    }

    async fn on_log_message(&self, server: &str, params: LoggingMessageNotificationParams) {
        tracing::debug!(target: "server", server, "{}", params.data);
        if let Some(front) = self.front.server.get() {
            front.log(params.level, params.logger.as_deref(), params.data);
        }
    }

    async fn on_resource_updated(&self, _server: &str, params: ResourceUpdatedNotificationParams) {
        if let Some(front) = self.front.server.get() {
            front.notify_resource_updated(&params.uri);
        }
    }
}
