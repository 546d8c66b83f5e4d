//! A client of a cluster (see `cluster_server`): one session whose requests a round-robin
//! balancer spreads over every process.
//!
//! Usage: `cluster_client URL`. It calls `whoami` six times, printing which process answered,
//! then `greet`, answering its elicitation and printing its progress.

use async_trait::async_trait;
use mcpweft::{
    Client, ClientHandler, ClientOptions, ErrorData, RequestOptions,
    model::{CallToolRequestParams, ClientCapabilities, ElicitRequestParams, ElicitResult},
    session::IncomingRequest,
    transport::http::StreamableHttpClientTransport,
};
use serde_json::json;

/// Answers every elicitation with the name `demo`.
struct User;

#[async_trait]
impl ClientHandler for User {
    async fn elicit(&self, params: ElicitRequestParams, _: IncomingRequest) -> Result<ElicitResult, ErrorData> {
        let message = serde_json::to_value(&params).ok().and_then(|p| p["message"].as_str().map(str::to_owned));
        println!("elicitation: {}", message.unwrap_or_default());
        serde_json::from_value(json!({ "action": "accept", "content": { "name": "demo" } }))
            .map_err(|e| ErrorData::internal_error(e.to_string()))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args().nth(1).ok_or("usage: cluster_client URL")?;
    let capabilities: ClientCapabilities = serde_json::from_value(json!({ "elicitation": { "form": {} } }))?;
    let options = ClientOptions::new("cluster-client", "0.1.0").with_capabilities(capabilities);
    let client = Client::connect_with_handler(StreamableHttpClientTransport::new(&url)?, options, User).await?;
    for _ in 0..6 {
        let answer = client.call_tool("whoami", json!({})).await?;
        println!("whoami: {}", answer.content.first().and_then(|c| c.as_text()).unwrap_or_default());
    }
    let progress = RequestOptions::new().with_progress(|p| {
        println!("progress {}/{}: {}", p.progress, p.total.unwrap_or_default(), p.message.clone().unwrap_or_default());
    });
    let greeted = client.call_tool_with(CallToolRequestParams::new("greet", Default::default()), progress).await?;
    println!("greet: {}", greeted.content.first().and_then(|c| c.as_text()).unwrap_or_default());
    client.close().await;
    Ok(())
}
