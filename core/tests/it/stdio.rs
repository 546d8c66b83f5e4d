//! The stdio transport against the real `calculator_server` example process.

use std::{process::Stdio, sync::Arc, time::Duration};

use crate::common::*;
use mcpweft::{
    Client, ClientOptions, RequestOptions,
    jsonrpc::JsonRpcMessage,
    model::*,
    transport::{ChildProcessTransport, ChildShutdown},
};
use serde_json::{Value, json};
use tokio::{
    io::{AsyncBufReadExt, AsyncWriteExt, BufReader},
    process::Command,
};

async fn spawn_client() -> (Client, Option<u32>) {
    let path = calculator_server().await;
    let transport =
        ChildProcessTransport::command(&path, std::iter::empty::<&str>()).expect("the example spawns").with_shutdown(
            ChildShutdown::new().with_after_close(Duration::from_secs(3)).with_after_terminate(Duration::from_secs(1)),
        );
    let pid = transport.pid();
    let client = within(Client::connect(transport, ClientOptions::new("stdio-test", "1"))).await.expect("connects");
    (client, pid)
}

fn process_alive(pid: u32) -> bool {
    // A zombie (exited but unreaped) counts as gone; Tokio reaps children in the background.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat.split(") ").nth(1).is_some_and(|rest| rest.starts_with('Z')),
        Err(_) => false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_tools_over_stdio_and_closing_ends_the_child() {
    let (client, pid) = spawn_client().await;
    let pid = pid.expect("a running child");
    assert_eq!(client.server().server_info.name, "calculator");
    assert_eq!(client.protocol_version(), "2025-11-25");

    let tools: Vec<_> = within(client.list_all_tools()).await.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(tools, ["add", "divide", "count"]);
    let sum = within(client.call_tool("add", json!({ "a": 2, "b": 40 }))).await.unwrap();
    assert_eq!(sum.structured_content, Some(obj(json!({ "sum": 42.0 }))));
    let div = within(client.call_tool("divide", json!({ "a": 1, "b": 0 }))).await.unwrap();
    assert!(div.is_error());
    assert_eq!(first_text(&div), "division by zero");

    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let options = RequestOptions::new().with_progress({
        let seen = seen.clone();
        move |p: ProgressNotificationParams| seen.lock().unwrap().push(p.progress)
    });
    let counted = within(client.call_tool_with(CallToolRequestParams::new("count", obj(json!({ "n": 4 }))), options))
        .await
        .unwrap();
    assert_eq!(first_text(&counted), "counted to 4");
    assert_eq!(*seen.lock().unwrap(), [1.0, 2.0, 3.0, 4.0]);

    let read = within(client.read_resource("calc://constants/pi")).await.unwrap();
    assert_eq!(serde_json::to_value(&read).unwrap()["contents"][0]["text"], std::f64::consts::PI.to_string());

    assert!(process_alive(pid));
    within(client.close()).await;
    // Closing stdin makes the server exit by itself, well within the shutdown's first wait.
    eventually("the child exits", || !process_alive(pid)).await;
    assert!(matches!(within(client.ping()).await, Err(mcpweft::Error::TransportClosed)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdout_carries_only_protocol_lines() {
    let path = calculator_server().await;
    let mut child = Command::new(&path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .env("RUST_LOG", "trace")
        .kill_on_drop(true)
        .spawn()
        .expect("the example spawns");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();

    let mut lines: Vec<String> = Vec::new();
    let send = async |stdin: &mut tokio::process::ChildStdin, value: Value| {
        let mut line = value.to_string();
        line.push('\n');
        within(stdin.write_all(line.as_bytes())).await.unwrap();
    };
    send(
        &mut stdin,
        json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "raw", "version": "1" } } }),
    )
    .await;
    // Read until the answer to `id` (which may already have come), keeping every line.
    async fn until(
        stdout: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
        lines: &mut Vec<String>,
        id: i64,
    ) -> Value {
        let parse =
            |line: &str| -> Value { serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line:?}")) };
        if let Some(found) = lines.iter().map(|l| parse(l)).find(|v| v["id"] == id) {
            return found;
        }
        loop {
            let line = within(stdout.next_line()).await.unwrap().expect("the server is still talking");
            lines.push(line.clone());
            let value = parse(&line);
            if value["id"] == id {
                return value;
            }
        }
    }
    let init = until(&mut stdout, &mut lines, 0).await;
    assert_eq!(init["result"]["serverInfo"]["name"], "calculator");
    send(&mut stdin, json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).await;
    send(
        &mut stdin,
        json!({ "jsonrpc": "2.0", "id": 1, "method": "logging/setLevel", "params": { "level": "debug" } }),
    )
    .await;
    send(
        &mut stdin,
        json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": { "name": "count", "arguments": { "n": 3 }, "_meta": { "progressToken": "p" } } }),
    )
    .await;
    send(&mut stdin, json!({ "jsonrpc": "2.0", "id": 3, "method": "nope" })).await;
    within(stdin.write_all(b"this is not json\n")).await.unwrap();
    send(&mut stdin, json!({ "jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": { "name": "add", "arguments": { "a": 1, "b": 2 } } }))
        .await;
    let count = until(&mut stdout, &mut lines, 2).await;
    assert_eq!(count["result"]["content"][0]["text"], "counted to 3");
    let add = until(&mut stdout, &mut lines, 4).await;
    assert_eq!(add["result"]["structuredContent"]["sum"], 3.0);

    // Closing stdin ends the server; whatever it still writes is protocol too.
    drop(stdin);
    while let Some(line) = within(stdout.next_line()).await.unwrap() {
        lines.push(line);
    }
    let status = within(child.wait()).await.unwrap();
    assert!(status.success(), "the server exits cleanly: {status}");

    let mut methods = Vec::new();
    for line in &lines {
        assert!(!line.is_empty() && !line.contains('\r'), "one compact message per line: {line:?}");
        match JsonRpcMessage::decode(line.as_bytes()) {
            Ok(message) => {
                if let Some(m) = message.method() {
                    methods.push(m.to_owned());
                }
            }
            Err(e) => panic!("not a JSON-RPC message ({e}): {line}"),
        }
    }
    assert_eq!(methods.iter().filter(|m| *m == "notifications/progress").count(), 3, "{methods:?}");
    assert_eq!(methods.iter().filter(|m| *m == "notifications/message").count(), 3, "{methods:?}");
    // The bad lines were answered: -32601 for id 3 and a parse error without id.
    let values: Vec<Value> = lines.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(values.iter().any(|v| v["id"] == 3 && v["error"]["code"] == -32601));
    assert!(values.iter().any(|v| v.get("id").is_none() && v["error"]["code"] == -32700));
}

/// A server that fails before answering is reported with its exit code and what it wrote to
/// stderr, and the client's peer keeps that reason for later requests.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_exits_is_reported_with_its_code_and_stderr() {
    let script = "echo 'starting' >&2; echo 'fatal: missing API key' >&2; exit 3";
    let transport = ChildProcessTransport::command("sh", ["-c", script]).expect("sh spawns");
    let error = within(Client::connect(transport, ClientOptions::new("stdio-test", "1"))).await.unwrap_err();
    let mcpweft::Error::Disconnected(reason) = &error else { panic!("not a disconnection: {error:?}") };
    assert_eq!((reason.exit_code, reason.signal), (Some(3), None));
    assert_eq!(reason.stderr.as_deref(), Some("starting\nfatal: missing API key"));
    assert!(error.is_transport_closed());
    assert_eq!(
        error.to_string(),
        "transport closed: the server process exited with code 3; its stderr ended with:\nstarting\nfatal: missing API key"
    );
}

/// A server that exits at once, before it reads anything, is reported the same way, whether
/// the client first meets the end of its stdout or a failed write to its stdin.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_exits_before_reading_is_reported_too() {
    for _ in 0..5 {
        let transport = ChildProcessTransport::command("sh", ["-c", "echo gone >&2; exit 4"]).expect("sh spawns");
        let error = within(Client::connect(transport, ClientOptions::new("stdio-test", "1"))).await.unwrap_err();
        assert_eq!(
            error.to_string(),
            "transport closed: the server process exited with code 4; its stderr ended with:\ngone"
        );
    }
}
