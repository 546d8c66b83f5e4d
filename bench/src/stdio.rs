//! The stdio section of the benchmark.
//!
//! For every MCP server it is given, it measures the start-up time (spawn to
//! `initialize` result), the memory of the idle server after its first call,
//! the latency of sequential `tools/call echo` requests (also with one CPU
//! kept awake, see [`KeepAwake`]), the throughput with
//! 64 requests in flight and the peak memory of the server process; then, on
//! a fresh process, the p50 of sequential calls echoing 64 KiB texts and the
//! peak memory while echoing them with 64 in flight. It then prints one row per server and the ratios
//! of each mcpweft flavour versus the official SDK of its language, which
//! drift less than absolute times.
//!
//! Every phase is bounded in count and in time, so that slow servers (the
//! Python ones) are measured over fewer calls: the warm-up, in chunks, gives
//! the sequential rate and a short pipelined calibration the pipelined one,
//! and the timed phases make at most as many calls as fit in
//! [`PHASE_BUDGET`] at those rates.

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    thread::JoinHandle,
    time::{Duration, Instant},
};

use crate::{
    report::{RATIOS, median, percentile, print_line, ratio},
    rpc::{Result, Session, echo_requests, echo_requests_with, large_text},
    servers::Server,
};

/// The number of requests kept in flight by the throughput phase.
const WINDOW: usize = 64;
/// The time after which the measurement of one server is abandoned.
const SERVER_CAP: Duration = Duration::from_secs(60);
/// About the longest the sequential and the pipelined phase each last.
const PHASE_BUDGET: Duration = Duration::from_secs(10);
/// The time after which the warm-up and the pipelined calibration stop,
/// once they have made one chunk of calls.
const CALIBRATION_BUDGET: Duration = Duration::from_secs(1);
/// The number of calls in one chunk of the warm-up or calibration.
const CHUNK: usize = 250;
/// The most 64 KiB calls of the large phase.
const LARGE_CALLS: usize = 1_000;
/// The most sequential 64 KiB calls of the large phase.
const LARGE_SEQUENTIAL: usize = 1_000;
/// The longest the large phase lasts once it has made one window of calls.
const LARGE_BUDGET: Duration = Duration::from_secs(3);
/// The number of spawns of the start-up phase that are made however long
/// they take.
const MIN_SPAWNS: usize = 5;
/// The time after which the start-up phase stops spawning, once it has made
/// [`MIN_SPAWNS`] spawns.
const STARTUP_BUDGET: Duration = Duration::from_secs(2);

/// The most calls each phase makes.
struct Counts {
    spawns: usize,
    warm_up: usize,
    sequential: usize,
    pipelined: usize,
    large: usize,
    large_sequential: usize,
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
            large: LARGE_CALLS / divisor,
            large_sequential: LARGE_SEQUENTIAL / divisor,
        }
    }
}

/// The measurements of one server.
struct Row {
    startup_ms: f64,
    p50_us: f64,
    p99_us: f64,
    awake_p50_us: f64,
    calls_per_s: f64,
    peak_mib: f64,
    idle_mib: f64,
    large_p50_us: f64,
    large_peak_mib: f64,
}

impl Row {
    /// The columns, in table order.
    fn columns(&self) -> [f64; 9] {
        [
            self.startup_ms,
            self.idle_mib,
            self.p50_us,
            self.p99_us,
            self.awake_p50_us,
            self.calls_per_s,
            self.peak_mib,
            self.large_p50_us,
            self.large_peak_mib,
        ]
    }
}

/// The median time from spawning the server to receiving its `initialize`
/// result, in milliseconds, over at most `spawns` spawns: fewer (but at least
/// [`MIN_SPAWNS`]) once [`STARTUP_BUDGET`] has passed.
///
/// The phase runs at real-time priority where the system allows it (see
/// [`RealTime`]), so that what else the machine runs stays out of the figure.
async fn measure_startup(server: &Server, spawns: usize) -> Result<f64> {
    let _priority = RealTime::raise();
    let mut times = Vec::with_capacity(spawns);
    let phase = Instant::now();
    while times.len() < spawns && (times.len() < MIN_SPAWNS || phase.elapsed() < STARTUP_BUDGET) {
        let start = Instant::now();
        let mut session = Session::spawn(&server.command)?;
        session.initialize().await?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
        session.kill().await;
    }
    Ok(median(&mut times))
}

