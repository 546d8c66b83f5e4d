//! A server process of a cluster: many of them, behind a load balancer without session
//! affinity, serve the same sessions by sharing them through Redis (feature `redis`).
//!
//! Usage: `cluster_server PORT`, with `MCPWEFT_REDIS_URL` naming the cluster's Redis and
//! `MCPWEFT_ALLOWED_HOSTS` the balancer's `host:port` names (comma-separated);
//! `tests/cluster/up.sh` starts Redis, haproxy and N of these. Its tools show where they run:
//! `whoami` answers the process id, `greet` reports progress, asks the user's name
//! (elicitation) and reports progress again, so that the answer can land on another process.

use std::net::{Ipv4Addr, SocketAddr};

use mcpweft::{
    ErrorData, RequestContext, Server,
    http::{ClusterOptions, HttpServerOptions, StreamableHttpServer},
    model::{CallToolResult, ElicitRequestParams, Implementation, JsonObject, Tool},
};
use serde_json::json;

fn internal(e: impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(e.to_string())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt().with_writer(std::io::stderr).init();
    let port: u16 = std::env::args().nth(1).ok_or("usage: cluster_server PORT")?.parse()?;
    let url = std::env::var("MCPWEFT_REDIS_URL").map_err(|_| "MCPWEFT_REDIS_URL names the cluster's Redis")?;
    let server = Server::builder(Implementation::new("cluster-demo", "0.1.0"))
        .tool(Tool::without_arguments("whoami", "Answers the id of the process that ran it."), |_: JsonObject, _: RequestContext| async {
            Ok(CallToolResult::text(format!("process {}", std::process::id())))
        })
        .tool(Tool::without_arguments("greet", "Asks the user's name between two progress reports."), |_: JsonObject, ctx: RequestContext| async move {
            ctx.report_progress(1.0, Some(2.0), Some(format!("asking from process {}", std::process::id()))).map_err(internal)?;
            let params: ElicitRequestParams = serde_json::from_value(json!({
                "mode": "form",
                "message": "What is your name?",
                "requestedSchema": { "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"] }
            }))
            .map_err(internal)?;
            let answer = serde_json::to_value(ctx.elicit(params).await.map_err(internal)?).map_err(internal)?;
            ctx.report_progress(2.0, Some(2.0), Some("answered".into())).map_err(internal)?;
            let name = answer["content"]["name"].as_str().unwrap_or("stranger");
            Ok(CallToolResult::text(format!("hello {name}, from process {}", std::process::id())))
        })
        .build()?;
    let mut options = HttpServerOptions::new().with_cluster(ClusterOptions::new(url));
    if let Ok(hosts) = std::env::var("MCPWEFT_ALLOWED_HOSTS") {
        options = options.with_allowed_hosts(hosts.split(',').map(str::trim).filter(|h| !h.is_empty()));
    }
    let bound = StreamableHttpServer::bind(server, SocketAddr::from((Ipv4Addr::LOCALHOST, port)), options).await?;
    eprintln!("cluster_server: serving {}", bound.url());
    bound.wait().await;
    Ok(())
}
