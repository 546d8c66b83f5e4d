//! The client's typed calls through the bridge, as every binding makes them, against a server of
//! each revision: `ping`, resource subscriptions, the log level and list changes work the same
//! with a 2026-07-28 server (`server/discover`, `subscriptions/listen`, the level in `_meta`)
//! as with a 2025-11-25 one; and the one parser of call options refuses bad values.

use std::{
    sync::{
        Arc,
        mpsc::{Receiver, Sender, channel},
    },
    time::Duration,
};

use crate::common::callback;
use futures::executor::block_on;
use mcpweft_bridge::{CallOptions, Client, ClientCallbacks, Context, ErrorKind, Server};
use serde_json::{Value, json};

const NEXT: &str = "2026-07-28";
const CURRENT: &str = "2025-11-25";
/// How long a test waits for a notification before it fails.
const WAIT: Duration = Duration::from_secs(10);

/// A server with a resource, a tool that logs at every level from `debug` to `error`, and one
/// that takes longer than any test waits.
fn server() -> Server {
    let server = Server::new(json!({ "name": "calls", "version": "1" })).unwrap();
    server
        .add_resource(
            json!({ "uri": "mem://note", "name": "note" }),
            callback(|_p, _ctx| async move { Ok(json!("hi")) }),
            false,
        )
        .unwrap();
    let chatty = callback(|_args, ctx: Context| async move {
        for level in ["debug", "info", "warning", "error"] {
            ctx.log(level, json!(level), None)?;
        }
        Ok(json!("logged"))
    });
    server.add_tool(json!({ "name": "chatty" }), chatty, false).unwrap();
    let slow = callback(|_args, _ctx| async move {
        tokio::time::sleep(WAIT).await;
        Ok(json!("late"))
    });
    server.add_tool(json!({ "name": "slow" }), slow, false).unwrap();
    server
}

/// Connects to `server` at `version`, sending every notification's method and params to the
/// receiver.
fn connect(server: &Server, version: &str) -> (Client, Receiver<(String, Value)>) {
    let (tx, rx): (Sender<(String, Value)>, _) = channel();
    let hear = callback(move |payload, _ctx| {
        let tx = tx.clone();
        async move {
            let method = payload["method"].as_str().unwrap_or_default().to_owned();
            let _ = tx.send((method, payload["params"].clone()));
            Ok(Value::Null)
        }
    });
    let options = json!({ "name": "tester", "version": "1", "protocolVersion": version });
    let client = block_on(Client::connect_memory(server, options, ClientCallbacks::new().with_notification(hear)));
    let client = client.unwrap();
    assert_eq!(client.protocol_version(), version);
    (client, rx)
}

/// Waits for the next notification of `method`, skipping the others.
fn next(rx: &Receiver<(String, Value)>, method: &str) -> Value {
    loop {
        let (heard, params) = rx.recv_timeout(WAIT).unwrap_or_else(|_| panic!("no {method} came"));
        if heard == method {
            return params;
        }
    }
}

fn ping_subscribe_log_and_list_changes(version: &str) {
    let server = server();
    let (client, rx) = connect(&server, version);
    block_on(client.ping(CallOptions::new().with_timeout(Duration::from_secs(5)))).unwrap();

    block_on(client.subscribe("mem://note", CallOptions::new())).unwrap();
    server.notify_resource_updated("mem://note");
    assert_eq!(next(&rx, "notifications/resources/updated")["uri"], "mem://note");
    block_on(client.unsubscribe("mem://note", CallOptions::new())).unwrap();

    block_on(client.set_logging_level("warning", CallOptions::new())).unwrap();
    let result = block_on(client.call_tool("chatty", Value::Null, CallOptions::new())).unwrap();
    assert_eq!(result["content"][0]["text"], "logged");
    // The logs come in order, so every one below the level would come before the error.
    let mut levels = Vec::new();
    while levels.last().is_none_or(|l| l != "error") {
        levels.push(next(&rx, "notifications/message")["level"].as_str().unwrap().to_owned());
    }
    assert_eq!(levels, ["warning", "error"], "{version}");
    let refused = block_on(client.set_logging_level("loud", CallOptions::new())).unwrap_err();
    assert_eq!(refused.kind, ErrorKind::InvalidInput);

    // The unsubscribed resource's update is never heard: the list change after it comes first.
    server.notify_resource_updated("mem://note");
    server.remove_tool("chatty");
    loop {
        let (method, _) = rx.recv_timeout(WAIT).expect("no list change came");
        assert_ne!(method, "notifications/resources/updated", "{version}: heard after unsubscribing");
        if method == "notifications/tools/list_changed" {
            break;
        }
    }
    block_on(client.close()).unwrap();
}

