//! The listener of a server started with [`StreamableHttpServer::bind`]: the limit on open
//! connections, the header read timeout kept by a watchdog per connection, and the drain when
//! the server shuts down.

use std::{
    sync::{
        Arc, Mutex,
        atomic::{AtomicU8, AtomicU64, AtomicUsize, Ordering},
    },
    task::{Context, Poll},
    time::Duration,
};

use axum::{
    Router,
    body::{Body, Bytes},
    extract::State,
    response::Response,
};
use tokio_util::sync::CancellationToken;

use crate::sync::{FastMap, lock};

#[cfg(doc)]
use super::StreamableHttpServer;
use super::{HttpState, LOG_TARGET, Usage, handle};

/// What a bound server enforces on each connection.
#[derive(Clone, Copy)]
pub(super) struct ConnectionLimits {
    /// How long a connection may wait for its next request's headers.
    pub(super) header_read_timeout: Option<Duration>,
    /// How many connections may be open at once.
    pub(super) max_connections: usize,
}

/// Three quarters of the process's open-file limit, so that the descriptors left over keep
/// the process working (files, outgoing connections) while clients hold all they may.
#[cfg(unix)]
pub(super) fn default_max_connections() -> usize {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit only writes the struct it is given.
    let known = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
    let files = if known && limit.rlim_cur != libc::RLIM_INFINITY { limit.rlim_cur } else { 1 << 20 };
    usize::try_from(files / 4 * 3).unwrap_or(usize::MAX).clamp(1, 65_536)
}

/// A fixed 16,384, since Windows has no open-file limit to read: its sockets are bounded by
/// memory alone.
#[cfg(not(unix))]
pub(super) fn default_max_connections() -> usize {
    16_384
}

/// The answer to a connection past the limit, written without reading its request.
const OVER_CAPACITY: &[u8] =
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nretry-after: 1\r\nconnection: close\r\n\r\n";

/// What a bound server answers with: the MCP endpoint, and the router for every other path.
pub(super) struct Endpoint {
    /// The server's state, which the MCP path's handler takes.
    pub(super) state: Arc<HttpState>,
    /// The router of every path.
    pub(super) router: Router,
}

impl Endpoint {
    /// Returns the service of one connection, which counts its requests in `activity`.
    ///
    /// Requests for the MCP path go straight to its handler; the router, which serves the
    /// other paths (authorization metadata, 404s), would cost each call a boxed future, a
    /// cloned service and a map of path parameters.
    fn connection(
        &self,
        activity: Arc<Activity>,
    ) -> impl hyper::service::Service<
        hyper::Request<hyper::body::Incoming>,
        Response = http::Response<TrackedBody>,
        Error = std::convert::Infallible,
        Future: Send,
    > + use<> {
        let state = self.state.clone();
        let others = hyper_util::service::TowerToHyperService::new(self.router.clone());
        hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
            let in_flight = InFlight::begin(&activity);
            let track = move |response: Response| response.map(|body| TrackedBody { body, _in_flight: in_flight });
            if request.uri().path() == state.options.path {
                let state = state.clone();
                futures::future::Either::Left(async move { Ok(track(handle(State(state), request).await)) })
            } else {
                let answer = hyper::service::Service::call(&others, request);
                futures::future::Either::Right(async move { answer.await.map(track) })
            }
        })
    }
}

/// What the watchdog of a connection reads: whether a request began or ended since its last
/// look, and how many are still being handled or answered.
struct Activity {
    usage: Usage,
    in_flight: AtomicUsize,
}

/// A request counted as in flight on its connection until its response's body is dropped (an
/// SSE stream is in flight for as long as it is open).
struct InFlight(Arc<Activity>);

