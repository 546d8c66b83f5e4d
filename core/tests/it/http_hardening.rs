//! The Streamable HTTP server against hostile and careless clients: forged event ids, racing
//! POSTs, cancellations, failed initializations, mismatched versions, unfinished requests,
//! idle connections and clients that do not read. Each test failed before its fix.

use crate::common;

use std::{net::SocketAddr, time::Duration};

use crate::http_common::*;
use mcpweft::{
    RequestContext, Server,
    http::{HttpServerOptions, StreamableHttpServer},
    model::*,
};
use serde_json::{Value, json};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
};

/// Opens a TCP connection to the server of `url`.
async fn connect(url: &str) -> TcpStream {
    let addr: SocketAddr = url.trim_start_matches("http://").split('/').next().unwrap().parse().unwrap();
    within_for(Duration::from_secs(5), TcpStream::connect(addr)).await.expect("connect")
}

/// Reads from `stream` until it ends or `limit` passes; returns what came.
async fn read_until_closed(stream: &mut TcpStream, limit: Duration) -> Option<String> {
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0)) | Ok(Err(_)) => return Some(String::from_utf8_lossy(&out).into_owned()),
            Ok(Ok(n)) => out.extend_from_slice(&buf[..n]),
        }
    }
}

/// The head of a POST to `/mcp` with a declared body length.
fn post_head(host: &str, session: Option<&str>, length: usize) -> String {
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nContent-Length: {length}\r\n"
    );
    if let Some(session) = session {
        head.push_str(&format!("Mcp-Session-Id: {session}\r\n"));
    }
    head.push_str("\r\n");
    head
}

fn host_of(url: &str) -> String {
    url.trim_start_matches("http://").split('/').next().unwrap().to_owned()
}

#[tokio::test]
async fn a_forged_last_event_id_is_refused_without_a_panic() {
    let (bound, _server, _probes, mcp) = bind_default().await;
    let session = mcp.initialize(json!({})).await;
    // `steps` logs before answering: its reply is an SSE stream whose events are stored.
    let response = send(mcp.post(Some(&session), &call(1, "steps", json!({}), None))).await;
    let mut sse = SseStream::new(response);
    let (event, _) = sse.message().await;
    let stream = event.id.unwrap().split_once('_').unwrap().0.to_owned();
    let _ = read_reply_rest(&mut sse).await;
    for forged in [format!("{stream}_18446744073709551615"), "18446744073709551615_18446744073709551615".into()] {
        let response = send(mcp.get(Some(&session), Some(&forged))).await;
        assert!(matches!(response.status().as_u16(), 200 | 400), "{forged}: {}", response.status());
        let _ = within(response.text()).await;
    }
    assert_eq!(result_text(&mcp.call_json(Some(&session), 2, "echo", json!({ "text": "alive" })).await), "alive");
    bound.shutdown().await;
}