#[test]
fn a_2026_client_pings_subscribes_sets_the_log_level_and_hears_list_changes() {
    ping_subscribe_log_and_list_changes(NEXT);
}

#[test]
fn a_2025_client_does_the_same_through_the_same_calls() {
    ping_subscribe_log_and_list_changes(CURRENT);
}

#[test]
fn listen_opens_a_stream_of_a_2026_server_and_is_refused_by_an_older_one() {
    let server = server();
    let (client, rx) = connect(&server, NEXT);
    let stream = block_on(client.listen(json!({ "resourceSubscriptions": ["mem://note"] }))).unwrap();
    assert_eq!(stream.acknowledged(), json!({ "resourceSubscriptions": ["mem://note"] }));
    server.notify_resource_updated("mem://note");
    assert_eq!(next(&rx, "notifications/resources/updated")["uri"], "mem://note");
    let heard = block_on(stream.next_notification()).unwrap();
    assert_eq!(heard["method"], "notifications/resources/updated");
    assert_eq!(heard["params"]["uri"], "mem://note");
    // Closing ends a call that waits for the next notification, and every later one.
    let waiting = std::thread::spawn({
        let next = stream.next_notification();
        move || block_on(next).map_err(|e| e.message)
    });
    std::thread::sleep(Duration::from_millis(50));
    block_on(stream.close()).unwrap();
    assert_eq!(waiting.join().unwrap(), Ok(Value::Null));
    assert_eq!(block_on(stream.next_notification()).unwrap(), Value::Null);
    block_on(stream.close()).unwrap();
    let bad = block_on(client.listen(json!({ "toolsListChanged": "yes" }))).unwrap_err();
    assert_eq!(bad.kind, ErrorKind::InvalidInput);

    let (older, _rx) = connect(&server, CURRENT);
    let refused = block_on(older.listen(json!({ "toolsListChanged": true }))).unwrap_err();
    assert_eq!(refused.kind, ErrorKind::CapabilityMissing, "{refused:?}");
}

#[test]
fn call_options_are_read_from_json_and_bad_values_are_invalid_input() {
    let progress: Arc<dyn Fn(Value) + Send + Sync> = Arc::new(|_| {});
    let good = json!({ "timeoutMs": 1500.5, "task": { "ttl": 60000 }, "meta": { "trace": "t1" } });
    let options = CallOptions::from_json(good, Some(progress)).unwrap();
    let shown = format!("{options:?}");
    assert!(shown.contains("1.5005s") && shown.contains("60000") && shown.contains("t1"), "{shown}");
    for nothing in [Value::Null, json!({}), json!({ "timeoutMs": null, "task": null, "meta": null })] {
        CallOptions::from_json(nothing, None).unwrap();
    }
    let bad = [
        (json!({ "timeoutMs": -1 }), "timeoutMs"),
        (json!({ "timeoutMs": "5s" }), "timeoutMs"),
        (json!({ "timeoutMs": 1e300 }), "timeoutMs"),
        (json!({ "task": 60000 }), "task"),
        (json!({ "task": { "ttl": -5 } }), "task"),
        (json!({ "task": { "ttl": "long" } }), "task"),
        (json!({ "meta": [1] }), "meta"),
        (json!({ "meta": "x" }), "meta"),
        (json!({ "timeout": 5 }), "timeout"),
        (json!([]), "call options"),
    ];
    for (options, named) in bad {
        let e = CallOptions::from_json(options.clone(), None).unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidInput, "{options}");
        assert!(e.message.contains(named), "{options}: {}", e.message);
    }

    // A call the core makes with its own parameters takes a time-out only.
    let server = server();
    let (client, _rx) = connect(&server, CURRENT);
    let with_task = CallOptions::from_json(json!({ "task": { "ttl": 1 } }), None).unwrap();
    assert_eq!(block_on(client.ping(with_task)).unwrap_err().kind, ErrorKind::InvalidInput);
    let with_meta = CallOptions::new().with_meta(serde_json::Map::new());
    assert_eq!(block_on(client.subscribe("mem://note", with_meta)).unwrap_err().kind, ErrorKind::InvalidInput);
    // The typed calls that take every option use them: a time-out that passes fails the call.
    let short = CallOptions::from_json(json!({ "timeoutMs": 50 }), None).unwrap();
    let late = block_on(client.call_tool("slow", Value::Null, short)).unwrap_err();
    assert_eq!(late.kind, ErrorKind::Timeout, "{late:?}");
    let read = block_on(client.read_resource("mem://note", CallOptions::new())).unwrap();
    assert_eq!(read["contents"][0]["text"], "hi");
}
