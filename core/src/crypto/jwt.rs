//! jsonwebtoken's signing and verification on `ring`: every algorithm jsonwebtoken names
//! (HMAC, RSA PKCS#1 and PSS, ECDSA P-256 and P-384, Ed25519), and the key utilities its JWKs
//! use (public components of private keys, thumbprint digests).

use jsonwebtoken::{
    Algorithm, DecodingKey, DecodingKeyKind, EncodingKey,
    crypto::{CryptoProvider, JwtSigner, JwtVerifier, KeyUtils},
    errors::{ErrorKind, Result},
    jwk::{EllipticCurve, ThumbprintHash},
    signature,
};
use ring::{
    digest, hmac,
    rand::SystemRandom,
    rsa::PublicKeyComponents,
    signature::{self as sig, EcdsaKeyPair, Ed25519KeyPair, KeyPair, RsaKeyPair, UnparsedPublicKey},
};

/// The provider [`super::install_crypto_provider`] installs.
pub(super) static PROVIDER: CryptoProvider = CryptoProvider {
    signer_factory: new_signer,
    verifier_factory: new_verifier,
    key_utils: KeyUtils {
        rsa_pub_components_from_private_key: rsa_components_of_private_key,
        rsa_pub_components_from_public_key: rsa_components_of_public_key,
        ec_pub_components_from_private_key: ec_components_of_private_key,
        ed_pub_components_from_private_key: ed_component_of_private_key,
        compute_digest,
    },
};

/// A private key ready to sign, parsed once when jsonwebtoken asks for a signer.
enum SigningKey {
    Hmac(hmac::Key),
    Rsa(RsaKeyPair, &'static dyn sig::RsaEncoding),
    Ecdsa(EcdsaKeyPair),
    Ed25519(Ed25519KeyPair),
}

struct Signer {
    algorithm: Algorithm,
    key: SigningKey,
}

impl signature::Signer<Vec<u8>> for Signer {
    fn try_sign(&self, message: &[u8]) -> std::result::Result<Vec<u8>, signature::Error> {
        let rng = SystemRandom::new();
        match &self.key {
            SigningKey::Hmac(key) => Ok(hmac::sign(key, message).as_ref().to_vec()),
            SigningKey::Rsa(pair, encoding) => {
                let mut signature = vec![0; pair.public().modulus_len()];
                pair.sign(*encoding, &rng, message, &mut signature).map_err(|_| signature::Error::new())?;
                Ok(signature)
            }
            SigningKey::Ecdsa(pair) => {
                Ok(pair.sign(&rng, message).map_err(|_| signature::Error::new())?.as_ref().to_vec())
            }
            SigningKey::Ed25519(pair) => Ok(pair.sign(message).as_ref().to_vec()),
        }
    }
}

impl JwtSigner for Signer {
    fn algorithm(&self) -> Algorithm {
        self.algorithm
    }
}

fn new_signer(algorithm: &Algorithm, key: &EncodingKey) -> Result<Box<dyn JwtSigner>> {
    if key.family() != algorithm.family() {
        return Err(ErrorKind::InvalidKeyFormat.into());
    }
    let der = key.as_bytes();
    let rsa = |encoding: &'static dyn sig::RsaEncoding| {
        RsaKeyPair::from_der(der)
            .or_else(|_| RsaKeyPair::from_pkcs8(der))
            .map(|pair| SigningKey::Rsa(pair, encoding))
            .map_err(|e| ErrorKind::InvalidRsaKey(e.to_string()))
    };
    let ecdsa = |signing: &'static sig::EcdsaSigningAlgorithm| {
        EcdsaKeyPair::from_pkcs8(signing, der, &SystemRandom::new())
            .map(SigningKey::Ecdsa)
            .map_err(|_| ErrorKind::InvalidEcdsaKey)
    };
    let key = match algorithm {
        Algorithm::HS256 => SigningKey::Hmac(hmac::Key::new(hmac::HMAC_SHA256, der)),
        Algorithm::HS384 => SigningKey::Hmac(hmac::Key::new(hmac::HMAC_SHA384, der)),
        Algorithm::HS512 => SigningKey::Hmac(hmac::Key::new(hmac::HMAC_SHA512, der)),
        Algorithm::RS256 => rsa(&sig::RSA_PKCS1_SHA256)?,
        Algorithm::RS384 => rsa(&sig::RSA_PKCS1_SHA384)?,
        Algorithm::RS512 => rsa(&sig::RSA_PKCS1_SHA512)?,
        Algorithm::PS256 => rsa(&sig::RSA_PSS_SHA256)?,
        Algorithm::PS384 => rsa(&sig::RSA_PSS_SHA384)?,
        Algorithm::PS512 => rsa(&sig::RSA_PSS_SHA512)?,
        Algorithm::ES256 => ecdsa(&sig::ECDSA_P256_SHA256_FIXED_SIGNING)?,
        Algorithm::ES384 => ecdsa(&sig::ECDSA_P384_SHA384_FIXED_SIGNING)?,
        Algorithm::EdDSA => SigningKey::Ed25519(
            Ed25519KeyPair::from_pkcs8_maybe_unchecked(der).map_err(|_| ErrorKind::InvalidEddsaKey)?,
        ),
        _ => return Err(ErrorKind::InvalidAlgorithm.into()),
    };
    Ok(Box::new(Signer { algorithm: *algorithm, key }))
}

