//! The host through the bridge, as a binding drives it: JSON in and out, closures for the
//! callbacks, every task awaited from a plain executor. The servers are real: a bridge server
//! over Streamable HTTP on 127.0.0.1 and a command that fails to start.

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use crate::common::callback;
use futures::executor::block_on;
use mcpweft_bridge::{CallOptions, ClientCallbacks, Context, ErrorKind, Host, HostEvents, Server};
use serde_json::{Value, json};

/// A server with a tool that adds (which may run as a task), one that counts with progress,
/// one that logs, and one that asks for sampling.
fn server() -> Server {
    let server = Server::new(json!({ "name": "notes", "version": "1.0.0", "tasks": true })).unwrap();
    let add = callback(|args: Value, _ctx| async move {
        Ok(json!(args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0)))
    });
    server.add_tool(json!({ "name": "add", "execution": { "taskSupport": "optional" } }), add, false).unwrap();
    let count = callback(|args: Value, ctx: Context| async move {
        let n = args["n"].as_u64().unwrap_or(1);
        for i in 1..=n {
            tokio::time::sleep(Duration::from_millis(50)).await;
            ctx.report_progress(i as f64, Some(n as f64), None)?;
        }
        Ok(json!(format!("counted to {n}")))
    });
    server.add_tool(json!({ "name": "count" }), count, false).unwrap();
    let log = callback(|_args, ctx: Context| async move {
        ctx.log("warning", json!("careful"), Some("notes"))?;
        Ok(json!("logged"))
    });
    server.add_tool(json!({ "name": "log" }), log, false).unwrap();
    let ask = callback(|_args, ctx: Context| async move {
        let params =
            json!({ "messages": [{ "role": "user", "content": { "type": "text", "text": "hi" } }], "maxTokens": 5 });
        let answer = ctx.sample(params).await?;
        Ok(answer["content"]["text"].clone())
    });
    server.add_tool(json!({ "name": "ask" }), ask, false).unwrap();
    server
}

/// Waits, at most ten seconds, for the first event that `wanted` accepts.
fn next_event(events: &HostEvents, wanted: impl Fn(&Value) -> bool) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let remaining = deadline.saturating_duration_since(std::time::Instant::now());
        let event = block_on(async {
            let timeout = futures_timer(remaining);
            futures::pin_mut!(timeout);
            match futures::future::select(events.next_event(), timeout).await {
                futures::future::Either::Left((event, _)) => event.unwrap(),
                futures::future::Either::Right(_) => panic!("no event came in time"),
            }
        });
        if wanted(&event) {
            return event;
        }
    }
}

