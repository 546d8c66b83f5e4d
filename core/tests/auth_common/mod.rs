//! Helpers of the authorization tests: signing keys, their JWKS documents, and tokens.

#![allow(dead_code, unreachable_pub)]

use std::time::{SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, EncodingKey, Header, jwk::Jwk};
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
        Self::from_pem(include_bytes!("../data/auth_ec_key.pem"), kid)
    }

    /// Another key, `auth_ec_other_key.pem`, that no JWKS of the tests holds unless asked to.
    pub fn other(kid: &str) -> Self {
        Self::from_pem(include_bytes!("../data/auth_ec_other_key.pem"), kid)
    }

    fn from_pem(pem: &[u8], kid: &str) -> Self {
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
