//! The Streamable HTTP section of the benchmark.
//!
//! Each server is spawned on a free loopback port and warmed up once its
//! port accepts connections. Then, for 1, 16 and 64 concurrent sessions,
//! every session (initialized beforehand on its own keep-alive connection)
//! makes sequential `tools/call echo` requests, all sessions at once, until
//! it has made its share of the run's calls or the run's time is up (which
//! bounds the runs of slow servers, such as the Python ones); the section
//! reports the total calls per second and the median and 99th-percentile
//! latency of a call across all sessions. The server's CPU time (user and
//! system, from `/proc`) over each run, divided by its calls, is the CPU a
//! call costs the server, beside the part its main thread took (in a Node
//! server the JavaScript thread). The last runs make 1, 16 and 64 sessions
//! echo 64 KiB texts.
//!
//! The memory of an idle session is measured on a fresh process: after a
//! warm-up, the server's `VmRSS` is read, 1,000 sessions are initialized and
//! their connections closed, and `VmRSS` is read again.
//!
//! Each server is measured on its own, minutes apart from the row it is
//! compared with, and a shared machine's speed drifts in between (the same
//! server's CPU per call at `16x64K` has moved by a third from one run to the
//! next). So the section ends with paired rounds: for each pair of compared
//! rows, both servers run side by side and alternate short runs echoing
//! 64 KiB, of 16 sessions (for the CPU per call) and of 64 (for the calls per
//! second), and the median of the rounds' ratios is printed beside each
//! server's median.

use std::{
    net::{Ipv4Addr, SocketAddr},
    process::Stdio,
    time::{Duration, Instant},
};

use tokio::{
    process::{Child, Command},
    task::JoinSet,
};

use crate::{
    http::HttpSession,
    report::{RATIOS, median, percentile, print_line, ratio},
    rpc::{Error, Result, cpu_time_us, large_text, main_thread_cpu_time_us, status_kib},
    servers::Server,
};

/// The numbers of concurrent sessions of the load phase.
const SESSION_COUNTS: [usize; 3] = [1, 16, 64];
/// The numbers of concurrent sessions of the runs with 64 KiB texts.
const LARGE_SESSION_COUNTS: [usize; 3] = [1, 16, 64];
/// The number of concurrent sessions of the warm-up.
pub(crate) const WARM_UP_SESSIONS: usize = 16;
/// The number of idle sessions whose memory is measured.
const IDLE_SESSIONS: usize = 1_000;
/// How many idle sessions are being opened at any time.
const IDLE_OPENERS: usize = 8;
/// How long a server may take before its port accepts connections; Python
/// servers take a second or so.
const READY_TIMEOUT: Duration = Duration::from_secs(20);
/// The longest a load run lasts.
pub(crate) const LOAD_BUDGET: Duration = Duration::from_secs(10);
/// The longest a warm-up lasts.
pub(crate) const WARM_UP_BUDGET: Duration = Duration::from_secs(2);
/// How long a server is left to settle before its memory is read.
const SETTLE: Duration = Duration::from_millis(200);
/// The time after which the measurement of one server is abandoned.
const SERVER_CAP: Duration = Duration::from_secs(180);
/// The concurrent sessions of the paired rounds' runs whose CPU per call is compared; they
/// echo 64 KiB texts.
const PAIRED_SESSIONS: usize = 16;
/// The concurrent sessions of the paired rounds' runs whose calls per second are compared.
const PAIRED_THROUGHPUT_SESSIONS: usize = 64;
/// The alternating rounds of each pair of servers.
const PAIRED_ROUNDS: usize = 7;
/// The longest one server's run of a paired round lasts.
const PAIRED_BUDGET: Duration = Duration::from_secs(2);
/// The time after which the paired rounds of one pair are abandoned.
const PAIR_CAP: Duration = Duration::from_secs(120);

/// The most calls each phase makes, in total over all its sessions.
struct Counts {
    warm_up: usize,
    /// The calls of the load phase, by entry of [`SESSION_COUNTS`].
    load: [usize; SESSION_COUNTS.len()],
    /// The calls of the runs with 64 KiB texts, by entry of [`LARGE_SESSION_COUNTS`].
    large: [usize; LARGE_SESSION_COUNTS.len()],
    /// The calls of one server's run in a paired round.
    paired: usize,
}

impl Counts {
    /// The full counts, or a tenth of them when `quick`.
    fn new(quick: bool) -> Self {
        let divisor = if quick { 10 } else { 1 };
        Self {
            warm_up: 4_000 / divisor,
            load: [20_000 / divisor, 60_000 / divisor, 60_000 / divisor],
            large: [2_000 / divisor, 6_000 / divisor, 6_000 / divisor],
            paired: 2_000 / divisor,
        }
    }
}

