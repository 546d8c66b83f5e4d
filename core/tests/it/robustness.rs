//! Robustness over raw bytes: malformed input, wrong types, batches, oversized lines, and
//! peers that disappear. One bad message never takes a session down.

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use crate::common::*;
use mcpweft::{Client, ClientOptions, Error, RequestContext, Server, model::*, transport::StreamTransport};
use serde_json::{Value, json};
use tokio::sync::Notify;

/// Sends a valid request and checks it is answered, proving the session survived.
async fn still_serving(raw: &mut RawPeer, id: i64) {
    let response =
        raw.request(json!(id), "tools/call", json!({ "name": "echo", "arguments": { "text": "alive" } })).await;
    assert_eq!(response["result"]["content"][0]["text"], "alive", "{response}");
}

async fn initialized_raw(max: Option<usize>) -> (RawPeer, tokio::task::JoinHandle<()>) {
    let server = echo_server();
    let (mut raw, _session, task) = raw_server(&server, max);
    raw.initialize().await;
    (raw, task)
}

#[tokio::test]
async fn malformed_json_is_a_parse_error_without_id() {
    let (mut raw, _task) = initialized_raw(None).await;
    for (n, line) in [
        r#"{"jsonrpc":"2.0","id":1,"method":"ping""#,
        "not json at all",
        r#"{"jsonrpc":"2.0","id":1,"method":"ping",}"#,
        "{",
    ]
    .into_iter()
    .enumerate()
    {
        raw.send_line(line).await;
        let response = raw.recv().await;
        assert_error(&response, -32700);
        assert!(response.get("id").is_none(), "a parse error has no id key: {response}");
        assert_eq!(response["jsonrpc"], "2.0");
        still_serving(&mut raw, n as i64 + 100).await;
    }
}

#[tokio::test]
async fn invalid_utf8_is_a_parse_error() {
    let (mut raw, _task) = initialized_raw(None).await;
    let mut bytes = br#"{"jsonrpc":"2.0","id":1,"method":"pi"#.to_vec();
    bytes.extend_from_slice(&[0xff, 0xfe]);
    bytes.extend_from_slice(b"ng\"}\n");
    raw.send_bytes(&bytes).await;
    let response = raw.recv().await;
    assert_error(&response, -32700);
    assert!(response.get("id").is_none(), "{response}");
    still_serving(&mut raw, 1).await;
}

