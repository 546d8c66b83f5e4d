//! The Streamable HTTP server: one endpoint, JSON or SSE replies, sessions and resumability.
//!
//! [`StreamableHttpServer`] turns a [`Server`] into an axum [`Router`] that can be mounted into
//! an existing application, or bound to its own listener with [`StreamableHttpServer::bind`].
//! Each MCP session is one core session whose transport routes outgoing messages to the SSE
//! stream of the request they belong to, or to the standalone GET stream.

use std::{
    collections::{HashMap, VecDeque},
    net::SocketAddr,
    sync::{
        Arc, Mutex, Weak,
        atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, AtomicUsize, Ordering},
    },
    task::{Context, Poll},
    time::Duration,
};

use axum::{
    Router,
    body::{Body, Bytes, HttpBody},
    extract::State,
    http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header},
    response::{IntoResponse, Response},
    routing::any,
};
use futures::StreamExt;
use serde_json::Value;
use smallvec::SmallVec;
use tokio::{sync::mpsc, task::JoinHandle};
use tokio_util::sync::CancellationToken;

use crate::{
    Error, Server,
    jsonrpc::{
        ErrorData, HEADER_MISMATCH, JsonRpcMessage, METHOD_NOT_FOUND, MISSING_REQUIRED_CLIENT_CAPABILITY, RequestId,
        UNSUPPORTED_PROTOCOL_VERSION, quoted,
    },
    model::{ALL_PROTOCOL_VERSIONS, STATELESS_PROTOCOL_VERSION, meta_keys, methods},
    random::random_id,
    server::SessionHandle,
    session::{DirectInput, DirectWriter},
    sync::{FastMap, lock},
    transport::{Inbound, Outbound},
};

#[cfg(feature = "auth")]
use crate::auth::AuthInfo;

#[cfg(feature = "redis")]
mod cluster_glue;

/// Without the `auth` feature no request carries an identity.
#[cfg(not(feature = "auth"))]
#[derive(Debug)]
enum AuthInfo {}

/// Who sent a request: the identity its bearer token speaks for, when the server is protected.
type Caller = Option<Arc<AuthInfo>>;

/// Returns whether a request from `caller` may use a session created by `owner`: only the
/// identity that created a session may use it.
fn same_caller(owner: &Caller, caller: &Caller) -> bool {
    match (owner, caller) {
        (None, None) => true,
        #[cfg(feature = "auth")]
        (Some(owner), Some(caller)) => owner.identity() == caller.identity(),
        _ => false,
    }
}

/// Shows handlers of the session who sent the request being delivered.
fn set_caller(handle: &SessionHandle, caller: &Caller) {
    #[cfg(feature = "auth")]
    handle.set_auth(caller.clone());
    #[cfg(not(feature = "auth"))]
    let _ = (handle, caller);
}

/// The header that carries the session id.
pub const SESSION_ID_HEADER: &str = "mcp-session-id";
/// The header that carries the negotiated protocol version.
pub const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";

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
    pub cluster: Option<super::ClusterOptions>,
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

    fn has_auth(&self) -> bool {
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
    pub fn with_cluster(mut self, cluster: super::ClusterOptions) -> Self {
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

/// One stored SSE event: its id and the message it carried.
#[derive(Clone, Debug)]
pub struct StoredEvent {
    /// The event id, unique within the session.
    pub id: String,
    /// The message.
    pub message: JsonRpcMessage,
}

/// Keeps the SSE events of each session so that a client that reconnects with
/// `Last-Event-ID` gets exactly what it missed on that stream.
pub trait EventStore: Send + Sync + 'static {
    /// Stores an event of `stream` in `session`.
    fn append(&self, session: &str, stream: u64, event: StoredEvent);

    /// Returns the events of `stream` in `session` that came after the event `after`, oldest
    /// first, or `None` when that event is no longer known.
    fn replay(&self, session: &str, stream: u64, after: u64) -> Option<Vec<StoredEvent>>;

    /// Forgets a session's events.
    fn remove_session(&self, session: &str);
}

/// An in-memory [`EventStore`] that keeps a bounded number of recent events per session.
#[derive(Debug)]
pub struct InMemoryEventStore {
    per_session: usize,
    sessions: Mutex<HashMap<String, SessionEvents>>,
}

/// The stored events of one session: stream, sequence number and event, oldest first.
type SessionEvents = VecDeque<(u64, u64, StoredEvent)>;

impl InMemoryEventStore {
    /// Creates a store that keeps at most `per_session` events for each session.
    pub fn new(per_session: usize) -> Self {
        InMemoryEventStore { per_session: per_session.max(1), sessions: Mutex::default() }
    }
}

impl Default for InMemoryEventStore {
    fn default() -> Self {
        Self::new(1024)
    }
}

impl EventStore for InMemoryEventStore {
    fn append(&self, session: &str, stream: u64, event: StoredEvent) {
        let Some((_, seq)) = parse_event_id(&event.id) else { return };
        let mut sessions = lock(&self.sessions);
        let events = sessions.entry(session.to_owned()).or_default();
        if events.len() == self.per_session {
            events.pop_front();
        }
        events.push_back((stream, seq, event));
    }

    fn replay(&self, session: &str, stream: u64, after: u64) -> Option<Vec<StoredEvent>> {
        let sessions = lock(&self.sessions);
        let Some(events) = sessions.get(session) else { return Some(Vec::new()) };
        let oldest = events.iter().find(|(s, _, _)| *s == stream).map(|(_, seq, _)| *seq);
        // A gap between what the client saw and what is kept means events were lost. The id
        // comes from the client: nothing follows the largest one.
        let Some(next) = after.checked_add(1) else { return Some(Vec::new()) };
        if oldest.is_some_and(|oldest| oldest > next) {
            return None;
        }
        Some(events.iter().filter(|(s, seq, _)| *s == stream && *seq > after).map(|(_, _, e)| e.clone()).collect())
    }

    fn remove_session(&self, session: &str) {
        lock(&self.sessions).remove(session);
    }
}

/// The written id of event `seq` of this process's stream `stream`, as [`parse_event_id`] reads it.
fn event_id(stream: u64, seq: u64) -> String {
    EventId::Local(stream, seq).to_string()
}

fn parse_event_id(id: &str) -> Option<(u64, u64)> {
    let (stream, seq) = id.split_once('_')?;
    Some((stream.parse().ok()?, seq.parse().ok()?))
}

/// The id of the standalone GET stream in every session.
const STANDALONE: u64 = 0;

/// A frame on its way to one HTTP response.
///
/// Frames are boxed in their queues: an idle queue then costs a few hundred bytes, not a few
/// kilobytes, which keeps idle sessions and per-request streams small.
pub(super) enum Frame {
    /// A message with its event id.
    Event(EventId, JsonRpcMessage),
}

/// The id of an SSE event, written out only when the event is stored or sent as SSE (a
/// plain JSON answer has none).
pub(super) enum EventId {
    /// The event `seq` of this process's stream `stream`.
    Local(u64, u64),
    /// An id already written, as the cluster's log gives it.
    #[cfg(feature = "redis")]
    Written(String),
}

impl std::fmt::Display for EventId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EventId::Local(stream, seq) => write!(f, "{stream}_{seq}"),
            #[cfg(feature = "redis")]
            EventId::Written(id) => f.write_str(id),
        }
    }
}

/// The queue of one HTTP response's frames, bounded by
/// [`HttpServerOptions::max_queued_events`].
pub(super) type FrameSender = mpsc::Sender<Box<Frame>>;
/// The receiving end of a [`FrameSender`].
pub(super) type FrameReceiver = mpsc::Receiver<Box<Frame>>;

/// Hands a frame to a stream's queue, returning whether the stream stays open: a closed
/// response, or one whose client reads too slowly to keep up, loses its queue, and the client
/// resumes from the event store.
fn deliver_frame(sink: &FrameSender, frame: Box<Frame>) -> bool {
    match sink.try_send(frame) {
        Ok(()) => true,
        Err(mpsc::error::TrySendError::Full(_)) => {
            tracing::debug!("a client does not keep up with its stream: the stream is closed");
            false
        }
        Err(mpsc::error::TrySendError::Closed(_)) => false,
    }
}

/// Where the frames of a stream go.
enum Sink {
    /// The request's task has not collected its stream yet, which it does right after
    /// delivering the request: frames wait here, so that a handler answering at once needs no
    /// queue (nor room for more than one frame). `open` turns false when the stream is ended
    /// before it was collected.
    Parked { frames: SmallVec<[Box<Frame>; 1]>, open: bool },
    /// The queue an HTTP response reads.
    Live(FrameSender),
    /// No response listens: frames are only stored, for a client that resumes.
    Gone,
}

impl Sink {
    /// Returns whether a response is reading the stream now.
    fn is_live(&self) -> bool {
        matches!(self, Sink::Live(queue) if !queue.is_closed())
    }
}

struct StreamState {
    sink: Sink,
    next_seq: u64,
    /// The request this stream answers; `None` for the standalone stream.
    request: Option<RequestId>,
    /// Whether the first frame may go out as a plain JSON body.
    json_candidate: bool,
}

/// What the task of a request finds on its stream once it delivered the request.
enum Collected {
    /// The answer, sent first and last while the request was delivered, as a JSON reply.
    Answer(Box<Frame>),
    /// The queue of the stream's frames, those sent so far and those to come.
    Queue(FrameReceiver),
}

impl Collected {
    /// Waits for the stream's first frame.
    async fn first(self) -> Option<Box<Frame>> {
        match self {
            Collected::Answer(frame) => Some(frame),
            Collected::Queue(mut queue) => queue.recv().await,
        }
    }
}

#[derive(Default)]
struct Routes {
    by_request: FastMap<RequestId, u64>,
    streams: FastMap<u64, StreamState>,
    /// Messages for the standalone stream while no GET stream is open.
    backlog: VecDeque<JsonRpcMessage>,
}

