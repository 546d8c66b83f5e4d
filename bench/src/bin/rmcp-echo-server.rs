//! An MCP echo server written with the official Rust SDK, `rmcp`.
//!
//! It exposes one tool, `echo`, which takes `{"text": string}` and returns a
//! text content equal to `text`. It is served over stdio and is the baseline
//! that `mcpkit-bench` compares mcpkit against.

use rmcp::{
    ServerHandler, ServiceExt,
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{ServerCapabilities, ServerConfig},
    tool, tool_handler, tool_router,
};

/// The arguments of the `echo` tool.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// The text to send back.
    text: String,
}

/// The server: a tool router holding the single `echo` tool.
#[derive(Debug, Clone)]
struct Echo {
    #[expect(dead_code, reason = "the tool_handler macro reads this field")]
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Echo {
    fn new() -> Self {
        Self { tool_router: Self::tool_router() }
    }

    #[tool(description = "Returns the given text unchanged.")]
    fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }
}

#[tool_handler]
impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Echo::new().serve(rmcp::transport::stdio()).await?;
    server.waiting().await?;
    Ok(())
}
