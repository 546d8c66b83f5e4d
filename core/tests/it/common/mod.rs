//! Shared helpers of the end-to-end tests: bounded waits, connected client/server pairs,
//! a client handler that records what it hears, wire taps, and raw line-level peers.

#![allow(dead_code, unreachable_pub)]

use std::{
    future::Future,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use async_trait::async_trait;
use mcpweft::{
    Client, ClientHandler, ClientOptions, ErrorData, RequestContext, Server,
    jsonrpc::{JsonRpcMessage, RequestId},
    model::*,
    server::SessionHandle,
    session::IncomingRequest,
    transport::{Inbound, StreamTransport, Transport, TransportReader, TransportWriter, memory_pair},
};
use serde_json::{Value, json};
use tokio::{
    io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf},
    sync::mpsc,
    task::JoinHandle,
};

/// How long any single wait may take before the test fails instead of hanging.
pub const WAIT: Duration = Duration::from_secs(10);

/// Awaits `f`, failing the test if it takes longer than [`WAIT`].
pub async fn within<F: Future>(f: F) -> F::Output {
    within_for(WAIT, f).await
}

/// Awaits `f`, failing the test if it takes longer than `limit`.
pub async fn within_for<F: Future>(limit: Duration, f: F) -> F::Output {
    match tokio::time::timeout(limit, f).await {
        Ok(v) => v,
        Err(_) => panic!("timed out after {limit:?}"),
    }
}

/// Polls `cond` until it holds, failing the test after [`WAIT`].
pub async fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + WAIT;
    while !cond() {
        assert!(tokio::time::Instant::now() < deadline, "timed out waiting until {what}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Turns a `json!` object literal into a JSON object.
pub fn obj(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        other => panic!("expected a JSON object, got {other}"),
    }
}

/// The text of the first content block of a tool result.
pub fn first_text(result: &CallToolResult) -> &str {
    result.content.first().and_then(ContentBlock::as_text).expect("a text block")
}

/// The JSON-RPC error code of a failed call, failing the test for any other outcome.
pub fn rpc_code<T: std::fmt::Debug>(result: Result<T, mcpweft::Error>) -> i64 {
    match result {
        Err(mcpweft::Error::Rpc(e)) => e.code,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

/// Sets a drop flag when dropped, to prove that a handler's future was really dropped.
pub struct DropGuard(pub Arc<AtomicBool>);

impl Drop for DropGuard {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Something a [`Recorder`] heard from the server.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// `notifications/message`.
    Log(LoggingMessageNotificationParams),
    /// `notifications/resources/updated`, by URI.
    ResourceUpdated(String),
    /// One of the `list_changed` notifications, by method.
    ListChanged(String),
    /// Any other notification, by method.
    Other(String),
}

/// A client handler that records every notification and answers sampling, elicitation
/// and roots requests with fixed, recognisable values.
#[derive(Clone)]
pub struct Recorder {
    tx: mpsc::UnboundedSender<Event>,
}

/// The receiving end of a [`Recorder`].
pub struct Events {
    rx: mpsc::UnboundedReceiver<Event>,
}

impl Recorder {
    /// Creates a recorder and the stream of what it hears.
    pub fn new() -> (Recorder, Events) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Recorder { tx }, Events { rx })
    }
}

impl Events {
    /// Returns the next event, failing the test after [`WAIT`].
    pub async fn next(&mut self) -> Event {
        within(self.rx.recv()).await.expect("the recorder is alive")
    }

    /// Returns every event heard so far, without waiting.
    pub fn drain(&mut self) -> Vec<Event> {
        let mut out = Vec::new();
        while let Ok(e) = self.rx.try_recv() {
            out.push(e);
        }
        out
    }
}

/// The text of the first block of a sampling message's content.
pub fn sampling_text(content: &SamplingContent) -> String {
    match content.blocks().first() {
        Some(SamplingMessageContentBlock::Text(t)) => t.text.clone(),
        other => panic!("expected a text block, got {other:?}"),
    }
}

#[async_trait]
impl ClientHandler for Recorder {
    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: IncomingRequest,
    ) -> Result<CreateMessageResult, ErrorData> {
        let prompt = params.messages.first().map(|m| sampling_text(&m.content)).unwrap_or_default();
        Ok(CreateMessageResult::new(
            Role::Assistant,
            SamplingMessageContentBlock::text(format!("echo: {prompt}")).into(),
            "test-model",
        )
        .with_stop_reason(StopReason::EndTurn))
    }

    async fn elicit(&self, params: ElicitRequestParams, _context: IncomingRequest) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::Form(form) = params else {
            return Ok(ElicitResult::decline());
        };
        let mut content = IndexMap::new();
        for name in form.requested_schema.get("properties").and_then(Value::as_object).into_iter().flatten() {
            content.insert(name.0.clone(), ElicitContentValue::String(format!("value of {}", name.0)));
        }
        Ok(ElicitResult::accept(content))
    }

    async fn list_roots(&self, _context: IncomingRequest) -> Result<ListRootsResult, ErrorData> {
        Ok(ListRootsResult::new(vec![Root::new("file:///work/project").with_name("project")]))
    }

    async fn on_log_message(&self, params: LoggingMessageNotificationParams) {
        let _ = self.tx.send(Event::Log(params));
    }

    async fn on_resource_updated(&self, params: ResourceUpdatedNotificationParams) {
        let _ = self.tx.send(Event::ResourceUpdated(params.uri));
    }

    async fn on_list_changed(&self, method: &str) {
        let _ = self.tx.send(Event::ListChanged(method.to_owned()));
    }

    async fn on_notification(&self, notification: mcpweft::jsonrpc::Notification) {
        let _ = self.tx.send(Event::Other(notification.method));
    }
}

