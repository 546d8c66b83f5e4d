//! Requests for input across rounds through the bridge: one handler, written with
//! `Context::ask`, `state` and `set_state` as every binding exposes them, answers a 2026-07-28
//! client through `input_required` rounds and a 2025-11-25 client through requests.

use std::sync::{
    Arc, Mutex,
    atomic::{AtomicUsize, Ordering},
};

use crate::common::callback;
use futures::executor::block_on;
use mcpweft_bridge::{CallOptions, Client, ClientCallbacks, Context, ErrorKind, Server};
use serde_json::{Value, json};

const NEXT: &str = "2026-07-28";

fn form(message: &str, property: &str, kind: &str) -> Value {
    json!({ "message": message,
            "requestedSchema": { "type": "object", "properties": { property: { "type": kind } }, "required": [property] } })
}

/// A server whose `book` tool asks for the guests, then a date, keeping the guests in the state;
/// `runs` counts the handler's runs.
fn booking_server(runs: Arc<AtomicUsize>) -> Server {
    let server = Server::new(json!({ "name": "rounds", "version": "1" })).unwrap();
    let book = callback(move |_args, ctx: Context| {
        let runs = runs.clone();
        async move {
            runs.fetch_add(1, Ordering::SeqCst);
            let guests = match ctx.state().and_then(|s| s.get("guests").cloned()) {
                Some(guests) => guests,
                None => {
                    ctx.ask("guests", "elicitation/create", form("How many guests?", "n", "integer")).await?["content"]
                        ["n"]
                        .clone()
                }
            };
            ctx.set_state(json!({ "guests": guests }));
            let date = ctx.ask("date", "elicitation/create", form("Which day?", "day", "string")).await?;
            let version = ctx.protocol_version().unwrap_or_default();
            Ok(json!(format!("{guests} guests on {} ({version})", date["content"]["day"].as_str().unwrap_or("?"))))
        }
    });
    server.add_tool(json!({ "name": "book" }), book, false).unwrap();
    server
}

/// Callbacks that answer each form, recording its message, and that try `ask` from a client's
/// context (which has no round to ask in).
fn answering(asked: Arc<Mutex<Vec<String>>>) -> ClientCallbacks {
    ClientCallbacks::new().with_elicitation(
        callback(move |params, ctx: Context| {
            let asked = asked.clone();
            async move {
                let refused = ctx.ask("nested", "roots/list", json!({})).await.unwrap_err();
                assert_eq!(refused.kind, ErrorKind::InvalidInput, "{refused:?}");
                asked.lock().unwrap().push(params["message"].as_str().unwrap_or_default().to_owned());
                let property =
                    params["requestedSchema"]["properties"].as_object().unwrap().keys().next().unwrap().clone();
                let value = if property == "n" { json!(2) } else { json!("May 1") };
                Ok(json!({ "action": "accept", "content": { property: value } }))
            }
        }),
        true,
        false,
    )
}

fn book(protocol_version: Option<&str>) -> (String, usize, Vec<String>) {
    let runs = Arc::new(AtomicUsize::new(0));
    let asked = Arc::new(Mutex::new(Vec::new()));
    let server = booking_server(runs.clone());
    let options = json!({ "name": "tester", "version": "1", "protocolVersion": protocol_version });
    let client = block_on(Client::connect_memory(&server, options, answering(asked.clone()))).unwrap();
    assert_eq!(client.protocol_version(), protocol_version.unwrap_or("2025-11-25"));
    let result = block_on(client.call_tool("book", json!({}), CallOptions::new())).unwrap();
    block_on(client.close()).unwrap();
    let text = result["content"][0]["text"].as_str().unwrap().to_owned();
    let asked = asked.lock().unwrap().clone();
    (text, runs.load(Ordering::SeqCst), asked)
}

#[test]
fn a_2026_client_answers_the_handler_in_rounds_and_the_state_carries_across_them() {
    let (text, runs, asked) = book(Some(NEXT));
    assert_eq!(text, "2 guests on May 1 (2026-07-28)");
    assert_eq!(runs, 3, "one run per round");
    assert_eq!(asked, ["How many guests?", "Which day?"], "the state spared asking for the guests again");
}

#[test]
fn a_2025_client_gets_the_same_handlers_requests_in_one_run() {
    let (text, runs, asked) = book(None);
    assert_eq!(text, "2 guests on May 1 (2025-11-25)");
    assert_eq!(runs, 1);
    assert_eq!(asked, ["How many guests?", "Which day?"]);
}

const SKILL_MD: &str =
    "---\nname: pdf-processing\ndescription: Extract PDF text\n---\n\nRead references/FORMS.md first.\n";

#[test]
fn a_skill_added_through_the_bridge_is_listed_and_its_files_are_resources() {
    let server = Server::new(json!({ "name": "skills", "version": "1" })).unwrap();
    let files = json!({ "references/FORMS.md": "Forms have fields.\n" });
    server.add_skill(json!({ "skillMd": SKILL_MD, "files": files }), false).unwrap();
    let options = json!({ "name": "tester", "version": "1", "protocolVersion": NEXT });
    let client = block_on(Client::connect_memory(&server, options, ClientCallbacks::new())).unwrap();
    let extensions = &client.server_info()["capabilities"]["extensions"];
    assert!(extensions.get("io.modelcontextprotocol/skills").is_some(), "{extensions}");
    let listed = block_on(client.request("skills/list", json!({}), CallOptions::new())).unwrap();
    let skill = &listed["skills"][0];
    assert_eq!(skill["uri"], "skill://pdf-processing/SKILL.md");
    assert_eq!(skill["frontmatter"]["description"], "Extract PDF text");
    assert_eq!(skill["resources"].as_array().unwrap().len(), 2);
    let read = block_on(client.request(
        "resources/read",
        json!({ "uri": "skill://pdf-processing/references/FORMS.md" }),
        CallOptions::new(),
    ))
    .unwrap();
    assert_eq!(read["contents"][0]["text"], "Forms have fields.\n");
    block_on(client.close()).unwrap();

    let refused =
        server.add_skill(json!({ "skillMd": SKILL_MD.replace("pdf-processing", "PDF--x") }), false).unwrap_err();
    assert_eq!(refused.kind, ErrorKind::Config, "{refused:?}");
    let escaping = json!({ "skillMd": SKILL_MD, "files": { "../up.md": "x" } });
    assert_eq!(server.add_skill(escaping, false).unwrap_err().kind, ErrorKind::Config);
}
