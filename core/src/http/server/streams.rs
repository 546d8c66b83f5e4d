//! The SSE side of the endpoint: a request's reply as JSON or as a stream, the standalone GET
//! stream, and the resumption of a stream with `Last-Event-ID`.

use std::{sync::Arc, time::Duration};

use axum::{
    body::{Body, Bytes},
    http::{StatusCode, header},
    response::{IntoResponse, Response},
};
use futures::StreamExt;
use tokio::sync::mpsc;

use crate::{
    http::{
        response::{error_response, json_response},
        sse::{EventId, Frame, FrameReceiver, event_id, parse_event_id, sse_event},
    },
    jsonrpc::JsonRpcMessage,
    sync::lock,
};

#[cfg(feature = "redis")]
use super::cluster_glue;
use super::{
    HttpState,
    caller::Caller,
    method_not_allowed,
    request::{ACCEPTS_SSE, RequestHeaders},
    session::{Collected, HttpSession, STANDALONE, Sink, StreamState},
    sessions::find_session,
};

/// Answers one request: JSON when its response is the first thing the handler sends (and
/// JSON replies are enabled), an SSE stream otherwise.
pub(super) async fn reply(
    state: &Arc<HttpState>,
    session: &Arc<HttpSession>,
    stream: u64,
    collected: Collected,
) -> Response {
    let mut rx = match collected {
        Collected::Answer(frame) => {
            // A quick handler answered while the request was delivered, with nothing before.
            let Frame::Event(_, message) = *frame;
            stored_before(session, &message).await;
            return json_response(StatusCode::OK, message.encode());
        }
        Collected::Queue(queue) => queue,
    };
    if state.options.json_response {
        let first = match rx.try_recv() {
            Ok(frame) => Some(frame),
            Err(_) => tokio::select! {
                frame = rx.recv() => frame,
                _ = session.closed.cancelled() => None,
            },
        };
        let Some(Frame::Event(event_id, message)) = first.map(|f| *f) else {
            if session.closed.is_cancelled() {
                return error_response(StatusCode::NOT_FOUND, -32001, "Session ended before the response");
            }
            if !session.stream_exists(stream) {
                // The client cancelled the request: its stream ends with nothing in it.
                return frames_response(Vec::new(), rx, None, session.clone());
            }
            // The handler closed its stream before sending anything: the client gets the
            // priming event and comes back for the rest.
            return sse_response(state, session, stream, None, rx);
        };
        if message.is_answer() {
            stored_before(session, &message).await;
            return json_response(StatusCode::OK, message.encode());
        }
        return sse_response(state, session, stream, Some((event_id, message)), rx);
    }
    sse_response(state, session, stream, None, rx)
}

/// Streams frames as SSE: a priming event first (for 2025-11-25 sessions), then every frame.
fn sse_response(
    state: &Arc<HttpState>,
    session: &Arc<HttpSession>,
    stream: u64,
    first: Option<(EventId, JsonRpcMessage)>,
    rx: FrameReceiver,
) -> Response {
    let mut head = Vec::new();
    let priming = session.negotiated_version().is_none_or(|v| v >= "2025-11-25");
    if priming {
        let retry = state.options.sse_retry.as_millis();
        head.push(Bytes::from(format!("id: {}\nretry: {retry}\ndata: \n\n", event_id(stream, 0))));
    }
    if let Some((id, message)) = first {
        head.push(sse_event(Some(&id), &message));
    }
    frames_response(head, rx, state.options.keep_alive, session.clone())
}

/// In a cluster, waits until what the session's requests sent on its standalone stream before
/// `message` is stored in Redis when `message` answers a request, so that a client which got
/// the answer finds those messages on whichever process it asks next: messages keep their
/// causal order across processes. Elsewhere it returns at once.
#[cfg_attr(not(feature = "redis"), allow(unused_variables, clippy::unused_async))]
async fn stored_before(session: &HttpSession, message: &JsonRpcMessage) {
    #[cfg(feature = "redis")]
    if let Some(cluster) = &session.cluster
        && message.is_answer()
    {
        cluster.appended().await;
    }
}

