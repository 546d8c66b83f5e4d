//! MCP Apps through the bridge, as every binding uses them: a server serves a view and binds a
//! tool to it from JSON; a client that declares Apps (`"apps": true`) reads the view; bad
//! descriptors are refused with what is wrong.

use crate::common::callback;
use futures::executor::block_on;
use mcpweft_bridge::{CallOptions, Client, ClientCallbacks, ErrorKind, Server};
use serde_json::json;

#[test]
fn a_view_is_served_bound_and_read_from_json() {
    let server = Server::new(json!({ "name": "apps", "version": "1" })).unwrap();
    server
        .add_app_view(json!({
            "uri": "ui://apps/view", "name": "View", "html": "<p>hi</p>",
            "csp": { "connectDomains": ["https://api.example.com"] }, "prefersBorder": false,
        }))
        .unwrap();
    let tool = json!({ "name": "show", "_meta": { "ui": { "resourceUri": "ui://apps/view", "visibility": ["app"] } } });
    server.add_tool(tool, callback(|_a, _c| async { Ok(json!("shown")) }), false).unwrap();
    // The descriptor keys `app` and `visibility` bind a tool as `_meta.ui` does.
    let bound = json!({ "name": "bound", "app": "ui://apps/view", "visibility": ["model", "app"] });
    server.add_tool(bound, callback(|_a, _c| async { Ok(json!("bound")) }), false).unwrap();
    let bad = json!({ "name": "bad", "app": "ui://apps/view", "visibility": ["everyone"] });
    let refused = server.add_tool(bad, callback(|_a, _c| async { Ok(json!("bad")) }), false).unwrap_err();
    assert!(refused.message.contains("visibility"), "{refused:?}");

    let options = json!({ "name": "t", "version": "1", "apps": true });
    let client = block_on(Client::connect_memory(&server, options, ClientCallbacks::new())).unwrap();
    let view = block_on(client.read_app_view("ui://apps/view")).unwrap();
    assert_eq!(view["html"], "<p>hi</p>");
    assert_eq!(
        view["meta"],
        json!({ "csp": { "connectDomains": ["https://api.example.com"] }, "prefersBorder": false })
    );
    let tools = block_on(client.request("tools/list", json!({}), CallOptions::new())).unwrap();
    assert_eq!(tools["tools"][0]["_meta"]["ui/resourceUri"], "ui://apps/view");
    assert_eq!(
        tools["tools"][1]["_meta"]["ui"],
        json!({ "resourceUri": "ui://apps/view", "visibility": ["model", "app"] })
    );
    assert_eq!(tools["tools"][1]["_meta"]["ui/resourceUri"], "ui://apps/view");

    let plain =
        block_on(Client::connect_memory(&server, json!({ "name": "t", "version": "1" }), ClientCallbacks::new()))
            .unwrap();
    let tools = block_on(plain.request("tools/list", json!({}), CallOptions::new())).unwrap();
    let names: Vec<_> = tools["tools"].as_array().unwrap().iter().map(|t| t["name"].clone()).collect();
    assert_eq!(names, [json!("bound")], "an app-only tool is not listed to a client without Apps");

    for (descriptor, says) in [
        (json!({ "uri": "https://x", "name": "x", "html": "" }), "ui://"),
        (json!({ "uri": "ui://apps/other", "name": "x" }), "html"),
        (json!({ "uri": "ui://apps/other", "name": "x", "html": "", "cps": {} }), "no setting \"cps\""),
    ] {
        let error = server.add_app_view(descriptor).unwrap_err();
        assert!(matches!(error.kind, ErrorKind::InvalidInput | ErrorKind::Config), "{error:?}");
        assert!(error.message.contains(says), "{says}: {error:?}");
    }
}
