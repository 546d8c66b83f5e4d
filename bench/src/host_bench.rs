//! The host section: what routing a call through a [`mcpweft::host::Host`] costs beside a
//! client connected to the same server, and how long a host takes to connect to ten stdio
//! servers beside one.
//!
//! Both measure the mcpweft echo server next to the driver. The call overhead alternates blocks
//! of sequential `echo` calls through a direct [`mcpweft::Client`], through the same client
//! asking for progress as a host does (a progress token, so that progress restarts the
//! time-out), and through a host of that one server (each its own process), so that drift of
//! the machine hits all alike, and compares the medians of the blocks' mean latencies. The connection times are the medians of
//! several host connections to one server and to ten (each a process of its own, started at
//! once), beside the slowest of the single connections: of echo servers that answer at once,
//! where the processes' CPU time on the machine's cores bounds ten, and of echo servers that
//! wait 100 ms before they start, where the host's own part shows.

use std::{path::Path, time::Instant};

use mcpweft::{
    Client, ClientOptions, RequestOptions,
    host::{Host, HostConfig, ServerState},
    model::CallToolRequestParams,
    transport::ChildProcessTransport,
};
use serde_json::{Value, json};

use crate::report::{median, print_line};

/// The echo server next to the driver.
const SERVER: &str = "mcpweft-echo-server";

/// Runs the section with the server found in `dir`, dividing its counts by 10 when `quick`;
/// prints its table and returns whether it could run.
pub(crate) async fn run(dir: &Path, quick: bool) -> bool {
    println!("== host: a call through a host, and connecting to ten stdio servers ==");
    let server = dir.join(SERVER);
    if !server.is_file() {
        println!("skipped: {} is not built", server.display());
        return false;
    }
    let command = server.to_string_lossy().into_owned();
    match measure(&command, if quick { 10 } else { 1 }).await {
        Ok(()) => true,
        Err(error) => {
            println!("failed: {error}");
            false
        }
    }
}

/// How long the slow-starting echo servers wait before they read their first message.
const START_DELAY_MS: u64 = 100;

/// A host configuration of `count` echo servers named `echo0`, `echo1`..., each waiting
/// `delay_ms` before it reads its first message.
fn config_with(command: &str, count: usize, delay_ms: u64) -> Result<HostConfig, mcpweft::Error> {
    let args: Vec<String> =
        if delay_ms == 0 { Vec::new() } else { vec!["--start-delay-ms".into(), delay_ms.to_string()] };
    let servers: serde_json::Map<String, Value> =
        (0..count).map(|i| (format!("echo{i}"), json!({ "command": command, "args": args }))).collect();
    HostConfig::from_value(&json!({ "mcpServers": servers }))
}

/// A host configuration of `count` echo servers named `echo0`, `echo1`...
fn config(command: &str, count: usize) -> Result<HostConfig, mcpweft::Error> {
    config_with(command, count, 0)
}

/// The medians of the times a host takes to connect to one and to ten echo servers waiting
/// `delay_ms` before they start, in `rounds` rounds, with the slowest single connection, and
/// the medians of the CPU time all processes used for each.
async fn connect_times(command: &str, delay_ms: u64, rounds: usize) -> Result<ConnectTimes, mcpweft::Error> {
    let (mut one, mut ten) = (Vec::new(), Vec::new());
    let (mut one_cpu, mut ten_cpu) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let (started, cpu) = (Instant::now(), cpu_ms());
        let host = Host::connect(config_with(command, 1, delay_ms)?).await?;
        one.push(started.elapsed().as_secs_f64() * 1e3);
        host.close().await;
        one_cpu.extend(cpu.zip(cpu_ms()).map(|(before, after)| after - before));
        let (started, cpu) = (Instant::now(), cpu_ms());
        let host = Host::connect(config_with(command, 10, delay_ms)?).await?;
        ten.push(started.elapsed().as_secs_f64() * 1e3);
        let ready = host.servers().into_iter().filter(|(_, state)| *state == ServerState::Ready).count();
        host.close().await;
        ten_cpu.extend(cpu.zip(cpu_ms()).map(|(before, after)| after - before));
        if ready != 10 {
            return Err(mcpweft::Error::Config(format!("{ready} of the ten echo servers became ready")));
        }
    }
    let slowest = one.iter().copied().fold(0.0, f64::max);
    let cpu = (!one_cpu.is_empty()).then(|| (median(&mut one_cpu), median(&mut ten_cpu)));
    Ok(ConnectTimes { one: median(&mut one), slowest, ten: median(&mut ten), cpu })
}

