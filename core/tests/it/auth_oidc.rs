//! Authorization against a real authorization server: the npm package `oidc-provider`, started
//! on loopback by `tests/oidc/provider.mjs`. The mcpweft client logs in with the authorization
//! code flow, PKCE and dynamic registration, and calls a mcpweft server that verifies the JWT
//! access tokens through the provider's JWKS; tokens that are expired, for another audience or
//! short of a scope are refused.
//!
//! The tests need `tests/oidc`'s npm packages (`make test-oidc` installs them and runs these
//! tests), so a plain `cargo test` skips them.

use crate::auth_common;

use std::{
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use crate::auth_common::free_resource;
use crate::common::{first_text, within};
use async_trait::async_trait;
use mcpweft::{
    Client, ClientOptions, Error,
    auth::{Authorizer, JwtVerifier, OAuthClient, OAuthClientOptions},
    http::BoundHttpServer,
    transport::http::{HttpClientOptions, StreamableHttpClientTransport},
};
use reqwest::{StatusCode, header};
use serde_json::{Value, json};

/// The redirect URI the test client registers; nothing listens there, the authorizer stops at
/// the redirect to it.
const REDIRECT_URI: &str = "http://127.0.0.1:1/callback";

#[path = "../../../tests/oidc/provider.rs"]
mod oidc_provider;

use oidc_provider::start as provider;

/// A protected mcpweft server trusting the provider through its JWKS; tokens get no leeway on
/// their expiry.
async fn protected_server(issuer: &str) -> BoundHttpServer {
    let (addr, resource) = free_resource();
    let verifier =
        JwtVerifier::with_jwks_url(format!("{issuer}/jwks"), issuer, resource.clone()).with_leeway(Duration::ZERO);
    auth_common::protected_server(addr, &resource, issuer, Arc::new(verifier), |auth| {
        auth.with_scopes_supported(["mcp:read", "mcp:write"]).with_leeway(Duration::ZERO)
    })
    .await
}

/// The user in the browser: follows the provider's redirects, keeping its cookies, through the
/// login and consent interactions (which the provider approves), until the redirect back to
/// the client.
struct Browser {
    http: reqwest::Client,
    cookies: Mutex<Vec<String>>,
    logins: AtomicUsize,
}

impl Browser {
    fn new() -> Arc<Self> {
        mcpweft::install_crypto_provider();
        let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
        Arc::new(Browser { http, cookies: Mutex::default(), logins: AtomicUsize::new(0) })
    }

    fn keep_cookies(&self, response: &reqwest::Response) {
        let mut jar = self.cookies.lock().unwrap();
        for set in response.headers().get_all(header::SET_COOKIE) {
            let pair = set.to_str().unwrap().split(';').next().unwrap().to_owned();
            let name = pair.split('=').next().unwrap().to_owned();
            jar.retain(|c| c.split('=').next() != Some(name.as_str()));
            jar.push(pair);
        }
    }
}

#[async_trait]
impl Authorizer for Browser {
    async fn authorize(&self, authorization_url: String) -> Result<String, Error> {
        self.logins.fetch_add(1, Ordering::SeqCst);
        let mut url = authorization_url;
        for _ in 0..10 {
            if url.starts_with(REDIRECT_URI) {
                return Ok(url);
            }
            let cookies = self.cookies.lock().unwrap().join("; ");
            let response = self
                .http
                .get(&url)
                .header(header::COOKIE, cookies)
                .send()
                .await
                .map_err(|e| Error::Auth(e.to_string()))?;
            self.keep_cookies(&response);
            let Some(location) = response.headers().get(header::LOCATION) else {
                let status = response.status();
                return Err(Error::Auth(format!("{status} at {url}: {}", response.text().await.unwrap_or_default())));
            };
            let next = reqwest::Url::parse(&url).unwrap().join(location.to_str().unwrap()).unwrap();
            url = next.to_string();
        }
        Err(Error::Auth("too many redirects".into()))
    }
}

async fn connect(url: &str, browser: Arc<Browser>) -> Result<Client, Error> {
    let options = OAuthClientOptions::new("oidc-test", REDIRECT_URI, browser);
    let oauth = OAuthClient::new(url, options).unwrap();
    let options = HttpClientOptions::new().with_get_stream(false).with_auth(Arc::new(oauth));
    let transport = StreamableHttpClientTransport::with_options(url, options).unwrap();
    within(Client::connect(transport, ClientOptions::new("oidc-test", "1"))).await
}

/// A client-credentials token of one of the provider's machine clients.
async fn machine_token(issuer: &str, client: &str, resource: &str, scope: &str) -> String {
    mcpweft::install_crypto_provider();
    let response = reqwest::Client::new()
        .post(format!("{issuer}/token"))
        .basic_auth(client, Some(format!("{client}-secret")))
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(
            url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs([("grant_type", "client_credentials"), ("resource", resource), ("scope", scope)])
                .finish(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
    body["access_token"].as_str().unwrap().to_owned()
}

/// Sends `initialize` with `token` and returns the status and `WWW-Authenticate` header.
async fn initialize_with(url: &str, token: &str) -> (StatusCode, String) {
    mcpweft::install_crypto_provider();
    let response = reqwest::Client::new()
        .post(url)
        .bearer_auth(token)
        .header(header::ACCEPT, "application/json, text/event-stream")
        .header(header::CONTENT_TYPE, "application/json")
        .body(
            json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": { "name": "raw", "version": "1" } } })
            .to_string(),
        )
        .send()
        .await
        .unwrap();
    let challenge = response.headers().get(header::WWW_AUTHENTICATE).map(|v| v.to_str().unwrap().to_owned());
    (response.status(), challenge.unwrap_or_default())
}

#[tokio::test]
#[ignore = "needs tests/oidc's npm packages: run make test-oidc"]
async fn a_user_logs_in_at_a_real_authorization_server_and_steps_up_for_more_scopes() {
    let provider = provider().await;
    let server = protected_server(&provider.issuer).await;
    let browser = Browser::new();
    let client = connect(&server.url(), browser.clone()).await.unwrap();
    let who = within(client.call_tool("whoami", json!({}))).await.unwrap();
    assert_eq!(first_text(&who), "alice");
    assert_eq!(browser.logins.load(Ordering::SeqCst), 1);
    // `write` needs `mcp:write`, which the first login did not ask for: the server answers 403
    // insufficient_scope, the client logs in again with more scopes and the call goes through.
    let written = within(client.call_tool("write", json!({}))).await.unwrap();
    assert_eq!(first_text(&written), "written");
    assert_eq!(browser.logins.load(Ordering::SeqCst), 2);
    within(client.close()).await;
}

#[tokio::test]
#[ignore = "needs tests/oidc's npm packages: run make test-oidc"]
async fn expired_foreign_and_under_scoped_tokens_are_refused() {
    let provider = provider().await;
    let server = protected_server(&provider.issuer).await;
    let url = server.url();
    let issuer = &provider.issuer;

    let good = machine_token(issuer, "machine", &url, "mcp:read").await;
    assert_eq!(initialize_with(&url, &good).await.0, StatusCode::OK);

    let foreign = machine_token(issuer, "machine", "http://127.0.0.1:9/other", "mcp:read").await;
    let (status, challenge) = initialize_with(&url, &foreign).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "a token for another audience");
    assert!(challenge.contains("invalid_token"), "{challenge}");

    let short = machine_token(issuer, "short-lived", &url, "mcp:read").await;
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let (status, challenge) = initialize_with(&url, &short).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "an expired token");
    assert!(challenge.contains("invalid_token"), "{challenge}");

    // A token without `mcp:write` reaches `whoami` but not `write`.
    let options = HttpClientOptions::new().with_get_stream(false).with_bearer_token(&good).unwrap();
    let transport = StreamableHttpClientTransport::with_options(&url, options).unwrap();
    let client = within(Client::connect(transport, ClientOptions::new("raw", "1"))).await.unwrap();
    assert_eq!(first_text(&within(client.call_tool("whoami", json!({}))).await.unwrap()), "machine");
    let refused = within(client.call_tool("write", json!({}))).await.unwrap_err();
    assert!(refused.to_string().contains("403") || refused.to_string().contains("scope"), "{refused}");
}
