//! The native half of the `mcpweft` npm package: napi-rs glue on `mcpweft-bridge`.
//!
//! Architecture Invariant: this crate holds no protocol logic. Protocol payloads cross as
//! JSON text (the JavaScript side runs `JSON.stringify` and `JSON.parse`, which honours
//! `toJSON` and is faster than building objects property by property), except where a long
//! string would be scanned once more for nothing: a handler's payload holding one is built as
//! JavaScript values, and a handler's string result crosses as that string; JavaScript callables
//! become bridge callbacks; bridge tasks settle through a callback; and errors cross as the
//! bridge's flat error in JSON, turned into error classes by the JavaScript side.
//!
//! Every JavaScript function the glue calls from another thread is a trampoline written in
//! the package's JavaScript: it never throws, since a throwing threadsafe call would end the
//! process.

mod callback;
mod client;
mod context;
mod error;
mod host;
mod http;
mod middleware;
mod payload;
mod server;
mod task;
mod text;

use napi_derive::napi;

/// The allocator of the addon's Rust code.
///
/// A call's buffers are often allocated on a core thread and freed on Node's thread, or the
/// other way round; glibc's malloc serialises such frees on the arena's lock, mimalloc frees
/// them without one, which makes a handler call markedly cheaper under load.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Returns the JSON-RPC error codes MCP uses, from the bridge's table, as the JSON text of
/// an object from each error class's name to its code.
#[napi(catch_unwind)]
pub fn error_codes() -> String {
    let table: serde_json::Map<String, serde_json::Value> =
        mcpweft_bridge::ERROR_CODES.iter().map(|(name, code)| ((*name).to_owned(), (*code).into())).collect();
    serde_json::Value::Object(table).to_string()
}

/// Returns the bridge's table of error kinds, as the JSON text of an array of
/// `{name, code, meaning}` (`code` is `null` for a kind without one).
#[napi(catch_unwind)]
pub fn error_kinds() -> String {
    mcpweft_bridge::error_kinds().to_string()
}

/// Returns the JSON text of the span the package's OpenTelemetry middleware records around the
/// message of the JSON text `message` (`{name, kind, attributes}`, or `null` for none), by the
/// names every language shares.
#[napi(catch_unwind)]
pub fn telemetry_span(message: String) -> napi::Result<String> {
    let message = error::parse_or_throw(&message, "middleware message")?;
    mcpweft_bridge::telemetry_span(&message).map(|span| span.to_string()).map_err(error::throw)
}

/// Returns the JSON text of what the span of a message of `method` records of its outcome, the
/// JSON text `outcome` (`{result}` or `{error: {kind, code, message}}`): `{attributes, error}`.
#[napi(catch_unwind)]
pub fn telemetry_outcome(method: String, outcome: String) -> napi::Result<String> {
    let outcome = error::parse_or_throw(&outcome, "middleware outcome")?;
    Ok(mcpweft_bridge::telemetry_outcome(&method, &outcome).to_string())
}

/// Runs the `mcpweft` command with `argv` (the program's name first) to its end, blocking the
/// calling thread, and returns its exit code; the package's `bin/mcpweft.cjs` calls it and
/// nothing else.
#[napi(catch_unwind)]
pub fn cli(argv: Vec<String>) -> u32 {
    u32::from(mcpweft_cli::run(argv))
}

/// Returns the version of the native module.
#[napi(catch_unwind)]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}
