//! The Streamable HTTP server: one endpoint, JSON or SSE replies, sessions and resumability.
//!
//! [`StreamableHttpServer`] turns a [`Server`] into an axum [`Router`] that can be mounted into
//! an existing application, or bound to its own listener with [`StreamableHttpServer::bind`].
//! Each MCP session is one core session whose transport routes outgoing messages to the SSE
//! stream of the request they belong to, or to the standalone GET stream. A [`Relay`] serves
//! another MCP server (such as a child process) the same way, one connection per session
//! ([`StreamableHttpServer::relay`], [`StreamableHttpServer::bind_relay`]).

use std::{
    net::SocketAddr,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicU32, Ordering},
    },
};

use axum::{
    Router,
    body::{Body, Bytes, HttpBody},
    extract::State,
    http::{HeaderValue, Method, StatusCode, header},
    response::Response,
    routing::any,
};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::{
    Error, Server,
    http::response::error_response,
    model::ALL_PROTOCOL_VERSIONS,
    sync::{FastMap, lock},
};

mod caller;
#[cfg(feature = "redis")]
mod cluster_glue;
mod connections;
mod event_store;
mod host_check;
mod options;
mod post;
mod relay;
mod request;
mod session;
mod sessions;
mod stateless;
mod streams;

pub use event_store::{EventStore, InMemoryEventStore, StoredEvent};
pub use options::{DEFAULT_MAX_QUEUED_EVENTS, DEFAULT_READ_TIMEOUT, HttpServerOptions};
pub use relay::{Relay, RelaySession, RelaySink};

use connections::{ConnectionLimits, Endpoint, default_max_connections, serve_connections};
use host_check::HostCheck;
use post::{post, unsupported_version_header};
use request::RequestHeaders;
use session::HttpSession;
use sessions::delete;
use streams::get;

/// The target of the server's logs, whichever of its modules makes them: logs are filtered and
/// named by it (the Python logger `mcpweft.http.server`).
const LOG_TARGET: &str = module_path!();

/// The header that carries the session id.
pub const SESSION_ID_HEADER: &str = "mcp-session-id";
/// The header that carries the negotiated protocol version.
pub const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";

/// Whether something was used between the looks of a watcher that ends it once unused and
/// idle for long enough: an HTTP session (looked at by the sweeper) or a connection (by its
/// watchdog). Users mark it, which costs them an atomic store where reading the clock at each
/// use would cost more than the watcher's precision needs.
struct Usage {
    used: AtomicBool,
    quiet_looks: AtomicU32,
}

impl Usage {
    /// Returns a usage marked as used, so that the first look does not count as quiet.
    fn new() -> Self {
        Usage { used: AtomicBool::new(true), quiet_looks: AtomicU32::new(0) }
    }

    /// Marks the thing as used.
    fn mark(&self) {
        self.used.store(true, Ordering::Relaxed);
    }

    /// Takes one look: returns whether it is the `looks`-th in a row to find the thing neither
    /// used since the look before nor `busy`.
    fn quiet_for(&self, looks: u32, busy: impl FnOnce() -> bool) -> bool {
        if self.used.swap(false, Ordering::Relaxed) || busy() {
            self.quiet_looks.store(0, Ordering::Relaxed);
            return false;
        }
        self.quiet_looks.fetch_add(1, Ordering::Relaxed) + 1 >= looks
    }
}

/// What serves the sessions of an HTTP server.
enum Backend {
    /// A server of this process, a core session for each HTTP session.
    Server(Server),
    /// Another MCP server, a connection to it for each HTTP session.
    Relay(relay::RelayBackend),
}

/// What every request of a server shares: the core server, the settings, the sessions.
struct HttpState {
    backend: Backend,
    options: HttpServerOptions,
    /// The accepted `Host` and `Origin` values.
    host_check: HostCheck,
    /// The sessions kept, by id.
    sessions: Mutex<FastMap<String, Arc<HttpSession>>>,
    /// Fires when the bound server shuts down: it ends the streams of requests that belong to
    /// no session (revision 2026-07-28, stateless mode), which shutting sessions down misses.
    stopping: CancellationToken,
    /// The task that ends idle sessions, once started.
    sweeper: Mutex<Option<JoinHandle<()>>>,
    /// The bytes of request bodies still arriving that may be held, all connections together
    /// ([`HttpServerOptions::max_buffered_body_bytes`]).
    body_budget: tokio::sync::Semaphore,
    /// The link to the cluster, made on the first request when the options name one.
    #[cfg(feature = "redis")]
    cluster: tokio::sync::OnceCell<Arc<super::cluster::Cluster>>,
}

impl HttpState {
    /// Returns the server of this process, unless the sessions are relayed.
    #[cfg(feature = "redis")]
    fn server(&self) -> Option<&Server> {
        match &self.backend {
            Backend::Server(server) => Some(server),
            Backend::Relay(_) => None,
        }
    }

