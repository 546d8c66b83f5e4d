//! The proxy section: what the `mcpweft` command (next to the driver, built by `cargo build
//! --release -p mcpweft-cli`) costs a client when it stands between the client and a server.
//!
//! - `proxy URL`: for each Rust HTTP echo server next to the driver (mcpweft's and rmcp's), a
//!   mcpweft client calls `echo` over Streamable HTTP itself, and another over stdio through the
//!   proxy.
//! - `proxy --listen` and `gateway --no-prefix`: for each Rust echo server, a mcpweft client calls
//!   the server's own Streamable HTTP build, and another calls its stdio build over Streamable
//!   HTTP through the listening proxy or the gateway (each a process of the server per
//!   session): what an HTTP client pays for reaching a stdio server through the command, beside
//!   a server that speaks HTTP itself. The Python and Node servers (the official SDKs' among
//!   them) and those given with `--server` and `--http-server` under one name go behind
//!   `proxy --listen` the same way.
//!
//! Each way makes alternating blocks of sequential calls, whose latencies give the median
//! (p50), then a burst of calls with [`IN_FLIGHT`] at once, which gives the calls per second.

use std::{path::Path, process::Stdio, time::Instant};

use tokio::io::{AsyncBufReadExt as _, BufReader};

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
/// and behind `proxy --listen` each stdio server of `proxied` beside its own HTTP build,
/// dividing its counts by 10 when `quick`; prints its table and returns whether it could run.
pub(crate) async fn run(dir: &Path, proxied: &[(servers::Server, servers::Server)], quick: bool) -> bool {
    println!("== proxy: calls through mcpweft proxy URL, proxy --listen and gateway beside direct ones ==");
    let command = dir.join("mcpweft");
    if !command.is_file() {
        println!("skipped: {} is not built (cargo build --release -p mcpweft-cli)", command.display());
        return false;
    }
    let divisor = if quick { 10 } else { 1 };
    let command = command.to_string_lossy().into_owned();
    print_line(
        "",
        &["p50 µs".into(), "calls/s".into(), "proxy p50 µs".into(), "proxy call/s".into(), "p50 cost".into()],
    );
    let mut ok = true;
    let mut rows = Vec::new();
    for server in servers::rust_http(dir) {
        let url = |addr| vec!["proxy".to_owned(), format!("http://{addr}/mcp")];
        rows.push((format!("{} URL", server.name), through_stdio(&server, &command, url, divisor).await));
    }
    let floor = dir.join("relay-floor").to_string_lossy().into_owned();
    if let Some(server) = servers::rust_http(dir).into_iter().find(|s| s.name == "mcpweft") {
        let addr = |addr: std::net::SocketAddr| vec![addr.to_string()];
        rows.push(("mcpweft floor".to_owned(), through_stdio(&server, &floor, addr, divisor).await));
    }
    let http = servers::rust_http(dir);
    for server in servers::rust_stdio(dir) {
        let Some(own) = http.iter().find(|h| h.name == server.name) else { continue };
        for way in [Way::Listen, Way::Gateway] {
            let row = listening(&server, own, &command, way, divisor).await;
            rows.push((format!("{} {}", server.name, way.label()), row));
        }
    }
    for (server, own) in proxied {
        let row = listening(server, own, &command, Way::Listen, divisor).await;
        rows.push((format!("{} {}", server.name, Way::Listen.label()), row));
    }
    for (label, row) in rows {
        match row {
            Ok(cells) => print_line(&label, &cells),
            Err(error) => {
                println!("{label}: failed: {error}");
                ok = false;
            }
        }
    }
    println!(
        "URL: a client over HTTP beside one over stdio through `proxy URL`; floor: the same through \
         relay-floor, a blocking relay that parses nothing; --listen and gateway: a client of \
         the server's HTTP build beside one over HTTP through the command in front of its stdio build. \
         {BLOCKS} alternating blocks of {} sequential echo calls \
         each way; calls/s: {} calls, {IN_FLIGHT} in flight",
        SEQUENTIAL / divisor,
        BURST / divisor
    );
    ok
}

/// How the command stands in front of a stdio server.
#[derive(Clone, Copy)]
enum Way {
    /// `proxy --listen 127.0.0.1:0 -- SERVER`.
    Listen,
    /// `gateway --no-prefix` of a configuration of the one server.
    Gateway,
}

impl Way {
    fn label(self) -> &'static str {
        match self {
            Way::Listen => "--listen",
            Way::Gateway => "gateway",
        }
    }
}