#[tokio::test]
async fn wrong_types_get_the_right_codes() {
    let (mut raw, _task) = initialized_raw(None).await;
    // id is an object: invalid request, and the id cannot be echoed.
    raw.send(json!({ "jsonrpc": "2.0", "id": { "a": 1 }, "method": "ping" })).await;
    let response = raw.recv().await;
    assert_error(&response, -32600);
    assert!(response.get("id").is_none(), "{response}");
    still_serving(&mut raw, 1).await;

    // id is null: forbidden by MCP.
    raw.send(json!({ "jsonrpc": "2.0", "id": null, "method": "ping" })).await;
    let response = raw.recv().await;
    assert_error(&response, -32600);
    assert!(response.get("id").is_none(), "{response}");
    still_serving(&mut raw, 2).await;

    // params is an array: invalid params, id echoed.
    raw.send(json!({ "jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": [1, 2] })).await;
    let response = raw.recv().await;
    assert_error(&response, -32602);
    assert_eq!(response["id"], 7);
    still_serving(&mut raw, 3).await;

    // method is a number: invalid request, id echoed.
    raw.send(json!({ "jsonrpc": "2.0", "id": "m", "method": 42 })).await;
    let response = raw.recv().await;
    assert_error(&response, -32600);
    assert_eq!(response["id"], "m");
    still_serving(&mut raw, 4).await;

    // Wrong or missing jsonrpc version.
    raw.send(json!({ "jsonrpc": "1.0", "id": 8, "method": "ping" })).await;
    let response = raw.recv().await;
    assert_error(&response, -32600);
    assert_eq!(response["id"], 8);
    raw.send(json!({ "id": 9, "method": "ping" })).await;
    let response = raw.recv().await;
    assert_error(&response, -32600);
    assert_eq!(response["id"], 9);
    still_serving(&mut raw, 5).await;

    // Neither a method, a result nor an error.
    raw.send(json!({ "jsonrpc": "2.0", "id": 10 })).await;
    assert_error(&raw.recv().await, -32600);
    // A JSON value that is not an object.
    raw.send_line(r#""hello""#).await;
    assert_error(&raw.recv().await, -32600);
    raw.send_line("42").await;
    assert_error(&raw.recv().await, -32600);
    still_serving(&mut raw, 6).await;

    // Params of the wrong shape for the method.
    let response = raw.request(json!(11), "tools/call", json!({ "name": 5 })).await;
    assert_error(&response, -32602);
    let response = raw.request(json!(12), "tools/list", json!({ "cursor": 5 })).await;
    assert_error(&response, -32602);
    still_serving(&mut raw, 7).await;
}

#[tokio::test]
async fn unknown_methods_echo_the_id_with_its_type() {
    let (mut raw, _task) = initialized_raw(None).await;
    raw.send(json!({ "jsonrpc": "2.0", "id": "abc", "method": "no/such/method" })).await;
    let line = raw.recv_line().await.unwrap();
    let response: Value = serde_json::from_str(&line).unwrap();
    assert_error(&response, -32601);
    assert_eq!(response["id"], json!("abc"));
    assert!(line.contains(r#""id":"abc""#), "the id stays a string on the wire: {line}");

    raw.send(json!({ "jsonrpc": "2.0", "id": 123, "method": "no/such/method" })).await;
    let line = raw.recv_line().await.unwrap();
    assert!(line.contains(r#""id":123"#), "the id stays a number on the wire: {line}");
    raw.send(json!({ "jsonrpc": "2.0", "id": "123", "method": "no/such/method" })).await;
    let line = raw.recv_line().await.unwrap();
    assert!(line.contains(r#""id":"123""#), "a numeric-looking string stays a string: {line}");
    raw.send(json!({ "jsonrpc": "2.0", "id": -5, "method": "no/such/method" })).await;
    assert_eq!(raw.recv().await["id"], -5);

    // Tasks methods are not offered by this server.
    let response = raw.request(json!(1), "tasks/list", json!({})).await;
    assert_error(&response, -32601);
    still_serving(&mut raw, 2).await;
}

#[tokio::test]
async fn batches_are_invalid_requests() {
    let (mut raw, _task) = initialized_raw(None).await;
    raw.send(json!([
        { "jsonrpc": "2.0", "id": 1, "method": "ping" },
        { "jsonrpc": "2.0", "id": 2, "method": "ping" }
    ]))
    .await;
    let response = raw.recv().await;
    assert!(response.is_object(), "a single error object, not a batch answer: {response}");
    assert_error(&response, -32600);
    assert!(response.get("id").is_none());
    raw.send_line("[]").await;
    assert_error(&raw.recv().await, -32600);
    still_serving(&mut raw, 3).await;
}

#[tokio::test]
async fn oversized_lines_are_refused_and_the_session_goes_on() {
    let (mut raw, _task) = initialized_raw(Some(1024)).await;
    let big = "x".repeat(5000);
    raw.send(json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "name": "echo", "arguments": { "text": big } } }))
        .await;
    let response = raw.recv().await;
    assert_error(&response, -32600);
    still_serving(&mut raw, 2).await;

    // Several oversized lines in one write, followed by a valid request in the same write.
    let mut chunk = Vec::new();
    for _ in 0..3 {
        chunk.extend_from_slice(
            format!(r#"{{"jsonrpc":"2.0","id":9,"method":"ping","params":{{"pad":"{}"}}}}"#, "y".repeat(3000))
                .as_bytes(),
        );
        chunk.push(b'\n');
    }
    chunk.extend_from_slice(br#"{"jsonrpc":"2.0","id":10,"method":"ping"}"#);
    chunk.push(b'\n');
    raw.send_bytes(&chunk).await;
    for _ in 0..3 {
        assert_error(&raw.recv().await, -32600);
    }
    assert_eq!(raw.recv().await, json!({ "jsonrpc": "2.0", "id": 10, "result": {} }));

    // A message just under the limit is fine.
    let text = "z".repeat(900);
    let response = raw.request(json!(11), "tools/call", json!({ "name": "echo", "arguments": { "text": text } })).await;
    assert_eq!(response["result"]["content"][0]["text"].as_str().unwrap().len(), 900);
}

#[tokio::test]
async fn blank_lines_crlf_and_stray_messages_are_tolerated() {
    let (mut raw, _task) = initialized_raw(None).await;
    raw.send_line("").await;
    raw.send_line("   ").await;
    raw.send_line("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r").await;
    assert_eq!(raw.recv().await, json!({ "jsonrpc": "2.0", "id": 1, "result": {} }));
    // A response to nothing, an error to nothing, an unknown notification, a broken
    // notification: none is answered.
    raw.send(json!({ "jsonrpc": "2.0", "id": 77, "result": {} })).await;
    raw.send(json!({ "jsonrpc": "2.0", "id": 78, "error": { "code": -1, "message": "x" } })).await;
    raw.send(json!({ "jsonrpc": "2.0", "error": { "code": -32700, "message": "you sent junk" } })).await;
    raw.send(json!({ "jsonrpc": "2.0", "method": "notifications/whatever", "params": { "a": 1 } })).await;
    raw.send(json!({ "jsonrpc": "2.0", "method": 5 })).await;
    raw.send(json!({ "jsonrpc": "2.0", "method": "notifications/progress", "params": [] })).await;
    raw.send(json!({ "jsonrpc": "2.0", "method": "notifications/progress", "params": { "progressToken": 1 } })).await;
    // Extra unknown keys on a request are tolerated.
    raw.send(json!({ "jsonrpc": "2.0", "id": 2, "method": "ping", "extra": true })).await;
    assert_eq!(raw.recv().await, json!({ "jsonrpc": "2.0", "id": 2, "result": {} }));
    still_serving(&mut raw, 3).await;
}

#[tokio::test]
async fn a_reused_in_flight_id_is_refused() {
    let started = Arc::new(Notify::new());
    let release = Arc::new(Notify::new());
    let server = Server::builder(Implementation::new("wait", "1"))
        .tool(Tool::without_arguments("wait", "Waits."), {
            let (started, release) = (started.clone(), release.clone());
            move |_args: JsonObject, _ctx: RequestContext| {
                let (started, release) = (started.clone(), release.clone());
                async move {
                    started.notify_one();
                    release.notified().await;
                    Ok(CallToolResult::text("released"))
                }
            }
        })
        .build()
        .unwrap();
    let (mut raw, _session, _task) = raw_server(&server, None);
    raw.initialize().await;
    raw.send(json!({ "jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": { "name": "wait" } })).await;
    within(started.notified()).await;
    raw.send(json!({ "jsonrpc": "2.0", "id": 5, "method": "ping" })).await;
    let response = raw.recv().await;
    assert_error(&response, -32600);
    assert_eq!(response["id"], 5);
    release.notify_one();
    let response = raw.recv().await;
    assert_eq!(response["id"], 5);
    assert_eq!(response["result"]["content"][0]["text"], "released");
    // Once answered, the id may be used again.
    assert_eq!(raw.request(json!(5), "ping", json!({})).await["result"], json!({}));
}

fn slow_server(started: Arc<Notify>, dropped: Arc<AtomicBool>) -> Server {
    Server::builder(Implementation::new("slow", "1"))
        .tool(Tool::without_arguments("slow", "Takes forever."), move |_args: JsonObject, _ctx: RequestContext| {
            let (started, dropped) = (started.clone(), dropped.clone());
            async move {
                let _guard = DropGuard(dropped);
                started.notify_one();
                tokio::time::sleep(Duration::from_secs(60)).await;
                Ok(CallToolResult::text("finished"))
            }
        })
        .build()
        .unwrap()
}

#[tokio::test]
async fn the_server_session_ends_when_the_client_vanishes_mid_request() {
    let started = Arc::new(Notify::new());
    let dropped = Arc::new(AtomicBool::new(false));
    let server = slow_server(started.clone(), dropped.clone());
    let (mut raw, session, task) = raw_server(&server, None);
    raw.initialize().await;
    raw.send(json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "name": "slow" } })).await;
    within(started.notified()).await;
    drop(raw);
    // Running handlers get a bounded grace period, then the session ends and they stop.
    within_for(Duration::from_secs(10), task).await.expect("the session task ends cleanly");
    assert!(dropped.load(Ordering::SeqCst), "the handler was stopped");
    assert!(session.peer().is_closed());
    assert!(matches!(within(session.peer().ping()).await, Err(Error::TransportClosed)));
}

#[tokio::test]
async fn a_client_waiting_on_a_vanished_server_gets_transport_closed() {
    // A fake server that takes the call and then disappears.
    let (mut fake, r, w) = raw_pipe();
    let connecting = tokio::spawn(Client::connect(StreamTransport::new(r, w), ClientOptions::new("c", "1")));
    let init = fake.recv().await;
    fake.send(json!({ "jsonrpc": "2.0", "id": init["id"], "result": {
        "protocolVersion": "2025-11-25", "capabilities": { "tools": {} }, "serverInfo": { "name": "flaky", "version": "1" }
    }}))
    .await;
    let client = within(connecting).await.unwrap().unwrap();
    let call = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("anything", json!({})).await }
    });
    loop {
        if fake.recv().await["method"] == "tools/call" {
            break;
        }
    }
    drop(fake);
    let outcome = within(call).await.unwrap();
    assert!(matches!(outcome, Err(Error::TransportClosed)), "got {outcome:?}");
    // Later requests fail at once.
    assert!(matches!(within(client.ping()).await, Err(Error::TransportClosed)));
    within(client.close()).await;
}

