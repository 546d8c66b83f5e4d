//! Revision 2026-07-28 beside 2025-11-25 on one server: requests that carry their version and
//! client capabilities in `_meta`, need no `initialize` and belong to no session, over HTTP and
//! stdio.

use crate::common;

use crate::http_common::*;
use mcpweft::{RequestContext, Server, http::HttpServerOptions, model::*};
use serde_json::{Value, json};

const NEXT: &str = "2026-07-28";

/// The `_meta` of a 2026-07-28 request.
fn envelope(extra: Value) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": NEXT,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "next-client", "version": "1" },
    });
    if let (Value::Object(meta), Value::Object(extra)) = (&mut meta, extra) {
        meta.extend(extra);
    }
    meta
}

/// A 2026-07-28 POST of `method`, with the headers the revision requires.
fn post_next(mcp: &Mcp, id: i64, method: &str, mut params: Value, name: Option<&str>) -> reqwest::RequestBuilder {
    params["_meta"] = envelope(params.get("_meta").cloned().unwrap_or(json!({})));
    let body = request(id, method, params);
    let mut builder = mcp.post(None, &body).header("mcp-protocol-version", NEXT).header("mcp-method", method);
    if let Some(name) = name {
        builder = builder.header("mcp-name", name);
    }
    builder
}

