//! The bridge driven as a language binding drives it: closures stand in for foreign
//! callables, and every task is awaited from a plain executor that is not Tokio.

mod common;

use std::{
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use common::callback;
use futures::executor::block_on;
use mcpweft_bridge::{
    CallOptions, Callback, CancelHandle, Client, ClientCallbacks, Context, Error, ErrorKind, HttpRequest, Server, Task,
};
use serde_json::{Value, json};

fn server() -> Server {
    let server = Server::new(json!({
        "name": "bridge-test",
        "version": "1.2.3",
        "title": "Bridge test",
        "icons": [{ "src": "https://example.com/i.png", "mimeType": "image/png" }],
        "instructions": "Be nice.",
        "pageSize": 2,
        "tasks": true,
    }))
    .unwrap();
    let echo = callback(|args, _ctx| async move { Ok(args) });
    server
        .add_tool(
            json!({
                "name": "echo",
                "title": "Echo",
                "icons": [{ "src": "https://example.com/e.png" }],
                "annotations": { "readOnlyHint": true },
                "_meta": { "x": 1 },
                "inputSchema": { "type": "object", "properties": { "z": {}, "a": {} } },
            }),
            echo,
            false,
        )
        .unwrap();
    server
        .add_tool(
            json!({
                "name": "add",
                "inputSchema": { "type": "object", "properties": { "a": { "type": "number" }, "b": { "type": "number" } }, "required": ["a", "b"] },
                "outputSchema": { "type": "object", "properties": { "result": { "type": "number" } }, "required": ["result"] },
            }),
            callback(|args, _ctx| async move { Ok(json!(args["a"].as_f64().unwrap() + args["b"].as_f64().unwrap())) }),
            false,
        )
        .unwrap();
    server
        .add_tool(
            json!({ "name": "fail" }),
            callback(|args, _ctx| async move {
                match args.get("code").and_then(Value::as_i64) {
                    Some(code) => Err(Error::rpc(code, "chosen error", Some(json!({ "why": "test" })))),
                    None => Err(Error::handler("it broke")),
                }
            }),
            false,
        )
        .unwrap();
    server
        .add_tool(
            json!({ "name": "slow", "execution": { "taskSupport": "optional" } }),
            callback(|_args, ctx: Context| async move {
                ctx.report_progress(1.0, Some(2.0), Some("half".into()))?;
                ctx.log("info", json!("working"), Some("slow"))?;
                tokio::time::sleep(Duration::from_millis(50)).await;
                Ok(json!("done"))
            }),
            false,
        )
        .unwrap();
    server
        .add_resource(
            json!({ "uri": "mem://readme", "name": "readme", "mimeType": "text/markdown" }),
            callback(|_p, _ctx| async move { Ok(json!("# Hi")) }),
            false,
        )
        .unwrap();
    server
        .add_resource_template(
            json!({ "uriTemplate": "mem://users/{id}", "name": "user" }),
            callback(|p, _ctx| async move { Ok(json!({ "id": p["variables"]["id"] })) }),
            false,
        )
        .unwrap();
    server
        .add_prompt(
            json!({ "name": "greet", "description": "Greets.", "arguments": [{ "name": "who", "required": true }] }),
            callback(|p, _ctx| async move { Ok(json!([format!("Hello {}", p["who"].as_str().unwrap())])) }),
            false,
        )
        .unwrap();
    server.set_completion(callback(|p, _ctx| async move {
        let prefix = p["argument"]["value"].as_str().unwrap_or("").to_owned();
        let known = p["context"]["arguments"]["lang"].as_str().unwrap_or("en").to_owned();
        Ok(json!([format!("{prefix}-1"), format!("{prefix}-{known}")]))
    }));
    server
}

fn connect(server: &Server, callbacks: ClientCallbacks) -> Client {
    block_on(Client::connect_memory(server, json!({ "name": "tester", "version": "9" }), callbacks)).unwrap()
}

#[test]
fn descriptors_reach_the_client_exactly() {
    let server = server();
    let client = connect(&server, ClientCallbacks::new());
    let info = client.server_info();
    assert_eq!(info["serverInfo"]["title"], "Bridge test");
    assert_eq!(info["serverInfo"]["icons"][0]["mimeType"], "image/png");
    assert_eq!(info["instructions"], "Be nice.");
    assert!(info["capabilities"]["tasks"].is_object());
    let tools = block_on(client.list_all("tools")).unwrap();
    let echo = tools.as_array().unwrap().iter().find(|t| t["name"] == "echo").unwrap();
    assert_eq!(echo["title"], "Echo");
    assert_eq!(echo["annotations"]["readOnlyHint"], true);
    assert_eq!(echo["_meta"]["x"], 1);
    assert_eq!(echo["icons"][0]["src"], "https://example.com/e.png");
    let fail = tools.as_array().unwrap().iter().find(|t| t["name"] == "fail").unwrap();
    assert_eq!(fail["inputSchema"]["type"], "object", "a missing inputSchema defaults to an object schema");
    assert_eq!(tools.as_array().unwrap().len(), 4);
    let page = block_on(client.list("tools", None, CallOptions::new())).unwrap();
    assert_eq!(page["tools"].as_array().unwrap().len(), 2);
    let next = page["nextCursor"].as_str().unwrap().to_owned();
    let page = block_on(client.list("tools", Some(next), CallOptions::new())).unwrap();
    assert_eq!(page["tools"].as_array().unwrap().len(), 2);
    assert_eq!(block_on(client.list("nonsense", None, CallOptions::new())).unwrap_err().kind, ErrorKind::InvalidInput);
    block_on(client.close()).unwrap();
    block_on(client.close()).unwrap();
}

#[test]
fn results_follow_the_rules_and_errors_the_policy() {
    let server = server();
    let client = connect(&server, ClientCallbacks::new());
    let echoed = block_on(client.call_tool("echo", json!({ "q": 1 }), CallOptions::new())).unwrap();
    assert_eq!(echoed["structuredContent"], json!({ "q": 1 }));
    let sum = block_on(client.call_tool("add", json!({ "a": 2, "b": 3 }), CallOptions::new())).unwrap();
    assert_eq!(sum["structuredContent"], json!({ "result": 5.0 }));
    assert_eq!(sum["content"][0]["text"], "5.0");

    let failed = block_on(client.call_tool("fail", json!({}), CallOptions::new())).unwrap();
    assert_eq!(failed["isError"], true);
    assert_eq!(failed["content"][0]["text"], "it broke");
    let rpc = block_on(client.call_tool("fail", json!({ "code": -32042 }), CallOptions::new())).unwrap_err();
    assert_eq!((rpc.kind, rpc.code), (ErrorKind::Rpc, Some(-32042)));
    assert_eq!(rpc.data, Some(json!({ "why": "test" })));

    let invalid = block_on(client.call_tool("add", json!({ "a": "x" }), CallOptions::new())).unwrap();
    assert_eq!(invalid["isError"], true, "arguments are validated by the core");

    let readme = block_on(client.request("resources/read", json!({ "uri": "mem://readme" }), CallOptions::new()));
    assert_eq!(
        readme.unwrap()["contents"][0],
        json!({ "uri": "mem://readme", "mimeType": "text/markdown", "text": "# Hi" })
    );
    let user = block_on(client.request("resources/read", json!({ "uri": "mem://users/7" }), CallOptions::new()));
    assert_eq!(user.unwrap()["contents"][0]["text"], "{\"id\":\"7\"}");
    let missing = block_on(client.request("resources/read", json!({ "uri": "mem://x" }), CallOptions::new()));
    assert_eq!(missing.unwrap_err().code, Some(-32002));

    let prompt = block_on(client.request(
        "prompts/get",
        json!({ "name": "greet", "arguments": { "who": "Ada" } }),
        CallOptions::new(),
    ))
    .unwrap();
    assert_eq!(prompt["description"], "Greets.");
    assert_eq!(prompt["messages"][0]["content"]["text"], "Hello Ada");

    let completion = block_on(client.request(
        "completion/complete",
        json!({
            "ref": { "type": "ref/prompt", "name": "greet" },
            "argument": { "name": "who", "value": "A" },
            "context": { "arguments": { "lang": "fr" } },
        }),
        CallOptions::new(),
    ))
    .unwrap();
    assert_eq!(completion["completion"]["values"], json!(["A-1", "A-fr"]));
    block_on(client.close()).unwrap();
}

#[test]
fn progress_logging_and_list_changes_reach_the_client() {
    let server = server();
    let heard = Arc::new(Mutex::new(Vec::<Value>::new()));
    let sink = heard.clone();
    let callbacks = ClientCallbacks::new().with_notification(callback(move |payload, _ctx| {
        sink.lock().unwrap().push(payload);
        async { Ok(Value::Null) }
    }));
    let client = connect(&server, callbacks);
    block_on(client.request("logging/setLevel", json!({ "level": "debug" }), CallOptions::new())).unwrap();
    let progress = Arc::new(Mutex::new(Vec::new()));
    let seen = progress.clone();
    let options = CallOptions::new().with_progress(Arc::new(move |p| seen.lock().unwrap().push(p)));
    let done = block_on(client.call_tool("slow", json!({}), options)).unwrap();
    assert_eq!(done["content"][0]["text"], "done");
    assert_eq!(progress.lock().unwrap()[0]["message"], "half");

    assert!(server.remove_tool("echo"));
    assert!(!server.remove_tool("echo"));
    server.log("warning", json!({ "n": 1 }), None).unwrap();
    block_on(client.request("resources/subscribe", json!({ "uri": "mem://readme" }), CallOptions::new())).unwrap();
    server.notify_resource_updated("mem://readme");
    let methods = || -> Vec<String> {
        heard.lock().unwrap().iter().map(|p| p["method"].as_str().unwrap().to_owned()).collect::<Vec<_>>()
    };
    wait_until(|| methods().iter().any(|m| m == "notifications/resources/updated"));
    let methods = methods();
    assert!(methods.contains(&"notifications/message".to_owned()), "{methods:?}");
    assert!(methods.contains(&"notifications/tools/list_changed".to_owned()), "{methods:?}");
    let log = heard.lock().unwrap().iter().find(|p| p["params"]["logger"] == "slow").cloned().unwrap();
    assert_eq!(log["params"]["data"], "working");
    assert_eq!(block_on(client.list_all("tools")).unwrap().as_array().unwrap().len(), 3);
    block_on(client.close()).unwrap();
}

fn wait_until(mut done: impl FnMut() -> bool) {
    for _ in 0..500 {
        if done() {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("the condition never held");
}

#[test]
fn the_context_asks_the_client_for_input() {
    let server = Server::new(json!({ "name": "asker", "version": "1" })).unwrap();
    server
        .add_tool(
            json!({ "name": "ask" }),
            callback(|_args, ctx: Context| async move {
                let roots = ctx.list_roots().await?;
                let sampled = ctx
                    .sample(json!({
                        "messages": [{ "role": "user", "content": { "type": "text", "text": "hi" } }],
                        "maxTokens": 5,
                        "tools": [{ "name": "t", "inputSchema": { "type": "object" } }],
                        "toolChoice": { "mode": "auto" },
                    }))
                    .await?;
                let form = ctx
                    .elicit(json!({ "message": "name?", "requestedSchema": { "type": "object", "properties": { "n": { "type": "string" } } } }))
                    .await?;
                let url = ctx
                    .elicit(json!({ "mode": "url", "message": "log in", "url": "https://example.com/x", "elicitationId": "e1" }))
                    .await?;
                ctx.notify_elicitation_complete("e1")?;
                Ok(json!({ "roots": roots, "sampled": sampled, "form": form, "url": url,
                           "client": ctx.client_info(), "version": ctx.protocol_version(), "id": ctx.request_id(),
                           "session": ctx.session_id() }))
            }),
            false,
        )
        .unwrap();
    server
        .add_tool(
            json!({ "name": "ask_without" }),
            callback(|_args, ctx: Context| async move { ctx.sample(json!({ "messages": [], "maxTokens": 1 })).await }),
            false,
        )
        .unwrap();

    let without = connect(&server, ClientCallbacks::new());
    let refused = block_on(without.call_tool("ask_without", json!({}), CallOptions::new())).unwrap();
    assert_eq!(refused["isError"], true);
    assert!(refused["content"][0]["text"].as_str().unwrap().contains("sampling"), "{refused}");
    block_on(without.close()).unwrap();

    let completions = Arc::new(Mutex::new(Vec::new()));
    let sink = completions.clone();
    let callbacks = ClientCallbacks::new()
        .with_roots(callback(|_p, _ctx| async { Ok(json!([{ "uri": "file:///tmp", "name": "tmp" }])) }))
        .with_sampling(
            callback(|p, _ctx| async move {
                assert_eq!(p["tools"][0]["name"], "t");
                Ok(json!({ "role": "assistant", "content": { "type": "text", "text": "hello" }, "model": "m" }))
            }),
            true,
        )
        .with_elicitation(
            callback(|p, _ctx| async move {
                Ok(match p["mode"].as_str() {
                    Some("url") => json!({ "action": "accept" }),
                    _ => json!({ "action": "accept", "content": { "n": "Ada" } }),
                })
            }),
            true,
            true,
        )
        .with_notification(callback(move |p, _ctx| {
            sink.lock().unwrap().push(p);
            async { Ok(Value::Null) }
        }));
    let client = connect(&server, callbacks);
    let out = block_on(client.call_tool("ask", json!({}), CallOptions::new())).unwrap();
    let out = &out["structuredContent"];
    assert_eq!(out["roots"]["roots"][0]["uri"], "file:///tmp");
    assert_eq!(out["sampled"]["content"]["text"], "hello");
    assert_eq!(out["form"]["content"]["n"], "Ada");
    assert_eq!(out["url"]["action"], "accept");
    assert_eq!(out["client"]["name"], "tester");
    assert_eq!(out["version"], "2025-11-25");
    assert!(out["id"].is_number() || out["id"].is_string());
    assert!(out["session"].is_null(), "an in-memory session has no id");
    wait_until(|| !completions.lock().unwrap().is_empty());
    assert_eq!(completions.lock().unwrap()[0]["params"]["elicitationId"], "e1");
    block_on(client.close()).unwrap();
}

#[test]
fn cancelling_a_call_reaches_the_handler() {
    let server = Server::new(json!({ "name": "c", "version": "1" })).unwrap();
    let cancelled = Arc::new(AtomicUsize::new(0));
    let count = cancelled.clone();
    server
        .add_tool(
            json!({ "name": "wait" }),
            callback(move |_args, ctx: Context| {
                let count = count.clone();
                async move {
                    // The core drops a cancelled handler's future; a binding whose handlers
                    // cannot be dropped (a JS promise) watches the context instead.
                    let watched = ctx.clone();
                    ctx.cancelled().on_complete(move |outcome| {
                        assert!(outcome.is_ok() && watched.is_cancelled());
                        count.fetch_add(1, Ordering::SeqCst);
                    });
                    std::future::pending::<()>().await;
                    Ok(Value::Null)
                }
            }),
            false,
        )
        .unwrap();
    let client = connect(&server, ClientCallbacks::new());
    let timed_out =
        block_on(client.call_tool("wait", json!({}), CallOptions::new().with_timeout(Duration::from_millis(50))))
            .unwrap_err();
    assert_eq!(timed_out.kind, ErrorKind::Timeout);
    wait_until(|| cancelled.load(Ordering::SeqCst) == 1);

    let call = client.call_tool("wait", json!({}), CallOptions::new());
    let handle = call.on_complete(|_| panic!("an aborted call never completes"));
    std::thread::sleep(Duration::from_millis(50));
    handle.abort();
    wait_until(|| cancelled.load(Ordering::SeqCst) == 2);
    block_on(client.close()).unwrap();
}

#[test]
fn a_cancel_handle_cancels_a_call_and_its_request() {
    let server = Server::new(json!({ "name": "c", "version": "1" })).unwrap();
    let cancelled = Arc::new(AtomicUsize::new(0));
    let count = cancelled.clone();
    server
        .add_tool(
            json!({ "name": "wait" }),
            callback(move |_args, ctx: Context| {
                let count = count.clone();
                async move {
                    ctx.cancelled().on_complete(move |_| {
                        count.fetch_add(1, Ordering::SeqCst);
                    });
                    std::future::pending::<()>().await;
                    Ok(Value::Null)
                }
            }),
            false,
        )
        .unwrap();
    let client = connect(&server, ClientCallbacks::new());
    let handle = CancelHandle::new();
    let call = client.call_tool("wait", json!({}), CallOptions::new()).cancel_on(&handle);
    let canceller = handle.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        canceller.cancel();
    });
    let error = block_on(call).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Cancelled);
    assert!(handle.is_cancelled());
    wait_until(|| cancelled.load(Ordering::SeqCst) == 1);

    let started = client.call_tool("wait", json!({}), CallOptions::new());
    let early = block_on(started.cancel_on(&handle)).unwrap_err();
    assert_eq!(early.kind, ErrorKind::Cancelled, "a cancelled handle cancels at once");
    let ping = block_on(client.request("ping", Value::Null, CallOptions::new()).cancel_on(&CancelHandle::new()));
    assert_eq!(ping.unwrap(), json!({}));
    block_on(client.close()).unwrap();
}