/// Reads the rest of a reply stream up to its end.
async fn read_reply_rest(sse: &mut SseStream) -> Vec<SseEvent> {
    let mut events = Vec::new();
    for _ in 0..100 {
        match sse.next_event().await {
            Some(event) => events.push(event),
            None => return events,
        }
    }
    panic!("the stream did not end");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_posts_with_one_id_are_each_answered_once() {
    let (bound, _server, _probes, mcp) = bind_default().await;
    let session = mcp.initialize(json!({})).await;
    for round in 0..100 {
        let texts = ["first", "second"];
        let posts = texts.map(|text| {
            let (mcp, session) = (mcp.clone(), session.clone());
            tokio::spawn(async move {
                let response =
                    send(mcp.post(Some(&session), &call(round, "echo", json!({ "text": text }), None))).await;
                (text, response.status().as_u16(), body_json(response).await)
            })
        });
        let mut answered = 0;
        for post in posts {
            let (text, status, reply) = within(post).await.unwrap();
            assert_eq!(reply["id"], round, "{reply}");
            match status {
                200 => {
                    assert_eq!(result_text(&reply), text, "a POST got another's answer");
                    answered += 1;
                }
                400 => assert!(reply["error"]["message"].as_str().unwrap().contains("already in use"), "{reply}"),
                other => panic!("status {other}: {reply}"),
            }
        }
        assert!(answered >= 1, "round {round}: nobody was answered");
    }
    bound.shutdown().await;
}

#[tokio::test]
async fn a_cancelled_request_ends_its_stream_frees_its_id_and_lets_the_session_expire() {
    let options = HttpServerOptions::new().with_session_idle_timeout(Duration::from_millis(300));
    let (bound, _server, _probes, mcp) = bind(options).await;
    let session = mcp.initialize(json!({})).await;
    for round in 0..2 {
        let pending = {
            let (mcp, session) = (mcp.clone(), session.clone());
            tokio::spawn(async move {
                let response = send(mcp.post(Some(&session), &call(7, "slow", json!({}), None))).await;
                (response.status().as_u16(), within(response.text()).await.unwrap())
            })
        };
        // Give the call time to start, then cancel it.
        tokio::time::sleep(Duration::from_millis(100)).await;
        let cancel = notification("notifications/cancelled", Some(json!({ "requestId": 7, "reason": "test" })));
        assert_eq!(send(mcp.post(Some(&session), &cancel)).await.status(), 202);
        let (status, body) = within(pending).await.unwrap();
        assert_eq!(status, 200, "round {round}");
        assert!(!body.contains("slow done"), "a cancelled request is not answered: {body}");
    }
    // Nothing runs any more: the idle session expires.
    eventually("the idle session expires", || bound.http().session_count() == 0).await;
    bound.shutdown().await;
}

#[tokio::test]
async fn a_failed_initialize_opens_no_session() {
    let (bound, _server, _probes, mcp) = bind_default().await;
    for params in [json!({ "protocolVersion": VERSION }), json!({ "capabilities": 5 }), json!([])] {
        let response = send(mcp.post(None, &request(1, "initialize", params.clone()))).await;
        assert_eq!(session_header(&response), None, "{params}");
        let body = body_json(response).await;
        assert!(body.get("error").is_some(), "{body}");
    }
    assert_eq!(bound.http().session_count(), 0);
    // A good one still does.
    mcp.initialize(json!({})).await;
    assert_eq!(bound.http().session_count(), 1);
    bound.shutdown().await;
}

#[tokio::test]
async fn the_protocol_version_header_must_be_the_negotiated_one() {
    let (bound, _server, _probes, mcp) = bind_default().await;
    let session = mcp.initialize(json!({})).await;
    let with_version =
        |builder: reqwest::RequestBuilder, version: &str| builder.header("mcp-protocol-version", version);
    // Another supported version is not the one this session negotiated.
    let ping = request(1, "ping", json!({}));
    for builder in [
        mcp.client
            .post(&mcp.url)
            .header("content-type", "application/json")
            .header("accept", ACCEPT_BOTH)
            .body(ping.to_string()),
        mcp.client.get(&mcp.url).header("accept", "text/event-stream"),
        mcp.client.delete(&mcp.url),
    ] {
        let response = send(with_version(builder.header("mcp-session-id", &session), "2025-06-18")).await;
        assert_eq!(response.status(), 400);
        let body = body_json(response).await;
        assert!(body["error"]["message"].as_str().unwrap().contains("2025-11-25"), "{body}");
    }
    assert_eq!(bound.http().session_count(), 1, "a refused DELETE ends nothing");
    // The negotiated version, or none, is fine.
    assert_eq!(send(mcp.post(Some(&session), &ping)).await.status(), 200);
    bound.shutdown().await;

    // A server may accept any supported version instead, for clients that send a stale one.
    let (bound, _server, _probes, mcp) = bind(HttpServerOptions::new().with_require_negotiated_version(false)).await;
    let session = mcp.initialize(json!({})).await;
    let builder = mcp.client.post(&mcp.url).header("content-type", "application/json").header("accept", ACCEPT_BOTH);
    let response =
        send(with_version(builder.header("mcp-session-id", &session), "2025-06-18").body(ping.to_string())).await;
    assert_eq!(response.status(), 200);
    bound.shutdown().await;
}

#[tokio::test]
async fn the_endpoint_answers_at_its_path_with_any_query_and_other_paths_are_not_found() {
    let (bound, _server, _probes, mcp) = bind_default().await;
    let host = host_of(&mcp.url);
    let exchange = async |request: String| {
        let mut tcp = connect(&mcp.url).await;
        within(tcp.write_all(request.as_bytes())).await.unwrap();
        read_until_closed(&mut tcp, Duration::from_secs(5)).await.expect("the server closes the connection")
    };
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    })
    .to_string();
    let post = |target: &str| {
        format!(
            "POST {target} HTTP/1.1\r\nHost: {host}\r\nAccept: application/json, text/event-stream\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{initialize}",
            initialize.len()
        )
    };
    let answer = exchange(post("/mcp?trace=1")).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.to_ascii_lowercase().contains("mcp-session-id:"), "{answer}");
    assert!(answer.contains("\"protocolVersion\":\"2025-11-25\""), "{answer}");
    for target in ["/mcp/", "/elsewhere", "/"] {
        let answer = exchange(post(target)).await;
        assert!(answer.starts_with("HTTP/1.1 404"), "{target}: {answer}");
    }
    bound.shutdown().await;
}

