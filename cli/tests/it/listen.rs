//! `mcpweft proxy --listen 127.0.0.1:0 -- COMMAND` between the core's Streamable HTTP client
//! and stdio servers: the calculator example and the conformance fixture. Lists, calls,
//! progress, the server's own requests, one process per session, DELETE and a process that
//! exits, and requests of no session (revision 2026-07-28) on the one shared process.

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use crate::common::{calculator_server, listening, mcpweft, within};
use mcpweft::{
    Client, ClientHandler, ClientOptions, ErrorData, RequestOptions,
    model::{
        ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitContentValue, ElicitRequestParams,
        ElicitResult, STATELESS_PROTOCOL_VERSION, methods,
    },
    session::IncomingRequest,
    transport::http::StreamableHttpClientTransport,
};
use serde_json::{Value, json};

/// A running `mcpweft proxy --listen`, killed when dropped.
struct Listening {
    child: tokio::process::Child,
    url: String,
}

impl Listening {
    /// Starts the proxy in front of `command` and reads the URL it prints on stderr.
    async fn start(extra: &[&str], command: &[&str]) -> Self {
        let mut front = tokio::process::Command::new(mcpweft());
        front.args(["proxy", "--listen", "127.0.0.1:0"]).args(extra).arg("--").args(command);
        let (child, url) = listening(&mut front).await;
        Listening { child, url }
    }

