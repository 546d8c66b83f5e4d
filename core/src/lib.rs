#![doc = include_str!("../README.md")]
//!
//! Architecture Invariant: this crate knows nothing of any foreign-language binding. Payloads
//! are JSON (serde values or the typed model), handlers are async trait objects, and every
//! protocol rule (lifecycle, negotiation, validation, cancellation, progress) lives here once.

#[cfg(feature = "auth")]
pub mod auth;
pub mod client;
#[cfg(feature = "http")]
mod crypto;
pub mod error;
mod finite;
#[doc(hidden)]
pub mod fuzzing;
pub mod host;
#[cfg(feature = "http")]
pub mod http;
mod json_write;
pub mod jsonrpc;
pub mod middleware;
pub mod model;
mod random;
pub mod server;
pub mod session;
/// The skills extension (`io.modelcontextprotocol/skills`) in one place: its wire types and
/// methods ([`model::skills`]) and the client's verified reads ([`client::skills`]).
pub mod skills {
    pub use crate::client::skills::*;
    pub use crate::model::skills::*;
}
mod sync;
pub mod transport;

pub use client::{Client, ClientHandler, ClientOptions};
#[cfg(feature = "http")]
pub use crypto::install_crypto_provider;
pub use error::{CloseReason, Error};
pub use jsonrpc::{ErrorData, RequestId};
pub use server::{RequestContext, Server};
pub use session::{Peer, RequestOptions};