/// Client options with every client capability declared.
pub fn full_options() -> ClientOptions {
    ClientOptions::new("test-client", "0.0.1")
        .with_capabilities(ClientCapabilities::default().with_roots(true).with_sampling().with_elicitation(false))
}

/// Connects a client to `server` over an in-memory pair and waits until the server has
/// processed `notifications/initialized` (a ping round trip follows it in order).
pub async fn connect_with(
    server: &Server,
    options: ClientOptions,
    handler: impl ClientHandler,
) -> (Client, SessionHandle, JoinHandle<()>) {
    let (client_side, server_side) = memory_pair();
    let (session, task) = server.serve_with_task(server_side);
    let client = within(Client::connect_with_handler(client_side, options, handler)).await.expect("connects");
    within(client.ping()).await.expect("ping after initialization");
    (client, session, task)
}

/// Connects a recording client with every capability declared.
pub async fn connect(server: &Server) -> (Client, Events, SessionHandle) {
    let (recorder, events) = Recorder::new();
    let (client, session, _) = connect_with(server, full_options(), recorder).await;
    (client, events, session)
}

/// A log of every message one side received.
pub type WireLog = Arc<Mutex<Vec<JsonRpcMessage>>>;

/// A transport that records every well-formed message its reader receives.
pub struct Tap<T> {
    inner: T,
    log: WireLog,
}

impl<T: Transport> Tap<T> {
    /// Wraps `inner`, recording into a new log.
    pub fn new(inner: T) -> (Self, WireLog) {
        let log = WireLog::default();
        (Tap { inner, log: log.clone() }, log)
    }
}

impl<T: Transport> Transport for Tap<T> {
    fn split(self) -> (Box<dyn TransportWriter>, Box<dyn TransportReader>) {
        let (writer, reader) = self.inner.split();
        (writer, Box::new(TapReader { inner: reader, log: self.log }))
    }
}

struct TapReader {
    inner: Box<dyn TransportReader>,
    log: WireLog,
}

#[async_trait]
impl TransportReader for TapReader {
    async fn recv(&mut self) -> Result<Option<Inbound>, mcpweft::Error> {
        let item = self.inner.recv().await?;
        if let Some(Inbound::Message(m)) = &item {
            self.log.lock().unwrap().push(m.clone());
        }
        Ok(item)
    }
}

/// What each side of a tapped connection received.
pub struct Wire {
    /// Every message the client received from the server.
    pub to_client: WireLog,
    /// Every message the server received from the client.
    pub to_server: WireLog,
}

