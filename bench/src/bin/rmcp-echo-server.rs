//! An MCP echo server written with the official Rust SDK, `rmcp`, served
//! over stdio.
//!
//! It exposes the `echo` tool of [`mcpweft_bench::RmcpEcho`] and is the
//! baseline that `mcpweft-bench` compares mcpweft against over stdio.

use rmcp::ServiceExt;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = mcpweft_bench::RmcpEcho::new().serve(rmcp::transport::stdio()).await?;
    server.waiting().await?;
    Ok(())
}