/// Runs the calling thread, and the processes it spawns meanwhile, at the
/// lowest real-time priority (`SCHED_FIFO` 1) until dropped.
///
/// The benchmark's runtime is single-threaded, so this covers both the
/// measuring side and the server being measured; everything else the machine
/// runs at normal priority waits. Without the privilege to raise it, or on
/// another system than Linux, nothing changes.
struct RealTime {
    raised: bool,
}

impl RealTime {
    #[cfg(target_os = "linux")]
    fn raise() -> Self {
        let param = libc::sched_param { sched_priority: 1 };
        // SAFETY: sched_setscheduler on the calling thread (pid 0) with a valid parameter.
        let raised = unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) } == 0;
        RealTime { raised }
    }

    #[cfg(not(target_os = "linux"))]
    fn raise() -> Self {
        RealTime { raised: false }
    }

    /// Whether the start-up phase can run at real-time priority here.
    fn available() -> bool {
        let raised = RealTime::raise();
        raised.raised
    }
}

impl Drop for RealTime {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        if self.raised {
            let param = libc::sched_param { sched_priority: 0 };
            // SAFETY: as in `raise`, back to the normal policy.
            unsafe { libc::sched_setscheduler(0, libc::SCHED_OTHER, &param) };
        }
    }
}

/// A thread that keeps one CPU busy at the weakest priority (nice 19) until
/// dropped.
///
/// On a virtual machine a sequential call mostly measures how long the
/// hypervisor takes to wake an idle virtual CPU, for the server and again for
/// the client. With one CPU kept running by a thread that every other thread
/// preempts, the same calls measure the server more than the wake-ups. On
/// another system than Linux no thread spins.
struct KeepAwake {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl KeepAwake {
    fn start() -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let spin = move || {
            if !lowest_priority() {
                return;
            }
            while !flag.load(Ordering::Relaxed) {
                std::hint::spin_loop();
            }
        };
        let thread = std::thread::Builder::new().name("keep-awake".into()).spawn(spin).ok();
        KeepAwake { stop, thread }
    }
}

/// Lowers the calling thread to nice 19; returns whether it could.
#[cfg(target_os = "linux")]
fn lowest_priority() -> bool {
    // SAFETY: setpriority on the calling thread (who 0 is the caller on Linux).
    unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, 19) == 0 }
}

/// Leaves the calling thread's priority alone: a thread's own nice value is a
/// Linux matter.
#[cfg(not(target_os = "linux"))]
fn lowest_priority() -> bool {
    false
}