#[tokio::test]
async fn a_request_for_an_unknown_session_is_refused_before_its_body_is_read() {
    let (bound, _server, _probes, mcp) = bind_default().await;
    let mut tcp = connect(&mcp.url).await;
    let head = post_head(&host_of(&mcp.url), Some("0123456789abcdef0123456789abcdef"), 4 * 1024 * 1024);
    within(tcp.write_all(head.as_bytes())).await.unwrap();
    // No body follows: the answer must not wait for it.
    let mut buf = [0u8; 512];
    let n = within(tcp.read(&mut buf)).await.unwrap();
    let answer = String::from_utf8_lossy(&buf[..n]);
    assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");
    bound.shutdown().await;
}

#[tokio::test]
async fn an_unfinished_body_times_out() {
    let options = HttpServerOptions::new().with_body_read_timeout(Duration::from_millis(300));
    let (bound, _server, _probes, mcp) = bind(options).await;
    let session = mcp.initialize(json!({})).await;
    let mut tcp = connect(&mcp.url).await;
    let head = post_head(&host_of(&mcp.url), Some(&session), 4 * 1024 * 1024);
    within(tcp.write_all(head.as_bytes())).await.unwrap();
    within(tcp.write_all(&[b' '; 1000])).await.unwrap();
    let answer = read_until_closed(&mut tcp, WAIT_FOR_SERVER).await.expect("the server gave up on the body");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    bound.shutdown().await;
}

/// The head of a chunked POST to `/mcp` for `session`.
fn chunked_post_head(host: &str, session: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nMcp-Session-Id: {session}\r\n\r\n"
    )
}

/// One chunk of a chunked body.
fn chunk(data: &str) -> String {
    format!("{:x}\r\n{data}\r\n", data.len())
}

