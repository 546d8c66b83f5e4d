//! The fixtures that the official MCP conformance suite (`@modelcontextprotocol/conformance`)
//! runs against mcpkit: a server exposing exactly the tools, resources, prompts and completions
//! the suite's server scenarios call, and a client that does what its client scenarios ask.
//!
//! Everything here is written with mcpkit's public API only, the way an application would.
//! The binaries `conformance-server` and `conformance-client` put it on the wire; the shell
//! scripts `tests/conformance/server-rust` and `tests/conformance/client-rust` run them, and
//! `tests/conformance/run.sh` runs the suite against them.

pub mod client;
pub mod fixture;

pub use fixture::{RECONNECTION_TEXT, fixture, json_schema_2020_12};
