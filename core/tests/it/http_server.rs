//! The Streamable HTTP server on the wire: raw `reqwest` requests, checking status codes,
//! headers, JSON bodies and SSE event text against MCP 2025-11-25 (§ Transports).

use std::{collections::HashSet, net::SocketAddr, sync::Arc, time::Duration};

use crate::http_common::*;
use mcpweft::{
    RequestContext,
    http::{HttpServerOptions, StreamableHttpServer},
    model::*,
};
use serde_json::{Value, json};

fn ids_of(events: &[SseEvent]) -> Vec<String> {
    events.iter().map(|e| e.id.clone().expect("every event has an id")).collect()
}

fn assert_unique(ids: &[String]) {
    let set: HashSet<&String> = ids.iter().collect();
    assert_eq!(set.len(), ids.len(), "event ids repeat: {ids:?}");
}

/// Asserts the priming event: an id, a `retry:` and one empty `data:` line.
fn assert_priming(event: &SseEvent) {
    assert!(event.id.as_deref().is_some_and(|id| !id.is_empty()), "the priming event has an id: {event:?}");
    assert!(event.retry.is_some(), "the priming event announces retry: {event:?}");
    assert!(event.has_data && event.data.is_empty(), "the priming event has empty data: {event:?}");
}

// ---------------------------------------------------------------------------------------------
// Basic exchanges
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn initialize_answers_json_with_a_fresh_session_id() {
    let (bound, _server, _probes, mcp) = bind_default().await;
    let response = send(mcp.post(None, &request(1, "initialize", init_params(json!({}))))).await;
    assert_eq!(response.status(), 200);
    assert_eq!(content_type(&response), "application/json");
    let first = session_header(&response).expect("an mcp-session-id header");
    let reply = body_json(response).await;
    assert_eq!(reply["jsonrpc"], "2.0");
    assert_eq!(reply["id"], 1);
    assert_eq!(reply["result"]["protocolVersion"], VERSION);
    assert_eq!(reply["result"]["serverInfo"]["name"], "http-test-server");

    assert!(first.bytes().all(|b| (0x21..=0x7e).contains(&b)), "visible ASCII: {first:?}");
    assert!(first.len() >= 32 && first.bytes().all(|b| b.is_ascii_hexdigit()), "≥ 32 hex chars: {first:?}");

    let response = send(mcp.post(None, &request(1, "initialize", init_params(json!({}))))).await;
    assert_eq!(response.status(), 200);
    let second = session_header(&response).expect("an mcp-session-id header");
    assert_ne!(first, second, "every session gets its own id");
    assert_eq!(bound.http().session_count(), 2);
    bound.shutdown().await;
}

#[tokio::test]
async fn handlers_see_the_session_id() {
    let (bound, server, _probes, mcp) = bind_default().await;
    server
        .add_tool(
            Tool::without_arguments("whoami", "Names the session."),
            |_args: JsonObject, ctx: RequestContext| async move {
                Ok(CallToolResult::text(ctx.session_id().unwrap_or("none").to_owned()))
            },
        )
        .unwrap();
    let session = mcp.initialize(json!({})).await;
    let reply = mcp.call_json(Some(&session), 2, "whoami", json!({})).await;
    assert_eq!(result_text(&reply), session);
    bound.shutdown().await;
}

