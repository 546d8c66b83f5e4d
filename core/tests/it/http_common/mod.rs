//! Helpers of the Streamable HTTP server tests: bounded waits, a raw `reqwest` MCP peer, an
//! SSE line parser, and a test server with tools that log, report progress, wait and elicit.

#![allow(dead_code, unreachable_pub)]

use std::{
    net::SocketAddr,
    pin::Pin,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use bytes::Bytes;
use futures::{Stream, StreamExt};
use mcpweft::{
    ErrorData, RequestContext, Server,
    http::{BoundHttpServer, HttpServerOptions, StreamableHttpServer},
    model::*,
};
use serde_json::{Value, json};
use tokio::sync::Notify;

#[allow(unused_imports)] // Each test file uses some of them.
pub use crate::common::{eventually, obj, within, within_for};

/// The protocol version the tests negotiate.
pub const VERSION: &str = "2025-11-25";

/// The `Accept` value a conforming client sends on POST.
pub const ACCEPT_BOTH: &str = "application/json, text/event-stream";

// ---------------------------------------------------------------------------------------------
// SSE
// ---------------------------------------------------------------------------------------------

/// One server-sent event as it appeared on the wire.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SseEvent {
    /// The `id:` field, if the event had one.
    pub id: Option<String>,
    /// The `event:` field, if any.
    pub event: Option<String>,
    /// The `data:` lines joined with `\n` (empty when the event had an empty or no data line).
    pub data: String,
    /// Whether the event had at least one `data:` line.
    pub has_data: bool,
    /// The `retry:` field, if any.
    pub retry: Option<u64>,
}

impl SseEvent {
    /// Parses the data as one JSON-RPC message.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap_or_else(|e| panic!("event data is not JSON ({e}): {:?}", self.data))
    }

    /// Whether the event carries a message (as opposed to a priming or retry-only event).
    pub fn is_message(&self) -> bool {
        !self.data.is_empty()
    }
}

type ByteStream = Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>;

/// Reads the events of an SSE response body, line by line.
pub struct SseStream {
    body: ByteStream,
    buf: Vec<u8>,
    pending: SseEvent,
    pending_any: bool,
    ended: bool,
    /// How many comment lines (`: ...`) went by.
    pub comments: usize,
}

impl SseStream {
    /// Wraps a response that must be `200 text/event-stream`.
    pub fn new(response: reqwest::Response) -> Self {
        assert_eq!(response.status(), 200, "an SSE stream answers 200");
        assert_eq!(content_type(&response), "text/event-stream", "{response:?}");
        SseStream {
            body: Box::pin(response.bytes_stream()),
            buf: Vec::new(),
            pending: SseEvent::default(),
            pending_any: false,
            ended: false,
            comments: 0,
        }
    }

    /// Takes one complete line out of the buffer, without its line ending.
    fn take_line(&mut self) -> Option<String> {
        let end = self.buf.iter().position(|&b| b == b'\n' || b == b'\r')?;
        // A lone `\r` at the very end might be the first half of `\r\n`: wait for more.
        if self.buf[end] == b'\r' && end + 1 == self.buf.len() && !self.ended {
            return None;
        }
        let skip = if self.buf[end] == b'\r' && self.buf.get(end + 1) == Some(&b'\n') { 2 } else { 1 };
        let line: Vec<u8> = self.buf.drain(..end + skip).take(end).collect();
        Some(String::from_utf8(line).expect("SSE is UTF-8"))
    }

