//! An MCP echo server written with mcpkit.
//!
//! It exposes one tool, `echo`, which takes `{"text": string}` and returns a
//! text content equal to `text`. It is served over stdio and is what
//! `mcpkit-bench` compares with the rmcp echo server, which is written the
//! same way: a typed argument struct with a derived JSON Schema.

use mcpkit::{Server, model::Implementation};

/// The arguments of the `echo` tool.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// The text to send back.
    text: String,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), mcpkit::Error> {
    let server = Server::builder(Implementation::new("mcpkit-echo-server", env!("CARGO_PKG_VERSION")))
        .typed_tool("echo", "Returns the given text unchanged.", |EchoArgs { text }, _context| async move { text })
        .build()?;
    server.serve_stdio().await
}
