//! The Streamable HTTP client.
//!
//! Every outgoing message is one POST to the MCP endpoint. The server answers a request with a
//! single JSON message or with an event stream that carries the response (and whatever the
//! server sends first); notifications and responses are acknowledged with 202. The client
//! keeps the session id and the negotiated protocol version the `initialize` exchange yields and
//! sends both on every later HTTP request, resumes broken event streams with `Last-Event-ID`,
//! re-initializes when the server forgets the session, opens the optional GET stream for
//! server-initiated messages, and falls back to the deprecated HTTP+SSE transport of protocol
//! 2024-11-05 when the endpoint refuses the initialize POST.

use std::{
    collections::HashMap,
    fmt, io,
    net::{Ipv4Addr, Ipv6Addr, SocketAddr},
    sync::{Arc, Mutex},
    time::Duration,
};

use async_trait::async_trait;
use reqwest::{
    RequestBuilder, Response, StatusCode,
    header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue},
};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use url::{Host, Url};

use super::sse::{SseEvent, SseStream};
use crate::{
    Error,
    jsonrpc::{ErrorData, JsonRpcMessage, RequestId},
    model::methods,
    sync::lock,
    transport::{Inbound, Outbound, Transport, TransportReader, TransportWriter},
};

/// The `Accept` header of every POST: the server may answer with JSON or an event stream.
const ACCEPT_POST: &str = "application/json, text/event-stream";
/// The media type of an event stream.
const EVENT_STREAM: &str = "text/event-stream";
/// The media type of a JSON body.
const JSON: &str = "application/json";
/// The header that carries the session id.
const SESSION_ID: &str = "mcp-session-id";
/// The header that carries the negotiated protocol version.
const PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// The header that resumes an event stream.
const LAST_EVENT_ID: &str = "last-event-id";
/// The most reconnections of one event stream, however many events each one brings.
const MAX_RECONNECTIONS: u32 = 1000;
/// How long a default client waits for a TCP connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the client waits for the server to answer the GET that opens the standalone stream.
const GET_STREAM_OPEN_WAIT: Duration = Duration::from_secs(2);
/// The longest wait for the answer to the closing DELETE.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(5);
/// How many characters of an HTTP error body go into the error message.
const ERROR_EXCERPT: usize = 200;
/// How many received messages wait for the session to take them; beyond it the transport stops
/// reading the server's replies and streams until it does, so a server that floods a slow
/// client fills TCP buffers, not the client's memory.
const INBOUND_CAPACITY: usize = 256;

/// Settings of a [`StreamableHttpClientTransport`].
///
/// Build them with [`HttpClientOptions::new`] and the `with_*` methods; fields may be added in
/// later versions.
#[derive(Clone)]
#[non_exhaustive]
pub struct HttpClientOptions {
    /// Headers added to every HTTP request, such as `Authorization: Bearer …`.
    pub headers: HeaderMap,
    /// How long to wait for the response headers of one HTTP request, and for the whole body
    /// of a JSON reply.
    ///
    /// A server that answers with an event stream may then take as long as it needs; the
    /// session's own request time-outs bound the wait for each response. This also bounds the
    /// whole `initialize` exchange. The default is 60 seconds.
    pub request_timeout: Duration,
    /// The HTTP client to use instead of the default one.
    ///
    /// The default client connects `localhost` to the IPv4 loopback address first and uses no
    /// proxy for loopback endpoints.
    pub client: Option<reqwest::Client>,
    /// Whether to open the optional GET event stream for server-initiated messages once the
    /// session is initialized; true by default.
    pub open_get_stream: bool,
    /// How many reconnections of a broken event stream in a row may bring no event before the
    /// client gives up on it; 5 by default.
    pub max_retries: u32,
    /// How long to wait before reconnecting an event stream whose server sent no `retry`
    /// field; 1 second by default.
    pub default_retry: Duration,
    /// Whether to try the deprecated HTTP+SSE transport (protocol 2024-11-05) when the
    /// endpoint answers the initialize POST with 400, 404 or 405; true by default.
    pub legacy_fallback: bool,
    /// Supplies bearer tokens and answers the server's `401` and `403` challenges, such as an
    /// [`OAuthClient`](crate::auth::OAuthClient); `None` sends no token of its own.
    #[cfg(feature = "auth")]
    pub auth: Option<Arc<dyn crate::auth::AuthProvider>>,
}

impl Default for HttpClientOptions {
    fn default() -> Self {
        HttpClientOptions {
            headers: HeaderMap::new(),
            request_timeout: Duration::from_secs(60),
            client: None,
            open_get_stream: true,
            max_retries: 5,
            default_retry: Duration::from_secs(1),
            legacy_fallback: true,
            #[cfg(feature = "auth")]
            auth: None,
        }
    }
}

impl fmt::Debug for HttpClientOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Header values stay out of the output: they often hold credentials.
        let headers: Vec<&str> = self.headers.keys().map(HeaderName::as_str).collect();
        f.debug_struct("HttpClientOptions")
            .field("headers", &headers)
            .field("request_timeout", &self.request_timeout)
            .field("client", &self.client.is_some())
            .field("open_get_stream", &self.open_get_stream)
            .field("max_retries", &self.max_retries)
            .field("default_retry", &self.default_retry)
            .field("legacy_fallback", &self.legacy_fallback)
            .finish_non_exhaustive()
    }
}

impl HttpClientOptions {
    /// Creates the default options.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets what supplies bearer tokens and answers the server's challenges, such as an
    /// [`OAuthClient`](crate::auth::OAuthClient).
    #[cfg(feature = "auth")]
    pub fn with_auth(mut self, auth: Arc<dyn crate::auth::AuthProvider>) -> Self {
        self.auth = Some(auth);
        self
    }

    /// Replaces the headers added to every HTTP request.
    pub fn with_headers(mut self, headers: HeaderMap) -> Self {
        self.headers = headers;
        self
    }

