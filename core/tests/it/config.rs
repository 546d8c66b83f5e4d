//! Configuration: each mistake is refused with `Error::Config` when it is made, before any
//! message is exchanged, and every option struct is built with `new` and `with_*` methods.

use crate::common::*;
use std::{sync::Arc, time::Duration};

use mcpweft::{
    ClientOptions, Error, RequestOptions, Server,
    http::{HttpServerOptions, InMemoryEventStore},
    model::*,
    server::{ResourceRequest, ServerBuilder, ServerOptions, TaskOptions},
    transport::{
        ChildShutdown,
        http::{HttpClientOptions, StreamableHttpClientTransport},
    },
};
use serde_json::json;

async fn nothing(_args: JsonObject, _ctx: mcpweft::RequestContext) -> Result<CallToolResult, mcpweft::ErrorData> {
    Ok(CallToolResult::text(""))
}

async fn no_contents(
    req: ResourceRequest,
    _ctx: mcpweft::RequestContext,
) -> Result<ReadResourceResult, mcpweft::ErrorData> {
    Ok(ReadResourceResult::new(vec![ResourceContents::text(req.uri, "")]))
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
    let render =
        |_args: std::collections::HashMap<String, String>, _ctx| async move { Ok(GetPromptResult::new(Vec::new())) };
    assert_config(builder().prompt(prompt(), render).prompt(prompt(), render).build(), "twice");
}

#[test]
fn a_name_registered_twice_is_refused_unless_replaced() {
    let server = builder().tool(Tool::without_arguments("same", "First."), nothing).build().unwrap();
    assert_config(
        server.add_tool(Tool::without_arguments("same", "Second."), nothing),
        "\"same\" is already registered",
    );
    server.replace_tool(Tool::without_arguments("same", "Second."), nothing).unwrap();
    server.replace_tool(Tool::without_arguments("fresh", "Replace adds too."), nothing).unwrap();
    assert!(server.remove_tool("fresh"));

    server.add_resource(Resource::new("mem://same", "same"), no_contents).unwrap();
    assert_config(server.add_resource(Resource::new("mem://same", "again"), no_contents), "mem://same");
    server.replace_resource(Resource::new("mem://same", "again"), no_contents);

    let template = || ResourceTemplate::new("books://{id}", "book");
    server.add_resource_template(template(), no_contents).unwrap();
    assert_config(server.add_resource_template(template(), no_contents), "books://{id}");
    server.replace_resource_template(template(), no_contents).unwrap();

    let render =
        |_args: std::collections::HashMap<String, String>, _ctx| async move { Ok(GetPromptResult::new(Vec::new())) };
    server.add_prompt(Prompt::new("same"), render).unwrap();
    assert_config(server.add_prompt(Prompt::new("same"), render), "prompt \"same\"");
    server.replace_prompt(Prompt::new("same"), render);
}

