//! The settings of a Streamable HTTP server, with their defaults and builders.

use std::{sync::Arc, time::Duration};

#[cfg(feature = "redis")]
use crate::http::ClusterOptions;

#[cfg(doc)]
use super::StreamableHttpServer;
use super::{EventStore, InMemoryEventStore};

/// Settings of a Streamable HTTP server.
///
/// Build them with [`HttpServerOptions::new`] and the `with_*` methods; fields may be added in
/// later versions.
#[derive(Clone)]
#[non_exhaustive]
pub struct HttpServerOptions {
    /// The path of the MCP endpoint.
    pub path: String,
    /// Accepted `Host` header values (`name:port`); `None` means the loopback names
    /// (`localhost`, `127.0.0.1`, `[::1]`) with any port or none, so that a reverse proxy or
    /// balancer on the same machine reaches the server while the names a DNS rebinding attack
    /// would send are refused.
    pub allowed_hosts: Option<Vec<String>>,
    /// Accepted `Origin` header values; `None` means the `http://` and `https://` origins of
    /// the allowed hosts (with any port for the loopback names). A request without an `Origin`
    /// header is always accepted.
    pub allowed_origins: Option<Vec<String>>,
    /// Whether a request whose handler sends nothing before its result gets a plain JSON
    /// reply; when false every request gets an SSE stream.
    pub json_response: bool,
    /// Whether sessions are kept (with `Mcp-Session-Id`); when false every POST stands alone.
    pub stateful: bool,
    /// How long a session may stay unused before it is ended.
    pub session_idle_timeout: Duration,
    /// The largest request body accepted, in bytes.
    pub max_body_size: usize,
    /// How many bytes of request bodies still arriving the server holds at once, all
    /// connections together (at least [`HttpServerOptions::max_body_size`]); a body that would
    /// go past it is answered `503 Service Unavailable`. A body that arrives in one piece, as a
    /// small one does, is not counted. 64 MiB by default.
    pub max_buffered_body_bytes: usize,
    /// The reconnection delay announced in each SSE stream's first event.
    pub sse_retry: Duration,
    /// How often an idle SSE stream gets a comment to keep proxies from closing it.
    pub keep_alive: Option<Duration>,
    /// Where SSE events are kept for clients that reconnect.
    pub event_store: Arc<dyn EventStore>,
    /// How long a client may take to send a request's headers, and how long a kept-alive
    /// connection may wait for its next request; `None` waits for ever. Applies to servers
    /// started with [`StreamableHttpServer::bind`], which close such a connection between this
    /// and a quarter more after its last request ended. 30 seconds by default.
    pub header_read_timeout: Option<Duration>,
    /// How long a client may take to send a request's body once its headers came; past it the
    /// request is answered `408 Request Timeout`. 30 seconds by default.
    pub body_read_timeout: Duration,
    /// How many connections a server started with [`StreamableHttpServer::bind`] keeps open at
    /// once; a connection past it takes the place of one that handles no request (kept alive
    /// between requests, or silent since it opened), which is closed, and is answered
    /// `503 Service Unavailable` when every connection is busy. `None` (the default) means three quarters of the process's
    /// open-file limit when the server binds, at most 65,536; on Windows, which has no such
    /// limit to read, a fixed 16,384.
    pub max_connections: Option<usize>,
    /// How many events an SSE stream holds for a client that reads slowly; past it the stream
    /// is closed and the client resumes it from the event store with `Last-Event-ID`. 256 by
    /// default.
    pub max_queued_events: usize,
    /// The authorization settings: when set, every request needs a bearer token that their
    /// verifier accepts. `None` (the default) serves without authorization.
    #[cfg(feature = "auth")]
    pub auth: Option<crate::auth::ResourceServerOptions>,
    /// Whether [`StreamableHttpServer::bind`] may bind an address other than loopback without
    /// authorization; false by default, and a warning is logged when it does.
    pub allow_remote_without_auth: bool,
    /// Whether a request's `MCP-Protocol-Version` header, when present, must be the version its
    /// session negotiated (`400 Bad Request` otherwise). True by default; when false any
    /// supported version is accepted, for clients that send a stale one.
    pub require_negotiated_version: bool,
    /// Where the sessions are shared with other server processes: with it set, any process of
    /// the cluster serves any request of any session (see [`ClusterOptions`]). `None` (the
    /// default) keeps every session in this process.
    #[cfg(feature = "redis")]
    pub cluster: Option<ClusterOptions>,
}

/// The default of [`HttpServerOptions::header_read_timeout`] and
/// [`HttpServerOptions::body_read_timeout`]: 30 seconds.
pub const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// The default of [`HttpServerOptions::max_queued_events`]: 256.
pub const DEFAULT_MAX_QUEUED_EVENTS: usize = 256;

impl Default for HttpServerOptions {
    fn default() -> Self {
        HttpServerOptions {
            path: "/mcp".to_owned(),
            allowed_hosts: None,
            allowed_origins: None,
            json_response: true,
            stateful: true,
            session_idle_timeout: Duration::from_secs(30 * 60),
            max_body_size: 4 * 1024 * 1024,
            max_buffered_body_bytes: 64 * 1024 * 1024,
            sse_retry: Duration::from_millis(1000),
            keep_alive: Some(Duration::from_secs(15)),
            event_store: Arc::new(InMemoryEventStore::default()),
            header_read_timeout: Some(DEFAULT_READ_TIMEOUT),
            body_read_timeout: DEFAULT_READ_TIMEOUT,
            max_connections: None,
            max_queued_events: DEFAULT_MAX_QUEUED_EVENTS,
            #[cfg(feature = "auth")]
            auth: None,
            allow_remote_without_auth: false,
            require_negotiated_version: true,
            #[cfg(feature = "redis")]
            cluster: None,
        }
    }
}

