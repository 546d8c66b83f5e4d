//! The conformance fixture server.
//!
//! `conformance-server PORT` serves the fixture over Streamable HTTP at
//! `http://127.0.0.1:PORT/mcp`; `conformance-server --stdio` serves one session over stdin and
//! stdout. Diagnostics go to stderr, filtered by `RUST_LOG` (default `warn`).
//!
//! `MCPWEFT_ALLOWED_HOSTS` (comma-separated `name:port` values) replaces the accepted `Host`
//! headers, for a fixture behind a load balancer. With `MCPWEFT_REDIS_URL` set, the server joins
//! the cluster of that Redis (built with the feature `redis`), sharing its sessions with the
//! other fixture processes of the cluster (`MCPWEFT_REDIS_PREFIX` names the cluster's keys,
//! `mcpweft-conformance` by default).

use std::{
    net::{Ipv4Addr, SocketAddr},
    process::ExitCode,
};

use mcpweft::http::{HttpServerOptions, StreamableHttpServer};
use mcpweft_conformance::fixture;

const USAGE: &str = "usage: conformance-server PORT | conformance-server --stdio";

enum Mode {
    Http(u16),
    Stdio,
}

fn parse_args() -> Result<Mode, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag] if flag == "--stdio" => Ok(Mode::Stdio),
        [port] => port.parse().map(Mode::Http).map_err(|_| format!("not a port number: {port}\n{USAGE}")),
        _ => Err(USAGE.to_owned()),
    }
}

async fn serve_http(port: u16) -> Result<(), mcpweft::Error> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    // The pinned suite (0.1.16) sends `MCP-Protocol-Version: 2025-03-26` on 2025-11-25 sessions
    // in its SSE polling and multiple-streams scenarios (fixed upstream after that release), so
    // the fixture accepts any supported version there.
    let mut options = HttpServerOptions::new().with_require_negotiated_version(false);
    if let Ok(hosts) = std::env::var("MCPWEFT_ALLOWED_HOSTS") {
        options = options.with_allowed_hosts(hosts.split(',').map(str::trim).filter(|h| !h.is_empty()));
    }
    if let Ok(url) = std::env::var("MCPWEFT_REDIS_URL") {
        options = cluster(options, url)?;
    }
    let bound = StreamableHttpServer::bind(fixture(), addr, options).await?;
    eprintln!("conformance-server: serving {}", bound.url());
    bound.wait().await;
    Ok(())
}

/// Shares the server's sessions through the Redis at `url`.
#[cfg(feature = "redis")]
fn cluster(options: HttpServerOptions, url: String) -> Result<HttpServerOptions, mcpweft::Error> {
    let prefix = std::env::var("MCPWEFT_REDIS_PREFIX").unwrap_or_else(|_| "mcpweft-conformance".to_owned());
    Ok(options.with_cluster(mcpweft::http::ClusterOptions::new(url).with_prefix(prefix)))
}

/// Refuses cluster mode in a build without it.
#[cfg(not(feature = "redis"))]
fn cluster(_: HttpServerOptions, _: String) -> Result<HttpServerOptions, mcpweft::Error> {
    Err(mcpweft::Error::Config("MCPWEFT_REDIS_URL is set but this build has no `redis` feature".to_owned()))
}

#[tokio::main]
async fn main() -> ExitCode {
    mcpweft_conformance::init_logging();
    let mode = match parse_args() {
        Ok(mode) => mode,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let served = match mode {
        Mode::Stdio => fixture().serve_stdio().await,
        Mode::Http(port) => serve_http(port).await,
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("conformance-server: {e}");
            ExitCode::FAILURE
        }
    }
}
