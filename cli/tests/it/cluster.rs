//! Cluster mode (`--redis`) of `proxy --listen` and `gateway`: three processes share their
//! sessions through one Redis, and the requests of one session go to different processes in
//! turn, as a load balancer without session affinity would send them (here directly, so that
//! which process gets which request is certain).
//!
//! Each test starts its own `redis-server` on a Unix socket in a folder of its own; the
//! package comes from `tests/cluster/setup.sh`, and where it cannot be installed the tests say
//! so and skip. Everything listens on 127.0.0.1.
#![cfg(unix)]

use std::{
    path::PathBuf,
    sync::OnceLock,
    time::{Duration, Instant},
};

use crate::common::{TempFile, conformance_server, listening, mcpweft, within};
use serde_json::{Value, json};

/// Installs redis-server when missing; returns false (after saying why) when it cannot be had.
fn redis_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    let available = *AVAILABLE.get_or_init(|| {
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/cluster/setup.sh");
        std::process::Command::new("sh").arg(script).status().is_ok_and(|s| s.success())
    });
    if !available {
        eprintln!("SKIPPED: the cluster tests need redis-server, which could not be installed");
    }
    available
}

/// A `redis-server` on a Unix socket, stopped and its folder removed when dropped.
struct Redis {
    dir: PathBuf,
    child: std::process::Child,
    url: String,
}

impl Redis {
    /// Starts Redis in a folder named after `name`, or returns `None` when it cannot be had.
    fn start(name: &str) -> Option<Redis> {
        if !redis_available() {
            return None;
        }
        let dir = std::env::temp_dir().join(format!("mcpweft-cli-cluster-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a folder for Redis");
        let socket = dir.join("redis.sock");
        let log = std::fs::File::create(dir.join("redis.log")).expect("Redis's log");
        let child = std::process::Command::new("redis-server")
            .args(["--port", "0", "--unixsocket"])
            .arg(&socket)
            .args(["--unixsocketperm", "700", "--save", "", "--appendonly", "no", "--dir"])
            .arg(&dir)
            .stdout(log.try_clone().expect("Redis's log"))
            .stderr(log)
            .spawn()
            .expect("redis-server starts");
        let deadline = Instant::now() + Duration::from_secs(15);
        while std::os::unix::net::UnixStream::connect(&socket).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not listen on {}", socket.display());
            std::thread::sleep(Duration::from_millis(20));
        }
        let url = format!("redis+unix://{}", socket.display());
        Some(Redis { dir, child, url })
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// One `mcpweft` process of the cluster, killed when dropped.
struct Member {
    child: tokio::process::Child,
    url: String,
}

impl Member {
    /// Starts `mcpweft args…` and reads the URL it prints on stderr.
    async fn start(args: &[&str]) -> Member {
        let (child, url) = listening(tokio::process::Command::new(mcpweft()).args(args)).await;
        Member { child, url }
    }

    /// Starts three members with `args` before `--redis URL --redis-prefix PREFIX` and `tail`
    /// after them.
    async fn three(args: &[&str], redis: &Redis, tail: &[&str]) -> [Member; 3] {
        let mut all = Vec::new();
        for _ in 0..3 {
            let mut full: Vec<&str> = args.to_vec();
            full.extend(["--redis", &redis.url, "--redis-prefix", "test"]);
            full.extend(tail);
            all.push(Member::start(&full).await);
        }
        all.try_into().unwrap_or_else(|_| unreachable!("three members"))
    }

    /// The ids of the live processes this member started.
    fn children(&self) -> Vec<u32> {
        let me = self.child.id().expect("the member runs").to_string();
        let mut found = Vec::new();
        for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
            // After the command's name, which ends with the last ')': the state, the parent.
            let mut fields = stat.rsplit_once(')').map(|(_, rest)| rest.split_whitespace()).into_iter().flatten();
            let (state, parent) = (fields.next(), fields.next());
            if parent == Some(me.as_str()) && state != Some("Z") {
                found.push(pid);
            }
        }
        found
    }

    /// Waits (bounded) until this member runs `count` processes of its own.
    async fn wait_for_children(&self, count: usize) {
        for _ in 0..500 {
            if self.children().len() == count {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("the member runs {:?}, not {count} processes", self.children());
    }
}

/// A client that speaks raw Streamable HTTP, so that each request goes to the process chosen.
struct Raw {
    http: reqwest::Client,
}

impl Raw {
    fn new() -> Self {
        mcpweft::install_crypto_provider();
        Raw { http: reqwest::Client::new() }
    }

    /// POSTs `body` to `url` in `session`.
    async fn post(&self, url: &str, session: Option<&str>, body: &Value) -> reqwest::Response {
        let mut request = self
            .http
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(session) = session {
            request = request.header("mcp-session-id", session).header("mcp-protocol-version", "2025-11-25");
        }
        within("a POST", request.body(body.to_string()).send()).await.expect("an answer")
    }

    /// Initializes a session on `url`, declaring elicitation, and sends `initialized` to
    /// `then`; returns the session id and the server's name.
    async fn initialize(&self, url: &str, then: &str) -> (String, String) {
        let initialize = json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": { "elicitation": { "form": {} } },
            "clientInfo": { "name": "cluster-test", "version": "1" } } });
        let answer = self.post(url, None, &initialize).await;
        assert_eq!(answer.status(), 200);
        let session = answer.headers()["mcp-session-id"].to_str().expect("a session id").to_owned();
        let result = Events::new(answer).message().await;
        let name = result["result"]["serverInfo"]["name"].as_str().expect("a server name").to_owned();
        let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
        assert_eq!(self.post(then, Some(&session), &initialized).await.status(), 202);
        (session, name)
    }

