//! The Streamable HTTP client transport against small axum servers written for each case.
//!
//! Every server binds 127.0.0.1 on a free port and is reached as `localhost`, which also checks
//! that the client resolves `localhost` to the IPv4 loopback address.

use std::{
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use axum::{
    Router,
    body::{Body, Bytes},
    extract::State,
    http::{HeaderMap, Method, StatusCode, Uri},
    response::Response,
};
use futures::{StreamExt, future::BoxFuture};
use mcpweft::{
    Client, ClientOptions, Error, RequestOptions,
    transport::http::{HttpClientOptions, StreamableHttpClientTransport},
};
use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc};

/// How long any single step of a test may take.
const STEP: Duration = Duration::from_secs(10);

/// One HTTP request as a test server saw it.
#[derive(Clone, Debug)]
struct Seen {
    method: Method,
    path: String,
    query: Option<String>,
    headers: HeaderMap,
    body: Option<Value>,
    at: Instant,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    fn rpc_method(&self) -> Option<&str> {
        self.body.as_ref()?.get("method")?.as_str()
    }

    fn rpc_id(&self) -> Option<Value> {
        self.body.as_ref()?.get("id").cloned()
    }

    fn is_notification(&self) -> bool {
        self.rpc_method().is_some() && self.rpc_id().is_none()
    }
}

type Handler = Arc<dyn Fn(Seen) -> BoxFuture<'static, Response> + Send + Sync>;

#[derive(Clone)]
struct App {
    handler: Handler,
    log: Arc<Mutex<Vec<Seen>>>,
}

async fn dispatch(State(app): State<App>, method: Method, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    let seen = Seen {
        method,
        path: uri.path().to_owned(),
        query: uri.query().map(str::to_owned),
        headers,
        body: serde_json::from_slice(&body).ok(),
        at: Instant::now(),
    };
    app.log.lock().unwrap().push(seen.clone());
    (app.handler)(seen).await
}

/// Serves `handler` on 127.0.0.1 and returns the base URL (with `localhost`) and the request log.
async fn serve(handler: Handler) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let app = Router::new().fallback(dispatch).with_state(App { handler, log: log.clone() });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://localhost:{port}"), log)
}

fn handler<F, Fut>(f: F) -> Handler
where
    F: Fn(Seen) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Response> + Send + 'static,
{
    Arc::new(move |seen| Box::pin(f(seen)))
}

fn status(code: StatusCode) -> Response {
    Response::builder().status(code).body(Body::empty()).unwrap()
}

fn json_reply(value: Value, session: Option<&str>) -> Response {
    let mut builder = Response::builder().header("content-type", "application/json");
    if let Some(session) = session {
        builder = builder.header("mcp-session-id", session);
    }
    builder.body(Body::from(value.to_string())).unwrap()
}

/// Returns an event-stream response fed by the returned sender; the stream ends when every
/// sender is dropped.
fn sse_reply(session: Option<&str>) -> (mpsc::UnboundedSender<String>, Response) {
    let (tx, rx) = mpsc::unbounded_channel::<String>();
    let stream = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|chunk| (Ok::<_, std::io::Error>(Bytes::from(chunk)), rx))
    });
    let mut builder = Response::builder().header("content-type", "text/event-stream");
    if let Some(session) = session {
        builder = builder.header("mcp-session-id", session);
    }
    (tx, builder.body(Body::from_stream(stream)).unwrap())
}

fn message_event(message: &Value) -> String {
    format!("event: message\ndata: {message}\n\n")
}

fn init_result(id: Value, version: &str) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "result": {
            "protocolVersion": version,
            "capabilities": { "tools": {} },
            "serverInfo": { "name": "test-server", "version": "1.0.0" }
        }
    })
}

fn tools_list_result(id: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "result": { "tools": [{ "name": "echo", "inputSchema": { "type": "object" } }] }
    })
}

fn text_result(id: Value, text: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": { "content": [{ "type": "text", "text": text }] } })
}

fn transport(base: &str) -> StreamableHttpClientTransport {
    StreamableHttpClientTransport::new(format!("{base}/mcp")).unwrap()
}

async fn connect(transport: StreamableHttpClientTransport) -> Client {
    tokio::time::timeout(STEP, Client::connect(transport, ClientOptions::new("t", "1"))).await.unwrap().unwrap()
}

