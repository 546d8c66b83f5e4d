//! The stdio section of the benchmark.
//!
//! For every MCP server it is given, it measures the start-up time (spawn to
//! `initialize` result), the latency of sequential `tools/call echo`
//! requests, the throughput with 64 requests in flight and the peak memory
//! of the server process. It then prints one row per server and the ratios
//! of mcpkit versus rmcp, which drift less than absolute times.

use std::time::{Duration, Instant};

use crate::{
    report::{median, percentile, print_line, ratio},
    rpc::{Result, Session, echo_requests},
};

/// The number of requests kept in flight by the throughput phase.
const WINDOW: usize = 64;
/// The time after which the measurement of one server is abandoned.
const SERVER_CAP: Duration = Duration::from_secs(60);
/// The servers looked up next to the driver: row name and executable name.
pub(crate) const KNOWN_SERVERS: [(&str, &str); 2] = [("rmcp", "rmcp-echo-server"), ("mcpkit", "mcpkit-echo-server")];

/// How many times each phase runs.
struct Counts {
    spawns: usize,
    warm_up: usize,
    sequential: usize,
    pipelined: usize,
}

impl Counts {
    /// The full counts, or a tenth of them when `quick`.
    fn new(quick: bool) -> Self {
        let divisor = if quick { 10 } else { 1 };
        Self {
            spawns: 20 / divisor,
            warm_up: 2_000 / divisor,
            sequential: 20_000 / divisor,
            pipelined: 200_000 / divisor,
        }
    }
}

/// A server to measure over stdio: its row name and its command line.
pub(crate) struct Server {
    pub(crate) name: String,
    pub(crate) command: Vec<String>,
}

/// The measurements of one server.
struct Row {
    startup_ms: f64,
    p50_us: f64,
    p99_us: f64,
    calls_per_s: f64,
    peak_mib: f64,
}

impl Row {
    /// The columns, in table order.
    fn columns(&self) -> [f64; 5] {
        [self.startup_ms, self.p50_us, self.p99_us, self.calls_per_s, self.peak_mib]
    }
}

/// The median time from spawning the server to receiving its `initialize`
/// result, in milliseconds.
async fn measure_startup(server: &Server, spawns: usize) -> Result<f64> {
    let mut times = Vec::with_capacity(spawns);
    for _ in 0..spawns {
        let start = Instant::now();
        let mut session = Session::spawn(&server.command)?;
        session.initialize().await?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
        session.kill().await;
    }
    Ok(median(&mut times))
}

/// Measures every column for one server.
async fn measure(server: &Server, counts: &Counts) -> Result<Row> {
    let startup_ms = measure_startup(server, counts.spawns.max(1)).await?;

    let mut session = Session::spawn(&server.command)?;
    session.initialize().await?;
    session.initialized().await?;
    session.check_echo(1).await?;
    let mut next_id = 2;
    let mut batch = |count: usize| {
        let first = next_id;
        next_id += count as u64;
        (echo_requests(first, count), first)
    };

    let (requests, first) = batch(counts.warm_up);
    session.run(requests, first, 1).await?;

    let (requests, first) = batch(counts.sequential.max(1));
    let mut latencies = session.run(requests, first, 1).await?.latencies_us();
    latencies.sort_by(f64::total_cmp);

    let (requests, first) = batch(counts.pipelined.max(1));
    let calls_per_s = session.run(requests, first, WINDOW).await?.throughput();

    let peak_mib = session.peak_memory_kib()? as f64 / 1024.0;
    session.close().await;
    Ok(Row {
        startup_ms,
        p50_us: percentile(&latencies, 50.0),
        p99_us: percentile(&latencies, 99.0),
        calls_per_s,
        peak_mib,
    })
}

/// Measures every server over stdio and prints the table; returns whether
/// every server could be measured.
pub(crate) async fn run(servers: &[Server], quick: bool) -> bool {
    let counts = Counts::new(quick);
    let mut rows = Vec::new();
    let mut failed = false;
    for server in servers {
        eprintln!("measuring {} over stdio ({})", server.name, server.command.join(" "));
        let row = match tokio::time::timeout(SERVER_CAP, measure(server, &counts)).await {
            Ok(Ok(row)) => Some(row),
            Ok(Err(error)) => {
                eprintln!("{}: {error}", server.name);
                None
            }
            Err(_) => {
                eprintln!("{}: aborted after {} s", server.name, SERVER_CAP.as_secs());
                None
            }
        };
        failed |= row.is_none();
        rows.push((server.name.as_str(), row));
    }

    let headers = ["start-up ms", "p50 µs", "p99 µs", "calls/s", "peak MiB"];
    print_line("server", &headers.map(String::from));
    for (name, row) in &rows {
        let cells = match row {
            Some(row) => {
                let [startup, p50, p99, calls, peak] = row.columns();
                vec![
                    format!("{startup:.2}"),
                    format!("{p50:.1}"),
                    format!("{p99:.1}"),
                    format!("{calls:.0}"),
                    format!("{peak:.1}"),
                ]
            }
            None => vec!["failed".into()],
        };
        print_line(name, &cells);
    }

    let find = |wanted: &str| rows.iter().find(|(name, _)| *name == wanted).and_then(|(_, row)| row.as_ref());
    if let (Some(mcpkit), Some(rmcp)) = (find("mcpkit"), find("rmcp")) {
        let ratios =
            mcpkit.columns().iter().zip(rmcp.columns()).map(|(ours, theirs)| ratio(*ours, theirs)).collect::<Vec<_>>();
        print_line("mcpkit / rmcp", &ratios);
        println!("(below 1x is better, except for calls/s where above 1x is better)");
    }
    !failed
}