    /// Sends request `method` to `url` and returns every message of its answer, the result
    /// last.
    async fn request(&self, url: &str, session: &str, id: u64, method: &str, params: Value) -> Vec<Value> {
        let body = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        let answer = self.post(url, Some(session), &body).await;
        assert_eq!(answer.status(), 200, "{method} on {url}");
        let mut events = Events::new(answer);
        let mut messages = Vec::new();
        loop {
            let message = events.message().await;
            let done = message["id"] == id && (message.get("result").is_some() || message.get("error").is_some());
            messages.push(message);
            if done {
                return messages;
            }
        }
    }
}

/// The messages of one answer, JSON or SSE, read as they come.
struct Events {
    response: reqwest::Response,
    sse: bool,
    buffer: String,
}

impl Events {
    fn new(response: reqwest::Response) -> Self {
        let sse =
            response.headers().get("content-type").is_some_and(|c| c.as_bytes().starts_with(b"text/event-stream"));
        Events { response, sse, buffer: String::new() }
    }

    /// The next message (the only one of a JSON answer).
    async fn message(&mut self) -> Value {
        loop {
            if let Some(end) = self.buffer.find("\n\n").filter(|_| self.sse) {
                let event: String = self.buffer.drain(..end + 2).collect();
                let data: Vec<&str> = event.lines().filter_map(|l| l.strip_prefix("data:")).map(str::trim).collect();
                let data = data.join("\n");
                if !data.is_empty() {
                    return serde_json::from_str(&data).unwrap_or_else(|e| panic!("an event of JSON ({e}): {data}"));
                }
                continue;
            }
            let chunk = within("the next event", self.response.chunk()).await.expect("reading the answer");
            match chunk {
                Some(bytes) => self.buffer.push_str(&String::from_utf8_lossy(&bytes)),
                None if !self.sse => {
                    return serde_json::from_str(&self.buffer)
                        .unwrap_or_else(|e| panic!("JSON ({e}): {}", self.buffer));
                }
                None => panic!("the stream ended before its next message: {:?}", self.buffer),
            }
        }
    }

    /// Waits for the answer to end with no message more.
    async fn ends(&mut self) {
        loop {
            let chunk = within("the end of the stream", self.response.chunk()).await.expect("reading the answer");
            let Some(bytes) = chunk else { break };
            self.buffer.push_str(&String::from_utf8_lossy(&bytes));
        }
        let messages: Vec<&str> = self.buffer.lines().filter(|l| l.starts_with("data:") && l.len() > 6).collect();
        assert!(messages.is_empty(), "no message after the end: {messages:?}");
    }
}

