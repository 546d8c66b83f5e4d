//! The context a handler receives: ids, progress, logging, cancellation, and requests to the
//! peer.
//!
//! A server handler's context sends its requests for input (sampling, elicitation, roots)
//! through [`Context::request`]; the core decides how they reach the client, so a handler is
//! written once for every protocol revision.

use mcpweft::{
    RequestContext,
    model::{LoggingLevel, methods},
    server::SessionHandle,
    session::{IncomingRequest, Peer, RequestOptions},
};
use serde::Serialize;
use serde_json::{Value, json};

use crate::{Error, Task};

#[derive(Clone)]
enum Kind {
    /// A request a server is handling.
    Server(RequestContext),
    /// A request a client is answering (sampling, elicitation, roots).
    Client(IncomingRequest),
    /// A session of a server, outside any request (the roots-changed hook).
    Session(SessionHandle),
    /// A notification, which has no request and nothing to answer.
    Notification,
}

/// The context of one handler call, cheap to clone.
#[derive(Clone)]
pub struct Context {
    kind: Kind,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context").field("request_id", &self.request_id()).finish()
    }
}

fn to_json<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Parses a level name such as `"warning"`.
pub(crate) fn logging_level(level: &str) -> Result<LoggingLevel, Error> {
    serde_json::from_value(Value::String(level.to_owned()))
        .map_err(|_| Error::invalid_input(format!("unknown logging level {level:?}")))
}

impl Context {
    pub(crate) fn server(context: RequestContext) -> Self {
        Context { kind: Kind::Server(context) }
    }

    pub(crate) fn client(request: IncomingRequest) -> Self {
        Context { kind: Kind::Client(request) }
    }

    pub(crate) fn session(session: SessionHandle) -> Self {
        Context { kind: Kind::Session(session) }
    }

    pub(crate) fn notification() -> Self {
        Context { kind: Kind::Notification }
    }

    fn incoming(&self) -> Option<&IncomingRequest> {
        match &self.kind {
            Kind::Server(c) => Some(c.incoming()),
            Kind::Client(r) => Some(r),
            Kind::Session(_) | Kind::Notification => None,
        }
    }

    fn peer(&self) -> Option<&Peer> {
        match &self.kind {
            Kind::Server(c) => Some(c.peer()),
            Kind::Client(r) => Some(&r.peer),
            Kind::Session(s) => Some(s.peer()),
            Kind::Notification => None,
        }
    }

    /// Returns the JSON-RPC id of the request being handled (a number or a string), or
    /// `None` outside a request.
    pub fn request_id(&self) -> Option<Value> {
        self.incoming().map(|r| to_json(&r.id))
    }

    /// Returns the transport's id of the session (Streamable HTTP's `Mcp-Session-Id`), when
    /// it has one.
    pub fn session_id(&self) -> Option<String> {
        match &self.kind {
            Kind::Server(c) => c.session_id().map(str::to_owned),
            Kind::Session(s) => s.session_id().map(str::to_owned),
            _ => None,
        }
    }

    /// Returns who the request came from on a protected HTTP server: `subject`, `clientId`,
    /// `issuer`, `audience`, `scopes`, `expiresAt` and `claims`, as the token verifier saw them.
    pub fn auth(&self) -> Option<Value> {
        match &self.kind {
            Kind::Server(c) => c.auth().map(|a| to_json(&*a)),
            _ => None,
        }
    }

    /// Returns the request's `_meta`, if it had one.
    pub fn meta(&self) -> Option<Value> {
        match &self.kind {
            Kind::Server(c) => c.meta().map(to_json),
            _ => None,
        }
    }

    /// Returns the progress token the peer asked for, if any.
    pub fn progress_token(&self) -> Option<Value> {
        self.incoming().and_then(|r| r.progress_token.as_ref()).map(to_json)
    }

    /// Returns whether the request was cancelled (or its session ended).
    pub fn is_cancelled(&self) -> bool {
        self.incoming().is_some_and(IncomingRequest::is_cancelled)
    }

    /// Returns a task that finishes when the request is cancelled or its session ends.
    ///
    /// Outside a request it never finishes.
    pub fn cancelled(&self) -> Task<()> {
        let token = self.incoming().map(|r| r.cancellation.clone());
        Task::new(async move {
            match token {
                Some(token) => token.cancelled_owned().await,
                None => std::future::pending().await,
            }
            Ok(())
        })
    }