fn snapshot(log: &Mutex<Vec<Seen>>) -> Vec<Seen> {
    log.lock().unwrap().clone()
}

/// Waits, for a bounded time, until the log holds a request matching `pred`.
async fn wait_for(log: &Mutex<Vec<Seen>>, pred: impl Fn(&Seen) -> bool) -> Seen {
    for _ in 0..200 {
        if let Some(seen) = log.lock().unwrap().iter().find(|s| pred(s)) {
            return seen.clone();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the expected request never came");
}

/// A JSON-only server with one session: it answers `tools/call` after `delay_ms` from the
/// arguments, refuses requests without the session headers, and accepts DELETE.
fn json_server() -> Handler {
    handler(|seen: Seen| async move {
        match seen.method {
            Method::GET => return status(StatusCode::METHOD_NOT_ALLOWED),
            Method::DELETE => return status(StatusCode::OK),
            _ => {}
        }
        let id = seen.rpc_id().unwrap_or(Value::Null);
        match seen.rpc_method() {
            Some("initialize") => json_reply(init_result(id, "2025-06-18"), Some("sess-1")),
            _ if seen.header("mcp-session-id") != Some("sess-1")
                || seen.header("mcp-protocol-version") != Some("2025-06-18") =>
            {
                status(StatusCode::BAD_REQUEST)
            }
            _ if seen.is_notification() => status(StatusCode::ACCEPTED),
            Some("tools/list") => json_reply(tools_list_result(id), None),
            Some("tools/call") => {
                let args = &seen.body.as_ref().unwrap()["params"]["arguments"];
                let delay = args["delay_ms"].as_u64().unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(delay)).await;
                json_reply(text_result(id, "done"), None)
            }
            _ => status(StatusCode::NOT_IMPLEMENTED),
        }
    })
}

#[tokio::test]
async fn json_replies_and_session_headers() {
    let (base, log) = serve(json_server()).await;
    let client = connect(transport(&base)).await;
    assert_eq!(client.protocol_version(), "2025-06-18");
    let tools = tokio::time::timeout(STEP, client.list_all_tools()).await.unwrap().unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].name, "echo");

    let get = wait_for(&log, |s| s.method == Method::GET).await;
    assert_eq!(get.header("accept"), Some("text/event-stream"));
    assert_eq!(get.header("mcp-session-id"), Some("sess-1"));

    let posts: Vec<Seen> = snapshot(&log).into_iter().filter(|s| s.method == Method::POST).collect();
    let methods: Vec<_> = posts.iter().map(|s| s.rpc_method().unwrap_or("")).collect();
    assert_eq!(methods, ["initialize", "notifications/initialized", "tools/list"]);
    for post in &posts {
        let accept = post.header("accept").unwrap();
        assert!(accept.contains("application/json") && accept.contains("text/event-stream"), "{accept}");
        assert_eq!(post.header("content-type"), Some("application/json"));
    }
    assert_eq!(posts[0].header("mcp-session-id"), None);
    assert_eq!(posts[0].header("mcp-protocol-version"), None);
    for post in &posts[1..] {
        assert_eq!(post.header("mcp-session-id"), Some("sess-1"));
        assert_eq!(post.header("mcp-protocol-version"), Some("2025-06-18"));
    }
    tokio::time::timeout(STEP, client.close()).await.unwrap();
}

#[tokio::test]
async fn slow_requests_run_concurrently() {
    let (base, _log) = serve(json_server()).await;
    let client = connect(transport(&base)).await;
    let started = Instant::now();
    let calls = (0..5).map(|_| client.call_tool("slow", json!({ "delay_ms": 400 })));
    let results = tokio::time::timeout(STEP, futures::future::join_all(calls)).await.unwrap();
    for result in results {
        result.unwrap();
    }
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_millis(1500), "five 400 ms calls took {elapsed:?}");
    tokio::time::timeout(STEP, client.close()).await.unwrap();
}

#[tokio::test]
async fn close_sends_delete_with_the_session_id() {
    let (base, log) = serve(json_server()).await;
    let client = connect(transport(&base)).await;
    tokio::time::timeout(STEP, client.close()).await.unwrap();
    let delete = wait_for(&log, |s| s.method == Method::DELETE).await;
    assert_eq!(delete.header("mcp-session-id"), Some("sess-1"));
    assert_eq!(delete.header("mcp-protocol-version"), Some("2025-06-18"));
    assert!(client.peer().is_closed());
}

