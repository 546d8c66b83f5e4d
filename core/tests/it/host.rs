//! Hosts: one client for many real servers (the `calculator_server` example over stdio,
//! Streamable HTTP servers of this process on 127.0.0.1, commands that fail), one view of their
//! features, routed calls, restarts, list changes, time-outs that follow progress, collisions,
//! and the configuration file.

use std::{
    net::SocketAddr,
    sync::{Arc, Mutex},
    time::Duration,
};

use crate::common::*;
use mcpweft::{
    Error, ErrorData, RequestContext, Server,
    host::{
        CallOptions, CollisionKind, Host, HostConfig, HostEvent, HostHandler, ListKind, ServerState, ServerTransport,
    },
    http::{BoundHttpServer, HttpServerOptions, StreamableHttpServer},
    model::*,
    session::IncomingRequest,
};
use serde_json::{Value, json};
use tokio::process::Command;

fn object_schema(properties: Value) -> JsonObject {
    obj(json!({ "type": "object", "properties": properties }))
}

fn internal(e: impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(e.to_string())
}

/// The notes server: `echo {text}`, `progress {count, delay_ms}` (reports progress after each
/// step), `sleep {ms}` (reports nothing), `roots` (lists the client's roots), the prompt
/// `greet`, the resource `notes://today` and the template `notes://day/{day}`.
fn notes_server() -> Server {
    Server::builder(Implementation::new("notes", "1.0.0"))
        .tool(
            Tool::new("echo", "Echoes text.", object_schema(json!({ "text": { "type": "string" } }))),
            |args: JsonObject, _ctx: RequestContext| async move {
                Ok(CallToolResult::text(args.get("text").and_then(Value::as_str).unwrap_or("").to_owned()))
            },
        )
        .tool(
            Tool::new(
                "progress",
                "Reports progress slowly.",
                object_schema(json!({ "count": { "type": "integer" }, "delay_ms": { "type": "integer" } })),
            ),
            |args: JsonObject, ctx: RequestContext| async move {
                let count = args.get("count").and_then(Value::as_u64).unwrap_or(5);
                let delay = Duration::from_millis(args.get("delay_ms").and_then(Value::as_u64).unwrap_or(50));
                for i in 1..=count {
                    tokio::time::sleep(delay).await;
                    ctx.report_progress(i as f64, Some(count as f64), None).map_err(internal)?;
                }
                Ok(CallToolResult::text(format!("done {count}")))
            },
        )
        .tool(
            Tool::new("sleep", "Sleeps silently.", object_schema(json!({ "ms": { "type": "integer" } }))),
            |args: JsonObject, _ctx: RequestContext| async move {
                let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Ok(CallToolResult::text("slept"))
            },
        )
        .tool(
            Tool::without_arguments("roots", "Lists the roots."),
            |_args: JsonObject, ctx: RequestContext| async move {
                let roots = ctx.list_roots().await.map_err(internal)?;
                let uris: Vec<String> = roots.roots.iter().map(|r| r.uri.clone()).collect();
                Ok(CallToolResult::text(uris.join(",")))
            },
        )
        .prompt(
            Prompt::new("greet").with_argument(PromptArgument::new("name", true)),
            |args: std::collections::HashMap<String, String>, _ctx| async move {
                let text = format!("Hello, {}!", args.get("name").map(String::as_str).unwrap_or("?"));
                Ok(GetPromptResult::new(vec![PromptMessage::user_text(text)]))
            },
        )
        .resource(Resource::new("notes://today", "today"), |req: mcpweft::server::ResourceRequest, _ctx| async move {
            Ok(ReadResourceResult::new(vec![ResourceContents::text(req.uri, "buy milk")]))
        })
        .resource_template(
            ResourceTemplate::new("notes://day/{day}", "day"),
            |req: mcpweft::server::ResourceRequest, _ctx| async move {
                let day = req.variables.get("day").cloned().unwrap_or_default();
                Ok(ReadResourceResult::new(vec![ResourceContents::text(req.uri, format!("notes of {day}"))]))
            },
        )
        .build()
        .expect("a valid server")
}

