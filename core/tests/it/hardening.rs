//! Hostile and careless peers over byte streams: input that used to stall the reader, floods
//! of requests, peers that do not read, and values JSON cannot carry. Each test failed before
//! the limit or the fix it names.

use std::{
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use crate::common::*;
use async_trait::async_trait;
use mcpweft::{
    ClientHandler, Error, ErrorData, RequestContext, RequestOptions, Server, model::*, server::Json,
    transport::StreamTransport,
};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};
use tokio::{
    io::{AsyncBufReadExt, AsyncWriteExt, BufReader},
    sync::Notify,
};

/// A server whose only resource template makes a backtracking matcher try every way of
/// splitting the URI between three variables.
fn template_server(max_uri_length: Option<usize>) -> Server {
    let mut builder = Server::builder(Implementation::new("files", "1")).resource_template(
        ResourceTemplate::new("files://{+a}{+b}{+c}.txt", "files"),
        |request: mcpweft::server::ResourceRequest, _ctx: RequestContext| async move {
            let text = request.variables.len().to_string();
            Ok(ReadResourceResult::new(vec![ResourceContents::text(request.uri, text)]))
        },
    );
    if let Some(max) = max_uri_length {
        builder = builder.max_uri_length(max);
    }
    builder.build().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pathological_uri_neither_stalls_the_session_nor_hides_the_end_of_input() {
    let server = template_server(None);
    let (mut raw, _session, task) = raw_server(&server, None);
    raw.initialize().await;
    // Three variables and no match: a backtracking matcher takes time cubic in the length.
    let uri = format!("files://{}!", "a".repeat(6000));
    raw.send(json!({ "jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": { "uri": uri } })).await;
    raw.send(json!({ "jsonrpc": "2.0", "id": 2, "method": "ping" })).await;
    let mut answers = [raw.recv().await, raw.recv().await];
    answers.sort_by_key(|a| a["id"].as_i64());
    assert_error(&answers[0], -32002);
    assert_eq!(answers[1]["result"], json!({}));
    // A long URI that matches is read, with the shortest values for the first variables.
    let uri = format!("files://{}.txt", "b".repeat(6000));
    let response = raw.request(json!(3), "resources/read", json!({ "uri": uri })).await;
    assert_eq!(response["result"]["contents"][0]["text"], "3");
    raw.shutdown().await;
    assert_eq!(raw.recv_line().await, None);
    within(task).await.unwrap();
}

#[tokio::test]
async fn uris_over_the_limit_are_refused_with_the_limit_named() {
    let server = template_server(Some(64));
    let (mut raw, _session, _task) = raw_server(&server, None);
    raw.initialize().await;
    let long = format!("files://{}.txt", "x".repeat(60));
    for (id, method) in [(1, "resources/read"), (2, "resources/subscribe"), (3, "resources/unsubscribe")] {
        let response = raw.request(json!(id), method, json!({ "uri": long })).await;
        let message = assert_error(&response, -32602);
        assert!(message.contains("at most 64"), "{method}: {message}");
    }
    let short = format!("files://{}.txt", "x".repeat(10));
    let response = raw.request(json!(4), "resources/read", json!({ "uri": short })).await;
    assert!(response.get("result").is_some(), "{response}");
    assert_eq!(mcpweft::server::ServerOptions::default().max_uri_length, mcpweft::server::DEFAULT_MAX_URI_LENGTH);
}

/// A server with a `wait` tool that holds every call until released, counting calls started.
#[tokio::test]
async fn subscriptions_beyond_the_limit_are_refused_with_the_limit_named() {
    let server = Server::builder(Implementation::new("files", "1"))
        .resource_template(
            ResourceTemplate::new("files://{name}", "files"),
            |request: mcpweft::server::ResourceRequest, _ctx: RequestContext| async move {
                Ok(ReadResourceResult::new(vec![ResourceContents::text(request.uri, "x")]))
            },
        )
        .max_subscriptions(3)
        .build()
        .unwrap();
    let (mut raw, _session, _task) = raw_server(&server, None);
    raw.initialize().await;
    for id in 0..3 {
        let response = raw.request(json!(id), "resources/subscribe", json!({ "uri": format!("files://{id}") })).await;
        assert_eq!(response["result"], json!({}), "{response}");
    }
    // Subscribing again to a resource already subscribed to takes no more room.
    let again = raw.request(json!(10), "resources/subscribe", json!({ "uri": "files://0" })).await;
    assert_eq!(again["result"], json!({}), "{again}");
    let refused = raw.request(json!(11), "resources/subscribe", json!({ "uri": "files://3" })).await;
    assert!(assert_error(&refused, -32602).contains("subscribed to 3 resources"), "{refused}");
    let freed = raw.request(json!(12), "resources/unsubscribe", json!({ "uri": "files://1" })).await;
    assert_eq!(freed["result"], json!({}), "{freed}");
    let accepted = raw.request(json!(13), "resources/subscribe", json!({ "uri": "files://3" })).await;
    assert_eq!(accepted["result"], json!({}), "{accepted}");
    assert_eq!(mcpweft::server::ServerOptions::default().max_subscriptions, mcpweft::server::DEFAULT_MAX_SUBSCRIPTIONS);
}

fn waiting_server(max_in_flight: usize, started: Arc<AtomicUsize>, release: Arc<Notify>) -> Server {
    Server::builder(Implementation::new("wait", "1"))
        .max_in_flight_requests(max_in_flight)
        .tool(Tool::without_arguments("wait", "Waits."), move |_args: JsonObject, _ctx: RequestContext| {
            let (started, release) = (started.clone(), release.clone());
            async move {
                started.fetch_add(1, Ordering::SeqCst);
                release.notified().await;
                Ok(CallToolResult::text("released"))
            }
        })
        .build()
        .unwrap()
}

#[tokio::test]
async fn requests_beyond_the_in_flight_limit_are_refused_with_a_clear_error() {
    let started = Arc::new(AtomicUsize::new(0));
    let release = Arc::new(Notify::new());
    let server = waiting_server(4, started.clone(), release.clone());
    let (mut raw, _session, _task) = raw_server(&server, None);
    raw.initialize().await;
    for id in 1..=6 {
        raw.send(json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": "wait" } })).await;
    }
    for id in [5, 6] {
        let response = raw.recv().await;
        assert_eq!(response["id"], id);
        let message = assert_error(&response, mcpweft::jsonrpc::TOO_MANY_REQUESTS);
        assert!(message.contains("at most 4"), "{message}");
        assert_eq!(response["error"]["data"]["limit"], 4);
    }
    eventually("four calls run", || started.load(Ordering::SeqCst) == 4).await;
    for _ in 0..4 {
        release.notify_one();
        assert_eq!(raw.recv().await["result"]["content"][0]["text"], "released");
    }
    // Room again: the next call is taken.
    raw.send(json!({ "jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": { "name": "wait" } })).await;
    eventually("the fifth call runs", || started.load(Ordering::SeqCst) == 5).await;
    release.notify_one();
    assert_eq!(raw.recv().await["id"], 7);
}

#[tokio::test]
async fn the_default_in_flight_limit_lets_many_pipelined_calls_run() {
    let started = Arc::new(AtomicUsize::new(0));
    let release = Arc::new(Notify::new());
    let server = Server::builder(Implementation::new("wait", "1"))
        .tool(Tool::without_arguments("wait", "Waits."), {
            let (started, release) = (started.clone(), release.clone());
            move |_args: JsonObject, _ctx: RequestContext| {
                let (started, release) = (started.clone(), release.clone());
                async move {
                    started.fetch_add(1, Ordering::SeqCst);
                    release.notified().await;
                    Ok(CallToolResult::text("released"))
                }
            }
        })
        .build()
        .unwrap();
    let (mut raw, _session, _task) = raw_server(&server, None);
    raw.initialize().await;
    let limit = mcpweft::session::DEFAULT_MAX_IN_FLIGHT;
    let mut batch = String::new();
    for id in 0..=limit {
        batch.push_str(
            &json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": "wait" } }).to_string(),
        );
        batch.push('\n');
    }
    raw.send_bytes(batch.as_bytes()).await;
    let refused = raw.recv().await;
    assert_eq!(refused["id"], limit);
    assert_error(&refused, mcpweft::jsonrpc::TOO_MANY_REQUESTS);
    eventually("every admitted call runs", || started.load(Ordering::SeqCst) == limit).await;
    release.notify_waiters();
    for _ in 0..limit {
        assert_eq!(raw.recv().await["result"]["content"][0]["text"], "released");
    }
}

#[derive(Serialize, JsonSchema)]
struct Stats {
    mean: f64,
}

#[tokio::test]
async fn nan_and_infinities_from_a_handler_are_errors_not_null() {
    let server = Server::builder(Implementation::new("stats", "1"))
        .typed_tool(
            "mean",
            "Averages nothing.",
            |_args: JsonObject, _ctx| async move { Json(Stats { mean: f64::NAN }) },
        )
        .tool(
            Tool::without_arguments("progress", "Reports NaN progress."),
            |_args: JsonObject, ctx: RequestContext| async move {
                let outcome = ctx.report_progress(f64::INFINITY, None, None);
                Ok(CallToolResult::text(format!("{}", outcome.is_err())))
            },
        )
        .build()
        .unwrap();
    let (client, _events, _session) = connect(&server).await;
    let outcome = within(client.call_tool("mean", json!({}))).await;
    let Err(Error::Rpc(error)) = outcome else { panic!("expected an error, got {outcome:?}") };
    assert_eq!(error.code, -32603);
    assert!(error.message.contains("not a JSON number"), "{}", error.message);
    let options = mcpweft::RequestOptions::new().with_progress(|_| {});
    let params = CallToolRequestParams::new("progress", JsonObject::new());
    let result = within(client.call_tool_with(params, options)).await.unwrap();
    assert_eq!(first_text(&result), "true");
}

#[tokio::test]
async fn a_long_unknown_method_is_not_echoed_in_full() {
    let server = echo_server();
    let (mut raw, _session, _task) = raw_server(&server, None);
    raw.initialize().await;
    let method = "m".repeat(512 * 1024);
    raw.send(json!({ "jsonrpc": "2.0", "id": 1, "method": method })).await;
    let line = raw.recv_line().await.unwrap();
    assert!(line.len() < 512, "{} bytes echoed", line.len());
    let response: Value = serde_json::from_str(&line).unwrap();
    assert_error(&response, -32601);
    // A long unknown tool name is cut too.
    let response = raw.request(json!(2), "tools/call", json!({ "name": "t".repeat(100_000) })).await;
    assert!(assert_error(&response, -32602).len() < 512);
}

#[tokio::test]
async fn arrays_and_duplicate_keys_are_refused_with_the_real_reason() {
    let server = echo_server();
    let (mut raw, _session, _task) = raw_server(&server, None);
    raw.initialize().await;
    // Positional items that look like a request are not executed as one.
    raw.send_line(r#"["2.0", 1, "tools/call", {"name": "echo", "arguments": {"text": "ran"}}]"#).await;
    let response = raw.recv().await;
    let message = assert_error(&response, -32600);
    assert!(message.contains("batches are not supported"), "{message}");
    raw.send_line(r#"{"jsonrpc":"2.0","id":2,"method":"ping","method":"tools/list"}"#).await;
    let message = assert_error(&raw.recv().await, -32600);
    assert!(message.contains(r#"duplicate key "method""#), "{message}");
    assert_eq!(raw.request(json!(3), "ping", json!({})).await["result"], json!({}));
}

/// A client handler whose log handler blocks until released.
struct StuckLogHandler(Arc<Notify>);

#[async_trait]
impl ClientHandler for StuckLogHandler {
    async fn on_log_message(&self, _params: LoggingMessageNotificationParams) {
        self.0.notified().await;
    }
}

#[tokio::test]
async fn a_stuck_notification_handler_does_not_stop_the_session_reading() {
    let server = Server::builder(Implementation::new("logger", "1"))
        .tool(Tool::without_arguments("log", "Logs twice."), |_args: JsonObject, ctx: RequestContext| async move {
            ctx.log(LoggingLevel::Info, None, "one").map_err(|e| ErrorData::internal_error(e.to_string()))?;
            ctx.log(LoggingLevel::Info, None, "two").map_err(|e| ErrorData::internal_error(e.to_string()))?;
            Ok(CallToolResult::text("logged"))
        })
        .build()
        .unwrap();
    let release = Arc::new(Notify::new());
    let (client, _session, _task) = connect_with(&server, full_options(), StuckLogHandler(release.clone())).await;
    let result = within(client.call_tool("log", json!({}))).await.unwrap();
    assert_eq!(first_text(&result), "logged");
    within(client.ping()).await.unwrap();
    release.notify_waiters();
}

/// A client handler whose log handler is slow and counts what it handled.
struct SlowLogHandler(Arc<AtomicUsize>);

#[async_trait]
impl ClientHandler for SlowLogHandler {
    async fn on_log_message(&self, _params: LoggingMessageNotificationParams) {
        tokio::time::sleep(Duration::from_millis(40)).await;
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[tokio::test]
async fn closing_a_client_still_hands_it_the_notifications_it_received() {
    let server = Server::builder(Implementation::new("logger", "1"))
        .tool(
            Tool::without_arguments("log", "Logs three times."),
            |_args: JsonObject, ctx: RequestContext| async move {
                for text in ["one", "two", "three"] {
                    ctx.log(LoggingLevel::Info, None, text).map_err(|e| ErrorData::internal_error(e.to_string()))?;
                }
                Ok(CallToolResult::text("logged"))
            },
        )
        .build()
        .unwrap();
    let handled = Arc::new(AtomicUsize::new(0));
    let (client, _session, _task) = connect_with(&server, full_options(), SlowLogHandler(handled.clone())).await;
    let result = within(client.call_tool("log", json!({}))).await.unwrap();
    assert_eq!(first_text(&result), "logged");
    // The result came after the three messages, whose handler has not finished them yet.
    assert!(handled.load(Ordering::SeqCst) < 3);
    within(client.close()).await;
    assert_eq!(handled.load(Ordering::SeqCst), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_does_not_read_cannot_make_the_server_queue_without_bound() {
    let server = Server::builder(Implementation::new("flood", "1"))
        .max_queued_messages(8)
        .tool(
            Tool::without_arguments("flood", "Logs until refused."),
            |_args: JsonObject, ctx: RequestContext| async move {
                let chunk = "z".repeat(2048);
                for sent in 0..10_000 {
                    if let Err(e) = ctx.log(LoggingLevel::Info, None, chunk.as_str()) {
                        assert!(matches!(e, Error::QueueFull), "{e}");
                        return Ok(CallToolResult::text(sent.to_string()));
                    }
                }
                Ok(CallToolResult::text("never refused"))
            },
        )
        .build()
        .unwrap();
    // A pipe of 8 KiB: the server's writer blocks after a few log messages.
    let (ours, theirs) = tokio::io::duplex(8 * 1024);
    let (their_r, their_w) = tokio::io::split(theirs);
    let _session = server.serve(StreamTransport::new(their_r, their_w));
    let (r, mut w) = tokio::io::split(ours);
    let mut lines = BufReader::new(r).lines();
    let mut send = async |value: Value| {
        let mut line = value.to_string();
        line.push('\n');
        within(w.write_all(line.as_bytes())).await.unwrap();
    };
    send(json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "raw", "version": "1" } } }))
    .await;
    within(lines.next_line()).await.unwrap().unwrap();
    send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).await;
    send(json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "name": "flood" } })).await;
    // Only now read: the tool was refused long before its ten thousandth message.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut logs = 0;
    let sent = loop {
        let line = within(lines.next_line()).await.unwrap().expect("a line");
        let value: Value = serde_json::from_str(&line).unwrap();
        if value["id"] == 1 {
            break value["result"]["content"][0]["text"].as_str().unwrap().parse::<usize>().expect("a count");
        }
        logs += 1;
    };
    assert_eq!(logs, sent);
    assert!(sent < 64, "{sent} messages were queued for a client that did not read");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_does_not_read_large_answers_holds_the_server_to_its_byte_bound() {
    let served = Arc::new(AtomicUsize::new(0));
    let counted = served.clone();
    let server = Server::builder(Implementation::new("large", "1"))
        .max_queued_bytes(1024 * 1024)
        .tool(Tool::without_arguments("large", "Answers 256 KiB."), move |_args: JsonObject, _ctx: RequestContext| {
            counted.fetch_add(1, Ordering::SeqCst);
            async move { Ok(CallToolResult::text("L".repeat(256 * 1024))) }
        })
        .build()
        .unwrap();
    let (ours, theirs) = tokio::io::duplex(8 * 1024);
    let (their_r, their_w) = tokio::io::split(theirs);
    let _session = server.serve(StreamTransport::new(their_r, their_w));
    let (r, mut w) = tokio::io::split(ours);
    let mut lines = BufReader::new(r).lines();
    let line = |value: Value| format!("{value}\n");
    let init = json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "raw", "version": "1" } } });
    within(w.write_all(line(init).as_bytes())).await.unwrap();
    within(lines.next_line()).await.unwrap().unwrap();
    within(w.write_all(line(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).as_bytes()))
        .await
        .unwrap();
    let call = move |id: i64| {
        line(json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": "large" } }))
    };
    // Two calls, one at a time: the first answer fills the pipe, the second waits in the queue.
    for id in 1..=2 {
        within(w.write_all(call(id).as_bytes())).await.unwrap();
        eventually("the call is served", || served.load(Ordering::SeqCst) == id as usize).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    // Then 248 calls for 62 MiB of answers, none of which is read for now.
    let writer = tokio::spawn(async move {
        for id in 3..=250 {
            w.write_all(call(id).as_bytes()).await.unwrap();
        }
        w
    });
    // The server reads requests until about a megabyte of answers is unread, then no further.
    let mut held = served.load(Ordering::SeqCst);
    loop {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let now = served.load(Ordering::SeqCst);
        if now == held {
            break;
        }
        held = now;
    }
    assert!(held <= 2 + 8, "{held} requests were read while a megabyte of answers was unread");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(served.load(Ordering::SeqCst), held, "requests were read while a megabyte of answers was unread");
    // Reading now, every call is answered: nothing was lost, only held back.
    for _ in 0..250 {
        let line = within(lines.next_line()).await.unwrap().expect("a line");
        let value: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(value["result"]["content"][0]["text"].as_str().map(str::len), Some(256 * 1024), "{}", &line[..80]);
    }
    within(writer).await.unwrap();
    assert_eq!(served.load(Ordering::SeqCst), 250);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_faster_than_the_peer_reads_is_coalesced_not_refused() {
    const STEPS: u32 = 20_000;
    let server = Server::builder(Implementation::new("eager", "1"))
        .max_queued_messages(8)
        .tool(
            Tool::without_arguments("steps", "Reports progress in a tight loop."),
            |_args: JsonObject, ctx: RequestContext| async move {
                for step in 1..=STEPS {
                    ctx.report_progress(f64::from(step), Some(f64::from(STEPS)), None)
                        .map_err(|e| ErrorData::internal_error(format!("step {step}: {e}")))?;
                }
                Ok(CallToolResult::text("done"))
            },
        )
        .build()
        .unwrap();
    let (client, _events, _session) = connect(&server).await;
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let options = RequestOptions::new().with_progress({
        let seen = seen.clone();
        move |p: ProgressNotificationParams| seen.lock().unwrap().push(p.progress)
    });
    let result = within(client.call_tool_with(CallToolRequestParams::new("steps", JsonObject::new()), options)).await;
    assert_eq!(first_text(&result.unwrap()), "done");
    let seen = seen.lock().unwrap().clone();
    assert!(!seen.is_empty() && seen.len() < STEPS as usize, "{} progress notifications", seen.len());
    assert!(seen.windows(2).all(|w| w[0] < w[1]), "progress went back");
}

#[tokio::test]
async fn a_panicking_handler_fails_its_request_and_the_session_goes_on() {
    let (client, _events, _session) = connect(&panicking_server()).await;
    for tool in ["boom", "later"] {
        let outcome = within(client.call_tool(tool, json!({}))).await;
        let Err(Error::Rpc(error)) = outcome else { panic!("{tool}: expected an error, got {outcome:?}") };
        assert_eq!(error.code, -32603, "{tool}");
        assert!(error.message.contains("panicked"), "{tool}: {}", error.message);
    }
    let result = within(client.call_tool("fine", json!({}))).await.unwrap();
    assert_eq!(first_text(&result), "fine");
}
