//! The fixture server: every tool, resource, template, prompt and completion that the
//! suite's server scenarios call, with the names and payloads they check.

use std::{
    collections::HashMap,
    sync::{Arc, OnceLock},
    time::Duration,
};

use mcpweft::{
    ErrorData, RequestContext, Server,
    model::{
        CallToolResult, CompleteRequestParams, CompleteResult, CompletionReference, ContentBlock,
        CreateMessageRequestParams, ElicitRequestFormParams, ElicitRequestParams, ElicitResult, GetPromptResult,
        Implementation, JsonObject, LoggingLevel, Prompt, PromptArgument, PromptMessage, ReadResourceResult, Resource,
        ResourceContents, ResourceTemplate, Role, SamplingMessage, SamplingMessageContentBlock, Tool,
    },
    server::{ResourceRequest, Skill, TaskOptions},
};
use serde_json::{Value, json};

/// A 1×1 PNG image, base64-encoded.
pub const PNG_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

/// A WAV file of eight silent 16-bit samples at 8 kHz, base64-encoded.
pub const WAV_BASE64: &str = "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA";

/// The pause between the steps of the logging and progress tools.
pub const STEP_DELAY: Duration = Duration::from_millis(50);

/// The text of `test_reconnection`'s result.
pub const RECONNECTION_TEXT: &str = "Reconnection test completed";

/// The name and version the fixture server presents.
pub fn server_info() -> Implementation {
    Implementation::new("mcpweft-conformance-server", env!("CARGO_PKG_VERSION"))
}

/// Converts a `json!` object literal into a JSON object.
///
/// Panics when `value` is not an object, which only a typo in this file can cause.
fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        other => panic!("expected a JSON object, got {other}"),
    }
}

fn no_arguments(name: &str, description: &str) -> Tool {
    Tool::new(name, description, object(json!({ "type": "object", "properties": {} })))
}

fn string_argument(name: &str, description: &str, argument: &str, argument_description: &str) -> Tool {
    Tool::new(
        name,
        description,
        object(json!({
            "type": "object",
            "properties": { argument: { "type": "string", "description": argument_description } },
            "required": [argument]
        })),
    )
}

fn text_argument(args: &JsonObject, name: &str) -> String {
    args.get(name).and_then(Value::as_str).unwrap_or_default().to_owned()
}

fn text_resource(uri: impl Into<String>, mime_type: &str, text: impl Into<String>) -> ResourceContents {
    ResourceContents::text(uri, text).with_mime_type(mime_type)
}

fn read_result(contents: ResourceContents) -> ReadResourceResult {
    ReadResourceResult::new(vec![contents])
}

pub(crate) fn prompt_result(messages: Vec<PromptMessage>) -> GetPromptResult {
    GetPromptResult::new(messages)
}

/// Renders an elicitation answer as `action=<action>, content=<json>`.
fn describe_elicitation(result: &ElicitResult) -> String {
    let action = serde_json::to_value(result.action).ok().and_then(|v| v.as_str().map(str::to_owned));
    let content = serde_json::to_string(&result.content).unwrap_or_else(|_| "null".to_owned());
    format!("action={}, content={content}", action.unwrap_or_default())
}

/// Sends a form-mode `elicitation/create` tied to the current request and reports the answer
/// as a text result starting with `prefix`; a failure becomes a tool error.
async fn elicit(ctx: &RequestContext, message: String, schema: Value, prefix: &str) -> CallToolResult {
    let mut form = ElicitRequestFormParams::default();
    form.message = message;
    form.requested_schema = object(schema);
    let params = ElicitRequestParams::Form(form);
    match ctx.elicit(params).await {
        Ok(result) => CallToolResult::text(format!("{prefix}: {}", describe_elicitation(&result))),
        Err(e) => CallToolResult::error(format!("Elicitation failed: {e}")),
    }
}

/// The input schema of `json_schema_2020_12_tool`, exactly as the suite expects it.
pub fn json_schema_2020_12() -> JsonObject {
    object(json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "type": "object",
                "properties": {
                    "street": { "type": "string" },
                    "city": { "type": "string" }
                }
            }
        },
        "properties": {
            "name": { "type": "string" },
            "address": { "$ref": "#/$defs/address" }
        },
        "additionalProperties": false
    }))
}

