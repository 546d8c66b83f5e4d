//! `mcpweft proxy URL` between the core's own client, speaking stdio to the binary, and a
//! Streamable HTTP server of this process: listing, calls, the server's own requests, progress
//! and cancellation pass through in both revisions, and a session the server forgot is
//! initialized again.

use std::{
    net::SocketAddr,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use mcpweft::{
    Client, ClientHandler, ClientOptions, ErrorData, RequestContext, RequestOptions, Server,
    http::{BoundHttpServer, HttpServerOptions, StreamableHttpServer},
    model::{
        CallToolResult, ClientCapabilities, ElicitContentValue, ElicitRequestParams, ElicitResult, Implementation,
        JsonObject, STATELESS_PROTOCOL_VERSION, Tool, methods,
    },
    session::IncomingRequest,
    transport::ChildProcessTransport,
};
use serde_json::{Value, json};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::common::{mcpweft, within};

/// What the server's `wait` tool tells the test: that it started, and that it was cancelled.
#[derive(Default)]
struct Waiting {
    started: Notify,
    cancelled: Notify,
}

/// How long the `wait` tool waits for its cancellation before it gives up.
const WAIT_LIMIT: Duration = Duration::from_secs(3);

/// Tells the test that the `wait` tool was cancelled when its handler ends or is dropped,
/// unless it gave up waiting.
struct TellCancelled {
    waiting: Arc<Waiting>,
    armed: bool,
}

impl Drop for TellCancelled {
    fn drop(&mut self) {
        if self.armed {
            self.waiting.cancelled.notify_one();
        }
    }
}

fn schema(value: Value) -> JsonObject {
    serde_json::from_value(value).expect("a schema")
}

/// A server with a tool of each kind the proxy must carry.
fn remote(waiting: Arc<Waiting>) -> Server {
    let numbers = json!({ "type": "object", "properties": { "a": { "type": "number" }, "b": { "type": "number" } } });
    let none = json!({ "type": "object" });
    Server::builder(Implementation::new("remote", "1.0.0"))
        .tool(
            Tool::new("add", "Adds two numbers.", schema(numbers)),
            |args: JsonObject, _ctx: RequestContext| async move {
                let number = |key: &str| args.get(key).and_then(Value::as_f64).unwrap_or(0.0);
                Ok::<_, ErrorData>(CallToolResult::text((number("a") + number("b")).to_string()))
            },
        )
        .tool(
            Tool::new("ask", "Asks the user for a name.", schema(none.clone())),
            |_args: JsonObject, ctx: RequestContext| async move {
                let params: ElicitRequestParams = serde_json::from_value(json!({
                    "mode": "form",
                    "message": "Your name?",
                    "requestedSchema": { "type": "object", "properties": { "name": { "type": "string" } } },
                }))
                .map_err(|e| ErrorData::internal_error(e.to_string()))?;
                let answer = ctx.elicit(params).await.map_err(|e| ErrorData::internal_error(e.to_string()))?;
                let name = match answer.content.as_ref().and_then(|c| c.get("name")) {
                    Some(ElicitContentValue::String(name)) => name.clone(),
                    other => format!("{other:?}"),
                };
                Ok(CallToolResult::text(format!("Hello, {name}!")))
            },
        )
        .tool(
            Tool::new("whoami", "Names the client.", schema(none.clone())),
            |_args: JsonObject, ctx: RequestContext| async move {
                let name = ctx.client_info().map(|info| info.name).unwrap_or_default();
                Ok::<_, ErrorData>(CallToolResult::text(name))
            },
        )
        .tool(
            Tool::new("steps", "Reports three steps of progress.", schema(none.clone())),
            |_args: JsonObject, ctx: RequestContext| async move {
                for step in 1..=3 {
                    ctx.report_progress(f64::from(step), Some(3.0), None)
                        .map_err(|e| ErrorData::internal_error(e.to_string()))?;
                }
                Ok::<_, ErrorData>(CallToolResult::text("done"))
            },
        )
        .tool(
            Tool::new("wait", "Waits until it is cancelled.", schema(none)),
            move |_args: JsonObject, ctx: RequestContext| {
                let waiting = waiting.clone();
                async move {
                    // The server drops the handler of a cancelled request: the guard tells it.
                    let mut told = TellCancelled { waiting: waiting.clone(), armed: true };
                    waiting.started.notify_one();
                    tokio::select! {
                        _ = ctx.cancelled() => {}
                        _ = tokio::time::sleep(WAIT_LIMIT) => told.armed = false,
                    }
                    Ok::<_, ErrorData>(CallToolResult::text("gave up"))
                }
            },
        )
        .build()
        .expect("a server")
}

async fn serve(addr: SocketAddr, waiting: Arc<Waiting>) -> BoundHttpServer {
    // The port of a server that just stopped may need a moment to be free again.
    let mut last = None;
    for _ in 0..50 {
        match StreamableHttpServer::bind(remote(waiting.clone()), addr, HttpServerOptions::default()).await {
            Ok(bound) => return bound,
            Err(e) => last = Some(e),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("cannot listen on {addr}: {last:?}");
}

/// The client's side: answers elicitation with the name Ada, and counts the questions.
struct Answers {
    asked: Arc<AtomicUsize>,
}

#[async_trait::async_trait]
impl ClientHandler for Answers {
    async fn elicit(&self, params: ElicitRequestParams, _context: IncomingRequest) -> Result<ElicitResult, ErrorData> {
        assert_eq!(params.message(), "Your name?");
        self.asked.fetch_add(1, Ordering::SeqCst);
        Ok(ElicitResult::accept([("name".to_owned(), ElicitContentValue::String("Ada".to_owned()))]))
    }
}

/// Connects the core's client to `mcpweft proxy url` over stdio; `asked` counts the
/// elicitations it answers.
async fn connect(url: &str, version: Option<&str>, asked: Arc<AtomicUsize>) -> Client {
    let transport = ChildProcessTransport::command(mcpweft(), ["proxy", url]).expect("the proxy starts");
    let capabilities: ClientCapabilities =
        serde_json::from_value(json!({ "elicitation": { "form": {} } })).expect("capabilities");
    let mut options = ClientOptions::new("proxied-client", "2.0.0").with_capabilities(capabilities);
    if let Some(version) = version {
        options = options.with_protocol_version(version);
    }
    within("connecting through the proxy", Client::connect_with_handler(transport, options, Answers { asked }))
        .await
        .expect("connected through the proxy")
}

async fn call(client: &Client, name: &str, arguments: Value) -> String {
    let result = within(name, client.call_tool(name, arguments)).await.unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_ne!(result.is_error, Some(true), "{name}: {result:?}");
    match serde_json::to_value(&result.content).expect("content")[0]["text"].as_str() {
        Some(text) => text.to_owned(),
        None => panic!("{name} returned no text: {result:?}"),
    }
}

/// Everything a session does, through the proxy, in the revision `version` (the latest
/// session-based one when `None`).
async fn exercise(version: Option<&str>) {
    let waiting = Arc::new(Waiting::default());
    let server = serve(SocketAddr::from(([127, 0, 0, 1], 0)), waiting.clone()).await;
    let asked = Arc::new(AtomicUsize::new(0));
    let client = connect(&server.url(), version, asked.clone()).await;
    assert_eq!(client.server().server_info.name, "remote");
    assert_eq!(client.protocol_version(), version.unwrap_or("2025-11-25"));

    let tools = within("listing", client.list_all_tools()).await.expect("tools");
    let names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["add", "ask", "whoami", "steps", "wait"]);

    assert_eq!(call(&client, "add", json!({ "a": 2, "b": 3 })).await, "5");
    // The server sees the real client, not the proxy.
    assert_eq!(call(&client, "whoami", json!({})).await, "proxied-client");
    // The server's request for input reaches the client and its answer the server.
    assert_eq!(call(&client, "ask", json!({})).await, "Hello, Ada!");
    assert_eq!(asked.load(Ordering::SeqCst), 1);

    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let progress = seen.clone();
    let options = RequestOptions::new()
        .with_progress(move |p| progress.lock().expect("the progress list").push((p.progress, p.total)));
    let result = within("steps", client.request(methods::TOOLS_CALL, Some(json!({ "name": "steps" })), options))
        .await
        .expect("steps");
    assert_eq!(result["content"][0]["text"], "done");
    assert_eq!(*seen.lock().expect("the progress list"), [(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))]);

    let cancel = CancellationToken::new();
    let options = RequestOptions::new().with_cancel(cancel.clone());
    let waited = {
        let client = client.clone();
        tokio::spawn(async move { client.request(methods::TOOLS_CALL, Some(json!({ "name": "wait" })), options).await })
    };
    within("the wait tool starting", waiting.started.notified()).await;
    cancel.cancel();
    if version.is_none() {
        // Under 2026-07-28 a request is cancelled by dropping its HTTP exchange, which the
        // core's server notices only when it next writes to it (a direct client fares the
        // same), so there the tool gives up after WAIT_LIMIT.
        within("the cancellation reaching the server", waiting.cancelled.notified()).await;
    }
    let outcome = within("the cancelled call", waited).await.expect("the call's task");
    assert!(matches!(outcome, Err(mcpweft::Error::Cancelled)), "{outcome:?}");

    within("closing", client.close()).await;
    if version.is_none() {
        // The proxy ended the HTTP session when its stdin closed.
        let sessions = || server.http().session_count();
        for _ in 0..100 {
            if sessions() == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(sessions(), 0, "the session outlived the proxy");
    }
    within("stopping the server", server.shutdown()).await;
}

#[tokio::test]
async fn a_session_passes_through_the_proxy() {
    exercise(None).await;
}

#[tokio::test]
async fn revision_2026_07_28_passes_through_the_proxy() {
    exercise(Some(STATELESS_PROTOCOL_VERSION)).await;
}

#[tokio::test]
async fn a_session_the_server_forgot_is_initialized_again() {
    let waiting = Arc::new(Waiting::default());
    let server = serve(SocketAddr::from(([127, 0, 0, 1], 0)), waiting.clone()).await;
    let addr = server.local_addr();
    let client = connect(&server.url(), None, Arc::new(AtomicUsize::new(0))).await;
    assert_eq!(call(&client, "add", json!({ "a": 1, "b": 1 })).await, "2");

    // The server restarts on the same port and knows no session.
    within("stopping the server", server.shutdown()).await;
    let server = serve(addr, waiting).await;
    assert_eq!(server.http().session_count(), 0);

    // The proxy's transport meets a 404, initializes a session with the client's own
    // initialize request, and sends the call again: the client sees nothing of it.
    assert_eq!(call(&client, "add", json!({ "a": 2, "b": 2 })).await, "4");
    assert_eq!(server.http().session_count(), 1);
    assert_eq!(call(&client, "whoami", json!({})).await, "proxied-client");
    // The new session was initialized with the client's capabilities: elicitation works.
    assert_eq!(call(&client, "ask", json!({})).await, "Hello, Ada!");
    within("closing", client.close()).await;
    within("stopping the server", server.shutdown()).await;
}

#[tokio::test]
async fn a_client_that_writes_everything_at_once_gets_every_answer() {
    let server = serve(SocketAddr::from(([127, 0, 0, 1], 0)), Arc::new(Waiting::default())).await;
    let url = server.url();
    let lines = [
        "not JSON".to_owned(),
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "sh", "version": "1" } } })
        .to_string(),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }).to_string(),
        json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": { "name": "add", "arguments": { "a": 1, "b": 2 } } })
        .to_string(),
    ];
    // stdin ends right after the call: the proxy still waits for its answer.
    let out = crate::common::run(&["proxy", &url], Some(&(lines.join("\n") + "\n"))).await;
    out.expect_code(0);
    let answers: Vec<Value> =
        out.stdout.lines().map(|line| serde_json::from_str(line).expect("a JSON-RPC line")).collect();
    assert_eq!(answers.len(), 3, "{}", out.stdout);
    assert_eq!(answers[0]["error"]["code"], -32700);
    assert_eq!(answers[1]["id"], 1);
    assert_eq!(answers[1]["result"]["serverInfo"]["name"], "remote");
    assert_eq!(
        answers[2],
        json!({ "jsonrpc": "2.0", "id": 2, "result": { "content": [{ "type": "text", "text": "3" }] } })
    );
    within("stopping the server", server.shutdown()).await;
}