struct Verifier {
    algorithm: Algorithm,
    key: DecodingKey,
}

impl signature::Verifier<Vec<u8>> for Verifier {
    fn verify(&self, message: &[u8], signature: &Vec<u8>) -> std::result::Result<(), signature::Error> {
        let public = |algorithm: &'static dyn sig::VerificationAlgorithm| {
            let bytes = self.key.try_get_as_bytes().map_err(|_| signature::Error::new())?;
            UnparsedPublicKey::new(algorithm, bytes).verify(message, signature).map_err(|_| signature::Error::new())
        };
        let rsa = |parameters: &'static sig::RsaParameters| match self.key.kind() {
            DecodingKeyKind::SecretOrDer(_) => public(parameters),
            DecodingKeyKind::RsaModulusExponent { n, e } => {
                PublicKeyComponents { n, e }.verify(parameters, message, signature).map_err(|_| signature::Error::new())
            }
        };
        let hmac = |algorithm: hmac::Algorithm| {
            let secret = self.key.try_get_as_bytes().map_err(|_| signature::Error::new())?;
            hmac::verify(&hmac::Key::new(algorithm, secret), message, signature).map_err(|_| signature::Error::new())
        };
        match self.algorithm {
            Algorithm::HS256 => hmac(hmac::HMAC_SHA256),
            Algorithm::HS384 => hmac(hmac::HMAC_SHA384),
            Algorithm::HS512 => hmac(hmac::HMAC_SHA512),
            Algorithm::RS256 => rsa(&sig::RSA_PKCS1_2048_8192_SHA256),
            Algorithm::RS384 => rsa(&sig::RSA_PKCS1_2048_8192_SHA384),
            Algorithm::RS512 => rsa(&sig::RSA_PKCS1_2048_8192_SHA512),
            Algorithm::PS256 => rsa(&sig::RSA_PSS_2048_8192_SHA256),
            Algorithm::PS384 => rsa(&sig::RSA_PSS_2048_8192_SHA384),
            Algorithm::PS512 => rsa(&sig::RSA_PSS_2048_8192_SHA512),
            Algorithm::ES256 => public(&sig::ECDSA_P256_SHA256_FIXED),
            Algorithm::ES384 => public(&sig::ECDSA_P384_SHA384_FIXED),
            Algorithm::EdDSA => public(&sig::ED25519),
            // An algorithm of a later jsonwebtoken this provider does not know.
            _ => Err(signature::Error::new()),
        }
    }
}

impl JwtVerifier for Verifier {
    fn algorithm(&self) -> Algorithm {
        self.algorithm
    }
}

fn new_verifier(algorithm: &Algorithm, key: &DecodingKey) -> Result<Box<dyn JwtVerifier>> {
    if key.family() != algorithm.family() {
        return Err(ErrorKind::InvalidKeyFormat.into());
    }
    Ok(Box::new(Verifier { algorithm: *algorithm, key: key.clone() }))
}

fn rsa_components_of_private_key(der: &[u8]) -> Result<(Vec<u8>, Vec<u8>)> {
    let pair = RsaKeyPair::from_der(der)
        .or_else(|_| RsaKeyPair::from_pkcs8(der))
        .map_err(|e| ErrorKind::InvalidRsaKey(e.to_string()))?;
    let components = PublicKeyComponents::<Vec<u8>>::from(pair.public());
    Ok((components.n, components.e))
}