    /// Adds a header to every HTTP request.
    pub fn with_header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.insert(name, value);
        self
    }

    /// Sends `Authorization: Bearer <token>` on every HTTP request.
    ///
    /// Fails when the token holds characters a header value cannot carry.
    pub fn with_bearer_token(self, token: &str) -> Result<Self, Error> {
        let mut value = HeaderValue::from_str(&format!("Bearer {token}"))
            .map_err(|e| Error::Config(format!("invalid bearer token: {e}")))?;
        value.set_sensitive(true);
        Ok(self.with_header(reqwest::header::AUTHORIZATION, value))
    }

    /// Sets how long to wait for the response headers of one HTTP request.
    pub fn with_request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Uses `client` for every HTTP request.
    ///
    /// reqwest needs a rustls crypto provider to build a client: call
    /// [`crate::install_crypto_provider`] (or install your own) before building it.
    pub fn with_client(mut self, client: reqwest::Client) -> Self {
        self.client = Some(client);
        self
    }

    /// Sets whether to open the optional GET event stream after initialization.
    pub fn with_get_stream(mut self, open: bool) -> Self {
        self.open_get_stream = open;
        self
    }

    /// Sets how many fruitless reconnections of an event stream in a row are tried.
    pub fn with_max_retries(mut self, retries: u32) -> Self {
        self.max_retries = retries;
        self
    }

    /// Sets how long to wait before reconnecting an event stream whose server sent no `retry`
    /// field.
    pub fn with_default_retry(mut self, delay: Duration) -> Self {
        self.default_retry = delay;
        self
    }

    /// Sets whether to fall back to the deprecated HTTP+SSE transport.
    pub fn with_legacy_fallback(mut self, enabled: bool) -> Self {
        self.legacy_fallback = enabled;
        self
    }
}

/// A client transport for the Streamable HTTP transport of MCP 2025-11-25.
///
/// ```no_run
/// use mcpweft::{Client, ClientOptions, transport::http::StreamableHttpClientTransport};
///
/// # async fn run() -> Result<(), mcpweft::Error> {
/// let transport = StreamableHttpClientTransport::new("http://localhost:8000/mcp")?;
/// let client = Client::connect(transport, ClientOptions::new("my-host", "1.0.0")).await?;
/// let tools = client.list_all_tools().await?;
/// client.close().await;
/// # Ok(()) }
/// ```
///
/// Requests travel concurrently, one POST each; an HTTP failure of a request reaches its caller
/// as a JSON-RPC error whose data holds the HTTP status. Closing the transport ends the session
/// on the server with an HTTP DELETE.
pub struct StreamableHttpClientTransport {
    shared: Arc<Shared>,
    inbound: mpsc::Receiver<Inbound>,
}

impl fmt::Debug for StreamableHttpClientTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamableHttpClientTransport")
            .field("url", &self.shared.url.as_str())
            .field("options", &self.shared.options)
            .finish()
    }
}

impl StreamableHttpClientTransport {
    /// Creates a transport to the MCP endpoint at `url` with the default options.
    ///
    /// Fails when `url` is not an `http` or `https` URL.
    pub fn new(url: impl AsRef<str>) -> Result<Self, Error> {
        Self::with_options(url, HttpClientOptions::default())
    }

    /// Creates a transport to the MCP endpoint at `url` with the given options.
    ///
    /// Fails when `url` is not an `http` or `https` URL, or when the default HTTP client cannot
    /// be built.
    pub fn with_options(url: impl AsRef<str>, mut options: HttpClientOptions) -> Result<Self, Error> {
        let url = url.as_ref();
        let url = Url::parse(url).map_err(|e| Error::Config(format!("invalid MCP endpoint URL {url:?}: {e}")))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(Error::Config(format!("the MCP endpoint URL {url} is not an http or https URL")));
        }
        let http = match options.client.take() {
            Some(client) => client,
            None => default_client(&url)?,
        };
        let (tx, inbound) = mpsc::channel(INBOUND_CAPACITY);
        let shared = Arc::new(Shared {
            http,
            url,
            options,
            state: Mutex::default(),
            inbound: tx,
            closed: CancellationToken::new(),
            reinit: tokio::sync::Mutex::new(()),
        });
        Ok(StreamableHttpClientTransport { shared, inbound })
    }
}

impl Transport for StreamableHttpClientTransport {
    fn split(self) -> (Box<dyn TransportWriter>, Box<dyn TransportReader>) {
        let reader = HttpReader { inbound: self.inbound, closed: self.shared.closed.clone() };
        (Box::new(HttpWriter { shared: self.shared }), Box::new(reader))
    }
}