/// One MCP session over HTTP.
struct HttpSession {
    id: String,
    /// Where incoming messages go, processed in the task of the HTTP request that carried them.
    input: DirectInput,
    handle: SessionHandle,
    routes: Mutex<Routes>,
    next_stream: AtomicU64,
    /// Marked when a request comes or an answer leaves; the sweeper looks at it.
    usage: Usage,
    store: Arc<dyn EventStore>,
    closed: CancellationToken,
    /// How many frames each stream's queue holds.
    max_queued: usize,
    /// The identity that created the session; no other may use it.
    owner: Caller,
    /// The cluster this session is shared with, when it is.
    #[cfg(feature = "redis")]
    cluster: Option<Arc<super::cluster::Cluster>>,
    /// How many streams read from the cluster's Redis are open for this session's clients.
    #[cfg(feature = "redis")]
    followers: Arc<AtomicU64>,
}

const BACKLOG_LIMIT: usize = 256;

impl HttpSession {
    /// Hands one incoming message to the core session and runs what it asks for in order.
    async fn deliver(&self, message: JsonRpcMessage) -> Result<(), ()> {
        if self.closed.is_cancelled() {
            return Err(());
        }
        if let Some(work) = self.input.deliver(Inbound::Message(message)) {
            work.await;
        }
        Ok(())
    }

    /// Marks the session as used: a flag the sweeper reads, as reading the clock for each
    /// request would cost more than the sweeper's precision needs.
    fn touch(&self) {
        self.usage.mark();
    }

    /// Returns whether a request is running or a client is listening on a stream; a busy
    /// session is never idle.
    fn is_busy(&self) -> bool {
        #[cfg(feature = "redis")]
        if self.followers.load(Ordering::Relaxed) > 0 {
            return true;
        }
        let routes = lock(&self.routes);
        !routes.by_request.is_empty() || routes.streams.values().any(|s| s.sink.is_live())
    }

    /// Opens the stream of request `id`, or returns `None` when a request with that id is
    /// still running: the check and the registration are one step, so two POSTs with one id
    /// cannot both pass. The request then goes through [`HttpSession::request`].
    fn open_stream(&self, id: RequestId, json_candidate: bool) -> Option<u64> {
        let mut routes = lock(&self.routes);
        if routes.by_request.contains_key(&id) {
            return None;
        }
        let stream = self.next_stream.fetch_add(1, Ordering::Relaxed);
        routes.by_request.insert(id.clone(), stream);
        let sink = Sink::Parked { frames: SmallVec::new(), open: true };
        routes.streams.insert(stream, StreamState { sink, next_seq: 1, request: Some(id), json_candidate });
        Some(stream)
    }

    /// Takes what a request's stream holds after the request was delivered: its answer alone,
    /// when it came first and may go out as JSON, else a queue with the frames so far that the
    /// frames to come join (one that ends after them when the stream was ended or answered).
    fn collect(&self, stream: u64) -> Collected {
        let mut routes = lock(&self.routes);
        let Some(state) = routes.streams.get_mut(&stream) else {
            // Abandoned, or the session ended: nothing comes.
            return Collected::Queue(mpsc::channel(1).1);
        };
        let Sink::Parked { frames, open } = &mut state.sink else {
            // A client resumed the stream first: its frames go there.
            return Collected::Queue(mpsc::channel(1).1);
        };
        let (mut frames, open) = (std::mem::take(frames), *open);
        // A request stream forgets its request once answered; one answered before it was
        // collected waits for this collection to be forgotten.
        let answered = state.request.is_none();
        if answered && state.json_candidate && frames.len() == 1 {
            routes.streams.remove(&stream);
            return Collected::Answer(frames.swap_remove(0));
        }
        let (tx, rx) = mpsc::channel(self.max_queued);
        for frame in frames {
            // The parked frames are at most as many as the queue holds.
            let _ = tx.try_send(frame);
        }
        if answered {
            routes.streams.remove(&stream);
        } else {
            state.sink = if open { Sink::Live(tx) } else { Sink::Gone };
        }
        Collected::Queue(rx)
    }

    /// Delivers request `message`, whose stream `stream` was opened, and collects the stream
    /// at once, before anything else can run: the frames sent meanwhile wait on the stream
    /// until then. `Err` when the session has ended.
    async fn request(&self, stream: u64, message: JsonRpcMessage) -> Result<Collected, ()> {
        self.deliver(message).await?;
        Ok(self.collect(stream))
    }

    /// Returns whether `stream` still exists (it is forgotten once answered or abandoned).
    fn stream_exists(&self, stream: u64) -> bool {
        lock(&self.routes).streams.contains_key(&stream)
    }

    /// Routes one outgoing message to the stream it belongs to.
    fn route(&self, outbound: Outbound) {
        let Outbound { message, related_request } = outbound;
        let mut routes = lock(&self.routes);
        let stream = related_request.as_ref().and_then(|id| routes.by_request.get(id).copied());
        let Some(stream) = stream else {
            return self.route_standalone(&mut routes, message);
        };
        let final_for = message.answers();
        let is_final = final_for.is_some() && final_for == related_request.as_ref();
        let Some(state) = routes.streams.get_mut(&stream) else { return };
        let seq = state.next_seq;
        state.next_seq = seq.saturating_add(1);
        let first_and_final = is_final && seq == 1 && state.json_candidate;
        if !first_and_final {
            #[cfg(feature = "redis")]
            if let (Some(cluster), Some(request)) = (&self.cluster, &state.request) {
                cluster.append(&self.id, stream, seq, request, &message);
            }
            self.store.append(&self.id, stream, StoredEvent { id: event_id(stream, seq), message: message.clone() });
        }
        let frame = Box::new(Frame::Event(EventId::Local(stream, seq), message));
        match &mut state.sink {
            Sink::Live(queue) => {
                if !deliver_frame(queue, frame) {
                    state.sink = Sink::Gone;
                    state.json_candidate = false;
                }
            }
            Sink::Parked { frames, open } => {
                if *open && frames.len() < self.max_queued {
                    frames.push(frame);
                } else {
                    *open = false;
                    state.json_candidate = false;
                }
            }
            Sink::Gone => {}
        }
        if is_final {
            self.touch();
            let request = state.request.take();
            // A stream not collected yet stays until its task takes the answer.
            if !matches!(state.sink, Sink::Parked { .. }) {
                routes.streams.remove(&stream);
            }
            if let Some(request) = request {
                routes.by_request.remove(&request);
            }
        }
    }

    fn route_standalone(&self, routes: &mut Routes, message: JsonRpcMessage) {
        // Once a GET stream has been opened, every message gets an id and is stored, even while
        // no client listens, so that resuming with Last-Event-ID replays all of them; the
        // backlog keeps undelivered ones for a fresh GET.
        #[cfg(feature = "redis")]
        if let Some(cluster) = &self.cluster {
            // The process holding the client's GET stream, whichever it is, reads it from Redis.
            return cluster.append_standalone(&self.id, &message);
        }
        if let Some(state) = routes.streams.get_mut(&STANDALONE) {
            let seq = state.next_seq;
            state.next_seq = seq.saturating_add(1);
            let id = event_id(STANDALONE, seq);
            self.store.append(&self.id, STANDALONE, StoredEvent { id, message: message.clone() });
            let frame = Box::new(Frame::Event(EventId::Local(STANDALONE, seq), message.clone()));
            if let Sink::Live(queue) = &state.sink
                && deliver_frame(queue, frame)
            {
                return;
            }
            state.sink = Sink::Gone;
        }
        if routes.backlog.len() == BACKLOG_LIMIT {
            routes.backlog.pop_front();
        }
        routes.backlog.push_back(message);
    }

    fn end(&self) {
        self.closed.cancel();
        let mut routes = lock(&self.routes);
        routes.streams.clear();
        routes.by_request.clear();
        drop(routes);
        self.store.remove_session(&self.id);
        self.handle.close();
    }
}

/// The sending half of a core session inside the HTTP server: it routes each message to the
/// stream it belongs to, at once, in the task that sends it.
struct SessionWriter(Weak<HttpSession>);

impl DirectWriter for SessionWriter {
    fn send(&self, outbound: Outbound) {
        if let Some(session) = self.0.upgrade() {
            session.route(outbound);
        }
    }

    fn close_request_stream(&self, request: &RequestId) {
        // Clients of earlier revisions cannot resume a stream without a priming event.
        let resumable = |s: &HttpSession| s.handle.negotiated_version().is_some_and(|v| v >= "2025-11-25");
        if let Some(session) = self.0.upgrade().filter(|s| resumable(s)) {
            let mut routes = lock(&session.routes);
            let stream = routes.by_request.get(request).copied();
            if let Some(state) = stream.and_then(|s| routes.streams.get_mut(&s)) {
                // Frames parked before the stream was collected still go out, then it ends.
                match &mut state.sink {
                    Sink::Parked { open, .. } => *open = false,
                    sink => *sink = Sink::Gone,
                }
                state.json_candidate = false;
            }
        }
    }

    fn request_abandoned(&self, request: &RequestId) {
        if let Some(session) = self.0.upgrade() {
            let mut routes = lock(&session.routes);
            if let Some(stream) = routes.by_request.remove(request) {
                // Dropping the queue's sender ends the response once it drained.
                routes.streams.remove(&stream);
            }
        }
    }

    fn close(&self) {
        if let Some(session) = self.0.upgrade() {
            session.closed.cancel();
            let mut routes = lock(&session.routes);
            routes.streams.clear();
            routes.by_request.clear();
        }
    }
}

