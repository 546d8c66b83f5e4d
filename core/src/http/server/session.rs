//! One session over HTTP: the core session it drives, the streams of its requests and its
//! standalone stream, and the routing of each outgoing message to the stream it belongs to.

use std::{
    collections::VecDeque,
    sync::{
        Arc, Mutex, Weak,
        atomic::{AtomicU64, Ordering},
    },
};

use smallvec::SmallVec;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::{
    http::sse::{EventId, Frame, FrameReceiver, FrameSender, event_id},
    jsonrpc::{JsonRpcMessage, RequestId},
    server::SessionHandle,
    session::{DirectInput, DirectWriter},
    sync::{FastMap, lock},
    transport::{Inbound, Outbound},
};

use super::{
    Backend, EventStore, HttpState, LOG_TARGET, StoredEvent, Usage,
    caller::{Caller, set_caller},
    relay::RelayPart,
};

/// The id of the standalone GET stream in every session.
pub(super) const STANDALONE: u64 = 0;

/// Hands a frame to a stream's queue, returning whether the stream stays open: a closed
/// response, or one whose client reads too slowly to keep up, loses its queue, and the client
/// resumes from the event store.
fn deliver_frame(sink: &FrameSender, frame: Box<Frame>) -> bool {
    match sink.try_send(frame) {
        Ok(()) => true,
        Err(mpsc::error::TrySendError::Full(_)) => {
            tracing::debug!(target: LOG_TARGET, "a client does not keep up with its stream: the stream is closed");
            false
        }
        Err(mpsc::error::TrySendError::Closed(_)) => false,
    }
}

/// Where the frames of a stream go.
pub(super) enum Sink {
    /// The request's task has not collected its stream yet, which it does right after
    /// delivering the request: frames wait here, so that a handler answering at once needs no
    /// queue (nor room for more than one frame). `open` turns false when the stream is ended
    /// before it was collected.
    Parked { frames: SmallVec<[Box<Frame>; 1]>, open: bool },
    /// The queue an HTTP response reads.
    Live(FrameSender),
    /// No response listens: frames are only stored, for a client that resumes.
    Gone,
}

impl Sink {
    /// Returns whether a response is reading the stream now.
    fn is_live(&self) -> bool {
        matches!(self, Sink::Live(queue) if !queue.is_closed())
    }
}

/// One stream of a session: where its frames go and the number of its next event.
pub(super) struct StreamState {
    pub(super) sink: Sink,
    pub(super) next_seq: u64,
    /// The request this stream answers; `None` for the standalone stream.
    pub(super) request: Option<RequestId>,
    /// Whether the first frame may go out as a plain JSON body.
    pub(super) json_candidate: bool,
}

/// What the task of a request finds on its stream once it delivered the request.
pub(super) enum Collected {
    /// The answer, sent first and last while the request was delivered, as a JSON reply.
    Answer(Box<Frame>),
    /// The queue of the stream's frames, those sent so far and those to come.
    Queue(FrameReceiver),
}

impl Collected {
    /// Waits for the stream's first frame.
    pub(super) async fn first(self) -> Option<Box<Frame>> {
        match self {
            Collected::Answer(frame) => Some(frame),
            Collected::Queue(mut queue) => queue.recv().await,
        }
    }
}

/// The streams of a session, and which request each answers.
#[derive(Default)]
pub(super) struct Routes {
    by_request: FastMap<RequestId, u64>,
    pub(super) streams: FastMap<u64, StreamState>,
    /// Messages for the standalone stream while no GET stream is open.
    pub(super) backlog: VecDeque<JsonRpcMessage>,
}

/// What serves a session: a core session of this process's server, or a relayed server.
pub(super) enum Core {
    /// A core session in the runtime's direct mode.
    Direct {
        /// Where incoming messages go, processed in the task of the HTTP request that carried
        /// them.
        input: DirectInput,
        handle: SessionHandle,
    },
    /// A connection to a relayed server.
    Relay(RelayPart),
    /// A relayed session whose connection another process of the cluster holds: the client's
    /// messages are forwarded to it, and the events of its streams read from Redis.
    #[cfg(feature = "redis")]
    Remote {
        /// The process that holds the connection.
        process: u64,
        /// The protocol version the session negotiated.
        version: String,
    },
}