#[test]
fn tools_run_as_tasks() {
    let server = server();
    let client = connect(&server, ClientCallbacks::new());
    let created =
        block_on(client.call_tool("slow", json!({}), CallOptions::new().with_task(json!({ "ttl": 60000 })))).unwrap();
    let id = created["task"]["taskId"].as_str().unwrap().to_owned();
    let result = block_on(client.request("tasks/result", json!({ "taskId": id }), CallOptions::new())).unwrap();
    assert_eq!(result["content"][0]["text"], "done");
    let status = block_on(client.request("tasks/get", json!({ "taskId": id }), CallOptions::new())).unwrap();
    assert_eq!(status["status"], "completed");
    let all = block_on(client.list_all("tasks")).unwrap();
    assert_eq!(all.as_array().unwrap().len(), 1);
    block_on(client.close()).unwrap();
}

#[test]
fn roots_changes_reach_the_server_callback() {
    let server = Server::new(json!({ "name": "r", "version": "1" })).unwrap();
    let seen = Arc::new(Mutex::new(None));
    let sink = seen.clone();
    server
        .on_roots_changed(callback(move |_p, ctx: Context| {
            let sink = sink.clone();
            async move {
                *sink.lock().unwrap() = Some(ctx.list_roots().await?);
                Ok(Value::Null)
            }
        }))
        .unwrap();
    assert_eq!(
        server.on_roots_changed(callback(|_p, _c| async { Ok(Value::Null) })).unwrap_err().kind,
        ErrorKind::Config
    );
    let callbacks = ClientCallbacks::new()
        .with_roots(callback(|_p, _ctx| async { Ok(json!({ "roots": [{ "uri": "file:///a" }] })) }));
    let client = connect(&server, callbacks);
    client.notify_roots_changed().unwrap();
    wait_until(|| seen.lock().unwrap().is_some());
    assert_eq!(seen.lock().unwrap().as_ref().unwrap()["roots"][0]["uri"], "file:///a");
    block_on(client.close()).unwrap();
}