/// Measures a client over HTTP itself beside one over stdio through the relay `command`,
/// given the arguments `args` makes of the server's address, in front of the same server:
/// `mcpweft proxy URL`, or `relay-floor` (the least a proxy can do, see its source).
async fn through_stdio(
    server: &servers::Server,
    command: &str,
    args: impl FnOnce(std::net::SocketAddr) -> Vec<String>,
    divisor: usize,
) -> crate::rpc::Result<Vec<String>> {
    let process = Process::spawn(server).await?;
    let direct =
        Client::connect(StreamableHttpClientTransport::new(format!("http://{}/mcp", process.addr))?, options()).await?;
    let relay = ChildProcessTransport::command(command, args(process.addr))?;
    let relayed = Client::connect(relay, options()).await?;
    let cells = compare(&direct, &relayed, divisor).await;
    direct.close().await;
    relayed.close().await;
    process.kill().await;
    cells
}

/// Measures a client over HTTP through the command standing `way` in front of the stdio
/// `server` beside a client of `own`, the same server's HTTP build.
async fn listening(
    server: &servers::Server,
    own: &servers::Server,
    command: &str,
    way: Way,
    divisor: usize,
) -> crate::rpc::Result<Vec<String>> {
    let (program, args) = server.command.split_first().ok_or("empty server command")?;
    let own = Process::spawn(own).await?;
    let url = format!("http://{}/mcp", own.addr);
    let direct = Client::connect(StreamableHttpClientTransport::new(&url)?, options()).await?;
    let mut front = tokio::process::Command::new(command);
    let config = std::env::temp_dir().join(format!("mcpweft-bench-gateway-{}.json", std::process::id()));
    match way {
        Way::Listen => {
            front.args(["proxy", "--listen", "127.0.0.1:0", "--"]).args(&server.command);
        }
        Way::Gateway => {
            let servers = json!({ "mcpServers": { "echo": { "command": program, "args": args } } });
            std::fs::write(&config, servers.to_string())?;
            front.arg("gateway").arg("--config").arg(&config).args(["--listen", "127.0.0.1:0", "--no-prefix"]);
        }
    }
    let mut front =
        front.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).kill_on_drop(true).spawn()?;
    let url = listening_url(&mut front).await?;
    let through = Client::connect(StreamableHttpClientTransport::new(&url)?, options()).await?;
    let cells = compare(&direct, &through, divisor).await;
    direct.close().await;
    through.close().await;
    let _ = front.kill().await;
    own.kill().await;
    let _ = std::fs::remove_file(&config);
    cells
}

/// Reads the URL the command prints on stderr once it listens (`listening on URL`), within ten
/// seconds.
async fn listening_url(child: &mut tokio::process::Child) -> crate::rpc::Result<String> {
    let stderr = child.stderr.take().ok_or("the command has no stderr")?;
    let mut lines = BufReader::new(stderr).lines();
    let found = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        while let Some(line) = lines.next_line().await? {
            if let Some(url) = line.strip_prefix("listening on ") {
                return Ok::<_, std::io::Error>(Some(url.trim().to_owned()));
            }
        }
        Ok(None)
    })
    .await;
    match found {
        Ok(Ok(Some(url))) => {
            // The rest of its stderr is drained, so that it never blocks on a full pipe.
            tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
            Ok(url)
        }
        Ok(Ok(None)) => Err("the command ended before it listened".into()),
        Ok(Err(e)) => Err(e.into()),
        Err(_) => Err("the command did not listen within ten seconds".into()),
    }
}

/// The client settings of every connection.
fn options() -> ClientOptions {
    ClientOptions::new("mcpweft-bench", "0.1.0")
}

/// Measures `direct` and `through` alike and returns the table's cells.
async fn compare(direct: &Client, through: &Client, divisor: usize) -> crate::rpc::Result<Vec<String>> {
    let (mut direct_us, mut through_us) = (Vec::new(), Vec::new());
    for _ in 0..BLOCKS {
        sequential(direct, SEQUENTIAL / divisor, &mut direct_us).await?;
        sequential(through, SEQUENTIAL / divisor, &mut through_us).await?;
    }
    let direct_rate = burst(direct, BURST / divisor).await?;
    let through_rate = burst(through, BURST / divisor).await?;
    direct_us.sort_by(f64::total_cmp);
    through_us.sort_by(f64::total_cmp);
    let (direct_p50, through_p50) = (percentile(&direct_us, 50.0), percentile(&through_us, 50.0));
    Ok(vec![
        format!("{direct_p50:.1}"),
        format!("{direct_rate:.0}"),
        format!("{through_p50:.1}"),
        format!("{through_rate:.0}"),
        format!("{:+.1}%", (through_p50 / direct_p50 - 1.0) * 100.0),
    ])
}

/// How many alternating blocks of sequential calls each way.
const BLOCKS: usize = 10;
/// How many sequential calls a block makes.
const SEQUENTIAL: usize = 1_000;
/// How many calls the throughput burst makes.
const BURST: usize = 20_000;

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
