//! The resource server: bearer tokens checked by the JWT verifier or a custom one, 401 and 403
//! challenges, the Protected Resource Metadata document, the identity in handlers, and
//! sessions bound to the identity that created them.

use std::{
    net::SocketAddr,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use crate::auth_common::{ISSUER, SigningKey, claims, jwks, now};
use crate::common::within;
use futures::{FutureExt, StreamExt};
use mcpweft::{
    Error, RequestContext, Server,
    auth::{AuthInfo, JwtVerifier, ResourceServerOptions, TokenError, TokenVerifier, VerifierFn},
    http::{BoundHttpServer, HttpServerOptions, StreamableHttpServer},
    model::*,
};
use serde_json::{Value, json};

const ACCEPT: &str = "application/json, text/event-stream";

/// A protected server: `whoami` answers the caller's identity, `write` needs `mcp:write`, and
/// every handler call is counted.
struct Protected {
    bound: BoundHttpServer,
    calls: Arc<AtomicUsize>,
    http: reqwest::Client,
}

fn server(calls: Arc<AtomicUsize>) -> Server {
    let counted = calls.clone();
    Server::builder(Implementation::new("auth-test-server", "1.0.0"))
        .tool(Tool::without_arguments("whoami", "Answers who calls."), move |_args: JsonObject, ctx: RequestContext| {
            counted.fetch_add(1, Ordering::SeqCst);
            async move {
                let auth = ctx.auth().expect("a protected server's handlers see the caller");
                Ok(CallToolResult::text(serde_json::to_string(&*auth).expect("identity is JSON")))
            }
        })
        .tool(Tool::without_arguments("write", "Needs mcp:write."), move |_args: JsonObject, _ctx: RequestContext| {
            calls.fetch_add(1, Ordering::SeqCst);
            async move { Ok(CallToolResult::text("written")) }
        })
        .build()
        .expect("a valid server")
}

/// Binds a loopback server protected with the options that `auth` makes from its own URL.
async fn protect(auth: impl FnOnce(String) -> ResourceServerOptions) -> Protected {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let port = listener.local_addr().expect("an address").port();
    drop(listener);
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().expect("an address");
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let calls = Arc::new(AtomicUsize::new(0));
    let options = HttpServerOptions::new().with_auth(auth(resource));
    let bound = StreamableHttpServer::bind(server(calls.clone()), addr, options).await.expect("the server binds");
    mcpweft::install_crypto_provider();
    Protected { bound, calls, http: reqwest::Client::new() }
}

/// The usual protection: JWTs from [`ISSUER`] signed by the main key, `mcp:read` required for
/// everything and `mcp:write` for the `write` tool.
async fn protect_with_jwt() -> Protected {
    let keys = jwks(&[&SigningKey::main("k1")]);
    protect(|resource| {
        let verifier = JwtVerifier::with_jwks(&keys, ISSUER, resource.clone()).expect("a valid JWKS");
        ResourceServerOptions::new(resource, Arc::new(verifier))
            .with_authorization_server(ISSUER)
            .with_required_scopes(["mcp:read"])
            .with_scopes_supported(["mcp:read", "mcp:write"])
            .with_tool_scopes("write", ["mcp:write"])
    })
    .await
}

impl Protected {
    fn resource(&self) -> String {
        self.bound.url()
    }

    fn token(&self, subject: &str, scope: &str) -> String {
        SigningKey::main("k1").sign(&claims(&self.resource(), subject, scope))
    }

    async fn post(&self, token: Option<&str>, session: Option<&str>, body: Value) -> reqwest::Response {
        let mut request = self
            .http
            .post(self.resource())
            .header("accept", ACCEPT)
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(session) = session {
            request = request.header("mcp-session-id", session).header("mcp-protocol-version", "2025-11-25");
        }
        within(request.send()).await.expect("the request is answered")
    }

    /// Initializes a session with `token`, returning its id.
    async fn initialize(&self, token: &str) -> String {
        let init = json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": { "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } }
        });
        let response = self.post(Some(token), None, init).await;
        assert_eq!(response.status(), 200);
        let session = response.headers()["mcp-session-id"].to_str().expect("a text session id").to_owned();
        let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
        assert_eq!(self.post(Some(token), Some(&session), initialized).await.status(), 202);
        session
    }

    async fn call(&self, token: &str, session: &str, tool: &str) -> reqwest::Response {
        let call =
            json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "name": tool, "arguments": {} } });
        self.post(Some(token), Some(session), call).await
    }
}

