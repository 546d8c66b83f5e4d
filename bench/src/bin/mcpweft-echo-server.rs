//! An MCP echo server written with mcpweft, served over stdio.
//!
//! It exposes the `echo` tool of [`mcpweft_bench::mcpweft_echo`] and is what
//! `mcpweft-bench` compares with the rmcp echo server over stdio.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), mcpweft::Error> {
    mcpweft_bench::mcpweft_echo("mcpweft-echo-server")?.serve_stdio().await
}