#[tokio::test]
async fn event_stream_replies_with_progress_and_a_server_request() {
    let ping_answered = Arc::new(Notify::new());
    let answered = ping_answered.clone();
    let server = handler(move |seen: Seen| {
        let answered = answered.clone();
        async move {
            if seen.method != Method::POST {
                return status(StatusCode::METHOD_NOT_ALLOWED);
            }
            let id = seen.rpc_id().unwrap_or(Value::Null);
            match seen.rpc_method() {
                Some("initialize") => {
                    let (tx, response) = sse_reply(Some("sess-sse"));
                    tx.send("id: p0\ndata: \n\n".to_owned()).unwrap();
                    tx.send(message_event(&init_result(id, "2025-11-25"))).unwrap();
                    response
                }
                Some("tools/call") => {
                    let token = seen.body.as_ref().unwrap()["params"]["_meta"]["progressToken"].clone();
                    let (tx, response) = sse_reply(None);
                    tokio::spawn(async move {
                        let progress = json!({
                            "jsonrpc": "2.0",
                            "method": "notifications/progress",
                            "params": { "progressToken": token, "progress": 1, "total": 2 }
                        });
                        let _ = tx.send(format!("id: c1\ndata: {progress}\n\n"));
                        let ping = json!({ "jsonrpc": "2.0", "id": "srv-1", "method": "ping" });
                        let _ = tx.send(format!("id: c2\ndata: {ping}\n\n"));
                        if tokio::time::timeout(STEP, answered.notified()).await.is_ok() {
                            let _ = tx.send(format!(": done\nid: c3\ndata: {}\n\n", text_result(id, "streamed")));
                        }
                    });
                    response
                }
                _ if seen.body.as_ref().is_some_and(|b| b.get("result").is_some()) => {
                    if seen.rpc_id() == Some(json!("srv-1")) {
                        answered.notify_one();
                    }
                    status(StatusCode::ACCEPTED)
                }
                _ => status(StatusCode::ACCEPTED),
            }
        }
    });
    let (base, log) = serve(server).await;
    let client = connect(transport(&base)).await;
    let progress = Arc::new(Mutex::new(Vec::new()));
    let seen_progress = progress.clone();
    let options = RequestOptions::new().with_progress(move |p| seen_progress.lock().unwrap().push(p.progress));
    let params = json!({ "name": "stream", "arguments": {} });
    let result =
        tokio::time::timeout(STEP, client.request("tools/call", Some(params), options)).await.unwrap().unwrap();
    assert_eq!(result["content"][0]["text"], "streamed");
    assert_eq!(*progress.lock().unwrap(), [1.0]);
    let pong = wait_for(&log, |s| s.rpc_id() == Some(json!("srv-1"))).await;
    assert_eq!(pong.header("mcp-session-id"), Some("sess-sse"));
    tokio::time::timeout(STEP, client.close()).await.unwrap();
}