/// Builds the default HTTP client: `localhost` means the loopback addresses, IPv4 first, and
/// loopback endpoints bypass any proxy.
fn default_client(url: &Url) -> Result<reqwest::Client, Error> {
    crate::install_crypto_provider();
    let loopback = [SocketAddr::from((Ipv4Addr::LOCALHOST, 0)), SocketAddr::from((Ipv6Addr::LOCALHOST, 0))];
    let mut builder =
        reqwest::Client::builder().connect_timeout(CONNECT_TIMEOUT).resolve_to_addrs("localhost", &loopback);
    let is_loopback = match url.host() {
        Some(Host::Domain(domain)) => domain.eq_ignore_ascii_case("localhost"),
        Some(Host::Ipv4(ip)) => ip.is_loopback(),
        Some(Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    if is_loopback {
        builder = builder.no_proxy();
    }
    builder.build().map_err(|e| Error::Io(io::Error::other(e)))
}

/// What one connection knows about its session.
#[derive(Default)]
struct State {
    /// The session id the server issued with the initialize result.
    session_id: Option<String>,
    /// The protocol version of the initialize result.
    protocol_version: Option<String>,
    /// The initialize request, replayed when the session expires.
    initialize: Option<(RequestId, JsonRpcMessage)>,
    /// The `notifications/initialized` message, replayed after the initialize request.
    initialized: Option<JsonRpcMessage>,
    /// The POST endpoint of the deprecated HTTP+SSE transport, once it is in use.
    legacy_endpoint: Option<Url>,
    /// Stops the current standalone GET stream.
    get_stream: Option<CancellationToken>,
    /// Stops the task of each request still in flight.
    inflight: HashMap<RequestId, CancellationToken>,
    /// The parameters each listed tool mirrors into `Mcp-Param-*` headers (revision
    /// 2026-07-28), learnt from the `tools/list` results this connection carried.
    tool_headers: HashMap<String, Vec<crate::model::headers::HeaderParam>>,
}

/// How many tools' header parameters a connection remembers.
const MAX_REMEMBERED_TOOLS: usize = 10_000;

/// Everything the writer, the reader and the background tasks share.
struct Shared {
    http: reqwest::Client,
    url: Url,
    options: HttpClientOptions,
    state: Mutex<State>,
    inbound: mpsc::Sender<Inbound>,
    /// Fires when the transport is closed; every background task stops.
    closed: CancellationToken,
    /// Serializes re-initializations after the session expired.
    reinit: tokio::sync::Mutex<()>,
}

/// How far an event stream has been read, for resuming it.
#[derive(Default)]
struct Cursor {
    last_event_id: Option<String>,
    retry: Option<Duration>,
    events: u64,
}

impl Cursor {
    fn record(&mut self, event: &SseEvent) {
        if let Some(id) = &event.id {
            self.last_event_id = (!id.is_empty()).then(|| id.clone());
        }
        if let Some(retry) = event.retry {
            self.retry = Some(retry);
        }
        self.events += 1;
    }
}

/// How reading a reply body ended.
enum Outcome {
    /// The response to the request arrived.
    Answered(JsonRpcMessage),
    /// The event stream ended before the response.
    Ended,
    /// The reply cannot carry the response.
    Failed(String),
}

/// Why an event stream could not be opened with GET.
enum GetError {
    /// The server answered, but with no event stream: it will not offer one.
    Refused(String),
    /// The request failed on the way; trying again may work.
    Failed(String),
}

impl Shared {
    /// Hands a message to the session, waiting while its queue is full; after the transport
    /// closed, the message is dropped.
    async fn deliver(&self, item: Inbound) {
        tokio::select! {
            _ = self.inbound.send(item) => {}
            _ = self.closed.cancelled() => {}
        }
    }

    async fn deliver_error(&self, id: RequestId, error: ErrorData) {
        self.deliver(Inbound::Message(JsonRpcMessage::error(Some(id), error))).await;
    }

    /// Returns the session headers: the session id and protocol version, when known.
    fn session_headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        self.add_session_headers(&mut headers);
        headers
    }

    /// Sets the session headers in `headers`: the session id and protocol version, when known.
    fn add_session_headers(&self, headers: &mut HeaderMap) {
        let state = lock(&self.state);
        let pairs = [(SESSION_ID, &state.session_id), (PROTOCOL_VERSION, &state.protocol_version)];
        for (name, value) in pairs {
            if let Some(value) = value.as_deref().and_then(|v| HeaderValue::from_str(v).ok()) {
                headers.insert(name, value);
            }
        }
    }

    fn session_id(&self) -> Option<String> {
        lock(&self.state).session_id.clone()
    }

    /// Builds the POST of one message to `url`, with the session headers unless `session` is false.
    ///
    /// Its headers are set in one map that becomes the request's, rather than merged into it
    /// map by map.
    fn post(&self, url: &Url, message: &JsonRpcMessage, session: bool) -> RequestBuilder {
        let mut headers = self.options.headers.clone();
        headers.insert(ACCEPT, HeaderValue::from_static(ACCEPT_POST));
        headers.insert(CONTENT_TYPE, HeaderValue::from_static(JSON));
        if session {
            self.add_session_headers(&mut headers);
        }
        add_revision_headers(message, &mut headers);
        self.add_param_headers(message, &mut headers);
        let mut request = reqwest::Request::new(reqwest::Method::POST, url.clone());
        *request.headers_mut() = headers;
        *request.body_mut() = Some(message.encode().into());
        RequestBuilder::from_parts(self.http.clone(), request)
    }

    /// Sends an HTTP request and waits, within `timeout`, for its response headers.
    async fn send_within(&self, request: RequestBuilder, timeout: Duration) -> Result<Response, SendError> {
        #[cfg(feature = "auth")]
        if let Some(auth) = &self.options.auth {
            return send_authorized(auth.as_ref(), request, timeout).await;
        }
        send_once(request, timeout).await
    }

    /// Sends an HTTP request and waits, within the request timeout, for its response headers.
    ///
    /// The exchange is boxed: `reqwest`'s future takes kilobytes, which every task that sends a
    /// request would otherwise carry, and copy, from its spawn on.
    async fn send_http(&self, request: RequestBuilder) -> Result<Response, SendError> {
        Box::pin(self.send_within(request, self.options.request_timeout)).await
    }

    /// Opens an event stream with GET, resuming after `last_event_id` when given.
    async fn open_event_stream(&self, last_event_id: Option<&str>) -> Result<Response, GetError> {
        let mut request = self
            .http
            .get(self.url.clone())
            .headers(self.options.headers.clone())
            .header(ACCEPT, EVENT_STREAM)
            .headers(self.session_headers());
        if let Some(id) = last_event_id {
            request = request.header(LAST_EVENT_ID, id);
        }
        let response = self.send_http(request).await.map_err(|e| GetError::Failed(e.into()))?;
        if !response.status().is_success() {
            return Err(GetError::Refused(format!("HTTP {}", response.status())));
        }
        if !is_event_stream(&response) {
            return Err(GetError::Refused("the reply is not an event stream".to_owned()));
        }
        Ok(response)
    }

    /// Reads a reply body and delivers its messages, until the response to `answering` when set.
    async fn read_reply(&self, response: Response, answering: Option<&RequestId>, cursor: &mut Cursor) -> Outcome {
        if is_event_stream(&response) {
            let mut stream = SseStream::new(response);
            while let Some(event) = stream.next_event().await {
                cursor.record(&event);
                if event.data.is_empty() {
                    continue;
                }
                match decode(event.data.as_bytes()) {
                    Inbound::Message(message) if answering.is_some_and(|id| message.answers() == Some(id)) => {
                        return Outcome::Answered(message);
                    }
                    item => self.deliver(item).await,
                }
            }
            return Outcome::Ended;
        }
        let content_type = response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
        if !content_type.to_ascii_lowercase().starts_with(JSON) {
            return Outcome::Failed(format!("the server replied with the unexpected content type {content_type:?}"));
        }
        let body = match tokio::time::timeout(self.options.request_timeout, response.bytes()).await {
            Ok(Ok(body)) => body,
            Ok(Err(e)) => return Outcome::Failed(format!("reading the reply failed: {}", describe(&e))),
            Err(_) => return Outcome::Failed("the reply body did not arrive in time".to_owned()),
        };
        match (JsonRpcMessage::decode(&body), answering) {
            (Ok(message), Some(id)) if message.answers() == Some(id) => Outcome::Answered(message),
            (Ok(JsonRpcMessage::Error(error)), Some(id)) if error.id.is_none() => {
                Outcome::Answered(JsonRpcMessage::error(Some(id.clone()), error.error))
            }
            (Ok(message), _) => {
                self.deliver(Inbound::Message(message)).await;
                Outcome::Failed("the JSON reply was not the response to the request".to_owned())
            }
            (Err(e), _) => Outcome::Failed(format!("the server sent an invalid reply: {e}")),
        }
    }

    /// Reads the reply to request `id`, resuming the event stream with GET while it breaks off
    /// before the response.
    async fn await_answer(&self, response: Response, id: &RequestId) -> Result<JsonRpcMessage, ErrorData> {
        let mut cursor = Cursor::default();
        let mut outcome = self.read_reply(response, Some(id), &mut cursor).await;
        let mut fruitless = 0;
        let mut last_failure = String::new();
        for _ in 0..MAX_RECONNECTIONS {
            match outcome {
                Outcome::Answered(message) => return Ok(message),
                Outcome::Failed(why) => return Err(ErrorData::internal_error(why)),
                Outcome::Ended => {}
            }
            let Some(last_event_id) = cursor.last_event_id.clone() else {
                return Err(ErrorData::internal_error(
                    "the server ended the event stream before the response, without an event id to resume it",
                ));
            };
            if fruitless >= self.options.max_retries {
                return Err(ErrorData::internal_error(format!(
                    "the event stream broke off before the response and {fruitless} reconnections brought nothing \
                     ({last_failure})"
                )));
            }
            tokio::time::sleep(cursor.retry.unwrap_or(self.options.default_retry)).await;
            let seen = cursor.events;
            outcome = match self.open_event_stream(Some(&last_event_id)).await {
                Ok(response) => self.read_reply(response, Some(id), &mut cursor).await,
                Err(GetError::Refused(why)) => {
                    return Err(ErrorData::internal_error(format!(
                        "the event stream broke off before the response and the server refused to resume it: {why}"
                    )));
                }
                Err(GetError::Failed(why)) => {
                    last_failure = why;
                    Outcome::Ended
                }
            };
            if cursor.events == seen {
                fruitless += 1;
            } else {
                fruitless = 0;
            }
        }
        Err(ErrorData::internal_error(format!("the event stream was reconnected {MAX_RECONNECTIONS} times")))
    }

    /// Sends request `id` and hands its response, or an error standing for it, to the reader.
    async fn exchange(self: &Arc<Self>, id: RequestId, message: JsonRpcMessage, initialize: bool) {
        match self.exchange_inner(&id, &message, initialize).await {
            Ok(Some(answer)) => {
                if initialize && let JsonRpcMessage::Response(response) = &answer {
                    self.record_protocol_version(&response.result);
                }
                if let (JsonRpcMessage::Request(request), JsonRpcMessage::Response(response)) = (&message, &answer)
                    && request.method == methods::TOOLS_LIST
                {
                    self.record_tool_headers(&response.result);
                }
                self.deliver(Inbound::Message(answer)).await;
            }
            Ok(None) => {}
            Err(error) => self.deliver_error(id, error).await,
        }
    }

    async fn exchange_inner(
        self: &Arc<Self>,
        id: &RequestId,
        message: &JsonRpcMessage,
        initialize: bool,
    ) -> Result<Option<JsonRpcMessage>, ErrorData> {
        // The rare paths (the deprecated transport, a re-initialization, an error's body) are
        // boxed, so that the future of every request does not carry their state.
        let legacy = lock(&self.state).legacy_endpoint.clone();
        if let Some(endpoint) = legacy {
            return Box::pin(self.legacy_post(&endpoint, message)).await.map(|()| None);
        }
        // A second round happens only after a re-initialization.
        for round in 0..2 {
            let sent_session = if initialize { None } else { self.session_id() };
            let response =
                self.send_http(self.post(&self.url, message, !initialize)).await.map_err(SendError::into_error_data)?;
            let status = response.status();
            if status == StatusCode::NOT_FOUND
                && round == 0
                && let Some(stale) = sent_session
            {
                Box::pin(self.reinitialize(&stale)).await.map_err(|e| {
                    ErrorData::internal_error(format!("the session expired and re-initializing failed: {e}"))
                })?;
                continue;
            }
            if initialize
                && self.options.legacy_fallback
                && matches!(status, StatusCode::BAD_REQUEST | StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED)
            {
                match Box::pin(self.connect_legacy()).await {
                    Ok(endpoint) => return Box::pin(self.legacy_post(&endpoint, message)).await.map(|()| None),
                    Err(e) => tracing::debug!(error = %e, "the endpoint does not offer the HTTP+SSE transport either"),
                }
            }
            if !status.is_success() {
                return Err(Box::pin(http_error(response)).await);
            }
            if status == StatusCode::ACCEPTED {
                return Ok(None);
            }
            if initialize {
                lock(&self.state).session_id = header(&response, SESSION_ID);
            }
            return self.await_answer(response, id).await.map(Some);
        }
        Err(ErrorData::internal_error("the session expired again right after re-initializing"))
    }

    /// Remembers which parameters of each listed tool go into `Mcp-Param-*` headers.
    fn record_tool_headers(&self, result: &Value) {
        let Some(tools) = result.get("tools").and_then(Value::as_array) else { return };
        let mut state = lock(&self.state);
        for tool in tools {
            let (Some(name), Some(schema)) =
                (tool.get("name").and_then(Value::as_str), tool.get("inputSchema").and_then(Value::as_object))
            else {
                continue;
            };
            match crate::model::headers::header_params(schema) {
                Ok(params) if !params.is_empty() => {
                    if state.tool_headers.len() < MAX_REMEMBERED_TOOLS || state.tool_headers.contains_key(name) {
                        state.tool_headers.insert(name.to_owned(), params);
                    }
                }
                _ => {
                    state.tool_headers.remove(name);
                }
            }
        }
    }

    /// Sets the `Mcp-Param-*` headers of a 2026-07-28 `tools/call`: each annotated parameter the
    /// arguments carry, encoded for a header.
    fn add_param_headers(&self, message: &JsonRpcMessage, headers: &mut HeaderMap) {
        let JsonRpcMessage::Request(request) = message else { return };
        let params = request.params.as_ref();
        let stateless = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(crate::model::meta_keys::PROTOCOL_VERSION))
            .is_some_and(|v| v == crate::model::STATELESS_PROTOCOL_VERSION);
        if request.method != methods::TOOLS_CALL || !stateless {
            return;
        }
        let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else { return };
        let arguments = params.and_then(|p| p.get("arguments")).and_then(Value::as_object);
        let state = lock(&self.state);
        for param in state.tool_headers.get(name).into_iter().flatten() {
            let Some(value) = param.value_in(arguments) else { continue };
            let encoded = crate::model::headers::encode_header_value(&value);
            if let (Ok(header), Ok(value)) =
                (reqwest::header::HeaderName::try_from(param.header_name()), HeaderValue::from_str(&encoded))
            {
                headers.insert(header, value);
            }
        }
    }

    fn record_protocol_version(&self, result: &Value) {
        if let Some(version) = result.get("protocolVersion").and_then(Value::as_str) {
            lock(&self.state).protocol_version = Some(version.to_owned());
        }
    }

    /// POSTs a notification or a response, which the server only acknowledges.
    async fn post_ack(self: &Arc<Self>, message: &JsonRpcMessage) {
        let legacy = lock(&self.state).legacy_endpoint.clone();
        if let Some(endpoint) = legacy {
            if let Err(e) = Box::pin(self.legacy_post(&endpoint, message)).await {
                tracing::debug!(error = %e, "the server refused a message");
            }
            return;
        }
        let is_response = message.is_answer();
        // A second round happens only after a re-initialization.
        for round in 0..2 {
            let sent_session = self.session_id();
            let response = match self.send_http(self.post(&self.url, message, true)).await {
                Ok(response) => response,
                Err(e) => {
                    tracing::debug!(error = %e, "sending a message failed");
                    return;
                }
            };
            let status = response.status();
            if status == StatusCode::NOT_FOUND
                && round == 0
                && !is_response
                && let Some(stale) = sent_session
            {
                if let Err(e) = Box::pin(self.reinitialize(&stale)).await {
                    tracing::warn!(error = %e, "the session expired and re-initializing failed");
                    return;
                }
                continue;
            }
            if !status.is_success() {
                tracing::debug!(%status, "the server refused a message");
            }
            return;
        }
    }

    /// Starts a new session after the server forgot session `stale`: replays the initialize
    /// request and `notifications/initialized` without a session id.
    ///
    /// The replayed initialize result is not handed to the reader: the session already has one.
    async fn reinitialize(self: &Arc<Self>, stale: &str) -> Result<(), String> {
        let _guard = self.reinit.lock().await;
        let (initialize, initialized) = {
            let state = lock(&self.state);
            if state.session_id.as_deref() != Some(stale) {
                // Another request re-initialized while this one waited.
                return Ok(());
            }
            (state.initialize.clone(), state.initialized.clone())
        };
        let Some((id, initialize)) = initialize else {
            return Err("there is no initialize request to replay".to_owned());
        };
        tracing::debug!(session = stale, "the session expired; initializing again");
        let response = self.send_http(self.post(&self.url, &initialize, false)).await?;
        if !response.status().is_success() {
            return Err(http_error(response).await.message);
        }
        lock(&self.state).session_id = header(&response, SESSION_ID);
        match self.await_answer(response, &id).await {
            Ok(JsonRpcMessage::Response(response)) => self.record_protocol_version(&response.result),
            Ok(_) => return Err("the server refused the initialize request".to_owned()),
            Err(e) => return Err(e.message),
        }
        if let Some(initialized) = initialized {
            let response = self.send_http(self.post(&self.url, &initialized, true)).await?;
            if !response.status().is_success() {
                return Err(format!("notifications/initialized was answered with HTTP {}", response.status()));
            }
        }
        if self.options.open_get_stream {
            let opened = self.start_get_stream();
            let _ = tokio::time::timeout(self.options.request_timeout.min(GET_STREAM_OPEN_WAIT), opened).await;
        }
        Ok(())
    }

    /// Opens the standalone GET stream in the background, replacing any previous one.
    ///
    /// The returned receiver fires once the server answered the first GET (with a stream or a
    /// refusal), so a caller can make sure the stream is open before it sends requests whose
    /// server-side messages may travel on it.
    fn start_get_stream(self: &Arc<Self>) -> oneshot::Receiver<()> {
        let token = self.closed.child_token();
        if let Some(previous) = lock(&self.state).get_stream.replace(token.clone()) {
            previous.cancel();
        }
        let (opened, opened_rx) = oneshot::channel();
        let shared = self.clone();
        tokio::spawn(async move {
            tokio::select! {
                _ = token.cancelled() => {}
                _ = shared.run_get_stream(opened) => {}
            }
        });
        opened_rx
    }

    /// Reads the standalone GET stream, reconnecting it after the server's `retry` delay while
    /// reconnections keep bringing events.
    async fn run_get_stream(&self, opened: oneshot::Sender<()>) {
        let mut opened = Some(opened);
        let mut cursor = Cursor::default();
        let mut fruitless = 0;
        for attempt in 0..MAX_RECONNECTIONS {
            if attempt > 0 {
                tokio::time::sleep(cursor.retry.unwrap_or(self.options.default_retry)).await;
            }
            let seen = cursor.events;
            let answer = self.open_event_stream(cursor.last_event_id.as_deref()).await;
            if let Some(opened) = opened.take() {
                let _ = opened.send(());
            }
            match answer {
                Ok(response) => {
                    self.read_reply(response, None, &mut cursor).await;
                }
                Err(GetError::Refused(why)) => {
                    tracing::debug!(reason = %why, "the server offers no GET stream");
                    return;
                }
                Err(GetError::Failed(why)) => tracing::debug!(error = %why, "opening the GET stream failed"),
            }
            if cursor.events == seen {
                fruitless += 1;
                if fruitless > self.options.max_retries {
                    tracing::debug!("giving up on the GET stream");
                    return;
                }
            } else {
                fruitless = 0;
            }
        }
    }

    /// Runs request `id` in its own task, so that slow requests do not hold up the writer.
    fn spawn_request(self: &Arc<Self>, id: RequestId, message: JsonRpcMessage) {
        let token = self.closed.child_token();
        lock(&self.state).inflight.insert(id.clone(), token.clone());
        let shared = self.clone();
        tokio::spawn(async move {
            // Boxed, so that the task itself stays small: spawning copies it whole.
            let exchange = Box::pin(shared.exchange(id.clone(), message, false));
            tokio::select! {
                _ = token.cancelled() => {}
                _ = exchange => {}
            }
            lock(&shared.state).inflight.remove(&id);
        });
    }

    /// Stops waiting for the response to a request this side cancelled.
    fn forget_cancelled(&self, message: &JsonRpcMessage) {
        let JsonRpcMessage::Notification(notification) = message else { return };
        if notification.method != methods::NOTIFICATIONS_CANCELLED {
            return;
        }
        let id = notification
            .params
            .as_ref()
            .and_then(|p| p.get("requestId"))
            .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
        if let Some(token) = id.and_then(|id| lock(&self.state).inflight.remove(&id)) {
            token.cancel();
        }
    }

    /// Switches to the deprecated HTTP+SSE transport if the endpoint offers it: its event
    /// stream must start with an `endpoint` event naming the URL to POST to.
    async fn connect_legacy(self: &Arc<Self>) -> Result<Url, String> {
        let request =
            self.http.get(self.url.clone()).headers(self.options.headers.clone()).header(ACCEPT, EVENT_STREAM);
        let response = self.send_http(request).await?;
        if !response.status().is_success() || !is_event_stream(&response) {
            return Err(format!("GET was answered with HTTP {} and no event stream", response.status()));
        }
        let mut stream = SseStream::new(response);
        let first = async {
            loop {
                match stream.next_event().await {
                    Some(event) if event.data.is_empty() && event.event.is_none() => continue,
                    other => break other,
                }
            }
        };
        let event = match tokio::time::timeout(self.options.request_timeout, first).await {
            Ok(Some(event)) => event,
            Ok(None) => return Err("the event stream ended before its first event".to_owned()),
            Err(_) => return Err("no event arrived in time".to_owned()),
        };
        if event.event.as_deref() != Some("endpoint") {
            return Err(format!("the first event is {:?}, not \"endpoint\"", event.event));
        }
        let endpoint =
            self.url.join(event.data.trim()).map_err(|e| format!("invalid endpoint {:?}: {e}", event.data))?;
        tracing::debug!(%endpoint, "using the deprecated HTTP+SSE transport");
        lock(&self.state).legacy_endpoint = Some(endpoint.clone());
        let shared = self.clone();
        let closed = self.closed.clone();
        tokio::spawn(async move {
            tokio::select! {
                _ = closed.cancelled() => {}
                _ = shared.run_legacy_stream(stream) => {}
            }
        });
        Ok(endpoint)
    }

    /// Delivers the messages of the HTTP+SSE event stream; when it ends, the connection is over.
    async fn run_legacy_stream(&self, mut stream: SseStream) {
        while let Some(event) = stream.next_event().await {
            if event.data.is_empty() {
                continue;
            }
            match event.event.as_deref() {
                None | Some("message") => self.deliver(decode(event.data.as_bytes())).await,
                Some(other) => tracing::debug!(event = other, "ignoring an event"),
            }
        }
        tracing::debug!("the HTTP+SSE event stream ended");
        self.closed.cancel();
    }

    /// POSTs a message to the endpoint of the HTTP+SSE transport; answers come on its stream.
    async fn legacy_post(&self, endpoint: &Url, message: &JsonRpcMessage) -> Result<(), ErrorData> {
        let request = self
            .http
            .post(endpoint.clone())
            .headers(self.options.headers.clone())
            .header(CONTENT_TYPE, JSON)
            .body(message.encode());
        let response = self.send_http(request).await.map_err(SendError::into_error_data)?;
        if response.status().is_success() { Ok(()) } else { Err(http_error(response).await) }
    }

    /// Ends the session on the server with DELETE; a server that does not allow it is fine.
    async fn delete_session(&self) {
        let legacy = lock(&self.state).legacy_endpoint.is_some();
        if legacy || self.session_id().is_none() {
            return;
        }
        let request =
            self.http.delete(self.url.clone()).headers(self.options.headers.clone()).headers(self.session_headers());
        match self.send_within(request, self.options.request_timeout.min(CLOSE_TIMEOUT)).await {
            Ok(response) if response.status().is_success() || response.status() == StatusCode::METHOD_NOT_ALLOWED => {}
            Ok(response) => tracing::debug!(status = %response.status(), "ending the session failed"),
            Err(e) => tracing::debug!(error = %e, "ending the session failed"),
        }
    }
}

