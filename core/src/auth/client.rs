//! The client side: logging in to a protected MCP server with OAuth 2.1.
//!
//! An [`OAuthClient`] is an [`AuthProvider`] for the Streamable HTTP client. When the server
//! answers `401`, it discovers the server's Protected Resource Metadata and its authorization
//! server's metadata, registers (pre-registered credentials, a client ID metadata document, or
//! dynamic registration), runs the authorization code flow with PKCE S256 and the `resource`
//! parameter (or the client credentials grant, for machine clients), stores the tokens, and the
//! request is sent again. A `403 insufficient_scope` steps up to the scopes it names, a bounded
//! number of times; expired tokens are refreshed. Where the authorization server supports DPoP
//! (RFC 9449) and the MCP server asks for it, tokens are bound to a key the client generates and
//! every request carries a fresh proof of possession (see [`DpopPolicy`]).

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex, OnceLock,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use async_trait::async_trait;
use base64::Engine;
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, HttpRequest, HttpResponse,
    PkceCodeChallenge, RedirectUrl, RefreshToken, Scope, TokenResponse, TokenUrl, basic::BasicClient,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use url::Url;

use super::{
    dpop::{DPOP_ALGORITHM, DpopKey},
    metadata::{AuthorizationServerMetadata, ProtectedResourceMetadata},
};
use crate::{Error, sync::lock};

/// Supplies the bearer tokens of a Streamable HTTP client and answers the server's
/// challenges.
#[async_trait]
pub trait AuthProvider: Send + Sync + 'static {
    /// Returns the access token to send, if there is one, refreshing it first when it expired.
    async fn access_token(&self) -> Result<Option<String>, Error>;

    /// Answers a `401` or `403` response with its `WWW-Authenticate` header, returning whether
    /// a new token is ready and the request should be sent again.
    async fn challenged(&self, status: u16, www_authenticate: Option<&str>) -> Result<bool, Error>;

    /// Returns the credentials a request of `method` to `url` carries. By default the
    /// [`access_token`](Self::access_token) as a bearer token; a provider of sender-constrained
    /// tokens signs a DPoP proof for the request here.
    async fn credentials(&self, method: &str, url: &str) -> Result<Option<RequestCredentials>, Error> {
        let _ = (method, url);
        Ok(self.access_token().await?.map(|token| RequestCredentials::bearer(&token)))
    }

    /// Takes note of the `DPoP-Nonce` header of a response from `url`, which the next proofs
    /// for that server must carry. Does nothing by default.
    async fn dpop_nonce(&self, url: &str, nonce: &str) {
        let _ = (url, nonce);
    }
}

/// The credentials one HTTP request carries: its `Authorization` header and, for a
/// DPoP-bound token, the `DPoP` proof header.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RequestCredentials {
    /// The value of the `Authorization` header, such as `Bearer …` or `DPoP …`.
    pub authorization: String,
    /// The value of the `DPoP` header, a proof JWT signed for this one request.
    pub dpop: Option<String>,
}

impl RequestCredentials {
    /// Credentials of a bearer token.
    pub fn bearer(token: &str) -> Self {
        RequestCredentials { authorization: format!("Bearer {token}"), dpop: None }
    }

    /// Credentials of a DPoP-bound token with the proof signed for the request.
    pub fn dpop(token: &str, proof: String) -> Self {
        RequestCredentials { authorization: format!("DPoP {token}"), dpop: Some(proof) }
    }
}

/// When an [`OAuthClient`] binds its tokens to a DPoP key (RFC 9449).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum DpopPolicy {
    /// When the authorization server supports DPoP with ES256 and the MCP server asks for it: a
    /// `DPoP` challenge, or `dpop_bound_access_tokens_required` in its protected resource
    /// metadata. The default.
    #[default]
    WhenAsked,
    /// Whenever the authorization server supports DPoP with ES256.
    WhenSupported,
    /// Never: bearer tokens only.
    Never,
}

/// The tokens and client registration kept for one server.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[non_exhaustive]
pub struct StoredTokens {
    /// The access token.
    pub access_token: Option<String>,
    /// The refresh token, if the authorization server gave one.
    pub refresh_token: Option<String>,
    /// When the access token expires, in seconds since the Unix epoch.
    pub expires_at: Option<u64>,
    /// The scopes asked for.
    pub scopes: Vec<String>,
    /// The client id this client is registered under.
    pub client_id: Option<String>,
    /// The client secret, for confidential clients.
    pub client_secret: Option<String>,
    /// The issuer of the authorization server that registered the client and granted the
    /// tokens; a registration is never presented to another one.
    pub issuer: Option<String>,
    /// The token type the authorization server gave: `Bearer`, or `DPoP` for a token bound to
    /// the client's DPoP key.
    pub token_type: Option<String>,
}

/// Keeps tokens between runs, keyed by the server's resource URL.
#[async_trait]
pub trait TokenStore: Send + Sync + 'static {
    /// Returns what was stored for `resource`.
    async fn load(&self, resource: &str) -> Option<StoredTokens>;
    /// Stores `tokens` for `resource`.
    async fn save(&self, resource: &str, tokens: StoredTokens);
}

/// A [`TokenStore`] that keeps tokens in memory for the life of the process.
#[derive(Debug, Default)]
pub struct InMemoryTokenStore {
    tokens: Mutex<HashMap<String, StoredTokens>>,
}

#[async_trait]
impl TokenStore for InMemoryTokenStore {
    async fn load(&self, resource: &str) -> Option<StoredTokens> {
        lock(&self.tokens).get(resource).cloned()
    }

    async fn save(&self, resource: &str, tokens: StoredTokens) {
        lock(&self.tokens).insert(resource.to_owned(), tokens);
    }
}

/// The interactive part of the authorization code flow, which the application supplies: show
/// the user `authorization_url` (in a browser) and return the URL the authorization server
/// redirected back to, with its `code` and `state`.
#[async_trait]
pub trait Authorizer: Send + Sync + 'static {
    /// Lets the user authorize at `authorization_url` and returns the redirect URL reached.
    async fn authorize(&self, authorization_url: String) -> Result<String, Error>;
}

