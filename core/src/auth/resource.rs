//! The resource server: what a verified token says, how tokens are verified, and the settings
//! of a protected MCP server.

use std::{collections::HashMap, sync::Arc, time::Duration};

use async_trait::async_trait;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::metadata::ProtectedResourceMetadata;

/// What a verified access token says about its bearer.
///
/// Handlers get it from [`RequestContext::auth`](crate::RequestContext::auth). Build it with
/// [`AuthInfo::new`] and the `with_*` methods; fields may be added in later versions.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[non_exhaustive]
pub struct AuthInfo {
    /// The user (or machine client) the token was issued for: the `sub` claim of a JWT.
    pub subject: Option<String>,
    /// The OAuth client the token was issued to.
    pub client_id: Option<String>,
    /// The authorization server that issued the token.
    pub issuer: Option<String>,
    /// The audiences of the token. When it is not empty, the server refuses the token unless
    /// one of them is its own resource URL.
    pub audience: Vec<String>,
    /// The scopes granted.
    pub scopes: Vec<String>,
    /// When the token expires, in seconds since the Unix epoch. The server refuses the token
    /// once this time has passed.
    pub expires_at: Option<u64>,
    /// The token's other claims, as the verifier saw them.
    pub claims: Map<String, Value>,
}

impl AuthInfo {
    /// Creates an identity with nothing known yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the subject.
    pub fn with_subject(mut self, subject: impl Into<String>) -> Self {
        self.subject = Some(subject.into());
        self
    }

    /// Sets the client id.
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// Sets the issuer.
    pub fn with_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Sets the audiences.
    pub fn with_audience(mut self, audience: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.audience = audience.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the granted scopes.
    pub fn with_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Sets when the token expires, in seconds since the Unix epoch.
    pub fn with_expires_at(mut self, expires_at: u64) -> Self {
        self.expires_at = Some(expires_at);
        self
    }

    /// Returns whether every scope in `needed` was granted.
    pub fn has_scopes(&self, needed: &[String]) -> bool {
        needed.iter().all(|n| self.scopes.iter().any(|s| s == n))
    }

    /// Returns who the token speaks for: the issuer, subject and client together. A session
    /// is bound to this, so that another user's token cannot use it.
    pub(crate) fn identity(&self) -> (Option<&str>, Option<&str>, Option<&str>) {
        (self.issuer.as_deref(), self.subject.as_deref(), self.client_id.as_deref())
    }
}

/// Why a token was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// The token is malformed, forged, expired, or meant for another resource: the client gets
    /// `401 invalid_token`.
    #[error("invalid token: {0}")]
    Invalid(String),
    /// The token could not be checked now, for instance because the key set could not be
    /// fetched: the client gets `503 Service Unavailable`.
    #[error("the token could not be verified: {0}")]
    Unavailable(String),
}

/// Checks bearer tokens.
///
/// A verifier must check the signature (or ask the authorization server), the issuer and the
/// expiry; it should check that the token was issued for this server and either refuse it
/// otherwise or report its audiences in [`AuthInfo::audience`], which the server then checks.
#[async_trait]
pub trait TokenVerifier: Send + Sync + 'static {
    /// Verifies `token` and returns what it says, or why it is refused.
    async fn verify(&self, token: &str) -> Result<AuthInfo, TokenError>;
}

/// A [`TokenVerifier`] made of an async function, for verifiers written as closures.
pub struct VerifierFn<F>(pub F);

impl<F> std::fmt::Debug for VerifierFn<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VerifierFn").finish_non_exhaustive()
    }
}

#[async_trait]
impl<F> TokenVerifier for VerifierFn<F>
where
    F: Fn(String) -> BoxFuture<'static, Result<AuthInfo, TokenError>> + Send + Sync + 'static,
{
    async fn verify(&self, token: &str) -> Result<AuthInfo, TokenError> {
        (self.0)(token.to_owned()).await
    }
}

/// The authorization settings of a protected Streamable HTTP server.
///
/// Build them with [`ResourceServerOptions::new`] and the `with_*` methods, then set them with
/// [`HttpServerOptions::with_auth`](crate::http::HttpServerOptions::with_auth); fields may be
/// added in later versions.
#[derive(Clone)]
#[non_exhaustive]
pub struct ResourceServerOptions {
    /// The canonical URL of the MCP server, such as `https://mcp.example.com/mcp`: the
    /// resource that tokens must be issued for.
    pub resource: String,
    /// The issuers of the authorization servers that grant tokens for this server.
    pub authorization_servers: Vec<String>,
    /// Checks each bearer token.
    pub verifier: Arc<dyn TokenVerifier>,
    /// The scopes every request needs.
    pub required_scopes: Vec<String>,
    /// The scopes published in the metadata document; `None` publishes none.
    pub scopes_supported: Option<Vec<String>>,
    /// The scopes a JSON-RPC method needs, on top of the required ones.
    pub method_scopes: HashMap<String, Vec<String>>,
    /// The scopes a call of one tool needs, on top of those of `tools/call`.
    pub tool_scopes: HashMap<String, Vec<String>>,
    /// A human-readable name published in the metadata document.
    pub resource_name: Option<String>,
    /// How far a token's expiry may lie in the past because of clock skew.
    pub leeway: Duration,
}

