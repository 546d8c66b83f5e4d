//! What a server handler can do while it runs: report progress, log, and ask the client.

use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use super::session::ServerSession;
use crate::{
    Error,
    jsonrpc::RequestId,
    model::{
        ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
        Implementation, ListRootsResult, LoggingLevel, Meta, ProgressToken, STATELESS_PROTOCOL_VERSION, meta_keys,
        methods,
    },
    session::{IncomingRequest, Peer, RequestOptions},
};

/// The context of one request a server is handling.
///
/// It is cheap to clone. Requests it sends to the client are tied to the request being
/// handled, so transports with several streams deliver them on that request's stream.
#[derive(Clone)]
pub struct RequestContext {
    pub(crate) incoming: IncomingRequest,
    pub(crate) session: Arc<ServerSession>,
    pub(crate) meta: Option<Meta>,
}

impl std::fmt::Debug for RequestContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestContext").field("id", &self.incoming.id).finish()
    }
}

impl RequestContext {
    /// Returns the id of the request being handled.
    pub fn request_id(&self) -> &RequestId {
        &self.incoming.id
    }

    /// Returns the runtime's view of the request: its peer, id, progress token and
    /// cancellation token.
    pub fn incoming(&self) -> &IncomingRequest {
        &self.incoming
    }

    /// Returns who the request came from, as the server's token verifier saw it, when the
    /// server is protected by authorization.
    ///
    /// A session only ever serves the identity that created it; the scopes are those of the
    /// token of the session's latest request.
    #[cfg(feature = "auth")]
    pub fn auth(&self) -> Option<Arc<crate::auth::AuthInfo>> {
        crate::sync::lock(&self.session.auth).clone()
    }

    /// Returns the transport's id of the session (Streamable HTTP's `Mcp-Session-Id`), when
    /// the transport has one.
    pub fn session_id(&self) -> Option<&str> {
        self.session.transport_id.get().map(String::as_str)
    }

    /// Returns the request's `_meta`, if it had one.
    pub fn meta(&self) -> Option<&Meta> {
        self.meta.as_ref()
    }

    /// Returns the progress token the client asked for, if any.
    pub fn progress_token(&self) -> Option<&ProgressToken> {
        self.incoming.progress_token.as_ref()
    }

    /// Returns whether the client cancelled the request (or the session ended).
    pub fn is_cancelled(&self) -> bool {
        self.incoming.is_cancelled()
    }

    /// Resolves when the client cancels the request or the session ends.
    pub fn cancelled(&self) -> WaitForCancellationFutureOwned {
        self.incoming.cancellation.clone().cancelled_owned()
    }

    /// Returns the token that fires on cancellation, to pass to other work.
    pub fn cancellation_token(&self) -> CancellationToken {
        self.incoming.cancellation.clone()
    }