    /// The ids of the server processes the proxy runs now.
    fn servers(&self) -> Vec<u32> {
        let proxy = self.child.id().expect("the proxy runs");
        let mut found = Vec::new();
        for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
            // The fields after the command's name, which ends with the last ')': state, parent.
            let parent = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(1));
            let alive = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next()) != Some("Z");
            if parent == Some(proxy.to_string().as_str()) && alive {
                found.push(pid);
            }
        }
        found.sort_unstable();
        found
    }

    /// Waits (bounded) until the proxy runs `count` server processes, and returns them.
    async fn wait_for_servers(&self, count: usize) -> Vec<u32> {
        for _ in 0..500 {
            let servers = self.servers();
            if servers.len() == count {
                return servers;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("the proxy runs {:?}, not {count} server processes", self.servers());
    }
}

/// The conformance fixture server, built first when it is missing.
async fn fixture_server() -> String {
    static PATH: tokio::sync::OnceCell<std::path::PathBuf> = tokio::sync::OnceCell::const_new();
    PATH.get_or_init(|| async {
        let path = mcpweft().with_file_name(format!("conformance-server{}", std::env::consts::EXE_SUFFIX));
        if !path.is_file() {
            // With the feature the conformance scripts build it with, so that both share a build.
            let build = tokio::process::Command::new(env!("CARGO"))
                .args([
                    "build",
                    "-q",
                    "-p",
                    "mcpweft-conformance",
                    "--bin",
                    "conformance-server",
                    "--features",
                    "redis",
                ])
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .status();
            let status = tokio::time::timeout(Duration::from_secs(900), build)
                .await
                .expect("building the fixture finishes")
                .expect("cargo runs");
            assert!(status.success(), "building the conformance fixture failed");
        }
        path
    })
    .await
    .to_string_lossy()
    .into_owned()
}

/// The client's side: answers elicitation with a user and sampling with a fixed text.
struct Answers;

#[async_trait::async_trait]
impl ClientHandler for Answers {
    async fn elicit(&self, _params: ElicitRequestParams, _context: IncomingRequest) -> Result<ElicitResult, ErrorData> {
        Ok(ElicitResult::accept([
            ("username".to_owned(), ElicitContentValue::String("ada".to_owned())),
            ("email".to_owned(), ElicitContentValue::String("ada@example.com".to_owned())),
        ]))
    }

    async fn create_message(
        &self,
        _params: CreateMessageRequestParams,
        _context: IncomingRequest,
    ) -> Result<CreateMessageResult, ErrorData> {
        serde_json::from_value(json!({
            "role": "assistant", "content": { "type": "text", "text": "forty-two" }, "model": "test"
        }))
        .map_err(|e| ErrorData::internal_error(e.to_string()))
    }
}

/// Connects the core's client to `url` over Streamable HTTP, in revision `version` (the latest
/// session-based one when `None`).
async fn connect(url: &str, version: Option<&str>) -> Client {
    let transport = StreamableHttpClientTransport::new(url).expect("a transport");
    let capabilities: ClientCapabilities =
        serde_json::from_value(json!({ "elicitation": { "form": {} }, "sampling": {} })).expect("capabilities");
    let mut options = ClientOptions::new("listen-test", "1.0.0").with_capabilities(capabilities);
    if let Some(version) = version {
        options = options.with_protocol_version(version);
    }
    within("connecting through the proxy", Client::connect_with_handler(transport, options, Answers))
        .await
        .expect("connected through the proxy")
}

/// Calls tool `name` and returns its result as JSON.
async fn call(client: &Client, name: &str, arguments: Value) -> Value {
    let params = json!({ "name": name, "arguments": arguments });
    within(name, client.request(methods::TOOLS_CALL, Some(params), RequestOptions::new()))
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[tokio::test]
async fn the_calculator_is_served_over_http_with_progress() {
    let proxy = Listening::start(&[], &[&calculator_server().await]).await;
    assert!(proxy.url.starts_with("http://127.0.0.1:") && proxy.url.ends_with("/mcp"), "{}", proxy.url);
    let client = connect(&proxy.url, None).await;
    assert_eq!(client.server().server_info.name, "calculator");
    assert_eq!(client.protocol_version(), "2025-11-25");

    let tools = within("listing", client.list_all_tools()).await.expect("tools");
    let names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
    assert!(names.contains(&"add") && names.contains(&"count"), "{names:?}");
    assert_eq!(call(&client, "add", json!({ "a": 2, "b": 3 })).await["structuredContent"]["sum"], 5.0);

    let seen = Arc::new(Mutex::new(Vec::new()));
    let progress = seen.clone();
    let options = RequestOptions::new()
        .with_progress(move |p| progress.lock().expect("the progress list").push((p.progress, p.total)));
    let params = json!({ "name": "count", "arguments": { "n": 3 } });
    within("count", client.request(methods::TOOLS_CALL, Some(params), options)).await.expect("count");
    assert_eq!(*seen.lock().expect("the progress list"), [(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))]);
    within("closing", client.close()).await;
}

#[tokio::test]
async fn elicitation_sampling_and_progress_of_the_fixture_pass_through() {
    let proxy = Listening::start(&[], &[&fixture_server().await, "--stdio"]).await;
    let client = connect(&proxy.url, None).await;
    let elicited = call(&client, "test_elicitation", json!({ "message": "Who are you?" })).await;
    let text = elicited["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("ada@example.com"), "{elicited}");
    let sampled = call(&client, "test_sampling", json!({ "prompt": "The answer?" })).await;
    assert_eq!(sampled["content"][0]["text"], "LLM response: forty-two", "{sampled}");

    let seen = Arc::new(Mutex::new(Vec::new()));
    let progress = seen.clone();
    let options =
        RequestOptions::new().with_progress(move |p| progress.lock().expect("the progress list").push(p.progress));
    let params = json!({ "name": "test_tool_with_progress", "arguments": {} });
    within("progress", client.request(methods::TOOLS_CALL, Some(params), options)).await.expect("progress");
    assert_eq!(*seen.lock().expect("the progress list"), [0.0, 50.0, 100.0]);
    within("closing", client.close()).await;
}

#[tokio::test]
async fn each_session_has_its_own_process_until_delete() {
    let proxy = Listening::start(&[], &[&calculator_server().await]).await;
    let first = connect(&proxy.url, None).await;
    let second = connect(&proxy.url, None).await;
    let both = proxy.wait_for_servers(2).await;
    assert_ne!(both[0], both[1]);
    assert_eq!(call(&first, "add", json!({ "a": 1, "b": 1 })).await["structuredContent"]["sum"], 2.0);
    assert_eq!(call(&second, "add", json!({ "a": 2, "b": 2 })).await["structuredContent"]["sum"], 4.0);

    // Closing a client sends DELETE: its process ends, the other's goes on.
    within("closing the first client", first.close()).await;
    let left = proxy.wait_for_servers(1).await;
    assert!(both.contains(&left[0]));
    assert_eq!(call(&second, "add", json!({ "a": 3, "b": 3 })).await["structuredContent"]["sum"], 6.0);
    within("closing the second client", second.close()).await;
    proxy.wait_for_servers(0).await;
}

#[tokio::test]
async fn a_process_that_exits_ends_its_session_with_404() {
    let proxy = Listening::start(&[], &[&calculator_server().await]).await;
    mcpweft::install_crypto_provider();
    let http = reqwest::Client::new();
    let post = |session: Option<&str>, body: Value| {
        let mut request = http
            .post(&proxy.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        request.body(body.to_string()).send()
    };
    let initialize = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "raw", "version": "1" } } });
    let answer = within("initialize", post(None, initialize.clone())).await.expect("an answer");
    assert_eq!(answer.status(), 200);
    let session = answer.headers()["mcp-session-id"].to_str().expect("a session id").to_owned();
    let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    assert_eq!(within("initialized", post(Some(&session), initialized)).await.expect("an answer").status(), 202);
    let list = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list" });
    assert_eq!(within("tools/list", post(Some(&session), list.clone())).await.expect("an answer").status(), 200);

    let server = proxy.wait_for_servers(1).await[0];
    let killed = tokio::process::Command::new("kill").args(["-KILL", &server.to_string()]).status().await;
    assert!(killed.expect("kill runs").success());
    let mut status = 0;
    for _ in 0..100 {
        status = within("tools/list", post(Some(&session), list.clone())).await.expect("an answer").status().as_u16();
        if status == 404 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(status, 404, "the session outlived its process");
    // A new initialize gets a new process.
    let again = within("initialize again", post(None, initialize)).await.expect("an answer");
    assert_eq!(again.status(), 200);
    assert_ne!(proxy.wait_for_servers(1).await[0], server);
}

