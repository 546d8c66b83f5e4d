//! The client side of authorization against a mock authorization server: discovery, dynamic
//! registration, the authorization code flow with PKCE and `resource`, step-up, refresh,
//! client credentials, workload identity (the JWT bearer grant), and the refusal of metadata for
//! another resource.

use crate::auth_common;

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
};

use crate::auth_common::{SigningKey, free_resource, jwks, now};
use crate::common::{first_text, within};
use async_trait::async_trait;
use axum::{
    Json, Router,
    extract::{RawQuery, State},
    http::{HeaderMap, StatusCode, header},
    response::{IntoResponse, Response},
    routing::{get, post},
};
use mcpweft::{
    Client, ClientOptions, Error,
    auth::{Authorizer, ClientCredentials, JwtVerifier, LoopbackRedirect, OAuthClient, OAuthClientOptions},
    http::BoundHttpServer,
    transport::http::{HttpClientOptions, StreamableHttpClientTransport},
};
use oauth2::{PkceCodeChallenge, PkceCodeVerifier};
use serde_json::{Value, json};

/// What the mock authorization server saw and how it behaves.
#[derive(Default)]
struct AsState {
    issuer: String,
    /// The scopes granted whatever is asked; `None` grants what is asked.
    fixed_scope: Option<String>,
    /// The `expires_in` of access tokens.
    expires_in: u64,
    /// The codes given out: code → (challenge, scope, resource, client id).
    codes: HashMap<String, (String, String, String, String)>,
    registrations: usize,
    authorizations: Vec<HashMap<String, String>>,
    token_requests: Vec<HashMap<String, String>>,
    token_auth: Vec<String>,
}

type Shared = Arc<Mutex<AsState>>;

/// The workload JWT the mock authorization server accepts in the JWT bearer grant.
const WORKLOAD_JWT: &str = "workload.jwt.signed-by-the-platform";

async fn as_metadata(State(state): State<Shared>) -> Json<Value> {
    let issuer = state.lock().unwrap().issuer.clone();
    Json(json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "registration_endpoint": format!("{issuer}/register"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_post"],
        "scopes_supported": ["mcp:read", "mcp:write", "offline_access"],
    }))
}

async fn register(State(state): State<Shared>, Json(request): Json<Value>) -> Response {
    state.lock().unwrap().registrations += 1;
    assert_eq!(request["token_endpoint_auth_method"], "client_secret_post");
    let body = json!({
        "client_id": "registered-client",
        "client_secret": "registered-secret",
        "redirect_uris": request["redirect_uris"],
    });
    (StatusCode::CREATED, Json(body)).into_response()
}

/// The pairs of a form-encoded query or body.
fn form_pairs(text: &str) -> HashMap<String, String> {
    url::form_urlencoded::parse(text.as_bytes()).into_owned().collect()
}

async fn authorize(State(state): State<Shared>, RawQuery(query): RawQuery) -> Response {
    let query = form_pairs(&query.unwrap_or_default());
    let mut state = state.lock().unwrap();
    state.authorizations.push(query.clone());
    assert_eq!(query["response_type"], "code");
    assert_eq!(query["code_challenge_method"], "S256");
    let code = format!("code-{}", state.authorizations.len());
    let scope = query.get("scope").cloned().unwrap_or_default();
    let entry = (query["code_challenge"].clone(), scope, query["resource"].clone(), query["client_id"].clone());
    state.codes.insert(code.clone(), entry);
    let location = format!("{}?code={code}&state={}", query["redirect_uri"], query["state"]);
    (StatusCode::FOUND, [(header::LOCATION, location)]).into_response()
}

