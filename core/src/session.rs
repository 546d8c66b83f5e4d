//! The peer runtime shared by both roles.
//!
//! A session owns one transport. It reads in one task and writes in another, correlates
//! responses with the requests this side sent, runs the peer's requests concurrently, and
//! implements the utilities every MCP peer has: time-outs, progress, cancellation and ping.
//! The server and client modules plug their role in through the crate-private `Service`
//! trait, which sees each request in arrival order and decides whether to answer at once or
//! to run a handler concurrently.

use std::{
    future::Future,
    panic::AssertUnwindSafe,
    pin::Pin,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering},
    },
    task::{Context, Poll, Waker},
    time::{Duration, Instant},
};

use futures::{FutureExt as _, future::BoxFuture};
use serde::{Serialize, de::DeserializeOwned};
use serde_json::{Value, value::RawValue};
use tokio::{
    sync::{Notify, mpsc, oneshot},
    task::JoinHandle,
};
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use crate::{
    CloseReason, Error,
    jsonrpc::{EncodedResponse, ErrorData, JsonRpcMessage, Notification, Request, RequestId},
    middleware::{
        MiddlewareChain, Role,
        layer::{Described, Layered, Outgoing},
    },
    model::{CancelledNotificationParams, ProgressNotificationParams, ProgressToken, methods},
    sync::{FastMap, lock},
    transport::{Inbound, Outbound, Transport, TransportReader, TransportWriter},
};

/// The time-out used for requests that do not set their own: 60 seconds.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// How many of the peer's requests a session runs at once by default: 1024. Beyond it a
/// request is refused with [`TOO_MANY_REQUESTS`](crate::jsonrpc::TOO_MANY_REQUESTS).
pub const DEFAULT_MAX_IN_FLIGHT: usize = 1024;

/// How many outgoing messages a byte-stream session (stdio, child process) queues by default
/// for a peer that reads slowly: 4096. At the limit notifications fail with
/// [`Error::QueueFull`], and the session takes no new request from the peer until there is
/// room for its answer.
pub const DEFAULT_MAX_QUEUED_MESSAGES: usize = 4096;

/// How many bytes of outgoing messages a byte-stream session (stdio, child process) queues by
/// default for a peer that reads slowly: 32 MiB, counted before encoding. At the limit it
/// behaves as at [`DEFAULT_MAX_QUEUED_MESSAGES`]: notifications fail with
/// [`Error::QueueFull`], and the session takes no new request until there is room.
pub const DEFAULT_MAX_QUEUED_BYTES: usize = 32 * 1024 * 1024;

/// How many notifications for handlers a byte-stream session holds while an earlier one is
/// still being handled; beyond it they are dropped with a warning, so that a slow handler never
/// stops the session from reading.
const NOTIFICATION_BACKLOG: usize = 1024;

/// How often at most a session warns that notifications were dropped for a slow handler.
const DROP_WARNING_INTERVAL: Duration = Duration::from_secs(10);

/// Counts the notifications a session drops for a slow handler and warns at most once per
/// [`DROP_WARNING_INTERVAL`], with how many were dropped since the last warning, so that a
/// flood of notifications does not become a flood of log lines.
#[derive(Default)]
struct DroppedNotifications {
    unreported: u64,
    warned_at: Option<Instant>,
}

impl DroppedNotifications {
    /// Counts one dropped notification, warns when a warning is due, and returns how many
    /// dropped notifications that warning reported.
    fn note(&mut self) -> Option<u64> {
        self.unreported += 1;
        if self.warned_at.is_some_and(|at| at.elapsed() < DROP_WARNING_INTERVAL) {
            return None;
        }
        self.warned_at = Some(Instant::now());
        self.report()
    }

    /// Warns of the dropped notifications not reported yet, if any, and returns their number.
    fn report(&mut self) -> Option<u64> {
        let dropped = std::mem::take(&mut self.unreported);
        if dropped == 0 {
            return None;
        }
        tracing::warn!(dropped, "a notification handler is too slow: notifications were dropped");
        Some(dropped)
    }
}

/// A callback that receives the progress notifications of one outgoing request.
pub type ProgressCallback = Arc<dyn Fn(ProgressNotificationParams) + Send + Sync>;

/// A callback that learns the id of an outgoing request just before it is sent.
pub(crate) type IdCallback = Arc<dyn Fn(&RequestId) + Send + Sync>;

/// Options for one outgoing request.
///
/// Build them with [`RequestOptions::new`] and the `with_*` methods; fields may be added in
/// later versions.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct RequestOptions {
    /// How long to wait for the response; the session's default when `None`.
    pub timeout: Option<Duration>,
    /// Receives the peer's progress notifications; a progress token is added when set.
    pub on_progress: Option<ProgressCallback>,
    /// Whether each progress notification restarts the time-out.
    pub reset_timeout_on_progress: bool,
    /// The hard limit on the whole request, even when progress keeps resetting the time-out.
    pub max_total_timeout: Option<Duration>,
    /// Cancels the request: a `notifications/cancelled` is sent and the call returns
    /// [`Error::Cancelled`].
    pub cancel: Option<CancellationToken>,
    /// The incoming request on whose behalf this one is sent, if any.
    pub related_request: Option<RequestId>,
    /// Learns the request's id just before it is sent (a `subscriptions/listen` stream is
    /// known by it).
    pub(crate) on_id: Option<IdCallback>,
    /// The id to send the request with, drawn beforehand (middleware see it); the next of the
    /// session's ids when `None`.
    pub(crate) id: Option<RequestId>,
}

impl RequestOptions {
    /// Creates options with the session defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the time-out.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets the progress callback.
    pub fn with_progress(mut self, callback: impl Fn(ProgressNotificationParams) + Send + Sync + 'static) -> Self {
        self.on_progress = Some(Arc::new(callback));
        self
    }

    /// Sets whether each progress notification restarts the time-out.
    pub fn with_reset_timeout_on_progress(mut self, reset: bool) -> Self {
        self.reset_timeout_on_progress = reset;
        self
    }

    /// Sets the hard limit on the whole request.
    pub fn with_max_total_timeout(mut self, limit: Duration) -> Self {
        self.max_total_timeout = Some(limit);
        self
    }

    /// Sets the cancellation token.
    pub fn with_cancel(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// Sets the incoming request on whose behalf this one is sent.
    pub fn with_related_request(mut self, request: RequestId) -> Self {
        self.related_request = Some(request);
        self
    }
}

impl std::fmt::Debug for RequestOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestOptions")
            .field("timeout", &self.timeout)
            .field("on_progress", &self.on_progress.is_some())
            .field("reset_timeout_on_progress", &self.reset_timeout_on_progress)
            .field("max_total_timeout", &self.max_total_timeout)
            .field("related_request", &self.related_request)
            .finish()
    }
}

