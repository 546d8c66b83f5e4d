//! Resources, resource templates, subscriptions, prompts and completion.

use std::collections::HashMap;

use crate::common::*;
use mcpweft::{Server, model::*, server::ResourceRequest};
use serde_json::json;

fn library() -> Server {
    let mut readme = Resource::new("file:///docs/readme.md", "readme")
        .with_mime_type("text/markdown")
        .with_description("The readme.");
    readme.title = Some("Read Me".into());
    readme.size = Some(11);
    let mut by_id = ResourceTemplate::new("books://{shelf}/{id}", "book");
    by_id.title = Some("A book".into());
    by_id.mime_type = Some("application/json".into());
    Server::builder(Implementation::new("library", "1"))
        .resource(readme, |req: ResourceRequest, _ctx| async move {
            Ok(ReadResourceResult::new(vec![
                ResourceContents::text(req.uri, "# Hello\n").with_mime_type("text/markdown"),
            ]))
        })
        .resource(
            Resource::new("mem://logo", "logo").with_mime_type("image/png"),
            |req: ResourceRequest, _ctx| async move {
                Ok(ReadResourceResult::new(vec![ResourceContents::blob(req.uri, "iVBORw0KGgo=", "image/png")]))
            },
        )
        .resource_template(by_id, |req: ResourceRequest, _ctx| async move {
            let shelf = &req.variables["shelf"];
            let id = &req.variables["id"];
            if id == "missing" {
                return Err(mcpweft::ErrorData::resource_not_found(&req.uri));
            }
            let text = json!({ "shelf": shelf, "id": id }).to_string();
            Ok(ReadResourceResult::new(vec![ResourceContents::text(req.uri, text).with_mime_type("application/json")]))
        })
        .prompt(
            Prompt::new("review")
                .with_description("Reviews code.")
                .with_argument(PromptArgument::new("code", true).with_description("The code."))
                .with_argument(PromptArgument::new("style", false)),
            |args: HashMap<String, String>, _ctx| async move {
                let style = args.get("style").cloned().unwrap_or_else(|| "plain".into());
                Ok(GetPromptResult::new(vec![
                    PromptMessage::user_text(format!("Review ({style}): {}", args["code"])),
                    PromptMessage::assistant_text("Sure."),
                ])
                .with_description("A review"))
            },
        )
        .completion(|params: CompleteRequestParams, _ctx| async move {
            let candidates: Vec<String> = match &params.reference {
                CompletionReference::Prompt(p) if p.name == "review" && params.argument.name == "style" => {
                    let code = params.context.as_ref().and_then(|c| c.arguments.as_ref()).and_then(|a| a.get("code"));
                    let mut styles: Vec<String> =
                        vec!["plain".into(), "pedantic".into(), "poetic".into(), "brief".into()];
                    // A style offered only when the code already given is Rust.
                    if code.is_some_and(|code| code.starts_with("fn ")) {
                        styles.push("rustic".into());
                    }
                    styles
                }
                CompletionReference::Resource(r) if r.uri == "books://{shelf}/{id}" => {
                    (0..150).map(|i| format!("shelf-{i}")).collect()
                }
                _ => Vec::new(),
            };
            Ok(CompleteResult::new(candidates.into_iter().filter(|c| c.starts_with(&params.argument.value)).collect()))
        })
        .build()
        .unwrap()
}