/// How a client gets its tokens without a browser: a machine client in the client credentials
/// grant, or a client whose user signed in at an enterprise identity provider.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum ClientCredentials {
    /// A client secret, sent as the server prefers (`client_secret_basic` or `_post`).
    Secret {
        /// The client id.
        client_id: String,
        /// The client secret.
        client_secret: String,
    },
    /// A JWT signed with the client's private key (`private_key_jwt`, RFC 7523).
    PrivateKeyJwt {
        /// The client id.
        client_id: String,
        /// The private key, PEM-encoded (PKCS#8).
        private_key_pem: String,
        /// The signing algorithm: `ES256`, `ES384`, `RS256` and the like.
        algorithm: String,
    },
    /// Enterprise-managed authorization (the cross-app access extension, SEP-990): the user's
    /// ID token from the enterprise identity provider is exchanged there for an identity
    /// assertion grant for this server's authorization server (RFC 8693 token exchange), which
    /// the authorization server trades for an access token (the JWT bearer grant, RFC 7523).
    IdentityAssertion {
        /// The client id at the MCP server's authorization server.
        client_id: String,
        /// The client secret at the authorization server, sent as `client_secret_basic`.
        client_secret: Option<String>,
        /// The token endpoint of the identity provider.
        idp_token_endpoint: String,
        /// The user's ID token from the identity provider.
        id_token: String,
        /// The client id at the identity provider, if it wants one.
        idp_client_id: Option<String>,
    },
    /// Workload identity federation: a JWT that the workload's platform issued to prove its
    /// identity is presented as the grant itself (the JWT bearer grant, RFC 7523 §2.1). A
    /// refused grant is reported as it is, neither retried nor traded for another grant type.
    WorkloadIdentity {
        /// The client id at the authorization server, sent in the token request when set.
        client_id: Option<String>,
        /// The workload's JWT, whose audience is the authorization server.
        assertion: String,
    },
}

/// Where the user's ID token is exchanged for an identity assertion grant.
struct IdentityAssertion<'a> {
    idp_token_endpoint: &'a str,
    id_token: &'a str,
    idp_client_id: Option<&'a str>,
}

/// The grant type of RFC 8693 token exchange.
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// The grant type of RFC 7523's JWT bearer grant.
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// The settings of an [`OAuthClient`].
///
/// Build them with [`OAuthClientOptions::new`] (users, authorization code) or
/// [`OAuthClientOptions::machine`] (client credentials) and the `with_*` methods; fields may be
/// added in later versions.
#[derive(Clone)]
#[non_exhaustive]
pub struct OAuthClientOptions {
    /// The client's name, sent in dynamic registration.
    pub client_name: String,
    /// The redirect URI of the authorization code flow.
    pub redirect_uri: String,
    /// Shows the user the authorization URL and returns the redirect; `None` for machine
    /// clients.
    pub authorizer: Option<Arc<dyn Authorizer>>,
    /// A pre-registered client id, used before any other registration.
    pub client_id: Option<String>,
    /// The secret of the pre-registered client.
    pub client_secret: Option<String>,
    /// The URL of this client's ID metadata document, used as its client id where the
    /// authorization server supports that.
    pub client_metadata_url: Option<String>,
    /// The credentials of a machine client, which uses the client credentials grant.
    pub client_credentials: Option<ClientCredentials>,
    /// The scopes to ask for instead of those the server suggests.
    pub scopes: Option<Vec<String>>,
    /// Where tokens are kept.
    pub store: Arc<dyn TokenStore>,
    /// How many times one client may step up its scopes after `403 insufficient_scope` before
    /// the request fails; 2 by default, so that one operation leads to at most three
    /// authorizations.
    pub max_step_ups: u32,
    /// When tokens are bound to a DPoP key.
    pub dpop: DpopPolicy,
    /// The DPoP key; one is generated when none is given and the policy allows DPoP.
    pub dpop_key: Option<Arc<DpopKey>>,
}

impl std::fmt::Debug for OAuthClientOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthClientOptions")
            .field("client_name", &self.client_name)
            .field("redirect_uri", &self.redirect_uri)
            .field("client_id", &self.client_id)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("scopes", &self.scopes)
            .field("max_step_ups", &self.max_step_ups)
            .field("dpop", &self.dpop)
            .finish_non_exhaustive()
    }
}

impl OAuthClientOptions {
    /// Creates the settings of a client that logs users in: `authorizer` shows them the
    /// authorization URL, and the authorization server redirects to `redirect_uri`.
    pub fn new(
        client_name: impl Into<String>,
        redirect_uri: impl Into<String>,
        authorizer: Arc<dyn Authorizer>,
    ) -> Self {
        OAuthClientOptions {
            client_name: client_name.into(),
            redirect_uri: redirect_uri.into(),
            authorizer: Some(authorizer),
            client_id: None,
            client_secret: None,
            client_metadata_url: None,
            client_credentials: None,
            scopes: None,
            store: Arc::new(InMemoryTokenStore::default()),
            max_step_ups: 2,
            dpop: DpopPolicy::default(),
            dpop_key: None,
        }
    }

    /// Creates the settings of a machine client, which uses the client credentials grant.
    pub fn machine(credentials: ClientCredentials) -> Self {
        OAuthClientOptions {
            client_name: "mcpweft".to_owned(),
            redirect_uri: String::new(),
            authorizer: None,
            client_id: None,
            client_secret: None,
            client_metadata_url: None,
            client_credentials: Some(credentials),
            scopes: None,
            store: Arc::new(InMemoryTokenStore::default()),
            max_step_ups: 2,
            dpop: DpopPolicy::default(),
            dpop_key: None,
        }
    }

    /// Sets a pre-registered client id and, for a confidential client, its secret.
    pub fn with_client(mut self, client_id: impl Into<String>, client_secret: Option<String>) -> Self {
        self.client_id = Some(client_id.into());
        self.client_secret = client_secret;
        self
    }

    /// Sets the URL of this client's ID metadata document.
    pub fn with_client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// Sets the scopes to ask for instead of those the server suggests.
    pub fn with_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// Sets where tokens are kept.
    pub fn with_store(mut self, store: Arc<dyn TokenStore>) -> Self {
        self.store = store;
        self
    }

    /// Sets how many times the client may step up its scopes.
    pub fn with_max_step_ups(mut self, step_ups: u32) -> Self {
        self.max_step_ups = step_ups;
        self
    }

    /// Sets when tokens are bound to a DPoP key.
    pub fn with_dpop(mut self, policy: DpopPolicy) -> Self {
        self.dpop = policy;
        self
    }

    /// Sets the DPoP key, to keep stored tokens bound to one key across runs.
    pub fn with_dpop_key(mut self, key: Arc<DpopKey>) -> Self {
        self.dpop_key = Some(key);
        self
    }
}

/// What the client learned about the authorization server.
#[derive(Clone)]
struct Server {
    /// The resource indicator sent with every authorization and token request.
    resource: String,
    metadata: AuthorizationServerMetadata,
    /// The scopes of the protected resource metadata, if it lists any.
    resource_scopes: Option<Vec<String>>,
    /// Whether the protected resource metadata says tokens must be DPoP-bound.
    dpop_required: bool,
}

#[derive(Default)]
struct FlowState {
    tokens: Option<StoredTokens>,
    /// Whether the store was asked for tokens, so that a client without any asks it once
    /// rather than at every request.
    loaded: bool,
    server: Option<Server>,
    step_ups: u32,
    /// Whether the MCP server challenged with the `DPoP` scheme.
    dpop_asked: bool,
}