/// The schema `test_elicitation_sep1034_defaults` asks for: one field of each primitive type,
/// each with a default.
pub fn sep1034_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": { "type": "string", "description": "User name", "default": "John Doe" },
            "age": { "type": "integer", "description": "User age", "default": 30 },
            "score": { "type": "number", "description": "User score", "default": 95.5 },
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active"
            },
            "verified": { "type": "boolean", "description": "Verification status", "default": true }
        },
        "required": []
    })
}

/// The schema `test_elicitation_sep1330_enums` asks for: the five enum shapes of SEP-1330.
pub fn sep1330_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "description": "Untitled single-select enum",
                "enum": ["option1", "option2", "option3"]
            },
            "titledSingle": {
                "type": "string",
                "description": "Titled single-select enum",
                "oneOf": [
                    { "const": "value1", "title": "First Option" },
                    { "const": "value2", "title": "Second Option" },
                    { "const": "value3", "title": "Third Option" }
                ]
            },
            "legacyEnum": {
                "type": "string",
                "description": "Legacy titled enum",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]
            },
            "untitledMulti": {
                "type": "array",
                "description": "Untitled multi-select enum",
                "items": { "type": "string", "enum": ["option1", "option2", "option3"] }
            },
            "titledMulti": {
                "type": "array",
                "description": "Titled multi-select enum",
                "items": {
                    "anyOf": [
                        { "const": "value1", "title": "First Choice" },
                        { "const": "value2", "title": "Second Choice" },
                        { "const": "value3", "title": "Third Choice" }
                    ]
                }
            }
        },
        "required": []
    })
}

/// Values offered by `completion/complete`, filtered by the prefix the client typed.
const COMPLETIONS: &[&str] = &["testValue1", "testValue2", "test-data", "example"];

/// Builds the complete conformance fixture server.
///
/// The names, arguments and payloads are the ones the suite's server scenarios call and
/// check (see `tests/conformance/README.md`). `test_reconnection` closes its own SSE stream
/// before answering, so its result reaches the client on the stream it resumes with
/// `Last-Event-ID` (the suite's `server-sse-polling` scenario).
/// The form a conformance scenario asks its question with.
pub(crate) fn form(message: &str, property: &str, kind: &str) -> Value {
    json!({
        "message": message,
        "requestedSchema": { "type": "object", "properties": { property: { "type": kind } }, "required": [property] }
    })
}

/// A sampling request for one user message.
fn sampling(text: &str, max_tokens: u32) -> Value {
    json!({ "messages": [{ "role": "user", "content": { "type": "text", "text": text } }], "maxTokens": max_tokens })
}

/// Asks the client for the user's name under the key `user_name`, as several scenarios do.
async fn ask_name(ctx: &RequestContext) -> Result<Value, mcpweft::Error> {
    ctx.ask("user_name", "elicitation/create", form("What is your name?", "name", "string")).await
}

/// Greets the user by the name an elicitation answered with.
pub(crate) fn greeting(answer: &Value) -> CallToolResult {
    CallToolResult::text(format!("Hello, {}!", answer["content"]["name"].as_str().unwrap_or("stranger")))
}

/// The error of a handler whose request for input failed; an unanswered one ends the round.
fn asked(e: mcpweft::Error) -> ErrorData {
    ErrorData::internal_error(e.to_string())
}