#[tokio::test]
async fn requests_need_no_initialize_and_results_say_they_are_complete() {
    let (_bound, _server, _probes, mcp) = bind_default().await;
    let listed = send(post_next(&mcp, 1, "tools/list", json!({}), None)).await;
    assert_eq!(listed.status(), 200);
    assert!(session_header(&listed).is_none(), "2026-07-28 has no sessions");
    let listed = body_json(listed).await;
    let result = &listed["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "http-test-server");
    assert!(result["ttlMs"].as_u64().is_some() && result["cacheScope"].is_string(), "{result}");
    assert!(result["tools"].as_array().is_some_and(|t| !t.is_empty()));

    let call = post_next(&mcp, 2, "tools/call", json!({ "name": "echo", "arguments": { "text": "hi" } }), Some("echo"));
    let called = read_reply(send(call).await).await;
    assert_eq!(result_text(&called), "hi");
    assert_eq!(called["result"]["resultType"], "complete");

    let discovered = body_json(send(post_next(&mcp, 3, "server/discover", json!({}), None)).await).await;
    let versions = discovered["result"]["supportedVersions"].as_array().unwrap();
    assert_eq!(versions[0], NEXT);
    assert!(versions.contains(&json!("2025-11-25")));
    assert!(discovered["result"]["capabilities"]["tools"].is_object());

    // A client of 2025-11-25 is served by the same endpoint at the same time.
    let session = mcp.initialize(json!({})).await;
    assert_eq!(
        mcp.call_json(Some(&session), 4, "echo", json!({ "text": "old" })).await["result"]["content"][0]["text"],
        "old"
    );
}

#[tokio::test]
async fn removed_methods_and_bad_envelopes_are_refused_with_the_revisions_errors() {
    let (_bound, _server, _probes, mcp) = bind_default().await;
    let ping = send(post_next(&mcp, 1, "ping", json!({}), None)).await;
    assert_eq!(ping.status(), 404);
    assert_eq!(body_json(ping).await["error"]["code"], -32601);

    // The method header must match the body.
    let body = request(2, "tools/list", json!({ "_meta": envelope(json!({})) }));
    let mismatch = mcp.post(None, &body).header("mcp-protocol-version", NEXT).header("mcp-method", "prompts/list");
    let mismatch = send(mismatch).await;
    assert_eq!(mismatch.status(), 400);
    let mismatch = body_json(mismatch).await;
    assert_eq!((mismatch["error"]["code"].as_i64(), mismatch["id"].as_i64()), (Some(-32020), Some(2)));

    // A header sent twice is refused, even when one of its copies matches: a proxy in front may
    // have read the other one.
    let twice = mcp.post(None, &body).header("mcp-protocol-version", NEXT).header("mcp-method", "tools/list");
    let twice = body_json(send(twice.header("mcp-method", "prompts/list")).await).await;
    assert_eq!(twice["error"]["code"], -32020);
    assert!(twice["error"]["message"].as_str().unwrap().contains("more than once"), "{twice}");
    let call = post_next(&mcp, 5, "tools/call", json!({ "name": "echo", "arguments": { "text": "hi" } }), Some("echo"));
    let twice = body_json(send(call.header("mcp-name", "other")).await).await;
    assert_eq!(twice["error"]["code"], -32020, "{twice}");

    // The client's capabilities are required in `_meta`.
    let bare = request(3, "tools/list", json!({ "_meta": { "io.modelcontextprotocol/protocolVersion": NEXT } }));
    let bare =
        send(mcp.post(None, &bare).header("mcp-protocol-version", NEXT).header("mcp-method", "tools/list")).await;
    assert_eq!(bare.status(), 400);
    assert_eq!(body_json(bare).await["error"]["code"], -32602);

    // A version nobody speaks is named, with the versions the server does.
    let future = request(4, "tools/list", json!({}));
    let future = send(mcp.post(None, &future).header("mcp-protocol-version", "2099-01-01")).await;
    assert_eq!(future.status(), 400);
    let future = body_json(future).await;
    assert_eq!(future["error"]["code"], -32022);
    assert_eq!(future["id"], 4);
    assert!(future["error"]["data"]["supported"].as_array().unwrap().contains(&json!(NEXT)));
}

/// Counts the log messages a request's SSE stream carries before its result.
async fn logs_before_result(mut stream: SseStream) -> usize {
    let mut logged = 0;
    while let Some(event) = stream.next_event().await {
        if event.is_message() {
            let message = event.json();
            logged += usize::from(message["method"] == "notifications/message");
            if message.get("result").is_some() {
                break;
            }
        }
    }
    logged
}

#[tokio::test]
async fn logs_reach_a_request_only_when_its_meta_asks_for_them() {
    let (_bound, _server, _probes, mcp) = bind(HttpServerOptions::new().with_json_response(false)).await;
    let quiet = post_next(&mcp, 1, "tools/call", json!({ "name": "steps", "arguments": {} }), Some("steps"));
    let logged = logs_before_result(SseStream::new(send(quiet).await)).await;
    assert_eq!(logged, 0, "no logLevel in _meta, no log messages");

    let params = json!({ "name": "steps", "arguments": {}, "_meta": { "io.modelcontextprotocol/logLevel": "debug" } });
    let logged =
        logs_before_result(SseStream::new(send(post_next(&mcp, 2, "tools/call", params, Some("steps"))).await)).await;
    assert!(logged > 0, "logLevel debug lets log messages through");
}

#[tokio::test]
async fn a_stdio_session_answers_a_2026_request_before_any_initialize() {
    let server = Server::builder(Implementation::new("files", "1"))
        .resource_template(
            ResourceTemplate::new("files://{name}", "files"),
            |request: mcpweft::server::ResourceRequest, _ctx: RequestContext| async move {
                Ok(ReadResourceResult::new(vec![ResourceContents::text(request.uri, "x")]))
            },
        )
        .build()
        .unwrap();
    let (mut raw, _session, _task) = common::raw_server(&server, None);
    let params = json!({ "_meta": envelope(json!({})) });
    let listed = raw.request(json!(1), "resources/templates/list", params).await;
    assert_eq!(listed["result"]["resultType"], "complete", "{listed}");
    let missing =
        raw.request(json!(2), "resources/read", json!({ "uri": "nothing://here", "_meta": envelope(json!({})) })).await;
    assert_eq!(missing["error"]["code"], -32602, "a missing resource is -32602 in 2026-07-28: {missing}");
}

/// A server whose `book` tool elicits twice, keeping what it learned in its state.
fn booking_server() -> Server {
    Server::builder(Implementation::new("booking", "1"))
        .tool(
            Tool::without_arguments("book", "Asks for guests, then a date."),
            |_a: JsonObject, ctx: RequestContext| async move {
                let schema = json!({ "type": "object", "properties": { "v": { "type": "string" } } });
                let form =
                    |message: &str| json!({ "mode": "form", "message": message, "requestedSchema": schema.clone() });
                let failed = |e: mcpweft::Error| mcpweft::ErrorData::internal_error(e.to_string());
                let guests = ctx.ask("guests", "elicitation/create", form("guests")).await.map_err(failed)?;
                ctx.set_state(json!({ "guests": guests["content"]["v"] }));
                let date = ctx.ask("date", "elicitation/create", form("date")).await.map_err(failed)?;
                Ok(CallToolResult::text(format!("{} guests on {}", guests["content"]["v"], date["content"]["v"])))
            },
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_handler_that_asks_twice_takes_two_input_rounds_and_refuses_altered_state() {
    let server = booking_server();
    let (mut raw, _session, _task) = common::raw_server(&server, None);
    let caps = json!({ "io.modelcontextprotocol/clientCapabilities": { "elicitation": { "form": {} } } });
    let call = |extra: Value| {
        let mut params = json!({ "name": "book", "arguments": {}, "_meta": envelope(caps.clone()) });
        if let (Value::Object(params), Value::Object(extra)) = (&mut params, extra) {
            params.extend(extra);
        }
        params
    };
    let first = raw.request(json!(1), "tools/call", call(json!({}))).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    assert_eq!(first["result"]["inputRequests"]["guests"]["method"], "elicitation/create");
    let state = first["result"]["requestState"].clone();

    let answers = json!({ "guests": { "action": "accept", "content": { "v": "2" } } });
    let second =
        raw.request(json!(2), "tools/call", call(json!({ "inputResponses": answers, "requestState": state }))).await;
    assert_eq!(second["result"]["resultType"], "input_required", "{second}");
    assert!(
        second["result"]["inputRequests"].get("date").is_some()
            && second["result"]["inputRequests"].get("guests").is_none()
    );
    let state = second["result"]["requestState"].clone();

    let answers = json!({ "guests": { "action": "accept", "content": { "v": "2" } },
                          "date": { "action": "accept", "content": { "v": "May 1" } } });
    let done = raw
        .request(
            json!(3),
            "tools/call",
            call(json!({ "inputResponses": answers.clone(), "requestState": state.clone() })),
        )
        .await;
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "\"2\" guests on \"May 1\"");

    let mut altered = state.as_str().unwrap().to_owned();
    altered.replace_range(5..6, if &altered[5..6] == "A" { "B" } else { "A" });
    let refused =
        raw.request(json!(4), "tools/call", call(json!({ "inputResponses": answers, "requestState": altered }))).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");

    // Without the client capability the request fails with -32021, naming it.
    let bare = json!({ "name": "book", "arguments": {}, "_meta": envelope(json!({})) });
    let missing = raw.request(json!(5), "tools/call", bare).await;
    assert_eq!(missing["error"]["code"], -32021, "{missing}");
    assert_eq!(missing["error"]["data"]["requiredCapabilities"], json!({ "elicitation": {} }));
}

/// Serves `server` over Streamable HTTP on loopback.
async fn bind_server(server: &Server) -> (mcpweft::http::BoundHttpServer, Mcp) {
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    let bound = within(mcpweft::http::StreamableHttpServer::bind(server.clone(), addr, HttpServerOptions::default()))
        .await
        .expect("bind 127.0.0.1:0");
    let mcp = Mcp::new(bound.url());
    (bound, mcp)
}

#[tokio::test]
async fn a_listen_stream_is_acknowledged_then_gets_only_what_it_asked_for() {
    let server = Server::builder(Implementation::new("lists", "1"))
        .tool(Tool::without_arguments("first", "One tool."), |_a: JsonObject, _c: RequestContext| async move {
            Ok(CallToolResult::text("first"))
        })
        .prompt(Prompt::new("p"), |_a: std::collections::HashMap<String, String>, _c: RequestContext| async move {
            Ok(GetPromptResult::new(Vec::new()))
        })
        .resource(
            Resource::new("file:///watched", "watched"),
            |r: mcpweft::server::ResourceRequest, _c: RequestContext| async move {
                Ok(ReadResourceResult::new(vec![ResourceContents::text(r.uri, "x")]))
            },
        )
        .build()
        .unwrap();
    let (_bound, mcp) = bind_server(&server).await;
    let filter = json!({ "notifications": { "toolsListChanged": true, "resourceSubscriptions": ["file:///watched"] } });
    let mut stream = SseStream::new(send(post_next(&mcp, 7, "subscriptions/listen", filter, None)).await);
    let (_, ack) = stream.message().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
    assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 7);
    assert_eq!(ack["params"]["notifications"]["toolsListChanged"], true);

    // Not asked for: a prompt change and another resource. Asked for: a tool change, the resource.
    server.remove_prompt("p");
    server.notify_resource_updated("file:///other");
    server.remove_tool("first");
    server.notify_resource_updated("file:///watched");
    let (_, changed) = stream.message().await;
    assert_eq!(changed["method"], "notifications/tools/list_changed", "{changed}");
    assert_eq!(changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 7);
    let (_, updated) = stream.message().await;
    assert_eq!(updated["method"], "notifications/resources/updated", "{updated}");
    assert_eq!(updated["params"]["uri"], "file:///watched");
    stream.assert_quiet(std::time::Duration::from_millis(200)).await;
}

/// A server with tasks on and a tool that works a while, then asks for confirmation.
fn task_server() -> Server {
    let wait = |_a: JsonObject, ctx: RequestContext| async move {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let form =
            json!({ "mode": "form", "message": "Sure?", "requestedSchema": { "type": "object", "properties": {} } });
        let answer = ctx
            .ask("confirm", "elicitation/create", form)
            .await
            .map_err(|e| mcpweft::ErrorData::internal_error(e.to_string()))?;
        Ok(CallToolResult::text(format!("answered {}", answer["action"])))
    };
    Server::builder(Implementation::new("tasks", "1"))
        .tasks(mcpweft::server::TaskOptions::new())
        .tool(Tool::without_arguments("confirm", "Works, then asks.").with_task_support(TaskSupport::Optional), wait)
        .tool(Tool::without_arguments("batch", "Must run as a task.").with_task_support(TaskSupport::Required), wait)
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_task_of_the_extension_asks_for_input_through_tasks_get_and_update() {
    let server = task_server();
    let (mut raw, _session, _task) = common::raw_server(&server, None);
    let with_tasks = json!({ "io.modelcontextprotocol/clientCapabilities": {
        "elicitation": {}, "extensions": { "io.modelcontextprotocol/tasks": {} } } });
    let discovered = raw.request(json!(1), "server/discover", json!({ "_meta": envelope(json!({})) })).await;
    let caps = &discovered["result"]["capabilities"];
    assert!(caps["extensions"]["io.modelcontextprotocol/tasks"].is_object() && caps.get("tasks").is_none(), "{caps}");

    let created =
        raw.request(json!(2), "tools/call", json!({ "name": "confirm", "_meta": envelope(with_tasks.clone()) })).await;
    let created = &created["result"];
    assert_eq!(created["resultType"], "task", "{created}");
    assert!(created["ttlMs"].as_u64().is_some() && created.get("ttl").is_none());
    let id = created["taskId"].clone();
    let get = json!({ "taskId": id, "_meta": envelope(with_tasks.clone()) });
    let mut polled = Value::Null;
    for n in 0..100 {
        polled = raw.request(json!(100 + n), "tasks/get", get.clone()).await;
        if polled["result"]["status"] == "input_required" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(polled["result"]["inputRequests"]["confirm"]["method"], "elicitation/create", "{polled}");
    let answers = json!({ "confirm": { "action": "accept", "content": {} } });
    let update = json!({ "taskId": id, "inputResponses": answers, "_meta": envelope(with_tasks.clone()) });
    let acked = raw.request(json!(3), "tasks/update", update).await;
    assert_eq!(acked["result"]["resultType"], "complete", "{acked}");
    assert!(acked["result"].get("status").is_none());
    for n in 0..100 {
        polled = raw.request(json!(200 + n), "tasks/get", get.clone()).await;
        if polled["result"]["status"] == "completed" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(polled["result"]["result"]["content"][0]["text"], "answered \"accept\"", "{polled}");
    let cancelled = raw.request(json!(4), "tasks/cancel", get.clone()).await;
    assert_eq!(cancelled["result"]["resultType"], "complete", "cancelling an ended task is acknowledged: {cancelled}");

    let unknown = json!({ "taskId": "nope", "_meta": envelope(with_tasks) });
    assert_eq!(raw.request(json!(5), "tasks/get", unknown).await["error"]["code"], -32602);
    let undeclared = json!({ "taskId": id, "_meta": envelope(json!({})) });
    let refused = raw.request(json!(6), "tasks/get", undeclared).await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    let required = raw.request(json!(7), "tools/call", json!({ "name": "batch", "_meta": envelope(json!({})) })).await;
    assert_eq!(
        required["error"]["data"]["requiredCapabilities"]["extensions"],
        json!({ "io.modelcontextprotocol/tasks": {} }),
        "{required}"
    );
}

#[tokio::test]
async fn custom_headers_of_tool_parameters_must_match_the_arguments() {
    let schema =
        json!({ "type": "object", "properties": { "region": { "type": "string", "x-mcp-header": "Region" } } });
    let tool = Tool::new("where", "Echoes a region.", schema.as_object().cloned().unwrap());
    let server = Server::builder(Implementation::new("headers", "1"))
        .tool(tool, |args: JsonObject, _c: RequestContext| async move {
            Ok(CallToolResult::text(args["region"].as_str().unwrap_or_default().to_owned()))
        })
        .build()
        .unwrap();
    let (_bound, mcp) = bind_server(&server).await;
    let call = |id: i64, region: &str| {
        post_next(&mcp, id, "tools/call", json!({ "name": "where", "arguments": { "region": region } }), Some("where"))
    };
    let plain = read_reply(send(call(1, "us-west1").header("mcp-param-region", "us-west1")).await).await;
    assert_eq!(result_text(&plain), "us-west1");
    let encoded = send(call(2, "Zürich").header("mcp-param-region", "=?base64?WsO8cmljaA==?=")).await;
    assert_eq!(result_text(&read_reply(encoded).await), "Zürich");
    for (id, header) in [(3, None), (4, Some("eu")), (5, Some("=?base64?WsO8cmljaA?="))] {
        let mut request = call(id, "Zürich");
        if let Some(header) = header {
            request = request.header("mcp-param-region", header);
        }
        let refused = send(request).await;
        assert_eq!(refused.status(), 400, "{header:?}");
        assert_eq!(body_json(refused).await["error"]["code"], -32020);
    }

    let stray = json!({ "type": "object", "properties": { "list": { "type": "array",
        "items": { "type": "string", "x-mcp-header": "Item" } } } });
    let bad = Tool::new("bad", "Annotates an array item.", stray.as_object().cloned().unwrap());
    let registered =
        server.add_tool(bad, |_a: JsonObject, _c: RequestContext| async move { Ok(CallToolResult::text("")) });
    assert!(matches!(registered, Err(mcpweft::Error::Config(_))), "{registered:?}");
}