struct ProgressEntry {
    callback: ProgressCallback,
    activity: Option<Arc<Notify>>,
}

/// Where outgoing messages go.
enum Output {
    /// The queue of the writer task, which batches writes to a byte stream.
    Queue(OutQueue),
    /// A transport that takes each message at once, without a task in between.
    Direct(Arc<dyn DirectWriter>),
}

/// The writer task's queue with its bounds; commands are boxed so that an idle queue stays
/// small.
struct OutQueue {
    tx: mpsc::UnboundedSender<Box<Queued>>,
    /// How many commands, and how many bytes of messages, are queued and not yet taken by the
    /// writer.
    fill: Arc<Fill>,
    /// Fires when the writer takes commands off a queue that was at one of its limits.
    room: Arc<Notify>,
    /// The latest progress of each token that found the queue full.
    coalesced: Arc<Coalesced>,
}

/// Progress notifications that found the writer's queue full: only the latest of each token
/// is kept, and the writer sends them once it has emptied the queue. A handler reporting
/// progress faster than the peer reads thus never fails; the peer sees fewer, later steps.
#[derive(Default)]
struct Coalesced {
    any: AtomicBool,
    latest: Mutex<FastMap<ProgressToken, Outbound>>,
}

impl Coalesced {
    fn keep(&self, token: ProgressToken, outbound: Outbound) {
        lock(&self.latest).insert(token, outbound);
        self.any.store(true, Ordering::Release);
    }

    /// Whether progress of `token` waits for room.
    fn holds(&self, token: &ProgressToken) -> bool {
        self.any.load(Ordering::Acquire) && lock(&self.latest).contains_key(token)
    }

    /// Forgets the progress of `request`, which is answered: nothing of it may follow.
    fn answered(&self, request: &RequestId) {
        if self.any.load(Ordering::Acquire) {
            lock(&self.latest).retain(|_, o| o.related_request.as_ref() != Some(request));
        }
    }

    fn take(&self) -> Vec<Outbound> {
        if !self.any.swap(false, Ordering::AcqRel) {
            return Vec::new();
        }
        lock(&self.latest).drain().map(|(_, outbound)| outbound).collect()
    }
}

/// A command in the writer task's queue, with the bytes its message counts for.
struct Queued {
    command: WriterCommand,
    bytes: usize,
}

/// How full the writer task's queue is, against its two limits.
///
/// The peer's requests count too before they are answered, while the peer leaves messages
/// unread: each running one stands for an answer as large as the session's answers have been
/// lately (a moving average), so that a peer that sends many requests at once and reads
/// nothing cannot make the session hold all their answers before the queue looks full. Once
/// the peer has read everything, the reader goes on whatever runs: a running handler may wait
/// for the peer (sampling, elicitation), whose answer only the reader can take.
struct Fill {
    commands: AtomicUsize,
    bytes: AtomicUsize,
    max_commands: usize,
    max_bytes: usize,
    /// The moving average of the bytes of this session's answers.
    answer_bytes: AtomicUsize,
    /// Whether the reader waits for room, and the writer should wake it when it takes.
    waiting: AtomicBool,
}

impl Fill {
    /// What a running request stands for until the session has answered a few.
    const FIRST_ANSWER_BYTES: usize = 64 * 1024;

    fn new(max_commands: usize, max_bytes: usize) -> Self {
        Fill {
            commands: AtomicUsize::new(0),
            bytes: AtomicUsize::new(0),
            max_commands: max_commands.max(1),
            max_bytes: max_bytes.max(1),
            answer_bytes: AtomicUsize::new(Self::FIRST_ANSWER_BYTES),
            waiting: AtomicBool::new(false),
        }
    }

    /// Whether a notification may be queued.
    fn has_room(&self) -> bool {
        self.commands.load(Ordering::Acquire) < self.max_commands && self.bytes.load(Ordering::Acquire) < self.max_bytes
    }

    /// Whether the reader may take one more request while `running` are not answered yet.
    fn has_room_for_request(&self, running: usize) -> bool {
        let bytes = self.bytes.load(Ordering::Acquire);
        let expected = running.saturating_mul(self.answer_bytes.load(Ordering::Relaxed));
        self.commands.load(Ordering::Acquire) < self.max_commands
            && (bytes == 0 || bytes.saturating_add(expected) < self.max_bytes)
    }

    fn add(&self, bytes: usize, answer: bool) {
        self.commands.fetch_add(1, Ordering::AcqRel);
        self.bytes.fetch_add(bytes, Ordering::AcqRel);
        if answer {
            // A moving average over about eight answers; racing updates only blur it.
            let average = self.answer_bytes.load(Ordering::Relaxed);
            self.answer_bytes.store(average - average / 8 + bytes / 8, Ordering::Relaxed);
        }
    }

    /// Counts a command off the queue; returns whether the reader waits for the room this made.
    fn take(&self, bytes: usize) -> bool {
        self.commands.fetch_sub(1, Ordering::AcqRel);
        self.bytes.fetch_sub(bytes, Ordering::AcqRel);
        self.waiting.load(Ordering::Acquire) && self.waiting.swap(false, Ordering::AcqRel)
    }
}

/// About how many bytes `message` takes once encoded: its strings and raw JSON, and a few bytes
/// for every other value, read without encoding it.
fn weight(message: &JsonRpcMessage) -> usize {
    fn value(v: &Value) -> usize {
        match v {
            Value::String(s) => s.len() + 2,
            Value::Array(items) => 2 + items.iter().map(value).sum::<usize>(),
            Value::Object(members) => 2 + members.iter().map(|(k, v)| k.len() + 3 + value(v)).sum::<usize>(),
            _ => 8,
        }
    }
    let optional = |v: &Option<Value>| v.as_ref().map_or(0, value);
    64 + match message {
        JsonRpcMessage::Request(r) => r.method.len() + optional(&r.params),
        JsonRpcMessage::Notification(n) => n.method.len() + optional(&n.params),
        JsonRpcMessage::Response(r) => value(&r.result),
        JsonRpcMessage::Encoded(r) => r.result.get().len(),
        JsonRpcMessage::Error(e) => e.error.message.len() + optional(&e.error.data),
    }
}

/// Whether a message is refused when the outgoing queue is full.
#[derive(Clone, PartialEq, Eq)]
enum Priority {
    /// Refused when the queue is full: notifications and raw messages.
    Bounded,
    /// A progress notification of this token: when the queue is full, it replaces the one of
    /// the same token that waits for room, if any.
    Progress(ProgressToken),
    /// Always queued. Answers are bounded by the reader, which takes no new request from the
    /// peer while the queue is full; requests this side sends are bounded by their callers.
    Always,
}