/// One MCP session over HTTP.
pub(super) struct HttpSession {
    pub(super) id: String,
    core: Core,
    pub(super) routes: Mutex<Routes>,
    next_stream: AtomicU64,
    /// Marked when a request comes or an answer leaves; the sweeper looks at it.
    pub(super) usage: Usage,
    store: Arc<dyn EventStore>,
    pub(super) closed: CancellationToken,
    /// How many frames each stream's queue holds.
    pub(super) max_queued: usize,
    /// The identity that created the session; no other may use it.
    pub(super) owner: Caller,
    /// The cluster this session is shared with, when it is.
    #[cfg(feature = "redis")]
    pub(super) cluster: Option<Arc<crate::http::cluster::Cluster>>,
    /// How many streams read from the cluster's Redis are open for this session's clients.
    #[cfg(feature = "redis")]
    pub(super) followers: Arc<AtomicU64>,
}

/// How many messages for the standalone stream wait for a GET stream; older ones are dropped.
const BACKLOG_LIMIT: usize = 256;

impl HttpSession {
    /// Hands one incoming message to the core session and runs what it asks for in order.
    pub(super) async fn deliver(&self, message: JsonRpcMessage) -> Result<(), ()> {
        if self.closed.is_cancelled() {
            return Err(());
        }
        match &self.core {
            Core::Direct { input, .. } => {
                if let Some(work) = input.deliver(Inbound::Message(message)) {
                    work.await;
                }
            }
            Core::Relay(part) => part.deliver(message).await,
            // The cluster's glue forwards what belongs to the process holding the connection.
            #[cfg(feature = "redis")]
            Core::Remote { .. } => return Err(()),
        }
        Ok(())
    }

    /// Returns the core session, unless the session is relayed.
    #[cfg(feature = "redis")]
    pub(super) fn handle(&self) -> Option<&SessionHandle> {
        match &self.core {
            Core::Direct { handle, .. } => Some(handle),
            Core::Relay(_) | Core::Remote { .. } => None,
        }
    }

    /// Returns the process of the cluster holding the connection of a relayed session held
    /// elsewhere; `None` for a session served here.
    #[cfg(feature = "redis")]
    pub(super) fn relay_process(&self) -> Option<u64> {
        match &self.core {
            Core::Remote { process, .. } => Some(*process),
            Core::Direct { .. } | Core::Relay(_) => None,
        }
    }

    /// Returns whether the session is relayed, here or by another process of the cluster.
    #[cfg(feature = "redis")]
    pub(super) fn is_relayed(&self) -> bool {
        !matches!(self.core, Core::Direct { .. })
    }

    /// Returns the relay part of a relayed session.
    pub(super) fn relay(&self) -> Option<&RelayPart> {
        match &self.core {
            Core::Relay(part) => Some(part),
            _ => None,
        }
    }

    /// Returns the protocol version `initialize` negotiated, once it did.
    pub(super) fn negotiated_version(&self) -> Option<&str> {
        match &self.core {
            Core::Direct { handle, .. } => handle.negotiated_version(),
            Core::Relay(part) => part.negotiated_version(),
            #[cfg(feature = "redis")]
            Core::Remote { version, .. } => Some(version),
        }
    }

    /// Shows the handlers of a core session who sent the request being delivered; a relayed
    /// server does not learn it.
    pub(super) fn set_caller(&self, caller: &Caller) {
        if let Core::Direct { handle, .. } = &self.core {
            set_caller(handle, caller);
        }
    }

    /// Forgets request `request`, which its client cancelled: its stream ends, here and, in a
    /// cluster, on the processes following it in Redis.
    pub(super) fn abandon(&self, request: &RequestId) {
        let mut routes = lock(&self.routes);
        if let Some(stream) = routes.by_request.remove(request) {
            // Dropping the queue's sender ends the response once it drained.
            let removed = routes.streams.remove(&stream);
            #[cfg(feature = "redis")]
            if let (Some(cluster), Some(state)) = (&self.cluster, removed) {
                cluster.end_stream(&self.id, stream, state.next_seq);
            }
            #[cfg(not(feature = "redis"))]
            drop(removed);
        }
    }

    /// Returns whether a relayed session whose connection this process holds for a cluster was
    /// used through any process within its idle time (its directory entry has not expired); a
    /// Redis failure counts as used, so that the session outlives an outage. False for any other
    /// session, whose own use is all there is.
    #[cfg_attr(not(feature = "redis"), allow(clippy::unused_async))]
    pub(super) async fn used_elsewhere(&self) -> bool {
        #[cfg(feature = "redis")]
        if let (Some(cluster), Core::Relay(_)) = (&self.cluster, &self.core) {
            return cluster.exists(&self.id).await.unwrap_or(true);
        }
        false
    }

