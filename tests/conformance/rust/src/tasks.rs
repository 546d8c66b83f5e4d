//! The tools of suite 0.2.0's tasks-extension, `subscriptions/listen` and custom-header
//! scenarios (revision 2026-07-28).

use std::{
    sync::{Arc, OnceLock},
    time::Duration,
};

use mcpweft::{
    ErrorData, RequestContext, Server,
    model::{CallToolResult, JsonObject, Prompt, TaskSupport, Tool},
    server::ServerBuilder,
};
use serde_json::{Value, json};

use crate::fixture::{form, greeting, prompt_result};

/// Longer than the server's immediate window (100 ms), so a call that waits this long before
/// asking for input or answering becomes a task.
const PAST_THE_WINDOW: Duration = Duration::from_millis(300);

fn tool(name: &str, description: &str, properties: Value, support: Option<TaskSupport>) -> Tool {
    let schema = json!({ "type": "object", "properties": properties });
    let tool = Tool::new(name, description, schema.as_object().cloned().unwrap_or_default());
    match support {
        Some(support) => tool.with_task_support(support),
        None => tool,
    }
}

fn failed(e: mcpweft::Error) -> ErrorData {
    ErrorData::internal_error(e.to_string())
}

/// Whether the user confirmed in an elicitation answer.
fn confirmed(answer: &Value) -> bool {
    answer["action"] == "accept" && answer["content"]["confirm"] != false
}

