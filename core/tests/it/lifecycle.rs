//! Lifecycle: initialization, version negotiation, phase rules and capability gates.

use crate::common::*;
use mcpweft::{Client, ClientOptions, Error, Server, model::*, transport::StreamTransport};
use serde_json::json;

fn full_server() -> Server {
    Server::builder(
        Implementation::new("full", "2.3.4").with_title("Full Server").with_website_url("https://example.com"),
    )
    .instructions("Use the tools wisely.")
    .tool(Tool::without_arguments("noop", "Does nothing."), |_args: JsonObject, _ctx| async move {
        Ok(CallToolResult::text("ok"))
    })
    .resource(Resource::new("mem://a", "a"), |req: mcpweft::server::ResourceRequest, _ctx| async move {
        Ok(ReadResourceResult::new(vec![ResourceContents::text(req.uri, "a")]))
    })
    .prompt(
        Prompt::new("p"),
        |_args, _ctx| async move { Ok(GetPromptResult::new(vec![PromptMessage::user_text("hi")])) },
    )
    .completion(|_params: CompleteRequestParams, _ctx| async move { Ok(CompleteResult::new(vec![])) })
    .build()
    .unwrap()
}

#[tokio::test]
async fn initialize_result_reports_info_capabilities_and_instructions() {
    let server = full_server();
    let (mut raw, _session, _task) = raw_server(&server, None);
    let result = raw.initialize().await;
    assert_eq!(result["protocolVersion"], "2025-11-25");
    assert_eq!(
        result["serverInfo"],
        json!({ "name": "full", "title": "Full Server", "version": "2.3.4", "websiteUrl": "https://example.com" })
    );
    assert_eq!(result["instructions"], "Use the tools wisely.");
    assert_eq!(
        result["capabilities"],
        json!({
            "logging": {},
            "completions": {},
            "prompts": { "listChanged": true },
            "resources": { "subscribe": true, "listChanged": true },
            "tools": { "listChanged": true }
        })
    );

    // Through the client API, the same values are visible.
    let (client, _events, session) = connect(&server).await;
    let info = client.server();
    assert_eq!(info.server_info.name, "full");
    assert_eq!(info.instructions.as_deref(), Some("Use the tools wisely."));
    assert!(info.capabilities.tools.is_some() && info.capabilities.prompts.is_some());
    assert_eq!(session.client_info().unwrap().name, "test-client");
    assert!(session.is_initialized());
    assert!(session.client_capabilities().unwrap().sampling.is_some());
}

#[tokio::test]
async fn capabilities_follow_the_registrations() {
    let server = Server::builder(Implementation::new("bare", "1")).build().unwrap();
    let (mut raw, _session, _task) = raw_server(&server, None);
    let result = raw.initialize().await;
    assert_eq!(result["capabilities"], json!({ "logging": {} }), "only logging when nothing is registered");
    assert!(result.get("instructions").is_none(), "absent instructions are omitted, not null: {result}");

    let tools_only = echo_server();
    let (mut raw, _session, _task) = raw_server(&tools_only, None);
    let result = raw.initialize().await;
    assert_eq!(result["capabilities"], json!({ "logging": {}, "tools": { "listChanged": true } }));
}

#[tokio::test]
async fn supported_versions_are_echoed() {
    let server = echo_server();
    for version in ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] {
        let options = ClientOptions::new("c", "1").with_protocol_version(version);
        let (client, session, _) = connect_with(&server, options, mcpweft::client::NoHandler).await;
        assert_eq!(client.protocol_version(), version);
        assert_eq!(session.protocol_version().as_deref(), Some(version));
        client.close().await;
    }
}

#[tokio::test]
async fn unknown_version_gets_the_latest() {
    let server = echo_server();
    let (mut raw, _session, _task) = raw_server(&server, None);
    let response = raw
        .request(
            json!(1),
            "initialize",
            json!({ "protocolVersion": "1999-01-01", "capabilities": {}, "clientInfo": { "name": "old", "version": "1" } }),
        )
        .await;
    assert_eq!(response["result"]["protocolVersion"], "2025-11-25");

    let options = ClientOptions::new("c", "1").with_protocol_version("1999-01-01");
    let (client, _, _) = connect_with(&server, options, mcpweft::client::NoHandler).await;
    assert_eq!(client.protocol_version(), LATEST_PROTOCOL_VERSION);
}

#[tokio::test]
async fn client_refuses_an_unsupported_version_from_the_server() {
    let (mut fake_server, r, w) = raw_pipe();
    let connecting =
        tokio::spawn(Client::connect(StreamTransport::new(r, w), ClientOptions::new("strict-client", "1")));
    let request = fake_server.recv().await;
    assert_eq!(request["method"], "initialize");
    assert_eq!(request["params"]["protocolVersion"], "2025-11-25");
    assert_eq!(request["params"]["clientInfo"]["name"], "strict-client");
    fake_server
        .send(json!({
            "jsonrpc": "2.0",
            "id": request["id"],
            "result": {
                "protocolVersion": "2099-01-01",
                "capabilities": {},
                "serverInfo": { "name": "future", "version": "9" }
            }
        }))
        .await;
    let outcome = within(connecting).await.unwrap();
    assert!(matches!(outcome, Err(Error::Protocol(_))), "got {outcome:?}");
    // The client disconnects: no `notifications/initialized` follows, the pipe just ends.
    assert_eq!(fake_server.recv_line().await, None);
}