/// The result of one load run.
pub(crate) struct Load {
    pub(crate) calls: usize,
    pub(crate) calls_per_s: f64,
    p50_us: f64,
    p99_us: f64,
    /// The server's CPU time per call, in microseconds, when measured.
    cpu_us: f64,
    /// The part of [`Load::cpu_us`] its main thread took (in a Node server the JavaScript
    /// thread), when measured.
    main_cpu_us: f64,
}

impl Load {
    /// The columns, in table order.
    pub(crate) fn columns(&self) -> [f64; 3] {
        [self.calls_per_s, self.p50_us, self.p99_us]
    }
}

/// The measurements of one server.
struct Row {
    /// One load run by entry of [`SESSION_COUNTS`].
    loads: Vec<Load>,
    /// One run with 64 KiB texts by entry of [`LARGE_SESSION_COUNTS`].
    large: Vec<Load>,
    idle_session_kib: f64,
}

/// A server process listening on a loopback port.
pub(crate) struct Process {
    child: Child,
    pub(crate) addr: SocketAddr,
}

impl Process {
    /// Spawns `server` on a free loopback port and waits until that port
    /// accepts connections. Its output is discarded, and it is killed if
    /// dropped.
    pub(crate) async fn spawn(server: &Server) -> Result<Self> {
        // The port is free once this listener is dropped; the server binds it
        // right after, and nothing else on this machine is expected to race.
        let port = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?.local_addr()?.port();
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let command = server.command_on(port);
        let (program, args) = command.split_first().ok_or("empty server command")?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot spawn {program}: {e}"))?;
        let deadline = Instant::now() + READY_TIMEOUT;
        while tokio::net::TcpStream::connect(addr).await.is_err() {
            if let Some(status) = child.try_wait()? {
                return Err(format!("{} exited with {status}", command.join(" ")).into());
            }
            if Instant::now() > deadline {
                return Err(format!("{addr} did not accept connections within {READY_TIMEOUT:?}").into());
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        Ok(Self { child, addr })
    }

    /// The process id of the server.
    pub(crate) fn pid(&self) -> Result<u32> {
        Ok(self.child.id().ok_or("server has already exited")?)
    }

    /// The resident set size of the server, in KiB.
    pub(crate) fn rss_kib(&self) -> Result<u64> {
        status_kib(self.child.id().ok_or("server has already exited")?, "VmRSS")
    }

    /// The CPU time the server and its main thread have used so far, in microseconds.
    fn cpu_time_us(&self) -> Result<(f64, f64)> {
        let pid = self.child.id().ok_or("server has already exited")?;
        Ok((cpu_time_us(pid)?, main_thread_cpu_time_us(pid)?))
    }

    /// Runs [`run_load_with`] for at most [`LOAD_BUDGET`] and sets the server's CPU time per
    /// call.
    async fn measured_load(&self, sessions: usize, calls: usize, text: &str) -> Result<Load> {
        self.measured_load_within(sessions, calls, LOAD_BUDGET, text).await
    }

    /// Runs [`run_load_with`] for at most `budget` and sets the server's CPU time per call.
    async fn measured_load_within(&self, sessions: usize, calls: usize, budget: Duration, text: &str) -> Result<Load> {
        let (before, main_before) = self.cpu_time_us()?;
        let mut load = run_load_with(self.addr, sessions, calls, budget, text).await?;
        let (after, main_after) = self.cpu_time_us()?;
        load.cpu_us = (after - before) / load.calls.max(1) as f64;
        load.main_cpu_us = (main_after - main_before) / load.calls.max(1) as f64;
        Ok(load)
    }

    /// Kills the server and reaps it.
    pub(crate) async fn kill(mut self) {
        // An error means the process is already gone, which is the goal.
        let _ = self.child.kill().await;
    }

    /// Asks the server to stop (SIGTERM), so that a script can stop what it started, and
    /// reaps it; kills it when it is still there after 10 seconds.
    pub(crate) async fn terminate(mut self) {
        if let Some(pid) = self.child.id() {
            let _ = Command::new("kill").arg("-TERM").arg(pid.to_string()).status().await;
            if tokio::time::timeout(Duration::from_secs(10), self.child.wait()).await.is_ok() {
                return;
            }
        }
        self.kill().await;
    }
}

/// Opens `sessions` sessions, checks that `echo` works in each, then makes
/// them all call `echo` sequentially at the same time, `calls` calls in
/// total or as many as they make in `budget`, and measures the calls.
pub(crate) async fn run_load(addr: SocketAddr, sessions: usize, calls: usize, budget: Duration) -> Result<Load> {
    run_load_with(addr, sessions, calls, budget, "hi").await
}

/// Runs [`run_load`] with calls that echo `text`, which must need no JSON
/// escaping.
async fn run_load_with(addr: SocketAddr, sessions: usize, calls: usize, budget: Duration, text: &str) -> Result<Load> {
    let per_session = (calls / sessions).max(1);
    let mut opened = Vec::with_capacity(sessions);
    for _ in 0..sessions {
        let mut session = HttpSession::open(addr).await?;
        session.check_echo().await?;
        opened.push(session);
    }
    let start = Instant::now();
    let deadline = start + budget;
    let mut tasks = JoinSet::new();
    for mut session in opened {
        let text = text.to_owned();
        tasks.spawn(async move {
            let mut latencies = Vec::with_capacity(per_session);
            for _ in 0..per_session {
                let sent = Instant::now();
                if sent >= deadline {
                    break;
                }
                session.call_echo_with(&text).await?;
                latencies.push(sent.elapsed().as_secs_f64() * 1e6);
            }
            Ok::<_, Error>((latencies, Instant::now()))
        });
    }
    let mut latencies = Vec::with_capacity(per_session * sessions);
    let mut end = start;
    while let Some(joined) = tasks.join_next().await {
        let (session_latencies, finished) = joined??;
        latencies.extend(session_latencies);
        end = end.max(finished);
    }
    latencies.sort_by(f64::total_cmp);
    Ok(Load {
        calls: latencies.len(),
        calls_per_s: latencies.len() as f64 / end.duration_since(start).as_secs_f64(),
        p50_us: percentile(&latencies, 50.0),
        p99_us: percentile(&latencies, 99.0),
        cpu_us: f64::NAN,
        main_cpu_us: f64::NAN,
    })
}

/// The growth of a fresh server's resident set per idle session, in KiB.
async fn idle_session_kib(server: &Server, warm_up: usize) -> Result<f64> {
    let server = Process::spawn(server).await?;
    let addr = server.addr;
    // Warm the server up so that its one-time allocations are not counted.
    run_load(addr, WARM_UP_SESSIONS, warm_up, WARM_UP_BUDGET).await?;
    tokio::time::sleep(SETTLE).await;
    let before = server.rss_kib()?;
    let mut openers = JoinSet::new();
    for opener in 0..IDLE_OPENERS {
        openers.spawn(async move {
            for _ in (opener..IDLE_SESSIONS).step_by(IDLE_OPENERS) {
                // Dropping the session closes its connection; the server keeps
                // the session.
                HttpSession::open(addr).await?;
            }
            Ok::<_, Error>(())
        });
    }
    while let Some(joined) = openers.join_next().await {
        joined??;
    }
    tokio::time::sleep(SETTLE).await;
    let after = server.rss_kib()?;
    server.kill().await;
    Ok((after as f64 - before as f64) / IDLE_SESSIONS as f64)
}

/// Measures every column for one server.
async fn measure(server: &Server, counts: &Counts) -> Result<Row> {
    let process = Process::spawn(server).await?;
    run_load(process.addr, WARM_UP_SESSIONS, counts.warm_up, WARM_UP_BUDGET).await?;
    let mut loads = Vec::with_capacity(SESSION_COUNTS.len());
    for (sessions, calls) in SESSION_COUNTS.into_iter().zip(counts.load) {
        let load = process.measured_load(sessions, calls, "hi").await?;
        eprintln!("  {}: {} calls, {sessions} concurrent session(s)", server.name, load.calls);
        loads.push(load);
    }
    let text = large_text();
    let mut large = Vec::with_capacity(LARGE_SESSION_COUNTS.len());
    for (sessions, calls) in LARGE_SESSION_COUNTS.into_iter().zip(counts.large) {
        let load = process.measured_load(sessions, calls, &text).await?;
        eprintln!("  {}: {} calls of 64 KiB, {sessions} concurrent session(s)", server.name, load.calls);
        large.push(load);
    }
    process.kill().await;
    let idle_session_kib = idle_session_kib(server, counts.warm_up).await?;
    Ok(Row { loads, large, idle_session_kib })
}

/// The runs of two servers' paired rounds, by round: `[ours, theirs]` of 16 sessions (for the
/// CPU per call) and of 64 sessions (for the calls per second).
struct Paired {
    cpu: [Vec<Load>; 2],
    throughput: [Vec<Load>; 2],
}

/// The median of `ours` and of `theirs`, then the median of the rounds' ratios of ours to
/// theirs, with the lowest and the highest ratio.
fn spread(ours: &[f64], theirs: &[f64]) -> [f64; 5] {
    let mut ratios: Vec<f64> = ours.iter().zip(theirs).map(|(ours, theirs)| ours / theirs).collect();
    let (low, high) = ratios.iter().fold((f64::INFINITY, 0.0_f64), |(low, high), r| (low.min(*r), high.max(*r)));
    [median(&mut ours.to_vec()), median(&mut theirs.to_vec()), median(&mut ratios), low, high]
}

impl Paired {
    /// The cells of the CPU table: ours, our main thread's part, theirs, and the spread of
    /// the ratios.
    fn cpu_cells(&self) -> Vec<String> {
        let [ours, theirs] = &self.cpu;
        let column = |loads: &[Load], value: fn(&Load) -> f64| loads.iter().map(value).collect::<Vec<_>>();
        let [our_cpu, their_cpu, ratio, low, high] = spread(&column(ours, |l| l.cpu_us), &column(theirs, |l| l.cpu_us));
        let our_main = median(&mut column(ours, |l| l.main_cpu_us));
        let mut cells = vec![format!("{our_cpu:.1}"), format!("{our_main:.1}"), format!("{their_cpu:.1}")];
        cells.extend([ratio, low, high].map(|ratio| format!("{ratio:.2}x")));
        cells
    }

    /// The cells of the throughput table: ours, theirs, and the spread of the ratios.
    fn throughput_cells(&self) -> Vec<String> {
        let [ours, theirs] = &self.throughput;
        let calls = |loads: &[Load]| loads.iter().map(|load| load.calls_per_s).collect::<Vec<_>>();
        let [ours, theirs, ratio, low, high] = spread(&calls(ours), &calls(theirs));
        let mut cells = vec![format!("{ours:.0}"), format!("{theirs:.0}")];
        cells.extend([ratio, low, high].map(|ratio| format!("{ratio:.2}x")));
        cells
    }
}

/// Runs both servers side by side, warms each up with 64 KiB texts, then alternates between
/// them [`PAIRED_ROUNDS`] rounds (the first server of a round alternating too) of two runs
/// echoing 64 KiB: [`PAIRED_SESSIONS`] sessions, then [`PAIRED_THROUGHPUT_SESSIONS`].
async fn paired(ours: &Server, theirs: &Server, counts: &Counts) -> Result<Paired> {
    let text = large_text();
    let processes = [Process::spawn(ours).await?, Process::spawn(theirs).await?];
    for process in &processes {
        run_load_with(process.addr, PAIRED_SESSIONS, counts.paired, WARM_UP_BUDGET, &text).await?;
    }
    let mut cpu = [Vec::with_capacity(PAIRED_ROUNDS), Vec::with_capacity(PAIRED_ROUNDS)];
    let mut throughput = [Vec::with_capacity(PAIRED_ROUNDS), Vec::with_capacity(PAIRED_ROUNDS)];
    for round in 0..PAIRED_ROUNDS {
        for index in [round % 2, 1 - round % 2] {
            let process = &processes[index];
            cpu[index].push(process.measured_load_within(PAIRED_SESSIONS, counts.paired, PAIRED_BUDGET, &text).await?);
            throughput[index].push(
                process.measured_load_within(PAIRED_THROUGHPUT_SESSIONS, counts.paired, PAIRED_BUDGET, &text).await?,
            );
        }
    }
    for process in processes {
        process.kill().await;
    }
    Ok(Paired { cpu, throughput })
}

/// Awaits `work` for at most `cap`; when it fails or takes longer, says so on stderr under
/// `label` and returns `None`.
async fn capped<T>(label: &str, cap: Duration, work: impl Future<Output = Result<T>>) -> Option<T> {
    match tokio::time::timeout(cap, work).await {
        Ok(Ok(done)) => Some(done),
        Ok(Err(error)) => {
            eprintln!("{label}: {error}");
            None
        }
        Err(_) => {
            eprintln!("{label}: aborted after {} s", cap.as_secs());
            None
        }
    }
}

/// Runs and prints the paired rounds of every compared pair of servers that were both
/// measured: a table of the CPU per call, then one of the calls per second.
async fn print_paired(servers: &[Server], measured: &[(&str, Option<Row>)], counts: &Counts) -> bool {
    let find = |wanted: &str| {
        let row = measured.iter().find(|(name, _)| *name == wanted)?;
        row.1.as_ref()?;
        servers.iter().find(|server| server.name == wanted)
    };
    let mut done = Vec::new();
    let mut ok = true;
    for (ours, theirs) in RATIOS {
        let (Some(our_server), Some(their_server)) = (find(ours), find(theirs)) else {
            continue;
        };
        eprintln!("pairing {ours} with {theirs}");
        let label = format!("{ours} / {theirs}");
        let pair = capped(&label, PAIR_CAP, paired(our_server, their_server, counts)).await;
        ok &= pair.is_some();
        done.push((label, pair));
    }
    println!();
    println!(
        "paired rounds: {PAIRED_ROUNDS} alternating runs of each server echoing 64 KiB; medians, and the lowest and highest ratio of a round"
    );
    print_line(
        &format!("cpu µs/call, {PAIRED_SESSIONS}"),
        &["ours", "main thread", "theirs", "ratio", "lowest", "highest"].map(String::from),
    );
    for (label, pair) in &done {
        print_line(label, &pair.as_ref().map_or_else(|| vec!["failed".into()], Paired::cpu_cells));
    }
    print_line(
        &format!("calls/s, {PAIRED_THROUGHPUT_SESSIONS}"),
        &["ours", "theirs", "ratio", "lowest", "highest"].map(String::from),
    );
    for (label, pair) in &done {
        print_line(label, &pair.as_ref().map_or_else(|| vec!["failed".into()], Paired::throughput_cells));
    }
    ok
}

/// The runs of `row` in table order, each with its label: the number of
/// sessions, followed by `x64K` for the runs with 64 KiB texts.
fn labelled(row: &Row) -> impl Iterator<Item = (String, &Load)> {
    let small = SESSION_COUNTS.iter().map(ToString::to_string).zip(&row.loads);
    let large = LARGE_SESSION_COUNTS.iter().map(|sessions| format!("{sessions}x64K")).zip(&row.large);
    small.chain(large)
}

/// Measures every server over Streamable HTTP and prints the table; returns
/// whether every server could be measured.
pub(crate) async fn run(servers: &[Server], quick: bool) -> bool {
    let counts = Counts::new(quick);
    let mut rows = Vec::new();
    for server in servers {
        let name = &server.name;
        eprintln!("measuring {name} over Streamable HTTP ({})", server.command.join(" "));
        let row = capped(name, SERVER_CAP, measure(server, &counts)).await;
        rows.push((name.as_str(), row));
    }

    print_line(
        "http server",
        &["sessions", "calls/s", "p50 µs", "p99 µs", "cpu µs/call", "main thread"].map(String::from),
    );
    for (name, row) in &rows {
        let Some(row) = row else {
            print_line(name, &["failed".into()]);
            continue;
        };
        for (sessions, load) in labelled(row) {
            let [calls, p50, p99] = load.columns();
            let cells = [
                sessions,
                format!("{calls:.0}"),
                format!("{p50:.1}"),
                format!("{p99:.1}"),
                format!("{:.1}", load.cpu_us),
                format!("{:.1}", load.main_cpu_us),
            ];
            print_line(name, &cells);
        }
    }
    let find = |wanted: &str| rows.iter().find(|(name, _)| *name == wanted).and_then(|(_, row)| row.as_ref());
    let pairs: Vec<_> = RATIOS
        .iter()
        .filter_map(|(ours, theirs)| Some((format!("{ours} / {theirs}"), find(ours)?, find(theirs)?)))
        .collect();
    for (label, our_row, their_row) in &pairs {
        for ((sessions, ours), (_, theirs)) in labelled(our_row).zip(labelled(their_row)) {
            let mut cells = vec![sessions];
            cells.extend(ours.columns().iter().zip(theirs.columns()).map(|(ours, theirs)| ratio(*ours, theirs)));
            cells.push(ratio(ours.cpu_us, theirs.cpu_us));
            print_line(label, &cells);
        }
    }

    println!();
    print_line("idle session", &["KiB".into()]);
    for (name, row) in &rows {
        let cell = row.as_ref().map_or_else(|| "failed".into(), |row| format!("{:.1}", row.idle_session_kib));
        print_line(name, &[cell]);
    }
    for (label, ours, theirs) in &pairs {
        print_line(label, &[ratio(ours.idle_session_kib, theirs.idle_session_kib)]);
    }
    if !pairs.is_empty() {
        println!("(below 1x is better, except for calls/s where above 1x is better)");
    }
    let paired = pairs.is_empty() || print_paired(servers, &rows, &counts).await;
    rows.iter().all(|(_, row)| row.is_some()) && paired
}
