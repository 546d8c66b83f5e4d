//! A minimal newline-delimited JSON-RPC client speaking MCP to a child
//! process over its stdin and stdout.
//!
//! The client is deliberately raw: requests are serialised before a run
//! starts, a writer task sends them and a reader task matches the responses
//! by their integer ids, so the numbers measure the server and not a client
//! library. The MCP messages and response checks here are shared with the
//! Streamable HTTP client in [`crate::http`].

use std::{
    process::Stdio,
    sync::Arc,
    time::{Duration, Instant},
};

use serde::{Deserialize, de::IgnoredAny};
use tokio::{
    io::{AsyncBufReadExt, AsyncWriteExt, BufReader, BufWriter},
    process::{Child, ChildStdin, ChildStdout, Command},
    sync::Semaphore,
    task::JoinHandle,
};

/// The error type of the driver: a message for the user.
pub(crate) type Error = Box<dyn std::error::Error + Send + Sync>;
/// The result type of the driver.
pub(crate) type Result<T, E = Error> = std::result::Result<T, E>;

/// The protocol version the driver asks for.
pub(crate) const PROTOCOL_VERSION: &str = "2025-11-25";
/// The id of the `initialize` request; other requests use larger ids.
pub(crate) const INITIALIZE_ID: u64 = 0;
/// How many lines that are not awaited responses (server notifications,
/// for instance) are tolerated in one exchange before giving up.
const MAX_EXTRA_LINES: usize = 1_000;
/// How long a server may take to exit once its stdin is closed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// The fields of an incoming message that the driver checks.
#[derive(Deserialize)]
struct Incoming {
    id: Option<u64>,
    method: Option<IgnoredAny>,
    result: Option<ResultBody>,
    error: Option<serde_json::Value>,
}

/// The part of a result that tells a tool failure apart from a success.
#[derive(Deserialize)]
struct ResultBody {
    #[serde(rename = "isError", default)]
    is_error: bool,
}

/// Parses one line and returns the id of the successful response it holds,
/// `None` for blank lines and messages sent by the server on its own
/// initiative, or an error for failed, malformed or id-less responses.
pub(crate) fn parse_response(line: &[u8]) -> Result<Option<u64>> {
    if line.trim_ascii().is_empty() {
        return Ok(None);
    }
    let message: Incoming = serde_json::from_slice(line)
        .map_err(|e| format!("malformed message from server ({e}): {}", String::from_utf8_lossy(line).trim_end()))?;
    if message.method.is_some() {
        return Ok(None);
    }
    if let Some(error) = message.error {
        return Err(format!("server returned an error: {error}").into());
    }
    match (message.id, message.result) {
        (_, None) => Err("response has neither a result nor an error".into()),
        (_, Some(ResultBody { is_error: true })) => Err("tool call returned isError".into()),
        (None, Some(_)) => Err("response has no id".into()),
        (Some(id), Some(_)) => Ok(Some(id)),
    }
}

/// Describes a failure to write to the server's stdin.
fn write_error(error: std::io::Error) -> Error {
    format!("cannot write to the server: {error}").into()
}

/// Serialises the `initialize` request, with id [`INITIALIZE_ID`].
pub(crate) fn initialize_request() -> String {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": INITIALIZE_ID,
        "method": "initialize",
        "params": {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": { "name": "mcpweft-bench", "version": env!("CARGO_PKG_VERSION") },
        },
    })
    .to_string()
}

/// The `notifications/initialized` notification.
pub(crate) const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// Serialises one call of the `echo` tool with `{"text":"hi"}` and id `id`.
pub(crate) fn echo_request(id: u64) -> String {
    echo_request_with(id, "hi")
}

/// Serialises one call of the `echo` tool with `{"text": text}` and id `id`; `text` must need
/// no JSON escaping.
pub(crate) fn echo_request_with(id: u64, text: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{text}"}}}}}}"#
    )
}

/// The text of the large calls: 64 KiB that need no JSON escaping.
pub(crate) fn large_text() -> String {
    "0123456789abcdef".repeat(4 * 1024)
}

/// Checks that a raw `echo` response carries the text `hi`.
pub(crate) fn check_echo_response(response: &[u8]) -> Result<()> {
    let response: serde_json::Value = serde_json::from_slice(response)?;
    let text = &response["result"]["content"][0]["text"];
    if text != "hi" {
        return Err(format!("echo returned {} instead of \"hi\"", response["result"]).into());
    }
    Ok(())
}

/// Serialises `count` calls of the `echo` tool with `{"text":"hi"}`, with ids
/// counting up from `first_id`, one newline-terminated line each.
pub(crate) fn echo_requests(first_id: u64, count: usize) -> Vec<String> {
    echo_requests_with(first_id, count, "hi")
}

/// Serialises `count` calls of the `echo` tool with `{"text": text}` like [`echo_requests`].
pub(crate) fn echo_requests_with(first_id: u64, count: usize, text: &str) -> Vec<String> {
    (first_id..).take(count).map(|id| echo_request_with(id, text) + "\n").collect()
}

