//! Checks the fixture in process, over an in-memory transport, against what the conformance
//! suite's server scenarios expect, so that a suite failure over HTTP points at the transport.

use std::{
    collections::BTreeMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use async_trait::async_trait;
use mcpweft::{
    Client, ClientHandler, ClientOptions, ErrorData, RequestOptions,
    model::{
        CallToolRequestParams, CallToolResult, ClientCapabilities, CompletionReference, CreateMessageRequestParams,
        CreateMessageResult, ElicitContentValue, ElicitRequestParams, ElicitResult, LoggingLevel,
        LoggingMessageNotificationParams, PromptReference, Role, SamplingContent, SamplingMessageContentBlock,
    },
    session::IncomingRequest,
    transport::memory_pair,
};
use mcpweft_conformance::{RECONNECTION_TEXT, fixture, json_schema_2020_12};
use serde_json::{Value, json};

#[derive(Default)]
struct Recorder {
    logs: Mutex<Vec<LoggingMessageNotificationParams>>,
    sampling: Mutex<Vec<CreateMessageRequestParams>>,
    elicitations: Mutex<Vec<ElicitRequestParams>>,
}

struct Handler(Arc<Recorder>);

#[async_trait]
impl ClientHandler for Handler {
    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: IncomingRequest,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.0.sampling.lock().unwrap().push(params);
        Ok(CreateMessageResult::new(
            Role::Assistant,
            SamplingContent::Single(SamplingMessageContentBlock::text("sampled")),
            "test-model",
        ))
    }

    async fn elicit(&self, params: ElicitRequestParams, _context: IncomingRequest) -> Result<ElicitResult, ErrorData> {
        self.0.elicitations.lock().unwrap().push(params);
        let content = BTreeMap::from([("username".to_owned(), ElicitContentValue::String("alice".to_owned()))]);
        Ok(ElicitResult::accept(content))
    }

    async fn on_log_message(&self, params: LoggingMessageNotificationParams) {
        self.0.logs.lock().unwrap().push(params);
    }
}

async fn connect() -> (Client, Arc<Recorder>) {
    let (server_end, client_end) = memory_pair();
    fixture().serve(server_end);
    let recorder = Arc::new(Recorder::default());
    let options = ClientOptions::new("fixture-test", "1.0.0")
        .with_capabilities(ClientCapabilities::default().with_sampling().with_elicitation(false));
    let client = Client::connect_with_handler(client_end, options, Handler(recorder.clone())).await.unwrap();
    (client, recorder)
}

fn json_of(result: &CallToolResult) -> Value {
    serde_json::to_value(result).unwrap()
}

#[tokio::test]
async fn declares_the_capabilities_the_suite_uses() {
    let (client, _) = connect().await;
    let caps = serde_json::to_value(&client.server().capabilities).unwrap();
    for key in ["tools", "prompts", "logging", "completions"] {
        assert!(caps.get(key).is_some(), "missing capability {key}: {caps}");
    }
    assert_eq!(caps["resources"]["subscribe"], json!(true));
}

#[tokio::test]
async fn every_tool_has_a_description_and_an_input_schema() {
    let (client, _) = connect().await;
    let tools = client.list_all_tools().await.unwrap();
    // 14 for suite 0.1.16, 11 for the input-required and stateless scenarios of suite
    // 0.2.0-alpha.12, and 10 for its tasks, subscriptions/listen and custom-header scenarios.
    assert_eq!(tools.len(), 35);
    for tool in &tools {
        assert!(!tool.name.is_empty());
        assert!(tool.description.as_deref().is_some_and(|d| !d.is_empty()), "{}", tool.name);
        assert_eq!(tool.input_schema.get("type"), Some(&json!("object")), "{}", tool.name);
    }
    let schema_tool = tools.iter().find(|t| t.name == "json_schema_2020_12_tool").unwrap();
    assert_eq!(schema_tool.input_schema, json_schema_2020_12());
}