impl std::fmt::Debug for ResourceServerOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceServerOptions")
            .field("resource", &self.resource)
            .field("authorization_servers", &self.authorization_servers)
            .field("required_scopes", &self.required_scopes)
            .field("scopes_supported", &self.scopes_supported)
            .field("method_scopes", &self.method_scopes)
            .field("tool_scopes", &self.tool_scopes)
            .field("resource_name", &self.resource_name)
            .field("leeway", &self.leeway)
            .finish_non_exhaustive()
    }
}

impl ResourceServerOptions {
    /// Creates the settings of the server at `resource` (its canonical URL), whose tokens are
    /// checked by `verifier`, with no scopes required and a leeway of 60 seconds.
    pub fn new(resource: impl Into<String>, verifier: Arc<dyn TokenVerifier>) -> Self {
        ResourceServerOptions {
            resource: resource.into(),
            authorization_servers: Vec::new(),
            verifier,
            required_scopes: Vec::new(),
            scopes_supported: None,
            method_scopes: HashMap::new(),
            tool_scopes: HashMap::new(),
            resource_name: None,
            leeway: Duration::from_secs(60),
        }
    }

    /// Adds the issuer of an authorization server that grants tokens for this server.
    pub fn with_authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.authorization_servers.push(issuer.into());
        self
    }

    /// Sets the scopes every request needs.
    pub fn with_required_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.required_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the scopes published in the metadata document.
    pub fn with_scopes_supported(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes_supported = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// Sets the scopes that requests of one JSON-RPC method need, on top of the required ones.
    pub fn with_method_scopes(
        mut self,
        method: impl Into<String>,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.method_scopes.insert(method.into(), scopes.into_iter().map(Into::into).collect());
        self
    }

    /// Sets the scopes that calls of one tool need, on top of those of `tools/call`.
    pub fn with_tool_scopes(
        mut self,
        tool: impl Into<String>,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.tool_scopes.insert(tool.into(), scopes.into_iter().map(Into::into).collect());
        self
    }

    /// Sets the human-readable name published in the metadata document.
    pub fn with_resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// Sets how far a token's expiry may lie in the past because of clock skew.
    pub fn with_leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// Returns the Protected Resource Metadata document this server publishes.
    pub fn metadata(&self) -> ProtectedResourceMetadata {
        ProtectedResourceMetadata {
            resource: self.resource.clone(),
            authorization_servers: self.authorization_servers.clone(),
            scopes_supported: self.scopes_supported.clone(),
            bearer_methods_supported: vec!["header".to_owned()],
            resource_name: self.resource_name.clone(),
            ..ProtectedResourceMetadata::default()
        }
    }

    /// Returns the path of the metadata document: the well-known prefix followed by the
    /// resource URL's path (RFC 9728 section 3.1).
    pub fn metadata_path(&self) -> String {
        let path = url::Url::parse(&self.resource).map(|u| u.path().to_owned()).unwrap_or_default();
        let path = path.trim_end_matches('/');
        format!("/.well-known/oauth-protected-resource{path}")
    }

    /// Returns the URL of the metadata document, named in every challenge.
    pub fn metadata_url(&self) -> String {
        match url::Url::parse(&self.resource) {
            Ok(mut url) => {
                url.set_path(&self.metadata_path());
                url.set_query(None);
                url.set_fragment(None);
                url.to_string()
            }
            Err(_) => self.metadata_path(),
        }
    }

    /// Returns the scopes that `method` needs (with `tool`, the tool it calls), required ones
    /// first, without repeats.
    pub(crate) fn scopes_for(&self, method: &str, tool: Option<&str>) -> Vec<String> {
        let mut scopes: Vec<String> = Vec::new();
        let extra = self.method_scopes.get(method).into_iter().flatten();
        let by_tool = tool.and_then(|t| self.tool_scopes.get(t)).into_iter().flatten();
        for scope in self.required_scopes.iter().chain(extra).chain(by_tool) {
            if !scopes.contains(scope) {
                scopes.push(scope.clone());
            }
        }
        scopes
    }
}
