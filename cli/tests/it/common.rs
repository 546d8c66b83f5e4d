//! What the command line's tests share: running the binary within a time limit, finding (or
//! building) the core's calculator example and the conformance fixture server, and a server
//! protected by OAuth with a client of the binary's `proxy` in front of it.

use std::{
    net::SocketAddr,
    path::{Path, PathBuf},
    process::{Output, Stdio},
    sync::Arc,
    time::Duration,
};

use mcpweft::{
    Client, ClientOptions, ErrorData, RequestContext, Server,
    auth::{ResourceServerOptions, TokenVerifier},
    http::{BoundHttpServer, HttpServerOptions, StreamableHttpServer},
    model::{CallToolResult, Implementation, JsonObject, Tool},
    transport::ChildProcessTransport,
};
use serde_json::json;
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};

/// The longest a run of the binary may take.
pub(crate) const RUN_LIMIT: Duration = Duration::from_secs(60);

/// How long one step of a test may take.
pub(crate) const STEP: Duration = Duration::from_secs(30);

/// Waits for `future`, failing the test with `what` when it takes longer than [`STEP`].
pub(crate) async fn within<F: Future>(what: &str, future: F) -> F::Output {
    tokio::time::timeout(STEP, future).await.unwrap_or_else(|_| panic!("{what} did not finish within {STEP:?}"))
}

/// Starts `command` (the binary serving over HTTP, its stderr piped) and returns the process
/// and the URL it prints on stderr once it listens; the rest of its stderr is read and dropped,
/// so that no process blocks on it.
pub(crate) async fn listening(command: &mut tokio::process::Command) -> (tokio::process::Child, String) {
    let mut child = command
        .env_remove("MCPWEFT_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("mcpweft starts");
    let mut lines = BufReader::new(child.stderr.take().expect("a stderr pipe")).lines();
    let url = within("printing the URL it listens at", async {
        loop {
            let line = lines.next_line().await.expect("reading stderr").expect("mcpweft printed its URL");
            if let Some(url) = line.strip_prefix("listening on ") {
                return url.to_owned();
            }
        }
    })
    .await;
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, url)
}

/// The binary under test.
pub(crate) fn mcpweft() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_mcpweft"))
}

/// The core's `calculator_server` example, built first when it is missing.
pub(crate) async fn calculator_server() -> String {
    static PATH: tokio::sync::OnceCell<PathBuf> = tokio::sync::OnceCell::const_new();
    let args = ["build", "-q", "-p", "mcpweft", "--example", "calculator_server"];
    PATH.get_or_init(|| built(Path::new("examples"), "calculator_server", &args)).await.to_string_lossy().into_owned()
}

/// The conformance fixture server (`tests/conformance/rust`), built first when it is missing,
/// with the `redis` feature that the workspace's tests and its harness build it with.
pub(crate) async fn conformance_server() -> String {
    static PATH: tokio::sync::OnceCell<PathBuf> = tokio::sync::OnceCell::const_new();
    let args = ["build", "-q", "-p", "mcpweft-conformance", "--bin", "conformance-server", "--features", "redis"];
    PATH.get_or_init(|| built(Path::new(""), "conformance-server", &args)).await.to_string_lossy().into_owned()
}

/// The program `name` in the folder `under` of the binary's target folder (or of one above
/// it), built with `cargo args` first when it is missing.
async fn built(under: &Path, name: &str, args: &[&str]) -> PathBuf {
    let name = format!("{name}{}", std::env::consts::EXE_SUFFIX);
    let find = || mcpweft().ancestors().map(|dir| dir.join(under).join(&name)).find(|p| p.is_file());
    if let Some(path) = find() {
        return path;
    }
    let build = tokio::process::Command::new(env!("CARGO")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).status();
    let status =
        tokio::time::timeout(Duration::from_secs(900), build).await.expect("building finishes").expect("cargo runs");
    assert!(status.success(), "building {name} failed");
    find().unwrap_or_else(|| panic!("{name} exists after building it"))
}

/// What one run of the binary printed, and how it exited.
pub(crate) struct Run {
    /// The exit code.
    pub(crate) code: Option<i32>,
    /// stdout, as text.
    pub(crate) stdout: String,
    /// stderr, as text.
    pub(crate) stderr: String,
}

impl Run {
    /// stdout read as JSON.
    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}\nstderr:\n{}", self.stdout, self.stderr))
    }

    /// Fails unless the run exited with `code`, showing what it printed.
    pub(crate) fn expect_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code,
            Some(code),
            "exit code of a run that printed\n{}\nand on stderr\n{}",
            self.stdout,
            self.stderr
        );
        self
    }
}

