//! A client that spawns an MCP server over stdio and uses its tools, resources and prompts, as
//! far as the server declared them.
//!
//! Usage: `calculator_client [SERVER_COMMAND ARGS...]`; with no arguments it spawns the
//! `calculator_server` example that sits next to this executable.

use async_trait::async_trait;
use mcpweft::{
    Client, ClientHandler, ClientOptions, RequestOptions,
    model::{CallToolRequestParams, LoggingLevel, LoggingMessageNotificationParams},
    transport::ChildProcessTransport,
};
use serde_json::json;

/// Prints the server's log messages.
struct Printer;

#[async_trait]
impl ClientHandler for Printer {
    async fn on_log_message(&self, params: LoggingMessageNotificationParams) {
        let text = params.data.as_str().map(str::to_owned).unwrap_or_else(|| params.data.to_string());
        println!("log {}: {text}", params.level.as_str());
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        let me = std::env::current_exe()?;
        args.push(me.with_file_name("calculator_server").to_string_lossy().into_owned());
    }
    let transport = ChildProcessTransport::command(&args[0], &args[1..])?;
    let mut options = ClientOptions::new("calculator-client", "0.1.0");
    // MCP_PROTOCOL_VERSION=2026-07-28 prefers revision 2026-07-28 (falling back to initialize).
    if let Ok(version) = std::env::var("MCP_PROTOCOL_VERSION") {
        options = options.with_protocol_version(version);
    }
    let client = Client::connect_with_handler(transport, options, Printer).await?;
    let server = &client.server().server_info;
    println!("connected to {} {} (protocol {})", server.name, server.version, client.protocol_version());

    // A server offers only what it declared: each step below checks the capability (and the
    // tool, resource or prompt) first and skips what this server does not have.
    let capabilities = client.server().capabilities.clone();
    if capabilities.tools.is_some() {
        let tools = client.list_all_tools().await?;
        println!("tools: {}", tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", "));
        let offers = |name: &str| tools.iter().any(|t| t.name == name);
        if offers("add") {
            let sum = client.call_tool("add", json!({ "a": 2, "b": 3 })).await?;
            let value =
                sum.structured_content.as_ref().and_then(|s| s.get("sum")?.as_f64()).ok_or("add returned no sum")?;
            println!("add(2, 3) = {value}");
        }
        if offers("count") {
            if capabilities.logging.is_some() {
                client.set_logging_level(LoggingLevel::Debug).await?;
            }
            let options = RequestOptions::new().with_progress(|p| {
                println!("progress {}/{}", p.progress, p.total.unwrap_or_default());
            });
            let params =
                CallToolRequestParams::new("count", json!({ "n": 3 }).as_object().cloned().unwrap_or_default());
            let counted = client.call_tool_with(params, options).await?;
            println!("count: {}", counted.content.first().and_then(|c| c.as_text()).unwrap_or_default());
        }
    }

    if capabilities.resources.is_some() {
        let resources = client.list_all_resources().await?;
        println!("resources: {}", resources.iter().map(|r| r.uri.as_str()).collect::<Vec<_>>().join(", "));
        if resources.iter().any(|r| r.uri == "calc://constants") {
            let constants = client.read_resource("calc://constants").await?;
            let text = match constants.contents.first() {
                Some(mcpweft::model::ResourceContents::Text(t)) => t.text.clone(),
                _ => return Err("calc://constants returned no text".into()),
            };
            println!("resource calc://constants: {text}");
        }
    }

    if capabilities.prompts.is_some() {
        let prompts = client.list_all_prompts().await?;
        println!("prompts: {}", prompts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", "));
        if prompts.iter().any(|p| p.name == "explain") {
            let prompt = client.get_prompt("explain", [("expression", "2+3")]).await?;
            let text = prompt.messages.first().and_then(|m| m.content.as_text()).unwrap_or_default().to_owned();
            println!("prompt explain: {text}");
        }
    }

    client.close().await;
    Ok(())
}