#[test]
fn capabilities_follow_the_callbacks_given() {
    let server = Server::new(json!({ "name": "caps", "version": "1" })).unwrap();
    server
        .add_tool(
            json!({ "name": "caps" }),
            callback(|_a, ctx: Context| async move { Ok(ctx.client_capabilities()) }),
            false,
        )
        .unwrap();
    let none = || callback(|_p, _c| async { Ok(Value::Null) });
    let cases = [
        (ClientCallbacks::new(), json!({})),
        (ClientCallbacks::new().with_sampling(none(), false), json!({ "sampling": {} })),
        (ClientCallbacks::new().with_sampling(none(), true), json!({ "sampling": { "tools": {} } })),
        (ClientCallbacks::new().with_elicitation(none(), true, false), json!({ "elicitation": { "form": {} } })),
        (ClientCallbacks::new().with_elicitation(none(), false, true), json!({ "elicitation": { "url": {} } })),
        (ClientCallbacks::new().with_roots(none()), json!({ "roots": { "listChanged": true } })),
    ];
    for (callbacks, expected) in cases {
        let client = connect(&server, callbacks);
        let caps = block_on(client.call_tool("caps", json!({}), CallOptions::new())).unwrap();
        assert_eq!(caps["structuredContent"], expected);
        block_on(client.close()).unwrap();
    }
}

