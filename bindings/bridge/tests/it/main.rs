//! The bridge's integration tests that may share a process, built as a single test binary.
//! `server_client` (which fixes the blocking pool's limit), `blocking_pool` and `log_forwarding`
//! (which set up process-wide state once) stay binaries of their own.

mod apps;
mod auth;
mod client_calls;
#[path = "../common/mod.rs"]
mod common;
mod host;
mod middleware;
mod parity;
mod revision_2026;