/// Reads a DER `RSAPublicKey` (PKCS#1: a sequence of the modulus and the exponent).
fn rsa_components_of_public_key(der: &[u8]) -> Result<(Vec<u8>, Vec<u8>)> {
    use simple_asn1::ASN1Block;
    let invalid = || ErrorKind::InvalidRsaKey("not a DER RSAPublicKey".to_owned());
    let blocks = simple_asn1::from_der(der).map_err(|_| invalid())?;
    match blocks.as_slice() {
        [ASN1Block::Sequence(_, fields)] => match fields.as_slice() {
            [ASN1Block::Integer(_, n), ASN1Block::Integer(_, e)] => Ok((n.to_bytes_be().1, e.to_bytes_be().1)),
            _ => Err(invalid().into()),
        },
        _ => Err(invalid().into()),
    }
}

fn ec_components_of_private_key(der: &[u8], algorithm: Algorithm) -> Result<(EllipticCurve, Vec<u8>, Vec<u8>)> {
    let (signing, curve) = match algorithm {
        Algorithm::ES256 => (&sig::ECDSA_P256_SHA256_FIXED_SIGNING, EllipticCurve::P256),
        Algorithm::ES384 => (&sig::ECDSA_P384_SHA384_FIXED_SIGNING, EllipticCurve::P384),
        _ => return Err(ErrorKind::InvalidEcdsaKey.into()),
    };
    let pair = EcdsaKeyPair::from_pkcs8(signing, der, &SystemRandom::new()).map_err(|_| ErrorKind::InvalidEcdsaKey)?;
    // An uncompressed point: 0x04, then x and y of equal length.
    match pair.public_key().as_ref().split_first() {
        Some((4, point)) => {
            let (x, y) = point.split_at(point.len() / 2);
            Ok((curve, x.to_vec(), y.to_vec()))
        }
        _ => Err(ErrorKind::InvalidEcdsaKey.into()),
    }
}

fn ed_component_of_private_key(der: &[u8], curve: &EllipticCurve) -> Result<Vec<u8>> {
    match curve {
        EllipticCurve::Ed25519 => Ok(Ed25519KeyPair::from_pkcs8_maybe_unchecked(der)
            .map_err(|_| ErrorKind::InvalidEddsaKey)?
            .public_key()
            .as_ref()
            .to_vec()),
        _ => Err(ErrorKind::InvalidAlgorithm.into()),
    }
}

fn compute_digest(data: &[u8], hash: ThumbprintHash) -> Result<Vec<u8>> {
    let algorithm = match hash {
        ThumbprintHash::SHA256 => &digest::SHA256,
        ThumbprintHash::SHA384 => &digest::SHA384,
        ThumbprintHash::SHA512 => &digest::SHA512,
        _ => return Err(ErrorKind::InvalidAlgorithm.into()),
    };
    Ok(digest::digest(algorithm, data).as_ref().to_vec())
}

#[cfg(test)]
mod tests {
    use jsonwebtoken::{Header, Validation, decode, encode, jwk::Jwk};
    use serde_json::{Value, json};

    use super::*;

    const RSA_KEY: &[u8] = include_bytes!("../../tests/data/jwt_rsa_key.pem");
    const RSA_PUBLIC: &[u8] = include_bytes!("../../tests/data/jwt_rsa_pub.pem");
    const P256_KEY: &[u8] = include_bytes!("../../tests/data/auth_ec_key.pem");
    const P384_KEY: &[u8] = include_bytes!("../../tests/data/jwt_p384_key.pem");
    const P384_PUBLIC: &[u8] = include_bytes!("../../tests/data/jwt_p384_pub.pem");
    const ED_KEY: &[u8] = include_bytes!("../../tests/data/jwt_ed_key.pem");
    const ED_PUBLIC: &[u8] = include_bytes!("../../tests/data/jwt_ed_pub.pem");

