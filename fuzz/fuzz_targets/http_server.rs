//! The Streamable HTTP server, in process: any sequence of requests (method, headers, body,
//! session and event ids) gets an answer without a panic, and every session it opened ends.
//!
//! Input: a sequence of operations. Each is a method byte, a flags byte, a body-kind byte, a
//! text (one length byte, then the bytes) used as an id or a header value, then a body (one
//! length byte, then the bytes).

#![no_main]

use std::{sync::OnceLock, time::Duration};

use axum::{
    Router,
    body::Body,
    http::{Method, Request, Response},
};
use libfuzzer_sys::fuzz_target;
use mcpweft::{
    RequestContext, Server,
    http::{HttpServerOptions, StreamableHttpServer},
    model::{CallToolResult, Implementation, JsonObject, LoggingLevel, Tool},
};
use serde_json::json;
use tower::ServiceExt;

/// The runtime every input runs on: one thread, with a clock that jumps ahead when idle, so
/// that waiting for a stream that never ends costs nothing.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().expect("a runtime")
    })
}

/// A server with a tool that answers at once and one that logs, then waits, so that replies
/// are plain JSON or SSE streams with stored events.
fn server() -> Server {
    Server::builder(Implementation::new("fuzz", "1"))
        .tool(Tool::without_arguments("echo", "Answers at once."), |_args: JsonObject, _ctx: RequestContext| async {
            Ok(CallToolResult::text("echo"))
        })
        .tool(
            Tool::without_arguments("slow", "Logs, then waits."),
            |_args: JsonObject, ctx: RequestContext| async move {
                let _ = ctx.log(LoggingLevel::Info, None, "working");
                tokio::time::sleep(Duration::from_secs(1)).await;
                Ok(CallToolResult::text("slow"))
            },
        )
        .build()
        .expect("a valid server")
}

/// Reads bytes off the front of the input.
struct Input<'a>(&'a [u8]);

impl<'a> Input<'a> {
    fn byte(&mut self) -> Option<u8> {
        let (&b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(b)
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let len = usize::from(self.byte()?).min(self.0.len());
        let (taken, rest) = self.0.split_at(len);
        self.0 = rest;
        Some(taken)
    }
}

/// What the run learned: the session ids the server issued.
#[derive(Default)]
struct Known {
    sessions: Vec<String>,
}

async fn send(router: &Router, request: Request<Body>, known: &mut Known) -> u16 {
    let Ok(Ok(response)) = tokio::time::timeout(Duration::from_secs(5), router.clone().oneshot(request)).await else {
        return 0;
    };
    let status = response.status().as_u16();
    remember(&response, known);
    // Read what comes within a moment: an SSE stream may stay open.
    let _ =
        tokio::time::timeout(Duration::from_millis(1500), axum::body::to_bytes(response.into_body(), 1 << 20)).await;
    status
}

fn remember(response: &Response<Body>, known: &mut Known) {
    if let Some(id) = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok())
        && !known.sessions.iter().any(|s| s == id)
    {
        known.sessions.push(id.to_owned());
    }
}

fn request(method: Method) -> axum::http::request::Builder {
    Request::builder().method(method).uri("/mcp").header("host", "127.0.0.1:8080")
}

fn initialize() -> Request<Body> {
    let body = json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "fuzz", "version": "1" } } });
    request(Method::POST)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .expect("a valid request")
}

fn body_of(kind: u8, text: &[u8], raw: &[u8]) -> Vec<u8> {
    let number = text.iter().fold(0i64, |n, b| n.wrapping_mul(31).wrapping_add(i64::from(*b)));
    let text = String::from_utf8_lossy(text);
    let message = match kind % 8 {
        1 => json!({ "jsonrpc": "2.0", "id": number, "method": "tools/call", "params": { "name": "echo" } }),
        2 => json!({ "jsonrpc": "2.0", "id": number % 4, "method": "tools/call", "params": { "name": "slow" } }),
        3 => json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": number % 4 } }),
        4 => json!({ "jsonrpc": "2.0", "id": text, "method": "ping" }),
        5 => json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
        6 => json!({ "jsonrpc": "2.0", "id": number, "method": "initialize", "params": {
            "protocolVersion": text, "capabilities": {}, "clientInfo": { "name": "fuzz", "version": "1" } } }),
        _ => return raw.to_vec(),
    };
    message.to_string().into_bytes()
}

async fn run(router: &Router, data: &[u8]) {
    let mut known = Known::default();
    send(router, initialize(), &mut known).await;
    let mut input = Input(data);
    for _ in 0..16 {
        let (Some(method), Some(flags), Some(kind), Some(text), Some(raw)) =
            (input.byte(), input.byte(), input.byte(), input.bytes(), input.bytes())
        else {
            break;
        };
        let method = match method % 5 {
            0 | 1 => Method::POST,
            2 => Method::GET,
            3 => Method::DELETE,
            _ => Method::PUT,
        };
        let mut builder = request(method);
        let text_str = String::from_utf8_lossy(text);
        let session = known.sessions.get(usize::from(flags >> 6) % known.sessions.len().max(1)).cloned();
        match (flags & 1 != 0, session) {
            (true, Some(id)) => builder = builder.header("mcp-session-id", id),
            _ if flags & 2 != 0 => builder = builder.header("mcp-session-id", text_str.as_ref()),
            _ => {}
        }
        if flags & 4 != 0 {
            let version = if flags & 2 != 0 { "2025-06-18" } else { "2025-11-25" };
            builder = builder.header("mcp-protocol-version", version);
        }
        if flags & 8 != 0 {
            // A stream id and a sequence number from the text, the largest one included.
            let seq = if text.first() == Some(&0xff) { u64::MAX } else { u64::from(text.len() as u8) };
            builder = builder.header("last-event-id", format!("{}_{seq}", kind % 4));
        }
        if flags & 16 == 0 {
            builder = builder.header("accept", "application/json, text/event-stream");
        }
        if flags & 32 == 0 {
            builder = builder.header("content-type", "application/json");
        }
        let Ok(request) = builder.body(Body::from(body_of(kind, text, raw))) else { continue };
        send(router, request, &mut known).await;
    }
    for id in known.sessions {
        let request = request(Method::DELETE).header("mcp-session-id", id).body(Body::empty()).expect("a request");
        send(router, request, &mut Known::default()).await;
    }
}

fuzz_target!(|data: &[u8]| {
    static SERVER: OnceLock<Server> = OnceLock::new();
    let server = SERVER.get_or_init(server).clone();
    runtime().block_on(async move {
        let http = StreamableHttpServer::new(server, HttpServerOptions::default());
        let router = http.router();
        run(&router, data).await;
        assert_eq!(http.session_count(), 0, "a session outlived its DELETE");
    });
});
