//! Authorization for bridge servers and clients: the JSON settings of a protected server and
//! its verifier callback, and the JSON settings of a client's login with its authorizer and
//! token store callbacks.

use std::{collections::HashMap, sync::Arc, time::Duration};

use async_trait::async_trait;
use mcpweft::auth::{
    AuthInfo, Authorizer, ClientCredentials, JwtVerifier, OAuthClient, OAuthClientOptions, ResourceServerOptions,
    StoredTokens, TokenError, TokenStore, TokenVerifier,
};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::{Callback, Context, Error, server::parse};

/// The built-in JWT verifier's settings, as JSON.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct JwtSpec {
    issuer: String,
    jwks_url: Option<String>,
    jwks: Option<Value>,
    audience: Option<String>,
    required_scopes: Option<Vec<String>>,
    leeway_ms: Option<u64>,
    refresh_interval_ms: Option<u64>,
}

/// A protected server's settings, as JSON.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ResourceSpec {
    resource: String,
    authorization_servers: Option<Vec<String>>,
    required_scopes: Option<Vec<String>>,
    scopes_supported: Option<Vec<String>>,
    method_scopes: Option<HashMap<String, Vec<String>>>,
    tool_scopes: Option<HashMap<String, Vec<String>>>,
    resource_name: Option<String>,
    leeway_ms: Option<u64>,
    jwt: Option<JwtSpec>,
}

/// A verifier written in another language: the payload is `{"token"}`, and the callback
/// returns the identity (`subject`, `clientId`, `issuer`, `audience`, `scopes`, `expiresAt`,
/// `claims`) or `null` for a token it refuses; an error refuses the token too.
struct CallbackVerifier(Arc<dyn Callback>);

#[async_trait]
impl TokenVerifier for CallbackVerifier {
    async fn verify(&self, token: &str) -> Result<AuthInfo, TokenError> {
        match self.0.call(json!({ "token": token }), Context::notification()).await {
            Ok(Value::Null) => Err(TokenError::Invalid("the verifier refused the token".to_owned())),
            Ok(value) => serde_json::from_value(value)
                .map_err(|e| TokenError::Invalid(format!("the verifier answered no identity: {e}"))),
            Err(e) => Err(TokenError::Invalid(e.message)),
        }
    }
}

/// Builds the authorization settings of a server from their JSON (`auth` in the HTTP options)
/// and the verifier callback, when there is one. The verifier is the callback when given, and
/// otherwise the built-in JWT verifier the `jwt` key configures.
pub(crate) fn resource_options(
    spec: Value,
    verifier: Option<Arc<dyn Callback>>,
) -> Result<ResourceServerOptions, Error> {
    let spec: ResourceSpec = parse(spec, "auth options")?;
    let verifier: Arc<dyn TokenVerifier> = match (verifier, spec.jwt) {
        (Some(callback), _) => Arc::new(CallbackVerifier(callback)),
        (None, Some(jwt)) => {
            let audience = jwt.audience.unwrap_or_else(|| spec.resource.clone());
            let mut verifier = match (jwt.jwks_url, jwt.jwks) {
                (Some(url), None) => JwtVerifier::with_jwks_url(url, jwt.issuer, audience),
                (None, Some(jwks)) => JwtVerifier::with_jwks(&jwks, jwt.issuer, audience)?,
                _ => return Err(Error::invalid_input("auth.jwt needs exactly one of jwksUrl and jwks")),
            };
            if let Some(scopes) = jwt.required_scopes {
                verifier = verifier.with_required_scopes(scopes);
            }
            if let Some(ms) = jwt.leeway_ms {
                verifier = verifier.with_leeway(Duration::from_millis(ms));
            }
            if let Some(ms) = jwt.refresh_interval_ms {
                verifier = verifier.with_refresh_interval(Duration::from_millis(ms));
            }
            Arc::new(verifier)
        }
        (None, None) => return Err(Error::invalid_input("auth needs a verifier callback or a jwt key")),
    };
    let mut options = ResourceServerOptions::new(spec.resource, verifier);
    for issuer in spec.authorization_servers.unwrap_or_default() {
        options = options.with_authorization_server(issuer);
    }
    if let Some(scopes) = spec.required_scopes {
        options = options.with_required_scopes(scopes);
    }
    if let Some(scopes) = spec.scopes_supported {
        options = options.with_scopes_supported(scopes);
    }
    for (method, scopes) in spec.method_scopes.unwrap_or_default() {
        options = options.with_method_scopes(method, scopes);
    }
    for (tool, scopes) in spec.tool_scopes.unwrap_or_default() {
        options = options.with_tool_scopes(tool, scopes);
    }
    if let Some(name) = spec.resource_name {
        options = options.with_resource_name(name);
    }
    if let Some(ms) = spec.leeway_ms {
        options = options.with_leeway(Duration::from_millis(ms));
    }
    Ok(options)
}

/// A machine client's credentials, as JSON.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct CredentialsSpec {
    client_id: String,
    client_secret: Option<String>,
    private_key_pem: Option<String>,
    algorithm: Option<String>,
}

/// A client's login settings, as JSON.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct LoginSpec {
    client_name: Option<String>,
    redirect_uri: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
    client_metadata_url: Option<String>,
    scopes: Option<Vec<String>>,
    max_step_ups: Option<u32>,
    client_credentials: Option<CredentialsSpec>,
    identity_assertion: Option<IdentityAssertionSpec>,
    workload_identity: Option<WorkloadIdentitySpec>,
}

