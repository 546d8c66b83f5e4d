//! The built-in verifier of JWT access tokens (RFC 9068), with keys from a JWKS document.

use std::{
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use async_trait::async_trait;
use jsonwebtoken::{
    Algorithm, DecodingKey, Validation, decode, decode_header,
    jwk::{Jwk, JwkSet},
};
use serde_json::{Map, Value};

use super::resource::{AuthInfo, TokenError, TokenVerifier};
use crate::{Error, sync::lock};

/// The asymmetric algorithms accepted by default; `none` and shared-secret algorithms never
/// are.
const DEFAULT_ALGORITHMS: [Algorithm; 8] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
];

/// The most bytes a JWKS document may have; a key set is a few kilobytes.
const MAX_JWKS_BYTES: usize = 1024 * 1024;

/// Where the verifier's keys come from.
enum Keys {
    /// A fixed key set.
    Fixed(JwkSet),
    /// A JWKS URL, fetched when first needed and again when a token names an unknown key.
    Remote(Remote),
}

/// A key set fetched from a URL: one fetch at a time, at most one per refresh interval.
struct Remote {
    url: String,
    http: reqwest::Client,
    /// Held for the whole of a fetch, so that the tokens waiting for one share it.
    fetching: tokio::sync::Mutex<()>,
    state: Mutex<Fetched>,
}

/// What the fetches of a [`Remote`] key set gave.
#[derive(Default)]
struct Fetched {
    /// The key set of the last fetch that succeeded.
    keys: Option<Arc<JwkSet>>,
    /// When the last fetch ended, and why it failed if it did.
    last: Option<(Instant, Option<String>)>,
}

impl Fetched {
    /// Whether a fetch ended less than `interval` ago, so that none may start now.
    fn recent(&self, interval: Duration) -> bool {
        self.last.as_ref().is_some_and(|(at, _)| at.elapsed() < interval)
    }

    /// Picks the key a token names from the key set, or says why there is none: the failure of
    /// the last fetch when no key set was ever fetched.
    fn pick(&self, kid: Option<&str>, alg: Algorithm) -> Result<DecodingKey, TokenError> {
        match (&self.keys, &self.last) {
            (Some(keys), _) => pick(keys, kid, alg),
            (None, Some((_, Some(failure)))) => Err(TokenError::Unavailable(failure.clone())),
            (None, _) => Err(TokenError::Unavailable("the key set has not been fetched".to_owned())),
        }
    }
}

/// Verifies JWT access tokens: the signature with a key of a JWKS document (fetched from a
/// URL and cached, or given directly), then the issuer, the audience (this server's resource
/// URL), the expiry and the not-before time (`nbf`, when present) with a small leeway, and the
/// required scopes.
///
/// Only asymmetric algorithms are accepted (RS, PS and ES families, and EdDSA when asked for);
/// an unsigned token (`alg: none`) never is.
pub struct JwtVerifier {
    keys: Keys,
    issuer: String,
    audience: Vec<String>,
    leeway: Duration,
    required_scopes: Vec<String>,
    algorithms: Vec<Algorithm>,
    refresh_interval: Duration,
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .field("leeway", &self.leeway)
            .field("required_scopes", &self.required_scopes)
            .finish_non_exhaustive()
    }
}

impl JwtVerifier {
    /// Creates a verifier of tokens from `issuer` for `audience` (this server's resource URL),
    /// whose keys are fetched from `jwks_url` and fetched again when a token names a key that
    /// is not known.
    pub fn with_jwks_url(jwks_url: impl Into<String>, issuer: impl Into<String>, audience: impl Into<String>) -> Self {
        crate::install_crypto_provider();
        let http = reqwest::Client::builder().timeout(Duration::from_secs(10)).build().unwrap_or_default();
        let keys = Keys::Remote(Remote {
            url: jwks_url.into(),
            http,
            fetching: tokio::sync::Mutex::new(()),
            state: Mutex::new(Fetched::default()),
        });
        Self::with_keys(keys, issuer.into(), audience.into())
    }

    /// Creates a verifier of tokens from `issuer` for `audience` whose keys are the JWKS
    /// document `jwks` (`{"keys": [...]}`).
    pub fn with_jwks(jwks: &Value, issuer: impl Into<String>, audience: impl Into<String>) -> Result<Self, Error> {
        crate::install_crypto_provider();
        let set: JwkSet = serde_json::from_value(jwks.clone())
            .map_err(|e| Error::Config(format!("the JWKS document is not valid: {e}")))?;
        Ok(Self::with_keys(Keys::Fixed(set), issuer.into(), audience.into()))
    }

    fn with_keys(keys: Keys, issuer: String, audience: String) -> Self {
        JwtVerifier {
            keys,
            issuer,
            audience: vec![audience],
            leeway: Duration::from_secs(60),
            required_scopes: Vec::new(),
            algorithms: DEFAULT_ALGORITHMS.to_vec(),
            refresh_interval: Duration::from_secs(30),
        }
    }

    /// Sets how far a token's expiry may lie in the past, and its not-before time in the
    /// future, because of clock skew (60 seconds by default).
    pub fn with_leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// Sets the scopes every token must carry.
    pub fn with_required_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.required_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Also accepts tokens signed with EdDSA.
    pub fn with_eddsa(mut self) -> Self {
        if !self.algorithms.contains(&Algorithm::EdDSA) {
            self.algorithms.push(Algorithm::EdDSA);
        }
        self
    }

    /// Sets how soon after one fetch of the JWKS URL a token with an unknown key may cause
    /// another (30 seconds by default), so that forged key ids cannot flood the issuer. A fetch
    /// that failed is remembered as long: tokens are refused with its reason meanwhile.
    pub fn with_refresh_interval(mut self, interval: Duration) -> Self {
        self.refresh_interval = interval;
        self
    }

