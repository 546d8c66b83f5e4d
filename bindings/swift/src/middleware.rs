//! Middleware written in Swift, the rest of a chain as Swift awaits it, and the OpenTelemetry
//! exporter of the Rust crates (Swift has no OpenTelemetry SDK of its own here).

use std::sync::Arc;

use async_trait::async_trait;
use mcpweft_bridge::{ClientCallbacks, Error, MiddlewareCallback, Next, to_json_text};
use serde_json::Value;

use crate::{
    NativeCall, NativeCancelHandle, NativeReply,
    error::{Result, parse},
    runtime::cancellable,
    server::answer,
};

/// A middleware written in Swift: it starts handling one message from its JSON text (`method`,
/// `params`, `isRequest`, `id`, `direction`, `role`, `sessionId`, `protocolVersion`,
/// `identity`, `target`) and the rest of the chain, and answers through `reply` with the JSON
/// text of the outcome (a request's result; anything for a notification) or an error, whose
/// JSON-RPC code fails the message with that code.
///
/// `start` returns the running call, or `None` when it has answered already; dropping the call
/// on the Rust side (the message's request was cancelled) cancels it.
#[uniffi::export(with_foreign)]
pub trait NativeMiddleware: Send + Sync {
    /// Starts handling a message.
    fn start(&self, message: String, next: Arc<NativeNext>, reply: Arc<NativeReply>) -> Option<Arc<dyn NativeCall>>;
}

/// The rest of the chain, handed to a Swift middleware with each message.
#[derive(uniffi::Object)]
pub struct NativeNext {
    inner: Next,
}

#[uniffi::export]
impl NativeNext {
    /// Passes the JSON text of a message on (the one the middleware received, its `method` and
    /// `params` changed or not) and returns the JSON text of the outcome. It may be called more
    /// than once, to retry.
    pub async fn run(&self, message: String, cancel: Option<Arc<NativeCancelHandle>>) -> Result<String> {
        let message = parse(&message, "the middleware's message")?;
        Ok(to_json_text(&cancellable(self.inner.run(message), cancel).await?))
    }
}

/// One middleware of a client's or a host's chain, in the order given.
#[derive(uniffi::Enum)]
pub enum NativeMiddlewareEntry {
    /// A middleware written in Swift.
    Swift {
        /// The middleware.
        middleware: Arc<dyn NativeMiddleware>,
    },
    /// One of the core's built-in middleware.
    Builtin {
        /// The JSON text of its settings, as `NativeServer::add_builtin_middleware` reads them.
        spec: String,
    },
}

impl NativeMiddlewareEntry {
    /// Adds the middleware to `callbacks`, inside those already added.
    pub(crate) fn add_to(self, callbacks: ClientCallbacks) -> Result<ClientCallbacks> {
        Ok(match self {
            NativeMiddlewareEntry::Swift { middleware } => callbacks.with_middleware(callback(middleware)),
            NativeMiddlewareEntry::Builtin { spec } => {
                callbacks.with_builtin_middleware(parse(&spec, "the built-in middleware")?)?
            }
        })
    }
}

/// Adapts a Swift middleware to the bridge's middleware shape.
struct Foreign(Arc<dyn NativeMiddleware>);

#[async_trait]
impl MiddlewareCallback for Foreign {
    async fn handle(&self, message: Value, next: Next) -> std::result::Result<Value, Error> {
        let next = Arc::new(NativeNext { inner: next });
        answer("middleware", |reply| self.0.start(to_json_text(&message), next, reply)).await
    }
}

/// The bridge's middleware that runs the Swift `middleware`.
pub(crate) fn callback(middleware: Arc<dyn NativeMiddleware>) -> Arc<dyn MiddlewareCallback> {
    Arc::new(Foreign(middleware))
}

/// Sends the spans of the `openTelemetry` built-in middleware to the OTLP/HTTP collector at
/// `endpoint` (its traces URL), naming the process `service_name`; `openTelemetry` middleware
/// record with the exporter installed last, whenever they were added.
#[uniffi::export]
pub fn native_export_otlp(endpoint: String, service_name: String) -> Result<()> {
    Ok(mcpweft_bridge::export_otlp(&endpoint, &service_name)?)
}

/// Exports the spans recorded so far and returns once the collector took them.
#[uniffi::export]
pub fn native_flush_telemetry() -> Result<()> {
    Ok(mcpweft_bridge::flush_telemetry()?)
}
