//! What the trace tests share: an exporter that keeps the spans, and reading their attributes.

use std::{
    future::Future,
    sync::{Arc, Mutex},
};

use opentelemetry::KeyValue;
use opentelemetry_sdk::{
    error::OTelSdkResult,
    trace::{SpanData, SpanExporter},
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
