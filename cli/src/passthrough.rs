//! The relay of one configured server: what `mcpweft proxy --listen` serves its command with,
//! and what `mcpweft gateway --no-prefix` over a configuration of one server is, a reverse
//! proxy.
//!
//! With one server and its own names the gateway has nothing to merge, so it does not put a
//! session runtime of its own between the client and the server: it serves the server through
//! the core's relay seam, as `proxy --listen` does, and every message passes as it is, in both
//! revisions, with the real peers' capabilities (tasks, requests for input across rounds, the
//! server's own requests, progress, cancellation, subscriptions). Each HTTP session gets its own
//! connection to the server (a process started for it, or a session of the remote server);
//! when that connection ends, the HTTP session ends too and the client's next request gets 404,
//! so that it initializes again on a fresh connection.
//!
//! The server's `allowedTools` and `deniedTools` still hold: a `tools/list` result leaves out
//! the tools the configuration does not offer, and a `tools/call` of one of them is answered
//! by the gateway with a JSON-RPC error instead of reaching the server.

use std::{
    collections::HashSet,
    future::Future,
    pin::Pin,
    sync::{Arc, Mutex, PoisonError},
};

use mcpweft::{
    Error, ErrorData, RequestId,
    host::{ServerConfig, ServerTransport},
    http::{Relay, RelaySession, RelaySink},
    jsonrpc::JsonRpcMessage,
    model::methods,
    transport::{
        ChildProcessTransport, Inbound, Outbound, Transport as _, TransportReader, TransportWriter,
        http::{HttpClientOptions, StreamableHttpClientTransport},
    },
};
use serde_json::Value;
use tokio::sync::mpsc;

/// How many of a client's messages wait for the server before senders wait.
const TO_SERVER_CAPACITY: usize = 256;

/// How many messages are written to the server between two flushes.
const FLUSH_EVERY: usize = 64;

/// Whether the gateway over `config` is a reverse proxy: with `--no-prefix`, one server that is
/// enabled and logs in with no OAuth client of the gateway's own.
pub(crate) fn relayed(config: &mcpweft::host::HostConfig, no_prefix: bool) -> Option<&ServerConfig> {
    match config.servers.as_slice() {
        [server] if no_prefix && server.enabled && server.oauth.is_none() => Some(server),
        _ => None,
    }
}

/// The connections of the HTTP sessions to the one server of the configuration.
pub(crate) struct ServerRelay {
    server: Arc<ServerConfig>,
}

impl ServerRelay {
    /// A relay to `server`.
    pub(crate) fn new(server: ServerConfig) -> Self {
        ServerRelay { server: Arc::new(server) }
    }
}

/// One connection to the server: its writer and its reader.
type Connection = (Box<dyn TransportWriter>, Box<dyn TransportReader>);

/// Opens one connection to `server`: its process started, or a Streamable HTTP session of it.
fn connect(server: &ServerConfig) -> Result<Connection, Error> {
    match &server.transport {
        ServerTransport::Stdio { command, args, env, cwd } => {
            let mut process = tokio::process::Command::new(command);
            process.args(args).envs(env);
            if let Some(cwd) = cwd {
                process.current_dir(cwd);
            }
            Ok(ChildProcessTransport::spawn(process)?.split())
        }
        ServerTransport::Http { url, headers, .. } => {
            Ok(StreamableHttpClientTransport::with_options(url, header_options(headers)?)?.split())
        }
        other => Err(Error::Config(format!("server {:?}: the gateway cannot relay {other:?}", server.name))),
    }
}

/// The HTTP client options that send `headers` on every request, their values kept out of logs.
pub(crate) fn header_options<'a>(
    headers: impl IntoIterator<Item = (&'a String, &'a String)>,
) -> Result<HttpClientOptions, Error> {
    let mut options = HttpClientOptions::new();
    for (name, value) in headers {
        let bad = |what: String| Error::Config(format!("the header {name}: {what}"));
        let name = http::HeaderName::from_bytes(name.as_bytes()).map_err(|e| bad(e.to_string()))?;
        let mut value = http::HeaderValue::from_str(value).map_err(|e| bad(e.to_string()))?;
        value.set_sensitive(true);
        options = options.with_header(name, value);
    }
    Ok(options)
}

impl Relay for ServerRelay {
    fn open(&self, sink: RelaySink) -> Pin<Box<dyn Future<Output = Result<Arc<dyn RelaySession>, Error>> + Send>> {
        let server = self.server.clone();
        Box::pin(async move {
            let (writer, reader) = connect(&server)?;
            let (to_server, queued) = mpsc::channel(TO_SERVER_CAPACITY);
            tokio::spawn(write_to_server(writer, queued));
            let session = Arc::new(ServerSession {
                server,
                sink,
                to_server: Mutex::new(Some(to_server)),
                listings: Mutex::default(),
            });
            tokio::spawn(relay_to_client(session.clone(), reader));
            let session: Arc<dyn RelaySession> = session;
            Ok(session)
        })
    }
}