/// A transport's sending half that takes each message synchronously.
///
/// The Streamable HTTP server uses it: routing a message to the stream of its request is a
/// map lookup and a channel send, so a writer task would only add a hop between threads.
pub(crate) trait DirectWriter: Send + Sync + 'static {
    /// Takes one message.
    fn send(&self, outbound: Outbound);

    /// Ends the stream that carries the messages of `request`, if there is one.
    fn close_request_stream(&self, request: &RequestId);

    /// Forgets `request`, which will never be answered because the peer cancelled it: its
    /// stream ends and its id may be used again.
    fn request_abandoned(&self, request: &RequestId);

    /// Ends the connection.
    fn close(&self);
}

/// One of the peer's requests while its handler runs.
struct InFlight {
    /// Tells this request apart from a later one that reuses its id.
    serial: u64,
    cancellation: CancellationToken,
}

struct PeerInner {
    out: Output,
    next_id: AtomicI64,
    pending: Mutex<FastMap<RequestId, oneshot::Sender<Result<Value, ErrorData>>>>,
    progress: Mutex<FastMap<ProgressToken, ProgressEntry>>,
    inflight: Mutex<FastMap<RequestId, InFlight>>,
    next_serial: AtomicU64,
    max_in_flight: usize,
    /// Fires when the peer can no longer send: its responses will never come.
    input_ended: CancellationToken,
    /// Fires when the session is over.
    closed: CancellationToken,
    /// Why the peer ended the connection, when the transport told; set before `input_ended`
    /// fires.
    close_reason: std::sync::OnceLock<Arc<CloseReason>>,
    /// Whether this side closed the session ([`Peer::close`]).
    closed_here: AtomicBool,
    default_timeout: Duration,
    drain_timeout: Duration,
    /// The middleware around what this side sends, when the session has any.
    outgoing: Option<Outgoing>,
    /// The session's number, unique in the process.
    number: u64,
}

/// The number of the next session the process starts.
static NEXT_SESSION_NUMBER: AtomicU64 = AtomicU64::new(1);

impl PeerInner {
    /// The error of a request that cannot be answered because the connection ended: with
    /// the reason when the transport gave one.
    fn closed_error(&self) -> Error {
        match self.close_reason.get() {
            Some(reason) => Error::Disconnected(reason.clone()),
            None => Error::TransportClosed,
        }
    }

    /// Hands a command to the transport, through the writer task or directly.
    fn command(&self, command: WriterCommand, priority: Priority) -> Result<(), Error> {
        match &self.out {
            Output::Queue(queue) => {
                // A token whose progress waits for room keeps waiting there, so that its
                // progress never goes out of order.
                let waiting = match &priority {
                    Priority::Progress(token) => queue.coalesced.holds(token),
                    _ => false,
                };
                if priority != Priority::Always && (waiting || !queue.fill.has_room()) {
                    return match (priority, command) {
                        (Priority::Progress(token), WriterCommand::Send(outbound)) => {
                            queue.coalesced.keep(token, outbound);
                            Ok(())
                        }
                        _ => Err(Error::QueueFull),
                    };
                }
                let bytes = match &command {
                    WriterCommand::Send(outbound) => weight(&outbound.message),
                    WriterCommand::CloseStream(_) => 0,
                };
                let answer = matches!(
                    &command,
                    WriterCommand::Send(Outbound {
                        message: JsonRpcMessage::Response(_) | JsonRpcMessage::Encoded(_) | JsonRpcMessage::Error(_),
                        ..
                    })
                );
                if answer && let WriterCommand::Send(Outbound { related_request: Some(request), .. }) = &command {
                    queue.coalesced.answered(request);
                }
                queue.fill.add(bytes, answer);
                queue.tx.send(Box::new(Queued { command, bytes })).map_err(|_| {
                    queue.fill.take(bytes);
                    Error::TransportClosed
                })
            }
            Output::Direct(writer) => {
                match command {
                    WriterCommand::Send(outbound) => writer.send(outbound),
                    WriterCommand::CloseStream(request) => writer.close_request_stream(&request),
                }
                Ok(())
            }
        }
    }

    /// Waits until the outgoing queue has room for the answer of one more request, or the
    /// session is over; at once for transports without a queue.
    async fn room(&self) {
        let Output::Queue(queue) = &self.out else { return };
        loop {
            let notified = queue.room.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            queue.fill.waiting.store(true, Ordering::Release);
            let running = lock(&self.inflight).len();
            if queue.fill.has_room_for_request(running) || self.closed.is_cancelled() {
                queue.fill.waiting.store(false, Ordering::Release);
                return;
            }
            tokio::select! {
                _ = notified => {}
                _ = self.closed.cancelled() => return,
            }
        }
    }

    /// Forgets the handler of request `id` (the one registered as `serial`, or any when
    /// `None`), returning whether it was still running.
    fn finish(&self, id: &RequestId, serial: Option<u64>) -> Option<CancellationToken> {
        let mut inflight = lock(&self.inflight);
        match inflight.get(id) {
            Some(entry) if serial.is_none_or(|s| s == entry.serial) => inflight.remove(id).map(|e| e.cancellation),
            _ => None,
        }
    }
}

/// A handle to the other side of a session: send it requests and notifications.
///
/// Cloning is cheap; every clone talks to the same peer.
#[derive(Clone)]
pub struct Peer {
    inner: Arc<PeerInner>,
}

impl std::fmt::Debug for Peer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Peer").field("closed", &self.is_closed()).finish()
    }
}

impl Peer {
    /// Sends a request and waits for its result.
    ///
    /// Dropping the returned future before the response arrives cancels the request with
    /// the peer, as a cancellation or a time-out does.
    pub async fn request(&self, method: &str, params: Option<Value>, options: RequestOptions) -> Result<Value, Error> {
        match &self.inner.outgoing {
            Some(outgoing) => outgoing.request(self, method, params, options).await,
            None => self.send_request(method, params, options).await,
        }
    }