#[test]
fn a_second_registration_of_a_name_is_refused_unless_it_asks_to_replace() {
    let server = Server::new(json!({ "name": "x", "version": "1" })).unwrap();
    let noop = callback(|_p, _c| async { Ok(Value::Null) });
    type Register<'a> = &'a dyn Fn(Value, bool) -> Option<mcpweft_bridge::Error>;
    let registrations: [(&str, Value, Register<'_>); 4] = [
        ("tool", json!({ "name": "t" }), &|d, r| server.add_tool(d, noop.clone(), r).err()),
        ("resource", json!({ "uri": "a://r", "name": "r" }), &|d, r| server.add_resource(d, noop.clone(), r).err()),
        ("resource template", json!({ "uriTemplate": "a://{x}", "name": "x" }), &|d, r| {
            server.add_resource_template(d, noop.clone(), r).err()
        }),
        ("prompt", json!({ "name": "p" }), &|d, r| server.add_prompt(d, noop.clone(), r).err()),
    ];
    for (what, descriptor, add) in registrations {
        assert!(add(descriptor.clone(), false).is_none(), "{what}");
        let twice = add(descriptor.clone(), false).expect("a second registration is refused");
        assert_eq!(twice.kind, ErrorKind::Config, "{what}");
        assert!(twice.message.starts_with(&format!("the {what} ")), "{}", twice.message);
        assert!(twice.message.contains("already registered"), "{}", twice.message);
        assert!(add(descriptor, true).is_none(), "{what} replaced");
    }
    let skill = json!({ "skillMd": "---\nname: s\ndescription: S.\n---\n" });
    server.add_skill(skill.clone(), false).unwrap();
    assert_eq!(server.add_skill(skill.clone(), false).unwrap_err().kind, ErrorKind::Config);
    server.add_skill(skill, true).unwrap();
}

#[test]
fn bad_input_is_a_clear_error() {
    let misspelt = Server::new(json!({ "name": "x", "version": "1", "pagesize": 3 })).unwrap_err();
    assert_eq!(misspelt.kind, ErrorKind::InvalidInput);
    assert!(misspelt.message.contains("pagesize"), "{}", misspelt.message);
    let server = Server::new(json!({ "name": "x", "version": "1" })).unwrap();
    let noop = callback(|_p, _c| async { Ok(Value::Null) });
    let bad_schema = server
        .add_tool(json!({ "name": "t", "inputSchema": { "type": "object", "minimum": "x" } }), noop.clone(), false)
        .unwrap_err();
    assert_eq!(bad_schema.kind, ErrorKind::Config);
    let bad_template =
        server.add_resource_template(json!({ "uriTemplate": "a://{", "name": "t" }), noop.clone(), false).unwrap_err();
    assert_eq!(bad_template.kind, ErrorKind::Config);
    assert_eq!(server.add_tool(json!({ "nam": "t" }), noop.clone(), false).unwrap_err().kind, ErrorKind::InvalidInput);
    assert_eq!(server.log("loud", json!(1), None).unwrap_err().kind, ErrorKind::InvalidInput);

    let spawn = block_on(Client::connect(
        json!({ "type": "stdio", "command": "/nonexistent/mcp-server" }),
        Value::Null,
        ClientCallbacks::new(),
    ))
    .unwrap_err();
    assert_eq!(spawn.kind, ErrorKind::Io);
    assert!(spawn.causes.iter().any(|c| c.contains("/nonexistent/mcp-server")), "{spawn:?}");
    let transport = block_on(Client::connect(json!({ "type": "carrier-pigeon" }), Value::Null, ClientCallbacks::new()));
    assert_eq!(transport.unwrap_err().kind, ErrorKind::InvalidInput);
}

#[test]
fn stdio_clients_get_args_env_and_cwd() {
    let dir = std::env::temp_dir();
    let script = "read line; printf '%s|%s|%s\\n' \"$1\" \"$MCPWEFT_TEST_VALUE\" \"$(pwd)\" >&2; exit 0";
    let error = block_on(Client::connect(
        json!({ "type": "stdio", "command": "sh", "args": ["-c", script, "sh", "arg-one"],
                "env": { "MCPWEFT_TEST_VALUE": "from-env" }, "cwd": dir }),
        json!({ "requestTimeoutMs": 2000 }),
        ClientCallbacks::new(),
    ))
    .unwrap_err();
    assert_eq!(error.kind, ErrorKind::TransportClosed, "the script exits without answering: {error:?}");
    // The error names the exit and ends with what the script wrote to stderr: its arguments,
    // environment and working directory.
    let cwd = std::fs::canonicalize(&dir).unwrap();
    let expected =
        format!("the server process exited with code 0; its stderr ended with:\narg-one|from-env|{}", cwd.display());
    assert!(error.message.ends_with(&expected), "{:?} does not end with {expected:?}", error.message);
}

/// A callback that sends each payload it gets to the returned receiver.
fn recorder() -> (Arc<dyn Callback>, std::sync::mpsc::Receiver<Value>) {
    let (tx, rx) = std::sync::mpsc::channel();
    let record = callback(move |payload, _ctx| {
        let tx = tx.clone();
        async move {
            tx.send(payload).unwrap();
            Ok(Value::Null)
        }
    });
    (record, rx)
}

/// A server that answers `initialize`, then writes to stderr and exits with code 3 once it
/// hears `notifications/initialized`.
const CRASHING_SERVER: &str = r#"read -r line
printf '%s\n' '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"crash","version":"1"}}}'
read -r line
echo 'fatal: the database is gone' >&2
exit 3"#;

#[test]
fn the_close_callback_tells_how_a_server_process_ended() {
    let (on_close, rx) = recorder();
    let client = block_on(Client::connect(
        json!({ "type": "stdio", "command": "sh", "args": ["-c", CRASHING_SERVER] }),
        Value::Null,
        ClientCallbacks::new().with_close(on_close),
    ))
    .unwrap();
    let payload = rx.recv_timeout(Duration::from_secs(10)).expect("the close callback runs");
    let message =
        "transport closed: the server process exited with code 3; its stderr ended with:\nfatal: the database is gone";
    assert_eq!(
        payload,
        json!({ "reason": "disconnected", "message": message, "exitCode": 3, "stderr": "fatal: the database is gone" })
    );
    // Requests fail with the same message from then on.
    let error = block_on(client.request("ping", Value::Null, CallOptions::new())).unwrap_err();
    assert_eq!((error.kind, error.message.as_str()), (ErrorKind::TransportClosed, message));
    block_on(client.close()).unwrap();
    assert!(rx.recv_timeout(Duration::from_millis(200)).is_err(), "the callback runs once");
}

#[test]
fn a_templates_list_callback_lists_resources_with_its_metadata() {
    let server = Server::new(json!({ "name": "listed", "version": "1" })).unwrap();
    let read = callback(|payload, _ctx| async move { Ok(json!(format!("user {}", payload["variables"]["id"]))) });
    let list = callback(|_payload, _ctx| async move {
        Ok(json!({ "resources": [
            { "uri": "mem://users/1", "name": "Ada" },
            { "uri": "mem://users/2", "name": "Alan", "mimeType": "text/markdown" },
        ] }))
    });
    let descriptor =
        json!({ "uriTemplate": "mem://users/{id}", "name": "user", "title": "A user", "mimeType": "text/plain" });
    server.add_listed_resource_template(descriptor, read.clone(), list, false).unwrap();
    let bare = callback(|_payload, _ctx| async move { Ok(json!([{ "uri": "mem://bare/a", "name": "a" }])) });
    server
        .add_listed_resource_template(
            json!({ "uriTemplate": "mem://bare/{x}", "name": "bare" }),
            read.clone(),
            bare,
            false,
        )
        .unwrap();
    let client = block_on(Client::connect_memory(&server, Value::Null, ClientCallbacks::new())).unwrap();
    let listed = block_on(client.list_all("resources")).unwrap();
    assert_eq!(
        listed,
        json!([
            { "uri": "mem://users/1", "name": "Ada", "title": "A user", "mimeType": "text/plain" },
            { "uri": "mem://users/2", "name": "Alan", "title": "A user", "mimeType": "text/markdown" },
            { "uri": "mem://bare/a", "name": "a" },
        ])
    );
    let wrong = callback(|_payload, _ctx| async move { Ok(json!("not a list")) });
    server
        .add_listed_resource_template(json!({ "uriTemplate": "mem://wrong/{x}", "name": "wrong" }), read, wrong, false)
        .unwrap();
    let error = block_on(client.list_all("resources")).unwrap_err();
    assert!(error.message.contains("mem://wrong/{x} returned neither an array of resources"), "{error:?}");
    block_on(client.close()).unwrap();
}

#[test]
fn the_close_callback_hears_a_close_of_this_side() {
    let (on_close, rx) = recorder();
    let client =
        block_on(Client::connect_memory(&server(), Value::Null, ClientCallbacks::new().with_close(on_close))).unwrap();
    assert!(rx.recv_timeout(Duration::from_millis(100)).is_err(), "no close while the connection is open");
    block_on(client.close()).unwrap();
    let payload = rx.recv_timeout(Duration::from_secs(10)).expect("the close callback runs");
    assert_eq!(payload, json!({ "reason": "closed", "message": "the client closed the connection" }));
}

#[test]
fn http_serving_and_connecting() {
    let server = server();
    server
        .add_tool(
            json!({ "name": "session" }),
            callback(|_a, ctx: Context| async move { Ok(json!(ctx.session_id())) }),
            false,
        )
        .unwrap();
    let http = block_on(server.serve_http(json!({ "port": 0, "path": "mcp", "jsonResponse": false }))).unwrap();
    assert!(http.url().starts_with("http://127.0.0.1:") && http.url().ends_with("/mcp"), "{}", http.url());
    let client = block_on(Client::connect(
        json!({ "type": "http", "url": http.url(), "headers": { "x-test": "1" }, "bearerToken": "secret" }),
        json!({ "name": "http-tester", "version": "1" }),
        ClientCallbacks::new(),
    ))
    .unwrap();
    let sum = block_on(client.call_tool("add", json!({ "a": 1, "b": 1 }), CallOptions::new())).unwrap();
    assert_eq!(sum["structuredContent"]["result"], 2.0);
    let session = block_on(client.call_tool("session", json!({}), CallOptions::new())).unwrap();
    let id = session["content"][0]["text"].as_str().unwrap();
    assert_eq!(id.len(), 32, "the HTTP session id reaches the handler: {session}");
    block_on(client.close()).unwrap();
    block_on(http.close()).unwrap();
    block_on(http.close()).unwrap();
    block_on(http.wait()).unwrap();
    let refused = block_on(server.serve_http(json!({ "port": 0, "colour": "red" }))).unwrap_err();
    assert_eq!(refused.kind, ErrorKind::InvalidInput);
}

#[test]
fn an_endpoint_answers_a_host_applications_exchanges() {
    let server = server();
    server
        .add_tool(
            json!({ "name": "whoami" }),
            callback(|_args, ctx: Context| async move { Ok(json!(ctx.session_id())) }),
            false,
        )
        .unwrap();
    let endpoint = server.http_endpoint(json!({ "path": "/mcp" })).unwrap();
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": { "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "h", "version": "1" } },
    });
    let request = HttpRequest {
        method: "POST".into(),
        uri: "/mcp".into(),
        headers: vec![
            ("host".into(), "localhost:3000".into()),
            ("content-type".into(), "application/json".into()),
            ("accept".into(), "application/json, text/event-stream".into()),
        ],
        body: serde_json::to_vec(&initialize).unwrap(),
    };
    let response = block_on(endpoint.handle(request.clone())).unwrap();
    assert_eq!(response.status, 200);
    assert!(response.headers.iter().any(|(name, _)| name == "mcp-session-id"), "{:?}", response.headers);
    let mut body = Vec::new();
    while let Some(chunk) = block_on(response.body.next_chunk()).unwrap() {
        body.extend(chunk);
    }
    let reply: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(reply["result"]["serverInfo"]["name"], "bridge-test");

    // A request the application routed from another path is answered with a JSON-RPC error
    // that names the endpoint's path and the option that changes it.
    let elsewhere = block_on(endpoint.handle(HttpRequest { uri: "/api/mcp?x=1".into(), ..request.clone() })).unwrap();
    assert_eq!(elsewhere.status, 404);
    let mut body = Vec::new();
    while let Some(chunk) = block_on(elsewhere.body.next_chunk()).unwrap() {
        body.extend(chunk);
    }
    let error: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(error["error"]["code"], -32600);
    let message = error["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("this MCP endpoint serves the path /mcp, not /api/mcp:"), "{message}");
    assert!(message.contains("`path` option"), "{message}");

    let session = response.headers.iter().find(|(name, _)| name == "mcp-session-id").unwrap().1.clone();
    let call = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": { "name": "whoami" } });
    let mut headers = request.headers.clone();
    headers.push(("mcp-session-id".into(), session.clone()));
    let response =
        block_on(endpoint.handle(HttpRequest { headers, body: serde_json::to_vec(&call).unwrap(), ..request.clone() }))
            .unwrap();
    let mut body = Vec::new();
    while let Some(chunk) = block_on(response.body.next_chunk()).unwrap() {
        body.extend(chunk);
    }
    let reply: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(reply["result"]["content"][0]["text"], session, "a handler sees its session's id: {reply}");

    let foreign = HttpRequest {
        headers: vec![("host".into(), "evil.example".into()), ("content-type".into(), "application/json".into())],
        ..request
    };
    assert_eq!(block_on(endpoint.handle(foreign)).unwrap().status, 403);
}