/// The shape of the conformance `sse-retry` scenario.
#[tokio::test]
async fn broken_stream_is_resumed_with_get_after_the_retry_delay() {
    struct Retry {
        pending: Mutex<Option<Value>>,
        closed_at: Mutex<Option<Instant>>,
        standalone: Mutex<Vec<mpsc::UnboundedSender<String>>>,
    }
    let state =
        Arc::new(Retry { pending: Mutex::new(None), closed_at: Mutex::new(None), standalone: Mutex::default() });
    let shared = state.clone();
    let server = handler(move |seen: Seen| {
        let state = shared.clone();
        async move {
            let id = seen.rpc_id().unwrap_or(Value::Null);
            match (seen.method.clone(), seen.rpc_method()) {
                (Method::POST, Some("initialize")) => json_reply(init_result(id, "2025-03-26"), Some("sess-r")),
                (Method::POST, Some("tools/list")) => json_reply(tools_list_result(id), None),
                (Method::POST, Some("tools/call")) => {
                    *state.pending.lock().unwrap() = Some(id);
                    let (tx, response) = sse_reply(None);
                    tx.send("id: ev-1\nretry: 300\ndata: \n\n".to_owned()).unwrap();
                    tokio::spawn(async move {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        *state.closed_at.lock().unwrap() = Some(Instant::now());
                        drop(tx);
                    });
                    response
                }
                (Method::POST, _) => status(StatusCode::ACCEPTED),
                (Method::GET, _) => {
                    let (tx, response) = sse_reply(None);
                    tx.send("id: g-1\nretry: 300\ndata: \n\n".to_owned()).unwrap();
                    match seen.header("last-event-id") {
                        Some("ev-1") => {
                            let pending = state.pending.lock().unwrap().take().unwrap();
                            tx.send(message_event(&text_result(pending, "reconnected"))).unwrap();
                        }
                        // The standalone stream stays open, as the conformance server's does.
                        _ => state.standalone.lock().unwrap().push(tx),
                    }
                    response
                }
                _ => status(StatusCode::METHOD_NOT_ALLOWED),
            }
        }
    });
    let (base, log) = serve(server).await;
    let client = connect(transport(&base)).await;
    assert_eq!(client.protocol_version(), "2025-03-26");
    let result = tokio::time::timeout(STEP, client.call_tool("test_reconnection", json!({}))).await.unwrap().unwrap();
    assert_eq!(serde_json::to_value(&result.content).unwrap()[0]["text"], "reconnected");

    let resumed = wait_for(&log, |s| s.method == Method::GET && s.header("last-event-id").is_some()).await;
    assert_eq!(resumed.header("last-event-id"), Some("ev-1"));
    assert_eq!(resumed.header("mcp-session-id"), Some("sess-r"));
    assert_eq!(resumed.header("accept"), Some("text/event-stream"));
    let closed_at = state.closed_at.lock().unwrap().unwrap();
    let delay = resumed.at.duration_since(closed_at);
    assert!(delay >= Duration::from_millis(250) && delay < Duration::from_millis(1000), "reconnected after {delay:?}");
    tokio::time::timeout(STEP, client.close()).await.unwrap();
}

#[tokio::test]
async fn expired_session_is_reinitialized_and_the_request_retried() {
    struct Sessions {
        current: Mutex<Option<String>>,
        count: AtomicUsize,
    }
    let state = Arc::new(Sessions { current: Mutex::new(None), count: AtomicUsize::new(0) });
    let shared = state.clone();
    let server = handler(move |seen: Seen| {
        let state = shared.clone();
        async move {
            if seen.method == Method::GET {
                return status(StatusCode::METHOD_NOT_ALLOWED);
            }
            let id = seen.rpc_id().unwrap_or(Value::Null);
            if seen.rpc_method() == Some("initialize") {
                let session = format!("s{}", state.count.fetch_add(1, Ordering::SeqCst) + 1);
                *state.current.lock().unwrap() = Some(session.clone());
                return json_reply(init_result(id, "2025-11-25"), Some(&session));
            }
            let current = state.current.lock().unwrap().clone();
            if seen.header("mcp-session-id").is_none() || seen.header("mcp-session-id") != current.as_deref() {
                return status(StatusCode::NOT_FOUND);
            }
            if seen.is_notification() {
                return status(StatusCode::ACCEPTED);
            }
            json_reply(tools_list_result(id), None)
        }
    });
    let (base, log) = serve(server).await;
    let client = connect(transport(&base)).await;
    tokio::time::timeout(STEP, client.list_tools(None)).await.unwrap().unwrap();

    // The server forgets the session.
    *state.current.lock().unwrap() = None;
    let tools = tokio::time::timeout(STEP, client.list_tools(None)).await.unwrap().unwrap();
    assert_eq!(tools.tools.len(), 1);

    let posts: Vec<Seen> = snapshot(&log).into_iter().filter(|s| s.method == Method::POST).collect();
    let summary: Vec<_> =
        posts.iter().map(|s| (s.rpc_method().unwrap_or(""), s.header("mcp-session-id").map(str::to_owned))).collect();
    let s = |v: &str| Some(v.to_owned());
    assert_eq!(
        summary,
        [
            ("initialize", None),
            ("notifications/initialized", s("s1")),
            ("tools/list", s("s1")),
            ("tools/list", s("s1")),
            ("initialize", None),
            ("notifications/initialized", s("s2")),
            ("tools/list", s("s2")),
        ]
    );
    // The replayed initialize is the original one.
    assert_eq!(posts[4].body, posts[0].body);
    // The client still works with the new session.
    tokio::time::timeout(STEP, client.list_tools(None)).await.unwrap().unwrap();
    tokio::time::timeout(STEP, client.close()).await.unwrap();
}