    /// Sends a request past the session's middleware, where its chain ends.
    pub(crate) async fn send_request(
        &self,
        method: &str,
        params: Option<Value>,
        options: RequestOptions,
    ) -> Result<Value, Error> {
        let inner = &self.inner;
        if inner.input_ended.is_cancelled() {
            return Err(inner.closed_error());
        }
        let id = options.id.clone().unwrap_or_else(|| self.next_request_id());
        let mut params = params;
        let activity = options.reset_timeout_on_progress.then(|| Arc::new(Notify::new()));
        let token = match &options.on_progress {
            Some(callback) => {
                let token = match &id {
                    RequestId::Number(n) => ProgressToken::Number(*n),
                    RequestId::String(s) => ProgressToken::String(s.clone()),
                };
                set_progress_token(&mut params, &token);
                let entry = ProgressEntry { callback: callback.clone(), activity: activity.clone() };
                lock(&inner.progress).insert(token.clone(), entry);
                Some(token)
            }
            None => None,
        };
        let (tx, rx) = oneshot::channel();
        lock(&inner.pending).insert(id.clone(), tx);
        let mut cleanup = RequestCleanup {
            peer: self,
            id: id.clone(),
            token,
            related: options.related_request.clone(),
            cancellable: method != methods::INITIALIZE,
            reason: "the requester stopped waiting",
        };
        if let Some(on_id) = &options.on_id {
            on_id(&id);
        }
        let message = JsonRpcMessage::request(id.clone(), method, params);
        self.send_with(message, options.related_request.clone(), Priority::Always)?;

        let timeout = options.timeout.unwrap_or(inner.default_timeout);
        let hard_limit = options.max_total_timeout.map(tokio::time::sleep);
        let cancel = options.cancel.clone().unwrap_or_default();
        tokio::pin!(rx);
        let mut hard_limit = std::pin::pin!(OptionFuture(hard_limit.map(Box::pin)));
        let outcome = loop {
            let sleep = tokio::time::sleep(timeout);
            tokio::select! {
                biased;
                result = &mut rx => break match result {
                    Ok(Ok(value)) => Ok(value),
                    Ok(Err(error)) => Err(Error::Rpc(error)),
                    Err(_) => Err(inner.closed_error()),
                },
                _ = inner.input_ended.cancelled() => break Err(inner.closed_error()),
                _ = cancel.cancelled() => break Err(Error::Cancelled),
                _ = sleep => break Err(Error::Timeout(timeout)),
                _ = &mut hard_limit => break Err(Error::Timeout(options.max_total_timeout.unwrap_or(timeout))),
                _ = wait_activity(&activity) => continue,
            }
        };
        match &outcome {
            Err(Error::Cancelled) => cleanup.reason = "cancelled by the requester",
            Err(Error::Timeout(_)) => cleanup.reason = "the request timed out",
            _ => {}
        }
        outcome
    }

    /// Sends a request with typed parameters and result.
    pub async fn request_typed<P: Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        params: &P,
        options: RequestOptions,
    ) -> Result<R, Error> {
        let value = self.request(method, typed_params(params)?, options).await?;
        typed_result(method, value)
    }

    /// Sends a notification with typed parameters.
    pub fn notify<P: Serialize>(&self, method: &str, params: &P, related: Option<RequestId>) -> Result<(), Error> {
        let params = crate::finite::to_value(params)?;
        let params = match params {
            Value::Null => None,
            Value::Object(o) if o.is_empty() => None,
            other => Some(other),
        };
        match &self.inner.outgoing {
            Some(outgoing) => outgoing.notify(self, method, params, related),
            None => self.send(JsonRpcMessage::notification(method, params), related),
        }
    }

    /// Sends a ping and waits for the answer.
    pub async fn ping(&self) -> Result<(), Error> {
        self.request(methods::PING, None, RequestOptions::default()).await.map(drop)
    }

    /// Queues a raw message for the writer.
    ///
    /// Fails with [`Error::QueueFull`] when the peer reads so slowly that the session's
    /// outgoing queue is at its limit.
    pub fn send(&self, message: JsonRpcMessage, related: Option<RequestId>) -> Result<(), Error> {
        self.send_with(message, related, Priority::Bounded)
    }

    fn send_with(&self, message: JsonRpcMessage, related: Option<RequestId>, priority: Priority) -> Result<(), Error> {
        if self.inner.closed.is_cancelled() {
            return Err(self.inner.closed_error());
        }
        self.inner.command(WriterCommand::Send(Outbound { message, related_request: related }), priority)
    }

    /// Draws the id of the next request this side sends.
    pub(crate) fn next_request_id(&self) -> RequestId {
        RequestId::Number(self.inner.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// Returns the session's number, unique in the process: the key of what is kept per
    /// session when the transport gives it no id.
    pub fn session_number(&self) -> u64 {
        self.inner.number
    }

    /// Returns whether the session has ended.
    pub fn is_closed(&self) -> bool {
        self.inner.closed.is_cancelled()
    }

    /// Resolves when the session has ended.
    pub fn closed(&self) -> WaitForCancellationFutureOwned {
        self.inner.closed.clone().cancelled_owned()
    }

    /// Resolves as soon as the peer can no longer answer: it ended the connection, or this
    /// side closed it. Unlike [`Peer::closed`], it does not wait for running handlers to
    /// finish.
    pub fn disconnected(&self) -> WaitForCancellationFutureOwned {
        self.inner.input_ended.clone().cancelled_owned()
    }

    /// Returns why the peer ended the connection, when its transport told (a spawned server
    /// process's exit status and the end of its stderr); `None` while it is open, when this
    /// side closed it, or when the transport knows nothing more.
    pub fn close_reason(&self) -> Option<Arc<CloseReason>> {
        self.inner.close_reason.get().cloned()
    }

    /// Returns whether this side ended the session with [`Peer::close`].
    pub fn closed_by_this_side(&self) -> bool {
        self.inner.closed_here.load(Ordering::Relaxed)
    }

    /// Ends the session: pending requests fail, running handlers stop and the transport is
    /// closed.
    pub fn close(&self) {
        self.inner.closed_here.store(true, Ordering::Relaxed);
        self.inner.input_ended.cancel();
        self.inner.closed.cancel();
    }

    fn complete(&self, id: &RequestId, outcome: Result<Value, ErrorData>) {
        match lock(&self.inner.pending).remove(id) {
            Some(tx) => {
                let _ = tx.send(outcome);
            }
            None => tracing::debug!(%id, "response to a request that is not pending"),
        }
    }

    fn dispatch_progress(&self, params: ProgressNotificationParams) {
        let entry =
            lock(&self.inner.progress).get(&params.progress_token).map(|e| (e.callback.clone(), e.activity.clone()));
        match entry {
            Some((callback, activity)) => {
                if let Some(activity) = activity {
                    activity.notify_one();
                }
                callback(params);
            }
            None => tracing::debug!(token = ?params.progress_token, "progress for an unknown token"),
        }
    }
}

async fn wait_activity(activity: &Option<Arc<Notify>>) {
    match activity {
        Some(n) => n.notified().await,
        None => std::future::pending().await,
    }
}

/// A future that never resolves when it holds nothing.
struct OptionFuture<F>(Option<F>);

impl<F: Future + Unpin> Future for OptionFuture<F> {
    type Output = F::Output;
    fn poll(mut self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<F::Output> {
        match &mut self.0 {
            Some(f) => Pin::new(f).poll(cx),
            None => std::task::Poll::Pending,
        }
    }
}

/// Forgets an outgoing request when its caller stops waiting, however that happens.
///
/// A request still unanswered at that point (cancelled, timed out, or its future dropped,
/// as when the handler that sent it is stopped) is cancelled with the peer, which may
/// otherwise keep working on it; `initialize` is never cancelled, as the lifecycle requires.
struct RequestCleanup<'a> {
    peer: &'a Peer,
    id: RequestId,
    token: Option<ProgressToken>,
    related: Option<RequestId>,
    cancellable: bool,
    reason: &'static str,
}

impl Drop for RequestCleanup<'_> {
    fn drop(&mut self) {
        let unanswered = lock(&self.peer.inner.pending).remove(&self.id).is_some();
        if let Some(token) = &self.token {
            lock(&self.peer.inner.progress).remove(token);
        }
        if unanswered && self.cancellable && !self.peer.inner.input_ended.is_cancelled() {
            let params = CancelledNotificationParams {
                request_id: Some(self.id.clone()),
                reason: Some(self.reason.to_owned()),
                meta: None,
            };
            let _ = self.peer.notify(methods::NOTIFICATIONS_CANCELLED, &params, self.related.take());
        }
    }
}

