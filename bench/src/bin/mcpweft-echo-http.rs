//! An MCP echo server written with mcpweft, served over Streamable HTTP.
//!
//! Usage: `mcpweft-echo-http PORT`. It serves the `echo` tool of
//! [`mcpweft_bench::mcpweft_echo`] at `http://127.0.0.1:PORT/mcp` with the
//! default options: stateful sessions and plain JSON replies whenever a
//! request's handler sends nothing before its result. Logging is off, as no
//! tracing subscriber is installed. With `MCPWEFT_REDIS_URL` set (a build with the feature
//! `redis`) it joins the cluster of that Redis, accepting the `Host` names listed in
//! `MCPWEFT_ALLOWED_HOSTS` (comma-separated), as the cluster benchmark runs it.

use std::net::{Ipv4Addr, SocketAddr};

use mcpweft::http::{HttpServerOptions, StreamableHttpServer};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port = mcpweft_bench::port_from_args()?;
    let server = mcpweft_bench::mcpweft_echo("mcpweft-echo-http")?;
    let mut options = HttpServerOptions::new().with_json_response(true).with_stateful(true);
    if let Ok(hosts) = std::env::var("MCPWEFT_ALLOWED_HOSTS") {
        options = options.with_allowed_hosts(hosts.split(',').map(str::trim).filter(|h| !h.is_empty()));
    }
    if let Ok(url) = std::env::var("MCPWEFT_REDIS_URL") {
        options = cluster(options, url)?;
    }
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    StreamableHttpServer::bind(server, addr, options).await?.wait().await;
    Ok(())
}

/// Shares the server's sessions through the Redis at `url`.
#[cfg(feature = "redis")]
fn cluster(options: HttpServerOptions, url: String) -> Result<HttpServerOptions, Box<dyn std::error::Error>> {
    Ok(options.with_cluster(mcpweft::http::ClusterOptions::new(url).with_prefix("mcpweft-bench")))
}

/// Refuses cluster mode in a build without it.
#[cfg(not(feature = "redis"))]
fn cluster(_: HttpServerOptions, _: String) -> Result<HttpServerOptions, Box<dyn std::error::Error>> {
    Err("MCPWEFT_REDIS_URL is set but this build has no `redis` feature".into())
}
