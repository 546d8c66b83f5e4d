//! The client of revision 2026-07-28: it discovers a server that offers the revision and sends
//! each request with its envelope, answers `input_required` results with its own handlers, and
//! falls back to `initialize` with a server that does not know `server/discover`; it opens
//! `subscriptions/listen` streams for its resource subscriptions and the list changes it wants.

use crate::common;

use std::sync::{
    Arc,
    atomic::{AtomicUsize, Ordering},
};

use mcpweft::{
    Client, ClientHandler, ClientOptions, ErrorData, RequestContext, Server,
    client::SubscriptionFilter,
    model::*,
    session::IncomingRequest,
    transport::{StreamTransport, http::StreamableHttpClientTransport, memory_pair},
};
use serde_json::{Value, json};

/// A handler that answers each form with the next of its `answers`, counting the calls.
struct Answers {
    answers: Vec<&'static str>,
    asked: AtomicUsize,
}

#[async_trait::async_trait]
impl ClientHandler for Answers {
    async fn elicit(&self, _params: ElicitRequestParams, _context: IncomingRequest) -> Result<ElicitResult, ErrorData> {
        let n = self.asked.fetch_add(1, Ordering::SeqCst);
        let answer = self.answers.get(n).copied().unwrap_or("?");
        Ok(serde_json::from_value(json!({ "action": "accept", "content": { "v": answer } })).unwrap())
    }
}

/// A server whose `book` tool elicits twice, keeping what it learned in its state.
fn booking_server() -> Server {
    Server::builder(Implementation::new("booking", "1"))
        .tool(
            Tool::without_arguments("book", "Asks for guests, then a date."),
            |_a: JsonObject, ctx: RequestContext| async move {
                let schema = json!({ "type": "object", "properties": { "v": { "type": "string" } } });
                let form =
                    |message: &str| json!({ "mode": "form", "message": message, "requestedSchema": schema.clone() });
                let failed = |e: mcpweft::Error| ErrorData::internal_error(e.to_string());
                // A retry carries the answers to the latest round only: the first is kept in the state.
                let guests = match ctx.state() {
                    Some(kept) => kept.clone(),
                    None => ctx.ask("guests", "elicitation/create", form("guests")).await.map_err(failed)?,
                };
                ctx.set_state(guests.clone());
                let date = ctx.ask("date", "elicitation/create", form("date")).await.map_err(failed)?;
                let revision = ctx.protocol_version().unwrap_or_default();
                Ok(CallToolResult::text(format!(
                    "{} guests on {} ({revision})",
                    guests["content"]["v"].as_str().unwrap_or_default(),
                    date["content"]["v"].as_str().unwrap_or_default()
                )))
            },
        )
        .build()
        .unwrap()
}

fn options() -> ClientOptions {
    ClientOptions::new("next-client", "1")
        .with_capabilities(ClientCapabilities::default().with_elicitation(false))
        .with_protocol_version(STATELESS_PROTOCOL_VERSION)
}

fn handler() -> Answers {
    Answers { answers: vec!["2", "May 1"], asked: AtomicUsize::new(0) }
}

#[tokio::test]
async fn a_2026_client_answers_input_rounds_with_its_own_handlers() {
    let server = booking_server();
    let (client_side, server_side) = memory_pair();
    server.serve(server_side);
    let answers = Arc::new(handler());
    let client = common::within(Client::connect_with_handler(client_side, options(), ArcHandler(answers.clone())))
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), STATELESS_PROTOCOL_VERSION);
    assert_eq!(client.server().server_info.name, "booking");
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 1);
    let result = common::within(client.call_tool("book", Value::Null)).await.unwrap();
    assert_eq!(text_of(&result), "2 guests on May 1 (2026-07-28)");
    // Two rounds of input, one question each: the guests, then the date.
    assert_eq!(answers.asked.load(Ordering::SeqCst), 2);
    client.ping().await.unwrap();
}

#[tokio::test]
async fn a_2026_client_speaks_the_revision_over_http() {
    let server = booking_server();
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    let bound =
        common::within(mcpweft::http::StreamableHttpServer::bind(server, addr, Default::default())).await.unwrap();
    let transport = StreamableHttpClientTransport::new(bound.url()).unwrap();
    let client = common::within(Client::connect_with_handler(transport, options(), handler())).await.unwrap();
    assert_eq!(client.protocol_version(), STATELESS_PROTOCOL_VERSION);
    let result = common::within(client.call_tool("book", Value::Null)).await.unwrap();
    assert_eq!(text_of(&result), "2 guests on May 1 (2026-07-28)");
}

