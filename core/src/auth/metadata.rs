//! The metadata documents of OAuth discovery.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The OAuth 2.0 Protected Resource Metadata document of RFC 9728, which an MCP server
/// publishes so that clients find its authorization servers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ProtectedResourceMetadata {
    /// The resource identifier: the canonical URL of the MCP server.
    pub resource: String,
    /// The issuers of the authorization servers that grant tokens for this resource.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authorization_servers: Vec<String>,
    /// The scopes this resource understands, if it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// How bearer tokens may be sent; MCP uses the `Authorization` header.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bearer_methods_supported: Vec<String>,
    /// A human-readable name of the resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_name: Option<String>,
    /// A page of documentation for developers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_documentation: Option<String>,
    /// Every other member of the document, kept as it came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The OAuth 2.0 Authorization Server Metadata document of RFC 8414 (and the OpenID Connect
/// discovery document, whose members used here are the same).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AuthorizationServerMetadata {
    /// The issuer identifier.
    pub issuer: String,
    /// The authorization endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_endpoint: Option<String>,
    /// The token endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint: Option<String>,
    /// The dynamic client registration endpoint (RFC 7591), if the server has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registration_endpoint: Option<String>,
    /// The key set that signs the server's tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jwks_uri: Option<String>,
    /// The scopes the server grants, if it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// The response types the server supports.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub response_types_supported: Vec<String>,
    /// The grant types the server supports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_types_supported: Option<Vec<String>>,
    /// How clients may authenticate at the token endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// The PKCE code challenge methods the server supports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// Whether the server accepts URLs of client ID metadata documents as client ids.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub client_id_metadata_document_supported: bool,
    /// Every other member of the document, kept as it came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
