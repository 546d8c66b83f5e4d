//! Streamable HTTP for bridge servers: a server bound to its own port, or an endpoint that a
//! host application's own HTTP server feeds with the exchanges it receives.

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use axum::body::Body;
use http_body_util::BodyExt;
use mcpweft::http::{BoundHttpServer, HttpServerOptions, InMemoryEventStore, StreamableHttpServer};
use serde::Deserialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use crate::{Callback, Error, Server, Task, server::parse};

/// The settings of a Streamable HTTP server, as JSON.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct HttpSpec {
    host: Option<String>,
    port: Option<u16>,
    path: Option<String>,
    allowed_hosts: Option<Vec<String>>,
    allowed_origins: Option<Vec<String>>,
    json_response: Option<bool>,
    stateful: Option<bool>,
    session_idle_timeout_ms: Option<u64>,
    max_body_size: Option<usize>,
    max_buffered_body_bytes: Option<usize>,
    sse_retry_ms: Option<u64>,
    keep_alive_ms: Option<u64>,
    event_store_capacity: Option<usize>,
    auth: Option<Value>,
    allow_remote_without_auth: Option<bool>,
    header_read_timeout_ms: Option<u64>,
    body_read_timeout_ms: Option<u64>,
    max_connections: Option<usize>,
    max_queued_events: Option<usize>,
    require_negotiated_version: Option<bool>,
    cluster: Option<ClusterSpec>,
}

/// The cluster settings of a Streamable HTTP server, as JSON; a build without the `redis`
/// feature reads them only to refuse them.
#[derive(Deserialize)]
#[cfg_attr(not(feature = "redis"), allow(dead_code))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ClusterSpec {
    url: String,
    prefix: Option<String>,
    max_events_per_stream: Option<usize>,
    liveness_ttl_ms: Option<u64>,
    command_timeout_ms: Option<u64>,
}

impl ClusterSpec {
    /// Puts the sessions of `options` in the Redis these settings name.
    #[cfg(feature = "redis")]
    fn apply(&self, options: HttpServerOptions) -> Result<HttpServerOptions, Error> {
        let mut cluster = mcpweft::http::ClusterOptions::new(self.url.clone());
        if let Some(prefix) = &self.prefix {
            cluster = cluster.with_prefix(prefix.clone());
        }
        if let Some(events) = self.max_events_per_stream {
            cluster = cluster.with_max_events_per_stream(events);
        }
        if let Some(ms) = self.liveness_ttl_ms {
            cluster = cluster.with_liveness_ttl(Duration::from_millis(ms));
        }
        if let Some(ms) = self.command_timeout_ms {
            cluster = cluster.with_command_timeout(Duration::from_millis(ms));
        }
        Ok(options.with_cluster(cluster))
    }

    /// Refuses cluster settings in a build without the `redis` feature.
    #[cfg(not(feature = "redis"))]
    fn apply(&self, _: HttpServerOptions) -> Result<HttpServerOptions, Error> {
        Err(Error::invalid_input("the cluster option needs a build with the `redis` feature"))
    }
}

impl HttpSpec {
    fn parse(value: Value) -> Result<HttpSpec, Error> {
        match value {
            Value::Null => Ok(HttpSpec::default()),
            other => parse(other, "HTTP options"),
        }
    }