#[tokio::test]
async fn content_tools_return_the_expected_blocks() {
    let (client, _) = connect().await;
    let mut params = CallToolRequestParams::default();
    params.name = "test_simple_text".to_owned();
    let simple = client.call_tool_with(params, RequestOptions::default()).await.unwrap();
    assert_eq!(
        json_of(&simple)["content"],
        json!([{"type": "text", "text": "This is a simple text response for testing."}])
    );

    let image = json_of(&client.call_tool("test_image_content", json!({})).await.unwrap());
    assert_eq!(image["content"][0]["type"], "image");
    assert_eq!(image["content"][0]["mimeType"], "image/png");

    let audio = json_of(&client.call_tool("test_audio_content", json!({})).await.unwrap());
    assert_eq!(audio["content"][0]["type"], "audio");
    assert_eq!(audio["content"][0]["mimeType"], "audio/wav");

    let embedded = json_of(&client.call_tool("test_embedded_resource", json!({})).await.unwrap());
    assert_eq!(
        embedded["content"],
        json!([{"type": "resource", "resource": {
            "uri": "test://embedded-resource", "mimeType": "text/plain", "text": "This is an embedded resource content."
        }}])
    );

    let mixed = json_of(&client.call_tool("test_multiple_content_types", json!({})).await.unwrap());
    let types: Vec<&str> = mixed["content"].as_array().unwrap().iter().map(|c| c["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["text", "image", "resource"]);
    assert_eq!(mixed["content"][2]["resource"]["text"], r#"{"test":"data","value":123}"#);

    let error = json_of(&client.call_tool("test_error_handling", json!({})).await.unwrap());
    assert_eq!(error["isError"], true);
    assert_eq!(error["content"][0]["text"], "This tool intentionally returns an error for testing");

    let with_schema = client.call_tool("json_schema_2020_12_tool", json!({"name": "x", "address": {"city": "y"}}));
    assert!(!with_schema.await.unwrap().is_error());
    let reconnection = json_of(&client.call_tool("test_reconnection", json!({})).await.unwrap());
    assert_eq!(reconnection["content"][0]["text"], RECONNECTION_TEXT);
}

#[tokio::test]
async fn unknown_tools_are_a_protocol_error() {
    let (client, _) = connect().await;
    assert!(client.call_tool("no_such_tool", json!({})).await.is_err());
}

#[tokio::test]
async fn the_logging_tool_sends_three_info_messages() {
    let (client, recorder) = connect().await;
    client.set_logging_level(LoggingLevel::Debug).await.unwrap();
    let result = client.call_tool("test_tool_with_logging", json!({})).await.unwrap();
    assert!(!result.is_error());
    tokio::time::sleep(Duration::from_millis(50)).await;
    let logs = recorder.logs.lock().unwrap();
    let data: Vec<&Value> = logs.iter().map(|l| &l.data).collect();
    assert_eq!(
        data,
        [&json!("Tool execution started"), &json!("Tool processing data"), &json!("Tool execution completed")]
    );
    assert!(logs.iter().all(|l| l.level == LoggingLevel::Info));
}

#[tokio::test]
async fn the_progress_tool_reports_before_its_result() {
    let (client, _) = connect().await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let options = RequestOptions::default().with_progress(move |p| sink.lock().unwrap().push(p));
    let params = CallToolRequestParams::new("test_tool_with_progress", serde_json::Map::new());
    let result = client.call_tool_with(params, options).await.unwrap();
    assert!(!result.is_error());
    let seen = seen.lock().unwrap();
    let values: Vec<(f64, Option<f64>)> = seen.iter().map(|p| (p.progress, p.total)).collect();
    assert_eq!(values, [(0.0, Some(100.0)), (50.0, Some(100.0)), (100.0, Some(100.0))]);
    // The client picks an integer token, as the TypeScript SDK does; it must come back as one.
    assert!(serde_json::to_value(&seen[0].progress_token).unwrap().is_i64());
}

#[tokio::test]
async fn sampling_and_elicitation_go_to_the_client() {
    let (client, recorder) = connect().await;
    let sampled =
        json_of(&client.call_tool("test_sampling", json!({"prompt": "Test prompt for sampling"})).await.unwrap());
    assert_eq!(sampled["content"][0]["text"], "LLM response: sampled");
    let request = serde_json::to_value(&recorder.sampling.lock().unwrap()[0]).unwrap();
    assert_eq!(request["maxTokens"], 100);
    assert_eq!(
        request["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "Test prompt for sampling"}}])
    );

    let elicited = json_of(
        &client.call_tool("test_elicitation", json!({"message": "Please provide your information"})).await.unwrap(),
    );
    assert_eq!(elicited["content"][0]["text"], r#"User response: action=accept, content={"username":"alice"}"#);

    let defaults = json_of(&client.call_tool("test_elicitation_sep1034_defaults", json!({})).await.unwrap());
    assert!(defaults["content"][0]["text"].as_str().unwrap().starts_with("Elicitation completed: action=accept"));
    let enums = client.call_tool("test_elicitation_sep1330_enums", json!({})).await.unwrap();
    assert!(!enums.is_error());

    let requests: Vec<Value> =
        recorder.elicitations.lock().unwrap().iter().map(|p| serde_json::to_value(p).unwrap()).collect();
    assert_eq!(requests[0]["message"], "Please provide your information");
    assert_eq!(requests[0]["requestedSchema"]["required"], json!(["username", "email"]));
    let defaults = &requests[1]["requestedSchema"]["properties"];
    assert_eq!(defaults["name"]["default"], "John Doe");
    assert_eq!(defaults["age"], json!({"type": "integer", "description": "User age", "default": 30}));
    assert_eq!(defaults["score"]["default"], 95.5);
    assert_eq!(defaults["status"]["default"], "active");
    assert_eq!(defaults["verified"]["default"], true);
    let enums = &requests[2]["requestedSchema"]["properties"];
    assert!(enums["untitledSingle"].get("oneOf").is_none() && enums["untitledSingle"]["enum"].is_array());
    assert!(enums["titledSingle"].get("enum").is_none() && enums["titledSingle"]["oneOf"].is_array());
    assert_eq!(enums["legacyEnum"]["enumNames"].as_array().unwrap().len(), 3);
    assert!(enums["untitledMulti"]["items"].get("anyOf").is_none());
    assert!(enums["titledMulti"]["items"].get("enum").is_none());
}

#[tokio::test]
async fn resources_read_as_expected() {
    let (client, _) = connect().await;
    let resources = client.list_all_resources().await.unwrap();
    assert!(resources.iter().all(|r| !r.uri.is_empty() && !r.name.is_empty()));
    let text = serde_json::to_value(client.read_resource("test://static-text").await.unwrap()).unwrap();
    assert_eq!(
        text["contents"],
        json!([{"uri": "test://static-text", "mimeType": "text/plain", "text": "This is the content of the static text resource."}])
    );
    let binary = serde_json::to_value(client.read_resource("test://static-binary").await.unwrap()).unwrap();
    assert_eq!(binary["contents"][0]["mimeType"], "image/png");
    assert!(!binary["contents"][0]["blob"].as_str().unwrap().is_empty());
    let templated = serde_json::to_value(client.read_resource("test://template/123/data").await.unwrap()).unwrap();
    assert_eq!(templated["contents"][0]["uri"], "test://template/123/data");
    let data: Value = serde_json::from_str(templated["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(data, json!({"id": "123", "templateTest": true, "data": "Data for ID: 123"}));
    client.subscribe("test://watched-resource").await.unwrap();
    client.unsubscribe("test://watched-resource").await.unwrap();
}

#[tokio::test]
async fn prompts_render_as_expected() {
    let (client, _) = connect().await;
    let prompts = client.list_all_prompts().await.unwrap();
    assert_eq!(prompts.len(), 5, "four for suite 0.1.16, one for 0.2.0-alpha.12");
    assert!(prompts.iter().all(|p| p.description.is_some()));
    let simple = serde_json::to_value(client.get_prompt("test_simple_prompt", []).await.unwrap()).unwrap();
    assert_eq!(
        simple["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "This is a simple prompt for testing."}}])
    );
    let args = client.get_prompt("test_prompt_with_arguments", [("arg1", "testValue1"), ("arg2", "testValue2")]);
    let args = serde_json::to_value(args.await.unwrap()).unwrap();
    assert_eq!(args["messages"][0]["content"]["text"], "Prompt with arguments: arg1='testValue1', arg2='testValue2'");
    let embedded =
        client.get_prompt("test_prompt_with_embedded_resource", [("resourceUri", "test://example-resource")]);
    let embedded = serde_json::to_value(embedded.await.unwrap()).unwrap();
    assert_eq!(embedded["messages"][0]["content"]["type"], "resource");
    assert_eq!(embedded["messages"][0]["content"]["resource"]["uri"], "test://example-resource");
    let image = serde_json::to_value(client.get_prompt("test_prompt_with_image", []).await.unwrap()).unwrap();
    assert_eq!(image["messages"][0]["content"]["type"], "image");
    assert_eq!(image["messages"][0]["content"]["mimeType"], "image/png");
}

#[tokio::test]
async fn completion_answers_for_the_prompt_argument() {
    let (client, _) = connect().await;
    let reference = CompletionReference::Prompt(PromptReference::new("test_prompt_with_arguments"));
    let result = client.complete(reference, "arg1", "test").await.unwrap();
    assert_eq!(result.completion.values, ["testValue1", "testValue2", "test-data"]);
    assert!(client.ping().await.is_ok());
}