fn token_for(state: &AsState, resource: &str, scope: &str, refresh: bool) -> Json<Value> {
    let scope = state.fixed_scope.clone().unwrap_or_else(|| scope.to_owned());
    let claims = json!({
        "iss": state.issuer, "sub": "user-1", "aud": resource, "client_id": "registered-client",
        "scope": scope, "iat": now(), "exp": now() + 3600,
    });
    let mut body = json!({
        "access_token": SigningKey::main("k1").sign(&claims),
        "token_type": "Bearer",
        "expires_in": state.expires_in,
        "scope": scope,
    });
    if refresh {
        body["refresh_token"] = json!(format!("refresh|{resource}|{scope}"));
    }
    Json(body)
}

async fn token(State(state): State<Shared>, headers: HeaderMap, body: String) -> Response {
    let form = form_pairs(&body);
    let mut state = state.lock().unwrap();
    state.token_requests.push(form.clone());
    let auth = if headers.contains_key(header::AUTHORIZATION) { "basic" } else { "post" };
    state.token_auth.push(auth.to_owned());
    match form["grant_type"].as_str() {
        "authorization_code" => {
            let Some((challenge, scope, resource, _)) = state.codes.remove(&form["code"]) else {
                return (StatusCode::BAD_REQUEST, Json(json!({ "error": "invalid_grant" }))).into_response();
            };
            let verifier = PkceCodeVerifier::new(form["code_verifier"].clone());
            if PkceCodeChallenge::from_code_verifier_sha256(&verifier).as_str() != challenge
                || form.get("resource") != Some(&resource)
                || form.get("client_secret").map(String::as_str) != Some("registered-secret")
            {
                return (StatusCode::BAD_REQUEST, Json(json!({ "error": "invalid_grant" }))).into_response();
            }
            let offline = scope.split(' ').any(|s| s == "offline_access");
            token_for(&state, &resource, &scope, offline).into_response()
        }
        "refresh_token" => {
            let parts: Vec<&str> = form["refresh_token"].split('|').collect();
            token_for(&state, parts[1], parts[2], true).into_response()
        }
        "client_credentials" => {
            let scope = form.get("scope").cloned().unwrap_or_default();
            token_for(&state, &form["resource"], &scope, false).into_response()
        }
        "urn:ietf:params:oauth:grant-type:jwt-bearer"
            if form.get("assertion").map(String::as_str) == Some(WORKLOAD_JWT) =>
        {
            let scope = form.get("scope").cloned().unwrap_or_default();
            token_for(&state, &form["resource"], &scope, false).into_response()
        }
        "urn:ietf:params:oauth:grant-type:jwt-bearer" => {
            (StatusCode::BAD_REQUEST, Json(json!({ "error": "invalid_grant" }))).into_response()
        }
        _ => (StatusCode::BAD_REQUEST, Json(json!({ "error": "unsupported_grant_type" }))).into_response(),
    }
}

/// Starts the mock authorization server on loopback.
async fn authorization_server(configure: impl FnOnce(&mut AsState)) -> Shared {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let issuer = format!("http://{}", listener.local_addr().unwrap());
    let mut state = AsState { issuer, expires_in: 3600, ..AsState::default() };
    configure(&mut state);
    let state = Arc::new(Mutex::new(state));
    let app = Router::new()
        .route("/.well-known/oauth-authorization-server", get(as_metadata))
        .route("/register", post(register))
        .route("/authorize", get(authorize))
        .route("/token", post(token))
        .with_state(state.clone());
    tokio::spawn(async move { axum::serve(listener, app).await });
    state
}

/// Follows the authorization URL like a browser whose user agrees at once.
struct AutoApprove {
    http: reqwest::Client,
    count: AtomicUsize,
}

impl AutoApprove {
    fn new() -> Arc<Self> {
        mcpweft::install_crypto_provider();
        let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
        Arc::new(AutoApprove { http, count: AtomicUsize::new(0) })
    }
}

#[async_trait]
impl Authorizer for AutoApprove {
    async fn authorize(&self, authorization_url: String) -> Result<String, Error> {
        self.count.fetch_add(1, Ordering::SeqCst);
        let response = self.http.get(authorization_url).send().await.map_err(|e| Error::Auth(e.to_string()))?;
        Ok(response.headers()[header::LOCATION].to_str().unwrap().to_owned())
    }
}