struct HttpState {
    server: Server,
    options: HttpServerOptions,
    /// The accepted `Host` values, when the options list them.
    hosts: Vec<String>,
    /// The accepted `Origin` values, when they are not the loopback origins.
    origins: Vec<String>,
    /// Whether the loopback names on any port are the accepted hosts (no hosts listed).
    loopback_hosts: bool,
    /// Whether the loopback origins on any port are the accepted origins (neither hosts nor
    /// origins listed).
    loopback_origins: bool,
    sessions: Mutex<FastMap<String, Arc<HttpSession>>>,
    /// Fires when the bound server shuts down: it ends the streams of requests that belong to
    /// no session (revision 2026-07-28, stateless mode), which shutting sessions down misses.
    stopping: CancellationToken,
    sweeper: Mutex<Option<JoinHandle<()>>>,
    /// The bytes of request bodies still arriving that may be held, all connections together
    /// ([`HttpServerOptions::max_buffered_body_bytes`]).
    body_budget: tokio::sync::Semaphore,
    /// Whether a refused `Host` header was logged; only the first one is.
    host_refusal_logged: std::sync::atomic::AtomicBool,
    /// Whether a refused `Origin` header was logged; only the first one is.
    origin_refusal_logged: std::sync::atomic::AtomicBool,
    /// The link to the cluster, made on the first request when the options name one.
    #[cfg(feature = "redis")]
    cluster: tokio::sync::OnceCell<Arc<super::cluster::Cluster>>,
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

const LOOPBACK_NAMES: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// Returns whether `host` (a `Host` value, or an origin without its scheme) is a loopback name
/// with a port or without one. The name is what tells a DNS rebinding attack apart (its page's
/// name is the attacker's), so the port is not checked: a reverse proxy or a balancer on the
/// same machine may use its own, or none.
fn is_loopback_host(host: &str) -> bool {
    let name = match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) && !name.is_empty() => name,
        _ => host,
    };
    LOOPBACK_NAMES.iter().any(|n| n.eq_ignore_ascii_case(name))
}

