//! The context a Swift handler receives.

use mcpweft_bridge::Context;
use serde_json::Value;

use crate::error::{Result, parse};

fn text(value: Value) -> String {
    value.to_string()
}

/// The context of one handler call: ids, progress, logging, cancellation and requests to the
/// peer. JSON values cross as their text.
#[derive(uniffi::Object)]
pub struct NativeContext {
    inner: Context,
}

impl NativeContext {
    pub(crate) fn new(inner: Context) -> Self {
        NativeContext { inner }
    }
}

#[uniffi::export]
impl NativeContext {
    /// Returns the JSON text of the request's id, or `None` outside a request.
    pub fn request_id(&self) -> Option<String> {
        self.inner.request_id().map(text)
    }

    /// Returns the transport's id of the session (Streamable HTTP's `Mcp-Session-Id`), when it
    /// has one.
    pub fn session_id(&self) -> Option<String> {
        self.inner.session_id()
    }

    /// Returns the JSON text of who the request came from on a protected HTTP server
    /// (`subject`, `clientId`, `issuer`, `audience`, `scopes`, `expiresAt`, `claims`), or
    /// `None` elsewhere.
    pub fn auth(&self) -> Option<String> {
        self.inner.auth().map(text)
    }

    /// Returns the JSON text of the request's `_meta`, if it had one.
    pub fn meta(&self) -> Option<String> {
        self.inner.meta().map(text)
    }

    /// Returns the JSON text of the progress token the peer asked for, if any.
    pub fn progress_token(&self) -> Option<String> {
        self.inner.progress_token().map(text)
    }

    /// Returns whether the request was cancelled or its session ended.
    pub fn is_cancelled(&self) -> bool {
        self.inner.is_cancelled()
    }

    /// Returns when the request is cancelled or its session ends (never outside a request).
    pub async fn cancelled(&self) {
        let _ = self.inner.cancelled().await;
    }

    /// Reports progress when the peer asked for it.
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<String>) -> Result<()> {
        Ok(self.inner.report_progress(progress, total, message)?)
    }

    /// Sends a log message (the JSON text `data`) at `level`, such as `"info"`.
    pub fn log(&self, level: String, data: String, logger: Option<String>) -> Result<()> {
        Ok(self.inner.log(&level, parse(&data, "the log data")?, logger.as_deref())?)
    }

    /// Returns the JSON text of the client's `clientInfo`, once it initialized.
    pub fn client_info(&self) -> Option<String> {
        self.inner.client_info().map(text)
    }

    /// Returns the JSON text of the capabilities the client declared.
    pub fn client_capabilities(&self) -> String {
        text(self.inner.client_capabilities())
    }

    /// Returns the protocol version negotiated for the session.
    pub fn protocol_version(&self) -> Option<String> {
        self.inner.protocol_version()
    }

    /// Sends a request to the peer and returns the JSON text of its result.
    pub async fn request(&self, method: String, params: String) -> Result<String> {
        let params = parse(&params, "the request params")?;
        Ok(text(self.inner.request(&method, params).await?))
    }

    /// Asks the client for input (`elicitation/create`, `sampling/createMessage` or
    /// `roots/list`, with the JSON text `params`) under `key`, the name a 2026-07-28 client
    /// answers it by, and returns the JSON text of the answer; older clients get the request at
    /// once and `key` is unused.
    pub async fn ask(&self, key: String, method: String, params: String) -> Result<String> {
        let params = parse(&params, "the request params")?;
        Ok(text(self.inner.ask(&key, &method, params).await?))
    }

    /// Returns the JSON text of the state kept by `set_state` in an earlier round of this
    /// 2026-07-28 request, if any.
    pub fn state(&self) -> Option<String> {
        self.inner.state().map(text)
    }

    /// Keeps the JSON text `state` for the next round of this 2026-07-28 request; older
    /// requests have one round and keep nothing.
    pub fn set_state(&self, state: String) -> Result<()> {
        self.inner.set_state(parse(&state, "the request state")?);
        Ok(())
    }

    /// Asks the client to sample from its model (`sampling/createMessage`).
    pub async fn sample(&self, params: String) -> Result<String> {
        Ok(text(self.inner.sample(parse(&params, "the sampling params")?).await?))
    }

    /// Asks the client to elicit input from its user (`elicitation/create`).
    pub async fn elicit(&self, params: String) -> Result<String> {
        Ok(text(self.inner.elicit(parse(&params, "the elicitation params")?).await?))
    }

    /// Asks the client for its roots (`roots/list`).
    pub async fn list_roots(&self) -> Result<String> {
        Ok(text(self.inner.list_roots().await?))
    }

    /// Sends a notification to the peer, tied to the request being handled.
    pub fn notify(&self, method: String, params: String) -> Result<()> {
        Ok(self.inner.notify(&method, parse(&params, "the notification params")?)?)
    }

    /// Tells the client that a URL-mode elicitation finished.
    pub fn notify_elicitation_complete(&self, elicitation_id: String) -> Result<()> {
        Ok(self.inner.notify_elicitation_complete(&elicitation_id)?)
    }

    /// Ends the request's SSE stream over Streamable HTTP, for the client to resume it.
    pub fn close_sse_stream(&self) -> Result<()> {
        Ok(self.inner.close_sse_stream()?)
    }
}