    /// Returns the `x-mcp-header` parameters of tool `name`: as registered, or, for a relayed
    /// server, as the last `tools/list` result that passed through showed them.
    fn header_params(&self, name: &str) -> Option<Vec<crate::model::headers::HeaderParam>> {
        match &self.backend {
            Backend::Server(server) => server.tool_entry(name).map(|entry| entry.header_params.clone()),
            Backend::Relay(relay) => relay.header_params(name),
        }
    }
}

impl Drop for HttpState {
    fn drop(&mut self) {
        if let Some(task) = lock(&self.sweeper).take() {
            task.abort();
        }
    }
}

/// Serves a [`Server`] over Streamable HTTP.
#[derive(Clone)]
pub struct StreamableHttpServer {
    state: Arc<HttpState>,
}

impl std::fmt::Debug for StreamableHttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamableHttpServer").field("options", &self.state.options).finish()
    }
}

impl StreamableHttpServer {
    /// Creates an HTTP front for `server`, checking hosts against `options` (or the loopback
    /// names on any port when no list is given).
    pub fn new(server: Server, options: HttpServerOptions) -> Self {
        Self::with_backend(Backend::Server(server), options)
    }

    /// Creates an HTTP front for the server `relay` connects to, one connection per HTTP
    /// session and one shared by the requests of no session, with everything the front of a
    /// [`Server`] has (host and origin checks, authorization, sessions bound to their
    /// identity, idle sessions ended, resumable streams).
    ///
    /// In a cluster ([`HttpServerOptions::with_cluster`]) a relayed session stays in the
    /// process that holds its connection: the others forward its client's messages to that
    /// process and read the answers from Redis, and once that process is gone the session is
    /// too (404, so that the client initializes again). Requests of no session are relayed by
    /// each process to a connection of its own. It does not fail today; the `Result` leaves room
    /// for options a relayed server cannot honour.
    pub fn relay(relay: Arc<dyn Relay>, options: HttpServerOptions) -> Result<Self, Error> {
        Ok(Self::with_backend(Backend::Relay(relay::RelayBackend::new(relay)), options))
    }

    fn with_backend(backend: Backend, options: HttpServerOptions) -> Self {
        let host_check = HostCheck::new(&options);
        let budget =
            options.max_buffered_body_bytes.max(options.max_body_size).min(tokio::sync::Semaphore::MAX_PERMITS);
        StreamableHttpServer {
            state: Arc::new(HttpState {
                backend,
                options,
                body_budget: tokio::sync::Semaphore::new(budget),
                host_check,
                sessions: Mutex::default(),
                stopping: CancellationToken::new(),
                sweeper: Mutex::default(),
                #[cfg(feature = "redis")]
                cluster: tokio::sync::OnceCell::new(),
            }),
        }
    }

    /// Returns a router serving the MCP endpoint at the configured path, to mount or merge
    /// into an axum application.
    pub fn router(&self) -> Router {
        let router = Router::new().route(&self.state.options.path, any(handle::<Body>)).with_state(self.state.clone());
        #[cfg(feature = "auth")]
        if let Some(auth) = &self.state.options.auth {
            return router.merge(super::auth::metadata_routes(auth));
        }
        router
    }

    /// Returns the number of live sessions.
    pub fn session_count(&self) -> usize {
        lock(&self.state.sessions).len()
    }

    /// Binds `addr` and serves in the background; hosts default to the loopback names on any
    /// port, so that a reverse proxy on the same machine that keeps its own `Host` reaches it.
    ///
    /// Each connection must send a request's headers within
    /// [`HttpServerOptions::header_read_timeout`] (idle kept-alive connections too), and at most
    /// [`HttpServerOptions::max_connections`] are open at once.
    ///
    /// An address other than loopback is refused with [`Error::Config`] unless the server is
    /// protected ([`HttpServerOptions::with_auth`]) or
    /// [`HttpServerOptions::allow_remote_without_auth`] is set, in which case a warning is
    /// logged; it also needs [`HttpServerOptions::with_allowed_hosts`], since the default hosts
    /// are loopback names. An address in use is an [`Error::Io`] that names it.
    pub async fn bind(server: Server, addr: SocketAddr, options: HttpServerOptions) -> Result<BoundHttpServer, Error> {
        Self::bind_backend(Self::new(server, options), addr).await
    }

    /// Binds `addr` and serves the server `relay` connects to in the background, as
    /// [`StreamableHttpServer::bind`] serves a [`Server`] (with the same checks of the
    /// address) and [`StreamableHttpServer::relay`] describes.
    pub async fn bind_relay(
        relay: Arc<dyn Relay>,
        addr: SocketAddr,
        options: HttpServerOptions,
    ) -> Result<BoundHttpServer, Error> {
        Self::bind_backend(Self::relay(relay, options)?, addr).await
    }

