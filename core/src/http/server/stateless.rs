//! Requests that belong to no session: every POST in stateless mode, and the requests of
//! revision 2026-07-28, each run on a throw-away core session of its own.

use std::sync::Arc;

use axum::{
    body::Body,
    http::{HeaderMap, StatusCode, header},
    response::{IntoResponse, Response},
};
use futures::StreamExt;
use serde_json::Value;

use crate::{
    http::response::{error_response, json_response},
    jsonrpc::{
        ErrorData, HEADER_MISMATCH, JsonRpcMessage, METHOD_NOT_FOUND, MISSING_REQUIRED_CLIENT_CAPABILITY, RequestId,
        UNSUPPORTED_PROTOCOL_VERSION,
    },
    model::{STATELESS_PROTOCOL_VERSION, meta_keys, methods},
};

use super::{
    HttpState, caller::Caller, post::id_in_use, request::RequestHeaders, session::HttpSession, streams::reply,
};

/// Handles one POST without a session: a throw-away core session is initialized on the
/// client's behalf, then answers the one message.
pub(super) async fn post_stateless(
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

/// Serves a request of revision 2026-07-28, which belongs to no session: its headers are
/// checked against its body, then it runs on a session of its own. Returns `None` for a
/// message of an older revision.
pub(super) async fn stateless_revision(
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
    if let Some(why) = crate::http::headers::mismatch(|tool| state.header_params(tool), headers, request) {
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

/// Ends a session of its own once the request's response is done with it.
struct EndOnDrop(Arc<HttpSession>);

impl Drop for EndOnDrop {
    fn drop(&mut self) {
        self.0.end();
    }
}
