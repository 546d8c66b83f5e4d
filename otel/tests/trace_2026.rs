//! At revision 2026-07-28, whose requests carry no session, a traced client's span is the parent
//! of the traced server's as at 2025-11-25: the trace context rides in `_meta` beside the
//! revision's own keys. (A file of its own: each test binary installs one global provider.)

mod common;

use common::{attribute, keep_spans, traced_pair};
use mcpweft::{ClientOptions, model::STATELESS_PROTOCOL_VERSION};
use mcpweft_otel::OpenTelemetry;
use opentelemetry::trace::{SpanKind, Status};
use serde_json::json;

#[tokio::test]
async fn at_2026_07_28_the_server_span_is_the_child_of_the_client_span() {
    let (spans, provider) = keep_spans();
    let options = ClientOptions::new("traced-client", "1")
        .with_protocol_version(STATELESS_PROTOCOL_VERSION)
        .with_middleware(OpenTelemetry::new());
    let client = traced_pair(options).await;
    assert_eq!(client.protocol_version(), STATELESS_PROTOCOL_VERSION);
    client.call_tool("hello", json!({})).await.unwrap();
    provider.force_flush().unwrap();

    let sent = spans.span("MCP send tools/call hello");
    let received = spans.span("tools/call hello");
    assert_eq!((sent.span_kind.clone(), received.span_kind.clone()), (SpanKind::Client, SpanKind::Server));
    assert_eq!(received.span_context.trace_id(), sent.span_context.trace_id());
    assert_eq!(received.parent_span_id, sent.span_context.span_id());
    assert_eq!(attribute(&received, "mcp.protocol.version").as_deref(), Some(STATELESS_PROTOCOL_VERSION));
    assert_eq!(attribute(&received, "gen_ai.tool.name").as_deref(), Some("hello"));
    assert_eq!(received.status, Status::Unset);
    spans.span("MCP send server/discover");
}