/// Polls `found` every 10 ms until it finds something, for at most ten seconds.
fn within_ten_seconds<T>(found: impl Fn() -> Option<T>) -> T {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(value) = found() {
            return value;
        }
        assert!(std::time::Instant::now() < deadline, "nothing was found in time");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A future that is ready after `duration`, made without Tokio (the test is a binding).
fn futures_timer(duration: Duration) -> impl Future<Output = ()> {
    let (tx, rx) = futures::channel::oneshot::channel::<()>();
    std::thread::spawn(move || {
        std::thread::sleep(duration);
        let _ = tx.send(());
    });
    async move {
        let _ = rx.await;
    }
}

#[test]
fn a_host_over_the_bridge_speaks_json() {
    let notes = server();
    let http = block_on(notes.serve_http(json!({ "port": 0 }))).unwrap();
    let heard = Arc::new(Mutex::new(Vec::new()));
    let sampled = Arc::new(Mutex::new(Vec::new()));
    let (heard_by, sampled_by) = (heard.clone(), sampled.clone());
    let callbacks = ClientCallbacks::new()
        .with_notification(callback(move |payload, _ctx| {
            heard_by.lock().unwrap().push(payload);
            async { Ok(Value::Null) }
        }))
        .with_sampling(
            callback(move |payload, _ctx| {
                sampled_by.lock().unwrap().push(payload);
                async {
                    Ok(json!({ "role": "assistant", "content": { "type": "text", "text": "hello" }, "model": "m" }))
                }
            }),
            false,
        );
    let config = json!({
        "notes": { "type": "http", "url": http.url() },
        "broken": { "command": "sh", "args": ["-c", "echo 'no API key given' >&2; exit 2"] },
        "off": { "command": "true", "enabled": false },
    });
    let host = block_on(Host::connect(config, json!({ "name": "bridge-host", "separator": "." }), callbacks)).unwrap();

    let servers = host.servers();
    assert_eq!(servers[0], json!({ "name": "notes", "state": "ready" }));
    assert_eq!(servers[1]["name"], "broken");
    assert_eq!(servers[1]["state"], "failed");
    assert!(servers[1]["stderr"].as_str().unwrap().contains("no API key given"), "{servers}");
    assert_eq!(host.state("off").unwrap(), json!({ "state": "disabled" }));
    assert_eq!(host.state("nobody").unwrap_err().kind, ErrorKind::Config);

    let tools = host.tools();
    let names: Vec<&str> = tools.as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["notes.add", "notes.count", "notes.log", "notes.ask"]);
    assert_eq!(tools[0]["server"], "notes");
    assert_eq!(tools[0]["inputSchema"]["type"], "object");
    assert_eq!(host.collisions(), json!([]));

    let sum = block_on(host.call_tool("notes.add", json!({ "a": 2, "b": 40 }), CallOptions::new())).unwrap();
    assert!(sum["content"][0]["text"].as_str().unwrap().starts_with("42"), "{sum}");
    let unknown = block_on(host.call_tool("notes.nope", Value::Null, CallOptions::new())).unwrap_err();
    assert_eq!(unknown.kind, ErrorKind::Rpc);

    // Progress keeps a call alive past its time-out; the total limit ends it however much
    // progress it reports.
    let progress = Arc::new(Mutex::new(Vec::new()));
    let seen = progress.clone();
    let on_progress: Arc<dyn Fn(Value) + Send + Sync> = Arc::new(move |p| seen.lock().unwrap().push(p));
    let options = CallOptions::from_json(json!({ "timeoutMs": 150 }), Some(on_progress)).unwrap();
    let counted = block_on(host.call_tool("notes.count", json!({ "n": 6 }), options)).unwrap();
    assert_eq!(counted["content"][0]["text"], "counted to 6");
    assert_eq!(progress.lock().unwrap().len(), 6);
    let options = CallOptions::from_json(json!({ "timeoutMs": 150, "maxTotalTimeoutMs": 120 }), None).unwrap();
    let ended = block_on(host.call_tool("notes.count", json!({ "n": 6 }), options)).unwrap_err();
    assert_eq!(ended.kind, ErrorKind::Timeout);
    let refused = CallOptions::from_json(json!({ "maxTotalTimeoutMs": -1 }), None).unwrap_err();
    assert!(refused.message.contains("maxTotalTimeoutMs"), "{}", refused.message);

    // A tool call as a task: created on the server that offers the tool, followed there.
    let task = || CallOptions::from_json(json!({ "task": { "ttl": 60000 } }), None).unwrap();
    let created = block_on(host.call_tool("notes.add", json!({ "a": 1, "b": 2 }), task())).unwrap();
    assert_eq!(created["server"], "notes");
    let id = created["task"]["taskId"].as_str().unwrap().to_owned();
    let result = block_on(host.task_result("notes", &id, CallOptions::new())).unwrap();
    assert!(result["content"][0]["text"].as_str().unwrap().starts_with('3'), "{result}");
    assert_eq!(block_on(host.get_task("notes", &id, CallOptions::new())).unwrap()["status"], "completed");
    let finished = block_on(host.cancel_task("notes", &id, CallOptions::new())).unwrap_err();
    assert_eq!(finished.kind, ErrorKind::Rpc, "a completed task cannot be cancelled");
    let read_as_task = block_on(host.get_task("notes", &id, task())).unwrap_err();
    assert_eq!(read_as_task.kind, ErrorKind::InvalidInput);

    // The callbacks are told which server asks.
    let answer = block_on(host.call_tool("notes.ask", json!({}), CallOptions::new())).unwrap();
    assert_eq!(answer["content"][0]["text"], "hello");
    assert_eq!(sampled.lock().unwrap()[0]["server"], "notes");
    assert_eq!(sampled.lock().unwrap()[0]["params"]["maxTokens"], 5);
    block_on(host.call_tool("notes.log", json!({}), CallOptions::new())).unwrap();
    let log =
        within_ten_seconds(|| heard.lock().unwrap().iter().find(|p| p["method"] == "notifications/message").cloned());
    assert_eq!(log["server"], "notes");
    assert_eq!(log["params"]["data"], "careful");

    // A list change and a restart are events.
    let events = host.events();
    let later = callback(|_args, _ctx| async { Ok(json!("later")) });
    notes.add_tool(json!({ "name": "later" }), later, false).unwrap();
    let changed = next_event(&events, |e| e["type"] == "listChanged");
    assert_eq!(changed, json!({ "type": "listChanged", "server": "notes", "list": "tools" }));
    assert!(host.tools().as_array().unwrap().iter().any(|t| t["name"] == "notes.later"));
    host.restart("broken").unwrap();
    let connecting = next_event(&events, |e| e["server"] == "broken");
    assert_eq!(connecting, json!({ "type": "stateChanged", "server": "broken", "state": "connecting" }));
    let failed = next_event(&events, |e| e["server"] == "broken");
    assert_eq!(failed["state"], "failed");
    assert_eq!(host.restart("off").unwrap_err().kind, ErrorKind::Config);

    // Closing tells every server's end, then the reader ends.
    block_on(host.close()).unwrap();
    let mut ends = Vec::new();
    loop {
        let event = next_event(&events, |_| true);
        if event.is_null() {
            break;
        }
        ends.push(event);
    }
    for server in ["notes", "broken"] {
        let closed = json!({ "type": "stateChanged", "server": server, "state": "closed" });
        assert!(ends.contains(&closed), "{server} is closed: {ends:?}");
    }
    assert_eq!(block_on(events.next_event()).unwrap(), Value::Null);
    assert_eq!(host.tools(), json!([]));
    assert_eq!(host.state("notes").unwrap(), json!({ "state": "closed" }));
    block_on(http.close()).unwrap();
}