impl Drop for KeepAwake {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The number of calls that fit in [`PHASE_BUDGET`] at `calls_per_s`,
/// between 1 and `most`.
fn fitting(calls_per_s: f64, most: usize) -> usize {
    let fit = (calls_per_s * PHASE_BUDGET.as_secs_f64()) as usize;
    fit.clamp(1, most.max(1))
}

/// The p50 of at most `sequential` sequential calls echoing 64 KiB (fewer once
/// [`LARGE_BUDGET`] has passed), in microseconds, and then the peak memory of
/// the same fresh server process, in MiB, after at most `most` such calls with
/// [`WINDOW`] in flight (fewer once [`LARGE_BUDGET`] has passed).
async fn measure_large(server: &Server, sequential: usize, most: usize) -> Result<(f64, f64)> {
    let mut session = Session::spawn(&server.command)?;
    session.initialize().await?;
    session.initialized().await?;
    let text = large_text();
    let (mut done, mut next_id) = (0, 1);
    let mut latencies = Vec::with_capacity(sequential);
    let start = Instant::now();
    while done == 0 || (done < sequential && start.elapsed() < LARGE_BUDGET) {
        let count = CHUNK.min(sequential.max(1) - done).max(1);
        latencies.extend(session.run(echo_requests_with(next_id, count, &text), next_id, 1).await?.latencies_us());
        done += count;
        next_id += count as u64;
    }
    latencies.sort_by(f64::total_cmp);
    let p50_us = percentile(&latencies, 50.0);
    let start = Instant::now();
    done = 0;
    while done == 0 || (done < most && start.elapsed() < LARGE_BUDGET) {
        let count = WINDOW.min(most.max(1) - done).max(1);
        session.run(echo_requests_with(next_id, count, &text), next_id, WINDOW).await?;
        done += count;
        next_id += count as u64;
    }
    let peak_mib = session.peak_memory_kib()? as f64 / 1024.0;
    session.close().await;
    Ok((p50_us, peak_mib))
}

/// Measures every column for one server.
async fn measure(server: &Server, counts: &Counts) -> Result<Row> {
    let startup_ms = measure_startup(server, counts.spawns.max(1)).await?;

    let mut session = Session::spawn(&server.command)?;
    session.initialize().await?;
    session.initialized().await?;
    session.check_echo(1).await?;
    let idle_mib = session.memory_kib()? as f64 / 1024.0;
    let mut next_id = 2;
    let mut batch = |count: usize| {
        let first = next_id;
        next_id += count as u64;
        (echo_requests(first, count), first)
    };
    // Runs chunks of calls with `window` in flight until `most` calls or
    // the calibration budget, and returns their rate.
    let mut calibrate = async |window: usize, most: usize| -> Result<f64> {
        let start = Instant::now();
        let mut done = 0;
        while done == 0 || (done < most && start.elapsed() < CALIBRATION_BUDGET) {
            let (requests, first) = batch(CHUNK.min(most.max(1) - done).max(1));
            done += requests.len();
            session.run(requests, first, window).await?;
        }
        Ok(done as f64 / start.elapsed().as_secs_f64())
    };

    let sequential_rate = calibrate(1, counts.warm_up).await?;
    let pipelined_rate = calibrate(WINDOW, counts.warm_up).await?;
    let sequential = fitting(sequential_rate, counts.sequential);
    let pipelined = fitting(pipelined_rate, counts.pipelined);
    eprintln!("  {}: {sequential} sequential calls, {pipelined} pipelined", server.name);

    let (requests, first) = batch(sequential);
    let mut latencies = session.run(requests, first, 1).await?.latencies_us();
    latencies.sort_by(f64::total_cmp);
    let awake_p50_us = {
        let _awake = KeepAwake::start();
        let (requests, first) = batch(sequential.div_ceil(2));
        let mut awake = session.run(requests, first, 1).await?.latencies_us();
        awake.sort_by(f64::total_cmp);
        percentile(&awake, 50.0)
    };

    let (requests, first) = batch(pipelined);
    let calls_per_s = session.run(requests, first, WINDOW).await?.throughput();

    let peak_mib = session.peak_memory_kib()? as f64 / 1024.0;
    session.close().await;
    let (large_p50_us, large_peak_mib) = measure_large(server, counts.large_sequential, counts.large).await?;
    Ok(Row {
        idle_mib,
        large_p50_us,
        large_peak_mib,
        startup_ms,
        p50_us: percentile(&latencies, 50.0),
        p99_us: percentile(&latencies, 99.0),
        awake_p50_us,
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

    if RealTime::available() {
        println!("start-up: measured at real-time priority, so the machine's other load stays out of it");
    } else {
        println!("start-up: measured at normal priority (no privilege to raise it): other load adds to it");
    }
    println!("awake p50: the sequential calls again, with one CPU kept busy by a thread at nice 19");
    let headers = [
        "start-up ms",
        "idle MiB",
        "p50 µs",
        "p99 µs",
        "awake p50 µs",
        "calls/s",
        "peak MiB",
        "64K p50 µs",
        "64K peak MiB",
    ];
    print_line("server", &headers.map(String::from));
    for (name, row) in &rows {
        let cells = match row {
            Some(row) => {
                let [startup, idle, p50, p99, awake_p50, calls, peak, large_p50, large_peak] = row.columns();
                vec![
                    format!("{startup:.2}"),
                    format!("{idle:.1}"),
                    format!("{p50:.1}"),
                    format!("{p99:.1}"),
                    format!("{awake_p50:.1}"),
                    format!("{calls:.0}"),
                    format!("{peak:.1}"),
                    format!("{large_p50:.1}"),
                    format!("{large_peak:.1}"),
                ]
            }
            None => vec!["failed".into()],
        };
        print_line(name, &cells);
    }

    let find = |wanted: &str| rows.iter().find(|(name, _)| *name == wanted).and_then(|(_, row)| row.as_ref());
    let mut compared = false;
    for (ours, theirs) in RATIOS {
        if let (Some(our_row), Some(their_row)) = (find(ours), find(theirs)) {
            let columns = our_row.columns().into_iter().zip(their_row.columns());
            print_line(&format!("{ours} / {theirs}"), &columns.map(|(a, b)| ratio(a, b)).collect::<Vec<_>>());
            compared = true;
        }
    }
    if compared {
        println!("(below 1x is better, except for calls/s where above 1x is better)");
    }
    !failed
}