impl Wire {
    /// The ids of the requests the client sent with `method`.
    pub fn client_request_ids(&self, method: &str) -> Vec<RequestId> {
        self.to_server
            .lock()
            .unwrap()
            .iter()
            .filter_map(|m| match m {
                JsonRpcMessage::Request(r) if r.method == method => Some(r.id.clone()),
                _ => None,
            })
            .collect()
    }

    /// Whether the server sent any response (success or error) to request `id`.
    pub fn server_answered(&self, id: &RequestId) -> bool {
        self.to_client.lock().unwrap().iter().any(|m| match m {
            JsonRpcMessage::Response(r) => &r.id == id,
            JsonRpcMessage::Error(e) => e.id.as_ref() == Some(id),
            _ => false,
        })
    }

    /// The params of every notification with `method` the client sent.
    pub fn client_notifications(&self, method: &str) -> Vec<Value> {
        self.to_server
            .lock()
            .unwrap()
            .iter()
            .filter_map(|m| match m {
                JsonRpcMessage::Notification(n) if n.method == method => Some(n.params.clone().unwrap_or(json!({}))),
                _ => None,
            })
            .collect()
    }
}

/// Connects like [`connect_with`], recording the messages each side receives.
pub async fn connect_tapped(
    server: &Server,
    options: ClientOptions,
    handler: impl ClientHandler,
) -> (Client, SessionHandle, Wire) {
    let (client_side, server_side) = memory_pair();
    let (client_side, to_client) = Tap::new(client_side);
    let (server_side, to_server) = Tap::new(server_side);
    let session = server.serve(server_side);
    let client = within(Client::connect_with_handler(client_side, options, handler)).await.expect("connects");
    within(client.ping()).await.expect("ping after initialization");
    (client, session, Wire { to_client, to_server })
}

/// One end of a byte pipe spoken line by line: the test writes raw lines and reads raw lines.
pub struct RawPeer {
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    writer: WriteHalf<DuplexStream>,
}

/// Creates a byte pipe: the raw end for the test and the other end's two halves.
pub fn raw_pipe() -> (RawPeer, ReadHalf<DuplexStream>, WriteHalf<DuplexStream>) {
    let (ours, theirs) = tokio::io::duplex(1 << 20);
    let (r, w) = tokio::io::split(ours);
    let (their_r, their_w) = tokio::io::split(theirs);
    (RawPeer { lines: BufReader::new(r).lines(), writer: w }, their_r, their_w)
}

/// Serves `server` over a byte pipe whose other end the test speaks raw.
pub fn raw_server(server: &Server, max_message_size: Option<usize>) -> (RawPeer, SessionHandle, JoinHandle<()>) {
    let (peer, r, w) = raw_pipe();
    let mut transport = StreamTransport::new(r, w);
    if let Some(max) = max_message_size {
        transport = transport.with_max_message_size(max);
    }
    let (session, task) = server.serve_with_task(transport);
    (peer, session, task)
}

impl RawPeer {
    /// Writes raw bytes as they are.
    pub async fn send_bytes(&mut self, bytes: &[u8]) {
        within(self.writer.write_all(bytes)).await.expect("write");
        within(self.writer.flush()).await.expect("flush");
    }

    /// Writes one line (a newline is appended).
    pub async fn send_line(&mut self, line: &str) {
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        self.send_bytes(&bytes).await;
    }

    /// Writes one JSON value as a line.
    pub async fn send(&mut self, value: Value) {
        self.send_line(&value.to_string()).await;
    }

    /// Reads the next raw line; `None` at the end of the stream.
    pub async fn recv_line(&mut self) -> Option<String> {
        within(self.lines.next_line()).await.expect("read")
    }