#[tokio::test]
async fn lists_resources_and_templates() {
    let server = library();
    let (client, _events, _session) = connect(&server).await;
    let resources = within(client.list_all_resources()).await.unwrap();
    let uris: Vec<_> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris, ["file:///docs/readme.md", "mem://logo"]);
    let templates = within(client.list_all_resource_templates()).await.unwrap();
    assert_eq!(templates.len(), 1);
    assert_eq!(templates[0].uri_template, "books://{shelf}/{id}");

    let (mut raw, _session, _task) = raw_server(&server, None);
    raw.initialize().await;
    let response = raw.request(json!(1), "resources/list", json!({})).await;
    assert_eq!(
        response["result"]["resources"][0],
        json!({
            "uri": "file:///docs/readme.md",
            "name": "readme",
            "title": "Read Me",
            "description": "The readme.",
            "mimeType": "text/markdown",
            "size": 11
        })
    );
    let response = raw.request(json!(2), "resources/templates/list", json!({})).await;
    assert_eq!(
        response["result"],
        json!({ "resourceTemplates": [{
            "uriTemplate": "books://{shelf}/{id}", "name": "book", "title": "A book", "mimeType": "application/json"
        }]})
    );
}

#[tokio::test]
async fn reads_fixed_and_templated_uris() {
    let server = library();
    let (client, _events, _session) = connect(&server).await;
    let read = within(client.read_resource("file:///docs/readme.md")).await.unwrap();
    assert_eq!(
        serde_json::to_value(&read).unwrap(),
        json!({ "contents": [{ "uri": "file:///docs/readme.md", "mimeType": "text/markdown", "text": "# Hello\n" }] })
    );
    let read = within(client.read_resource("mem://logo")).await.unwrap();
    assert_eq!(
        serde_json::to_value(&read).unwrap(),
        json!({ "contents": [{ "uri": "mem://logo", "mimeType": "image/png", "blob": "iVBORw0KGgo=" }] })
    );
    let read = within(client.read_resource("books://fiction/42")).await.unwrap();
    let ResourceContents::Text(text) = &read.contents[0] else { panic!("text contents expected") };
    assert_eq!(text.uri, "books://fiction/42");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&text.text).unwrap(),
        json!({ "shelf": "fiction", "id": "42" })
    );
}

#[tokio::test]
async fn unknown_uris_are_resource_not_found() {
    let server = library();
    let (client, _events, _session) = connect(&server).await;
    for uri in ["file:///nope", "books://only-one-segment", "books://fiction/missing", "books://fiction/", "books:///"]
    {
        match within(client.read_resource(uri)).await {
            Err(mcpweft::Error::Rpc(e)) => {
                assert_eq!(e.code, -32002, "{uri}");
                assert_eq!(e.data, Some(json!({ "uri": uri })), "{uri}");
            }
            other => panic!("{uri}: expected -32002, got {other:?}"),
        }
    }
    // Missing params are invalid params, not not-found.
    let outcome = within(client.request("resources/read", Some(json!({})), Default::default())).await;
    assert_eq!(rpc_code(outcome), -32602);
}

#[tokio::test]
async fn updates_arrive_only_while_subscribed() {
    let server = library();
    let (client, mut events, _session) = connect(&server).await;
    let uri = "file:///docs/readme.md";

    // Not subscribed yet: nothing arrives.
    server.notify_resource_updated(uri);
    within(client.ping()).await.unwrap();
    assert_eq!(events.drain(), []);

    within(client.subscribe(uri)).await.unwrap();
    server.notify_resource_updated(uri);
    assert_eq!(events.next().await, Event::ResourceUpdated(uri.into()));
    // Other URIs are not delivered.
    server.notify_resource_updated("mem://logo");
    within(client.ping()).await.unwrap();
    assert_eq!(events.drain(), []);

    within(client.unsubscribe(uri)).await.unwrap();
    server.notify_resource_updated(uri);
    within(client.ping()).await.unwrap();
    assert_eq!(events.drain(), []);

    // The wire format of subscribe and of the notification.
    let (mut raw, _session, _task) = raw_server(&server, None);
    raw.initialize().await;
    let response = raw.request(json!("s"), "resources/subscribe", json!({ "uri": "mem://logo" })).await;
    assert_eq!(response["result"], json!({}));
    server.notify_resource_updated("mem://logo");
    assert_eq!(
        raw.recv().await,
        json!({ "jsonrpc": "2.0", "method": "notifications/resources/updated", "params": { "uri": "mem://logo" } })
    );
    let response = raw.request(json!("u"), "resources/unsubscribe", json!({ "uri": "mem://logo" })).await;
    assert_eq!(response["result"], json!({}));
}

