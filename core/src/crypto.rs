//! The process's cryptography, on `ring`: rustls's provider for the HTTP clients (feature
//! `http`) and jsonwebtoken's for the tokens the server verifies and the client signs (feature
//! `auth`).
//!
//! `ring` verifies signatures as fast as aws-lc-rs (ES256 about 100 µs, RS256 about 40 µs
//! here), where the pure-Rust backends take four to eight times as long, and it compiles in a
//! fraction of aws-lc-sys's time for every platform. Neither rustls nor jsonwebtoken picks a
//! provider by itself when the application could want another, so [`install_crypto_provider`]
//! installs ours, unless the application installed one first; the core calls it before it
//! builds an HTTP client or touches a token.

#[cfg(feature = "auth")]
mod jwt;

/// Installs `ring` as the process's rustls provider (feature `http`) and jsonwebtoken's
/// (feature `auth`), unless a provider was installed already, which then stays.
///
/// The core calls this itself before it builds an HTTP client or signs or verifies a token.
/// An application that builds its own `reqwest::Client` (to hand it to the Streamable HTTP
/// transport) or calls jsonwebtoken before any of that calls it first.
pub fn install_crypto_provider() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        #[cfg(feature = "http")]
        if rustls::crypto::CryptoProvider::get_default().is_none() {
            // Another thread may win the race; its provider then stays, as documented.
            let _ = rustls::crypto::ring::default_provider().install_default();
        }
        #[cfg(feature = "auth")]
        if jsonwebtoken::crypto::CryptoProvider::try_get_default().is_none() {
            let _ = jsonwebtoken::crypto::CryptoProvider::install_default(&jwt::PROVIDER);
        }
    });
}
