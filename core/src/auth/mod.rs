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
//! PKCE (or client credentials), refreshes tokens and steps up scopes when the server asks.

mod client;
mod jwt;
mod metadata;
mod resource;

pub use client::{
    AuthProvider, Authorizer, ClientCredentials, InMemoryTokenStore, OAuthClient, OAuthClientOptions, StoredTokens,
    TokenStore,
};
pub use jwt::JwtVerifier;
pub use metadata::{AuthorizationServerMetadata, ProtectedResourceMetadata};
pub use resource::{AuthInfo, ResourceServerOptions, TokenError, TokenVerifier, VerifierFn};
