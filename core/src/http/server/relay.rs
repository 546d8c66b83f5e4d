//! Relays: HTTP sessions served by another MCP server (such as a child process spoken to over
//! stdio) instead of a [`Server`](crate::Server) of this process.
//!
//! A [`Relay`] opens one connection to the relayed server per HTTP session, and one shared
//! connection for the requests that belong to no session (revision 2026-07-28, stateless
//! mode). Messages pass as they are; the relayed server's messages carry no
//! `related_request`, so the glue here routes them: an answer to the stream of its request, a
//! progress notification to the request whose `progressToken` it names, a notification tagged
//! with a subscription id to that `subscriptions/listen` request, `notifications/cancelled` to
//! where the request it cancels went, and the relayed server's own requests and other
//! notifications to the one client request in flight when there is exactly one, else to the
//! session's GET stream. The shared connection initializes the relayed server once (later
//! clients' `initialize` is answered with its first answer), answers the relayed server's own
//! requests at once with an error (a request of no session is served on its own, so nobody
//! could answer), and rewrites the ids of requests (and their progress tokens) so that two
//! clients' ids cannot collide, restoring them on the way back.

use std::{
    fmt,
    sync::{
        Arc, Mutex, OnceLock, Weak,
        atomic::{AtomicBool, AtomicI64, Ordering},
    },
    time::Duration,
};

use futures::future::BoxFuture;
use serde_json::Value;

use crate::{
    Error,
    http::sse::Frame,
    jsonrpc::{ErrorData, JsonRpcMessage, RequestId},
    model::{headers::HeaderParam, meta_keys, methods},
    sync::{FastMap, lock},
    transport::Outbound,
};

use super::{
    LOG_TARGET,
    session::{Collected, HttpSession},
};

/// How many client requests one connection to a relayed server carries at once; more are
/// refused with a JSON-RPC error.
const MAX_IN_FLIGHT: usize = 4096;

/// How many tools' header parameters learned from `tools/list` results are kept.
const MAX_KNOWN_TOOLS: usize = 4096;

/// How long a relayed server may take to answer `initialize` (a command that starts slowly,
/// such as one fetched by a package runner, included).
const INITIALIZE_WAIT: Duration = Duration::from_secs(60);

/// A source of connections to another MCP server, which a [`StreamableHttpServer`] serves
/// over HTTP in place of a [`Server`](crate::Server) of this process.
///
/// [`StreamableHttpServer`]: super::StreamableHttpServer
pub trait Relay: Send + Sync + 'static {
    /// Opens one connection to the relayed server: everything the server sends on it goes to
    /// `sink`, and [`RelaySink::close`] tells that the connection ended. It is called once for
    /// each HTTP session, on its `initialize`, and once for the connection shared by the
    /// requests of no session, on the first of them (again after that connection ended).
    fn open(&self, sink: RelaySink) -> BoxFuture<'static, Result<Arc<dyn RelaySession>, Error>>;
}

/// One connection to a relayed server, as [`Relay::open`] made it.
pub trait RelaySession: Send + Sync + 'static {
    /// Sends one message of the client to the relayed server, waiting while its queue is full.
    fn send(&self, message: JsonRpcMessage) -> BoxFuture<'_, Result<(), Error>>;

    /// Ends the connection (for a child process: closes its stdin, then terminates it). It may
    /// be called more than once, and after the connection ended on its own.
    fn close(&self);
}

/// Where a relayed server's messages go: the HTTP session (or the requests of no session) its
/// connection serves.
#[derive(Clone)]
pub struct RelaySink(Weak<Link>);

impl fmt::Debug for RelaySink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RelaySink").field("open", &(self.0.strong_count() > 0)).finish()
    }
}

impl RelaySink {
    /// Hands one message of the relayed server to the stream it belongs to; a message for an
    /// HTTP session that has ended is dropped.
    pub fn send(&self, message: JsonRpcMessage) {
        if let Some(link) = self.0.upgrade() {
            link.route_relayed(message);
        }
    }

    /// Tells that the connection ended (for a child process: it exited or closed its stdout).
    /// The client requests still waiting are answered with an error, and the HTTP session
    /// ends, so that its client's next request gets 404 and it initializes again.
    pub fn close(&self) {
        if let Some(link) = self.0.upgrade() {
            link.relayed_closed();
        }
    }
}

