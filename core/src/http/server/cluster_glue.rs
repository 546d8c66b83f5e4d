//! Where the HTTP server meets the cluster (feature `redis`): connecting on the first request,
//! finding and rebuilding sessions through the directory, routing the client's messages to the
//! process they belong to, and serving GET streams from Redis.
//!
//! A relayed session cannot be rebuilt: its connection (a child process) lives in the process
//! that initialized it, which the directory names. Another process keeps a copy that forwards
//! every message of the client to that one over its channel, a request with the id of a
//! stream it mints, and answers the request by following that stream in Redis, where the
//! owning process stores the relayed server's messages for it. When the owning process is
//! gone, the session is removed and its client gets 404, so that it initializes again.

use std::sync::{
    Arc,
    atomic::{AtomicU64, Ordering},
};

use axum::{
    body::Bytes,
    http::{HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
};
use serde_json::Value;

use crate::{
    http::{
        cluster::{BusEvent, Cluster, ClusterTasks, Unavailable, entry_of, owner_of},
        response::error_response,
    },
    jsonrpc::{ErrorData, JsonRpcMessage, RequestId},
    model::methods,
    sync::lock,
};

use super::{
    HttpState,
    caller::Caller,
    post::{deliver_request, post_to_session},
    request::RequestHeaders,
    session::{Collected, HttpSession, STANDALONE},
    streams::{frames_response, reply, resume},
};

/// Counts one open followed stream of a session while it lives.
struct Follower(Arc<AtomicU64>);

impl Drop for Follower {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The answer to a request that needed Redis while it failed.
pub(super) fn unavailable(error: Unavailable) -> Response {
    tracing::warn!(error = %error.0, "Redis failed: the request is answered 503");
    let mut response = error_response(
        StatusCode::SERVICE_UNAVAILABLE,
        crate::jsonrpc::INTERNAL_ERROR,
        "Service Unavailable: the shared session store (Redis) cannot be reached",
    );
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

/// Joins the cluster the options name, once; until that succeeds every request is answered 503.
pub(super) async fn connect(state: &Arc<HttpState>) -> Result<(), Response> {
    let Some(options) = &state.options.cluster else { return Ok(()) };
    if state.cluster.initialized() {
        return Ok(());
    }
    let weak = Arc::downgrade(state);
    let on_event: Arc<dyn Fn(BusEvent) + Send + Sync> = Arc::new(move |event| {
        if let Some(state) = weak.upgrade() {
            on_bus_event(&state, event);
        }
    });
    state
        .cluster
        .get_or_try_init(|| async {
            let (cluster, key) =
                Cluster::connect(options.clone(), state.options.session_idle_timeout, on_event).await?;
            // A relayed server keeps its own tasks, keys and resources.
            let Some(server) = state.server() else { return Ok(cluster) };
            server.share_round_key(key);
            server.share_tasks(Arc::new(ClusterTasks(Arc::downgrade(&cluster))));
            let updates = Arc::downgrade(&cluster);
            server.route_resource_updates(Arc::new(move |uri: &str| {
                if let Some(cluster) = updates.upgrade() {
                    cluster.resource_updated(uri);
                }
            }));
            Ok(cluster)
        })
        .await
        .map(|_| ())
        .map_err(unavailable)
}

/// Acts on what another process asks of a session this one may hold.
fn on_bus_event(state: &Arc<HttpState>, event: BusEvent) {
    match event {
        BusEvent::Deliver { session: id, message, stream } => {
            let Some(session) = lock(&state.sessions).get(&id).cloned() else {
                tracing::debug!(session = id, "a message for a session this process does not hold was dropped");
                if let (Some(stream), JsonRpcMessage::Request(request), Some(cluster)) =
                    (stream, &message, state.cluster.get())
                {
                    // The process that forwarded it follows the stream: it ends with an error.
                    let error = ErrorData::new(-32001, "Session not found");
                    cluster.append(
                        &id,
                        stream,
                        1,
                        &request.id,
                        &JsonRpcMessage::error(Some(request.id.clone()), error),
                    );
                }
                return;
            };
            session.touch();
            tokio::spawn(async move { deliver_forwarded(&session, message, stream).await });
        }
        BusEvent::End { session } => {
            if let Some(session) = lock(&state.sessions).remove(&session) {
                session.end();
            }
        }
        BusEvent::ResourceUpdated { uri } => {
            if let Some(server) = state.server() {
                server.publish_resource_update(&uri);
            }
        }
        BusEvent::Task { scope, task_id, command } => {
            if let Some(server) = state.server() {
                server.apply_task_command(&scope, &task_id, &command);
            }
        }
        BusEvent::Level { session, level } => {
            let Some(session) = lock(&state.sessions).get(&session).cloned().filter(|s| !s.is_relayed()) else {
                return;
            };
            tokio::spawn(async move {
                replay_request(&session, set_level_request(level)).await;
            });
        }
    }
}

/// Hands a message that another process forwarded to the session it belongs to; a request for
/// a relayed session held here goes on the stream the forwarding process minted, which it reads
/// from Redis.
async fn deliver_forwarded(session: &Arc<HttpSession>, message: JsonRpcMessage, stream: Option<u64>) {
    if let (Some(stream), JsonRpcMessage::Request(request), Some(cluster)) = (stream, &message, &session.cluster) {
        let id = request.id.clone();
        if !session.open_forwarded_stream(id.clone(), stream) {
            let error = ErrorData::invalid_request(format!("request id {id} is already in use"));
            cluster.append(&session.id, stream, 1, &id, &JsonRpcMessage::error(Some(id.clone()), error));
            return;
        }
        if session.deliver(message).await.is_err() {
            let error = ErrorData::new(-32001, "Session not found");
            cluster.append(&session.id, stream, 1, &id, &JsonRpcMessage::error(Some(id.clone()), error));
        }
        return;
    }
    let _ = session.deliver(message).await;
}

/// The identity a caller speaks for, as the directory records it.
fn identity(caller: &Caller) -> Value {
    #[cfg(feature = "auth")]
    if let Some(caller) = caller {
        return serde_json::json!(caller.identity());
    }
    let _ = caller;
    Value::Null
}

/// Records a session that was just initialized in the directory: what rebuilds it, or for a
/// relayed session, this process, which holds its connection.
pub(super) async fn register(session: &Arc<HttpSession>) -> Result<(), Response> {
    let Some(cluster) = &session.cluster else { return Ok(()) };
    let (version, params, relay) = match session.handle() {
        Some(handle) => {
            let params = handle.client_params().map(|p| serde_json::to_value(p).unwrap_or_default());
            (handle.protocol_version().unwrap_or_default(), params.unwrap_or_default(), None)
        }
        None => (session.negotiated_version().unwrap_or_default().to_owned(), Value::Null, Some(cluster.process())),
    };
    let owner = identity(&session.owner);
    cluster.create(&session.id, &version, &params, &owner, relay).await.map_err(unavailable)
}

/// Removes a session whose connection was held by a process that is gone (or that no longer
/// holds it), here and from the directory, and answers 404 so that its client initializes again.
async fn relay_gone(state: &HttpState, cluster: &Cluster, id: &str) -> Response {
    tracing::debug!(session = %id, "the process holding a relayed session is gone: the session ends");
    if let Some(local) = lock(&state.sessions).remove(id) {
        local.end();
    }
    if let Err(e) = cluster.delete(id).await {
        return unavailable(e);
    }
    error_response(StatusCode::NOT_FOUND, -32001, "Session not found")
}

/// Finds the session a request names, rebuilding it from the directory when this process
/// does not hold it yet; a session the directory no longer has is gone everywhere.
pub(super) async fn find_session(
    state: &Arc<HttpState>,
    cluster: Arc<Cluster>,
    sent: &RequestHeaders<'_>,
    caller: &Caller,
) -> Result<Arc<HttpSession>, Response> {
    let Some(id) = sent.session_id else {
        return state.session(sent, caller);
    };
    let local = lock(&state.sessions).get(id).cloned();
    if let Some(local) = local {
        match cluster.touch(id, local.relay_process()).await {
            Err(e) => return Err(unavailable(e)),
            Ok(true) => return state.session(sent, caller),
            Ok(false) if local.relay_process().is_some() => return Err(relay_gone(state, &cluster, id).await),
            Ok(false) => {
                lock(&state.sessions).remove(id);
                local.end();
                return Err(error_response(StatusCode::NOT_FOUND, -32001, "Session not found"));
            }
        }
    }
    let entry = match cluster.load(id).await {
        Err(e) => return Err(unavailable(e)),
        Ok(None) => return Err(error_response(StatusCode::NOT_FOUND, -32001, "Session not found")),
        Ok(Some(entry)) => entry,
    };
    if entry.owner != identity(caller) {
        tracing::debug!(session = %id, "a request for a session of another identity was refused");
        return Err(error_response(StatusCode::NOT_FOUND, -32001, "Session not found"));
    }
    match (entry.relay, state.server()) {
        (None, Some(_)) => {}
        (Some(process), None) => return copy_relayed(state, &cluster, sent, caller, process, entry.version).await,
        // A relayed session met by a process serving its own server, or the reverse: processes of
        // different kinds share one prefix.
        _ => {
            tracing::warn!(session = %id, "a session of another kind of server was found in the directory: is the Redis prefix shared?");
            return Err(error_response(StatusCode::NOT_FOUND, -32001, "Session not found"));
        }
    }
    let session = state.new_session(id.to_owned(), caller.clone());
    let mut params = entry.params;
    params["protocolVersion"] = Value::String(entry.version.clone());
    let init =
        JsonRpcMessage::request(RequestId::String("mcpweft-cluster-rebuild".into()), methods::INITIALIZE, Some(params));
    if !replay_request(&session, init).await
        || session.handle().and_then(|h| h.protocol_version()).as_deref() != Some(&entry.version)
    {
        session.end();
        let message = "Internal error: the session could not be restored on this server process";
        return Err(error_response(StatusCode::INTERNAL_SERVER_ERROR, -32603, message));
    }
    let _ = session.deliver(JsonRpcMessage::notification(methods::NOTIFICATIONS_INITIALIZED, None)).await;
    if let Some(level) = entry.level {
        replay_request(&session, set_level_request(level)).await;
    }
    tracing::debug!(session = %id, process = cluster.process(), "session restored from the directory");
    state.ensure_sweeper();
    {
        let mut sessions = lock(&state.sessions);
        match sessions.get(id) {
            // Another request restored it first: that copy is the one.
            Some(other) if !other.closed.is_cancelled() => {
                drop(sessions);
                session.end();
            }
            _ => {
                sessions.insert(id.to_owned(), session);
            }
        }
    }
    state.session(sent, caller)
}

/// Keeps a copy of a relayed session whose connection process `process` holds, unless that
/// process is this one (which no longer holds it) or is gone.
async fn copy_relayed(
    state: &Arc<HttpState>,
    cluster: &Cluster,
    sent: &RequestHeaders<'_>,
    caller: &Caller,
    process: u64,
    version: String,
) -> Result<Arc<HttpSession>, Response> {
    let Some(id) = sent.session_id else { return state.session(sent, caller) };
    let alive = process != cluster.process() && cluster.is_alive(process).await.map_err(unavailable)?;
    if !alive {
        return Err(relay_gone(state, cluster, id).await);
    }
    let session = state.new_remote_session(id.to_owned(), caller.clone(), process, version);
    state.ensure_sweeper();
    {
        let mut sessions = lock(&state.sessions);
        match sessions.get(id) {
            Some(other) if !other.closed.is_cancelled() => {}
            _ => {
                sessions.insert(id.to_owned(), session);
            }
        }
    }
    state.session(sent, caller)
}

/// A `logging/setLevel` request made on the client's behalf.
fn set_level_request(level: Value) -> JsonRpcMessage {
    let id = RequestId::String("mcpweft-cluster-level".into());
    JsonRpcMessage::request(id, methods::LOGGING_SET_LEVEL, Some(serde_json::json!({ "level": level })))
}

/// Runs a request on the client's behalf and waits for its answer, which goes nowhere.
async fn replay_request(session: &Arc<HttpSession>, request: JsonRpcMessage) -> bool {
    let JsonRpcMessage::Request(r) = &request else { return false };
    let Some(stream) = session.open_stream(r.id.clone(), true) else { return false };
    let Ok(collected) = session.request(stream, request).await else { return false };
    collected.first().await.is_some()
}

/// Serves a POST for a session shared with the cluster: a notification or response goes to the
/// processes it belongs to, and a request runs here, its `logging/setLevel` level and its
/// (un)subscription recorded in Redis.
pub(super) async fn post(
    state: &Arc<HttpState>,
    session: &Arc<HttpSession>,
    cluster: Arc<Cluster>,
    message: JsonRpcMessage,
) -> Response {
    if session.is_relayed() {
        return match session.relay_process() {
            Some(process) => forward_relayed(state, session, &cluster, process, message).await,
            None => post_to_session(state, session, message).await,
        };
    }
    let JsonRpcMessage::Request(request) = &message else {
        return deliver(session, cluster, message).await;
    };
    let id = request.id.clone();
    if let Err(response) = remember_level(session, &cluster, &message).await {
        return response;
    }
    let subscription = subscription_of(&message);
    let (stream, collected) = match deliver_request(state, session, id, message).await {
        Ok(delivered) => delivered,
        Err(response) => return response,
    };
    if let Some(subscription) = subscription
        && let Err(response) = record_subscription(session, subscription).await
    {
        return response;
    }
    reply(state, session, stream, collected).await
}

/// Forwards a message of the client of a relayed session to process `process`, which holds its
/// connection: a request's answer is the stream minted for it here, followed in Redis.
async fn forward_relayed(
    state: &Arc<HttpState>,
    session: &Arc<HttpSession>,
    cluster: &Arc<Cluster>,
    process: u64,
    message: JsonRpcMessage,
) -> Response {
    let stream = matches!(message, JsonRpcMessage::Request(_)).then(|| session.mint_stream());
    match cluster.forward(Some(process), &session.id, &message, stream).await {
        Err(e) => return unavailable(e),
        Ok(0) => {
            return match cluster.is_alive(process).await {
                Err(e) => unavailable(e),
                Ok(false) => relay_gone(state, cluster, &session.id).await,
                // Alive, but not listening at this moment (its channel is being restored).
                Ok(true) => unavailable(Unavailable(format!("process {process} of the cluster did not hear"))),
            };
        }
        Ok(_) => {}
    }
    let Some(stream) = stream else { return StatusCode::ACCEPTED.into_response() };
    session.followers.fetch_add(1, Ordering::Relaxed);
    let guard = Follower(session.followers.clone());
    let closed = session.closed.clone();
    let after = Some("0-0".to_owned());
    let followed =
        cluster.follow(session.id.clone(), stream, after, Some(process), session.max_queued, closed, guard).await;
    match followed {
        Err(e) => unavailable(e),
        Ok(Err(message)) => error_response(StatusCode::INTERNAL_SERVER_ERROR, -32603, message),
        Ok(Ok(rx)) => reply(state, session, stream, Collected::Queue(rx)).await,
    }
}

/// Records a `logging/setLevel` request's level in the directory, for the processes that
/// restore the session later, and sends it to those that hold it now.
async fn remember_level(
    session: &Arc<HttpSession>,
    cluster: &Cluster,
    message: &JsonRpcMessage,
) -> Result<(), Response> {
    let JsonRpcMessage::Request(request) = message else { return Ok(()) };
    if request.method != methods::LOGGING_SET_LEVEL {
        return Ok(());
    }
    let Some(level) = request.params.as_ref().and_then(|p| p.get("level")) else { return Ok(()) };
    cluster.set_level(&session.id, level).await.map_err(unavailable)
}

/// What a request changes in the session's subscriptions: subscribe (true) or unsubscribe
/// (false), and the resource.
fn subscription_of(message: &JsonRpcMessage) -> Option<(bool, String)> {
    let JsonRpcMessage::Request(request) = message else { return None };
    let subscribe = match request.method.as_str() {
        methods::RESOURCES_SUBSCRIBE => true,
        methods::RESOURCES_UNSUBSCRIBE => false,
        _ => return None,
    };
    let uri = request.params.as_ref()?.get("uri")?.as_str()?;
    Some((subscribe, uri.to_owned()))
}

/// Records a subscription the session took (or left) in the cluster, so that an update
/// announced through any process reaches it.
async fn record_subscription(session: &Arc<HttpSession>, (subscribe, uri): (bool, String)) -> Result<(), Response> {
    let Some(cluster) = &session.cluster else { return Ok(()) };
    // A refused subscription (unknown capability, too many) is not recorded.
    let subscribed = subscribe && session.handle().is_some_and(|h| h.is_subscribed(&uri));
    if subscribe && !subscribed {
        return Ok(());
    }
    cluster.set_subscribed(&session.id, &uri, subscribed).await.map_err(unavailable)
}

/// Hands a notification or response from the client to the session it belongs to: a response
/// goes to the process that sent the request it answers, a notification to every copy.
async fn deliver(session: &Arc<HttpSession>, cluster: Arc<Cluster>, message: JsonRpcMessage) -> Response {
    let answered = message.answers();
    let target = match answered {
        Some(RequestId::Number(n)) => u64::try_from(*n).ok().and_then(owner_of),
        _ => None,
    };
    let forwarded = match (answered, target) {
        // A response for another process: only that one waits for it.
        (Some(_), Some(process)) if process != cluster.process() => {
            return match cluster.forward(Some(process), &session.id, &message, None).await {
                Ok(_) => StatusCode::ACCEPTED.into_response(),
                Err(e) => unavailable(e),
            };
        }
        (Some(_), _) => Ok(0),
        (None, _) => cluster.forward(None, &session.id, &message, None).await,
    };
    if let Err(e) = forwarded {
        return unavailable(e);
    }
    match session.deliver(message).await {
        Ok(()) => StatusCode::ACCEPTED.into_response(),
        Err(()) => error_response(StatusCode::NOT_FOUND, -32001, "Session not found"),
    }
}

/// Serves a GET: the standalone stream, or the resumption of a stream, read from Redis unless
/// the stream is a live one of this process.
pub(super) async fn get(
    state: &Arc<HttpState>,
    session: &Arc<HttpSession>,
    cluster: Arc<Cluster>,
    last: Option<&str>,
) -> Response {
    let bad = |message: &str| error_response(StatusCode::BAD_REQUEST, -32600, &format!("Bad Request: {message}"));
    let (stream, after) = match last.map(str::trim) {
        None => (STANDALONE, None),
        Some(last) => {
            let parsed = last.split_once('_').and_then(|(stream, rest)| {
                let stream = stream.parse::<u64>().ok()?;
                Some((stream, entry_of(stream, rest)?))
            });
            let Some((stream, after)) = parsed else { return bad("unknown Last-Event-ID") };
            if stream != STANDALONE && owner_of(stream) == Some(cluster.process()) && session.stream_exists(stream) {
                return resume(state, session, last);
            }
            (stream, Some(after))
        }
    };
    let producer = session.relay_process();
    // A session whose client follows a stream here is busy: its copy here is not swept.
    session.followers.fetch_add(1, Ordering::Relaxed);
    let guard = Follower(session.followers.clone());
    let closed = session.closed.clone();
    let followed = cluster.follow(session.id.clone(), stream, after, producer, session.max_queued, closed, guard).await;
    let rx = match followed {
        Err(e) => return unavailable(e),
        Ok(Err(message)) => return bad(message),
        Ok(Ok(rx)) => rx,
    };
    let retry = state.options.sse_retry.as_millis();
    let head = vec![Bytes::from(format!("retry: {retry}\n\n"))];
    frames_response(head, rx, state.options.keep_alive, session.clone())
}
