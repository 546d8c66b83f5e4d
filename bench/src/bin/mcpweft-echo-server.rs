//! An MCP echo server written with mcpweft, served over stdio.
//!
//! It exposes the `echo` tool of [`mcpweft_bench::mcpweft_echo`] and is what
//! `mcpweft-bench` compares with the rmcp echo server over stdio. With `--start-delay-ms N` it
//! waits N milliseconds before it reads its first message, as a server that loads its
//! configuration or reaches a backend first does (the host section starts ten of them).

use std::time::Duration;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), mcpweft::Error> {
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next().map(|ms| ms.parse::<u64>())) {
            ("--start-delay-ms", Some(Ok(ms))) => tokio::time::sleep(Duration::from_millis(ms)).await,
            _ => {
                return Err(mcpweft::Error::Config(format!(
                    "usage: mcpweft-echo-server [--start-delay-ms N], not {arg}"
                )));
            }
        }
    }
    mcpweft_bench::mcpweft_echo("mcpweft-echo-server")?.serve_stdio().await
}
