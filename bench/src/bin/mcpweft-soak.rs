//! A soak test of mcpweft's servers: 64 Streamable HTTP sessions and one stdio session under
//! bounded load for `SOAK_SECONDS` (60 by default), with slow readers, cancellations and
//! reconnects mixed into plain calls.
//!
//! Usage: `mcpweft-soak`. It starts two servers as child processes (this executable with
//! `--serve-http` and `--serve-stdio`), drives them from this process, prints the calls, the
//! errors and each server's resident memory at the start, the middle and the end, and exits
//! with a failure on any error or when a server's memory grew beyond a margin between the
//! start and the end.

use std::{
    net::{Ipv4Addr, SocketAddr},
    process::{ExitCode, Stdio},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use mcpweft::{
    Client, ClientOptions, Error, RequestContext, RequestOptions, Server,
    http::{HttpServerOptions, StreamableHttpServer},
    model::{CallToolRequestParams, CallToolResult, ContentBlock, Implementation, JsonObject, LoggingLevel, Tool},
    transport::{ChildProcessTransport, http::StreamableHttpClientTransport},
};
use serde_json::json;
use tokio::{
    io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader},
    net::TcpStream,
    process::Command,
    time::Instant,
};
use tokio_util::sync::CancellationToken;

/// How many HTTP sessions run at once.
const SESSIONS: usize = 64;
/// How many of the HTTP workers read a long SSE reply slowly instead of calling normally.
const SLOW_READERS: usize = 4;
/// The most calls one worker makes, whatever the time left.
const MAX_CALLS_PER_WORKER: u64 = 10_000_000;
/// How long any one call may take before it counts as an error.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);
/// The growth of resident memory between the start and the end that fails the run: the larger
/// of this and half the memory at the start.
const RSS_SLACK_KIB: u64 = 16 * 1024;

/// The input schema of a tool with one argument.
fn schema(name: &str, kind: &str) -> JsonObject {
    let schema = json!({ "type": "object", "properties": { name: { "type": kind } } });
    schema.as_object().cloned().unwrap_or_default()
}

/// The server both child processes serve: an echo, a tool that waits (to be cancelled), and a
/// tool that logs before it answers (an SSE reply over HTTP).
fn soak_server() -> Result<Server, Error> {
    let number = |args: &JsonObject, key: &str| args.get(key).and_then(|v| v.as_u64()).unwrap_or(0);
    Server::builder(Implementation::new("mcpweft-soak", env!("CARGO_PKG_VERSION")))
        .tool(
            Tool::new("echo", "Returns its text.", schema("text", "string")),
            |args: JsonObject, _ctx: RequestContext| async move {
                Ok(CallToolResult::text(args.get("text").and_then(|t| t.as_str()).unwrap_or_default().to_owned()))
            },
        )
        .tool(
            Tool::new("wait", "Waits `ms` milliseconds.", schema("ms", "integer")),
            move |args: JsonObject, _ctx| async move {
                tokio::time::sleep(Duration::from_millis(number(&args, "ms"))).await;
                Ok(CallToolResult::text("waited"))
            },
        )
        .tool(
            Tool::new("chatty", "Logs `count` lines of 1 KiB, then answers.", schema("count", "integer")),
            move |args: JsonObject, ctx: RequestContext| async move {
                let line = "x".repeat(1024);
                for i in 0..number(&args, "count") {
                    if ctx.log(LoggingLevel::Info, None, line.as_str()).is_err() {
                        return Ok(CallToolResult::text(format!("stopped after {i}")));
                    }
                    if i % 16 == 0 {
                        tokio::task::yield_now().await;
                    }
                }
                Ok(CallToolResult::text("done"))
            },
        )
        .build()
}

/// What the workers count.
#[derive(Default)]
struct Tally {
    calls: AtomicU64,
    errors: AtomicU64,
    /// The first few errors, to print.
    first_errors: Mutex<Vec<String>>,
}

impl Tally {
    fn call(&self) {
        self.calls.fetch_add(1, Ordering::Relaxed);
    }