/// Why an HTTP request got no response.
#[derive(Debug)]
struct SendError {
    message: String,
    /// The server could not be reached: the connection was refused or failed, or closed before
    /// the server answered.
    unreachable: bool,
}

impl SendError {
    fn other(message: impl Into<String>) -> Self {
        SendError { message: message.into(), unreachable: false }
    }

    /// The error a request that got no response answers with: a transport error when the
    /// server could not be reached, an internal error otherwise.
    fn into_error_data(self) -> ErrorData {
        if self.unreachable {
            // The data marks the error as this transport's own, not the server's.
            ErrorData::new(crate::jsonrpc::CONNECTION_CLOSED, self.message)
                .with_data(serde_json::json!({ "unreachable": true }))
        } else {
            ErrorData::internal_error(self.message)
        }
    }
}

impl std::fmt::Display for SendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<SendError> for String {
    fn from(e: SendError) -> Self {
        e.message
    }
}

/// Sends an HTTP request and waits, within `timeout`, for its response headers.
async fn send_once(request: RequestBuilder, timeout: Duration) -> Result<Response, SendError> {
    match tokio::time::timeout(timeout, request.send()).await {
        Ok(Ok(response)) => Ok(response),
        Ok(Err(e)) if e.is_connect() => {
            let url = e.url().map(|u| u.to_string()).unwrap_or_default();
            let cause = root_cause(&e);
            Err(SendError { message: format!("could not connect to {url}: {cause}"), unreachable: true })
        }
        Ok(Err(e)) if closed_before_answer(&e) => {
            let url = e.url().map(|u| u.to_string()).unwrap_or_default();
            let message = format!("the connection to {url} closed before the server answered: {}", describe(&e));
            Err(SendError { message, unreachable: true })
        }
        Ok(Err(e)) => Err(SendError::other(format!("HTTP request failed: {}", describe(&e)))),
        Err(_) => Err(SendError::other(format!("no HTTP response within {timeout:?}"))),
    }
}