/// Logs a Streamable HTTP client in to a protected MCP server; see the module documentation.
pub struct OAuthClient {
    server_url: Url,
    options: OAuthClientOptions,
    /// The client of the authorization server's endpoints, made at the first login or refresh
    /// (loading the system's root certificates takes milliseconds a client without tokens
    /// never needs).
    http: OnceLock<reqwest::Client>,
    flow: tokio::sync::Mutex<FlowState>,
    dpop: Option<Arc<DpopKey>>,
    /// Set when a server gave a new DPoP nonce, so that its `use_dpop_nonce` challenge is
    /// answered by sending the request again (once per new nonce).
    fresh_nonce: AtomicBool,
}

impl std::fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthClient").field("server_url", &self.server_url.as_str()).finish_non_exhaustive()
    }
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

fn auth_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Auth(format!("{what}: {e}"))
}

/// Returns the rest of `header` after its scheme when that is `scheme` (case-insensitive).
fn strip_scheme<'h>(header: &'h str, scheme: &str) -> Option<&'h str> {
    let header = header.trim_start();
    let head = header.get(..scheme.len())?;
    let rest = &header[scheme.len()..];
    (head.eq_ignore_ascii_case(scheme) && (rest.is_empty() || rest.starts_with(' '))).then_some(rest)
}

/// Reads the parameters of a `Bearer` or `DPoP` challenge.
fn challenge_params(header: &str) -> HashMap<String, String> {
    let mut params = HashMap::new();
    let Some(rest) = strip_scheme(header, "Bearer").or_else(|| strip_scheme(header, "DPoP")) else {
        return params;
    };
    let mut rest = rest.trim_start();
    while !rest.is_empty() {
        let Some((name, after)) = rest.split_once('=') else { break };
        let name = name.trim().trim_start_matches(',').trim().to_ascii_lowercase();
        let after = after.trim_start();
        let (value, remaining) = if let Some(quoted) = after.strip_prefix('"') {
            match quoted.find('"') {
                Some(end) => (&quoted[..end], &quoted[end + 1..]),
                None => (quoted, ""),
            }
        } else {
            match after.find(',') {
                Some(end) => (after[..end].trim(), &after[end..]),
                None => (after.trim(), ""),
            }
        };
        params.insert(name, value.to_owned());
        rest = remaining.trim_start().trim_start_matches(',').trim_start();
    }
    params
}

/// Whether a `WWW-Authenticate` header holds a challenge of the `DPoP` scheme (RFC 9449 §7.1).
fn asks_for_dpop(header: &str) -> bool {
    header.split(',').any(|part| strip_scheme(part, "DPoP").is_some())
}

fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// The URLs of the authorization server metadata of `issuer`, in the order the specification
/// gives: OAuth and OpenID Connect, with the issuer's path inserted or appended.
fn metadata_urls(issuer: &Url) -> Vec<String> {
    let base = origin(issuer);
    let path = issuer.path().trim_end_matches('/');
    if path.is_empty() {
        vec![
            format!("{base}/.well-known/oauth-authorization-server"),
            format!("{base}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{base}/.well-known/oauth-authorization-server{path}"),
            format!("{base}/.well-known/openid-configuration{path}"),
            format!("{base}{path}/.well-known/openid-configuration"),
        ]
    }
}

/// Whether the protected resource metadata's `resource` names the server at `server`: the same
/// origin, and a path that is the server's or one of its parents.
fn resource_matches(resource: &str, server: &Url) -> bool {
    let Ok(resource) = Url::parse(resource) else { return false };
    let parent = resource.path().trim_end_matches('/');
    let path = server.path().trim_end_matches('/');
    origin(&resource) == origin(server) && (path == parent || path.starts_with(&format!("{parent}/")))
}

/// What an authorization server answered.
struct Reply {
    status: reqwest::StatusCode,
    headers: http::HeaderMap,
    body: Vec<u8>,
}

/// Sends oauth2's requests with reqwest, following no redirects; with a DPoP key, each carries
/// a fresh proof.
struct OAuthHttp {
    http: reqwest::Client,
    dpop: Option<Arc<DpopKey>>,
}

impl OAuthHttp {
    /// Sends a request to the authorization server. With a DPoP key it carries a proof, and
    /// when the server answers `use_dpop_nonce` with a new nonce it is sent once more with that
    /// nonce in the proof (RFC 9449 §8).
    async fn send(
        &self,
        method: &reqwest::Method,
        url: &str,
        headers: &http::HeaderMap,
        body: &[u8],
    ) -> Result<Reply, Error> {
        let mut retried = false;
        loop {
            let mut request = self.http.request(method.clone(), url).headers(headers.clone()).body(body.to_vec());
            if let Some(key) = &self.dpop {
                request = request.header("DPoP", key.proof(method.as_str(), url, None)?);
            }
            let response = request.send().await.map_err(|e| auth_error(&format!("the request to {url} failed"), e))?;
            let status = response.status();
            let headers_in = response.headers().clone();
            let bytes =
                response.bytes().await.map_err(|e| auth_error(&format!("reading {url}'s answer failed"), e))?.to_vec();
            let nonce = headers_in.get("dpop-nonce").and_then(|v| v.to_str().ok());
            let fresh = match (&self.dpop, nonce) {
                (Some(key), Some(nonce)) => key.set_nonce(url, nonce),
                _ => false,
            };
            let asks_nonce = status == reqwest::StatusCode::BAD_REQUEST
                && serde_json::from_slice::<Value>(&bytes).is_ok_and(|v| v["error"] == "use_dpop_nonce");
            if asks_nonce && fresh && !retried {
                retried = true;
                continue;
            }
            return Ok(Reply { status, headers: headers_in, body: bytes });
        }
    }
}

impl<'c> oauth2::AsyncHttpClient<'c> for OAuthHttp {
    type Error = Error;
    type Future = futures::future::BoxFuture<'c, Result<HttpResponse, Error>>;

    fn call(&'c self, request: HttpRequest) -> Self::Future {
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            let url = parts.uri.to_string();
            let reply = self.send(&parts.method, &url, &parts.headers, &body).await?;
            let mut builder = http::Response::builder().status(reply.status);
            for (name, value) in &reply.headers {
                builder = builder.header(name, value);
            }
            Ok(builder.body(reply.body).unwrap_or_default())
        })
    }
}

impl OAuthClient {
    /// Creates a client that logs in to the MCP server at `server_url`.
    pub fn new(server_url: &str, options: OAuthClientOptions) -> Result<Self, Error> {
        crate::install_crypto_provider();
        let server_url = Url::parse(server_url).map_err(|e| Error::Config(format!("invalid server URL: {e}")))?;
        let dpop = match (&options.dpop_key, options.dpop) {
            (_, DpopPolicy::Never) => None,
            (Some(key), _) => Some(key.clone()),
            (None, _) => Some(Arc::new(DpopKey::generate()?)),
        };
        Ok(OAuthClient {
            server_url,
            options,
            http: OnceLock::new(),
            flow: tokio::sync::Mutex::default(),
            dpop,
            fresh_nonce: AtomicBool::new(false),
        })
    }