fn set_progress_token(params: &mut Option<Value>, token: &ProgressToken) {
    let params = params.get_or_insert_with(|| Value::Object(Default::default()));
    if let Value::Object(map) = params {
        let meta = map.entry("_meta").or_insert_with(|| Value::Object(Default::default()));
        if let Value::Object(meta) = meta {
            meta.insert("progressToken".into(), serde_json::to_value(token).unwrap_or(Value::Null));
        }
    }
}

/// What the runtime knows about one incoming request while its handler runs.
#[derive(Clone, Debug)]
pub struct IncomingRequest {
    /// The peer that sent the request.
    pub peer: Peer,
    /// The request's id.
    pub id: RequestId,
    /// The progress token the peer asked for, if any.
    pub progress_token: Option<ProgressToken>,
    /// Fires when the peer cancels the request or the session ends.
    pub cancellation: CancellationToken,
    /// The last progress reported, kept only when the peer asked for progress.
    last_progress: Option<Arc<Mutex<Option<f64>>>>,
    /// Whether the request was already answered and its work goes on in the background (a
    /// task), so that its messages no longer belong to the request's stream.
    detached: bool,
}

impl IncomingRequest {
    /// Sends a progress notification for this request, if the peer asked for progress.
    ///
    /// Progress must increase with each notification; a value that does not is refused with
    /// an error and not sent.
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<String>) -> Result<(), Error> {
        let (Some(token), Some(last)) = (&self.progress_token, &self.last_progress) else { return Ok(()) };
        {
            let mut last = lock(last);
            if last.is_some_and(|l| progress <= l) {
                return Err(Error::Protocol(format!(
                    "progress must increase: {progress} after {}",
                    last.unwrap_or(0.0)
                )));
            }
            *last = Some(progress);
        }
        let params = ProgressNotificationParams { progress_token: token.clone(), progress, total, message, meta: None };
        let params = crate::finite::to_value(&params)?;
        let message = JsonRpcMessage::notification(methods::NOTIFICATIONS_PROGRESS, Some(params));
        self.peer.send_with(message, self.related(), Priority::Progress(token.clone()))
    }

    /// Returns the request that messages sent on behalf of this one belong to: the request
    /// itself, or none once it was detached (its stream may be gone).
    pub fn related(&self) -> Option<RequestId> {
        (!self.detached).then(|| self.id.clone())
    }

    /// Makes the context of a request the peer did not send over the wire: a request for
    /// input that a 2026-07-28 server put in an `input_required` result, answered by the
    /// client's own handler under `id` (the request's key).
    pub(crate) fn local(peer: Peer, id: RequestId) -> IncomingRequest {
        IncomingRequest {
            peer,
            id,
            progress_token: None,
            cancellation: CancellationToken::new(),
            last_progress: None,
            detached: true,
        }
    }

    /// Returns a copy for work that outlives the request's answer (a task): it has its own
    /// cancellation token, keeps the progress token and sends its messages unrelated to the
    /// answered request.
    pub(crate) fn detach(&self) -> IncomingRequest {
        IncomingRequest { cancellation: CancellationToken::new(), detached: true, ..self.clone() }
    }

    /// Returns whether the request was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancellation.is_cancelled()
    }

    /// Ends the stream that carries this request's messages without ending the request.
    ///
    /// Over Streamable HTTP the client reconnects after the announced `retry` delay and gets
    /// every later message, the response included, on the resumed stream (SSE polling). Other
    /// transports have no such stream and ignore it.
    pub fn close_stream(&self) -> Result<(), Error> {
        if self.peer.inner.closed.is_cancelled() {
            return Err(Error::TransportClosed);
        }
        self.peer.inner.command(WriterCommand::CloseStream(self.id.clone()), Priority::Always)
    }
}

/// How a role answers a request.
pub(crate) enum Reply {
    /// The answer is ready.
    Now(Result<Value, ErrorData>),
    /// The answer comes from a handler that runs concurrently and can be cancelled.
    Later(BoxFuture<'static, Result<Answer, ErrorData>>),
}

impl Reply {
    /// An answer to come from `work`, whose result is a JSON value.
    pub(crate) fn later(work: impl Future<Output = Result<Value, ErrorData>> + Send + 'static) -> Self {
        Reply::Later(work.map(|outcome| outcome.map(Answer::Value)).boxed())
    }
}

/// A request's result on its way to the wire.
pub(crate) enum Answer {
    /// A JSON value.
    Value(Value),
    /// JSON text a typed result was encoded to, with no value built in between.
    Encoded(Box<RawValue>),
}

impl Answer {
    /// Encodes a typed result straight to JSON text; a NaN or infinite number in it is an
    /// internal error, not a silent `null`.
    pub(crate) fn encode<T: Serialize>(value: &T) -> Result<Self, ErrorData> {
        crate::finite::to_raw_value(value)
            .map(Answer::Encoded)
            .map_err(|e| ErrorData::internal_error(format!("could not encode the result: {e}")))
    }

    /// Returns the result as a JSON value, decoding encoded text.
    pub(crate) fn into_value(self) -> Value {
        match self {
            Answer::Value(value) => value,
            Answer::Encoded(text) => crate::jsonrpc::decode_raw(&text),
        }
    }

    /// Returns the response to request `id` that carries this result.
    pub(crate) fn into_message(self, id: RequestId) -> JsonRpcMessage {
        match self {
            Answer::Value(result) => JsonRpcMessage::response(id, result),
            Answer::Encoded(result) => JsonRpcMessage::Encoded(EncodedResponse { id, result }),
        }
    }
}

/// The role-specific part of a session: what the server or client does with incoming messages.
pub(crate) trait Service: Send + Sync + 'static {
    /// Handles one request, in arrival order.
    fn request(&self, request: Request, incoming: IncomingRequest) -> Reply;