#[test]
fn tasks_cancel_on_drop_and_report_panics() {
    let server = Server::new(json!({ "name": "p", "version": "1" })).unwrap();
    server.add_tool(json!({ "name": "boom" }), callback(|_a, _c| async { panic!("handler bug") }), false).unwrap();
    let client = connect(&server, ClientCallbacks::new());
    let boom = block_on(client.call_tool("boom", json!({}), CallOptions::new()));
    assert!(boom.is_err() || boom.as_ref().unwrap()["isError"] == true, "{boom:?}");
    assert_eq!(block_on(client.request("ping", Value::Null, CallOptions::new())).unwrap(), json!({}));
    block_on(client.close()).unwrap();

    let panicked = block_on(mcpweft_bridge::spawn(async { panic!("bridge bug") as Result<(), Error> })).unwrap_err();
    assert_eq!(panicked.kind, ErrorKind::Internal);
    assert!(panicked.message.contains("bridge bug"));
    let task: Task<()> = mcpweft_bridge::spawn(async { std::future::pending().await });
    drop(task);
}

#[test]
fn blocking_handlers_are_bounded() {
    mcpweft_bridge::set_blocking_limit(2);
    let limit = mcpweft_bridge::blocking_limit();
    let release = Arc::new(std::sync::Barrier::new(limit + 1));
    let mut running = Vec::new();
    for _ in 0..limit * 5 {
        let release = release.clone();
        running.push(mcpweft_bridge::spawn(async move {
            mcpweft_bridge::run_blocking(move || {
                release.wait();
            })
            .await
        }));
    }
    std::thread::sleep(Duration::from_millis(100));
    let refused = block_on(mcpweft_bridge::spawn(async { mcpweft_bridge::run_blocking(|| ()).await })).unwrap_err();
    assert_eq!(refused.kind, ErrorKind::Overloaded);
    assert!(refused.message.contains("synchronous handlers"), "{}", refused.message);
    drop(running);
    release.wait();
}

#[test]
fn the_cluster_option_needs_the_redis_feature_and_a_reachable_redis() {
    let server = server();
    // Nothing listens on port 1 of loopback.
    let options = json!({ "port": 0, "cluster": { "url": "redis://127.0.0.1:1/0", "commandTimeoutMs": 200 } });
    let served = block_on(server.serve_http(options));
    #[cfg(not(feature = "redis"))]
    {
        let error = served.unwrap_err();
        assert_eq!(error.kind, ErrorKind::InvalidInput);
        assert!(error.message.contains("redis"), "{error:?}");
    }
    #[cfg(feature = "redis")]
    {
        // The server starts; its requests are refused until Redis can be reached.
        let http = served.unwrap();
        let refused = block_on(Client::connect(
            json!({ "type": "http", "url": http.url() }),
            json!({ "name": "cluster-tester", "version": "1" }),
            ClientCallbacks::new(),
        ));
        assert!(refused.is_err(), "initialize needs Redis");
        block_on(http.close()).unwrap();
    }
    let unknown = block_on(server.serve_http(json!({ "port": 0, "cluster": { "url": "redis://x", "colour": 1 } })));
    assert_eq!(unknown.unwrap_err().kind, ErrorKind::InvalidInput);
}
