//! Middleware: an ordered chain of layers around every message a session receives and sends.
//!
//! A [`Middleware`] sees each message as a [`Message`] (method, parameters, who sent it, the
//! session and revision it belongs to) and a [`Next`] that runs the rest of the chain. It may
//! read or change the message before passing it on, look at or change the outcome, answer a
//! request itself without calling `next`, or fail it with a JSON-RPC error
//! ([`Error::Rpc`]). The chain runs in registration order: the first middleware added is the
//! outermost one.
//!
//! Both roles use the same chain, in both directions:
//! - **Received**: the peer's requests and notifications, before the server's or the client's
//!   own handling. The outcome of a request is its result or error on the wire; a
//!   notification's outcome is `Ok(Value::Null)` once it was handled, and an error drops it.
//!   Progress notifications and the runtime's part of cancellation (stopping the handler) are
//!   handled before the chain, since they belong to requests already under way.
//! - **Sent**: the requests and notifications this side sends (a server's sampling,
//!   elicitation or log messages; a client's calls), whose outcome is the peer's answer.
//!   Progress notifications this side reports do not pass through it.
//!
//! A chain whose middleware do not wait before calling `next` keeps the order of the messages:
//! the role's handling starts as soon as the message is read, as without middleware. With no
//! middleware registered nothing is wrapped, so the chain costs nothing.

mod builtin;

use std::{fmt, sync::Arc};

use async_trait::async_trait;
use futures::future::BoxFuture;
use serde_json::Value;

pub use builtin::{Cache, CacheOptions, RateLimit, RateLimitKey, Timing};

use crate::{Error, jsonrpc::RequestId};

pub(crate) mod layer;
pub mod telemetry;

/// Whether a message arrived from the peer or is on its way to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// The peer sent it to this side.
    Received,
    /// This side sends it to the peer.
    Sent,
}

/// The role of the side a chain belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// A server: it receives the client's requests and sends sampling, elicitation, roots and
    /// notifications.
    Server,
    /// A client: it sends requests and receives the server's requests and notifications.
    Client,
}

impl Role {
    /// Returns the role's name as the wire and the tracing attributes spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Server => "server",
            Role::Client => "client",
        }
    }
}

impl Direction {
    /// Returns the direction's name: `received` or `sent`.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Received => "received",
            Direction::Sent => "sent",
        }
    }
}

/// One message passing through a middleware chain.
///
/// The method and the parameters are the message's own and may be changed before it is passed
/// on; the other fields describe where it belongs and are for reading.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Message {
    /// The JSON-RPC method.
    pub method: String,
    /// The parameters, an object when present.
    pub params: Option<Value>,
    /// Whether it is a request (with an answer to come) rather than a notification.
    pub is_request: bool,
    /// The request's id on the wire; `None` for a notification.
    pub id: Option<RequestId>,
    /// Whether the peer sent it or this side sends it.
    pub direction: Direction,
    /// The role of the side the chain belongs to.
    pub role: Role,
    /// The transport's id of the session (Streamable HTTP's `Mcp-Session-Id`), when it has one.
    pub session_id: Option<String>,
    /// The session's number, unique in the process ([`Peer::session_number`](crate::Peer::session_number)); 0 for a
    /// message made by hand.
    pub session_number: u64,
    /// The protocol revision the message belongs to: the session's negotiated one, or the one
    /// a 2026-07-28 request carries in its `_meta`.
    pub protocol_version: Option<String>,
    /// Who sent the session's latest request, when the transport authenticates requests: the
    /// token's issuer, subject and client, one per line.
    pub identity: Option<String>,
}

impl Message {
    /// Creates a message with nothing known of where it belongs, as a test or a chain run by
    /// hand gives one.
    pub fn new(method: impl Into<String>, params: Option<Value>, is_request: bool) -> Self {
        Message {
            method: method.into(),
            params,
            is_request,
            id: None,
            direction: Direction::Received,
            role: Role::Server,
            session_id: None,
            session_number: 0,
            protocol_version: None,
            identity: None,
        }
    }

    /// Returns what the message is about, as the protocol's tracing conventions name it: the
    /// tool of `tools/call`, the prompt of `prompts/get`, the URI of a resource request, or the
    /// task of a task request.
    pub fn target(&self) -> Option<&str> {
        let params = self.params.as_ref()?;
        let key = match self.method.as_str() {
            "tools/call" | "prompts/get" => "name",
            "resources/read" | "resources/subscribe" | "resources/unsubscribe" | "notifications/resources/updated" => {
                "uri"
            }
            "tasks/get" | "tasks/result" | "tasks/cancel" => "taskId",
            _ => return None,
        };
        params.get(key)?.as_str()
    }

    /// Returns the message's `_meta`, if it has one.
    pub fn meta(&self) -> Option<&serde_json::Map<String, Value>> {
        self.params.as_ref()?.get("_meta")?.as_object()
    }