    /// Handles one notification, in arrival order; the runtime has already handled
    /// progress and cancellation.
    fn notification(&self, notification: Notification, peer: &Peer) -> Option<BoxFuture<'static, ()>>;

    /// Called once when the session ends.
    fn closed(&self) {}

    /// Describes the session a message with `params` belongs to, for middleware.
    fn describe(&self, params: Option<&Value>) -> Described {
        let _ = params;
        Described::default()
    }
}

/// Settings of one session.
#[derive(Clone, Debug)]
pub(crate) struct SessionConfig {
    /// The time-out of requests that set none.
    pub(crate) default_timeout: Duration,
    /// How long running handlers may still finish after the peer's input ended.
    pub(crate) drain_timeout: Duration,
    /// How many of the peer's requests may run at once.
    pub(crate) max_in_flight: usize,
    /// How many outgoing messages a byte-stream session queues.
    pub(crate) max_queued: usize,
    /// How many bytes of outgoing messages a byte-stream session queues.
    pub(crate) max_queued_bytes: usize,
    /// The middleware around every message, received and sent.
    pub(crate) middleware: MiddlewareChain,
    /// The role the session plays, as middleware see it.
    pub(crate) role: Role,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            default_timeout: DEFAULT_REQUEST_TIMEOUT,
            drain_timeout: Duration::from_secs(1),
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            max_queued: DEFAULT_MAX_QUEUED_MESSAGES,
            max_queued_bytes: DEFAULT_MAX_QUEUED_BYTES,
            middleware: MiddlewareChain::default(),
            role: Role::Server,
        }
    }
}

/// Starts a session over a transport, returning the peer handle and the runtime's task.
pub(crate) fn start<S: Service>(
    transport: impl Transport,
    service: Arc<S>,
    config: SessionConfig,
) -> (Peer, JoinHandle<()>) {
    let (service, outgoing) = layered(service, &config);
    let (writer, reader) = transport.split();
    let (tx, out_rx) = mpsc::unbounded_channel();
    let fill = Arc::new(Fill::new(config.max_queued, config.max_queued_bytes));
    let queue = OutQueue { tx, fill: fill.clone(), room: Arc::default(), coalesced: Arc::default() };
    let taken = Taken { fill, room: queue.room.clone(), coalesced: queue.coalesced.clone() };
    let peer = Peer::new(Output::Queue(queue), &config, outgoing);
    let writer_task = tokio::spawn(run_writer(writer, out_rx, taken, peer.inner.closed.clone()));
    let reader_peer = peer.clone();
    let task = tokio::spawn(async move {
        let mut reader = reader;
        let (notices, input_ended) = run_reader(&mut reader, &reader_peer, service.as_ref()).await;
        let inner = &reader_peer.inner;
        // The session also closes early when writing failed (the peer is gone, as a server
        // process that exited before reading): that is the peer's doing too.
        let ended_by_peer = input_ended || !inner.closed_here.load(Ordering::Relaxed);
        if ended_by_peer && let Some(reason) = reader.close_reason().await {
            let _ = inner.close_reason.set(Arc::new(reason));
        }
        inner.input_ended.cancel();
        lock(&inner.pending).clear();
        // Handlers already running may still answer, and notifications already received still
        // reach their handlers, for a bounded time.
        let deadline = tokio::time::Instant::now() + inner.drain_timeout;
        if let Some(mut notices) = notices
            && tokio::time::timeout_at(deadline, &mut notices).await.is_err()
        {
            tracing::warn!(
                drain_timeout = ?inner.drain_timeout,
                "notification handlers were still busy when the session closed; the notifications left were dropped"
            );
            notices.abort();
        }
        while !inner.closed.is_cancelled()
            && !lock(&inner.inflight).is_empty()
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        inner.closed.cancel();
        for (_, entry) in lock(&inner.inflight).drain() {
            entry.cancellation.cancel();
        }
        service.closed();
        let _ = writer_task.await;
    });
    (peer, task)
}

impl Peer {
    /// Makes `first` the id of the next request this side sends, so that processes serving
    /// one session each draw ids from a range of their own.
    #[cfg(feature = "redis")]
    pub(crate) fn set_next_request_id(&self, first: i64) {
        self.inner.next_id.store(first, Ordering::Relaxed);
    }

    fn new(out: Output, config: &SessionConfig, outgoing: Option<Outgoing>) -> Peer {
        Peer {
            inner: Arc::new(PeerInner {
                out,
                next_id: AtomicI64::new(0),
                pending: Mutex::default(),
                progress: Mutex::default(),
                inflight: Mutex::default(),
                next_serial: AtomicU64::new(0),
                max_in_flight: config.max_in_flight.max(1),
                input_ended: CancellationToken::new(),
                closed: CancellationToken::new(),
                close_reason: std::sync::OnceLock::new(),
                closed_here: AtomicBool::new(false),
                default_timeout: config.default_timeout,
                drain_timeout: config.drain_timeout,
                outgoing,
                number: NEXT_SESSION_NUMBER.fetch_add(1, Ordering::Relaxed),
            }),
        }
    }
}

/// The role's service with the session's middleware around it, and the chain around what
/// the session sends; the service alone when there is no middleware.
fn layered<S: Service>(service: Arc<S>, config: &SessionConfig) -> (Arc<dyn Service>, Option<Outgoing>) {
    let service: Arc<dyn Service> = service;
    if config.middleware.is_empty() {
        return (service, None);
    }
    let outgoing = Outgoing::new(config.middleware.clone(), config.role, Arc::downgrade(&service));
    (Arc::new(Layered::new(service, config.middleware.clone(), config.role)), Some(outgoing))
}

/// The receiving side of a session started with [`start_direct`]: the transport hands it each
/// incoming message in its own task.
pub(crate) struct DirectInput {
    peer: Peer,
    service: Arc<dyn Service>,
}

impl DirectInput {
    /// Processes one incoming item; a notification's handler comes back as a future for the
    /// caller to run, so that it keeps its place before what the caller does next.
    pub(crate) fn deliver(&self, item: Inbound) -> Option<BoxFuture<'static, ()>> {
        process(&self.peer, self.service.as_ref(), item)
    }
}

