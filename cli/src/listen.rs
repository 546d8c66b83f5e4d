//! `mcpweft proxy --listen HOST:PORT -- COMMAND`: a stdio server served over Streamable HTTP,
//! one process per HTTP session.
//!
//! The core's HTTP server does the HTTP side (host and origin checks, sessions, streams,
//! resumption, idle sessions ended) through its relay seam; this module only starts processes:
//! each connection the relay opens is the command spawned with the core's child transport, a
//! reader task handing the child's messages to the session and a writer task writing the
//! client's to its stdin. Ending the connection (DELETE, an idle session, the proxy stopping)
//! closes the child's stdin, then terminates it; a child that exits ends its session. With
//! `--redis`, the core shares the sessions with the other proxies of a cluster and forwards a
//! session's messages to the proxy running its child.

use std::{future::Future, net::SocketAddr, pin::Pin, sync::Arc, time::Duration};

use mcpweft::{
    Error,
    host::{HostConfig, ServerTransport},
    http::{HttpServerOptions, Relay, RelaySession, RelaySink, StreamableHttpServer},
    jsonrpc::JsonRpcMessage,
    transport::{ChildProcessTransport, Inbound, Outbound, Transport as _},
};
use tokio::sync::mpsc;

use crate::{args::ProxyArgs, cluster, failure::Failure, target};

/// How many of the client's messages wait for a child's stdin before senders wait.
const TO_CHILD_CAPACITY: usize = 256;

/// How many messages are written to a child's stdin between two flushes.
const FLUSH_EVERY: usize = 64;

/// How long the children get to exit once the proxy stops.
const STOP_WAIT: Duration = Duration::from_secs(5);

/// Serves the command of `args` over Streamable HTTP at `args.listen` until interrupted.
pub(crate) async fn run(args: ProxyArgs) -> Result<(), Failure> {
    if let Some(option) = args.login.given() {
        return Err(Failure::usage(format!("{option} goes only with the URL of a server, not with --listen")));
    }
    let relay = Arc::new(ChildRelay::from_args(&args)?);
    let addr = listen_address(args.listen.as_deref().unwrap_or_default()).await?;
    let mut options = HttpServerOptions::new().with_path(args.path.clone()).with_stateful(!args.stateless);
    if !args.allowed_hosts.is_empty() {
        options = options.with_allowed_hosts(args.allowed_hosts.clone());
    }
    if !args.allowed_origins.is_empty() {
        options = options.with_allowed_origins(args.allowed_origins.clone());
    }
    if let Some(seconds) = args.session_idle_timeout {
        let timeout = Duration::try_from_secs_f64(seconds)
            .ok()
            .filter(|t| !t.is_zero())
            .ok_or_else(|| Failure::usage(format!("--session-idle-timeout {seconds} is not a number of seconds")))?;
        options = options.with_session_idle_timeout(timeout);
    }
    if let Some(seconds) = args.keep_alive {
        let interval = Duration::try_from_secs_f64(seconds)
            .map_err(|_| Failure::usage(format!("--keep-alive {seconds} is not a number of seconds")))?;
        options = options.with_keep_alive((!interval.is_zero()).then_some(interval));
    }
    options = options
        .with_allow_remote_without_auth(args.allow_remote)
        .with_require_negotiated_version(!args.any_version_header);
    if args.stateless && args.cluster.redis.is_some() {
        return Err(Failure::usage("--redis shares sessions, which --stateless does not keep"));
    }
    if let Some(cluster) = cluster::options(&args.cluster, "mcpweft-proxy")? {
        options = options.with_cluster(cluster);
    }
    let bound = StreamableHttpServer::bind_relay(relay, addr, options).await?;
    eprintln!("listening on {}", bound.url());
    stopped().await;
    tracing::debug!("stopping: every session and its process ends");
    let _ = tokio::time::timeout(STOP_WAIT, bound.shutdown()).await;
    Ok(())
}