/// Workload identity federation settings, as JSON: the JWT the workload's platform issued.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct WorkloadIdentitySpec {
    client_id: Option<String>,
    assertion: String,
}

/// Enterprise-managed authorization (SEP-990) settings, as JSON.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct IdentityAssertionSpec {
    client_id: String,
    client_secret: Option<String>,
    idp_token_endpoint: String,
    id_token: String,
    idp_client_id: Option<String>,
}

/// An authorizer written in another language: the payload is `{"authorizationUrl"}`, and the
/// callback returns the URL the authorization server redirected to (a string, or
/// `{"redirectUrl"}`).
struct CallbackAuthorizer(Arc<dyn Callback>);

#[async_trait]
impl Authorizer for CallbackAuthorizer {
    async fn authorize(&self, authorization_url: String) -> Result<String, mcpweft::Error> {
        let answer = self.0.call(json!({ "authorizationUrl": authorization_url }), Context::notification()).await;
        let answer = answer.map_err(|e| mcpweft::Error::Auth(format!("the authorizer failed: {}", e.message)))?;
        let url = answer.as_str().or_else(|| answer.get("redirectUrl").and_then(Value::as_str));
        url.map(str::to_owned).ok_or_else(|| mcpweft::Error::Auth("the authorizer returned no redirect URL".to_owned()))
    }
}

/// A token store written in another language: the payload is `{"op": "load", "resource"}`
/// (the callback returns the stored tokens or `null`) or `{"op": "save", "resource",
/// "tokens"}`.
struct CallbackStore(Arc<dyn Callback>);

#[async_trait]
impl TokenStore for CallbackStore {
    async fn load(&self, resource: &str) -> Option<StoredTokens> {
        let answer = self.0.call(json!({ "op": "load", "resource": resource }), Context::notification()).await;
        match answer {
            Ok(Value::Null) => None,
            Ok(value) => serde_json::from_value(value).ok(),
            Err(e) => {
                tracing::warn!(error = %e.message, "loading tokens failed");
                None
            }
        }
    }

    async fn save(&self, resource: &str, tokens: StoredTokens) {
        let payload = json!({ "op": "save", "resource": resource, "tokens": tokens });
        if let Err(e) = self.0.call(payload, Context::notification()).await {
            tracing::warn!(error = %e.message, "saving tokens failed");
        }
    }
}

/// The authorization code flow's interactive part answered by an authorizer callback.
pub(crate) fn authorizer(callback: Arc<dyn Callback>) -> Arc<dyn Authorizer> {
    Arc::new(CallbackAuthorizer(callback))
}

/// A token store kept by a token store callback.
pub(crate) fn token_store(callback: Arc<dyn Callback>) -> Arc<dyn TokenStore> {
    Arc::new(CallbackStore(callback))
}

/// Builds a client's OAuth login from its JSON (`auth` in an HTTP transport) and the
/// authorizer and token store callbacks.
pub(crate) fn oauth_client(
    url: &str,
    spec: Value,
    authorizer: Option<Arc<dyn Callback>>,
    store: Option<Arc<dyn Callback>>,
) -> Result<OAuthClient, Error> {
    let spec: LoginSpec = match spec {
        Value::Null => LoginSpec::default(),
        other => parse(other, "auth options")?,
    };
    let mut options = match (spec.client_credentials, authorizer) {
        (None, _) if let Some(assertion) = spec.identity_assertion => {
            OAuthClientOptions::machine(ClientCredentials::IdentityAssertion {
                client_id: assertion.client_id,
                client_secret: assertion.client_secret,
                idp_token_endpoint: assertion.idp_token_endpoint,
                id_token: assertion.id_token,
                idp_client_id: assertion.idp_client_id,
            })
        }
        (None, _) if let Some(workload) = spec.workload_identity => {
            OAuthClientOptions::machine(ClientCredentials::WorkloadIdentity {
                client_id: workload.client_id,
                assertion: workload.assertion,
            })
        }
        (Some(credentials), _) => {
            let client_id = credentials.client_id;
            let credentials = match (credentials.private_key_pem, credentials.client_secret) {
                (Some(private_key_pem), _) => ClientCredentials::PrivateKeyJwt {
                    client_id,
                    private_key_pem,
                    algorithm: credentials.algorithm.unwrap_or_else(|| "ES256".to_owned()),
                },
                (None, Some(client_secret)) => ClientCredentials::Secret { client_id, client_secret },
                (None, None) => {
                    return Err(Error::invalid_input("clientCredentials needs clientSecret or privateKeyPem"));
                }
            };
            OAuthClientOptions::machine(credentials)
        }
        (None, Some(authorizer)) => {
            let redirect = spec.redirect_uri.ok_or_else(|| Error::invalid_input("auth needs a redirectUri"))?;
            let name = spec.client_name.unwrap_or_else(|| "mcpweft".to_owned());
            OAuthClientOptions::new(name, redirect, self::authorizer(authorizer))
        }
        (None, None) => {
            return Err(Error::invalid_input(
                "auth needs an authorizer callback, clientCredentials, identityAssertion or workloadIdentity",
            ));
        }
    };
    if let Some(id) = spec.client_id {
        options = options.with_client(id, spec.client_secret);
    }
    if let Some(url) = spec.client_metadata_url {
        options = options.with_client_metadata_url(url);
    }
    if let Some(scopes) = spec.scopes {
        options = options.with_scopes(scopes);
    }
    if let Some(step_ups) = spec.max_step_ups {
        options = options.with_max_step_ups(step_ups);
    }
    if let Some(store) = store {
        options = options.with_store(token_store(store));
    }
    Ok(OAuthClient::new(url, options)?)
}