    /// Marks the session as used: a flag the sweeper reads, as reading the clock for each
    /// request would cost more than the sweeper's precision needs.
    pub(super) fn touch(&self) {
        self.usage.mark();
    }

    /// Returns whether a request is running or a client is listening on a stream; a busy
    /// session is never idle.
    pub(super) fn is_busy(&self) -> bool {
        #[cfg(feature = "redis")]
        if self.followers.load(Ordering::Relaxed) > 0 {
            return true;
        }
        let routes = lock(&self.routes);
        !routes.by_request.is_empty() || routes.streams.values().any(|s| s.sink.is_live())
    }

    /// Opens the stream of request `id`, or returns `None` when a request with that id is
    /// still running: the check and the registration are one step, so two POSTs with one id
    /// cannot both pass. The request then goes through [`HttpSession::request`].
    pub(super) fn open_stream(&self, id: RequestId, json_candidate: bool) -> Option<u64> {
        let mut routes = lock(&self.routes);
        if routes.by_request.contains_key(&id) {
            return None;
        }
        let stream = self.next_stream.fetch_add(1, Ordering::Relaxed);
        routes.by_request.insert(id.clone(), stream);
        let sink = Sink::Parked { frames: SmallVec::new(), open: true };
        routes.streams.insert(stream, StreamState { sink, next_seq: 1, request: Some(id), json_candidate });
        Some(stream)
    }

    /// Takes what a request's stream holds after the request was delivered: its answer alone,
    /// when it came first and may go out as JSON, else a queue with the frames so far that the
    /// frames to come join (one that ends after them when the stream was ended or answered).
    fn collect(&self, stream: u64) -> Collected {
        let mut routes = lock(&self.routes);
        let Some(state) = routes.streams.get_mut(&stream) else {
            // Abandoned, or the session ended: nothing comes.
            return Collected::Queue(mpsc::channel(1).1);
        };
        let Sink::Parked { frames, open } = &mut state.sink else {
            // A client resumed the stream first: its frames go there.
            return Collected::Queue(mpsc::channel(1).1);
        };
        let (mut frames, open) = (std::mem::take(frames), *open);
        // A request stream forgets its request once answered; one answered before it was
        // collected waits for this collection to be forgotten.
        let answered = state.request.is_none();
        if answered && state.json_candidate && frames.len() == 1 {
            routes.streams.remove(&stream);
            return Collected::Answer(frames.swap_remove(0));
        }
        let (tx, rx) = mpsc::channel(self.max_queued);
        for frame in frames {
            // The parked frames are at most as many as the queue holds.
            let _ = tx.try_send(frame);
        }
        if answered {
            routes.streams.remove(&stream);
        } else {
            state.sink = if open { Sink::Live(tx) } else { Sink::Gone };
        }
        Collected::Queue(rx)
    }

    /// Delivers request `message`, whose stream `stream` was opened, and collects the stream
    /// at once, before anything else can run: the frames sent meanwhile wait on the stream
    /// until then. `Err` when the session has ended.
    pub(super) async fn request(&self, stream: u64, message: JsonRpcMessage) -> Result<Collected, ()> {
        self.deliver(message).await?;
        Ok(self.collect(stream))
    }

    /// Opens stream `stream`, minted by the process of the cluster the client sent request `id`
    /// to, which reads its events from Redis: no response of this process reads it. Returns
    /// false when a request with that id is still running.
    #[cfg(feature = "redis")]
    pub(super) fn open_forwarded_stream(&self, id: RequestId, stream: u64) -> bool {
        let mut routes = lock(&self.routes);
        if routes.by_request.contains_key(&id) || routes.streams.contains_key(&stream) {
            return false;
        }
        routes.by_request.insert(id.clone(), stream);
        routes
            .streams
            .insert(stream, StreamState { sink: Sink::Gone, next_seq: 1, request: Some(id), json_candidate: false });
        true
    }

    /// Mints the id of a new stream of this session, from this process's range.
    #[cfg(feature = "redis")]
    pub(super) fn mint_stream(&self) -> u64 {
        self.next_stream.fetch_add(1, Ordering::Relaxed)
    }

    /// Returns whether `stream` still exists (it is forgotten once answered or abandoned).
    pub(super) fn stream_exists(&self, stream: u64) -> bool {
        lock(&self.routes).streams.contains_key(&stream)
    }

