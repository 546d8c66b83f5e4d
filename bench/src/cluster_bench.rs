//! The cluster section of the benchmark (`--cluster`, a build with the feature `redis`).
//!
//! The mcpweft echo server runs alone without Redis, then as 1, 2 and 3 processes sharing their
//! sessions through Redis behind haproxy balancing round robin without session affinity
//! (`tests/cluster/up.sh`, which installs `redis-server` and `haproxy` when missing). After a
//! warm-up, 64 sessions call `echo` sequentially, all at once, and the section reports the
//! calls per second with the median and 99th-percentile latency, and each row's throughput
//! beside the lone process's: the cost of the shared state and of the balancer's hop, and how
//! it scales with processes. On a machine with fewer cores than processes the processes share
//! them, which bounds the scaling seen.

use std::path::Path;

use crate::{
    http_bench::{LOAD_BUDGET, Load, Process, WARM_UP_BUDGET, WARM_UP_SESSIONS, run_load},
    report::{print_line, ratio},
    rpc::Result,
    servers::{PORT, Server},
};

/// The concurrent sessions of the measured run.
const SESSIONS: usize = 64;

/// The script that starts a cluster.
const UP: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/cluster/up.sh");

/// Measures one server command: warm-up, then the 64-session run.
async fn measure(server: &Server, quick: bool) -> Result<Load> {
    let divisor = if quick { 10 } else { 1 };
    let process = Process::spawn(server).await?;
    let measured = async {
        run_load(process.addr, WARM_UP_SESSIONS, 4_000 / divisor, WARM_UP_BUDGET).await?;
        run_load(process.addr, SESSIONS, 60_000 / divisor, LOAD_BUDGET).await
    }
    .await;
    // The cluster script stops what it started on SIGTERM.
    process.terminate().await;
    measured
}

/// Measures the lone server and the clusters and prints the table; returns whether every row
/// could be measured.
pub(crate) async fn run(dir: &Path, quick: bool) -> bool {
    let echo = dir.join("mcpweft-echo-http").to_string_lossy().into_owned();
    let mut servers =
        vec![Server { name: "mcpweft, no Redis".to_owned(), command: vec![echo.clone(), PORT.to_owned()] }];
    for processes in 1..=3 {
        servers.push(Server {
            name: format!("cluster of {processes}"),
            command: vec![UP.to_owned(), PORT.to_owned(), processes.to_string(), echo.clone()],
        });
    }
    let mut rows = Vec::new();
    for server in &servers {
        eprintln!("measuring {} ({})", server.name, server.command.join(" "));
        let load = measure(server, quick).await;
        if let Err(error) = &load {
            eprintln!("{}: {error}", server.name);
        }
        rows.push((server.name.as_str(), load.ok()));
    }
    print_line("cluster (64 sessions)", &["calls/s", "p50 µs", "p99 µs", "vs alone"].map(String::from));
    let alone = rows.first().and_then(|(_, load)| load.as_ref()).map(|load| load.calls_per_s);
    for (name, load) in &rows {
        let Some(load) = load else {
            print_line(name, &["failed".into()]);
            continue;
        };
        let [calls, p50, p99] = load.columns();
        let versus = alone.map_or_else(|| "-".to_owned(), |alone| ratio(calls, alone));
        print_line(name, &[format!("{calls:.0}"), format!("{p50:.1}"), format!("{p99:.1}"), versus]);
    }
    rows.iter().all(|(_, load)| load.is_some())
}