    /// Returns the message's `_meta` for changing, creating it (and the parameters) when
    /// missing.
    pub fn meta_mut(&mut self) -> &mut serde_json::Map<String, Value> {
        let params = self.params.get_or_insert_with(|| Value::Object(Default::default()));
        if !params.is_object() {
            *params = Value::Object(Default::default());
        }
        let Value::Object(params) = params else { unreachable!("made an object above") };
        let meta = params.entry("_meta").or_insert_with(|| Value::Object(Default::default()));
        if !meta.is_object() {
            *meta = Value::Object(Default::default());
        }
        let Value::Object(meta) = meta else { unreachable!("made an object above") };
        meta
    }

    /// Returns who the message is from, for limits and caches kept per caller: the
    /// authenticated identity, else the session (its transport id, or its number).
    pub fn caller(&self) -> String {
        match &self.identity {
            Some(identity) => format!("identity {identity}"),
            None => self.session(),
        }
    }

    /// Returns which session the message belongs to, as one string: the transport's id, or the
    /// session's number when the transport has none.
    pub fn session(&self) -> String {
        match &self.session_id {
            Some(id) => format!("session {id}"),
            None => format!("session number {}", self.session_number),
        }
    }
}

/// A layer around the messages of a session.
///
/// Closures `Fn(Message, Next) -> impl Future<Output = Result<Value, Error>>` implement it.
#[async_trait]
pub trait Middleware: Send + Sync + 'static {
    /// Handles one message: usually passes it on with `next.run(message).await`, before and
    /// after which it may do its own work; returning without calling `next` answers the message
    /// here, and an [`Error::Rpc`] fails a request with that JSON-RPC error.
    async fn handle(&self, message: Message, next: Next) -> Result<Value, Error>;
}

#[async_trait]
impl<F, Fut> Middleware for F
where
    F: Fn(Message, Next) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Result<Value, Error>> + Send + 'static,
{
    async fn handle(&self, message: Message, next: Next) -> Result<Value, Error> {
        self(message, next).await
    }
}

/// What handles a message once every middleware has passed it on.
pub(crate) type Endpoint = dyn Fn(Message) -> BoxFuture<'static, Result<Value, Error>> + Send + Sync;

/// The rest of a chain, given to each middleware: [`Next::run`] passes a message on.
#[derive(Clone)]
pub struct Next {
    chain: Arc<[Arc<dyn Middleware>]>,
    index: usize,
    end: Arc<Endpoint>,
}

impl fmt::Debug for Next {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Next").field("remaining", &(self.chain.len() - self.index)).finish()
    }
}

impl Next {
    /// Runs the rest of the chain on `message` and then the role's own handling (or, for a
    /// sent message, the transport), returning the outcome. It may be called more than once,
    /// to retry.
    pub fn run(&self, message: Message) -> BoxFuture<'static, Result<Value, Error>> {
        match self.chain.get(self.index) {
            Some(middleware) => {
                let middleware = middleware.clone();
                let next = Next { chain: self.chain.clone(), index: self.index + 1, end: self.end.clone() };
                Box::pin(async move { middleware.handle(message, next).await })
            }
            None => (self.end)(message),
        }
    }
}

/// An ordered list of middleware, as server and client options hold it; the first added is the
/// outermost. Cloning it is cheap: every session of a server shares its chain.
#[derive(Clone)]
pub struct MiddlewareChain {
    layers: Arc<[Arc<dyn Middleware>]>,
}

impl Default for MiddlewareChain {
    fn default() -> Self {
        MiddlewareChain { layers: Arc::new([]) }
    }
}

impl fmt::Debug for MiddlewareChain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MiddlewareChain").field("len", &self.layers.len()).finish()
    }
}

impl MiddlewareChain {
    /// Creates an empty chain.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a middleware inside those already added.
    pub fn push(&mut self, middleware: impl Middleware) {
        self.push_arc(Arc::new(middleware));
    }

    /// Adds a middleware that is already shared (several servers or clients may use one).
    pub fn push_arc(&mut self, middleware: Arc<dyn Middleware>) {
        let mut layers = self.layers.to_vec();
        layers.push(middleware);
        self.layers = layers.into();
    }

    /// Returns how many middleware the chain has.
    pub fn len(&self) -> usize {
        self.layers.len()
    }

    /// Returns whether the chain has no middleware.
    pub fn is_empty(&self) -> bool {
        self.layers.is_empty()
    }

    /// Runs `message` through the chain and then `end`, as a session does; for tests of a
    /// middleware and for chains an application runs itself.
    pub fn run(
        &self,
        message: Message,
        end: impl Fn(Message) -> BoxFuture<'static, Result<Value, Error>> + Send + Sync + 'static,
    ) -> BoxFuture<'static, Result<Value, Error>> {
        self.start(Arc::new(end)).run(message)
    }

    /// The first link of the chain, ending in `end`.
    pub(crate) fn start(&self, end: Arc<Endpoint>) -> Next {
        Next { chain: self.layers.clone(), index: 0, end }
    }
}
