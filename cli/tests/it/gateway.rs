//! `mcpweft gateway` in front of real servers (the core's calculator example and the
//! conformance fixture over stdio, a Streamable HTTP server of this process), with the core's
//! client speaking Streamable HTTP to it: namespaced lists, calls, reads, prompts, completions,
//! progress, a server's request for input, list changes, a server that is killed and comes
//! back, `--no-prefix` (one server relayed, with its allow and deny lists), and configurations
//! that are wrong.

use std::{
    net::SocketAddr,
    process::Stdio,
    sync::{Arc, Mutex},
    time::Duration,
};

use mcpweft::{
    Client, ClientHandler, ClientOptions, ErrorData, RequestContext, RequestOptions, Server,
    http::{BoundHttpServer, HttpServerOptions, StreamableHttpServer},
    model::{
        CallToolResult, ClientCapabilities, CompletionReference, ElicitContentValue, ElicitRequestParams, ElicitResult,
        GetPromptResult, Implementation, JsonObject, Prompt, PromptMessage, PromptReference, ReadResourceResult,
        Resource, ResourceContents, Tool, methods,
    },
    server::ResourceRequest,
    session::IncomingRequest,
    transport::http::{HttpClientOptions, StreamableHttpClientTransport},
};
use serde_json::{Value, json};
use tokio::{
    io::{AsyncBufReadExt as _, BufReader},
    sync::{Notify, mpsc},
};

use crate::common::{STEP, TempFile, calculator_server, conformance_server, mcpweft, run, within};

fn schema(value: Value) -> JsonObject {
    serde_json::from_value(value).expect("a schema")
}

fn text(value: &str) -> CallToolResult {
    CallToolResult::text(value)
}

/// What the server's `wait` tool tells the test: that it started, and that it was cancelled.
#[derive(Default)]
struct Waiting {
    started: Notify,
    cancelled: Notify,
}

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

/// The Streamable HTTP server of this process behind the gateway: a tool that reports
/// progress, one that asks the user for a name, one that waits until it is cancelled, a
/// resource and a prompt.
fn remote(waiting: Arc<Waiting>) -> Server {
    let none = json!({ "type": "object" });
    Server::builder(Implementation::new("remote", "1.0.0"))
        .tool(
            Tool::new("wait", "Waits until it is cancelled.", schema(none.clone())),
            move |_args: JsonObject, ctx: RequestContext| {
                let waiting = waiting.clone();
                async move {
                    // The server drops the handler of a cancelled request: the guard tells it.
                    let mut told = TellCancelled { waiting: waiting.clone(), armed: true };
                    waiting.started.notify_one();
                    tokio::select! {
                        _ = ctx.cancelled() => {}
                        _ = tokio::time::sleep(STEP) => told.armed = false,
                    }
                    Ok::<_, ErrorData>(text("gave up"))
                }
            },
        )
        .tool(
            Tool::new("steps", "Reports three steps of progress.", schema(none.clone())),
            |_args: JsonObject, ctx: RequestContext| async move {
                for step in 1..=3 {
                    ctx.report_progress(f64::from(step), Some(3.0), Some(format!("step {step}")))
                        .map_err(|e| ErrorData::internal_error(e.to_string()))?;
                }
                Ok::<_, ErrorData>(text("done"))
            },
        )
        .tool(
            Tool::new("ask", "Asks the user for a name.", schema(none)),
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
                Ok(text(&format!("Hello, {name}!")))
            },
        )
        .resource(Resource::new("remote://motd", "motd"), |req: ResourceRequest, _ctx| async move {
            Ok(ReadResourceResult::new(vec![ResourceContents::text(req.uri, "Welcome.")]))
        })
        .prompt(Prompt::new("greeting"), |_args, _ctx| async move {
            Ok(GetPromptResult::new(vec![PromptMessage::user_text("Hi!")]))
        })
        .build()
        .expect("a server")
}

async fn serve_remote(waiting: Arc<Waiting>) -> (Server, BoundHttpServer) {
    let server = remote(waiting);
    let addr = SocketAddr::from(([127, 0, 0, 1], 0));
    let bound = StreamableHttpServer::bind(server.clone(), addr, HttpServerOptions::default()).await.expect("bound");
    (server, bound)
}