/// The CPU time (user and system) a process has used so far, in microseconds, from
/// `/proc/<pid>/stat` (in clock ticks of 10 ms, the kernel's `USER_HZ` of 100).
pub(crate) fn cpu_time_us(pid: u32) -> Result<f64> {
    stat_cpu_time_us(&format!("/proc/{pid}/stat"))
}

/// The CPU time the main thread of a process has used so far, in microseconds: in a Node
/// server the JavaScript thread, where its handlers run (mcpweft's Python package runs its
/// handlers on other threads).
pub(crate) fn main_thread_cpu_time_us(pid: u32) -> Result<f64> {
    stat_cpu_time_us(&format!("/proc/{pid}/task/{pid}/stat"))
}

/// The user and system time of the `stat` file of a process or thread at `path`, in
/// microseconds.
fn stat_cpu_time_us(path: &str) -> Result<f64> {
    let stat = std::fs::read_to_string(path)?;
    // The fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat.rsplit_once(')').ok_or("malformed /proc stat file")?.1.split_whitespace().collect();
    let ticks = |index: usize| -> Result<f64> { Ok(fields.get(index).ok_or("short /proc stat file")?.parse::<f64>()?) };
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    Ok((ticks(11)? + ticks(12)?) * 10_000.0)
}

/// Reads a field given in kB from `/proc/<pid>/status`, such as `VmRSS`.
pub(crate) fn status_kib(pid: u32, field: &str) -> Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let value = status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .ok_or_else(|| format!("no {field} in /proc/{pid}/status"))?;
    Ok(value.trim().trim_end_matches("kB").trim().parse()?)
}

/// The send and receive instants of a run of requests, by request order.
pub(crate) struct Batch {
    sent: Vec<Instant>,
    received: Vec<Instant>,
}

impl Batch {
    /// The round-trip time of every request, in microseconds.
    pub(crate) fn latencies_us(&self) -> Vec<f64> {
        self.sent
            .iter()
            .zip(&self.received)
            .map(|(sent, received)| received.duration_since(*sent).as_secs_f64() * 1e6)
            .collect()
    }

    /// Completed requests per second, from the first send to the last receipt.
    pub(crate) fn throughput(&self) -> f64 {
        let (Some(first), Some(last)) = (self.sent.first(), self.received.iter().max()) else {
            return 0.0;
        };
        self.sent.len() as f64 / last.duration_since(*first).as_secs_f64()
    }
}

/// A spawned task that is aborted when dropped, so that a run abandoned on
/// error or time-out leaves nothing behind.
struct Task<T>(JoinHandle<T>);

impl<T> Task<T> {
    /// Waits for the task and returns its output.
    async fn join(mut self) -> Result<T> {
        Ok((&mut self.0).await?)
    }
}

impl<T> Drop for Task<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A running server process and the two ends of its stdio pipes.
///
/// The pipes are lent to the writer and reader tasks during a run; they are
/// missing afterwards only if that run failed.
pub(crate) struct Session {
    child: Child,
    stdin: Option<BufWriter<ChildStdin>>,
    stdout: Option<BufReader<ChildStdout>>,
}