    /// Routes one outgoing message to the stream it belongs to.
    pub(super) fn route(&self, outbound: Outbound) {
        let Outbound { message, related_request } = outbound;
        let mut routes = lock(&self.routes);
        let stream = related_request.as_ref().and_then(|id| routes.by_request.get(id).copied());
        let Some(stream) = stream else {
            return self.route_standalone(&mut routes, message);
        };
        let final_for = message.answers();
        let is_final = final_for.is_some() && final_for == related_request.as_ref();
        let Some(state) = routes.streams.get_mut(&stream) else { return };
        let seq = state.next_seq;
        state.next_seq = seq.saturating_add(1);
        let first_and_final = is_final && seq == 1 && state.json_candidate;
        if !first_and_final {
            #[cfg(feature = "redis")]
            if let (Some(cluster), Some(request)) = (&self.cluster, &state.request) {
                cluster.append(&self.id, stream, seq, request, &message);
            }
            self.store.append(&self.id, stream, StoredEvent { id: event_id(stream, seq), message: message.clone() });
        }
        let frame = Box::new(Frame::Event(EventId::Local(stream, seq), message));
        match &mut state.sink {
            Sink::Live(queue) => {
                if !deliver_frame(queue, frame) {
                    state.sink = Sink::Gone;
                    state.json_candidate = false;
                }
            }
            Sink::Parked { frames, open } => {
                if *open && frames.len() < self.max_queued {
                    frames.push(frame);
                } else {
                    *open = false;
                    state.json_candidate = false;
                }
            }
            Sink::Gone => {}
        }
        if is_final {
            self.touch();
            let request = state.request.take();
            // A stream not collected yet stays until its task takes the answer.
            if !matches!(state.sink, Sink::Parked { .. }) {
                routes.streams.remove(&stream);
            }
            if let Some(request) = request {
                routes.by_request.remove(&request);
            }
        }
    }

    /// Routes one outgoing message that belongs to no request to the standalone stream.
    pub(super) fn route_standalone(&self, routes: &mut Routes, message: JsonRpcMessage) {
        // Once a GET stream has been opened, every message gets an id and is stored, even while
        // no client listens, so that resuming with Last-Event-ID replays all of them; the
        // backlog keeps undelivered ones for a fresh GET.
        #[cfg(feature = "redis")]
        if let Some(cluster) = &self.cluster {
            // The process holding the client's GET stream, whichever it is, reads it from Redis.
            return cluster.append_standalone(&self.id, &message);
        }
        if let Some(state) = routes.streams.get_mut(&STANDALONE) {
            let seq = state.next_seq;
            state.next_seq = seq.saturating_add(1);
            let id = event_id(STANDALONE, seq);
            self.store.append(&self.id, STANDALONE, StoredEvent { id, message: message.clone() });
            let frame = Box::new(Frame::Event(EventId::Local(STANDALONE, seq), message.clone()));
            if let Sink::Live(queue) = &state.sink
                && deliver_frame(queue, frame)
            {
                return;
            }
            state.sink = Sink::Gone;
        }
        if routes.backlog.len() == BACKLOG_LIMIT {
            routes.backlog.pop_front();
        }
        routes.backlog.push_back(message);
    }

    /// Ends the session: its streams, its stored events and its core session.
    pub(super) fn end(&self) {
        self.closed.cancel();
        let mut routes = lock(&self.routes);
        routes.streams.clear();
        routes.by_request.clear();
        drop(routes);
        self.store.remove_session(&self.id);
        match &self.core {
            Core::Direct { handle, .. } => handle.close(),
            Core::Relay(part) => {
                part.end();
                // Only this process could serve it: the session is gone for the whole cluster.
                #[cfg(feature = "redis")]
                if let (Some(cluster), Ok(runtime)) = (self.cluster.clone(), tokio::runtime::Handle::try_current()) {
                    let id = self.id.clone();
                    runtime.spawn(async move {
                        if let Err(e) = cluster.delete(&id).await {
                            tracing::warn!(target: LOG_TARGET, session = %id, error = %e.0, "an ended relayed session could not be removed from Redis");
                        }
                    });
                }
            }
            #[cfg(feature = "redis")]
            Core::Remote { .. } => {}
        }
    }
}

/// The sending half of a core session inside the HTTP server: it routes each message to the
/// stream it belongs to, at once, in the task that sends it.
struct SessionWriter(Weak<HttpSession>);

