//! Where a session runs its middleware: around the role's service for what it receives, and
//! around the peer's requests and notifications for what it sends.

use std::{
    panic::AssertUnwindSafe,
    pin::Pin,
    sync::{Arc, Mutex, Weak},
    task::{Context, Poll, Waker},
};

use futures::{FutureExt as _, future::BoxFuture};
use serde_json::Value;

use super::{Direction, Endpoint, Message, MiddlewareChain, Role};
use crate::{
    Error,
    jsonrpc::{ErrorData, JsonRpcMessage, Notification, Request, RequestId, Version2},
    session::{Answer, IncomingRequest, Peer, Reply, RequestOptions, Service},
};

/// What a role knows of the session a message belongs to, for the [`Message`] fields that
/// describe it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Described {
    /// The transport's id of the session.
    pub(crate) session_id: Option<String>,
    /// The negotiated revision, or the one the message carries.
    pub(crate) protocol_version: Option<String>,
    /// Who sent the session's latest request.
    pub(crate) identity: Option<String>,
    /// The session's number, set by the chain from its peer.
    pub(crate) session_number: u64,
}

impl Message {
    /// A message of a session, described by its role's service.
    fn of(
        method: String,
        params: Option<Value>,
        id: Option<RequestId>,
        is_request: bool,
        direction: Direction,
        role: Role,
        described: Described,
    ) -> Message {
        Message {
            method,
            params,
            is_request,
            id,
            direction,
            role,
            session_id: described.session_id,
            session_number: described.session_number,
            protocol_version: described.protocol_version,
            identity: described.identity,
        }
    }
}

/// Polls `work` once in place: a chain whose middleware do not wait is done at once, in the
/// order the messages came. A panic is caught and returned.
fn poll_once<T>(work: &mut BoxFuture<'static, T>) -> Option<std::thread::Result<T>> {
    let polled = std::panic::catch_unwind(AssertUnwindSafe(|| {
        Pin::new(&mut *work).poll(&mut Context::from_waker(Waker::noop()))
    }));
    match polled {
        Ok(Poll::Ready(value)) => Some(Ok(value)),
        Ok(Poll::Pending) => None,
        Err(panic) => Some(Err(panic)),
    }
}

/// The JSON-RPC error a request fails with when its chain ends in `error`.
fn error_data(error: Error) -> ErrorData {
    match error {
        Error::Rpc(error) => error,
        other => ErrorData::internal_error(other.to_string()),
    }
}

/// A role's service with the chain around it: each received request and notification goes
/// through the chain before the service handles it.
pub(crate) struct Layered {
    inner: Arc<dyn Service>,
    chain: MiddlewareChain,
    role: Role,
}

impl Layered {
    /// Wraps `inner` in `chain`.
    pub(crate) fn new(inner: Arc<dyn Service>, chain: MiddlewareChain, role: Role) -> Self {
        Layered { inner, chain, role }
    }
}

impl Service for Layered {
    fn request(&self, request: Request, incoming: IncomingRequest) -> Reply {
        let described = Described {
            session_number: incoming.peer.session_number(),
            ..self.inner.describe(request.params.as_ref())
        };
        let Request { id, method, params, .. } = request;
        let message = Message::of(method, params, Some(id.clone()), true, Direction::Received, self.role, described);
        let inner = self.inner.clone();
        let end: Arc<Endpoint> = Arc::new(move |message: Message| {
            let request = Request { jsonrpc: Version2, id: id.clone(), method: message.method, params: message.params };
            match inner.request(request, incoming.clone()) {
                Reply::Now(outcome) => futures::future::ready(outcome.map_err(Error::Rpc)).boxed(),
                Reply::Later(work) => work.map(|outcome| outcome.map(Answer::into_value).map_err(Error::Rpc)).boxed(),
            }
        });
        let mut work = self.chain.start(end).run(message).map(|outcome| outcome.map_err(error_data)).boxed();
        match poll_once(&mut work) {
            Some(Ok(outcome)) => Reply::Now(outcome),
            Some(Err(_)) => {
                tracing::error!("a middleware panicked");
                Reply::Now(Err(ErrorData::internal_error("Internal error: a middleware panicked")))
            }
            None => Reply::later(work),
        }
    }