    /// The client of the authorization server's endpoints, made on first use.
    fn http(&self) -> Result<&reqwest::Client, Error> {
        if let Some(http) = self.http.get() {
            return Ok(http);
        }
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(30))
            .build()
            .map_err(|e| Error::Config(format!("no HTTP client: {e}")))?;
        Ok(self.http.get_or_init(|| http))
    }

    /// The key of this server's tokens in the store.
    fn store_key(&self) -> String {
        self.server_url.to_string()
    }

    async fn get_json<T: serde::de::DeserializeOwned>(&self, url: &str) -> Option<T> {
        let response = self.http().ok()?.get(url).header("accept", "application/json").send().await.ok()?;
        if !response.status().is_success() {
            return None;
        }
        serde_json::from_slice(&response.bytes().await.ok()?).ok()
    }

    /// Finds the protected resource metadata and the authorization server's metadata.
    async fn discover(&self, metadata_hint: Option<&str>) -> Result<Server, Error> {
        let base = origin(&self.server_url);
        let path = self.server_url.path().trim_end_matches('/');
        let mut candidates: Vec<String> = metadata_hint.map(str::to_owned).into_iter().collect();
        if !path.is_empty() {
            candidates.push(format!("{base}/.well-known/oauth-protected-resource{path}"));
        }
        candidates.push(format!("{base}/.well-known/oauth-protected-resource"));
        let mut prm = None;
        for url in &candidates {
            if let Some(document) = self.get_json::<ProtectedResourceMetadata>(url).await {
                prm = Some(document);
                break;
            }
        }
        // A 2025-03-26 server without protected resource metadata is its own authorization
        // server, named by its origin only: its metadata's issuer is taken as it is.
        let declared = prm.is_some();
        let dpop_required = prm
            .as_ref()
            .is_some_and(|prm| prm.extra.get("dpop_bound_access_tokens_required") == Some(&Value::Bool(true)));
        let (issuer, resource, resource_scopes) = match prm {
            Some(prm) => {
                if !resource_matches(&prm.resource, &self.server_url) {
                    return Err(Error::Auth(format!(
                        "the protected resource metadata names {} , not this server ({})",
                        prm.resource, self.server_url
                    )));
                }
                let issuer = prm.authorization_servers.first().cloned().unwrap_or_else(|| base.clone());
                (issuer, prm.resource, prm.scopes_supported)
            }
            // Servers of protocol 2025-03-26 are their own authorization server.
            None => (base.clone(), self.server_url.to_string(), None),
        };
        let issuer_url = Url::parse(&issuer).map_err(|e| auth_error("invalid issuer", e))?;
        for url in metadata_urls(&issuer_url) {
            if let Some(metadata) = self.get_json::<AuthorizationServerMetadata>(&url).await {
                // RFC 8414 §3.3: metadata naming another issuer than the declared one is not that
                // server's (a trailing slash aside).
                if declared && metadata.issuer.trim_end_matches('/') != issuer.trim_end_matches('/') {
                    return Err(Error::Auth(format!(
                        "the authorization server metadata at {url} names issuer {:?}, not {issuer:?}",
                        metadata.issuer
                    )));
                }
                return Ok(Server { resource, metadata, resource_scopes, dpop_required });
            }
        }
        // No metadata at all: the default endpoints of protocol 2025-03-26.
        let root = origin(&issuer_url);
        let metadata = AuthorizationServerMetadata {
            issuer: issuer.clone(),
            authorization_endpoint: Some(format!("{root}/authorize")),
            token_endpoint: Some(format!("{root}/token")),
            registration_endpoint: Some(format!("{root}/register")),
            code_challenge_methods_supported: Some(vec!["S256".to_owned()]),
            ..AuthorizationServerMetadata::default()
        };
        Ok(Server { resource, metadata, resource_scopes, dpop_required })
    }

    /// Returns the DPoP key when the tokens of `server` are to be bound to it: the policy
    /// allows it, the authorization server signs with ES256, and (by default) the MCP server
    /// asked for DPoP.
    fn binding_key(&self, server: &Server, flow: &FlowState) -> Option<Arc<DpopKey>> {
        let key = self.dpop.as_ref()?;
        let algorithms = server.metadata.extra.get("dpop_signing_alg_values_supported")?.as_array()?;
        if !algorithms.iter().any(|a| a == DPOP_ALGORITHM) {
            return None;
        }
        let wanted = match self.options.dpop {
            DpopPolicy::WhenSupported => true,
            DpopPolicy::WhenAsked => flow.dpop_asked || server.dpop_required,
            DpopPolicy::Never => false,
        };
        wanted.then(|| key.clone())
    }

    /// The HTTP client of token requests, which sign DPoP proofs with `key`.
    fn token_http(&self, key: Option<Arc<DpopKey>>) -> Result<OAuthHttp, Error> {
        Ok(OAuthHttp { http: self.http()?.clone(), dpop: key })
    }

    /// Chooses how to authenticate at the token endpoint: the first of `client_secret_basic`,
    /// `client_secret_post` and `none` the server supports (`client_secret_basic` when it does
    /// not say).
    fn auth_method(metadata: &AuthorizationServerMetadata) -> &'static str {
        let supported = metadata.token_endpoint_auth_methods_supported.clone().unwrap_or_default();
        ["client_secret_basic", "client_secret_post", "none"]
            .into_iter()
            .find(|m| supported.iter().any(|s| s == m))
            .unwrap_or("client_secret_basic")
    }

    /// Returns the client id and secret: pre-registered, kept from an earlier registration, a
    /// client ID metadata document, or a new dynamic registration.
    async fn register(&self, server: &Server, kept: &StoredTokens) -> Result<(String, Option<String>), Error> {
        if let Some(id) = &self.options.client_id {
            return Ok((id.clone(), self.options.client_secret.clone()));
        }
        // A registration belongs to the authorization server that made it (SEP-2352).
        if let Some(id) = &kept.client_id
            && kept.issuer.as_deref().is_none_or(|issuer| issuer == server.metadata.issuer)
        {
            return Ok((id.clone(), kept.client_secret.clone()));
        }
        if let Some(url) = &self.options.client_metadata_url
            && server.metadata.client_id_metadata_document_supported
        {
            return Ok((url.clone(), None));
        }
        let Some(endpoint) = &server.metadata.registration_endpoint else {
            return Err(Error::Auth(
                "the authorization server offers no registration and no client id was configured".to_owned(),
            ));
        };
        let request = json!({
            "client_name": self.options.client_name,
            "redirect_uris": [self.options.redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": Self::auth_method(&server.metadata),
            "application_type": application_type(&self.options.redirect_uri),
        });
        let response = self
            .http()?
            .post(endpoint)
            .header("content-type", "application/json")
            .body(request.to_string())
            .send()
            .await
            .map_err(|e| auth_error("registration failed", e))?;
        if !response.status().is_success() {
            return Err(Error::Auth(format!("registration was refused with HTTP {}", response.status())));
        }
        let body = response.bytes().await.map_err(|e| auth_error("invalid registration response", e))?;
        let registered: Value =
            serde_json::from_slice(&body).map_err(|e| auth_error("invalid registration response", e))?;
        let id =
            registered["client_id"].as_str().ok_or_else(|| Error::Auth("registration gave no client id".to_owned()))?;
        Ok((id.to_owned(), registered["client_secret"].as_str().map(str::to_owned)))
    }

    /// Builds oauth2's client for the server's endpoints and this client's credentials.
    fn oauth_client(
        &self,
        server: &Server,
        client_id: &str,
        secret: Option<&str>,
    ) -> Result<
        BasicClient<
            oauth2::EndpointSet,
            oauth2::EndpointNotSet,
            oauth2::EndpointNotSet,
            oauth2::EndpointNotSet,
            oauth2::EndpointSet,
        >,
        Error,
    > {
        let metadata = &server.metadata;
        let authorize =
            metadata.authorization_endpoint.clone().unwrap_or_else(|| format!("{}/authorize", metadata.issuer));
        let token = metadata
            .token_endpoint
            .clone()
            .ok_or_else(|| Error::Auth("the authorization server has no token endpoint".to_owned()))?;
        let mut client = BasicClient::new(ClientId::new(client_id.to_owned()))
            .set_auth_uri(AuthUrl::new(authorize).map_err(|e| auth_error("invalid authorization endpoint", e))?)
            .set_token_uri(TokenUrl::new(token).map_err(|e| auth_error("invalid token endpoint", e))?);
        if let Some(secret) = secret {
            client = client.set_client_secret(ClientSecret::new(secret.to_owned()));
        }
        let method = Self::auth_method(metadata);
        client = client.set_auth_type(if method == "client_secret_post" || secret.is_none() {
            AuthType::RequestBody
        } else {
            AuthType::BasicAuth
        });
        if !self.options.redirect_uri.is_empty() {
            client = client.set_redirect_uri(
                RedirectUrl::new(self.options.redirect_uri.clone())
                    .map_err(|e| auth_error("invalid redirect URI", e))?,
            );
        }
        Ok(client)
    }

    /// Runs the authorization code flow with PKCE for `scopes`.
    async fn authorization_code(
        &self,
        server: &Server,
        scopes: &[String],
        kept: &StoredTokens,
        key: Option<Arc<DpopKey>>,
    ) -> Result<StoredTokens, Error> {
        let authorizer = self
            .options
            .authorizer
            .as_ref()
            .ok_or_else(|| Error::Auth("no authorizer to log the user in".to_owned()))?;
        if let Some(methods) = &server.metadata.code_challenge_methods_supported
            && !methods.iter().any(|m| m == "S256")
        {
            return Err(Error::Auth("the authorization server does not support PKCE with S256".to_owned()));
        }
        let (client_id, secret) = self.register(server, kept).await?;
        let client = self.oauth_client(server, &client_id, secret.as_deref())?;
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let (url, state) = client
            .authorize_url(CsrfToken::new_random)
            .add_scopes(scopes.iter().cloned().map(Scope::new))
            .set_pkce_challenge(challenge)
            .add_extra_param("resource", server.resource.clone())
            .url();
        let redirect = authorizer.authorize(url.to_string()).await?;
        let redirect = Url::parse(&redirect).map_err(|e| auth_error("invalid redirect URL", e))?;
        let query: HashMap<String, String> = redirect.query_pairs().into_owned().collect();
        if let Some(error) = query.get("error") {
            return Err(Error::Auth(format!("the authorization was refused: {error}")));
        }
        if query.get("state") != Some(state.secret()) {
            return Err(Error::Auth("the redirect's state does not match the request's".to_owned()));
        }
        check_issuer(query.get("iss").map(String::as_str), &server.metadata)?;
        let code = query.get("code").ok_or_else(|| Error::Auth("the redirect carries no code".to_owned()))?;
        let http = self.token_http(key)?;
        let token = client
            .exchange_code(AuthorizationCode::new(code.clone()))
            .set_pkce_verifier(verifier)
            .add_extra_param("resource", server.resource.clone())
            .request_async(&http)
            .await
            .map_err(|e| auth_error("the token request failed", e))?;
        let same_server = kept.issuer.as_deref().is_none_or(|issuer| issuer == server.metadata.issuer);
        let old_refresh = kept.refresh_token.clone().filter(|_| same_server);
        Ok(stored(&token, scopes, client_id, secret, old_refresh, &server.metadata.issuer))
    }

    /// Runs the client credentials grant for `scopes`.
    async fn client_credentials(
        &self,
        server: &Server,
        scopes: &[String],
        credentials: &ClientCredentials,
        key: Option<Arc<DpopKey>>,
    ) -> Result<StoredTokens, Error> {
        let (client_id, secret, assertion) = match credentials {
            ClientCredentials::Secret { client_id, client_secret } => {
                (client_id.clone(), Some(client_secret.clone()), None)
            }
            ClientCredentials::PrivateKeyJwt { client_id, private_key_pem, algorithm } => {
                // The audience is the authorization server's issuer identifier (RFC 7523bis).
                let assertion = client_assertion(client_id, &server.metadata.issuer, private_key_pem, algorithm)?;
                (client_id.clone(), None, Some(assertion))
            }
            ClientCredentials::IdentityAssertion {
                client_id,
                client_secret,
                idp_token_endpoint,
                id_token,
                idp_client_id,
            } => {
                let assertion =
                    IdentityAssertion { idp_token_endpoint, id_token, idp_client_id: idp_client_id.as_deref() };
                return self
                    .identity_assertion(server, scopes, client_id, client_secret.as_deref(), assertion, key)
                    .await;
            }
            ClientCredentials::WorkloadIdentity { client_id, assertion } => {
                return self.workload_identity(server, scopes, client_id.as_deref(), assertion, key).await;
            }
        };
        let client = self.oauth_client(server, &client_id, secret.as_deref())?;
        let mut request = client
            .exchange_client_credentials()
            .add_scopes(scopes.iter().cloned().map(Scope::new))
            .add_extra_param("resource", server.resource.clone());
        if let Some(assertion) = assertion {
            request = request
                .add_extra_param("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
                .add_extra_param("client_assertion", assertion);
        }
        let http = self.token_http(key)?;
        let token = request.request_async(&http).await.map_err(|e| auth_error("the token request failed", e))?;
        Ok(stored(&token, scopes, client_id, secret, None, &server.metadata.issuer))
    }

    /// Runs enterprise-managed authorization: exchanges the user's ID token at the identity
    /// provider for an identity assertion grant, then trades it for an access token.
    async fn identity_assertion(
        &self,
        server: &Server,
        scopes: &[String],
        client_id: &str,
        client_secret: Option<&str>,
        assertion: IdentityAssertion<'_>,
        key: Option<Arc<DpopKey>>,
    ) -> Result<StoredTokens, Error> {
        let mut exchange = vec![
            ("grant_type", TOKEN_EXCHANGE.to_owned()),
            ("requested_token_type", "urn:ietf:params:oauth:token-type:id-jag".to_owned()),
            ("subject_token", assertion.id_token.to_owned()),
            ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token".to_owned()),
            ("audience", server.metadata.issuer.clone()),
            ("resource", server.resource.clone()),
        ];
        if !scopes.is_empty() {
            exchange.push(("scope", scopes.join(" ")));
        }
        if let Some(id) = assertion.idp_client_id {
            exchange.push(("client_id", id.to_owned()));
        }
        let grant = self.post_token_form(assertion.idp_token_endpoint, &exchange, None, None).await?;
        let grant = grant["access_token"]
            .as_str()
            .ok_or_else(|| Error::Auth("the identity provider's token exchange returned no token".to_owned()))?;
        let mut bearer = vec![("grant_type", JWT_BEARER.to_owned()), ("assertion", grant.to_owned())];
        if !scopes.is_empty() {
            bearer.push(("scope", scopes.join(" ")));
        }
        let endpoint = server
            .metadata
            .token_endpoint
            .clone()
            .ok_or_else(|| Error::Auth("the authorization server has no token endpoint".to_owned()))?;
        let basic = Some((client_id, client_secret));
        let token = self.post_token_form(&endpoint, &bearer, basic, key).await?;
        stored_json(&token, scopes, Some(client_id), client_secret, &server.metadata.issuer)
    }

    /// Runs workload identity federation: the workload's JWT is the grant (RFC 7523 §2.1),
    /// sent once; a refusal is the answer.
    async fn workload_identity(
        &self,
        server: &Server,
        scopes: &[String],
        client_id: Option<&str>,
        assertion: &str,
        key: Option<Arc<DpopKey>>,
    ) -> Result<StoredTokens, Error> {
        let mut form = vec![
            ("grant_type", JWT_BEARER.to_owned()),
            ("assertion", assertion.to_owned()),
            ("resource", server.resource.clone()),
        ];
        if !scopes.is_empty() {
            form.push(("scope", scopes.join(" ")));
        }
        if let Some(id) = client_id {
            form.push(("client_id", id.to_owned()));
        }
        let endpoint = server
            .metadata
            .token_endpoint
            .clone()
            .ok_or_else(|| Error::Auth("the authorization server has no token endpoint".to_owned()))?;
        let token = self.post_token_form(&endpoint, &form, None, key).await?;
        stored_json(&token, scopes, client_id, None, &server.metadata.issuer)
    }

    /// POSTs a form to a token endpoint, with HTTP Basic client authentication when `basic`
    /// names a client and a DPoP proof signed with `key`, and returns the JSON it answers with.
    async fn post_token_form(
        &self,
        endpoint: &str,
        form: &[(&str, String)],
        basic: Option<(&str, Option<&str>)>,
        key: Option<Arc<DpopKey>>,
    ) -> Result<Value, Error> {
        let body = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(form).finish();
        let mut headers = http::HeaderMap::new();
        headers.insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static("application/x-www-form-urlencoded"));
        headers.insert(http::header::ACCEPT, http::HeaderValue::from_static("application/json"));
        if let Some((id, secret)) = basic {
            let credentials = format!("{id}:{}", secret.unwrap_or(""));
            let value = format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(credentials));
            let value = http::HeaderValue::from_str(&value).map_err(|e| auth_error("invalid client credentials", e))?;
            headers.insert(http::header::AUTHORIZATION, value);
        }
        let reply = self.token_http(key)?.send(&reqwest::Method::POST, endpoint, &headers, body.as_bytes()).await?;
        let status = reply.status;
        let answer: Value = serde_json::from_slice(&reply.body).unwrap_or(Value::Null);
        if !status.is_success() {
            let error = answer["error"].as_str().unwrap_or("no error code");
            let description = answer["error_description"].as_str().unwrap_or("");
            return Err(Error::Auth(
                format!("{endpoint} answered {status}: {error} {description}").trim_end().to_owned(),
            ));
        }
        Ok(answer)
    }

    /// Exchanges the refresh token for a new access token.
    async fn refresh(&self, server: &Server, kept: &StoredTokens) -> Result<StoredTokens, Error> {
        let refresh = kept.refresh_token.clone().ok_or_else(|| Error::Auth("no refresh token".to_owned()))?;
        let client_id = kept
            .client_id
            .clone()
            .or_else(|| self.options.client_id.clone())
            .ok_or_else(|| Error::Auth("no client id".to_owned()))?;
        let client = self.oauth_client(server, &client_id, kept.client_secret.as_deref())?;
        let refresh_token = RefreshToken::new(refresh.clone());
        let bound = kept.token_type.as_deref().is_some_and(|t| t.eq_ignore_ascii_case("DPoP"));
        let http = self.token_http(self.dpop.clone().filter(|_| bound))?;
        let token = client
            .exchange_refresh_token(&refresh_token)
            .add_extra_param("resource", server.resource.clone())
            .request_async(&http)
            .await
            .map_err(|e| auth_error("refreshing the token failed", e))?;
        Ok(stored(&token, &kept.scopes, client_id, kept.client_secret.clone(), Some(refresh), &server.metadata.issuer))
    }

    /// Gets a token for `scopes`, the ones the challenge named or those the server suggests.
    async fn login(
        &self,
        flow: &mut FlowState,
        metadata_hint: Option<&str>,
        challenge_scope: Option<&str>,
    ) -> Result<(), Error> {
        let server = match &flow.server {
            Some(server) => server.clone(),
            None => {
                let server = self.discover(metadata_hint).await?;
                flow.server = Some(server.clone());
                server
            }
        };
        let kept = flow.tokens.clone().unwrap_or_default();
        let mut scopes: Vec<String> = match (&self.options.scopes, challenge_scope) {
            (Some(scopes), _) => scopes.clone(),
            (None, Some(scope)) => scope.split_whitespace().map(str::to_owned).collect(),
            (None, None) => server.resource_scopes.clone().unwrap_or_default(),
        };
        let key = self.binding_key(&server, flow);
        let tokens = match &self.options.client_credentials {
            Some(credentials) => self.client_credentials(&server, &scopes, credentials, key).await?,
            None => {
                let offered =
                    server.metadata.scopes_supported.as_ref().is_some_and(|s| s.iter().any(|s| s == "offline_access"));
                if offered && !scopes.iter().any(|s| s == "offline_access") {
                    scopes.push("offline_access".to_owned());
                }
                self.authorization_code(&server, &scopes, &kept, key).await?
            }
        };
        self.options.store.save(&self.store_key(), tokens.clone()).await;
        flow.tokens = Some(tokens);
        Ok(())
    }
}