/// What a server in front of a relay keeps: the relay, the connection of the requests of no
/// session, and the header parameters of the tools the relayed server listed.
pub(super) struct RelayBackend {
    relay: Arc<dyn Relay>,
    shared: Mutex<Option<Arc<Link>>>,
    tool_headers: Arc<Mutex<FastMap<String, Vec<HeaderParam>>>>,
}

impl RelayBackend {
    /// Creates the backend of `relay`.
    pub(super) fn new(relay: Arc<dyn Relay>) -> Self {
        RelayBackend { relay, shared: Mutex::default(), tool_headers: Arc::default() }
    }

    /// Returns the relay part of a new HTTP session `me`: a connection of its own for a
    /// session with an id, the shared one (made again once ended) for a request of no session.
    pub(super) fn part_for(&self, me: &Weak<HttpSession>, shared: bool) -> RelayPart {
        let link = if shared {
            let mut current = lock(&self.shared);
            match current.as_ref().filter(|l| !l.closed.load(Ordering::Acquire)) {
                Some(link) => link.clone(),
                None => {
                    let link = Arc::new(Link::new(self.relay.clone(), None, self.tool_headers.clone()));
                    *current = Some(link.clone());
                    link
                }
            }
        } else {
            Arc::new(Link::new(self.relay.clone(), Some(me.clone()), self.tool_headers.clone()))
        };
        RelayPart { link, me: me.clone(), negotiated: OnceLock::new() }
    }

    /// Returns the header parameters of tool `name`, as its last `tools/list` result showed
    /// them, when a client listed it.
    pub(super) fn header_params(&self, name: &str) -> Option<Vec<HeaderParam>> {
        lock(&self.tool_headers).get(name).cloned()
    }
}

/// The relay side of one HTTP session.
pub(super) struct RelayPart {
    link: Arc<Link>,
    me: Weak<HttpSession>,
    /// The protocol version the relayed server's `initialize` result named.
    negotiated: OnceLock<String>,
}

impl RelayPart {
    /// Returns the protocol version the relayed server answered `initialize` with.
    pub(super) fn negotiated_version(&self) -> Option<&str> {
        self.negotiated.get().map(String::as_str)
    }

    /// Hands one message of the client to the relayed server, opening the connection first
    /// when this is the first.
    pub(super) async fn deliver(&self, message: JsonRpcMessage) {
        let Some(session) = self.me.upgrade() else { return };
        let relayed = match self.link.open().await {
            Ok(relayed) => relayed,
            Err(why) => {
                if let JsonRpcMessage::Request(request) = &message {
                    let error = ErrorData::internal_error(format!("the server could not be started: {why}"));
                    answer_with_error(&session, request.id.clone(), error);
                }
                return;
            }
        };
        let Some(message) = self.link.record_outgoing(&session, message) else { return };
        if let Err(e) = relayed.send(message).await {
            tracing::debug!(target: LOG_TARGET, error = %e, "a message could not be sent to the relayed server");
            self.link.relayed_closed();
        }
    }

    /// Ends this session's part: its own connection is closed; on the shared one, its
    /// requests still running are cancelled.
    pub(super) fn end(&self) {
        if self.link.owner.is_some() {
            self.link.close();
        } else {
            self.link.forget(&self.me);
        }
    }
}

/// Answers the client's request `id` with `error` on its stream.
fn answer_with_error(session: &HttpSession, id: RequestId, error: ErrorData) {
    let message = JsonRpcMessage::error(Some(id.clone()), error);
    session.route(Outbound { message, related_request: Some(id) });
}

/// What a client request waiting for its answer needs on the way back.
struct Pending {
    session: Weak<HttpSession>,
    /// The id the client gave it.
    client_id: RequestId,
    /// The key of its progress token on this connection, and the token the client gave.
    token: Option<(String, Value)>,
    /// What its answer is read for.
    kind: Kind,
}

/// The requests whose answers the relay reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `initialize`: its result names the negotiated version.
    Initialize,
    /// `tools/list`: its tools' `x-mcp-header` parameters are learned.
    ToolsList,
    /// Any other.
    Other,
}

