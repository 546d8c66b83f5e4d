//! `mcpweft proxy --listen HOST:PORT -- COMMAND`: a stdio server served over Streamable HTTP,
//! one process per HTTP session.
//!
//! The core's HTTP server does the HTTP side (host and origin checks, sessions, streams,
//! resumption, idle sessions ended) through its relay seam; each connection the relay opens is
//! the command spawned by the relay of one configured server (`passthrough.rs`, which the
//! gateway of one server uses too): a reader task hands the child's messages to the session and
//! a writer task writes the client's to its stdin. Ending the connection (DELETE, an idle session, the proxy stopping)
//! closes the child's stdin, then terminates it; a child that exits ends its session. With
//! `--redis`, the core shares the sessions with the other proxies of a cluster and forwards a
//! session's messages to the proxy running its child.

use std::{net::SocketAddr, sync::Arc, time::Duration};

use mcpweft::{
    host::{HostConfig, ServerConfig, ServerTransport},
    http::{HttpServerOptions, StreamableHttpServer},
};

use crate::{args::ProxyArgs, cluster, failure::Failure, passthrough::ServerRelay, target};

/// How long the children get to exit once the proxy stops.
const STOP_WAIT: Duration = Duration::from_secs(5);

/// Serves the command of `args` over Streamable HTTP at `args.listen` until interrupted.
pub(crate) async fn run(args: ProxyArgs) -> Result<(), Failure> {
    if let Some(option) = args.login.given() {
        return Err(Failure::usage(format!("{option} goes only with the URL of a server, not with --listen")));
    }
    let relay = Arc::new(ServerRelay::new(command_server(&args)?));
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

/// The one server of the command after `--` and the `--env` variables (`${VAR}` expanded as
/// in a configuration file), which every connection starts.
fn command_server(args: &ProxyArgs) -> Result<ServerConfig, Failure> {
    let (name, entry) = target::command_entry(&args.command, &args.env)?;
    let mut servers = serde_json::Map::new();
    servers.insert(name, serde_json::Value::Object(entry));
    let config = HostConfig::from_value(&serde_json::json!({ "mcpServers": servers }))?;
    match config.servers.into_iter().next() {
        Some(server) if matches!(server.transport, ServerTransport::Stdio { .. }) => Ok(server),
        _ => Err(Failure::usage("--listen needs a command after `--`")),
    }
}