#[tokio::test]
async fn shutting_the_server_down_ends_a_listen_stream() {
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    let bound = common::within(mcpweft::http::StreamableHttpServer::bind(booking_server(), addr, Default::default()))
        .await
        .unwrap();
    let transport = StreamableHttpClientTransport::new(bound.url()).unwrap();
    // The list changes come on a `subscriptions/listen` stream, which belongs to no session.
    let client =
        common::within(Client::connect(transport, options().with_list_changed_notifications(true))).await.unwrap();
    client.close().await;
    // The server stops at once rather than at the stream's next keep-alive (15 s).
    common::within(bound.shutdown()).await;
}

#[tokio::test]
async fn a_2026_client_falls_back_to_initialize_with_an_older_server() {
    let (mut old, r, w) = common::raw_pipe();
    let connecting = tokio::spawn(Client::connect(StreamTransport::new(r, w), options()));
    let discover = old.recv().await;
    assert_eq!(discover["method"], "server/discover");
    old.send(
        json!({ "jsonrpc": "2.0", "id": discover["id"], "error": { "code": -32601, "message": "Method not found" } }),
    )
    .await;
    let initialize = old.recv().await;
    assert_eq!(initialize["method"], "initialize");
    assert_eq!(initialize["params"]["protocolVersion"], LATEST_PROTOCOL_VERSION);
    old.send(json!({ "jsonrpc": "2.0", "id": initialize["id"], "result": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": { "name": "old", "version": "1" } } }))
        .await;
    assert_eq!(old.recv().await["method"], "notifications/initialized");
    let client = common::within(connecting).await.unwrap().unwrap();
    assert_eq!(client.protocol_version(), "2025-11-25");
}

/// Shares a handler with the test, which reads its counter.
struct ArcHandler(Arc<Answers>);

#[async_trait::async_trait]
impl ClientHandler for ArcHandler {
    async fn elicit(&self, params: ElicitRequestParams, context: IncomingRequest) -> Result<ElicitResult, ErrorData> {
        self.0.elicit(params, context).await
    }
}

/// The text of a result's first block.
fn text_of(result: &CallToolResult) -> String {
    serde_json::to_value(result).unwrap()["content"][0]["text"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn a_2026_client_tries_discover_again_when_refused_a_version_the_server_lists() {
    let (mut server, r, w) = common::raw_pipe();
    let connecting = tokio::spawn(Client::connect(StreamTransport::new(r, w), options()));
    let first = server.recv().await;
    let refusal = json!({ "code": -32022, "message": "Unsupported protocol version",
        "data": { "supported": ["2026-07-28"], "requested": "2026-07-28" } });
    server.send(json!({ "jsonrpc": "2.0", "id": first["id"], "error": refusal })).await;
    let second = server.recv().await;
    assert_eq!(second["method"], "server/discover");
    assert_ne!(second["id"], first["id"], "a retry is a new request");
    server
        .send(json!({ "jsonrpc": "2.0", "id": second["id"], "result": { "supportedVersions": ["2026-07-28"],
            "capabilities": {}, "_meta": { "io.modelcontextprotocol/serverInfo": { "name": "picky", "version": "1" } } } }))
        .await;
    let client = common::within(connecting).await.unwrap().unwrap();
    assert_eq!(client.protocol_version(), STATELESS_PROTOCOL_VERSION);
    assert_eq!(client.server().server_info.name, "picky");
}

#[tokio::test]
async fn a_2026_client_mirrors_annotated_parameters_into_headers() {
    let schema =
        json!({ "type": "object", "properties": { "region": { "type": "string", "x-mcp-header": "Region" } } });
    let server = Server::builder(Implementation::new("regions", "1"))
        .tool(
            Tool::new("where", "Echoes a region.", schema.as_object().cloned().unwrap()),
            |args: JsonObject, _c: RequestContext| async move {
                Ok(CallToolResult::text(args["region"].as_str().unwrap_or_default().to_owned()))
            },
        )
        .build()
        .unwrap();
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    let bound =
        common::within(mcpweft::http::StreamableHttpServer::bind(server, addr, Default::default())).await.unwrap();
    let transport = StreamableHttpClientTransport::new(bound.url()).unwrap();
    let client = common::within(Client::connect(transport, options())).await.unwrap();
    // The server refuses a call whose Mcp-Param-Region header is missing or differs.
    assert_eq!(client.list_all_tools().await.unwrap().len(), 1);
    let result = common::within(client.call_tool("where", json!({ "region": "Zürich" }))).await.unwrap();
    assert_eq!(text_of(&result), "Zürich");
}

/// Hears resource updates and list changes, as `"updated <uri>"` and the method's name.
struct Heard(tokio::sync::mpsc::UnboundedSender<String>);

#[async_trait::async_trait]
impl ClientHandler for Heard {
    async fn on_resource_updated(&self, params: ResourceUpdatedNotificationParams) {
        let _ = self.0.send(format!("updated {}", params.uri));
    }

    async fn on_list_changed(&self, method: &str) {
        let _ = self.0.send(method.to_owned());
    }
}

/// The watched server served over an in-memory pair, a client connected to it with `options`,
/// and what the client's handler hears.
async fn watched_over_memory(options: ClientOptions) -> (Server, Client, tokio::sync::mpsc::UnboundedReceiver<String>) {
    let server = watched_server();
    let (client_side, server_side) = memory_pair();
    server.serve(server_side);
    let (tx, heard) = tokio::sync::mpsc::unbounded_channel();
    let client = common::within(Client::connect_with_handler(client_side, options, Heard(tx))).await.unwrap();
    (server, client, heard)
}

/// A server with two tools (it offers tools while one is left), and a resource one may
/// subscribe to.
fn watched_server() -> Server {
    Server::builder(Implementation::new("watched", "1"))
        .tool(Tool::without_arguments("first", "One tool."), |_a: JsonObject, _c: RequestContext| async move {
            Ok(CallToolResult::text("first"))
        })
        .tool(Tool::without_arguments("kept", "Another tool."), |_a: JsonObject, _c: RequestContext| async move {
            Ok(CallToolResult::text("kept"))
        })
        .resource(
            Resource::new("file:///watched", "watched"),
            |r: mcpweft::server::ResourceRequest, _c: RequestContext| async move {
                Ok(ReadResourceResult::new(vec![ResourceContents::text(r.uri, "x")]))
            },
        )
        .build()
        .unwrap()
}

/// Subscribes, hears an update and a list change, unsubscribes and hears no more updates.
async fn subscriptions_reach_the_handler(
    client: Client,
    server: Server,
    heard: &mut tokio::sync::mpsc::UnboundedReceiver<String>,
) {
    assert_eq!(client.protocol_version(), STATELESS_PROTOCOL_VERSION);
    common::within(client.subscribe("file:///watched")).await.unwrap();
    server.notify_resource_updated("file:///other");
    server.notify_resource_updated("file:///watched");
    assert_eq!(common::within(heard.recv()).await.unwrap(), "updated file:///watched");
    server.remove_tool("first");
    assert_eq!(common::within(heard.recv()).await.unwrap(), "notifications/tools/list_changed");

    common::within(client.unsubscribe("file:///watched")).await.unwrap();
    server.notify_resource_updated("file:///watched");
    server
        .add_tool(Tool::without_arguments("second", "Another."), |_a: JsonObject, _c: RequestContext| async move {
            Ok(CallToolResult::text("second"))
        })
        .unwrap();
    // The list changes still come (the stream was reopened without the resource); the update does not.
    assert_eq!(common::within(heard.recv()).await.unwrap(), "notifications/tools/list_changed");
    let quiet = tokio::time::timeout(std::time::Duration::from_millis(200), heard.recv()).await;
    assert!(quiet.is_err(), "nothing more was asked for: {quiet:?}");
    client.close().await;
}

#[tokio::test]
async fn a_2026_client_listens_for_its_subscriptions_and_list_changes() {
    let (server, client, mut heard) = watched_over_memory(options().with_list_changed_notifications(true)).await;
    subscriptions_reach_the_handler(client, server, &mut heard).await;
}

#[tokio::test]
async fn a_2026_client_listens_over_http() {
    let server = watched_server();
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    let bound = common::within(mcpweft::http::StreamableHttpServer::bind(server.clone(), addr, Default::default()))
        .await
        .unwrap();
    let transport = StreamableHttpClientTransport::new(bound.url()).unwrap();
    let (tx, mut heard) = tokio::sync::mpsc::unbounded_channel();
    let options = options().with_list_changed_notifications(true);
    let client = common::within(Client::connect_with_handler(transport, options, Heard(tx))).await.unwrap();
    subscriptions_reach_the_handler(client, server, &mut heard).await;
}

#[tokio::test]
async fn a_listen_stream_is_acknowledged_with_what_the_server_supports_and_ends_when_dropped() {
    let (server, client, mut heard) = watched_over_memory(options()).await;
    // Prompts are not offered: the acknowledgment leaves them out.
    let filter = SubscriptionFilter::new().with_prompts_list_changed().with_resource("file:///watched");
    let stream = common::within(client.listen(filter)).await.unwrap();
    assert_eq!(stream.acknowledged(), &SubscriptionFilter::new().with_resource("file:///watched"));
    server.notify_resource_updated("file:///watched");
    assert_eq!(common::within(heard.recv()).await.unwrap(), "updated file:///watched");
    stream.close().await;
    server.notify_resource_updated("file:///watched");
    let quiet = tokio::time::timeout(std::time::Duration::from_millis(200), heard.recv()).await;
    assert!(quiet.is_err(), "the stream ended: {quiet:?}");
}

#[tokio::test]
async fn a_listen_stream_hands_its_own_notifications_to_next_until_it_ends() {
    // The client's own stream asks for list changes as well, so the server sends each twice.
    let (server, client, mut heard) = watched_over_memory(options().with_list_changed_notifications(true)).await;
    let filter = SubscriptionFilter::new().with_tools_list_changed().with_resource("file:///watched");
    let mut stream = common::within(client.listen(filter)).await.unwrap();
    server.notify_resource_updated("file:///watched");
    let updated = common::within(stream.next()).await.unwrap();
    assert_eq!(updated.method, "notifications/resources/updated");
    assert_eq!(updated.params.unwrap()["uri"], "file:///watched");
    server.remove_tool("first");
    let changed = common::within(stream.next()).await.unwrap();
    assert_eq!(changed.method, "notifications/tools/list_changed");
    // The copy sent on the client's own stream reaches the handler, not this stream.
    server.notify_resource_updated("file:///watched");
    assert_eq!(common::within(stream.next()).await.unwrap().method, "notifications/resources/updated");
    let mut handler = Vec::new();
    while handler.len() < 4 {
        handler.push(common::within(heard.recv()).await.unwrap());
    }
    handler.sort();
    let changes = "notifications/tools/list_changed";
    assert_eq!(handler, [changes, changes, "updated file:///watched", "updated file:///watched"]);
    client.close().await;
    assert!(common::within(stream.next()).await.is_none(), "the stream ended with the connection");
}

#[tokio::test]
async fn only_a_2026_server_has_listen_streams() {
    let server = watched_server();
    let (client_side, server_side) = memory_pair();
    server.serve(server_side);
    let client = common::within(Client::connect(client_side, ClientOptions::new("old", "1"))).await.unwrap();
    let error = client.listen(SubscriptionFilter::new().with_tools_list_changed()).await.unwrap_err();
    assert!(matches!(error, mcpweft::Error::CapabilityMissing(_)), "{error}");
    // Over 2025-11-25 a subscription is resources/subscribe, as before.
    common::within(client.subscribe("file:///watched")).await.unwrap();
}

#[tokio::test]
async fn a_listen_stream_outlives_the_http_request_timeout() {
    let server = watched_server();
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    let bound = common::within(mcpweft::http::StreamableHttpServer::bind(server.clone(), addr, Default::default()))
        .await
        .unwrap();
    let short = std::time::Duration::from_millis(300);
    let http = mcpweft::transport::http::HttpClientOptions::new().with_request_timeout(short);
    let transport = StreamableHttpClientTransport::with_options(bound.url(), http).unwrap();
    let (tx, mut heard) = tokio::sync::mpsc::unbounded_channel();
    let client = common::within(Client::connect_with_handler(transport, options(), Heard(tx))).await.unwrap();
    common::within(client.subscribe("file:///watched")).await.unwrap();
    tokio::time::sleep(short * 3).await;
    server.notify_resource_updated("file:///watched");
    assert_eq!(common::within(heard.recv()).await.unwrap(), "updated file:///watched");
    client.close().await;
}