    /// Applies one line; returns an event when the line ends one.
    fn apply(&mut self, line: &str) -> Option<SseEvent> {
        if line.is_empty() {
            if !self.pending_any {
                return None;
            }
            self.pending_any = false;
            return Some(std::mem::take(&mut self.pending));
        }
        if line.starts_with(':') {
            self.comments += 1;
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        self.pending_any = true;
        match field {
            "id" => self.pending.id = Some(value.to_owned()),
            "event" => self.pending.event = Some(value.to_owned()),
            "retry" => self.pending.retry = Some(value.parse().expect("retry is a number")),
            "data" => {
                if self.pending.has_data {
                    self.pending.data.push('\n');
                }
                self.pending.has_data = true;
                self.pending.data.push_str(value);
            }
            other => panic!("unexpected SSE field {other:?} in {line:?}"),
        }
        None
    }

    async fn next_unbounded(&mut self) -> Option<SseEvent> {
        // Bounded in count: each round either consumes a line or reads a chunk.
        for _ in 0..1_000_000 {
            while let Some(line) = self.take_line() {
                if let Some(event) = self.apply(&line) {
                    return Some(event);
                }
            }
            if self.ended {
                assert!(
                    self.buf.is_empty(),
                    "the stream ended inside a line: {:?}",
                    String::from_utf8_lossy(&self.buf)
                );
                return None;
            }
            match self.body.next().await {
                Some(Ok(chunk)) => self.buf.extend_from_slice(&chunk),
                Some(Err(e)) => panic!("the SSE body failed: {e}"),
                None => self.ended = true,
            }
        }
        panic!("too many SSE reads");
    }

    /// The next event (priming and retry-only ones included), or `None` when the stream ended.
    pub async fn next_event(&mut self) -> Option<SseEvent> {
        within(self.next_unbounded()).await
    }

    /// The next event, which must exist.
    pub async fn event(&mut self) -> SseEvent {
        self.next_event().await.expect("the SSE stream ended early")
    }

    /// The next event that carries a message, skipping priming and retry-only events.
    pub async fn message(&mut self) -> (SseEvent, Value) {
        for _ in 0..100 {
            let event = self.event().await;
            if event.is_message() {
                let value = event.json();
                return (event, value);
            }
        }
        panic!("no message in 100 events");
    }

    /// Asserts that the stream ends (after nothing but comments).
    pub async fn assert_ends(&mut self) {
        if let Some(event) = self.next_event().await {
            panic!("expected the stream to end, got {event:?}");
        }
    }

    /// Asserts that no message arrives within `quiet` (retry-only events are let through).
    pub async fn assert_quiet(&mut self, quiet: Duration) {
        let deadline = tokio::time::Instant::now() + quiet;
        for _ in 0..100 {
            match tokio::time::timeout_at(deadline, self.next_unbounded()).await {
                Err(_) => return,
                Ok(Some(event)) if !event.is_message() && event.id.is_none() => continue,
                Ok(event) => panic!("expected nothing on the stream, got {event:?}"),
            }
        }
        panic!("too many events on a quiet stream");
    }
}

/// The media type of a response, without parameters.
pub fn content_type(response: &reqwest::Response) -> String {
    response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.split(';').next().unwrap_or("").trim().to_ascii_lowercase())
        .unwrap_or_default()
}

/// The session id a response carries, if any.
pub fn session_header(response: &reqwest::Response) -> Option<String> {
    response.headers().get("mcp-session-id").map(|v| v.to_str().expect("a visible-ASCII session id").to_owned())
}

// ---------------------------------------------------------------------------------------------
// A raw MCP peer over reqwest
// ---------------------------------------------------------------------------------------------

/// A raw client of one MCP endpoint.
#[derive(Clone)]
pub struct Mcp {
    pub client: reqwest::Client,
    pub url: String,
}

/// A JSON-RPC request.
pub fn request(id: impl Into<Value>, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id.into(), "method": method, "params": params })
}

/// A JSON-RPC notification.
pub fn notification(method: &str, params: Option<Value>) -> Value {
    match params {
        Some(params) => json!({ "jsonrpc": "2.0", "method": method, "params": params }),
        None => json!({ "jsonrpc": "2.0", "method": method }),
    }
}

/// The params of an `initialize` request.
pub fn init_params(capabilities: Value) -> Value {
    json!({
        "protocolVersion": VERSION,
        "capabilities": capabilities,
        "clientInfo": { "name": "http-test", "version": "1.0.0" }
    })
}

/// A `tools/call` request, with a progress token when `progress` is given.
pub fn call(id: impl Into<Value>, name: &str, arguments: Value, progress: Option<&str>) -> Value {
    let mut params = json!({ "name": name, "arguments": arguments });
    if let Some(token) = progress {
        params["_meta"] = json!({ "progressToken": token });
    }
    request(id, "tools/call", params)
}

impl Mcp {
    /// A peer of `url` with a fresh connection pool.
    pub fn new(url: impl Into<String>) -> Self {
        mcpweft::install_crypto_provider();
        let client = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().expect("a reqwest client");
        Mcp { client, url: url.into() }
    }

    /// A POST of `body` with the headers a conforming client sends.
    pub fn post(&self, session: Option<&str>, body: &Value) -> reqwest::RequestBuilder {
        let mut builder = self
            .client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", ACCEPT_BOTH)
            .body(serde_json::to_vec(body).expect("JSON"));
        if let Some(session) = session {
            builder = builder.header("mcp-session-id", session).header("mcp-protocol-version", VERSION);
        }
        builder
    }