/// Starts a session whose transport pushes incoming messages and takes outgoing ones
/// synchronously; one small task waits for the end to clean up.
pub(crate) fn start_direct<S: Service>(
    writer: Arc<dyn DirectWriter>,
    service: Arc<S>,
    config: SessionConfig,
) -> (Peer, DirectInput) {
    let (service, outgoing) = layered(service, &config);
    let peer = Peer::new(Output::Direct(writer.clone()), &config, outgoing);
    let watcher = peer.clone();
    let on_close = service.clone();
    tokio::spawn(async move {
        let inner = &watcher.inner;
        inner.closed.cancelled().await;
        inner.input_ended.cancel();
        lock(&inner.pending).clear();
        for (_, entry) in lock(&inner.inflight).drain() {
            entry.cancellation.cancel();
        }
        on_close.closed();
        writer.close();
    });
    (peer.clone(), DirectInput { peer, service })
}

/// What the writer task is asked to do, in order.
enum WriterCommand {
    /// Send a message.
    Send(Outbound),
    /// End the stream that carries the messages of a request, if the transport has one.
    CloseStream(RequestId),
}

async fn execute(writer: &mut Box<dyn TransportWriter>, command: WriterCommand) -> Result<(), Error> {
    match command {
        WriterCommand::Send(outbound) => writer.send(outbound).await,
        WriterCommand::CloseStream(request) => writer.close_request_stream(&request).await,
    }
}

/// The writer task's side of the queue bound: it counts what it takes and wakes the waiters.
struct Taken {
    fill: Arc<Fill>,
    room: Arc<Notify>,
    coalesced: Arc<Coalesced>,
}

impl Taken {
    /// Counts `queued` off the queue and returns its command.
    fn one(&self, queued: Queued) -> WriterCommand {
        let Queued { command, bytes } = queued;
        if self.fill.take(bytes) {
            self.room.notify_waiters();
        }
        command
    }
}

async fn run_writer(
    mut writer: Box<dyn TransportWriter>,
    mut rx: mpsc::UnboundedReceiver<Box<Queued>>,
    taken: Taken,
    closed: CancellationToken,
) {
    let result: Result<(), Error> = async {
        loop {
            let first = tokio::select! {
                biased;
                command = rx.recv() => command,
                _ = closed.cancelled() => None,
            };
            let Some(first) = first else { break };
            execute(&mut writer, taken.one(*first)).await?;
            loop {
                while let Ok(next) = rx.try_recv() {
                    execute(&mut writer, taken.one(*next)).await?;
                }
                // Yielding once lets the tasks that are ready (on a multi-thread runtime, those
                // answering beside this one) queue their messages, which then share this flush.
                tokio::task::yield_now().await;
                if rx.is_empty() {
                    break;
                }
            }
            // The queue is empty: the progress that found it full goes out now.
            for outbound in taken.coalesced.take() {
                writer.send(outbound).await?;
            }
            writer.flush().await?;
        }
        // Whatever handlers queued before the end still goes out.
        while let Ok(next) = rx.try_recv() {
            execute(&mut writer, next.command).await?;
        }
        writer.flush().await
    }
    .await;
    if let Err(e) = result {
        tracing::debug!(error = %e, "writer stopped");
    }
    closed.cancel();
    if let Err(e) = writer.close().await {
        tracing::debug!(error = %e, "closing the transport failed");
    }
}

/// Reads the peer's messages until its input ends or the session closes, and returns the
/// task running the notification handlers, which ends once it has handled every
/// notification already received.
///
/// Nothing a handler does holds the reader up: requests run in their own tasks and
/// notification handlers, in arrival order, in one task of their own. The reader only waits
/// when the peer sends a request while it does not read what it is sent (the outgoing queue is
/// full), so that answers never pile up.
///
/// Returns the task of the notification handlers, if one started, and whether the transport
/// ended (rather than the session being closed).
async fn run_reader(
    reader: &mut Box<dyn TransportReader>,
    peer: &Peer,
    service: &dyn Service,
) -> (Option<JoinHandle<()>>, bool) {
    let mut notifications: Option<(mpsc::Sender<BoxFuture<'static, ()>>, JoinHandle<()>)> = None;
    let mut dropped = DroppedNotifications::default();
    let ended_by_peer = loop {
        let item = tokio::select! {
            biased;
            _ = peer.inner.closed.cancelled() => break false,
            item = reader.recv() => item,
        };
        match item {
            Ok(Some(item)) => {
                let answered = match &item {
                    Inbound::Message(message) => matches!(message, JsonRpcMessage::Request(_)),
                    Inbound::Invalid(e) => e.answerable,
                };
                if answered {
                    peer.inner.room().await;
                }
                if let Some(work) = process(peer, service, item) {
                    let (queue, _) = notifications.get_or_insert_with(|| {
                        let (tx, mut rx) = mpsc::channel::<BoxFuture<'static, ()>>(NOTIFICATION_BACKLOG);
                        let worker = tokio::spawn(async move {
                            while let Some(work) = rx.recv().await {
                                work.await;
                            }
                        });
                        (tx, worker)
                    });
                    if queue.try_send(work).is_err() {
                        dropped.note();
                    }
                }
            }
            Ok(None) => break true,
            Err(e) => {
                tracing::debug!(error = %e, "reader stopped");
                break true;
            }
        }
    };
    dropped.report();
    (notifications.map(|(_, worker)| worker), ended_by_peer)
}

/// Handles one incoming item; a notification handler comes back as a future to run before
/// the next item.
fn process(peer: &Peer, service: &dyn Service, item: Inbound) -> Option<BoxFuture<'static, ()>> {
    let message = match item {
        Inbound::Message(message) => message,
        Inbound::Invalid(e) => {
            tracing::debug!(error = %e, "invalid message");
            if e.answerable {
                let _ = peer.send_with(JsonRpcMessage::error(e.id, e.error), None, Priority::Always);
            }
            return None;
        }
    };
    match message {
        JsonRpcMessage::Request(request) => handle_request(peer, service, request),
        JsonRpcMessage::Notification(notification) => return handle_notification(peer, service, notification),
        JsonRpcMessage::Response(response) => peer.complete(&response.id, Ok(response.result)),
        JsonRpcMessage::Encoded(response) => {
            peer.complete(&response.id, Ok(crate::jsonrpc::decode_raw(&response.result)))
        }
        JsonRpcMessage::Error(error) => match error.id {
            Some(id) => peer.complete(&id, Err(error.error)),
            None => tracing::warn!(error = %error.error, "the peer reported an error"),
        },
    }
    None
}

