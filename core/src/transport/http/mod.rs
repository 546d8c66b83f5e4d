//! The Streamable HTTP transport of MCP 2025-11-25, server and client.

mod client;
mod server;
pub(crate) mod sse;

pub use client::*;
pub use server::*;
