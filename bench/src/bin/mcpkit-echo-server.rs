//! An MCP echo server written with mcpkit, served over stdio.
//!
//! It exposes the `echo` tool of [`mcpkit_bench::mcpkit_echo`] and is what
//! `mcpkit-bench` compares with the rmcp echo server over stdio.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), mcpkit::Error> {
    mcpkit_bench::mcpkit_echo("mcpkit-echo-server")?.serve_stdio().await
}