/// Keeps what a token response gave.
fn stored(
    token: &oauth2::basic::BasicTokenResponse,
    scopes: &[String],
    client_id: String,
    client_secret: Option<String>,
    old_refresh: Option<String>,
    issuer: &str,
) -> StoredTokens {
    StoredTokens {
        access_token: Some(token.access_token().secret().clone()),
        refresh_token: token.refresh_token().map(|r| r.secret().clone()).or(old_refresh),
        expires_at: token.expires_in().map(|d| now().saturating_add(d.as_secs())),
        scopes: scopes.to_vec(),
        client_id: Some(client_id),
        client_secret,
        issuer: Some(issuer.to_owned()),
        token_type: Some(token.token_type().as_ref().to_owned()),
    }
}

/// Keeps what a token response read as JSON gave.
fn stored_json(
    token: &Value,
    scopes: &[String],
    client_id: Option<&str>,
    client_secret: Option<&str>,
    issuer: &str,
) -> Result<StoredTokens, Error> {
    let access = token["access_token"]
        .as_str()
        .ok_or_else(|| Error::Auth("the token response has no access token".to_owned()))?;
    Ok(StoredTokens {
        access_token: Some(access.to_owned()),
        refresh_token: token["refresh_token"].as_str().map(str::to_owned),
        expires_at: token["expires_in"].as_u64().map(|s| now().saturating_add(s)),
        scopes: scopes.to_vec(),
        client_id: client_id.map(str::to_owned),
        client_secret: client_secret.map(str::to_owned),
        issuer: Some(issuer.to_owned()),
        token_type: token["token_type"].as_str().map(str::to_owned),
    })
}

