//! Stateful Streamable HTTP across three server processes that share their sessions in Redis,
//! behind haproxy balancing round robin without session affinity (feature `redis`).
//!
//! Each test starts its own `redis-server` (on a Unix socket in the test's folder), three server
//! processes (this test binary run again as `cluster_server_process`) and `haproxy`, on
//! 127.0.0.1. The packages come from `tests/cluster/setup.sh`; where they cannot be installed
//! the tests say so and skip.
//!
//! Ports picked ahead of binding can be taken by another process in between (a test running in
//! parallel, an outgoing connection): a member that cannot bind its port, or a balancer that is
//! not the one started, makes the cluster start over on other ports rather than leave the
//! balancer sending requests to whatever listens there.
//!
//! Redis listens on a Unix socket and the packages are Debian's: the tests are built on Unix
//! only.
#![cfg(unix)]

use std::{
    collections::HashSet,
    io::{BufRead, BufReader, Read, Write},
    net::{SocketAddr, TcpListener, TcpStream},
    path::PathBuf,
    process::{Child, Command, Stdio},
    sync::{
        OnceLock,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use crate::http_common::*;
use mcpweft::{
    ErrorData, RequestContext,
    http::{ClusterOptions, HttpServerOptions, StreamableHttpServer},
    model::*,
};
use serde_json::{Value, json};

const SERVE_ENV: &str = "MCPWEFT_CLUSTER_TEST_SERVE";

/// What a member prints on stdout once it listens.
const READY: &str = "cluster-member-listening";

// ---------------------------------------------------------------------------------------------
// The server process
// ---------------------------------------------------------------------------------------------

/// Serves the test server in cluster mode when this binary is started as a cluster member
/// (`SERVE_ENV` = `port,balancer port,redis url,prefix`), printing `READY PORT` on stdout
/// once it listens; otherwise does nothing.
#[test]
fn cluster_server_process() {
    let Ok(spec) = std::env::var(SERVE_ENV) else { return };
    let parts: Vec<&str> = spec.split(',').collect();
    let [port, balancer, url, prefix] = parts[..] else { panic!("bad {SERVE_ENV}: {spec}") };
    let port: u16 = port.parse().expect("a port");
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new("mcpweft=debug"))
        .with_writer(std::io::stderr)
        .try_init();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async move {
        let (server, _probes) = test_server_with(Some(mcpweft::server::TaskOptions::new()));
        add_cluster_tools(&server);
        let options = HttpServerOptions::new()
            .with_allowed_hosts([format!("127.0.0.1:{balancer}"), format!("127.0.0.1:{port}")])
            .with_cluster(
                ClusterOptions::new(url)
                    .with_prefix(prefix)
                    .with_liveness_ttl(Duration::from_secs(2))
                    .with_command_timeout(Duration::from_millis(500)),
            );
        let bound = StreamableHttpServer::bind(server, SocketAddr::from(([127, 0, 0, 1], port)), options)
            .await
            .expect("the cluster member binds");
        println!("{READY} {port}");
        bound.wait().await;
    });
}

fn internal(e: impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(e.to_string())
}

