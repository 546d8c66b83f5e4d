//! The echo servers that `mcpweft-bench` measures, written once for each SDK.
//!
//! Each server exposes one tool, `echo`, which takes `{"text": string}` and
//! returns a text content equal to `text`. Both are written the same way: a
//! typed argument struct with a derived JSON Schema. The binaries of this
//! crate serve them over stdio or Streamable HTTP.

use rmcp::{
    ServerHandler,
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

/// Builds the mcpweft echo server, which introduces itself as `name`.
pub fn mcpweft_echo(name: &str) -> Result<mcpweft::Server, mcpweft::Error> {
    mcpweft::Server::builder(mcpweft::model::Implementation::new(name, env!("CARGO_PKG_VERSION")))
        .typed_tool("echo", "Returns the given text unchanged.", |EchoArgs { text }, _context| async move { text })
        .build()
}

/// The rmcp echo server: a tool router holding the single `echo` tool.
#[derive(Debug, Clone)]
pub struct RmcpEcho {
    #[expect(dead_code, reason = "the tool_handler macro reads this field")]
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl RmcpEcho {
    /// Creates the server with its tool router.
    pub fn new() -> Self {
        Self { tool_router: Self::tool_router() }
    }

    #[tool(description = "Returns the given text unchanged.")]
    fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }
}

impl Default for RmcpEcho {
    fn default() -> Self {
        Self::new()
    }
}

#[tool_handler]
impl ServerHandler for RmcpEcho {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// Reads the TCP port to listen on from the first command-line argument.
pub fn port_from_args() -> Result<u16, String> {
    let arg = std::env::args().nth(1).ok_or("usage: SERVER PORT")?;
    arg.parse().map_err(|e| format!("invalid port {arg:?}: {e}"))
}