    fn notification(&self, notification: Notification, peer: &Peer) -> Option<BoxFuture<'static, ()>> {
        let described =
            Described { session_number: peer.session_number(), ..self.inner.describe(notification.params.as_ref()) };
        let Notification { method, params, .. } = notification;
        let message = Message::of(method, params, None, false, Direction::Received, self.role, described);
        let inner = self.inner.clone();
        let peer = peer.clone();
        let end: Arc<Endpoint> = Arc::new(move |message: Message| {
            let notification = Notification { jsonrpc: Version2, method: message.method, params: message.params };
            match inner.notification(notification, &peer) {
                Some(work) => work.map(|()| Ok(Value::Null)).boxed(),
                None => futures::future::ready(Ok(Value::Null)).boxed(),
            }
        });
        let mut work = self.chain.start(end).run(message);
        match poll_once(&mut work) {
            Some(Ok(outcome)) => {
                dropped(outcome);
                None
            }
            Some(Err(_)) => {
                tracing::error!("a middleware panicked on a notification; it was dropped");
                None
            }
            None => Some(work.map(dropped).boxed()),
        }
    }

    fn closed(&self) {
        self.inner.closed();
    }

    fn describe(&self, params: Option<&Value>) -> Described {
        self.inner.describe(params)
    }
}

/// Reports a notification that a middleware failed, which drops it.
fn dropped(outcome: Result<Value, Error>) {
    if let Err(error) = outcome {
        tracing::debug!(%error, "a middleware dropped a notification");
    }
}

/// The chain around what a session sends, kept by its peer.
pub(crate) struct Outgoing {
    chain: MiddlewareChain,
    role: Role,
    /// The role's service, which describes the session; weak, since the service holds the peer.
    service: Weak<dyn Service>,
    /// The runtime the session started on (every session starts on one), where a notification
    /// whose chain waits goes on when it is sent from a thread outside any runtime.
    runtime: tokio::runtime::Handle,
}

impl Outgoing {
    /// The chain around what a session of `service` sends, for a session starting on the
    /// current runtime.
    pub(crate) fn new(chain: MiddlewareChain, role: Role, service: Weak<dyn Service>) -> Self {
        Outgoing { chain, role, service, runtime: tokio::runtime::Handle::current() }
    }

    fn message(&self, peer: &Peer, method: &str, params: Option<Value>, is_request: bool) -> Message {
        let described = self.service.upgrade().map(|s| s.describe(params.as_ref())).unwrap_or_default();
        let described = Described { session_number: peer.session_number(), ..described };
        Message::of(method.to_owned(), params, None, is_request, Direction::Sent, self.role, described)
    }

    /// Sends a request through the chain; its end is the peer's own request. Its id is drawn
    /// first, so that the chain sees it; a middleware that passes it on again (a retry) sends
    /// it with a new id.
    pub(crate) fn request(
        &self,
        peer: &Peer,
        method: &str,
        params: Option<Value>,
        options: RequestOptions,
    ) -> BoxFuture<'static, Result<Value, Error>> {
        let mut message = self.message(peer, method, params, true);
        let id = peer.next_request_id();
        message.id = Some(id.clone());
        let first = Mutex::new(Some(id));
        let peer = peer.clone();
        let end: Arc<Endpoint> = Arc::new(move |message: Message| {
            let peer = peer.clone();
            let options = RequestOptions { id: crate::sync::lock(&first).take(), ..options.clone() };
            async move { peer.send_request(&message.method, message.params, options).await }.boxed()
        });
        self.chain.start(end).run(message)
    }

    /// Sends a notification through the chain; its end queues it for the writer. A chain that
    /// waits goes on in a task of its own, whose failure is logged: on the current runtime, or
    /// on the session's when the caller is outside any (a binding's thread, whose middleware
    /// may need that very thread to go on).
    pub(crate) fn notify(
        &self,
        peer: &Peer,
        method: &str,
        params: Option<Value>,
        related: Option<RequestId>,
    ) -> Result<(), Error> {
        let message = self.message(peer, method, params, false);
        let peer = peer.clone();
        let end: Arc<Endpoint> = Arc::new(move |message: Message| {
            let sent = peer.send(JsonRpcMessage::notification(message.method, message.params), related.clone());
            futures::future::ready(sent.map(|()| Value::Null)).boxed()
        });
        let mut work = self.chain.start(end).run(message);
        match poll_once(&mut work) {
            Some(Ok(outcome)) => outcome.map(drop),
            Some(Err(_)) => Err(Error::Protocol("a middleware panicked on a notification".into())),
            None => {
                let finish = work.map(|outcome| {
                    if let Err(error) = outcome {
                        tracing::debug!(%error, "a notification was not sent");
                    }
                });
                let runtime = tokio::runtime::Handle::try_current().unwrap_or_else(|_| self.runtime.clone());
                drop(runtime.spawn(finish));
                Ok(())
            }
        }
    }
}
