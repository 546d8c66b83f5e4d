//! MCP Apps: a server serves a `ui://` view and binds tools to it; a client or a host that
//! declares Apps sees the view, its CSP and which tools only the view may call, and reads it; a
//! client without Apps is spared them and still gets text.

use std::net::SocketAddr;

use crate::common::*;
use mcpweft::{
    Error, Server,
    host::{Host, HostConfig},
    http::{HttpServerOptions, StreamableHttpServer},
    model::{
        apps::{APP_MIME_TYPE, APPS_EXTENSION, AppCsp, AppToolMeta, AppViewMeta, Visibility},
        *,
    },
};
use serde_json::json;

const VIEW: &str = "ui://adder/view";
const HTML: &str = "<!doctype html><html><body><p id=sum></p></body></html>";

fn apps_server() -> Server {
    let mut meta = AppViewMeta::default();
    let mut csp = AppCsp::default();
    csp.connect_domains = Some(vec!["https://api.example.com".into()]);
    meta.csp = Some(csp);
    meta.prefers_border = Some(true);
    let mut add = Tool::new("add", "Adds a and b.", obj(json!({"type": "object"})));
    AppToolMeta::new(VIEW).apply(&mut add);
    let mut refresh = Tool::without_arguments("refresh", "Refreshes the view.");
    AppToolMeta::new(VIEW).with_visibility([Visibility::App]).apply(&mut refresh);
    Server::builder(Implementation::new("adder", "1"))
        .app_view(VIEW, "Adder", HTML, meta)
        .tool(add, |args: JsonObject, _ctx| async move {
            let sum = args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0);
            Ok(CallToolResult::text(format!("{sum}")))
        })
        .tool(refresh, |_args, _ctx| async { Ok(CallToolResult::text("refreshed")) })
        .build()
        .unwrap()
}

fn names(tools: &[Tool]) -> Vec<&str> {
    tools.iter().map(|t| t.name.as_str()).collect()
}

#[tokio::test]
async fn a_client_with_apps_sees_and_reads_the_view_and_one_without_gets_text() {
    let server = apps_server();
    let (with_apps, _session, _task) =
        connect_with(&server, full_options().with_apps(), mcpweft::client::NoHandler).await;
    let extensions = with_apps.server().capabilities.extensions.clone().expect("extensions");
    assert!(extensions.contains_key(APPS_EXTENSION));
    let tools = within(with_apps.list_all_tools()).await.unwrap();
    assert_eq!(names(&tools), ["add", "refresh"]);
    let ui = AppToolMeta::of(&tools[1]).expect("a view binding");
    assert_eq!(ui.resource_uri.as_deref(), Some(VIEW));
    assert!(ui.allows(Visibility::App) && !ui.allows(Visibility::Model));
    assert_eq!(tools[0].meta.as_ref().unwrap()["ui/resourceUri"], VIEW, "the flat key for older hosts");
    let resources = within(with_apps.list_all_resources()).await.unwrap();
    assert_eq!(resources[0].mime_type.as_deref(), Some(APP_MIME_TYPE));
    let view = within(with_apps.read_app_view(VIEW)).await.unwrap();
    assert_eq!(view.html, HTML);
    assert_eq!(view.meta.prefers_border, Some(true));
    assert_eq!(view.meta.csp.unwrap().connect_domains.unwrap(), ["https://api.example.com"]);

    let (plain, _session, _task) = connect_with(&server, full_options(), mcpweft::client::NoHandler).await;
    assert_eq!(names(&within(plain.list_all_tools()).await.unwrap()), ["add"], "no app-only tool");
    assert!(within(plain.list_all_resources()).await.unwrap().is_empty(), "no view");
    let sum = within(plain.call_tool("add", json!({"a": 2, "b": 3}))).await.unwrap();
    assert_eq!(first_text(&sum), "5");
}

#[tokio::test]
async fn a_view_is_a_ui_uri_and_a_plain_resource_is_no_view() {
    let server = Server::builder(Implementation::new("bad", "1")).build().unwrap();
    let refused = server.add_app_view("https://example.com/view", "x", HTML, AppViewMeta::default());
    assert!(matches!(refused, Err(Error::Config(_))), "{refused:?}");
    server
        .add_resource(Resource::new("mem://plain", "plain"), |_r, _c| async {
            Ok(serde_json::from_value::<ReadResourceResult>(
                json!({"contents": [{"uri": "mem://plain", "text": "hi"}]}),
            )
            .unwrap())
        })
        .unwrap();
    let (client, _session, _task) = connect_with(&server, full_options().with_apps(), mcpweft::client::NoHandler).await;
    let error = within(client.read_app_view("mem://plain")).await.unwrap_err();
    assert!(error.to_string().contains("not an app view"), "{error}");
}

#[tokio::test]
async fn a_host_with_apps_knows_which_tools_have_views_and_reads_them() {
    let bound = within(StreamableHttpServer::bind(
        apps_server(),
        SocketAddr::from(([127, 0, 0, 1], 0)),
        HttpServerOptions::default(),
    ))
    .await
    .unwrap();
    let config =
        HostConfig::from_value_with_env(&json!({"mcpServers": {"calc": {"url": bound.url()}}}), |_| None).unwrap();
    let host = within(Host::builder(config).with_apps().connect()).await.unwrap();
    let tools = host.tools();
    let by_name = |name: &str| tools.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("{name}"));
    assert!(by_name("calc__add").visible_to_model());
    assert!(!by_name("calc__refresh").visible_to_model(), "only the view may call it");
    assert_eq!(by_name("calc__add").app().and_then(|ui| ui.resource_uri).as_deref(), Some(VIEW));
    let view = within(host.read_app_view("calc__add")).await.unwrap();
    assert_eq!((view.uri.as_str(), view.html.as_str()), (VIEW, HTML));
    let missing = within(host.read_app_view("calc__nothing")).await.unwrap_err();
    assert!(matches!(missing, Error::Config(_)), "{missing:?}");
}
