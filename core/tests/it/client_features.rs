//! Server-to-client requests made from a tool's `RequestContext`: sampling, elicitation
//! and roots, with and without the client capability.

use std::sync::{Arc, Mutex};

use crate::common::*;
use mcpweft::{ClientOptions, Error, RequestContext, Server, model::*, server::ServerOptions};
use serde_json::json;

fn describe(e: &Error) -> String {
    match e {
        Error::CapabilityMissing(what) => format!("missing {what}"),
        other => format!("error {other}"),
    }
}

async fn sample(ctx: RequestContext) -> Result<String, Error> {
    let mut params = CreateMessageRequestParams::new(vec![SamplingMessage::user_text("What is 2+2?")], 50);
    params.system_prompt = Some("Be brief.".into());
    let result = ctx.create_message(params).await?;
    Ok(format!("{} via {} ({:?})", sampling_text(&result.content), result.model, result.stop_reason))
}

async fn elicit(ctx: RequestContext) -> Result<String, Error> {
    let schema = ElicitationSchema::default()
        .with_property("name", StringSchema::default().with_title("Your name"), true)
        .with_property("email", StringSchema::default().with_format(StringFormat::Email), false);
    let result = ctx.elicit(ElicitRequestFormParams::new("Who are you?", &schema).into()).await?;
    Ok(serde_json::to_string(&result).unwrap())
}

async fn roots(ctx: RequestContext) -> Result<String, Error> {
    let result = ctx.list_roots().await?;
    Ok(serde_json::to_string(&result).unwrap())
}

fn asking_server() -> Server {
    Server::builder(Implementation::new("asker", "1"))
        .tool(Tool::without_arguments("sample", "Samples."), |_args: JsonObject, ctx| async move {
            Ok(CallToolResult::text(sample(ctx).await.unwrap_or_else(|e| describe(&e))))
        })
        .tool(Tool::without_arguments("elicit", "Elicits."), |_args: JsonObject, ctx| async move {
            Ok(CallToolResult::text(elicit(ctx).await.unwrap_or_else(|e| describe(&e))))
        })
        .tool(Tool::without_arguments("roots", "Lists roots."), |_args: JsonObject, ctx| async move {
            Ok(CallToolResult::text(roots(ctx).await.unwrap_or_else(|e| describe(&e))))
        })
        .build()
        .unwrap()
}

#[tokio::test]
async fn sampling_from_a_tool() {
    let server = asking_server();
    let (client, _session, wire) = connect_tapped(&server, full_options(), Recorder::new().0).await;
    let result = within(client.call_tool("sample", json!({}))).await.unwrap();
    assert_eq!(first_text(&result), "echo: What is 2+2? via test-model (Some(EndTurn))");

    // The request on the wire.
    let sent = wire.to_client.lock().unwrap().iter().find_map(|m| match m {
        mcpweft::jsonrpc::JsonRpcMessage::Request(r) if r.method == "sampling/createMessage" => r.params.clone(),
        _ => None,
    });
    assert_eq!(
        sent.unwrap(),
        json!({
            "messages": [{ "role": "user", "content": { "type": "text", "text": "What is 2+2?" } }],
            "systemPrompt": "Be brief.",
            "maxTokens": 50
        })
    );
}

#[tokio::test]
async fn elicitation_from_a_tool() {
    let server = asking_server();
    let (client, _events, _session) = connect(&server).await;
    let result = within(client.call_tool("elicit", json!({}))).await.unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(first_text(&result)).unwrap(),
        json!({ "action": "accept", "content": { "email": "value of email", "name": "value of name" } })
    );
}

#[tokio::test]
async fn roots_from_a_tool_and_from_the_session() {
    let server = asking_server();
    let (client, _events, session) = connect(&server).await;
    let result = within(client.call_tool("roots", json!({}))).await.unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(first_text(&result)).unwrap(),
        json!({ "roots": [{ "uri": "file:///work/project", "name": "project" }] })
    );
    let roots = within(session.list_roots()).await.unwrap();
    assert_eq!(roots.roots[0].uri, "file:///work/project");
}

