//! DPoP (RFC 9449, the MCP DPoP extension): proofs of possession for sender-constrained tokens.
//!
//! A [`DpopKey`] is an ES256 key pair the client generates for itself. It signs a fresh proof
//! JWT for every HTTP request — at the token endpoint (so that the authorization server binds
//! the token to the key's thumbprint, `cnf.jkt`) and at the MCP server (with `ath`, the hash of
//! the token presented). Servers may demand a nonce (`DPoP-Nonce`); the key remembers the last
//! one each origin gave and puts it in the next proof it signs for that origin.

use std::{collections::HashMap, sync::Mutex};

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use jsonwebtoken::{
    Algorithm, EncodingKey, Header,
    jwk::{Jwk, ThumbprintHash},
};
use serde_json::json;
use sha2::{Digest, Sha256};
use url::Url;

use crate::{Error, sync::lock};

/// The only algorithm this client signs proofs with.
pub(crate) const DPOP_ALGORITHM: &str = "ES256";

/// An ES256 key pair that signs DPoP proofs, with the nonces servers asked it to use.
pub struct DpopKey {
    key: EncodingKey,
    jwk: Jwk,
    thumbprint: String,
    /// The last `DPoP-Nonce` of each origin (authorization server or MCP server).
    nonces: Mutex<HashMap<String, String>>,
}

impl std::fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopKey").field("thumbprint", &self.thumbprint).finish_non_exhaustive()
    }
}

impl DpopKey {
    /// Generates a new P-256 key pair from the operating system's random source.
    pub fn generate() -> Result<Self, Error> {
        Self::from_pkcs8_der(&Self::generate_pkcs8_der()?)
    }

    /// Generates a new P-256 private key from the operating system's random source and
    /// returns it DER-encoded (PKCS#8), to be kept and given to
    /// [`from_pkcs8_der`](Self::from_pkcs8_der) in later runs.
    pub fn generate_pkcs8_der() -> Result<Vec<u8>, Error> {
        use ring::{
            rand::SystemRandom,
            signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair},
        };
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new())
            .map_err(|_| Error::Auth("generating the DPoP key failed".to_owned()))?;
        Ok(pkcs8.as_ref().to_vec())
    }

    /// Uses an existing P-256 private key, DER-encoded PKCS#8 (to keep tokens bound to one key
    /// across runs).
    pub fn from_pkcs8_der(der: &[u8]) -> Result<Self, Error> {
        crate::install_crypto_provider();
        let key = EncodingKey::from_ec_der(der);
        let mut jwk = Jwk::from_encoding_key(&key, Algorithm::ES256)
            .map_err(|e| Error::Auth(format!("the DPoP key is not a P-256 key: {e}")))?;
        // The proof's header carries the public key only; `alg` is the header's own.
        jwk.common.key_algorithm = None;
        let thumbprint = jwk
            .thumbprint(ThumbprintHash::SHA256)
            .map_err(|e| Error::Auth(format!("the DPoP key has no thumbprint: {e}")))?;
        Ok(DpopKey { key, jwk, thumbprint, nonces: Mutex::default() })
    }

    /// Returns the key's JWK thumbprint (RFC 7638, SHA-256), the `jkt` a bound token carries.
    pub fn thumbprint(&self) -> &str {
        &self.thumbprint
    }

    /// Returns the public key as a JWK.
    pub fn public_jwk(&self) -> &Jwk {
        &self.jwk
    }

    /// Signs a fresh proof for a request of `method` to `url`; with `access_token`, the proof
    /// also carries its hash (`ath`), as a request to a resource server must. The nonce the
    /// URL's origin last asked for goes in too.
    pub fn proof(&self, method: &str, url: &str, access_token: Option<&str>) -> Result<String, Error> {
        let target = Url::parse(url).map_err(|e| Error::Auth(format!("invalid DPoP target {url}: {e}")))?;
        let mut htu = target.clone();
        htu.set_query(None);
        htu.set_fragment(None);
        let jti = crate::random::random_id().map_err(|e| Error::Auth(format!("no random source: {e}")))?;
        let iat = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
        let mut claims = json!({ "jti": jti, "htm": method, "htu": htu.as_str(), "iat": iat });
        if let Some(token) = access_token {
            claims["ath"] = json!(URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes())));
        }
        if let Some(nonce) = lock(&self.nonces).get(&origin_of(&target)) {
            claims["nonce"] = json!(nonce);
        }
        let mut header = Header::new(Algorithm::ES256);
        header.typ = Some("dpop+jwt".to_owned());
        header.jwk = Some(self.jwk.clone());
        jsonwebtoken::encode(&header, &claims, &self.key)
            .map_err(|e| Error::Auth(format!("signing the DPoP proof failed: {e}")))
    }

    /// Remembers the nonce the server at `url` gave (in a `DPoP-Nonce` header), returning
    /// whether it is new.
    pub fn set_nonce(&self, url: &str, nonce: &str) -> bool {
        let Ok(target) = Url::parse(url) else { return false };
        let previous = lock(&self.nonces).insert(origin_of(&target), nonce.to_owned());
        previous.as_deref() != Some(nonce)
    }
}