/// What [`connect_times`] measured, in milliseconds.
struct ConnectTimes {
    /// The median time to connect to one server.
    one: f64,
    /// The slowest of the single connections.
    slowest: f64,
    /// The median time to connect to ten servers at once.
    ten: f64,
    /// The median CPU time of all processes for one and for ten, where it can be read.
    cpu: Option<(f64, f64)>,
}

/// Measures both and prints the table.
async fn measure(command: &str, divisor: usize) -> Result<(), mcpweft::Error> {
    let calls = 2_000 / divisor;
    let blocks = 10;
    let transport = ChildProcessTransport::command(command, &[] as &[String])?;
    let client = Client::connect(transport, ClientOptions::new("mcpweft-bench", "0.1.0")).await?;
    let host = Host::connect(config(command, 1)?).await?;
    let arguments = json!({ "text": "hello" });
    let (mut direct, mut progress, mut routed) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..blocks {
        let started = Instant::now();
        for _ in 0..calls {
            client.call_tool("echo", arguments.clone()).await?;
        }
        direct.push(started.elapsed().as_secs_f64() * 1e6 / calls as f64);
        let started = Instant::now();
        for _ in 0..calls {
            let mut params = CallToolRequestParams::default();
            params.name = "echo".into();
            params.arguments = arguments.as_object().cloned();
            let options = RequestOptions::new().with_progress(|_| {}).with_reset_timeout_on_progress(true);
            client.call_tool_with(params, options).await?;
        }
        progress.push(started.elapsed().as_secs_f64() * 1e6 / calls as f64);
        let started = Instant::now();
        for _ in 0..calls {
            host.call_tool("echo0__echo", arguments.clone()).await?;
        }
        routed.push(started.elapsed().as_secs_f64() * 1e6 / calls as f64);
    }
    client.close().await;
    host.close().await;
    let (direct, progress, routed) = (median(&mut direct), median(&mut progress), median(&mut routed));

    let rounds = 7 / divisor.min(7) + 2;
    let quick = connect_times(command, 0, rounds).await?;
    let slow = connect_times(command, START_DELAY_MS, rounds).await?;

    let overhead = |base: f64| format!("{:+.1}%", (routed / base - 1.0) * 100.0);
    print_line("", &["direct".into(), "+progress".into(), "host".into(), "vs direct".into(), "vs +progress".into()]);
    print_line(
        "call (µs, mean)",
        &[
            format!("{direct:.1}"),
            format!("{progress:.1}"),
            format!("{routed:.1}"),
            overhead(direct),
            overhead(progress),
        ],
    );
    print_line("", &["1 server".into(), "slowest 1".into(), "10 servers".into()]);
    for (label, times) in [("connect (ms)", &quick), ("connect, slow (ms)", &slow)] {
        print_line(label, &[format!("{:.1}", times.one), format!("{:.1}", times.slowest), format!("{:.1}", times.ten)]);
    }
    if let Some((one_cpu, ten_cpu)) = quick.cpu {
        print_line("CPU, all processes (ms)", &[format!("{one_cpu:.1}"), String::new(), format!("{ten_cpu:.1}")]);
    }
    println!("{blocks} alternating blocks of {calls} sequential echo calls; connections: medians of {rounds} hosts");
    Ok(())
}

/// The CPU time this process and its ended children have used so far, in milliseconds
/// (user and system): what connecting and closing costs in all, whatever the cores.
#[cfg(target_os = "linux")]
fn cpu_ms() -> Option<f64> {
    let used = |who| {
        // SAFETY: getrusage fills the zeroed struct it is given and reads nothing else.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        (unsafe { libc::getrusage(who, &mut usage) } == 0).then(|| {
            let ms = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
            ms(usage.ru_utime) + ms(usage.ru_stime)
        })
    };
    Some(used(libc::RUSAGE_SELF)? + used(libc::RUSAGE_CHILDREN)?)
}

/// CPU times are read on Linux only.
#[cfg(not(target_os = "linux"))]
fn cpu_ms() -> Option<f64> {
    None
}
