//! The Streamable HTTP server of MCP 2025-11-25.
//!
//! It sits above the server role and the session runtime: each HTTP session is a core session
//! of a [`Server`](crate::Server), driven in the runtime's direct mode. The client side of
//! Streamable HTTP is a transport like the others, in
//! [`transport::http`](crate::transport::http).

#[cfg(feature = "auth")]
mod auth;
#[cfg(feature = "redis")]
mod cluster;
mod headers;
mod response;
mod server;
mod sse;

#[cfg(feature = "redis")]
pub use cluster::ClusterOptions;

pub use server::*;