    /// Returns the key that signed a token with key id `kid`, fetching the key set when it is
    /// not known yet (or again, when the key is not in it and the last fetch is old enough).
    ///
    /// Tokens that need a fetch while one is under way wait for it and use what it gave, so
    /// one fetch is in flight at a time, and at most one starts per refresh interval.
    async fn key(&self, kid: Option<&str>, alg: Algorithm) -> Result<DecodingKey, TokenError> {
        let remote = match &self.keys {
            Keys::Fixed(set) => return pick(set, kid, alg),
            Keys::Remote(remote) => remote,
        };
        let settled = |state: &Fetched| match state.pick(kid, alg) {
            Ok(key) => Some(Ok(key)),
            Err(e) if state.recent(self.refresh_interval) => Some(Err(e)),
            Err(_) => None,
        };
        if let Some(outcome) = settled(&lock(&remote.state)) {
            return outcome;
        }
        let _fetching = remote.fetching.lock().await;
        // The fetch this token waited for may have settled it.
        if let Some(outcome) = settled(&lock(&remote.state)) {
            return outcome;
        }
        let fetched = fetch_jwks(&remote.http, &remote.url).await;
        let mut state = lock(&remote.state);
        match fetched {
            Ok(keys) => {
                state.keys = Some(Arc::new(keys));
                state.last = Some((Instant::now(), None));
            }
            Err(failure) => state.last = Some((Instant::now(), Some(failure))),
        }
        state.pick(kid, alg)
    }
}

/// Fetches a JWKS document of at most [`MAX_JWKS_BYTES`], or says why it could not.
async fn fetch_jwks(http: &reqwest::Client, url: &str) -> Result<JwkSet, String> {
    let failed = |e: &dyn std::fmt::Display| format!("fetching the key set failed: {e}");
    let too_large = || failed(&format!("the document has more than {MAX_JWKS_BYTES} bytes"));
    let response = http.get(url).send().await.map_err(|e| failed(&e))?;
    let mut response = response.error_for_status().map_err(|e| failed(&e))?;
    if response.content_length().is_some_and(|length| length > MAX_JWKS_BYTES as u64) {
        return Err(too_large());
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| failed(&e))? {
        if body.len() + chunk.len() > MAX_JWKS_BYTES {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body).map_err(|e| failed(&e))
}

/// Picks the key a token names, or the only key of a fitting type when it names none.
fn pick(set: &JwkSet, kid: Option<&str>, alg: Algorithm) -> Result<DecodingKey, TokenError> {
    let usable = |jwk: &&Jwk| {
        jwk.common.public_key_use.as_ref().is_none_or(|u| *u == jsonwebtoken::jwk::PublicKeyUse::Signature)
    };
    let jwk = match kid {
        Some(kid) => set.find(kid).filter(usable),
        None => {
            let mut fitting = set
                .keys
                .iter()
                .filter(usable)
                .filter(|k| DecodingKey::from_jwk(k).is_ok_and(|d| d.family() == alg.family()));
            match (fitting.next(), fitting.next()) {
                (Some(only), None) => Some(only),
                _ => None,
            }
        }
    };
    let jwk = jwk.ok_or_else(|| TokenError::Invalid("the token's signing key is not known".to_owned()))?;
    DecodingKey::from_jwk(jwk).map_err(|e| TokenError::Invalid(format!("the signing key is not usable: {e}")))
}

#[async_trait]
impl TokenVerifier for JwtVerifier {
    async fn verify(&self, token: &str) -> Result<AuthInfo, TokenError> {
        let header = decode_header(token).map_err(|e| TokenError::Invalid(format!("malformed token: {e}")))?;
        if !self.algorithms.contains(&header.alg) {
            return Err(TokenError::Invalid(format!("the algorithm {:?} is not accepted", header.alg)));
        }
        let key = self.key(header.kid.as_deref(), header.alg).await?;
        let mut validation = Validation::new(header.alg);
        validation.algorithms = self.algorithms.iter().copied().filter(|a| a.family() == key.family()).collect();
        validation.leeway = self.leeway.as_secs();
        // RFC 7519 4.1.5: a token must not be accepted before its `nbf`.
        validation.validate_nbf = true;
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&self.audience);
        let data = decode::<Map<String, Value>>(token, &key, &validation)
            .map_err(|e| TokenError::Invalid(format!("the token was refused: {e}")))?;
        let info = auth_info(data.claims);
        if !info.has_scopes(&self.required_scopes) {
            return Err(TokenError::Invalid("the token lacks a required scope".to_owned()));
        }
        Ok(info)
    }
}

/// Reads the identity from a token's claims: `sub`, `client_id` (or `azp`), `iss`, `aud`,
/// `exp`, and the scopes from `scope` (space-separated) or `scp` (a list or a string).
fn auth_info(claims: Map<String, Value>) -> AuthInfo {
    let text = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
    let words = |value: &Value| -> Vec<String> {
        match value {
            Value::String(s) => s.split_whitespace().map(str::to_owned).collect(),
            Value::Array(items) => items.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
            _ => Vec::new(),
        }
    };
    AuthInfo {
        subject: text("sub"),
        client_id: text("client_id").or_else(|| text("azp")),
        issuer: text("iss"),
        audience: claims.get("aud").map(words).unwrap_or_default(),
        scopes: claims.get("scope").or_else(|| claims.get("scp")).map(words).unwrap_or_default(),
        expires_at: claims.get("exp").and_then(Value::as_u64),
        claims,
    }
}