/// Registers the tools of the tasks-extension scenarios, the tools that change the tool and
/// prompt lists for the `subscriptions/listen` checks, and a tool with an `x-mcp-header`
/// parameter. `server` is filled in once the server is built, for the tools that change it.
pub(crate) fn register(builder: ServerBuilder, server: Arc<OnceLock<Server>>) -> ServerBuilder {
    let prompts = server.clone();
    builder
        .tool(
            tool("greet", "Greets someone by name.", json!({ "name": { "type": "string" } }), None),
            |args: JsonObject, _ctx: RequestContext| async move {
                let name = args.get("name").and_then(Value::as_str).unwrap_or("stranger");
                Ok::<_, ErrorData>(CallToolResult::text(format!("Hello, {name}!")))
            },
        )
        .tool(
            tool(
                "slow_compute",
                "Sleeps for the given seconds, then answers.",
                json!({ "seconds": { "type": "number" }, "label": { "type": "string" } }),
                Some(TaskSupport::Optional),
            ),
            |args: JsonObject, _ctx: RequestContext| async move {
                let seconds = args.get("seconds").and_then(Value::as_f64).unwrap_or(1.0).clamp(0.0, 600.0);
                tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
                let label = args.get("label").and_then(Value::as_str).unwrap_or("computation");
                Ok::<_, ErrorData>(CallToolResult::text(format!("{label}: done after {seconds} s")))
            },
        )
        .tool(
            tool("failing_job", "Fails with a tool error after a second.", json!({}), Some(TaskSupport::Required)),
            |_args: JsonObject, _ctx: RequestContext| async move {
                tokio::time::sleep(Duration::from_secs(1)).await;
                Ok::<_, ErrorData>(CallToolResult::error("the job failed"))
            },
        )
        .tool(
            tool("protocol_error_job", "Fails with a protocol error.", json!({}), Some(TaskSupport::Optional)),
            |_args: JsonObject, _ctx: RequestContext| async move {
                tokio::time::sleep(PAST_THE_WINDOW).await;
                Err::<CallToolResult, _>(ErrorData::internal_error("the job broke down"))
            },
        )
        .tool(
            tool(
                "confirm_delete",
                "Asks for confirmation, then deletes a file.",
                json!({ "filename": { "type": "string" } }),
                Some(TaskSupport::Optional),
            ),
            |args: JsonObject, ctx: RequestContext| async move {
                tokio::time::sleep(PAST_THE_WINDOW).await;
                let file = args.get("filename").and_then(Value::as_str).unwrap_or("the file").to_owned();
                let question = form(&format!("Delete {file}?"), "confirm", "boolean");
                let answer = ctx.ask("confirm", "elicitation/create", question).await.map_err(failed)?;
                Ok(CallToolResult::text(if confirmed(&answer) { format!("Deleted {file}") } else { "Kept".into() }))
            },
        )
        .tool(
            tool("multi_input", "Asks two questions at once.", json!({}), Some(TaskSupport::Optional)),
            |_args: JsonObject, ctx: RequestContext| async move {
                tokio::time::sleep(PAST_THE_WINDOW).await;
                let (first, second) = tokio::join!(
                    ctx.ask("first", "elicitation/create", form("First name?", "name", "string")),
                    ctx.ask("second", "elicitation/create", form("Second name?", "name", "string")),
                );
                let (first, second) = (first.map_err(failed)?, second.map_err(failed)?);
                Ok(CallToolResult::text(format!(
                    "{} and {}",
                    first["content"]["name"].as_str().unwrap_or("?"),
                    second["content"]["name"].as_str().unwrap_or("?")
                )))
            },
        )
        .tool(
            tool(
                "test_tool_with_task",
                "Asks for the user's name, then greets them from a task.",
                json!({}),
                Some(TaskSupport::Required),
            ),
            |_args: JsonObject, ctx: RequestContext| async move {
                let answer = ctx
                    .ask("user_name", "elicitation/create", form("What is your name?", "name", "string"))
                    .await
                    .map_err(failed)?;
                tokio::time::sleep(PAST_THE_WINDOW).await;
                Ok(greeting(&answer))
            },
        )
        .tool(
            tool(
                "test_header_param",
                "Echoes a region that is mirrored into the Mcp-Param-Region header.",
                json!({ "region": { "type": "string", "x-mcp-header": "Region" } }),
                None,
            ),
            |args: JsonObject, _ctx: RequestContext| async move {
                let region = args.get("region").and_then(Value::as_str).unwrap_or("nowhere");
                Ok::<_, ErrorData>(CallToolResult::text(format!("region: {region}")))
            },
        )
        .tool(
            tool("test_trigger_tool_change", "Adds or removes a tool.", json!({}), None),
            move |_args: JsonObject, _ctx: RequestContext| {
                let server = server.get().cloned();
                async move {
                    let server = server.ok_or_else(|| ErrorData::internal_error("the server is not built yet"))?;
                    if !server.remove_tool("dynamic_tool") {
                        let dynamic = tool("dynamic_tool", "Appears and disappears.", json!({}), None);
                        server
                            .add_tool(dynamic, |_a: JsonObject, _c: RequestContext| async move {
                                Ok::<_, ErrorData>(CallToolResult::text("dynamic"))
                            })
                            .map_err(|e| ErrorData::internal_error(e.to_string()))?;
                    }
                    Ok(CallToolResult::text("the tool list changed"))
                }
            },
        )
        .tool(
            tool("test_trigger_prompt_change", "Adds or removes a prompt.", json!({}), None),
            move |_args: JsonObject, _ctx: RequestContext| {
                let server = prompts.get().cloned();
                async move {
                    let server = server.ok_or_else(|| ErrorData::internal_error("the server is not built yet"))?;
                    if !server.remove_prompt("dynamic_prompt") {
                        server
                            .add_prompt(
                                Prompt::new("dynamic_prompt").with_description("Appears and disappears."),
                                |_a: std::collections::HashMap<String, String>, _c: RequestContext| async move {
                                    Ok::<_, ErrorData>(prompt_result(Vec::new()))
                                },
                            )
                            .map_err(|e| ErrorData::internal_error(e.to_string()))?;
                    }
                    Ok::<_, ErrorData>(CallToolResult::text("the prompt list changed"))
                }
            },
        )
}