    /// Reports progress when the peer asked for it, and does nothing otherwise; `progress`
    /// must increase from one call to the next.
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<String>) -> Result<(), Error> {
        match self.incoming() {
            Some(r) => r.report_progress(progress, total, message).map_err(Error::from),
            None => Ok(()),
        }
    }

    /// Sends a log message (`notifications/message`) at `level` (such as `"info"`), if the
    /// client's threshold lets it through.
    pub fn log(&self, level: &str, data: Value, logger: Option<&str>) -> Result<(), Error> {
        let level = logging_level(level)?;
        match &self.kind {
            Kind::Server(c) => c.log(level, logger, data).map_err(Error::from),
            Kind::Session(s) => s.log(level, logger, data).map_err(Error::from),
            _ => Err(Error::invalid_input("only a server can send log messages")),
        }
    }

    /// Returns the client's `clientInfo`, once it initialized.
    pub fn client_info(&self) -> Option<Value> {
        match &self.kind {
            Kind::Server(c) => c.client_info().map(|i| to_json(&i)),
            Kind::Session(s) => s.client_info().map(|i| to_json(&i)),
            _ => None,
        }
    }

    /// Returns the capabilities the client declared (an empty object when unknown).
    pub fn client_capabilities(&self) -> Value {
        match &self.kind {
            Kind::Server(c) => to_json(&c.client_capabilities()),
            Kind::Session(s) => s.client_capabilities().map(|c| to_json(&c)).unwrap_or_else(|| json!({})),
            _ => json!({}),
        }
    }

    /// Returns the protocol version negotiated for the session.
    pub fn protocol_version(&self) -> Option<String> {
        match &self.kind {
            Kind::Server(c) => c.protocol_version(),
            Kind::Session(s) => s.protocol_version(),
            _ => None,
        }
    }

    /// Sends a request to the peer and returns a task of its result.
    ///
    /// From a server handler, `sampling/createMessage`, `elicitation/create` and `roots/list`
    /// are checked against the client's capabilities (sampling with tools, form or URL mode)
    /// and tied to the request being handled; any other method goes out as it is. The task
    /// fails with kind [`crate::ErrorKind::CapabilityMissing`] when the client lacks what the
    /// request needs, and the request is cancelled with the call that made it.
    pub fn request(&self, method: &str, params: Value) -> Task<Value> {
        let method = method.to_owned();
        match self.kind.clone() {
            Kind::Server(c) => Task::new(async move { server_request(&c, &method, params).await }),
            Kind::Session(s) => Task::new(async move {
                if method == methods::ROOTS_LIST {
                    return Ok(to_json(&s.list_roots().await?));
                }
                Ok(s.peer().request(&method, Some(params), RequestOptions::default()).await?)
            }),
            Kind::Client(r) => Task::new(async move {
                let options = RequestOptions::new().with_cancel(r.cancellation.clone());
                Ok(r.peer.request(&method, Some(params), options).await?)
            }),
            Kind::Notification => Task::ready(Err(Error::invalid_input("a notification handler has no peer to ask"))),
        }
    }

    /// Asks the client for input (`elicitation/create`, `sampling/createMessage` or
    /// `roots/list`) under `key`, the name a 2026-07-28 client answers it by in
    /// `inputResponses`; for older clients this is [`Context::request`] and `key` is unused.
    /// Outside a server handler the task fails with kind `InvalidInput`.
    pub fn ask(&self, key: &str, method: &str, params: Value) -> Task<Value> {
        let (key, method) = (key.to_owned(), method.to_owned());
        match self.kind.clone() {
            Kind::Server(c) => Task::new(async move { Ok(c.ask(&key, &method, params).await?) }),
            _ => Task::ready(Err(Error::invalid_input("only a server handler asks for input"))),
        }
    }

    /// The state a server handler kept with [`Context::set_state`] in an earlier round of this
    /// 2026-07-28 request, if any.
    pub fn state(&self) -> Option<Value> {
        match &self.kind {
            Kind::Server(c) => c.state().cloned(),
            _ => None,
        }
    }

    /// Keeps `state` (JSON) for the next round of this 2026-07-28 request, inside its
    /// `requestState`; does nothing for older clients.
    pub fn set_state(&self, state: Value) {
        if let Kind::Server(c) = &self.kind {
            c.set_state(state);
        }
    }

    /// Asks the client to sample from its model (`sampling/createMessage`), tools included.
    pub fn sample(&self, params: Value) -> Task<Value> {
        self.request(methods::SAMPLING_CREATE_MESSAGE, params)
    }

    /// Asks the client to elicit input from its user (`elicitation/create`), in form mode
    /// (`requestedSchema`) or URL mode (`"mode": "url"`).
    pub fn elicit(&self, params: Value) -> Task<Value> {
        self.request(methods::ELICITATION_CREATE, params)
    }

    /// Asks the client for its roots (`roots/list`).
    pub fn list_roots(&self) -> Task<Value> {
        self.request(methods::ROOTS_LIST, json!({}))
    }

    /// Sends a notification to the peer, tied to the request being handled.
    pub fn notify(&self, method: &str, params: Value) -> Result<(), Error> {
        let peer = self.peer().ok_or_else(|| Error::invalid_input("a notification handler has no peer"))?;
        let related = self.incoming().map(IncomingRequest::related).unwrap_or_default();
        peer.notify(method, &params, related).map_err(Error::from)
    }

    /// Tells the client that the URL-mode elicitation `elicitation_id` finished
    /// (`notifications/elicitation/complete`).
    pub fn notify_elicitation_complete(&self, elicitation_id: &str) -> Result<(), Error> {
        self.notify(methods::NOTIFICATIONS_ELICITATION_COMPLETE, json!({ "elicitationId": elicitation_id }))
    }

    /// Ends the request's SSE stream over Streamable HTTP; the client resumes it after the
    /// server's `retry` delay and gets the rest, the result included. It does nothing on
    /// other transports.
    pub fn close_sse_stream(&self) -> Result<(), Error> {
        match &self.kind {
            Kind::Server(c) => c.close_sse_stream().map_err(Error::from),
            _ => Ok(()),
        }
    }
}

async fn server_request(context: &RequestContext, method: &str, params: Value) -> Result<Value, Error> {
    let parse = |what: &str| Error::invalid_input(format!("invalid {what} parameters"));
    match method {
        methods::SAMPLING_CREATE_MESSAGE => {
            let params = serde_json::from_value(params).map_err(|e| parse("sampling").with_cause(e.to_string()))?;
            Ok(to_json(&context.create_message(params).await?))
        }
        methods::ELICITATION_CREATE => {
            let params = serde_json::from_value(params).map_err(|e| parse("elicitation").with_cause(e.to_string()))?;
            Ok(to_json(&context.elicit(params).await?))
        }
        methods::ROOTS_LIST => Ok(to_json(&context.list_roots().await?)),
        _ => Ok(context.request(method, params).await?),
    }
}
