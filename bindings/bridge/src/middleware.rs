//! Middleware written in another language, and the core's built-in middleware from JSON.
//!
//! A foreign middleware receives each message as JSON and a [`Next`] to pass it on; what it
//! returns is the outcome, and the error it raises fails the message with its JSON-RPC code.
//! The semantics (order, direction, what may be changed) are the core's, so every language
//! behaves the same.

use std::{sync::Arc, time::Duration};

use async_trait::async_trait;
use mcpweft::middleware::{
    self as core, Cache, CacheOptions, Direction, Message, RateLimit, RateLimitKey, Role, Timing, telemetry,
};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::{Error, Task, server::parse};

/// A middleware written in another language: the message as JSON and the rest of the chain
/// in, the outcome (a request's result; anything for a notification) or an error out.
///
/// The message is `{"method", "params", "isRequest", "id", "direction": "received" | "sent",
/// "role": "server" | "client", "sessionId", "protocolVersion", "identity", "target"}`, where
/// `target` is the tool, prompt, resource URI or task the message is about.
#[async_trait]
pub trait MiddlewareCallback: Send + Sync + 'static {
    /// Handles one message.
    async fn handle(&self, message: Value, next: Next) -> Result<Value, Error>;
}

#[async_trait]
impl<F, Fut> MiddlewareCallback for F
where
    F: Fn(Value, Next) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Value, Error>> + Send + 'static,
{
    async fn handle(&self, message: Value, next: Next) -> Result<Value, Error> {
        self(message, next).await
    }
}

/// The rest of the chain, handed to a foreign middleware with each message.
#[derive(Clone, Debug)]
pub struct Next {
    inner: core::Next,
    message: Arc<Message>,
}

impl Next {
    /// Passes the message on and yields the outcome: `message` is the JSON the middleware
    /// received, changed or not. Its `method` and `params` are taken (`params` absent or
    /// `null`: none); the other fields describe the message and are not read. It may be called
    /// more than once, to retry.
    pub fn run(&self, message: Value) -> Task<Value> {
        let passed = changed(&self.message, message);
        let inner = self.inner.clone();
        Task::new(async move { Ok(inner.run(passed?).await?) })
    }
}

/// The message `json` says, over the `original` it was made from.
fn changed(original: &Message, json: Value) -> Result<Message, Error> {
    let Value::Object(mut json) = json else {
        return Err(Error::invalid_input("a middleware passes on the message object it received"));
    };
    let mut message = original.clone();
    match json.remove("method") {
        Some(Value::String(method)) => message.method = method,
        None => {}
        Some(_) => return Err(Error::invalid_input("a message's method is a string")),
    }
    match json.remove("params") {
        None | Some(Value::Null) => message.params = None,
        Some(params @ Value::Object(_)) => message.params = Some(params),
        Some(_) => return Err(Error::invalid_input("a message's params are an object or null")),
    }
    Ok(message)
}

/// The JSON a foreign middleware receives for `message`.
fn message_json(message: &Message) -> Value {
    json!({
        "method": message.method,
        "params": message.params,
        "isRequest": message.is_request,
        "id": message.id,
        "direction": message.direction.as_str(),
        "role": message.role.as_str(),
        "sessionId": message.session_id,
        "protocolVersion": message.protocol_version,
        "identity": message.identity,
        "target": message.target(),
    })
}

/// A foreign middleware as the core's chain runs it.
struct Foreign(Arc<dyn MiddlewareCallback>);

#[async_trait]
impl core::Middleware for Foreign {
    async fn handle(&self, message: Message, next: core::Next) -> Result<Value, mcpweft::Error> {
        let json = message_json(&message);
        let next = Next { inner: next, message: Arc::new(message) };
        self.0.handle(json, next).await.map_err(|e| mcpweft::Error::Rpc(e.to_error_data()))
    }
}

/// The core middleware that runs `callback`.
pub(crate) fn foreign(callback: Arc<dyn MiddlewareCallback>) -> Arc<dyn core::Middleware> {
    Arc::new(Foreign(callback))
}