    async fn bind_backend(http: Self, addr: SocketAddr) -> Result<BoundHttpServer, Error> {
        let options = &http.state.options;
        if !addr.ip().is_loopback() && !options.has_auth() {
            if !options.allow_remote_without_auth {
                return Err(Error::Config(format!(
                    "binding {addr} without authorization lets anyone who reaches it use the server; \
                     protect it or allow this explicitly with allow_remote_without_auth"
                )));
            }
            tracing::warn!(target: LOG_TARGET, %addr, "the MCP server is reachable beyond this machine without authorization");
        }
        if !addr.ip().is_loopback() && options.allowed_hosts.is_none() {
            return Err(Error::Config(format!(
                "binding {addr} with the default allowed hosts (loopback names) would refuse every client that \
                 reaches it by another name: set the allowed hosts (allowed_hosts, allowedHosts) to the names \
                 clients use, such as [\"mcp.example.com\", \"mcp.example.com:{}\"]",
                addr.port()
            )));
        }
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| Error::Io(std::io::Error::new(e.kind(), format!("could not listen on {addr}: {e}"))))?;
        let local_addr = listener.local_addr()?;
        let limits = ConnectionLimits {
            header_read_timeout: options.header_read_timeout,
            max_connections: options.max_connections.unwrap_or_else(default_max_connections),
        };
        let endpoint = Endpoint { state: http.state.clone(), router: http.router() };
        let shutdown = CancellationToken::new();
        let task = tokio::spawn(serve_connections(listener, endpoint, limits, shutdown.clone()));
        Ok(BoundHttpServer { local_addr, shutdown, task, http })
    }
}

/// A Streamable HTTP server bound to its own listener.
#[derive(Debug)]
pub struct BoundHttpServer {
    local_addr: SocketAddr,
    shutdown: CancellationToken,
    task: JoinHandle<()>,
    http: StreamableHttpServer,
}

impl BoundHttpServer {
    /// Returns the address the server listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Returns the URL of the MCP endpoint.
    pub fn url(&self) -> String {
        format!("http://{}{}", self.local_addr, self.http.state.options.path)
    }

    /// Returns the HTTP front, for instance to count sessions.
    pub fn http(&self) -> &StreamableHttpServer {
        &self.http
    }

    /// Serves until the task ends (it ends after [`BoundHttpServer::shutdown`]).
    pub async fn wait(self) {
        let _ = self.task.await;
    }

    /// Stops accepting connections, ends every session and waits for the server to stop.
    pub async fn shutdown(self) {
        self.shutdown.cancel();
        self.http.state.stopping.cancel();
        let sessions: Vec<_> = lock(&self.http.state.sessions).drain().map(|(_, s)| s).collect();
        for session in sessions {
            session.end();
        }
        let _ = self.task.await;
    }
}

/// Serves one request of the MCP endpoint: checks its Host and Origin, its protocol version and
/// its token, then hands it to the handler of its method.
async fn handle<B>(State(state): State<Arc<HttpState>>, request: http::Request<B>) -> Response
where
    B: HttpBody<Data = Bytes>,
{
    let (parts, body) = request.into_parts();
    let sent = RequestHeaders::read(&parts.headers);
    if !state.host_check.host_allowed(sent.host) {
        state.host_check.log_refusal("Host", sent.host);
        return error_response(StatusCode::FORBIDDEN, -32600, "Forbidden: invalid Host header");
    }
    if !state.host_check.origin_allowed(sent.origin) {
        state.host_check.log_refusal("Origin", sent.origin);
        return error_response(StatusCode::FORBIDDEN, -32600, "Forbidden: invalid Origin header");
    }
    // A POST names its request's id in the answer, once its body is read.
    if let Some(version) = sent.protocol_version
        && !ALL_PROTOCOL_VERSIONS.contains(&version)
        && parts.method != Method::POST
    {
        return unsupported_version_header(version, None);
    }
    let caller = match state.authenticate(&parts.headers).await {
        Ok(caller) => caller,
        Err(response) => return response,
    };
    #[cfg(feature = "redis")]
    if state.options.stateful
        && let Err(response) = cluster_glue::connect(&state).await
    {
        return response;
    }
    match parts.method {
        Method::POST => post(state, &parts.headers, &sent, body, caller).await,
        Method::GET => get(state, &sent, &caller).await,
        Method::DELETE => delete(state, &sent, &caller).await,
        _ => method_not_allowed(),
    }
}

/// The answer to a method the endpoint does not serve, or does not serve in this mode.
fn method_not_allowed() -> Response {
    let mut response = error_response(StatusCode::METHOD_NOT_ALLOWED, -32000, "Method not allowed");
    response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
    response
}