/// Registers the tools and the prompt of the `input-required-result-*` scenarios (revision
/// 2026-07-28): each asks the client for input under the keys the scenarios name.
fn input_required(builder: mcpweft::server::ServerBuilder) -> mcpweft::server::ServerBuilder {
    builder
        .tool(
            no_arguments("test_input_required_result_elicitation", "Asks for the user's name."),
            |_a: JsonObject, ctx: RequestContext| async move {
                let answer = ask_name(&ctx).await.map_err(asked)?;
                Ok(greeting(&answer))
            },
        )
        .tool(
            no_arguments("test_input_required_result_tampered_state", "Asks for confirmation."),
            |_a: JsonObject, ctx: RequestContext| async move {
                ctx.set_state(json!({ "asked": true }));
                ctx.ask("confirm", "elicitation/create", form("Please confirm", "ok", "boolean"))
                    .await
                    .map_err(asked)?;
                Ok(CallToolResult::text("confirmed"))
            },
        )
        .tool(
            no_arguments("test_input_required_result_sampling", "Asks the model a question."),
            |_a: JsonObject, ctx: RequestContext| async move {
                let answer = ctx
                    .ask("capital_question", "sampling/createMessage", sampling("What is the capital of France?", 100))
                    .await
                    .map_err(asked)?;
                Ok(CallToolResult::text(answer["content"]["text"].as_str().unwrap_or_default().to_owned()))
            },
        )
        .tool(
            no_arguments("test_input_required_result_list_roots", "Asks for the client's roots."),
            |_a: JsonObject, ctx: RequestContext| async move {
                let answer = ctx.ask("client_roots", "roots/list", json!({})).await.map_err(asked)?;
                let roots: Vec<&str> =
                    answer["roots"].as_array().into_iter().flatten().filter_map(|r| r["uri"].as_str()).collect();
                Ok(CallToolResult::text(format!("Roots: {}", roots.join(", "))))
            },
        )
        .tool(
            no_arguments("test_input_required_result_request_state", "Asks for confirmation, keeping state."),
            |_a: JsonObject, ctx: RequestContext| async move {
                let resumed = ctx.state().is_some_and(|s| s["step"] == "confirm");
                ctx.set_state(json!({ "step": "confirm" }));
                ctx.ask("confirm", "elicitation/create", form("Please confirm", "ok", "boolean"))
                    .await
                    .map_err(asked)?;
                Ok(CallToolResult::text(if resumed { "state-ok: confirmed" } else { "confirmed without state" }))
            },
        )
        .tool(
            no_arguments("test_input_required_result_multiple_inputs", "Asks for three inputs at once."),
            |_a: JsonObject, ctx: RequestContext| async move {
                ctx.set_state(json!({ "step": "all" }));
                // Asked together: every unanswered request goes into one round.
                let name = ask_name(&ctx).await;
                let greeting = ctx.ask("greeting", "sampling/createMessage", sampling("Generate a greeting", 50)).await;
                let roots = ctx.ask("client_roots", "roots/list", json!({})).await;
                let (name, _greeting, _roots) = (name.map_err(asked)?, greeting.map_err(asked)?, roots.map_err(asked)?);
                Ok(CallToolResult::text(format!(
                    "All inputs received for {}",
                    name["content"]["name"].as_str().unwrap_or("someone")
                )))
            },
        )
        .tool(
            no_arguments("test_input_required_result_multi_round", "Asks two questions, one round each."),
            |_a: JsonObject, ctx: RequestContext| async move {
                // The first answer is kept in the state, since the client sends only the latest.
                let name = match ctx.state().and_then(|s| s["name"].as_str()) {
                    Some(name) => name.to_owned(),
                    None => {
                        let answer = ctx
                            .ask("step1", "elicitation/create", form("Step 1: What is your name?", "name", "string"))
                            .await
                            .map_err(asked)?;
                        answer["content"]["name"].as_str().unwrap_or("someone").to_owned()
                    }
                };
                ctx.set_state(json!({ "name": name }));
                let color = ctx
                    .ask("step2", "elicitation/create", form("Step 2: What is your favorite color?", "color", "string"))
                    .await
                    .map_err(asked)?;
                Ok(CallToolResult::text(format!(
                    "{name} likes {}",
                    color["content"]["color"].as_str().unwrap_or("no color")
                )))
            },
        )
        .tool(
            no_arguments("test_input_required_result_capabilities", "Asks only for what the client can give."),
            |_a: JsonObject, ctx: RequestContext| async move {
                let caps = ctx.client_capabilities();
                let sampled = match caps.sampling {
                    Some(_) => Some(ctx.ask("question", "sampling/createMessage", sampling("Say hello", 20)).await),
                    None => None,
                };
                let elicited = match caps.elicitation {
                    Some(_) => Some(ask_name(&ctx).await),
                    None => None,
                };
                let listed = match caps.roots {
                    Some(_) => Some(ctx.ask("client_roots", "roots/list", json!({})).await),
                    None => None,
                };
                for answer in [sampled, elicited, listed].into_iter().flatten() {
                    answer.map_err(asked)?;
                }
                Ok(CallToolResult::text("asked only for what the client declared"))
            },
        )
        .tool(
            no_arguments("test_missing_capability", "Needs sampling, which the client must declare."),
            |_a: JsonObject, ctx: RequestContext| async move {
                ctx.ask("question", "sampling/createMessage", sampling("Say hello", 20)).await.map_err(asked)?;
                Ok(CallToolResult::text("sampled"))
            },
        )
        .tool(
            no_arguments("test_streaming_elicitation", "Asks for the user's name while it streams."),
            |_a: JsonObject, ctx: RequestContext| async move {
                ctx.report_progress(0.0, Some(1.0), None).map_err(asked)?;
                let answer = ask_name(&ctx).await.map_err(asked)?;
                Ok(greeting(&answer))
            },
        )
        .tool(
            no_arguments("test_logging_tool", "Logs, for the clients that asked for logs."),
            |_a: JsonObject, ctx: RequestContext| async move {
                ctx.log(LoggingLevel::Info, Some("fixture"), "a log message").map_err(asked)?;
                Ok(CallToolResult::text("logged"))
            },
        )
        .prompt(
            Prompt::new("test_input_required_result_prompt").with_description("A prompt that asks for its context."),
            |_args: HashMap<String, String>, ctx: RequestContext| async move {
                let answer = ctx
                    .ask(
                        "user_context",
                        "elicitation/create",
                        form("What context should the prompt use?", "context", "string"),
                    )
                    .await
                    .map_err(asked)?;
                let context = answer["content"]["context"].as_str().unwrap_or_default().to_owned();
                Ok(prompt_result(vec![PromptMessage::user_text(format!("Use this context: {context}"))]))
            },
        )
}

