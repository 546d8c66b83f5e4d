//! The Swift bindings of mcpweft: uniffi exports over the bridge crate, `mcpweft-bridge`.
//!
//! Every protocol payload crosses as a JSON string, except a handler's string value, which
//! crosses as that string so that a long text is not escaped and parsed again; only handles
//! (server, client, listen stream, context, a middleware's next step, HTTP server and endpoint,
//! response body) cross as objects, HTTP bodies and skill files as bytes, and Swift code
//! implements [`NativeHandler`] for its closures and [`NativeMiddleware`] for its middleware. The
//! hand-written Swift layer in `Sources/McpWeft` turns the strings into `Codable` values and the
//! flat [`NativeError`] into a Swift error. All protocol logic stays in the bridge and the core.
//!
//! Architecture Invariant: this crate holds glue only (conversion and forwarding); anything a
//! binding needs that is not a conversion goes into the bridge, for every language.

mod client;
mod context;
mod error;
mod host;
mod http;
mod middleware;
mod runtime;
mod server;

pub use client::{
    NativeCallOptions, NativeClient, NativeClientHandlers, NativeSubscription, native_connect, native_connect_memory,
};
pub use context::NativeContext;
pub use error::{NativeError, native_error_codes, native_error_kinds};
pub use host::{NativeHost, NativeHostEvents, native_host_connect};
pub use http::{NativeHttpEndpoint, NativeHttpHeader, NativeHttpRequest, NativeHttpResponse, NativeResponseBody};
pub use middleware::{NativeMiddleware, NativeMiddlewareEntry, NativeNext, native_export_otlp, native_flush_telemetry};
pub use runtime::NativeCancelHandle;
pub use server::{NativeCall, NativeHandler, NativeHttpServer, NativeListener, NativeReply, NativeServer};

/// The allocator of the library's Rust side. The core's tasks move between the runtime's
/// worker threads, so memory is often freed on another thread than the one that allocated it,
/// which mimalloc does without the arena lock contention of the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

uniffi::setup_scaffolding!();