#[tokio::test]
async fn resource_registrations_notify_list_changed() {
    let server = library();
    let (client, mut events, _session) = connect(&server).await;
    server
        .add_resource(Resource::new("mem://new", "new"), |req: ResourceRequest, _ctx| async move {
            Ok(ReadResourceResult::new(vec![ResourceContents::text(req.uri, "new")]))
        })
        .unwrap();
    assert_eq!(events.next().await, Event::ListChanged("notifications/resources/list_changed".into()));
    assert_eq!(within(client.list_all_resources()).await.unwrap().len(), 3);
    assert!(server.remove_resource("mem://new"));
    assert_eq!(events.next().await, Event::ListChanged("notifications/resources/list_changed".into()));
    server
        .add_prompt(Prompt::new("other"), |_args: HashMap<String, String>, _ctx| async move {
            Ok(GetPromptResult::new(vec![]))
        })
        .unwrap();
    assert_eq!(events.next().await, Event::ListChanged("notifications/prompts/list_changed".into()));
}

#[tokio::test]
async fn prompts_list_and_get() {
    let server = library();
    let (client, _events, _session) = connect(&server).await;
    let prompts = within(client.list_all_prompts()).await.unwrap();
    assert_eq!(
        serde_json::to_value(&prompts).unwrap(),
        json!([{
            "name": "review",
            "description": "Reviews code.",
            "arguments": [
                { "name": "code", "description": "The code.", "required": true },
                { "name": "style", "required": false }
            ]
        }])
    );
    let result = within(client.get_prompt("review", [("code", "fn main() {}"), ("style", "brief")])).await.unwrap();
    assert_eq!(
        serde_json::to_value(&result).unwrap(),
        json!({
            "description": "A review",
            "messages": [
                { "role": "user", "content": { "type": "text", "text": "Review (brief): fn main() {}" } },
                { "role": "assistant", "content": { "type": "text", "text": "Sure." } }
            ]
        })
    );
    // The optional argument may be left out.
    let result = within(client.get_prompt("review", [("code", "x")])).await.unwrap();
    assert_eq!(result.messages[0].content.as_text(), Some("Review (plain): x"));
}

#[tokio::test]
async fn prompt_errors_are_invalid_params() {
    let server = library();
    let (client, _events, _session) = connect(&server).await;
    match within(client.get_prompt("review", [("style", "brief")])).await {
        Err(mcpweft::Error::Rpc(e)) => {
            assert_eq!(e.code, -32602);
            assert!(e.message.contains("code"), "the message names the missing argument: {}", e.message);
        }
        other => panic!("expected -32602, got {other:?}"),
    }
    assert_eq!(rpc_code(within(client.get_prompt("nope", [])).await), -32602);
}