impl Session {
    /// Spawns `command` (program and arguments) with piped stdin and stdout.
    /// Its stderr is discarded so that logging costs nothing and clutters
    /// nothing; the process is killed if the session is dropped.
    pub(crate) fn spawn(command: &[String]) -> Result<Self> {
        let (program, args) = command.split_first().ok_or("empty server command")?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot spawn {program}: {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin pipe")?;
        let stdout = child.stdout.take().ok_or("no stdout pipe")?;
        Ok(Self {
            child,
            stdin: Some(BufWriter::with_capacity(64 * 1024, stdin)),
            stdout: Some(BufReader::with_capacity(64 * 1024, stdout)),
        })
    }

    /// Writes one line and flushes it.
    async fn send(&mut self, line: &str) -> Result<()> {
        let stdin = self.stdin.as_mut().ok_or("session broken by an earlier error")?;
        stdin.write_all(line.as_bytes()).await.map_err(write_error)?;
        stdin.write_all(b"\n").await.map_err(write_error)?;
        stdin.flush().await.map_err(write_error)?;
        Ok(())
    }

    /// Reads lines until the response with `id` arrives and returns it raw.
    async fn receive(&mut self, id: u64) -> Result<Vec<u8>> {
        let stdout = self.stdout.as_mut().ok_or("session broken by an earlier error")?;
        let mut line = Vec::new();
        for _ in 0..MAX_EXTRA_LINES {
            line.clear();
            if stdout.read_until(b'\n', &mut line).await? == 0 {
                return Err("server closed its stdout".into());
            }
            match parse_response(&line)? {
                Some(got) if got == id => return Ok(line),
                Some(got) => return Err(format!("expected response {id}, got {got}").into()),
                None => {}
            }
        }
        Err(format!("no response {id} within {MAX_EXTRA_LINES} lines").into())
    }

    /// Sends `initialize` and waits for its result.
    pub(crate) async fn initialize(&mut self) -> Result<()> {
        self.send(&initialize_request()).await?;
        self.receive(INITIALIZE_ID).await?;
        Ok(())
    }

    /// Sends the `notifications/initialized` notification.
    pub(crate) async fn initialized(&mut self) -> Result<()> {
        self.send(INITIALIZED).await
    }

    /// Calls `echo` once with id `id` and checks that the text comes back.
    pub(crate) async fn check_echo(&mut self, id: u64) -> Result<()> {
        self.send(&echo_request(id)).await?;
        check_echo_response(&self.receive(id).await?)
    }

    /// Sends the pre-serialised `requests`, whose ids must count up from
    /// `first_id`, keeping at most `window` of them unanswered at any time,
    /// and waits for every response.
    pub(crate) async fn run(&mut self, requests: Vec<String>, first_id: u64, window: usize) -> Result<Batch> {
        let count = requests.len();
        let in_flight = Arc::new(Semaphore::new(window));
        let stdin = self.stdin.take().ok_or("session broken by an earlier error")?;
        let stdout = self.stdout.take().ok_or("session broken by an earlier error")?;
        let writer = Task(tokio::spawn(write_requests(stdin, requests, Arc::clone(&in_flight))));
        let reader = Task(tokio::spawn(read_responses(stdout, first_id, count, Arc::clone(&in_flight))));
        let (stdout, received) = reader.join().await.and_then(|read| read)?;
        let (stdin, sent) = writer.join().await.and_then(|written| written)?;
        self.stdin = Some(stdin);
        self.stdout = Some(stdout);
        Ok(Batch { sent, received })
    }

    /// The peak resident set size of the server process (`VmHWM`), in KiB.
    pub(crate) fn peak_memory_kib(&self) -> Result<u64> {
        status_kib(self.child.id().ok_or("server has already exited")?, "VmHWM")
    }

    /// The resident set size of the server process now (`VmRSS`), in KiB.
    pub(crate) fn memory_kib(&self) -> Result<u64> {
        status_kib(self.child.id().ok_or("server has already exited")?, "VmRSS")
    }

    /// Closes the server's stdin, gives it a moment to exit and kills it if
    /// it does not.
    pub(crate) async fn close(mut self) {
        drop(self.stdin.take());
        if tokio::time::timeout(EXIT_GRACE, self.child.wait()).await.is_err() {
            self.kill().await;
        }
    }

    /// Kills the server and reaps it.
    pub(crate) async fn kill(mut self) {
        // An error means the process is already gone, which is the goal.
        let _ = self.child.kill().await;
    }
}

/// The writer task: sends every request, waiting for a free slot in the
/// window before each one and flushing whenever it has to wait.
async fn write_requests(
    mut stdin: BufWriter<ChildStdin>,
    requests: Vec<String>,
    in_flight: Arc<Semaphore>,
) -> Result<(BufWriter<ChildStdin>, Vec<Instant>)> {
    let mut sent = Vec::with_capacity(requests.len());
    for request in &requests {
        match in_flight.try_acquire() {
            Ok(permit) => permit.forget(),
            Err(_) => {
                stdin.flush().await.map_err(write_error)?;
                in_flight.acquire().await?.forget();
            }
        }
        sent.push(Instant::now());
        stdin.write_all(request.as_bytes()).await.map_err(write_error)?;
    }
    stdin.flush().await.map_err(write_error)?;
    Ok((stdin, sent))
}

/// The reader task: receives `count` responses with ids from `first_id`
/// on, in any order, freeing a slot in the window for each.
async fn read_responses(
    mut stdout: BufReader<ChildStdout>,
    first_id: u64,
    count: usize,
    in_flight: Arc<Semaphore>,
) -> Result<(BufReader<ChildStdout>, Vec<Instant>)> {
    let mut received = vec![None; count];
    let mut done = 0;
    let mut line = Vec::with_capacity(256);
    for _ in 0..count + MAX_EXTRA_LINES {
        if done == count {
            break;
        }
        line.clear();
        if stdout.read_until(b'\n', &mut line).await? == 0 {
            return Err("server closed its stdout".into());
        }
        let now = Instant::now();
        let Some(id) = parse_response(&line)? else {
            continue;
        };
        let slot = id
            .checked_sub(first_id)
            .and_then(|index| received.get_mut(usize::try_from(index).ok()?))
            .ok_or_else(|| format!("response with unexpected id {id}"))?;
        if slot.replace(now).is_some() {
            return Err(format!("duplicate response with id {id}").into());
        }
        done += 1;
        in_flight.add_permits(1);
    }
    let received = received.into_iter().collect::<Option<Vec<_>>>().ok_or("too many lines that were not responses")?;
    Ok((stdout, received))
}