impl StreamableHttpServer {
    /// Creates an HTTP front for `server`, checking hosts against `options` (or the loopback
    /// names on any port when no list is given).
    pub fn new(server: Server, options: HttpServerOptions) -> Self {
        let hosts = options.allowed_hosts.clone().unwrap_or_default();
        let origins = options
            .allowed_origins
            .clone()
            .unwrap_or_else(|| hosts.iter().flat_map(|h| [format!("http://{h}"), format!("https://{h}")]).collect());
        let loopback_hosts = options.allowed_hosts.is_none();
        let loopback_origins = loopback_hosts && options.allowed_origins.is_none();
        let budget =
            options.max_buffered_body_bytes.max(options.max_body_size).min(tokio::sync::Semaphore::MAX_PERMITS);
        StreamableHttpServer {
            state: Arc::new(HttpState {
                server,
                options,
                body_budget: tokio::sync::Semaphore::new(budget),
                hosts,
                origins,
                loopback_hosts,
                loopback_origins,
                sessions: Mutex::default(),
                stopping: CancellationToken::new(),
                sweeper: Mutex::default(),
                host_refusal_logged: Default::default(),
                origin_refusal_logged: Default::default(),
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
        if !addr.ip().is_loopback() && !options.has_auth() {
            if !options.allow_remote_without_auth {
                return Err(Error::Config(format!(
                    "binding {addr} without authorization lets anyone who reaches it use the server; \
                     protect it or allow this explicitly with allow_remote_without_auth"
                )));
            }
            tracing::warn!(%addr, "the MCP server is reachable beyond this machine without authorization");
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
        let http = Self::new(server, options);
        let endpoint = Endpoint { state: http.state.clone(), router: http.router() };
        let shutdown = CancellationToken::new();
        let task = tokio::spawn(serve_connections(listener, endpoint, limits, shutdown.clone()));
        Ok(BoundHttpServer { local_addr, shutdown, task, http })
    }
}

/// What a bound server enforces on each connection.
#[derive(Clone, Copy)]
struct ConnectionLimits {
    header_read_timeout: Option<Duration>,
    max_connections: usize,
}

/// Three quarters of the process's open-file limit, so that the descriptors left over keep
/// the process working (files, outgoing connections) while clients hold all they may.
#[cfg(unix)]
fn default_max_connections() -> usize {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit only writes the struct it is given.
    let known = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
    let files = if known && limit.rlim_cur != libc::RLIM_INFINITY { limit.rlim_cur } else { 1 << 20 };
    usize::try_from(files / 4 * 3).unwrap_or(usize::MAX).clamp(1, 65_536)
}

/// A fixed 16,384, since Windows has no open-file limit to read: its sockets are bounded by
/// memory alone.
#[cfg(not(unix))]
fn default_max_connections() -> usize {
    16_384
}

/// The answer to a connection past the limit, written without reading its request.
const OVER_CAPACITY: &[u8] =
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nretry-after: 1\r\nconnection: close\r\n\r\n";

/// What a bound server answers with: the MCP endpoint, and the router for every other path.
struct Endpoint {
    state: Arc<HttpState>,
    router: Router,
}

impl Endpoint {
    /// Returns the service of one connection, which counts its requests in `activity`.
    ///
    /// Requests for the MCP path go straight to its handler; the router, which serves the
    /// other paths (authorization metadata, 404s), would cost each call a boxed future, a
    /// cloned service and a map of path parameters.
    fn connection(
        &self,
        activity: Arc<Activity>,
    ) -> impl hyper::service::Service<
        hyper::Request<hyper::body::Incoming>,
        Response = http::Response<TrackedBody>,
        Error = std::convert::Infallible,
        Future: Send,
    > + use<> {
        let state = self.state.clone();
        let others = hyper_util::service::TowerToHyperService::new(self.router.clone());
        hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
            let in_flight = InFlight::begin(&activity);
            let track = move |response: Response| response.map(|body| TrackedBody { body, _in_flight: in_flight });
            if request.uri().path() == state.options.path {
                let state = state.clone();
                futures::future::Either::Left(async move { Ok(track(handle(State(state), request).await)) })
            } else {
                let answer = hyper::service::Service::call(&others, request);
                futures::future::Either::Right(async move { answer.await.map(track) })
            }
        })
    }
}

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

/// What the watchdog of a connection reads: whether a request began or ended since its last
/// look, and how many are still being handled or answered.
struct Activity {
    usage: Usage,
    in_flight: AtomicUsize,
}

/// A request counted as in flight on its connection until its response's body is dropped (an
/// SSE stream is in flight for as long as it is open).
struct InFlight(Arc<Activity>);

impl InFlight {
    fn begin(activity: &Arc<Activity>) -> Self {
        activity.usage.mark();
        activity.in_flight.fetch_add(1, Ordering::Relaxed);
        InFlight(activity.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        // An end is a use too: the quiet time counts from it.
        self.0.usage.mark();
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A response body that keeps its request in flight until it is dropped.
struct TrackedBody {
    body: Body,
    _in_flight: InFlight,
}

impl hyper::body::Body for TrackedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Bytes>, axum::Error>>> {
        std::pin::Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}

/// What the watchdog of a connection tells the connection's task: to finish its exchange and
/// close (the server shuts down), or to close at once (it sent no request in time).
#[derive(Default)]
struct Alarm {
    raised: AtomicU8,
    waker: futures::task::AtomicWaker,
}

impl Alarm {
    const DRAIN: u8 = 1;
    const CLOSE: u8 = 2;

    fn raise(&self, level: u8) {
        self.raised.fetch_max(level, Ordering::AcqRel);
        self.waker.wake();
    }

    /// Returns the level raised so far (0 for none), waking the task of `cx` when it rises.
    fn level(&self, cx: &Context<'_>) -> u8 {
        self.waker.register(cx.waker());
        self.raised.load(Ordering::Acquire)
    }
}

/// Raises `alarm` to drain when `shutdown` fires and to close once the connection has been
/// quiet for `timeout`.
async fn watch(activity: Arc<Activity>, alarm: Arc<Alarm>, timeout: Option<Duration>, shutdown: CancellationToken) {
    let quiet = quiet_for(&activity, timeout);
    tokio::pin!(quiet);
    tokio::select! {
        () = shutdown.cancelled() => alarm.raise(Alarm::DRAIN),
        () = quiet.as_mut() => return alarm.raise(Alarm::CLOSE),
    }
    quiet.await;
    alarm.raise(Alarm::CLOSE);
}

/// How many quiet looks in a row the watchdog of a connection takes before ending it.
const QUIET_LOOKS: u32 = 4;

/// Returns once the connection of `activity` has had no request in flight and none begun or
/// ended for `timeout` (up to a quarter more, as the watchdog looks four times per `timeout`);
/// never when `timeout` is `None`.
///
/// This is the header read timeout: a connection that is not handling a request is reading the
/// headers of its next one. Marking requests costs a request a few atomic operations, where a
/// timer armed for each request's headers would cost a clock read, an allocation and a trip
/// through the timer wheel.
async fn quiet_for(activity: &Activity, timeout: Option<Duration>) {
    let Some(timeout) = timeout else { return std::future::pending().await };
    let mut looks = tokio::time::interval((timeout / QUIET_LOOKS).max(Duration::from_millis(1)));
    looks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        looks.tick().await;
        if activity.usage.quiet_for(QUIET_LOOKS, || activity.in_flight.load(Ordering::Relaxed) > 0) {
            return;
        }
    }
}

/// How long a connection past the limit waits for the room an idle connection it closed makes.
const ROOM_WAIT: Duration = Duration::from_secs(1);

/// The open connections of a bound server, so that a new client past the limit can take the
/// place of one that is only kept alive.
#[derive(Default)]
struct OpenConnections {
    next: AtomicU64,
    open: Mutex<FastMap<u64, Watched>>,
}

/// What the server holds of an open connection: what its watchdog reads, and its alarm.
struct Watched {
    activity: Arc<Activity>,
    alarm: Arc<Alarm>,
}

impl OpenConnections {
    /// Records a connection until the returned guard is dropped.
    fn add(self: &Arc<Self>, activity: Arc<Activity>, alarm: Arc<Alarm>) -> OpenConnection {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        lock(&self.open).insert(id, Watched { activity, alarm });
        OpenConnection { connections: self.clone(), id }
    }

    /// Closes one connection that handles no request, preferring one not used since its
    /// watchdog's last look; returns whether there was one.
    fn close_an_idle_one(&self) -> bool {
        let open = lock(&self.open);
        // A connection already told to close is making room for another newcomer.
        let idle = |w: &&Watched| {
            w.activity.in_flight.load(Ordering::Relaxed) == 0 && w.alarm.raised.load(Ordering::Acquire) < Alarm::CLOSE
        };
        let quiet = |w: &&Watched| !w.activity.usage.used.load(Ordering::Relaxed);
        let victim = open.values().filter(idle).find(quiet).or_else(|| open.values().find(idle));
        if let Some(w) = victim {
            w.alarm.raise(Alarm::CLOSE);
        }
        victim.is_some()
    }
}

/// An open connection, forgotten by its [`OpenConnections`] when dropped.
struct OpenConnection {
    connections: Arc<OpenConnections>,
    id: u64,
}

impl Drop for OpenConnection {
    fn drop(&mut self) {
        lock(&self.connections.open).remove(&self.id);
    }
}

/// Accepts connections until `shutdown` fires, serving each with `endpoint` under `limits`,
/// then lets the open ones finish their current exchange.
///
/// At the connection limit, a new connection closes one that handles no request (a client
/// keeping it alive between requests, or one that sent nothing yet) and takes its place; it is
/// answered 503 only when every connection is busy.
async fn serve_connections(
    listener: tokio::net::TcpListener,
    endpoint: Endpoint,
    limits: ConnectionLimits,
    shutdown: CancellationToken,
) {
    let permits = Arc::new(tokio::sync::Semaphore::new(limits.max_connections));
    let open = Arc::new(OpenConnections::default());
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = shutdown.cancelled() => break,
        };
        while connections.try_join_next().is_some() {}
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of descriptors or memory: wait a little rather than spin.
                tracing::warn!(error = %e, "accepting a connection failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let permit = match permits.clone().try_acquire_owned() {
            Ok(permit) => Some(permit),
            Err(_) if open.close_an_idle_one() => {
                tracing::debug!("at the connection limit: an idle connection is closed for a new one");
                None
            }
            Err(_) => {
                tracing::debug!("a connection past the limit is refused: every connection is busy");
                let _ = stream.try_write(OVER_CAPACITY);
                continue;
            }
        };
        let activity = Arc::new(Activity { usage: Usage::new(), in_flight: AtomicUsize::new(0) });
        let service = endpoint.connection(activity.clone());
        let alarm = Arc::new(Alarm::default());
        let watchdog = watch(activity.clone(), alarm.clone(), limits.header_read_timeout, shutdown.clone());
        let permits = permits.clone();
        let open = open.clone();
        connections.spawn(async move {
            let _permit = match permit {
                Some(permit) => permit,
                None => match tokio::time::timeout(ROOM_WAIT, permits.acquire_owned()).await {
                    Ok(Ok(permit)) => permit,
                    _ => {
                        let _ = stream.try_write(OVER_CAPACITY);
                        return;
                    }
                },
            };
            let _open = open.add(activity, alarm.clone());
            let _ = stream.set_nodelay(true);
            let _watchdog = tokio_util::task::AbortOnDropHandle::new(tokio::spawn(watchdog));
            // Half-closed connections are allowed: a client may end its side once it has sent
            // its request and still gets the answer. Without this hyper reads ahead to catch an
            // early end while the request is handled, and as the request's headers and body
            // still share its read buffer, it allocates a new one for each request. A client
            // gone mid-request is noticed at the next write: keep-alive comments on SSE streams,
            // the answer otherwise (a disconnection does not cancel a request). hyper's own
            // header timeout is off: the watchdog keeps it.
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder.header_read_timeout(None).half_close(true);
            let connection = builder.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
            tokio::pin!(connection);
            let mut draining = false;
            // The watchdog runs in a task of its own, so that each wake of this one (two per
            // request) polls the connection and reads the alarm, not a timer and a token.
            let ended = std::future::poll_fn(|cx| {
                loop {
                    if let Poll::Ready(result) = connection.as_mut().poll(cx) {
                        return Poll::Ready(Some(result));
                    }
                    match alarm.level(cx) {
                        Alarm::CLOSE => return Poll::Ready(None),
                        Alarm::DRAIN if !draining => {
                            draining = true;
                            connection.as_mut().graceful_shutdown();
                        }
                        _ => return Poll::Pending,
                    }
                }
            })
            .await;
            match ended {
                Some(Err(e)) => tracing::debug!(error = %e, "a connection ended with an error"),
                Some(Ok(())) => {}
                None => tracing::debug!(
                    "a connection is closed: it sent no request within the header read timeout, or made room at the limit"
                ),
            }
        });
    }
    while connections.join_next().await.is_some() {}
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

pub(super) fn error_response(status: StatusCode, code: i64, message: &str) -> Response {
    json_response(status, JsonRpcMessage::error(None, ErrorData::new(code, message)).encode())
}

/// A response with a JSON body.
pub(super) fn json_response(status: StatusCode, body: Vec<u8>) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// The `Mcp-Session-Id` header's name, parsed once: a lookup by a string parses it each time.
static SESSION_ID: HeaderName = HeaderName::from_static(SESSION_ID_HEADER);
/// The `MCP-Protocol-Version` header's name, parsed once.
static PROTOCOL_VERSION: HeaderName = HeaderName::from_static(PROTOCOL_VERSION_HEADER);
/// The `Last-Event-ID` header's name, parsed once.
static LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

/// The media types of `Accept` this endpoint looks for, as bits.
const ACCEPTS_JSON: u8 = 1;
/// `text/event-stream` in `Accept`.
const ACCEPTS_SSE: u8 = 2;

/// The headers this endpoint reads, found in one pass over a request's headers instead of a
/// lookup (and a hash of the name) each time one is needed.
///
/// Each is the first value of its name, as text; a first value that is not visible ASCII counts
/// as absent. `Accept` is read from all its values.
struct RequestHeaders<'a> {
    host: Option<&'a str>,
    origin: Option<&'a str>,
    protocol_version: Option<&'a str>,
    session_id: Option<&'a str>,
    content_type: Option<&'a str>,
    last_event_id: Option<&'a str>,
    /// The `ACCEPTS_*` bits of the media types `Accept` names; all of them for `*/*`.
    accepts: u8,
}

impl<'a> RequestHeaders<'a> {
    fn read(headers: &'a HeaderMap) -> Self {
        let mut host = None;
        let mut origin = None;
        let mut protocol_version = None;
        let mut session_id = None;
        let mut content_type = None;
        let mut last_event_id = None;
        let mut accepts = 0;
        for (name, value) in headers {
            let first: &mut Option<&HeaderValue> = if name == header::HOST {
                &mut host
            } else if name == header::ACCEPT {
                accepts |= accepted(value.as_bytes());
                continue;
            } else if name == header::CONTENT_TYPE {
                &mut content_type
            } else if name == SESSION_ID {
                &mut session_id
            } else if name == PROTOCOL_VERSION {
                &mut protocol_version
            } else if name == header::ORIGIN {
                &mut origin
            } else if name == LAST_EVENT_ID {
                &mut last_event_id
            } else {
                continue;
            };
            first.get_or_insert(value);
        }
        let text = |value: Option<&'a HeaderValue>| value.and_then(|v| v.to_str().ok());
        RequestHeaders {
            host: text(host),
            origin: text(origin),
            protocol_version: text(protocol_version),
            session_id: text(session_id),
            content_type: text(content_type),
            last_event_id: text(last_event_id),
            accepts,
        }
    }

    /// Returns whether `Accept` names every media type of `wanted` (`ACCEPTS_*` bits).
    fn accept(&self, wanted: u8) -> bool {
        self.accepts & wanted == wanted
    }
}

/// The `ACCEPTS_*` bits of the media types one `Accept` value names.
fn accepted(value: &[u8]) -> u8 {
    let mut found = 0;
    let mut rest = value;
    while !rest.is_empty() {
        let end = memchr::memchr(b',', rest).unwrap_or(rest.len());
        let item = &rest[..end];
        rest = rest.get(end + 1..).unwrap_or_default();
        let media_type = item[..memchr::memchr(b';', item).unwrap_or(item.len())].trim_ascii();
        // Media types are case-insensitive (RFC 9110 §8.3.1).
        if media_type == b"*/*" {
            return ACCEPTS_JSON | ACCEPTS_SSE;
        } else if media_type.eq_ignore_ascii_case(b"application/json") {
            found |= ACCEPTS_JSON;
        } else if media_type.eq_ignore_ascii_case(b"text/event-stream") {
            found |= ACCEPTS_SSE;
        }
    }
    found
}

impl HttpState {
    fn host_allowed(&self, host: Option<&str>) -> bool {
        let Some(host) = host else { return false };
        if self.loopback_hosts {
            return is_loopback_host(host);
        }
        self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host))
    }

