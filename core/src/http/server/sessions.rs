//! The table of a server's sessions: finding the one a request names and checking who may use
//! it, sweeping the idle ones, and ending one at the client's request (DELETE).

use std::{sync::Arc, time::Duration};

use axum::{
    http::StatusCode,
    response::{IntoResponse, Response},
};

use crate::{http::response::error_response, sync::lock};

#[cfg(feature = "redis")]
use super::cluster_glue;
use super::{
    HttpState, LOG_TARGET,
    caller::{Caller, same_caller},
    method_not_allowed,
    request::RequestHeaders,
    session::HttpSession,
};

impl HttpState {
    /// Finds the session a request names, checking that its `MCP-Protocol-Version` header,
    /// when present, is the version that session negotiated.
    #[allow(clippy::result_large_err)] // the error is the response to send, built once
    pub(super) fn session(&self, sent: &RequestHeaders<'_>, caller: &Caller) -> Result<Arc<HttpSession>, Response> {
        let Some(id) = sent.session_id else {
            return Err(error_response(StatusCode::BAD_REQUEST, -32600, "Bad Request: missing Mcp-Session-Id header"));
        };
        let session = lock(&self.sessions).get(id).cloned();
        match session {
            Some(s) if !s.closed.is_cancelled() => {
                if self.options.require_negotiated_version
                    && let (Some(version), Some(negotiated)) = (sent.protocol_version, s.negotiated_version())
                    && version != negotiated
                {
                    let message = format!(
                        "Bad Request: MCP-Protocol-Version {version} is not {negotiated}, the version this session negotiated"
                    );
                    return Err(error_response(StatusCode::BAD_REQUEST, -32600, &message));
                }
                if !same_caller(&s.owner, caller) {
                    // Another identity learns nothing of the session, not even that it exists.
                    tracing::debug!(target: LOG_TARGET, session = %s.id, "a request for a session of another identity was refused");
                    return Err(error_response(StatusCode::NOT_FOUND, -32001, "Session not found"));
                }
                s.touch();
                s.set_caller(caller);
                Ok(s)
            }
            Some(s) => {
                lock(&self.sessions).remove(&s.id);
                Err(error_response(StatusCode::NOT_FOUND, -32001, "Session not found"))
            }
            None => Err(error_response(StatusCode::NOT_FOUND, -32001, "Session not found")),
        }
    }
    /// Starts the task that ends sessions left idle past the settings' timeout, once.
    pub(super) fn ensure_sweeper(self: &Arc<Self>) {
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
                let dead: Vec<Arc<HttpSession>> = lock(&state.sessions)
                    .values()
                    .filter(|s| s.closed.is_cancelled() || s.usage.quiet_for(quiet_looks, || s.is_busy()))
                    .cloned()
                    .collect();
                for session in dead {
                    // A relayed session held for a cluster may be in use through the others.
                    if !session.closed.is_cancelled() && session.used_elsewhere().await {
                        session.touch();
                        continue;
                    }
                    let mut sessions = lock(&state.sessions);
                    if sessions.get(&session.id).is_some_and(|s| Arc::ptr_eq(s, &session)) {
                        sessions.remove(&session.id);
                    }
                    drop(sessions);
                    tracing::debug!(target: LOG_TARGET, session = %session.id, "session expired");
                    session.end();
                }
            }
        }));
    }
}

/// Finds the session a request names: in this process, or, in a cluster, through the
/// directory (checking first that the session still exists there).
pub(super) async fn find_session(
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

/// Ends the session a DELETE names, here and, in a cluster, everywhere.
pub(super) async fn delete(state: Arc<HttpState>, sent: &RequestHeaders<'_>, caller: &Caller) -> Response {
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