impl DirectWriter for SessionWriter {
    fn send(&self, outbound: Outbound) {
        if let Some(session) = self.0.upgrade() {
            session.route(outbound);
        }
    }

    fn close_request_stream(&self, request: &RequestId) {
        // Clients of earlier revisions cannot resume a stream without a priming event.
        let resumable = |s: &HttpSession| s.negotiated_version().is_some_and(|v| v >= "2025-11-25");
        if let Some(session) = self.0.upgrade().filter(|s| resumable(s)) {
            let mut routes = lock(&session.routes);
            let stream = routes.by_request.get(request).copied();
            if let Some(state) = stream.and_then(|s| routes.streams.get_mut(&s)) {
                // Frames parked before the stream was collected still go out, then it ends.
                match &mut state.sink {
                    Sink::Parked { open, .. } => *open = false,
                    sink => *sink = Sink::Gone,
                }
                state.json_candidate = false;
            }
        }
    }

    fn request_abandoned(&self, request: &RequestId) {
        if let Some(session) = self.0.upgrade() {
            session.abandon(request);
        }
    }

    fn close(&self) {
        if let Some(session) = self.0.upgrade() {
            session.closed.cancel();
            let mut routes = lock(&session.routes);
            routes.streams.clear();
            routes.by_request.clear();
        }
    }
}

impl HttpState {
    /// Creates a session with id `id` (empty for a request that belongs to no session) for the
    /// identity `owner`; the caller keeps it in the table of sessions or not.
    pub(super) fn new_session(self: &Arc<Self>, id: String, owner: Caller) -> Arc<HttpSession> {
        self.make_session(id, owner, None)
    }

    /// Creates the copy of a relayed session whose connection process `process` of the
    /// cluster holds, as the directory describes it.
    #[cfg(feature = "redis")]
    pub(super) fn new_remote_session(
        self: &Arc<Self>,
        id: String,
        owner: Caller,
        process: u64,
        version: String,
    ) -> Arc<HttpSession> {
        self.make_session(id, owner, Some(Core::Remote { process, version }))
    }