#[tokio::test]
async fn requests_before_initialize_are_refused_but_ping_works() {
    let server = echo_server();
    let (mut raw, _session, _task) = raw_server(&server, None);
    let response = raw.request(json!(1), "tools/list", json!({})).await;
    assert_error(&response, -32600);
    let response = raw.request(json!(2), "ping", json!({})).await;
    assert_eq!(response["result"], json!({}));
    // Without params at all, ping still works.
    raw.send(json!({ "jsonrpc": "2.0", "id": 3, "method": "ping" })).await;
    assert_eq!(raw.recv_response().await, json!({ "jsonrpc": "2.0", "id": 3, "result": {} }));
    // Initialization still succeeds afterwards, and then the request is served.
    raw.initialize().await;
    let response = raw.request(json!(4), "tools/list", json!({})).await;
    assert_eq!(response["result"]["tools"][0]["name"], "echo");
}

#[tokio::test]
async fn a_second_initialize_is_an_invalid_request() {
    let server = echo_server();
    let (mut raw, _session, _task) = raw_server(&server, None);
    raw.initialize().await;
    let response = raw
        .request(
            json!(9),
            "initialize",
            json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "again", "version": "1" } }),
        )
        .await;
    assert_error(&response, -32600);

    // Through the client API too.
    let (client, _events, session) = connect(&server).await;
    let params = serde_json::to_value(InitializeRequestParams::new(
        ClientCapabilities::default(),
        Implementation::new("again", "1"),
    ))
    .unwrap();
    let outcome = within(client.request("initialize", Some(params), Default::default())).await;
    assert_eq!(rpc_code(outcome), -32600);
    assert_eq!(session.client_info().unwrap().name, "test-client", "the first initialization stands");
}

#[tokio::test]
async fn undeclared_capabilities_are_refused_on_both_sides() {
    let server = echo_server();
    let (client, _events, _session) = connect(&server).await;

    // The server answers method-not-found for features it did not declare.
    for method in ["prompts/list", "resources/list", "resources/templates/list", "completion/complete"] {
        let outcome = within(client.peer().request(method, Some(json!({})), Default::default())).await;
        assert_eq!(rpc_code(outcome), -32601, "{method}");
    }
    let outcome = within(client.peer().request("prompts/get", Some(json!({ "name": "x" })), Default::default())).await;
    assert_eq!(rpc_code(outcome), -32601);
    // The client's raw `request` checks the server's capabilities first, like the typed methods.
    let outcome = within(client.request("prompts/list", None, Default::default())).await;
    assert!(matches!(outcome, Err(Error::CapabilityMissing(_))), "{outcome:?}");

    // The client refuses locally, without a round trip.
    assert!(matches!(within(client.list_prompts(None)).await, Err(Error::CapabilityMissing(_))));
    assert!(matches!(within(client.get_prompt("x", [])).await, Err(Error::CapabilityMissing(_))));
    assert!(matches!(within(client.list_resources(None)).await, Err(Error::CapabilityMissing(_))));
    assert!(matches!(within(client.read_resource("mem://a")).await, Err(Error::CapabilityMissing(_))));
    assert!(matches!(within(client.subscribe("mem://a")).await, Err(Error::CapabilityMissing(_))));
    let reference = CompletionReference::Prompt(PromptReference::new("x"));
    assert!(matches!(within(client.complete(reference, "a", "b")).await, Err(Error::CapabilityMissing(_))));

    // Declared features still work.
    let result = within(client.call_tool("echo", json!({ "text": "still here" }))).await.unwrap();
    assert_eq!(first_text(&result), "still here");
}

#[tokio::test]
async fn subscriptions_can_be_turned_off() {
    let options = mcpweft::server::ServerOptions::new().with_resource_subscriptions(false);
    let server = Server::new(Implementation::new("nosub", "1"), options);
    server
        .add_resource(Resource::new("mem://a", "a"), |req: mcpweft::server::ResourceRequest, _ctx| async move {
            Ok(ReadResourceResult::new(vec![ResourceContents::text(req.uri, "a")]))
        })
        .unwrap();
    let (client, _events, _session) = connect(&server).await;
    assert_eq!(client.server().capabilities.resources.as_ref().unwrap().subscribe, Some(false));
    assert!(matches!(within(client.subscribe("mem://a")).await, Err(Error::CapabilityMissing(_))));
    let outcome =
        within(client.peer().request("resources/subscribe", Some(json!({ "uri": "mem://a" })), Default::default()));
    assert_eq!(rpc_code(outcome.await), -32601);
}

#[tokio::test]
async fn unknown_fields_are_tolerated_in_initialize() {
    let server = echo_server();
    let (mut raw, _session, _task) = raw_server(&server, None);
    let response = raw
        .request(
            json!("x"),
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": { "experimental": { "foo": {} }, "someFutureCapability": { "a": 1 } },
                "clientInfo": { "name": "raw", "version": "1", "futureField": true },
                "_meta": { "com.example/x": 1 },
                "unknownTopLevel": [1, 2]
            }),
        )
        .await;
    assert_eq!(response["result"]["protocolVersion"], "2025-11-25");
    assert!(response["result"]["capabilities"].is_object());
}

#[tokio::test]
async fn a_list_change_between_the_initialize_answer_and_initialized_reaches_the_client() {
    let server = full_server();
    let (mut raw, _session, _task) = raw_server(&server, None);
    let answer = raw
        .request(
            json!(1),
            "initialize",
            json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "raw", "version": "1" } }),
        )
        .await;
    assert!(answer["result"]["capabilities"]["tools"]["listChanged"] == true, "{answer}");
    // A client that was just answered may change nothing yet, but the server may: the change
    // is not lost while its `notifications/initialized` is on the way.
    assert!(server.remove_tool("noop"));
    assert_eq!(raw.recv().await["method"], "notifications/tools/list_changed");
    raw.send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).await;
    let tools = raw.request(json!(2), "tools/list", json!({})).await;
    assert_eq!(tools["result"]["tools"], json!([]));
}
