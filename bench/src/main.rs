//! The stdio benchmark driver of mcpkit.
//!
//! For every MCP server it is given, it measures the start-up time (spawn to
//! `initialize` result), the latency of sequential `tools/call echo`
//! requests, the throughput with 64 requests in flight and the peak memory
//! of the server process. It then prints one row per server and the ratios
//! of mcpkit versus rmcp, which drift less than absolute times.
//!
//! Usage: `mcpkit-bench [--quick] [--server NAME=COMMAND]...`. The rmcp and
//! mcpkit echo servers are looked up next to the driver's own executable;
//! `--server` adds others, whose command is split on whitespace.

mod rpc;

use std::{
    path::Path,
    process::ExitCode,
    time::{Duration, Instant},
};

use rpc::{Result, Session, echo_requests};

/// The number of requests kept in flight by the throughput phase.
const WINDOW: usize = 64;
/// The time after which the measurement of one server is abandoned.
const SERVER_CAP: Duration = Duration::from_secs(60);
/// The servers found next to the driver: row name and executable name.
const KNOWN_SERVERS: [(&str, &str); 2] = [("rmcp", "rmcp-echo-server"), ("mcpkit", "mcpkit-echo-server")];
/// The command-line help.
const USAGE: &str = "usage: mcpkit-bench [--quick] [--server NAME=COMMAND]...

Measures MCP servers over stdio: the rmcp and mcpkit echo servers next to
this executable, and any added with --server (COMMAND is split on spaces).
  --quick    divide every request and spawn count by 10";

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

/// A server to measure: its row name and its command line.
struct Server {
    name: String,
    command: Vec<String>,
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

/// Parses the command line into the quick flag and the servers to measure.
fn parse_args() -> Result<(bool, Vec<Server>)> {
    let mut quick = false;
    let mut servers = Vec::new();
    let exe = std::env::current_exe()?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    for (name, file) in KNOWN_SERVERS {
        let path = dir.join(file);
        if path.is_file() {
            let command = vec![path.to_string_lossy().into_owned()];
            servers.push(Server { name: name.into(), command });
        } else {
            eprintln!("skipping {name}: {} not found", path.display());
        }
    }
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => quick = true,
            "--server" => {
                let spec = args.next().ok_or("--server needs NAME=COMMAND")?;
                let (name, command) = spec.split_once('=').ok_or("--server needs NAME=COMMAND")?;
                let command: Vec<String> = command.split_whitespace().map(Into::into).collect();
                if name.is_empty() || command.is_empty() {
                    return Err("--server needs NAME=COMMAND".into());
                }
                servers.push(Server { name: name.into(), command });
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?}\n{USAGE}").into()),
        }
    }
    Ok((quick, servers))
}

/// The median of `values`, which must not be empty.
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len().is_multiple_of(2) { (values[mid - 1] + values[mid]) / 2.0 } else { values[mid] }
}

/// The nearest-rank `p`-th percentile (0 < p ≤ 100) of sorted `values`.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
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

/// Prints one line of the table.
fn print_line(label: &str, cells: &[String]) {
    print!("{label:<16}");
    for cell in cells {
        print!("{cell:>13}");
    }
    println!();
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let (quick, servers) = match parse_args() {
        Ok(parsed) => parsed,
        Err(error) => {
            eprintln!("mcpkit-bench: {error}");
            return ExitCode::from(2);
        }
    };
    let counts = Counts::new(quick);
    let mut rows = Vec::new();
    let mut failed = false;
    for server in &servers {
        eprintln!("measuring {} ({})", server.name, server.command.join(" "));
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
        let ratios = mcpkit
            .columns()
            .iter()
            .zip(rmcp.columns())
            .map(|(ours, theirs)| format!("{:.2}x", ours / theirs))
            .collect::<Vec<_>>();
        print_line("mcpkit / rmcp", &ratios);
        println!("(below 1x is better, except for calls/s where above 1x is better)");
    }

    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