    /// Builds the core's options; `verifier` checks the bearer tokens of a protected server.
    fn options(&self, verifier: Option<Arc<dyn Callback>>) -> Result<HttpServerOptions, Error> {
        let mut options = HttpServerOptions::default();
        match (&self.auth, verifier) {
            (Some(auth), verifier) => {
                options = options.with_auth(crate::auth::resource_options(auth.clone(), verifier)?)
            }
            (None, Some(_)) => return Err(Error::invalid_input("a token verifier needs the auth options")),
            (None, None) => {}
        }
        if let Some(allow) = self.allow_remote_without_auth {
            options = options.with_allow_remote_without_auth(allow);
        }
        if let Some(path) = &self.path {
            options.path = if path.starts_with('/') { path.clone() } else { format!("/{path}") };
        }
        options.allowed_hosts.clone_from(&self.allowed_hosts);
        options.allowed_origins.clone_from(&self.allowed_origins);
        if let Some(json) = self.json_response {
            options.json_response = json;
        }
        if let Some(stateful) = self.stateful {
            options.stateful = stateful;
        }
        if let Some(ms) = self.session_idle_timeout_ms {
            options.session_idle_timeout = Duration::from_millis(ms);
        }
        if let Some(size) = self.max_body_size {
            options.max_body_size = size;
        }
        if let Some(bytes) = self.max_buffered_body_bytes {
            options.max_buffered_body_bytes = bytes;
        }
        if let Some(ms) = self.sse_retry_ms {
            options.sse_retry = Duration::from_millis(ms);
        }
        if let Some(ms) = self.keep_alive_ms {
            options.keep_alive = (ms > 0).then(|| Duration::from_millis(ms));
        }
        if let Some(capacity) = self.event_store_capacity {
            options.event_store = Arc::new(InMemoryEventStore::new(capacity));
        }
        if let Some(ms) = self.header_read_timeout_ms {
            options.header_read_timeout = (ms > 0).then(|| Duration::from_millis(ms));
        }
        if let Some(ms) = self.body_read_timeout_ms {
            options.body_read_timeout = Duration::from_millis(ms);
        }
        if let Some(n) = self.max_connections {
            options.max_connections = Some(n);
        }
        if let Some(n) = self.max_queued_events {
            options.max_queued_events = n.max(1);
        }
        if let Some(require) = self.require_negotiated_version {
            options.require_negotiated_version = require;
        }
        if let Some(cluster) = &self.cluster {
            options = cluster.apply(options)?;
        }
        Ok(options)
    }
}

/// A Streamable HTTP server bound to its own port.
#[derive(Debug)]
pub struct HttpServer {
    url: String,
    bound: Mutex<Option<BoundHttpServer>>,
    closed: CancellationToken,
}

impl HttpServer {
    /// Returns the URL of the MCP endpoint, such as `http://127.0.0.1:8000/mcp`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Stops accepting connections and ends every session; closing again does nothing.
    pub fn close(&self) -> Task<()> {
        let bound = self.bound.lock().unwrap_or_else(|e| e.into_inner()).take();
        let closed = self.closed.clone();
        Task::new(async move {
            if let Some(bound) = bound {
                bound.shutdown().await;
            }
            closed.cancel();
            Ok(())
        })
    }

    /// Returns a task that finishes when the server is closed.
    pub fn wait(&self) -> Task<()> {
        let closed = self.closed.clone();
        Task::new(async move {
            closed.cancelled().await;
            Ok(())
        })
    }
}

impl Server {
    /// Serves Streamable HTTP on its own port and returns the running server.
    ///
    /// `options` is `null` or a JSON object with `host` (default `127.0.0.1`), `port` (`0`
    /// picks a free one; default 8000), `path` (`/mcp`), `allowedHosts`, `allowedOrigins`
    /// (default: loopback names on any port), `jsonResponse` (`true`), `stateful`
    /// (`true`), `sessionIdleTimeoutMs`, `maxBodySize`, `maxBufferedBodyBytes` (request bodies
    /// still arriving, all connections together), `sseRetryMs`, `keepAliveMs` (`0`
    /// turns keep-alive comments off), `eventStoreCapacity` (events kept per session for
    /// resumption), `headerReadTimeoutMs` (`0` turns it off), `bodyReadTimeoutMs`,
    /// `maxConnections`, `maxQueuedEvents` (per SSE stream) and `requireNegotiatedVersion`;
    /// the README's table of limits gives the defaults. `cluster` (builds with the feature
    /// `redis`) shares the sessions with other processes through Redis: an object with `url`,
    /// `prefix` (of keys and channels, `mcpweft`), `maxEventsPerStream` (1024), `livenessTtlMs`
    /// (5000) and `commandTimeoutMs` (2000).
    ///
    /// `auth` protects the server: an object with `resource` (the server's canonical URL),
    /// `authorizationServers`, `requiredScopes`, `scopesSupported`, `methodScopes` and
    /// `toolScopes` (objects of scope lists), `resourceName`, `leewayMs`, and `jwt` (the
    /// built-in verifier: `issuer`, one of `jwksUrl` and `jwks`, `audience` (default
    /// `resource`), `requiredScopes`, `leewayMs`, `refreshIntervalMs`); see
    /// [`Server::serve_http_with_verifier`] for a verifier of one's own.
    /// `allowRemoteWithoutAuth` lets an unprotected server bind beyond loopback.
    pub fn serve_http(&self, options: Value) -> Task<HttpServer> {
        self.serve_http_verified(options, None)
    }

