//! A traced client calls a traced server: the server's span has the client's as its parent,
//! across the trace context in `_meta`, and both carry the official SDK's names and attributes.

mod common;

use common::{attribute, keep_spans, traced_pair};
use mcpweft::ClientOptions;
use mcpweft_otel::OpenTelemetry;
use opentelemetry::trace::{SpanKind, Status};
use serde_json::json;

#[tokio::test]
async fn a_server_span_is_the_child_of_the_client_span_that_sent_its_request() {
    let (spans, provider) = keep_spans();
    let options = ClientOptions::new("traced-client", "1").with_middleware(OpenTelemetry::new());
    let client = traced_pair(options).await;
    client.call_tool("hello", json!({})).await.unwrap();
    let missing = client.call_tool("missing", json!({})).await.unwrap_err();
    let code = missing.rpc().expect("a JSON-RPC error").code;
    provider.force_flush().unwrap();

    let sent = spans.span("MCP send tools/call hello");
    let received = spans.span("tools/call hello");
    assert_eq!((sent.span_kind.clone(), received.span_kind.clone()), (SpanKind::Client, SpanKind::Server));
    assert_eq!(received.span_context.trace_id(), sent.span_context.trace_id());
    assert_eq!(received.parent_span_id, sent.span_context.span_id());
    assert!(received.parent_span_is_remote, "the parent came through _meta");
    assert_eq!(attribute(&received, "mcp.method.name").as_deref(), Some("tools/call"));
    assert_eq!(attribute(&received, "mcp.protocol.version").as_deref(), Some("2025-11-25"));
    assert_eq!(attribute(&received, "gen_ai.operation.name").as_deref(), Some("execute_tool"));
    assert_eq!(attribute(&received, "gen_ai.tool.name").as_deref(), Some("hello"));
    assert_eq!(attribute(&received, "jsonrpc.request.id"), attribute(&sent, "jsonrpc.request.id"));
    assert_eq!(received.status, Status::Unset);

    let failed = spans.span("tools/call missing");
    assert_eq!(attribute(&failed, "error.type"), Some(code.to_string()));
    assert_eq!(attribute(&failed, "rpc.response.status_code"), Some(code.to_string()));
    assert!(matches!(failed.status, Status::Error { .. }), "{:?}", failed.status);
    assert_eq!(spans.span("MCP send tools/call missing").parent_span_id, opentelemetry::trace::SpanId::INVALID);

    // The handshake is traced too, and a notification this side sends is not.
    spans.span("MCP send initialize");
    spans.span("initialize");
    spans.span("notifications/initialized");
    assert!(!spans.0.lock().unwrap().iter().any(|s| s.name == "MCP send notifications/initialized"));
}
