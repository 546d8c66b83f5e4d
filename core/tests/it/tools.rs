//! Tools: listing with pagination, calls, input and output validation, typed tools,
//! metadata round trips and run-time changes.

use crate::common::*;
use mcpweft::{Client, ClientOptions, Error, Server, model::*, server::Json, transport::StreamTransport};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

fn numbered_tools(n: usize) -> Server {
    let mut builder = Server::builder(Implementation::new("many", "1")).page_size(2);
    for i in 0..n {
        builder = builder
            .tool(Tool::without_arguments(format!("tool_{i}"), format!("Tool {i}.")), move |_args, _ctx| async move {
                Ok(CallToolResult::text(format!("tool {i}")))
            });
    }
    builder.build().unwrap()
}

#[tokio::test]
async fn listing_follows_cursors_in_registration_order() {
    let server = numbered_tools(5);
    let (client, _events, _session) = connect(&server).await;
    let mut pages = Vec::new();
    let mut cursor = None;
    loop {
        let page = within(client.list_tools(cursor)).await.unwrap();
        pages.push(page.tools.iter().map(|t| t.name.clone()).collect::<Vec<_>>());
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(pages, [vec!["tool_0", "tool_1"], vec!["tool_2", "tool_3"], vec!["tool_4"]]);
    let all = within(client.list_all_tools()).await.unwrap();
    assert_eq!(all.len(), 5);

    // The last page has no nextCursor key at all.
    let (mut raw, _session, _task) = raw_server(&server, None);
    raw.initialize().await;
    let first = raw.request(json!(1), "tools/list", json!({})).await;
    let cursor = first["result"]["nextCursor"].as_str().expect("a cursor").to_owned();
    let second = raw.request(json!(2), "tools/list", json!({ "cursor": cursor })).await;
    let cursor = second["result"]["nextCursor"].as_str().expect("a cursor").to_owned();
    let third = raw.request(json!(3), "tools/list", json!({ "cursor": cursor })).await;
    assert_eq!(third["result"]["tools"].as_array().unwrap().len(), 1);
    assert!(third["result"].get("nextCursor").is_none(), "{third}");
}

#[tokio::test]
async fn an_invalid_cursor_is_invalid_params() {
    let server = numbered_tools(5);
    let (client, _events, _session) = connect(&server).await;
    assert_eq!(rpc_code(within(client.list_tools(Some("not-a-cursor".into()))).await), -32602);
    assert_eq!(rpc_code(within(client.list_tools(Some(String::new()))).await), -32602);
    // The session keeps serving.
    assert_eq!(within(client.list_tools(None)).await.unwrap().tools.len(), 2);
}

fn calculator() -> Server {
    let add_schema = obj(json!({
        "type": "object",
        "properties": { "a": { "type": "number" }, "b": { "type": "number", "minimum": 0 } },
        "required": ["a", "b"],
        "additionalProperties": false
    }));
    let out_schema = obj(json!({
        "type": "object",
        "properties": { "sum": { "type": "number" } },
        "required": ["sum"]
    }));
    Server::builder(Implementation::new("calc", "1"))
        .tool(Tool::new("add", "Adds.", add_schema.clone()).with_output_schema(out_schema.clone()), |args: JsonObject, _ctx| async move {
            let sum = args["a"].as_f64().unwrap() + args["b"].as_f64().unwrap();
            Ok(CallToolResult::structured(obj(json!({ "sum": sum }))))
        })
        .tool(Tool::new("bad_output", "Lies about its output.", add_schema).with_output_schema(out_schema.clone()), |_args: JsonObject, _ctx| async move {
            Ok(CallToolResult::structured(obj(json!({ "sum": "not a number" }))))
        })
        .tool(Tool::without_arguments("no_structured", "Forgets structured content.").with_output_schema(out_schema), |_args: JsonObject, _ctx| async move {
            Ok(CallToolResult::text("plain"))
        })
        .tool(Tool::without_arguments("fails", "Reports a tool error."), |_args: JsonObject, _ctx| async move {
            Ok(CallToolResult::error("the upstream API is down"))
        })
        .build()
        .unwrap()
}

#[tokio::test]
async fn call_returns_content_and_structured_content() {
    let server = calculator();
    let (client, _events, _session) = connect(&server).await;
    within(client.list_all_tools()).await.unwrap();
    let result = within(client.call_tool("add", json!({ "a": 2, "b": 3.5 }))).await.unwrap();
    assert!(!result.is_error());
    assert_eq!(result.structured_content, Some(obj(json!({ "sum": 5.5 }))));
    // The structured content is mirrored as a text block for older clients.
    let text: serde_json::Value = serde_json::from_str(first_text(&result)).unwrap();
    assert_eq!(text, json!({ "sum": 5.5 }));

    let failed = within(client.call_tool("fails", json!({}))).await.unwrap();
    assert!(failed.is_error());
    assert_eq!(first_text(&failed), "the upstream API is down");

    // The wire shape, checked raw.
    let (mut raw, _session, _task) = raw_server(&server, None);
    raw.initialize().await;
    let response = raw.request(json!(7), "tools/call", json!({ "name": "add", "arguments": { "a": 1, "b": 1 } })).await;
    assert_eq!(response["result"]["structuredContent"], json!({ "sum": 2.0 }));
    assert_eq!(response["result"]["content"][0]["type"], "text");
    assert!(response["result"].get("isError").is_none(), "{response}");
}

#[tokio::test]
async fn invalid_arguments_are_a_tool_error_not_a_protocol_error() {
    let server = calculator();
    let (mut raw, _session, _task) = raw_server(&server, None);
    raw.initialize().await;
    for (id, arguments) in [
        (1, json!({ "a": 1 })),                 // missing b
        (2, json!({ "a": "one", "b": 2 })),     // wrong type
        (3, json!({ "a": 1, "b": -1 })),        // below minimum
        (4, json!({ "a": 1, "b": 2, "c": 3 })), // additional property
    ] {
        let response = raw.request(json!(id), "tools/call", json!({ "name": "add", "arguments": arguments })).await;
        assert!(response.get("error").is_none(), "validation failures are results: {response}");
        assert_eq!(response["result"]["isError"], true, "{response}");
        let text = response["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("add"), "the message names the tool: {text}");
    }
    // No arguments at all is validated as `{}`.
    let response = raw.request(json!(5), "tools/call", json!({ "name": "add" })).await;
    assert_eq!(response["result"]["isError"], true);

    let (client, _events, _session) = connect(&server).await;
    let result = within(client.call_tool("add", json!({ "a": 1 }))).await.unwrap();
    assert!(result.is_error());
}

#[tokio::test]
async fn unknown_tool_is_invalid_params() {
    let server = calculator();
    let (client, _events, _session) = connect(&server).await;
    let outcome = within(client.call_tool("nope", json!({}))).await;
    match outcome {
        Err(Error::Rpc(e)) => {
            assert_eq!(e.code, -32602);
            assert!(e.message.contains("nope"), "{}", e.message);
        }
        other => panic!("expected -32602, got {other:?}"),
    }
    // Malformed params (no name) are invalid params too.
    let outcome = within(client.request("tools/call", Some(json!({ "arguments": {} })), Default::default())).await;
    assert_eq!(rpc_code(outcome), -32602);
    // So are arguments that are not an object; null arguments are none.
    for arguments in [json!("a=2"), json!([2, 3]), json!(5)] {
        let params = json!({ "name": "add", "arguments": arguments });
        let outcome = within(client.request("tools/call", Some(params), Default::default())).await;
        assert_eq!(rpc_code(outcome), -32602, "{arguments}");
    }
    let params = json!({ "name": "fails", "arguments": null });
    let result = within(client.request("tools/call", Some(params), Default::default())).await.unwrap();
    assert_eq!(result["isError"], true, "{result}");
}

#[tokio::test]
async fn output_schema_is_enforced_by_the_server() {
    let server = calculator();
    let (client, _events, _session) = connect(&server).await;
    let outcome = within(client.call_tool("bad_output", json!({ "a": 1, "b": 1 }))).await;
    assert_eq!(rpc_code(outcome), -32603);
    let outcome = within(client.call_tool("no_structured", json!({}))).await;
    assert_eq!(rpc_code(outcome), -32603);
    // An isError result is exempt from the output schema.
    let ok = within(client.call_tool("add", json!({ "a": 1, "b": 1 }))).await.unwrap();
    assert_eq!(ok.structured_content.unwrap()["sum"], 2.0);
}

#[tokio::test]
async fn output_schema_is_enforced_by_the_client() {
    // A fake server that lists a tool with an output schema and then breaks it.
    let (mut fake, r, w) = raw_pipe();
    let connecting = tokio::spawn(Client::connect(StreamTransport::new(r, w), ClientOptions::new("c", "1")));
    let init = fake.recv().await;
    fake.send(json!({ "jsonrpc": "2.0", "id": init["id"], "result": {
        "protocolVersion": "2025-11-25", "capabilities": { "tools": {} }, "serverInfo": { "name": "liar", "version": "1" }
    }}))
    .await;
    let client = within(connecting).await.unwrap().unwrap();
    assert_eq!(fake.recv().await["method"], "notifications/initialized");

    let listing = tokio::spawn({
        let client = client.clone();
        async move { client.list_tools(None).await }
    });
    let request = fake.recv().await;
    assert_eq!(request["method"], "tools/list");
    fake.send(json!({ "jsonrpc": "2.0", "id": request["id"], "result": { "tools": [{
        "name": "t",
        "inputSchema": { "type": "object" },
        "outputSchema": { "type": "object", "properties": { "n": { "type": "integer" } }, "required": ["n"] }
    }]}}))
    .await;
    within(listing).await.unwrap().unwrap();

    for (structured, valid) in [(json!({ "n": 1 }), true), (json!({ "n": "one" }), false)] {
        let calling = tokio::spawn({
            let client = client.clone();
            async move { client.call_tool("t", json!({})).await }
        });
        let request = fake.recv().await;
        assert_eq!(request["method"], "tools/call");
        assert_eq!(request["params"]["name"], "t");
        fake.send(json!({ "jsonrpc": "2.0", "id": request["id"], "result": {
            "content": [], "structuredContent": structured
        }}))
        .await;
        let outcome = within(calling).await.unwrap();
        if valid {
            assert_eq!(outcome.unwrap().structured_content.unwrap()["n"], 1);
        } else {
            assert!(matches!(outcome, Err(Error::Protocol(_))), "got {outcome:?}");
        }
    }
}

/// Where to travel.
#[derive(Deserialize, JsonSchema)]
struct Trip {
    /// The destination city.
    city: String,
    /// How many nights.
    nights: u32,
}

/// A priced trip.
#[derive(Serialize, JsonSchema)]
struct Quote {
    /// The destination city.
    city: String,
    /// The price in cents.
    price: u64,
}

#[tokio::test]
async fn typed_tools_derive_schemas_and_return_structured_content() {
    let server = Server::builder(Implementation::new("travel", "1"))
        .typed_tool("quote", "Prices a trip.", |trip: Trip, _ctx| async move {
            Json(Quote { city: trip.city, price: u64::from(trip.nights) * 10_000 })
        })
        .typed_tool("maybe", "Fails on demand.", |trip: Trip, _ctx| async move {
            if trip.nights == 0 { Err("zero nights") } else { Ok(Json(Quote { city: trip.city, price: 1 })) }
        })
        .build()
        .unwrap();
    let (client, _events, _session) = connect(&server).await;
    let tools = within(client.list_all_tools()).await.unwrap();
    let quote = tools.iter().find(|t| t.name == "quote").unwrap();
    assert_eq!(quote.description.as_deref(), Some("Prices a trip."));
    let input = serde_json::Value::Object(quote.input_schema.clone());
    assert_eq!(input["type"], "object");
    assert_eq!(input["properties"]["city"]["type"], "string");
    assert_eq!(input["properties"]["city"]["description"], "The destination city.");
    assert!(input["properties"]["nights"]["type"] == "integer", "{input}");
    let mut required: Vec<_> = input["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    required.sort();
    assert_eq!(required, ["city", "nights"]);
    let output = serde_json::Value::Object(quote.output_schema.clone().expect("an output schema"));
    assert_eq!(output["type"], "object");
    assert_eq!(output["properties"]["price"]["type"], "integer");
    // Result<Json<T>, E> keeps T's output schema.
    let maybe = tools.iter().find(|t| t.name == "maybe").unwrap();
    assert_eq!(maybe.output_schema, quote.output_schema);

    let result = within(client.call_tool("quote", json!({ "city": "Lyon", "nights": 3 }))).await.unwrap();
    assert_eq!(result.structured_content, Some(obj(json!({ "city": "Lyon", "price": 30000 }))));
    assert_eq!(serde_json::from_str::<serde_json::Value>(first_text(&result)).unwrap()["price"], 30000);

    let failed = within(client.call_tool("maybe", json!({ "city": "Lyon", "nights": 0 }))).await.unwrap();
    assert!(failed.is_error());
    assert_eq!(first_text(&failed), "zero nights");

    // Arguments that break the derived schema never reach the function.
    let bad = within(client.call_tool("quote", json!({ "city": "Lyon", "nights": -1 }))).await.unwrap();
    assert!(bad.is_error());
}

/// How a typed tool fails.
#[derive(Deserialize, JsonSchema)]
struct Failure {
    /// Which error the tool returns.
    kind: String,
}

#[tokio::test]
async fn typed_tool_errors_with_a_json_rpc_code_are_json_rpc_errors() {
    let server = Server::builder(Implementation::new("failing", "1"))
        .typed_tool("data", "Fails with an ErrorData.", |f: Failure, _ctx| async move {
            match f.kind.as_str() {
                "ok" => Ok("fine"),
                _ => Err(mcpweft::ErrorData::invalid_params("no such city").with_data(json!({ "city": "Atlantis" }))),
            }
        })
        .typed_tool("core", "Fails with a core error.", |f: Failure, _ctx| async move {
            Err::<&str, _>(match f.kind.as_str() {
                "rpc" => Error::Rpc(mcpweft::ErrorData::new(-32002, "not found upstream")),
                "unreachable" => Error::Rpc(
                    mcpweft::ErrorData::new(mcpweft::jsonrpc::CONNECTION_CLOSED, "cannot reach upstream")
                        .with_data(json!({ "unreachable": true })),
                ),
                _ => Error::Timeout(std::time::Duration::from_secs(1)),
            })
        })
        .typed_tool("boxed", "Fails with a boxed error.", |f: Failure, _ctx| async move {
            let error: Box<dyn std::error::Error + Send + Sync> = match f.kind.as_str() {
                "data" => Box::new(mcpweft::ErrorData::new(-32001, "boxed data")),
                "rpc" => Box::new(Error::Rpc(mcpweft::ErrorData::new(-32003, "boxed rpc"))),
                _ => "plain boxed".into(),
            };
            Err::<&str, _>(error)
        })
        .build()
        .unwrap();
    let (client, _events, _session) = connect(&server).await;
    let client = &client;
    let call = move |name: &'static str, kind: &'static str| client.call_tool(name, json!({ "kind": kind }));

    assert_eq!(first_text(&within(call("data", "ok")).await.unwrap()), "fine");
    match within(call("data", "fail")).await {
        Err(Error::Rpc(e)) => {
            assert_eq!((e.code, e.message.as_str()), (-32602, "no such city"));
            assert_eq!(e.data, Some(json!({ "city": "Atlantis" })));
        }
        other => panic!("expected the tool's JSON-RPC error, got {other:?}"),
    }
    assert_eq!(rpc_code(within(call("core", "rpc")).await), -32002);
    assert_eq!(rpc_code(within(call("boxed", "data")).await), -32001);
    assert_eq!(rpc_code(within(call("boxed", "rpc")).await), -32003);

    // Errors without a code of their own are results the model sees.
    let timeout = within(call("core", "timeout")).await.unwrap();
    assert!(timeout.is_error());
    assert_eq!(first_text(&timeout), "request timed out after 1s");
    let unreachable = within(call("core", "unreachable")).await.unwrap();
    assert!(unreachable.is_error());
    assert_eq!(first_text(&unreachable), "cannot reach upstream (code -32000)");
    let plain = within(call("boxed", "plain")).await.unwrap();
    assert!(plain.is_error());
    assert_eq!(first_text(&plain), "plain boxed");
}

#[tokio::test]
async fn metadata_round_trips_through_tools_list() {
    let icon = Icon::new("https://example.com/icon.png")
        .with_mime_type("image/png")
        .with_sizes(vec!["48x48".into(), "any".into()])
        .with_theme(IconTheme::Dark);
    let annotations = ToolAnnotations::default()
        .with_title("Delete Everything")
        .with_read_only_hint(false)
        .with_destructive_hint(true)
        .with_idempotent_hint(true)
        .with_open_world_hint(false);
    let tool = Tool::without_arguments("wipe", "Deletes everything.")
        .with_title("Wipe")
        .with_annotations(annotations.clone())
        .with_icon(icon.clone())
        .with_task_support(TaskSupport::Forbidden)
        .with_meta(obj(json!({ "com.example/owner": "ops" })));
    let server = Server::builder(Implementation::new("meta", "1"))
        .tool(tool.clone(), |_args: JsonObject, _ctx| async move { Ok(CallToolResult::text("gone")) })
        .build()
        .unwrap();

    let (client, _events, _session) = connect(&server).await;
    let listed = within(client.list_all_tools()).await.unwrap();
    assert_eq!(listed, vec![tool]);

    let (mut raw, _session, _task) = raw_server(&server, None);
    raw.initialize().await;
    let response = raw.request(json!(1), "tools/list", json!({})).await;
    assert_eq!(
        response["result"]["tools"][0],
        json!({
            "name": "wipe",
            "title": "Wipe",
            "description": "Deletes everything.",
            "icons": [{ "src": "https://example.com/icon.png", "mimeType": "image/png", "sizes": ["48x48", "any"], "theme": "dark" }],
            "inputSchema": { "type": "object", "additionalProperties": false },
            "annotations": {
                "title": "Delete Everything",
                "readOnlyHint": false,
                "destructiveHint": true,
                "idempotentHint": true,
                "openWorldHint": false
            },
            "execution": { "taskSupport": "forbidden" },
            "_meta": { "com.example/owner": "ops" }
        })
    );
}

#[tokio::test]
async fn adding_and_removing_tools_notifies_initialized_clients() {
    let server = echo_server();
    let (client, mut events, _session) = connect(&server).await;

    server
        .add_tool(Tool::without_arguments("late", "Added later."), |_args: JsonObject, _ctx| async move {
            Ok(CallToolResult::text("late"))
        })
        .unwrap();
    assert_eq!(events.next().await, Event::ListChanged("notifications/tools/list_changed".into()));
    let names: Vec<_> = within(client.list_all_tools()).await.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["echo", "late"]);
    assert_eq!(first_text(&within(client.call_tool("late", json!({}))).await.unwrap()), "late");

    assert!(server.remove_tool("late"));
    assert_eq!(events.next().await, Event::ListChanged("notifications/tools/list_changed".into()));
    assert_eq!(rpc_code(within(client.call_tool("late", json!({}))).await), -32602);
    // Removing what is not there changes nothing and notifies no one.
    assert!(!server.remove_tool("late"));
    within(client.ping()).await.unwrap();
    assert_eq!(events.drain(), []);

    // An invalid schema is refused.
    let bad = Tool::new("bad", "Bad schema.", obj(json!({ "type": "object", "properties": { "a": { "type": 12 } } })));
    assert!(server.add_tool(bad, |_args: JsonObject, _ctx| async move { Ok(CallToolResult::text("")) }).is_err());
}

#[tokio::test]
async fn list_changed_is_not_sent_before_initialized() {
    let server = echo_server();
    let (mut raw, _session, _task) = raw_server(&server, None);
    // Initialize, but do not send notifications/initialized.
    raw.request(
        json!(1),
        "initialize",
        json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "raw", "version": "1" } }),
    )
    .await;
    server
        .add_tool(Tool::without_arguments("x", "X."), |_a: JsonObject, _c| async move { Ok(CallToolResult::text("")) })
        .unwrap();
    // The next line is the ping answer, not a list_changed notification.
    assert_eq!(raw.request(json!(2), "ping", json!({})).await, json!({ "jsonrpc": "2.0", "id": 2, "result": {} }));
    raw.send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).await;
    raw.request(json!(3), "ping", json!({})).await;
    assert!(server.remove_tool("x"));
    assert_eq!(raw.recv().await, json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed" }));
}

