//! An MCP echo server written with the official Rust SDK, `rmcp`, served
//! over Streamable HTTP.
//!
//! Usage: `rmcp-echo-http PORT`. It serves the `echo` tool of
//! [`mcpweft_bench::RmcpEcho`] at `http://127.0.0.1:PORT/mcp` through rmcp's
//! tower service mounted in axum, with stateful sessions
//! (`legacy_session_mode`). In that mode rmcp always answers a request with
//! an SSE stream: its `json_response` option only applies to stateless
//! requests. The SSE priming event and keep-alive comments are turned off,
//! as they only add bytes and timers (against the defaults the difference
//! was within the noise), and accepted connections
//! get `TCP_NODELAY`: an SSE reply goes out in several writes, and without it
//! Nagle's algorithm holds the last one back until the client's delayed
//! acknowledgement, some 40 ms later. Logging is off, as no tracing subscriber
//! is installed.

use std::{
    net::{Ipv4Addr, SocketAddr},
    sync::Arc,
};

use axum::serve::ListenerExt;
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port = mcpweft_bench::port_from_args()?;
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.sse_retry = None;
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(true)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_sse_retry(None);
    let service = StreamableHttpService::new(|| Ok(mcpweft_bench::RmcpEcho::new()), Arc::new(sessions), config);
    let router = axum::Router::new().route_service("/mcp", service);
    let listener =
        tokio::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port))).await?.tap_io(|stream| {
            // Without it replies are delayed, not lost; there is no one to tell.
            let _ = stream.set_nodelay(true);
        });
    axum::serve(listener, router).await?;
    Ok(())
}