/// Runs the binary with `args`, writing `stdin` to it when given, within [`RUN_LIMIT`].
pub(crate) async fn run(args: &[&str], stdin: Option<&str>) -> Run {
    let mut command = tokio::process::Command::new(mcpweft());
    command
        .args(args)
        .env_remove("MCPWEFT_LOG")
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = command.spawn().expect("the binary starts");
    if let Some(text) = stdin {
        let mut pipe = child.stdin.take().expect("a stdin pipe");
        pipe.write_all(text.as_bytes()).await.expect("writing stdin");
    }
    let output: Output = tokio::time::timeout(RUN_LIMIT, child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("mcpweft {args:?} did not end within {RUN_LIMIT:?}"))
        .expect("waiting for the binary");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// A file in the temporary directory that is removed when dropped.
pub(crate) struct TempFile(PathBuf);

impl TempFile {
    /// Writes `text` to a new file whose name starts with `stem`.
    pub(crate) fn new(stem: &str, text: &str) -> Self {
        use std::sync::atomic::{AtomicU32, Ordering};
        static COUNT: AtomicU32 = AtomicU32::new(0);
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("mcpweft-cli-{stem}-{}-{n}.json", std::process::id()));
        std::fs::write(&path, text).expect("writing a temporary file");
        TempFile(path)
    }

    /// The path as text.
    pub(crate) fn path(&self) -> &str {
        self.0.to_str().expect("a UTF-8 temporary path")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A directory in the temporary directory that is removed when dropped.
pub(crate) struct TempDir(PathBuf);

impl TempDir {
    /// Creates an empty directory whose name starts with `stem`.
    pub(crate) fn new(stem: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("mcpweft-cli-{stem}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        TempDir(dir)
    }

    /// The path.
    pub(crate) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A free loopback address, and the resource URL of an MCP endpoint bound there.
pub(crate) fn free_resource() -> (SocketAddr, String) {
    let addr = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port");
    (addr, format!("http://{addr}/mcp"))
}

/// Binds at `addr` a server whose tokens `verifier` checks, published as the resource
/// `resource` of the authorization server `issuer`: every request needs `mcp:read`, the tool
/// `write` `mcp:write` too, and `whoami` answers the token's subject.
pub(crate) async fn protected_server(
    addr: SocketAddr,
    resource: &str,
    issuer: &str,
    verifier: Arc<dyn TokenVerifier>,
) -> BoundHttpServer {
    let auth = ResourceServerOptions::new(resource, verifier)
        .with_authorization_server(issuer)
        .with_required_scopes(["mcp:read"])
        .with_scopes_supported(["mcp:read", "mcp:write"])
        .with_tool_scopes("write", ["mcp:write"]);
    let server = Server::builder(Implementation::new("protected", "1"))
        .tool(Tool::without_arguments("whoami", "Who calls."), |_a: JsonObject, ctx: RequestContext| async move {
            Ok::<_, ErrorData>(CallToolResult::text(ctx.auth().and_then(|a| a.subject.clone()).unwrap_or_default()))
        })
        .tool(Tool::without_arguments("write", "Writes."), |_a: JsonObject, _ctx: RequestContext| async move {
            Ok::<_, ErrorData>(CallToolResult::text("written"))
        })
        .build()
        .expect("a valid server");
    StreamableHttpServer::bind(server, addr, HttpServerOptions::new().with_auth(auth)).await.expect("the server binds")
}

/// Starts `mcpweft proxy` with `args` and the environment variables `env`, and connects a
/// client to it over its stdio.
pub(crate) async fn proxy(args: &[&str], env: &[(&str, &str)]) -> Client {
    let mut command = tokio::process::Command::new(mcpweft());
    command.arg("proxy").args(args).env_remove("MCPWEFT_LOG").envs(env.iter().copied());
    let transport = ChildProcessTransport::spawn(command).expect("the proxy starts");
    let connecting = Client::connect(transport, ClientOptions::new("proxied-client", "1.0.0"));
    tokio::time::timeout(RUN_LIMIT, connecting)
        .await
        .expect("connected within the time limit")
        .expect("connected through the proxy")
}

/// Calls the tool `name` without arguments and returns the text of its result.
pub(crate) async fn call_text(client: &Client, name: &str) -> String {
    let called = tokio::time::timeout(RUN_LIMIT, client.call_tool(name, json!({}))).await;
    let result = called.expect("answered within the time limit").unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_ne!(result.is_error, Some(true), "{name}: {result:?}");
    let content = serde_json::to_value(&result.content).expect("content");
    content[0]["text"].as_str().unwrap_or_else(|| panic!("{name} returned no text: {result:?}")).to_owned()
}