    /// A GET of the session's standalone stream (or a resumption with `last_event_id`).
    pub fn get(&self, session: Option<&str>, last_event_id: Option<&str>) -> reqwest::RequestBuilder {
        let mut builder = self.client.get(&self.url).header("accept", "text/event-stream");
        if let Some(session) = session {
            builder = builder.header("mcp-session-id", session).header("mcp-protocol-version", VERSION);
        }
        if let Some(last) = last_event_id {
            builder = builder.header("last-event-id", last);
        }
        builder
    }

    /// A DELETE of the session.
    pub fn delete(&self, session: &str) -> reqwest::RequestBuilder {
        self.client.delete(&self.url).header("mcp-session-id", session).header("mcp-protocol-version", VERSION)
    }

    /// POSTs `initialize` (expecting 200 and a session id), then `notifications/initialized`
    /// (expecting 202); returns the session id.
    pub async fn initialize(&self, capabilities: Value) -> String {
        let response = send(self.post(None, &request(0, "initialize", init_params(capabilities)))).await;
        assert_eq!(response.status(), 200);
        let session = session_header(&response).expect("initialize issues a session id");
        let reply = read_reply(response).await;
        assert_eq!(reply["id"], 0, "{reply}");
        assert_eq!(reply["result"]["protocolVersion"], VERSION, "{reply}");
        let response = send(self.post(Some(&session), &notification("notifications/initialized", None))).await;
        assert_eq!(response.status(), 202);
        session
    }

    /// Calls a tool and returns the JSON-RPC reply, asserting `200 application/json`.
    pub async fn call_json(&self, session: Option<&str>, id: i64, name: &str, arguments: Value) -> Value {
        let response = send(self.post(session, &call(id, name, arguments, None))).await;
        assert_eq!(response.status(), 200);
        assert_eq!(content_type(&response), "application/json");
        let reply = body_json(response).await;
        assert_eq!(reply["id"], id, "{reply}");
        reply
    }
}

/// Sends a request within [`WAIT`], failing on a transport error.
pub async fn send(builder: reqwest::RequestBuilder) -> reqwest::Response {
    within(builder.send()).await.expect("the HTTP request failed")
}

/// Reads a whole body as text.
pub async fn body_text(response: reqwest::Response) -> String {
    within(response.text()).await.expect("the body could not be read")
}

/// Reads a whole body as JSON.
pub async fn body_json(response: reqwest::Response) -> Value {
    let text = body_text(response).await;
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("the body is not JSON ({e}): {text:?}"))
}

/// Reads the reply to a POSTed request, whether it came as JSON or as an SSE stream (in
/// which case the stream must end right after it).
pub async fn read_reply(response: reqwest::Response) -> Value {
    match content_type(&response).as_str() {
        "application/json" => body_json(response).await,
        "text/event-stream" => {
            let mut sse = SseStream::new(response);
            for _ in 0..100 {
                let (_, message) = sse.message().await;
                if message.get("result").is_some() || message.get("error").is_some() {
                    sse.assert_ends().await;
                    return message;
                }
            }
            panic!("no reply in 100 messages");
        }
        other => panic!("unexpected content type {other:?}"),
    }
}

/// The text of the first content block of a `tools/call` reply.
pub fn result_text(reply: &Value) -> &str {
    reply["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text result in {reply}"))
}

/// Asserts that a body is a JSON-RPC error without `id` with the given code.
pub fn assert_idless_error(body: &Value, code: i64) {
    assert_eq!(body["jsonrpc"], "2.0", "{body}");
    assert_eq!(body["error"]["code"], code, "{body}");
    assert!(body.get("id").is_none(), "an error about an unreadable request has no id: {body}");
}

// ---------------------------------------------------------------------------------------------
// The server under test
// ---------------------------------------------------------------------------------------------

/// Knobs the tools of [`test_server`] share with the test.
#[derive(Clone, Default)]
pub struct Probes {
    /// Lets one `slow` call finish (a permit is kept when nobody waits yet).
    pub release_slow: Arc<Notify>,
    /// How many `progress` calls ran to completion.
    pub progress_done: Arc<AtomicUsize>,
}

impl Probes {
    /// How many `progress` calls completed.
    pub fn progress_done(&self) -> usize {
        self.progress_done.load(Ordering::SeqCst)
    }
}

fn internal(e: impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(e.to_string())
}

fn schema(properties: Value) -> JsonObject {
    obj(json!({ "type": "object", "properties": properties }))
}