    /// Logs the first refused `Host` or `Origin` header of this server with the value seen and
    /// the setting that would accept it; later refusals are not logged.
    fn log_refusal(&self, header: &str, value: Option<&str>) {
        let (logged, setting, allowed) = if header == "Host" {
            (&self.host_refusal_logged, "allowed hosts", &self.hosts)
        } else {
            (&self.origin_refusal_logged, "allowed origins", &self.origins)
        };
        if logged.swap(true, std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        let loopback = if header == "Host" { self.loopback_hosts } else { self.loopback_origins };
        let allowed = if loopback { "loopback names on any port".to_owned() } else { allowed.join(", ") };
        tracing::warn!(
            "refused a request with {header} {}: accepted are {allowed}; set the server's {setting} to the names \
             clients reach it by (later refusals are not logged)",
            value.map_or_else(|| "(none)".to_owned(), |v| format!("{v:?}")),
        );
    }

    fn origin_allowed(&self, origin: Option<&str>) -> bool {
        let Some(origin) = origin else { return true };
        if self.loopback_origins {
            let rest = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://"));
            return rest.is_some_and(is_loopback_host);
        }
        self.origins.iter().any(|o| o.eq_ignore_ascii_case(origin))
    }

    /// Finds the session a request names, checking that its `MCP-Protocol-Version` header,
    /// when present, is the version that session negotiated.
    #[allow(clippy::result_large_err)] // the error is the response to send, built once
    fn session(&self, sent: &RequestHeaders<'_>, caller: &Caller) -> Result<Arc<HttpSession>, Response> {
        let Some(id) = sent.session_id else {
            return Err(error_response(StatusCode::BAD_REQUEST, -32600, "Bad Request: missing Mcp-Session-Id header"));
        };
        let session = lock(&self.sessions).get(id).cloned();
        match session {
            Some(s) if !s.closed.is_cancelled() => {
                if self.options.require_negotiated_version
                    && let (Some(version), Some(negotiated)) = (sent.protocol_version, s.handle.negotiated_version())
                    && version != negotiated
                {
                    let message = format!(
                        "Bad Request: MCP-Protocol-Version {version} is not {negotiated}, the version this session negotiated"
                    );
                    return Err(error_response(StatusCode::BAD_REQUEST, -32600, &message));
                }
                if !same_caller(&s.owner, caller) {
                    // Another identity learns nothing of the session, not even that it exists.
                    tracing::debug!(session = %s.id, "a request for a session of another identity was refused");
                    return Err(error_response(StatusCode::NOT_FOUND, -32001, "Session not found"));
                }
                s.touch();
                set_caller(&s.handle, caller);
                Ok(s)
            }
            Some(s) => {
                lock(&self.sessions).remove(&s.id);
                Err(error_response(StatusCode::NOT_FOUND, -32001, "Session not found"))
            }
            None => Err(error_response(StatusCode::NOT_FOUND, -32001, "Session not found")),
        }
    }

    fn new_session(self: &Arc<Self>, id: String, owner: Caller) -> Arc<HttpSession> {
        // Sessions without an id (stateless requests) are never shared.
        #[cfg(feature = "redis")]
        let cluster = self.cluster.get().filter(|_| !id.is_empty()).cloned();
        #[cfg(feature = "redis")]
        let first_stream = cluster.as_ref().map_or(0, |c| c.id_base()) + STANDALONE + 1;
        #[cfg(not(feature = "redis"))]
        let first_stream = STANDALONE + 1;
        Arc::new_cyclic(|weak: &Weak<HttpSession>| {
            let (handle, input) = self.server.serve_direct(Arc::new(SessionWriter(weak.clone())));
            set_caller(&handle, &owner);
            handle.set_session_id(id.clone());
            #[cfg(feature = "redis")]
            if let Some(cluster) = &cluster {
                // The ids fit in 53 bits, so JavaScript clients read them exactly.
                handle.set_request_id_base(i64::try_from(cluster.id_base()).unwrap_or(i64::MAX));
            }
            HttpSession {
                id,
                input,
                handle,
                routes: Mutex::default(),
                next_stream: AtomicU64::new(first_stream),
                usage: Usage::new(),
                store: self.options.event_store.clone(),
                closed: CancellationToken::new(),
                max_queued: self.options.max_queued_events.max(1),
                owner,
                #[cfg(feature = "redis")]
                cluster,
                #[cfg(feature = "redis")]
                followers: Arc::default(),
            }
        })
    }

    /// Checks the request's bearer token when the server is protected.
    #[allow(clippy::result_large_err)] // the error is the response to send, built once
    async fn authenticate(&self, headers: &HeaderMap) -> Result<Caller, Response> {
        #[cfg(feature = "auth")]
        if let Some(auth) = &self.options.auth {
            return super::auth::authenticate(auth, headers).await.map(Some);
        }
        let _ = headers;
        Ok(None)
    }

    /// Refuses a message that needs scopes the caller was not granted.
    #[allow(clippy::result_large_err)] // the error is the response to send, built once
    fn check_scopes(&self, caller: &Caller, message: &JsonRpcMessage) -> Result<(), Response> {
        #[cfg(feature = "auth")]
        if let (Some(auth), Some(caller)) = (&self.options.auth, caller)
            && let Some(needed) = super::auth::missing_scopes(auth, caller, message)
        {
            return Err(super::auth::insufficient_scope(auth, &needed));
        }
        let _ = (caller, message);
        Ok(())
    }

    fn ensure_sweeper(self: &Arc<Self>) {
        let mut sweeper = lock(&self.sweeper);
        if sweeper.is_some() {
            return;
        }
        let weak = Arc::downgrade(self);
        let idle = self.options.session_idle_timeout;
        let period = (idle / 4).clamp(Duration::from_millis(10), Duration::from_secs(30));
        // A session expires at the look that finds it quiet for this many looks in a row: at
        // most one period after its idle time has passed, as with a clock read at each use.
        let quiet_looks = u32::try_from(idle.as_nanos().div_ceil(period.as_nanos())).unwrap_or(u32::MAX).max(1);
        *sweeper = Some(tokio::spawn(async move {
            loop {
                tokio::time::sleep(period).await;
                let Some(state) = weak.upgrade() else { return };
                let expired: Vec<_> = {
                    let mut sessions = lock(&state.sessions);
                    let dead: Vec<String> = sessions
                        .iter()
                        .filter(|(_, s)| s.closed.is_cancelled() || s.usage.quiet_for(quiet_looks, || s.is_busy()))
                        .map(|(id, _)| id.clone())
                        .collect();
                    dead.iter().filter_map(|id| sessions.remove(id)).collect()
                };
                for session in expired {
                    tracing::debug!(session = %session.id, "session expired");
                    session.end();
                }
            }
        }));
    }
}

/// Answers an initialize request that gets no session because the operating system's random
/// source failed: a session id that others could predict would let them join the session.
fn no_session_id(initialize: &JsonRpcMessage, error: getrandom::Error) -> Response {
    tracing::error!(%error, "the random source failed; the session is refused");
    let id = match initialize {
        JsonRpcMessage::Request(request) => Some(request.id.clone()),
        _ => None,
    };
    let error = ErrorData::internal_error("Internal error: no unpredictable session id could be made");
    let body = JsonRpcMessage::error(id, error).encode();
    json_response(StatusCode::INTERNAL_SERVER_ERROR, body)
}

async fn handle<B>(State(state): State<Arc<HttpState>>, request: http::Request<B>) -> Response
where
    B: HttpBody<Data = Bytes>,
{
    let (parts, body) = request.into_parts();
    let sent = RequestHeaders::read(&parts.headers);
    if !state.host_allowed(sent.host) {
        state.log_refusal("Host", sent.host);
        return error_response(StatusCode::FORBIDDEN, -32600, "Forbidden: invalid Host header");
    }
    if !state.origin_allowed(sent.origin) {
        state.log_refusal("Origin", sent.origin);
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

fn method_not_allowed() -> Response {
    let mut response = error_response(StatusCode::METHOD_NOT_ALLOWED, -32000, "Method not allowed");
    response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
    response
}

/// Reads a request's body whole, answering a body past `limit` bytes with 413, one that does
/// not arrive within `timeout` with 408, and one that would take the bytes held for bodies
/// still arriving past `budget` with 503.
///
/// A body that has already arrived, as a small one usually has, is read without arming the
/// timer: the read ends at the end the body announced (its length) instead of waiting for the
/// connection to confirm it.
async fn read_body<B>(
    body: B,
    limit: usize,
    timeout: Duration,
    budget: &tokio::sync::Semaphore,
) -> Result<Bytes, Response>
where
    B: HttpBody<Data = Bytes>,
{
    let read = collect_body(body, limit, budget);
    tokio::pin!(read);
    let read = match futures::poll!(read.as_mut()) {
        std::task::Poll::Ready(read) => read,
        std::task::Poll::Pending => match tokio::time::timeout(timeout, read).await {
            Ok(read) => read,
            Err(_) => {
                let message = format!("Request Timeout: the body did not arrive within {timeout:?}");
                return Err(error_response(StatusCode::REQUEST_TIMEOUT, -32600, &message));
            }
        },
    };
    read.map_err(|fault| match fault {
        BodyFault::TooLarge => {
            let message = format!("Payload Too Large: the limit is {limit} bytes");
            error_response(StatusCode::PAYLOAD_TOO_LARGE, -32600, &message)
        }
        BodyFault::Broken => error_response(StatusCode::BAD_REQUEST, -32600, "Bad Request: the body could not be read"),
        BodyFault::Busy => {
            let message = "Service Unavailable: the server holds as many request bodies as it may; retry later";
            let mut response = error_response(StatusCode::SERVICE_UNAVAILABLE, -32000, message);
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            response
        }
    })
}

/// Why a request's body was not read.
enum BodyFault {
    /// It is longer than the limit.
    TooLarge,
    /// Its transfer failed midway (a broken chunked encoding, a client gone).
    Broken,
    /// Holding it would take the bytes held for bodies still arriving past their budget.
    Busy,
}

/// Gathers a body's data up to `limit` bytes, taking from `budget` the bytes of the buffer that
/// a body arriving in several pieces is gathered into, until the body is whole.
async fn collect_body<B: HttpBody<Data = Bytes>>(
    body: B,
    limit: usize,
    budget: &tokio::sync::Semaphore,
) -> Result<Bytes, BodyFault> {
    tokio::pin!(body);
    // The length a body announces sizes the buffer once, when it comes in several pieces.
    let announced = usize::try_from(body.size_hint().lower()).unwrap_or(0).min(limit);
    let mut first: Option<Bytes> = None;
    let mut rest = Vec::new();
    let mut held: Option<tokio::sync::SemaphorePermit<'_>> = None;
    let mut len = 0usize;
    while !body.is_end_stream() {
        let Some(frame) = std::future::poll_fn(|cx| body.as_mut().poll_frame(cx)).await else { break };
        let Ok(data) = frame.map_err(|_| BodyFault::Broken)?.into_data() else { continue };
        len = len.checked_add(data.len()).filter(|&n| n <= limit).ok_or(BodyFault::TooLarge)?;
        match &first {
            None => first = Some(data),
            Some(head) => {
                // The buffer's size is counted before it is allocated, and only it: the pieces
                // hyper hands over are freed as they are copied.
                let needed = rest.len().max(head.len()) + data.len();
                if needed > rest.capacity() {
                    let capacity = if rest.is_empty() {
                        announced.max(needed)
                    } else {
                        needed.max((2 * rest.capacity()).min(limit))
                    };
                    let more = capacity - held.as_ref().map_or(0, |p| p.num_permits());
                    let permit = u32::try_from(more).ok().and_then(|n| budget.try_acquire_many(n).ok());
                    let permit = permit.ok_or(BodyFault::Busy)?;
                    match &mut held {
                        Some(held) => held.merge(permit),
                        None => held = Some(permit),
                    }
                    rest.reserve_exact(capacity - rest.len());
                }
                if rest.is_empty() {
                    rest.extend_from_slice(head);
                }
                rest.extend_from_slice(&data);
            }
        }
    }
    Ok(if rest.is_empty() { first.unwrap_or_default() } else { Bytes::from(rest) })
}

async fn post<B>(
    state: Arc<HttpState>,
    headers: &HeaderMap,
    sent: &RequestHeaders<'_>,
    body: B,
    caller: Caller,
) -> Response
where
    B: HttpBody<Data = Bytes>,
{
    if !sent.accept(ACCEPTS_JSON | ACCEPTS_SSE) {
        let message = "Not Acceptable: the client must accept both application/json and text/event-stream";
        return error_response(StatusCode::NOT_ACCEPTABLE, -32600, message);
    }
    let is_json = sent
        .content_type
        .is_some_and(|c| c.split(';').next().unwrap_or("").trim().eq_ignore_ascii_case("application/json"));
    if !is_json {
        let message = "Unsupported Media Type: the body must be application/json";
        return error_response(StatusCode::UNSUPPORTED_MEDIA_TYPE, -32600, message);
    }
    // A request for a session that does not exist is refused before its body is read.
    let named = match sent.session_id {
        Some(_) if state.options.stateful => match find_session(&state, sent, &caller).await {
            Ok(session) => Some(session),
            Err(response) => return response,
        },
        _ => None,
    };
    let bytes =
        match read_body(body, state.options.max_body_size, state.options.body_read_timeout, &state.body_budget).await {
            Ok(bytes) => bytes,
            Err(response) => return response,
        };
    let message = match JsonRpcMessage::decode(&bytes) {
        Ok(m) => m,
        Err(e) => {
            let body = JsonRpcMessage::error(e.id, e.error).encode();
            return json_response(StatusCode::BAD_REQUEST, body);
        }
    };
    if let Err(response) = state.check_scopes(&caller, &message) {
        return response;
    }
    if let Some(version) = sent.protocol_version
        && !ALL_PROTOCOL_VERSIONS.contains(&version)
    {
        let id = match &message {
            JsonRpcMessage::Request(request) => Some(request.id.clone()),
            _ => None,
        };
        return unsupported_version_header(version, id);
    }
    if let Some(response) = stateless_revision(&state, headers, sent, &message, caller.clone()).await {
        return response;
    }
    let is_initialize = matches!(&message, JsonRpcMessage::Request(r) if r.method == methods::INITIALIZE);
    if !state.options.stateful {
        return post_stateless(&state, message, is_initialize, caller).await;
    }
    if is_initialize {
        if named.is_some() {
            let message = "Bad Request: initialize must not carry a session id";
            return error_response(StatusCode::BAD_REQUEST, -32600, message);
        }
        return initialize(&state, message, caller).await;
    }
    let session = match named {
        Some(session) => session,
        None => match find_session(&state, sent, &caller).await {
            Ok(s) => s,
            Err(response) => return response,
        },
    };
    #[cfg(feature = "redis")]
    if let Some(cluster) = session.cluster.clone() {
        if !matches!(message, JsonRpcMessage::Request(_)) {
            return cluster_glue::deliver(&session, cluster, message).await;
        }
        if let Err(response) = cluster_glue::remember_level(&session, &cluster, &message).await {
            return response;
        }
    }
    let JsonRpcMessage::Request(req) = &message else {
        // Notifications and responses are accepted once handed to the session.
        return match session.deliver(message).await {
            Ok(()) => StatusCode::ACCEPTED.into_response(),
            Err(()) => error_response(StatusCode::NOT_FOUND, -32001, "Session not found"),
        };
    };
    let id = req.id.clone();
    let Some(stream) = session.open_stream(id.clone(), state.options.json_response) else {
        return id_in_use(id);
    };
    #[cfg(feature = "redis")]
    let subscription = cluster_glue::subscription_of(&message);
    let Ok(collected) = session.request(stream, message).await else {
        return error_response(StatusCode::NOT_FOUND, -32001, "Session not found");
    };
    #[cfg(feature = "redis")]
    if let Some(subscription) = subscription
        && let Err(response) = cluster_glue::record_subscription(&session, subscription).await
    {
        return response;
    }
    reply(&state, &session, stream, collected).await
}

/// Finds the session a request names: in this process, or, in a cluster, through the
/// directory (checking first that the session still exists there).
async fn find_session(
    state: &Arc<HttpState>,
    sent: &RequestHeaders<'_>,
    caller: &Caller,
) -> Result<Arc<HttpSession>, Response> {
    #[cfg(feature = "redis")]
    if let Some(cluster) = state.cluster.get().cloned() {
        return cluster_glue::find_session(state, cluster, sent, caller).await;
    }
    state.session(sent, caller)
}

fn id_in_use(id: RequestId) -> Response {
    let error = ErrorData::invalid_request(format!("request id {id} is already in use"));
    let body = JsonRpcMessage::error(Some(id), error).encode();
    json_response(StatusCode::BAD_REQUEST, body)
}

/// Answers `initialize`: the session is kept, and its id given out, only when initialization
/// succeeded; a failed one is answered with its error and leaves nothing behind.
async fn initialize(state: &Arc<HttpState>, message: JsonRpcMessage, caller: Caller) -> Response {
    let JsonRpcMessage::Request(request) = &message else { return StatusCode::ACCEPTED.into_response() };
    let request_id = request.id.clone();
    let id = match random_id() {
        Ok(id) => id,
        Err(e) => return no_session_id(&message, e),
    };
    let session = state.new_session(id, caller);
    let Some(stream) = session.open_stream(request_id, state.options.json_response) else {
        return error_response(StatusCode::INTERNAL_SERVER_ERROR, -32603, "Internal error: a new session was busy");
    };
    let Ok(collected) = session.request(stream, message).await else {
        return error_response(StatusCode::NOT_FOUND, -32001, "Session not found");
    };
    // Initialization is answered at once, in the delivery above.
    if session.handle.negotiated_version().is_none() {
        let first = match collected {
            Collected::Answer(frame) => Some(frame),
            Collected::Queue(mut queue) => queue.try_recv().ok(),
        };
        let answer = first.map(|frame| {
            let Frame::Event(_, message) = *frame;
            message
        });
        session.end();
        return match answer {
            Some(message) => json_response(StatusCode::OK, message.encode()),
            None => {
                error_response(StatusCode::INTERNAL_SERVER_ERROR, -32603, "Internal error: initialize was not answered")
            }
        };
    }
    #[cfg(feature = "redis")]
    if let Err(response) = cluster_glue::register(&session).await {
        session.end();
        return response;
    }
    state.ensure_sweeper();
    lock(&state.sessions).insert(session.id.clone(), session.clone());
    let mut response = reply(state, &session, stream, collected).await;
    if let Ok(value) = HeaderValue::from_str(&session.id) {
        response.headers_mut().insert(SESSION_ID_HEADER, value);
    }
    response
}

/// Answers one request: JSON when its response is the first thing the handler sends (and
/// JSON replies are enabled), an SSE stream otherwise.
async fn reply(state: &Arc<HttpState>, session: &Arc<HttpSession>, stream: u64, collected: Collected) -> Response {
    let mut rx = match collected {
        Collected::Answer(frame) => {
            // A quick handler answered while the request was delivered, with nothing before.
            let Frame::Event(_, message) = *frame;
            stored_before(session, &message).await;
            return json_response(StatusCode::OK, message.encode());
        }
        Collected::Queue(queue) => queue,
    };
    if state.options.json_response {
        let first = match rx.try_recv() {
            Ok(frame) => Some(frame),
            Err(_) => tokio::select! {
                frame = rx.recv() => frame,
                _ = session.closed.cancelled() => None,
            },
        };
        let Some(Frame::Event(event_id, message)) = first.map(|f| *f) else {
            if session.closed.is_cancelled() {
                return error_response(StatusCode::NOT_FOUND, -32001, "Session ended before the response");
            }
            if !session.stream_exists(stream) {
                // The client cancelled the request: its stream ends with nothing in it.
                return frames_response(Vec::new(), rx, None, session.clone());
            }
            // The handler closed its stream before sending anything: the client gets the
            // priming event and comes back for the rest.
            return sse_response(state, session, stream, None, rx);
        };
        if message.is_answer() {
            stored_before(session, &message).await;
            return json_response(StatusCode::OK, message.encode());
        }
        return sse_response(state, session, stream, Some((event_id, message)), rx);
    }
    sse_response(state, session, stream, None, rx)
}

fn sse_event(id: Option<&dyn std::fmt::Display>, message: &JsonRpcMessage) -> Bytes {
    use std::io::Write as _;
    let mut out = Vec::with_capacity(128);
    if let Some(id) = id {
        // Writing into a vector cannot fail.
        let _ = writeln!(out, "id: {id}");
    }
    out.extend_from_slice(b"event: message\ndata: ");
    message.encode_into(&mut out);
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}

/// Streams frames as SSE: a priming event first (for 2025-11-25 sessions), then every frame.
fn sse_response(
    state: &Arc<HttpState>,
    session: &Arc<HttpSession>,
    stream: u64,
    first: Option<(EventId, JsonRpcMessage)>,
    rx: FrameReceiver,
) -> Response {
    let mut head = Vec::new();
    let priming = session.handle.negotiated_version().is_none_or(|v| v >= "2025-11-25");
    if priming {
        let retry = state.options.sse_retry.as_millis();
        head.push(Bytes::from(format!("id: {}\nretry: {retry}\ndata: \n\n", event_id(stream, 0))));
    }
    if let Some((id, message)) = first {
        head.push(sse_event(Some(&id), &message));
    }
    frames_response(head, rx, state.options.keep_alive, session.clone())
}

/// In a cluster, waits until what the session's requests sent on its standalone stream before
/// `message` is stored in Redis when `message` answers a request, so that a client which got
/// the answer finds those messages on whichever process it asks next: messages keep their
/// causal order across processes. Elsewhere it returns at once.
#[cfg_attr(not(feature = "redis"), allow(unused_variables, clippy::unused_async))]
async fn stored_before(session: &HttpSession, message: &JsonRpcMessage) {
    #[cfg(feature = "redis")]
    if let Some(cluster) = &session.cluster
        && message.is_answer()
    {
        cluster.appended().await;
    }
}

fn frames_response(
    head: Vec<Bytes>,
    rx: FrameReceiver,
    keep_alive: Option<Duration>,
    session: Arc<HttpSession>,
) -> Response {
    let frames = futures::stream::unfold((rx, session), move |(mut rx, session)| async move {
        let ping = async {
            match keep_alive {
                Some(d) => tokio::time::sleep(d).await,
                None => std::future::pending().await,
            }
        };
        let closed = session.closed.clone();
        tokio::select! {
            frame = rx.recv() => match frame {
                Some(frame) => {
                    let Frame::Event(id, message) = *frame;
                    stored_before(&session, &message).await;
                    Some((sse_event(Some(&id), &message), (rx, session)))
                }
                None => None,
            },
            _ = ping => Some((Bytes::from_static(b": keep-alive\n\n"), (rx, session))),
            _ = closed.cancelled() => None,
        }
    });
    let body = futures::stream::iter(head).chain(frames).map(Ok::<_, std::convert::Infallible>);
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(body))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

async fn get(state: Arc<HttpState>, sent: &RequestHeaders<'_>, caller: &Caller) -> Response {
    if !sent.accept(ACCEPTS_SSE) {
        return error_response(
            StatusCode::NOT_ACCEPTABLE,
            -32600,
            "Not Acceptable: the client must accept text/event-stream",
        );
    }
    if !state.options.stateful {
        return method_not_allowed();
    }
    let session = match find_session(&state, sent, caller).await {
        Ok(s) => s,
        Err(response) => return response,
    };
    #[cfg(feature = "redis")]
    if let Some(cluster) = session.cluster.clone() {
        return cluster_glue::get(&state, &session, cluster, sent.last_event_id).await;
    }
    if let Some(last) = sent.last_event_id {
        return resume(&state, &session, last);
    }
    let (tx, rx) = mpsc::channel(session.max_queued);
    {
        // A GET while another is open takes its place and ends it: the client that opens a
        // new one has lost the old one, which the server may not notice for a while (a
        // connection dropped by a proxy, or a client that vanished without closing it).
        let mut routes = lock(&session.routes);
        let next_seq = routes.streams.get(&STANDALONE).map_or(1, |s| s.next_seq);
        routes
            .streams
            .insert(STANDALONE, StreamState { sink: Sink::Live(tx), next_seq, request: None, json_candidate: false });
        let backlog: Vec<_> = routes.backlog.drain(..).collect();
        for message in backlog {
            session.route_standalone(&mut routes, message);
        }
    }
    let retry = state.options.sse_retry.as_millis();
    let head = vec![Bytes::from(format!("retry: {retry}\n\n"))];
    frames_response(head, rx, state.options.keep_alive, session.clone())
}

/// Replays what a client missed on one stream and, if that stream is still live, goes on
/// delivering it on this response.
fn resume(state: &Arc<HttpState>, session: &Arc<HttpSession>, last: &str) -> Response {
    let Some((stream, seq)) = parse_event_id(last.trim()) else {
        return error_response(StatusCode::BAD_REQUEST, -32600, "Bad Request: unknown Last-Event-ID");
    };
    let (tx, rx) = mpsc::channel(session.max_queued);
    let mut routes = lock(&session.routes);
    let Some(missed) = state.options.event_store.replay(&session.id, stream, seq) else {
        return error_response(StatusCode::BAD_REQUEST, -32600, "Bad Request: the events after Last-Event-ID are gone");
    };
    let head: Vec<Bytes> = missed.iter().map(|e| sse_event(Some(&e.id.as_str()), &e.message)).collect();
    if stream == STANDALONE {
        // The replay covers what the backlog held: do not deliver it a second time.
        routes.backlog.clear();
    }
    match routes.streams.get_mut(&stream) {
        Some(live) => live.sink = Sink::Live(tx),
        None => drop(tx),
    }
    drop(routes);
    frames_response(head, rx, state.options.keep_alive, session.clone())
}

async fn delete(state: Arc<HttpState>, sent: &RequestHeaders<'_>, caller: &Caller) -> Response {
    if !state.options.stateful {
        return method_not_allowed();
    }
    let session = match find_session(&state, sent, caller).await {
        Ok(s) => s,
        Err(response) => return response,
    };
    #[cfg(feature = "redis")]
    if let Some(cluster) = &session.cluster
        && let Err(e) = cluster.delete(&session.id).await
    {
        return cluster_glue::unavailable(e);
    }
    lock(&state.sessions).remove(&session.id);
    session.end();
    StatusCode::OK.into_response()
}

/// Handles one POST without a session: a throw-away core session is initialized on the
/// client's behalf, then answers the one message.
async fn post_stateless(
    state: &Arc<HttpState>,
    message: JsonRpcMessage,
    is_initialize: bool,
    caller: Caller,
) -> Response {
    let session = state.new_session(String::new(), caller);
    let guard = EndOnDrop(session.clone());
    if !is_initialize {
        let init = serde_json::json!({
            "protocolVersion": crate::model::LATEST_PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": { "name": "stateless-client", "version": "0" }
        });
        let id = RequestId::String("mcpweft-stateless-init".into());
        let initialize = JsonRpcMessage::request(id.clone(), methods::INITIALIZE, Some(init));
        if let Some(stream) = session.open_stream(id, true)
            && let Ok(collected) = session.request(stream, initialize).await
        {
            collected.first().await;
        }
        let _ = session.deliver(JsonRpcMessage::notification(methods::NOTIFICATIONS_INITIALIZED, None)).await;
    }
    let JsonRpcMessage::Request(req) = &message else {
        return StatusCode::ACCEPTED.into_response();
    };
    let Some(stream) = session.open_stream(req.id.clone(), state.options.json_response) else {
        return id_in_use(req.id.clone());
    };
    let Ok(collected) = session.request(stream, message).await else {
        return error_response(StatusCode::INTERNAL_SERVER_ERROR, -32603, "The session ended");
    };
    let response = reply(state, &session, stream, collected).await;
    // An SSE reply is still being produced: end the session when its body is done, not now.
    let (parts, body) = response.into_parts();
    let body = body.into_data_stream().take_until(state.stopping.clone().cancelled_owned()).map(move |chunk| {
        let _ = &guard;
        chunk
    });
    Response::from_parts(parts, Body::from_stream(body))
}

/// The answer to a request whose `MCP-Protocol-Version` header names a version this server does
/// not speak: 400 with the versions it does.
fn unsupported_version_header(version: &str, id: Option<RequestId>) -> Response {
    let message = format!("Bad Request: unsupported protocol version {}", quoted(version));
    let data = serde_json::json!({ "supported": ALL_PROTOCOL_VERSIONS, "requested": version });
    let body = JsonRpcMessage::error(id, ErrorData::new(UNSUPPORTED_PROTOCOL_VERSION, message).with_data(data));
    json_response(StatusCode::BAD_REQUEST, body.encode())
}

/// Serves a request of revision 2026-07-28, which belongs to no session: its headers are
/// checked against its body, then it runs on a session of its own. Returns `None` for a
/// message of an older revision.
async fn stateless_revision(
    state: &Arc<HttpState>,
    headers: &HeaderMap,
    sent: &RequestHeaders<'_>,
    message: &JsonRpcMessage,
    caller: Caller,
) -> Option<Response> {
    let header_version = sent.protocol_version;
    let JsonRpcMessage::Request(request) = message else {
        // Notifications and responses of 2026-07-28 clients belong to no session: accepted.
        return (header_version == Some(STATELESS_PROTOCOL_VERSION) && sent.session_id.is_none())
            .then(|| StatusCode::ACCEPTED.into_response());
    };
    let meta = crate::jsonrpc::meta_of(request.params.as_ref());
    let body_version = meta.and_then(|m| m.get(meta_keys::PROTOCOL_VERSION)).and_then(Value::as_str);
    let stateless =
        header_version == Some(STATELESS_PROTOCOL_VERSION) || body_version == Some(STATELESS_PROTOCOL_VERSION);
    if !stateless || sent.session_id.is_some() && header_version != Some(STATELESS_PROTOCOL_VERSION) {
        return None;
    }
    let id = Some(request.id.clone());
    let refuse = |code: i64, message: String| {
        let body = JsonRpcMessage::error(id.clone(), ErrorData::new(code, message)).encode();
        Some(json_response(StatusCode::BAD_REQUEST, body))
    };
    let Some(body_version) = body_version else {
        return refuse(
            crate::jsonrpc::INVALID_PARAMS,
            format!(
                "a {STATELESS_PROTOCOL_VERSION} request carries its protocol version in _meta ({})",
                meta_keys::PROTOCOL_VERSION
            ),
        );
    };
    if header_version != Some(body_version) {
        return refuse(
            HEADER_MISMATCH,
            format!(
                "the MCP-Protocol-Version header ({}) does not match the request's protocol version ({body_version})",
                header_version.unwrap_or("missing")
            ),
        );
    }
    if let Some(why) = super::headers::mismatch(&state.server, headers, request) {
        return refuse(HEADER_MISMATCH, why);
    }
    let session = state.new_session(String::new(), caller);
    let guard = EndOnDrop(session.clone());
    let Some(stream) = session.open_stream(request.id.clone(), state.options.json_response) else {
        return Some(id_in_use(request.id.clone()));
    };
    let Ok(collected) = session.request(stream, message.clone()).await else {
        return Some(error_response(StatusCode::INTERNAL_SERVER_ERROR, -32603, "The session ended"));
    };
    let response = reply(state, &session, stream, collected).await;
    let (mut parts, body) = response.into_parts();
    let json = parts.headers.get(header::CONTENT_TYPE).is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    let body = if json {
        // A JSON error answer gets the HTTP status 2026-07-28 gives its code.
        let bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap_or_default();
        let code = serde_json::from_slice::<Value>(&bytes).ok().and_then(|v| v["error"]["code"].as_i64());
        match code {
            Some(METHOD_NOT_FOUND) => parts.status = StatusCode::NOT_FOUND,
            Some(
                crate::jsonrpc::INVALID_PARAMS
                | HEADER_MISMATCH
                | MISSING_REQUIRED_CLIENT_CAPABILITY
                | UNSUPPORTED_PROTOCOL_VERSION,
            ) => parts.status = StatusCode::BAD_REQUEST,
            _ => {}
        }
        drop(guard);
        Body::from(bytes)
    } else {
        Body::from_stream(body.into_data_stream().take_until(state.stopping.clone().cancelled_owned()).map(
            move |chunk| {
                let _ = &guard;
                chunk
            },
        ))
    };
    Some(Response::from_parts(parts, body))
}

struct EndOnDrop(Arc<HttpSession>);

impl Drop for EndOnDrop {
    fn drop(&mut self) {
        self.0.end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_headers_read_in_one_pass_are_the_first_of_each_name_and_every_accept() {
        let mut headers = HeaderMap::new();
        headers.append(header::HOST, HeaderValue::from_static("127.0.0.1:1"));
        headers.append(header::HOST, HeaderValue::from_static("evil.example"));
        headers.append(SESSION_ID.clone(), HeaderValue::from_bytes(b"caf\xc3\xa9").unwrap());
        headers.append(SESSION_ID.clone(), HeaderValue::from_static("second"));
        headers.append(header::ACCEPT, HeaderValue::from_static("text/html, Application/JSON;q=0.9"));
        headers.append(header::ACCEPT, HeaderValue::from_static("text/event-stream"));
        headers.append(HeaderName::from_static("mcp-protocol-version"), HeaderValue::from_static("2025-11-25"));
        let sent = RequestHeaders::read(&headers);
        assert_eq!(sent.host, Some("127.0.0.1:1"));
        assert_eq!(sent.session_id, None, "a first value that is not visible ASCII counts as absent");
        assert_eq!(sent.protocol_version, Some("2025-11-25"));
        assert_eq!((sent.origin, sent.content_type, sent.last_event_id), (None, None, None));
        assert!(sent.accept(ACCEPTS_JSON | ACCEPTS_SSE));
        assert!(!RequestHeaders::read(&HeaderMap::new()).accept(ACCEPTS_SSE));
        assert_eq!(accepted(b"text/event-stream"), ACCEPTS_SSE);
        assert_eq!(accepted(b"text/plain, */*;q=0.1"), ACCEPTS_JSON | ACCEPTS_SSE);
        assert_eq!(accepted(b"application/jsonx, ,"), 0);
    }

    #[tokio::test]
    async fn a_request_id_is_checked_and_registered_in_one_step() {
        let server = Server::builder(crate::model::Implementation::new("t", "1")).build().unwrap();
        let http = StreamableHttpServer::new(server, HttpServerOptions::new());
        let session = http.state.new_session("s".into(), None);
        let id = RequestId::Number(1);
        let stream = session.open_stream(id.clone(), true).expect("a free id");
        assert!(session.open_stream(id.clone(), true).is_none(), "a running id is refused");
        // Once abandoned (cancelled), the id is free again and its stream is gone.
        SessionWriter(Arc::downgrade(&session)).request_abandoned(&id);
        assert!(!session.stream_exists(stream));
        assert!(session.open_stream(id, true).is_some());
        session.end();
    }

    /// Sends `message` on the stream of request `id`, as the core session does.
    fn send_for(session: &HttpSession, id: &RequestId, message: JsonRpcMessage) {
        session.route(Outbound { message, related_request: Some(id.clone()) });
    }

    fn message_of(frame: Option<Box<Frame>>) -> JsonRpcMessage {
        let Frame::Event(_, message) = *frame.expect("a frame");
        message
    }

    #[tokio::test]
    async fn a_stream_collected_after_its_request_holds_what_was_sent_before_and_gets_what_comes_after() {
        let server = Server::builder(crate::model::Implementation::new("t", "1")).build().unwrap();
        let http = StreamableHttpServer::new(server, HttpServerOptions::new());
        let session = http.state.new_session("s".into(), None);
        let answer = |id: &RequestId| JsonRpcMessage::response(id.clone(), serde_json::json!({ "n": 1 }));
        let progress = || JsonRpcMessage::notification("notifications/progress", None);

        // Answered at once: the answer alone, no queue, and the id is free at once.
        let quick = RequestId::Number(1);
        let stream = session.open_stream(quick.clone(), true).unwrap();
        send_for(&session, &quick, answer(&quick));
        assert!(session.open_stream(quick.clone(), true).is_some(), "an answered id is free");
        let Collected::Answer(frame) = session.collect(stream) else { panic!("a lone answer is not queued") };
        assert_eq!(message_of(Some(frame)), answer(&quick));
        assert!(!session.stream_exists(stream));

        // A notification, then the answer, before collection: both, in order, then the end.
        let chatty = RequestId::Number(2);
        let stream = session.open_stream(chatty.clone(), true).unwrap();
        send_for(&session, &chatty, progress());
        send_for(&session, &chatty, answer(&chatty));
        let Collected::Queue(mut queue) = session.collect(stream) else { panic!("two frames need a queue") };
        assert_eq!(message_of(queue.recv().await), progress());
        assert_eq!(message_of(queue.recv().await), answer(&chatty));
        assert!(queue.recv().await.is_none());
        assert!(!session.stream_exists(stream));

        // Still running when collected: what comes later reaches the queue.
        let slow = RequestId::Number(3);
        let stream = session.open_stream(slow.clone(), true).unwrap();
        send_for(&session, &slow, progress());
        let Collected::Queue(mut queue) = session.collect(stream) else { panic!("a running request is queued") };
        assert!(session.is_busy());
        send_for(&session, &slow, answer(&slow));
        assert_eq!(message_of(queue.recv().await), progress());
        assert_eq!(message_of(queue.recv().await), answer(&slow));
        assert!(queue.recv().await.is_none());

        // Without JSON replies, a lone answer still goes through the queue (as SSE).
        let sse = RequestId::Number(4);
        let stream = session.open_stream(sse.clone(), false).unwrap();
        send_for(&session, &sse, answer(&sse));
        let Collected::Queue(mut queue) = session.collect(stream) else { panic!("SSE replies are queued") };
        assert_eq!(message_of(queue.recv().await), answer(&sse));
        assert!(queue.recv().await.is_none());

        // Ended by the server before collection (a 2025-11-25 session): what was sent before
        // goes out, then the response ends; what comes after waits in the store.
        let init = RequestId::Number(5);
        let stream = session.open_stream(init.clone(), true).unwrap();
        let params = serde_json::json!({
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "c", "version": "1" }
        });
        let initialized =
            session.request(stream, JsonRpcMessage::request(init, methods::INITIALIZE, Some(params))).await;
        assert!(matches!(initialized, Ok(Collected::Answer(_))));
        let polled = RequestId::Number(6);
        let stream = session.open_stream(polled.clone(), true).unwrap();
        send_for(&session, &polled, progress());
        SessionWriter(Arc::downgrade(&session)).close_request_stream(&polled);
        send_for(&session, &polled, progress());
        let Collected::Queue(mut queue) = session.collect(stream) else { panic!("an ended stream is queued") };
        assert_eq!(message_of(queue.recv().await), progress());
        assert!(queue.recv().await.is_none());
        assert!(session.stream_exists(stream), "the request still runs");
        session.end();
    }

    #[test]
    fn the_largest_last_event_id_replays_nothing() {
        let store = InMemoryEventStore::default();
        let message = JsonRpcMessage::notification("n", None);
        store.append("s", 3, StoredEvent { id: event_id(3, 1), message });
        assert_eq!(store.replay("s", 3, u64::MAX).map(|e| e.len()), Some(0));
        assert_eq!(store.replay("s", 3, 0).map(|e| e.len()), Some(1));
    }

    #[tokio::test]
    async fn a_failed_random_source_refuses_the_session_with_a_json_rpc_error() {
        let initialize = JsonRpcMessage::request(RequestId::Number(7), methods::INITIALIZE, None);
        let response = no_session_id(&initialize, getrandom::Error::UNSUPPORTED);
        assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert!(response.headers().get(SESSION_ID_HEADER).is_none());
        assert_eq!(response.headers()[header::CONTENT_TYPE], "application/json");
        let body = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["id"], 7);
        assert_eq!(body["error"]["code"], crate::jsonrpc::INTERNAL_ERROR);
    }
}
