//! The proxy section: what `mcpweft proxy URL` costs a client that speaks stdio, beside the same
//! client reaching the server over Streamable HTTP itself.
//!
//! For each Rust HTTP echo server next to the driver (mcpweft's and rmcp's), a mcpweft client
//! calls `echo` over Streamable HTTP, and another over stdio through `mcpweft proxy URL` (the
//! `mcpweft` command next to the driver, built by `cargo build --release -p mcpweft-cli`):
//! alternating blocks of sequential calls, whose latencies give the median (p50), then a burst
//! of calls with [`IN_FLIGHT`] at once, which gives the calls per second.

use std::{path::Path, time::Instant};

use mcpweft::{
    Client, ClientOptions,
    transport::{ChildProcessTransport, http::StreamableHttpClientTransport},
};
use serde_json::json;

use crate::{
    http_bench::Process,
    report::{percentile, print_line},
    servers,
};

/// How many calls the throughput burst keeps in flight.
const IN_FLIGHT: usize = 32;

/// Runs the section against the HTTP echo servers and the `mcpweft` command found in `dir`,
/// dividing its counts by 10 when `quick`; prints its table and returns whether it could run.
pub(crate) async fn run(dir: &Path, quick: bool) -> bool {
    println!("== proxy: mcpweft proxy URL (stdio to Streamable HTTP) beside a direct HTTP client ==");
    let command = dir.join("mcpweft");
    if !command.is_file() {
        println!("skipped: {} is not built (cargo build --release -p mcpweft-cli)", command.display());
        return false;
    }
    let divisor = if quick { 10 } else { 1 };
    print_line(
        "",
        &["p50 µs".into(), "calls/s".into(), "p50 µs proxied".into(), "calls/s proxied".into(), "p50 cost".into()],
    );
    let mut ok = true;
    for server in servers::rust_http(dir) {
        match measure(&server, &command.to_string_lossy(), divisor).await {
            Ok(cells) => print_line(&server.name, &cells),
            Err(error) => {
                println!("{}: failed: {error}", server.name);
                ok = false;
            }
        }
    }
    println!(
        "{} alternating blocks of {} sequential echo calls each way; calls/s: {} calls, {IN_FLIGHT} in flight",
        BLOCKS,
        SEQUENTIAL / divisor,
        BURST / divisor
    );
    ok
}

/// How many alternating blocks of sequential calls each way.
const BLOCKS: usize = 10;
/// How many sequential calls a block makes.
const SEQUENTIAL: usize = 1_000;
/// How many calls the throughput burst makes.
const BURST: usize = 20_000;

/// Measures one server both ways and returns the table's cells.
async fn measure(server: &servers::Server, command: &str, divisor: usize) -> crate::rpc::Result<Vec<String>> {
    let process = Process::spawn(server).await?;
    let url = format!("http://{}/mcp", process.addr);
    let options = || ClientOptions::new("mcpweft-bench", "0.1.0");
    let direct = Client::connect(StreamableHttpClientTransport::new(&url)?, options()).await?;
    let proxy = ChildProcessTransport::command(command, &["proxy".to_owned(), url.clone()])?;
    let proxied = Client::connect(proxy, options()).await?;
    let (mut direct_us, mut proxied_us) = (Vec::new(), Vec::new());
    for _ in 0..BLOCKS {
        sequential(&direct, SEQUENTIAL / divisor, &mut direct_us).await?;
        sequential(&proxied, SEQUENTIAL / divisor, &mut proxied_us).await?;
    }
    let direct_rate = burst(&direct, BURST / divisor).await?;
    let proxied_rate = burst(&proxied, BURST / divisor).await?;
    direct.close().await;
    proxied.close().await;
    process.kill().await;
    direct_us.sort_by(f64::total_cmp);
    proxied_us.sort_by(f64::total_cmp);
    let (direct_p50, proxied_p50) = (percentile(&direct_us, 50.0), percentile(&proxied_us, 50.0));
    Ok(vec![
        format!("{direct_p50:.1}"),
        format!("{direct_rate:.0}"),
        format!("{proxied_p50:.1}"),
        format!("{proxied_rate:.0}"),
        format!("{:+.1}%", (proxied_p50 / direct_p50 - 1.0) * 100.0),
    ])
}

/// Makes `calls` sequential echo calls, adding each one's latency in microseconds to `latencies`.
async fn sequential(client: &Client, calls: usize, latencies: &mut Vec<f64>) -> crate::rpc::Result<()> {
    let arguments = json!({ "text": "hello" });
    for _ in 0..calls {
        let started = Instant::now();
        client.call_tool("echo", arguments.clone()).await?;
        latencies.push(started.elapsed().as_secs_f64() * 1e6);
    }
    Ok(())
}

/// Makes `calls` echo calls with [`IN_FLIGHT`] at once (as many callers, each making its share
/// one after the other) and returns the calls per second.
async fn burst(client: &Client, calls: usize) -> crate::rpc::Result<f64> {
    let started = Instant::now();
    let mut callers = tokio::task::JoinSet::new();
    for _ in 0..IN_FLIGHT {
        let client = client.clone();
        callers.spawn(async move {
            let arguments = json!({ "text": "hello" });
            for _ in 0..calls / IN_FLIGHT {
                client.call_tool("echo", arguments.clone()).await?;
            }
            Ok::<(), mcpweft::Error>(())
        });
    }
    while let Some(done) = callers.join_next().await {
        done??;
    }
    Ok((calls / IN_FLIGHT * IN_FLIGHT) as f64 / started.elapsed().as_secs_f64())
}