/// What a connection knows of the requests it carries.
#[derive(Default)]
struct Table {
    /// The client requests in flight, by the id the relayed server sees.
    requests: FastMap<RequestId, Pending>,
    /// The progress tokens of those requests, by key, naming the request.
    progress: FastMap<String, RequestId>,
    /// The relayed server's own requests, naming the client request they were sent with.
    asked: FastMap<RequestId, Option<RequestId>>,
}

/// One connection to a relayed server and the routing of its messages.
pub(super) struct Link {
    relay: Arc<dyn Relay>,
    opened: tokio::sync::OnceCell<Result<Arc<dyn RelaySession>, String>>,
    /// The one HTTP session of a connection of its own; `None` for the shared connection,
    /// whose request ids are rewritten.
    owner: Option<Weak<HttpSession>>,
    next_id: AtomicI64,
    table: Mutex<Table>,
    /// The shared connection's answer to its first `initialize`: the relayed server is
    /// initialized once, and later clients get this answer from the relay.
    initialized: OnceLock<Value>,
    closed: AtomicBool,
    tool_headers: Arc<Mutex<FastMap<String, Vec<HeaderParam>>>>,
}

impl Drop for Link {
    fn drop(&mut self) {
        if let Some(Ok(relayed)) = self.opened.get() {
            relayed.close();
        }
    }
}

/// The key of a progress token (a string or a number) in the table.
fn token_key(token: &Value) -> String {
    token.to_string()
}

/// The JSON value of a request id.
fn id_value(id: &RequestId) -> Value {
    match id {
        RequestId::Number(n) => Value::from(*n),
        RequestId::String(s) => Value::String(s.clone()),
    }
}

/// Reads a request id from JSON.
fn id_of(value: &Value) -> Option<RequestId> {
    match value {
        Value::Number(n) => n.as_i64().map(RequestId::Number),
        Value::String(s) => Some(RequestId::String(s.clone())),
        _ => None,
    }
}

/// The `_meta` object of a message's params, to change.
fn meta_mut(params: &mut Option<Value>) -> Option<&mut serde_json::Map<String, Value>> {
    params.as_mut()?.as_object_mut()?.get_mut("_meta")?.as_object_mut()
}

impl Link {
    fn new(
        relay: Arc<dyn Relay>,
        owner: Option<Weak<HttpSession>>,
        tool_headers: Arc<Mutex<FastMap<String, Vec<HeaderParam>>>>,
    ) -> Self {
        Link {
            relay,
            opened: tokio::sync::OnceCell::new(),
            owner,
            next_id: AtomicI64::new(1),
            table: Mutex::default(),
            initialized: OnceLock::new(),
            closed: AtomicBool::new(false),
            tool_headers,
        }
    }

    /// Returns the connection, opening it on first use; a failure is kept (the shared
    /// connection is then made again for the next request).
    async fn open(self: &Arc<Self>) -> Result<Arc<dyn RelaySession>, String> {
        let sink = RelaySink(Arc::downgrade(self));
        let opened =
            self.opened.get_or_init(|| async { self.relay.open(sink).await.map_err(|e| e.to_string()) }).await.clone();
        if opened.is_err() {
            self.closed.store(true, Ordering::Release);
        }
        opened
    }

    /// Closes the connection.
    fn close(&self) {
        self.closed.store(true, Ordering::Release);
        if let Some(Ok(relayed)) = self.opened.get() {
            relayed.close();
        }
    }