/// The fixture server of the conformance suites.
pub fn fixture() -> Server {
    // The tools that change the lists reach the server through this cell, filled in below.
    let cell = Arc::new(OnceLock::new());
    let builder = crate::tasks::register(input_required(Server::builder(server_info())), cell.clone());
    let server = fixture_with(builder);
    let _ = cell.set(server.clone());
    server
}

/// The skill the skills scenarios (SEP-2640) find: a `SKILL.md` and one reference file.
fn pdf_skill() -> Skill {
    let skill_md = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\n\
                    Read references/FORMS.md before filling a form.\n";
    Skill::new(skill_md)
        .and_then(|skill| skill.with_file("references/FORMS.md", "Forms have fields; fill each one.\n"))
        .expect("the fixture's skill is valid")
}

/// The registrations of the 2025-11-25 scenarios, added to `builder`, with tasks on and a skill.
fn fixture_with(builder: mcpweft::server::ServerBuilder) -> Server {
    builder
        .tasks(TaskOptions::new())
        .skill(pdf_skill())
        .instructions("The mcpweft fixture for the official MCP conformance suite.")
        .tool(
            no_arguments("test_simple_text", "Returns a simple text response."),
            |_args: JsonObject, _ctx: RequestContext| async move {
                Ok::<_, ErrorData>(CallToolResult::text("This is a simple text response for testing."))
            },
        )
        .tool(
            no_arguments("test_image_content", "Returns a 1x1 PNG image."),
            |_args: JsonObject, _ctx: RequestContext| async move {
                Ok(CallToolResult::success(vec![ContentBlock::image(PNG_BASE64, "image/png")]))
            },
        )
        .tool(
            no_arguments("test_audio_content", "Returns a short WAV clip."),
            |_args: JsonObject, _ctx: RequestContext| async move {
                Ok(CallToolResult::success(vec![ContentBlock::audio(WAV_BASE64, "audio/wav")]))
            },
        )
        .tool(
            no_arguments("test_embedded_resource", "Returns an embedded text resource."),
            |_args: JsonObject, _ctx: RequestContext| async move {
                Ok(CallToolResult::success(vec![ContentBlock::embedded(text_resource(
                    "test://embedded-resource",
                    "text/plain",
                    "This is an embedded resource content.",
                ))]))
            },
        )
        .tool(
            no_arguments("test_multiple_content_types", "Returns text, an image and an embedded resource."),
            |_args: JsonObject, _ctx: RequestContext| async move {
                Ok(CallToolResult::success(vec![
                    ContentBlock::text("Multiple content types test:"),
                    ContentBlock::image(PNG_BASE64, "image/png"),
                    ContentBlock::embedded(text_resource(
                        "test://mixed-content-resource",
                        "application/json",
                        r#"{"test":"data","value":123}"#,
                    )),
                ]))
            },
        )
        .tool(
            no_arguments("test_tool_with_logging", "Sends three log messages while it runs."),
            |_args: JsonObject, ctx: RequestContext| async move {
                let steps = ["Tool execution started", "Tool processing data", "Tool execution completed"];
                for (i, step) in steps.into_iter().enumerate() {
                    if i > 0 {
                        tokio::time::sleep(STEP_DELAY).await;
                    }
                    if let Err(e) = ctx.log(LoggingLevel::Info, Some("conformance"), step) {
                        return Ok(CallToolResult::error(format!("Logging failed: {e}")));
                    }
                }
                Ok(CallToolResult::text("Tool with logging executed successfully"))
            },
        )
        .tool(
            no_arguments("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100 while it runs."),
            |_args: JsonObject, ctx: RequestContext| async move {
                for (i, progress) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                    if i > 0 {
                        tokio::time::sleep(STEP_DELAY).await;
                    }
                    if let Err(e) = ctx.report_progress(progress, Some(100.0), None) {
                        return Ok(CallToolResult::error(format!("Progress reporting failed: {e}")));
                    }
                }
                // Leaves the last notification time to arrive before the result.
                tokio::time::sleep(STEP_DELAY).await;
                Ok(CallToolResult::text("Tool with progress executed successfully"))
            },
        )
        .tool(
            no_arguments("test_error_handling", "Always fails with a tool error."),
            |_args: JsonObject, _ctx: RequestContext| async move {
                Ok(CallToolResult::error("This tool intentionally returns an error for testing"))
            },
        )
        .tool(
            string_argument(
                "test_sampling",
                "Asks the client's model to answer a prompt.",
                "prompt",
                "The prompt to send to the model",
            ),
            |args: JsonObject, ctx: RequestContext| async move {
                let prompt = text_argument(&args, "prompt");
                let params = CreateMessageRequestParams::new(vec![SamplingMessage::user_text(prompt)], 100);
                Ok(match ctx.create_message(params).await {
                    Ok(result) => {
                        let text: Vec<&str> = result
                            .content
                            .blocks()
                            .iter()
                            .filter_map(|b| match b {
                                SamplingMessageContentBlock::Text(t) => Some(t.text.as_str()),
                                _ => None,
                            })
                            .collect();
                        CallToolResult::text(format!("LLM response: {}", text.join("")))
                    }
                    Err(e) => CallToolResult::error(format!("Sampling failed: {e}")),
                })
            },
        )
        .tool(
            string_argument(
                "test_elicitation",
                "Asks the user for a username and an e-mail address.",
                "message",
                "The message to show the user",
            ),
            |args: JsonObject, ctx: RequestContext| async move {
                let schema = json!({
                    "type": "object",
                    "properties": {
                        "username": { "type": "string", "description": "User's response" },
                        "email": { "type": "string", "description": "User's email address" }
                    },
                    "required": ["username", "email"]
                });
                Ok(elicit(&ctx, text_argument(&args, "message"), schema, "User response").await)
            },
        )
        .tool(
            no_arguments("test_elicitation_sep1034_defaults", "Elicits one field of each type, each with a default."),
            |_args: JsonObject, ctx: RequestContext| async move {
                let message = "Please review and update the form fields with defaults".to_owned();
                Ok(elicit(&ctx, message, sep1034_schema(), "Elicitation completed").await)
            },
        )
        .tool(
            no_arguments("test_elicitation_sep1330_enums", "Elicits the five enum shapes of SEP-1330."),
            |_args: JsonObject, ctx: RequestContext| async move {
                let message = "Please select options from the enum fields".to_owned();
                Ok(elicit(&ctx, message, sep1330_schema(), "Elicitation completed").await)
            },
        )
        .tool(
            Tool::new("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features", json_schema_2020_12()),
            |args: JsonObject, _ctx: RequestContext| async move {
                Ok(CallToolResult::text(format!("JSON Schema 2020-12 tool called with: {}", Value::Object(args))))
            },
        )
        .tool(
            no_arguments("test_reconnection", "Closes its SSE stream, then answers on the resumed stream."),
            |_args: JsonObject, ctx: RequestContext| async move {
                ctx.close_sse_stream().map_err(|e| ErrorData::internal_error(e.to_string()))?;
                tokio::time::sleep(Duration::from_millis(100)).await;
                Ok(CallToolResult::text(RECONNECTION_TEXT))
            },
        )
        .resource(
            Resource::new("test://static-text", "static-text")
                .with_description("A static text resource.")
                .with_mime_type("text/plain"),
            |req: ResourceRequest, _ctx: RequestContext| async move {
                Ok(read_result(text_resource(
                    req.uri,
                    "text/plain",
                    "This is the content of the static text resource.",
                )))
            },
        )
        .resource(
            Resource::new("test://static-binary", "static-binary")
                .with_description("A static binary resource (a 1x1 PNG).")
                .with_mime_type("image/png"),
            |req: ResourceRequest, _ctx: RequestContext| async move {
                Ok(read_result(ResourceContents::blob(req.uri, PNG_BASE64, "image/png")))
            },
        )
        .resource(
            Resource::new("test://watched-resource", "watched-resource")
                .with_description("A resource clients can subscribe to.")
                .with_mime_type("text/plain"),
            |req: ResourceRequest, _ctx: RequestContext| async move {
                Ok(read_result(text_resource(req.uri, "text/plain", "Watched resource content")))
            },
        )
        .resource_template(
            ResourceTemplate::new("test://template/{id}/data", "template-data")
                .with_description("A resource whose content depends on an id.")
                .with_mime_type("application/json"),
            |req: ResourceRequest, _ctx: RequestContext| async move {
                let id = req.variables.get("id").cloned().unwrap_or_default();
                let text = json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") });
                Ok(read_result(text_resource(req.uri, "application/json", text.to_string())))
            },
        )
        .prompt(
            Prompt::new("test_simple_prompt").with_description("A simple prompt without arguments."),
            |_args: HashMap<String, String>, _ctx: RequestContext| async move {
                Ok(prompt_result(vec![PromptMessage::user_text("This is a simple prompt for testing.")]))
            },
        )
        .prompt(
            Prompt::new("test_prompt_with_arguments")
                .with_description("A prompt with two required arguments.")
                .with_argument(PromptArgument::new("arg1", true).with_description("First test argument"))
                .with_argument(PromptArgument::new("arg2", true).with_description("Second test argument")),
            |args: HashMap<String, String>, _ctx: RequestContext| async move {
                let text = format!("Prompt with arguments: arg1='{}', arg2='{}'", args["arg1"], args["arg2"]);
                Ok(prompt_result(vec![PromptMessage::user_text(text)]))
            },
        )
        .prompt(
            Prompt::new("test_prompt_with_embedded_resource")
                .with_description("A prompt that embeds a resource.")
                .with_argument(
                    PromptArgument::new("resourceUri", true).with_description("URI of the resource to embed"),
                ),
            |args: HashMap<String, String>, _ctx: RequestContext| async move {
                let resource =
                    text_resource(args["resourceUri"].clone(), "text/plain", "Embedded resource content for testing.");
                Ok(prompt_result(vec![
                    PromptMessage::new(Role::User, ContentBlock::embedded(resource)),
                    PromptMessage::user_text("Please process the embedded resource above."),
                ]))
            },
        )
        .prompt(
            Prompt::new("test_prompt_with_image").with_description("A prompt that includes an image."),
            |_args: HashMap<String, String>, _ctx: RequestContext| async move {
                Ok(prompt_result(vec![
                    PromptMessage::new(Role::User, ContentBlock::image(PNG_BASE64, "image/png")),
                    PromptMessage::user_text("Please analyze the image above."),
                ]))
            },
        )
        .completion(|params: CompleteRequestParams, _ctx: RequestContext| async move {
            let known = match &params.reference {
                CompletionReference::Prompt(p) => p.name == "test_prompt_with_arguments",
                CompletionReference::Resource(r) => r.uri == "test://template/{id}/data",
            };
            let values = if known {
                COMPLETIONS.iter().filter(|v| v.starts_with(&params.argument.value)).map(|v| (*v).to_owned()).collect()
            } else {
                Vec::new()
            };
            Ok(CompleteResult::new(values))
        })
        .build()
        .expect("the fixture's registrations are valid")
}
