//! `mcpweft proxy URL`: a stdio server in front of a remote Streamable HTTP (or HTTP+SSE)
//! server, for clients that only start commands.
//!
//! Two of the core's transports face each other: stdio towards the client, the Streamable HTTP
//! client towards the server. Messages are relayed as they are, without a session runtime in
//! between, so requests, notifications, the server's own requests, progress, cancellation and
//! both protocol revisions pass untouched, with the capabilities of the real peers. The HTTP
//! transport does the rest: it keeps the session id, resumes broken event streams, and when
//! the server forgot the session (HTTP 404) it replays the client's `initialize` request and
//! `notifications/initialized`, keeps the second initialize result to itself, and sends the
//! message again. The one message the proxy answers itself is a line from the client that is
//! not JSON-RPC, with the error the core's decoder gives it.

use mcpweft::{
    RequestId,
    host::ServerTransport,
    jsonrpc::JsonRpcMessage,
    transport::{
        Inbound, Outbound, Transport as _, TransportReader, TransportWriter, http::StreamableHttpClientTransport,
    },
};
use std::{
    collections::HashSet,
    sync::{
        Arc, Mutex, PoisonError,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use tokio::sync::{Notify, mpsc};

use crate::{args::ProxyArgs, failure::Failure, target};

/// How many messages for the client wait to be written before the relays wait for stdout.
const TO_CLIENT_CAPACITY: usize = 256;

/// How many messages are written to stdout between two flushes.
const FLUSH_EVERY: usize = 64;

/// How long the answers to the client's last requests may take once its stdin has ended, as a
/// stdio server of the core drains its running handlers.
const DRAIN_LIMIT: Duration = Duration::from_secs(1);

/// The client's requests that the server has not answered yet, by id: all the proxy reads of
/// the messages it carries, so that it can wait for those answers when stdin ends.
#[derive(Default)]
struct Unanswered {
    ids: Mutex<HashSet<RequestId>>,
    answered: Notify,
}

impl Unanswered {
    fn ids(&self) -> std::sync::MutexGuard<'_, HashSet<RequestId>> {
        self.ids.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Notes a request of the client on its way to the server.
    fn sent(&self, message: &JsonRpcMessage) {
        if let JsonRpcMessage::Request(request) = message {
            self.ids().insert(request.id.clone());
        }
    }

    /// Notes a message of the server on its way to the client.
    fn received(&self, message: &JsonRpcMessage) {
        if let Some(id) = message.answers() {
            let mut ids = self.ids();
            if ids.remove(id) && ids.is_empty() {
                self.answered.notify_waiters();
            }
        }
    }

    /// Waits until every request has its answer, or [`DRAIN_LIMIT`] has passed.
    async fn drain(&self) {
        let all_answered = async {
            loop {
                let answered = self.answered.notified();
                if self.ids().is_empty() {
                    return;
                }
                answered.await;
            }
        };
        if tokio::time::timeout(DRAIN_LIMIT, all_answered).await.is_err() {
            tracing::debug!(unanswered = self.ids().len(), "stdin ended before the server answered every request");
        }
    }
}

/// Relays between stdin and stdout and the server at `args.url` until either side ends.
pub(crate) async fn run(args: ProxyArgs) -> Result<(), Failure> {
    let (to_server, from_server) = http_transport(&args).await?.split();
    let (stdout, stdin) = mcpweft::transport::stdio().split();
    let (to_client, queued) = mpsc::channel(TO_CLIENT_CAPACITY);
    let writer = tokio::spawn(write_to_client(stdout, queued));
    tracing::debug!(url = args.url.as_deref().unwrap_or_default(), "relaying stdio to the server");
    let closing = Arc::new(AtomicBool::new(false));
    let unanswered = Arc::new(Unanswered::default());
    let relay = Relay { to_client, closing: closing.clone(), unanswered };
    let upstream = tokio::spawn(client_to_server(stdin, to_server, relay.clone()));
    let downstream = server_to_client(from_server, relay).await;
    // Closing the transport ends the stream from the server too: when the client's side is
    // closing it, its task ends the HTTP session and says how the relay ended.
    let outcome = if closing.load(Ordering::Acquire) {
        upstream.await.unwrap_or_else(|e| Err(Failure::failed(format!("the relay to the server stopped: {e}"))))
    } else {
        upstream.abort();
        downstream
    };
    // The messages already queued for the client are written before the proxy exits.
    match writer.await {
        Ok(Err(e)) => tracing::debug!(error = %e, "writing to the client failed"),
        Err(e) => tracing::debug!(error = %e, "the writer to the client stopped"),
        Ok(Ok(())) => {}
    }
    outcome
}

/// The HTTP transport to `args.url`, with the headers and token read as a configuration's
/// (`${VAR}` expanded, values kept out of logs), and the OAuth login of `args.login`.
async fn http_transport(args: &ProxyArgs) -> Result<StreamableHttpClientTransport, Failure> {
    let Some(url) = args.url.as_deref() else {
        return Err(Failure::usage("proxy needs the URL of a server, or --listen and a command"));
    };
    args.login.authorized_by(&args.http)?;
    let entry = target::http_entry(url, &args.http)?;
    let mut servers = serde_json::Map::new();
    servers.insert(url.to_owned(), serde_json::Value::Object(entry));
    let config = mcpweft::host::HostConfig::from_value(&serde_json::json!({ "mcpServers": servers }))?;
    let Some(ServerTransport::Http { url, headers, .. }) = config.servers.first().map(|s| &s.transport) else {
        return Err(Failure::usage(format!("{url} is not the URL of an HTTP server")));
    };
    let mut options = crate::passthrough::header_options(headers)?;
    if let Some(provider) = args.login.provider(url, &args.http).await? {
        options = options.with_auth(provider);
    }
    Ok(StreamableHttpClientTransport::with_options(url, options)?)
}

/// What both directions of the relay share.
#[derive(Clone)]
struct Relay {
    /// The queue of messages for the client.
    to_client: mpsc::Sender<JsonRpcMessage>,
    /// Set once the client's side ends the HTTP transport.
    closing: Arc<AtomicBool>,
    /// The client's requests still waiting for their answers.
    unanswered: Arc<Unanswered>,
}

/// Sends what the client writes on stdin to the server, until stdin ends; then waits a moment
/// for the answers still due, sets `closing` and ends the HTTP session.
async fn client_to_server(
    mut stdin: Box<dyn TransportReader>,
    mut to_server: Box<dyn TransportWriter>,
    relay: Relay,
) -> Result<(), Failure> {
    let Relay { to_client, closing, unanswered } = relay;
    let outcome = loop {
        let message = match stdin.recv().await {
            Ok(Some(Inbound::Message(message))) => message,
            Ok(Some(Inbound::Invalid(e))) => {
                tracing::debug!(error = %e, "the client sent an invalid message");
                if e.answerable && to_client.send(JsonRpcMessage::error(e.id, e.error)).await.is_err() {
                    break Ok(());
                }
                continue;
            }
            Ok(Some(_)) => continue,
            Ok(None) => {
                unanswered.drain().await;
                break Ok(());
            }
            Err(e) => break Err(Failure::failed(format!("reading from the client failed: {e}"))),
        };
        unanswered.sent(&message);
        if let Err(e) = to_server.send(Outbound { message, related_request: None }).await {
            break Err(Failure::failed(format!("the connection to the server ended: {e}")));
        }
    };
    closing.store(true, Ordering::Release);
    drop(to_client);
    if let Err(e) = to_server.close().await {
        tracing::debug!(error = %e, "ending the HTTP session failed");
    }
    outcome
}

/// Queues what the server sends for the client, until the HTTP transport ends.
async fn server_to_client(mut from_server: Box<dyn TransportReader>, relay: Relay) -> Result<(), Failure> {
    let Relay { to_client, unanswered, .. } = relay;
    loop {
        match from_server.recv().await {
            Ok(Some(Inbound::Message(message))) => {
                unanswered.received(&message);
                if to_client.send(message).await.is_err() {
                    return Ok(());
                }
            }
            Ok(Some(Inbound::Invalid(e))) => tracing::warn!(error = %e, "the server sent an invalid message"),
            Ok(Some(_)) => {}
            Ok(None) => return Err(Failure::failed("the server ended the connection")),
            Err(e) => return Err(Failure::failed(format!("reading from the server failed: {e}"))),
        }
    }
}

/// Writes the queued messages to stdout, flushing whenever the queue is empty, until every
/// sender is gone.
async fn write_to_client(
    mut stdout: Box<dyn TransportWriter>,
    mut queued: mpsc::Receiver<JsonRpcMessage>,
) -> Result<(), mcpweft::Error> {
    while let Some(message) = queued.recv().await {
        stdout.send(Outbound { message, related_request: None }).await?;
        for _ in 1..FLUSH_EVERY {
            match queued.try_recv() {
                Ok(message) => stdout.send(Outbound { message, related_request: None }).await?,
                Err(_) => break,
            }
        }
        stdout.flush().await?;
    }
    stdout.close().await
}
