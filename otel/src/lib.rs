//! OpenTelemetry for mcpweft: a middleware that records a span around every MCP message, as
//! the official Python SDK 2.x does, with the same names and attributes so that traces of both
//! look the same.
//!
//! - What a server or client **receives** gets a server span, whose parent is the W3C trace
//!   context the peer put in the message's `_meta` (`traceparent`, `tracestate`), or else the
//!   current context.
//! - A request it **sends** gets a client span, whose context goes into the request's `_meta`.
//!
//! The names and attributes come from [`mcpweft::middleware::telemetry`], which the Python and
//! Node packages use with their own OpenTelemetry SDKs. Spans go to the tracer provider the
//! application installs (`opentelemetry::global::set_tracer_provider`, with the exporter it
//! chooses), or to an OTLP/HTTP collector through [`export_otlp`]; this crate links nothing when
//! it is not used.
//!
//! ```no_run
//! use mcpweft::{Server, model::Implementation};
//! use mcpweft_otel::OpenTelemetry;
//!
//! let server = Server::builder(Implementation::new("traced", "1.0.0")).middleware(OpenTelemetry::new()).build();
//! ```

#[cfg(feature = "otlp")]
mod otlp;

#[cfg(feature = "otlp")]
pub use otlp::{ExportError, export_otlp, flush};

use async_trait::async_trait;
use mcpweft::{
    Error,
    middleware::{
        Message, Middleware, Next,
        telemetry::{self, SpanKind as Kind},
    },
};
use opentelemetry::{
    Context, KeyValue, global,
    propagation::{Extractor, Injector, TextMapPropagator},
    trace::{FutureExt as _, SpanKind, Status, TraceContextExt, Tracer},
};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use serde_json::{Map, Value};

/// The name of the tracer the middleware asks the global provider for, unless given one.
pub const TRACER_NAME: &str = "mcpweft";

/// Records a span around every message of a session, and carries the trace context in
/// `_meta` (the W3C `traceparent` and `tracestate`): add it to a server with
/// `ServerBuilder::middleware` or to a client with `ClientOptions::with_middleware`.
pub struct OpenTelemetry {
    /// The tracer given, or `None` for the global provider's, looked up for each message so
    /// that a provider installed later (by [`export_otlp`] or the application) is the one used.
    tracer: Option<global::BoxedTracer>,
    propagator: TraceContextPropagator,
}

impl std::fmt::Debug for OpenTelemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenTelemetry").finish_non_exhaustive()
    }
}

impl Default for OpenTelemetry {
    fn default() -> Self {
        Self::new()
    }
}

impl OpenTelemetry {
    /// Records spans with the tracer named [`TRACER_NAME`] of the global provider in force when
    /// each message passes, whenever it was installed.
    pub fn new() -> Self {
        OpenTelemetry { tracer: None, propagator: TraceContextPropagator::new() }
    }

    /// Records spans with `tracer`.
    pub fn with_tracer(tracer: global::BoxedTracer) -> Self {
        OpenTelemetry { tracer: Some(tracer), propagator: TraceContextPropagator::new() }
    }

    /// The parent of a received message's span: the trace context in its `_meta` when it
    /// carries a valid one, else the current context.
    fn parent(&self, message: &Message) -> Context {
        let extracted = self.propagator.extract(&MetaReader(message.meta()));
        if extracted.span().span_context().is_valid() { extracted } else { Context::current() }
    }
}

#[async_trait]
impl Middleware for OpenTelemetry {
    async fn handle(&self, mut message: Message, next: Next) -> Result<Value, Error> {
        let Some(plan) = telemetry::plan(&message) else { return next.run(message).await };
        let (kind, parent) = match plan.kind {
            Kind::Server => (SpanKind::Server, self.parent(&message)),
            Kind::Client => (SpanKind::Client, Context::current()),
        };
        let attributes = plan.attributes.into_iter().map(|(key, value)| KeyValue::new(key, value));
        let global;
        let tracer = match &self.tracer {
            Some(tracer) => tracer,
            None => {
                global = global::tracer(TRACER_NAME);
                &global
            }
        };
        let span = tracer
            .span_builder(plan.name)
            .with_kind(kind)
            .with_attributes(attributes)
            .start_with_context(tracer, &parent);
        let context = parent.with_span(span);
        if plan.kind == Kind::Client {
            self.propagator.inject_context(&context, &mut MetaWriter(message.meta_mut()));
        }
        let method = message.method.clone();
        let outcome = next.run(message).with_context(context.clone()).await;
        let recorded = telemetry::outcome(&method, &outcome);
        let span = context.span();
        for (key, value) in recorded.attributes {
            span.set_attribute(KeyValue::new(key, value));
        }
        if let Some(description) = recorded.error {
            span.set_status(Status::error(description));
        }
        span.end();
        outcome
    }
}

/// Reads the trace context from a message's `_meta`.
struct MetaReader<'a>(Option<&'a Map<String, Value>>);

impl Extractor for MetaReader<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0?.get(key)?.as_str()
    }

    fn keys(&self) -> Vec<&str> {
        self.0.map(|meta| meta.keys().map(String::as_str).collect()).unwrap_or_default()
    }
}

/// Writes the trace context into a message's `_meta`.
struct MetaWriter<'a>(&'a mut Map<String, Value>);

impl Injector for MetaWriter<'_> {
    fn set(&mut self, key: &str, value: String) {
        self.0.insert(key.to_owned(), Value::String(value));
    }
}