/// The text of a `tools/call` result.
fn text_of(message: &Value) -> &str {
    message["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("a text result: {message}"))
}

/// Checks, through members `first`, `second` and `third` in turn, that a session initialized on
/// `first` lists its tools on `second`, reports the progress of a call on `third`, and that an
/// elicitation sent while a call runs on `second` is answered through `third`.
async fn one_session_across(raw: &Raw, session: &str, first: &Member, second: &Member, third: &Member) {
    let listed = raw.request(&second.url, session, 1, "tools/list", json!({})).await;
    let names: Vec<&str> =
        listed[0]["result"]["tools"].as_array().expect("tools").iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(names.contains(&"test_tool_with_progress") && names.contains(&"test_elicitation"), "{names:?}");

    let params = json!({ "name": "test_tool_with_progress", "arguments": {}, "_meta": { "progressToken": "p" } });
    let called = raw.request(&third.url, session, 2, "tools/call", params).await;
    let (result, progress) = called.split_last().expect("an answer");
    let steps: Vec<f64> = progress
        .iter()
        .map(|m| {
            assert_eq!(m["method"], "notifications/progress", "{m}");
            assert_eq!(m["params"]["progressToken"], "p");
            m["params"]["progress"].as_f64().expect("a progress")
        })
        .collect();
    assert_eq!(steps, [0.0, 50.0, 100.0]);
    assert!(result.get("result").is_some(), "{result}");

    let params = json!({ "name": "test_elicitation", "arguments": { "message": "Who are you?" } });
    let body = json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params });
    let running = raw.post(&second.url, Some(session), &body).await;
    assert_eq!(running.status(), 200);
    let mut events = Events::new(running);
    let asked = events.message().await;
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    let answer = json!({ "jsonrpc": "2.0", "id": asked["id"], "result": {
        "action": "accept", "content": { "username": "ada", "email": "ada@example.com" } } });
    assert_eq!(raw.post(&third.url, Some(session), &answer).await.status(), 202, "the answer lands elsewhere");
    let result = events.message().await;
    assert_eq!(result["id"], 3, "{result}");
    assert!(text_of(&result).contains("ada@example.com"), "{result}");

    // And back on the first.
    let again = raw.request(&first.url, session, 4, "tools/call", json!({ "name": "test_simple_text" })).await;
    assert!(again.last().is_some_and(|m| m.get("result").is_some()), "{again:?}");
}