#[tokio::test]
async fn a_body_in_pieces_is_read_whole_and_one_too_long_or_broken_is_refused() {
    let options = HttpServerOptions::new().with_max_body_size(256);
    let (bound, _server, _probes, mcp) = bind(options).await;
    let session = mcp.initialize(json!({})).await;
    let host = host_of(&mcp.url);

    // Three chunks, each sent on its own, make one request.
    let mut tcp = connect(&mcp.url).await;
    within(tcp.write_all(chunked_post_head(&host, &session).as_bytes())).await.unwrap();
    for piece in [r#"{"jsonrpc":"2.0","#, r#""id":41,"method":"#, r#""ping"}"#] {
        within(tcp.write_all(chunk(piece).as_bytes())).await.unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    within(tcp.write_all(b"0\r\n\r\n")).await.unwrap();
    let mut buf = [0u8; 2048];
    let n = within(tcp.read(&mut buf)).await.unwrap();
    let answer = String::from_utf8_lossy(&buf[..n]);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.ends_with(r#"{"jsonrpc":"2.0","id":41,"result":{}}"#), "{answer}");

    // Chunks that together pass the limit are refused, though each is within it.
    let mut tcp = connect(&mcp.url).await;
    within(tcp.write_all(chunked_post_head(&host, &session).as_bytes())).await.unwrap();
    within(tcp.write_all(chunk(&" ".repeat(200)).as_bytes())).await.unwrap();
    within(tcp.write_all(chunk(&" ".repeat(200)).as_bytes())).await.unwrap();
    let n = within(tcp.read(&mut buf)).await.unwrap();
    let answer = String::from_utf8_lossy(&buf[..n]);
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");

    // A chunk size that is not hexadecimal breaks the body: 400, not a hang or a 413.
    let mut tcp = connect(&mcp.url).await;
    within(tcp.write_all(chunked_post_head(&host, &session).as_bytes())).await.unwrap();
    within(tcp.write_all(b"zz\r\n{}\r\n")).await.unwrap();
    let answer = read_until_closed(&mut tcp, WAIT_FOR_SERVER).await.expect("the server answered the broken body");
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");

    // The server goes on serving.
    let reply = body_json(send(mcp.post(Some(&session), &request(42, "ping", json!({})))).await).await;
    assert_eq!(reply["result"], json!({}), "{reply}");
    bound.shutdown().await;
}

#[tokio::test]
async fn a_client_that_half_closes_after_its_request_gets_the_answer() {
    let (bound, _server, _probes, mcp) = bind_default().await;
    let session = mcp.initialize(json!({})).await;
    let body = r#"{"jsonrpc":"2.0","id":51,"method":"ping"}"#;
    let mut tcp = connect(&mcp.url).await;
    let head = post_head(&host_of(&mcp.url), Some(&session), body.len());
    within(tcp.write_all(format!("{head}{body}").as_bytes())).await.unwrap();
    within(tcp.shutdown()).await.unwrap();
    let answer = read_until_closed(&mut tcp, WAIT_FOR_SERVER).await.expect("the server closed the connection");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.ends_with(r#"{"jsonrpc":"2.0","id":51,"result":{}}"#), "{answer}");
    bound.shutdown().await;
}

#[tokio::test]
async fn shutdown_ends_while_a_client_holds_an_unfinished_request() {
    let options = HttpServerOptions::new().with_header_read_timeout(Some(Duration::from_millis(300)));
    let (bound, _server, _probes, mcp) = bind(options).await;
    let mut partial = connect(&mcp.url).await;
    within(partial.write_all(b"POST /mcp HTTP/1.1\r\nHost: ")).await.unwrap();
    let mut idle = connect(&mcp.url).await;
    within_for(WAIT_FOR_SERVER, bound.shutdown()).await;
    assert!(read_until_closed(&mut partial, WAIT_FOR_SERVER).await.is_some(), "the partial request stayed open");
    assert!(read_until_closed(&mut idle, WAIT_FOR_SERVER).await.is_some(), "the idle connection stayed open");
}

#[tokio::test]
async fn an_open_stream_outlives_the_header_timeout() {
    let options =
        HttpServerOptions::new().with_header_read_timeout(Some(Duration::from_millis(200))).with_keep_alive(None);
    let (bound, server, _probes, mcp) = bind(options).await;
    let session = mcp.initialize(json!({})).await;
    let mut stream = SseStream::new(send(mcp.get(Some(&session), None)).await);
    // Three times the timeout with nothing sent either way: the stream is a request in flight.
    tokio::time::sleep(Duration::from_millis(600)).await;
    server
        .add_tool(
            Tool::without_arguments("late", "Added at run time."),
            |_: JsonObject, _: RequestContext| async move { Ok(CallToolResult::text("late")) },
        )
        .unwrap();
    let (_, message) = stream.message().await;
    assert_eq!(message["method"], "notifications/tools/list_changed", "{message}");
    bound.shutdown().await;
}

/// How long a test waits for the server to act on one of its time-outs.
const WAIT_FOR_SERVER: Duration = Duration::from_secs(10);

#[tokio::test]
async fn idle_and_unfinished_connections_are_closed_after_the_header_timeout() {
    let options = HttpServerOptions::new().with_header_read_timeout(Some(Duration::from_millis(300)));
    let (bound, _server, _probes, mcp) = bind(options).await;
    let mut idle = connect(&mcp.url).await;
    let mut partial = connect(&mcp.url).await;
    within(partial.write_all(b"POST /mcp HTTP/1.1\r\nHost: ")).await.unwrap();
    assert!(read_until_closed(&mut idle, WAIT_FOR_SERVER).await.is_some(), "the idle connection stayed open");
    assert!(read_until_closed(&mut partial, WAIT_FOR_SERVER).await.is_some(), "the partial request stayed open");
    bound.shutdown().await;
}

#[tokio::test]
async fn past_the_connection_limit_new_connections_are_refused_and_established_clients_go_on() {
    let options = HttpServerOptions::new().with_max_connections(8);
    let (bound, _server, _probes, mcp) = bind(options).await;
    let session = mcp.initialize(json!({})).await;
    // Idle connections fill what is left of the limit.
    let mut idle = Vec::new();
    for _ in 0..16 {
        idle.push(connect(&mcp.url).await);
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut refused = 0;
    for tcp in &mut idle {
        if let Some(answer) = read_until_closed(tcp, Duration::from_millis(200)).await {
            assert!(answer.is_empty() || answer.starts_with("HTTP/1.1 503"), "{answer}");
            refused += 1;
        }
    }
    assert!(refused >= 8, "only {refused} of 16 connections beyond the limit were refused");
    // The client that was already connected is still served on its connection.
    assert_eq!(result_text(&mcp.call_json(Some(&session), 1, "echo", json!({ "text": "served" })).await), "served");
    drop(idle);
    // Once the idle ones are gone, new clients get in again.
    let other = Mcp::new(bound.url());
    eventually_async(|| async { send(other.post(None, &request(1, "ping", json!({})))).await.status() != 503 }).await;
    bound.shutdown().await;
}

#[tokio::test]
async fn bodies_held_open_share_one_budget_and_past_it_a_body_gets_503() {
    // Bodies of up to 64 KiB, 96 KiB held for bodies still arriving, all connections together.
    let options = HttpServerOptions::new().with_max_body_size(64 * 1024).with_max_buffered_body_bytes(96 * 1024);
    let (bound, _server, _probes, mcp) = bind(options).await;
    let session = mcp.initialize(json!({})).await;
    let host = host_of(&mcp.url);
    let mut buf = [0u8; 2048];
    // A client announces 64 KiB, sends two pieces and holds the rest: its buffer takes 64 KiB.
    let mut holding = connect(&mcp.url).await;
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nMcp-Session-Id: {session}\r\nContent-Length: 65536\r\n\r\n"
    );
    within(holding.write_all(head.as_bytes())).await.unwrap();
    for _ in 0..2 {
        within(holding.write_all(&[b' '; 1024])).await.unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Another body in pieces would need 64 KiB more: 503, at once.
    let mut second = connect(&mcp.url).await;
    within(second.write_all(chunked_post_head(&host, &session).as_bytes())).await.unwrap();
    within(second.write_all(chunk(&" ".repeat(40 * 1024)).as_bytes())).await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    within(second.write_all(chunk(&" ".repeat(40 * 1024)).as_bytes())).await.unwrap();
    let n = within(second.read(&mut buf)).await.unwrap();
    let answer = String::from_utf8_lossy(&buf[..n]);
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.to_ascii_lowercase().contains("retry-after: 1"), "{answer}");
    // A body that arrives in one piece is not held back, and the server serves on.
    let reply = body_json(send(mcp.post(Some(&session), &request(7, "ping", json!({})))).await).await;
    assert_eq!(reply["result"], json!({}), "{reply}");
    // Once the held body is given up, its bytes are free for others.
    drop(holding);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut third = connect(&mcp.url).await;
    within(third.write_all(chunked_post_head(&host, &session).as_bytes())).await.unwrap();
    for piece in [r#"{"jsonrpc":"2.0","id":8,"#, &" ".repeat(40 * 1024), r#""method":"ping"}"#] {
        within(third.write_all(chunk(piece).as_bytes())).await.unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    within(third.write_all(b"0\r\n\r\n")).await.unwrap();
    let n = within(third.read(&mut buf)).await.unwrap();
    let answer = String::from_utf8_lossy(&buf[..n]);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    bound.shutdown().await;
}

#[tokio::test]
async fn at_the_connection_limit_a_new_client_takes_the_place_of_an_idle_connection() {
    let options = HttpServerOptions::new().with_max_connections(4);
    let (bound, _server, _probes, mcp) = bind(options).await;
    // Connections that send nothing hold every place.
    let mut idle = Vec::new();
    for _ in 0..4 {
        idle.push(connect(&mcp.url).await);
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    // A new client is served, at once: one idle connection made room for it.
    let session = within(mcp.initialize(json!({}))).await;
    assert_eq!(result_text(&mcp.call_json(Some(&session), 1, "echo", json!({ "text": "in" })).await), "in");
    let mut closed = 0;
    for tcp in &mut idle {
        closed += usize::from(read_until_closed(tcp, Duration::from_millis(200)).await.is_some());
    }
    assert!(closed >= 1, "no idle connection was closed");
    bound.shutdown().await;
}

/// Polls an async condition until it holds, failing after a bounded number of tries.
async fn eventually_async<F, Fut>(mut cond: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    for _ in 0..200 {
        if cond().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the condition never held");
}

/// A server with a `flood {count}` tool that logs `count` messages of 64 KiB, then answers.
fn flood_server() -> Server {
    Server::builder(Implementation::new("flood", "1"))
        .tool(
            Tool::new(
                "flood",
                "Logs a lot.",
                obj(json!({ "type": "object", "properties": { "count": { "type": "integer" } } })),
            ),
            |args: JsonObject, ctx: RequestContext| async move {
                let count = args.get("count").and_then(Value::as_u64).unwrap_or(0);
                let chunk = "f".repeat(64 * 1024);
                for i in 0..count {
                    ctx.log(LoggingLevel::Info, None, json!({ "i": i, "pad": chunk }))
                        .map_err(|e| mcpweft::ErrorData::internal_error(e.to_string()))?;
                    tokio::task::yield_now().await;
                }
                Ok(CallToolResult::text(format!("flooded {count}")))
            },
        )
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_does_not_read_its_stream_has_it_closed_and_resumes_without_loss() {
    let options = HttpServerOptions::new().with_max_queued_events(4);
    let addr = SocketAddr::from(([127, 0, 0, 1], 0));
    let bound = within(StreamableHttpServer::bind(flood_server(), addr, options)).await.unwrap();
    let mcp = Mcp::new(bound.url());
    let session = mcp.initialize(json!({})).await;
    // 400 messages of 64 KiB: more than socket buffers hold while nobody reads.
    let count = 400;
    let response = send(mcp.post(Some(&session), &call(1, "flood", json!({ "count": count }), None))).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let mut sse = SseStream::new(response);
    let mut last = None;
    let mut seen = Vec::new();
    let mut answered = false;
    for _ in 0..(count + 10) {
        let Some(event) = sse.next_event().await else { break };
        if event.is_message() {
            let message = event.json();
            answered |= message.get("result").is_some();
            if let Some(i) = message["params"]["data"]["i"].as_u64() {
                seen.push(i);
            }
        }
        last = event.id.clone();
    }
    assert!(!answered, "the stream of a client that did not read was never closed");
    // Resume where the closed stream stopped: the rest comes, once each, then the answer.
    let response = send(mcp.get(Some(&session), last.as_deref())).await;
    let mut resumed = SseStream::new(response);
    for _ in 0..(count + 10) {
        let (_, message) = resumed.message().await;
        if message.get("result").is_some() {
            assert_eq!(result_text(&message), format!("flooded {count}"));
            answered = true;
            break;
        }
        seen.push(message["params"]["data"]["i"].as_u64().unwrap());
    }
    assert!(answered);
    assert_eq!(seen, (0..count as u64).collect::<Vec<_>>(), "events were lost or repeated");
    bound.shutdown().await;
}

#[tokio::test]
async fn a_panicking_handler_over_http_gets_an_error_reply_and_the_server_goes_on() {
    let server = common::panicking_server();
    let addr = SocketAddr::from(([127, 0, 0, 1], 0));
    let bound = within(StreamableHttpServer::bind(server, addr, HttpServerOptions::default())).await.unwrap();
    let mcp = Mcp::new(bound.url());
    let session = mcp.initialize(json!({})).await;
    for (id, tool) in [(1, "boom"), (2, "later")] {
        let reply = read_reply(send(mcp.post(Some(&session), &call(id, tool, json!({}), None))).await).await;
        assert_eq!(reply["id"], id, "{reply}");
        assert_eq!(reply["error"]["code"], -32603, "{reply}");
    }
    assert_eq!(result_text(&mcp.call_json(Some(&session), 3, "fine", json!({})).await), "fine");
    bound.shutdown().await;
}