impl HttpServerOptions {
    /// Creates the default settings: the endpoint `/mcp`, loopback hosts and origins only,
    /// stateful sessions ended after 30 idle minutes, JSON replies when possible, bodies up to
    /// 4 MiB read within 30 seconds, events kept in memory, 256 events queued per stream, and
    /// connections limited below the open-file limit (16,384 on Windows).
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the path of the MCP endpoint.
    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// Sets the accepted `Host` header values (`name:port`) instead of the loopback names.
    pub fn with_allowed_hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.allowed_hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }

    /// Sets the accepted `Origin` header values instead of the loopback origins.
    pub fn with_allowed_origins(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.allowed_origins = Some(origins.into_iter().map(Into::into).collect());
        self
    }

    /// Sets whether a request whose handler sends nothing before its result gets a plain JSON
    /// reply.
    pub fn with_json_response(mut self, json_response: bool) -> Self {
        self.json_response = json_response;
        self
    }

    /// Sets whether sessions are kept.
    pub fn with_stateful(mut self, stateful: bool) -> Self {
        self.stateful = stateful;
        self
    }

    /// Sets how long a session may stay unused before it is ended.
    pub fn with_session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// Sets the largest request body accepted, in bytes.
    pub fn with_max_body_size(mut self, bytes: usize) -> Self {
        self.max_body_size = bytes;
        self
    }

    /// Sets how many bytes of request bodies still arriving the server holds at once, all
    /// connections together; it is never less than the largest body accepted.
    pub fn with_max_buffered_body_bytes(mut self, bytes: usize) -> Self {
        self.max_buffered_body_bytes = bytes;
        self
    }

    /// Sets the reconnection delay announced in each SSE stream's first event.
    pub fn with_sse_retry(mut self, delay: Duration) -> Self {
        self.sse_retry = delay;
        self
    }

    /// Sets how often an idle SSE stream gets a keep-alive comment; `None` sends none.
    pub fn with_keep_alive(mut self, interval: Option<Duration>) -> Self {
        self.keep_alive = interval;
        self
    }

    /// Sets where SSE events are kept for clients that reconnect.
    pub fn with_event_store(mut self, store: Arc<dyn EventStore>) -> Self {
        self.event_store = store;
        self
    }

    /// Sets how long a client may take to send a request's headers, and how long a kept-alive
    /// connection may stay idle; `None` waits for ever.
    pub fn with_header_read_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.header_read_timeout = timeout;
        self
    }

    /// Sets how long a client may take to send a request's body.
    pub fn with_body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }

    /// Sets how many connections a bound server keeps open at once (at least 1).
    pub fn with_max_connections(mut self, connections: usize) -> Self {
        self.max_connections = Some(connections.max(1));
        self
    }

    /// Sets how many events an SSE stream holds for a client that reads slowly (at least 1).
    pub fn with_max_queued_events(mut self, events: usize) -> Self {
        self.max_queued_events = events.max(1);
        self
    }

    /// Protects the server: every request needs a bearer token that `auth`'s verifier
    /// accepts, and the Protected Resource Metadata document is served at its well-known path.
    #[cfg(feature = "auth")]
    pub fn with_auth(mut self, auth: crate::auth::ResourceServerOptions) -> Self {
        self.auth = Some(auth);
        self
    }

    /// Lets [`StreamableHttpServer::bind`] bind an address other than loopback without
    /// authorization, which anyone who reaches the address can then use.
    pub fn with_allow_remote_without_auth(mut self, allow: bool) -> Self {
        self.allow_remote_without_auth = allow;
        self
    }

    /// Returns whether the settings protect the server with authorization.
    pub(super) fn has_auth(&self) -> bool {
        #[cfg(feature = "auth")]
        return self.auth.is_some();
        #[cfg(not(feature = "auth"))]
        false
    }

    /// Sets whether a request's `MCP-Protocol-Version` header must be the version its session
    /// negotiated; when false any supported version is accepted.
    pub fn with_require_negotiated_version(mut self, required: bool) -> Self {
        self.require_negotiated_version = required;
        self
    }

    /// Shares the sessions, their events and the routing of messages with the other processes
    /// that use the same Redis, so that a load balancer without session affinity can spread a
    /// session's requests over all of them.
    #[cfg(feature = "redis")]
    pub fn with_cluster(mut self, cluster: ClusterOptions) -> Self {
        self.cluster = Some(cluster);
        self
    }
}

impl std::fmt::Debug for HttpServerOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut f = f.debug_struct("HttpServerOptions");
        f.field("path", &self.path)
            .field("allowed_hosts", &self.allowed_hosts)
            .field("allowed_origins", &self.allowed_origins)
            .field("json_response", &self.json_response)
            .field("stateful", &self.stateful)
            .field("session_idle_timeout", &self.session_idle_timeout)
            .field("max_body_size", &self.max_body_size)
            .field("sse_retry", &self.sse_retry)
            .field("keep_alive", &self.keep_alive)
            .field("header_read_timeout", &self.header_read_timeout)
            .field("body_read_timeout", &self.body_read_timeout)
            .field("max_connections", &self.max_connections)
            .field("max_queued_events", &self.max_queued_events)
            .field("auth", &self.has_auth())
            .field("allow_remote_without_auth", &self.allow_remote_without_auth)
            .field("require_negotiated_version", &self.require_negotiated_version);
        #[cfg(feature = "redis")]
        f.field("cluster", &self.cluster);
        f.finish_non_exhaustive()
    }
}