#[tokio::test]
async fn initialized_is_accepted_and_tools_call_answers_json() {
    let (bound, _server, _probes, mcp) = bind_default().await;
    let response = send(mcp.post(None, &request(1, "initialize", init_params(json!({}))))).await;
    let session = session_header(&response).unwrap();
    let _ = body_json(response).await;

    let response = send(mcp.post(Some(&session), &notification("notifications/initialized", None))).await;
    assert_eq!(response.status(), 202);
    assert_eq!(body_text(response).await, "", "202 has an empty body");

    let reply = mcp.call_json(Some(&session), 2, "echo", json!({ "text": "hi" })).await;
    assert_eq!(reply["jsonrpc"], "2.0");
    assert_eq!(result_text(&reply), "hi");
    assert!(!reply["result"].get("isError").and_then(Value::as_bool).unwrap_or(false), "{reply}");

    let response = send(mcp.post(Some(&session), &request(3, "tools/list", json!({})))).await;
    assert_eq!(response.status(), 200);
    let list = body_json(response).await;
    let names: Vec<&str> =
        list["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"echo") && names.contains(&"progress"), "{names:?}");
    bound.shutdown().await;
}

#[tokio::test]
async fn a_tool_that_notifies_first_answers_with_an_sse_stream() {
    let (bound, _server, _probes, mcp) = bind_default().await;
    let session = mcp.initialize(json!({})).await;
    let response = send(mcp.post(Some(&session), &call(7, "steps", json!({}), Some("tok-7")))).await;
    assert_eq!(response.status(), 200);
    assert_eq!(content_type(&response), "text/event-stream");
    let mut sse = SseStream::new(response);

    let priming = sse.event().await;
    assert_priming(&priming);

    let mut events = vec![priming];
    let mut messages = Vec::new();
    for _ in 0..4 {
        let event = sse.event().await;
        assert!(event.is_message(), "only messages after the priming event: {event:?}");
        messages.push(event.json());
        events.push(event);
    }
    sse.assert_ends().await;

    assert_eq!(messages[0]["method"], "notifications/message", "{}", messages[0]);
    assert_eq!(messages[0]["params"]["data"], "step one");
    assert_eq!(messages[0]["params"]["level"], "info");
    for (message, progress) in messages[1..3].iter().zip([1.0, 2.0]) {
        assert_eq!(message["method"], "notifications/progress", "{message}");
        assert_eq!(message["params"]["progressToken"], "tok-7");
        assert_eq!(message["params"]["progress"], progress);
        assert_eq!(message["params"]["total"], 2.0);
        assert!(message.get("id").is_none(), "a notification has no id: {message}");
    }
    assert_eq!(messages[3]["id"], 7, "the response comes last: {}", messages[3]);
    assert_eq!(result_text(&messages[3]), "stepped");
    assert_unique(&ids_of(&events));
    bound.shutdown().await;
}

#[tokio::test]
async fn with_json_response_off_every_request_gets_sse() {
    let options = HttpServerOptions::new().with_json_response(false);
    let (bound, _server, _probes, mcp) = bind(options).await;

    let response = send(mcp.post(None, &request(1, "initialize", init_params(json!({}))))).await;
    assert_eq!(response.status(), 200);
    assert_eq!(content_type(&response), "text/event-stream");
    let session = session_header(&response).expect("the SSE answer to initialize carries the session id");
    let mut sse = SseStream::new(response);
    assert_priming(&sse.event().await);
    let (_, reply) = sse.message().await;
    assert_eq!(reply["id"], 1);
    assert_eq!(reply["result"]["protocolVersion"], VERSION);
    sse.assert_ends().await;

    let response = send(mcp.post(Some(&session), &notification("notifications/initialized", None))).await;
    assert_eq!(response.status(), 202);

    for (id, method, params) in
        [(2, "tools/call", json!({ "name": "echo", "arguments": { "text": "x" } })), (3, "ping", json!({}))]
    {
        let response = send(mcp.post(Some(&session), &request(id, method, params))).await;
        assert_eq!(response.status(), 200);
        assert_eq!(content_type(&response), "text/event-stream", "{method}");
        let mut sse = SseStream::new(response);
        let priming = sse.event().await;
        assert_priming(&priming);
        let answer = sse.event().await;
        assert!(answer.id.is_some(), "events carry ids: {answer:?}");
        assert_ne!(answer.id, priming.id);
        let answer = answer.json();
        assert_eq!(answer["id"], id, "{answer}");
        assert!(answer.get("result").is_some(), "{answer}");
        sse.assert_ends().await;
    }
    bound.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// Session errors
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn session_errors() {
    let (bound, _server, _probes, mcp) = bind_default().await;
    let session = mcp.initialize(json!({})).await;

    // A request other than initialize without a session id.
    let response = send(mcp.post(None, &request(1, "tools/list", json!({})))).await;
    assert_eq!(response.status(), 400);
    assert_idless_error(&body_json(response).await, -32600);

    // An unknown session id.
    let unknown = "0123456789abcdef0123456789abcdef";
    let response = send(mcp.post(Some(unknown), &request(2, "tools/list", json!({})))).await;
    assert_eq!(response.status(), 404);
    let _ = body_text(response).await;

    // initialize carrying a session id.
    let response = send(mcp.post(Some(&session), &request(3, "initialize", init_params(json!({}))))).await;
    assert_eq!(response.status(), 400);
    let _ = body_text(response).await;
    assert_eq!(bound.http().session_count(), 1, "a rejected initialize opens no session");

    // DELETE ends the session; afterwards its id is unknown.
    let response = send(mcp.delete(&session)).await;
    assert_eq!(response.status(), 200);
    assert_eq!(bound.http().session_count(), 0);
    let response = send(mcp.post(Some(&session), &request(4, "tools/list", json!({})))).await;
    assert_eq!(response.status(), 404);
    let response = send(mcp.delete(&session)).await;
    assert_eq!(response.status(), 404);
    let response = send(mcp.get(Some(&session), None)).await;
    assert_eq!(response.status(), 404);
    bound.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// Headers
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn protocol_version_header() {
    let (bound, _server, _probes, mcp) = bind_default().await;
    let session = mcp.initialize(json!({})).await;

    let with_version = |version: &str| {
        mcp.client
            .post(&mcp.url)
            .header("content-type", "application/json")
            .header("accept", ACCEPT_BOTH)
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", version)
            .body(serde_json::to_vec(&request(1, "ping", json!({}))).unwrap())
    };
    let response = send(with_version("1999-01-01")).await;
    assert_eq!(response.status(), 400);
    assert_idless_error(&body_json(response).await, -32600);

    // Without the header the server assumes a version it supports and answers.
    let missing = mcp
        .client
        .post(&mcp.url)
        .header("content-type", "application/json")
        .header("accept", ACCEPT_BOTH)
        .header("mcp-session-id", &session)
        .body(serde_json::to_vec(&request(2, "ping", json!({}))).unwrap());
    let response = send(missing).await;
    assert_eq!(response.status(), 200);
    assert_eq!(body_json(response).await, json!({ "jsonrpc": "2.0", "id": 2, "result": {} }));

    // Another supported version is refused: the header must name the version this session
    // negotiated.
    let response = send(with_version("2025-03-26")).await;
    assert_eq!(response.status(), 400);
    assert_idless_error(&body_json(response).await, -32600);
    assert_eq!(send(with_version(VERSION)).await.status(), 200);
    bound.shutdown().await;
}

#[tokio::test]
async fn accept_and_content_type_are_checked() {
    let (bound, _server, _probes, mcp) = bind_default().await;
    let session = mcp.initialize(json!({})).await;
    let body = serde_json::to_vec(&request(1, "ping", json!({}))).unwrap();
    let base = || {
        mcp.client
            .post(&mcp.url)
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", VERSION)
            .body(body.clone())
    };

    let response = send(base().header("accept", "application/json").header("content-type", "application/json")).await;
    assert_eq!(response.status(), 406);
    assert_idless_error(&body_json(response).await, -32600);
    let response = send(base().header("accept", "text/event-stream").header("content-type", "application/json")).await;
    assert_eq!(response.status(), 406);

    let response = send(base().header("accept", ACCEPT_BOTH).header("content-type", "text/plain")).await;
    assert_eq!(response.status(), 415);
    assert_idless_error(&body_json(response).await, -32600);
    let response = send(base().header("accept", ACCEPT_BOTH)).await;
    assert_eq!(response.status(), 415, "no Content-Type at all");

    // Parameters and case do not matter.
    let ok = base()
        .header("accept", "Application/JSON;q=0.9, text/event-stream")
        .header("content-type", "application/json; charset=utf-8");
    let response = send(ok).await;
    assert_eq!(response.status(), 200);
    assert_eq!(body_json(response).await["id"], 1);
    // A wildcard is enough, and the two types may come in separate headers.
    let response = send(base().header("accept", "*/*").header("content-type", "application/json")).await;
    assert_eq!(response.status(), 200);
    let split = base()
        .header("accept", "application/json,")
        .header("accept", " text/event-stream ;q=1")
        .header("content-type", "application/json");
    assert_eq!(send(split).await.status(), 200);
    bound.shutdown().await;
}

#[tokio::test]
async fn an_oversized_body_is_413_and_the_server_keeps_serving() {
    let options = HttpServerOptions::new().with_max_body_size(1024);
    let (bound, _server, _probes, mcp) = bind(options).await;
    let session = mcp.initialize(json!({})).await;

    let big = call(1, "echo", json!({ "text": "x".repeat(4096) }), None);
    let response = send(mcp.post(Some(&session), &big)).await;
    assert_eq!(response.status(), 413);
    assert_idless_error(&body_json(response).await, -32600);

    // Just under the limit is fine, on the same client (and so possibly the same connection).
    let small = call(2, "echo", json!({ "text": "y".repeat(900) }), None);
    let response = send(mcp.post(Some(&session), &small)).await;
    assert_eq!(response.status(), 200);
    assert_eq!(result_text(&body_json(response).await), "y".repeat(900));
    let reply = mcp.call_json(Some(&session), 3, "echo", json!({ "text": "after" })).await;
    assert_eq!(result_text(&reply), "after");
    bound.shutdown().await;
}

#[tokio::test]
async fn malformed_json_is_a_parse_error_without_id() {
    let (bound, _server, _probes, mcp) = bind_default().await;
    let session = mcp.initialize(json!({})).await;
    let response = send(
        mcp.client
            .post(&mcp.url)
            .header("content-type", "application/json")
            .header("accept", ACCEPT_BOTH)
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", VERSION)
            .body(r#"{"jsonrpc":"2.0","id":1,"method":"#),
    )
    .await;
    assert_eq!(response.status(), 400);
    assert_eq!(content_type(&response), "application/json");
    assert_idless_error(&body_json(response).await, -32700);

    // Also before any session exists.
    let response = send(
        mcp.client
            .post(&mcp.url)
            .header("content-type", "application/json")
            .header("accept", ACCEPT_BOTH)
            .body("not json at all"),
    )
    .await;
    assert_eq!(response.status(), 400);
    assert_idless_error(&body_json(response).await, -32700);

    // The session is unharmed.
    assert_eq!(result_text(&mcp.call_json(Some(&session), 2, "echo", json!({ "text": "ok" })).await), "ok");
    bound.shutdown().await;
}

#[tokio::test]
async fn responses_and_notifications_are_accepted_with_202() {
    let (bound, _server, _probes, mcp) = bind_default().await;
    let session = mcp.initialize(json!({})).await;

    let response =
        send(mcp.post(Some(&session), &json!({ "jsonrpc": "2.0", "id": "nobody-asked", "result": {} }))).await;
    assert_eq!(response.status(), 202);
    assert_eq!(body_text(response).await, "");

    let error = json!({ "jsonrpc": "2.0", "id": 99, "error": { "code": -32601, "message": "no" } });
    let response = send(mcp.post(Some(&session), &error)).await;
    assert_eq!(response.status(), 202);
    assert_eq!(body_text(response).await, "");

    let cancelled = notification("notifications/cancelled", Some(json!({ "requestId": 12345, "reason": "test" })));
    let response = send(mcp.post(Some(&session), &cancelled)).await;
    assert_eq!(response.status(), 202);
    assert_eq!(body_text(response).await, "");

    assert_eq!(
        result_text(&mcp.call_json(Some(&session), 1, "echo", json!({ "text": "still here" })).await),
        "still here"
    );
    bound.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// Host and Origin
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn host_and_origin_are_validated() {
    let (bound, _server, _probes, mcp) = bind_default().await;
    let port = bound.local_addr().port();
    let init = request(1, "initialize", init_params(json!({})));

    let response = send(mcp.post(None, &init).header("host", "evil.example.com")).await;
    assert_eq!(response.status(), 403);
    assert_idless_error(&body_json(response).await, -32600);

    let response = send(mcp.post(None, &init).header("origin", "http://evil.example.com")).await;
    assert_eq!(response.status(), 403);
    assert_idless_error(&body_json(response).await, -32600);

    // The check comes before the body is looked at.
    let response = send(mcp.client.post(&mcp.url).header("host", "evil.example.com").body("garbage")).await;
    assert_eq!(response.status(), 403);
    let response = send(mcp.client.get(&mcp.url).header("origin", "http://evil.example.com:1")).await;
    assert_eq!(response.status(), 403);
    assert_eq!(bound.http().session_count(), 0, "rejected requests open no session");

    let origin = format!("http://localhost:{port}");
    for host in [format!("localhost:{port}"), format!("127.0.0.1:{port}")] {
        let response = send(mcp.post(None, &init).header("host", &host).header("origin", &origin)).await;
        assert!(response.status().is_success(), "{host}: {}", response.status());
        assert!(session_header(&response).is_some());
        assert_eq!(body_json(response).await["result"]["protocolVersion"], VERSION);
    }
    // The port is not checked: a reverse proxy on this machine keeps its own port or none, and
    // a page served on another loopback port is a loopback origin too. The name is what keeps
    // DNS rebinding out.
    let proxied = [
        "localhost".to_owned(),
        "LOCALHOST".to_owned(),
        format!("localhost:{}", port.wrapping_add(1)),
        "127.0.0.1:80".to_owned(),
        "[::1]".to_owned(),
        "[::1]:8443".to_owned(),
    ];
    for host in proxied {
        let response =
            send(mcp.post(None, &init).header("host", &host).header("origin", "http://localhost:3000")).await;
        assert_eq!(response.status(), 200, "{host}");
    }
    for host in ["evil.example.com:80", "localhost.evil.example.com", "127.0.0.2:80", "localhost:http", "[::2]"] {
        let response = send(mcp.post(None, &init).header("host", host)).await;
        assert_eq!(response.status(), 403, "{host}");
    }
    for origin in ["https://127.0.0.1", "http://[::1]:1"] {
        let response = send(mcp.post(None, &init).header("origin", origin)).await;
        assert_eq!(response.status(), 200, "{origin}");
    }
    for origin in ["http://evil.example.com:3000", "null", "file://localhost", "http://localhost.evil.example.com"] {
        let response = send(mcp.post(None, &init).header("origin", origin)).await;
        assert_eq!(response.status(), 403, "{origin}");
    }
    bound.shutdown().await;
}

#[tokio::test]
async fn listed_hosts_and_origins_replace_the_loopback_names() {
    let options = HttpServerOptions::new().with_allowed_hosts(["127.0.0.1", "mcp.example.com"]);
    let (bound, _server, _probes, mcp) = bind(options).await;
    let port = bound.local_addr().port();
    let init = request(1, "initialize", init_params(json!({})));
    for (host, status) in [
        ("mcp.example.com", 200),
        ("MCP.example.com", 200),
        ("127.0.0.1", 200),
        ("mcp.example.com:8080", 403),
        ("localhost", 403),
    ] {
        let response = send(mcp.post(None, &init).header("host", host)).await;
        assert_eq!(response.status(), status, "{host}");
    }
    let response = send(mcp.post(None, &init).header("host", format!("127.0.0.1:{port}"))).await;
    assert_eq!(response.status(), 403, "a listed host is taken as it is, port included");
    // The origins default to those of the listed hosts.
    for (origin, status) in [("https://mcp.example.com", 200), ("http://localhost", 403)] {
        let response = send(mcp.post(None, &init).header("host", "mcp.example.com").header("origin", origin)).await;
        assert_eq!(response.status(), status, "{origin}");
    }
    bound.shutdown().await;

    // Listed origins apply with the default hosts too, in a router as in a bound server.
    let (server, _probes) = test_server();
    let http =
        StreamableHttpServer::new(server, HttpServerOptions::new().with_allowed_origins(["https://app.example.com"]));
    let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = http.router();
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    let mcp = Mcp::new(format!("http://{addr}/mcp"));
    for (origin, status) in [("https://app.example.com", 200), ("http://localhost", 403)] {
        let response = send(mcp.post(None, &init).header("origin", origin)).await;
        assert_eq!(response.status(), status, "{origin}");
    }
    let response = send(mcp.post(None, &init).header("host", "localhost")).await;
    assert_eq!(response.status(), 200, "the hosts are still the loopback names");
    task.abort();
}

#[tokio::test]
async fn the_router_serves_under_a_prefix_in_an_axum_app() {
    let (server, _probes) = test_server();
    let http = StreamableHttpServer::new(server, HttpServerOptions::default());
    let app = axum::Router::new().route("/health", axum::routing::get(|| async { "ok" })).nest("/api", http.router());
    let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });

    let mcp = Mcp::new(format!("http://{addr}/api/mcp"));
    let session = mcp.initialize(json!({})).await;
    assert_eq!(http.session_count(), 1);
    assert_eq!(result_text(&mcp.call_json(Some(&session), 1, "echo", json!({ "text": "nested" })).await), "nested");

    // Host/Origin are still checked (any loopback port when no list is given).
    let init = request(1, "initialize", init_params(json!({})));
    let response = send(mcp.post(None, &init).header("origin", "http://evil.example.com")).await;
    assert_eq!(response.status(), 403);
    let response = send(mcp.post(None, &init).header("host", format!("localhost:{}", addr.port()))).await;
    assert_eq!(response.status(), 200);

    // The rest of the app is untouched, and the bare path is not the endpoint.
    let health = send(mcp.client.get(format!("http://{addr}/health"))).await;
    assert_eq!(body_text(health).await, "ok");
    let response = send(Mcp::new(format!("http://{addr}/mcp")).post(None, &init)).await;
    assert_eq!(response.status(), 404);

    assert_eq!(send(mcp.delete(&session)).await.status(), 200);
    assert_eq!(http.session_count(), 1, "only the session of the second initialize is left");
    task.abort();
}

// ---------------------------------------------------------------------------------------------
// Session expiry
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn an_idle_session_expires() {
    let options = HttpServerOptions::new().with_session_idle_timeout(Duration::from_millis(200));
    let (bound, _server, _probes, mcp) = bind(options).await;
    let session = mcp.initialize(json!({})).await;
    assert_eq!(bound.http().session_count(), 1);

    tokio::time::sleep(Duration::from_secs(1)).await;
    eventually("the idle session is swept", || bound.http().session_count() == 0).await;
    let response = send(mcp.post(Some(&session), &request(1, "ping", json!({})))).await;
    assert_eq!(response.status(), 404);
    let response = send(mcp.get(Some(&session), None)).await;
    assert_eq!(response.status(), 404);

    // A new session works.
    let fresh = mcp.initialize(json!({})).await;
    assert_ne!(fresh, session);
    assert_eq!(result_text(&mcp.call_json(Some(&fresh), 2, "echo", json!({ "text": "new" })).await), "new");
    bound.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// Concurrency
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn concurrent_requests_on_one_session() {
    let (bound, _server, probes, mcp) = bind_default().await;
    let session = mcp.initialize(json!({})).await;

    let slow = tokio::spawn({
        let (mcp, session) = (mcp.clone(), session.clone());
        async move { mcp.call_json(Some(&session), 1, "slow", json!({})).await }
    });
    let fast: Vec<_> = (2..=4)
        .map(|id| {
            let (mcp, session) = (mcp.clone(), session.clone());
            tokio::spawn(async move {
                mcp.call_json(Some(&session), id, "echo", json!({ "text": format!("fast {id}") })).await
            })
        })
        .collect();
    // The fast calls finish while the slow one is still waiting: it is released only after.
    for (task, id) in fast.into_iter().zip(2..) {
        let reply = within(task).await.unwrap();
        assert_eq!(result_text(&reply), format!("fast {id}"));
    }
    assert!(!slow.is_finished(), "the slow call waits for its release");
    probes.release_slow.notify_one();
    let reply = within(slow).await.unwrap();
    assert_eq!(result_text(&reply), "slow done");
    bound.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_hundred_concurrent_sessions() {
    const SESSIONS: usize = 200;
    let (bound, _server, _probes, mcp) = bind_default().await;
    let limit = Arc::new(tokio::sync::Semaphore::new(32));
    let runs = (0..SESSIONS).map(|i| {
        let (mcp, limit) = (mcp.clone(), limit.clone());
        async move {
            let _permit = limit.acquire().await.unwrap();
            let session = mcp.initialize(json!({})).await;
            let reply = mcp.call_json(Some(&session), 1, "echo", json!({ "text": format!("session {i}") })).await;
            assert_eq!(result_text(&reply), format!("session {i}"));
            session
        }
    });
    let sessions = within_for(Duration::from_secs(60), futures::future::join_all(runs)).await;
    let unique: HashSet<&String> = sessions.iter().collect();
    assert_eq!(unique.len(), SESSIONS, "every session id is distinct");
    assert_eq!(bound.http().session_count(), SESSIONS);

    let deletes = sessions.iter().map(|session| {
        let (mcp, limit) = (mcp.clone(), limit.clone());
        async move {
            let _permit = limit.acquire().await.unwrap();
            send(mcp.delete(session)).await.status()
        }
    });
    let statuses = within_for(Duration::from_secs(60), futures::future::join_all(deletes)).await;
    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
    assert_eq!(bound.http().session_count(), 0);
    bound.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// The standalone GET stream
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn the_get_stream_carries_unrelated_notifications() {
    let (bound, server, _probes, mcp) = bind_default().await;
    let session = mcp.initialize(json!({})).await;

    let response = send(mcp.get(None, None)).await;
    assert_eq!(response.status(), 400, "GET without a session");
    let _ = body_text(response).await;

    let response = send(mcp.get(Some(&session), None)).await;
    assert_eq!(response.status(), 200);
    assert_eq!(content_type(&response), "text/event-stream");
    let mut first = SseStream::new(response);

    // A second GET takes the place of the first, which ends: a client opens one only when it
    // has lost the other, which the server may not have noticed yet.
    let second = send(mcp.get(Some(&session), None)).await;
    assert_eq!(second.status(), 200, "a new GET stream replaces the open one");
    let mut stream = SseStream::new(second);
    while let Some(event) = first.next_event().await {
        assert!(!event.is_message(), "the replaced stream carries no message: {event:?}");
    }

    server
        .add_tool(
            Tool::without_arguments("late", "Added at run time."),
            |_args: JsonObject, _ctx: RequestContext| async move { Ok(CallToolResult::text("late")) },
        )
        .unwrap();
    let (event, message) = stream.message().await;
    assert_eq!(message["jsonrpc"], "2.0");
    assert_eq!(message["method"], "notifications/tools/list_changed", "{message}");
    assert!(message.get("id").is_none(), "{message}");
    assert!(message.get("params").is_none_or(|p| p.as_object().is_some_and(|p| p.is_empty())), "{message}");
    assert!(event.id.is_some(), "GET stream events carry ids for resumption");

    // A request's own messages never go to the GET stream.
    let reply = mcp.call_json(Some(&session), 1, "late", json!({})).await;
    assert_eq!(result_text(&reply), "late");
    let response = send(mcp.post(Some(&session), &call(2, "steps", json!({}), Some("p")))).await;
    let reply = read_reply(response).await;
    assert_eq!(result_text(&reply), "stepped");
    stream.assert_quiet(Duration::from_millis(200)).await;

    // Once the GET stream is gone, a new one opens at once.
    drop(stream);
    let response = send(mcp.get(Some(&session), None)).await;
    assert_eq!(response.status(), 200, "a GET stream reopens after the first one closed");
    let mut reopened = SseStream::new(response);
    server.remove_tool("late");
    let (_, message) = reopened.message().await;
    assert_eq!(message["method"], "notifications/tools/list_changed");
    bound.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// Resumability
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_dropped_post_stream_resumes_with_last_event_id() {
    let (bound, _server, _probes, mcp) = bind_default().await;
    let session = mcp.initialize(json!({})).await;
    let response =
        send(mcp.post(Some(&session), &call(5, "progress", json!({ "count": 5, "delay_ms": 50 }), Some("r")))).await;
    assert_eq!(content_type(&response), "text/event-stream");
    let mut sse = SseStream::new(response);
    let priming = sse.event().await;
    assert_priming(&priming);
    let mut seen = vec![priming];
    for expected in [1.0, 2.0] {
        let event = sse.event().await;
        assert_eq!(event.json()["params"]["progress"], expected);
        seen.push(event);
    }
    let last = seen.last().unwrap().id.clone().expect("events carry ids");
    drop(sse);

    let response = send(mcp.get(Some(&session), Some(&last))).await;
    assert_eq!(response.status(), 200);
    let mut resumed = SseStream::new(response);
    let mut rest = Vec::new();
    for _ in 0..20 {
        let Some(event) = resumed.next_event().await else { break };
        if event.is_message() {
            rest.push(event);
        }
    }
    let messages: Vec<Value> = rest.iter().map(SseEvent::json).collect();
    let progress: Vec<Value> = messages
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| m["params"]["progress"].clone())
        .collect();
    assert_eq!(
        progress,
        [json!(3.0), json!(4.0), json!(5.0)],
        "exactly the missed notifications, once, in order: {messages:?}"
    );
    assert_eq!(messages.len(), 4, "three notifications and the result: {messages:?}");
    assert_eq!(messages[3]["id"], 5, "the result comes last");
    assert_eq!(result_text(&messages[3]), "done 5");

    seen.extend(rest);
    let ids = ids_of(&seen);
    assert_unique(&ids);

    // The session goes on.
    assert_eq!(result_text(&mcp.call_json(Some(&session), 6, "echo", json!({ "text": "on" })).await), "on");
    bound.shutdown().await;
}

#[tokio::test]
async fn a_vanished_client_leaves_the_server_healthy_and_the_result_replayable() {
    let (bound, _server, probes, mcp) = bind_default().await;
    let session = mcp.initialize(json!({})).await;
    let response =
        send(mcp.post(Some(&session), &call(9, "progress", json!({ "count": 5, "delay_ms": 50 }), Some("v")))).await;
    let mut sse = SseStream::new(response);
    let priming = sse.event().await;
    assert_priming(&priming);
    drop(sse);

    // The server keeps serving this session and others while the tool runs on.
    assert_eq!(result_text(&mcp.call_json(Some(&session), 10, "echo", json!({ "text": "same" })).await), "same");
    let other = Mcp::new(bound.url());
    let fresh = other.initialize(json!({})).await;
    assert_eq!(result_text(&other.call_json(Some(&fresh), 1, "echo", json!({ "text": "other" })).await), "other");

    // The disconnect did not cancel the tool.
    eventually("the tool finishes", || probes.progress_done() == 1).await;

    let response = send(mcp.get(Some(&session), priming.id.as_deref())).await;
    assert_eq!(response.status(), 200);
    let mut replay = SseStream::new(response);
    let mut events = Vec::new();
    for _ in 0..20 {
        let Some(event) = replay.next_event().await else { break };
        if event.is_message() {
            events.push(event);
        }
    }
    let messages: Vec<Value> = events.iter().map(SseEvent::json).collect();
    assert_eq!(messages.len(), 6, "five notifications and the result: {messages:?}");
    for (i, message) in messages[..5].iter().enumerate() {
        assert_eq!(message["method"], "notifications/progress");
        assert_eq!(message["params"]["progress"], (i + 1) as f64);
        assert_eq!(message["params"]["progressToken"], "v");
    }
    assert_eq!(messages[5]["id"], 9);
    assert_eq!(result_text(&messages[5]), "done 5");
    let mut ids = ids_of(&events);
    ids.push(priming.id.clone().unwrap());
    assert_unique(&ids);
    bound.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// Server-to-client requests
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn elicitation_travels_on_the_tool_calls_stream() {
    let (bound, _server, _probes, mcp) = bind_default().await;
    let session = mcp.initialize(json!({ "elicitation": {} })).await;
    let get = send(mcp.get(Some(&session), None)).await;
    let mut standalone = SseStream::new(get);

    let response = send(mcp.post(Some(&session), &call(21, "ask", json!({}), None))).await;
    assert_eq!(response.status(), 200);
    assert_eq!(content_type(&response), "text/event-stream");
    let mut sse = SseStream::new(response);
    assert_priming(&sse.event().await);
    let (_, ask) = sse.message().await;
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    assert_eq!(ask["params"]["message"], "What is your name?");
    assert_eq!(ask["params"]["requestedSchema"]["required"], json!(["name"]));
    let ask_id = ask["id"].clone();
    assert!(ask_id.is_string() || ask_id.is_number(), "{ask}");

    let answer =
        json!({ "jsonrpc": "2.0", "id": ask_id, "result": { "action": "accept", "content": { "name": "Ada" } } });
    let response = send(mcp.post(Some(&session), &answer)).await;
    assert_eq!(response.status(), 202);
    assert_eq!(body_text(response).await, "");

    let (_, reply) = sse.message().await;
    assert_eq!(reply["id"], 21, "{reply}");
    assert_eq!(result_text(&reply), "action=accept name=Ada");
    sse.assert_ends().await;

    // Nothing went to the GET stream.
    standalone.assert_quiet(Duration::from_millis(200)).await;
    bound.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// Stateless mode
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn stateless_mode() {
    let options = HttpServerOptions::new().with_stateful(false);
    let (bound, _server, _probes, mcp) = bind(options).await;

    let response = send(mcp.post(None, &request(1, "initialize", init_params(json!({}))))).await;
    assert_eq!(response.status(), 200);
    assert!(session_header(&response).is_none(), "no session id in stateless mode");
    assert_eq!(body_json(response).await["result"]["protocolVersion"], VERSION);

    // No initialize needed.
    let response = send(mcp.post(None, &call(2, "echo", json!({ "text": "alone" }), None))).await;
    assert_eq!(response.status(), 200);
    assert!(session_header(&response).is_none());
    assert_eq!(content_type(&response), "application/json");
    assert_eq!(result_text(&body_json(response).await), "alone");

    // Progress still streams.
    let response = send(mcp.post(None, &call(3, "steps", json!({}), Some("s")))).await;
    assert_eq!(content_type(&response), "text/event-stream");
    let reply = read_reply(response).await;
    assert_eq!(result_text(&reply), "stepped");

    let response = send(mcp.post(None, &notification("notifications/initialized", None))).await;
    assert_eq!(response.status(), 202);

    let response = send(mcp.get(None, None)).await;
    assert_eq!(response.status(), 405);
    let response = send(mcp.client.delete(&mcp.url)).await;
    assert_eq!(response.status(), 405);
    assert_eq!(bound.http().session_count(), 0);
    bound.shutdown().await;
}

#[tokio::test]
async fn stateless_mode_with_sse_replies() {
    let options = HttpServerOptions::new().with_stateful(false).with_json_response(false);
    let (bound, _server, _probes, mcp) = bind(options).await;
    let response = send(mcp.post(None, &call(1, "echo", json!({ "text": "streamed" }), None))).await;
    assert_eq!(response.status(), 200);
    assert!(session_header(&response).is_none());
    assert_eq!(content_type(&response), "text/event-stream");
    let reply = read_reply(response).await;
    assert_eq!(result_text(&reply), "streamed");
    bound.shutdown().await;
}

#[tokio::test]
async fn the_get_stream_resumes_without_loss_or_duplicates() {
    let (bound, server, _probes, mcp) = bind_default().await;
    let session = mcp.initialize(json!({})).await;
    let noop = |_args: JsonObject, _ctx: RequestContext| async move { Ok(CallToolResult::text("")) };
    let add = |name: &str| server.add_tool(Tool::without_arguments(name, "x"), noop).unwrap();

    let mut stream = SseStream::new(send(mcp.get(Some(&session), None)).await);
    add("a");
    let (first, _) = stream.message().await;
    drop(stream);
    // Sent while no client listens: kept for the resumption.
    tokio::time::sleep(Duration::from_millis(100)).await;
    add("b");
    tokio::time::sleep(Duration::from_millis(100)).await;
    add("b2");

    let response = send(mcp.get(Some(&session), first.id.as_deref())).await;
    assert_eq!(response.status(), 200);
    let mut resumed = SseStream::new(response);
    let (missed, message) = resumed.message().await;
    assert_eq!(message["method"], "notifications/tools/list_changed");
    let (missed2, message) = resumed.message().await;
    assert_eq!(message["method"], "notifications/tools/list_changed", "both missed messages are replayed");
    add("c");
    let (live, message) = resumed.message().await;
    assert_eq!(message["method"], "notifications/tools/list_changed");
    assert_unique(&ids_of(&[first, missed, missed2, live]));
    resumed.assert_quiet(Duration::from_millis(200)).await;
    drop(resumed);

    // A fresh GET later must not deliver `b` (already replayed) a second time.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let response = send(mcp.get(Some(&session), None)).await;
    assert_eq!(response.status(), 200, "a GET stream reopens");
    let mut fresh = SseStream::new(response);
    fresh.assert_quiet(Duration::from_millis(300)).await;
    bound.shutdown().await;
}

#[tokio::test]
async fn delete_ends_the_sessions_open_streams() {
    let (bound, _server, _probes, mcp) = bind_default().await;
    let session = mcp.initialize(json!({})).await;
    let mut standalone = SseStream::new(send(mcp.get(Some(&session), None)).await);
    let response =
        send(mcp.post(Some(&session), &call(1, "progress", json!({ "count": 100, "delay_ms": 20 }), Some("d")))).await;
    let mut running = SseStream::new(response);
    assert_priming(&running.event().await);
    let _ = running.message().await;

    assert_eq!(send(mcp.delete(&session)).await.status(), 200);
    for stream in [&mut standalone, &mut running] {
        for _ in 0..200 {
            if stream.next_event().await.is_none() {
                break;
            }
        }
    }
    assert!(running.next_event().await.is_none(), "the POST stream ended");
    assert!(standalone.next_event().await.is_none(), "the GET stream ended");
    assert_eq!(bound.http().session_count(), 0);
    bound.shutdown().await;
}

#[tokio::test]
async fn a_request_id_in_flight_cannot_be_reused() {
    let (bound, _server, probes, mcp) = bind_default().await;
    let session = mcp.initialize(json!({})).await;
    let slow = tokio::spawn({
        let (mcp, session) = (mcp.clone(), session.clone());
        async move { mcp.call_json(Some(&session), 1, "slow", json!({})).await }
    });
    // Wait (bounded) until the slow call is in flight, then reuse its id.
    let mut status = None;
    for _ in 0..100 {
        let response = send(mcp.post(Some(&session), &call(1, "echo", json!({ "text": "dup" }), None))).await;
        if response.status() == 400 {
            let body = body_json(response).await;
            assert_eq!(body["id"], 1, "{body}");
            assert_eq!(body["error"]["code"], -32600, "{body}");
            status = Some(400);
            break;
        }
        // The slow call was not registered yet, so this one ran.
        assert_eq!(response.status(), 200);
        let _ = body_text(response).await;
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(status, Some(400), "a duplicate in-flight id is refused");
    probes.release_slow.notify_one();
    assert_eq!(result_text(&within(slow).await.unwrap()), "slow done");
    // Once answered, the id may be used again.
    assert_eq!(result_text(&mcp.call_json(Some(&session), 1, "echo", json!({ "text": "again" })).await), "again");
    bound.shutdown().await;
}