/// A running `mcpweft gateway`, killed when dropped, and what it wrote on stderr.
pub(crate) struct Gateway {
    _child: tokio::process::Child,
    url: String,
    stderr: Arc<Mutex<String>>,
}

impl Gateway {
    /// Starts the gateway over the configuration `config` with the options `extra`, and waits
    /// until it says where it listens.
    pub(crate) async fn start(config: &TempFile, extra: &[&str]) -> Gateway {
        let mut command = tokio::process::Command::new(mcpweft());
        command.args(["gateway", "--config", config.path()]);
        if !extra.contains(&"--listen") {
            command.args(["--listen", "127.0.0.1:0"]);
        }
        command
            .args(extra)
            .env("MCPWEFT_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn().expect("the gateway starts");
        let mut lines = BufReader::new(child.stderr.take().expect("a stderr pipe")).lines();
        let stderr = Arc::new(Mutex::new(String::new()));
        let url = within("the gateway starting", async {
            loop {
                match lines.next_line().await {
                    Ok(Some(line)) => {
                        stderr.lock().expect("the log").push_str(&format!("{line}\n"));
                        if let Some(url) = line.strip_prefix("listening on ") {
                            return url.to_owned();
                        }
                    }
                    _ => panic!("the gateway ended before it listened:\n{}", stderr.lock().expect("the log")),
                }
            }
        })
        .await;
        let log = stderr.clone();
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                log.lock().expect("the log").push_str(&format!("{line}\n"));
            }
        });
        Gateway { _child: child, url, stderr }
    }

    pub(crate) fn stderr(&self) -> String {
        self.stderr.lock().expect("the log").clone()
    }
}

/// The client's side: answers elicitation with the name Ada and passes each list change on.
struct Front {
    changes: mpsc::UnboundedSender<String>,
}

#[async_trait::async_trait]
impl ClientHandler for Front {
    async fn elicit(&self, params: ElicitRequestParams, _context: IncomingRequest) -> Result<ElicitResult, ErrorData> {
        assert_eq!(params.message(), "Your name?");
        Ok(ElicitResult::accept([("name".to_owned(), ElicitContentValue::String("Ada".to_owned()))]))
    }

    async fn on_list_changed(&self, method: &str) {
        let _ = self.changes.send(method.to_owned());
    }
}

/// Connects the core's client to the gateway over Streamable HTTP; the receiver gets the list
/// changes the gateway announces.
pub(crate) async fn connect(gateway: &Gateway) -> (Client, mpsc::UnboundedReceiver<String>) {
    let (client, changed) = try_connect(gateway, HttpClientOptions::new()).await;
    let client = client.unwrap_or_else(|e| panic!("connecting to the gateway failed: {e}\n{}", gateway.stderr()));
    (client, changed)
}

/// Connects the core's client to the gateway with the HTTP options `http`.
async fn try_connect(
    gateway: &Gateway,
    http: HttpClientOptions,
) -> (Result<Client, mcpweft::Error>, mpsc::UnboundedReceiver<String>) {
    let transport = StreamableHttpClientTransport::with_options(&gateway.url, http).expect("a transport");
    let capabilities: ClientCapabilities =
        serde_json::from_value(json!({ "elicitation": { "form": {} } })).expect("capabilities");
    let options = ClientOptions::new("gateway-test", "1.0.0").with_capabilities(capabilities);
    let (changes, changed) = mpsc::unbounded_channel();
    let client =
        within("connecting to the gateway", Client::connect_with_handler(transport, options, Front { changes })).await;
    (client, changed)
}

async fn tool_names(client: &Client) -> Vec<String> {
    let tools = within("listing the tools", client.list_all_tools()).await.expect("the tools");
    tools.into_iter().map(|t| t.name).collect()
}

/// The text of the first content block of a successful call.
async fn call(client: &Client, name: &str, arguments: Value) -> String {
    let result = within(name, client.call_tool(name, arguments)).await.unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_ne!(result.is_error, Some(true), "{name}: {result:?}");
    match serde_json::to_value(&result.content).expect("content")[0]["text"].as_str() {
        Some(text) => text.to_owned(),
        None => panic!("{name} returned no text: {result:?}"),
    }
}

/// Waits until `changed` brings `method`.
async fn list_change(changed: &mut mpsc::UnboundedReceiver<String>, method: &str) {
    within(method, async {
        while let Some(seen) = changed.recv().await {
            if seen == method {
                return;
            }
        }
        panic!("the client's handler went away");
    })
    .await;
}