#[tokio::test]
async fn http_error_on_a_request_reaches_the_caller() {
    let server = handler(|seen: Seen| async move {
        if seen.method != Method::POST {
            return status(StatusCode::METHOD_NOT_ALLOWED);
        }
        let id = seen.rpc_id().unwrap_or(Value::Null);
        match seen.rpc_method() {
            Some("initialize") => json_reply(init_result(id, "2025-11-25"), Some("sess-e")),
            Some("tools/list") => Response::builder()
                .status(StatusCode::INTERNAL_SERVER_ERROR)
                .body(Body::from("database unavailable"))
                .unwrap(),
            Some("ping") => json_reply(json!({ "jsonrpc": "2.0", "id": id, "result": {} }), None),
            _ => status(StatusCode::ACCEPTED),
        }
    });
    let (base, _log) = serve(server).await;
    let client = connect(transport(&base)).await;
    let error = tokio::time::timeout(STEP, client.list_tools(None)).await.unwrap().unwrap_err();
    let Error::Rpc(error) = error else { panic!("expected a JSON-RPC error, got {error:?}") };
    assert_eq!(error.code, mcpweft::jsonrpc::INTERNAL_ERROR);
    assert!(error.message.contains("500") && error.message.contains("database unavailable"), "{}", error.message);
    assert_eq!(error.data, Some(json!({ "httpStatus": 500 })));
    // The session survives the failed request.
    tokio::time::timeout(STEP, client.ping()).await.unwrap().unwrap();
    tokio::time::timeout(STEP, client.close()).await.unwrap();
}

#[tokio::test]
async fn connection_refused_fails_connect_instead_of_hanging() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let transport = StreamableHttpClientTransport::new(format!("http://127.0.0.1:{port}/mcp")).unwrap();
    let result = tokio::time::timeout(STEP, Client::connect(transport, ClientOptions::new("t", "1"))).await.unwrap();
    assert!(matches!(result, Err(Error::Rpc(_))), "{result:?}");
}

#[tokio::test]
async fn falls_back_to_the_deprecated_http_sse_transport() {
    let stream: Arc<Mutex<Option<mpsc::UnboundedSender<String>>>> = Arc::default();
    let shared = stream.clone();
    let server = handler(move |seen: Seen| {
        let stream = shared.clone();
        async move {
            match (seen.method.clone(), seen.path.as_str()) {
                (Method::GET, "/mcp") => {
                    let (tx, response) = sse_reply(None);
                    tx.send(": legacy server\nevent: endpoint\ndata: /messages?sid=abc\n\n".to_owned()).unwrap();
                    *stream.lock().unwrap() = Some(tx);
                    response
                }
                (Method::POST, "/messages") => {
                    let id = seen.rpc_id().unwrap_or(Value::Null);
                    let reply = match seen.rpc_method() {
                        Some("initialize") => Some(init_result(id, "2024-11-05")),
                        Some("tools/list") => Some(tools_list_result(id)),
                        _ => None,
                    };
                    if let Some(reply) = reply {
                        let tx = stream.lock().unwrap().clone().unwrap();
                        tx.send(message_event(&reply)).unwrap();
                    }
                    Response::builder().status(StatusCode::ACCEPTED).body(Body::from("Accepted")).unwrap()
                }
                _ => status(StatusCode::METHOD_NOT_ALLOWED),
            }
        }
    });
    let (base, log) = serve(server).await;
    let client = connect(transport(&base)).await;
    assert_eq!(client.protocol_version(), "2024-11-05");
    let tools = tokio::time::timeout(STEP, client.list_tools(None)).await.unwrap().unwrap();
    assert_eq!(tools.tools.len(), 1);

    let seen = snapshot(&log);
    let summary: Vec<_> = seen.iter().map(|s| (s.method.as_str(), s.path.as_str(), s.rpc_method())).collect();
    assert_eq!(
        summary,
        [
            ("POST", "/mcp", Some("initialize")),
            ("GET", "/mcp", None),
            ("POST", "/messages", Some("initialize")),
            ("POST", "/messages", Some("notifications/initialized")),
            ("POST", "/messages", Some("tools/list")),
        ]
    );
    assert!(seen[2..].iter().all(|s| s.query.as_deref() == Some("sid=abc")));
    assert_eq!(seen[1].header("accept"), Some("text/event-stream"));

    // When the server ends the event stream, the session is over.
    stream.lock().unwrap().take();
    tokio::time::timeout(STEP, client.peer().closed()).await.unwrap();
}