/// A protected mcpweft server trusting the mock issuer, publishing `resource_override` as its
/// resource when given.
async fn protected_server(issuer: &str, resource_override: Option<&str>) -> BoundHttpServer {
    let (addr, resource) = free_resource();
    let verifier = JwtVerifier::with_jwks(&jwks(&[&SigningKey::main("k1")]), issuer, resource.clone()).unwrap();
    let published = resource_override.unwrap_or(&resource).to_owned();
    auth_common::protected_server(addr, &published, issuer, Arc::new(verifier), |auth| {
        auth.with_scopes_supported(["mcp:read"])
    })
    .await
}

async fn connect(url: &str, oauth: OAuthClient) -> Result<Client, Error> {
    let options = HttpClientOptions::new().with_get_stream(false).with_auth(Arc::new(oauth));
    let transport = StreamableHttpClientTransport::with_options(url, options).unwrap();
    within(Client::connect(transport, ClientOptions::new("auth-test", "1"))).await
}

fn user_client(url: &str, authorizer: Arc<AutoApprove>) -> OAuthClient {
    let options = OAuthClientOptions::new("auth-test", "http://127.0.0.1:1/callback", authorizer);
    OAuthClient::new(url, options).unwrap()
}

#[tokio::test]
async fn a_user_logs_in_with_pkce_and_dynamic_registration_and_reaches_the_tools() {
    let auth_server = authorization_server(|_| {}).await;
    let issuer = auth_server.lock().unwrap().issuer.clone();
    let server = protected_server(&issuer, None).await;
    let authorizer = AutoApprove::new();
    let client = connect(&server.url(), user_client(&server.url(), authorizer.clone())).await.unwrap();
    let result = within(client.call_tool("whoami", json!({}))).await.unwrap();
    assert_eq!(first_text(&result), "user-1");
    assert_eq!(authorizer.count.load(Ordering::SeqCst), 1, "one login serves the whole session");
    let state = auth_server.lock().unwrap();
    assert_eq!(state.registrations, 1);
    let authorization = &state.authorizations[0];
    assert_eq!(authorization["resource"], server.url());
    assert_eq!(authorization["client_id"], "registered-client");
    // The challenge's scope, and offline_access because the server offers it.
    assert_eq!(authorization["scope"], "mcp:read offline_access");
    assert_eq!(state.token_auth, ["post"], "the client authenticates as the server supports");
}

#[tokio::test]
async fn a_client_steps_up_when_a_tool_needs_more_scopes() {
    let auth_server = authorization_server(|_| {}).await;
    let issuer = auth_server.lock().unwrap().issuer.clone();
    let server = protected_server(&issuer, None).await;
    let authorizer = AutoApprove::new();
    let client = connect(&server.url(), user_client(&server.url(), authorizer.clone())).await.unwrap();
    let result = within(client.call_tool("write", json!({}))).await.unwrap();
    assert_eq!(first_text(&result), "written");
    assert_eq!(authorizer.count.load(Ordering::SeqCst), 2);
    let state = auth_server.lock().unwrap();
    let scope = &state.authorizations[1]["scope"];
    for wanted in ["mcp:read", "mcp:write", "offline_access"] {
        assert!(scope.split(' ').any(|s| s == wanted), "{scope}");
    }
}

#[tokio::test]
async fn step_ups_are_bounded_when_the_server_never_grants_the_scope() {
    let auth_server = authorization_server(|s| s.fixed_scope = Some("mcp:read".to_owned())).await;
    let issuer = auth_server.lock().unwrap().issuer.clone();
    let server = protected_server(&issuer, None).await;
    let authorizer = AutoApprove::new();
    let options =
        OAuthClientOptions::new("auth-test", "http://127.0.0.1:1/callback", authorizer.clone()).with_max_step_ups(2);
    let client = connect(&server.url(), OAuthClient::new(&server.url(), options).unwrap()).await.unwrap();
    let result = within(client.call_tool("write", json!({}))).await;
    assert!(result.is_err(), "{result:?}");
    assert_eq!(authorizer.count.load(Ordering::SeqCst), 3, "one login and two step-ups");
}

