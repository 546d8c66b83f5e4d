//! Configuration mistakes: each one is refused with `Error::Config` when it is made, before any
//! message is exchanged.

mod common;

use common::*;
use mcpkit::{
    Error, Server,
    model::*,
    server::{ResourceRequest, ServerBuilder},
    transport::http::{HttpClientOptions, StreamableHttpClientTransport},
};
use serde_json::json;

async fn nothing(_args: JsonObject, _ctx: mcpkit::RequestContext) -> Result<CallToolResult, mcpkit::ErrorData> {
    Ok(CallToolResult::text(""))
}

async fn no_contents(
    req: ResourceRequest,
    _ctx: mcpkit::RequestContext,
) -> Result<ReadResourceResult, mcpkit::ErrorData> {
    Ok(ReadResourceResult { contents: vec![ResourceContents::text(req.uri, "")], meta: None })
}

fn builder() -> ServerBuilder {
    Server::builder(Implementation::new("config", "1"))
}

fn assert_config<T: std::fmt::Debug>(outcome: Result<T, Error>, mentions: &str) {
    match outcome {
        Err(Error::Config(message)) => assert!(message.contains(mentions), "{message:?} should mention {mentions:?}"),
        other => panic!("expected a configuration error, got {other:?}"),
    }
}

#[test]
fn an_invalid_schema_is_a_configuration_error() {
    let server = builder().build().unwrap();
    let bad = Tool::new("bad", "Bad schema.", obj(json!({ "type": "object", "properties": { "a": { "type": 12 } } })));
    assert_config(server.add_tool(bad, nothing), "bad");
    let mut bad_output = Tool::without_arguments("bad_output", "Bad output schema.");
    bad_output.output_schema = Some(obj(json!({ "type": "object", "minProperties": -1 })));
    assert_config(server.add_tool(bad_output, nothing), "outputSchema");
    assert!(server.capabilities().tools.is_none(), "nothing was registered");
}

#[test]
fn an_invalid_uri_template_is_a_configuration_error() {
    let server = builder().build().unwrap();
    assert_config(server.add_resource_template(ResourceTemplate::new("books://{shelf", "book"), no_contents), "{shelf");
    assert_config(
        builder().resource_template(ResourceTemplate::new("books://{shelf", "book"), no_contents).build(),
        "{shelf",
    );
}

#[test]
fn a_name_registered_twice_in_a_builder_is_a_configuration_error() {
    let tool = || Tool::without_arguments("twice", "Twice.");
    assert_config(builder().tool(tool(), nothing).tool(tool(), nothing).build(), "twice");

    let resource = || Resource::new("mem://twice", "twice");
    assert_config(builder().resource(resource(), no_contents).resource(resource(), no_contents).build(), "mem://twice");

    let template = || ResourceTemplate::new("books://{id}", "book");
    assert_config(
        builder().resource_template(template(), no_contents).resource_template(template(), no_contents).build(),
        "books://{id}",
    );

    let prompt = || Prompt::new("twice");
    let render = |_args: std::collections::HashMap<String, String>, _ctx| async move {
        Ok(GetPromptResult { description: None, messages: Vec::new(), meta: None })
    };
    assert_config(builder().prompt(prompt(), render).prompt(prompt(), render).build(), "twice");
}

#[test]
fn replacing_a_registration_on_a_running_server_is_allowed() {
    let server = builder().tool(Tool::without_arguments("same", "First."), nothing).build().unwrap();
    server.add_tool(Tool::without_arguments("same", "Second."), nothing).unwrap();
}

#[test]
fn http_client_settings_are_checked() {
    assert_config(StreamableHttpClientTransport::new("not a url"), "not a url");
    assert_config(StreamableHttpClientTransport::new("ftp://localhost/mcp"), "ftp://localhost/mcp");
    assert_config(HttpClientOptions::new().with_bearer_token("line\nbreak"), "bearer token");
}

#[test]
fn tool_names_follow_the_naming_guidance() {
    let server = builder().build().unwrap();
    let longest = "n".repeat(128);
    for name in ["a", "get_weather", "DATA-export.v2", "0", longest.as_str()] {
        assert!(is_valid_tool_name(name), "{name}");
        server.add_tool(Tool::without_arguments(name, "Valid."), nothing).unwrap();
    }
    let too_long = "n".repeat(129);
    for name in ["", "with space", "comma,separated", "slash/path", "colon:name", "é", "tab\t", too_long.as_str()] {
        assert!(!is_valid_tool_name(name), "{name:?}");
        assert_config(server.add_tool(Tool::without_arguments(name, "Invalid."), nothing), "tool name");
    }
    assert_config(builder().tool(Tool::without_arguments("bad name", "Invalid."), nothing).build(), "bad name");
}

#[test]
fn the_input_schema_must_be_an_object_schema() {
    let server = builder().build().unwrap();
    for schema in [json!({}), json!({ "type": "string" }), json!({ "type": ["object", "null"] })] {
        let tool = Tool::new("args", "Arguments.", obj(schema.clone()));
        assert_config(server.add_tool(tool, nothing), "inputSchema");
    }
    let object = Tool::new("args", "Arguments.", obj(json!({ "type": "object", "properties": {} })));
    server.add_tool(object, nothing).unwrap();
}