/// Whether the connection ended before any response came, as when the server process went away
/// (a kept-alive connection to a server that stopped is closed under the next request).
fn closed_before_answer(error: &reqwest::Error) -> bool {
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if cause.downcast_ref::<hyper::Error>().is_some_and(hyper::Error::is_incomplete_message) {
            return true;
        }
        source = cause.source();
    }
    false
}

/// The innermost cause of an error, such as `Connection refused (os error 111)`.
fn root_cause(error: &dyn std::error::Error) -> String {
    let mut cause = error;
    while let Some(source) = cause.source() {
        cause = source;
    }
    cause.to_string()
}

/// How many times one HTTP request is sent again after a challenge was answered: a login, then
/// step-ups, which the provider bounds itself.
#[cfg(feature = "auth")]
const MAX_CHALLENGES: usize = 8;

/// Sends a request with the provider's credentials (a bearer token, or a DPoP-bound token with a
/// proof signed for this request); when the server challenges it (`401`, or `403
/// insufficient_scope`) and the provider gets a new token or a DPoP nonce, sends it again.
#[cfg(feature = "auth")]
async fn send_authorized(
    auth: &dyn crate::auth::AuthProvider,
    request: RequestBuilder,
    timeout: Duration,
) -> Result<Response, SendError> {
    let auth_error = |e: crate::Error| SendError::other(e.to_string());
    for _ in 0..MAX_CHALLENGES {
        let attempt = request
            .try_clone()
            .ok_or_else(|| SendError::other("an HTTP request with a streamed body cannot be authorized"))?;
        let (client, built) = attempt.build_split();
        let mut built = built.map_err(|e| SendError::other(format!("invalid HTTP request: {e}")))?;
        let url = built.url().to_string();
        if let Some(credentials) = auth.credentials(built.method().as_str(), &url).await.map_err(auth_error)? {
            let headers = built.headers_mut();
            let value = HeaderValue::from_str(&credentials.authorization)
                .map_err(|_| SendError::other("the access token is not a valid header value"))?;
            headers.insert(reqwest::header::AUTHORIZATION, value);
            if let Some(proof) = credentials.dpop {
                let value = HeaderValue::from_str(&proof)
                    .map_err(|_| SendError::other("the DPoP proof is not a valid header value"))?;
                headers.insert("dpop", value);
            }
        }
        let response = send_once(RequestBuilder::from_parts(client, built), timeout).await?;
        if let Some(nonce) = header(&response, "dpop-nonce") {
            auth.dpop_nonce(&url, &nonce).await;
        }
        let status = response.status();
        if status != StatusCode::UNAUTHORIZED && status != StatusCode::FORBIDDEN {
            return Ok(response);
        }
        let challenge = header(&response, reqwest::header::WWW_AUTHENTICATE.as_str());
        if !auth.challenged(status.as_u16(), challenge.as_deref()).await.map_err(auth_error)? {
            return Ok(response);
        }
    }
    send_once(request, timeout).await
}