/// Streams `head`, then the frames of `rx` as SSE events, with keep-alive comments every
/// `keep_alive`, until the queue or the session ends.
pub(super) fn frames_response(
    head: Vec<Bytes>,
    rx: FrameReceiver,
    keep_alive: Option<Duration>,
    session: Arc<HttpSession>,
) -> Response {
    let frames = futures::stream::unfold((rx, session), move |(mut rx, session)| async move {
        let ping = async {
            match keep_alive {
                Some(d) => tokio::time::sleep(d).await,
                None => std::future::pending().await,
            }
        };
        let closed = session.closed.clone();
        tokio::select! {
            frame = rx.recv() => match frame {
                Some(frame) => {
                    let Frame::Event(id, message) = *frame;
                    stored_before(&session, &message).await;
                    Some((sse_event(Some(&id), &message), (rx, session)))
                }
                None => None,
            },
            _ = ping => Some((Bytes::from_static(b": keep-alive\n\n"), (rx, session))),
            _ = closed.cancelled() => None,
        }
    });
    let body = futures::stream::iter(head).chain(frames).map(Ok::<_, std::convert::Infallible>);
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(body))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

/// Opens the standalone GET stream of a session, or resumes a stream with `Last-Event-ID`.
pub(super) async fn get(state: Arc<HttpState>, sent: &RequestHeaders<'_>, caller: &Caller) -> Response {
    if !sent.accept(ACCEPTS_SSE) {
        return error_response(
            StatusCode::NOT_ACCEPTABLE,
            -32600,
            "Not Acceptable: the client must accept text/event-stream",
        );
    }
    if !state.options.stateful {
        return method_not_allowed();
    }
    let session = match find_session(&state, sent, caller).await {
        Ok(s) => s,
        Err(response) => return response,
    };
    #[cfg(feature = "redis")]
    if let Some(cluster) = session.cluster.clone() {
        return cluster_glue::get(&state, &session, cluster, sent.last_event_id).await;
    }
    if let Some(last) = sent.last_event_id {
        return resume(&state, &session, last);
    }
    let (tx, rx) = mpsc::channel(session.max_queued);
    {
        // A GET while another is open takes its place and ends it: the client that opens a
        // new one has lost the old one, which the server may not notice for a while (a
        // connection dropped by a proxy, or a client that vanished without closing it).
        let mut routes = lock(&session.routes);
        let next_seq = routes.streams.get(&STANDALONE).map_or(1, |s| s.next_seq);
        routes
            .streams
            .insert(STANDALONE, StreamState { sink: Sink::Live(tx), next_seq, request: None, json_candidate: false });
        let backlog: Vec<_> = routes.backlog.drain(..).collect();
        for message in backlog {
            session.route_standalone(&mut routes, message);
        }
    }
    let retry = state.options.sse_retry.as_millis();
    let head = vec![Bytes::from(format!("retry: {retry}\n\n"))];
    frames_response(head, rx, state.options.keep_alive, session.clone())
}

/// Replays what a client missed on one stream and, if that stream is still live, goes on
/// delivering it on this response.
pub(super) fn resume(state: &Arc<HttpState>, session: &Arc<HttpSession>, last: &str) -> Response {
    let Some((stream, seq)) = parse_event_id(last.trim()) else {
        return error_response(StatusCode::BAD_REQUEST, -32600, "Bad Request: unknown Last-Event-ID");
    };
    let (tx, rx) = mpsc::channel(session.max_queued);
    let mut routes = lock(&session.routes);
    let Some(missed) = state.options.event_store.replay(&session.id, stream, seq) else {
        return error_response(StatusCode::BAD_REQUEST, -32600, "Bad Request: the events after Last-Event-ID are gone");
    };
    let head: Vec<Bytes> = missed.iter().map(|e| sse_event(Some(&e.id.as_str()), &e.message)).collect();
    if stream == STANDALONE {
        // The replay covers what the backlog held: do not deliver it a second time.
        routes.backlog.clear();
    }
    match routes.streams.get_mut(&stream) {
        Some(live) => live.sink = Sink::Live(tx),
        None => drop(tx),
    }
    drop(routes);
    frames_response(head, rx, state.options.keep_alive, session.clone())
}