    fn error(&self, what: impl std::fmt::Display) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        let mut first = self.first_errors.lock().unwrap_or_else(|e| e.into_inner());
        if first.len() < 10 {
            first.push(what.to_string());
        }
    }
}

/// The resident memory of process `pid`, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn text_of(result: &CallToolResult) -> &str {
    result.content.first().and_then(ContentBlock::as_text).unwrap_or_default()
}

async fn connect_http(url: &str) -> Result<Client, Error> {
    let transport = StreamableHttpClientTransport::new(url)?;
    Client::connect(transport, ClientOptions::new("soak", "1")).await
}

/// Calls `name` and checks the answer, counting it; a call that fails or takes too long is an
/// error.
async fn checked_call(client: &Client, tally: &Tally, name: &str, args: serde_json::Value, expect: &str) {
    tally.call();
    match tokio::time::timeout(CALL_TIMEOUT, client.call_tool(name, args)).await {
        Ok(Ok(result)) if text_of(&result) == expect => {}
        Ok(Ok(result)) => tally.error(format!("{name}: expected {expect:?}, got {:?}", text_of(&result))),
        Ok(Err(e)) => tally.error(format!("{name}: {e}")),
        Err(_) => tally.error(format!("{name}: no answer within {CALL_TIMEOUT:?}")),
    }
}

/// Starts a call of `wait` and cancels it after a moment; the call must end as cancelled.
async fn cancelled_call(client: &Client, tally: &Tally) {
    tally.call();
    let token = CancellationToken::new();
    let cancel = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        cancel.cancel();
    });
    let mut args = JsonObject::new();
    args.insert("ms".into(), json!(60_000));
    let params = CallToolRequestParams::new("wait", args);
    let options = RequestOptions::new().with_cancel(token);
    match tokio::time::timeout(CALL_TIMEOUT, client.call_tool_with(params, options)).await {
        Ok(Err(Error::Cancelled)) => {}
        Ok(other) => tally.error(format!("cancelled wait: {other:?}")),
        Err(_) => tally.error("cancelled wait: did not end"),
    }
}

/// One HTTP session's worker: calls in a loop, with a cancellation, a chatty SSE reply and a
/// reconnect (a new session) now and then.
async fn http_worker(url: String, tally: Arc<Tally>, deadline: Instant, worker: usize) {
    let mut client = match connect_http(&url).await {
        Ok(c) => c,
        Err(e) => return tally.error(format!("worker {worker}: connect: {e}")),
    };
    for i in 0..MAX_CALLS_PER_WORKER {
        if Instant::now() >= deadline {
            break;
        }
        match i % 100 {
            33 => cancelled_call(&client, &tally).await,
            66 => checked_call(&client, &tally, "chatty", json!({ "count": 20 }), "done").await,
            99 => {
                client.close().await;
                client = match connect_http(&url).await {
                    Ok(c) => c,
                    Err(e) => return tally.error(format!("worker {worker}: reconnect: {e}")),
                };
            }
            _ => {
                let text = format!("{worker}-{i}");
                checked_call(&client, &tally, "echo", json!({ "text": text }), &text).await;
            }
        }
    }
    client.close().await;
}

/// Sends one HTTP/1.1 request on a new connection and returns the status, the session id
/// header and the connection, positioned at the start of the body.
async fn raw_request(
    addr: SocketAddr,
    session: Option<&str>,
    method: &str,
    body: &str,
) -> Result<(u16, Option<String>, BufReader<TcpStream>), String> {
    let mut stream = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
    let mut head = format!(
        "{method} /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if let Some(id) = session {
        head.push_str(&format!("Mcp-Session-Id: {id}\r\nMCP-Protocol-Version: 2025-11-25\r\n"));
    }
    head.push_str("\r\n");
    head.push_str(body);
    stream.write_all(head.as_bytes()).await.map_err(|e| e.to_string())?;
    let mut reader = BufReader::new(stream);
    let mut status = 0;
    let mut session_id = None;
    for n in 0..100 {
        let mut line = String::new();
        if reader.read_line(&mut line).await.map_err(|e| e.to_string())? == 0 {
            return Err("the connection closed inside the headers".into());
        }
        let line = line.trim_end();
        if line.is_empty() {
            return Ok((status, session_id, reader));
        }
        if n == 0 {
            status = line.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        } else if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("mcp-session-id")
        {
            session_id = Some(value.trim().to_owned());
        }
    }
    Err("too many header lines".into())
}