/// Reads HOST:PORT (or PORT alone, on 127.0.0.1), resolving a host name.
async fn listen_address(text: &str) -> Result<SocketAddr, Failure> {
    let bad = |why: String| Failure::usage(format!("--listen {text}: {why}"));
    let spelled = if text.parse::<u16>().is_ok() {
        format!("127.0.0.1:{text}")
    } else if let Some(port) = text.strip_prefix(':') {
        format!("127.0.0.1:{port}")
    } else {
        text.to_owned()
    };
    let mut found = tokio::net::lookup_host(&spelled).await.map_err(|e| bad(format!("not HOST:PORT ({e})")))?;
    found.next().ok_or_else(|| bad("the host has no address".to_owned()))
}

/// Waits for Ctrl-C or, on Unix, SIGTERM.
async fn stopped() {
    #[cfg(unix)]
    {
        let Ok(mut term) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) else {
            let _ = tokio::signal::ctrl_c().await;
            return;
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
}

/// The command to start for each connection, with its environment (`${VAR}` expanded as in a
/// configuration file).
struct ChildRelay {
    program: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
}

impl ChildRelay {
    /// Reads the command after `--` and the `--env` variables.
    fn from_args(args: &ProxyArgs) -> Result<Self, Failure> {
        let (name, entry) = target::command_entry(&args.command, &args.env)?;
        let mut servers = serde_json::Map::new();
        servers.insert(name, serde_json::Value::Object(entry));
        let config = HostConfig::from_value(&serde_json::json!({ "mcpServers": servers }))?;
        let Some(ServerTransport::Stdio { command, args, env, .. }) =
            config.servers.into_iter().next().map(|s| s.transport)
        else {
            return Err(Failure::usage("--listen needs a command after `--`"));
        };
        Ok(ChildRelay { program: command, args, env: env.into_iter().collect() })
    }
}

impl Relay for ChildRelay {
    fn open(&self, sink: RelaySink) -> Pin<Box<dyn Future<Output = Result<Arc<dyn RelaySession>, Error>> + Send>> {
        let mut command = tokio::process::Command::new(&self.program);
        command.args(&self.args).envs(self.env.iter().map(|(k, v)| (k, v)));
        Box::pin(async move {
            let child = ChildProcessTransport::spawn(command)?;
            let pid = child.pid();
            tracing::debug!(pid, "a server process started");
            let (writer, mut reader) = child.split();
            let (to_child, queued) = mpsc::channel(TO_CHILD_CAPACITY);
            tokio::spawn(write_to_child(writer, queued));
            tokio::spawn(async move {
                loop {
                    match reader.recv().await {
                        Ok(Some(Inbound::Message(message))) => sink.send(message),
                        Ok(Some(Inbound::Invalid(e))) => {
                            tracing::warn!(pid, error = %e, "the server process wrote an invalid message");
                        }
                        Ok(Some(_)) => {}
                        Ok(None) | Err(_) => break,
                    }
                }
                let reason = reader.close_reason().await.map(|r| r.message).unwrap_or_default();
                tracing::debug!(pid, reason, "a server process ended");
                sink.close();
            });
            let session: Arc<dyn RelaySession> =
                Arc::new(ChildSession { to_child: std::sync::Mutex::new(Some(to_child)) });
            Ok(session)
        })
    }
}

/// Writes the client's messages to the child's stdin (or to any transport's writer), flushing
/// whenever the queue is empty; once the queue is closed, closes the child (its stdin, then
/// SIGTERM and SIGKILL) or the transport.
pub(crate) async fn write_to_child(
    mut writer: Box<dyn mcpweft::transport::TransportWriter>,
    mut queued: mpsc::Receiver<JsonRpcMessage>,
) {
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
        tracing::debug!(error = %e, "closing a server process failed");
    }
}

/// One child process: the queue of its stdin, dropped to close it.
struct ChildSession {
    to_child: std::sync::Mutex<Option<mpsc::Sender<JsonRpcMessage>>>,
}

impl ChildSession {
    fn queue(&self) -> Option<mpsc::Sender<JsonRpcMessage>> {
        self.to_child.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }
}

impl RelaySession for ChildSession {
    fn send(&self, message: JsonRpcMessage) -> Pin<Box<dyn Future<Output = Result<(), Error>> + Send + '_>> {
        let queue = self.queue();
        Box::pin(
            async move { queue.ok_or(Error::TransportClosed)?.send(message).await.map_err(|_| Error::TransportClosed) },
        )
    }

    fn close(&self) {
        self.to_child.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
    }
}