#[tokio::test]
async fn a_client_waiting_on_a_closed_session_gets_transport_closed() {
    let started = Arc::new(Notify::new());
    let dropped = Arc::new(AtomicBool::new(false));
    let server = slow_server(started.clone(), dropped.clone());
    let (client, session, task) = connect_with(&server, ClientOptions::new("c", "1"), Recorder::new().0).await;
    let call = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("slow", json!({})).await }
    });
    within(started.notified()).await;
    session.close();
    let outcome = within(call).await.unwrap();
    assert!(matches!(outcome, Err(Error::TransportClosed)), "got {outcome:?}");
    within(task).await.unwrap();
    eventually("the handler is stopped", || dropped.load(Ordering::SeqCst)).await;
}

#[tokio::test]
async fn a_client_closing_mid_request_gets_transport_closed_and_ends_the_server_session() {
    let started = Arc::new(Notify::new());
    let dropped = Arc::new(AtomicBool::new(false));
    let server = slow_server(started.clone(), dropped.clone());
    let (client, _session, task) = connect_with(&server, ClientOptions::new("c", "1"), Recorder::new().0).await;
    let call = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("slow", json!({})).await }
    });
    within(started.notified()).await;
    within(client.close()).await;
    let outcome = within(call).await.unwrap();
    assert!(matches!(outcome, Err(Error::TransportClosed)), "got {outcome:?}");
    within_for(Duration::from_secs(10), task).await.unwrap();
    assert!(dropped.load(Ordering::SeqCst));
}