/// A client that asks for a long SSE reply and reads it slowly, then drops it and ends its
/// session; the server must bound what it keeps for it.
async fn slow_reader(addr: SocketAddr, tally: Arc<Tally>, deadline: Instant) {
    let init = json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "slow", "version": "1" } } });
    for round in 0..MAX_CALLS_PER_WORKER {
        if Instant::now() >= deadline {
            break;
        }
        tally.call();
        let outcome: Result<(), String> = async {
            let (status, session, mut body) = raw_request(addr, None, "POST", &init.to_string()).await?;
            let session = session.ok_or(format!("initialize answered {status} without a session"))?;
            let mut ignored = Vec::new();
            body.read_to_end(&mut ignored).await.map_err(|e| e.to_string())?;
            let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }).to_string();
            let (status, _, _) = raw_request(addr, Some(&session), "POST", &initialized).await?;
            if status != 202 {
                return Err(format!("initialized answered {status}"));
            }
            let call = json!({ "jsonrpc": "2.0", "id": round, "method": "tools/call",
                "params": { "name": "chatty", "arguments": { "count": 2000 } } });
            let (status, _, mut body) = raw_request(addr, Some(&session), "POST", &call.to_string()).await?;
            if status != 200 {
                return Err(format!("the chatty call answered {status}"));
            }
            // Read a little now and then, for a bounded time, then walk away.
            let mut chunk = vec![0; 4096];
            for _ in 0..20 {
                tokio::time::sleep(Duration::from_millis(100)).await;
                match tokio::time::timeout(Duration::from_millis(100), body.read(&mut chunk)).await {
                    Ok(Ok(0)) => break,
                    Ok(Err(e)) => return Err(e.to_string()),
                    _ => {}
                }
            }
            drop(body);
            let (status, _, _) = raw_request(addr, Some(&session), "DELETE", "").await?;
            if status != 200 {
                return Err(format!("DELETE answered {status}"));
            }
            Ok(())
        }
        .await;
        if let Err(e) = outcome {
            tally.error(format!("slow reader: {e}"));
        }
    }
}

/// The stdio session's worker: calls in a loop, with cancellations and chatty replies.
async fn stdio_worker(client: Client, tally: Arc<Tally>, deadline: Instant) {
    for i in 0..MAX_CALLS_PER_WORKER {
        if Instant::now() >= deadline {
            break;
        }
        match i % 200 {
            50 => cancelled_call(&client, &tally).await,
            150 => checked_call(&client, &tally, "chatty", json!({ "count": 50 }), "done").await,
            _ => {
                let text = format!("stdio-{i}");
                checked_call(&client, &tally, "echo", json!({ "text": text }), &text).await;
            }
        }
    }
}

/// Serves the soak server over Streamable HTTP on a free loopback port, printing its URL.
async fn serve_http() -> Result<(), Box<dyn std::error::Error>> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, 0));
    let bound = StreamableHttpServer::bind(soak_server()?, addr, HttpServerOptions::default()).await?;
    println!("{}", bound.url());
    bound.wait().await;
    Ok(())
}

/// One line of the report.
fn report(label: &str, tally: &Tally, http_pid: u32, stdio_pid: u32) -> (u64, u64) {
    let (http, stdio) = (rss_kib(http_pid), rss_kib(stdio_pid));
    println!(
        "{label:<7} {:>10} {:>8} {:>12} {:>12}",
        tally.calls.load(Ordering::Relaxed),
        tally.errors.load(Ordering::Relaxed),
        format!("{} KiB", http),
        format!("{} KiB", stdio)
    );
    (http, stdio)
}

