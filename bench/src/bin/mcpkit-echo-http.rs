//! An MCP echo server written with mcpkit, served over Streamable HTTP.
//!
//! Usage: `mcpkit-echo-http PORT`. It serves the `echo` tool of
//! [`mcpkit_bench::mcpkit_echo`] at `http://127.0.0.1:PORT/mcp` with the
//! default options: stateful sessions and plain JSON replies whenever a
//! request's handler sends nothing before its result. Logging is off, as no
//! tracing subscriber is installed.

use std::net::{Ipv4Addr, SocketAddr};

use mcpkit::http::{HttpServerOptions, StreamableHttpServer};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port = mcpkit_bench::port_from_args()?;
    let server = mcpkit_bench::mcpkit_echo("mcpkit-echo-http")?;
    let options = HttpServerOptions::new().with_json_response(true).with_stateful(true);
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    StreamableHttpServer::bind(server, addr, options).await?.wait().await;
    Ok(())
}