#[tokio::test]
async fn an_expired_access_token_is_refreshed_without_the_user() {
    let auth_server = authorization_server(|s| s.expires_in = 0).await;
    let issuer = auth_server.lock().unwrap().issuer.clone();
    let server = protected_server(&issuer, None).await;
    let authorizer = AutoApprove::new();
    let client = connect(&server.url(), user_client(&server.url(), authorizer.clone())).await.unwrap();
    within(client.call_tool("whoami", json!({}))).await.unwrap();
    assert_eq!(authorizer.count.load(Ordering::SeqCst), 1);
    let state = auth_server.lock().unwrap();
    let refreshes = state.token_requests.iter().filter(|r| r["grant_type"] == "refresh_token").count();
    assert!(refreshes >= 1, "{:?}", state.token_requests);
    assert!(state.token_requests.iter().all(|r| r.get("resource") == Some(&server.url())));
}

#[tokio::test]
async fn a_machine_client_uses_client_credentials() {
    let auth_server = authorization_server(|_| {}).await;
    let issuer = auth_server.lock().unwrap().issuer.clone();
    let server = protected_server(&issuer, None).await;
    let credentials =
        ClientCredentials::Secret { client_id: "machine".to_owned(), client_secret: "machine-secret".to_owned() };
    let oauth = OAuthClient::new(&server.url(), OAuthClientOptions::machine(credentials)).unwrap();
    let client = connect(&server.url(), oauth).await.unwrap();
    within(client.call_tool("whoami", json!({}))).await.unwrap();
    let state = auth_server.lock().unwrap();
    assert_eq!(state.token_requests[0]["grant_type"], "client_credentials");
    assert_eq!(state.token_requests[0]["scope"], "mcp:read");
    assert_eq!(state.token_requests[0]["client_secret"], "machine-secret");
    assert!(state.authorizations.is_empty());
}

#[tokio::test]
async fn a_workload_presents_its_jwt_in_the_jwt_bearer_grant() {
    let auth_server = authorization_server(|_| {}).await;
    let issuer = auth_server.lock().unwrap().issuer.clone();
    let server = protected_server(&issuer, None).await;
    let credentials = ClientCredentials::WorkloadIdentity {
        client_id: Some("workload".to_owned()),
        assertion: WORKLOAD_JWT.to_owned(),
    };
    let oauth = OAuthClient::new(&server.url(), OAuthClientOptions::machine(credentials)).unwrap();
    let client = connect(&server.url(), oauth).await.unwrap();
    assert_eq!(first_text(&within(client.call_tool("whoami", json!({}))).await.unwrap()), "user-1");
    let state = auth_server.lock().unwrap();
    let request = &state.token_requests[0];
    assert_eq!(request["grant_type"], "urn:ietf:params:oauth:grant-type:jwt-bearer");
    assert_eq!(request["assertion"], WORKLOAD_JWT);
    assert_eq!(request["client_id"], "workload");
    assert_eq!(request["resource"], server.url());
    assert!(state.authorizations.is_empty() && state.registrations == 0);
}

#[tokio::test]
async fn a_refused_workload_jwt_is_reported_and_not_retried() {
    let auth_server = authorization_server(|_| {}).await;
    let issuer = auth_server.lock().unwrap().issuer.clone();
    let server = protected_server(&issuer, None).await;
    let credentials = ClientCredentials::WorkloadIdentity { client_id: None, assertion: "expired.jwt".to_owned() };
    let oauth = OAuthClient::new(&server.url(), OAuthClientOptions::machine(credentials)).unwrap();
    let error = connect(&server.url(), oauth).await.unwrap_err();
    assert!(error.to_string().contains("invalid_grant"), "{error}");
    let state = auth_server.lock().unwrap();
    assert_eq!(state.token_requests.len(), 1, "one grant, no retry and no other grant type");
    assert!(!state.token_requests[0].contains_key("client_id"));
}