impl InFlight {
    fn begin(activity: &Arc<Activity>) -> Self {
        activity.usage.mark();
        activity.in_flight.fetch_add(1, Ordering::Relaxed);
        InFlight(activity.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        // An end is a use too: the quiet time counts from it.
        self.0.usage.mark();
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A response body that keeps its request in flight until it is dropped.
struct TrackedBody {
    body: Body,
    _in_flight: InFlight,
}

impl hyper::body::Body for TrackedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Bytes>, axum::Error>>> {
        std::pin::Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}

/// What the watchdog of a connection tells the connection's task: to finish its exchange and
/// close (the server shuts down), or to close at once (it sent no request in time).
#[derive(Default)]
struct Alarm {
    raised: AtomicU8,
    waker: futures::task::AtomicWaker,
}

impl Alarm {
    const DRAIN: u8 = 1;
    const CLOSE: u8 = 2;

    fn raise(&self, level: u8) {
        self.raised.fetch_max(level, Ordering::AcqRel);
        self.waker.wake();
    }

    /// Returns the level raised so far (0 for none), waking the task of `cx` when it rises.
    fn level(&self, cx: &Context<'_>) -> u8 {
        self.waker.register(cx.waker());
        self.raised.load(Ordering::Acquire)
    }
}

/// Raises `alarm` to drain when `shutdown` fires and to close once the connection has been
/// quiet for `timeout`.
async fn watch(activity: Arc<Activity>, alarm: Arc<Alarm>, timeout: Option<Duration>, shutdown: CancellationToken) {
    let quiet = quiet_for(&activity, timeout);
    tokio::pin!(quiet);
    tokio::select! {
        () = shutdown.cancelled() => alarm.raise(Alarm::DRAIN),
        () = quiet.as_mut() => return alarm.raise(Alarm::CLOSE),
    }
    quiet.await;
    alarm.raise(Alarm::CLOSE);
}

/// How many quiet looks in a row the watchdog of a connection takes before ending it.
const QUIET_LOOKS: u32 = 4;

/// Returns once the connection of `activity` has had no request in flight and none begun or
/// ended for `timeout` (up to a quarter more, as the watchdog looks four times per `timeout`);
/// never when `timeout` is `None`.
///
/// This is the header read timeout: a connection that is not handling a request is reading the
/// headers of its next one. Marking requests costs a request a few atomic operations, where a
/// timer armed for each request's headers would cost a clock read, an allocation and a trip
/// through the timer wheel.
async fn quiet_for(activity: &Activity, timeout: Option<Duration>) {
    let Some(timeout) = timeout else { return std::future::pending().await };
    let mut looks = tokio::time::interval((timeout / QUIET_LOOKS).max(Duration::from_millis(1)));
    looks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        looks.tick().await;
        if activity.usage.quiet_for(QUIET_LOOKS, || activity.in_flight.load(Ordering::Relaxed) > 0) {
            return;
        }
    }
}

/// How long a connection past the limit waits for the room an idle connection it closed makes.
const ROOM_WAIT: Duration = Duration::from_secs(1);

/// The open connections of a bound server, so that a new client past the limit can take the
/// place of one that is only kept alive.
#[derive(Default)]
struct OpenConnections {
    next: AtomicU64,
    open: Mutex<FastMap<u64, Watched>>,
}

/// What the server holds of an open connection: what its watchdog reads, and its alarm.
struct Watched {
    activity: Arc<Activity>,
    alarm: Arc<Alarm>,
}

impl OpenConnections {
    /// Records a connection until the returned guard is dropped.
    fn add(self: &Arc<Self>, activity: Arc<Activity>, alarm: Arc<Alarm>) -> OpenConnection {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        lock(&self.open).insert(id, Watched { activity, alarm });
        OpenConnection { connections: self.clone(), id }
    }

    /// Closes one connection that handles no request, preferring one not used since its
    /// watchdog's last look; returns whether there was one.
    fn close_an_idle_one(&self) -> bool {
        let open = lock(&self.open);
        // A connection already told to close is making room for another newcomer.
        let idle = |w: &&Watched| {
            w.activity.in_flight.load(Ordering::Relaxed) == 0 && w.alarm.raised.load(Ordering::Acquire) < Alarm::CLOSE
        };
        let quiet = |w: &&Watched| !w.activity.usage.used.load(Ordering::Relaxed);
        let victim = open.values().filter(idle).find(quiet).or_else(|| open.values().find(idle));
        if let Some(w) = victim {
            w.alarm.raise(Alarm::CLOSE);
        }
        victim.is_some()
    }
}

/// An open connection, forgotten by its [`OpenConnections`] when dropped.
struct OpenConnection {
    connections: Arc<OpenConnections>,
    id: u64,
}

impl Drop for OpenConnection {
    fn drop(&mut self) {
        lock(&self.connections.open).remove(&self.id);
    }
}

/// Accepts connections until `shutdown` fires, serving each with `endpoint` under `limits`,
/// then lets the open ones finish their current exchange.
///
/// At the connection limit, a new connection closes one that handles no request (a client
/// keeping it alive between requests, or one that sent nothing yet) and takes its place; it is
/// answered 503 only when every connection is busy.
pub(super) async fn serve_connections(
    listener: tokio::net::TcpListener,
    endpoint: Endpoint,
    limits: ConnectionLimits,
    shutdown: CancellationToken,
) {
    let permits = Arc::new(tokio::sync::Semaphore::new(limits.max_connections));
    let open = Arc::new(OpenConnections::default());
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = shutdown.cancelled() => break,
        };
        while connections.try_join_next().is_some() {}
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of descriptors or memory: wait a little rather than spin.
                tracing::warn!(target: LOG_TARGET, error = %e, "accepting a connection failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let permit = match permits.clone().try_acquire_owned() {
            Ok(permit) => Some(permit),
            Err(_) if open.close_an_idle_one() => {
                tracing::debug!(target: LOG_TARGET, "at the connection limit: an idle connection is closed for a new one");
                None
            }
            Err(_) => {
                tracing::debug!(target: LOG_TARGET, "a connection past the limit is refused: every connection is busy");
                let _ = stream.try_write(OVER_CAPACITY);
                continue;
            }
        };
        let activity = Arc::new(Activity { usage: Usage::new(), in_flight: AtomicUsize::new(0) });
        let service = endpoint.connection(activity.clone());
        let alarm = Arc::new(Alarm::default());
        let watchdog = watch(activity.clone(), alarm.clone(), limits.header_read_timeout, shutdown.clone());
        let permits = permits.clone();
        let open = open.clone();
        connections.spawn(async move {
            let _permit = match permit {
                Some(permit) => permit,
                None => match tokio::time::timeout(ROOM_WAIT, permits.acquire_owned()).await {
                    Ok(Ok(permit)) => permit,
                    _ => {
                        let _ = stream.try_write(OVER_CAPACITY);
                        return;
                    }
                },
            };
            let _open = open.add(activity, alarm.clone());
            let _ = stream.set_nodelay(true);
            let _watchdog = tokio_util::task::AbortOnDropHandle::new(tokio::spawn(watchdog));
            // Half-closed connections are allowed: a client may end its side once it has sent
            // its request and still gets the answer. Without this hyper reads ahead to catch an
            // early end while the request is handled, and as the request's headers and body
            // still share its read buffer, it allocates a new one for each request. A client
            // gone mid-request is noticed at the next write: keep-alive comments on SSE streams,
            // the answer otherwise (a disconnection does not cancel a request). hyper's own
            // header timeout is off: the watchdog keeps it.
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder.header_read_timeout(None).half_close(true);
            let connection = builder.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
            tokio::pin!(connection);
            let mut draining = false;
            // The watchdog runs in a task of its own, so that each wake of this one (two per
            // request) polls the connection and reads the alarm, not a timer and a token.
            let ended = std::future::poll_fn(|cx| {
                loop {
                    if let Poll::Ready(result) = connection.as_mut().poll(cx) {
                        return Poll::Ready(Some(result));
                    }
                    match alarm.level(cx) {
                        Alarm::CLOSE => return Poll::Ready(None),
                        Alarm::DRAIN if !draining => {
                            draining = true;
                            connection.as_mut().graceful_shutdown();
                        }
                        _ => return Poll::Pending,
                    }
                }
            })
            .await;
            match ended {
                Some(Err(e)) => tracing::debug!(target: LOG_TARGET, error = %e, "a connection ended with an error"),
                Some(Ok(())) => {}
                None => tracing::debug!(
                    target: LOG_TARGET,
                    "a connection is closed: it sent no request within the header read timeout, or made room at the limit"
                ),
            }
        });
    }
    while connections.join_next().await.is_some() {}
}
