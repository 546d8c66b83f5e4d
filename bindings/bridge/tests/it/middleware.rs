//! Middleware through the bridge, as every binding registers it: a foreign middleware sees each
//! message as JSON, changes it, answers it or fails it with its own code, in order, on both
//! sides; the built-in ones come from JSON and refuse bad settings.

use std::sync::{Arc, Mutex};

use crate::common::callback;
use futures::executor::block_on;
use mcpweft_bridge::{CallOptions, Client, ClientCallbacks, Error, ErrorKind, Next, Server};
use serde_json::{Value, json};

/// A server with an `echo` tool that returns its `text` argument.
fn server() -> Server {
    let server = Server::new(json!({ "name": "echo", "version": "1" })).unwrap();
    let echo = callback(|args: Value, _ctx| async move { Ok(args["text"].clone()) });
    server.add_tool(json!({ "name": "echo" }), echo, false).unwrap();
    server
}

/// A foreign middleware that records `name` and the message's direction and method, then
/// passes the message on unchanged.
fn recording(name: &'static str, log: Arc<Mutex<Vec<String>>>) -> Arc<dyn mcpweft_bridge::MiddlewareCallback> {
    Arc::new(move |message: Value, next: Next| {
        let log = log.clone();
        async move {
            let entry = format!("{name} {} {} {}", message["role"], message["direction"], message["method"]);
            log.lock().unwrap().push(entry.replace('"', ""));
            next.run(message).await
        }
    })
}

#[test]
fn a_foreign_middleware_changes_answers_and_fails_messages_in_order() {
    let server = server();
    let log = Arc::new(Mutex::new(Vec::new()));
    server.add_middleware(recording("first", log.clone()));
    server.add_middleware(Arc::new(|mut message: Value, next: Next| async move {
        if message["target"] == "echo" {
            message["params"]["arguments"]["text"] = json!("changed");
        }
        match message["target"].as_str() {
            Some("denied") => Err(Error::rpc(-32042, "denied here", Some(json!({"why": "a test"})))),
            Some("early") => Ok(json!({ "content": [{ "type": "text", "text": "answered early" }] })),
            _ => next.run(message).await,
        }
    }));
    let client_log = Arc::new(Mutex::new(Vec::new()));
    let callbacks = ClientCallbacks::new().with_middleware(recording("client", client_log.clone()));
    let client = block_on(Client::connect_memory(&server, json!({ "name": "t", "version": "1" }), callbacks)).unwrap();

    let call = |name: &str| {
        block_on(client.call_tool(name, json!({ "text": "original" }), CallOptions::new())).map_err(Box::new)
    };
    assert_eq!(call("echo").unwrap()["content"][0]["text"], "changed");
    assert_eq!(call("early").unwrap()["content"][0]["text"], "answered early");
    let denied = call("denied").unwrap_err();
    assert_eq!((denied.kind, denied.code), (ErrorKind::Rpc, Some(-32042)));
    assert_eq!(denied.data, Some(json!({"why": "a test"})));

    let log = log.lock().unwrap().clone();
    assert!(log.contains(&"first server received initialize".to_owned()), "{log:?}");
    assert_eq!(log.iter().filter(|e| e.ends_with("tools/call")).count(), 3);
    let client_log = client_log.lock().unwrap().clone();
    assert!(client_log.contains(&"client client sent initialize".to_owned()), "{client_log:?}");
    assert_eq!(client_log.iter().filter(|e| *e == "client client sent tools/call").count(), 3);
}

#[test]
fn a_middleware_that_passes_on_something_else_than_a_message_fails_the_request() {
    let server = server();
    server.add_middleware(Arc::new(|message: Value, next: Next| async move {
        if message["method"] == "tools/call" {
            return next.run(json!("not a message")).await;
        }
        next.run(message).await
    }));
    let client =
        block_on(Client::connect_memory(&server, json!({ "name": "t", "version": "1" }), ClientCallbacks::new()))
            .unwrap();
    let error = block_on(client.call_tool("echo", json!({ "text": "x" }), CallOptions::new())).unwrap_err();
    assert_eq!(error.code, Some(-32603), "{error:?}");
    assert!(error.message.contains("passes on the message object"), "{error:?}");
    // The session keeps serving.
    block_on(client.ping(CallOptions::new())).unwrap();
}