#[tokio::test]
async fn extra_headers_are_sent_on_every_request() {
    let (base, log) = serve(json_server()).await;
    let options = HttpClientOptions::new().with_bearer_token("secret-token").unwrap().with_get_stream(false);
    let transport = StreamableHttpClientTransport::with_options(format!("{base}/mcp"), options).unwrap();
    let client = connect(transport).await;
    tokio::time::timeout(STEP, client.list_tools(None)).await.unwrap().unwrap();
    tokio::time::timeout(STEP, client.close()).await.unwrap();
    let seen = snapshot(&log);
    assert!(seen.iter().all(|s| s.header("authorization") == Some("Bearer secret-token")));
    assert!(seen.iter().all(|s| s.method != Method::GET), "the GET stream was turned off");
    assert!(seen.iter().any(|s| s.method == Method::DELETE));
}

#[test]
fn only_http_urls_are_accepted() {
    assert!(StreamableHttpClientTransport::new("not a url").is_err());
    assert!(StreamableHttpClientTransport::new("ftp://localhost/mcp").is_err());
}

#[tokio::test]
async fn localhost_also_reaches_a_server_on_ipv6_loopback() {
    // Skipped where the host has no IPv6 loopback.
    let Ok(listener) = tokio::net::TcpListener::bind("[::1]:0").await else { return };
    let port = listener.local_addr().unwrap().port();
    let app = Router::new().fallback(dispatch).with_state(App { handler: json_server(), log: Arc::default() });
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    let client = connect(transport(&format!("http://localhost:{port}"))).await;
    tokio::time::timeout(STEP, client.list_tools(None)).await.unwrap().unwrap();
    tokio::time::timeout(STEP, client.close()).await.unwrap();
}

#[tokio::test]
async fn a_server_that_floods_a_client_which_does_not_read_is_held_back_by_tcp() {
    use mcpweft::{
        jsonrpc::{JsonRpcMessage, RequestId},
        transport::{Outbound, Transport},
    };
    const EVENTS: usize = 100_000;
    let pulled = Arc::new(AtomicUsize::new(0));
    let counter = pulled.clone();
    let (base, _log) = serve(handler(move |_seen| {
        let counter = counter.clone();
        async move {
            // 1 KiB notifications, made only as fast as the client takes them: 100 MiB in all.
            let padding = "x".repeat(1024);
            let stream = futures::stream::iter(0..EVENTS).map(move |i| {
                counter.fetch_add(1, Ordering::SeqCst);
                let note = json!({ "jsonrpc": "2.0", "method": "notifications/message",
                    "params": { "level": "info", "data": { "i": i, "padding": padding } } });
                Ok::<_, std::io::Error>(Bytes::from(message_event(&note)))
            });
            Response::builder().header("content-type", "text/event-stream").body(Body::from_stream(stream)).unwrap()
        }
    }))
    .await;
    let (mut writer, mut reader) = transport(&base).split();
    let request = JsonRpcMessage::request(RequestId::Number(1), "tools/call", Some(json!({ "name": "flood" })));
    writer.send(Outbound { message: request, related_request: None }).await.unwrap();
    // Nobody reads for a while: the transport may queue a bounded number of messages only.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let held = pulled.load(Ordering::SeqCst);
    assert!(held < 10_000, "the server produced {held} of {EVENTS} events for a client that read none");
    // Reading again lets the stream go on.
    for _ in 0..held + 100 {
        tokio::time::timeout(STEP, reader.recv()).await.unwrap().unwrap().unwrap();
    }
    assert!(pulled.load(Ordering::SeqCst) > held);
}