fn grew_too_much(name: &str, start: u64, end: u64) -> bool {
    let allowed = start + RSS_SLACK_KIB.max(start / 2);
    if end > allowed {
        println!("soak: the {name} server grew from {start} KiB to {end} KiB (allowed: {allowed} KiB)");
        return true;
    }
    false
}

async fn drive() -> Result<bool, Box<dyn std::error::Error>> {
    let seconds: u64 = match std::env::var("SOAK_SECONDS") {
        Ok(s) => s.parse().map_err(|e| format!("SOAK_SECONDS={s:?}: {e}"))?,
        Err(_) => 60,
    };
    let exe = std::env::current_exe()?;
    let mut http_child = Command::new(&exe)
        .arg("--serve-http")
        .stdout(Stdio::piped())
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .spawn()?;
    let http_pid = http_child.id().ok_or("the HTTP server exited at once")?;
    let stdout = http_child.stdout.take().ok_or("no stdout")?;
    let mut url = String::new();
    tokio::time::timeout(Duration::from_secs(10), BufReader::new(stdout).read_line(&mut url)).await??;
    let url = url.trim().to_owned();
    let addr: SocketAddr = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .and_then(|a| a.parse().ok())
        .ok_or_else(|| format!("the HTTP server printed {url:?}"))?;

    let stdio = ChildProcessTransport::command(&exe, ["--serve-stdio"])?;
    let stdio_pid = stdio.pid().ok_or("the stdio server exited at once")?;
    let stdio_client = Client::connect(stdio, ClientOptions::new("soak", "1")).await?;

    println!("soak: {seconds} s, {SESSIONS} HTTP sessions ({SLOW_READERS} of them slow readers) and one stdio session");
    println!("{:<7} {:>10} {:>8} {:>12} {:>12}", "", "calls", "errors", "HTTP RSS", "stdio RSS");
    let tally = Arc::new(Tally::default());
    let started = Instant::now();
    let deadline = started + Duration::from_secs(seconds);
    let mut workers = Vec::new();
    for worker in 0..SESSIONS {
        let tally = tally.clone();
        workers.push(if worker < SLOW_READERS {
            tokio::spawn(slow_reader(addr, tally, deadline))
        } else {
            tokio::spawn(http_worker(url.clone(), tally, deadline, worker))
        });
    }
    workers.push(tokio::spawn(stdio_worker(stdio_client.clone(), tally.clone(), deadline)));

    // The start is measured once the load has settled in.
    let warm_up = Duration::from_secs(seconds / 10).max(Duration::from_secs(1));
    tokio::time::sleep(warm_up).await;
    let (http_start, stdio_start) = report("start", &tally, http_pid, stdio_pid);
    tokio::time::sleep_until(started + Duration::from_secs(seconds) / 2).await;
    report("middle", &tally, http_pid, stdio_pid);
    for worker in workers {
        let _ = tokio::time::timeout(CALL_TIMEOUT * 3, worker).await;
    }
    let (http_end, stdio_end) = report("end", &tally, http_pid, stdio_pid);
    stdio_client.close().await;
    let _ = http_child.kill().await;

    let errors = tally.errors.load(Ordering::Relaxed);
    for e in tally.first_errors.lock().unwrap_or_else(|e| e.into_inner()).iter() {
        println!("soak: error: {e}");
    }
    let grew = grew_too_much("HTTP", http_start, http_end) | grew_too_much("stdio", stdio_start, stdio_end);
    Ok(errors == 0 && !grew)
}

fn main() -> ExitCode {
    let mode = std::env::args().nth(1);
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("mcpweft-soak: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outcome: Result<bool, Box<dyn std::error::Error>> = runtime.block_on(async {
        match mode.as_deref() {
            Some("--serve-http") => serve_http().await.map(|()| true),
            Some("--serve-stdio") => {
                soak_server()?.serve_stdio().await?;
                Ok(true)
            }
            Some(other) => Err(format!("unknown argument {other:?}; usage: mcpweft-soak").into()),
            None => drive().await,
        }
    });
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            println!("soak: FAILED");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("mcpweft-soak: {e}");
            ExitCode::FAILURE
        }
    }
}