#[tokio::test]
async fn requests_need_the_client_capability() {
    let server = asking_server();
    let options = ClientOptions::new("plain", "1");
    let (client, session, _) = connect_with(&server, options, Recorder::new().0).await;
    for (tool, expected) in
        [("sample", "missing sampling"), ("elicit", "missing elicitation"), ("roots", "missing roots")]
    {
        let result = within(client.call_tool(tool, json!({}))).await.unwrap();
        assert_eq!(first_text(&result), expected);
    }
    assert!(matches!(within(session.list_roots()).await, Err(Error::CapabilityMissing(_))));

    // Form-only elicitation: a URL-mode request is refused locally too.
    let server = Server::builder(Implementation::new("url", "1"))
        .tool(Tool::without_arguments("url", "URL elicitation."), |_args: JsonObject, ctx: RequestContext| async move {
            let params = ElicitRequestURLParams::new("Log in", "e-1", "https://example.com/login");
            let text = match ctx.elicit(params.into()).await {
                Ok(r) => format!("{:?}", r.action),
                Err(e) => describe(&e),
            };
            Ok(CallToolResult::text(text))
        })
        .build()
        .unwrap();
    let (client, _events, _session) = connect(&server).await;
    let result = within(client.call_tool("url", json!({}))).await.unwrap();
    assert_eq!(first_text(&result), "missing elicitation.url");
}

#[tokio::test]
async fn a_client_refuses_undeclared_server_requests() {
    // A session handle can send raw requests; a client without the capability answers -32601.
    let server = echo_server();
    let (_client, session, _) = connect_with(&server, ClientOptions::new("plain", "1"), Recorder::new().0).await;
    for method in ["sampling/createMessage", "roots/list", "elicitation/create"] {
        let outcome = within(session.peer().request(method, Some(json!({})), Default::default())).await;
        assert_eq!(rpc_code(outcome), -32601, "{method}");
    }
    // A client with sampling but not sampling.tools refuses tools in sampling with -32602.
    let (_client, session, _) = connect_with(&server, full_options(), Recorder::new().0).await;
    let params = json!({
        "messages": [{ "role": "user", "content": { "type": "text", "text": "hi" } }],
        "maxTokens": 5,
        "tools": [{ "name": "t", "inputSchema": { "type": "object" } }]
    });
    let outcome = within(session.peer().request("sampling/createMessage", Some(params), Default::default())).await;
    assert_eq!(rpc_code(outcome), -32602);
    // A form-only client refuses URL-mode elicitation with -32602.
    let url = serde_json::to_value(ElicitRequestURLParams::new("Log in", "e-1", "https://example.com/login")).unwrap();
    let outcome = within(session.peer().request("elicitation/create", Some(url), Default::default())).await;
    assert_eq!(rpc_code(outcome), -32602);
    // Malformed sampling params are invalid params.
    let outcome =
        within(session.peer().request("sampling/createMessage", Some(json!({ "messages": 1 })), Default::default()))
            .await;
    assert_eq!(rpc_code(outcome), -32602);
}

#[tokio::test]
async fn roots_list_changed_reaches_the_server() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let options = ServerOptions::new().with_on_roots_changed({
        let seen = seen.clone();
        move |session: mcpweft::server::SessionHandle| {
            seen.lock().unwrap().push(session.client_info().map(|i| i.name));
        }
    });
    let server = Server::new(Implementation::new("roots", "1"), options);
    let (client, _events, _session) = connect(&server).await;
    client.notify_roots_list_changed().unwrap();
    within(client.ping()).await.unwrap();
    assert_eq!(*seen.lock().unwrap(), [Some("test-client".to_owned())]);
}

