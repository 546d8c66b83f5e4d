//! A host: one client for many servers of different kinds.
//!
//! `cargo run --example host -- servers.json` connects to the servers of a Claude Desktop-style
//! configuration file (`{"mcpServers": {...}}`). Without a file it makes its own: the
//! `calculator_server` example over stdio (build it first with
//! `cargo build --example calculator_server`), a Streamable HTTP server of this process on
//! 127.0.0.1, and a command that fails to start. It prints each server's state, the one list of
//! tools under their host names, and calls a tool of each ready server.

use mcpweft::{
    ErrorData, RequestContext, Server,
    host::{Host, HostConfig, HostHandler},
    http::{HttpServerOptions, StreamableHttpServer},
    model::*,
};
use serde_json::json;

/// Prints what the servers log, with the name of the server that logged it.
struct PrintLogs;

#[async_trait::async_trait]
impl HostHandler for PrintLogs {
    async fn on_log_message(&self, server: &str, params: LoggingMessageNotificationParams) {
        println!("  [{server}] {}", params.data);
    }
}

#[tokio::main]
async fn main() -> Result<(), mcpweft::Error> {
    tracing_subscriber::fmt().with_writer(std::io::stderr).with_env_filter("error").init();
    let mut http_server = None;
    let config = match std::env::args().nth(1) {
        Some(path) => HostConfig::from_file(path)?,
        None => {
            let greeter = Server::builder(Implementation::new("greeter", "1.0.0"))
                .tool(
                    Tool::new(
                        "greet",
                        "Greets someone.",
                        serde_json::from_value(
                            json!({ "type": "object", "properties": { "name": { "type": "string" } } }),
                        )?,
                    ),
                    |args: JsonObject, _ctx: RequestContext| async move {
                        let name = args.get("name").and_then(|v| v.as_str()).unwrap_or("world");
                        Ok::<_, ErrorData>(CallToolResult::text(format!("Hello, {name}!")))
                    },
                )
                .build()?;
            let addr = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
            let bound = StreamableHttpServer::bind(greeter, addr, HttpServerOptions::default()).await?;
            let calculator =
                std::env::current_exe()?.with_file_name(format!("calculator_server{}", std::env::consts::EXE_SUFFIX));
            let config = json!({ "mcpServers": {
                "calc": { "command": calculator, "timeoutMs": 10000 },
                "greeter": { "type": "http", "url": bound.url() },
                "broken": { "command": "sh", "args": ["-c", "echo 'no API key given' >&2; exit 2"] },
            } });
            http_server = Some(bound);
            HostConfig::from_value(&config)?
        }
    };

    let host = Host::builder(config).with_handler(PrintLogs).connect().await?;
    for (name, state) in host.servers() {
        println!("{name}: {state}");
    }
    println!("tools:");
    for tool in host.tools() {
        println!("  {} ({} of {})", tool.name, tool.tool.name, tool.server);
    }
    for collision in host.collisions() {
        println!("offered by several servers, so by none: {} ({})", collision.name, collision.servers.join(", "));
    }
    for (name, arguments) in [("calc__add", json!({ "a": 2, "b": 40 })), ("greeter__greet", json!({ "name": "host" }))]
    {
        if host.tools().iter().any(|t| t.name == name) {
            let result = host.call_tool(name, arguments).await?;
            println!("{name} → {}", serde_json::to_string(&result.content)?);
        }
    }
    host.close().await;
    if let Some(bound) = http_server {
        bound.shutdown().await;
    }
    Ok(())
}
