//! What a trace of MCP messages says, written once for every language: the span of each
//! message (name, kind, attributes) and of its outcome, with the names the official Python SDK
//! 2.x uses, so that traces of both look the same; and where the W3C trace context travels
//! (`traceparent` and `tracestate` in `_meta`, in both revisions).
//!
//! Each language's OpenTelemetry middleware (the Rust one behind the feature `otel`, Python's
//! and Node's over their own SDKs) asks this module what to record and records it.

use serde_json::Value;

use super::{Direction, Message};
use crate::{Error, jsonrpc::RequestId};

/// The `_meta` key of the W3C trace context's `traceparent`.
pub const TRACEPARENT: &str = "traceparent";
/// The `_meta` key of the W3C trace context's `tracestate`.
pub const TRACESTATE: &str = "tracestate";

/// The kind of a span, as OpenTelemetry names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpanKind {
    /// A message this side received: its parent is the trace context in its `_meta`.
    Server,
    /// A request this side sends: its trace context goes into its `_meta`.
    Client,
}

impl SpanKind {
    /// Returns the kind's name: `server` or `client`.
    pub fn as_str(self) -> &'static str {
        match self {
            SpanKind::Server => "server",
            SpanKind::Client => "client",
        }
    }
}

/// The span to record around one message.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct SpanPlan {
    /// The span's name: `"{method} {target}"` for what is received, `"MCP send {method}
    /// {target}"` for what is sent, the target being the tool or prompt name when there is one.
    pub name: String,
    /// Whether the span is a server's or a client's.
    pub kind: SpanKind,
    /// The attributes known before the outcome, in a stable order.
    pub attributes: Vec<(&'static str, String)>,
}

/// What a span records of a message's outcome.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct OutcomePlan {
    /// Attributes to add (`error.type`, `rpc.response.status_code`).
    pub attributes: Vec<(&'static str, String)>,
    /// Whether the span's status is an error, and its description (possibly empty).
    pub error: Option<String>,
}

/// The name of the tool or prompt a message is about, as span names give it.
fn named_target(message: &Message) -> Option<&str> {
    message.params.as_ref()?.get("name")?.as_str()
}

/// The span to record around `message`, or `None` for one that gets no span (a notification
/// this side sends).
pub fn plan(message: &Message) -> Option<SpanPlan> {
    let target = named_target(message);
    let suffix = target.map(|t| format!(" {t}")).unwrap_or_default();
    let method = message.method.as_str();
    let mut attributes = vec![("mcp.method.name", method.to_owned())];
    let id = message.id.as_ref().map(|id| match id {
        RequestId::Number(n) => n.to_string(),
        RequestId::String(s) => s.clone(),
    });
    match message.direction {
        Direction::Received => {
            if let Some(version) = &message.protocol_version {
                attributes.push(("mcp.protocol.version", version.clone()));
            }
            if let Some(id) = id {
                attributes.push(("jsonrpc.request.id", id));
            }
            match (method, target) {
                ("tools/call", target) => {
                    attributes.push(("gen_ai.operation.name", "execute_tool".to_owned()));
                    if let Some(tool) = target {
                        attributes.push(("gen_ai.tool.name", tool.to_owned()));
                    }
                }
                ("prompts/get", Some(prompt)) => attributes.push(("gen_ai.prompt.name", prompt.to_owned())),
                _ => {}
            }
            Some(SpanPlan { name: format!("{method}{suffix}"), kind: SpanKind::Server, attributes })
        }
        Direction::Sent if message.is_request => {
            if let Some(id) = id {
                attributes.push(("jsonrpc.request.id", id));
            }
            Some(SpanPlan { name: format!("MCP send {method}{suffix}"), kind: SpanKind::Client, attributes })
        }
        Direction::Sent => None,
    }
}

/// What the span of a message of `method` records of its `outcome`: a JSON-RPC error's code as
/// `error.type` and `rpc.response.status_code`, a local failure's kind as `error.type`, and a
/// tool result marked `isError` as `error.type` `tool_error`; each with an error status.
pub fn outcome(method: &str, outcome: &Result<Value, Error>) -> OutcomePlan {
    match outcome {
        Ok(result) => {
            let tool_error = method == "tools/call" && result.get("isError") == Some(&Value::Bool(true));
            if tool_error {
                OutcomePlan { attributes: vec![("error.type", "tool_error".to_owned())], error: Some(String::new()) }
            } else {
                OutcomePlan::default()
            }
        }
        Err(Error::Rpc(error)) => {
            let code = error.code.to_string();
            OutcomePlan {
                attributes: vec![("error.type", code.clone()), ("rpc.response.status_code", code)],
                error: Some(error.message.clone()),
            }
        }
        Err(other) => OutcomePlan {
            attributes: vec![("error.type", local_kind(other).to_owned())],
            error: Some(other.to_string()),
        },
    }
}

/// A short, stable name of a local failure's kind.
fn local_kind(error: &Error) -> &'static str {
    match error {
        Error::Timeout(_) => "timeout",
        Error::Cancelled => "cancelled",
        Error::TransportClosed | Error::Disconnected(_) => "transport_closed",
        Error::QueueFull => "queue_full",
        _ => "internal",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::ErrorData;

    #[test]
    fn a_received_tool_call_is_named_as_the_official_sdk_names_it() {
        let mut message = Message::new("tools/call", Some(json!({"name": "add", "arguments": {}})), true);
        message.id = Some(RequestId::Number(7));
        message.protocol_version = Some("2025-11-25".into());
        let plan = plan(&message).expect("a span");
        assert_eq!(plan.name, "tools/call add");
        assert_eq!(plan.kind, SpanKind::Server);
        assert_eq!(
            plan.attributes,
            [
                ("mcp.method.name", "tools/call".to_owned()),
                ("mcp.protocol.version", "2025-11-25".to_owned()),
                ("jsonrpc.request.id", "7".to_owned()),
                ("gen_ai.operation.name", "execute_tool".to_owned()),
                ("gen_ai.tool.name", "add".to_owned()),
            ]
        );
        let failed = outcome("tools/call", &Err(Error::Rpc(ErrorData::new(-32602, "bad"))));
        assert_eq!(failed.error.as_deref(), Some("bad"));
        assert_eq!(failed.attributes[1], ("rpc.response.status_code", "-32602".to_owned()));
        let tool_error = outcome("tools/call", &Ok(json!({"content": [], "isError": true})));
        assert_eq!(tool_error.attributes, [("error.type", "tool_error".to_owned())]);
    }

    #[test]
    fn a_sent_request_is_a_client_span_and_a_sent_notification_has_none() {
        let mut message = Message::new("prompts/get", Some(json!({"name": "greet"})), true);
        message.direction = Direction::Sent;
        message.id = Some(RequestId::Number(3));
        let plan = plan(&message).expect("a span");
        assert_eq!((plan.name.as_str(), plan.kind), ("MCP send prompts/get greet", SpanKind::Client));
        assert_eq!(plan.attributes[1], ("jsonrpc.request.id", "3".to_owned()));
        message.is_request = false;
        assert_eq!(super::plan(&message), None);
    }
}
