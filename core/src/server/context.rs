//! What a server handler can do while it runs: report progress, log, and ask the client.

use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use super::{rounds::Round, session::ServerSession};
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
    /// For a 2026-07-28 request, what it knows about input across rounds.
    pub(crate) round: Option<Arc<Round>>,
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
    ///
    /// For a 2026-07-28 request the client is asked through an `input_required` result
    /// instead: without the answer yet this fails with [`Error::InputRequired`], which the
    /// handler lets through, and the call runs again once the client answers.
    pub async fn create_message(&self, params: CreateMessageRequestParams) -> Result<CreateMessageResult, Error> {
        let caps = self.client_capabilities();
        let Some(sampling) = caps.sampling else {
            return Err(self.missing("sampling", serde_json::json!({ "sampling": {} })));
        };
        if (params.tools.is_some() || params.tool_choice.is_some()) && sampling.tools.is_none() {
            return Err(self.missing("sampling.tools", serde_json::json!({ "sampling": { "tools": {} } })));
        }
        if self.round.is_some() {
            return self.ask_next(methods::SAMPLING_CREATE_MESSAGE, &params).await;
        }
        self.incoming.peer.request_typed(methods::SAMPLING_CREATE_MESSAGE, &params, self.options()).await
    }

    /// A capability the client did not declare: an error, which a 2026-07-28 request also
    /// answers with -32021 naming `declared` (the capability as the client would declare it).
    fn missing(&self, name: &str, declared: Value) -> Error {
        if let Some(round) = &self.round {
            round.missing_capability(declared);
        }
        Error::CapabilityMissing(name.into())
    }

    /// Asks a 2026-07-28 client for input under a key made from the method.
    async fn ask_next<P: serde::Serialize, R: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<R, Error> {
        let key = self.round.as_ref().map(|r| r.next_key(method)).unwrap_or_default();
        let params = serde_json::to_value(params)?;
        Ok(serde_json::from_value(self.ask(&key, method, params).await?)?)
    }

    /// Asks the client for input with `method` (`elicitation/create`, `sampling/createMessage`
    /// or `roots/list`) and `params`, and returns its raw answer.
    ///
    /// For a 2026-07-28 request `key` names the request for input in the `input_required`
    /// result: without the client's answer under it yet, this fails with
    /// [`Error::InputRequired`]; the handler lets that through and runs again, from the start,
    /// when the client retries with the answer. Work done before asking is therefore repeated
    /// on the retry; [`RequestContext::set_state`] carries what should not be. Once the call
    /// has become a task of the tasks extension, the handler is not run again: the task waits,
    /// `input_required`, until the client answers through `tasks/update`. For older
    /// revisions this sends the request to the client and waits for its answer, and `key` is
    /// not used.
    ///
    /// The client must have declared the capability the method belongs to; otherwise this
    /// fails with [`Error::CapabilityMissing`] (and a 2026-07-28 request is answered with
    /// -32021).
    pub async fn ask(&self, key: &str, method: &str, params: Value) -> Result<Value, Error> {
        let caps = self.client_capabilities();
        let declared = match method {
            methods::ELICITATION_CREATE => caps.elicitation.is_some(),
            methods::SAMPLING_CREATE_MESSAGE => caps.sampling.is_some(),
            methods::ROOTS_LIST => caps.roots.is_some(),
            _ => true,
        };
        if !declared {
            let name = method.split('/').next().unwrap_or(method);
            return Err(self.missing(name, serde_json::json!({ name: {} })));
        }
        match &self.round {
            Some(round) => match (round.take_response(key).map_err(Error::Protocol)?, round.task()) {
                (Some(answer), _) => Ok(answer),
                (None, Some((store, task_id))) => {
                    let request = serde_json::json!({ "method": method, "params": params });
                    let answer = store.ask(task_id, key, request).map_err(|e| Error::Protocol(e.message))?;
                    answer.await.map_err(|_| Error::Protocol(format!("task {task_id} ended before its input arrived")))
                }
                (None, None) => {
                    round.require(key, method, params);
                    Err(Error::InputRequired)
                }
            },
            None => self.incoming.peer.request(method, Some(params), self.options()).await,
        }
    }

    /// The state this handler set in the previous round of a 2026-07-28 request, if any.
    pub fn state(&self) -> Option<&Value> {
        self.round.as_ref()?.state()
    }

    /// Sets the state carried to the next round of a 2026-07-28 request, authenticated by the
    /// server so that the client cannot change it (it can read it). Does nothing for older
    /// revisions, whose requests have one round.
    pub fn set_state(&self, state: Value) {
        if let Some(round) = &self.round {
            round.set_state(state);
        }
    }

    /// Asks the client to elicit information from its user (`elicitation/create`).
    ///
    /// For a 2026-07-28 request the client is asked through an `input_required` result, as
    /// [`RequestContext::create_message`] describes.
    pub async fn elicit(&self, params: ElicitRequestParams) -> Result<ElicitResult, Error> {
        let caps = self.client_capabilities();
        let Some(elicitation) = caps.elicitation else {
            return Err(self.missing("elicitation", serde_json::json!({ "elicitation": {} })));
        };
        match &params {
            ElicitRequestParams::Form(_) if !elicitation.supports_form() => {
                return Err(self.missing("elicitation.form", serde_json::json!({ "elicitation": { "form": {} } })));
            }
            ElicitRequestParams::Url(_) if !elicitation.supports_url() => {
                return Err(self.missing("elicitation.url", serde_json::json!({ "elicitation": { "url": {} } })));
            }
            _ => {}
        }
        if self.round.is_some() {
            return self.ask_next(methods::ELICITATION_CREATE, &params).await;
        }
        self.incoming.peer.request_typed(methods::ELICITATION_CREATE, &params, self.options()).await
    }

    /// Sends any request to the client, tied to the request being handled and cancelled with
    /// it, and returns its raw result. No capability is checked, but for a 2026-07-28 request
    /// the requests for input (`elicitation/create`, `sampling/createMessage`, `roots/list`) go
    /// through [`RequestContext::ask`] under a key made from the method.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, Error> {
        if let Some(round) = &self.round
            && matches!(method, methods::ELICITATION_CREATE | methods::SAMPLING_CREATE_MESSAGE | methods::ROOTS_LIST)
        {
            let key = round.next_key(method);
            return self.ask(&key, method, params).await;
        }
        self.incoming.peer.request(method, Some(params), self.options()).await
    }

    /// Asks the client for its roots (`roots/list`).
    pub async fn list_roots(&self) -> Result<ListRootsResult, Error> {
        if self.client_capabilities().roots.is_none() {
            return Err(self.missing("roots", serde_json::json!({ "roots": {} })));
        }
        if self.round.is_some() {
            return self.ask_next(methods::ROOTS_LIST, &serde_json::json!({})).await;
        }
        self.incoming.peer.request_typed(methods::ROOTS_LIST, &serde_json::json!({}), self.options()).await
    }
}