/// Signs the client assertion of `private_key_jwt` (RFC 7523).
fn client_assertion(client_id: &str, audience: &str, pem: &str, algorithm: &str) -> Result<String, Error> {
    crate::install_crypto_provider();
    use jsonwebtoken::{Algorithm, EncodingKey, Header};
    let alg: Algorithm = algorithm.parse().map_err(|e| auth_error("unknown signing algorithm", e))?;
    let key = match alg {
        Algorithm::ES256 | Algorithm::ES384 => EncodingKey::from_ec_pem(pem.as_bytes()),
        Algorithm::EdDSA => EncodingKey::from_ed_pem(pem.as_bytes()),
        _ => EncodingKey::from_rsa_pem(pem.as_bytes()),
    }
    .map_err(|e| auth_error("invalid private key", e))?;
    let jti = crate::random::random_id().map_err(|e| auth_error("no random source", e))?;
    let claims = json!({
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": now(),
        "exp": now() + 300,
        "jti": jti,
    });
    jsonwebtoken::encode(&Header::new(alg), &claims, &key)
        .map_err(|e| auth_error("signing the client assertion failed", e))
}

impl OAuthClient {
    /// Returns the tokens to send, loaded from the store first and refreshed when expired.
    async fn current_tokens(&self) -> Result<Option<StoredTokens>, Error> {
        let mut flow = self.flow.lock().await;
        if !flow.loaded {
            flow.tokens = self.options.store.load(&self.store_key()).await;
            flow.loaded = true;
        }
        let Some(tokens) = flow.tokens.clone() else { return Ok(None) };
        let expired = tokens.expires_at.is_some_and(|at| at <= now().saturating_add(30));
        if expired && tokens.refresh_token.is_some() {
            let server = match &flow.server {
                Some(server) => Some(server.clone()),
                None => self.discover(None).await.ok(),
            };
            if let Some(server) = server {
                flow.server = Some(server.clone());
                match self.refresh(&server, &tokens).await {
                    Ok(fresh) => {
                        self.options.store.save(&self.store_key(), fresh.clone()).await;
                        flow.tokens = Some(fresh);
                    }
                    Err(e) => tracing::debug!(error = %e, "refreshing the access token failed"),
                }
            }
        }
        Ok(flow.tokens.clone())
    }
}

