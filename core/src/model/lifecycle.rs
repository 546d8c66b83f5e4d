//! Lifecycle: `initialize` params and result, and protocol version negotiation.

use serde::{Deserialize, Serialize};

use super::capabilities::{ClientCapabilities, ServerCapabilities};
use super::common::{Implementation, Meta};

/// The newest protocol revision this crate implements.
pub const LATEST_PROTOCOL_VERSION: &str = "2025-11-25";

/// Every protocol revision this crate can negotiate, newest first.
pub const SUPPORTED_PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// Revision 2026-07-28, which has no `initialize`: every request carries its protocol version,
/// client capabilities and client information in `_meta` (see [`meta_keys`]).
pub const STATELESS_PROTOCOL_VERSION: &str = "2026-07-28";

/// Every revision a server of this crate answers, newest first: 2026-07-28 per request, the
/// others through `initialize`.
pub const ALL_PROTOCOL_VERSIONS: &[&str] =
    &[STATELESS_PROTOCOL_VERSION, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The `_meta` keys of revision 2026-07-28.
pub mod meta_keys {
    /// The protocol version of a request.
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// The client's capabilities, on every request.
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// The client's name and version, on requests.
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// The lowest level of log messages the client wants for a request; none without it.
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// The server's name and version, on results.
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// The subscription (the id of its `subscriptions/listen` request) a notification belongs to.
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
}

/// The identifier of the tasks extension of revision 2026-07-28, under `extensions` in the
/// capabilities of both sides.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Returns whether `version` is one of [`SUPPORTED_PROTOCOL_VERSIONS`].
pub fn is_supported_protocol_version(version: &str) -> bool {
    SUPPORTED_PROTOCOL_VERSIONS.contains(&version)
}

/// Picks the version a server answers with: the requested one if supported, else the latest.
pub fn negotiate_protocol_version(requested: &str) -> &'static str {
    SUPPORTED_PROTOCOL_VERSIONS.iter().copied().find(|v| *v == requested).unwrap_or(LATEST_PROTOCOL_VERSION)
}

/// The params of `initialize`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InitializeRequestParams {
    /// The newest protocol version the client supports.
    pub protocol_version: String,
    /// The capabilities of the client.
    pub capabilities: ClientCapabilities,
    /// Information about the client implementation.
    pub client_info: Implementation,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl InitializeRequestParams {
    /// Creates params requesting the latest protocol version.
    pub fn new(capabilities: ClientCapabilities, client_info: Implementation) -> Self {
        Self { protocol_version: LATEST_PROTOCOL_VERSION.to_owned(), capabilities, client_info, meta: None }
    }

    /// Sets the request metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// The result of `initialize`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InitializeResult {
    /// The protocol version the server chose.
    pub protocol_version: String,
    /// The capabilities of the server.
    pub capabilities: ServerCapabilities,
    /// Information about the server implementation.
    pub server_info: Implementation,
    /// Usage hints for the model, e.g. for a system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl InitializeResult {
    /// Creates a result for the given version, capabilities and server info.
    pub fn new(
        protocol_version: impl Into<String>,
        capabilities: ServerCapabilities,
        server_info: Implementation,
    ) -> Self {
        Self { protocol_version: protocol_version.into(), capabilities, server_info, instructions: None, meta: None }
    }

    /// Sets the instructions.
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Sets the result metadata.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// The params of `notifications/initialized` (only an optional `_meta`).
pub type InitializedNotificationParams = super::common::NotificationParams;