    /// Serves Streamable HTTP like [`Server::serve_http`], protected by the `auth` options,
    /// with bearer tokens checked by `verifier`: its payload is `{"token"}`, and it returns the
    /// caller's identity (`subject`, `clientId`, `issuer`, `audience`, `scopes`, `expiresAt`,
    /// `claims`), or `null` or an error to refuse the token. Handlers see the identity in
    /// [`Context::auth`](crate::Context::auth).
    pub fn serve_http_with_verifier(&self, options: Value, verifier: Arc<dyn Callback>) -> Task<HttpServer> {
        self.serve_http_verified(options, Some(verifier))
    }

    fn serve_http_verified(&self, options: Value, verifier: Option<Arc<dyn Callback>>) -> Task<HttpServer> {
        let server = self.inner.clone();
        Task::new(async move {
            let spec = HttpSpec::parse(options)?;
            let host = spec.host.clone().unwrap_or_else(|| "127.0.0.1".to_owned());
            let port = spec.port.unwrap_or(8000);
            let addr = tokio::net::lookup_host((host.as_str(), port))
                .await
                .map_err(|e| Error::from(mcpweft::Error::Io(e)))?
                .next()
                .ok_or_else(|| Error::invalid_input(format!("{host} resolves to no address")))?;
            let bound = StreamableHttpServer::bind(server, addr, spec.options(verifier)?).await?;
            Ok(HttpServer { url: bound.url(), bound: Mutex::new(Some(bound)), closed: CancellationToken::new() })
        })
    }

    /// Returns an endpoint that answers HTTP exchanges a host application's own server
    /// receives (Node's `http`, an ASGI app), doing all protocol work itself.
    ///
    /// `options` takes the keys of [`Server::serve_http`] except `host` and `port`; hosts
    /// and origins default to the loopback names on any port.
    pub fn http_endpoint(&self, options: Value) -> Result<HttpEndpoint, Error> {
        self.http_endpoint_verified(options, None)
    }

    /// Returns an endpoint like [`Server::http_endpoint`], protected by the `auth` options,
    /// with bearer tokens checked by `verifier` as in [`Server::serve_http_with_verifier`].
    pub fn http_endpoint_with_verifier(
        &self,
        options: Value,
        verifier: Arc<dyn Callback>,
    ) -> Result<HttpEndpoint, Error> {
        self.http_endpoint_verified(options, Some(verifier))
    }

    fn http_endpoint_verified(
        &self,
        options: Value,
        verifier: Option<Arc<dyn Callback>>,
    ) -> Result<HttpEndpoint, Error> {
        let spec = HttpSpec::parse(options)?;
        let options = spec.options(verifier)?;
        let path = options.path.clone();
        let http = StreamableHttpServer::new(self.inner.clone(), options);
        let router = http.router().fallback(move |uri: http::Uri| {
            let path = path.clone();
            async move { not_served(&path, &uri) }
        });
        Ok(HttpEndpoint { router })
    }
}

