//! Helpers of the authorization tests: signing keys, their JWKS documents, and tokens.

#![allow(dead_code, unreachable_pub)]

use std::time::{SystemTime, UNIX_EPOCH};

use std::sync::Arc;

use jsonwebtoken::{Algorithm, EncodingKey, Header, jwk::Jwk};
use mcpweft::{
    RequestContext, Server,
    auth::{ResourceServerOptions, TokenVerifier},
    http::{BoundHttpServer, HttpServerOptions, StreamableHttpServer},
    model::*,
};
use serde_json::{Value, json};

/// The issuer the test tokens name.
pub const ISSUER: &str = "http://127.0.0.1:1/issuer";

/// A signing key of the tests, with its key id.
pub struct SigningKey {
    pub kid: String,
    pub key: EncodingKey,
}

impl SigningKey {
    /// The test key, `auth_ec_key.pem`.
    pub fn main(kid: &str) -> Self {
        Self::from_pem(include_bytes!("../../data/auth_ec_key.pem"), kid)
    }

    /// Another key, `auth_ec_other_key.pem`, that no JWKS of the tests holds unless asked to.
    pub fn other(kid: &str) -> Self {
        Self::from_pem(include_bytes!("../../data/auth_ec_other_key.pem"), kid)
    }

    fn from_pem(pem: &[u8], kid: &str) -> Self {
        // The tests sign with jsonwebtoken before the core has installed its provider.
        mcpweft::install_crypto_provider();
        SigningKey { kid: kid.to_owned(), key: EncodingKey::from_ec_pem(pem).expect("a valid test key") }
    }

    /// The public key as a JWK.
    pub fn jwk(&self) -> Value {
        let mut jwk = Jwk::from_encoding_key(&self.key, Algorithm::ES256).expect("a public JWK");
        jwk.common.key_id = Some(self.kid.clone());
        serde_json::to_value(jwk).expect("a JWK is JSON")
    }

    /// Signs `claims` with ES256, naming this key.
    pub fn sign(&self, claims: &Value) -> String {
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some(self.kid.clone());
        jsonwebtoken::encode(&header, claims, &self.key).expect("a signed token")
    }
}

/// A JWKS document of `keys`.
pub fn jwks(keys: &[&SigningKey]) -> Value {
    json!({ "keys": keys.iter().map(|k| k.jwk()).collect::<Vec<_>>() })
}

/// Seconds since the Unix epoch.
pub fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).expect("a clock after 1970").as_secs()
}

/// The claims of a valid token for `audience` with `scope`, expiring in an hour.
pub fn claims(audience: &str, subject: &str, scope: &str) -> Value {
    json!({
        "iss": ISSUER,
        "sub": subject,
        "aud": audience,
        "client_id": "test-client",
        "scope": scope,
        "iat": now(),
        "exp": now() + 3600,
    })
}

/// A free loopback address, and the resource URL of an MCP endpoint bound there.
pub fn free_resource() -> (std::net::SocketAddr, String) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let addr = listener.local_addr().expect("a bound address");
    (addr, format!("http://{addr}/mcp"))
}

/// Binds the protected server of the authorization tests at `addr`, with `auth` built from the
/// verifier: `whoami` answers the caller's subject and needs `mcp:read`, `write` needs
/// `mcp:write` too.
pub async fn protected_server(
    addr: std::net::SocketAddr,
    published: &str,
    issuer: &str,
    verifier: Arc<dyn TokenVerifier>,
    configure: impl FnOnce(ResourceServerOptions) -> ResourceServerOptions,
) -> BoundHttpServer {
    let auth = ResourceServerOptions::new(published, verifier)
        .with_authorization_server(issuer)
        .with_required_scopes(["mcp:read"])
        .with_tool_scopes("write", ["mcp:write"]);
    let server = Server::builder(Implementation::new("protected", "1"))
        .tool(Tool::without_arguments("whoami", "Who calls."), |_a: JsonObject, ctx: RequestContext| async move {
            Ok(CallToolResult::text(ctx.auth().and_then(|a| a.subject.clone()).unwrap_or_default()))
        })
        .tool(Tool::without_arguments("write", "Writes."), |_a: JsonObject, _ctx: RequestContext| async move {
            Ok(CallToolResult::text("written"))
        })
        .build()
        .expect("a valid server");
    let options = HttpServerOptions::new().with_auth(configure(auth));
    StreamableHttpServer::bind(server, addr, options).await.expect("the server binds")
}
