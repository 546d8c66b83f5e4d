//! The Streamable HTTP transport of MCP 2025-11-25, client side.
//!
//! The server side sits above the server role, in [`http`](crate::http).

mod client;
pub(crate) mod sse;

pub use client::*;