/// The answer of an endpoint to a request for another path than its own: 404 with a JSON-RPC
/// error that says which path it serves, since the host application routed the request to it
/// (an empty 404 leaves a user who mounted it elsewhere guessing).
fn not_served(path: &str, uri: &http::Uri) -> axum::response::Response {
    let message = format!(
        "this MCP endpoint serves the path {path}, not {}: send requests to {path}, or set the endpoint's \
         `path` option to the path the application routes to it",
        uri.path()
    );
    let body = serde_json::json!({ "jsonrpc": "2.0", "id": null, "error": { "code": -32600, "message": message } });
    let mut response = axum::response::IntoResponse::into_response(axum::Json(body));
    *response.status_mut() = http::StatusCode::NOT_FOUND;
    response
}

/// One HTTP request handed to an [`HttpEndpoint`].
#[derive(Debug, Clone, Default)]
pub struct HttpRequest {
    /// The method, such as `POST`.
    pub method: String,
    /// The path and query, such as `/mcp`.
    pub uri: String,
    /// The header lines, in order; a name may repeat.
    pub headers: Vec<(String, String)>,
    /// The whole body.
    pub body: Vec<u8>,
}

/// The answer of an [`HttpEndpoint`]: status and headers at once, the body as a stream.
#[derive(Debug)]
pub struct HttpResponse {
    /// The status code.
    pub status: u16,
    /// The header lines, in order.
    pub headers: Vec<(String, String)>,
    /// The body, read chunk by chunk; an SSE stream stays open while events may come.
    pub body: ResponseBody,
}

/// The body of an [`HttpResponse`]. Dropping it tells the server that the client went away.
#[derive(Debug, Clone)]
pub struct ResponseBody {
    body: Arc<tokio::sync::Mutex<Option<Body>>>,
}

impl ResponseBody {
    /// Returns a task of the next chunk, or of `None` once the body ended.
    pub fn next_chunk(&self) -> Task<Option<Vec<u8>>> {
        let body = self.body.clone();
        Task::new(async move {
            let mut slot = body.lock().await;
            let Some(stream) = slot.as_mut() else { return Ok(None) };
            loop {
                match stream.frame().await {
                    None => {
                        *slot = None;
                        return Ok(None);
                    }
                    Some(Err(e)) => {
                        *slot = None;
                        return Err(Error::internal(format!("the response body failed: {e}")));
                    }
                    Some(Ok(frame)) => {
                        if let Ok(data) = frame.into_data() {
                            return Ok(Some(data.to_vec()));
                        }
                    }
                }
            }
        })
    }

    /// Ends the body early, as when the client disconnected.
    pub fn close(&self) {
        if let Ok(mut slot) = self.body.try_lock() {
            *slot = None;
        } else {
            let body = self.body.clone();
            Task::new(async move {
                *body.lock().await = None;
                Ok(())
            })
            .on_complete(drop);
        }
    }
}

/// A Streamable HTTP endpoint without a listener of its own.
#[derive(Debug, Clone)]
pub struct HttpEndpoint {
    router: axum::Router,
}

impl HttpEndpoint {
    /// Answers one exchange.
    pub fn handle(&self, request: HttpRequest) -> Task<HttpResponse> {
        let router = self.router.clone();
        Task::new(async move {
            let mut builder = http::Request::builder().method(request.method.as_str()).uri(request.uri.as_str());
            for (name, value) in &request.headers {
                builder = builder.header(name.as_str(), value.as_str());
            }
            let request = builder
                .body(Body::from(request.body))
                .map_err(|e| Error::invalid_input(format!("invalid HTTP request: {e}")))?;
            let Ok(response) = router.oneshot(request).await;
            let (parts, body) = response.into_parts();
            let headers = parts
                .headers
                .iter()
                .map(|(name, value)| (name.as_str().to_owned(), String::from_utf8_lossy(value.as_bytes()).into_owned()))
                .collect();
            let body = ResponseBody { body: Arc::new(tokio::sync::Mutex::new(Some(body))) };
            Ok(HttpResponse { status: parts.status.as_u16(), headers, body })
        })
    }
}