#[tokio::test]
async fn metadata_for_another_resource_is_refused() {
    let auth_server = authorization_server(|_| {}).await;
    let issuer = auth_server.lock().unwrap().issuer.clone();
    let server = protected_server(&issuer, Some("http://127.0.0.1:1/elsewhere")).await;
    let authorizer = AutoApprove::new();
    let result = connect(&server.url(), user_client(&server.url(), authorizer.clone())).await;
    assert!(result.is_err());
    assert_eq!(authorizer.count.load(Ordering::SeqCst), 0, "the user is never sent to authorize");
}

#[tokio::test]
async fn the_loopback_redirect_receives_the_code_from_a_browser() {
    let auth_server = authorization_server(|_| {}).await;
    let issuer = auth_server.lock().unwrap().issuer.clone();
    let server = protected_server(&issuer, None).await;
    let opened = Arc::new(AtomicUsize::new(0));
    let browser_opened = opened.clone();
    // The "browser" follows the authorization server's redirect back to the loopback port.
    let redirect = LoopbackRedirect::bind(0, "/callback", move |url: &str| {
        browser_opened.fetch_add(1, Ordering::SeqCst);
        let url = url.to_owned();
        tokio::spawn(async move { reqwest::get(url).await.unwrap().text().await.unwrap() });
    })
    .await
    .unwrap();
    let redirect_uri = redirect.redirect_uri().to_owned();
    assert!(redirect_uri.starts_with("http://127.0.0.1:") && redirect_uri.ends_with("/callback"), "{redirect_uri}");
    let options = OAuthClientOptions::new("auth-test", redirect_uri.clone(), Arc::new(redirect));
    let client = connect(&server.url(), OAuthClient::new(&server.url(), options).unwrap()).await.unwrap();
    assert_eq!(first_text(&within(client.call_tool("whoami", json!({}))).await.unwrap()), "user-1");
    assert_eq!(opened.load(Ordering::SeqCst), 1);
    assert_eq!(auth_server.lock().unwrap().authorizations[0]["redirect_uri"], redirect_uri);
}

#[tokio::test]
async fn a_host_logs_in_to_a_server_configured_with_oauth_and_keeps_its_tokens() {
    use mcpweft::{
        auth::{InMemoryTokenStore, TokenStore},
        host::{Host, HostConfig},
    };
    let auth_server = authorization_server(|_| {}).await;
    let issuer = auth_server.lock().unwrap().issuer.clone();
    let server = protected_server(&issuer, None).await;
    let config = HostConfig::from_value(&json!({ "mcpServers": {
        "notes": { "type": "http", "url": server.url(), "oauth": { "scopes": "mcp:read" } },
    } }))
    .unwrap();
    let authorizer = AutoApprove::new();
    let store = Arc::new(InMemoryTokenStore::default());
    let host = || {
        Host::builder(config.clone())
            .with_authorizer("http://127.0.0.1:1/callback", authorizer.clone())
            .with_token_store(store.clone())
    };
    let first = within(host().connect()).await.unwrap();
    let result = within(first.call_tool("notes__whoami", json!({}))).await.unwrap();
    assert_eq!(first_text(&result), "user-1");
    assert_eq!(authorizer.count.load(Ordering::SeqCst), 1);
    assert!(store.load(&server.url()).await.is_some(), "the host keeps the tokens in its store");
    first.close().await;

    // A second host finds the tokens in the store and does not ask the user again.
    let second = within(host().connect()).await.unwrap();
    within(second.call_tool("notes__whoami", json!({}))).await.unwrap();
    assert_eq!(authorizer.count.load(Ordering::SeqCst), 1);
    assert_eq!(auth_server.lock().unwrap().authorizations.len(), 1);
    second.close().await;
}