/// A server with these tools:
/// * `echo {text}`: answers `text` at once;
/// * `steps`: logs one message and reports progress twice, then answers `stepped`;
/// * `progress {count, delay_ms}`: reports progress `count` times, `delay_ms` apart, then
///   answers `done <count>`; counts its completions in [`Probes::progress_done`];
/// * `slow`: waits for [`Probes::release_slow`] (at most 20 s), then answers `slow done`;
/// * `ask`: elicits a name from the user and answers `action=<action> name=<name>`.
pub fn test_server() -> (Server, Probes) {
    test_server_with(None)
}

/// The test server, with task support when `tasks` is given (`progress` and `slow` may then
/// run as tasks).
pub fn test_server_with(tasks: Option<mcpweft::server::TaskOptions>) -> (Server, Probes) {
    let probes = Probes::default();
    let done = probes.progress_done.clone();
    let release = probes.release_slow.clone();
    let server = Server::builder(Implementation::new("http-test-server", "1.0.0"))
        .tool(
            Tool::new("echo", "Echoes text.", schema(json!({ "text": { "type": "string" } }))),
            |args: JsonObject, _ctx: RequestContext| async move {
                Ok(CallToolResult::text(args.get("text").and_then(Value::as_str).unwrap_or("").to_owned()))
            },
        )
        .tool(
            Tool::without_arguments("steps", "Logs and reports progress."),
            |_args: JsonObject, ctx: RequestContext| async move {
                ctx.log(LoggingLevel::Info, Some("steps"), "step one").map_err(internal)?;
                ctx.report_progress(1.0, Some(2.0), Some("half".into())).map_err(internal)?;
                ctx.report_progress(2.0, Some(2.0), Some("all".into())).map_err(internal)?;
                Ok(CallToolResult::text("stepped"))
            },
        )
        .tool(
            Tool::new(
                "progress",
                "Reports progress slowly.",
                schema(json!({ "count": { "type": "integer" }, "delay_ms": { "type": "integer" } })),
            ),
            move |args: JsonObject, ctx: RequestContext| {
                let done = done.clone();
                async move {
                    let count = args.get("count").and_then(Value::as_u64).unwrap_or(5);
                    let delay = Duration::from_millis(args.get("delay_ms").and_then(Value::as_u64).unwrap_or(50));
                    for i in 1..=count {
                        tokio::time::sleep(delay).await;
                        ctx.report_progress(i as f64, Some(count as f64), Some(format!("step {i}")))
                            .map_err(internal)?;
                    }
                    done.fetch_add(1, Ordering::SeqCst);
                    Ok(CallToolResult::text(format!("done {count}")))
                }
            },
        )
        .tool(Tool::without_arguments("slow", "Waits for the test."), move |_args: JsonObject, _ctx: RequestContext| {
            let release = release.clone();
            async move {
                let _ = tokio::time::timeout(Duration::from_secs(20), release.notified()).await;
                Ok(CallToolResult::text("slow done"))
            }
        })
        .tool(Tool::without_arguments("ask", "Elicits a name."), |_args: JsonObject, ctx: RequestContext| async move {
            let params: ElicitRequestParams = serde_json::from_value(json!({
                "mode": "form",
                "message": "What is your name?",
                "requestedSchema": {
                    "type": "object",
                    "properties": { "name": { "type": "string" } },
                    "required": ["name"]
                }
            }))
            .map_err(internal)?;
            let answer = ctx.elicit(params).await.map_err(internal)?;
            let answer = serde_json::to_value(&answer).map_err(internal)?;
            let name = answer["content"]["name"].as_str().unwrap_or("-").to_owned();
            let action = answer["action"].as_str().unwrap_or("-").to_owned();
            Ok(CallToolResult::text(format!("action={action} name={name}")))
        });
    let server = match tasks {
        Some(tasks) => server.tasks(tasks),
        None => server,
    };
    let server = server.build().expect("a valid server");
    (server, probes)
}

/// Binds the test server on 127.0.0.1:0 with `options`.
pub async fn bind(options: HttpServerOptions) -> (BoundHttpServer, Server, Probes, Mcp) {
    let (server, probes) = test_server();
    let addr = SocketAddr::from(([127, 0, 0, 1], 0));
    let bound = within(StreamableHttpServer::bind(server.clone(), addr, options)).await.expect("bind 127.0.0.1:0");
    let mcp = Mcp::new(bound.url());
    (bound, server, probes, mcp)
}

/// Binds the test server with default options.
pub async fn bind_default() -> (BoundHttpServer, Server, Probes, Mcp) {
    bind(HttpServerOptions::default()).await
}
