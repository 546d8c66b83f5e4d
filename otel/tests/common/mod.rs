//! What the trace tests share: an exporter that keeps the spans, reading their attributes, and
//! the traced client and server (`pair.rs`, which the OTLP test uses alone).

use std::{
    future::Future,
    sync::{Arc, Mutex},
};

use opentelemetry::KeyValue;
use opentelemetry_sdk::{
    error::OTelSdkResult,
    trace::{SdkTracerProvider, SpanData, SpanExporter},
};

mod pair;

pub use pair::traced_pair;

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