/// Sends `tools/list` to `url` until it is answered `status`, for up to 15 seconds, and fails
/// when any other status than `status` or `passing` comes first.
async fn wait_for_status(raw: &Raw, url: &str, session: &str, status: u16, passing: u16) {
    let list = json!({ "jsonrpc": "2.0", "id": 90, "method": "tools/list" });
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let got = raw.post(url, Some(session), &list).await.status().as_u16();
        if got == status {
            return;
        }
        assert_eq!(got, passing, "while waiting for {status}");
        assert!(Instant::now() < deadline, "still {got}, not {status}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxied_session_is_served_through_every_process_and_ends_with_its_owner() {
    let Some(redis) = Redis::start("proxy") else { return };
    let fixture = conformance_server().await;
    let [a, b, c] = Member::three(&["proxy", "--listen", "127.0.0.1:0"], &redis, &["--", &fixture, "--stdio"]).await;
    let raw = Raw::new();

    // The session's process runs in the member that initialized it, and only there.
    let (session, _) = raw.initialize(&a.url, &b.url).await;
    a.wait_for_children(1).await;
    one_session_across(&raw, &session, &a, &b, &c).await;
    one_session_across(&raw, &session, &a, &c, &b).await;
    assert_eq!((b.children().len(), c.children().len()), (0, 0), "no other member started a process");

    // A call cancelled through another member ends its stream, with no answer, where it is read.
    let params = json!({ "name": "test_elicitation", "arguments": { "message": "Who are you?" } });
    let body = json!({ "jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params });
    let mut running = Events::new(raw.post(&b.url, Some(&session), &body).await);
    assert_eq!(running.message().await["method"], "elicitation/create");
    let cancel = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 7 } });
    assert_eq!(raw.post(&c.url, Some(&session), &cancel).await.status(), 202);
    running.ends().await;

    // A DELETE through another member ends the process where it runs, and the session everywhere.
    let deleted = within("DELETE", raw.http.delete(&c.url).header("mcp-session-id", &session).send()).await;
    assert_eq!(deleted.expect("an answer").status(), 200);
    a.wait_for_children(0).await;
    for member in [&a, &b, &c] {
        wait_for_status(&raw, &member.url, &session, 404, 404).await;
    }

    // A session whose member died is gone: 404 once its liveness expired (503 until then), so
    // that its client initializes again.
    let (session, _) = raw.initialize(&b.url, &c.url).await;
    b.wait_for_children(1).await;
    assert!(raw.request(&a.url, &session, 1, "tools/list", json!({})).await[0].get("result").is_some());
    let mut b = b;
    b.child.kill().await.expect("the member is killed");
    wait_for_status(&raw, &a.url, &session, 404, 503).await;
    wait_for_status(&raw, &c.url, &session, 404, 404).await;
    assert_eq!(a.children().len(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxied_session_used_through_another_process_is_not_idle_where_its_process_runs() {
    let Some(redis) = Redis::start("idle") else { return };
    let fixture = conformance_server().await;
    let args = ["proxy", "--listen", "127.0.0.1:0", "--session-idle-timeout", "3", "--keep-alive", "1"];
    let [a, b, c] = Member::three(&args, &redis, &["--", &fixture, "--stdio"]).await;
    let raw = Raw::new();
    let (session, _) = raw.initialize(&a.url, &b.url).await;
    a.wait_for_children(1).await;

    // The client only holds its GET stream on another member for twice the idle time.
    let get = raw
        .http
        .get(&b.url)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .header("accept", "text/event-stream");
    let held = within("GET", get.send()).await.expect("an answer");
    assert_eq!(held.status(), 200);
    tokio::time::sleep(Duration::from_secs(7)).await;
    assert_eq!(a.children().len(), 1, "the session's process still runs");
    assert!(raw.request(&c.url, &session, 1, "tools/list", json!({})).await[0].get("result").is_some());

    // Unused anywhere, it ends where its process runs, and everywhere: once the member holding
    // the GET stream finds its client gone (at its next keep-alive comment, within a second)
    // and the session's idle time passed.
    drop(held);
    let deadline = Instant::now() + Duration::from_secs(20);
    while !a.children().is_empty() {
        assert!(Instant::now() < deadline, "the idle session's process still runs");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    wait_for_status(&raw, &b.url, &session, 404, 404).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_session_is_served_by_every_process_and_outlives_one() {
    let Some(redis) = Redis::start("gateway") else { return };
    let fixture = conformance_server().await;
    let servers = json!({ "mcpServers": { "conformance": { "command": fixture, "args": ["--stdio"] } } });
    let config = TempFile::new("cluster-gateway", &servers.to_string());
    let args = ["gateway", "--config", config.path(), "--listen", "127.0.0.1:0", "--no-prefix"];
    let [a, b, c] = Member::three(&args, &redis, &[]).await;
    let raw = Raw::new();

    let (session, name) = raw.initialize(&a.url, &b.url).await;
    assert_eq!(name, "mcpweft-gateway");
    one_session_across(&raw, &session, &a, &b, &c).await;
    one_session_across(&raw, &session, &a, &c, &b).await;

    // Every member keeps its own connection to the server; a member that dies takes no session
    // with it.
    let mut a = a;
    a.child.kill().await.expect("the member is killed");
    let listed = raw.request(&b.url, &session, 10, "tools/list", json!({})).await;
    assert!(listed[0].get("result").is_some(), "{listed:?}");
    let called = raw.request(&c.url, &session, 11, "tools/call", json!({ "name": "test_simple_text" })).await;
    assert!(called.last().is_some_and(|m| m.get("result").is_some()), "{called:?}");
}

#[tokio::test]
async fn cluster_options_are_checked_before_anything_starts() {
    let servers = json!({ "mcpServers": { "none": { "command": "mcpweft-no-such-command" } } });
    let config = TempFile::new("cluster-options", &servers.to_string());
    let cases: [(&[&str], &str); 4] = [
        (&["proxy", "http://127.0.0.1:9/mcp", "--redis", "redis://127.0.0.1/0"], "--redis needs --listen"),
        (
            &["proxy", "--listen", "127.0.0.1:0", "--stateless", "--redis", "redis://127.0.0.1/0", "--", "true"],
            "--stateless",
        ),
        (&["proxy", "--listen", "127.0.0.1:0", "--redis", "127.0.0.1:6379", "--", "true"], "is not a Redis URL"),
        (
            &["gateway", "--config", config.path(), "--redis", "redis://127.0.0.1/0", "--redis-prefix", "a b"],
            "--redis-prefix",
        ),
    ];
    for (args, said) in cases {
        let run = crate::common::run(args, None).await;
        run.expect_code(2);
        assert!(run.stderr.contains(said), "{args:?}: {}", run.stderr);
    }
}