/// Tools that show where they ran and send what crosses processes:
/// * `pid`: answers this process's id;
/// * `announce {n}`: sends `n` log messages on the session's standalone stream;
/// * `ask_progress`: reports progress, elicits a name, reports progress again, answers the name;
/// * `touch`: announces an update of the resource `test://doc`;
/// * `book`: asks for guests, then a date (revision 2026-07-28 input rounds), keeping state;
/// * `work {ms}`: waits `ms` milliseconds, then names its process; it may run as a task;
/// * `confirm`: waits 300 ms (past the tasks extension's immediate window), then asks for a
///   confirmation; it may run as a task.
fn add_cluster_tools(server: &mcpweft::Server) {
    server
        .add_tool(
            Tool::without_arguments("confirm", "Works, then asks.").with_task_support(TaskSupport::Optional),
            |_: JsonObject, ctx: RequestContext| async move {
                tokio::time::sleep(Duration::from_millis(300)).await;
                let form = json!({ "mode": "form", "message": "Sure?", "requestedSchema": { "type": "object", "properties": {} } });
                let answer = ctx.ask("confirm", "elicitation/create", form).await.map_err(internal)?;
                Ok(CallToolResult::text(format!("answered {} in {}", answer["action"], std::process::id())))
            },
        )
        .unwrap();
    let schema = obj(json!({ "type": "object", "properties": { "ms": { "type": "integer" } } }));
    server
        .add_tool(
            Tool::new("work", "Works for a while.", schema).with_task_support(TaskSupport::Optional),
            |args: JsonObject, _: RequestContext| async move {
                let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Ok(CallToolResult::text(format!("worked in {}", std::process::id())))
            },
        )
        .unwrap();
    server
        .add_tool(Tool::without_arguments("book", "Asks for guests, then a date."), |_: JsonObject, ctx: RequestContext| async move {
            let form = |message: &str| {
                json!({ "mode": "form", "message": message, "requestedSchema": { "type": "object", "properties": { "v": { "type": "string" } } } })
            };
            let guests = ctx.ask("guests", "elicitation/create", form("guests")).await.map_err(internal)?;
            ctx.set_state(json!({ "guests": guests["content"]["v"] }));
            let date = ctx.ask("date", "elicitation/create", form("date")).await.map_err(internal)?;
            Ok(CallToolResult::text(format!("{} guests on {}", guests["content"]["v"], date["content"]["v"])))
        })
        .unwrap();
    server
        .add_resource(Resource::new("test://doc", "doc"), |req: mcpweft::server::ResourceRequest, _| async move {
            Ok(ReadResourceResult::new(vec![ResourceContents::text(req.uri, "doc")]))
        })
        .unwrap();
    let announcer = server.clone();
    server
        .add_tool(
            Tool::without_arguments("touch", "Announces an update of test://doc."),
            move |_: JsonObject, _: RequestContext| {
                let announcer = announcer.clone();
                async move {
                    announcer.notify_resource_updated("test://doc");
                    Ok(CallToolResult::text(format!("touched by {}", std::process::id())))
                }
            },
        )
        .unwrap();
    server
        .add_tool(Tool::without_arguments("pid", "Names the process."), |_: JsonObject, _: RequestContext| async {
            Ok(CallToolResult::text(std::process::id().to_string()))
        })
        .unwrap();
    let schema =
        obj(json!({ "type": "object", "properties": { "n": { "type": "integer" }, "tag": { "type": "string" } } }));
    server
        .add_tool(
            Tool::new("announce", "Sends log messages outside any request.", schema),
            |args: JsonObject, ctx: RequestContext| async move {
                let n = args.get("n").and_then(Value::as_u64).unwrap_or(1);
                let tag = args.get("tag").and_then(Value::as_str).unwrap_or("").to_owned();
                for i in 0..n {
                    let params = json!({ "level": "info", "data": format!("{tag}{i}") });
                    ctx.peer().notify("notifications/message", &params, None).map_err(internal)?;
                }
                Ok(CallToolResult::text(format!("announced {n}")))
            },
        )
        .unwrap();
    let schema = obj(json!({ "type": "object", "properties": { "ms": { "type": "integer" } } }));
    server
        .add_tool(
            Tool::new("flood", "Reports progress of 1 KiB in a loop for `ms` milliseconds.", schema),
            |args: JsonObject, ctx: RequestContext| async move {
                let until = Instant::now() + Duration::from_millis(args.get("ms").and_then(Value::as_u64).unwrap_or(0));
                let pad = "p".repeat(1024);
                let mut step = 0u32;
                while Instant::now() < until {
                    step += 1;
                    ctx.report_progress(f64::from(step), None, Some(pad.clone())).map_err(internal)?;
                    if step.is_multiple_of(64) {
                        tokio::task::yield_now().await;
                    }
                }
                Ok(CallToolResult::text(format!("{step} steps")))
            },
        )
        .unwrap();
    server
        .add_tool(
            Tool::without_arguments("ask_progress", "Elicits between two progress reports."),
            |_: JsonObject, ctx: RequestContext| async move {
                ctx.report_progress(1.0, Some(2.0), Some("before".into())).map_err(internal)?;
                let params: ElicitRequestParams = serde_json::from_value(json!({
                    "mode": "form",
                    "message": "What is your name?",
                    "requestedSchema": { "type": "object", "properties": { "name": { "type": "string" } } }
                }))
                .map_err(internal)?;
                let answer = ctx.elicit(params).await.map_err(internal)?;
                let answer = serde_json::to_value(&answer).map_err(internal)?;
                ctx.report_progress(2.0, Some(2.0), Some("after".into())).map_err(internal)?;
                Ok(CallToolResult::text(format!(
                    "name={} pid={}",
                    answer["content"]["name"].as_str().unwrap_or("-"),
                    std::process::id()
                )))
            },
        )
        .unwrap();
}

// ---------------------------------------------------------------------------------------------
// The cluster under test
// ---------------------------------------------------------------------------------------------

static CLUSTERS: AtomicUsize = AtomicUsize::new(0);

/// How many times a cluster starts over when a port it picked was taken before it bound it.
const START_ATTEMPTS: usize = 4;

/// Picks `n` distinct free ports on 127.0.0.1, holding them all until every one is picked.
fn free_ports(n: usize) -> Vec<u16> {
    let held: Vec<TcpListener> = (0..n).map(|_| TcpListener::bind("127.0.0.1:0").unwrap()).collect();
    held.iter().map(|l| l.local_addr().unwrap().port()).collect()
}

