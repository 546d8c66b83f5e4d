//! Revision 2026-07-28 beside 2025-11-25 on one server: requests that carry their version and
//! client capabilities in `_meta`, need no `initialize` and belong to no session, over HTTP and
//! stdio.

mod common;
mod http_common;

use http_common::*;
use mcpkit::{RequestContext, Server, http::HttpServerOptions, model::*};
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
            |request: mcpkit::server::ResourceRequest, _ctx: RequestContext| async move {
                Ok(ReadResourceResult { contents: vec![ResourceContents::text(request.uri, "x")], meta: None })
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
                let failed = |e: mcpkit::Error| mcpkit::ErrorData::internal_error(e.to_string());
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