fn challenge(response: &reqwest::Response) -> String {
    response.headers()["www-authenticate"].to_str().expect("a text challenge").to_owned()
}

async fn reply(response: reqwest::Response) -> Value {
    let text = within(response.text()).await.expect("a body");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

#[tokio::test]
async fn a_request_without_a_token_gets_401_naming_the_metadata_and_the_scope() {
    let server = protect_with_jwt().await;
    let response = server.post(None, None, json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" })).await;
    assert_eq!(response.status(), 401);
    let challenge = challenge(&response);
    let port = server.bound.local_addr().port();
    assert!(challenge.starts_with("Bearer "), "{challenge}");
    assert!(
        challenge.contains(&format!(
            "resource_metadata=\"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp\""
        )),
        "{challenge}"
    );
    assert!(challenge.contains("scope=\"mcp:read\""), "{challenge}");
    assert!(!challenge.contains("error="), "a missing token is no invalid token: {challenge}");
    // GET and DELETE are protected too.
    let get = within(server.http.get(server.resource()).header("accept", "text/event-stream").send()).await.unwrap();
    assert_eq!(get.status(), 401);
    let delete = within(server.http.delete(server.resource()).send()).await.unwrap();
    assert_eq!(delete.status(), 401);
}

#[tokio::test]
async fn the_protected_resource_metadata_is_served_at_its_path_and_at_the_root() {
    let server = protect_with_jwt().await;
    let port = server.bound.local_addr().port();
    for path in ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"] {
        let response = within(server.http.get(format!("http://127.0.0.1:{port}{path}")).send()).await.unwrap();
        assert_eq!(response.status(), 200, "{path}");
        let document = reply(response).await;
        assert_eq!(document["resource"], server.resource());
        assert_eq!(document["authorization_servers"], json!([ISSUER]));
        assert_eq!(document["scopes_supported"], json!(["mcp:read", "mcp:write"]));
        assert_eq!(document["bearer_methods_supported"], json!(["header"]));
    }
}

#[tokio::test]
async fn bad_tokens_of_every_kind_get_401_and_never_reach_a_handler() {
    let server = protect_with_jwt().await;
    let resource = server.resource();
    let main = SigningKey::main("k1");
    let valid = claims(&resource, "alice", "mcp:read");
    let with = |name: &str, value: Value| {
        let mut claims = valid.clone();
        claims[name] = value;
        claims
    };
    let hmac = {
        let header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256);
        jsonwebtoken::encode(&header, &valid, &jsonwebtoken::EncodingKey::from_secret(b"a shared secret").unwrap())
            .unwrap()
    };
    let payload = main.sign(&valid).split('.').nth(1).unwrap().to_owned();
    let cases = [
        ("malformed", "not-a-jwt".to_owned()),
        ("three garbage parts", "a.b.c".to_owned()),
        ("wrong signature", SigningKey::other("k1").sign(&valid)),
        ("unknown key", SigningKey::other("k2").sign(&valid)),
        // {"alg":"none","typ":"JWT"}, the valid claims, and no signature.
        ("alg none", format!("eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.{payload}.")),
        ("shared-secret algorithm", hmac),
        ("wrong issuer", main.sign(&with("iss", json!("http://127.0.0.1:1/other")))),
        ("expired", main.sign(&with("exp", json!(now() - 3600)))),
        ("wrong audience", main.sign(&with("aud", json!("http://127.0.0.1:1/another-server")))),
        (
            "no audience",
            main.sign(&{
                let mut c = valid.clone();
                c.as_object_mut().unwrap().remove("aud");
                c
            }),
        ),
        (
            "no expiry",
            main.sign(&{
                let mut c = valid.clone();
                c.as_object_mut().unwrap().remove("exp");
                c
            }),
        ),
    ];
    let good = main.sign(&valid);
    let session = server.initialize(&good).await;
    for (kind, token) in &cases {
        let response = server.call(token, &session, "whoami").await;
        assert_eq!(response.status(), 401, "{kind}");
        let challenge = challenge(&response);
        assert!(challenge.contains("error=\"invalid_token\""), "{kind}: {challenge}");
        assert!(challenge.contains("resource_metadata="), "{kind}: {challenge}");
        let init = json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {} });
        assert_eq!(server.post(Some(token), None, init).await.status(), 401, "{kind}");
    }
    // Another scheme, or a token outside the Authorization header, is no bearer token.
    let basic = within(
        server.http.post(&resource).header("accept", ACCEPT).header("authorization", format!("Basic {good}")).send(),
    )
    .await
    .unwrap();
    assert_eq!(basic.status(), 401);
    let query = within(server.http.post(format!("{resource}?access_token={good}")).header("accept", ACCEPT).send())
        .await
        .unwrap();
    assert_eq!(query.status(), 401);
    assert_eq!(server.calls.load(Ordering::SeqCst), 0, "a refused token reached a handler");
    // The valid token does reach it.
    assert_eq!(server.call(&good, &session, "whoami").await.status(), 200);
    assert_eq!(server.calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn handlers_see_the_verified_identity_and_scopes() {
    let server = protect_with_jwt().await;
    let token = server.token("alice", "mcp:read mcp:extra");
    let session = server.initialize(&token).await;
    let answer = reply(server.call(&token, &session, "whoami").await).await;
    let identity: Value = serde_json::from_str(answer["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(identity["subject"], "alice");
    assert_eq!(identity["clientId"], "test-client");
    assert_eq!(identity["issuer"], ISSUER);
    assert_eq!(identity["audience"], json!([server.resource()]));
    assert_eq!(identity["scopes"], json!(["mcp:read", "mcp:extra"]));
}

#[tokio::test]
async fn missing_scopes_get_403_insufficient_scope_naming_all_the_scopes_needed() {
    let server = protect_with_jwt().await;
    let reader = server.token("alice", "mcp:read");
    let session = server.initialize(&reader).await;
    let response = server.call(&reader, &session, "write").await;
    assert_eq!(response.status(), 403);
    let header = challenge(&response);
    assert!(header.contains("error=\"insufficient_scope\""), "{header}");
    assert!(header.contains("scope=\"mcp:read mcp:write\""), "{header}");
    assert!(header.contains("resource_metadata="), "{header}");
    assert_eq!(server.calls.load(Ordering::SeqCst), 0);
    // A token without the scope every request needs is refused with 403 as well.
    let bare = server.token("alice", "");
    let ping = json!({ "jsonrpc": "2.0", "id": 3, "method": "ping" });
    let response = server.post(Some(&bare), Some(&session), ping).await;
    assert_eq!(response.status(), 403);
    assert!(challenge(&response).contains("scope=\"mcp:read\""));
    // The same user, stepped up, may write in the same session.
    let writer = server.token("alice", "mcp:read mcp:write");
    let response = server.call(&writer, &session, "write").await;
    assert_eq!(response.status(), 200);
    assert_eq!(reply(response).await["result"]["content"][0]["text"], "written");
}

#[tokio::test]
async fn a_method_can_need_its_own_scopes() {
    let keys = jwks(&[&SigningKey::main("k1")]);
    let server = protect(|resource| {
        let verifier = JwtVerifier::with_jwks(&keys, ISSUER, resource.clone()).unwrap();
        ResourceServerOptions::new(resource, Arc::new(verifier)).with_method_scopes("tools/list", ["tools:list"])
    })
    .await;
    let token = server.token("alice", "");
    let session = server.initialize(&token).await;
    let list = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list" });
    let response = server.post(Some(&token), Some(&session), list.clone()).await;
    assert_eq!(response.status(), 403);
    assert!(challenge(&response).contains("scope=\"tools:list\""));
    let lister = server.token("alice", "tools:list");
    assert_eq!(server.post(Some(&lister), Some(&session), list).await.status(), 200);
}

#[tokio::test]
async fn a_session_only_serves_the_identity_that_created_it() {
    let server = protect_with_jwt().await;
    let alice = server.token("alice", "mcp:read");
    let session = server.initialize(&alice).await;
    let mallory = server.token("mallory", "mcp:read");
    let response = server.call(&mallory, &session, "whoami").await;
    assert_eq!(response.status(), 404, "another user must not reach alice's session");
    let delete =
        within(server.http.delete(server.resource()).bearer_auth(&mallory).header("mcp-session-id", &session).send())
            .await
            .unwrap();
    assert_eq!(delete.status(), 404);
    assert_eq!(server.calls.load(Ordering::SeqCst), 0);
    // Alice's session is still there, with a fresh token of hers.
    let again = server.token("alice", "mcp:read");
    assert_eq!(server.call(&again, &session, "whoami").await.status(), 200);
}

#[tokio::test]
async fn a_custom_verifier_decides_and_foreign_audiences_are_refused() {
    let verifier = |resource: String| {
        VerifierFn(move |token: String| {
            let resource = resource.clone();
            async move {
                match token.as_str() {
                    "good" => Ok(AuthInfo::new().with_subject("bob").with_scopes(["s"]).with_audience([resource])),
                    "elsewhere" => Ok(AuthInfo::new().with_subject("bob").with_audience(["https://other.example/mcp"])),
                    "stale" => Ok(AuthInfo::new().with_subject("bob").with_expires_at(now() - 3600)),
                    "down" => Err(TokenError::Unavailable("the introspection endpoint is down".into())),
                    _ => Err(TokenError::Invalid("unknown token".into())),
                }
            }
            .boxed()
        })
    };
    let server = protect(|resource| ResourceServerOptions::new(resource.clone(), Arc::new(verifier(resource)))).await;
    let session = server.initialize("good").await;
    assert_eq!(server.call("good", &session, "whoami").await.status(), 200);
    for token in ["elsewhere", "stale", "bogus"] {
        assert_eq!(server.call(token, &session, "whoami").await.status(), 401, "{token}");
    }
    assert_eq!(server.call("down", &session, "whoami").await.status(), 503);
    assert_eq!(server.calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn the_jwks_url_is_fetched_once_and_again_for_an_unknown_key() {
    let fetches = Arc::new(AtomicUsize::new(0));
    let document = Arc::new(std::sync::Mutex::new(jwks(&[&SigningKey::main("k1")])));
    let app = {
        let fetches = fetches.clone();
        let document = document.clone();
        axum::Router::new().route(
            "/jwks",
            axum::routing::get(move || {
                fetches.fetch_add(1, Ordering::SeqCst);
                let body = document.lock().unwrap().clone();
                async move { axum::Json(body) }
            }),
        )
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let jwks_url = format!("http://{}/jwks", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let server = protect(|resource| {
        let verifier =
            JwtVerifier::with_jwks_url(jwks_url, ISSUER, resource.clone()).with_refresh_interval(Duration::ZERO);
        ResourceServerOptions::new(resource, Arc::new(verifier))
    })
    .await;
    let token = server.token("alice", "");
    let session = server.initialize(&token).await;
    assert_eq!(server.call(&token, &session, "whoami").await.status(), 200);
    assert_eq!(fetches.load(Ordering::SeqCst), 1, "the key set is cached");
    // The issuer rotates its keys: a token signed by the new key makes the verifier fetch again.
    *document.lock().unwrap() = jwks(&[&SigningKey::main("k1"), &SigningKey::other("k2")]);
    let rotated = SigningKey::other("k2").sign(&claims(&server.resource(), "alice", ""));
    assert_eq!(server.call(&rotated, &session, "whoami").await.status(), 200);
    assert_eq!(fetches.load(Ordering::SeqCst), 2);
    // A JWKS that cannot be fetched is no reason to accept a token.
    let unknown = SigningKey::other("k3").sign(&claims(&server.resource(), "alice", ""));
    assert_eq!(server.call(&unknown, &session, "whoami").await.status(), 401);
}

#[tokio::test]
async fn the_jwt_verifier_checks_required_scopes_itself() {
    let keys = jwks(&[&SigningKey::main("k1")]);
    let resource = "http://127.0.0.1:1/mcp";
    let verifier = JwtVerifier::with_jwks(&keys, ISSUER, resource).unwrap().with_required_scopes(["admin"]);
    let main = SigningKey::main("k1");
    let refused = verifier.verify(&main.sign(&claims(resource, "alice", "user"))).await;
    assert!(matches!(refused, Err(TokenError::Invalid(_))), "{refused:?}");
    let accepted = verifier.verify(&main.sign(&claims(resource, "alice", "user admin"))).await.unwrap();
    assert_eq!(accepted.subject.as_deref(), Some("alice"));
    // Expiry within the leeway is accepted, beyond it not.
    let mut late = claims(resource, "alice", "admin");
    late["exp"] = json!(now() - 30);
    assert!(verifier.verify(&main.sign(&late)).await.is_ok());
    let strict = JwtVerifier::with_jwks(&keys, ISSUER, resource).unwrap().with_leeway(Duration::ZERO);
    assert!(strict.verify(&main.sign(&late)).await.is_err());
    // A token not valid before an hour from now is refused; one within the leeway is not.
    let mut early = claims(resource, "alice", "admin");
    early["nbf"] = json!(now() + 3600);
    let refused = verifier.verify(&main.sign(&early)).await;
    assert!(matches!(&refused, Err(TokenError::Invalid(m)) if m.contains("ImmatureSignature")), "{refused:?}");
    early["nbf"] = json!(now() + 30);
    assert!(verifier.verify(&main.sign(&early)).await.is_ok());
    assert!(strict.verify(&main.sign(&early)).await.is_err());
    assert!(JwtVerifier::with_jwks(&json!({ "keys": "no" }), ISSUER, resource).is_err());
}

#[tokio::test]
async fn binding_beyond_loopback_without_authorization_needs_an_explicit_opt_in() {
    let server = Server::builder(Implementation::new("open", "1")).build().unwrap();
    let addr: SocketAddr = "0.0.0.0:0".parse().unwrap();
    let refused = StreamableHttpServer::bind(server.clone(), addr, HttpServerOptions::new()).await;
    assert!(matches!(refused, Err(Error::Config(_))), "{refused:?}");
    // Allowed, it still needs the host names clients use: the default ones are loopback names.
    let open = HttpServerOptions::new().with_allow_remote_without_auth(true);
    let outcome = StreamableHttpServer::bind(server.clone(), addr, open.clone()).await;
    let Err(Error::Config(message)) = outcome else {
        panic!("binding 0.0.0.0 with only loopback host names gave {outcome:?}");
    };
    assert!(message.contains("allowed hosts"), "{message}");
    let named = open.with_allowed_hosts(["mcp.example.com"]);
    let bound = StreamableHttpServer::bind(server, addr, named).await.unwrap();
    bound.shutdown().await;
}

/// Serves `app` on a free loopback port and returns the URL of its `/jwks`.
async fn jwks_endpoint(app: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/jwks", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

#[tokio::test]
async fn tokens_waiting_for_a_failing_jwks_url_share_one_fetch_and_its_failure() {
    let fetches = Arc::new(AtomicUsize::new(0));
    let counted = fetches.clone();
    let url = jwks_endpoint(axum::Router::new().route(
        "/jwks",
        axum::routing::get(move || {
            counted.fetch_add(1, Ordering::SeqCst);
            async {
                tokio::time::sleep(Duration::from_millis(300)).await;
                (axum::http::StatusCode::SERVICE_UNAVAILABLE, "down")
            }
        }),
    ))
    .await;
    let resource = "http://127.0.0.1:1/mcp";
    let verifier = Arc::new(JwtVerifier::with_jwks_url(url, ISSUER, resource));
    let verify_forged = |n: usize| {
        let verifier = verifier.clone();
        let token = SigningKey::main(&format!("forged-{n}")).sign(&claims(resource, "mallory", ""));
        tokio::spawn(async move { verifier.verify(&token).await })
    };
    // Fifty tokens with random key ids while the issuer is slow and failing: one fetch.
    let waiting: Vec<_> = (0..50).map(verify_forged).collect();
    for outcome in futures::future::join_all(waiting).await {
        let outcome = outcome.unwrap();
        assert!(matches!(&outcome, Err(TokenError::Unavailable(m)) if m.contains("503")), "{outcome:?}");
    }
    assert_eq!(fetches.load(Ordering::SeqCst), 1);
    // The failure is remembered for the refresh interval: later tokens cause no fetch.
    let later = within(verify_forged(50)).await.unwrap();
    assert!(matches!(&later, Err(TokenError::Unavailable(m)) if m.contains("503")), "{later:?}");
    assert_eq!(fetches.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_jwks_document_larger_than_a_mebibyte_is_refused_while_it_streams() {
    let url = jwks_endpoint(axum::Router::new().route(
        "/jwks",
        axum::routing::get(|| async {
            // Chunks with no announced length: the verifier must stop reading, not buffer it all.
            let chunks = futures::stream::repeat_with(|| Ok::<_, std::io::Error>(vec![b' '; 64 * 1024])).take(4096);
            axum::body::Body::from_stream(chunks)
        }),
    ))
    .await;
    let resource = "http://127.0.0.1:1/mcp";
    let verifier = JwtVerifier::with_jwks_url(url, ISSUER, resource);
    let token = SigningKey::main("k1").sign(&claims(resource, "alice", ""));
    let refused = within(verifier.verify(&token)).await;
    assert!(
        matches!(&refused, Err(TokenError::Unavailable(m)) if m.contains("more than 1048576 bytes")),
        "{refused:?}"
    );
}