#[tokio::test]
async fn server_pings_the_client() {
    let server = echo_server();
    let (_client, session, wire) = connect_tapped(&server, ClientOptions::new("c", "1"), Recorder::new().0).await;
    within(session.peer().ping()).await.unwrap();
    let pings = wire
        .to_client
        .lock()
        .unwrap()
        .iter()
        .filter(|m| matches!(m, mcpweft::jsonrpc::JsonRpcMessage::Request(r) if r.method == "ping"))
        .count();
    assert_eq!(pings, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_tool_call_cancels_its_sampling_request() {
    use std::sync::atomic::{AtomicBool, Ordering};

    use mcpweft::{ClientHandler, ErrorData, RequestOptions, session::IncomingRequest};
    use tokio::sync::Notify;
    use tokio_util::sync::CancellationToken;

    /// A client whose sampling never finishes, and which records when it is stopped.
    struct Stuck {
        started: Arc<Notify>,
        dropped: Arc<AtomicBool>,
    }

    #[async_trait::async_trait]
    impl ClientHandler for Stuck {
        async fn create_message(
            &self,
            _params: CreateMessageRequestParams,
            _context: IncomingRequest,
        ) -> Result<CreateMessageResult, ErrorData> {
            let _guard = DropGuard(self.dropped.clone());
            self.started.notify_one();
            std::future::pending().await
        }
    }

    let server = asking_server();
    let started = Arc::new(Notify::new());
    let dropped = Arc::new(AtomicBool::new(false));
    let handler = Stuck { started: started.clone(), dropped: dropped.clone() };
    let (client, _session, wire) = connect_tapped(&server, full_options(), handler).await;
    let token = CancellationToken::new();
    let call = tokio::spawn({
        let client = client.clone();
        let options = RequestOptions::new().with_cancel(token.clone());
        async move { client.call_tool_with(CallToolRequestParams::new("sample", JsonObject::new()), options).await }
    });
    within(started.notified()).await;
    token.cancel();
    assert!(matches!(within(call).await.unwrap(), Err(Error::Cancelled)));

    // The server tells the client to stop the sampling it asked for on the tool's behalf.
    let sampling_id = wire
        .to_client
        .lock()
        .unwrap()
        .iter()
        .find_map(|m| match m {
            mcpweft::jsonrpc::JsonRpcMessage::Request(r) if r.method == "sampling/createMessage" => Some(r.id.clone()),
            _ => None,
        })
        .expect("a sampling request");
    eventually("the client's sampling handler is stopped", || dropped.load(Ordering::SeqCst)).await;
    let cancelled: Vec<_> = wire
        .to_client
        .lock()
        .unwrap()
        .iter()
        .filter_map(|m| match m {
            mcpweft::jsonrpc::JsonRpcMessage::Notification(n) if n.method == "notifications/cancelled" => {
                n.params.clone()
            }
            _ => None,
        })
        .collect();
    assert_eq!(cancelled.len(), 1, "{cancelled:?}");
    assert_eq!(cancelled[0]["requestId"], serde_json::to_value(&sampling_id).unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_request_timeout_applies_to_requests_to_the_client() {
    use std::{
        sync::atomic::{AtomicBool, Ordering},
        time::Duration,
    };

    use mcpweft::{ClientHandler, ErrorData, session::IncomingRequest};

    struct Slow(Arc<AtomicBool>);

    #[async_trait::async_trait]
    impl ClientHandler for Slow {
        async fn list_roots(&self, _context: IncomingRequest) -> Result<ListRootsResult, ErrorData> {
            let _guard = DropGuard(self.0.clone());
            std::future::pending().await
        }
    }

    let options = ServerOptions::new().with_request_timeout(Duration::from_millis(150));
    let server = Server::new(Implementation::new("impatient", "1"), options);
    server
        .add_tool(
            Tool::without_arguments("roots", "Lists roots."),
            |_args: JsonObject, ctx: RequestContext| async move {
                Ok(CallToolResult::text(match ctx.list_roots().await {
                    Err(Error::Timeout(_)) => "timed out".to_owned(),
                    other => format!("{other:?}"),
                }))
            },
        )
        .unwrap();
    let dropped = Arc::new(AtomicBool::new(false));
    let (client, _session, _) = connect_with(&server, full_options(), Slow(dropped.clone())).await;
    let result = within(client.call_tool("roots", json!({}))).await.unwrap();
    assert_eq!(first_text(&result), "timed out");
    // The server cancelled its request, so the client stopped the handler.
    eventually("the client's roots handler is stopped", || dropped.load(Ordering::SeqCst)).await;
}

#[tokio::test]
async fn client_handler_errors_reach_the_tool() {
    let server = asking_server();
    // A client that declares sampling but whose handler refuses, as a user rejecting it would.
    struct Refuses;

    #[async_trait::async_trait]
    impl mcpweft::ClientHandler for Refuses {
        async fn create_message(
            &self,
            _params: CreateMessageRequestParams,
            _context: mcpweft::session::IncomingRequest,
        ) -> Result<CreateMessageResult, mcpweft::ErrorData> {
            Err(mcpweft::ErrorData::new(-1, "User rejected sampling request"))
        }
    }

    let (client, _session, _) = connect_with(&server, full_options(), Refuses).await;
    let result = within(client.call_tool("sample", json!({}))).await.unwrap();
    assert_eq!(first_text(&result), "error User rejected sampling request (code -1)");
}