#[test]
fn a_skill_served_twice_is_refused_and_a_replaced_skill_drops_its_old_files() {
    use mcpweft::server::Skill;
    let md = "---\nname: forms\ndescription: Fills forms\n---\n";
    let skill = || Skill::new(md).unwrap();
    let server = builder().skill(skill().with_file("old.md", "Old.").unwrap()).build().unwrap();
    assert_config(server.add_skill(skill()), "skill \"forms\"");
    assert_config(builder().skill(skill()).skill(skill()).build(), "forms");

    server.replace_skill(skill().with_file("new.md", "New.").unwrap());
    assert!(!server.remove_resource("skill://forms/old.md"), "the old skill's file is no longer served");
    assert!(server.remove_resource("skill://forms/new.md"));

    let taken = builder().build().unwrap();
    taken.add_resource(Resource::new("skill://forms/SKILL.md", "mine"), no_contents).unwrap();
    assert_config(taken.add_skill(skill()), "skill://forms/SKILL.md");
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

#[test]
fn option_builders_set_every_field() {
    let second = Duration::from_secs(1);
    let tasks = TaskOptions::new()
        .with_max_ttl(None)
        .with_default_ttl(Some(second))
        .with_poll_interval(second * 2)
        .with_max_tasks(3);
    assert_eq!(
        (tasks.max_ttl, tasks.default_ttl, tasks.poll_interval, tasks.max_tasks),
        (None, Some(second), second * 2, 3)
    );

    let server = ServerOptions::new()
        .with_instructions("Be brief.")
        .with_page_size(0)
        .with_default_log_level(LoggingLevel::Warning)
        .with_resource_subscriptions(false)
        .with_request_timeout(second)
        .with_capabilities(ServerCapabilities::default().with_logging())
        .with_on_roots_changed(|_session| {})
        .with_tasks(tasks);
    assert_eq!(server.instructions.as_deref(), Some("Be brief."));
    assert_eq!(server.page_size, 1, "a page holds at least one item");
    assert_eq!(server.default_log_level, LoggingLevel::Warning);
    assert!(!server.resource_subscriptions);
    assert_eq!(server.request_timeout, second);
    assert!(server.capabilities.logging.is_some());
    assert!(server.on_roots_changed.is_some());
    assert_eq!(server.tasks.map(|t| t.max_tasks), Some(3));

    let client = ClientOptions::new("c", "1")
        .with_info(Implementation::new("named", "2").with_title("Named"))
        .with_capabilities(ClientCapabilities::default().with_elicitation(false))
        .with_protocol_version("2025-06-18")
        .with_request_timeout(second);
    assert_eq!((client.info.name.as_str(), client.info.title.as_deref()), ("named", Some("Named")));
    assert!(client.capabilities.elicitation.is_some());
    assert_eq!((client.protocol_version.as_str(), client.request_timeout), ("2025-06-18", second));

    let request = RequestOptions::new()
        .with_timeout(second)
        .with_progress(|_| {})
        .with_reset_timeout_on_progress(true)
        .with_max_total_timeout(second * 3)
        .with_cancel(tokio_util::sync::CancellationToken::new())
        .with_related_request(mcpweft::RequestId::Number(4));
    assert_eq!((request.timeout, request.max_total_timeout), (Some(second), Some(second * 3)));
    assert!(request.on_progress.is_some() && request.reset_timeout_on_progress && request.cancel.is_some());
    assert_eq!(request.related_request, Some(mcpweft::RequestId::Number(4)));

    let shutdown = ChildShutdown::new().with_after_close(second).with_after_terminate(second * 2);
    assert_eq!((shutdown.after_close, shutdown.after_terminate), (second, second * 2));

    let http = HttpServerOptions::new()
        .with_path("/rpc")
        .with_allowed_hosts(["example.com:443"])
        .with_allowed_origins(vec!["https://example.com".to_owned()])
        .with_json_response(false)
        .with_stateful(false)
        .with_session_idle_timeout(second)
        .with_max_body_size(10)
        .with_sse_retry(second * 2)
        .with_keep_alive(None)
        .with_event_store(Arc::new(InMemoryEventStore::new(5)));
    assert_eq!(http.path, "/rpc");
    assert_eq!(http.allowed_hosts, Some(vec!["example.com:443".to_owned()]));
    assert_eq!(http.allowed_origins, Some(vec!["https://example.com".to_owned()]));
    assert!(!http.json_response && !http.stateful);
    assert_eq!((http.session_idle_timeout, http.max_body_size, http.sse_retry), (second, 10, second * 2));
    assert_eq!(http.keep_alive, None);

    mcpweft::install_crypto_provider();
    let mut headers = http::HeaderMap::new();
    headers.insert("x-first", http::HeaderValue::from_static("1"));
    let http_client = HttpClientOptions::new()
        .with_headers(headers)
        .with_header(http::HeaderName::from_static("x-second"), http::HeaderValue::from_static("2"))
        .with_request_timeout(second)
        .with_client(reqwest::Client::new())
        .with_get_stream(false)
        .with_max_retries(2)
        .with_default_retry(second * 2)
        .with_legacy_fallback(false);
    assert_eq!(http_client.headers.len(), 2);
    assert_eq!((http_client.request_timeout, http_client.default_retry), (second, second * 2));
    assert!(http_client.client.is_some() && !http_client.open_get_stream && !http_client.legacy_fallback);
    assert_eq!(http_client.max_retries, 2);
}