/// Serves `server` over Streamable HTTP at `addr` (127.0.0.1, port 0 for any).
async fn serve(server: Server, addr: SocketAddr) -> BoundHttpServer {
    within(StreamableHttpServer::bind(server, addr, HttpServerOptions::default())).await.expect("binds 127.0.0.1")
}

fn any_port() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 0))
}

fn config(value: Value) -> HostConfig {
    HostConfig::from_value_with_env(&value, |_| None).expect("a valid configuration")
}

fn names(host: &Host) -> Vec<String> {
    host.tools().into_iter().map(|t| t.name).collect()
}

/// Waits for the event that `wanted` accepts, skipping others.
async fn next_event(
    events: &mut tokio::sync::broadcast::Receiver<HostEvent>,
    mut wanted: impl FnMut(&HostEvent) -> bool,
) -> HostEvent {
    within(async {
        loop {
            let event = events.recv().await.expect("the host is open");
            if wanted(&event) {
                return event;
            }
        }
    })
    .await
}

fn state_is(server: &'static str, state: ServerState) -> impl FnMut(&HostEvent) -> bool {
    move |event| matches!(event, HostEvent::StateChanged { server: s, state: st } if s == server && *st == state)
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_view_of_a_stdio_an_http_and_a_failing_server() {
    let calculator = calculator_server().await;
    let notes = serve(notes_server(), any_port()).await;
    let host = within(Host::connect(config(json!({ "mcpServers": {
        "calc": { "command": calculator },
        "notes": { "type": "http", "url": notes.url() },
        "broken": { "command": "sh", "args": ["-c", "echo 'missing API key' >&2; exit 3"] },
        "off": { "command": "never-started", "enabled": false },
    } }))))
    .await
    .expect("the host starts");

    let states: Vec<_> = host.servers();
    assert_eq!(states[0], ("calc".to_owned(), ServerState::Ready));
    assert_eq!(states[1], ("notes".to_owned(), ServerState::Ready));
    match &states[2].1 {
        ServerState::Failed { reason, stderr } => {
            assert!(reason.contains("code 3"), "{reason}");
            assert!(stderr.as_deref().is_some_and(|s| s.contains("missing API key")), "{stderr:?}");
        }
        other => panic!("the broken server is {other:?}"),
    }
    assert_eq!(states[3], ("off".to_owned(), ServerState::Disabled));

    assert_eq!(
        names(&host),
        ["calc__add", "calc__divide", "calc__count", "notes__echo", "notes__progress", "notes__sleep", "notes__roots"]
    );
    let tool = host.tools().into_iter().find(|t| t.name == "calc__add").unwrap();
    assert_eq!(
        (tool.server.as_str(), tool.tool.name.as_str(), tool.namespaced().name.as_str()),
        ("calc", "add", "calc__add")
    );
    let sum = within(host.call_tool("calc__add", json!({ "a": 2, "b": 40 }))).await.unwrap();
    assert_eq!(sum.structured_content, Some(obj(json!({ "sum": 42.0 }))));
    let echo = within(host.call_tool("notes__echo", json!({ "text": "hi" }))).await.unwrap();
    assert_eq!(first_text(&echo), "hi");
    assert_eq!(rpc_code(within(host.call_tool("calc__nothing", json!({}))).await), -32602);

    let prompts: Vec<_> = host.prompts().into_iter().map(|p| p.name).collect();
    assert_eq!(prompts, ["calc__explain", "notes__greet"]);
    let greeting = within(host.get_prompt("notes__greet", [("name", "Ada")])).await.unwrap();
    assert_eq!(serde_json::to_value(&greeting.messages[0].content).unwrap()["text"], "Hello, Ada!");

    let resources: Vec<_> = host.resources().into_iter().map(|r| (r.server, r.resource.uri)).collect();
    assert_eq!(resources, [("calc".into(), "calc://constants".into()), ("notes".into(), "notes://today".into())]);
    assert_eq!(read_text(&within(host.read_resource("notes://today")).await.unwrap()), "buy milk");
    // Not listed, but only the calculator's template matches it.
    assert!(read_text(&within(host.read_resource("calc://constants/pi")).await.unwrap()).starts_with("3.14"));
    let day = within(host.read_resource_from("notes", "notes://day/monday")).await.unwrap();
    assert_eq!(read_text(&day), "notes of monday");
    assert_eq!(rpc_code(within(host.read_resource("other://thing")).await), ErrorData::resource_not_found("").code);

    within(host.close()).await;
    assert!(host.servers().iter().all(|(_, state)| matches!(state, ServerState::Closed | ServerState::Disabled)));
    within(notes.shutdown()).await;
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stdio_server_killed_mid_call_is_started_again() {
    let calculator = calculator_server().await;
    let dir = std::env::temp_dir().join(format!("mcpweft-host-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pid_file = dir.join("calc.pid");
    // The shell writes its pid, then becomes the server.
    let host = within(Host::connect(config(json!({ "mcpServers": {
        "calc": { "command": "sh", "args": ["-c", "echo $$ > \"$0\"; exec \"$1\"", pid_file, calculator] },
    } }))))
    .await
    .unwrap();
    assert_eq!(host.state("calc"), Some(ServerState::Ready));
    let first_pid = std::fs::read_to_string(&pid_file).unwrap().trim().to_owned();
    let mut events = host.events();

    // A long count reports progress; once it has, the server is killed under it.
    let (started, mut progressed) = tokio::sync::mpsc::unbounded_channel();
    let options = CallOptions::new().with_progress(move |_| {
        let _ = started.send(());
    });
    let call = tokio::spawn({
        let host = host.clone();
        async move { host.call_tool_with("calc__count", json!({ "n": 1000 }), options).await }
    });
    within(progressed.recv()).await.expect("the count reports progress");
    let killed = Command::new("kill").args(["-9", &first_pid]).status().await.unwrap();
    assert!(killed.success());

    match within(call).await.unwrap() {
        Err(Error::Disconnected(reason)) => {
            assert!(reason.message.contains("\"calc\""), "{reason}");
            assert_eq!(reason.signal, Some(9), "{reason:?}");
        }
        other => panic!("the call in flight ended with {other:?}"),
    }
    next_event(&mut events, state_is("calc", ServerState::Connecting)).await;
    next_event(&mut events, state_is("calc", ServerState::Ready)).await;
    let second_pid = std::fs::read_to_string(&pid_file).unwrap().trim().to_owned();
    assert_ne!(first_pid, second_pid, "a new process serves");
    let sum = within(host.call_tool("calc__add", json!({ "a": 1, "b": 2 }))).await.unwrap();
    assert_eq!(sum.structured_content, Some(obj(json!({ "sum": 3.0 }))));

    within(host.close()).await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_keeps_failing_ends_failed() {
    let dir = std::env::temp_dir().join(format!("mcpweft-host-fail-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let calculator = calculator_server().await;
    let flag = dir.join("may-start");
    std::fs::write(&flag, "").unwrap();
    // The server starts while the flag file exists; the test removes it and kills the server,
    // so that every restart fails.
    let script = "[ -f \"$0\" ] || { echo 'cannot start again' >&2; exit 7; }; echo $$ > \"$0.pid\"; exec \"$1\"";
    let host = within(Host::connect(config(json!({ "mcpServers": {
        "calc": { "command": "sh", "args": ["-c", script, flag, calculator], "maxRestarts": 2 },
    } }))))
    .await
    .unwrap();
    assert_eq!(host.state("calc"), Some(ServerState::Ready));
    let mut events = host.events();
    let pid = std::fs::read_to_string(dir.join("may-start.pid")).unwrap().trim().to_owned();
    std::fs::remove_file(&flag).unwrap();
    assert!(Command::new("kill").args(["-9", &pid]).status().await.unwrap().success());

    let failed =
        next_event(&mut events, |e| matches!(e, HostEvent::StateChanged { state: ServerState::Failed { .. }, .. }))
            .await;
    let HostEvent::StateChanged { state: ServerState::Failed { stderr, .. }, .. } = failed else { unreachable!() };
    assert!(stderr.as_deref().is_some_and(|s| s.contains("cannot start again")), "{stderr:?}");
    let error = within(host.call_tool("calc__add", json!({ "a": 1, "b": 2 }))).await.unwrap_err();
    assert!(matches!(&error, Error::Rpc(_)), "a failed server's tools leave the view: {error:?}");

    // Asked to, the host tries again, and the server starts once it may.
    std::fs::write(&flag, "").unwrap();
    host.restart("calc").unwrap();
    next_event(&mut events, state_is("calc", ServerState::Ready)).await;
    assert!(names(&host).contains(&"calc__add".to_owned()));
    within(host.close()).await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_server_that_restarts_is_initialized_again() {
    let first = serve(notes_server(), any_port()).await;
    let addr = first.local_addr();
    let host =
        within(Host::connect(config(json!({ "mcpServers": { "notes": { "url": first.url() } } })))).await.unwrap();
    assert_eq!(first_text(&within(host.call_tool("notes__echo", json!({ "text": "one" }))).await.unwrap()), "one");

    // Restarted between two calls: the new process knows no session, answers 404, and the
    // transport initializes again.
    within(first.shutdown()).await;
    let second = serve(notes_server(), addr).await;
    let echo = || host.call_tool("notes__echo", json!({ "text": "two" }));
    let mut events = host.events();
    let two = match within(echo()).await {
        Ok(two) => two,
        // The request may have gone out on a kept-alive connection to the old process that the
        // client had not seen closed yet: the host then connects again.
        Err(Error::Disconnected(reason)) => {
            assert!(reason.message.contains("closed before the server answered"), "{reason}");
            next_event(&mut events, state_is("notes", ServerState::Ready)).await;
            within(echo()).await.unwrap()
        }
        Err(e) => panic!("the call after the restart failed: {e:?}"),
    };
    assert_eq!(first_text(&two), "two");
    assert_eq!(second.http().session_count(), 1);
    assert_eq!(host.state("notes"), Some(ServerState::Ready));

    // Down during a call: the call fails, the host connects again once the server is back.
    within(second.shutdown()).await;
    match within(host.call_tool("notes__echo", json!({ "text": "three" }))).await {
        Err(Error::Disconnected(reason)) => assert!(reason.message.contains("cannot be reached"), "{reason}"),
        other => panic!("a call to a server that is down ended with {other:?}"),
    }
    next_event(&mut events, state_is("notes", ServerState::Connecting)).await;
    let third = serve(notes_server(), addr).await;
    next_event(&mut events, state_is("notes", ServerState::Ready)).await;
    assert_eq!(first_text(&within(host.call_tool("notes__echo", json!({ "text": "four" }))).await.unwrap()), "four");

    within(host.close()).await;
    within(third.shutdown()).await;
}

async fn list_changes_reach_the_view(version: &str) {
    let server = notes_server();
    let bound = serve(server.clone(), any_port()).await;
    let host = within(
        Host::builder(config(json!({ "mcpServers": { "notes": { "url": bound.url() } } })))
            .with_protocol_version(version)
            .connect(),
    )
    .await
    .unwrap();
    assert_eq!(host.client("notes").unwrap().protocol_version(), version);
    let mut events = host.events();
    server
        .add_tool(Tool::without_arguments("added", "Added later."), |_args: JsonObject, _ctx: RequestContext| async {
            Ok(CallToolResult::text("new"))
        })
        .unwrap();
    let changed = next_event(&mut events, |e| matches!(e, HostEvent::ListChanged { .. })).await;
    assert_eq!(changed, HostEvent::ListChanged { server: "notes".into(), list: ListKind::Tools });
    assert!(names(&host).contains(&"notes__added".to_owned()));
    assert_eq!(first_text(&within(host.call_tool("notes__added", json!({}))).await.unwrap()), "new");

    server
        .add_prompt(Prompt::new("later"), |_args: std::collections::HashMap<String, String>, _ctx| async {
            Ok(GetPromptResult::new(vec![]))
        })
        .unwrap();
    let changed = next_event(&mut events, |e| matches!(e, HostEvent::ListChanged { .. })).await;
    assert_eq!(changed, HostEvent::ListChanged { server: "notes".into(), list: ListKind::Prompts });
    assert!(host.prompts().iter().any(|p| p.name == "notes__later"));

    assert!(server.remove_tool("added"));
    next_event(&mut events, |e| matches!(e, HostEvent::ListChanged { list: ListKind::Tools, .. })).await;
    assert!(!names(&host).contains(&"notes__added".to_owned()));

    within(host.close()).await;
    within(bound.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_change_refreshes_the_view() {
    list_changes_reach_the_view("2025-11-25").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_change_of_a_2026_server_refreshes_the_view() {
    list_changes_reach_the_view("2026-07-28").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_keeps_a_call_alive_and_the_total_limit_ends_it() {
    let bound = serve(notes_server(), any_port()).await;
    let url = bound.url();
    let host = within(Host::connect(config(json!({ "mcpServers": {
        "patient": { "url": url, "timeoutMs": 300 },
        "strict": { "url": url, "timeoutMs": 300, "maxTotalTimeoutMs": 700 },
    } }))))
    .await
    .unwrap();

    // 8 steps of 100 ms: 800 ms in all, well past the 300 ms time-out that each step restarts.
    let steps = Arc::new(Mutex::new(0));
    let counted = steps.clone();
    let options = CallOptions::new().with_progress(move |_| *counted.lock().unwrap() += 1);
    let done = within(host.call_tool_with("patient__progress", json!({ "count": 8, "delay_ms": 100 }), options))
        .await
        .unwrap();
    assert_eq!(first_text(&done), "done 8");
    assert_eq!(*steps.lock().unwrap(), 8);

    // Silence is not kept alive.
    let silent = within(host.call_tool("patient__sleep", json!({ "ms": 1000 }))).await;
    assert!(matches!(silent, Err(Error::Timeout(t)) if t == Duration::from_millis(300)), "{silent:?}");

    // Progress does not outlive the total limit.
    let long = within(host.call_tool("strict__progress", json!({ "count": 20, "delay_ms": 100 }))).await;
    assert!(matches!(long, Err(Error::Timeout(t)) if t == Duration::from_millis(700)), "{long:?}");
    // A call's own limit replaces the server's.
    let options = CallOptions::new().with_max_total_timeout(Duration::from_secs(5));
    let done =
        within(host.call_tool_with("strict__progress", json!({ "count": 9, "delay_ms": 100 }), options)).await.unwrap();
    assert_eq!(first_text(&done), "done 9");

    // A cancelled call ends at once.
    let cancel = tokio_util::sync::CancellationToken::new();
    let options = CallOptions::new().with_cancel(cancel.clone());
    let call = tokio::spawn({
        let host = host.clone();
        async move { host.call_tool_with("patient__progress", json!({ "count": 100, "delay_ms": 100 }), options).await }
    });
    tokio::time::sleep(Duration::from_millis(150)).await;
    cancel.cancel();
    assert!(matches!(within(call).await.unwrap(), Err(Error::Cancelled)));

    within(host.close()).await;
    within(bound.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn collisions_are_reported_and_allow_and_deny_lists_filter() {
    let bound = serve(notes_server(), any_port()).await;
    let url = bound.url();
    let host = within(Host::connect(config(json!({ "mcpServers": {
        "a": { "url": url, "prefix": "" },
        "b": { "url": url, "prefix": "", "allowedTools": ["echo", "roots"] },
        "c": { "url": url, "prefix": "c", "deniedTools": ["sleep", "progress", "roots"] },
    } }))))
    .await
    .unwrap();

    // `echo` and `roots` of a and b collide: neither is offered; a's other tools keep their names.
    assert_eq!(names(&host), ["progress", "sleep", "c__echo"]);
    let collisions = host.collisions();
    let both = vec!["a".to_owned(), "b".to_owned()];
    let named: Vec<_> = collisions.iter().map(|c| (c.kind, c.name.as_str(), c.servers.clone())).collect();
    assert_eq!(
        named[..3],
        [
            (CollisionKind::Tool, "echo", both.clone()),
            (CollisionKind::Tool, "roots", both.clone()),
            (CollisionKind::Prompt, "greet", both.clone()),
        ]
    );
    // The three list the same resource and template.
    let everyone = vec!["a".to_owned(), "b".to_owned(), "c".to_owned()];
    assert!(collisions.iter().any(|c| c.kind == CollisionKind::Resource && c.servers == everyone));
    assert!(collisions.iter().any(|c| c.kind == CollisionKind::ResourceTemplate && c.servers == everyone));
    assert!(host.resources().is_empty());

    match within(host.call_tool("echo", json!({ "text": "x" }))).await {
        Err(Error::Config(message)) => assert!(message.contains("a, b"), "{message}"),
        other => panic!("calling a colliding name gave {other:?}"),
    }
    assert!(matches!(within(host.read_resource("notes://today")).await, Err(Error::Config(_))));
    assert_eq!(read_text(&within(host.read_resource_from("c", "notes://today")).await.unwrap()), "buy milk");
    // Denied tools are not offered, nor callable.
    assert_eq!(rpc_code(within(host.call_tool("c__sleep", json!({ "ms": 1 }))).await), -32602);
    assert_eq!(first_text(&within(host.call_tool("c__echo", json!({ "text": "ok" }))).await.unwrap()), "ok");

    // While b reconnects, its names no longer collide; once it is back they do again.
    let before = host.collisions();
    let mut events = host.events();
    host.restart("b").unwrap();
    let HostEvent::Collisions { collisions } =
        next_event(&mut events, |e| matches!(e, HostEvent::Collisions { .. })).await
    else {
        unreachable!()
    };
    assert!(collisions.iter().all(|c| !c.servers.contains(&"b".to_owned())), "{collisions:?}");
    next_event(&mut events, state_is("b", ServerState::Ready)).await;
    assert_eq!(host.collisions(), before);

    within(host.close()).await;
    within(bound.shutdown()).await;
}

/// The text of the first contents of a read.
fn read_text(result: &ReadResourceResult) -> String {
    serde_json::to_value(&result.contents[0]).unwrap()["text"].as_str().unwrap_or_default().to_owned()
}

/// Answers `roots/list` with one root named after the server that asks.
struct RootsPerServer;

#[async_trait::async_trait]
impl HostHandler for RootsPerServer {
    async fn list_roots(&self, server: &str, _context: IncomingRequest) -> Result<ListRootsResult, ErrorData> {
        Ok(serde_json::from_value(json!({ "roots": [{ "uri": format!("file:///work/{server}") }] })).unwrap())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_handler_is_told_which_server_asks() {
    let bound = serve(notes_server(), any_port()).await;
    let url = bound.url();
    let host = within(
        Host::builder(config(json!({ "mcpServers": { "left": { "url": url }, "right": { "url": url } } })))
            .with_capabilities(ClientCapabilities::default().with_roots(true))
            .with_handler(RootsPerServer)
            .connect(),
    )
    .await
    .unwrap();
    let left = within(host.call_tool("left__roots", json!({}))).await.unwrap();
    let right = within(host.call_tool("right__roots", json!({}))).await.unwrap();
    assert_eq!((first_text(&left), first_text(&right)), ("file:///work/left", "file:///work/right"));
    host.notify_roots_list_changed();
    within(host.close()).await;
    within(bound.shutdown()).await;
}

#[test]
fn the_configuration_reads_what_hosts_write() {
    let env = |name: &str| match name {
        "TOKEN" => Some("secret".to_owned()),
        "EMPTY" => Some(String::new()),
        _ => None,
    };
    let config = HostConfig::from_value_with_env(
        &json!({ "mcpServers": {
            "files": {
                "command": "npx", "args": ["-y", "server-files", "${HOME_DIR:-/tmp}"],
                "env": { "API_KEY": "${TOKEN}", "LEVEL": 3, "MODE": "${EMPTY:-fallback}" },
                "cwd": "/srv", "timeoutMs": 5000, "maxTotalTimeoutMs": 60000,
                "allowedTools": ["read"], "autoApprove": ["read"]
            },
            "search engine": {
                "type": "http", "url": "https://example.com/${env:TOKEN}/mcp",
                "headers": { "Authorization": "Bearer ${TOKEN}" },
                "deniedTools": ["delete"], "disabled": true,
                "oauth": { "clientId": "host", "scopes": "read write" }
            },
            "legacy": { "type": "sse", "url": "http://127.0.0.1:9/sse", "prefix": "old", "maxRestarts": 0 },
        } }),
        env,
    )
    .unwrap();
    let files = config.server("files").unwrap();
    assert_eq!(
        files.transport,
        ServerTransport::Stdio {
            command: "npx".into(),
            args: vec!["-y".into(), "server-files".into(), "/tmp".into()],
            env: [("API_KEY", "secret"), ("LEVEL", "3"), ("MODE", "fallback")]
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
            cwd: Some("/srv".into()),
        }
    );
    assert!(files.enabled);
    assert_eq!(files.prefix, "files");
    assert_eq!(files.timeout, Some(Duration::from_secs(5)));
    assert_eq!(files.max_total_timeout, Some(Duration::from_secs(60)));
    assert!(files.offers_tool("read") && !files.offers_tool("write"));

    let search = config.server("search engine").unwrap();
    let ServerTransport::Http { url, headers, legacy_sse } = &search.transport else { panic!("an HTTP server") };
    assert_eq!(url, "https://example.com/secret/mcp");
    assert_eq!(headers["Authorization"], "Bearer secret");
    assert!(!legacy_sse);
    assert!(!search.enabled);
    assert_eq!(search.prefix, "search_engine", "the default prefix is a valid tool name");
    assert!(search.offers_tool("read") && !search.offers_tool("delete"));
    let oauth = search.oauth.as_ref().unwrap();
    assert_eq!(
        (oauth.client_id.as_deref(), oauth.scopes.clone()),
        (Some("host"), Some(vec!["read".into(), "write".into()]))
    );

    let legacy = config.server("legacy").unwrap();
    assert!(matches!(&legacy.transport, ServerTransport::Http { legacy_sse: true, .. }));
    assert_eq!((legacy.prefix.as_str(), legacy.max_restarts), ("old", 0));
    assert_eq!(
        config.servers.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["files", "search engine", "legacy"]
    );

    // VS Code's `servers` key is read as well.
    let vscode =
        HostConfig::from_value_with_env(&json!({ "servers": { "x": { "type": "stdio", "command": "x" } } }), env)
            .unwrap();
    assert_eq!(vscode.servers.len(), 1);
}

#[test]
fn configuration_mistakes_name_the_server_and_the_key() {
    let cases = [
        (json!({ "s": { "command": "x", "env": { "K": "${MISSING}" } } }), "env.K", "MISSING is not set"),
        (json!({ "s": { "command": "x", "args": ["ok", 3] } }), "args[1]", "not a string"),
        (json!({ "s": { "command": "x", "url": "http://h" } }), "command", "not both"),
        (json!({ "s": { "url": "ftp://h" } }), "url", "not an http"),
        (json!({ "s": { "type": "websocket", "url": "ws://h" } }), "type", "websocket"),
        (json!({ "s": { "type": "stdio" } }), "command", "missing"),
        (json!({ "s": {} }), "command", "neither"),
        (json!({ "s": { "command": "x", "timeoutMs": "soon" } }), "timeoutMs", "milliseconds"),
        (json!({ "s": { "command": "x", "timeoutMs": 0 } }), "timeoutMs", "more than 0"),
        (json!({ "s": { "command": "x", "enabled": "yes" } }), "enabled", "true or false"),
        (json!({ "s": { "command": "x", "allowedTools": "read" } }), "allowedTools", "array"),
        (json!({ "s": { "command": "x", "prefix": "a b" } }), "prefix", "tool name"),
        (json!({ "s": { "command": "${UNCLOSED" } }), "command", "without its }"),
        (
            json!({ "s": { "url": "http://h", "oauth": { "grant": "client_credentials" } } }),
            "oauth.grant",
            "clientSecret",
        ),
        (json!({ "s": "npx server" }), "(entry)", "not an object"),
    ];
    for (servers, key, what) in cases {
        let value = json!({ "mcpServers": servers });
        match HostConfig::from_value_with_env(&value, |_| None) {
            Err(Error::Config(message)) => {
                assert!(
                    message.contains("server \"s\"") && message.contains(key) && message.contains(what),
                    "{message}"
                );
            }
            other => panic!("{value} was read as {other:?}"),
        }
    }
    assert!(matches!(HostConfig::parse("{ not json"), Err(Error::Config(_))));
    assert!(matches!(HostConfig::from_file("/nonexistent/mcp.json"), Err(Error::Config(_))));
    assert!(HostConfig::parse("{}").unwrap().servers.is_empty());
}

#[tokio::test]
async fn a_bad_separator_is_refused() {
    let builder = Host::builder(HostConfig::default()).with_separator("::");
    assert!(matches!(builder.start(), Err(Error::Config(_))));
    let host = Host::builder(HostConfig::default()).with_separator(".").connect().await.unwrap();
    assert!(host.servers().is_empty() && host.tools().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_call_runs_as_a_task_on_the_server_that_offers_it() {
    let tasks = mcpweft::server::TaskOptions::new().with_poll_interval(Duration::from_millis(20));
    let jobs = Server::builder(Implementation::new("jobs", "1.0.0"))
        .tasks(tasks)
        .tool(
            Tool::new("build", "Builds slowly.", object_schema(json!({ "ms": { "type": "integer" } })))
                .with_task_support(TaskSupport::Optional),
            |args: JsonObject, _ctx: RequestContext| async move {
                let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Ok(CallToolResult::text(format!("built in {ms} ms")))
            },
        )
        .build()
        .expect("a valid server");
    let jobs = serve(jobs, any_port()).await;
    let notes = serve(notes_server(), any_port()).await;
    let host = within(Host::connect(config(json!({ "mcpServers": {
        "jobs": { "type": "http", "url": jobs.url() },
        "notes": { "type": "http", "url": notes.url() },
    } }))))
    .await
    .unwrap();

    let task = within(host.call_tool_as_task("jobs__build", json!({ "ms": 50 }), Some(60_000), CallOptions::new()))
        .await
        .unwrap();
    assert_eq!(task.server, "jobs");
    let id = task.created.task.task_id.clone();
    let state = within(host.get_task("jobs", &id, CallOptions::new())).await.unwrap();
    assert_eq!(state.task.task_id, id);
    let result = within(host.task_result("jobs", &id, CallOptions::new())).await.unwrap();
    assert_eq!(first_text(&result), "built in 50 ms");

    // A long task is cancelled on its server; its final state says so.
    let long =
        within(host.call_tool_as_task("jobs__build", json!({ "ms": 60_000 }), None, CallOptions::new())).await.unwrap();
    let cancelled = within(host.cancel_task("jobs", &long.created.task.task_id, CallOptions::new())).await.unwrap();
    assert_eq!(cancelled.task.status, TaskStatus::Cancelled);

    // A server without tasks refuses before anything is sent; unknown names are errors.
    let refused = host.call_tool_as_task("notes__echo", json!({ "text": "x" }), None, CallOptions::new()).await;
    assert!(matches!(refused, Err(Error::CapabilityMissing(_))), "{refused:?}");
    let unknown = host.get_task("nobody", &id, CallOptions::new()).await;
    assert!(matches!(unknown, Err(Error::Config(_))), "{unknown:?}");
    host.close().await;
    jobs.shutdown().await;
    notes.shutdown().await;
}