fn handle_request(peer: &Peer, service: &dyn Service, request: Request) {
    let id = request.id.clone();
    let cancellation = CancellationToken::new();
    let serial = peer.inner.next_serial.fetch_add(1, Ordering::Relaxed);
    let refusal = {
        // Checking and registering the id under one lock makes them one step.
        let mut inflight = lock(&peer.inner.inflight);
        if inflight.contains_key(&id) {
            Some(ErrorData::invalid_request(format!("request id {id} is already in use")))
        } else if inflight.len() >= peer.inner.max_in_flight {
            Some(ErrorData::too_many_requests(peer.inner.max_in_flight))
        } else {
            inflight.insert(id.clone(), InFlight { serial, cancellation: cancellation.clone() });
            None
        }
    };
    if let Some(error) = refusal {
        let _ = peer.send_with(JsonRpcMessage::error(Some(id.clone()), error), Some(id), Priority::Always);
        return;
    }
    let progress_token = crate::jsonrpc::meta_of(request.params.as_ref())
        .and_then(|m| m.get("progressToken"))
        .and_then(|t| serde_json::from_value(t.clone()).ok());
    let last_progress = progress_token.as_ref().map(|_| Arc::default());
    let incoming = IncomingRequest {
        peer: peer.clone(),
        id: id.clone(),
        progress_token,
        cancellation: cancellation.clone(),
        last_progress,
        detached: false,
    };
    match service.request(request, incoming) {
        Reply::Now(outcome) => {
            if peer.inner.finish(&id, Some(serial)).is_some() {
                respond(peer, id, outcome.map(Answer::Value));
            }
        }
        Reply::Later(work) => {
            // A panicking handler fails its request with an internal error, as a thrown error
            // does in the bindings, instead of leaving the request unanswered.
            let mut work = AssertUnwindSafe(work).catch_unwind();
            // A direct transport delivers each request from the task that waits for its answer
            // (an HTTP request's), so the handler takes its first step there: one that answers
            // without waiting costs no task and no wake-up. A pending one goes on in its own
            // task, which polls it again with a real waker.
            if matches!(peer.inner.out, Output::Direct(_))
                && let Poll::Ready(outcome) = Pin::new(&mut work).poll(&mut Context::from_waker(Waker::noop()))
            {
                if peer.inner.finish(&id, Some(serial)).is_some() {
                    respond(peer, id, settled(outcome));
                }
                return;
            }
            let peer = peer.clone();
            tokio::spawn(async move {
                tokio::select! {
                    biased;
                    _ = cancellation.cancelled() => {
                        tracing::debug!(%id, "request cancelled; its handler was stopped");
                    }
                    outcome = work => {
                        // A request cancelled meanwhile is not answered, and its id may already
                        // belong to a new request, which this outcome must not reach.
                        if peer.inner.finish(&id, Some(serial)).is_some() {
                            respond(&peer, id, settled(outcome));
                        }
                    }
                }
            });
        }
    }
}

/// The outcome of a handler, a panic in it becoming an internal error.
fn settled(outcome: std::thread::Result<Result<Answer, ErrorData>>) -> Result<Answer, ErrorData> {
    outcome.unwrap_or_else(|_| {
        tracing::error!("a request handler panicked");
        Err(ErrorData::internal_error("Internal error: the request handler panicked"))
    })
}

fn respond(peer: &Peer, id: RequestId, outcome: Result<Answer, ErrorData>) {
    let message = match outcome {
        Ok(answer) => answer.into_message(id.clone()),
        Err(error) => JsonRpcMessage::error(Some(id.clone()), error),
    };
    let _ = peer.send_with(message, Some(id), Priority::Always);
}

fn handle_notification(
    peer: &Peer,
    service: &dyn Service,
    notification: Notification,
) -> Option<BoxFuture<'static, ()>> {
    match notification.method.as_str() {
        methods::NOTIFICATIONS_CANCELLED => {
            match parse_params::<CancelledNotificationParams>(&notification.params) {
                Some(CancelledNotificationParams { request_id: Some(id), reason, .. }) => {
                    if let Some(token) = peer.inner.finish(&id, None) {
                        tracing::debug!(%id, reason = reason.as_deref().unwrap_or(""), "peer cancelled a request");
                        token.cancel();
                        if let Output::Direct(writer) = &peer.inner.out {
                            writer.request_abandoned(&id);
                        }
                    }
                }
                _ => tracing::debug!("ignoring a malformed cancellation"),
            }
            service.notification(notification, peer)
        }
        methods::NOTIFICATIONS_PROGRESS => {
            match parse_params::<ProgressNotificationParams>(&notification.params) {
                Some(params) => peer.dispatch_progress(params),
                None => tracing::debug!("ignoring a malformed progress notification"),
            }
            None
        }
        _ => service.notification(notification, peer),
    }
}

/// Parses notification or request parameters, treating absent parameters as `{}`.
pub(crate) fn parse_params<T: DeserializeOwned>(params: &Option<Value>) -> Option<T> {
    match params {
        Some(v) => T::deserialize(v).ok(),
        None => serde_json::from_value(Value::Object(Default::default())).ok(),
    }
}

/// Parses request parameters or returns the invalid-params error to answer with.
pub(crate) fn request_params<T: DeserializeOwned>(params: Option<Value>) -> Result<T, ErrorData> {
    let value = params.unwrap_or_else(|| Value::Object(Default::default()));
    serde_json::from_value(value).map_err(|e| ErrorData::invalid_params(format!("Invalid params: {e}")))
}

/// Serializes a result for the wire; a NaN or infinite number in it is an internal error, not
/// a silent `null`.
pub(crate) fn to_result<T: Serialize>(value: &T) -> Result<Value, ErrorData> {
    crate::finite::to_value(value).map_err(|e| ErrorData::internal_error(format!("could not encode the result: {e}")))
}

/// Turns typed request parameters into JSON, leaving out an empty object.
pub(crate) fn typed_params<P: Serialize>(params: &P) -> Result<Option<Value>, Error> {
    let params = crate::finite::to_value(params)?;
    Ok(if params.as_object().is_some_and(|o| o.is_empty()) { None } else { Some(params) })
}

/// Reads the typed result of a `method` request, naming the method when it is malformed.
pub(crate) fn typed_result<R: DeserializeOwned>(method: &str, value: Value) -> Result<R, Error> {
    serde_json::from_value(value).map_err(|e| Error::Protocol(format!("malformed {method} result: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_of_dropped_notifications_gives_one_warning_with_the_count() {
        let mut dropped = DroppedNotifications::default();
        assert_eq!(dropped.note(), Some(1), "the first drop is reported at once");
        let reported: Vec<u64> = (0..300_000).filter_map(|_| dropped.note()).collect();
        assert!(reported.is_empty(), "{reported:?}");
        assert_eq!(dropped.report(), Some(300_000), "the rest are summed up when the session ends");
        assert_eq!(dropped.report(), None);
        // Once the interval has passed, the next drop warns again.
        dropped.warned_at = Instant::now().checked_sub(DROP_WARNING_INTERVAL);
        assert_eq!(dropped.note(), Some(1));
    }
}