/// Fields written out of alphabetical order, to see that the derived schema keeps them so.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Unsorted {
    zebra: String,
    apple: u32,
    mango: bool,
}

fn keys(object: &JsonObject) -> Vec<&str> {
    object.keys().map(String::as_str).collect()
}

#[tokio::test]
async fn json_objects_keep_their_key_order_end_to_end() {
    let schema = obj(json!({
        "type": "object",
        "properties": { "zeta": { "type": "string" }, "alpha": { "type": "integer" }, "mid": { "type": "boolean" } },
        "required": ["zeta"]
    }));
    let server = Server::builder(Implementation::new("ordered", "1"))
        .tool(
            Tool::new("ordered", "Reports the order of its arguments.", schema),
            |args: JsonObject, _ctx| async move {
                let mut structured = JsonObject::new();
                structured.insert("zulu".into(), json!(1));
                structured.insert("bravo".into(), json!({ "yankee": true, "alpha": false }));
                structured.insert("arguments".into(), json!(args.keys().collect::<Vec<_>>()));
                Ok(CallToolResult::structured(structured))
            },
        )
        .typed_tool("unsorted", "Takes fields out of order.", |_args: Unsorted, _ctx| async move { "ok" })
        .build()
        .unwrap();
    let (client, _events, _session) = connect(&server).await;

    let tools = within(client.list_all_tools()).await.unwrap();
    let ordered = tools.iter().find(|t| t.name == "ordered").unwrap();
    assert_eq!(keys(&ordered.input_schema), ["type", "properties", "required"]);
    assert_eq!(keys(ordered.input_schema["properties"].as_object().unwrap()), ["zeta", "alpha", "mid"]);
    let unsorted = tools.iter().find(|t| t.name == "unsorted").unwrap();
    assert_eq!(keys(unsorted.input_schema["properties"].as_object().unwrap()), ["zebra", "apple", "mango"]);

    let result = within(client.call_tool("ordered", json!({ "mid": true, "zeta": "z", "alpha": 1 }))).await.unwrap();
    let structured = result.structured_content.as_ref().unwrap();
    assert_eq!(keys(structured), ["zulu", "bravo", "arguments"]);
    assert_eq!(keys(structured["bravo"].as_object().unwrap()), ["yankee", "alpha"]);
    assert_eq!(structured["arguments"], json!(["mid", "zeta", "alpha"]));
    assert!(first_text(&result).starts_with(r#"{"zulu":1,"bravo":{"yankee":true,"alpha":false}"#), "{result:?}");
}
