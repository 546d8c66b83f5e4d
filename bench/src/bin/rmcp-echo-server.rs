//! An MCP echo server written with the official Rust SDK, `rmcp`, served
//! over stdio.
//!
//! It exposes the `echo` tool of [`mcpkit_bench::RmcpEcho`] and is the
//! baseline that `mcpkit-bench` compares mcpkit against over stdio.

use rmcp::ServiceExt;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = mcpkit_bench::RmcpEcho::new().serve(rmcp::transport::stdio()).await?;
    server.waiting().await?;
    Ok(())
}