#[test]
fn a_closed_reader_ends_and_bad_settings_are_refused() {
    let host = block_on(Host::connect(json!({ "mcpServers": {} }), Value::Null, ClientCallbacks::new())).unwrap();
    let events = host.events();
    events.close();
    assert_eq!(block_on(events.next_event()).unwrap(), Value::Null);
    assert_eq!(host.servers(), json!([]));

    let connect = |config: Value, options: Value| {
        block_on(Host::connect(config, options, ClientCallbacks::new())).map(drop).map_err(|e| e.kind)
    };
    assert_eq!(connect(json!(42), Value::Null), Err(ErrorKind::InvalidInput));
    assert_eq!(connect(json!("/no/such/servers.json"), Value::Null), Err(ErrorKind::Config));
    assert_eq!(connect(json!({ "x": { "args": [] } }), Value::Null), Err(ErrorKind::Config));
    assert_eq!(connect(json!({}), json!({ "colour": "red" })), Err(ErrorKind::InvalidInput));
    assert_eq!(connect(json!({}), json!({ "separator": "/" })), Err(ErrorKind::Config));
    let close = ClientCallbacks::new().with_close(callback(|_p, _c| async { Ok(Value::Null) }));
    let refused = block_on(Host::connect(json!({}), Value::Null, close)).unwrap_err();
    assert_eq!(refused.kind, ErrorKind::InvalidInput);
    // A login needs both the authorizer and the redirect URI it sends the user back to.
    assert_eq!(connect(json!({}), json!({ "redirectUri": "http://127.0.0.1:1/cb" })), Err(ErrorKind::InvalidInput));
    let authorizer = || ClientCallbacks::new().with_authorizer(callback(|_p, _c| async { Ok(Value::Null) }));
    let refused = block_on(Host::connect(json!({}), Value::Null, authorizer())).unwrap_err();
    assert!(refused.message.contains("redirectUri"), "{}", refused.message);
    let options = json!({ "redirectUri": "http://127.0.0.1:1/cb" });
    block_on(Host::connect(json!({}), options, authorizer())).unwrap();
    block_on(host.close()).unwrap();
}
