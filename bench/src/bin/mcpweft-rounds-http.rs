//! An MCP server written with mcpweft whose tools receive large answers, served over Streamable
//! HTTP for the memory section of `mcpweft-bench`.
//!
//! Usage: `mcpweft-rounds-http PORT`. It serves two tools at `http://127.0.0.1:PORT/mcp`:
//! `items` takes `{"items": [...]}` as its arguments, and `ask` asks the client for the same
//! through an elicitation, which a 2026-07-28 client answers by retrying the call with
//! `inputResponses`. Both answer with the number of items they received, so the same bytes reach
//! a handler once as arguments and once as an answer to a request for input.

use std::net::{Ipv4Addr, SocketAddr};

use mcpweft::{
    ErrorData, RequestContext, Server,
    http::{HttpServerOptions, StreamableHttpServer},
    model::{CallToolResult, Implementation, JsonObject, Tool},
};
use serde_json::{Value, json};

/// The number of entries of the `items` array of `value`.
fn count(value: Option<&Value>) -> usize {
    value.and_then(Value::as_array).map_or(0, Vec::len)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port = mcpweft_bench::port_from_args()?;
    let schema = json!({ "type": "object", "properties": { "items": { "type": "array" } } });
    let Value::Object(schema) = schema else { unreachable!("the schema is an object") };
    let server = Server::builder(Implementation::new("mcpweft-rounds-http", env!("CARGO_PKG_VERSION")))
        .tool(Tool::new("items", "Counts the items it is given.", schema), |args: JsonObject, _c: RequestContext| async move {
            Ok(CallToolResult::text(count(args.get("items")).to_string()))
        })
        .tool(Tool::without_arguments("ask", "Asks the client for items and counts them."), |_a: JsonObject, ctx: RequestContext| async move {
            let form = json!({ "mode": "form", "message": "items?", "requestedSchema": { "type": "object", "properties": {} } });
            let answer = ctx.ask("items", "elicitation/create", form).await.map_err(|e| ErrorData::internal_error(e.to_string()))?;
            Ok(CallToolResult::text(count(answer["content"].get("items")).to_string()))
        })
        .build()?;
    let options = HttpServerOptions::new().with_json_response(true).with_stateful(true);
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    StreamableHttpServer::bind(server, addr, options).await?.wait().await;
    Ok(())
}
