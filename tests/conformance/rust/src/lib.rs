//! The fixtures that the official MCP conformance suite (`@modelcontextprotocol/conformance`)
//! runs against mcpweft: a server exposing exactly the tools, resources, prompts and completions
//! the suite's server scenarios call, and a client that does what its client scenarios ask.
//!
//! Everything here is written with mcpweft's public API only, the way an application would.
//! The binaries `conformance-server` and `conformance-client` put it on the wire; the shell
//! scripts `tests/conformance/server-rust` and `tests/conformance/client-rust` run them, and
//! `tests/conformance/run.sh` runs the suite against them.

pub mod client;
pub mod fixture;
mod tasks;

pub use fixture::{RECONNECTION_TEXT, fixture, json_schema_2020_12};

/// Sends this process's traces to stderr (stdout may carry the protocol), at the level
/// `RUST_LOG` names, or `warn`.
pub fn init_logging() {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()))
        .init();
}