fn origin_of(url: &Url) -> String {
    url.origin().ascii_serialization()
}

#[cfg(test)]
mod tests {
    use jsonwebtoken::{DecodingKey, Validation, decode, decode_header};
    use serde_json::{Map, Value};

    use super::*;

    fn verify(proof: &str) -> (Header, Map<String, Value>) {
        let header = decode_header(proof).unwrap();
        let jwk = header.jwk.clone().expect("the proof carries its public key");
        let key = DecodingKey::from_jwk(&jwk).unwrap();
        let mut validation = Validation::new(Algorithm::ES256);
        validation.required_spec_claims.clear();
        validation.validate_exp = false;
        let claims = decode::<Map<String, Value>>(proof, &key, &validation).unwrap().claims;
        (header, claims)
    }

    #[test]
    fn a_proof_is_signed_by_the_key_it_carries_and_names_the_request() {
        let key = DpopKey::generate().unwrap();
        let proof = key.proof("POST", "https://mcp.example/mcp?x=1#frag", Some("token-1")).unwrap();
        let (header, claims) = verify(&proof);
        assert_eq!(header.typ.as_deref(), Some("dpop+jwt"));
        let jwk = serde_json::to_value(header.jwk.unwrap()).unwrap();
        assert_eq!(jwk["kty"], "EC");
        assert_eq!(jwk["crv"], "P-256");
        assert!(jwk.get("d").is_none(), "no private key in the header");
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example/mcp");
        assert_eq!(claims["ath"], URL_SAFE_NO_PAD.encode(Sha256::digest(b"token-1")));
        assert!(claims.get("nonce").is_none());
        let again = key.proof("POST", "https://mcp.example/mcp", Some("token-1")).unwrap();
        assert_ne!(verify(&again).1["jti"], claims["jti"], "every proof is fresh");
    }

    #[test]
    fn nonces_are_kept_per_origin() {
        let key = DpopKey::generate().unwrap();
        assert!(key.set_nonce("https://as.example/token", "n1"));
        assert!(!key.set_nonce("https://as.example/other", "n1"), "the same nonce again is not new");
        let (_, at_as) = verify(&key.proof("POST", "https://as.example/token", None).unwrap());
        assert_eq!(at_as["nonce"], "n1");
        assert!(at_as.get("ath").is_none());
        let (_, elsewhere) = verify(&key.proof("POST", "https://mcp.example/mcp", Some("t")).unwrap());
        assert!(elsewhere.get("nonce").is_none());
    }

    #[test]
    fn the_thumbprint_is_the_rfc_7638_one() {
        let key = DpopKey::generate().unwrap();
        let jwk = serde_json::to_value(key.public_jwk()).unwrap();
        let canonical = format!(
            r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#,
            jwk["x"].as_str().unwrap(),
            jwk["y"].as_str().unwrap()
        );
        assert_eq!(key.thumbprint(), URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes())));
    }
}
