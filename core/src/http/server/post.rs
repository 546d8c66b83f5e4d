//! POST, the endpoint's main path: a client's message checked and handed to its session,
//! `initialize` creating a session, and a request run on a stream of its own.

use std::sync::Arc;

use axum::{
    body::{Bytes, HttpBody},
    http::{HeaderMap, HeaderValue, StatusCode},
    response::{IntoResponse, Response},
};

use crate::{
    http::{
        response::{error_response, json_response},
        sse::Frame,
    },
    jsonrpc::{ErrorData, JsonRpcMessage, RequestId, UNSUPPORTED_PROTOCOL_VERSION, quoted},
    model::{ALL_PROTOCOL_VERSIONS, methods},
    random::random_id,
    sync::lock,
};

#[cfg(feature = "redis")]
use super::cluster_glue;
use super::{
    HttpState, LOG_TARGET, SESSION_ID_HEADER,
    caller::Caller,
    relay::initialize_answer,
    request::{ACCEPTS_JSON, ACCEPTS_SSE, RequestHeaders, read_body},
    session::{Collected, HttpSession},
    sessions::find_session,
    stateless::{post_stateless, stateless_revision},
    streams::reply,
};

/// Serves a POST: checks its headers, reads its body, and hands the message to the session it
/// names, to a new one (`initialize`), or to one of its own (stateless mode, revision
/// 2026-07-28).
pub(super) async fn post<B>(
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
        return cluster_glue::post(&state, &session, cluster, message).await;
    }
    post_to_session(&state, &session, message).await
}

/// Hands a message to a session served by this process: a request runs on a stream of its own,
/// a notification or response is accepted once handed over.
pub(super) async fn post_to_session(
    state: &Arc<HttpState>,
    session: &Arc<HttpSession>,
    message: JsonRpcMessage,
) -> Response {
    let JsonRpcMessage::Request(req) = &message else {
        return match session.deliver(message).await {
            Ok(()) => StatusCode::ACCEPTED.into_response(),
            Err(()) => error_response(StatusCode::NOT_FOUND, -32001, "Session not found"),
        };
    };
    let id = req.id.clone();
    match deliver_request(state, session, id, message).await {
        Ok((stream, collected)) => reply(state, session, stream, collected).await,
        Err(response) => response,
    }
}

/// Delivers request `message`, whose id is `id`, on a stream of its own: returns the stream and
/// what it holds once the request was delivered, or the answer that refuses the request (its
/// id is in use, or the session ended).
pub(super) async fn deliver_request(
    state: &HttpState,
    session: &HttpSession,
    id: RequestId,
    message: JsonRpcMessage,
) -> Result<(u64, Collected), Response> {
    let Some(stream) = session.open_stream(id.clone(), state.options.json_response) else {
        return Err(id_in_use(id));
    };
    let Ok(collected) = session.request(stream, message).await else {
        return Err(error_response(StatusCode::NOT_FOUND, -32001, "Session not found"));
    };
    Ok((stream, collected))
}

/// The answer to a request whose id is that of a request still running in its session.
pub(super) fn id_in_use(id: RequestId) -> Response {
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
    let Ok(mut collected) = session.request(stream, message).await else {
        return error_response(StatusCode::NOT_FOUND, -32001, "Session not found");
    };
    // A core session answers initialization at once, in the delivery above, unless a middleware
    // waits before passing it on; a relayed server answers it later.
    if session.relay().is_some() || session.negotiated_version().is_none() {
        let Some(answer) = initialize_answer(collected, session.max_queued).await else {
            session.end();
            let message = match session.relay() {
                Some(_) => "Internal error: the relayed server did not answer initialize",
                None => "Internal error: initialize was not answered",
            };
            return error_response(StatusCode::INTERNAL_SERVER_ERROR, -32603, message);
        };
        collected = answer;
    }
    if session.negotiated_version().is_none() {
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

/// Answers an initialize request that gets no session because the operating system's random
/// source failed: a session id that others could predict would let them join the session.
fn no_session_id(initialize: &JsonRpcMessage, error: getrandom::Error) -> Response {
    tracing::error!(target: LOG_TARGET, %error, "the random source failed; the session is refused");
    let id = match initialize {
        JsonRpcMessage::Request(request) => Some(request.id.clone()),
        _ => None,
    };
    let error = ErrorData::internal_error("Internal error: no unpredictable session id could be made");
    let body = JsonRpcMessage::error(id, error).encode();
    json_response(StatusCode::INTERNAL_SERVER_ERROR, body)
}

/// The answer to a request whose `MCP-Protocol-Version` header names a version this server does
/// not speak: 400 with the versions it does.
pub(super) fn unsupported_version_header(version: &str, id: Option<RequestId>) -> Response {
    let message = format!("Bad Request: unsupported protocol version {}", quoted(version));
    let data = serde_json::json!({ "supported": ALL_PROTOCOL_VERSIONS, "requested": version });
    let body = JsonRpcMessage::error(id, ErrorData::new(UNSUPPORTED_PROTOCOL_VERSION, message).with_data(data));
    json_response(StatusCode::BAD_REQUEST, body.encode())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::header;

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