    /// Creates a session served by `core`, or by this server's backend when `None`.
    fn make_session(self: &Arc<Self>, id: String, owner: Caller, core: Option<Core>) -> Arc<HttpSession> {
        // Sessions without an id (stateless requests) are never shared.
        #[cfg(feature = "redis")]
        let cluster = self.cluster.get().filter(|_| !id.is_empty()).cloned();
        #[cfg(feature = "redis")]
        let first_stream = cluster.as_ref().map_or(0, |c| c.id_base()) + STANDALONE + 1;
        #[cfg(not(feature = "redis"))]
        let first_stream = STANDALONE + 1;
        Arc::new_cyclic(|weak: &Weak<HttpSession>| {
            let core = core.unwrap_or_else(|| match &self.backend {
                Backend::Server(server) => {
                    let (handle, input) = server.serve_direct(Arc::new(SessionWriter(weak.clone())));
                    set_caller(&handle, &owner);
                    handle.set_session_id(id.clone());
                    #[cfg(feature = "redis")]
                    if let Some(cluster) = &cluster {
                        // The ids fit in 53 bits, so JavaScript clients read them exactly.
                        handle.set_request_id_base(i64::try_from(cluster.id_base()).unwrap_or(i64::MAX));
                    }
                    Core::Direct { input, handle }
                }
                Backend::Relay(relay) => Core::Relay(relay.part_for(weak, id.is_empty())),
            });
            HttpSession {
                id,
                core,
                routes: Mutex::default(),
                next_stream: AtomicU64::new(first_stream),
                usage: Usage::new(),
                store: self.options.event_store.clone(),
                closed: CancellationToken::new(),
                max_queued: self.options.max_queued_events.max(1),
                owner,
                #[cfg(feature = "redis")]
                cluster,
                #[cfg(feature = "redis")]
                followers: Arc::default(),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        Server,
        http::{HttpServerOptions, StreamableHttpServer},
        model::methods,
    };

    #[tokio::test]
    async fn a_request_id_is_checked_and_registered_in_one_step() {
        let server = Server::builder(crate::model::Implementation::new("t", "1")).build().unwrap();
        let http = StreamableHttpServer::new(server, HttpServerOptions::new());
        let session = http.state.new_session("s".into(), None);
        let id = RequestId::Number(1);
        let stream = session.open_stream(id.clone(), true).expect("a free id");
        assert!(session.open_stream(id.clone(), true).is_none(), "a running id is refused");
        // Once abandoned (cancelled), the id is free again and its stream is gone.
        SessionWriter(Arc::downgrade(&session)).request_abandoned(&id);
        assert!(!session.stream_exists(stream));
        assert!(session.open_stream(id, true).is_some());
        session.end();
    }

    /// Sends `message` on the stream of request `id`, as the core session does.
    fn send_for(session: &HttpSession, id: &RequestId, message: JsonRpcMessage) {
        session.route(Outbound { message, related_request: Some(id.clone()) });
    }

    fn message_of(frame: Option<Box<Frame>>) -> JsonRpcMessage {
        let Frame::Event(_, message) = *frame.expect("a frame");
        message
    }

    #[tokio::test]
    async fn a_stream_collected_after_its_request_holds_what_was_sent_before_and_gets_what_comes_after() {
        let server = Server::builder(crate::model::Implementation::new("t", "1")).build().unwrap();
        let http = StreamableHttpServer::new(server, HttpServerOptions::new());
        let session = http.state.new_session("s".into(), None);
        let answer = |id: &RequestId| JsonRpcMessage::response(id.clone(), serde_json::json!({ "n": 1 }));
        let progress = || JsonRpcMessage::notification("notifications/progress", None);

        // Answered at once: the answer alone, no queue, and the id is free at once.
        let quick = RequestId::Number(1);
        let stream = session.open_stream(quick.clone(), true).unwrap();
        send_for(&session, &quick, answer(&quick));
        assert!(session.open_stream(quick.clone(), true).is_some(), "an answered id is free");
        let Collected::Answer(frame) = session.collect(stream) else { panic!("a lone answer is not queued") };
        assert_eq!(message_of(Some(frame)), answer(&quick));
        assert!(!session.stream_exists(stream));

        // A notification, then the answer, before collection: both, in order, then the end.
        let chatty = RequestId::Number(2);
        let stream = session.open_stream(chatty.clone(), true).unwrap();
        send_for(&session, &chatty, progress());
        send_for(&session, &chatty, answer(&chatty));
        let Collected::Queue(mut queue) = session.collect(stream) else { panic!("two frames need a queue") };
        assert_eq!(message_of(queue.recv().await), progress());
        assert_eq!(message_of(queue.recv().await), answer(&chatty));
        assert!(queue.recv().await.is_none());
        assert!(!session.stream_exists(stream));

        // Still running when collected: what comes later reaches the queue.
        let slow = RequestId::Number(3);
        let stream = session.open_stream(slow.clone(), true).unwrap();
        send_for(&session, &slow, progress());
        let Collected::Queue(mut queue) = session.collect(stream) else { panic!("a running request is queued") };
        assert!(session.is_busy());
        send_for(&session, &slow, answer(&slow));
        assert_eq!(message_of(queue.recv().await), progress());
        assert_eq!(message_of(queue.recv().await), answer(&slow));
        assert!(queue.recv().await.is_none());

        // Without JSON replies, a lone answer still goes through the queue (as SSE).
        let sse = RequestId::Number(4);
        let stream = session.open_stream(sse.clone(), false).unwrap();
        send_for(&session, &sse, answer(&sse));
        let Collected::Queue(mut queue) = session.collect(stream) else { panic!("SSE replies are queued") };
        assert_eq!(message_of(queue.recv().await), answer(&sse));
        assert!(queue.recv().await.is_none());

        // Ended by the server before collection (a 2025-11-25 session): what was sent before
        // goes out, then the response ends; what comes after waits in the store.
        let init = RequestId::Number(5);
        let stream = session.open_stream(init.clone(), true).unwrap();
        let params = serde_json::json!({
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "c", "version": "1" }
        });
        let initialized =
            session.request(stream, JsonRpcMessage::request(init, methods::INITIALIZE, Some(params))).await;
        assert!(matches!(initialized, Ok(Collected::Answer(_))));
        let polled = RequestId::Number(6);
        let stream = session.open_stream(polled.clone(), true).unwrap();
        send_for(&session, &polled, progress());
        SessionWriter(Arc::downgrade(&session)).close_request_stream(&polled);
        send_for(&session, &polled, progress());
        let Collected::Queue(mut queue) = session.collect(stream) else { panic!("an ended stream is queued") };
        assert_eq!(message_of(queue.recv().await), progress());
        assert!(queue.recv().await.is_none());
        assert!(session.stream_exists(stream), "the request still runs");
        session.end();
    }
}