#[test]
fn the_built_in_middleware_come_from_json() {
    let server = server();
    server.add_builtin_middleware(json!({ "timing": {} })).unwrap();
    server.add_builtin_middleware(json!({ "rateLimit": { "perSecond": 0.5, "burst": 1 } })).unwrap();
    let callbacks =
        ClientCallbacks::new().with_builtin_middleware(json!({ "cache": { "defaultTtlMs": 60000 } })).unwrap();
    let client = block_on(Client::connect_memory(&server, json!({ "name": "t", "version": "1" }), callbacks)).unwrap();
    // The first list spends the server's whole budget; the client's cache answers the second.
    let first = block_on(client.request("tools/list", json!({}), CallOptions::new())).unwrap();
    let second = block_on(client.request("tools/list", json!({}), CallOptions::new())).unwrap();
    assert_eq!(first, second);
    let limited = block_on(client.call_tool("echo", json!({ "text": "x" }), CallOptions::new())).unwrap_err();
    assert_eq!(limited.code, Some(-32003), "{limited:?}");
    assert!(limited.data.as_ref().is_some_and(|d| d["retryAfterMs"].as_u64().is_some()), "{limited:?}");

    for (spec, says) in [
        (json!({ "rateLimit": { "perSecond": 0 } }), "perSecond"),
        (json!({ "rateLimit": { "perSecond": 1, "per": "planet" } }), "caller, session or global"),
        (json!({ "cache": { "ttl": 1 } }), "ttl"),
        (json!({ "sparkles": {} }), "unknown built-in middleware"),
        (json!({ "timing": {}, "cache": {} }), "one key"),
    ] {
        let error = server.add_builtin_middleware(spec).unwrap_err();
        assert_eq!(error.kind, ErrorKind::InvalidInput, "{error:?}");
        assert!(error.message.contains(says), "{says}: {error:?}");
    }
}

#[test]
fn the_span_of_a_message_is_named_once_for_every_language() {
    let received = json!({
        "method": "tools/call", "params": {"name": "add"}, "isRequest": true, "id": "a-1",
        "direction": "received", "role": "server", "protocolVersion": "2025-11-25",
    });
    let span = mcpweft_bridge::telemetry_span(&received).unwrap();
    assert_eq!(span["name"], "tools/call add");
    assert_eq!(span["kind"], "server");
    assert_eq!(span["attributes"]["jsonrpc.request.id"], "a-1");
    assert_eq!(span["attributes"]["gen_ai.tool.name"], "add");
    let sent = json!({ "method": "notifications/progress", "isRequest": false, "direction": "sent", "role": "server" });
    assert_eq!(mcpweft_bridge::telemetry_span(&sent).unwrap(), Value::Null);

    let failed = mcpweft_bridge::telemetry_outcome(
        "tools/call",
        &json!({"error": {"kind": "rpc", "code": -32602, "message": "bad"}}),
    );
    assert_eq!(
        failed,
        json!({"attributes": {"error.type": "-32602", "rpc.response.status_code": "-32602"}, "error": "bad"})
    );
    let timed_out =
        mcpweft_bridge::telemetry_outcome("ping", &json!({"error": {"kind": "timeout", "message": "too slow"}}));
    assert_eq!(timed_out, json!({"attributes": {"error.type": "timeout"}, "error": "too slow"}));
    let tool_error = mcpweft_bridge::telemetry_outcome("tools/call", &json!({"result": {"isError": true}}));
    assert_eq!(tool_error, json!({"attributes": {"error.type": "tool_error"}, "error": ""}));
    assert_eq!(
        mcpweft_bridge::telemetry_outcome("tools/list", &json!({"result": {}})),
        json!({"attributes": {}, "error": null})
    );
}
