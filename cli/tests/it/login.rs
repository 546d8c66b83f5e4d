//! OAuth login of the command line without an authorization server: tokens kept in the token
//! store (as a login writes them) reach a protected server through `proxy URL`, `--url`,
//! `--config` and a gateway; without tokens a 401 starts a login; and the options of the login are refused
//! where they do not apply.

use std::sync::Arc;

use mcpweft::auth::JwtVerifier;
use serde_json::json;

use crate::{
    common::{TempDir, TempFile, call_text, free_resource, protected_server, proxy, run},
    gateway::{Gateway, connect, signed},
};

/// The issuer the tokens of these tests name; nothing listens there.
const ISSUER: &str = "http://127.0.0.1:1/issuer";

/// The name of the token file of `url`: every byte but letters, digits, `.` and `-` written as
/// `_` and two hexadecimal digits.
fn token_file_name(url: &str) -> String {
    let mut name = String::new();
    for byte in url.bytes() {
        if byte.is_ascii_alphanumeric() || byte == b'.' || byte == b'-' {
            name.push(char::from(byte));
        } else {
            name.push_str(&format!("_{byte:02X}"));
        }
    }
    name + ".json"
}

#[tokio::test]
async fn kept_tokens_reach_a_protected_server_through_every_kind_of_target() {
    let (addr, url) = free_resource();
    let (token, jwks) = signed(ISSUER, &url, "mcp:read");
    let verifier = JwtVerifier::with_jwks(&jwks, ISSUER, url.clone()).expect("a verifier");
    let _server = protected_server(addr, &url, ISSUER, Arc::new(verifier)).await;
    let dir = TempDir::new("login-kept");
    let kept = json!({ "resource": url, "tokens": { "accessToken": token, "tokenType": "Bearer" } });
    std::fs::write(dir.path().join(token_file_name(&url)), kept.to_string()).expect("writing the token file");
    let store = dir.path().to_str().expect("a UTF-8 path");

    let called = run(&["call", "whoami", "--url", &url, "--token-store", store, "--no-browser"], None).await;
    assert_eq!(called.expect_code(0).stdout.trim(), "ada");
    let config = TempFile::new("login-config", &json!({ "mcpServers": { "p": { "url": url } } }).to_string());
    let called = run(&["call", "whoami", "--config", config.path(), "--token-store", store], None).await;
    assert_eq!(called.expect_code(0).stdout.trim(), "ada");
    let client = proxy(&[&url, "--token-store", store, "--no-browser"], &[]).await;
    assert_eq!(call_text(&client, "whoami").await, "ada");
    client.close().await;
    // A gateway logs in to the servers whose configuration has `oauth` settings.
    let config =
        TempFile::new("login-gateway", &json!({ "mcpServers": { "p": { "url": url, "oauth": {} } } }).to_string());
    let gateway = Gateway::start(&config, &["--token-store", store, "--no-browser"]).await;
    let (client, _changes) = connect(&gateway).await;
    assert_eq!(call_text(&client, "p__whoami").await, "ada", "{}", gateway.stderr());
    client.close().await;

    // The token lacks `mcp:write`: `write` asks for it (403), and the login that follows
    // cannot reach the authorization server.
    let refused = run(&["call", "write", "--url", &url, "--token-store", store, "--no-browser"], None).await;
    assert_eq!(refused.expect_code(1).stdout, "");

    // Without tokens the 401 starts a login, which cannot reach the authorization server.
    let unknown = run(&["call", "whoami", "--url", &url, "--token-store", "none", "--no-browser"], None).await;
    assert!(unknown.expect_code(3).stderr.contains("127.0.0.1:1"), "{}", unknown.stderr);

    // `logout` removes the file, and says when there was none.
    let forgot = run(&["logout", &url, "--token-store", store], None).await;
    assert!(forgot.expect_code(0).stderr.contains("forgot the tokens"), "{}", forgot.stderr);
    assert!(!dir.path().join(token_file_name(&url)).exists());
    let again = run(&["logout", &url, "--token-store", store], None).await;
    assert!(again.expect_code(0).stderr.contains("no tokens were kept"), "{}", again.stderr);
}

#[tokio::test]
async fn login_options_are_refused_where_they_do_not_apply() {
    let url = "http://127.0.0.1:1/mcp";
    let cases: [(&[&str], &str); 6] = [
        (&["proxy", url, "--client-id", "c", "--bearer-env", "TOKEN"], "--client-id does not go with --bearer-env"),
        (&["proxy", url, "--scope", "s", "--header", "Authorization: Bearer x"], "--scope does not go with"),
        (&["proxy", url, "--grant", "client_credentials"], "--client-id"),
        (&["proxy", "--listen", "127.0.0.1:0", "--no-browser", "--", "true"], "--no-browser goes only with the URL"),
        (&["tools", "--token-store", "none", "--", "true"], "--token-store goes only with --url or --config"),
        (&["proxy", url, "--client-id", "c", "--id-token-env", "ID_TOKEN"], "--idp-token-endpoint"),
    ];
    for (args, expected) in cases {
        let refused = run(args, None).await;
        assert!(refused.expect_code(2).stderr.contains(expected), "{args:?}: {}", refused.stderr);
    }
    let config = TempFile::new("login-refused", &json!({ "mcpServers": { "p": { "url": url } } }).to_string());
    let refused = run(&["tools", "--config", config.path(), "--client-id", "c"], None).await;
    assert!(refused.expect_code(2).stderr.contains("--client-id goes only with --url"), "{}", refused.stderr);
    let refused = run(&["gateway", "--config", config.path(), "--scope", "s"], None).await;
    assert!(refused.expect_code(2).stderr.contains("--scope goes only with --url"), "{}", refused.stderr);
}