fn is_event_stream(response: &Response) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().starts_with(EVENT_STREAM))
}

fn header(response: &Response, name: &str) -> Option<String> {
    response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned)
}

fn decode(bytes: &[u8]) -> Inbound {
    match JsonRpcMessage::decode(bytes) {
        Ok(message) => Inbound::Message(message),
        Err(e) => Inbound::Invalid(e),
    }
}

/// Describes an error with its chain of causes.
fn describe(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// Turns an HTTP error status into the JSON-RPC error the caller sees.
///
/// A JSON-RPC error in the body is kept as it is; otherwise the error is an internal error
/// whose message holds the status and the start of the body, and whose data holds the status.
async fn http_error(response: Response) -> ErrorData {
    let status = response.status();
    let body = match tokio::time::timeout(CLOSE_TIMEOUT, response.bytes()).await {
        Ok(Ok(body)) => body,
        _ => Default::default(),
    };
    if let Ok(JsonRpcMessage::Error(error)) = JsonRpcMessage::decode(&body) {
        return error.error;
    }
    let text = String::from_utf8_lossy(&body);
    let excerpt: String = text.trim().chars().take(ERROR_EXCERPT).collect();
    let message = if excerpt.is_empty() { format!("HTTP {status}") } else { format!("HTTP {status}: {excerpt}") };
    ErrorData::internal_error(message).with_data(serde_json::json!({ "httpStatus": status.as_u16() }))
}

/// The sending half: POSTs each message.
struct HttpWriter {
    shared: Arc<Shared>,
}

#[async_trait]
impl TransportWriter for HttpWriter {
    async fn send(&mut self, outbound: Outbound) -> Result<(), Error> {
        let shared = &self.shared;
        if shared.closed.is_cancelled() {
            return Err(Error::TransportClosed);
        }
        let message = outbound.message;
        match &message {
            JsonRpcMessage::Request(request) if request.method == methods::INITIALIZE => {
                // Waited for, so that the session id is known before anything else is sent.
                let id = request.id.clone();
                lock(&shared.state).initialize = Some((id.clone(), message.clone()));
                let timeout = shared.options.request_timeout;
                if tokio::time::timeout(timeout, Box::pin(shared.exchange(id.clone(), message, true))).await.is_err() {
                    let error = format!("the initialize exchange did not finish within {timeout:?}");
                    shared.deliver_error(id, ErrorData::internal_error(error)).await;
                }
            }
            JsonRpcMessage::Request(request) => shared.spawn_request(request.id.clone(), message),
            JsonRpcMessage::Notification(notification) if notification.method == methods::NOTIFICATIONS_INITIALIZED => {
                lock(&shared.state).initialized = Some(message.clone());
                shared.post_ack(&message).await;
                let legacy = lock(&shared.state).legacy_endpoint.is_some();
                if shared.options.open_get_stream && !legacy {
                    // Servers may send requests on the GET stream as soon as the client calls a
                    // tool, so the stream is given a bounded moment to open first.
                    let opened = shared.start_get_stream();
                    let wait = shared.options.request_timeout.min(GET_STREAM_OPEN_WAIT);
                    let _ = tokio::time::timeout(wait, opened).await;
                }
            }
            // Notifications and responses are acknowledged at once, so waiting for them keeps
            // them in order with the requests that follow.
            _ => {
                shared.post_ack(&message).await;
                shared.forget_cancelled(&message);
            }
        }
        Ok(())
    }

    async fn close(&mut self) -> Result<(), Error> {
        if self.shared.closed.is_cancelled() {
            return Ok(());
        }
        self.shared.closed.cancel();
        self.shared.delete_session().await;
        Ok(())
    }
}

impl Drop for HttpWriter {
    fn drop(&mut self) {
        self.shared.closed.cancel();
    }
}

/// The receiving half: yields what the POST replies and the event streams carry.
struct HttpReader {
    inbound: mpsc::Receiver<Inbound>,
    closed: CancellationToken,
}

#[async_trait]
impl TransportReader for HttpReader {
    async fn recv(&mut self) -> Result<Option<Inbound>, Error> {
        tokio::select! {
            biased;
            item = self.inbound.recv() => Ok(item),
            _ = self.closed.cancelled() => Ok(None),
        }
    }
}

/// Sets the headers revision 2026-07-28 requires of a request that carries its version in
/// `_meta`: `MCP-Protocol-Version`, `Mcp-Method`, and `Mcp-Name` (the tool or prompt name,
/// resource URI or task id, Base64-encoded when it is not plain header text). Sets none for other
/// messages.
fn add_revision_headers(message: &JsonRpcMessage, headers: &mut HeaderMap) {
    let JsonRpcMessage::Request(request) = message else { return };
    let params = request.params.as_ref();
    let version = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(crate::model::meta_keys::PROTOCOL_VERSION))
        .and_then(Value::as_str);
    let Some(version) = version.filter(|v| *v == crate::model::STATELESS_PROTOCOL_VERSION) else { return };
    let name_key = match request.method.as_str() {
        methods::TOOLS_CALL | methods::PROMPTS_GET => Some("name"),
        methods::RESOURCES_READ => Some("uri"),
        methods::TASKS_GET | methods::TASKS_UPDATE | methods::TASKS_CANCEL => Some("taskId"),
        _ => None,
    };
    let name = name_key.and_then(|key| params?.get(key)?.as_str());
    let pairs = [
        (PROTOCOL_VERSION, Some(version.to_owned())),
        ("mcp-method", Some(crate::model::headers::encode_header_value(&request.method))),
        ("mcp-name", name.map(crate::model::headers::encode_header_value)),
    ];
    for (header, value) in pairs {
        if let Some(value) = value.and_then(|v| HeaderValue::from_str(&v).ok()) {
            headers.insert(header, value);
        }
    }
}
