//! The conformance fixture server.
//!
//! `conformance-server PORT` serves the fixture over Streamable HTTP at
//! `http://127.0.0.1:PORT/mcp`; `conformance-server --stdio` serves one session over stdin and
//! stdout. Diagnostics go to stderr, filtered by `RUST_LOG` (default `warn`).

use std::{
    net::{Ipv4Addr, SocketAddr},
    process::ExitCode,
};

use mcpkit::http::{HttpServerOptions, StreamableHttpServer};
use mcpkit_conformance::fixture;

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

async fn serve_http(port: u16) -> Result<(), mcpkit::Error> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    // The pinned suite (0.1.16) sends `MCP-Protocol-Version: 2025-03-26` on 2025-11-25 sessions
    // in its SSE polling and multiple-streams scenarios (fixed upstream after that release), so
    // the fixture accepts any supported version there.
    let options = HttpServerOptions::new().with_require_negotiated_version(false);
    let bound = StreamableHttpServer::bind(fixture(), addr, options).await?;
    eprintln!("conformance-server: serving {}", bound.url());
    bound.wait().await;
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    mcpkit_conformance::init_logging();
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
