//! OAuth 2.1 authorization for Streamable HTTP (MCP 2025-11-25).
//!
//! The server side is a resource server: with [`ResourceServerOptions`] set on
//! [`HttpServerOptions`](crate::http::HttpServerOptions), every request must carry a bearer
//! token that a [`TokenVerifier`] accepts, such as the built-in [`JwtVerifier`]. Requests without
//! a valid token are answered `401` with a `WWW-Authenticate` challenge that names the
//! Protected Resource Metadata document (RFC 9728), which the server publishes at its
//! well-known path; requests whose token lacks a scope are answered `403 insufficient_scope`.
//! The verified identity reaches handlers through
//! [`RequestContext::auth`](crate::RequestContext::auth), and a session only ever serves the
//! identity that created it.
//!
//! The client side is an [`AuthProvider`] set on
//! [`HttpClientOptions`](crate::transport::http::HttpClientOptions): the ready [`OAuthClient`]
//! discovers the authorization server, registers, logs in with the authorization code flow and
//! PKCE (or client credentials, enterprise-managed authorization or workload identity
//! federation), refreshes tokens and steps up scopes when the server asks, and binds its tokens
//! to a DPoP key (RFC 9449) where the servers support it.
//!
//! Protecting a server:
//!
//! ```rust,no_run
//! use std::sync::Arc;
//! use mcpweft::auth::{JwtVerifier, ResourceServerOptions};
//! use mcpweft::http::{HttpServerOptions, StreamableHttpServer};
//!
//! # async fn run(server: mcpweft::Server) -> Result<(), mcpweft::Error> {
//! let resource = "https://mcp.example.com/mcp";
//! let issuer = "https://auth.example.com";
//! let verifier = JwtVerifier::with_jwks_url(format!("{issuer}/jwks"), issuer, resource);
//! let auth = ResourceServerOptions::new(resource, Arc::new(verifier))
//!     .with_authorization_server(issuer)
//!     .with_required_scopes(["mcp:read"])
//!     .with_scopes_supported(["mcp:read", "mcp:write"])
//!     .with_tool_scopes("delete_file", ["mcp:write"]);
//! let options = HttpServerOptions::new().with_auth(auth);
//! let bound = StreamableHttpServer::bind(server, "0.0.0.0:8080".parse().unwrap(), options).await?;
//! # Ok(()) }
//! ```
//!
//! Logging a client in:
//!
//! ```rust,no_run
//! use std::sync::Arc;
//! use mcpweft::auth::{Authorizer, OAuthClient, OAuthClientOptions};
//! use mcpweft::transport::http::{HttpClientOptions, StreamableHttpClientTransport};
//! use mcpweft::{Client, ClientOptions, Error};
//!
//! struct Browser;
//!
//! #[async_trait::async_trait]
//! impl Authorizer for Browser {
//!     async fn authorize(&self, authorization_url: String) -> Result<String, Error> {
//!         // Open `authorization_url` in a browser and return the URL it was redirected to,
//!         // such as http://127.0.0.1:8765/callback?code=…&state=….
//!         # let _ = authorization_url; unimplemented!()
//!     }
//! }
//!
//! # async fn run() -> Result<(), Error> {
//! let url = "https://mcp.example.com/mcp";
//! let login = OAuthClientOptions::new("my-app", "http://127.0.0.1:8765/callback", Arc::new(Browser));
//! let options = HttpClientOptions::new().with_auth(Arc::new(OAuthClient::new(url, login)?));
//! let transport = StreamableHttpClientTransport::with_options(url, options)?;
//! let client = Client::connect(transport, ClientOptions::new("my-app", "1.0.0")).await?;
//! # Ok(()) }
//! ```

mod client;
mod dpop;
mod jwt;
mod loopback;
mod metadata;
mod resource;

pub use client::{
    AuthProvider, Authorizer, ClientCredentials, DpopPolicy, InMemoryTokenStore, OAuthClient, OAuthClientOptions,
    RequestCredentials, StoredTokens, TokenStore,
};
pub use dpop::DpopKey;
pub use jwt::JwtVerifier;
pub use loopback::LoopbackRedirect;
pub use metadata::{AuthorizationServerMetadata, ProtectedResourceMetadata};
pub use resource::{AuthInfo, ResourceServerOptions, TokenError, TokenVerifier, VerifierFn};