fn wait_for_port(port: u16, what: &str) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(15);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > deadline {
            return Err(format!("{what} did not listen on port {port}"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// Installs redis-server and haproxy when missing; returns false (after saying why) when they
/// cannot be had. The tests run in parallel, so the first one installs and the others wait for
/// its answer: two package installs at once would fail on the package manager's lock.
fn tools_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    let available = *AVAILABLE.get_or_init(|| {
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/cluster/setup.sh");
        Command::new("sh").arg(script).status().is_ok_and(|s| s.success())
    });
    if !available {
        eprintln!("SKIPPED: the cluster tests need redis-server and haproxy, which could not be installed");
    }
    available
}

struct Cluster {
    dir: PathBuf,
    /// Redis listens on this Unix socket only: no port of its own that others could take
    /// while it is stopped.
    redis_socket: PathBuf,
    redis: Option<Child>,
    ports: Vec<u16>,
    servers: Vec<Option<Child>>,
    balancer_port: u16,
    balancer: Option<Child>,
    prefix: String,
}

impl Cluster {
    fn start() -> Option<Cluster> {
        if !tools_available() {
            return None;
        }
        let mut failures = Vec::new();
        for _ in 0..START_ATTEMPTS {
            match Cluster::try_start() {
                Ok(cluster) => return Some(cluster),
                Err(e) => {
                    eprintln!("the cluster starts over: {e}");
                    failures.push(e);
                }
            }
        }
        panic!("the cluster did not start in {START_ATTEMPTS} attempts: {failures:?}");
    }

    /// Starts Redis, the members and the balancer on ports picked now; fails (stopping what
    /// started) when a port turned out to be taken.
    fn try_start() -> Result<Cluster, String> {
        let n = CLUSTERS.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("mcpweft-cluster-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut ports = free_ports(4);
        let balancer_port = ports.pop().unwrap();
        let mut cluster = Cluster {
            redis_socket: dir.join("redis.sock"),
            dir,
            redis: None,
            ports,
            servers: Vec::new(),
            balancer_port,
            balancer: None,
            prefix: format!("test{}-{n}", std::process::id()),
        };
        cluster.start_redis();
        let ready: Vec<_> = (0..3)
            .map(|i| {
                let (child, ready) = cluster.spawn_server(i);
                cluster.servers.push(Some(child));
                ready
            })
            .collect();
        for (i, ready) in ready.into_iter().enumerate() {
            // The member says it listens, or its stdout closes when it could not bind.
            let line = ready.recv_timeout(Duration::from_secs(30)).ok().flatten();
            if !line.is_some_and(|line| line.ends_with(&format!("{READY} {}", cluster.ports[i]))) {
                return Err(format!("member {i} did not listen on port {}", cluster.ports[i]));
            }
        }
        cluster.start_balancer()?;
        Ok(cluster)
    }

    fn start_redis(&mut self) {
        let log = std::fs::File::create(self.dir.join("redis.log")).unwrap();
        let child = Command::new("redis-server")
            .args(["--port", "0", "--unixsocket"])
            .arg(&self.redis_socket)
            .args(["--unixsocketperm", "700", "--save", ""])
            .args(["--appendonly", "yes", "--appendfsync", "always", "--dir"])
            .arg(&self.dir)
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("redis-server starts");
        self.redis = Some(child);
        let deadline = Instant::now() + Duration::from_secs(15);
        while std::os::unix::net::UnixStream::connect(&self.redis_socket).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not listen on {}", self.redis_socket.display());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn stop_redis(&mut self) {
        if let Some(mut redis) = self.redis.take() {
            let _ = redis.kill();
            let _ = redis.wait();
        }
    }

    /// Starts member `i`; the receiver gets its `READY` line, or `None` when its stdout
    /// closes first.
    fn spawn_server(&self, i: usize) -> (Child, std::sync::mpsc::Receiver<Option<String>>) {
        let log = std::fs::File::create(self.dir.join(format!("server{i}.log"))).unwrap();
        let url = format!("redis+unix://{}", self.redis_socket.display());
        let spec = format!("{},{},{url},{}", self.ports[i], self.balancer_port, self.prefix);
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "cluster::cluster_server_process", "--nocapture", "--test-threads=1"])
            .env(SERVE_ENV, spec)
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("a cluster member starts");
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = stdout.lines().map_while(Result::ok);
            let ready = lines.by_ref().find(|line| line.contains(READY));
            let _ = tx.send(ready);
            // What the member prints later is read and dropped, so that it never blocks.
            lines.for_each(drop);
        });
        (child, rx)
    }

    /// Starts haproxy and checks that what answers on the balancer's port is this haproxy (its
    /// monitoring URI, named after the cluster).
    fn start_balancer(&mut self) -> Result<(), String> {
        // A request sent on a kept connection to a member that has just been killed gets no
        // answer; `retry-on` has haproxy send it to another member instead of closing the
        // client's connection.
        let mut config = format!(
            "global\n  maxconn 1000\n\ndefaults\n  mode http\n  timeout connect 1s\n  timeout check 2s\n  \
             timeout client 60s\n  timeout server 60s\n  retries 2\n  option redispatch 1\n  http-reuse safe\n  \
             retry-on conn-failure empty-response\n\n\
             frontend mcp\n  bind 127.0.0.1:{}\n  monitor-uri /ready-{}\n  default_backend members\n\n\
             backend members\n  balance roundrobin\n",
            self.balancer_port, self.prefix
        );
        for (i, port) in self.ports.iter().enumerate() {
            config.push_str(&format!("  server s{i} 127.0.0.1:{port} check inter 200 fall 1 rise 2\n"));
        }
        let path = self.dir.join("haproxy.cfg");
        std::fs::write(&path, config).unwrap();
        let log = std::fs::File::create(self.dir.join("haproxy.log")).unwrap();
        let child = Command::new("haproxy")
            .arg("-db")
            .arg("-f")
            .arg(&path)
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("haproxy starts");
        self.balancer = Some(child);
        wait_for_port(self.balancer_port, "haproxy")?;
        let probe = format!("GET /ready-{} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", self.prefix);
        let mut answer = String::new();
        let answered = TcpStream::connect(("127.0.0.1", self.balancer_port)).and_then(|mut stream| {
            stream.set_read_timeout(Some(Duration::from_secs(5)))?;
            stream.write_all(probe.as_bytes())?;
            stream.read_to_string(&mut answer)
        });
        if answered.is_err() || !answer.starts_with("HTTP/1.1 200") {
            return Err(format!("port {} is not this cluster's haproxy: {answer:?}", self.balancer_port));
        }
        Ok(())
    }

    /// A client of the balancer.
    fn mcp(&self) -> Mcp {
        Mcp::new(format!("http://127.0.0.1:{}/mcp", self.balancer_port))
    }

    /// A client of member `i` directly, past the balancer.
    fn member(&self, i: usize) -> Mcp {
        Mcp::new(format!("http://127.0.0.1:{}/mcp", self.ports[i]))
    }

    fn kill_server(&mut self, i: usize) {
        if let Some(mut child) = self.servers[i].take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    fn logs(&self) -> String {
        let mut out = String::new();
        for name in ["server0.log", "server1.log", "server2.log", "haproxy.log", "redis.log"] {
            let text = std::fs::read_to_string(self.dir.join(name)).unwrap_or_default();
            let tail: Vec<&str> = text.lines().rev().take(40).collect();
            out.push_str(&format!("--- {name}\n{}\n", tail.into_iter().rev().collect::<Vec<_>>().join("\n")));
        }
        out
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("{}", self.logs());
        }
        for i in 0..self.servers.len() {
            self.kill_server(i);
        }
        if let Some(mut balancer) = self.balancer.take() {
            let _ = balancer.kill();
            let _ = balancer.wait();
        }
        self.stop_redis();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Cluster {
    /// Runs `redis-cli` against this cluster's Redis and returns its output's lines.
    fn redis_cli(&self, args: &[&str]) -> Vec<String> {
        let out =
            Command::new("redis-cli").arg("-s").arg(&self.redis_socket).args(args).output().expect("redis-cli runs");
        String::from_utf8_lossy(&out.stdout).lines().map(str::to_owned).filter(|l| !l.is_empty()).collect()
    }

    /// The Redis keys of this cluster that name `session`.
    fn session_keys(&self, session: &str) -> Vec<String> {
        self.redis_cli(&["--scan", "--pattern", &format!("{}:*{session}*", self.prefix)])
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_holds_the_streams_of_live_requests_and_sessions_only() {
    let Some(cluster) = Cluster::start() else { return };
    let mcp = cluster.mcp();
    let session = mcp.initialize(json!({})).await;
    // Calls with a progress token: each has a stream of events in Redis.
    for id in 1..=20 {
        let reply = send(mcp.post(Some(&session), &call(id, "steps", json!({}), Some("s")))).await;
        messages_until(&mut SseStream::new(reply), |m| m.get("result").is_some()).await;
    }
    let streams: Vec<String> =
        cluster.session_keys(&session).into_iter().filter(|k| k.contains(":events:") && !k.ends_with(":0")).collect();
    assert_eq!(streams.len(), 20, "{streams:?}");
    // Each answered stream stays only for a client cut off before its answer to resume it.
    for key in &streams {
        let ttl: i64 = cluster.redis_cli(&["TTL", key])[0].parse().unwrap();
        assert!((1..=60).contains(&ttl), "{key} lives {ttl} s more");
    }
    // A deleted session takes every key of its own with it.
    assert_eq!(send(mcp.delete(&session)).await.status(), 200);
    let left = cluster.session_keys(&session);
    assert!(left.is_empty(), "left after DELETE: {left:?}");
}

/// The resident memory of process `pid`, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap_or("VmRSS: 0 kB");
    line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frozen_redis_bounds_what_a_process_holds_for_it() {
    let Some(cluster) = Cluster::start() else { return };
    let member = cluster.member(0);
    let session = member.initialize(json!({})).await;
    let pid = cluster.servers[0].as_ref().unwrap().id();
    let redis = cluster.redis.as_ref().unwrap().id().to_string();
    let before = rss_kib(pid);
    // A handler reports progress in a loop for three seconds while Redis is frozen.
    let flood = tokio::spawn(send(member.post(Some(&session), &call(1, "flood", json!({ "ms": 3000 }), Some("f")))));
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(Command::new("kill").args(["-STOP", &redis]).status().unwrap().success());
    tokio::time::sleep(Duration::from_millis(3000)).await;
    let frozen = rss_kib(pid);
    assert!(Command::new("kill").args(["-CONT", &redis]).status().unwrap().success());
    let reply = within_for(Duration::from_secs(30), flood).await.unwrap();
    let body = within_for(Duration::from_secs(30), reply.text()).await.unwrap();
    let steps = body.rfind("steps").map(|end| &body[end.saturating_sub(12)..end + 5]).unwrap_or("no answer");
    let grown = frozen.saturating_sub(before) / 1024;
    assert!(grown < 64, "the process grew {grown} MiB while Redis was frozen ({steps})");
    // Once Redis is back, the session is served again.
    assert_eq!(pid_of(&member, &session, 2).await, pid.to_string());
}

/// Calls `pid` on `mcp` and returns the process that answered.
async fn pid_of(mcp: &Mcp, session: &str, id: i64) -> String {
    result_text(&within_for(Duration::from_secs(30), mcp.call_json(Some(session), id, "pid", json!({}))).await)
        .to_owned()
}

/// Calls `pid` and returns the process that answered.
async fn pid(mcp: &Mcp, session: &str, id: i64) -> String {
    result_text(&mcp.call_json(Some(session), id, "pid", json!({})).await).to_owned()
}

/// Reads message events until one passes `done`, returning them all.
async fn messages_until(sse: &mut SseStream, mut done: impl FnMut(&Value) -> bool) -> Vec<(SseEvent, Value)> {
    let mut seen = Vec::new();
    for _ in 0..200 {
        let (event, message) = sse.message().await;
        let stop = done(&message);
        seen.push((event, message));
        if stop {
            return seen;
        }
    }
    panic!("no end in 200 messages: {seen:?}");
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_session_is_served_by_every_process() {
    let Some(cluster) = Cluster::start() else { return };
    let mcp = cluster.mcp();
    let session = mcp.initialize(json!({ "elicitation": { "form": {} } })).await;

    // Round robin spreads the session's requests over all three processes.
    let mut pids = HashSet::new();
    for id in 1..=6 {
        pids.insert(pid(&mcp, &session, id).await);
    }
    assert_eq!(pids.len(), 3, "three processes served the session: {pids:?}");

    // A log level set through one process holds on every process.
    let set_level = request(7, "logging/setLevel", json!({ "level": "error" }));
    let reply = body_json(send(mcp.post(Some(&session), &set_level)).await).await;
    assert!(reply.get("result").is_some(), "{reply}");
    tokio::time::sleep(Duration::from_millis(200)).await;
    for id in 8..=9 {
        let reply = send(mcp.post(Some(&session), &call(id, "steps", json!({}), Some("s")))).await;
        let mut sse = SseStream::new(reply);
        let seen = messages_until(&mut sse, |m| m.get("result").is_some()).await;
        let methods: Vec<&str> = seen.iter().filter_map(|(_, m)| m["method"].as_str()).collect();
        assert_eq!(methods, ["notifications/progress", "notifications/progress"], "no info log: {seen:?}");
    }
    let direct = send(cluster.member(2).post(Some(&session), &call(9, "steps", json!({}), Some("s")))).await;
    let seen = messages_until(&mut SseStream::new(direct), |m| m.get("result").is_some()).await;
    assert!(seen.iter().all(|(_, m)| m["method"] != "notifications/message"), "{seen:?}");

    // A tool elicits and reports progress while the client's answer lands on another process.
    for round in 0..3 {
        let id = 10 + round;
        let response = send(mcp.post(Some(&session), &call(id, "ask_progress", json!({}), Some("p")))).await;
        let mut sse = SseStream::new(response);
        let (_, first) = sse.message().await;
        assert_eq!(first["method"], "notifications/progress", "{first}");
        assert_eq!(first["params"]["progress"], 1.0);
        let (_, elicit) = sse.message().await;
        assert_eq!(elicit["method"], "elicitation/create", "{elicit}");
        let answer = json!({ "jsonrpc": "2.0", "id": elicit["id"], "result": { "action": "accept", "content": { "name": format!("n{round}") } } });
        let posted = send(mcp.post(Some(&session), &answer)).await;
        assert_eq!(posted.status(), 202, "the answer is accepted wherever it lands");
        let rest = messages_until(&mut sse, |m| m.get("result").is_some() || m.get("error").is_some()).await;
        assert_eq!(rest.len(), 2, "progress, then the result: {rest:?}");
        assert_eq!(rest[0].1["params"]["progress"], 2.0);
        let text = result_text(&rest[1].1);
        assert!(text.starts_with(&format!("name=n{round} ")), "{text}");
        sse.assert_ends().await;
    }

    // A cancellation that lands on another process reaches the running handler.
    let slow_mcp = mcp.clone();
    let slow_session = session.clone();
    let started = Instant::now();
    let slow =
        tokio::spawn(async move { send(slow_mcp.post(Some(&slow_session), &call(50, "slow", json!({}), None))).await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let cancel = notification("notifications/cancelled", Some(json!({ "requestId": 50, "reason": "test" })));
    assert_eq!(send(mcp.post(Some(&session), &cancel)).await.status(), 202);
    let response = within(slow).await.unwrap();
    let _ = within(response.bytes()).await;
    assert!(started.elapsed() < Duration::from_secs(8), "the cancelled call ended early: {:?}", started.elapsed());

    // The GET stream, wherever it is held, gets what any process sends outside requests.
    let mut get = SseStream::new(send(mcp.get(Some(&session), None)).await);
    for (i, tag) in ["a", "b", "c"].iter().enumerate() {
        let reply = mcp.call_json(Some(&session), 60 + i as i64, "announce", json!({ "n": 2, "tag": tag })).await;
        assert_eq!(result_text(&reply), "announced 2");
    }
    let mut heard = Vec::new();
    for _ in 0..6 {
        let (event, message) = get.message().await;
        assert!(event.id.is_some(), "every standalone event has an id");
        heard.push(message["params"]["data"].as_str().unwrap().to_owned());
    }
    assert_eq!(heard, ["a0", "a1", "b0", "b1", "c0", "c1"]);

    // A resource update announced through any process reaches the subscribed session once.
    let subscribe = request(80, "resources/subscribe", json!({ "uri": "test://doc" }));
    assert!(body_json(send(mcp.post(Some(&session), &subscribe)).await).await.get("result").is_some());
    let mut touched_by = HashSet::new();
    for id in 81..84 {
        touched_by.insert(result_text(&mcp.call_json(Some(&session), id, "touch", json!({})).await).to_owned());
    }
    assert_eq!(touched_by.len(), 3, "three processes announced: {touched_by:?}");
    for _ in 0..3 {
        let (_, message) = get.message().await;
        assert_eq!(message["method"], "notifications/resources/updated", "{message}");
        assert_eq!(message["params"]["uri"], "test://doc");
    }
    get.assert_quiet(Duration::from_millis(300)).await;
    let unsubscribe = request(85, "resources/unsubscribe", json!({ "uri": "test://doc" }));
    assert!(body_json(send(mcp.post(Some(&session), &unsubscribe)).await).await.get("result").is_some());
    mcp.call_json(Some(&session), 86, "touch", json!({})).await;
    get.assert_quiet(Duration::from_millis(300)).await;

    // Deleting the session ends it on every process.
    assert_eq!(send(mcp.delete(&session)).await.status(), 200);
    for i in 0..3 {
        let response = send(cluster.member(i).post(Some(&session), &call(70, "pid", json!({}), None))).await;
        assert_eq!(response.status(), 404, "member {i} no longer knows the session");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_process_loses_no_session_and_no_event() {
    let Some(mut cluster) = Cluster::start() else { return };
    let mcp = cluster.mcp();
    let session = mcp.initialize(json!({})).await;
    for id in 1..=3 {
        pid(&mcp, &session, id).await;
    }

    // The standalone stream, read on member 0 up to some event.
    let mut get = SseStream::new(send(cluster.member(0).get(Some(&session), None)).await);
    mcp.call_json(Some(&session), 10, "announce", json!({ "n": 3, "tag": "x" })).await;
    let mut last = String::new();
    for i in 0..3 {
        let (event, message) = get.message().await;
        assert_eq!(message["params"]["data"], format!("x{i}"));
        last = event.id.unwrap();
    }

    // A request running on member 0, with two progress reports read.
    let running = send(
        cluster
            .member(0)
            .post(Some(&session), &call(20, "progress", json!({ "count": 400, "delay_ms": 25 }), Some("t"))),
    )
    .await;
    let mut running = SseStream::new(running);
    let mut last_progress = String::new();
    for _ in 0..2 {
        let (event, message) = running.message().await;
        assert_eq!(message["method"], "notifications/progress");
        last_progress = event.id.unwrap();
    }

    cluster.kill_server(0);
    drop(get);
    drop(running);

    // The session goes on through the others.
    let mut pids = HashSet::new();
    for id in 30..36 {
        pids.insert(pid(&mcp, &session, id).await);
    }
    assert_eq!(pids.len(), 2, "the two members left serve the session: {pids:?}");
    mcp.call_json(Some(&session), 40, "announce", json!({ "n": 3, "tag": "y" })).await;

    // Resuming the standalone stream elsewhere replays exactly what was missed.
    let mut resumed = SseStream::new(send(mcp.get(Some(&session), Some(&last))).await);
    let mut ids = HashSet::new();
    for i in 0..3 {
        let (event, message) = resumed.message().await;
        assert_eq!(message["params"]["data"], format!("y{i}"), "no loss, no duplicate");
        assert!(ids.insert(event.id.unwrap()));
    }
    resumed.assert_quiet(Duration::from_millis(500)).await;

    // Resuming the dead process's request replays its stored progress, then fails it clearly.
    let mut stream = SseStream::new(send(mcp.get(Some(&session), Some(&last_progress))).await);
    let rest = within_for(
        Duration::from_secs(20),
        messages_until(&mut stream, |m| m.get("error").is_some() || m.get("result").is_some()),
    )
    .await;
    let (ended, progress) = rest.split_last().unwrap();
    let mut previous = 2.0;
    for (_, message) in progress {
        let value = message["params"]["progress"].as_f64().unwrap();
        assert!(value > previous, "progress goes on where it stopped, once each: {value} after {previous}");
        previous = value;
    }
    assert_eq!(ended.1["id"], 20, "{}", ended.1);
    let error = ended.1["error"]["message"].as_str().unwrap();
    assert!(error.contains("ended before it finished"), "{error}");
    stream.assert_ends().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_going_away_is_503_and_its_return_is_recovery() {
    let Some(mut cluster) = Cluster::start() else { return };
    let mcp = cluster.mcp();
    let session = mcp.initialize(json!({})).await;
    for id in 1..=3 {
        pid(&mcp, &session, id).await;
    }
    cluster.stop_redis();
    for id in 10..13 {
        let response = send(mcp.post(Some(&session), &call(id, "pid", json!({}), None))).await;
        assert_eq!(response.status(), 503, "Redis is down");
        assert!(response.headers().get("retry-after").is_some());
        let body = body_json(response).await;
        assert!(body["error"]["message"].as_str().unwrap().contains("Redis"), "{body}");
    }
    let response = send(mcp.post(None, &request(0, "initialize", init_params(json!({}))))).await;
    assert_eq!(response.status(), 503, "no session can be made without Redis");

    cluster.start_redis();
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut pids = HashSet::new();
    let mut id = 20;
    while pids.len() < 3 {
        assert!(Instant::now() < deadline, "the cluster did not recover: {pids:?}");
        id += 1;
        let response = send(mcp.post(Some(&session), &call(id, "pid", json!({}), None))).await;
        match response.status().as_u16() {
            200 => {
                pids.insert(result_text(&body_json(response).await).to_owned());
            }
            503 => tokio::time::sleep(Duration::from_millis(100)).await,
            other => panic!("unexpected status {other}: {}", body_text(response).await),
        }
    }
    // New sessions too.
    let again = mcp.initialize(json!({})).await;
    pid(&mcp, &again, 1).await;
}

/// Sends a request straight to member `member` and returns its JSON-RPC reply.
async fn ask_member(cluster: &Cluster, member: usize, session: &str, id: i64, method: &str, params: Value) -> Value {
    body_json(send(cluster.member(member).post(Some(session), &request(id, method, params))).await).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_are_answered_by_every_process() {
    let Some(cluster) = Cluster::start() else { return };
    let session = cluster.mcp().initialize(json!({})).await;

    // A task runs on member 0; members 1 and 2 see it, list it and give its result.
    let call = json!({ "name": "work", "arguments": { "ms": 1500 }, "task": { "ttl": 60000 } });
    let created = ask_member(&cluster, 0, &session, 1, "tools/call", call).await;
    let task_id = created["result"]["task"]["taskId"].as_str().unwrap_or_else(|| panic!("{created}")).to_owned();
    assert_eq!(created["result"]["task"]["status"], "working", "{created}");
    let seen = ask_member(&cluster, 1, &session, 2, "tasks/get", json!({ "taskId": task_id })).await;
    assert_eq!(seen["result"]["taskId"], task_id.as_str(), "member 1 finds member 0's task: {seen}");
    assert_eq!(seen["result"]["status"], "working", "{seen}");
    let listed = ask_member(&cluster, 2, &session, 3, "tasks/list", json!({})).await;
    let ids: Vec<&str> =
        listed["result"]["tasks"].as_array().unwrap().iter().filter_map(|t| t["taskId"].as_str()).collect();
    assert_eq!(ids, [task_id.as_str()], "{listed}");
    let result = ask_member(&cluster, 1, &session, 4, "tasks/result", json!({ "taskId": task_id })).await;
    let text = result_text(&result).to_owned();
    let worker = pid(&cluster.member(0), &session, 5).await;
    assert_eq!(text, format!("worked in {worker}"), "the result of member 0's work, through member 1: {result}");
    assert_eq!(result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], task_id.as_str());
    let done = ask_member(&cluster, 2, &session, 6, "tasks/get", json!({ "taskId": task_id })).await;
    assert_eq!(done["result"]["status"], "completed", "{done}");

    // A cancellation that lands on another process stops the task where it runs.
    let call = json!({ "name": "work", "arguments": { "ms": 20000 }, "task": { "ttl": 60000 } });
    let created = ask_member(&cluster, 0, &session, 7, "tools/call", call).await;
    let long = created["result"]["task"]["taskId"].as_str().unwrap().to_owned();
    let cancelled = ask_member(&cluster, 2, &session, 8, "tasks/cancel", json!({ "taskId": long })).await;
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    let seen = ask_member(&cluster, 0, &session, 9, "tasks/get", json!({ "taskId": long })).await;
    assert_eq!(seen["result"]["status"], "cancelled", "member 0 stopped it: {seen}");
    let again = ask_member(&cluster, 1, &session, 10, "tasks/cancel", json!({ "taskId": task_id })).await;
    assert!(again["error"]["message"].as_str().unwrap().contains("already ended"), "{again}");
    let listed = ask_member(&cluster, 1, &session, 11, "tasks/list", json!({})).await;
    assert_eq!(listed["result"]["tasks"].as_array().unwrap().len(), 2, "{listed}");

    // Tasks stay in their session.
    let other = cluster.mcp().initialize(json!({})).await;
    let foreign = ask_member(&cluster, 1, &other, 12, "tasks/get", json!({ "taskId": task_id })).await;
    assert!(foreign.get("error").is_some(), "another session does not see the task: {foreign}");
}

/// A 2026-07-28 POST of `method` to `mcp`.
fn post_next(mcp: &Mcp, id: i64, method: &str, mut params: Value, name: Option<&str>) -> reqwest::RequestBuilder {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": NEXT,
        "io.modelcontextprotocol/clientCapabilities": { "elicitation": { "form": {} } },
        "io.modelcontextprotocol/clientInfo": { "name": "next-client", "version": "1" },
    });
    if let (Value::Object(meta), Some(Value::Object(extra))) = (&mut meta, params.get("_meta").cloned()) {
        meta.extend(extra);
    }
    params["_meta"] = meta;
    let mut builder =
        mcp.post(None, &request(id, method, params)).header("mcp-protocol-version", NEXT).header("mcp-method", method);
    if let Some(name) = name {
        builder = builder.header("mcp-name", name);
    }
    builder
}

const NEXT: &str = "2026-07-28";

/// Polls `tasks/get` of the tasks extension on `member` until the task passes `done`.
async fn poll_task(cluster: &Cluster, member: usize, task_id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let meta = json!({ "io.modelcontextprotocol/clientCapabilities": {
        "elicitation": { "form": {} }, "extensions": { "io.modelcontextprotocol/tasks": {} } } });
    let deadline = Instant::now() + Duration::from_secs(10);
    for id in 100.. {
        let params = json!({ "taskId": task_id, "_meta": meta });
        let reply =
            read_reply(send(post_next(&cluster.member(member), id, "tasks/get", params, Some(task_id))).await).await;
        if done(&reply["result"]) {
            return reply["result"].clone();
        }
        assert!(Instant::now() < deadline, "the task did not get there: {reply}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    unreachable!()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extension_tasks_cross_processes() {
    let Some(cluster) = Cluster::start() else { return };
    let meta = json!({ "io.modelcontextprotocol/clientCapabilities": {
        "elicitation": { "form": {} }, "extensions": { "io.modelcontextprotocol/tasks": {} } } });

    // The tool runs as a task on member 0; member 1 sees it ask, member 2 carries the answer
    // to it, and member 1 sees it complete.
    let call = json!({ "name": "confirm", "arguments": {}, "_meta": meta });
    let created = read_reply(send(post_next(&cluster.member(0), 1, "tools/call", call, Some("confirm"))).await).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task_id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let asking = poll_task(&cluster, 1, &task_id, |t| t["status"] == "input_required").await;
    assert_eq!(asking["inputRequests"]["confirm"]["method"], "elicitation/create", "{asking}");
    let answer = json!({ "confirm": { "action": "accept", "content": {} } });
    let params = json!({ "taskId": task_id, "inputResponses": answer, "_meta": meta });
    let updated =
        read_reply(send(post_next(&cluster.member(2), 2, "tasks/update", params, Some(&task_id))).await).await;
    assert_eq!(updated["result"]["resultType"], "complete", "{updated}");
    let done = poll_task(&cluster, 1, &task_id, |t| t["status"] == "completed").await;
    let text = done["result"]["content"][0]["text"].as_str().unwrap();
    let worker = pid(&cluster.member(0), &cluster.mcp().initialize(json!({})).await, 3).await;
    assert_eq!(text, format!("answered \"accept\" in {worker}"), "{done}");

    // A cancellation through member 2 reaches the task waiting on member 0.
    let call = json!({ "name": "confirm", "arguments": {}, "_meta": meta });
    let created = read_reply(send(post_next(&cluster.member(0), 4, "tools/call", call, Some("confirm"))).await).await;
    let task_id = created["result"]["taskId"].as_str().unwrap().to_owned();
    poll_task(&cluster, 1, &task_id, |t| t["status"] == "input_required").await;
    let params = json!({ "taskId": task_id, "_meta": meta });
    let cancelled =
        read_reply(send(post_next(&cluster.member(2), 5, "tasks/cancel", params, Some(&task_id))).await).await;
    assert!(cancelled.get("result").is_some(), "{cancelled}");
    poll_task(&cluster, 0, &task_id, |t| t["status"] == "cancelled").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn revision_2026_requests_cross_processes() {
    let Some(cluster) = Cluster::start() else { return };

    // Each input round of one tool call lands on another process, which accepts the
    // requestState another process signed.
    let book = |extra: Value| {
        let mut params = json!({ "name": "book", "arguments": {} });
        if let (Value::Object(params), Value::Object(extra)) = (&mut params, extra) {
            params.extend(extra);
        }
        params
    };
    let first =
        read_reply(send(post_next(&cluster.member(0), 1, "tools/call", book(json!({})), Some("book"))).await).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let state = first["result"]["requestState"].clone();
    let answers = json!({ "guests": { "action": "accept", "content": { "v": "2" } } });
    let round = book(json!({ "inputResponses": answers, "requestState": state }));
    let second = read_reply(send(post_next(&cluster.member(1), 2, "tools/call", round, Some("book"))).await).await;
    assert_eq!(second["result"]["resultType"], "input_required", "member 1 accepts member 0's state: {second}");
    let state = second["result"]["requestState"].clone();
    let answers = json!({ "guests": { "action": "accept", "content": { "v": "2" } },
                          "date": { "action": "accept", "content": { "v": "May 1" } } });
    let round = book(json!({ "inputResponses": answers, "requestState": state }));
    let done = read_reply(send(post_next(&cluster.member(2), 3, "tools/call", round, Some("book"))).await).await;
    assert_eq!(result_text(&done), "\"2\" guests on \"May 1\"", "{done}");

    // A listen stream held by one process hears of resource changes announced by the others.
    let filter = json!({ "notifications": { "resourceSubscriptions": ["test://doc"] } });
    let mut listen = SseStream::new(send(post_next(&cluster.member(0), 7, "subscriptions/listen", filter, None)).await);
    let (_, ack) = listen.message().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
    let mcp = cluster.mcp();
    let session = mcp.initialize(json!({})).await;
    for (id, member) in [(10, 1), (11, 2)] {
        let reply = send(cluster.member(member).post(Some(&session), &call(id, "touch", json!({}), None))).await;
        assert_eq!(reply.status(), 200);
        let (_, updated) = listen.message().await;
        assert_eq!(updated["method"], "notifications/resources/updated", "{updated}");
        assert_eq!(updated["params"]["uri"], "test://doc");
    }
    listen.assert_quiet(Duration::from_millis(300)).await;
}