    /// Records a message of `session`'s client on its way to the relayed server and returns
    /// it as the server is to see it; `None` when the relay answered it itself.
    fn record_outgoing(&self, session: &Arc<HttpSession>, mut message: JsonRpcMessage) -> Option<JsonRpcMessage> {
        let rewrite = self.owner.is_none();
        if rewrite && let Some(result) = self.initialized.get() {
            match &message {
                JsonRpcMessage::Request(request) if request.method == methods::INITIALIZE => {
                    let answer = JsonRpcMessage::response(request.id.clone(), result.clone());
                    session.route(Outbound { message: answer, related_request: Some(request.id.clone()) });
                    return None;
                }
                JsonRpcMessage::Notification(notification)
                    if notification.method == methods::NOTIFICATIONS_INITIALIZED =>
                {
                    return None;
                }
                _ => {}
            }
        }
        let mut table = lock(&self.table);
        match &mut message {
            JsonRpcMessage::Request(request) => {
                if table.requests.len() >= MAX_IN_FLIGHT {
                    drop(table);
                    let error = ErrorData::internal_error("too many requests in flight for the relayed server");
                    answer_with_error(session, request.id.clone(), error);
                    return None;
                }
                let client_id = request.id.clone();
                let relayed_id = if rewrite {
                    RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed))
                } else {
                    client_id.clone()
                };
                let token = meta_mut(&mut request.params).and_then(|meta| {
                    let original = meta.get("progressToken")?.clone();
                    if rewrite {
                        meta.insert("progressToken".to_owned(), id_value(&relayed_id));
                        Some((token_key(&id_value(&relayed_id)), original))
                    } else {
                        Some((token_key(&original), original))
                    }
                });
                if let Some((key, _)) = &token {
                    table.progress.insert(key.clone(), relayed_id.clone());
                }
                let kind = match request.method.as_str() {
                    methods::INITIALIZE => Kind::Initialize,
                    methods::TOOLS_LIST => Kind::ToolsList,
                    _ => Kind::Other,
                };
                table
                    .requests
                    .insert(relayed_id.clone(), Pending { session: Arc::downgrade(session), client_id, token, kind });
                request.id = relayed_id;
            }
            JsonRpcMessage::Notification(notification) if notification.method == methods::NOTIFICATIONS_CANCELLED => {
                // The client gave up its request: its stream ends now, as the relayed server
                // does not answer a cancelled request.
                let params = notification.params.as_mut().and_then(Value::as_object_mut);
                let cancelled = params.as_ref().and_then(|p| p.get("requestId")).and_then(id_of);
                if let Some(client_id) = cancelled {
                    let relayed_id = table
                        .requests
                        .iter()
                        .find(|(_, p)| p.client_id == client_id && Weak::ptr_eq(&p.session, &Arc::downgrade(session)))
                        .map(|(id, _)| id.clone());
                    if let Some(relayed_id) = relayed_id {
                        if let Some(pending) = table.requests.remove(&relayed_id)
                            && let Some((key, _)) = pending.token
                        {
                            table.progress.remove(&key);
                        }
                        if let Some(params) = params {
                            params.insert("requestId".to_owned(), id_value(&relayed_id));
                        }
                    }
                    drop(table);
                    session.abandon(&client_id);
                }
            }
            JsonRpcMessage::Response(_) | JsonRpcMessage::Encoded(_) | JsonRpcMessage::Error(_) => {
                if let Some(id) = message.answers() {
                    table.asked.remove(id);
                }
            }
            JsonRpcMessage::Notification(_) => {}
        }
        Some(message)
    }

    /// Routes one message of the relayed server to the stream it belongs to.
    fn route_relayed(&self, mut message: JsonRpcMessage) {
        let target = {
            let mut table = lock(&self.table);
            self.target_of(&mut table, &mut message)
        };
        match (target, message) {
            (Some((session, related_request)), message) => session.route(Outbound { message, related_request }),
            // A request of the relayed server that no client can be asked (on the shared
            // connection, or once its session is gone) is answered at once, so that it never waits.
            (None, JsonRpcMessage::Request(request)) => {
                let error = ErrorData::internal_error(format!(
                    "{} cannot reach a client: requests of no session (revision 2026-07-28, stateless mode) cannot be asked anything",
                    request.method
                ));
                if let Some(Ok(relayed)) = self.opened.get() {
                    let relayed = relayed.clone();
                    let answer = JsonRpcMessage::error(Some(request.id), error);
                    tokio::spawn(async move {
                        if let Err(e) = relayed.send(answer).await {
                            tracing::debug!(target: LOG_TARGET, error = %e, "an answer could not be sent to the relayed server");
                        }
                    });
                }
            }
            (None, _) => {
                tracing::debug!(target: LOG_TARGET, "a message of the relayed server belongs to no client; dropped")
            }
        }
    }

    /// Finds where a message of the relayed server goes, restoring the ids and tokens the
    /// client gave; `None` when nobody waits for it.
    fn target_of(
        &self,
        table: &mut Table,
        message: &mut JsonRpcMessage,
    ) -> Option<(Arc<HttpSession>, Option<RequestId>)> {
        if let Some(relayed_id) = message.answers().cloned() {
            let pending = table.requests.remove(&relayed_id)?;
            if let Some((key, _)) = &pending.token {
                table.progress.remove(key);
            }
            let session = pending.session.upgrade()?;
            match message {
                JsonRpcMessage::Response(response) => {
                    response.id = pending.client_id.clone();
                    self.read_answer(&session, pending.kind, &response.result);
                }
                JsonRpcMessage::Encoded(response) => response.id = pending.client_id.clone(),
                JsonRpcMessage::Error(error) => error.id = Some(pending.client_id.clone()),
                JsonRpcMessage::Request(_) | JsonRpcMessage::Notification(_) => {}
            }
            return Some((session, Some(pending.client_id)));
        }
        match message {
            JsonRpcMessage::Notification(notification) => {
                let named = self.named_request(table, notification);
                match named {
                    Some(target) => Some(target),
                    None => self.fallback(table),
                }
            }
            // No client can answer a request of the server on the shared connection: each
            // request of no session is served on its own, so an answer would reach nobody.
            JsonRpcMessage::Request(_) if self.owner.is_none() => None,
            JsonRpcMessage::Request(request) => {
                let target = self.fallback(table);
                if table.asked.len() < MAX_IN_FLIGHT {
                    let with = target.as_ref().and_then(|(_, related)| related.clone());
                    let relayed_with = with.and_then(|client_id| {
                        table.requests.iter().find(|(_, p)| p.client_id == client_id).map(|(id, _)| id.clone())
                    });
                    table.asked.insert(request.id.clone(), relayed_with);
                }
                target
            }
            _ => None,
        }
    }

    /// The client request a notification names: by its progress token, its subscription id,
    /// or (`notifications/cancelled`) the relayed server's request it cancels; the token and
    /// subscription id are given back as the client sent them.
    fn named_request(
        &self,
        table: &mut Table,
        notification: &mut crate::jsonrpc::Notification,
    ) -> Option<(Arc<HttpSession>, Option<RequestId>)> {
        let params = notification.params.as_mut()?.as_object_mut()?;
        if notification.method == methods::NOTIFICATIONS_PROGRESS {
            let relayed_id = table.progress.get(&token_key(params.get("progressToken")?))?;
            let pending = table.requests.get(relayed_id)?;
            if let Some((_, original)) = &pending.token {
                params.insert("progressToken".to_owned(), original.clone());
            }
            return Some((pending.session.upgrade()?, Some(pending.client_id.clone())));
        }
        if notification.method == methods::NOTIFICATIONS_CANCELLED {
            let asked = id_of(params.get("requestId")?)?;
            let relayed_id = table.asked.remove(&asked)??;
            let pending = table.requests.get(&relayed_id)?;
            return Some((pending.session.upgrade()?, Some(pending.client_id.clone())));
        }
        let meta = params.get_mut("_meta")?.as_object_mut()?;
        let relayed_id = id_of(meta.get(meta_keys::SUBSCRIPTION_ID)?)?;
        let pending = table.requests.get(&relayed_id)?;
        meta.insert(meta_keys::SUBSCRIPTION_ID.to_owned(), id_value(&pending.client_id));
        Some((pending.session.upgrade()?, Some(pending.client_id.clone())))
    }

    /// Where a message of the relayed server that names no request goes: to the one client
    /// request in flight, else to the GET stream of a connection's own session; the shared
    /// connection's have nowhere else to go.
    fn fallback(&self, table: &Table) -> Option<(Arc<HttpSession>, Option<RequestId>)> {
        if table.requests.len() == 1
            && let Some(pending) = table.requests.values().next()
        {
            return Some((pending.session.upgrade()?, Some(pending.client_id.clone())));
        }
        Some((self.owner.as_ref()?.upgrade()?, None))
    }

    /// Reads what the relay needs from an answer: the negotiated version of `initialize`, the
    /// header parameters of the tools `tools/list` lists.
    fn read_answer(&self, session: &HttpSession, kind: Kind, result: &Value) {
        match kind {
            Kind::Initialize => {
                if self.owner.is_none() {
                    let _ = self.initialized.set(result.clone());
                }
                if let (Some(version), Some(part)) =
                    (result.get("protocolVersion").and_then(Value::as_str), session.relay())
                {
                    let _ = part.negotiated.set(version.to_owned());
                }
            }
            Kind::ToolsList => {
                let Some(tools) = result.get("tools").and_then(Value::as_array) else { return };
                let mut known = lock(&self.tool_headers);
                for tool in tools {
                    let (Some(name), Some(schema)) =
                        (tool.get("name").and_then(Value::as_str), tool.get("inputSchema").and_then(Value::as_object))
                    else {
                        continue;
                    };
                    let params = crate::model::headers::header_params(schema).unwrap_or_default();
                    if params.is_empty() {
                        known.remove(name);
                    } else if known.len() < MAX_KNOWN_TOOLS || known.contains_key(name) {
                        known.insert(name.to_owned(), params);
                    }
                }
            }
            Kind::Other => {}
        }
    }

    /// Ends what a connection whose server went away carried: every request still waiting is
    /// answered with an error, and a connection's own session ends.
    fn relayed_closed(&self) {
        if self.closed.swap(true, Ordering::AcqRel) {
            return;
        }
        let pending: Vec<Pending> = {
            let mut table = lock(&self.table);
            table.progress.clear();
            table.asked.clear();
            table.requests.drain().map(|(_, p)| p).collect()
        };
        for pending in pending {
            if let Some(session) = pending.session.upgrade() {
                answer_with_error(&session, pending.client_id, ErrorData::internal_error("the relayed server ended"));
            }
        }
        if let Some(owner) = self.owner.as_ref().and_then(Weak::upgrade) {
            tracing::debug!(target: LOG_TARGET, session = %owner.id, "the relayed server ended: the session ends");
            owner.end();
        }
    }

    /// Forgets the requests of an ended session of the shared connection, cancelling those
    /// the relayed server still runs.
    fn forget(&self, session: &Weak<HttpSession>) {
        let cancelled: Vec<RequestId> = {
            let mut table = lock(&self.table);
            let ids: Vec<RequestId> = table
                .requests
                .iter()
                .filter(|(_, p)| Weak::ptr_eq(&p.session, session))
                .map(|(id, _)| id.clone())
                .collect();
            for id in &ids {
                if let Some(Pending { token: Some((key, _)), .. }) = table.requests.remove(id) {
                    table.progress.remove(&key);
                }
            }
            ids
        };
        if cancelled.is_empty() {
            return;
        }
        let Some(Ok(relayed)) = self.opened.get().cloned() else { return };
        tokio::spawn(async move {
            for id in cancelled {
                let params = serde_json::json!({ "requestId": id_value(&id), "reason": "the client went away" });
                let notification = JsonRpcMessage::notification(methods::NOTIFICATIONS_CANCELLED, Some(params));
                if relayed.send(notification).await.is_err() {
                    return;
                }
            }
        });
    }
}

/// Waits (up to a minute) for the answer among the frames of a relayed `initialize`, which
/// arrives after the request was handed over; what the relayed server sends before it is
/// dropped.
pub(super) async fn initialize_answer(collected: Collected, max_frames: usize) -> Option<Collected> {
    let mut queue = match collected {
        Collected::Answer(frame) => return Some(Collected::Answer(frame)),
        Collected::Queue(queue) => queue,
    };
    let deadline = tokio::time::Instant::now() + INITIALIZE_WAIT;
    for _ in 0..=max_frames {
        let frame = tokio::time::timeout_at(deadline, queue.recv()).await.ok()??;
        let Frame::Event(_, message) = &*frame;
        if message.is_answer() {
            return Some(Collected::Answer(frame));
        }
        tracing::debug!(target: LOG_TARGET, "a message the relayed server sent before its initialize result was dropped");
    }
    None
}