    /// Reports progress, when the client asked for it; otherwise does nothing.
    ///
    /// `progress` must increase from one call to the next.
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<String>) -> Result<(), Error> {
        self.incoming.report_progress(progress, total, message)
    }

    /// Sends a log message to the client, if its level passes the client's threshold: the
    /// session's level, or for a 2026-07-28 request the level its `_meta` names (none without
    /// one).
    pub fn log(&self, level: LoggingLevel, logger: Option<&str>, data: impl Into<Value>) -> Result<(), Error> {
        if self.is_stateless() {
            let wanted = self.envelope(meta_keys::LOG_LEVEL).and_then(|l| serde_json::from_value(l.clone()).ok());
            return match wanted {
                Some(threshold) if level >= threshold => {
                    self.session.send_log(level, logger, data.into(), self.incoming.related())
                }
                _ => Ok(()),
            };
        }
        self.session.log(level, logger, data.into(), self.incoming.related())
    }

    /// Whether this request is one of revision 2026-07-28, which carries its client's
    /// capabilities, information and log level in its `_meta` instead of a session.
    pub fn is_stateless(&self) -> bool {
        self.meta.as_ref().and_then(|m| m.get(meta_keys::PROTOCOL_VERSION)).and_then(Value::as_str)
            == Some(STATELESS_PROTOCOL_VERSION)
    }

    /// The value of `key` in a 2026-07-28 request's `_meta`.
    fn envelope(&self, key: &str) -> Option<&Value> {
        if !self.is_stateless() {
            return None;
        }
        self.meta.as_ref()?.get(key)
    }

    /// Ends the SSE stream of this request over Streamable HTTP; the client reconnects after
    /// the server's `retry` delay and gets the rest, the result included (SSE polling). It
    /// does nothing on other transports.
    pub fn close_sse_stream(&self) -> Result<(), Error> {
        self.incoming.close_stream()
    }

    /// Returns the client's name and version, from the session or a 2026-07-28 request.
    pub fn client_info(&self) -> Option<Implementation> {
        if self.is_stateless() {
            return self.envelope(meta_keys::CLIENT_INFO).and_then(|v| serde_json::from_value(v.clone()).ok());
        }
        self.session.client_params().map(|p| p.client_info)
    }

    /// Returns the capabilities the client declared, in the session or a 2026-07-28 request.
    pub fn client_capabilities(&self) -> ClientCapabilities {
        if self.is_stateless() {
            let declared = self.envelope(meta_keys::CLIENT_CAPABILITIES);
            return declared.and_then(|v| serde_json::from_value(v.clone()).ok()).unwrap_or_default();
        }
        self.session.client_params().map(|p| p.capabilities).unwrap_or_default()
    }

    /// Returns the protocol version of this request: the session's, or 2026-07-28.
    pub fn protocol_version(&self) -> Option<String> {
        if self.is_stateless() {
            return Some(STATELESS_PROTOCOL_VERSION.to_owned());
        }
        self.session.protocol_version()
    }

    /// Returns a handle to the client, to send it arbitrary requests and notifications.
    pub fn peer(&self) -> &Peer {
        &self.incoming.peer
    }

    fn options(&self) -> RequestOptions {
        RequestOptions {
            related_request: self.incoming.related(),
            cancel: Some(self.incoming.cancellation.clone()),
            ..RequestOptions::default()
        }
    }

    /// Asks the client to sample from its language model (`sampling/createMessage`).
    pub async fn create_message(&self, params: CreateMessageRequestParams) -> Result<CreateMessageResult, Error> {
        let caps = self.client_capabilities();
        let sampling = caps.sampling.ok_or_else(|| Error::CapabilityMissing("sampling".into()))?;
        if (params.tools.is_some() || params.tool_choice.is_some()) && sampling.tools.is_none() {
            return Err(Error::CapabilityMissing("sampling.tools".into()));
        }
        self.incoming.peer.request_typed(methods::SAMPLING_CREATE_MESSAGE, &params, self.options()).await
    }

    /// Asks the client to elicit information from its user (`elicitation/create`).
    pub async fn elicit(&self, params: ElicitRequestParams) -> Result<ElicitResult, Error> {
        let caps = self.client_capabilities();
        let elicitation = caps.elicitation.ok_or_else(|| Error::CapabilityMissing("elicitation".into()))?;
        match &params {
            ElicitRequestParams::Form(_) if !elicitation.supports_form() => {
                return Err(Error::CapabilityMissing("elicitation.form".into()));
            }
            ElicitRequestParams::Url(_) if !elicitation.supports_url() => {
                return Err(Error::CapabilityMissing("elicitation.url".into()));
            }
            _ => {}
        }
        self.incoming.peer.request_typed(methods::ELICITATION_CREATE, &params, self.options()).await
    }

    /// Sends any request to the client, tied to the request being handled and cancelled with
    /// it, and returns its raw result. No capability is checked.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, Error> {
        self.incoming.peer.request(method, Some(params), self.options()).await
    }

    /// Asks the client for its roots (`roots/list`).
    pub async fn list_roots(&self) -> Result<ListRootsResult, Error> {
        if self.client_capabilities().roots.is_none() {
            return Err(Error::CapabilityMissing("roots".into()));
        }
        self.incoming.peer.request_typed(methods::ROOTS_LIST, &serde_json::json!({}), self.options()).await
    }
}