fn config(servers: Value) -> TempFile {
    TempFile::new("gateway", &json!({ "mcpServers": servers }).to_string())
}

#[tokio::test]
async fn a_gateway_serves_every_server_under_its_prefix() {
    let calculator = calculator_server().await;
    let conformance = conformance_server().await;
    let (remote, bound) = serve_remote(Arc::default()).await;
    let config = config(json!({
        "calc": { "command": calculator },
        "remote": { "type": "http", "url": bound.url(), "deniedTools": [] },
        "conf": { "command": conformance, "args": ["--stdio"], "allowedTools": ["test_simple_text", "test_tool_with_progress"] },
        "broken": { "command": "/nonexistent/mcp-server", "maxRestarts": 0 },
    }));
    let gateway = Gateway::start(&config, &[]).await;
    // The server that cannot start is reported and left out; the others are served.
    assert!(gateway.stderr().contains("broken"), "{}", gateway.stderr());
    let (client, mut changed) = connect(&gateway).await;
    assert_eq!(client.server().server_info.name, "mcpweft-gateway");
    let capabilities = &client.server().capabilities;
    assert_eq!(capabilities.tools.as_ref().and_then(|t| t.list_changed), Some(true));
    assert!(capabilities.completions.is_some());

    let names = tool_names(&client).await;
    for name in ["calc__add", "calc__divide", "calc__count", "remote__steps", "remote__ask", "conf__test_simple_text"] {
        assert!(names.contains(&name.to_owned()), "{name} is missing from {names:?}");
    }
    // The allow list of the configuration applies.
    assert!(!names.iter().any(|n| n == "conf__test_error_handling"), "{names:?}");
    assert!(!names.iter().any(|n| n.starts_with("broken")), "{names:?}");
    // A tool is listed as its server lists it, under its host name.
    let tools = within("listing", client.list_all_tools()).await.expect("tools");
    let add = tools.iter().find(|t| t.name == "calc__add").expect("calc__add");
    assert_eq!(add.description.as_deref(), Some("Adds two numbers."));
    assert!(add.output_schema.as_ref().is_some_and(|s| s["properties"]["sum"].is_object()), "{add:?}");

    // A call to each server.
    let sum = within("calc__add", client.call_tool("calc__add", json!({ "a": 2, "b": 3 }))).await.expect("a sum");
    assert_eq!(sum.structured_content, Some(schema(json!({ "sum": 5.0 }))));
    let failed = within("calc__divide", client.call_tool("calc__divide", json!({ "a": 1, "b": 0 }))).await;
    assert_eq!(failed.expect("a tool error").is_error, Some(true));
    assert_eq!(call(&client, "conf__test_simple_text", json!({})).await, "This is a simple text response for testing.");
    // A server's request for input reaches the client whose call waits on that server.
    assert_eq!(call(&client, "remote__ask", json!({})).await, "Hello, Ada!");

    // Progress is passed on, from the stdio and the HTTP server alike.
    for (tool, arguments, expected) in [
        ("remote__steps", json!({}), vec![(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))]),
        ("calc__count", json!({ "n": 2 }), vec![(1.0, Some(2.0)), (2.0, Some(2.0))]),
    ] {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let progress = seen.clone();
        let options = RequestOptions::new()
            .with_progress(move |p| progress.lock().expect("the progress").push((p.progress, p.total)));
        let params = json!({ "name": tool, "arguments": arguments });
        within(tool, client.request(methods::TOOLS_CALL, Some(params), options)).await.expect("the call");
        assert_eq!(*seen.lock().expect("the progress"), expected, "{tool}");
    }

    // Resources keep their URIs; templates are read through the server that offers them.
    let read = within("reading", client.read_resource("calc://constants/pi")).await.expect("pi");
    assert_eq!(serde_json::to_value(&read.contents).expect("contents")[0]["text"], "3.141592653589793");
    let read = within("reading", client.read_resource("remote://motd")).await.expect("the motd");
    assert_eq!(serde_json::to_value(&read.contents).expect("contents")[0]["text"], "Welcome.");
    let read = within("reading", client.read_resource("test://static-text")).await.expect("static text");
    assert_eq!(serde_json::to_value(&read.contents).expect("contents")[0]["uri"], "test://static-text");

    // Prompts are namespaced like tools; completions go to the prompt's server by its own name.
    let prompt = within("a prompt", client.get_prompt("calc__explain", [("expression", "2 + 3")])).await.expect("it");
    let message = serde_json::to_value(&prompt.messages).expect("messages");
    assert_eq!(message[0]["content"]["text"], "Explain step by step how to compute 2 + 3.");
    let prompt = within("a prompt", client.get_prompt("remote__greeting", [])).await.expect("the greeting");
    assert_eq!(serde_json::to_value(&prompt.messages).expect("messages")[0]["content"]["text"], "Hi!");
    let reference = CompletionReference::Prompt(PromptReference::new("calc__explain"));
    let completed = within("completing", client.complete(reference, "expression", "p")).await.expect("completions");
    assert_eq!(completed.completion.values, ["pi"]);

    // A tool added to the HTTP server reaches the gateway's client as a list change.
    remote
        .add_tool(Tool::new("late", "Came late.", schema(json!({ "type": "object" }))), |_args, _ctx| async move {
            Ok(text("here"))
        })
        .expect("the late tool");
    list_change(&mut changed, methods::NOTIFICATIONS_TOOLS_LIST_CHANGED).await;
    for _ in 0..50 {
        if tool_names(&client).await.contains(&"remote__late".to_owned()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(call(&client, "remote__late", json!({})).await, "here");
    // And one removed is gone.
    assert!(remote.remove_tool("late"));
    list_change(&mut changed, methods::NOTIFICATIONS_TOOLS_LIST_CHANGED).await;
    for _ in 0..50 {
        if !tool_names(&client).await.contains(&"remote__late".to_owned()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(!tool_names(&client).await.contains(&"remote__late".to_owned()));

    within("closing", client.close()).await;
    within("stopping the remote server", bound.shutdown()).await;
}

#[tokio::test]
async fn cancellation_passes_on_and_a_question_with_two_calls_waiting_is_refused() {
    let waiting = Arc::new(Waiting::default());
    let (_remote, bound) = serve_remote(waiting.clone()).await;
    let config = config(json!({ "remote": { "type": "http", "url": bound.url() } }));
    let gateway = Gateway::start(&config, &[]).await;
    let (client, _changed) = connect(&gateway).await;

    let cancel = tokio_util::sync::CancellationToken::new();
    let options = RequestOptions::new().with_cancel(cancel.clone());
    let waited = {
        let client = client.clone();
        let params = json!({ "name": "remote__wait" });
        tokio::spawn(async move { client.request(methods::TOOLS_CALL, Some(params), options).await })
    };
    within("the wait tool starting", waiting.started.notified()).await;
    // Two calls wait on the server: its question cannot be told apart, so it gets an error.
    let asked = within("remote__ask", client.call_tool("remote__ask", json!({}))).await;
    let message = match asked {
        Err(e) => e.to_string(),
        Ok(result) => format!("{result:?}"),
    };
    assert!(message.contains("cannot tell which of 2 client requests"), "{message}");

    cancel.cancel();
    within("the cancellation reaching the server", waiting.cancelled.notified()).await;
    let outcome = within("the cancelled call", waited).await.expect("the call's task");
    assert!(matches!(outcome, Err(mcpweft::Error::Cancelled)), "{outcome:?}");
    // With one call waiting, the question reaches the client again.
    assert_eq!(call(&client, "remote__ask", json!({})).await, "Hello, Ada!");
    within("closing", client.close()).await;
    within("stopping the remote server", bound.shutdown()).await;
}

#[cfg(unix)]
#[tokio::test]
async fn a_server_killed_mid_session_is_started_again() {
    let calculator = calculator_server().await;
    let pid_file = TempFile::new("gateway-pid", "");
    // The shell writes its pid, then becomes the calculator: the test knows whom to kill.
    let script = format!("echo $$ > '{}'; exec '{calculator}'", pid_file.path());
    let config = config(json!({ "calc": { "command": "sh", "args": ["-c", script] } }));
    let gateway = Gateway::start(&config, &[]).await;
    let (client, mut changed) = connect(&gateway).await;
    assert_eq!(call(&client, "calc__count", json!({ "n": 1 })).await, "counted to 1");

    let pid = std::fs::read_to_string(pid_file.path()).expect("the pid").trim().to_owned();
    let killed = std::process::Command::new("kill").args(["-9", &pid]).status().expect("kill runs");
    assert!(killed.success());
    // Its tools leave the gateway's list, then come back when the host has started it again.
    list_change(&mut changed, methods::NOTIFICATIONS_TOOLS_LIST_CHANGED).await;
    let mut answer = None;
    for _ in 0..100 {
        let restarted = std::fs::read_to_string(pid_file.path()).is_ok_and(|p| !p.trim().is_empty() && p.trim() != pid);
        if restarted
            && let Ok(result) = within("calc__add", client.call_tool("calc__add", json!({ "a": 1, "b": 1 }))).await
        {
            answer = Some(result);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let answer = answer.unwrap_or_else(|| panic!("the server did not come back:\n{}", gateway.stderr()));
    assert_eq!(answer.structured_content, Some(schema(json!({ "sum": 2.0 }))));
    within("closing", client.close()).await;
}

#[tokio::test]
async fn no_prefix_with_one_server_lists_its_own_names() {
    let calculator = calculator_server().await;
    let config = config(json!({ "calc": { "command": calculator } }));
    let gateway = Gateway::start(&config, &["--no-prefix", "--path", "/"]).await;
    assert!(gateway.url.ends_with('/'), "{}", gateway.url);
    let (client, _changed) = connect(&gateway).await;
    assert_eq!(tool_names(&client).await, ["add", "divide", "count"]);
    assert_eq!(call(&client, "count", json!({ "n": 1 })).await, "counted to 1");
    // With one server its instructions are the gateway's.
    let instructions = client.server().instructions.clone().unwrap_or_default();
    assert!(instructions.starts_with("A calculator"), "{instructions}");
    within("closing", client.close()).await;
}

#[tokio::test]
async fn no_prefix_with_one_server_relays_it_with_its_allow_and_deny_lists() {
    let calculator = calculator_server().await;
    let config = config(json!({ "calc": { "command": calculator, "deniedTools": ["divide"] } }));
    let gateway = Gateway::start(&config, &["--no-prefix"]).await;
    let (client, _changed) = connect(&gateway).await;
    // The server itself answers: its name, not the gateway's.
    assert_eq!(client.server().server_info.name, "calculator");
    assert_eq!(tool_names(&client).await, ["add", "count"]);
    assert_eq!(call(&client, "count", json!({ "n": 2 })).await, "counted to 2");
    let refused = within("divide", client.call_tool("divide", json!({ "a": 1, "b": 2 }))).await;
    match refused {
        Err(mcpweft::Error::Rpc(error)) => {
            assert_eq!(error.code, mcpweft::jsonrpc::INVALID_PARAMS);
            assert!(error.message.contains("Unknown tool"), "{}", error.message);
        }
        other => panic!("a denied tool was called: {other:?}"),
    }
    within("closing", client.close()).await;

    let allowed = TempFile::new(
        "gateway-allowed",
        &json!({ "mcpServers": { "calc": { "command": calculator, "allowedTools": ["add"] } } }).to_string(),
    );
    let gateway = Gateway::start(&allowed, &["--no-prefix"]).await;
    let (client, _changed) = connect(&gateway).await;
    assert_eq!(tool_names(&client).await, ["add"]);
    assert!(within("count", client.call_tool("count", json!({ "n": 1 }))).await.is_err());
    within("closing", client.close()).await;
}

#[tokio::test]
async fn no_prefix_relays_one_server_at_a_url_with_its_requests_for_input() {
    let (_remote, bound) = serve_remote(Arc::default()).await;
    let config = config(json!({ "remote": { "type": "http", "url": bound.url(), "deniedTools": ["wait"] } }));
    let gateway = Gateway::start(&config, &["--no-prefix"]).await;
    let (client, _changed) = connect(&gateway).await;
    assert_eq!(client.server().server_info.name, "remote");
    assert_eq!(tool_names(&client).await, ["steps", "ask"]);
    // The server's elicitation reaches this client through the relay, and its answer goes back.
    assert_eq!(call(&client, "ask", json!({})).await, "Hello, Ada!");
    within("closing", client.close()).await;
}

/// Signs a token of `issuer` for `audience` with `scope`, with the test key `k1` of the core's
/// authorization tests, and returns it with the JWKS that holds that key.
pub(crate) fn signed(issuer: &str, audience: &str, scope: &str) -> (String, Value) {
    use jsonwebtoken::{Algorithm, EncodingKey, Header, jwk::Jwk};
    mcpweft::install_crypto_provider();
    let key = EncodingKey::from_ec_pem(include_bytes!("../../../core/tests/data/auth_ec_key.pem")).expect("a key");
    let mut jwk = Jwk::from_encoding_key(&key, Algorithm::ES256).expect("a public JWK");
    jwk.common.key_id = Some("k1".to_owned());
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("a clock").as_secs();
    let claims = json!({ "iss": issuer, "sub": "ada", "aud": audience, "scope": scope, "iat": now, "exp": now + 3600 });
    let mut header = Header::new(Algorithm::ES256);
    header.kid = Some("k1".to_owned());
    let token = jsonwebtoken::encode(&header, &claims, &key).expect("a signed token");
    (token, json!({ "keys": [jwk] }))
}

#[tokio::test]
async fn oauth_protects_the_gateway() {
    let calculator = calculator_server().await;
    let port =
        std::net::TcpListener::bind("127.0.0.1:0").expect("a free port").local_addr().expect("an address").port();
    let listen = format!("127.0.0.1:{port}");
    let resource = format!("http://{listen}/mcp");
    let issuer = "http://127.0.0.1:1/issuer";
    let (token, jwks) = signed(issuer, &resource, "mcp:read");
    let (unscoped, _) = signed(issuer, &resource, "other");
    let jwks = TempFile::new("gateway-jwks", &jwks.to_string());
    let config = config(json!({ "calc": { "command": calculator } }));
    let auth = ["--auth-resource", &resource, "--auth-issuer", issuer, "--auth-jwks-file", jwks.path()];
    let mut extra = vec!["--listen", listen.as_str(), "--auth-scope", "mcp:read"];
    extra.extend(auth);
    let gateway = Gateway::start(&config, &extra).await;

    let (refused, _) = try_connect(&gateway, HttpClientOptions::new()).await;
    assert!(refused.is_err(), "a client without a token was let in");
    let (refused, _) =
        try_connect(&gateway, HttpClientOptions::new().with_bearer_token(&unscoped).expect("a token")).await;
    assert!(refused.is_err(), "a token without the scope was let in");
    let (client, _) = try_connect(&gateway, HttpClientOptions::new().with_bearer_token(&token).expect("a token")).await;
    let client = client.unwrap_or_else(|e| panic!("the token was refused: {e}\n{}", gateway.stderr()));
    assert_eq!(call(&client, "calc__count", json!({ "n": 1 })).await, "counted to 1");
    within("closing", client.close()).await;
}

#[tokio::test]
async fn a_configuration_error_exits_with_2() {
    let missing = std::env::temp_dir().join("mcpweft-gateway-no-such-config.json");
    let missing = missing.to_str().expect("a UTF-8 path");
    let not_json = TempFile::new("gateway-bad", "{ not json");
    let no_servers = TempFile::new("gateway-empty", r#"{ "other": {} }"#);
    let wrong_type = TempFile::new("gateway-wrong", r#"{ "mcpServers": { "calc": { "command": 5 } } }"#);
    let valid = TempFile::new("gateway-valid", r#"{ "mcpServers": { "calc": { "command": "true" } } }"#);
    let cases = [
        (["--config", missing, "--listen", "127.0.0.1:0"], "cannot read the configuration"),
        (["--config", not_json.path(), "--listen", "127.0.0.1:0"], "is not valid JSON"),
        (["--config", no_servers.path(), "--listen", "127.0.0.1:0"], "has no mcpServers object"),
        (["--config", wrong_type.path(), "--listen", "127.0.0.1:0"], "calc"),
        (["--config", valid.path(), "--listen", "nowhere"], "--listen"),
        (["--config", valid.path(), "--auth-resource", "http://127.0.0.1:1/mcp"], "--auth-issuer"),
    ];
    for (args, expected) in cases {
        let mut command = vec!["gateway"];
        command.extend(args);
        let out = run(&command, None).await;
        out.expect_code(2);
        assert!(out.stderr.contains(expected), "{command:?}: {}", out.stderr);
    }
}