#[async_trait]
impl AuthProvider for OAuthClient {
    async fn access_token(&self) -> Result<Option<String>, Error> {
        Ok(self.current_tokens().await?.and_then(|t| t.access_token))
    }

    async fn credentials(&self, method: &str, url: &str) -> Result<Option<RequestCredentials>, Error> {
        let Some(tokens) = self.current_tokens().await? else { return Ok(None) };
        let Some(token) = tokens.access_token else { return Ok(None) };
        let bound = tokens.token_type.as_deref().is_some_and(|t| t.eq_ignore_ascii_case("DPoP"));
        match &self.dpop {
            Some(key) if bound => Ok(Some(RequestCredentials::dpop(&token, key.proof(method, url, Some(&token))?))),
            _ => Ok(Some(RequestCredentials::bearer(&token))),
        }
    }

    async fn dpop_nonce(&self, url: &str, nonce: &str) {
        if let Some(key) = &self.dpop
            && key.set_nonce(url, nonce)
        {
            self.fresh_nonce.store(true, Ordering::SeqCst);
        }
    }

    async fn challenged(&self, status: u16, www_authenticate: Option<&str>) -> Result<bool, Error> {
        let params = www_authenticate.map(challenge_params).unwrap_or_default();
        let error = params.get("error").map(String::as_str);
        if status == 401 && error == Some("use_dpop_nonce") {
            // The nonce came in the same response: send the request again with it, once.
            return Ok(self.fresh_nonce.swap(false, Ordering::SeqCst));
        }
        let mut flow = self.flow.lock().await;
        if www_authenticate.is_some_and(asks_for_dpop) {
            flow.dpop_asked = true;
        }
        let hint = params.get("resource_metadata").map(String::as_str);
        match status {
            401 => {
                // A token was refused: the server may have moved to another authorization
                // server, so its metadata is read again (and a registration made with the old
                // one is not presented to the new one).
                if flow.tokens.as_ref().is_some_and(|t| t.access_token.is_some()) {
                    flow.server = None;
                }
                self.login(&mut flow, hint, params.get("scope").map(String::as_str)).await?;
                Ok(true)
            }
            403 if params.get("error").map(String::as_str) == Some("insufficient_scope") => {
                if flow.step_ups >= self.options.max_step_ups {
                    return Ok(false);
                }
                flow.step_ups += 1;
                let mut scopes = flow.tokens.as_ref().map(|t| t.scopes.clone()).unwrap_or_default();
                for scope in params.get("scope").map(String::as_str).unwrap_or("").split_whitespace() {
                    if !scopes.iter().any(|s| s == scope) {
                        scopes.push(scope.to_owned());
                    }
                }
                let union = scopes.join(" ");
                self.login(&mut flow, hint, Some(&union)).await?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A store without tokens that counts how often it is asked.
    #[derive(Default)]
    struct CountingStore(std::sync::atomic::AtomicUsize);

    #[async_trait]
    impl TokenStore for CountingStore {
        async fn load(&self, _resource: &str) -> Option<StoredTokens> {
            self.0.fetch_add(1, Ordering::SeqCst);
            None
        }

        async fn save(&self, _resource: &str, _tokens: StoredTokens) {}
    }

    #[tokio::test]
    async fn a_client_without_tokens_asks_its_store_once() {
        let store = Arc::new(CountingStore::default());
        let credentials = ClientCredentials::Secret { client_id: "c".to_owned(), client_secret: "s".to_owned() };
        let mut options = OAuthClientOptions::machine(credentials);
        options.store = store.clone();
        let client = OAuthClient::new("http://127.0.0.1:1/mcp", options).unwrap();
        for _ in 0..3 {
            assert!(client.access_token().await.unwrap().is_none());
            assert!(client.credentials("POST", "http://127.0.0.1:1/mcp").await.unwrap().is_none());
        }
        assert_eq!(store.0.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn challenges_are_read_with_quoted_and_bare_values() {
        let params = challenge_params(
            r#"Bearer error="insufficient_scope", scope="a b", resource_metadata="http://x/.well-known/oauth-protected-resource/mcp", realm=plain"#,
        );
        assert_eq!(params["error"], "insufficient_scope");
        assert_eq!(params["scope"], "a b");
        assert_eq!(params["resource_metadata"], "http://x/.well-known/oauth-protected-resource/mcp");
        assert_eq!(params["realm"], "plain");
        assert!(challenge_params("Basic realm=x").is_empty());
        let dpop = challenge_params(r#"DPoP error="use_dpop_nonce", resource_metadata="http://x/prm""#);
        assert_eq!(dpop["error"], "use_dpop_nonce");
        assert_eq!(dpop["resource_metadata"], "http://x/prm");
        assert!(challenge_params("DPoPish realm=x").is_empty());
    }

    #[test]
    fn a_dpop_challenge_is_recognized_among_others() {
        assert!(asks_for_dpop(r#"DPoP resource_metadata="http://x/prm""#));
        assert!(asks_for_dpop(r#"Bearer realm="mcp", DPoP algs="ES256""#));
        assert!(!asks_for_dpop(r#"Bearer error="use_dpop_nonce""#));
    }

    #[test]
    fn metadata_urls_follow_the_specification_order() {
        let with_path = metadata_urls(&Url::parse("https://as.example/tenant1").unwrap());
        assert_eq!(
            with_path,
            [
                "https://as.example/.well-known/oauth-authorization-server/tenant1",
                "https://as.example/.well-known/openid-configuration/tenant1",
                "https://as.example/tenant1/.well-known/openid-configuration",
            ]
        );
        let root = metadata_urls(&Url::parse("https://as.example").unwrap());
        assert_eq!(
            root,
            [
                "https://as.example/.well-known/oauth-authorization-server",
                "https://as.example/.well-known/openid-configuration"
            ]
        );
    }

    #[test]
    fn the_resource_must_name_this_server() {
        let server = Url::parse("https://mcp.example/mcp").unwrap();
        assert!(resource_matches("https://mcp.example/mcp", &server));
        assert!(resource_matches("https://mcp.example/", &server));
        assert!(!resource_matches("https://evil.example/mcp", &server));
        assert!(!resource_matches("https://mcp.example/other", &server));
    }
}

/// Checks the `iss` of an authorization response (RFC 9207): when present it must be the
/// authorization server's issuer, compared exactly; when the server says it sends one
/// (`authorization_response_iss_parameter_supported`) it must be present.
fn check_issuer(iss: Option<&str>, metadata: &super::AuthorizationServerMetadata) -> Result<(), Error> {
    let promised = metadata.extra.get("authorization_response_iss_parameter_supported") == Some(&Value::Bool(true));
    match iss {
        Some(iss) if iss != metadata.issuer => Err(Error::Auth(format!(
            "the redirect's iss {iss:?} is not the authorization server's issuer {:?}",
            metadata.issuer
        ))),
        None if promised => {
            Err(Error::Auth("the authorization server promised an iss in its redirect, which has none".to_owned()))
        }
        _ => Ok(()),
    }
}

/// The OpenID `application_type` a client registers with (SEP-837): `native` when its redirect
/// URI is on loopback or has a scheme of its own (an app on the user's machine), `web` when it
/// is an HTTP(S) URL of another host.
fn application_type(redirect_uri: &str) -> &'static str {
    let Ok(url) = url::Url::parse(redirect_uri) else { return "native" };
    if !matches!(url.scheme(), "http" | "https") {
        return "native";
    }
    match url.host() {
        Some(url::Host::Domain(d)) if d.eq_ignore_ascii_case("localhost") => "native",
        Some(url::Host::Ipv4(ip)) if ip.is_loopback() => "native",
        Some(url::Host::Ipv6(ip)) if ip.is_loopback() => "native",
        _ => "web",
    }
}

#[cfg(test)]
mod application_type_tests {
    use super::application_type;

    #[test]
    fn loopback_and_custom_schemes_are_native_apps() {
        assert_eq!(application_type("http://127.0.0.1:8765/callback"), "native");
        assert_eq!(application_type("http://localhost/cb"), "native");
        assert_eq!(application_type("http://[::1]:9/cb"), "native");
        assert_eq!(application_type("com.example.app:/callback"), "native");
        assert_eq!(application_type("https://app.example.com/callback"), "web");
    }

    #[test]
    fn the_iss_of_a_redirect_is_the_issuer_exactly() {
        let metadata = |promised: bool| -> crate::auth::AuthorizationServerMetadata {
            serde_json::from_value(serde_json::json!({
                "issuer": "http://localhost:9000",
                "authorization_response_iss_parameter_supported": promised,
            }))
            .unwrap()
        };
        assert!(super::check_issuer(Some("http://localhost:9000"), &metadata(true)).is_ok());
        assert!(super::check_issuer(None, &metadata(false)).is_ok());
        assert!(super::check_issuer(None, &metadata(true)).is_err(), "promised but missing");
        assert!(super::check_issuer(Some("http://localhost:9000/"), &metadata(false)).is_err(), "no normalization");
        assert!(super::check_issuer(Some("https://evil.example.com"), &metadata(false)).is_err());
    }
}
