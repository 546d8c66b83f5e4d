//! Runs the client scenarios in process, over an in-memory transport, against an mcpweft server
//! that plays the suite's mock servers.

use std::sync::{Arc, Mutex};

use mcpweft::{
    ErrorData, RequestContext, Server,
    model::{CallToolResult, ElicitRequestFormParams, ElicitRequestParams, Implementation, JsonObject, Tool},
    transport::memory_pair,
};
use mcpweft_conformance::client::{Scenario, defaults_of, run};
use serde_json::{Value, json};

fn object(value: Value) -> JsonObject {
    value.as_object().cloned().unwrap()
}

/// The requested schema of the suite's `elicitation-sep1034-client-defaults` mock server.
fn defaults_schema() -> JsonObject {
    object(json!({
        "type": "object",
        "properties": {
            "name": { "type": "string", "description": "User name", "default": "John Doe" },
            "age": { "type": "integer", "description": "User age", "default": 30 },
            "score": { "type": "number", "description": "User score", "default": 95.5 },
            "status": { "type": "string", "enum": ["active", "inactive", "pending"], "default": "active" },
            "verified": { "type": "boolean", "description": "Verification status", "default": true },
            "nickname": { "type": "string", "description": "No default: left out" }
        },
        "required": []
    }))
}

fn mock_server(answers: Arc<Mutex<Vec<Value>>>) -> Server {
    let empty = || object(json!({ "type": "object", "properties": {} }));
    Server::builder(Implementation::new("mock", "1.0.0"))
        .tool(
            Tool::new(
                "add_numbers",
                "Adds two numbers.",
                object(json!({
                    "type": "object",
                    "properties": { "a": { "type": "number" }, "b": { "type": "number" } },
                    "required": ["a", "b"]
                })),
            ),
            |args: JsonObject, _ctx: RequestContext| async move {
                let sum = args["a"].as_f64().unwrap_or_default() + args["b"].as_f64().unwrap_or_default();
                Ok::<_, ErrorData>(CallToolResult::text(format!("The sum is {sum}")))
            },
        )
        .tool(
            Tool::new("test_client_elicitation_defaults", "Elicits with defaults.", empty()),
            move |_args: JsonObject, ctx: RequestContext| {
                let answers = answers.clone();
                async move {
                    let mut form = ElicitRequestFormParams::default();
                    form.message = "Please accept with defaults".to_owned();
                    form.requested_schema = defaults_schema();
                    let params = ElicitRequestParams::Form(form);
                    let result = ctx.elicit(params).await.map_err(|e| ErrorData::internal_error(e.to_string()))?;
                    answers.lock().unwrap().push(serde_json::to_value(&result).unwrap());
                    Ok(CallToolResult::text("Elicitation completed"))
                }
            },
        )
        .tool(
            Tool::new("test_reconnection", "Answers.", empty()),
            |_args: JsonObject, _ctx: RequestContext| async move { Ok(CallToolResult::text("done")) },
        )
        .build()
        .unwrap()
}

#[test]
fn scenario_names_round_trip() {
    for scenario in Scenario::ALL {
        assert_eq!(scenario.name().parse::<Scenario>().unwrap(), scenario);
    }
    let auth = "auth/metadata-default".parse::<Scenario>().unwrap();
    assert_eq!(auth, Scenario::Auth("auth/metadata-default".to_owned()));
    assert_eq!(auth.name(), "auth/metadata-default");
    assert!("unknown".parse::<Scenario>().is_err());
}

#[test]
fn defaults_cover_every_property_with_a_default() {
    let content = serde_json::to_value(defaults_of(&defaults_schema())).unwrap();
    assert_eq!(content, json!({ "name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": true }));
}

#[tokio::test]
async fn every_scenario_succeeds_against_a_conforming_server() {
    let answers = Arc::new(Mutex::new(Vec::new()));
    let server = mock_server(answers.clone());
    for scenario in Scenario::ALL {
        let (server_end, client_end) = memory_pair();
        server.serve(server_end);
        let summary = run(scenario.clone(), client_end).await.unwrap_or_else(|e| panic!("{scenario}: {e}"));
        assert!(!summary.is_empty());
    }
    let answers = answers.lock().unwrap();
    assert_eq!(answers.len(), 1);
    assert_eq!(answers[0]["action"], "accept");
    assert_eq!(answers[0]["content"]["age"], json!(30));
    assert_eq!(answers[0]["content"]["verified"], json!(true));
}

#[tokio::test]
async fn a_missing_tool_fails_the_scenario() {
    let server = Server::builder(Implementation::new("empty", "1.0.0"))
        .tool(
            Tool::new("other", "Another tool.", object(json!({ "type": "object" }))),
            |_args: JsonObject, _ctx: RequestContext| async move { Ok::<_, ErrorData>(CallToolResult::text("x")) },
        )
        .build()
        .unwrap();
    let (server_end, client_end) = memory_pair();
    server.serve(server_end);
    let error = run(Scenario::ToolsCall, client_end).await.unwrap_err();
    assert!(error.contains("add_numbers"), "{error}");
}

#[tokio::test]
async fn initialize_needs_no_capability_from_the_server() {
    let server = Server::builder(Implementation::new("bare", "1.0.0")).build().unwrap();
    let (server_end, client_end) = memory_pair();
    server.serve(server_end);
    let summary = run(Scenario::Initialize, client_end).await.unwrap();
    assert!(summary.contains("bare"), "{summary}");
}
