//! OAuth login of the command line against a real authorization server: the npm package
//! `oidc-provider`, started on loopback by `tests/oidc/provider.mjs`, in front of a server of
//! this process that verifies its JWT access tokens through the provider's JWKS.
//!
//! `mcpweft proxy URL` signs a user in through the browser (`$BROWSER` is a script that writes
//! the sign-in URL to a file; the test plays the user, following the provider's redirects with
//! its cookies until the proxy's loopback redirect), keeps the tokens in its token store, and a
//! second proxy (and `call --url`, and `call --config`) find them there without a browser.
//! Machine clients sign in with the client credentials grant, through `proxy`, `--url` and a
//! configuration's `oauth` settings.
//!
//! The tests need `tests/oidc`'s npm packages (`make test-oidc` installs them and runs these
//! tests), so a plain `cargo test` skips them.

#![cfg(unix)]

use std::{
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

use mcpweft::{auth::JwtVerifier, http::BoundHttpServer};
use reqwest::header;
use serde_json::{Value, json};

use crate::common::{self, TempDir, TempFile, call_text as call, free_resource, mcpweft, proxy, run, within};

#[path = "../../../tests/oidc/provider.rs"]
mod oidc_provider;

use oidc_provider::start as provider;

/// A server that trusts the provider's tokens, through its JWKS.
async fn protected_server(issuer: &str) -> BoundHttpServer {
    let (addr, resource) = free_resource();
    let verifier = JwtVerifier::with_jwks_url(format!("{issuer}/jwks"), issuer, resource.clone());
    common::protected_server(addr, &resource, issuer, Arc::new(verifier)).await
}

/// The "browser" of `$BROWSER`: a script that appends the URL it is given to a file.
struct BrowserScript {
    script: PathBuf,
    urls: PathBuf,
}

impl BrowserScript {
    fn new(dir: &Path) -> Self {
        use std::os::unix::fs::PermissionsExt as _;
        let urls = dir.join("urls");
        let script = dir.join("browser.sh");
        std::fs::write(&script, format!("#!/bin/sh\nprintf '%s\\n' \"$1\" >> '{}'\n", urls.display())).unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        BrowserScript { script, urls }
    }

    /// The URLs the browser was asked to open.
    fn opened(&self) -> Vec<String> {
        std::fs::read_to_string(&self.urls).unwrap_or_default().lines().map(str::to_owned).collect()
    }

    /// Waits for the browser to be asked to open a URL, and returns it.
    async fn wait_for_url(&self) -> String {
        within("the browser's start", async {
            loop {
                if let Some(url) = self.opened().pop() {
                    return url;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
        .await
    }
}

/// The user in the browser: follows the provider's redirects from `authorization_url`, keeping
/// its cookies, through the login and consent interactions (which the provider approves), to
/// the redirect URI, which it opens too: the command's loopback listener receives the code.
async fn sign_in(authorization_url: &str) {
    mcpweft::install_crypto_provider();
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let start = reqwest::Url::parse(authorization_url).expect("an authorization URL");
    let redirect_uri = start
        .query_pairs()
        .find(|(name, _)| name == "redirect_uri")
        .map(|(_, value)| value.into_owned())
        .expect("the authorization URL names its redirect URI");
    assert!(redirect_uri.starts_with("http://127.0.0.1:") && redirect_uri.ends_with("/callback"), "{redirect_uri}");
    let mut cookies: Vec<String> = Vec::new();
    let mut url = start.to_string();
    for _ in 0..10 {
        let response = http.get(&url).header(header::COOKIE, cookies.join("; ")).send().await.expect("a response");
        if url.starts_with(&redirect_uri) {
            assert_eq!(response.status(), reqwest::StatusCode::OK, "the loopback redirect at {url}");
            let page = response.text().await.unwrap();
            assert!(page.contains("signed in"), "{page}");
            return;
        }
        for set in response.headers().get_all(header::SET_COOKIE) {
            let pair = set.to_str().unwrap().split(';').next().unwrap().to_owned();
            let name = pair.split('=').next().unwrap().to_owned();
            cookies.retain(|c| c.split('=').next() != Some(name.as_str()));
            cookies.push(pair);
        }
        let Some(location) = response.headers().get(header::LOCATION) else {
            panic!("{} at {url}: {}", response.status(), response.text().await.unwrap_or_default());
        };
        url = reqwest::Url::parse(&url).unwrap().join(location.to_str().unwrap()).unwrap().to_string();
    }
    panic!("too many redirects");
}

/// The one token file of the store `dir`, read as JSON.
fn token_file(dir: &Path) -> (PathBuf, Value) {
    let files: Vec<PathBuf> =
        std::fs::read_dir(dir).expect("the token store exists").map(|e| e.unwrap().path()).collect();
    let tokens: Vec<&PathBuf> = files.iter().filter(|f| f.extension().is_some_and(|e| e == "json")).collect();
    assert_eq!(tokens.len(), 1, "one token file per server: {files:?}");
    let text = std::fs::read_to_string(tokens[0]).unwrap();
    (tokens[0].clone(), serde_json::from_str(&text).expect("a token file is JSON"))
}

#[tokio::test]
#[ignore = "needs tests/oidc's npm packages: run make test-oidc"]
async fn a_user_signs_in_through_the_browser_once_and_later_runs_find_the_tokens() {
    use std::os::unix::fs::PermissionsExt as _;
    let provider = provider().await;
    let server = protected_server(&provider.issuer).await;
    let url = server.url();
    let dir = TempDir::new("oauth-browser");
    let browser = BrowserScript::new(dir.path());
    let store = dir.path().join("tokens");
    let store = store.to_str().unwrap();
    let script = browser.script.to_str().unwrap();
    let args = ["--token-store", store, "--scope", "mcp:read", "--scope", "mcp:write"];
    let proxy_args: Vec<&str> = [url.as_str()].into_iter().chain(args).collect();

    // The client's initialize meets a 401: the proxy opens the browser at the provider and
    // waits for the redirect, which the user reaches once signed in.
    let connecting = tokio::spawn({
        let proxy_args: Vec<String> = proxy_args.iter().map(|a| a.to_string()).collect();
        let script = script.to_owned();
        async move {
            let args: Vec<&str> = proxy_args.iter().map(String::as_str).collect();
            proxy(&args, &[("BROWSER", &script)]).await
        }
    });
    let authorization_url = browser.wait_for_url().await;
    assert!(authorization_url.starts_with(&format!("{}/auth?", provider.issuer)), "{authorization_url}");
    sign_in(&authorization_url).await;
    let client = within("the first connection", connecting).await.expect("the connecting task");
    assert_eq!(client.server().server_info.name, "protected");
    assert_eq!(call(&client, "whoami").await, "alice");
    assert_eq!(call(&client, "write").await, "written", "the scopes of --scope were granted");
    within("closing the proxy", client.close()).await;

    let (file, kept) = token_file(Path::new(store));
    assert_eq!(kept["resource"], url);
    assert!(kept["tokens"]["accessToken"].is_string(), "{kept}");
    assert!(kept["tokens"]["clientId"].is_string(), "the dynamic registration is kept: {kept}");
    assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    let key = file.with_extension("dpop.p8");
    assert_eq!(std::fs::metadata(&key).unwrap().permissions().mode() & 0o777, 0o600, "the DPoP key is kept too");

    // A second proxy, `call --url` and `call --config` find the tokens: no browser opens.
    let client = within("the second connection", proxy(&proxy_args, &[("BROWSER", script)])).await;
    assert_eq!(call(&client, "whoami").await, "alice");
    within("closing the proxy", client.close()).await;
    let called = run(&["call", "whoami", "--url", &url, "--token-store", store], None).await;
    assert_eq!(called.expect_code(0).stdout.trim(), "alice");
    let config = TempFile::new("oauth-config", &json!({ "mcpServers": { "protected": { "url": url } } }).to_string());
    let called = run(&["call", "whoami", "--config", config.path(), "--token-store", store], None).await;
    assert_eq!(called.expect_code(0).stdout.trim(), "alice");
    assert_eq!(browser.opened().len(), 1, "the browser opened once: {:?}", browser.opened());

    // After logout, the tokens are gone.
    let logout = run(&["logout", &url, "--token-store", store], None).await;
    assert!(logout.expect_code(0).stderr.contains("forgot the tokens"), "{}", logout.stderr);
    assert!(!file.exists(), "the token file is removed");
    assert!(!key.exists(), "the DPoP key is removed");
}

#[tokio::test]
#[ignore = "needs tests/oidc's npm packages: run make test-oidc"]
async fn a_machine_client_signs_in_with_client_credentials_without_a_browser() {
    let provider = provider().await;
    let server = protected_server(&provider.issuer).await;
    let url = server.url();
    let dir = TempDir::new("oauth-machine");
    let store = dir.path().join("tokens");
    let store = store.to_str().unwrap();
    let secret = [("MACHINE_SECRET", "machine-secret"), ("BROWSER", "false")];
    let machine = ["--grant", "client_credentials", "--client-id", "machine", "--client-secret-env", "MACHINE_SECRET"];

    let args: Vec<&str> = [url.as_str(), "--token-store", "none"].into_iter().chain(machine).collect();
    let client = within("connecting", proxy(&args, &secret)).await;
    assert_eq!(call(&client, "whoami").await, "machine");
    assert_eq!(call(&client, "write").await, "written");
    within("closing the proxy", client.close()).await;

    let args: Vec<&str> =
        ["call", "whoami", "--url", &url, "--token-store", store].into_iter().chain(machine).collect();
    let mut command = tokio::process::Command::new(mcpweft());
    command.args(&args).envs(secret).env_remove("MCPWEFT_LOG").kill_on_drop(true);
    let output = within("call --url", command.output()).await.unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(stdout.trim(), "machine");
    let (_, kept) = token_file(Path::new(store));
    assert_eq!(kept["tokens"]["clientId"], "machine");

    // A configuration's oauth settings: the secret expanded from the environment.
    let entry = json!({ "url": url, "oauth": {
        "clientId": "machine", "clientSecret": "${MACHINE_SECRET}", "grant": "client_credentials" } });
    let config = TempFile::new("oauth-machine", &json!({ "mcpServers": { "m": entry } }).to_string());
    let other_store = dir.path().join("other");
    let mut command = tokio::process::Command::new(mcpweft());
    command
        .args(["call", "whoami", "--config", config.path(), "--token-store", other_store.to_str().unwrap()])
        .envs(secret)
        .env_remove("MCPWEFT_LOG")
        .kill_on_drop(true);
    let output = within("call --config", command.output()).await.unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "machine");
    let (_, kept) = token_file(&other_store);
    assert_eq!(kept["tokens"]["clientId"], "machine");

    // A wrong secret is refused by the provider: the server cannot be reached.
    let args: Vec<&str> =
        ["call", "whoami", "--url", &url, "--token-store", "none"].into_iter().chain(machine).collect();
    let mut command = tokio::process::Command::new(mcpweft());
    command.args(&args).env("MACHINE_SECRET", "wrong").env_remove("MCPWEFT_LOG").kill_on_drop(true);
    let output = within("call --url with a wrong secret", command.output()).await.unwrap();
    assert_eq!(output.status.code(), Some(3), "{}", String::from_utf8_lossy(&output.stderr));
}