    /// Reads the next line and parses it as JSON, failing on anything else.
    pub async fn recv(&mut self) -> Value {
        let line = self.recv_line().await.expect("a line before the end of the stream");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Reads lines until a response (one with `result` or `error`) arrives, skipping
    /// notifications, and returns it.
    pub async fn recv_response(&mut self) -> Value {
        loop {
            let v = self.recv().await;
            if v.get("result").is_some() || v.get("error").is_some() {
                return v;
            }
            assert!(v.get("method").is_some(), "neither a response nor a message with a method: {v}");
        }
    }

    /// Sends a request and returns its response, checking that the id is echoed exactly.
    pub async fn request(&mut self, id: Value, method: &str, params: Value) -> Value {
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })).await;
        let response = self.recv_response().await;
        assert_eq!(response["id"], id, "the response echoes the request id: {response}");
        assert_eq!(response["jsonrpc"], "2.0");
        response
    }

    /// Runs the initialization handshake as a client and returns the `initialize` result.
    pub async fn initialize(&mut self) -> Value {
        let response = self
            .request(
                json!("init"),
                "initialize",
                json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": { "name": "raw", "version": "1" }
                }),
            )
            .await;
        self.send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).await;
        response["result"].clone()
    }

    /// Closes the write side, so the other end reads the end of the stream.
    pub async fn shutdown(&mut self) {
        let _ = within(self.writer.shutdown()).await;
    }
}

/// Asserts that `response` is an error with `code`, returning its message.
pub fn assert_error(response: &Value, code: i64) -> String {
    assert!(response.get("result").is_none(), "expected an error, got {response}");
    assert_eq!(response["error"]["code"], code, "wrong error code in {response}");
    response["error"]["message"].as_str().expect("an error message").to_owned()
}

/// A server with one `echo` tool, for tests that need some server.
pub fn echo_server() -> Server {
    Server::builder(Implementation::new("echo", "1.0.0"))
        .tool(
            Tool::new(
                "echo",
                "Echoes its text.",
                obj(json!({ "type": "object", "properties": { "text": { "type": "string" } }, "required": ["text"] })),
            ),
            |args: JsonObject, _ctx| async move {
                Ok(CallToolResult::text(args["text"].as_str().unwrap_or_default().to_owned()))
            },
        )
        .build()
        .expect("a valid server")
}

/// A server whose tools panic, at once or after waiting, beside one that answers.
pub fn panicking_server() -> Server {
    Server::builder(Implementation::new("panics", "1"))
        .tool(Tool::without_arguments("boom", "Panics at once."), |_args: JsonObject, _ctx: RequestContext| async {
            if true {
                panic!("boom");
            }
            Ok(CallToolResult::text("unreachable"))
        })
        .tool(
            Tool::without_arguments("later", "Panics after waiting."),
            |_args: JsonObject, _ctx: RequestContext| async {
                tokio::time::sleep(Duration::from_millis(5)).await;
                if true {
                    panic!("later");
                }
                Ok(CallToolResult::text("unreachable"))
            },
        )
        .tool(Tool::without_arguments("fine", "Answers."), |_args: JsonObject, _ctx: RequestContext| async {
            Ok(CallToolResult::text("fine"))
        })
        .build()
        .unwrap()
}

/// Finds the built `calculator_server` example next to this test binary, building it (with the
/// features this test was built with) when it is missing.
pub async fn calculator_server() -> std::path::PathBuf {
    static PATH: tokio::sync::OnceCell<std::path::PathBuf> = tokio::sync::OnceCell::const_new();
    PATH.get_or_init(|| async {
        let name = format!("calculator_server{}", std::env::consts::EXE_SUFFIX);
        let find = || {
            let exe = std::env::current_exe().expect("the test binary's path");
            exe.ancestors().map(|dir| dir.join("examples").join(&name)).find(|p| p.is_file())
        };
        if let Some(path) = find() {
            return path;
        }
        let features: Vec<&str> = [("http", cfg!(feature = "http")), ("auth", cfg!(feature = "auth"))]
            .into_iter()
            .chain([("redis", cfg!(feature = "redis"))])
            .filter_map(|(name, on)| on.then_some(name))
            .collect();
        let status = within_for(
            std::time::Duration::from_secs(600),
            tokio::process::Command::new(env!("CARGO"))
                .args(["build", "-p", "mcpweft", "--example", "calculator_server", "--no-default-features"])
                .args(["--features", &features.join(",")])
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .status(),
        )
        .await
        .expect("cargo runs");
        assert!(status.success(), "building the example failed");
        find().expect("the example exists after building it")
    })
    .await
    .clone()
}