/// One HTTP session's connection to the server.
struct ServerSession {
    server: Arc<ServerConfig>,
    sink: RelaySink,
    /// The queue of messages for the server, dropped to close the connection.
    to_server: Mutex<Option<mpsc::Sender<JsonRpcMessage>>>,
    /// The `tools/list` requests waiting for their results, whose tools the allow and deny
    /// lists filter.
    listings: Mutex<HashSet<RequestId>>,
}

impl ServerSession {
    /// Whether the configuration filters the server's tools.
    fn filters(&self) -> bool {
        self.server.allowed_tools.is_some() || !self.server.denied_tools.is_empty()
    }

    fn listings(&self) -> std::sync::MutexGuard<'_, HashSet<RequestId>> {
        self.listings.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The answer the gateway gives itself to a client's message, if it does not go to the
    /// server: a call of a tool that the configuration does not offer.
    fn refuse(&self, message: &JsonRpcMessage) -> Option<JsonRpcMessage> {
        let JsonRpcMessage::Request(request) = message else { return None };
        if !self.filters() {
            return None;
        }
        if request.method == methods::TOOLS_LIST {
            self.listings().insert(request.id.clone());
            return None;
        }
        if request.method != methods::TOOLS_CALL {
            return None;
        }
        let name = request.params.as_ref().and_then(|p| p.get("name")).and_then(Value::as_str)?;
        if self.server.offers_tool(name) {
            return None;
        }
        let error = ErrorData::invalid_params(format!("Unknown tool: {name:?}"));
        Some(JsonRpcMessage::error(Some(request.id.clone()), error))
    }

    /// A message of the server on its way to the client: a `tools/list` result the client asked
    /// for loses the tools the configuration does not offer.
    fn filter(&self, mut message: JsonRpcMessage) -> JsonRpcMessage {
        if !self.filters() {
            return message;
        }
        let Some(id) = message.answers().cloned() else { return message };
        if !self.listings().remove(&id) {
            return message;
        }
        if let JsonRpcMessage::Response(response) = &mut message
            && let Some(Value::Array(tools)) = response.result.get_mut("tools")
        {
            tools.retain(|tool| tool.get("name").and_then(Value::as_str).is_none_or(|n| self.server.offers_tool(n)));
        }
        message
    }
}

impl RelaySession for ServerSession {
    fn send(&self, message: JsonRpcMessage) -> Pin<Box<dyn Future<Output = Result<(), Error>> + Send + '_>> {
        Box::pin(async move {
            if let Some(answer) = self.refuse(&message) {
                self.sink.send(answer);
                return Ok(());
            }
            let queue = self.to_server.lock().unwrap_or_else(PoisonError::into_inner).clone();
            queue.ok_or(Error::TransportClosed)?.send(message).await.map_err(|_| Error::TransportClosed)
        })
    }

    fn close(&self) {
        self.to_server.lock().unwrap_or_else(PoisonError::into_inner).take();
    }
}

/// Hands the server's messages to the HTTP session until the connection ends, then ends the
/// session.
async fn relay_to_client(session: Arc<ServerSession>, mut reader: Box<dyn TransportReader>) {
    let name = session.server.name.clone();
    loop {
        match reader.recv().await {
            Ok(Some(Inbound::Message(message))) => session.sink.send(session.filter(message)),
            Ok(Some(Inbound::Invalid(e))) => {
                tracing::warn!(server = %name, error = %e, "the server sent an invalid message")
            }
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => break,
        }
    }
    let reason = reader.close_reason().await.map(|r| r.message).unwrap_or_default();
    tracing::info!(server = %name, reason, "a connection to the server ended");
    session.sink.close();
}

/// Writes the client's messages to the server, flushing whenever the queue is empty; once the
/// queue is closed, closes the connection (a process's stdin, then SIGTERM and SIGKILL).
async fn write_to_server(mut writer: Box<dyn TransportWriter>, mut queued: mpsc::Receiver<JsonRpcMessage>) {
    'queue: while let Some(message) = queued.recv().await {
        if writer.send(Outbound { message, related_request: None }).await.is_err() {
            break;
        }
        for _ in 1..FLUSH_EVERY {
            match queued.try_recv() {
                Ok(message) => {
                    if writer.send(Outbound { message, related_request: None }).await.is_err() {
                        break 'queue;
                    }
                }
                Err(_) => break,
            }
        }
        if writer.flush().await.is_err() {
            break;
        }
    }
    if let Err(e) = writer.close().await {
        tracing::debug!(error = %e, "closing a connection to the server failed");
    }
}
