//! Exporting spans over OTLP/HTTP (feature `otlp`, on by default): the one call that installs a
//! batching exporter as the process's tracer provider, for applications (and the Swift package)
//! that set up no OpenTelemetry SDK of their own.

use std::sync::{Mutex, OnceLock};

use opentelemetry::global;
use opentelemetry_otlp::{SpanExporter, WithExportConfig as _};
use opentelemetry_sdk::{propagation::TraceContextPropagator, trace::SdkTracerProvider};

/// The provider installed by [`export_otlp`], kept to flush and shut it down.
static PROVIDER: OnceLock<Mutex<Option<SdkTracerProvider>>> = OnceLock::new();

/// Sends the spans of the process's OpenTelemetry middleware to the OTLP/HTTP collector at
/// `endpoint` (its traces URL, `http://127.0.0.1:4318/v1/traces` for a local collector), in
/// batches, as the process's global tracer provider; `service_name` names the process in the
/// traces. Calling it again replaces the exporter, after flushing the spans of the previous one.
pub fn export_otlp(endpoint: &str, service_name: &str) -> Result<(), ExportError> {
    // The exporter's HTTP client uses rustls with the process's crypto provider, the core's.
    mcpweft::install_crypto_provider();
    let exporter = SpanExporter::builder()
        .with_http()
        .with_endpoint(endpoint)
        .build()
        .map_err(|e| ExportError(format!("no OTLP exporter for {endpoint}: {e}")))?;
    let resource = opentelemetry_sdk::Resource::builder().with_service_name(service_name.to_owned()).build();
    let provider = SdkTracerProvider::builder().with_batch_exporter(exporter).with_resource(resource).build();
    global::set_text_map_propagator(TraceContextPropagator::new());
    global::set_tracer_provider(provider.clone());
    let previous = lock(PROVIDER.get_or_init(Mutex::default)).replace(provider);
    if let Some(previous) = previous {
        let _ = previous.shutdown();
    }
    Ok(())
}

/// Exports the spans recorded so far and waits until the collector took them (or failed).
pub fn flush() -> Result<(), ExportError> {
    let provider = PROVIDER.get().and_then(|p| lock(p).clone());
    match provider {
        Some(provider) => provider.force_flush().map_err(|e| ExportError(format!("exporting spans failed: {e}"))),
        None => Ok(()),
    }
}

/// Locks `mutex`, taking it over from a thread that panicked while holding it.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Why spans could not be exported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportError(pub String);

impl std::fmt::Display for ExportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ExportError {}