#[tokio::test]
async fn completion_returns_ranked_values() {
    let server = library();
    let (client, _events, _session) = connect(&server).await;
    let reference = CompletionReference::Prompt(PromptReference::new("review"));
    let result = within(client.complete(reference, "style", "p")).await.unwrap();
    assert_eq!(
        serde_json::to_value(&result).unwrap(),
        json!({ "completion": { "values": ["plain", "pedantic", "poetic"], "total": 3, "hasMore": false } })
    );

    // The arguments already resolved reach the handler as `context.arguments`.
    let reference = CompletionReference::Prompt(PromptReference::new("review"));
    assert!(within(client.complete(reference.clone(), "style", "r")).await.unwrap().completion.values.is_empty());
    let result = within(client.complete_with_context(reference.clone(), "style", "r", [("code", "fn main() {}")]))
        .await
        .unwrap();
    assert_eq!(result.completion.values, ["rustic"]);
    let result = within(client.complete_with_context(reference, "style", "r", [("code", "print(1)")])).await.unwrap();
    assert!(result.completion.values.is_empty());

    // At most 100 values, with the total and hasMore.
    let reference = CompletionReference::Resource(ResourceTemplateReference::new("books://{shelf}/{id}"));
    let result = within(client.complete(reference, "shelf", "")).await.unwrap();
    assert_eq!(result.completion.values.len(), 100);
    assert_eq!(result.completion.total, Some(150));
    assert_eq!(result.completion.has_more, Some(true));

    // The raw request shape.
    let (mut raw, _session, _task) = raw_server(&server, None);
    raw.initialize().await;
    let response = raw
        .request(
            json!(1),
            "completion/complete",
            json!({ "ref": { "type": "ref/prompt", "name": "review" }, "argument": { "name": "style", "value": "b" },
                    "context": { "arguments": { "code": "x" } } }),
        )
        .await;
    assert_eq!(response["result"]["completion"]["values"], json!(["brief"]));
    let response =
        raw.request(json!(2), "completion/complete", json!({ "ref": { "type": "ref/unknown" }, "argument": {} })).await;
    assert_error(&response, -32602);
}

/// A template registered with a lister has its resources in `resources/list`, after the fixed
/// ones and on the last page only; a failing lister fails the list.
#[tokio::test]
async fn listed_templates_add_their_resources_to_the_last_page() {
    let server = Server::builder(Implementation::new("listed", "1")).page_size(1).build().unwrap();
    for uri in ["mem://fixed", "mem://fixed2"] {
        server
            .add_resource(Resource::new(uri, "fixed"), |req: ResourceRequest, _ctx| async move {
                Ok(ReadResourceResult::new(vec![ResourceContents::text(req.uri, "fixed")]))
            })
            .unwrap();
    }
    let read = std::sync::Arc::new(|req: ResourceRequest, _ctx: mcpweft::RequestContext| async move {
        Ok::<_, mcpweft::ErrorData>(ReadResourceResult::new(vec![ResourceContents::text(req.uri, "user")]))
    });
    let lister = std::sync::Arc::new(|ctx: mcpweft::RequestContext| async move {
        assert!(matches!(ctx.request_id(), mcpweft::RequestId::Number(_)), "the lister gets the request's context");
        Ok::<_, mcpweft::ErrorData>(vec![Resource::new("mem://users/1", "Ada"), Resource::new("mem://users/2", "Alan")])
    });
    server.add_listed_resource_template(ResourceTemplate::new("mem://users/{id}", "user"), read, lister).unwrap();
    let (client, _events, _session) = connect(&server).await;

    let first = within(client.list_resources(None)).await.unwrap();
    assert_eq!(first.resources.iter().map(|r| r.uri.as_str()).collect::<Vec<_>>(), ["mem://fixed"]);
    let all = within(client.list_all_resources()).await.unwrap();
    assert_eq!(
        all.iter().map(|r| r.uri.as_str()).collect::<Vec<_>>(),
        ["mem://fixed", "mem://fixed2", "mem://users/1", "mem://users/2"]
    );

    let failing = std::sync::Arc::new(|_ctx: mcpweft::RequestContext| async move {
        Err::<Vec<Resource>, _>(mcpweft::ErrorData::internal_error("no users today"))
    });
    let read = std::sync::Arc::new(|req: ResourceRequest, _ctx: mcpweft::RequestContext| async move {
        Ok::<_, mcpweft::ErrorData>(ReadResourceResult::new(vec![ResourceContents::text(req.uri, "x")]))
    });
    server.add_listed_resource_template(ResourceTemplate::new("mem://broken/{id}", "broken"), read, failing).unwrap();
    let error = within(client.list_all_resources()).await.unwrap_err();
    assert_eq!(error.rpc().map(|e| e.message.as_str()), Some("no users today"));
}
