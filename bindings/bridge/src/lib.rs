//! The one language-neutral surface of mcpweft that every language binding wraps.
//!
//! A binding (pyo3, napi, uniffi) turns its own values into JSON and back, implements
//! [`Callback`] once for its callables, maps [`Error`] once to its own error types, and
//! awaits [`Task`]s from its own executor. Everything else is here or in the core, written
//! once: the runtime, registration from JSON descriptors, the rules that turn a handler's
//! JSON into a result ([`results`]), the error policy, the request context, the client with
//! its capabilities derived from the callbacks given, the host of many servers, transports
//! from JSON specs, and the logging set-up, with the core's traces handed to the host
//! language's logging ([`log`]).
//!
//! Architecture Invariant: this crate depends on the core only, never on an FFI crate.
//! Architecture Invariant: bindings never create, enter or see a Tokio runtime.

// The flat error is large on purpose (it carries the JSON-RPC data and the cause chain); it is
// built once per failed call, and every call crosses an FFI boundary that costs far more.
#![allow(clippy::result_large_err)]

mod auth;
mod callback;
mod client;
mod context;
mod error;
mod host;
mod http;
pub mod log;
mod middleware;
mod pool;
pub mod results;
mod runtime;
mod server;
mod skills;

pub use callback::{Callback, PendingAnswer, Reply, SharedCallback, reply};
pub use client::{CallOptions, Client, ClientCallbacks, Subscription};
pub use context::Context;
pub use error::{ERROR_CODES, Error, ErrorKind, error_kinds, parse_json};
pub use host::{Host, HostEvents};
pub use http::{HttpEndpoint, HttpRequest, HttpResponse, HttpServer, ResponseBody};
pub use log::init_logging;
/// The JSON text of a value, written as fast as the core writes its messages; bindings hand
/// payloads and results to their language as this text.
pub use mcpweft::jsonrpc::to_json_text;
pub use middleware::{MiddlewareCallback, Next, telemetry_outcome, telemetry_span};
#[cfg(feature = "otel")]
pub use middleware::{export_otlp, flush_telemetry};
pub use pool::{
    BlockingScope, DEFAULT_BLOCKING_LIMIT, blocking_limit, run_blocking, set_blocking_limit, set_blocking_scope,
};
pub use runtime::{CancelHandle, Task, TaskHandle, spawn};
pub use server::Server;