/// The settings of the built-in rate limit, as JSON.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RateLimitSpec {
    per_second: f64,
    burst: Option<u32>,
    per: Option<String>,
}

/// The settings of the built-in cache, as JSON.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct CacheSpec {
    default_ttl_ms: Option<u64>,
    max_ttl_ms: Option<u64>,
    max_entries: Option<usize>,
    methods: Option<Vec<String>>,
}

/// One of the core's built-in middleware from its JSON: `{"timing": {}}`, `{"rateLimit":
/// {"perSecond", "burst", "per": "caller" | "session" | "global"}}` (burst defaults to one
/// second's worth, at least 1), `{"cache": {"defaultTtlMs", "maxTtlMs", "maxEntries",
/// "methods"}}`, or, with the feature `otel`, `{"openTelemetry": {}}` (spans through the Rust
/// OpenTelemetry crates, exported by `export_otlp`).
pub(crate) fn builtin(spec: Value) -> Result<Arc<dyn core::Middleware>, Error> {
    let Value::Object(spec) = spec else {
        return Err(Error::invalid_input(
            "a built-in middleware is an object with one key: timing, rateLimit or cache",
        ));
    };
    let mut entries = spec.into_iter();
    let (Some((name, settings)), None) = (entries.next(), entries.next()) else {
        return Err(Error::invalid_input(
            "a built-in middleware is an object with one key: timing, rateLimit or cache",
        ));
    };
    match name.as_str() {
        "timing" => Ok(Arc::new(Timing)),
        "rateLimit" => {
            let spec: RateLimitSpec = parse(settings, "rateLimit middleware")?;
            if !(spec.per_second.is_finite() && spec.per_second > 0.0) {
                return Err(Error::invalid_input("rateLimit.perSecond is a positive number"));
            }
            let key = match spec.per.as_deref() {
                None | Some("caller") => RateLimitKey::Caller,
                Some("session") => RateLimitKey::Session,
                Some("global") => RateLimitKey::Global,
                Some(other) => {
                    return Err(Error::invalid_input(format!(
                        "rateLimit.per is caller, session or global, not {other:?}"
                    )));
                }
            };
            let burst = spec.burst.unwrap_or_else(|| spec.per_second.ceil().min(f64::from(u32::MAX)) as u32);
            Ok(Arc::new(RateLimit::new(spec.per_second, burst.max(1)).per(key)))
        }
        "cache" => {
            let spec: CacheSpec = parse(settings, "cache middleware")?;
            let mut options = CacheOptions::new();
            if let Some(ms) = spec.default_ttl_ms {
                options = options.with_default_ttl(Duration::from_millis(ms));
            }
            if let Some(ms) = spec.max_ttl_ms {
                options = options.with_max_ttl(Duration::from_millis(ms));
            }
            if let Some(entries) = spec.max_entries {
                options = options.with_max_entries(entries);
            }
            if let Some(methods) = spec.methods {
                options = options.with_methods(methods);
            }
            Ok(Arc::new(Cache::new(options)))
        }
        #[cfg(feature = "otel")]
        "openTelemetry" => {
            let _: serde_json::Map<String, Value> = parse(settings, "openTelemetry middleware")?;
            Ok(Arc::new(mcpweft_otel::OpenTelemetry::new()))
        }
        other => Err(Error::invalid_input(format!(
            "unknown built-in middleware {other:?}: timing, rateLimit, cache{}",
            if cfg!(feature = "otel") { " or openTelemetry" } else { "" }
        ))),
    }
}