    /// Every algorithm with a key to sign and the key that verifies it.
    fn keys() -> Vec<(Algorithm, EncodingKey, DecodingKey)> {
        crate::install_crypto_provider();
        let rsa = || (EncodingKey::from_rsa_pem(RSA_KEY).unwrap(), DecodingKey::from_rsa_pem(RSA_PUBLIC).unwrap());
        let p256 = EncodingKey::from_ec_pem(P256_KEY).unwrap();
        let p256_public = DecodingKey::from_jwk(&Jwk::from_encoding_key(&p256, Algorithm::ES256).unwrap()).unwrap();
        let secret = || {
            (
                EncodingKey::from_secret(b"a shared secret").unwrap(),
                DecodingKey::from_secret(b"a shared secret").unwrap(),
            )
        };
        let mut keys = Vec::new();
        for algorithm in [Algorithm::HS256, Algorithm::HS384, Algorithm::HS512] {
            let (sign, verify) = secret();
            keys.push((algorithm, sign, verify));
        }
        for algorithm in
            [Algorithm::RS256, Algorithm::RS384, Algorithm::RS512, Algorithm::PS256, Algorithm::PS384, Algorithm::PS512]
        {
            let (sign, verify) = rsa();
            keys.push((algorithm, sign, verify));
        }
        keys.push((Algorithm::ES256, p256, p256_public));
        keys.push((
            Algorithm::ES384,
            EncodingKey::from_ec_pem(P384_KEY).unwrap(),
            DecodingKey::from_ec_pem(P384_PUBLIC).unwrap(),
        ));
        keys.push((
            Algorithm::EdDSA,
            EncodingKey::from_ed_pem(ED_KEY).unwrap(),
            DecodingKey::from_ed_pem(ED_PUBLIC).unwrap(),
        ));
        keys
    }

    #[test]
    fn every_algorithm_signs_and_verifies_and_a_changed_token_fails() {
        let claims = json!({ "sub": "someone", "exp": 4_000_000_000u64 });
        for (algorithm, sign, verify) in keys() {
            let token =
                encode(&Header::new(algorithm), &claims, &sign).unwrap_or_else(|e| panic!("{algorithm:?}: {e}"));
            let validation = Validation::new(algorithm);
            let decoded =
                decode::<Value>(&token, &verify, &validation).unwrap_or_else(|e| panic!("{algorithm:?}: {e}"));
            assert_eq!(decoded.claims, claims, "{algorithm:?}");
            let (signed, signature) = token.rsplit_once('.').unwrap();
            let forged = format!("{signed}.{}", signature.chars().rev().collect::<String>());
            assert!(
                decode::<Value>(&forged, &verify, &validation).is_err(),
                "{algorithm:?} accepted a forged signature"
            );
        }
    }

    #[test]
    fn a_key_of_another_family_is_refused() {
        crate::install_crypto_provider();
        let rsa = EncodingKey::from_rsa_pem(RSA_KEY).unwrap();
        let Err(error) = (PROVIDER.signer_factory)(&Algorithm::ES256, &rsa) else { panic!("an RSA key signed ES256") };
        assert_eq!(error.kind(), &ErrorKind::InvalidKeyFormat);
        let verify = DecodingKey::from_secret(b"a shared secret").unwrap();
        let token = encode(&Header::new(Algorithm::RS256), &json!({ "exp": 4_000_000_000u64 }), &rsa).unwrap();
        assert!(decode::<Value>(&token, &verify, &Validation::new(Algorithm::RS256)).is_err());
    }

    #[test]
    fn jwks_of_private_and_public_keys_agree() {
        crate::install_crypto_provider();
        let from_private =
            Jwk::from_encoding_key(&EncodingKey::from_rsa_pem(RSA_KEY).unwrap(), Algorithm::RS256).unwrap();
        let from_public =
            Jwk::from_decoding_key(&DecodingKey::from_rsa_pem(RSA_PUBLIC).unwrap(), Some(Algorithm::RS256)).unwrap();
        assert_eq!(from_private, from_public);
        let ed = Jwk::from_encoding_key(&EncodingKey::from_ed_pem(ED_KEY).unwrap(), Algorithm::EdDSA).unwrap();
        assert_eq!(
            ed,
            Jwk::from_decoding_key(&DecodingKey::from_ed_pem(ED_PUBLIC).unwrap(), Some(Algorithm::EdDSA)).unwrap()
        );
        let p384 = Jwk::from_encoding_key(&EncodingKey::from_ec_pem(P384_KEY).unwrap(), Algorithm::ES384).unwrap();
        assert_eq!(
            p384,
            Jwk::from_decoding_key(&DecodingKey::from_ec_pem(P384_PUBLIC).unwrap(), Some(Algorithm::ES384)).unwrap()
        );
        let thumbprint = from_private.thumbprint(ThumbprintHash::SHA256).unwrap();
        assert_eq!(thumbprint.len(), 43, "{thumbprint}");
    }
}