#[tokio::test]
async fn requests_of_no_session_share_one_process() {
    let proxy = Listening::start(&[], &[&fixture_server().await, "--stdio"]).await;
    // Two clients of revision 2026-07-28 use the same request ids; the proxy keeps them apart.
    let first = connect(&proxy.url, Some(STATELESS_PROTOCOL_VERSION)).await;
    let second = connect(&proxy.url, Some(STATELESS_PROTOCOL_VERSION)).await;
    assert_eq!(first.protocol_version(), STATELESS_PROTOCOL_VERSION);
    let (a, b) =
        tokio::join!(call(&first, "test_simple_text", json!({})), call(&second, "test_simple_text", json!({})));
    assert_eq!(a, b);
    // A request for input answered across rounds: its sealed state comes back to the process
    // that sealed it.
    let asked = call(&first, "test_input_required_result_elicitation", json!({})).await;
    assert_ne!(asked["isError"], true, "{asked}");
    assert_eq!(proxy.wait_for_servers(1).await.len(), 1);
    within("closing", first.close()).await;
    within("closing", second.close()).await;
}

#[tokio::test]
async fn in_stateless_mode_clients_share_one_initialized_process_that_cannot_ask_them() {
    let proxy = Listening::start(&["--stateless"], &[&fixture_server().await, "--stdio"]).await;
    // The shared process is initialized once: the second client's initialize is answered by
    // the proxy with the first answer.
    let first = connect(&proxy.url, None).await;
    let second = connect(&proxy.url, None).await;
    assert_eq!(first.protocol_version(), second.protocol_version());
    let (a, b) =
        tokio::join!(call(&first, "test_simple_text", json!({})), call(&second, "test_simple_text", json!({})));
    assert_eq!(a, b);
    // A stateless request cannot be asked anything (its answer would reach nobody): the
    // process's request for input is refused at once instead of waiting forever.
    let asked = call(&first, "test_elicitation", json!({ "message": "Who are you?" })).await;
    assert_eq!(asked["isError"], true, "{asked}");
    let text = asked["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("elicitation/create cannot reach a client"), "{asked}");
    assert_eq!(proxy.wait_for_servers(1).await.len(), 1);
    within("closing", first.close()).await;
    within("closing", second.close()).await;
}