#[tokio::test]
async fn end_of_input_without_newline_still_counts() {
    let server = echo_server();
    let (mut raw, _session, task) = raw_server(&server, None);
    raw.initialize().await;
    // The last message has no trailing newline; the write side then closes.
    raw.send_bytes(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).await;
    raw.shutdown().await;
    assert_eq!(raw.recv().await, json!({ "jsonrpc": "2.0", "id": 1, "result": {} }));
    // The server sees the end of its input and ends the session; its output then ends too.
    assert_eq!(raw.recv_line().await, None);
    within(task).await.unwrap();
}

#[tokio::test]
async fn garbage_storm_does_not_take_the_session_down() {
    let (mut raw, _task) = initialized_raw(Some(4096)).await;
    let junk = [
        "}",
        "]",
        "null",
        "true",
        "[1,2",
        "{\"jsonrpc\":\"2.0\"}",
        "{\"id\":1}",
        "\u{0}",
        "{\"jsonrpc\":\"2.0\",\"id\":[],\"method\":\"x\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"x\"}",
        "{\"jsonrpc\":2,\"id\":1,\"method\":\"x\"}",
    ];
    for (i, line) in junk.iter().enumerate() {
        raw.send_line(line).await;
        let response = raw.recv().await;
        assert!(response.get("error").is_some(), "{line:?} → {response}");
        let code = response["error"]["code"].as_i64().unwrap();
        assert!(code == -32700 || code == -32600, "{line:?} → {response}");
        still_serving(&mut raw, i as i64 + 1000).await;
    }
}