/// The message a foreign middleware describes in `json` (the shape it receives).
fn message_from_json(json: &Value) -> Result<Message, Error> {
    let text = |key: &str| json.get(key).and_then(Value::as_str).map(str::to_owned);
    let method = text("method").ok_or_else(|| Error::invalid_input("a message has a method"))?;
    let params = json.get("params").filter(|p| p.is_object()).cloned();
    let is_request = json.get("isRequest").and_then(Value::as_bool).unwrap_or(true);
    let mut message = Message::new(method, params, is_request);
    message.id = json.get("id").and_then(|id| serde_json::from_value(id.clone()).ok());
    message.direction =
        if text("direction").as_deref() == Some("sent") { Direction::Sent } else { Direction::Received };
    message.role = if text("role").as_deref() == Some("client") { Role::Client } else { Role::Server };
    message.session_id = text("sessionId");
    message.protocol_version = text("protocolVersion");
    message.identity = text("identity");
    Ok(message)
}

/// The span a language's OpenTelemetry middleware records around `message` (the JSON a
/// middleware receives): `{"name", "kind": "server" | "client", "attributes": {...}}` with the
/// official SDK's names, or `null` for a message that gets none (a notification this side
/// sends). A server span's parent is the trace context in the message's `_meta`; a client
/// span's context goes into it.
pub fn telemetry_span(message: &Value) -> Result<Value, Error> {
    let Some(plan) = telemetry::plan(&message_from_json(message)?) else { return Ok(Value::Null) };
    let attributes: serde_json::Map<String, Value> =
        plan.attributes.into_iter().map(|(key, value)| (key.to_owned(), Value::String(value))).collect();
    Ok(json!({ "name": plan.name, "kind": plan.kind.as_str(), "attributes": attributes }))
}

/// What the span of a message of `method` records of its outcome: `outcome` is `{"result"}` or
/// `{"error"}` (the error's JSON, as every binding receives it: `kind`, `code`, `message`).
/// Returns `{"attributes": {...}, "error": null | description}`; a non-null `error` makes the
/// span's status an error.
pub fn telemetry_outcome(method: &str, outcome: &Value) -> Value {
    let error = outcome.get("error");
    let plan = match error {
        Some(error) => telemetry::outcome(method, &Err(local_or_rpc(error))),
        None => telemetry::outcome(method, &Ok(outcome.get("result").cloned().unwrap_or(Value::Null))),
    };
    let attributes: serde_json::Map<String, Value> =
        plan.attributes.into_iter().map(|(key, value)| (key.to_owned(), Value::String(value))).collect();
    // A failure is described by its own message, as the binding's error carries it.
    let description = match error {
        Some(error) => Some(error.get("message").and_then(Value::as_str).unwrap_or_default().to_owned()),
        None => plan.error,
    };
    json!({ "attributes": attributes, "error": description })
}

/// The core error an error's JSON stands for, as far as a span tells them apart.
fn local_or_rpc(error: &Value) -> mcpweft::Error {
    let message = error.get("message").and_then(Value::as_str).unwrap_or_default().to_owned();
    if let Some(code) = error.get("code").and_then(Value::as_i64) {
        return mcpweft::Error::Rpc(mcpweft::ErrorData::new(code, message));
    }
    match error.get("kind").and_then(Value::as_str) {
        Some("timeout") => mcpweft::Error::Timeout(Duration::ZERO),
        Some("cancelled") => mcpweft::Error::Cancelled,
        Some("transport_closed") => mcpweft::Error::TransportClosed,
        _ => mcpweft::Error::Protocol(message),
    }
}

/// Sends the spans of the `openTelemetry` middleware to the OTLP/HTTP collector at `endpoint`
/// (its traces URL), naming the process `service_name` (feature `otel`).
#[cfg(feature = "otel")]
pub fn export_otlp(endpoint: &str, service_name: &str) -> Result<(), Error> {
    mcpweft_otel::export_otlp(endpoint, service_name).map_err(|e| Error::invalid_input(e.0))
}

/// Exports the spans recorded so far and waits until the collector took them (feature `otel`).
#[cfg(feature = "otel")]
pub fn flush_telemetry() -> Result<(), Error> {
    mcpweft_otel::flush().map_err(|e| Error::internal(e.0))
}
