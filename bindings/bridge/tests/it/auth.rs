//! Authorization through the bridge: a protected HTTP server whose tokens a callback checks,
//! the caller's identity in the handler's context, and the JSON settings of servers and
//! clients.

use std::sync::Arc;

use crate::common::callback;
use futures::executor::block_on;
use mcpweft_bridge::{CallOptions, Callback, Client, ClientCallbacks, Context, Error, ErrorKind, Server};
use serde_json::{Value, json};

fn server() -> Server {
    let server = Server::new(json!({ "name": "protected", "version": "1" })).unwrap();
    let whoami = callback(|_args, ctx: Context| async move { Ok(ctx.auth().unwrap_or(Value::Null)) });
    server.add_tool(json!({ "name": "whoami", "inputSchema": { "type": "object" } }), whoami, false).unwrap();
    server
}

/// Accepts the token `good` as alice with the scope `mcp:read`, and refuses any other.
fn verifier() -> Arc<dyn Callback> {
    callback(|payload, _ctx| async move {
        match payload["token"].as_str() {
            Some("good") => Ok(json!({ "subject": "alice", "clientId": "app", "scopes": ["mcp:read"] })),
            Some("refused") => Ok(Value::Null),
            _ => Err(Error::invalid_input("unknown token")),
        }
    })
}

fn auth_options() -> Value {
    json!({
        "port": 0,
        "auth": {
            "resource": "http://127.0.0.1/mcp",
            "authorizationServers": ["http://127.0.0.1:1"],
            "requiredScopes": ["mcp:read"],
        },
    })
}

/// Connects with `token`, returning the client, or `None` when the server refused it.
fn connect(url: &str, token: &str) -> Option<Client> {
    block_on(Client::connect(
        json!({ "type": "http", "url": url, "bearerToken": token, "openGetStream": false }),
        json!({ "name": "auth-tester", "version": "1" }),
        ClientCallbacks::new(),
    ))
    .ok()
}

#[test]
fn a_verifier_callback_protects_the_server_and_the_identity_reaches_the_handler() {
    let server = server();
    let http = block_on(server.serve_http_with_verifier(auth_options(), verifier())).unwrap();
    let client = connect(http.url(), "good").unwrap();
    let answer = block_on(client.call_tool("whoami", json!({}), CallOptions::new())).unwrap();
    let identity: Value = serde_json::from_str(answer["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(identity["subject"], "alice");
    assert_eq!(identity["clientId"], "app");
    assert_eq!(identity["scopes"], json!(["mcp:read"]));
    for token in ["refused", "bogus"] {
        assert!(connect(http.url(), token).is_none(), "{token}");
    }
    block_on(client.close()).unwrap();
    block_on(http.close()).unwrap();
}

#[test]
fn auth_settings_are_checked() {
    let server = server();
    let no_verifier = block_on(server.serve_http(auth_options())).unwrap_err();
    assert_eq!(no_verifier.kind, ErrorKind::InvalidInput);
    let both = json!({ "port": 0, "auth": { "resource": "http://127.0.0.1/mcp", "jwt": {
        "issuer": "http://127.0.0.1:1", "jwksUrl": "http://127.0.0.1:1/jwks", "jwks": { "keys": [] },
    } } });
    assert_eq!(block_on(server.serve_http(both)).unwrap_err().kind, ErrorKind::InvalidInput);
    let without_auth = server.http_endpoint_with_verifier(json!({}), verifier()).unwrap_err();
    assert_eq!(without_auth.kind, ErrorKind::InvalidInput);
    let jwt = json!({ "auth": { "resource": "http://127.0.0.1/mcp", "jwt": {
        "issuer": "http://127.0.0.1:1", "jwks": { "keys": [] },
    } } });
    assert!(server.http_endpoint(jwt).is_ok());
    let remote = block_on(server.serve_http(json!({ "host": "0.0.0.0", "port": 0 }))).unwrap_err();
    assert_eq!(remote.kind, ErrorKind::Config);
}

#[test]
fn a_client_login_needs_an_authorizer_or_client_credentials() {
    let refused = block_on(Client::connect(
        json!({ "type": "http", "url": "http://127.0.0.1:1/mcp", "auth": { "redirectUri": "http://127.0.0.1:2/cb" } }),
        Value::Null,
        ClientCallbacks::new(),
    ))
    .unwrap_err();
    assert_eq!(refused.kind, ErrorKind::InvalidInput);
}
