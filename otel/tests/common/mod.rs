//! What the trace tests share: an exporter that keeps the spans, and reading their attributes.

use std::{
    future::Future,
    sync::{Arc, Mutex},
};

use mcpweft::{
    Client, ClientOptions, Server,
    model::{CallToolResult, Implementation, JsonObject, Tool},
    transport::memory_pair,
};
use mcpweft_otel::OpenTelemetry;
use opentelemetry::KeyValue;
use opentelemetry_sdk::{
    error::OTelSdkResult,
    trace::{SdkTracerProvider, SpanData, SpanExporter},
};

/// Keeps every exported span.
#[derive(Clone, Debug, Default)]
pub struct Collect(pub Arc<Mutex<Vec<SpanData>>>);

impl SpanExporter for Collect {
    fn export(&self, batch: Vec<SpanData>) -> impl Future<Output = OTelSdkResult> + Send {
        self.0.lock().unwrap().extend(batch);
        std::future::ready(Ok(()))
    }
}

impl Collect {
    /// The span named `name`.
    pub fn span(&self, name: &str) -> SpanData {
        let spans = self.0.lock().unwrap();
        let names: Vec<_> = spans.iter().map(|s| s.name.to_string()).collect();
        spans.iter().find(|s| s.name == name).cloned().unwrap_or_else(|| panic!("no span {name} in {names:?}"))
    }
}

/// The value of the attribute `key` of `span`, as a string.
pub fn attribute(span: &SpanData, key: &str) -> Option<String> {
    span.attributes.iter().find(|kv: &&KeyValue| kv.key.as_str() == key).map(|kv| kv.value.to_string())
}

/// Makes the process's global tracer provider one that keeps every span, returning both.
pub fn keep_spans() -> (Collect, SdkTracerProvider) {
    let spans = Collect::default();
    let provider = SdkTracerProvider::builder().with_simple_exporter(spans.clone()).build();
    opentelemetry::global::set_tracer_provider(provider.clone());
    (spans, provider)
}

/// Connects a client with `options` to a traced server whose tool `hello` says hello, over an
/// in-memory pair.
pub async fn traced_pair(options: ClientOptions) -> Client {
    let tool = Tool::without_arguments("hello", "Says hello.");
    let server = Server::builder(Implementation::new("traced", "1"))
        .tool(tool, |_args: JsonObject, _ctx| async { Ok(CallToolResult::text("hello")) })
        .middleware(OpenTelemetry::new())
        .build()
        .unwrap();
    let (client_side, server_side) = memory_pair();
    server.serve(server_side);
    Client::connect(client_side, options).await.unwrap()
}
